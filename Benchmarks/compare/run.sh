#!/usr/bin/env bash
# Side-by-side comparison of quakes with DuckDB and SQLite on one generated archive.
# By hand only, never in CI:   bash Benchmarks/compare/run.sh [ROWS]   (default 10M)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rows="${1:-10M}"
work="${WORK:-$root/Benchmarks/work}"
mkdir -p "$work"

pkg-config --exists libzstd || { apt-get update -qq && apt-get install -y -qq libzstd-dev; }
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3; }
python3 -c "import duckdb, pytz" 2>/dev/null || pip install -q "duckdb==1.5.6" pytz   # same version as the CLI, so both read one file
command -v duckdb >/dev/null || pip install -q duckdb-cli

(cd "$root" && swift build -c release --static-swift-stdlib --product quakes)
Q="$root/.build/release/quakes"

if [ ! -f "$work/feed-$rows.done" ]; then
  rm -rf "$work/feed"
  "$Q" generate --rows "$rows" --out "$work/feed" --overlap 0 --file-rows 100000000
  touch "$work/feed-$rows.done"
fi

python3 "$here/compare.py" --quakes "$Q" --work "$work" --csv "$(ls "$work"/feed/*.csv | head -1)" | tee "$work/compare.txt"
