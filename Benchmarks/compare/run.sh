#!/usr/bin/env bash
# Side-by-side comparison of quakes with the newest DuckDB (Python module, in-process, and the
# duckdb CLI), SQLite (indexed on time and mag) and chDB (ClickHouse in-process, MergeTree by
# time), on one generated archive.
# By hand only, never in CI:   bash Benchmarks/compare/run.sh [ROWS]   (default 10M)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rows="${1:-10M}"
work="${WORK:-$root/Benchmarks/work}"
mkdir -p "$work"

pkg-config --exists libzstd || { apt-get update -qq && apt-get install -y -qq libzstd-dev; }
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3; }
# the newest DuckDB on PyPI, in a venv of its own (the CLI package lags the module: its own database)
[ -x "$work/venv/bin/python" ] || python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q -U duckdb duckdb-cli pytz chdb

make -C "$root" build >/dev/null   # the release build of `make demo`
Q="$root/.build/release/quakes"

if [ ! -f "$work/feed-$rows.done" ]; then
  rm -rf "$work/feed"
  "$Q" generate --rows "$rows" --out "$work/feed" --overlap 0 --file-rows 100000000
  touch "$work/feed-$rows.done"
fi

"$work/venv/bin/python" "$here/compare.py" --quakes "$Q" --work "$work" --params "$here/params.json" \
  --duckdb-cli "$work/venv/bin/duckdb" --csv "$(ls "$work"/feed/*.csv | head -1)" | tee "$work/compare-$rows.txt"
