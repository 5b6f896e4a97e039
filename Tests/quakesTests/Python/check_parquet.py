"""Reads a quakes Parquet export with pyarrow and DuckDB and checks it against the CSV export.

usage: check_parquet.py DATASET_DIR EXPORT.csv LAYOUT(year|month|none)
Prints one line "ok rows=N groups=G files=F" or the first mismatch, exiting 1.
"""
import csv, glob, math, os, sys
from datetime import datetime, timezone

import duckdb
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_result import check_types, compare  # noqa: E402

root, csv_path, layout = sys.argv[1], sys.argv[2], sys.argv[3]
def hive_order(path):
    # year=2011/month=3 sorts before month=10: by the numbers, as the rows' time order is
    parts = os.path.relpath(path, root).split(os.sep)
    return [int(p.split("=", 1)[1]) if "=" in p else p for p in parts[:-1]] + [parts[-1]]


files = sorted(glob.glob(os.path.join(root, "**", "*.parquet"), recursive=True), key=hive_order)
leftovers = [p for p in glob.glob(os.path.join(root, "**", "*"), recursive=True) if os.path.isfile(p) and not p.endswith(".parquet")]


def fail(msg):
    print("mismatch: " + msg)
    sys.exit(1)


if leftovers:
    fail(f"files other than parquet: {leftovers[:3]}")
with open(csv_path, newline="", encoding="utf-8") as f:
    reader = csv.reader(f)
    header = next(reader, [])
    expected = list(reader)

rows, groups = [], 0
for path in files:
    pf = pq.ParquetFile(path)
    table = pf.read()
    check_types(table.schema, fail)
    names = table.column_names
    for k in range(pf.metadata.num_row_groups):
        groups += 1
        rg = pf.metadata.row_group(k)
        part = pf.read_row_group(k)
        for j in range(rg.num_columns):
            col = rg.column(j)
            if col.compression != "ZSTD":
                fail(f"{path}: column {col.path_in_schema} is {col.compression}")
            values = [v for v in part.column(col.path_in_schema).to_pylist()]
            present = [v for v in values if v is not None]
            st = col.statistics
            if st is None or st.null_count != len(values) - len(present):
                fail(f"{path} rg {k} {col.path_in_schema}: null_count {st and st.null_count} != {len(values) - len(present)}")
            if present:
                lo, hi = min(present), max(present)
                if isinstance(lo, str):
                    lo, hi = min(present, key=lambda s: s.encode()), max(present, key=lambda s: s.encode())
                if not st.has_min_max or st.min != lo or st.max != hi:
                    fail(f"{path} rg {k} {col.path_in_schema}: stats {st.min}..{st.max} != {lo}..{hi}")
        if rg.num_rows > 131072:
            fail(f"{path}: row group of {rg.num_rows} rows")
    for r in table.to_pylist():
        rows.append(r)
    # the directory names the rows' year and month
    rel = os.path.relpath(path, root).split(os.sep)[:-1]
    for r in table.slice(0, 1).to_pylist() + table.slice(table.num_rows - 1, 1).to_pylist():
        t = r["time"]
        want = {"year": [f"year={t.year}"], "month": [f"year={t.year}", f"month={t.month}"], "none": []}[layout]
        if rel != want:
            fail(f"{path}: holds {t} but is under {rel}")

compare(rows, header, expected, fail)

con = duckdb.connect()
if files:
    pattern = os.path.join(root, "**", "*.parquet")
    n = con.execute(f"select count(*) from read_parquet('{pattern}', hive_partitioning=true)").fetchone()[0]
    if n != len(rows):
        fail(f"duckdb counts {n} rows")
    cols = [d[0] for d in con.execute(f"select * from read_parquet('{pattern}', hive_partitioning=true) limit 0").description]
    want_cols = {"year": ["year"], "month": ["year", "month"], "none": []}[layout]
    if sorted(c for c in cols if c in ("year", "month")) != sorted(want_cols):
        fail(f"duckdb hive columns {cols}")
    if layout != "none":
        got = con.execute(f"select count(*) from read_parquet('{pattern}', hive_partitioning=true) "
                          f"where year::int <> year(time at time zone 'UTC')").fetchone()[0]
        if got:
            fail(f"{got} rows whose year column disagrees with their time")
    ids = [r[0] for r in con.execute(f"select id from read_parquet('{pattern}') order by time, id").fetchall()]
    if ids != [r["id"] for r in rows]:
        fail("duckdb's rows, ordered by time and id, differ from the export order")
print(f"ok rows={len(rows)} groups={groups} files={len(files)}")
