"""GeoJSON bulk load: quakes against DuckDB's read_json, whole processes run in turn, one of each
per round, so the machine's drift lands on both alike. Prints each engine's median seconds and
peak RSS, and the ratio of rates.

    python3 Benchmarks/compare/geojson.py ROUNDS QUAKES_BINARY FILE.geojson [WORKDIR]

DuckDB runs in a child Python (this interpreter, which must have the duckdb module) that
creates a table from `read_json` on the file: DuckDB detects the FeatureCollection and makes
one row per feature. quakes loads the file into a fresh store.
"""
import os
import shutil
import statistics
import sys
import time

DUCK = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE q AS SELECT * FROM read_json(?)", [sys.argv[2]])
n = con.execute("SELECT count(*) FROM q").fetchone()[0]
assert n > 0, "no rows"
"""


def run(cmd):
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - t0
    os.close(devnull)
    if status != 0:
        sys.exit(f"{cmd[0]} exited with status {status}")
    return seconds, usage.ru_maxrss / 1024


def main():
    rounds, quakes, feed = int(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    work = sys.argv[4] if len(sys.argv) > 4 else "/tmp/geojson-compare"
    os.makedirs(work, exist_ok=True)
    store, db = os.path.join(work, "q.store"), os.path.join(work, "q.duckdb")
    script = os.path.join(work, "duck.py")
    with open(script, "w") as f:
        f.write(DUCK)
    results = {"quakes": [], "duckdb": []}
    for _ in range(rounds):
        shutil.rmtree(store, ignore_errors=True)
        results["quakes"].append(run([quakes, "load", "--store", store, feed]))
        for p in (db, db + ".wal"):
            if os.path.exists(p):
                os.remove(p)
        results["duckdb"].append(run([sys.executable, script, db, feed]))
    size = os.path.getsize(feed) / 1e6
    med = {}
    for name, rs in results.items():
        med[name] = statistics.median(s for s, _ in rs)
        rss = max(m for _, m in rs)
        print(f"{name:7} median {med[name]:.2f} s  ({size / med[name]:.0f} MB/s)  runs "
              + ", ".join(f"{s:.2f}" for s, _ in rs) + f"  peak RSS {rss:.0f} MiB")
    print(f"quakes / duckdb time {med['quakes'] / med['duckdb']:.2f}x; rate {med['duckdb'] / med['quakes']:.2f}x "
          f"DuckDB's ({size:.0f} MB file)")


if __name__ == "__main__":
    main()
