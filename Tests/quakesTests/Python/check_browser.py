"""The quake browser page, part 2, in headless Chromium driven by Selenium against a live `quakes serve`
on the real USGS feeds. One scenario per run, each checked against the CLI's answers:

  wrap          the map opens fitted the shorter way across 180 and wraps when dragged; no seams; a worldwide
                day shows every quake; the whole world fills a wide pane
  selection     row, ring, pan to an unseen marker, arrow keys, the detail panel (Enter, double-click, Escape)
  datefield     a typed date commits once: one history entry, one load; Back returns
  empty         an empty day says so and links the nearest days with quakes
  downloads     every listed event (past --max-events 500), as named attachments in four formats
  range_region  starttime/endtime, a preset, a shift-dragged region, a region across 180, "only what the map shows"
  live          a load in another process keeps the scroll position and the selection; new rows are marked
  narrow        a 420x800 window stacks the map above the list; the place column shows

Every scenario also checks for console errors and saves SHOTDIR/page-SCENARIO.png. Prints "ok N checks"
and exits 0, or prints the failures and exits 1.

usage: check_browser.py SCENARIO PORT STORE QUAKES_BINARY SHOTDIR
"""
import csv, datetime, io, json, os, re, subprocess, sys, tempfile, time, traceback, urllib.parse, urllib.request

os.environ.setdefault("SE_OFFLINE", "true")
os.environ["LANGUAGE"] = "en_US:en"  # the date field's order is the browser's locale's: mm/dd/yyyy
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

scenario, port, store, quakes, shotdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
base = f"http://127.0.0.1:{port}/"
failures, checks = [], 0
driver = None


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


# ---------- the CLI's answers ----------

def cli(args):
    return subprocess.run([quakes] + args, capture_output=True, text=True, check=True).stdout


def cli_rows(args, fields="id"):
    """The CLI's CSV rows (`fields`; None: every field)."""
    out = cli(["query", "--store", store, "--format", "csv", "--limit", "1000000"]
              + (["--fields", fields] if fields else []) + args)
    return list(csv.DictReader(io.StringIO(out)))


def cli_ids(args):
    return [r["id"] for r in cli_rows(args)]


def busiest_day():
    out = cli(["agg", "--store", store, "--by", "day", "--metrics", "count", "--sort", "count:desc", "--limit", "1",
               "--format", "csv"])
    return list(csv.reader(io.StringIO(out)))[1][0][:10]


def nearest_days(day):
    """The nearest earlier and later UTC days with events, as the CLI sees them (None when there is none)."""
    after_start = (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
    before = cli_rows(["--to", day, "--orderby", "time", "--limit", "1"], "id,time")
    after = cli_rows(["--start", after_start, "--orderby", "time-asc", "--limit", "1"], "id,time")
    return (before[0]["time"][:10] if before else None), (after[0]["time"][:10] if after else None)


# ---------- the browser ----------

def start_browser(width=1400, height=900):
    global driver
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
              "--disable-gpu", "--lang=en-US"]:
        opts.add_argument(a)
    opts.add_experimental_option("prefs", {"intl.accept_languages": "en-US"})
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    driver.set_page_load_timeout(30)
    # headless Chromium keeps windows at least 500 px wide: the viewport is set exactly instead
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def js(script, *args):
    return driver.execute_script(script, *args)


def rows():
    return js("return [...document.querySelectorAll('#rows tr[data-event-id]')].map(r => r.dataset.eventId)")


def row(eid):
    return driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-event-id="{eid}"]')


def selected_rows():
    return js("return [...document.querySelectorAll('#rows tr[aria-selected=\"true\"]')].map(r => r.dataset.eventId)")


def url_params():
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))


def shown(query, want=None):
    """Opens the page at ?query and waits for its list and map (and for the list to be `want`)."""
    driver.get(base + "?" + query)
    wait(lambda: js("return document.getElementById('status').dataset.matched") is not None, f"load ?{query}")
    wait(lambda: js("return document.getElementById('map').getAttribute('data-view')"), f"map drawn for ?{query}")
    if want is not None:
        wait(lambda: rows() == want, f"?{query}: the list equals the CLI's {len(want)} ids")
        expect(rows() == want, f"?{query}: list of {len(rows())} ids {rows()[:3]}, CLI {len(want)} {want[:3]}")


def view_box():
    v = js("return document.getElementById('map').getAttribute('viewBox')")
    return [float(t) for t in re.split(r"[\s,]+", v.strip())]


def settled_view(timeout=10.0):
    """The viewBox once it has stopped changing (a fit or a pan may animate)."""
    last, since, end = None, time.time(), time.time() + timeout
    while time.time() < end:
        v = view_box()
        if v != last:
            last, since = v, time.time()
        elif time.time() - since > 0.4:
            break
        time.sleep(0.05)
    return last


def rect(selector):
    return js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
              "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}",
              selector)


# The markers are drawn as a few paths: the page reports them as [{id, x, y, r}] in client pixels
# (QuakeMap.markers()); cx, cy are the centre in the map's units (degrees) through the inverse screen CTM.
MARKERS_JS = """const svg = document.getElementById('map'), inv = svg.getScreenCTM().inverse();
return QuakeMap.markers().map(m => {
  const p = svg.createSVGPoint(); p.x = m.x; p.y = m.y; const q = p.matrixTransform(inv);
  return {id: m.id, x: m.x, y: m.y, cx: q.x, cy: q.y, r: m.r,
          left: m.x - m.r, right: m.x + m.r, top: m.y - m.r, bottom: m.y + m.r, width: 2 * m.r};
});"""


def markers():
    return js(MARKERS_JS)


def inside(r, box, slack=0.5):
    return (r["left"] >= box["left"] - slack and r["right"] <= box["right"] + slack
            and r["top"] >= box["top"] - slack and r["bottom"] <= box["bottom"] + slack)


def free_offset(near=(0, 0)):
    """An offset from #map's centre, near `near`, where a press lands on the map itself (no marker, button
    or legend), so that it starts a pan or a region."""
    for radius in range(0, 200, 6):
        for dx, dy in [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]:
            ox, oy = near[0] + dx * radius, near[1] + dy * radius
            hit = js("""const m = document.getElementById('map'), r = m.getBoundingClientRect();
                const e = document.elementFromPoint(r.left + r.width / 2 + arguments[0],
                                                    r.top + r.height / 2 + arguments[1]);
                return !!e && m.contains(e) && e.tagName.toLowerCase() !== 'circle';""", ox, oy)
            if hit:
                return ox, oy
            if radius == 0:
                break
    return near


def offset_of(lat, lon):
    """Where a point lies on the map, as an offset in px from #map's centre (viewBox units are degrees)."""
    x, y, w, h = view_box()
    lon = lon + 360 * round((x + w / 2 - lon) / 360)
    return js("""const svg = document.getElementById('map'), r = svg.getBoundingClientRect();
        const p = svg.createSVGPoint(); p.x = arguments[0]; p.y = arguments[1];
        const q = p.matrixTransform(svg.getScreenCTM());
        return [q.x - (r.left + r.width / 2), q.y - (r.top + r.height / 2)];""", lon, -lat)


def drag_map(dx, dy, start=(0, 0), shift=False):
    """Presses on #map at `start` (an offset from its centre), moves by (dx, dy) px in steps, releases."""
    m = driver.find_element(By.ID, "map")
    ox, oy = free_offset(start)
    ac = ActionChains(driver, duration=40)
    if shift:
        ac.key_down(Keys.SHIFT)
    ac.move_to_element_with_offset(m, int(ox), int(oy)).click_and_hold()
    steps, done = 12, (0, 0)
    for k in range(1, steps + 1):
        to = (round(dx * k / steps), round(dy * k / steps))
        ac.move_by_offset(to[0] - done[0], to[1] - done[1])
        done = to
    ac.release()
    if shift:
        ac.key_up(Keys.SHIFT)
    ac.perform()


def no_console_errors(allowed=None):
    """No SEVERE console entry, except those `allowed` (a substring) names: the browser logs a
    refused request (a 400) itself, which a test of a refused view expects."""
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
              and not (allowed and allowed in e["message"])]
    expect(not errors, f"console errors: {errors[:3]}")


def drawn_mark():
    wait(lambda: js("return performance.getEntriesByName('quakes-drawn').length > 0"),
         "performance.mark('quakes-drawn') after the first list and map")


# ---------- wrap ----------

def path_segments(d):
    """The straight segments of an SVG path (M, L, H, V, Z, absolute or relative)."""
    toks = re.findall(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", d)
    segs, i, cmd = [], 0, None
    x = y = sx = sy = 0.0
    while i < len(toks):
        if toks[i].isalpha():
            cmd = toks[i]
            i += 1
            if cmd in "Zz":
                if (x, y) != (sx, sy):
                    segs.append(((x, y), (sx, sy)))
                x, y = sx, sy
                continue
        if cmd is None or cmd not in "MmLlHhVv":
            raise ValueError(f"path command {cmd!r} is not a straight line")
        rel = cmd.islower()
        if cmd in "Hh":
            nx, ny = float(toks[i]) + (x if rel else 0), y
            i += 1
        elif cmd in "Vv":
            nx, ny = x, float(toks[i]) + (y if rel else 0)
            i += 1
        else:
            nx, ny = float(toks[i]) + (x if rel else 0), float(toks[i + 1]) + (y if rel else 0)
            i += 2
        if cmd in "Mm":
            sx, sy = nx, ny
            cmd = "l" if rel else "L"  # coordinates after a moveto are lineto's
        else:
            segs.append(((x, y), (nx, ny)))
        x, y = nx, ny
    return segs


def seams(segs):
    """Segments lying along longitude +-180, along 0 down to the South Pole, or along latitude -90 (y = -lat)."""
    def on(v, meridian):
        return abs((v - meridian + 180) % 360 - 180) < 1e-6
    out = []
    for (x1, y1), (x2, y2) in segs:
        if abs(x1 - x2) + abs(y1 - y2) < 1e-6:
            continue
        if (abs(x1 - x2) < 1e-6 and on(x1, 180)) or (abs(x1 - x2) < 1e-6 and on(x1, 0) and max(y1, y2) > 85) \
                or (y1 >= 89.99 and y2 >= 89.99):
            out.append(((x1, y1), (x2, y2)))
    return out


WRAP_COPIES_JS = """return [...document.querySelectorAll('use.wrap-copy')].map(u => {
  const href = u.href.baseVal || '';
  const target = href.startsWith('#') ? document.getElementById(href.slice(1)) : null;
  let dx = null;
  if (target) { const a = u.getCTM(), b = target.getCTM(); dx = (a.e - b.e) / a.a + u.x.baseVal.value; }
  const coast = document.getElementById('coastlines');
  return {href, dx, coast: !!target && (target === coast || target.contains(coast))};
});"""

# the markers are painted on a canvas: is each one in view painted where QuakeMap.markers() says?
PAINTED_JS = """const c = document.getElementById('markers'), r = c.getBoundingClientRect();
const ctx = c.getContext('2d'), sx = c.width / r.width, sy = c.height / r.height;
return QuakeMap.markers().filter(m => m.x > r.left && m.x < r.right && m.y > r.top && m.y < r.bottom)
  .map(m => [m.id, ctx.getImageData(Math.floor((m.x - r.left) * sx), Math.floor((m.y - r.top) * sy), 1, 1).data[3]]);"""


def wrap():
    start_browser()
    day = "2025-05-10"
    # the Fiji events of the day sit on both sides of 180
    fiji = cli_rows(["--day", day, "--place-like", "Fiji", "--orderby", "time"], "id,latitude,longitude")
    lons = [float(r["longitude"]) for r in fiji]
    expect(any(v > 175 for v in lons) and any(v < -175 for v in lons), f"the CLI's Fiji events span 180: {lons}")
    shown(f"day={day}&search=Fiji", [r["id"] for r in fiji])
    drawn_mark()
    wait(lambda: "map" in url_params(), "the fitted map's centre and zoom go in the URL (map=)")
    x, y, w, h = settled_view()
    centre = x + w / 2
    expect(w < 120, f"the fitted view is not the whole world: viewBox {x} {y} {w} {h}")
    expect(x < 180 < x + w or x < -180 < x + w, f"the fitted view spans 180 (the shorter way): viewBox {x} {y} {w} {h}")
    box = rect("#map")
    ms = markers()
    expect(len(ms) == len(fiji), f"{len(ms)} markers for {len(fiji)} rows")
    count = js("return document.getElementById('markers').dataset.count")
    expect(count == str(len(fiji)), f"#markers data-count {count}, {len(fiji)} rows")
    for m in ms:
        expect(inside(m, box), f"marker {m['id']} at {m} is clipped by #map's edge {box}")
        expect(abs(m["cx"] - centre) <= 180, f"marker {m['id']} cx {m['cx']} within 180 of the view centre {centre}")
    expect(js("return !!document.getElementById('land')"), "#land is drawn")

    def centre_lon():
        x, y, w, h = settled_view()
        return ((x + w / 2 + 180) % 360) - 180, x + w / 2

    def after_drag(where):
        lon, c = centre_lon()
        for m in markers():
            expect(abs(m["cx"] - c) <= 180, f"after {where}: marker {m['id']} cx {m['cx']} not within 180 of "
                                            f"the view centre {c}")
        copies = js(WRAP_COPIES_JS)
        coast = sorted(round(c["dx"]) for c in copies if c["coast"] and c["dx"] is not None)
        expect(-360 in coast and 360 in coast, f"after {where}: use.wrap-copy of the coastlines at -360 and +360: "
                                               f"{copies}")
        painted = js(PAINTED_JS)
        expect(painted and all(alpha > 0 for _, alpha in painted),
               f"after {where}: every marker in view is painted where it is listed: {painted}")
        return lon

    # drag east past 180 (the map moves left), then west past it
    mw = box["width"]
    drag_map(-0.4 * mw, 0, start=(0.2 * mw, 0))
    lon = after_drag("dragging east")
    expect(-180 <= lon < -90, f"dragging east moved the view centre past 180 (centre longitude {lon:.2f})")
    drag_map(0.8 * mw, 0, start=(-0.4 * mw, 0))
    lon = after_drag("dragging west")
    expect(90 < lon <= 180, f"dragging west moved the view centre back past 180 (centre longitude {lon:.2f})")
    wait(lambda: "map" in url_params(), "the dragged map in the URL")

    # the coastlines have no seams
    d = js("return document.getElementById('coastlines').getAttribute('d') || ''")
    try:
        segs = path_segments(d)
        expect(len(segs) > 1000, f"#coastlines has {len(segs)} segments")
        bad = seams(segs)
        expect(not bad, f"#coastlines has {len(bad)} seam segments, e.g. {bad[:4]}")
    except (ValueError, IndexError) as e:
        expect(False, f"#coastlines d cannot be read: {e}")
    driver.save_screenshot(os.path.join(shotdir, "page-wrap-dragged.png"))

    # a plain worldwide day: the fit shows every listed quake, none clipped at the edge
    shown(f"day={day}", cli_ids(["--day", day, "--orderby", "time"]))
    settled_view()
    box = rect("#map")
    ms = markers()
    clipped = [m["id"] for m in ms if not inside(m, box)]
    expect(ms and not clipped, f"worldwide: {len(clipped)} of {len(ms)} markers outside the fitted map: {clipped[:5]}")
    # in a pane wider than the world is tall, "Whole world" fills it: no blank band above or below
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 2600, "height": 700, "deviceScaleFactor": 1, "mobile": False})
    driver.find_element(By.ID, "zoom-reset").click()
    settled_view()
    f = js("""const svg = document.getElementById('map'), r = svg.getBoundingClientRect(), m = svg.getScreenCTM();
        const vb = svg.viewBox.baseVal, p = svg.createSVGPoint();
        p.x = vb.x + vb.width / 2; p.y = -90; const north = p.matrixTransform(m).y;
        p.y = 90; const south = p.matrixTransform(m).y;
        const inv = m.inverse(); p.x = r.left; p.y = r.top; const a = p.matrixTransform(inv);
        p.x = r.right; p.y = r.bottom; const b = p.matrixTransform(inv);
        const pane = (document.getElementById('map-pane') || svg).getBoundingClientRect();
        return {north, south, top: r.top, bottom: r.bottom, west: a.x, east: b.x, width: r.width, height: r.height,
                paneWidth: pane.width, paneHeight: pane.height};""")
    expect(f["width"] > 2 * f["height"], f"the wide window gives a pane wider than twice its height: {f}")
    expect(f["north"] <= f["top"] + 3, f"whole world: {f['north'] - f['top']:.0f} px blank above the world "
                                       f"(latitude 90 at y {f['north']:.0f}, #map's top at {f['top']:.0f}): {f}")
    expect(f["south"] >= f["bottom"] - 3, f"whole world: {f['bottom'] - f['south']:.0f} px blank below the world "
                                          f"(latitude -90 at y {f['south']:.0f}, #map's bottom at {f['bottom']:.0f})")
    expect(f["west"] >= -540 and f["east"] <= 540, f"whole world: the view is wider than the world and its copies: {f}")
    expect(f["height"] >= f["paneHeight"] - 3 and f["width"] >= f["paneWidth"] - 3, f"#map fills #map-pane: {f}")
    no_console_errors()


# ---------- selection ----------

def selection():
    start_browser()
    day = busiest_day()
    listed = cli_ids(["--day", day, "--orderby", "time"])
    shown(f"day={day}", listed)
    drawn_mark()

    selected_marker_js = """return [...document.querySelectorAll('#map circle[data-selected]')].map(c => {
        const r = c.getBoundingClientRect();
        return {id: c.getAttribute('data-event-id'), r: parseFloat(c.getAttribute('r')), left: r.left, top: r.top,
                right: r.right, bottom: r.bottom, width: r.width};
    });"""

    def check_selected(eid, where):
        wait(lambda: selected_rows() == [eid], lambda: f"{where}: row {eid} alone has aria-selected=true (got "
                                                       f"{selected_rows()[:3]})")
        expect("selected" in (row(eid).get_attribute("class") or ""), f"{where}: the row has class selected")
        wait(lambda: [m["id"] for m in js(selected_marker_js)] == [eid],
             lambda: f"{where}: marker {eid} alone has data-selected (got {js(selected_marker_js)})")
        ring = js("""const g = document.getElementById('selection-ring'); if (!g) return null;
            const r = g.getBoundingClientRect(), ms = document.querySelectorAll('#markers circle, #markers path');
            const last = ms[ms.length - 1];
            return {id: g.getAttribute('data-event-id'), r: parseFloat(g.getAttribute('r')), width: r.width,
                    visible: getComputedStyle(g).visibility !== 'hidden' && getComputedStyle(g).display !== 'none',
                    lastInGroup: g.parentNode.lastElementChild === g,
                    afterSelected: !!(document.getElementById('selected-marker')
                        .compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING),
                    afterMarkers: !last || !!(last.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING)};""")
        expect(ring is not None, f"{where}: circle#selection-ring is drawn")
        if ring:
            m = js(selected_marker_js)
            expect(ring["id"] == eid and ring["visible"], f"{where}: the ring's data-event-id {ring['id']} "
                                                          f"(visible: {ring['visible']}), selected {eid}")
            expect(ring["lastInGroup"] and ring["afterMarkers"] and ring["afterSelected"],
                   f"{where}: the ring is drawn last, above the markers and the selected one: {ring}")
            expect(m and ring["r"] > m[0]["r"] and ring["width"] > m[0]["width"],
                   f"{where}: the ring (r {ring['r']}, {ring['width']} px) is larger than the marker {m[:1]}")
        expect(url_params().get("selected") == eid, f"{where}: selected={eid} in the URL")

    # a click on a row
    first = listed[4]
    row(first).click()
    check_selected(first, "clicking a row")

    # arrow keys move through the list
    keys = ActionChains(driver)
    keys.send_keys(Keys.ARROW_DOWN).perform()
    check_selected(listed[5], "ArrowDown")
    ActionChains(driver).send_keys(Keys.ARROW_UP).send_keys(Keys.ARROW_UP).perform()
    check_selected(listed[3], "ArrowUp twice")

    # Enter opens the detail, with the stored fields and the USGS link; Escape closes it
    eid = listed[3]
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    is_open = ("const d = document.getElementById('detail');"
               "return !!d && !d.hidden && d.getBoundingClientRect().height > 0")
    if wait(lambda: js(is_open), "Enter opens #detail"):
        check_detail(eid, "Enter")
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait(lambda: not js(is_open), "Escape closes #detail")
    expect(js("const d = document.getElementById('detail'); return !d || d.hidden"), "#detail is hidden when closed")

    # a double-click on a row opens it too; #detail-close closes
    other = listed[7]
    ActionChains(driver).double_click(row(other)).perform()
    if wait(lambda: js(is_open), "a double-click on a row opens #detail"):
        check_detail(other, "double-click")
        driver.find_element(By.ID, "detail-close").click()
        wait(lambda: not js(is_open), "#detail-close closes #detail")

    # zoomed in far on the Ridgecrest sequence: selecting a far event's row pans the map to its marker
    far = [r for r in cli_rows(["--day", day, "--orderby", "time"], "id,latitude,longitude")
           if r["longitude"] and float(r["longitude"]) < -140 and float(r["latitude"]) > 55]
    expect(far, "the CLI has an Alaskan event that day")
    zoom = 9
    shown(f"day={day}&map=35.77,-117.6,{zoom}", listed)
    x, y, w, h = settled_view()
    box = rect("#map")
    want_w = 360 * box["width"] / (256 * 2 ** zoom)
    expect(abs(w - want_w) / want_w < 0.1, f"map=..,{zoom}: viewBox width {w:.4f} degrees, the contract's "
                                           f"{want_w:.4f} for a {box['width']:.0f} px map")
    expect(abs(x + w / 2 + 117.6) < 0.05 and abs(-(y + h / 2) - 35.77) < 0.05,
           f"map=35.77,-117.6: viewBox {x} {y} {w} {h}")
    if far:
        target = far[0]["id"]
        lat, lon = float(far[0]["latitude"]), float(far[0]["longitude"])
        expect(not (x <= lon <= x + w and y <= -lat <= y + h), f"{target} at {lat},{lon} is out of the view "
                                                               f"{x} {y} {w} {h} before it is selected")
        js("arguments[0].scrollIntoView({block: 'center'})", row(target))
        row(target).click()
        check_selected(target, "a row out of the map's view")
        wait(lambda: inside(js(selected_marker_js)[0], rect("#map")),
             "selecting a row out of view pans the map to its marker")
        settled_view()
        wait(lambda: url_params().get("map", "").split(",")[:1] != ["35.77"], "the panned map goes in the URL")
    no_console_errors()


def check_detail(eid, where):
    fields = cli_rows(["--id", eid], None)[0]
    cells = js("""return [...document.querySelectorAll('#detail table tr')].map(tr =>
        [...tr.querySelectorAll('th, td')].map(c => c.textContent.trim()));""")
    text = js("return document.getElementById('detail').textContent")
    values = [c for r in cells for c in r]

    def number_shown(v):
        for c in values:
            mt = re.search(r"[-+]?\d+(?:\.\d+)?", c.replace(",", ""))
            if mt and abs(float(mt.group()) - float(v)) < 0.0051:
                return True
        return False
    stored = [k for k, v in fields.items() if v]
    expect(len(cells) >= len(stored), f"{where}: #detail's table has {len(cells)} rows for {len(stored)} stored "
                                      f"fields {stored}")
    expect(eid in text, f"{where}: #detail shows the id {eid}")
    expect(fields["place"] in text, f"{where}: #detail shows the place {fields['place']!r}")
    for k in ["mag", "latitude", "longitude", "depth", "gap", "rms"]:
        if fields[k]:
            expect(number_shown(fields[k]), f"{where}: #detail shows {k} {fields[k]} ({cells})")
    t = fields["time"]
    expect(any(t[:10] in c and t[11:19] in c for c in values), f"{where}: #detail shows the time {t} ({cells})")
    href = js("const a = document.getElementById('detail-usgs'); return a ? a.getAttribute('href') : null")
    expect(href is not None and href.endswith(f"/eventpage/{eid}"), f"{where}: a#detail-usgs href {href!r}")


# ---------- datefield ----------

def datefield():
    start_browser()
    start, typed = "2019-07-05", "2019-07-06"
    shown(f"day={start}", cli_ids(["--day", start, "--orderby", "time"]))
    drawn_mark()
    before = js("return history.length")
    js("performance.clearResourceTimings(); performance.setResourceTimingBufferSize(10000)")
    field = driver.find_element(By.ID, "day")
    # click on the field's month, then type the date as an en-US user does
    ActionChains(driver).move_to_element_with_offset(field, -field.size["width"] // 2 + 10, 0).click().perform()
    ActionChains(driver).send_keys("07062019").perform()
    want = cli_ids(["--day", typed, "--orderby", "time"])
    wait(lambda: url_params().get("day") == typed and rows() == want, f"typing 07/06/2019 loads {typed}")
    expect(rows() == want, f"the list of {typed}: {len(rows())} rows, CLI {len(want)}")
    time.sleep(1.5)  # anything the field would still commit (its 800 ms) has happened by now
    driver.find_element(By.TAG_NAME, "h1").click()  # blur: the date is committed already
    time.sleep(1.0)
    after = js("return history.length")
    expect(after == before + 1, f"typing a date pushed {after - before} history entries, not one")
    loads = js("return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/day'))")
    days = [dict(urllib.parse.parse_qsl(urllib.parse.urlparse(n).query)).get("day") for n in loads]
    expect(days.count(typed) == 1, f"{typed} was loaded {days.count(typed)} times: {loads}")
    expect(all(d in (start, typed) for d in days), f"intermediate dates were loaded: {days}")
    expect(url_params().get("day") == typed, f"URL {driver.current_url}")
    driver.back()
    want = cli_ids(["--day", start, "--orderby", "time"])
    wait(lambda: url_params().get("day") == start and rows() == want, f"Back returns to {start}")
    wait(lambda: driver.find_element(By.ID, "day").get_attribute("value") == start, f"Back shows {start} in the field")
    no_console_errors()


# ---------- empty ----------

def link_day(link_id):
    href = js(f"const a = document.getElementById('{link_id}'); return a ? a.href : null")
    if href is None:
        return None
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(href).query)).get("day", href)


def empty():
    start_browser()
    day = "1999-01-01"
    before, after = nearest_days(day)
    expect(before is None and after is not None, f"the CLI: nothing before {day}, something after ({before}, {after})")
    shown(f"day={day}")
    drawn_mark()
    visible = ("const e = document.getElementById('empty');"
               "return !!e && !e.hidden && e.getBoundingClientRect().height > 0")
    wait(lambda: js(visible), "#empty is shown")
    text = js("const e = document.getElementById('empty'); return e ? e.innerText : ''")
    expect(f"No quakes on {day}" in text, f"#empty reads {text!r}")
    expect(rows() == [], f"no rows: {rows()[:3]}")
    expect(link_day("empty-before") is None, f"no a#empty-before when nothing is earlier: {link_day('empty-before')}")
    expect(link_day("empty-after") == after, f"a#empty-after leads to {link_day('empty-after')}, the CLI's {after}")
    driver.find_element(By.ID, "empty-after").click()
    want = cli_ids(["--day", after, "--orderby", "time"])
    wait(lambda: url_params().get("day") == after and rows() == want, f"a#empty-after opens {after}")
    wait(lambda: not js(visible), "#empty is hidden on a day with quakes")

    # a day between two loaded months links both
    gap = "2015-06-01"
    before, after = nearest_days(gap)
    expect(before and after and before < gap < after, f"the CLI: {gap} lies in a gap ({before}, {after})")
    shown(f"day={gap}", [])
    wait(lambda: js(visible), f"#empty is shown for {gap}")
    text = js("const e = document.getElementById('empty'); return e ? e.innerText : ''")
    expect(f"No quakes on {gap}" in text, f"#empty reads {text!r}")
    expect(link_day("empty-before") == before, f"a#empty-before leads to {link_day('empty-before')}, CLI {before}")
    expect(link_day("empty-after") == after, f"a#empty-after leads to {link_day('empty-after')}, CLI {after}")
    driver.find_element(By.ID, "empty-before").click()
    want = cli_ids(["--day", before, "--orderby", "time"])
    wait(lambda: url_params().get("day") == before and rows() == want, f"a#empty-before opens {before}")
    no_console_errors()


# ---------- downloads ----------

def fetch(href):
    expect(href.startswith(base), f"the download is served by quakes: {href}")
    with urllib.request.urlopen(href, timeout=120) as r:
        return r.status, r.headers.get("Content-Disposition"), r.read().decode("utf-8")


def check_downloads(name, where):
    listed = rows()
    for link, ext in [("dl-csv", "csv"), ("dl-geojson", "geojson"), ("dl-quakeml", "xml"), ("dl-kml", "kml")]:
        a = js(f"const a = document.getElementById('{link}'); "
               "return a ? {download: a.hasAttribute('download'), href: a.href} : null")
        if not expect(a is not None, f"{where}: a#{link} exists"):
            continue
        expect(a["download"], f"{where}: a#{link} has a download attribute")
        try:
            status, disposition, body = fetch(a["href"])
        except Exception as e:
            expect(False, f"{where}: fetching {a['href']}: {e}")
            continue
        expect(status == 200, f"{where}: {link} answered {status}")
        want = f'attachment; filename="{name}.{ext}"'
        expect(disposition == want, f"{where}: {link} Content-Disposition {disposition!r}, want {want!r}")
        if ext == "csv":
            ids = [r["id"] for r in csv.DictReader(io.StringIO(body))]
            expect(ids == listed, f"{where}: the CSV's {len(ids)} ids {ids[:3]} are the {len(listed)} listed "
                                  f"{listed[:3]}, in order")
        elif ext == "geojson":
            features = json.loads(body).get("features", [])
            expect(len(features) == len(listed), f"{where}: {len(features)} GeoJSON features, {len(listed)} rows")
            ids = [f.get("id") for f in features]
            expect(ids == listed, f"{where}: the GeoJSON's ids are the listed ones, in order")
        elif ext == "xml":
            n = len(re.findall(r"<event\b", body))
            expect(n == len(listed), f"{where}: {n} QuakeML events, {len(listed)} rows")
        else:
            expect("<kml" in body and len(re.findall(r"<Placemark\b", body)) >= len(listed),
                   f"{where}: a KML document with a placemark per row")


def downloads():
    start_browser()
    day = busiest_day()
    listed = cli_ids(["--day", day, "--orderby", "time"])
    expect(len(listed) > 500, f"the busiest day {day} has {len(listed)} events, more than --max-events 500")
    shown(f"day={day}", listed)
    drawn_mark()
    check_downloads(f"quakes-{day}", day)

    # with a search active the downloads are the filtered list
    word = "km E"
    want = cli_ids(["--day", day, "--place-like", word, "--orderby", "time"])
    expect(500 < len(want) < len(listed), f"the search {word!r} matches {len(want)} of {len(listed)}")
    old = js("return document.getElementById('dl-csv').href")
    driver.find_element(By.ID, "search").send_keys(word)
    wait(lambda: rows() == want, f"search {word!r}: the list equals the CLI's {len(want)}")
    wait(lambda: js("return document.getElementById('dl-csv').href") != old, "the download links follow the search")
    check_downloads(f"quakes-{day}", f"{day} searching {word!r}")
    no_console_errors()


# ---------- range_region ----------

def box_args(p):
    return [a for k in ["minlatitude", "maxlatitude", "minlongitude", "maxlongitude"] if k in p
            for a in (f"--{k}", p[k])]


def range_region():
    start_browser()
    # a range whose endtime is an event's own time: endtime is inclusive
    last = cli_rows(["--start", "2019-07-01", "--to", "2019-07-03T12:00", "--orderby", "time", "--limit", "1"],
                    "id,time")[0]
    end = last["time"].rstrip("Z")
    want = cli_ids(["--start", "2019-07-01", "--end", end, "--orderby", "time"])
    expect(want and want[0] == last["id"], f"the CLI's --end is inclusive: {want[:1]} {last}")
    shown(f"starttime=2019-07-01&endtime={end}", want)
    drawn_mark()
    expect(last["id"] in rows(), f"the event at endtime {end} is listed")

    # a preset
    driver.find_element(By.CSS_SELECTOR, 'button[data-last="7d"]').click()
    wait(lambda: url_params().get("last") == "7d", "button[data-last=7d] sets last=7d in the URL")
    wait(lambda: driver.find_element(By.CSS_SELECTOR, 'button[data-last="7d"]').get_attribute("aria-pressed") == "true",
         "the 7d preset is pressed")
    expect("day" not in url_params() and "starttime" not in url_params(), f"last=7d alone: {driver.current_url}")

    # a region drawn by shift-drag around the Ridgecrest sequence
    day = "2019-07-06"
    listed = cli_ids(["--day", day, "--orderby", "time"])
    shown(f"day={day}", listed)
    settled_view()
    ridgecrest = cli_rows(["--day", day, "--place-like", "Ridgecrest", "--orderby", "magnitude", "--limit", "1"],
                          "id,latitude,longitude")[0]
    lat, lon = float(ridgecrest["latitude"]), float(ridgecrest["longitude"])
    cx, cy = offset_of(lat, lon)
    drag_map(120, 90, start=(cx - 60, cy - 45), shift=True)
    keys = ["minlatitude", "maxlatitude", "minlongitude", "maxlongitude"]
    wait(lambda: all(k in url_params() for k in keys), "shift-drag sets the region's four parameters in the URL")
    p = url_params()
    expect(js("return !!document.getElementById('region')"), "rect#region is drawn")
    if all(k in p for k in keys):
        expect(float(p["minlatitude"]) < lat < float(p["maxlatitude"])
               and float(p["minlongitude"]) < lon < float(p["maxlongitude"]),
               f"the region {p} holds where it was drawn")
        want = cli_ids(["--day", day, "--orderby", "time"] + box_args(p))
        wait(lambda: rows() == want, f"the region's list equals the CLI's {len(want)} ids")
        expect(rows() == want and 0 < len(want) < len(listed), f"region list {len(rows())}, CLI {len(want)} of "
                                                               f"{len(listed)}")
    driver.find_element(By.ID, "clear-region").click()
    wait(lambda: not any(k in url_params() for k in keys) and rows() == listed, "#clear-region clears the region")

    # a region across 180 in the URL, as USGS writes it
    day = "2025-05-10"
    p = {"minlongitude": "170", "maxlongitude": "190"}
    want = cli_ids(["--day", day, "--orderby", "time"] + box_args(p))
    expect(len(want) > 5, f"the CLI lists {len(want)} events in 170..190 on {day}")
    shown(f"day={day}&minlongitude=170&maxlongitude=190", want)

    # only what the map shows
    day = "2019-07-06"
    coords = {r["id"]: (float(r["latitude"]), float(r["longitude"]))
              for r in cli_rows(["--day", day], "id,latitude,longitude")}
    shown(f"day={day}&map=35.77,-117.6,9", listed)
    driver.find_element(By.ID, "inview").click()
    wait(lambda: url_params().get("inview") == "1", "input#inview sets inview=1 in the URL")
    wait(lambda: 0 < len(rows()) < len(listed), "input#inview limits the list")
    x, y, w, h = settled_view()
    time.sleep(0.5)
    shown_ids = rows()

    def within(eid, margin):
        lat, lon = coords[eid]
        lon = lon + 360 * round((x + w / 2 - lon) / 360)
        return x + margin * w <= lon <= x + (1 - margin) * w and -(y + h) + margin * h <= lat <= -y - margin * h
    outside = [i for i in shown_ids if not within(i, -0.001)]
    expect(not outside, f"inview: {len(outside)} listed events outside the view {x} {y} {w} {h}: {outside[:3]}")
    missing = [i for i in coords if within(i, 0.02) and i not in shown_ids]
    expect(not missing, f"inview: {len(missing)} events well inside the view are not listed: {missing[:3]}")
    # the URL restores it: the same view and the same list after a reload
    url = driver.current_url
    driver.get(url)
    wait(lambda: rows() == shown_ids, f"a reload of {url} lists the same {len(shown_ids)} events")
    expect(settled_view() == (x, y, w, h) or max(abs(a - b) for a, b in zip(settled_view(), (x, y, w, h))) < 0.01,
           f"a reload keeps the view: {settled_view()} against {(x, y, w, h)}")

    no_console_errors()
    # a view the server refuses says why where the list would be, with a way out
    shown_error = "day=2019-07-06&minlatitude=40&maxlatitude=30"
    driver.get(base + "?" + shown_error)
    wait(lambda: "minlatitude" in js("return document.getElementById('empty').textContent"),
         "a region upside down is explained in the list pane")
    expect(js("return !!document.getElementById('error-clear-region')"), "the error offers to clear the region")
    driver.find_element(By.ID, "error-clear-region").click()
    wait(lambda: rows() == listed and "minlatitude" not in url_params(), "clearing the region lists the day again")
    no_console_errors(allowed="400 (Bad Request)")


# ---------- live ----------

def live():
    start_browser()
    day = busiest_day()
    listed = cli_ids(["--day", day, "--orderby", "time"])
    shown(f"day={day}", listed)
    drawn_mark()
    chosen = listed[2]
    row(chosen).click()
    wait(lambda: selected_rows() == [chosen], "a row near the top is selected")
    js("document.getElementById('list-pane').scrollTop = 2000")
    time.sleep(0.3)
    first_visible = """const p = document.getElementById('list-pane').getBoundingClientRect();
        const r = [...document.querySelectorAll('#rows tr[data-event-id]')]
          .find(r => r.getBoundingClientRect().top >= p.top - 0.5);
        return r ? [r.dataset.eventId, r.getBoundingClientRect().top] : null;"""
    top_before = js("return document.getElementById('list-pane').scrollTop")
    expect(abs(top_before - 2000) < 1, f"the list scrolls to 2000 ({top_before})")
    anchor = js(first_visible)
    gen = js("return document.getElementById('status').dataset.generation")

    # three new events: one late in the day (above the scrolled-to rows in time order), two at noon (below)
    tag = str(int(time.time() * 1000))[-9:]
    new = [f"livetest{tag}{k}" for k in range(3)]
    times = [f"{day}T23:59:59.000Z", f"{day}T12:00:01.000Z", f"{day}T12:00:02.000Z"]
    feed = tempfile.mkdtemp() + "/live.csv"
    with open(feed, "w") as f:
        f.write("time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,"
                "horizontalError,depthError,magError,magNst,status,locationSource,magSource\n")
        for k in range(3):
            f.write(f"{times[k]},61.{k},-150.{k},10,4.{k},ml,,,,,ak,{new[k]},{day}T23:59:59.500Z,"
                    f"\"Live test {k} km N of Anchorage, Alaska\",earthquake,,,,,reviewed,ak,ak\n")
    subprocess.run([quakes, "load", "--store", store, feed], capture_output=True, check=True)
    committed = time.time()  # the load has committed once its process has exited
    ok = wait(lambda: all(i in rows() for i in new), "a load appears on the open page within 2 s", timeout=2.0)
    expect(ok, f"the live update took longer than 2 s ({time.time() - committed:.2f} s)")
    classes = {i: js("const r = document.querySelector(`#rows tr[data-event-id=\"${arguments[0]}\"]`);"
                     "return r ? r.className : null", i) for i in new}
    expect(all(c is not None and "new" in c.split() for c in classes.values()), f"new rows carry class new: {classes}")
    time.sleep(0.3)
    want = cli_ids(["--day", day, "--orderby", "time"])
    expect(rows() == want, f"the list equals the CLI's after the load ({len(rows())} rows, CLI {len(want)})")
    expect(js("return document.getElementById('status').dataset.generation") != gen, "the generation moved")
    top_after = js("return document.getElementById('list-pane').scrollTop")
    order = rows()
    above = anchor is not None and any(order.index(i) < order.index(anchor[0]) for i in new if i in order)
    expect(above, "a new row went in above the scrolled-to rows (the harder case)")
    if above:
        now = js(first_visible)
        expect(now is not None and now[0] == anchor[0] and abs(now[1] - anchor[1]) <= 3,
               f"rows inserted above: the first visible row was {anchor}, is {now} (scrollTop {top_before} -> "
               f"{top_after})")
    else:
        expect(abs(top_after - top_before) <= 3, f"scrollTop {top_before} -> {top_after}")
    expect(selected_rows() == [chosen] and url_params().get("selected") == chosen,
           f"the selection survives the update: {selected_rows()} {driver.current_url}")
    no_console_errors()


# ---------- narrow ----------

def narrow():
    start_browser(420, 800)
    day = busiest_day()
    listed = cli_rows(["--day", day, "--orderby", "time"], "id,place")
    shown(f"day={day}", [r["id"] for r in listed])
    drawn_mark()
    expect(js("return window.innerWidth") <= 700, f"a narrow window: {js('return window.innerWidth')} px")
    m, l = rect("#map-pane"), rect("#list-pane")
    expect(m["bottom"] <= l["top"] + 1, f"the map pane {m} is above the list pane {l}")
    mp = rect("#map")
    expect(mp["height"] >= 250, f"the map is {mp['height']:.0f} px tall, at least 250")
    expect(mp["width"] >= 300, f"the map is {mp['width']:.0f} px wide")
    cells = js("""const ths = [...document.querySelectorAll('#list thead th, table thead th')];
        const k = ths.findIndex(th => /place/i.test(th.textContent));
        if (k < 0) return null;
        return [...document.querySelectorAll('#rows tr[data-event-id]')].slice(0, 5).map(tr => {
          const c = tr.children[k], r = c.getBoundingClientRect(), s = getComputedStyle(c);
          return {id: tr.dataset.eventId, text: c.innerText.trim(), width: r.width, left: r.left, right: r.right,
                  shown: s.display !== 'none' && s.visibility !== 'hidden'};
        });""")
    expect(cells, "the list has a Place column")
    places = {r["id"]: r["place"] for r in listed}
    width = js("return window.innerWidth")
    for c in cells or []:
        expect(c["shown"] and c["width"] >= 40 and c["left"] < width and c["right"] > 0,
               f"the place cell of {c['id']} is visible: {c}")
        expect(c["text"] and c["text"] == places[c["id"]], f"the place cell of {c['id']} reads {c['text']!r}, "
                                                           f"CLI {places[c['id']]!r}")
    no_console_errors()


SCENARIOS = {"wrap": wrap, "selection": selection, "datefield": datefield, "empty": empty, "downloads": downloads,
             "range_region": range_region, "live": live, "narrow": narrow}

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
