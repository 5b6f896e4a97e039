#!/usr/bin/env bash
# quakes serve under wrk, beside its own trivial route and Datasette on the indexed SQLite copy.
# By hand only, after run.sh has built the 10 M-row stores:   bash Benchmarks/compare/serve.sh
# Days: params.json's first, then DAYS - 1 drawn at random from the archive's rows (SEED, printed), so
# that no day is special. Each (endpoint, connections) runs 10 s per day; the table gives the median
# requests/s over the days and the worst p50 and p99. The *-nocache rows are a second server with
# --cache-mb 0, which reads and writes every answer (the first keeps whole answers per generation).
# ENDPOINTS and CONNS (space-separated) pick the rows, e.g. ENDPOINTS="page-data page-data-nocache" CONNS=64.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${WORK:-$root/Benchmarks/work}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
"$work/venv/bin/pip" install -q -U datasette
make -C "$root" build >/dev/null   # the release build of `make demo`
Q="$root/.build/release/quakes"
seed="${SEED:-$RANDOM$RANDOM}"
days=$("$work/venv/bin/python" - "$work/quakes.sqlite" "$here/params.json" "$seed" "${DAYS:-5}" <<'PY'
import json, random, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rng = random.Random(int(sys.argv[3]))
top = con.execute("SELECT max(rowid) FROM quakes").fetchone()[0]
days = [json.load(open(sys.argv[2]))["days"][0]]
while len(days) < int(sys.argv[4]):
    r = con.execute("SELECT substr(time, 1, 10) FROM quakes WHERE rowid = ?", (rng.randint(1, top),)).fetchone()
    if r: days.append(r[0])
print(" ".join(days))
PY
)
"$Q" serve --store "$work/quakes.store" --port 8791 --quiet &
qpid=$!
"$Q" serve --store "$work/quakes.store" --port 8793 --quiet --cache-mb 0 &
npid=$!
"$work/venv/bin/datasette" serve "$work/quakes.sqlite" --port 8792 --setting sql_time_limit_ms 60000 \
  --setting max_returned_rows 100000 >/dev/null 2>&1 &
dpid=$!
trap 'kill $qpid $npid $dpid 2>/dev/null' EXIT
sleep 4
urls() {  # the endpoints for one day
  local day=$1 next sql enc
  next=$("$work/venv/bin/python" -c "import datetime;print(datetime.date.fromisoformat('$day')+datetime.timedelta(days=1))")
  sql="select id,time,mag,place,depth,latitude,longitude from quakes where time >= '${day}' and time < '${next}' order by time desc"
  enc=$("$work/venv/bin/python" -c "import urllib.parse,sys;print(urllib.parse.quote(sys.argv[1]))" "$sql")
  url=(
    [trivial]="http://127.0.0.1:8791/healthz"
    [day-geojson]="http://127.0.0.1:8791/fdsnws/event/1/query?starttime=${day}&endtime=${next}&format=geojson"
    [count]="http://127.0.0.1:8791/fdsnws/event/1/count?starttime=${day}&endtime=${next}"
    [page-data]="http://127.0.0.1:8791/api/day?day=${day}&orderby=time"
    [day-geojson-nocache]="http://127.0.0.1:8793/fdsnws/event/1/query?starttime=${day}&endtime=${next}&format=geojson"
    [page-data-nocache]="http://127.0.0.1:8793/api/day?day=${day}&orderby=time"
    [datasette-day]="http://127.0.0.1:8792/quakes.json?sql=${enc}&_shape=array"
  )
}
declare -A url
rows=""
for day in $days; do urls "$day"; rows="$rows $(curl -s "${url[count]}")"; done
echo "# wrk, 10 s each, seed ${seed}; days: ${days}; rows per answer:${rows}"
echo "| endpoint | connections | requests/s (median over days) | MB/s (median) | worst p50 ms | worst p99 ms |"
echo "|---|---:|---:|---:|---:|---:|"
ms() {  # a wrk latency (12.3us, 4.5ms, 1.2s) in ms
  awk -v x="$1" 'BEGIN { v = x + 0; if (x ~ /us$/) v /= 1000; else if (x ~ /[^m]s$/) v *= 1000; print v }'
}
for name in ${ENDPOINTS:-trivial day-geojson day-geojson-nocache count page-data page-data-nocache datasette-day}; do
  for c in ${CONNS:-1 16 64}; do
    t=$([ $c -lt 2 ] && echo 1 || echo 2)
    rps=(); mbs=(); p50=0; p99=0
    for day in $days; do
      urls "$day"
      out=$(wrk -t$t -c$c -d10s --latency "${url[$name]}")
      rps+=("$(echo "$out" | awk '/Requests\/sec/ {print $2}')")
      mbs+=("$(echo "$out" | awk '/Transfer\/sec/ { v = $2 + 0; if ($2 ~ /GB$/) v *= 1000; else if ($2 ~ /KB$/) v /= 1000;
        else if ($2 ~ /[0-9]B$/) v /= 1e6; print v }')")
      a=$(ms "$(echo "$out" | awk '$1=="50%" {print $2}')"); b=$(ms "$(echo "$out" | awk '$1=="99%" {print $2}')")
      p50=$(awk -v x="$p50" -v y="$a" 'BEGIN { print (y > x ? y : x) }')
      p99=$(awk -v x="$p99" -v y="$b" 'BEGIN { print (y > x ? y : x) }')
    done
    median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
    med=$(printf '%s\n' "${rps[@]}" | median)
    mb=$(printf '%s\n' "${mbs[@]}" | median)
    echo "| $name | $c | $med | $mb | $p50 | $p99 |"
  done
done
