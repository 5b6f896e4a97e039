"""The quake browser page of a `quakes serve --sync`, in headless Chromium driven by Selenium: an event
loaded into the upstream store shows on the open downstream page within the sync interval plus 2 s.

Starts an upstream `quakes serve` on a store loaded from FEED, and a downstream `quakes serve --sync`
of it (--every 2s, one UTC day: the feed's busiest); waits for the downstream store to hold the day;
opens the page on that day; loads one new event (a feature of the feed with a new id, on that day, and
an `updated` later than every other) into the upstream store; and times how long the page takes to
show its row. Prints "ok DELAY" and exits 0, or prints what it saw and exits 1. Both servers are
stopped in every case. Nothing but 127.0.0.1 is reached.

usage: check_sync_page.py QUAKES_BINARY SCRATCH_DIR FEED
"""
import collections, csv, datetime, io, json, os, re, shutil, subprocess, sys, threading, time

os.environ.setdefault("SE_OFFLINE", "true")
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

quakes, scratch, feed = sys.argv[1], sys.argv[2], sys.argv[3]
INTERVAL = 2.0                     # --every, seconds
ALLOWED = INTERVAL + 2.0           # the page shows the new event within this
NEW_ID = "zz9000001"
os.makedirs(scratch, exist_ok=True)
up_store, down_store = os.path.join(scratch, "up"), os.path.join(scratch, "down")
for old in (up_store, down_store):  # a scratch dir used before starts over
    shutil.rmtree(old, ignore_errors=True)
failures = []


def run(args):
    return subprocess.run([quakes] + args, capture_output=True, text=True)


def count(store, day):
    r = run(["count", "--store", store, "--day", day])
    return int(r.stdout.strip().replace(",", "")) if r.returncode == 0 and r.stdout.strip() else None


def cli_ids(store, day):
    r = run(["query", "--store", store, "--day", day, "--orderby", "time", "--format", "csv", "--fields", "id",
             "--limit", "1000000"])
    return [row["id"] for row in csv.DictReader(io.StringIO(r.stdout))] if r.returncode == 0 else None


class Server:
    """A `quakes serve --port 0 --quiet` and the port it printed; its standard error kept in `lines`."""

    def __init__(self, name, args):
        self.name, self.lines, self.port = name, [], None
        self.ready = threading.Event()
        self.process = subprocess.Popen([quakes, "serve", "--port", "0", "--quiet"] + args,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self.drain, daemon=True).start()
        servers.append(self)  # stopped at the end, whatever happens from here
        if not self.ready.wait(30) or self.port is None:
            raise RuntimeError(f"the {name} server printed no address:\n" + "\n".join(self.log()))

    def drain(self):
        for line in self.process.stderr:       # drained to the end, so that the sync log never blocks it
            self.lines.append((time.time(), line.rstrip("\n")))
            m = re.search(r"127\.0\.0\.1:(\d+)/", line)
            if m and self.port is None:
                self.port = int(m.group(1))
                self.ready.set()
        self.ready.set()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self, since=0.0):
        return [f"  {self.name} +{t - since:.2f}s: {line}" if since else f"  {self.name}: {line}"
                for t, line in self.lines if t >= since]


def wait(cond, timeout, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if cond():
                return True
        except Exception:
            pass
        time.sleep(step)
    return False


servers, driver = [], None
try:
    # the upstream: the feed, served
    r = run(["load", "--store", up_store, feed])
    if r.returncode not in (0, 1):
        raise RuntimeError(f"load {feed}: {r.stderr}")
    out = run(["query", "--store", up_store, "--format", "geojson", "--limit", "1000000"])
    if out.returncode != 0:
        raise RuntimeError(f"load {feed}: {r.stdout}{r.stderr}query: {out.stderr}")
    features = json.loads(out.stdout)["features"]
    if not features:
        raise RuntimeError(f"{feed} loaded no events: {r.stdout}{r.stderr}")
    days = collections.Counter(
        datetime.datetime.fromtimestamp(f["properties"]["time"] / 1000, datetime.timezone.utc).date().isoformat()
        for f in features)
    day = days.most_common(1)[0][0]
    next_day = (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
    want = count(up_store, day)
    up = Server("up", ["--store", up_store])

    # the downstream: a store made and kept current by --sync
    source = f"http://127.0.0.1:{up.port}/fdsnws/event/1/"
    down = Server("down", ["--store", down_store, "--sync", source, "--every", f"{INTERVAL:g}s",
                           "--from", day, "--to", next_day])
    if not wait(lambda: count(down_store, day) == want, 60, step=0.2):
        raise RuntimeError(f"the downstream store holds {count(down_store, day)} of the upstream's {want} "
                           f"events of {day} after 60 s\n" + "\n".join(down.log()))

    # the page, on the day
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900", "--disable-gpu",
              "--disable-background-networking", "--disable-component-update", "--no-first-run"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    driver.set_page_load_timeout(30)

    def rows():
        return driver.execute_script("return [...document.querySelectorAll('#rows tr')].map(r => r.dataset.eventId)")

    def live_on():
        return driver.execute_script("return document.getElementById('live').classList.contains('on')")

    def status():
        return driver.execute_script("const s = document.getElementById('status');"
                                     "return s.textContent + ' (generation ' + s.dataset.generation + ')'")

    driver.get(f"http://127.0.0.1:{down.port}/?day={day}")
    before_ids = cli_ids(down_store, day)
    if not wait(lambda: rows() == before_ids, 15):
        raise RuntimeError(f"the page shows {len(rows())} rows, the downstream store {len(before_ids)}: {status()}")
    # its live feed is open (its `hello` came), so a commit from now on reaches it
    if not wait(live_on, 15):
        raise RuntimeError("the page's live feed did not open")
    before = rows()
    if NEW_ID in before:
        raise RuntimeError(f"{NEW_ID} is already on the page")

    # one new event upstream: a feature of the day, with a new id and an `updated` later than every other
    base = next(f for f in features
                if datetime.datetime.fromtimestamp(f["properties"]["time"] / 1000, datetime.timezone.utc)
                .date().isoformat() == day)
    new = json.loads(json.dumps(base))
    p = new["properties"]
    noon = int(datetime.datetime.fromisoformat(day + "T12:00:00.123+00:00").timestamp() * 1000)
    p.update(net="zz", code=NEW_ID[2:], ids=f",{NEW_ID},", sources=",zz,", time=noon,
             updated=max(f["properties"]["updated"] or 0 for f in features) + 1000,
             place="5 km N of Sync Page Test", url=None, detail=None)
    p["title"] = f"M {p['mag']} - {p['place']}"
    new["id"] = NEW_ID
    new_file = os.path.join(scratch, "new.geojson")
    with open(new_file, "w") as f:
        json.dump({"type": "FeatureCollection", "features": [new]}, f)
    r = run(["load", "--store", up_store, new_file])
    committed = time.time()  # the load has committed once its process has exited
    if r.returncode != 0:
        raise RuntimeError(f"load {new_file} into the upstream: {r.stdout}{r.stderr}")

    shown = wait(lambda: NEW_ID in rows(), ALLOWED + 10, step=0.02)
    delay = time.time() - committed
    if not shown:
        failures.append(f"the page never showed {NEW_ID} ({ALLOWED + 10:.0f} s after the upstream load)")
    elif delay > ALLOWED:
        failures.append(f"the page showed {NEW_ID} {delay:.2f} s after the upstream load (allowed {ALLOWED:g} s)")
    after = rows()
    want_after = cli_ids(down_store, day)
    if shown and after != want_after:
        failures.append(f"the page's {len(after)} rows differ from the downstream store's {len(want_after)}")
    if shown and sorted(after) != sorted(before + [NEW_ID]):
        failures.append(f"before {len(before)} rows, after {len(after)}: more than {NEW_ID} changed")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        failures.append(f"console errors: {errors[:3]}")
    if failures:
        failures.append(f"page: {len(after)} rows, {NEW_ID} {'shown' if NEW_ID in after else 'not shown'}, "
                        f"{status()}, live {'on' if live_on() else 'off'}")
        failures.append(f"stores: upstream {count(up_store, day)}, downstream {count(down_store, day)} on {day}")
        failures.append("downstream log since the upstream load:")
        failures += down.log(since=committed) or ["  (nothing)"]
except Exception as e:
    failures.append(f"{type(e).__name__}: {e}")
finally:
    if driver is not None:
        driver.quit()
    for s in servers:
        s.stop()

if failures:
    print("\n".join(failures[:60]))
    sys.exit(1)
print(f"ok {delay:.2f}")
