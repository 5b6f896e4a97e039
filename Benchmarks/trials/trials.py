#!/usr/bin/env python3
"""Reliability trials for quakes (make trials; by hand, not in CI).

  crash:       kill -9 a load at a random instant; the store must verify and equal the
               snapshot before or after the load.
  corruption:  flip, truncate or delete bytes in every kind of store file; every query must
               give the undamaged answer or exit 1 with one line naming a file. Never a
               different answer, never a crash.
  readers:     queries run while loads commit; each answer must equal one whole snapshot.

Prints one summary line per trial kind and exits 1 if any trial failed.
"""
import argparse, glob, os, random, shutil, signal, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--quakes", default=".build/release/quakes")
ap.add_argument("--usgs", default="../shared/usgs")
ap.add_argument("--crash", type=int, default=50)
ap.add_argument("--corruption", type=int, default=200)
ap.add_argument("--readers", type=int, default=10)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
Q = os.path.abspath(a.quakes)
rng = random.Random(a.seed)
work = tempfile.mkdtemp(prefix="quakes-trials-")
feeds = sorted(glob.glob(os.path.join(a.usgs, "csv_*.csv")) + glob.glob(os.path.join(a.usgs, "geojson_*.geojson")))
if not feeds:
    sys.exit(f"no feeds under {a.usgs}")
base, more = feeds[::2], feeds[1::2]

def run(*args, timeout=120):
    p = subprocess.run([Q, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr

def snapshot(store):
    rc, out, err = run("query", "--store", store, "--format", "csv", "--sort", "id", "--limit", "100000000")
    if rc != 0:
        raise RuntimeError(f"export failed: {err.strip()}")
    return out

QUERIES = [
    ["count"],
    ["count", "--from", "2019-06-01", "--to", "2019-08-01"],
    ["count", "--min-mag", "4.5"],
    ["query", "--format", "csv", "--sort", "mag:desc", "--limit", "20"],
    ["query", "--format", "csv", "--day", "2019-07-06", "--sort", "mag:desc"],
    ["query", "--format", "csv", "--place-like", "alaska", "--sort", "time:desc", "--limit", "50"],
    ["agg", "--by", "year", "--metrics", "count,avg(mag),max(depth)", "--format", "csv"],
    ["query", "--format", "csv", "--sort", "id", "--limit", "100000000"],
]

def answers(store):
    out = []
    for q in QUERIES:
        try:
            out.append(run(q[0], "--store", store, *q[1:], timeout=60))
        except subprocess.TimeoutExpired:
            out.append((-999, "", "timeout"))
    return out

def load(store, files, extra=()):
    return subprocess.Popen([Q, "load", "--store", store, *extra, *files],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

# ---- a pristine store: the base feeds, then the rest (two generations, retired files)
pristine = os.path.join(work, "pristine")
for files in (base, more):
    p = load(pristine, files); p.wait()
    if p.returncode != 0:
        sys.exit("setup load failed: " + p.stderr.read().decode())
before = os.path.join(work, "before")
p = load(before, base); p.wait()
snap_before, snap_after = snapshot(before), snapshot(pristine)
truth = answers(pristine)
failures = []

# ---- crash trials
t0 = time.time(); p = load(os.path.join(work, "timing"), more, ); p.wait()
shutil.rmtree(os.path.join(work, "timing"))
t_full = time.time() - t0
crash = {"before": 0, "after": 0, "bad": 0}
for i in range(a.crash):
    store = os.path.join(work, f"crash{i}")
    shutil.copytree(before, store)
    p = load(store, more)
    time.sleep(rng.uniform(0, t_full * 1.1))
    p.send_signal(signal.SIGKILL); p.wait()
    rc, out, err = run("verify", "--store", store)
    s = snapshot(store) if rc == 0 else None
    if rc != 0:
        crash["bad"] += 1; failures.append(f"crash {i}: verify: {err.strip()}")
    elif s == snap_before:
        crash["before"] += 1
    elif s == snap_after:
        crash["after"] += 1
    else:
        crash["bad"] += 1; failures.append(f"crash {i}: snapshot equals neither before nor after")
    # the next load collects leftovers and completes
    p = load(store, more); p.wait()
    if p.returncode != 0 or snapshot(store) != snap_after:
        crash["bad"] += 1; failures.append(f"crash {i}: the load after the crash did not complete")
    shutil.rmtree(store)
print(f"crash trials: {a.crash}, killed after 0-{t_full * 1.1:.2f}s; {crash['before']} before, "
      f"{crash['after']} after, {crash['bad']} failed")

# ---- corruption trials
kinds = {"manifest": ["manifest.qkm"], "partition": None, "id-index": None}
corr = {"same": 0, "error": 0, "wrong": 0, "crash": 0, "vague": 0}
by_kind = {}
for i in range(a.corruption):
    store = os.path.join(work, f"corrupt{i}")
    shutil.copytree(pristine, store)
    files = ["manifest.qkm"] + ["partitions/" + f for f in os.listdir(os.path.join(store, "partitions"))] \
        + ["ids/" + f for f in os.listdir(os.path.join(store, "ids"))]
    kind = ["manifest", "partition", "id-index"][i % 3]
    pool = [f for f in files if (kind == "manifest" and f == "manifest.qkm")
            or (kind == "partition" and f.startswith("partitions/")) or (kind == "id-index" and f.startswith("ids/"))]
    target = rng.choice(pool)
    path = os.path.join(store, target)
    action = ["flip", "flip", "truncate", "delete"][rng.randrange(4)]
    data = bytearray(open(path, "rb").read())
    if action == "flip":
        at = rng.randrange(len(data)); data[at] ^= 1 << rng.randrange(8)
        open(path, "wb").write(data)
    elif action == "truncate":
        open(path, "wb").write(data[:rng.randrange(len(data))])
    else:
        os.remove(path)
    by_kind.setdefault(f"{kind}/{action}", 0)
    by_kind[f"{kind}/{action}"] += 1
    for q, (rc, out, err), want in zip(QUERIES, answers(store), truth):
        if rc == 0 and out == want[1]:
            corr["same"] += 1
        elif rc == 1 and len(err.strip().splitlines()) == 1 and ("/" in err or ".qk" in err):
            corr["error"] += 1
        elif rc == 0:
            corr["wrong"] += 1; failures.append(f"corruption {i} ({action} {target}): {' '.join(q)}: silent wrong answer")
        elif rc < 0 or rc > 2:
            corr["crash"] += 1; failures.append(f"corruption {i} ({action} {target}): {' '.join(q)}: exit {rc} {err[:200]}")
        else:
            corr["vague"] += 1; failures.append(f"corruption {i} ({action} {target}): {' '.join(q)}: unclear error {err[:300]!r}")
    shutil.rmtree(store)
print(f"corruption trials: {a.corruption} ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}); "
      f"{len(QUERIES) * a.corruption} queries: {corr['same']} undamaged answers, {corr['error']} clear errors, "
      f"{corr['wrong']} silent wrong answers, {corr['crash']} crashes, {corr['vague']} unclear errors")

# ---- concurrent readers during loads
rd = {"answers": 0, "before": 0, "after": 0, "bad": 0}
count_before, count_after = run("count", "--store", before)[1], run("count", "--store", pristine)[1]
agg_q = QUERIES[6]
agg_before = run(agg_q[0], "--store", before, *agg_q[1:])[1]
agg_after = truth[6][1]
for i in range(a.readers):
    store = os.path.join(work, f"readers{i}")
    shutil.copytree(before, store)
    p = load(store, more)
    while p.poll() is None:
        for q, b, af in ((["count"], count_before, count_after), (agg_q, agg_before, agg_after)):
            rc, out, err = run(q[0], "--store", store, *q[1:])
            rd["answers"] += 1
            if rc == 0 and out == b: rd["before"] += 1
            elif rc == 0 and out == af: rd["after"] += 1
            else:
                rd["bad"] += 1; failures.append(f"readers {i}: {' '.join(q)}: exit {rc}, {out[:80]!r} {err[:200]!r}")
    shutil.rmtree(store)
print(f"reader trials: {a.readers} loads, {rd['answers']} answers during them: {rd['before']} of the snapshot before, "
      f"{rd['after']} of the snapshot after, {rd['bad']} other")

for f in failures[:30]:
    print("  " + f)
shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
