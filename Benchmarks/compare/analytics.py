"""quakes against DuckDB on the analyst's questions of issue 72, on one archive: top 10 places by
count, percentiles of depth over every row, 0.5-magnitude bins, and questions drawn at random with
HAVING, distinct counts, derived keys (date parts, time buckets, regions) and several keys.

    python Benchmarks/compare/analytics.py QUAKES STORE DUCKDB_CLI DUCKDB_FILE [--runs 3] [--draws 10] [--seed N]

STORE and DUCKDB_FILE hold the same CSV (`quakes load`; `CREATE TABLE quakes AS SELECT * FROM
read_csv(...)`). Whole processes: the quakes CLI and the duckdb CLI, the median of --runs runs after
a warm-up, with the peak RSS of the last. In-process: `quakes bench --queries` and DuckDB's Python
module, the median of --runs after a warm-up. Every answer is compared with DuckDB's (keys and counts
exactly, other numbers to 1e-12 relative); a difference is printed and fails the run.
"""
import argparse
import csv
import io
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import time

import duckdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Tests/quakesTests/Python"))
import check_agg_duckdb as questions  # noqa: E402  (the keys, metrics and conditions and their SQL)

FIXED = [
    ("top 10 places by count",
     "agg --by place --sort count:desc --limit 10",
     "SELECT place, count(*) FROM events GROUP BY place ORDER BY count(*) DESC, place LIMIT 10"),
    ("p50/p90/p99 of depth, all rows (discrete)",
     "agg --metrics p50(depth),p90(depth),p99(depth)",
     "SELECT quantile_disc(depth, 0.5), quantile_disc(depth, 0.9), quantile_disc(depth, 0.99) FROM events"),
    ("median of depth, all rows (interpolated)",
     "agg --metrics median(depth)",
     "SELECT median(depth) FROM events"),
    ("0.5-magnitude bins",
     "agg --by mag:0.5",
     "SELECT floor(mag / 0.5) * 0.5, count(*) FROM events GROUP BY 1"),
]


def drawn(rng, count):
    """`count` questions, each with at least one of HAVING, a distinct count, a derived key or 3+ keys."""
    derived = {"hourofday", "dayofweek", "quarter", "time:6h", "time:1w", "region"}
    out = []
    while len(out) < count:
        keys, metrics, having = questions.drawn(rng, 1)[0]
        if "place" in keys and len(keys) > 1:
            continue   # a place and another key: most groups hold one event, and the answer is the table
        if having or any(m.startswith("count(distinct") for m in metrics) or derived & set(keys) or len(keys) >= 3:
            args = " ".join(shlex.quote(a) for a in questions.agg_arguments(keys, metrics, having)
                            if a not in ("--format", "csv", "--no-header"))
            out.append((f"{' × '.join(keys)}: {', '.join(metrics)}" + (f" having {having}" if having else ""),
                        args, questions.sql(keys, metrics, having), (keys, metrics)))
    return out


def run_timed(command, runs):
    """The median seconds of `runs` runs after a warm-up, the last run's peak RSS (KiB) and stdout."""
    subprocess.run(command, capture_output=True, check=True)
    seconds, rss, output = [], 0, ""
    for _ in range(runs):
        started = time.perf_counter()
        process = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        if process.returncode != 0:
            raise SystemExit(f"failed: {command}: {process.stderr[-500:]}")
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", process.stderr)
        rss, output = int(found.group(1)) if found else 0, process.stdout
    return statistics.median(seconds), rss, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quakes")
    parser.add_argument("store")
    parser.add_argument("duckdb_cli")
    parser.add_argument("duckdb_file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(1 << 30))
    options = parser.parse_args()
    cases = [(name, args, sql, None) for name, args, sql in FIXED] + drawn(random.Random(options.seed), options.draws)
    view = "CREATE TEMP VIEW events AS SELECT * FROM quakes; "

    results, failures = [], []
    for name, args, sql, shape in cases:
        quakes_command = [options.quakes] + shlex.split(args) + ["--store", options.store, "--format", "csv",
                                                                 "--no-header"]
        duck_command = [options.duckdb_cli, "-readonly", "-csv", "-noheader", "-nullvalue", "", options.duckdb_file, "-c", view + sql]
        q_seconds, q_rss, q_out = run_timed(quakes_command, options.runs)
        d_seconds, d_rss, d_out = run_timed(duck_command, options.runs)
        mine = list(csv.reader(io.StringIO(q_out)))
        theirs = list(csv.reader(io.StringIO(d_out)))
        keys, metrics = shape if shape else (None, None)
        if keys is None:
            width = 1 if name.startswith(("top", "0.5")) else 0
            keys = ["key"] * width
            metrics = ["count" if name.startswith(("top", "0.5")) else "value"] * (len(mine[0]) - width if mine else 0)
        problems = questions.differences(keys, metrics, mine, theirs)
        if problems:
            failures.append(f"{name}: {problems[0]}")
        results.append((name, args, sql, q_seconds, q_rss, d_seconds, d_rss, len(mine)))

    # in-process: quakes bench over the same lines, DuckDB's module over the same SQL
    lines = os.path.join(os.path.dirname(os.path.abspath(options.store)), "analytics-queries.txt")
    with open(lines, "w") as out:
        for _, args, _, _ in cases:
            out.write(args + "\n")
    bench = subprocess.run([options.quakes, "bench", "--store", options.store, "--queries", lines,
                            "--runs", str(options.runs), "--json"], capture_output=True, text=True, check=True)
    import json
    in_process = [case["timing"]["medianMs"] for case in json.loads(bench.stdout)["cases"]]
    con = duckdb.connect(options.duckdb_file, read_only=True)
    con.execute(view)
    duck_in = []
    for _, _, sql, _ in cases:
        con.execute(sql).fetchall()
        timings = []
        for _ in range(options.runs):
            started = time.perf_counter()
            con.execute(sql).fetchall()
            timings.append((time.perf_counter() - started) * 1000)
        duck_in.append(statistics.median(timings))

    version = subprocess.run([options.duckdb_cli, "-version"], capture_output=True, text=True).stdout.split()[0]
    print(f"# quakes vs DuckDB {version} (CLI) and {duckdb.__version__} (module), seed {options.seed}, "
          f"{options.runs} runs\n")
    print("| question | groups | quakes CLI s | RSS MiB | duckdb CLI s | RSS MiB | CLI ratio | quakes in-process ms "
          "| DuckDB module ms | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for index, (name, args, _, q_seconds, q_rss, d_seconds, d_rss, groups) in enumerate(results):
        print(f"| {name} | {groups} | {q_seconds:.3f} | {q_rss / 1024:.0f} | {d_seconds:.3f} | {d_rss / 1024:.0f} | "
              f"{q_seconds / d_seconds:.2f} | {in_process[index]:.1f} | {duck_in[index]:.1f} | "
              f"{in_process[index] / duck_in[index]:.2f} |")
    print("\nThe questions as run:\n")
    for name, args, sql, _ in cases:
        print(f"- {name}: `quakes {args}` / `{sql}`")
    if failures:
        print("\nanswers that differ from DuckDB's:")
        for failure in failures:
            print("- " + failure)
        sys.exit(1)
    print("\nEvery answer equals DuckDB's.")


if __name__ == "__main__":
    main()
