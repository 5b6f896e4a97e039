#!/usr/bin/env python3
"""Whole processes, quakes against sqlite3, per draw with `hyperfine -N` (no shell, system time
included): for each of the comparison's draws (compare.py's queries, draws.py's seeded draws),
RUNS runs of each side after a warm-up, and the ratio of the medians. Prints per query the
median and the worst ratio over the draws, and how many draws quakes lost.

By hand only, after run.sh has built the stores:
  python3 Benchmarks/compare/whole.py QUAKES WORK SEED QUERIES   (e.g. ... /work/bench 301614794 1,2,3,4)
Run it with the venv's python (compare.py imports duckdb and chdb).
"""
import json, os, shlex, sqlite3, statistics, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare, draws  # noqa: E402

RUNS = int(os.environ.get("RUNS", "80"))


def main():
    quakes, work, seed, which = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    params = json.load(open(os.path.join(here, "params.json")))
    store, lite = os.path.join(work, "quakes.store"), os.path.join(work, "quakes.sqlite")
    D = draws.draws(params, sqlite3.connect(lite), int(os.environ.get("DRAWS", "20")), seed)
    out = os.path.join(tempfile.mkdtemp(), "hyperfine.json")
    print(f"| query | quakes median ms | sqlite3 median ms | ratio median | worst | draws over 1 |\n|---|---:|---:|---:|---:|---:|")
    for qi in [int(x) for x in which.split(",")]:
        rs = []
        for k, d in enumerate(D):
            name, cli, _, sql = compare.queries(d)[qi - 1]
            mine = shlex.join([quakes] + shlex.split(cli) + ["--store", store])
            theirs = shlex.join(["sqlite3", lite, sql])
            subprocess.run(["hyperfine", "-N", "-w", "10", "-r", str(RUNS), "--export-json", out, mine, theirs],
                           capture_output=True, check=True)
            r = json.load(open(out))["results"]
            rs.append((r[0]["median"] / r[1]["median"], k, r[0]["median"] * 1000, r[1]["median"] * 1000))
        worst = max(rs)
        print(f"| {name} | {statistics.median(x[2] for x in rs):.2f} | {statistics.median(x[3] for x in rs):.2f} | "
              f"{statistics.median(x[0] for x in rs):.2f} | {worst[0]:.2f} (d{worst[1]}) | "
              f"{sum(1 for x in rs if x[0] > 1)} of {len(rs)} |")


if __name__ == "__main__":
    main()
