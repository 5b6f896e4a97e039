#!/usr/bin/env python3
"""Runs the quakes workload on quakes, DuckDB and SQLite over one CSV and prints one table.

In-process timings: warm, median of 5 (DuckDB and SQLite through their Python modules,
quakes through `quakes bench --queries`, which runs in-process too). Whole-process timings:
median of 5 runs of the quakes CLI, the duckdb CLI and the sqlite3 CLI.
"""
import argparse, json, os, re, shutil, sqlite3, statistics, subprocess, sys, time

import duckdb

DAY, DAY_END, YEAR, YEAR_END = "2024-06-15", "2024-06-16", "2023-01-01", "2024-01-01"
COLS = "time, mag, place, id"

# name, quakes CLI args, DuckDB SQL, SQLite SQL
WORKLOAD = [
    ("1 day map: place contains locality, by mag desc",
     f"query --day {DAY} --place Alaska --sort mag:desc --fields time,mag,place,id --format csv",
     f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{DAY}' AND time < TIMESTAMPTZ '{DAY_END}' AND place LIKE '%Alaska%' ORDER BY mag DESC NULLS LAST, id",
     f"SELECT {COLS} FROM quakes WHERE time >= '{DAY}' AND time < '{DAY_END}' AND instr(place, 'Alaska') > 0 ORDER BY mag DESC NULLS LAST, id"),
    ("2 day list: time desc, page 3 of 50",
     f"query --day {DAY} --sort time:desc --page 3 --page-size 50 --fields time,mag,place,id --format csv",
     f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{DAY}' AND time < TIMESTAMPTZ '{DAY_END}' ORDER BY time DESC, id LIMIT 50 OFFSET 100",
     f"SELECT {COLS} FROM quakes WHERE time >= '{DAY}' AND time < '{DAY_END}' ORDER BY time DESC, id LIMIT 50 OFFSET 100"),
    ("3 count mag >= 4.5",
     "count --min-mag 4.5",
     "SELECT count(*) FROM quakes WHERE mag >= 4.5",
     "SELECT count(*) FROM quakes WHERE mag >= 4.5"),
    ("4 place contains country, top 100 by mag",
     "query --place Chile --sort mag:desc --limit 100 --fields time,mag,place,id --format csv",
     f"SELECT {COLS} FROM quakes WHERE place LIKE '%Chile%' ORDER BY mag DESC NULLS LAST, id LIMIT 100",
     f"SELECT {COLS} FROM quakes WHERE instr(place, 'Chile') > 0 ORDER BY mag DESC NULLS LAST, id LIMIT 100"),
    ("5 one year by month: count, avg, max",
     f"agg --from {YEAR} --to {YEAR_END} --by month --metrics count,avg(mag),max(mag) --format csv",
     f"SELECT date_trunc('month', time) AS m, count(*), avg(mag), max(mag) FROM quakes WHERE time >= TIMESTAMPTZ '{YEAR}' AND time < TIMESTAMPTZ '{YEAR_END}' GROUP BY m ORDER BY m",
     f"SELECT substr(time, 1, 7) AS m, count(*), avg(mag), max(mag) FROM quakes WHERE time >= '{YEAR}' AND time < '{YEAR_END}' GROUP BY m ORDER BY m"),
    ("6 by net: count, avg(mag), max(depth)",
     "agg --by net --metrics count,avg(mag),max(depth) --format csv",
     "SELECT net, count(*), avg(mag), max(depth) FROM quakes GROUP BY net ORDER BY net",
     "SELECT net, count(*), avg(mag), max(depth) FROM quakes GROUP BY net ORDER BY net"),
    ("7 time desc, offset 1,000,000, limit 100",
     "query --sort time:desc --offset 1000000 --limit 100 --fields time,mag,place,id --format csv",
     f"SELECT {COLS} FROM quakes ORDER BY time DESC, id LIMIT 100 OFFSET 1000000",
     f"SELECT {COLS} FROM quakes ORDER BY time DESC, id LIMIT 100 OFFSET 1000000"),
    ("8 place like 'california', count",
     "count --place-like california",
     "SELECT count(*) FROM quakes WHERE place ILIKE '%california%'",
     "SELECT count(*) FROM quakes WHERE place LIKE '%california%'"),
    ("9 one year, top 10 by mag",
     f"query --from {YEAR} --to {YEAR_END} --sort mag:desc --limit 10 --fields time,mag,place,id --format csv",
     f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{YEAR}' AND time < TIMESTAMPTZ '{YEAR_END}' ORDER BY mag DESC NULLS LAST, id LIMIT 10",
     f"SELECT {COLS} FROM quakes WHERE time >= '{YEAR}' AND time < '{YEAR_END}' ORDER BY mag DESC NULLS LAST, id LIMIT 10"),
    ("10 box with mag >= 2, count",
     "count --bbox 32,42,-125,-114 --min-mag 2",
     "SELECT count(*) FROM quakes WHERE latitude BETWEEN 32 AND 42 AND longitude BETWEEN -125 AND -114 AND mag >= 2",
     "SELECT count(*) FROM quakes WHERE latitude BETWEEN 32 AND 42 AND longitude BETWEEN -125 AND -114 AND mag >= 2"),
]

SQLITE_SCHEMA = """CREATE TABLE quakes (time TEXT, latitude REAL, longitude REAL, depth REAL, mag REAL, magType TEXT,
nst INTEGER, gap REAL, dmin REAL, rms REAL, net TEXT, id TEXT, updated TEXT, place TEXT, type TEXT,
horizontalError REAL, depthError REAL, magError REAL, magNst INTEGER, status TEXT, locationSource TEXT, magSource TEXT);"""


def timed(fn):
    t = time.perf_counter()
    r = fn()
    return time.perf_counter() - t, r


def median_ms(fn, runs=5):
    fn()
    times = []
    for _ in range(runs):
        t, r = timed(fn)
        times.append(t * 1000)
    return statistics.median(times), r


def rss_of(cmd):
    """Runs cmd under /usr/bin/time -v; returns (seconds, peak RSS KiB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode not in (0,):
        print(p.stdout, p.stderr, file=sys.stderr)
        raise SystemExit(f"failed: {cmd}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return secs, int(m.group(1)) if m else 0, p.stdout


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quakes", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    csv_bytes = os.path.getsize(a.csv)
    qs, ddb, sdb = os.path.join(a.work, "quakes.store"), os.path.join(a.work, "quakes.duckdb"), os.path.join(a.work, "quakes.sqlite")
    # Move earlier stores aside and delete them only at the end: ext4 makes file creation slow
    # right after many deletions (recently_deleted inode scans), which would skew the loads.
    old = os.path.join(a.work, "old-%d" % int(time.time()))
    os.makedirs(old)
    for p in (qs, ddb, sdb):
        if os.path.exists(p):
            os.rename(p, os.path.join(old, os.path.basename(p)))
    time.sleep(int(os.environ.get("SETTLE", "10")))

    loads = {}
    secs, rss, _ = rss_of([a.quakes, "load", "--store", qs, a.csv])
    loads["quakes"] = (secs, rss, du(qs))
    secs, rss, _ = rss_of([sys.executable, "-c",
                           f"import duckdb; c=duckdb.connect({ddb!r}); c.execute(\"CREATE TABLE quakes AS SELECT * FROM read_csv({a.csv!r}, header=true)\"); c.execute('CHECKPOINT')"])
    loads["duckdb"] = (secs, rss, du(ddb))
    script = f"{SQLITE_SCHEMA}\n.mode csv\n.import --skip 1 {a.csv} quakes\nCREATE INDEX quakes_time ON quakes(time);\nCREATE INDEX quakes_mag ON quakes(mag);\n"
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", "sqlite3", sdb], input=script, capture_output=True, text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    loads["sqlite"] = (time.perf_counter() - t0, int(m.group(1)) if m else 0, du(sdb))

    # in-process
    qfile = os.path.join(a.work, "queries.txt")
    with open(qfile, "w") as f:
        for _, cli, _, _ in WORKLOAD:
            f.write(re.sub(r" --format \w+", "", cli) + "\n")
    out = subprocess.run([a.quakes, "bench", "--store", qs, "--queries", qfile, "--runs", str(a.runs), "--json"], capture_output=True, text=True, check=True)
    quakes_in = [r["medianMs"] for r in json.loads(out.stdout)]
    quakes_rows = [r["rowsOut"] for r in json.loads(out.stdout)]
    dcon = duckdb.connect(ddb, read_only=True)
    scon = sqlite3.connect(sdb)
    duck_in, lite_in, duck_rows, lite_rows = [], [], [], []
    for _, _, dsql, ssql in WORKLOAD:
        ms, r = median_ms(lambda: dcon.execute(dsql).fetchall(), a.runs)
        duck_in.append(ms); duck_rows.append(r[0][0] if len(r) == 1 and len(r[0]) == 1 else len(r))
        ms, r = median_ms(lambda: scon.execute(ssql).fetchall(), a.runs)
        lite_in.append(ms); lite_rows.append(r[0][0] if len(r) == 1 and len(r[0]) == 1 else len(r))

    # whole processes
    def proc_ms(cmd):
        return median_ms(lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True), a.runs)[0]
    quakes_cli, duck_cli, lite_cli = [], [], []
    for _, cli, dsql, ssql in WORKLOAD:
        quakes_cli.append(proc_ms([a.quakes] + cli.split() + ["--store", qs]))
        duck_cli.append(proc_ms(["duckdb", "-readonly", ddb, "-c", dsql]))
        lite_cli.append(proc_ms(["sqlite3", sdb, ssql]))

    shutil.rmtree(old, ignore_errors=True)
    print(f"# quakes vs DuckDB {duckdb.__version__} vs SQLite {sqlite3.sqlite_version}, {os.path.basename(a.csv)} ({csv_bytes / 1e6:.0f} MB)\n")
    print("| load | seconds | MB/s | peak RSS MiB | size MB |\n|---|---:|---:|---:|---:|")
    for k, (s, r, b) in loads.items():
        print(f"| {k} | {s:.1f} | {csv_bytes / 1e6 / s:.0f} | {r / 1024:.0f} | {b / 1e6:.0f} |")
    print("\nIn-process, warm, median of 5 (ms); ratio = quakes / peer, below 1 means quakes is faster\n")
    print("| query | quakes | DuckDB | SQLite | quakes/DuckDB | quakes/best | rows q/d/s |\n|---|---:|---:|---:|---:|---:|---|")
    for i, (name, _, _, _) in enumerate(WORKLOAD):
        best = min(duck_in[i], lite_in[i])
        print(f"| {name} | {quakes_in[i]:.2f} | {duck_in[i]:.2f} | {lite_in[i]:.2f} | {quakes_in[i] / duck_in[i]:.2f} | {quakes_in[i] / best:.2f} | {quakes_rows[i]}/{duck_rows[i]}/{lite_rows[i]} |")
    print("\nWhole CLI processes, median of 5 (ms)\n")
    print("| query | quakes | duckdb CLI | sqlite3 CLI | quakes/DuckDB | quakes/best |\n|---|---:|---:|---:|---:|---:|")
    for i, (name, _, _, _) in enumerate(WORKLOAD):
        best = min(duck_cli[i], lite_cli[i])
        print(f"| {name} | {quakes_cli[i]:.1f} | {duck_cli[i]:.1f} | {lite_cli[i]:.1f} | {quakes_cli[i] / duck_cli[i]:.2f} | {quakes_cli[i] / best:.2f} |")


if __name__ == "__main__":
    main()
