"""Checks the KML `quakes` writes (standard library only: xml.etree.ElementTree).

  check_kml.py feed FEED.csv KML      the CLI's KML of a store loaded from FEED.csv, against the CSV:
                                      one Placemark per event with a position, coordinates equal
                                      the CSV's lon,lat,-depth*1000, every styleUrl names a Style
                                      whose colour and size are USGS's for the event's depth and
                                      magnitude, names as USGS's `M {mag} - {place}`, times, fields.
  check_kml.py serve PORT QUERY KML   `quakes serve`'s /fdsnws/event/1/query?QUERY&format=kml gives
                                      the same placemarks as the CLI's KML, with KML's content type;
                                      the WADL and the bad-format error name kml.
  check_kml.py escape KML             the one placemark of a store whose text carries & < > " '.

Prints "ok N checks" and exits 0, or prints the failures and exits 1.
"""
import csv, http.client, sys, urllib.parse
import xml.etree.ElementTree as ET
from decimal import Decimal, ROUND_HALF_UP

NS = "http://www.opengis.net/kml/2.2"
K = "{%s}" % NS
failures, checks = [], 0


def expect(cond, what):
    global checks
    checks += 1
    if not cond and len(failures) < 20:
        failures.append(what)


def finish():
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"ok {checks} checks")


def parse(data):
    root = ET.fromstring(data)
    expect(root.tag == K + "kml", f"root is {root.tag}")
    doc = root.find(K + "Document")
    styles = {s.get("id"): s for s in doc.findall(K + "Style")}
    return doc, styles, doc.findall(K + "Placemark")


def fields(pm):
    return {d.get("name"): d.findtext(K + "value") for d in pm.iter(K + "Data")}


# USGS's KMLFeed: size by the magnitude's whole part, colour by depth (kmlcolorby=depth)
SIZES = [0.2, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.1, 1.5, 2.0, 2.5]
COLORS = [(35, "dd009dfe"), (70, "dd03fffb"), (150, "dd00ff00"), (300, "ddfd0004"), (500, "ddc424a0")]
TYPES = {"earthquake": "", "quarry": "Quarry Blast", "nuke": "Nuclear Explosion", "rockfall": "Rockslide",
         "rockburst": "Rockslide", "sonicboom": "Sonic Boom"}


def expected_name(row):
    if row["mag"] == "":
        mag = "?"
    else:
        mag = str(Decimal(row["mag"]).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
        mag = "0.0" if mag == "-0.0" else mag
    t = row["type"]
    kind = TYPES.get(t.lower(), " ".join(w[:1].upper() + w[1:] for w in t.split(" ")))
    name = "M " + mag + (" " + kind if kind else "")
    return name + (" - " + row["place"] if row["place"] else "")


def expected_style(row):
    mag = float(row["mag"]) if row["mag"] else 0
    size = SIZES[min(10, max(0, int(mag)))]
    depth = float(row["depth"]) if row["depth"] else 0
    color = next((c for bound, c in COLORS if depth <= bound), "dd0000fc")
    return size, color


def check_feed(feed, kml):
    rows = {r["id"]: r for r in csv.DictReader(open(feed, newline="", encoding="utf-8"))}
    with_position = {i for i, r in rows.items() if r["latitude"] and r["longitude"]}
    doc, styles, pms = parse(open(kml, "rb").read())
    expect(len(pms) == len(with_position), f"{len(pms)} placemarks for {len(with_position)} events with a position")
    seen = set()
    for pm in pms:
        f = fields(pm)
        eid = f.get("id")
        row = rows.get(eid)
        if row is None:
            expect(False, f"placemark for unknown id {eid}")
            continue
        seen.add(eid)
        expect(pm.findtext(K + "name") == expected_name(row),
               f"{eid}: name {pm.findtext(K + 'name')!r}, expected {expected_name(row)!r}")
        point = pm.find(K + "Point")
        expect(point.findtext(K + "altitudeMode") == "clampToGround", f"{eid}: altitudeMode")
        c = point.findtext(K + "coordinates").split(",")
        expect(Decimal(c[0]) == Decimal(row["longitude"]) and Decimal(c[1]) == Decimal(row["latitude"]),
               f"{eid}: lon,lat {c[:2]} vs {row['longitude']},{row['latitude']}")
        if row["depth"]:
            expect(len(c) == 3 and Decimal(c[2]) == -Decimal(row["depth"]) * 1000,
                   f"{eid}: altitude {c[2:]} for depth {row['depth']}")
        else:
            expect(len(c) == 2, f"{eid}: no depth, yet {c}")
        expect(pm.findtext(f"{K}TimeStamp/{K}when") == row["time"], f"{eid}: when vs {row['time']}")
        url = pm.findtext(K + "styleUrl")
        style = styles.get(url[1:]) if url and url.startswith("#") else None
        expect(style is not None, f"{eid}: styleUrl {url} names no Style")
        if style is not None:
            size, color = expected_style(row)
            got_color = style.findtext(f"{K}IconStyle/{K}color")
            got_size = float(style.findtext(f"{K}IconStyle/{K}scale"))
            expect((got_size, got_color) == (size, color),
                   f"{eid}: style {url} is {got_size},{got_color}; expected {size},{color} "
                   f"for M{row['mag']} at {row['depth']} km")
        expect(pm.find(K + "Style") is None, f"{eid}: inline style")
        for k in ["time", "latitude", "longitude", "depth", "mag", "magType", "place", "type", "net", "status"]:
            expect(f.get(k, "") == row[k], f"{eid}: ExtendedData {k} {f.get(k)!r} vs {row[k]!r}")
        d = pm.findtext(K + "description")
        expect(eid in d and "earthquake.usgs.gov/earthquakes/eventpage/" + eid in d, f"{eid}: description")
    expect(seen == with_position, f"{len(with_position - seen)} events have no placemark")
    expect(len(styles) == 66, f"{len(styles)} shared styles")


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def canonical(pm):
    return ET.tostring(pm, encoding="unicode")


def check_serve(port, query, kml):
    s, h, body = get(port, "/fdsnws/event/1/query?" + query + "&format=kml")
    expect(s == 200, f"status {s}: {body[:200]!r}")
    expect(h.get("content-type", "").startswith("application/vnd.google-earth.kml+xml"),
           f"content-type {h.get('content-type')}")
    _, _, served = parse(body)
    _, _, cli = parse(open(kml, "rb").read())
    expect(len(served) > 0 and len(served) == len(cli), f"server {len(served)} placemarks, CLI {len(cli)}")
    diff = [i for i, (a, b) in enumerate(zip(served, cli)) if canonical(a) != canonical(b)]
    expect(not diff, f"{len(diff)} placemarks differ, first at {diff[:1]}: "
           + (canonical(served[diff[0]])[:300] + " vs " + canonical(cli[diff[0]])[:300] if diff else ""))
    s, h, body = get(port, "/fdsnws/event/1/application.wadl")
    wadl = ET.fromstring(body)
    W = "{http://wadl.dev.java.net/2009/02}"
    opts = [o.get("value") for p in wadl.iter(W + "param") if p.get("name") == "format" for o in p.iter(W + "option")]
    expect("kml" in opts, f"WADL format options {opts}")
    types = [r.get("mediaType") for r in wadl.iter(W + "representation")]
    expect("application/vnd.google-earth.kml+xml" in types, "WADL lists KML's media type")
    s, h, body = get(port, "/fdsnws/event/1/query?format=kmz")
    expect(s == 400 and b"kml" in body, f"bad format: {s} {body[:200]!r}")


def check_escape(kml):
    raw = open(kml, "rb").read()
    _, styles, pms = parse(raw)
    expect(len(pms) == 1, f"{len(pms)} placemarks")
    pm = pms[0]
    place = "5 km N of \"A&B\" <Town> & O'Neil ]]> end"
    f = fields(pm)
    expect(f.get("place") == place, f"place {f.get('place')!r}")
    expect(pm.findtext(K + "name") == "M 4.5 Quarry Blast - " + place, f"name {pm.findtext(K + 'name')!r}")
    d = pm.findtext(K + "description")
    html_place = place.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    expect(html_place in d, f"description holds the place HTML-escaped: {d!r}")
    expect(b"<![CDATA[" in raw and b"]]> end" not in raw, "the place's ]]> cannot close the CDATA section")
    expect(f.get("magType") == "m<l>", f"magType {f.get('magType')!r}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "feed":
        check_feed(sys.argv[2], sys.argv[3])
    elif mode == "serve":
        check_serve(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif mode == "escape":
        check_escape(sys.argv[2])
    finish()
