"""Reads a quakes query result written as an Arrow IPC stream or one Parquet file, with pyarrow,
and compares every field of every row with the same query's CSV output.

usage: check_result.py arrow|parquet PATH RESULT.csv
Prints "ok rows=N columns=C" or the first mismatch, exiting 1.
"""
import csv, math, sys
from datetime import timezone

import pyarrow as pa
import pyarrow.parquet as pq

# each field's type: times as UTC milliseconds, the station counts as integers, other numbers as
# doubles, the rest as text
TIMES = {"time", "updated"}
INTEGERS = {"nst", "magNst"}
NUMBERS = {"latitude", "longitude", "depth", "mag", "gap", "dmin", "rms", "horizontalError", "depthError",
           "magError", "felt", "cdi", "mmi", "tsunami", "sig", "tz"}


def expected_type(name):
    if name in TIMES:
        return pa.timestamp("ms", tz="UTC")
    if name in INTEGERS:
        return pa.int64()
    if name in NUMBERS:
        return pa.float64()
    return pa.string()


def check_types(schema, fail):
    """Every field of `schema` has the type its name calls for."""
    for field in schema:
        if field.type != expected_type(field.name):
            fail(f"column {field.name} is {field.type}, not {expected_type(field.name)}")


def iso(v):
    return v.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{v.microsecond // 1000:03d}Z"


def compare(rows, header, expected, fail):
    """Every field of `rows` (pyarrow dicts) against the CSV rows `expected` under `header`."""
    if len(rows) != len(expected):
        fail(f"pyarrow read {len(rows)} rows, the CSV export has {len(expected)}")
    for n, (got, want) in enumerate(zip(rows, expected)):
        for name, text in zip(header, want):
            v = got[name]
            if text == "":
                if v is not None:
                    fail(f"row {n} {name}: {v!r}, the CSV has nothing")
            elif hasattr(v, "astimezone"):
                if iso(v) != text:
                    fail(f"row {n} {name}: {iso(v)} != {text}")
            elif isinstance(v, int) and not isinstance(v, bool):
                try:
                    x = int(text)
                except ValueError:
                    x = float(text)
                if v != x:
                    fail(f"row {n} {name}: {v!r} != {text}")
            elif isinstance(v, float):
                x = float(text)
                if v != x or math.copysign(1, v) != math.copysign(1, x):
                    fail(f"row {n} {name}: {v!r} != {text}")
            elif v != text:
                fail(f"row {n} {name}: {v!r} != {text!r}")


def fail(msg):
    print("mismatch: " + msg)
    sys.exit(1)


if __name__ == "__main__":
    kind, path, csv_path = sys.argv[1:4]
    if kind == "arrow":
        with open(path, "rb") as f:
            table = pa.ipc.open_stream(f).read_all()
    else:
        table = pq.read_table(path)
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        expected = list(reader)
    if table.column_names != header:
        fail(f"columns {table.column_names} != {header}")
    check_types(table.schema, fail)
    compare(table.to_pylist(), header, expected, fail)
    print(f"ok rows={len(expected)} columns={len(header)}")
