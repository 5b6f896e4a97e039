"""The workload's parameters: one fixed draw from params.json, and draws at random from the archive.

A random draw picks rows of the archive at random (through SQLite's rowid) and takes its parameters
from them, so a day, a place, a year, a box or a network is drawn as often as the archive holds
events there: the days and regions a browser's user looks at. Magnitude cut-offs and offsets are
drawn uniformly. The seed is printed with the results, so a draw can be run again.
"""
import random
import re


def fixed_draw(p, k):
    """The k-th value set of params.json (each list cycled), as a draw."""
    pick = lambda key: p[key][k % len(p[key])]
    return {"source": f"params.json set {k + 1}", "day": pick("days"), "locality": pick("localities"),
            "country": pick("countries"), "year": pick("years"), "mag": pick("magnitudes"),
            "offset": pick("offsets"), "like": pick("likes"), "box": pick("boxes"),
            "box_mag": pick("box_magnitudes"), "net": pick("networks"), "net_mag": pick("net_magnitudes")}


def _row(con, rng, top, where="1"):
    """A row at random: time, place, latitude, longitude, net, (where it holds; 200 tries)."""
    for _ in range(200):
        r = con.execute(f"SELECT time, place, latitude, longitude, net FROM quakes WHERE rowid = ? AND {where}",
                        (rng.randint(1, top),)).fetchone()
        if r is not None:
            return r
    raise SystemExit(f"no row at random where {where}")


def _region(place):
    """The part of a place after its last comma: a state, a country, a region ("Alaska", "Chile")."""
    return place.rsplit(", ", 1)[-1].strip()


def _half(rng):
    return rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0])


def random_draw(con, rng, index):
    """One draw from the archive in the SQLite database con (table quakes), with the generator rng."""
    top = con.execute("SELECT max(rowid) FROM quakes").fetchone()[0]
    placed = "place LIKE '%, %' AND place GLOB '*[A-Za-z]*'"
    t, place, _, _, _ = _row(con, rng, top, placed)  # the day map: a day and a region with events on it
    _, country_place, _, _, _ = _row(con, rng, top, placed)
    ty, _, _, _, _ = _row(con, rng, top)
    _, like_place, _, _, _ = _row(con, rng, top, "place IS NOT NULL")
    _, _, lat, lon, _ = _row(con, rng, top)
    _, _, _, _, net = _row(con, rng, top, "net IS NOT NULL AND net != ''")
    words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", like_place) if w.lower() not in ("near", "region")]
    if not words:
        words = ["california"]
    dlat, dlon = rng.uniform(0.5, 8.0), rng.uniform(0.5, 12.0)
    box = [round(max(-90.0, lat - dlat), 2), round(min(90.0, lat + dlat), 2),
           round(max(-180.0, lon - dlon), 2), round(min(180.0, lon + dlon), 2)]
    return {"source": f"random draw {index}", "day": t[:10], "locality": _region(place),
            "country": _region(country_place), "year": int(ty[:4]), "mag": _half(rng),
            "offset": rng.randint(0, top - 100), "like": rng.choice(words), "box": box,
            "box_mag": rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]), "net": net,
            "net_mag": _half(rng)}


def draws(params, con, count, seed):
    """params.json's first set, then count - 1 draws at random with the seed."""
    rng = random.Random(seed)
    return [fixed_draw(params, 0)] + [random_draw(con, rng, i) for i in range(1, count)]
