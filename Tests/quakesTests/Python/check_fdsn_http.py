"""HTTP-level checks of a live `quakes serve` started with --max-events 100 (standard library only):
every format, aliases, 1-based offset, limits, errors and their bodies, gzip, a client that goes
away mid-stream, the page's endpoints, and bad input that must never be a 500.
Prints "ok N checks" and exits 0, or prints the failures and exits 1.

usage: check_fdsn_http.py PORT
"""
import csv, gzip, http.client, io, json, random, socket, sys, time, urllib.parse
import xml.etree.ElementTree as ET

port = int(sys.argv[1])
failures, checks = [], 0
Q = "/fdsnws/event/1/query?"


def get(path, headers=None, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def expect(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


def text_ids(params):
    s, h, b = get(Q + urllib.parse.urlencode({**params, "format": "text"}))
    if s == 204:
        return []
    expect(s == 200, f"text {params}: status {s}")
    lines = b.decode().splitlines()
    expect(lines and lines[0].startswith("#EventID|Time|"), f"text header {lines[:1]}")
    return [l.split("|", 1)[0] for l in lines[1:]]


# a window of the data: the newest 50 events' span
s, h, b = get(Q + "format=text&limit=50")
expect(s == 200, f"newest 50: {s}")
lines = b.decode().splitlines()[1:]
newest, oldest = lines[0].split("|")[1], lines[-1].split("|")[1]
window = {"starttime": oldest, "endtime": newest[:19] + ".999", "limit": 100}

# --- every format carries the same events
ids = text_ids(window)
expect(len(ids) >= 50, f"window has {len(ids)} events")
for fmt in ["xml", "quakeml"]:
    s, h, b = get(Q + urllib.parse.urlencode({**window, "format": fmt}))
    root = ET.fromstring(b)
    ns = {"b": "http://quakeml.org/xmlns/bed/1.2"}
    ev = root.findall(".//b:event", ns)
    got = [e.get("publicID").rsplit("/", 1)[1] for e in ev]
    expect(got == ids, f"{fmt}: {len(got)} events differ from text's {len(ids)}")
    expect(h.get("content-type", "").startswith("application/xml"), f"{fmt} content-type {h.get('content-type')}")
    expect(h.get("x-quakes-rows") == str(len(ids)), "X-Quakes-Rows")
    expect(h.get("x-quakes-generation", "").isdigit(), "X-Quakes-Generation")
s, h, b = get(Q + urllib.parse.urlencode({k: v for k, v in window.items()}))
expect(b.startswith(b"<?xml") and b"<q:quakeml" in b, "the default format is QuakeML")
s, h, b = get(Q + urllib.parse.urlencode({**window, "format": "geojson"}))
g = json.loads(b)
expect([f["id"] for f in g["features"]] == ids, "geojson ids")
expect(g["metadata"]["count"] == len(ids), "geojson metadata.count")
s, h, b = get(Q + urllib.parse.urlencode({**window, "format": "csv"}))
rows = list(csv.DictReader(io.StringIO(b.decode())))
expect([r["id"] for r in rows] == ids, "csv ids")

# --- aliases
alias = {"start": window["starttime"], "end": window["endtime"], "limit": 100}
expect(text_ids(alias) == ids, "start/end aliases")
box = {"minlatitude": -30, "maxlatitude": 30, "minlongitude": -120, "maxlongitude": 120}
short = {"minlat": -30, "maxlat": 30, "minlon": -120, "maxlon": 120}
expect(text_ids({**window, **box}) == text_ids({**window, **short}), "box aliases")
expect(text_ids({**window, "minmagnitude": 1, "maxmagnitude": 3, "magnitudetype": "ml"})
       == text_ids({**window, "minmag": 1, "maxmag": 3, "magtype": "ml"}), "magnitude aliases")
expect(text_ids({**window, "latitude": 0, "longitude": 0, "maxradius": 90})
       == text_ids({**window, "lat": 0, "lon": 0, "maxradiuskm": 90 * 6371.0088 * 3.141592653589793 / 180}),
       "lat/lon aliases and maxradiuskm")
# a box across the antimeridian equals its two halves
across = set(text_ids({**window, "minlongitude": 100, "maxlongitude": 260}))
halves = set(text_ids({**window, "minlongitude": 100, "maxlongitude": 180})) | \
    set(text_ids({**window, "minlongitude": -180, "maxlongitude": -100}))
expect(across == halves, f"dateline box {len(across)} != halves {len(halves)}")

# --- offset counts from 1
expect(text_ids({**window, "limit": 5, "offset": 1}) == ids[:5], "offset=1 is the first event")
expect(text_ids({**window, "limit": 5, "offset": 3}) == ids[2:7], "offset=3 starts at the third")
for bad in ["0", "-1", "x"]:
    s, h, b = get(Q + f"offset={bad}&limit=1")
    expect(s == 400, f"offset={bad}: {s}")

# --- limits (the server runs with --max-events 100)
s, h, b = get(Q + "limit=101")
expect(s == 400 and b"at most 100" in b, f"limit over max-events: {s} {b[:80]}")
s, h, b = get(Q + "minmagnitude=-10")
expect(s == 400 and b"exceeds search limit of 100" in b, f"over max-events: {s} {b[:120]}")
s, h, b = get("/fdsnws/event/1/count?minmagnitude=-10")
expect(s == 200 and int(b) > 100, f"count is not capped: {b[:40]}")
s, h, b = get("/fdsnws/event/1/count?minmagnitude=-10&format=geojson")
expect(json.loads(b)["maxAllowed"] == 100, "count geojson maxAllowed")

# --- errors and their bodies
s, h, b = get(Q + "bogus=1")
t = b.decode()
expect(s == 400 and t.startswith("Error 400: Bad Request"), f"unknown parameter: {s} {t[:60]}")
for part in ["Unknown parameter 'bogus'", "Usage details are available from", "Request:", "/query?bogus=1",
             "Request Submitted:", "Service version:", "1.2.0"]:
    expect(part in t, f"error body lacks {part!r}")
for q in ["minmagnitude=abc", "starttime=2024-13-01", "minlatitude=10&maxlatitude=5", "orderby=size",
          "format=kmz", "nodata=500", "starttime=2024-02-01&endtime=2024-01-01", "latitude=10",
          "maxradius=10", "callback=cb", "format=geojson&callback=a(b)", "limit=1&limit=2",
          "minradius=5&maxradius=1&latitude=0&longitude=0", "includearrivals=maybe", "offset=%zz"]:
    s, h, b = get(Q + q)
    expect(s == 400 and b.startswith(b"Error 400: Bad Request"), f"{q}: {s} {b[:60]}")
s, h, b = get(Q + "starttime=2100-01-01")
expect(s == 204 and b == b"", f"no data: {s}")
s, h, b = get(Q + "starttime=2100-01-01&nodata=404")
expect(s == 404 and b.startswith(b"Error 404: Not Found"), f"nodata=404: {s}")
s, h, b = get(Q + "minmagnitude=abc&jsonerror=true")
j = json.loads(b)
expect(s == 400 and j["metadata"]["status"] == 400 and "minmagnitude" in j["metadata"]["error"], "jsonerror")
s, h, b = get(Q + urllib.parse.urlencode({**window, "format": "geojson", "callback": "my.cb_1"}))
expect(b.startswith(b"my.cb_1(") and b.rstrip().endswith(b");"), "callback wraps geojson")
expect(json.loads(b[len("my.cb_1("):b.rstrip().rindex(b")")])["metadata"]["count"] == len(ids), "callback body")

# --- the other resources
s, h, b = get("/fdsnws/event/1/version")
expect(s == 200 and b.strip() == b"1.2.0", "version")
s, h, b = get("/fdsnws/event/1/application.wadl")
w = ET.fromstring(b)
names = {p.get("name") for p in w.iter("{http://wadl.dev.java.net/2009/02}param")}
for n in ["starttime", "endtime", "minlatitude", "maxradius", "minmagnitude", "magnitudetype", "eventtype",
          "includeallorigins", "includearrivals", "eventid", "limit", "offset", "orderby", "catalog",
          "contributor", "updatedafter", "format", "nodata", "minradiuskm", "callback", "jsonerror"]:
    expect(n in names, f"wadl lacks {n}")
for res, item in [("catalogs", "Catalog"), ("contributors", "Contributor")]:
    s, h, b = get("/fdsnws/event/1/" + res)
    expect(s == 200 and len(ET.fromstring(b).findall(item)) >= 1, res)
s, h, b = get("/fdsnws/event/1/nothing")
expect(s == 404, f"unknown resource: {s}")

# --- gzip
s, h, b = get(Q + urllib.parse.urlencode({**window, "format": "csv"}), {"Accept-Encoding": "gzip"})
expect(h.get("content-encoding") == "gzip", "gzip when asked")
expect(list(csv.DictReader(io.StringIO(gzip.decompress(b).decode())))[-1]["id"] == ids[-1], "gzip body is whole")
s, h, b = get(Q + urllib.parse.urlencode({**window, "format": "csv"}), {"Accept-Encoding": "gzip;q=0"})
expect("content-encoding" not in h, "no gzip with q=0")

# --- a client that goes away mid-stream; the server goes on answering
sock = socket.create_connection(("127.0.0.1", port))
sock.sendall(b"GET " + (Q + "limit=100&format=xml").encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
sock.recv(100)
sock.close()
time.sleep(0.2)
s, h, b = get("/fdsnws/event/1/version")
expect(s == 200, "answers after a client left mid-stream")

# --- the page's endpoints
day = newest[:10]
s, h, b = get("/api/day?day=" + day)
d = json.loads(b)
expect(s == 200 and d["day"] == day and d["matched"] == len(d["events"]) == d["total"], "/api/day")
s, h, b = get("/api/day?day=" + day + "&minmagnitude=2.5&orderby=magnitude")
d2 = json.loads(b)
mags = [e[2] for e in d2["events"]]
expect(d2["total"] == d["total"] and all(m >= 2.5 for m in mags) and mags == sorted(mags, reverse=True),
       "/api/day filtered and sorted")
s, h, b = get("/api/day")
expect(s == 200 and json.loads(b)["day"] == day, "/api/day defaults to the newest day")
for q in ["day=2024-02-30", "day=x", "orderby=up", "minmagnitude=nan", "search=" + "x" * 300, "what=1"]:
    s, h, b = get("/api/day?" + q)
    expect(s == 400 and "error" in json.loads(b), f"/api/day?{q[:30]}: {s}")
# a range (endtime inclusive) and a region across 180° equal the FDSN service's answer
start, end = day + "T00:00:00", day + "T23:59:59.999"
s, h, b = get("/api/day?" + urllib.parse.urlencode({"starttime": start, "endtime": end, "orderby": "time-asc"}))
r = json.loads(b)
expect(s == 200 and r["day"] is None and r["matched"] == len(r["events"]) <= 100
       and [e[0] for e in r["events"]] == text_ids({"starttime": start, "endtime": end, "orderby": "time-asc"}),
       "/api/day range")
box = {"minlatitude": -60, "maxlatitude": 60, "minlongitude": 150, "maxlongitude": 230}
s, h, b = get("/api/day?" + urllib.parse.urlencode({"day": day, **box}))
r = json.loads(b)
n = int(get("/fdsnws/event/1/count?" + urllib.parse.urlencode(
    {"starttime": day, "endtime": day + "T23:59:59.999", **box}))[2])
expect(s == 200 and r["matched"] == n and all(e[6] >= 150 or e[6] <= -130 for e in r["events"]), "/api/day box")
s, h, b = get("/api/day?day=1900-01-01")
r = json.loads(b)
expect(s == 200 and r["matched"] == 0 and r["before"] is None and r["after"] is not None, "/api/day empty day")
for q in ["starttime=2019-01-01&endtime=2019-03-01", "last=2d", "day=2019-01-01&last=1d", "starttime=2019-01-01"]:
    s, h, b = get("/api/day?" + q)
    expect(s == 400 and "error" in json.loads(b), f"/api/day?{q}: {s}")
# downloads: every listed event (no --max-events cap), as an attachment named after the view
s, h, b = get("/api/download?day=" + day + "&format=csv")
expect(s == 200 and h.get("content-disposition") == f'attachment; filename="quakes-{day}.csv"', f"download {h}")
expect(len(b.decode().splitlines()) - 1 == d["matched"], "the download holds the whole list")
for q, status in [("day=" + day, 400), ("day=" + day + "&format=kmz", 400), ("format=csv&what=1", 400)]:
    s, h, b = get("/api/download?" + q)
    expect(s == status, f"/api/download?{q}: {s}")
s, h, b = get("/api/event?id=" + urllib.parse.quote(d["events"][0][0]))
ev = json.loads(b)
expect(s == 200 and ev["id"] == d["events"][0][0] and "updated" in ev and len(ev) >= 22, "/api/event")
for q, status in [("id=no-such-event", 404), ("", 400), ("id=a&id=b", 400)]:
    s, h, b = get("/api/event?" + q)
    expect(s == status, f"/api/event?{q}: {s}")
s, h, b = get("/")
expect(s == 200 and b"<title>quakes</title>" in b, "the page")
for path in ["/assets/app.js", "/assets/map.js", "/assets/app.css"]:
    s, h, b = get(path)
    expect(s == 200 and len(b) > 100, path)
for path in ["/assets/..%2f..%2fetc%2fpasswd", "/assets/../Package.swift", "/assets/%2e%2e/x", "/assets/"]:
    s, h, b = get(path)
    expect(s == 404 and b"root:" not in b, f"{path}: {s}")
s, h, b = get("/api/coastlines")
expect(s in (200, 404), f"coastlines {s}")

# --- sizes and garbage: never a 500
s, h, b = get(Q + "eventid=" + "a" * 20000)
expect(400 <= s < 500, f"a long request line: {s}")
s, h, b = get("/fdsnws/event/1/version", {"X-Big": "y" * 40000})
expect(400 <= s < 500 or s == 0, f"a huge header: {s}")
random.seed(7)
params = ["starttime", "endtime", "minlatitude", "maxlongitude", "latitude", "maxradius", "minmagnitude",
          "limit", "offset", "orderby", "format", "nodata", "eventid", "updatedafter", "callback", "catalog"]
junk = ["", "-", "1e309", "nan", "inf", "-0", "2024-01-01T25:00:00", "9" * 40, "%00", "a%20b", "\u00e9", "1,2",
        "-999999999999", "2024-01-01", "10", "time", "geojson", "204", "true"]
for _ in range(300):
    q = "&".join(f"{random.choice(params)}={urllib.parse.quote(random.choice(junk))}"
                 for _ in range(random.randint(1, 4)))
    s, h, b = get(Q + q)
    expect(s in (200, 204, 400), f"{q}: {s} {b[:80]}")

if failures:
    print("\n".join(failures[:50]))
    sys.exit(1)
print(f"ok {checks} checks")
