"""The quake browser page's event detail, in headless Chromium driven by Selenium against a live `quakes serve`
on the real USGS feeds. One scenario per run, each checked against the CLI's answers:

  marker_dblclick  a double-click on a map marker selects its event and opens its detail
  detail_clear     the open detail never covers the selected marker: opened on an event whose marker lies where
                   the panel goes, then other rows selected while it is open, then the window made narrower;
                   in narrower windows the panel lies over the list, below the map in a phone's
  detail_units     the detail gives units: km for depth and errors, degrees for coordinates, gap and dmin, s for rms

Every scenario also checks for console errors and saves SHOTDIR/page-SCENARIO.png. Prints "ok N checks"
and exits 0, or prints the failures and exits 1.

usage: check_detail.py SCENARIO PORT STORE QUAKES_BINARY SHOTDIR
"""
import csv, io, os, re, subprocess, sys, time, traceback, urllib.parse

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
DAY = "2019-07-06"  # the Ridgecrest sequence: many Californian events with every origin field


def expect(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{scenario}: {what}")
    return bool(cond)


def wait(cond, what, timeout=10.0):
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


def cli_rows(args, fields="id"):
    """The CLI's CSV rows (`fields`; None: every field)."""
    out = subprocess.run([quakes, "query", "--store", store, "--format", "csv", "--limit", "1000000"]
                         + (["--fields", fields] if fields else []) + args, capture_output=True, text=True,
                         check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


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


def rows():
    return js("return [...document.querySelectorAll('#rows tr[data-event-id]')].map(r => r.dataset.eventId)")


def row(eid):
    return driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-event-id="{eid}"]')


def url_params():
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))


def shown(query, want):
    """Opens the page at ?query and waits for its list (the CLI's `want`) and map."""
    driver.get(base + "?" + query)
    wait(lambda: js("return document.getElementById('map').getAttribute('data-view')"), f"map drawn for ?{query}")
    wait(lambda: rows() == want, f"?{query}: the list equals the CLI's {len(want)} ids")
    wait(lambda: js("return performance.getEntriesByName('quakes-drawn').length > 0"), "the page is drawn")


def rect(selector):
    return js("const e = document.querySelector(arguments[0]); if (!e) return null;"
              "const r = e.getBoundingClientRect();"
              "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}",
              selector)


def overlaps(a, b):
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def inside(r, box, slack=0.5):
    return (r["left"] >= box["left"] - slack and r["right"] <= box["right"] + slack
            and r["top"] >= box["top"] - slack and r["bottom"] <= box["bottom"] + slack)


IS_OPEN = "const d = document.getElementById('detail'); return !!d && !d.hidden && d.getBoundingClientRect().height > 0"


def detail_open_on(eid):
    return js(IS_OPEN) and js("return document.getElementById('detail').dataset.eventId") == eid


def selected_ring():
    """The selection ring where the page shows it (client px), with its event id; None when hidden."""
    return js("""const g = document.getElementById('selection-ring');
        if (!g || g.getAttribute('visibility') !== 'visible') return null;
        const r = g.getBoundingClientRect();
        return {id: g.dataset.eventId, left: r.left, top: r.top, right: r.right, bottom: r.bottom};""")


def marker_at(eid):
    """The marker of `eid` in client px ({id, x, y, r}), or None when it is not drawn."""
    return js("return QuakeMap.markers().find(m => m.id === arguments[0]) || null", eid)


def no_console_errors():
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    expect(not errors, f"console errors: {errors[:3]}")


# ---------- marker_dblclick ----------

def clickable_marker():
    """A drawn marker that a press at its centre hits (nothing above it on the page, no smaller marker
    over it), well inside the map: [id, dx, dy] with the offset from #map's centre."""
    return js("""const svg = document.getElementById('map'), box = svg.getBoundingClientRect();
        const inv = svg.getScreenCTM().inverse();
        for (const m of QuakeMap.markers().sort((a, b) => b.r - a.r)) {
          if (m.x < box.left + 60 || m.x > box.right - 60 || m.y < box.top + 60 || m.y > box.bottom - 60) continue;
          if (document.elementFromPoint(m.x, m.y) !== svg) continue;
          const p = svg.createSVGPoint(); p.x = m.x; p.y = m.y;
          if (QuakeMap.hit(p.matrixTransform(inv)) !== m.id) continue;
          return [m.id, m.x - (box.left + box.width / 2), m.y - (box.top + box.height / 2)];
        }
        return null;""")


def marker_dblclick():
    start_browser()
    listed = [r["id"] for r in cli_rows(["--day", DAY, "--orderby", "time"])]
    shown(f"day={DAY}", listed)
    found = clickable_marker()
    if not expect(found is not None, "a marker a click can hit"):
        return
    eid, dx, dy = found
    expect(not js(IS_OPEN), "#detail is closed before the double-click")
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.ID, "map"), int(dx), int(dy)) \
        .double_click().perform()
    wait(lambda: url_params().get("selected") == eid, f"the double-click selects {eid}")
    if wait(lambda: detail_open_on(eid), f"a double-click on the marker of {eid} opens its detail"):
        wait(lambda: eid in js("return document.getElementById('detail').textContent"), "the detail is loaded")
        place = cli_rows(["--id", eid], "id,place")[0]["place"]
        expect(place in js("return document.getElementById('detail').textContent"), f"#detail shows {place!r}")
    # a double-click on the map away from the markers opens nothing
    if js(IS_OPEN):
        driver.find_element(By.ID, "detail-close").click()
        wait(lambda: not js(IS_OPEN), "#detail-close closes #detail")
    free = js("""const svg = document.getElementById('map'), box = svg.getBoundingClientRect();
        const inv = svg.getScreenCTM().inverse();
        for (let y = box.top + 80; y < box.bottom - 80; y += 17) {
          for (let x = box.left + 80; x < box.right - 80; x += 17) {
            const p = svg.createSVGPoint(); p.x = x; p.y = y;
            if (document.elementFromPoint(x, y) === svg && QuakeMap.hit(p.matrixTransform(inv)) === null)
              return [x - (box.left + box.width / 2), y - (box.top + box.height / 2)];
          }
        }
        return null;""")
    if expect(free is not None, "a point of the map with no marker"):
        ActionChains(driver).move_to_element_with_offset(driver.find_element(By.ID, "map"), int(free[0]),
                                                         int(free[1])).double_click().perform()
        time.sleep(0.5)
        expect(not js(IS_OPEN), "a double-click away from the markers opens no detail")
    no_console_errors()


# ---------- detail_clear ----------

def ring_clear(eid, where):
    """The selected marker's ring is drawn for `eid`, inside the map and clear of the open detail."""
    wait(lambda: (selected_ring() or {}).get("id") == eid, f"{where}: the ring marks {eid}")
    ring, panel, box = selected_ring(), rect("#detail"), rect("#map")
    if not expect(ring is not None and panel is not None, f"{where}: the ring {ring} and #detail {panel}"):
        return
    expect(not overlaps(ring, panel), f"{where}: the detail {panel} covers the selected marker's ring {ring}")
    expect(inside(ring, box, slack=1), f"{where}: the selected marker's ring {ring} is inside the map {box}")


def detail_clear():
    start_browser()
    events = cli_rows(["--day", DAY, "--orderby", "time"], "id,latitude,longitude")
    listed = [r["id"] for r in events]
    # the map centred on an event: its marker lies where the panel opens, over the map's right side
    target = events[10]
    shown(f"day={DAY}&map={target['latitude']},{target['longitude']},8", listed)
    row(target["id"]).click()
    wait(lambda: (selected_ring() or {}).get("id") == target["id"], "a row click rings its marker")
    before = selected_ring()
    view_before = url_params().get("map")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    if not wait(lambda: detail_open_on(target["id"]), "Enter opens #detail"):
        return
    panel = rect("#detail")
    expect(before is not None and overlaps(before, panel),
           f"the test is meaningful: before the detail opened, the marker {before} lay where it is {panel}")
    ring_clear(target["id"], "Enter")
    wait(lambda: url_params().get("map") != view_before, "the moved map goes in the URL")
    # selecting other rows with the detail open keeps each marker clear of it
    for k in range(11, 15):
        row(listed[k]).click()
        wait(lambda: detail_open_on(listed[k]), f"a click on the row of {listed[k]} shows it in the open detail")
        ring_clear(listed[k], f"a click on the row of {listed[k]}")
    # a double-click on a row far from the view: the map pans to it, beside the panel
    far = next(r for r in events if float(r["longitude"]) < -140)
    js("arguments[0].scrollIntoView({block: 'center'})", row(far["id"]))
    ActionChains(driver).double_click(row(far["id"])).perform()
    wait(lambda: detail_open_on(far["id"]), f"a double-click on the row of {far['id']} opens it")
    ring_clear(far["id"], "a far row's double-click")
    # a window made narrower with the detail open (760 px: the panel over the list and the map's left edge,
    # where the marker beside it in the wide window would now be): the marker stays clear of it
    box = rect("#map")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 760, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    wait(lambda: rect("#map")["width"] < box["width"] - 100, lambda: f"the map is narrower: {box} -> {rect('#map')}")
    time.sleep(0.3)
    ring_clear(far["id"], "a window made narrower")
    no_console_errors()
    driver.save_screenshot(os.path.join(shotdir, "page-detail_clear-narrowed.png"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    # in windows too narrow for the map and the panel side by side, the panel leaves the map alone
    for width, height in [(900, 800), (420, 800)]:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        shown(f"day={DAY}&map={target['latitude']},{target['longitude']},8&selected={target['id']}", listed)
        ActionChains(driver).double_click(row(target["id"])).perform()
        if wait(lambda: detail_open_on(target["id"]), f"{width} px: a double-click on a row opens it"):
            ring_clear(target["id"], f"{width} px")
            if width < 700:
                expect(rect("#detail")["top"] >= rect("#map-pane")["bottom"] - 1,
                       f"{width} px: the detail {rect('#detail')} lies below the map {rect('#map-pane')}")
    no_console_errors()


# ---------- detail_units ----------

UNITS = {"latitude": "°", "longitude": "°", "depth": " km", "horizontalError": " km", "depthError": " km",
         "gap": "°", "dmin": "°", "rms": " s"}


def detail_units():
    start_browser()
    every = cli_rows(["--day", DAY, "--orderby", "time"], None)
    listed = [r["id"] for r in every]
    # an event with every field that has a unit
    full = next((r for r in every if all(r.get(k) for k in UNITS)), None)
    if not expect(full is not None, f"an event of {DAY} has {', '.join(UNITS)}"):
        return
    shown(f"day={DAY}", listed)
    js("arguments[0].scrollIntoView({block: 'center'})", row(full["id"]))
    ActionChains(driver).double_click(row(full["id"])).perform()
    if not wait(lambda: detail_open_on(full["id"]) and js("return document.querySelectorAll('#detail th').length") > 5,
                "a double-click opens the detail, loaded"):
        return
    cells = dict(js("""return [...document.querySelectorAll('#detail-fields tr')].map(tr =>
        [tr.querySelector('th')?.textContent.trim(), tr.querySelector('td')?.textContent.trim()]);"""))
    for key, unit in UNITS.items():
        text = cells.get(key)
        got = re.match(r"^(-?\d+(?:\.\d+)?)" + re.escape(unit) + r"(?:$| \()", text or "")
        expect(got is not None, f"{key}: {text!r} gives its unit {unit.strip()!r}")
        if got:
            expect(abs(float(got.group(1)) - float(full[key])) < 1e-9, f"{key}: {text!r} is the CLI's {full[key]}")
    dmin = cells.get("dmin") or ""
    km = float(full["dmin"]) * 111.19
    in_km = re.search(r"\((\d+(?:\.\d+)?) km\)$", dmin)
    expect(in_km and abs(float(in_km.group(1)) - km) < 0.06, f"dmin {dmin!r} gives the distance in km too ({km:.1f})")
    for key in ["mag", "nst", "magNst"]:
        text = cells.get(key)
        if full.get(key):
            expect(text is not None and re.match(r"^-?\d+(\.\d+)?$", text), f"{key} {text!r} has no unit")
    no_console_errors()


SCENARIOS = {"marker_dblclick": marker_dblclick, "detail_clear": detail_clear, "detail_units": detail_units}

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
