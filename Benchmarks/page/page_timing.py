"""The page in headless Chromium: time from navigation to the list and map drawn (the page's own
`performance.mark("quakes-drawn")`, set after the frame that shows both), on days drawn at random
from a store, each opened several times. Prints one line per day and the medians.

usage: page_timing.py QUAKES_BINARY STORE [--days N] [--runs K] [--seed S] [--min-events E] [--max-events F]
"""
import argparse, csv, io, os, random, socket, statistics, subprocess, sys, time

os.environ.setdefault("SE_OFFLINE", "true")
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ap = argparse.ArgumentParser()
ap.add_argument("quakes")
ap.add_argument("store")
ap.add_argument("--days", type=int, default=5)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
ap.add_argument("--min-events", type=int, default=4500)
ap.add_argument("--max-events", type=int, default=5500)
a = ap.parse_args()
print(f"seed {a.seed}")

out = subprocess.run([a.quakes, "agg", "--store", a.store, "--by", "day", "--metrics", "count",
                      "--format", "csv", "--limit", "100000"], capture_output=True, text=True, check=True)
rows = list(csv.reader(io.StringIO(out.stdout)))[1:]
days = [(r[0][:10], int(r[1])) for r in rows if a.min_events <= int(r[1]) <= a.max_events]
if not days:
    sys.exit(f"no day of the store has {a.min_events} to {a.max_events} events")
picked = random.Random(a.seed).sample(days, min(a.days, len(days)))

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen([a.quakes, "serve", "--store", a.store, "--port", str(port), "--quiet"],
                          stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
time.sleep(1.0)
opts = webdriver.ChromeOptions()
opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900", "--disable-gpu"]:
    opts.add_argument(arg)
driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
medians, stages = [], []
# when each stage ended: the page's request answered, its answer parsed, the list and the map
# written, and the frame that shows them
STAGES = """
const o = {};
const r = performance.getEntriesByType('resource').find(e => e.name.includes('/api/day'));
o['request sent'] = r.startTime; o['answer in'] = r.responseEnd;
const nav = performance.getEntriesByType('navigation')[0];
o['page in'] = nav.responseEnd; o['scripts run'] = nav.domInteractive;
for (const n of ['js', 'setup', 'ready', 'text', 'data', 'list', 'map', 'drawn', 'coastlines']) {
  const m = performance.getEntriesByName('quakes-' + n); o[n] = m.length ? m[0].startTime : -1;
}
return o;
"""
try:
    for day, n in picked:
        times = []
        for _ in range(a.runs + 1):
            driver.get("about:blank")  # the previous page's teardown is not this page's time
            driver.get(f"http://127.0.0.1:{port}/?day={day}")
            end = time.time() + 20
            t = None
            while time.time() < end and t is None:
                t = driver.execute_script(
                    "const m = performance.getEntriesByName('quakes-drawn'); return m.length ? m[0].startTime : null")
                time.sleep(0.02)
            rows = driver.execute_script("return document.querySelectorAll('#rows tr').length")
            if t is None or rows != n:
                sys.exit(f"{day}: not drawn ({rows} rows of {n})")
            times.append(t)
            stages.append(driver.execute_script(STAGES))
        times = times[1:]  # the first opening warms the browser's cache of the page's files
        med = statistics.median(times)
        medians.append(med)
        print(f"{day}  {n:6d} events  median {med:7.1f} ms  (runs: {', '.join(f'{x:.0f}' for x in times)})")
        keys = stages[-1].keys()
        print("    stages (median ms from navigation): " + ", ".join(
            f"{k} {statistics.median(s[k] for s in stages[-a.runs:]):.0f}" for k in keys))
    print(f"median over days {statistics.median(medians):.1f} ms, worst day {max(medians):.1f} ms")
finally:
    driver.quit()
    server.terminate()
    server.wait()
