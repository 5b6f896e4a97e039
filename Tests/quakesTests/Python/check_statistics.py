"""The quake browser page's Statistics panel, in headless Chromium driven by Selenium against a live
`quakes serve` on the real USGS feeds, checked against `quakes fmd --format json`. One scenario, one session:

  statistics  the busiest day opened, the panel opened from its button: n, events without magnitude, Mc,
              events at or above Mc, b, sigma and a equal the CLI's for the same day to the last digit; the
              plot has a point per non-empty bin, Mc marked and the Gutenberg-Richter line; the bars in time
              sum to n; the URL keeps the panel open; the next day refetches it (the CLI's figures again);
              Escape closes it

Also checks for console errors and saves SHOTDIR/page-statistics.png. Prints "ok N checks" and exits 0, or
prints the failures and exits 1.

usage: check_statistics.py SCENARIO PORT STORE QUAKES_BINARY SHOTDIR
"""
import csv, datetime, io, json, os, subprocess, sys, time, traceback, urllib.parse

os.environ.setdefault("SE_OFFLINE", "true")
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

scenario, port, store, quakes, shotdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
base = f"http://127.0.0.1:{port}/"
failures, checks = [], 0
driver = None

# the panel's figures: element id -> the key of `quakes fmd --format json`
FIGURES = {"stats-n": "count", "stats-nomag": "without_magnitude", "stats-mc": "mc",
           "stats-above": "events_above_mc", "stats-b": "b", "stats-sigma": "b_uncertainty", "stats-a": "a",
           "stats-bin": "bin"}


def expect(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{scenario}: {what}")
    return bool(cond)


def wait(cond, what, timeout=15.0):
    """Polls `cond` until it holds; else records `what` (a text, or a function giving one at the timeout)."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if cond():
                return True
        except Exception:
            pass
        time.sleep(0.05)
    failures.append(f"{scenario}: timed out: {what() if callable(what) else what}")
    return False


def cli(args):
    return subprocess.run([quakes] + args, capture_output=True, text=True, check=True).stdout


def busiest_day():
    out = cli(["agg", "--store", store, "--by", "day", "--metrics", "count", "--sort", "count:desc", "--limit", "1",
               "--format", "csv"])
    return list(csv.reader(io.StringIO(out)))[1][0][:10]


def cli_fmd(day):
    """`quakes fmd --format json` for one UTC day."""
    after = (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
    return json.loads(cli(["fmd", "--store", store, "--from", day, "--to", after, "--format", "json"]))


def start_browser(width=1400, height=900):
    global driver
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
              "--disable-gpu", "--lang=en-US"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def js(script, *args):
    return driver.execute_script(script, *args)


def url_params():
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))


def panel_ready_for(day):
    """Whether the panel shows its answer for `day`."""
    return js("const s = document.getElementById('stats');"
              "return !s.hidden && s.dataset.state === 'ready' && (s.dataset.query || '').includes(arguments[0])",
              "day=" + day)


def panel_figures():
    """The panel's figures as their data-value attributes give them: numbers, None for '-'."""
    raw = js("const out = {}; for (const id of arguments[0]) {"
             "const e = document.getElementById(id); out[id] = e ? e.dataset.value : undefined; } return out",
             list(FIGURES))
    return {key: (None if raw[key] in ("", None) else float(raw[key])) for key in raw}


def check_figures(day):
    want = cli_fmd(day)
    got = panel_figures()
    for element, key in FIGURES.items():
        expect(got[element] == want[key], f"{day}: #{element} is {got[element]!r}, quakes fmd's {key} {want[key]!r}")
    return want


def check_plot(want, day):
    points = js("return document.querySelectorAll('#stats-fmd rect.stats-count[data-count]').length")
    filled = sum(1 for b in want["bins"] if b["count"] > 0)
    expect(points == filled, f"{day}: {points} per-bin points, {filled} non-empty bins")
    circles = js("return [...document.querySelectorAll('#stats-fmd circle.stats-cumulative[data-cumulative]')]"
                 ".map(c => +c.dataset.cumulative)")
    expect(circles == [b["cumulative"] for b in want["bins"] if b["cumulative"] > 0],
           f"{day}: the cumulative points {circles[:5]}")
    expect(js("return !!document.getElementById('stats-mc-line')") == (want["mc"] is not None), f"{day}: Mc marked")
    if want["b"] is not None:
        expect(js("return !!document.getElementById('stats-gr-line')"), f"{day}: the Gutenberg-Richter line drawn")
    bars = js("return [...document.querySelectorAll('#stats-counts rect.stats-bar')].map(r => +r.dataset.count)")
    expect(len(bars) == 24 and sum(bars) == want["count"], f"{day}: 24 hourly bars summing to n: {bars}")


def statistics():
    start_browser()
    day = busiest_day()
    driver.get(base + "?day=" + day)
    wait(lambda: js("return document.getElementById('status').dataset.matched") is not None, f"load ?day={day}")
    expect(js("return document.getElementById('stats').hidden"), "the panel starts closed")
    driver.find_element(By.ID, "stats-toggle").click()
    wait(lambda: panel_ready_for(day), f"the panel shows {day}")
    expect(url_params().get("stats") == "1", f"the URL keeps the panel open: {driver.current_url}")
    want = check_figures(day)
    expect(want["count"] > 100 and want["b"] is not None, f"{day} is busy enough for a b-value: {want['count']}")
    check_plot(want, day)
    driver.save_screenshot(os.path.join(shotdir, "page-statistics-open.png"))
    # a new view: the panel follows it
    driver.find_element(By.ID, "next-day").click()
    following = (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
    wait(lambda: panel_ready_for(following), f"the panel shows {following} after Next day")
    check_figures(following)
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait(lambda: js("return document.getElementById('stats').hidden"), "Escape closes the panel")
    expect("stats" not in url_params(), f"the URL forgets the panel: {driver.current_url}")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    expect(not errors, f"console errors: {errors[:3]}")


SCENARIOS = {"statistics": statistics}

if scenario not in SCENARIOS:
    print(f"unknown scenario {scenario!r}: one of {', '.join(SCENARIOS)}")
    sys.exit(2)
try:
    SCENARIOS[scenario]()
except Exception as e:
    where = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1]
    first = (str(e).strip().splitlines() or [""])[0]
    failures.append(f"{scenario}: {type(e).__name__} at line {where.lineno} ({where.name}): {first}")
finally:
    if driver is not None:
        try:
            driver.save_screenshot(os.path.join(shotdir, f"page-{scenario}.png"))
        finally:
            driver.quit()

if failures:
    print("\n".join(failures[:40]))
    print(f"{len(failures)} failures in {checks} checks")
    sys.exit(1)
print(f"ok {checks} checks")
