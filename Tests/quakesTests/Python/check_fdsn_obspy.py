"""ObsPy's FDSN client against a live `quakes serve`: every get_events parameter, each answer
compared with the CLI's for the same filter (or, where the CLI has no such flag, with a naive
computation over the CLI's full CSV export). Prints "ok N requests" and exits 0, or prints what
differed and exits 1.

usage: check_fdsn_obspy.py PORT STORE QUAKES_BINARY
"""
import csv, io, math, subprocess, sys, warnings

from obspy import UTCDateTime
from obspy.clients.fdsn import Client
from obspy.clients.fdsn.header import FDSNBadRequestException, FDSNNoDataException

port, store, quakes = int(sys.argv[1]), sys.argv[2], sys.argv[3]
warnings.simplefilter("ignore")
client = Client(f"http://127.0.0.1:{port}", _discover_services=True)
failures = []
requests = 0


def cli_rows(args):
    out = subprocess.run([quakes, "query", "--store", store, "--format", "csv", "--limit", "1000000"] + args,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"quakes query {args} failed: {out.stderr}")
    return list(csv.DictReader(io.StringIO(out.stdout)))


ALL = None


def all_rows():
    global ALL
    if ALL is None:
        ALL = cli_rows(["--orderby", "time"])
    return ALL


def ids(cat):
    return [e.resource_id.id.rsplit("/", 1)[1] for e in cat]


def events(**kw):
    global requests
    requests += 1
    try:
        return client.get_events(**kw)
    except FDSNNoDataException:
        return []


def same(label, got, want):
    if got != want:
        failures.append(f"{label}: {len(got)} events, want {len(want)}; first difference at "
                        f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))}")


def check(label, kw, cli_args):
    cat = events(**kw)
    same(label, ids(cat), [r["id"] for r in cli_rows(cli_args)])
    return cat


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


rows = all_rows()
if len(rows) < 100:
    raise SystemExit(f"the store has only {len(rows)} events")
# a busy day in the store, and a sample event
days = {}
for r in rows:
    days[r["time"][:10]] = days.get(r["time"][:10], 0) + 1
day = max(days, key=days.get)
t0 = UTCDateTime(day)
t1 = t0 + 86400
# the service's endtime is inclusive (on or before), the CLI's --to exclusive: the day's last millisecond
e1 = t1 - 0.001
probe = rows[len(rows) // 2]

# every field, for one day
cat = check("day", dict(starttime=t0, endtime=e1), ["--from", str(t0)[:19], "--to", str(t1)[:19]])
want = {r["id"]: r for r in cli_rows(["--day", day])}
for e in cat:
    eid = e.resource_id.id.rsplit("/", 1)[1]
    r = want.get(eid)
    if r is None:
        failures.append(f"{eid}: not in the CLI's answer")
        continue
    o, m = e.preferred_origin(), e.preferred_magnitude()
    problems = []
    if abs(o.time - UTCDateTime(r["time"])) > 0.0005:
        problems.append(f"time {o.time} != {r['time']}")
    if not close(o.latitude, float(r["latitude"])) or not close(o.longitude, float(r["longitude"])):
        problems.append("position")
    if r["depth"] and not close(o.depth, float(r["depth"]) * 1000):
        problems.append(f"depth {o.depth} m != {r['depth']} km")
    if r["mag"] and (m is None or not close(m.mag, float(r["mag"]))):
        problems.append("mag")
    if r["magType"] and (m is None or m.magnitude_type != r["magType"]):
        problems.append("magType")
    if r["nst"] and o.quality.used_station_count != round(float(r["nst"])):
        problems.append("nst")
    if r["gap"] and not close(o.quality.azimuthal_gap, float(r["gap"])):
        problems.append("gap")
    if r["rms"] and not close(o.quality.standard_error, float(r["rms"])):
        problems.append("rms")
    if r["place"] and (not e.event_descriptions or e.event_descriptions[0].text != r["place"]):
        problems.append("place")
    if e.event_type is None and r["type"]:
        problems.append(f"type {r['type']!r} lost")
    mode = {"reviewed": "manual", "automatic": "automatic"}.get(r["status"])
    if mode and o.evaluation_mode != mode:
        problems.append("evaluationMode")
    if problems:
        failures.append(f"{eid}: " + ", ".join(problems))

# each parameter, within a window of days around the busy one (ObsPy parses ~1,000 events a second)
w0, w1 = t0 - 3 * 86400, t1 + 3 * 86400
W = dict(starttime=w0, endtime=w1 - 0.001)
WA = ["--from", str(w0)[:19], "--to", str(w1)[:19]]
_check = check


def check(label, kw, cli_args):
    if "starttime" not in kw and "eventid" not in kw:
        kw, cli_args = {**W, **kw}, WA + cli_args
    return _check(label, kw, cli_args)


rows = [r for r in rows if str(w0)[:19] <= r["time"][:19] < str(w1)[:19]]
check("box", dict(minlatitude=10, maxlatitude=60, minlongitude=-170, maxlongitude=-100),
      ["--minlatitude", "10", "--maxlatitude", "60", "--minlongitude", "-170", "--maxlongitude", "-100"])
check("circle in degrees", dict(latitude=60, longitude=-150, maxradius=10),
      ["--latitude", "60", "--longitude", "-150", "--maxradius", "10"])
check("depth", dict(mindepth=5, maxdepth=30), ["--mindepth", "5", "--maxdepth", "30"])
check("magnitude", dict(minmagnitude=2.5, maxmagnitude=4.5), ["--minmagnitude", "2.5", "--maxmagnitude", "4.5"])
check("magnitudetype", dict(magnitudetype="ml"), ["--magnitudetype", "ml"])
check("eventtype", dict(eventtype="earthquake", starttime=t0, endtime=e1),
      ["--eventtype", "earthquake", "--day", day])
check("catalog", dict(catalog="ak"), ["--catalog", "ak"])
check("updatedafter", dict(updatedafter=UTCDateTime(probe["updated"])), ["--updatedafter", probe["updated"]])
check("eventid", dict(eventid=probe["id"]), ["--eventid", probe["id"]])
for order in ["time", "time-asc", "magnitude", "magnitude-asc"]:
    check(f"orderby {order}", dict(starttime=t0, endtime=e1, orderby=order),
          ["--day", day, "--orderby", order])
check("limit", dict(limit=7, orderby="magnitude"), ["--limit", "7", "--orderby", "magnitude"])
# offset counts from 1 in FDSN and from 0 in the CLI
check("offset", dict(starttime=t0, endtime=e1, limit=5, offset=1), ["--day", day, "--limit", "5", "--offset", "0"])
check("offset 11", dict(starttime=t0, endtime=e1, limit=5, offset=11), ["--day", day, "--limit", "5", "--offset", "10"])
check("include flags", dict(starttime=t0, endtime=e1, includeallorigins=True, includeallmagnitudes=True,
                            includearrivals=False), ["--day", day])


# minradius and contributor: no CLI flag; a naive computation over every event
def haversine_deg(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return math.degrees(2 * math.asin(min(1, math.sqrt(a))))


got = ids(events(latitude=60, longitude=-150, minradius=5, maxradius=20, **W))
want = [r["id"] for r in rows
        if 5 < haversine_deg(60, -150, float(r["latitude"]), float(r["longitude"])) <= 20]
# boundary events (within 1e-9 degrees of a radius) may fall either way in floating point
same("minradius", sorted(got), sorted(want))
got = ids(events(contributor="ak", **W))
# contributor is what the text format prints: the sources, or for events without them (CSV) the net
sources = cli_rows(WA + ["--orderby", "time", "--fields", "id,sources,net"])
same("contributor", sorted(got),
     sorted(r["id"] for r in sources if ",ak," in r["sources"] or (not r["sources"] and r["net"] == "ak")))

# no data, and a bad request
try:
    client.get_events(starttime=UTCDateTime(2100, 1, 1))
    failures.append("no data: expected FDSNNoDataException")
except FDSNNoDataException:
    pass
try:
    client.get_events(minmagnitude=5, maxmagnitude=4)
    failures.append("bad request: expected FDSNBadRequestException")
except FDSNBadRequestException as ex:
    if "minmagnitude must not exceed maxmagnitude" not in str(ex):
        failures.append(f"bad request: the detail is missing from {ex}")

if failures:
    print("\n".join(failures[:40]))
    sys.exit(1)
print(f"ok {requests} requests, {len(rows)} events")
