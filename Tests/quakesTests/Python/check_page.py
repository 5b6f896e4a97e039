"""The quake browser page in headless Chromium, driven by Selenium, against a live `quakes serve`:
no console errors; for a day sorted each way the list equals the CLI's answer and order; one map
marker per row; search, the day buttons and selection sync; the URL state; and a load in another
process appearing on the open page within 2 s. Saves a screenshot. Prints "ok N checks" and exits
0, or prints the failures and exits 1.

usage: check_page.py PORT STORE QUAKES_BINARY SCREENSHOT
"""
import csv, datetime, io, os, subprocess, sys, tempfile, time

os.environ.setdefault("SE_OFFLINE", "true")
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains

port, store, quakes, shot = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
base = f"http://127.0.0.1:{port}/"
failures, checks = [], 0


def expect(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


def cli_ids(args):
    out = subprocess.run([quakes, "query", "--store", store, "--format", "csv", "--fields", "id", "--limit", "1000000"]
                         + args, capture_output=True, text=True, check=True)
    return [r["id"] for r in csv.DictReader(io.StringIO(out.stdout))]


def cli_count(args):
    out = subprocess.run([quakes, "count", "--store", store] + args, capture_output=True, text=True, check=True)
    return int(out.stdout.strip().replace(",", ""))


opts = webdriver.ChromeOptions()
opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900", "--disable-gpu"]:
    opts.add_argument(a)
opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
driver.set_page_load_timeout(30)


def wait(cond, what, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if cond():
                return True
        except Exception:
            pass
        time.sleep(0.05)
    failures.append(f"timed out: {what}")
    return False


def rows():
    return driver.execute_script("return [...document.querySelectorAll('#rows tr')].map(r => r.dataset.eventId)")


def marker_ids():
    return driver.execute_script("return QuakeMap.markers().map(m => m.id)")


def markers():
    """The drawn markers in client pixels: [{id, x, y, r}] (the map draws them as paths)."""
    return driver.execute_script("return QuakeMap.markers()")


def generation():
    return driver.find_element(By.ID, "status").get_attribute("data-generation")


def shown(url_query):
    """Opens the page at ?url_query and waits for its list."""
    driver.get(base + "?" + url_query)
    wait(lambda: driver.find_element(By.ID, "status").get_attribute("data-matched") is not None
         and driver.find_element(By.ID, "rows").get_attribute("data-complete") == "true", f"load {url_query}")


try:
    # the busiest day the CLI knows of among the newest events
    newest = cli_ids(["--orderby", "time", "--limit", "1", "--fields", "id"])
    out = subprocess.run([quakes, "agg", "--store", store, "--by", "day", "--metrics", "count", "--sort", "count:desc",
                          "--limit", "1", "--format", "csv"], capture_output=True, text=True, check=True)
    day = list(csv.reader(io.StringIO(out.stdout)))[1][0][:10]
    for order in ["time", "time-asc", "magnitude", "magnitude-asc"]:
        shown(f"day={day}&orderby={order}")
        want = cli_ids(["--day", day, "--orderby", order])
        wait(lambda: rows() == want, f"{order}: the list equals the CLI's")
        expect(rows() == want, f"{order}: list {len(rows())} rows, CLI {len(want)}")
        if len(want) <= 5000:
            ids = sorted(marker_ids())
            expect(ids == sorted(want), f"{order}: {len(ids)} markers for {len(want)} rows")
    total = cli_count(["--day", day])
    status = driver.find_element(By.ID, "status").text
    expect(status == f"{total:,} of {total:,} quakes", f"footer {status!r}")

    # column headers re-sort: Mag toggles magnitude / magnitude-asc
    shown(f"day={day}&orderby=time")
    driver.find_element(By.ID, "th-mag").click()
    want = cli_ids(["--day", day, "--orderby", "magnitude"])
    wait(lambda: rows() == want, "clicking Mag sorts by magnitude")
    expect("orderby=magnitude" in driver.current_url, f"URL after sorting: {driver.current_url}")
    driver.find_element(By.ID, "th-mag").click()
    want = cli_ids(["--day", day, "--orderby", "magnitude-asc"])
    wait(lambda: rows() == want, "clicking Mag again reverses")

    # search ignores case and diacritics, as the CLI's --place-like
    word = None
    for candidate in ["alaska", "california", "hawaii", "ca", "nevada", "chile", "japan", "of"]:
        if cli_ids(["--day", day, "--place-like", candidate]):
            word = candidate
            break
    box = driver.find_element(By.ID, "search")
    box.send_keys(word.upper())
    want = cli_ids(["--day", day, "--place-like", word, "--orderby", "magnitude-asc"])
    wait(lambda: rows() == want, f"search {word!r}")
    status = driver.find_element(By.ID, "status").text
    expect(status == f"{len(want):,} of {total:,} quakes", f"footer after search {status!r}")
    expect(f"search={word.upper()}" in driver.current_url, "search in the URL")

    # minimum magnitude
    shown(f"day={day}&minmagnitude=2")
    want = cli_ids(["--day", day, "--min-mag", "2", "--orderby", "time"])
    wait(lambda: rows() == want, "minimum magnitude")

    # the day buttons, and back
    shown(f"day={day}")
    driver.find_element(By.ID, "prev-day").click()
    prev = (datetime.date.fromisoformat(day) - datetime.timedelta(days=1)).isoformat()
    want = cli_ids(["--day", prev, "--orderby", "time"])
    wait(lambda: f"day={prev}" in driver.current_url and rows() == want, f"previous day {prev}")
    driver.back()
    want = cli_ids(["--day", day, "--orderby", "time"])
    wait(lambda: f"day={day}" in driver.current_url and rows() == want, "back returns to the day")

    # selection: a row lights its marker; a marker selects and scrolls to its row
    shown(f"day={day}&orderby=magnitude")
    first = driver.find_element(By.CSS_SELECTOR, "#rows tr")
    eid = first.get_attribute("data-event-id")
    first.click()
    m = driver.find_element(By.ID, "selected-marker")
    expect(m.get_attribute("data-event-id") == eid and m.get_attribute("data-selected") is not None,
           "clicking a row selects its marker")
    expect(f"selected={eid}" in driver.current_url, "selection in the URL")
    # a click on the map where a marker is drawn selects the smallest marker under the pointer
    rect = driver.execute_script("const r = document.getElementById('map').getBoundingClientRect();"
                                 "return [r.left, r.top, r.width, r.height]")
    ms = [k for k in markers() if k["id"] != eid and rect[0] + 5 < k["x"] < rect[0] + rect[2] - 5
          and rect[1] + 5 < k["y"] < rect[1] + rect[3] - 5]
    target = ms[-1]
    under = [k for k in markers() if (k["x"] - target["x"]) ** 2 + (k["y"] - target["y"]) ** 2 <= (k["r"] + 3) ** 2]
    other = min(under, key=lambda k: k["r"])["id"]
    ActionChains(driver).move_to_element_with_offset(
        driver.find_element(By.ID, "map"), target["x"] - rect[0] - rect[2] / 2, target["y"] - rect[1] - rect[3] / 2
    ).click().perform()
    wait(lambda: f"selected={other}" in driver.current_url, "clicking a marker selects it")
    tr = driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-event-id="{other}"]')
    expect("selected" in (tr.get_attribute("class") or ""), "clicking a marker selects its row")
    expect(driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(), p = document.getElementById('list-pane').getBoundingClientRect();"
        "return r.top >= p.top - 1 && r.bottom <= p.bottom + 1;", tr), "the selected row is scrolled into view")
    # a shared URL restores the selection
    shown(f"day={day}&orderby=magnitude&selected={other}")
    wait(lambda: driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-event-id="{other}"]')
         .get_attribute("aria-selected") == "true", "a URL with selected= restores it")

    # live: a load in another process shows on the open page within 2 s, keeping the selection
    before = len(rows())
    gen = generation()
    feed = tempfile.mkdtemp() + "/live.csv"
    with open(feed, "w") as f:
        f.write("time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,"
                "horizontalError,depthError,magError,magNst,status,locationSource,magSource\n")
        for k in range(3):
            f.write(f"{day}T12:0{k}:00.000Z,61.{k},-150.{k},10,4.{k},ml,,,,,ak,livetest{k},{day}T13:00:00.000Z,"
                    f"\"Live test {k} km N of Anchorage, Alaska\",earthquake,,,,,reviewed,ak,ak\n")
    subprocess.run([quakes, "load", "--store", store, feed], capture_output=True, check=True)
    committed = time.time()  # the load has committed once its process has exited
    ok = wait(lambda: len(rows()) == before + 3, "a load appears on the open page within 2 s", timeout=2.0)
    expect(ok, f"live update took longer than 2 s ({time.time() - committed:.2f} s)")
    expect(generation() != gen, "the generation moved")
    expect("selected" in (driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-event-id="{other}"]')
                          .get_attribute("class") or ""), "the selection survives a live update")

    # no console errors
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    expect(not errors, f"console errors: {errors[:3]}")
    driver.save_screenshot(shot)
finally:
    driver.quit()

if failures:
    print("\n".join(failures[:40]))
    sys.exit(1)
print(f"ok {checks} checks")
