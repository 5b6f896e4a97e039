#!/usr/bin/env python3
"""The frequency-magnitude distribution: `quakes fmd` against DuckDB and numpy (issue 71).

    fmd.py QUAKES STORE DUCKDB PARQUET [--seed N] [--runs 7] [--draws 3]

STORE is a quakes store and DUCKDB a DuckDB file (table `quakes`) of the same rows; PARQUET a
Parquet file of them (written by DuckDB's COPY when missing). Cases: all rows; a year, a day and
a box, drawn from rows picked at random with the seed printed (`--draws` of each). For each case:

- quakes: `quakes fmd --store STORE FILTERS --format json`, a whole process (start, open, scan, b);
- DuckDB (in-process): `SELECT floor(mag / 0.1 + 0.5), count(*) FROM quakes WHERE ... GROUP BY 1`,
  the bins only (no Mc or b); and the same through the `duckdb` CLI, a whole process, with
  `--duckdb-cli PATH` (or a `duckdb` on the PATH);
- numpy, in memory: the filter as a mask, `np.histogram` over the bins, then Mc, b, sigma, a;
- numpy with its read: `pyarrow.parquet.read_table` of the four columns, then the same.

Each figure is the median of `--runs` runs after one warm-up. The bins are compared: DuckDB's
binning on doubles puts a magnitude on a bin edge (2.05 with a width of 0.1) in either bin, and
the events it bins otherwise than quakes are counted. Then `quakes fmd --by 500` over every row.
"""
import argparse
import calendar
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

MS_PER_DAY = 86_400_000


def median_time(function, runs):
    function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def draw_cases(con, rng, draws):
    """All rows, then `draws` years, days and boxes around rows picked at random."""
    top = con.execute("SELECT count(*) FROM quakes").fetchone()[0]
    cases = [("all rows", {})]
    for index in range(draws):
        picked = con.execute("SELECT epoch_ms(time), latitude, longitude FROM quakes LIMIT 1 OFFSET ?",
                             [rng.randrange(top)]).fetchone()
        millis, latitude, longitude = picked
        year = time.gmtime(millis / 1000).tm_year
        cases.append((f"a year ({year})", {"from": f"{year}-01-01", "to": f"{year + 1}-01-01"}))
        day = time.strftime("%Y-%m-%d", time.gmtime(millis / 1000))
        cases.append((f"a day ({day})", {"day": day}))
        half_lat, half_lon = rng.uniform(1, 8), rng.uniform(1, 12)
        box = [round(max(-90, latitude - half_lat), 2), round(min(90, latitude + half_lat), 2),
               round(max(-180, longitude - half_lon), 2), round(min(180, longitude + half_lon), 2)]
        cases.append((f"a box ({box[0]}..{box[1]}, {box[2]}..{box[3]})", {"box": box}))
    return cases


def day_bounds(day):
    start = calendar.timegm(time.strptime(day, "%Y-%m-%d")) * 1000
    return start, start + MS_PER_DAY


def year_bounds(first, after):
    start, _ = day_bounds(first)
    end, _ = day_bounds(after)
    return start, end


def quakes_args(case):
    if "day" in case:
        return ["--day", case["day"]]
    if "from" in case:
        return ["--from", case["from"], "--to", case["to"]]
    if "box" in case:
        south, north, west, east = case["box"]
        return ["--minlatitude", str(south), "--maxlatitude", str(north),
                "--minlongitude", str(west), "--maxlongitude", str(east)]
    return []


def sql_where(case):
    if "day" in case:
        start, end = day_bounds(case["day"])
    elif "from" in case:
        start, end = year_bounds(case["from"], case["to"])
    elif "box" in case:
        south, north, west, east = case["box"]
        return (f" WHERE latitude BETWEEN {south} AND {north} AND longitude BETWEEN {west} AND {east}"
                " AND mag IS NOT NULL")
    else:
        return " WHERE mag IS NOT NULL"
    return f" WHERE epoch_ms(time) >= {start} AND epoch_ms(time) < {end} AND mag IS NOT NULL"


def numpy_mask(columns, case):
    times, latitudes, longitudes, mags = columns
    mask = ~np.isnan(mags)
    if "day" in case or "from" in case:
        start, end = day_bounds(case["day"]) if "day" in case else year_bounds(case["from"], case["to"])
        mask &= (times >= start) & (times < end)
    if "box" in case:
        south, north, west, east = case["box"]
        mask &= (latitudes >= south) & (latitudes <= north) & (longitudes >= west) & (longitudes <= east)
    return mask


def numpy_fmd(columns, case, width=0.1, correction=0.2):
    """Bins, Mc (maximum curvature + correction), b (Aki-Utsu), sigma (Shi & Bolt), a."""
    mags = columns[3][numpy_mask(columns, case)]
    if mags.size == 0:
        return {}
    indexes = np.floor(mags / width + 0.5).astype(np.int64)
    low, high = indexes.min(), indexes.max()
    counts, _ = np.histogram(indexes, bins=np.arange(low, high + 2))
    peak = low + int(np.argmax(counts))
    mc = (peak * width) + correction
    above = indexes[indexes * width >= mc - 1e-9] * width
    result = {"count": int(mags.size), "mc": mc, "bins": dict(zip(range(low, high + 1), counts.tolist()))}
    if above.size >= 50:
        mean = above.mean()
        b = math.log10(math.e) / (mean - (mc - width / 2))
        sigma = 2.3 * b * b * math.sqrt(((above - mean) ** 2).sum() / (above.size * (above.size - 1)))
        result.update(b=b, sigma=sigma, a=math.log10(above.size) + b * mc)
    return result


def read_columns(parquet):
    table = pq.read_table(parquet, columns=["time", "latitude", "longitude", "mag"])
    times = table.column("time").cast(pa.timestamp("ms", tz="UTC")).cast(pa.int64()).to_numpy()
    return (times, table.column("latitude").to_numpy(zero_copy_only=False),
            table.column("longitude").to_numpy(zero_copy_only=False),
            table.column("mag").to_numpy(zero_copy_only=False))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quakes")
    parser.add_argument("store")
    parser.add_argument("duckdb")
    parser.add_argument("parquet")
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--duckdb-cli", default=shutil.which("duckdb"))
    args = parser.parse_args()
    con = duckdb.connect(args.duckdb, read_only=True)
    if not os.path.exists(args.parquet):
        con.execute(f"COPY (SELECT time, latitude, longitude, mag FROM quakes) TO '{args.parquet}' (FORMAT parquet)")
    rng = random.Random(args.seed)
    print(f"seed {args.seed}, {args.runs} runs a figure (medians), {args.draws} draws of each kind")
    columns = read_columns(args.parquet)
    print("| case | events | quakes fmd (process) ms | DuckDB GROUP BY ms | DuckDB CLI ms | numpy in memory ms | "
          "numpy with Parquet read ms | quakes / DuckDB | quakes / DuckDB CLI | quakes / numpy+read | "
          "binned otherwise by DuckDB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, case in draw_cases(con, rng, args.draws):
        command = [args.quakes, "fmd", "--store", args.store, "--format", "json"] + quakes_args(case)
        answer = json.loads(subprocess.run(command, capture_output=True, check=True, text=True).stdout)
        mine = median_time(lambda: subprocess.run(command, capture_output=True, check=True), args.runs)
        sql = f"SELECT floor(mag / 0.1 + 0.5)::BIGINT AS bin, count(*) FROM quakes{sql_where(case)} GROUP BY 1"
        duck = median_time(lambda: con.execute(sql).fetchall(), args.runs)
        theirs = dict(con.execute(sql).fetchall())
        ours = {round(entry["magnitude"] * 10): entry["count"] for entry in answer["bins"]}
        otherwise = sum(abs(ours.get(key, 0) - theirs.get(key, 0)) for key in set(ours) | set(theirs)) // 2
        cli = float("nan")
        cli_command = [args.duckdb_cli or "duckdb", "-readonly", args.duckdb, sql]
        if args.duckdb_cli and subprocess.run(cli_command, capture_output=True).returncode == 0:
            cli = median_time(lambda: subprocess.run(cli_command, capture_output=True, check=True), args.runs)
        in_memory = median_time(lambda: numpy_fmd(columns, case), args.runs)
        with_read = median_time(lambda: numpy_fmd(read_columns(args.parquet), case), max(3, args.runs // 2))
        print(f"| {name} | {answer['count']} | {mine * 1000:.1f} | {duck * 1000:.1f} | {cli * 1000:.1f} | "
              f"{in_memory * 1000:.1f} | {with_read * 1000:.1f} | {mine / duck:.2f} | {mine / cli:.2f} | "
              f"{mine / with_read:.2f} | {otherwise} |")
        sys.stdout.flush()
    command = [args.quakes, "fmd", "--store", args.store, "--by", "500", "--format", "csv"]
    windows = len(subprocess.run(command, capture_output=True, check=True, text=True).stdout.splitlines()) - 1
    by = median_time(lambda: subprocess.run(command, capture_output=True, check=True), args.runs)
    print(f"\n`quakes fmd --by 500` over every row: {windows} windows, median {by * 1000:.0f} ms (a whole process)")


if __name__ == "__main__":
    main()
