"""Runs `quakes agg` questions and the same questions in DuckDB, over the store's Parquet export,
and compares the answers group by group: keys and counts exactly, other numbers to 1e-12 relative.

usage: check_agg_duckdb.py QUAKES STORE PARQUET_DIR SEED
Prints "ok cases=N groups=G" or each mismatch, exiting 1. SEED draws the random cases.
"""
import csv
import io
import math
import random
import subprocess
import sys

import duckdb


# the part of place after "N km DIR of ", or the whole place, as quakes's `region`
REGION = ("CASE WHEN regexp_matches(place, '^(0|[1-9][0-9]{0,5}) ?km "
          "(N|NNE|NE|ENE|E|ESE|SE|SSE|S|SSW|SW|WSW|W|WNW|NW|NNW) of .') "
          "THEN regexp_extract(place, '^[0-9]+ ?km [NSEW]+ of (.*)$', 1) ELSE place END")

# each --by and its SQL: the key's text as quakes prints it
KEYS = {
    "year": "year(time)",
    "month": "strftime(time, '%Y-%m')",
    "day": "strftime(time, '%Y-%m-%d')",
    "quarter": "quarter(time)",
    "hourofday": "hour(time)",
    "dayofweek": "dayofweek(time)",
    "time:6h": "strftime(time_bucket(INTERVAL '6 hours', time), '%Y-%m-%dT%H:%M:%SZ')",
    "time:1w": "strftime(time_bucket(INTERVAL '1 week', time), '%Y-%m-%dT%H:%M:%SZ')",
    "region": REGION,
    "place": "place",
    "net": "net",
    "magType": '"magType"',
    "type": "type",
    "status": "status",
    "mag:0.5": "floor(mag / 0.5) * 0.5",
    "depth:10": "floor(depth / 10) * 10",
}

# each metric and its SQL
METRICS = {
    "count": "count(*)",
    "count(mag)": "count(mag)",
    "count(place)": "count(place)",
    "count(distinct net)": "count(DISTINCT net)",
    "count(distinct place)": "count(DISTINCT place)",
    "count(distinct mag)": "count(DISTINCT mag)",
    "avg(mag)": "avg(mag)",
    "sum(depth)": "sum(depth)",
    "min(mag)": "min(mag)",
    "max(depth)": "max(depth)",
    "stddev(mag)": "stddev(mag)",
    "stddev(depth)": "stddev(depth)",
    "median(depth)": "median(depth)",
    "median(mag)": "median(mag)",
    "p90(depth)": "quantile_disc(depth, 0.9)",
    "p50(mag)": "quantile_disc(mag, 0.5)",
}

# conditions on groups and their SQL: no threshold that a group's float average could equal exactly,
# where the order of a sum's additions would decide the answer
HAVING = {
    "count > 20": "count(*) > 20",
    "count(distinct net) >= 2 or max(mag) - min(mag) > 3": "count(DISTINCT net) >= 2 OR max(mag) - min(mag) > 3",
    "avg(mag) >= 1.51237 and not count < 5": "avg(mag) >= 1.51237 AND NOT count(*) < 5",
    "stddev(depth) * 2 > 10": "stddev(depth) * 2 > 10",
}

FIXED = [
    (["region"], ["count", "avg(mag)", "count(distinct net)", "stddev(mag)", "median(depth)", "p90(depth)"], None),
    (["place"], ["count", "max(depth)"], "count > 20"),
    (["year", "quarter", "hourofday"], ["count", "min(mag)", "sum(depth)"], None),
    (["dayofweek"], ["count(mag)", "count(place)", "count(distinct place)", "count(distinct mag)"], None),
    (["time:6h"], ["count", "avg(mag)"], None),
    (["time:1w"], ["count"], None),
    (["net", "magType", "type", "status", "mag:0.5", "depth:10", "year", "quarter"], ["count", "stddev(depth)"],
     "avg(mag) >= 1.51237 and not count < 5"),
    (["mag:0.5"], ["count", "median(mag)", "p50(mag)", "stddev(mag)"], None),
    (["region"], ["count"], "count(distinct net) >= 2 or max(mag) - min(mag) > 3"),
    ([], ["count", "count(distinct net)", "median(depth)", "stddev(depth)", "p90(depth)"], None),
]


def drawn(rng, count):
    """`count` random cases: one to four keys, one to four metrics, a condition half the time."""
    cases = []
    for _ in range(count):
        keys = rng.sample(sorted(KEYS), rng.randint(1, 4))
        metrics = rng.sample(sorted(METRICS), rng.randint(1, 4))
        having = rng.choice(sorted(HAVING)) if rng.random() < 0.5 else None
        cases.append((keys, metrics, having))
    return cases


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def same(left, right, exact):
    if left in ("", None) or right in ("", None):
        return left in ("", None) and right in ("", None)
    a, b = number(left), number(right)
    if a is None or b is None:
        return str(left) == str(right)
    if exact:
        return a == b
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def agg_arguments(keys, metrics, having):
    """`quakes agg`'s arguments for a question, as CSV without a header."""
    args = ["agg", "--metrics", ",".join(metrics), "--format", "csv", "--no-header"]
    for key in keys:
        args += ["--by", key]
    if having:
        args += ["--having", having]
    return args


def sql(keys, metrics, having):
    """The question in DuckDB's SQL over a table or view named events."""
    select = [KEYS[key] for key in keys] + [METRICS[metric] for metric in metrics]
    text = f"SELECT {', '.join(select)} FROM events"
    if keys:
        text += " GROUP BY " + ", ".join(str(k + 1) for k in range(len(keys)))
    if having:
        text += " HAVING " + HAVING[having]
    return text


def differences(keys, metrics, mine, theirs):
    """How two answers (lists of rows: keys, then metrics) differ: a list of texts, empty when equal."""
    width = len(keys)

    def index(rows):
        # keys compare as numbers where both read as numbers (bins: 4 and 4.0)
        out = {}
        for row in rows:
            out[tuple(repr(number(str(k))) if number(str(k)) is not None else str(k) for k in row[:width])] = row
        return out
    mine_by_key, theirs_by_key = index(mine), index(theirs)
    if set(mine_by_key) != set(theirs_by_key):
        only_mine = sorted(set(mine_by_key) - set(theirs_by_key))[:3]
        only_theirs = sorted(set(theirs_by_key) - set(mine_by_key))[:3]
        return [f"{len(mine)} groups against DuckDB's {len(theirs)}; only quakes {only_mine}, only DuckDB {only_theirs}"]
    problems = []
    for key, row in mine_by_key.items():
        other = theirs_by_key[key]
        for position, metric in enumerate(metrics):
            left, right = row[width + position], other[width + position]
            if not same(left, right, metric.startswith("count")):
                problems.append(f"group {key} {metric}: quakes {left}, DuckDB {right}")
                break
    return problems


def quakes_answer(quakes, store, keys, metrics, having):
    args = [quakes] + agg_arguments(keys, metrics, having) + ["--store", store]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"quakes {' '.join(args[1:])}: exit {run.returncode}: {run.stderr}")
    return list(csv.reader(io.StringIO(run.stdout)))


def key_text(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def duckdb_answer(con, keys, metrics, having):
    rows = con.execute(sql(keys, metrics, having)).fetchall()
    return [[key_text(v) for v in row[:len(keys)]] + list(row[len(keys):]) for row in rows]


# `--where` arithmetic (issue 72) and the same condition in SQL: times are epoch milliseconds,
# and a division by zero is empty (NULL), so the SQL divides by nullif(…, 0)
WHERE_ARITHMETIC = [
    ("mag - depth > 1", "mag - depth > 1"),
    ("mag - depth / 10 >= 2.5", "mag - depth / nullif(10, 0) >= 2.5"),
    ("(mag - depth) / 2 > -1", "(mag - depth) / nullif(2, 0) > -1"),
    ("depth > mag * 10", "depth > mag * 10"),
    ("not (mag * 2 - 1 >= depth / 5)", "NOT (mag * 2 - 1 >= depth / nullif(5, 0))"),
    ("gap / dmin > 100", "gap / nullif(dmin, 0) > 100"),
    ("-depth < -30 and mag + 1 != 3", "-depth < -30 AND mag + 1 != 3"),
    ("updated - time > 86400000", "epoch_ms(updated) - epoch_ms(time) > 86400000"),
    ("(updated - time) / 3600000 <= 1 or mag >= 4",
     "(epoch_ms(updated) - epoch_ms(time)) / nullif(3600000, 0) <= 1 OR mag >= 4"),
    ("latitude + longitude > rms * 10", "latitude + longitude > rms * 10"),
]


def where_differences(quakes, store, con):
    problems = []
    for text, condition in WHERE_ARITHMETIC:
        run = subprocess.run([quakes, "count", "--where=" + text, "--store", store], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"count --where '{text}': exit {run.returncode}: {run.stderr.strip()}")
            continue
        mine = int(run.stdout.strip().replace(",", ""))
        theirs = con.execute(f"SELECT count(*) FROM events WHERE {condition}").fetchone()[0]
        if mine != theirs:
            problems.append(f"count --where '{text}': {mine} against DuckDB's {theirs}")
    return problems


def main():
    quakes, store, parquet, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    con = duckdb.connect()
    con.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{parquet}/**/*.parquet')")
    cases = FIXED + drawn(random.Random(seed), 10)
    problems, groups = [], 0
    for keys, metrics, having in cases:
        label = f"--by {' --by '.join(keys)} --metrics {','.join(metrics)}" + (f" --having '{having}'" if having else "")
        mine = quakes_answer(quakes, store, keys, metrics, having)
        theirs = duckdb_answer(con, keys, metrics, having)
        found = differences(keys, metrics, mine, theirs)
        problems += [f"{label}: {problem}" for problem in found]
        if not found:
            groups += len(mine)
    problems += where_differences(quakes, store, con)
    for problem in problems[:20]:
        print("mismatch: " + problem)
    if problems:
        sys.exit(1)
    print(f"ok cases={len(cases)} groups={groups}")


if __name__ == "__main__":
    main()
