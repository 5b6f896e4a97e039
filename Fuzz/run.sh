#!/usr/bin/env bash
# make fuzz: build the libFuzzer harnesses (swiftc -sanitize=fuzzer,address), build a seed
# corpus from the real feeds in ../shared/usgs and from generated data and stores, then run
# each harness for FUZZ_SECONDS (default 1800), FUZZ_JOBS at a time (default 2).
# Findings land in Fuzz/crashers/<target>/; logs and corpora stay under .build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${FUZZ_SECONDS:-1800}
JOBS=${FUZZ_JOBS:-2}
TARGETS=${FUZZ_TARGETS:-"csv geojson gzip where chunk manifest history"}
USGS=${USGS:-../shared/usgs}
OUT=.build-fuzz/work
BIN=.build-fuzz/release/quakes-fuzz

QUAKES_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product quakes-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -assert-config -Xswiftc Debug
mkdir -p "$OUT/logs"

seed() { # target: generated seeds, then real-feed seeds
  local t=$1 dir=$OUT/corpus/$1
  mkdir -p "$dir"
  local feed=""
  [ -d "$USGS" ] && feed=$(ls "$USGS"/csv_*.csv 2>/dev/null | head -1 || true)
  env QUAKES_FUZZ_TARGET="$t" QUAKES_FUZZ_SEEDS="$dir" ${feed:+QUAKES_FUZZ_FEED="$feed"} "$BIN" >/dev/null 2>&1 || true
  [ -d "$USGS" ] || return 0
  local i=0
  case $t in
    csv) for f in "$USGS"/*csv_*.csv; do head -n 25 "$f" > "$dir/usgs-$i"; i=$((i + 1)); done ;;
    geojson) for f in "$USGS"/geojson_*.geojson; do
        python3 - "$f" "$dir/usgs-$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["features"] = d["features"][:4]
open(sys.argv[2], "w").write(json.dumps(d))
PY
        i=$((i + 1)); done ;;
    gzip) for f in "$USGS"/csv_*.csv; do
        for lvl in 1 6 9; do { printf '\x40'; head -n 40 "$f" | gzip -$lvl -c; } > "$dir/usgs-$i-$lvl"; done
        i=$((i + 1)); done ;;
  esac
}

run() { # target
  local t=$1 len=65536
  case $t in csv|geojson) len=16384 ;; where) len=512 ;; esac
  mkdir -p "Fuzz/crashers/$t"
  QUAKES_FUZZ_TARGET=$t nice -n 10 "$BIN" "$OUT/corpus/$t" -max_total_time="$SECS" -max_len=$len \
    -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 -artifact_prefix="Fuzz/crashers/$t/" \
    > "$OUT/logs/$t.log" 2>&1 || true
  local execs cov status
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$OUT/logs/$t.log" | awk '{print $2}' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$OUT/logs/$t.log" | tail -1)
  status=$(grep -qE '^==[0-9]+==ERROR|deadly signal|Fatal error|SUMMARY: ' "$OUT/logs/$t.log" && echo FINDING || echo clean)
  echo "fuzz $t: ${SECS}s, ${execs:-0} executions, ${cov:-cov: ?}, $status (log $OUT/logs/$t.log)"
}

for t in $TARGETS; do seed "$t"; done
export -f run
export OUT BIN SECS
printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'run {}'
