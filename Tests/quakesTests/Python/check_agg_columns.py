"""Reads `quakes agg --format arrow|parquet` output with pyarrow and compares it with the same
question's `agg --format json` answer: the column names and order, each column's type, and every
value of every group (nulls included).

usage: check_agg_columns.py arrow|parquet PATH AGG.json TYPES.json
TYPES.json maps each column to the pyarrow type it must have ("int64", "double",
"timestamp[ms, tz=UTC]", "string"). Prints "ok rows=N columns=C" or the first mismatch, exiting 1.

Values must be equal, except sums, averages and deviations: each run of `agg` folds the threads'
partial sums in the order they finish, so two runs may differ in the last bits; those are equal
to 1e-12 relative.
"""
import json
import math
import sys
from datetime import timezone

import pyarrow as pa
import pyarrow.parquet as pq


def fail(message):
    print("mismatch: " + message)
    sys.exit(1)


def iso(value):
    """An instant as quakes writes it: 2024-06-15T03:00:00.000Z."""
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def same_instant(value, text):
    """Whether a timestamp is the instant JSON's text names: the whole ISO text of a time metric,
    or a time bucket's start as its key prints it (hour and time:N to the second, a day or week
    to the day, a month to the month)."""
    full = iso(value)
    return (text == full
            or (text == full[:19] + "Z" and full[19:] == ".000Z")
            or (text == full[:10] and full[10:] == "T00:00:00.000Z")
            or (text == full[:7] and full[7:] == "-01T00:00:00.000Z"))


FOLDED = ("avg(", "sum(", "stddev(")


def same(value, expected, type_name, name):
    if expected is None or value is None:
        return expected is None and value is None
    if type_name.startswith("timestamp"):
        return isinstance(expected, str) and same_instant(value, expected)
    if type_name == "int64":
        return isinstance(value, int) and isinstance(expected, int) and value == expected
    if type_name == "double":
        if not isinstance(value, float) or not isinstance(expected, (int, float)) or isinstance(expected, bool):
            return False
        if value == expected or (math.isnan(value) and math.isnan(expected)):
            return True
        return name.startswith(FOLDED) and abs(value - expected) <= 1e-12 * max(abs(value), abs(expected))
    return isinstance(value, str) and value == expected


def main():
    kind, path, json_path, types_path = sys.argv[1:5]
    if kind == "arrow":
        with open(path, "rb") as f:
            table = pa.ipc.open_stream(f).read_all()
    else:
        table = pq.read_table(path)
    with open(json_path, encoding="utf-8") as f:
        groups = json.load(f)["groups"]
    with open(types_path, encoding="utf-8") as f:
        types = json.load(f)
    names = list(types)
    if table.column_names != names:
        fail(f"columns {table.column_names} != {names}")
    for field in table.schema:
        if str(field.type) != types[field.name]:
            fail(f"column {field.name} is {field.type}, not {types[field.name]}")
        if not field.nullable:
            fail(f"column {field.name} is not nullable")
    rows = table.to_pylist()
    if len(rows) != len(groups):
        fail(f"pyarrow read {len(rows)} rows, the JSON answer has {len(groups)} groups")
    for number, (row, group) in enumerate(zip(rows, groups)):
        if list(group) != names:
            fail(f"group {number} has members {list(group)}")
        for name in names:
            if not same(row[name], group[name], types[name], name):
                fail(f"group {number} {name}: {row[name]!r} != JSON's {group[name]!r}")
    print(f"ok rows={len(rows)} columns={len(names)}")


if __name__ == "__main__":
    main()
