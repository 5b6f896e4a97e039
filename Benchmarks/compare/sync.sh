#!/usr/bin/env bash
# quakes sync from a local quakes serve (the upstream, capped at 20,000 events an answer as USGS is): a first
# sync of a whole generated archive, in GeoJSON and in CSV pieces, against `quakes load` of the archive's file;
# ObsPy's get_events on a window of about 20,000 events against quakes sync of the same window; an incremental
# sync after 1,000 random events of the upstream were changed, and two after 1,000 of the last month's were.
# Every copy is checked whole.
# By hand only, never in CI:   bash Benchmarks/compare/sync.sh [ROWS]   (default 10M)
# WORK: where the archive and the stores go (default Benchmarks/work/sync). QUAKES: a quakes binary to use
# (default: built as run.sh builds it). SEED: the seed of the events changed (printed; random if unset).
# PORT: the upstream's port (18200). WINDOW: the ObsPy window's first day (2020-01-01). PROFILE=1: perf
# profiles (20 s each) of the sync, then of the server, during a third first sync (stopped after them), and
# of an incremental sync of 1,000 more random changes (step 7, after which the copies are no longer checked).
# Each step runs once. Figures go to WORK/sync-ROWS.txt; each step's output to WORK/NAME.{out,err,time}.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rows="${1:-10M}"
work="${WORK:-$root/Benchmarks/work/sync}"
port="${PORT:-18200}"
seed="${SEED:-$(( (RANDOM << 15) | RANDOM ))}"
window="${WINDOW:-2020-01-01}"
py="${PYTHON:-$root/.build-venv/bin/python}"
max=20000
mkdir -p "$work"
"$py" -c 'import obspy' 2>/dev/null || "$py" -m pip install -q obspy
if [ -n "${QUAKES:-}" ]; then
  Q="$QUAKES"
else
  make -C "$root" build >/dev/null   # the release build of `make demo`
  Q="$root/.build/release/quakes"
fi
url="http://127.0.0.1:$port/fdsnws/event/1/"
res="$work/sync-$rows.txt"
: >"$res"
say() { echo "$*" | tee -a "$res"; }

model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
rev=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')
say "# quakes sync, $rows rows, $(date -u +%FT%TZ), $(nproc) cores, $model"
say "quakes $Q (modified $(date -u -r "$Q" +%FT%TZ); repository at $rev), seed $seed"

tck=$(getconf CLK_TCK)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }   # all cores' non-idle ticks
ticks() { if [ -n "${spid:-}" ]; then awk '{print $14+$15}' "/proc/$spid/stat"; else echo 0; fi; }
lo_bytes() { sed -n 's/^ *lo: *//p' /proc/net/dev | awk '{print $1}'; }
tv() { awk -F': ' -v k="$2" 'index($0, k) {print $2}' "$work/$1.time"; }
secs() { awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}' <<<"$1"; }

# run NAME CMD...: CMD once under /usr/bin/time -v; prints its wall time, CPU and peak RSS, the upstream
# server's CPU over the same span, the CPU the rest of the machine used, and the bytes over loopback
run() {
  local name=$1; shift
  local s0 b0 l0 s1 b1 l1 wall cpu srv other
  s0=$(ticks); b0=$(busy); l0=$(lo_bytes)
  if ! /usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
    cat "$work/$name.err" >&2; exit 1
  fi
  s1=$(ticks); b1=$(busy); l1=$(lo_bytes)
  wall=$(secs "$(tv "$name" 'Elapsed (wall clock)')")
  cpu=$(awk -v u="$(tv "$name" 'User time')" -v s="$(tv "$name" 'System time')" 'BEGIN {print u + s}')
  srv=$(awk -v a="$s0" -v b="$s1" -v t="$tck" 'BEGIN {printf "%.2f", (b - a) / t}')
  other=$(awk -v a="$b0" -v b="$b1" -v t="$tck" -v c="$cpu" -v s="$srv" \
    'BEGIN {o = (b - a) / t - c - s; printf "%.2f", o < 0 ? 0 : o}')
  say "$name: wall ${wall} s, cpu ${cpu} s, peak RSS $(( $(tv "$name" 'Maximum resident') / 1024 )) MiB," \
    "server cpu ${srv} s, other cpu ${other} s, loopback $(( l1 - l0 )) bytes"
}
# summary NAME: the sync summary's lines that carry the figures
summary() { grep -E '^(first sync|pieces|rows read|  new|  updated|  unchanged|requests|bytes|elapsed)' \
  "$work/$1.out" | sed "s/^/  /" | tee -a "$res"; }
dump() { "$Q" query --store "$1" --format "$2" --limit 20000000 --sort time 2>/dev/null; }

# 1. the archive, as run.sh makes it
if [ ! -f "$work/feed-$rows.done" ]; then
  rm -rf "$work/feed"
  "$Q" generate --rows "$rows" --out "$work/feed" --overlap 0 --file-rows 100000000
  touch "$work/feed-$rows.done"
fi
csv=$(ls "$work"/feed/*.csv | head -1)
n=$(( $(wc -l <"$csv") - 1 ))
say "archive $csv: $n events, $(stat -c %s "$csv") bytes"

# 2. the file's rate: the upstream store
rm -rf "$work/up"
run load "$Q" load --store "$work/up" "$csv"
grep -E '^elapsed' "$work/load.out" | sed 's/^/  /' | tee -a "$res"
from=$("$Q" info --store "$work/up" | awk '/^time span/ {print substr($3, 1, 10)}')
last=$("$Q" info --store "$work/up" | awk '/^time span/ {print substr($5, 1, 10)}')
to=$(date -u -d "$last + 1 day" +%F)
say "span: --from $from --to $to"

# 3. the upstream
"$Q" serve --store "$work/up" --port "$port" --max-events "$max" --quiet &
spid=$!
trap 'kill "$spid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done

# 4. first syncs of the whole archive into fresh stores
for f in geojson csv; do
  rm -rf "$work/down-$f"
  run "sync-$f" "$Q" sync --store "$work/down-$f" "$url" --from "$from" --to "$to" --format "$f"
  summary "sync-$f"
done
say "server peak RSS $(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$spid/status") MiB"
check() {  # the copies whole: counts, then the whole dumps
  say "counts: up $("$Q" count --store "$work/up"), down-geojson $("$Q" count --store "$work/down-geojson")," \
    "down-csv $("$Q" count --store "$work/down-csv")"
  local a b c d e
  a=$(dump "$work/up" csv | md5sum | cut -c1-32)
  b=$(dump "$work/down-csv" csv | md5sum | cut -c1-32)
  c=$(dump "$work/down-geojson" csv | md5sum | cut -c1-32)
  d=$(dump "$work/up" geojson | tail -n +2 | md5sum | cut -c1-32)
  e=$(dump "$work/down-geojson" geojson | tail -n +2 | md5sum | cut -c1-32)
  say "csv md5: up $a, down-csv $b, down-geojson $c; geojson md5 (less its metadata line): up $d, down-geojson $e"
  [ "$a" = "$b" ] && [ "$a" = "$c" ] && [ "$d" = "$e" ] && say "$1: the copies are whole" || say "$1: MISMATCH"
}
check "after the first syncs"

# 5. ObsPy on a window of at most $max events, from $window on, whole days
days=1
while [ "$("$Q" count --store "$work/up" --from "$window" --to "$(date -u -d "$window + $(( days + 1 )) day" +%F)")" \
  -le "$max" ]; do days=$(( days + 1 )); done
wend=$(date -u -d "$window + $days day" +%F)
wn=$("$Q" count --store "$work/up" --from "$window" --to "$wend")
say "window: --from $window --to $wend, $wn events"
qml=$(curl -s -o /dev/null -w '%{size_download}' \
  "${url}query?starttime=${window}T00:00:00&endtime=$(date -u -d "$wend - 1 day" +%F)T23:59:59.999")
say "  QuakeML of the window: $qml bytes"
run obspy "$py" "$here/sync_obspy.py" --url "http://127.0.0.1:$port" --from "$window" --to "$wend" --expect "$wn"
say "  $(cat "$work/obspy.out")"
for f in geojson csv; do
  rm -rf "$work/window-$f"
  run "window-$f" "$Q" sync --store "$work/window-$f" "$url" --from "$window" --to "$wend" --format "$f"
  summary "window-$f"
done

# 6. 1,000 newer versions of random events, loaded into the upstream, then the incremental syncs
"$py" "$here/sync_changes.py" --quakes "$Q" --store "$work/up" --n 1000 --seed "$seed" \
  --out "$work/changes.geojson" --ids-out "$work/changes.ids" 2>&1 | tee -a "$res"
run changes-load "$Q" load --store "$work/up" "$work/changes.geojson"
grep -E '^(  new|  updated)' "$work/changes-load.out" | tee -a "$res"
for f in geojson csv; do
  run "incremental-$f" "$Q" sync --store "$work/down-$f" "$url" --from "$from" --to "$to" --format "$f"
  summary "incremental-$f"
done
ids=$(paste -sd, "$work/changes.ids")
for s in up down-geojson down-csv; do
  say "changed events in $s: $("$Q" query --store "$work/$s" --id "$ids" --format csv --sort id --limit 1000 \
    2>/dev/null | md5sum | cut -c1-32)"
done
check "after the incremental syncs"

# 6b. 1,000 changes among the last month's events, as USGS's changes mostly are, in two rounds: a sync asks
# again for what changed in the 5 minutes before the newest change it saw, so each round fetches the round
# before's 1,000 events again (unchanged), the first round the random ones of step 6
month=$(date -u -d "$last" +%Y-%m-01)
while [ "$("$Q" count --store "$work/up" --from "$month" --to "$to")" -lt 2000 ]; do  # a small archive
  month=$(date -u -d "$month - 1 month" +%F)
done
say "recent changes among the events from $month on"
for r in 1 2; do
  "$py" "$here/sync_changes.py" --quakes "$Q" --store "$work/up" --n 1000 --seed "$(( seed + r ))" \
    --from "$month" --to "$to" --out "$work/recent$r.geojson" --ids-out "$work/recent$r.ids" 2>&1 | tee -a "$res"
  run "recent$r-load" "$Q" load --store "$work/up" "$work/recent$r.geojson"
  grep -E '^(  new|  updated)' "$work/recent$r-load.out" | tee -a "$res"
  for f in geojson csv; do
    run "recent$r-$f" "$Q" sync --store "$work/down-$f" "$url" --from "$from" --to "$to" --format "$f"
    summary "recent$r-$f"
  done
done
for s in up down-geojson down-csv; do
  say "changed events of round 2 in $s: $("$Q" query --store "$work/$s" --id "$(paste -sd, "$work/recent2.ids")" \
    --format csv --sort id --limit 1000 2>/dev/null | md5sum | cut -c1-32)"
done

# 7. where a first sync's time goes, and an incremental sync's (after 1,000 more random changes)
if [ "${PROFILE:-0}" = 1 ]; then
  perftop() {  # top 25 symbols by self time, demangled
    perf report -i "$work/perf-$1.data" --no-children --sort comm,symbol --stdio -g none 2>/dev/null \
      | awk '/^ +[0-9.]+%/ && n++ < 25' | sed -E 's/ {2,}-.*$//; s/ +$//' \
      | { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; } \
      | cut -c1-150 >"$work/perf-$1.top"
    say "perf, $1 (self, top 25):"; sed 's/^/  /' "$work/perf-$1.top" | tee -a "$res"
  }
  rm -rf "$work/down-prof"
  "$Q" sync --store "$work/down-prof" "$url" --from "$from" --to "$to" >"$work/prof-sync.out" 2>&1 &
  ppid=$!
  sleep 5
  perf record -g -o "$work/perf-sync.data" -p "$ppid" -- sleep 20 2>"$work/perf-sync.err" || true
  perf record -g -o "$work/perf-serve.data" -p "$spid" -- sleep 20 2>"$work/perf-serve.err" || true
  kill -0 "$ppid" 2>/dev/null || say "the profiled sync ended before its profiles did: sync a larger archive"
  kill -INT "$ppid" 2>/dev/null || true
  wait "$ppid" || true
  "$py" "$here/sync_changes.py" --quakes "$Q" --store "$work/up" --n 1000 --seed "$(( seed + 3 ))" \
    --out "$work/prof-changes.geojson" --ids-out "$work/prof-changes.ids" 2>&1 | tee -a "$res"
  QUAKES_TRACE=1 "$Q" load --store "$work/up" "$work/prof-changes.geojson" 2>&1 | grep -E '^(trace|elapsed)' \
    | tee -a "$res" || true
  QUAKES_TRACE=1 perf record -g -o "$work/perf-incremental.data" -- \
    "$Q" sync --store "$work/down-geojson" "$url" --from "$from" --to "$to" 2>&1 \
    | grep -E '^(trace|  updated|  unchanged|elapsed)' | tee -a "$res" || true
  for p in sync serve incremental; do perftop "$p"; done
fi
say "figures in $res"
