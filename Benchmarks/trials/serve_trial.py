#!/usr/bin/env python3
"""quakes serve under many connections while `quakes load` commits in another process, and while
loads are killed with SIGKILL at random instants: every answer must come from one whole snapshot.

By hand (not in CI):  python3 Benchmarks/trials/serve_trial.py --quakes .build/release/quakes

Each reader keeps one HTTP connection open and asks, over and over, for the store-wide count and
for a GeoJSON page. The writer alone changes the store: after each load (finished or killed) it
records the generation and the count the CLI sees. At the end every answer must match the count
recorded for the generation it names in X-Quakes-Generation, every GeoJSON body must parse with
as many features as X-Quakes-Rows says, and no status may be other than 200.
"""
import argparse, glob, http.client, json, os, random, re, shutil, signal, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--quakes", default=".build/release/quakes")
ap.add_argument("--usgs", default="../shared/usgs")
ap.add_argument("--readers", type=int, default=32)
ap.add_argument("--loads", type=int, default=16)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
random.seed(a.seed)
Q = os.path.abspath(a.quakes)
feeds = sorted(glob.glob(os.path.join(a.usgs, "*.csv")) + glob.glob(os.path.join(a.usgs, "*.geojson")))
work = tempfile.mkdtemp(prefix="quakes-serve-trial-")
store = os.path.join(work, "s")


def cli(*args):
    return subprocess.run([Q, *args], capture_output=True, text=True)


def state():
    info = json.loads(cli("info", "--store", store, "--json").stdout)
    return info["generation"], int(cli("count", "--store", store).stdout)


assert cli("load", "--store", store, feeds[0]).returncode == 0
expected = {}
g, n = state()
expected[g] = n

server = subprocess.Popen([Q, "serve", "--store", store, "--port", "0", "--quiet"], stderr=subprocess.PIPE, text=True)
port = int(re.search(r"127\.0\.0\.1:(\d+)", server.stderr.readline()).group(1))

stop = threading.Event()
seen = []          # (generation, count)
pages = [0]
bad = []
lock = threading.Lock()


def reader(k):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    paths = ["/fdsnws/event/1/count?starttime=1900-01-01",
             "/fdsnws/event/1/query?starttime=1900-01-01&format=geojson&limit=200&orderby=magnitude"]
    i = k
    while not stop.is_set():
        path = paths[i % 2]
        i += 1
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            body = r.read()
        except Exception as e:  # a dropped connection is a failure too
            with lock:
                bad.append(f"{path}: {e!r}")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        gen = int(r.getheader("X-Quakes-Generation", "-1"))
        if r.status != 200:
            with lock:
                bad.append(f"{path}: status {r.status}: {body[:200]!r}")
            continue
        if "count" in path:
            with lock:
                seen.append((gen, int(body)))
        else:
            doc = json.loads(body)
            rows = int(r.getheader("X-Quakes-Rows", "-1"))
            if len(doc["features"]) != rows:
                with lock:
                    bad.append(f"geojson of generation {gen}: {len(doc['features'])} features, header says {rows}")
            with lock:
                pages[0] += 1


threads = [threading.Thread(target=reader, args=(k,)) for k in range(a.readers)]
for t in threads:
    t.start()
killed = committed = 0
start = time.time()
for k in range(a.loads):
    f = random.choice(feeds[1:])
    p = subprocess.Popen([Q, "load", "--store", store, f], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if k % 2 == 1:
        time.sleep(random.uniform(0.02, 0.6))
        p.send_signal(signal.SIGKILL)
        killed += 1
    p.wait()
    g, n = state()
    if g not in expected:
        committed += 1
    expected[g] = n
    time.sleep(0.2)
stop.set()
for t in threads:
    t.join()
server.send_signal(signal.SIGINT)
server.wait(timeout=10)

wrong = [(g, c) for g, c in seen if expected.get(g) != c]
gens = sorted({g for g, _ in seen})
print(f"{a.readers} readers, {len(seen)} counts and {pages[0]} GeoJSON pages over {time.time() - start:.1f} s; "
      f"{a.loads} loads ({killed} killed with SIGKILL), {committed} new generations; "
      f"answers named generations {gens[0]}..{gens[-1]} ({len(gens)} distinct)")
print(f"wrong counts: {len(wrong)}; failed requests: {len(bad)}")
for x in (wrong[:5] + bad[:5]):
    print("  ", x)
shutil.rmtree(work)
sys.exit(1 if wrong or bad else 0)
