"""Two builds of quakes side by side on one CSV: the load (a fresh store each time) and the ten
workload queries in-process (`quakes bench`) and as whole processes, the builds taking turns so
that the machine's drift lands on both alike. For a refactor that must not change speed.

    .build-venv/bin/python Benchmarks/compare/ab.py OLD_QUAKES NEW_QUAKES CSV WORK [--rounds 3] [--sets 5]

Prints, per step, each build's median and the ratio new / old.
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# compare.py imports the peers' modules at the top; only its workload is used here, so none is needed
for name in ("duckdb", "chdb"):
    if name not in sys.modules:
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
if not hasattr(sys.modules["chdb"], "session"):
    sys.modules["chdb"].session = types.ModuleType("chdb.session")
import compare  # noqa: E402  (the workload's queries and parameter sets)


def timed(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("csv")
    ap.add_argument("work")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sets", type=int, default=5)
    a = ap.parse_args()
    builds = {"old": a.old, "new": a.new}
    os.makedirs(a.work, exist_ok=True)
    params = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "params.json")))
    W = [compare.workload(params, k) for k in range(a.sets)]
    n = len(W[0])

    loads = {b: [] for b in builds}
    for _ in range(a.rounds):
        for b, q in builds.items():
            store = os.path.join(a.work, "store-" + b)
            shutil.rmtree(store, ignore_errors=True)
            loads[b].append(timed([q, "load", "--store", store, a.csv]))
    print(f"load of {os.path.basename(a.csv)}, {a.rounds} rounds, seconds")
    for b in builds:
        print(f"  {b}: " + ", ".join(f"{s:.2f}" for s in loads[b]))
    lo, ln = statistics.median(loads["old"]), statistics.median(loads["new"])
    print(f"  median old {lo:.2f}, new {ln:.2f}, new/old {ln / lo:.3f}")

    # in-process: both builds read the same store (the new build's), each query once per set
    store = os.path.join(a.work, "store-new")
    qfile = os.path.join(a.work, "queries.txt")
    with open(qfile, "w") as f:
        for k in range(a.sets):
            for _, cli, _, _ in W[k]:
                f.write(cli.replace(" --format csv", "") + "\n")
    inproc = {b: [[] for _ in range(n)] for b in builds}
    for _ in range(a.rounds):
        for b, q in builds.items():
            out = subprocess.run([q, "bench", "--store", store, "--queries", qfile, "--runs", "3", "--json"],
                                 capture_output=True, text=True, check=True)
            parsed = json.loads(out.stdout)
            # the bench of issue 72 and later: {"cases": [{"timing": {"medianMs"}}]}; before it, a list
            res = [c["timing"]["medianMs"] for c in parsed["cases"]] if isinstance(parsed, dict) \
                else [c["medianMs"] for c in parsed]
            for i in range(n):
                inproc[b][i].append(statistics.median(res[k * n + i] for k in range(a.sets)))
    whole = {b: [[] for _ in range(n)] for b in builds}
    for _ in range(a.rounds):
        for i in range(n):
            for b, q in builds.items():
                for k in range(a.sets):
                    whole[b][i].append(1000 * timed([q] + shlex.split(W[k][i][1]) + ["--store", store]))
    print("query: in-process median ms old / new (ratio) | whole process median ms old / new (ratio)")
    for i in range(n):
        io, inew = statistics.median(inproc["old"][i]), statistics.median(inproc["new"][i])
        wo, wn = statistics.median(whole["old"][i]), statistics.median(whole["new"][i])
        print(f"  {i + 1:2d} {W[0][i][0]:<48} {io:8.2f} / {inew:8.2f} ({inew / io:5.2f}) | "
              f"{wo:8.2f} / {wn:8.2f} ({wn / wo:5.2f})")


if __name__ == "__main__":
    main()
