#!/usr/bin/env bash
# Parquet export of the 10 M-row store against DuckDB's COPY ... TO parquet (zstd) of the same
# rows, in one run: wall time, peak RSS and bytes. Needs Benchmarks/compare/run.sh 10M first.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=Benchmarks/work
Q=.build/release/quakes
PY=$W/venv/bin/python
out=$W/parquet-out
rm -rf "$out" && mkdir -p "$out"
rows=$($Q count --store $W/quakes.store)
echo "rows: $rows"
measure() {  # label, command... : the median of 3 runs (the output is removed before each)
  local label=$1; shift
  local runs=()
  for i in 1 2 3; do
    rm -rf "$out/quakes-none" "$out/quakes-month" "$out/duckdb.parquet"
    /usr/bin/time -f "%e %M" -o $W/time.txt "$@" >/dev/null 2>$W/err.txt || { cat $W/err.txt; exit 1; }
    runs+=("$(cat $W/time.txt)")
  done
  read -r secs kb <<< "$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)"
  printf "%-58s %7.2f s  %6d MiB RSS   (runs: %s)\n" "$label" "$secs" "$((kb / 1024))" \
    "$(printf '%s\n' "${runs[@]}" | cut -d' ' -f1 | paste -sd' ')"
}
measure "quakes export --format parquet --partition-by none" \
  $Q export --store $W/quakes.store --format parquet --partition-by none --out $out/quakes-none
measure "quakes export --format parquet (year=/month= dirs)" \
  $Q export --store $W/quakes.store --format parquet --out $out/quakes-month
measure "DuckDB $($PY -c 'import duckdb; print(duckdb.__version__)') COPY ... (FORMAT parquet, COMPRESSION zstd)" \
  $PY -c "import duckdb; c = duckdb.connect('$W/quakes.duckdb', read_only=True); c.execute(\"COPY (SELECT * FROM quakes) TO '$out/duckdb.parquet' (FORMAT parquet, COMPRESSION zstd)\")"
$Q export --store $W/quakes.store --format parquet --partition-by none --out $out/quakes-none 2>/dev/null
$Q export --store $W/quakes.store --format parquet --out $out/quakes-month 2>/dev/null
$PY -c "import duckdb; c = duckdb.connect('$W/quakes.duckdb', read_only=True); c.execute(\"COPY (SELECT * FROM quakes) TO '$out/duckdb.parquet' (FORMAT parquet, COMPRESSION zstd)\")"
echo "bytes: quakes one file $(du -b $out/quakes-none/part-0.parquet | cut -f1), quakes month dirs $(du -sb $out/quakes-month | cut -f1), duckdb $(du -b $out/duckdb.parquet | cut -f1)"
$PY - "$out" <<'PY'
import sys, pyarrow.parquet as pq
out = sys.argv[1]
q, d = pq.ParquetFile(f"{out}/quakes-none/part-0.parquet"), pq.ParquetFile(f"{out}/duckdb.parquet")
print(f"columns: quakes {q.metadata.num_columns} ({q.metadata.num_row_groups} row groups), "
      f"duckdb {d.metadata.num_columns} ({d.metadata.num_row_groups} row groups); rows {q.metadata.num_rows} / {d.metadata.num_rows}")
PY
