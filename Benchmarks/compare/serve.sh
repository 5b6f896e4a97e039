#!/usr/bin/env bash
# quakes serve under wrk, beside its own trivial route and Datasette on the indexed SQLite copy.
# By hand only, after run.sh has built the 10 M-row stores:   bash Benchmarks/compare/serve.sh
# Days come from params.json; each (endpoint, connections) runs 10 s per day set, one run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${WORK:-$root/Benchmarks/work}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
"$work/venv/bin/pip" install -q -U datasette
(cd "$root" && swift build -c release --static-swift-stdlib -Xswiftc -static-executable --product quakes)
Q="$root/.build/release/quakes"
day=$("$work/venv/bin/python" -c "import json;print(json.load(open('$here/params.json'))['days'][0])")
next=$("$work/venv/bin/python" -c "import datetime;print(datetime.date.fromisoformat('$day')+datetime.timedelta(days=1))")
"$Q" serve --store "$work/quakes.store" --port 8791 --quiet &
qpid=$!
"$work/venv/bin/datasette" serve "$work/quakes.sqlite" --port 8792 --setting sql_time_limit_ms 60000 \
  --setting max_returned_rows 100000 >/dev/null 2>&1 &
dpid=$!
trap 'kill $qpid $dpid 2>/dev/null' EXIT
sleep 4
sql="select id,time,mag,place,depth,latitude,longitude from quakes where time >= '${day}' and time < '${next}' order by time desc"
enc=$("$work/venv/bin/python" -c "import urllib.parse,sys;print(urllib.parse.quote(sys.argv[1]))" "$sql")
declare -A url=(
  [trivial]="http://127.0.0.1:8791/healthz"
  [day-geojson]="http://127.0.0.1:8791/fdsnws/event/1/query?starttime=${day}&endtime=${next}&format=geojson"
  [count]="http://127.0.0.1:8791/fdsnws/event/1/count?starttime=${day}&endtime=${next}"
  [page-data]="http://127.0.0.1:8791/api/day?day=${day}&orderby=time"
  [datasette-day]="http://127.0.0.1:8792/quakes.json?sql=${enc}&_shape=array"
)
echo "# wrk, 10 s each, day ${day}; rows per answer: $(curl -s "${url[count]}")"
echo "| endpoint | connections | requests/s | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|"
for name in trivial day-geojson count page-data datasette-day; do
  for c in 1 16 64; do
    t=$([ $c -lt 2 ] && echo 1 || echo 2)
    out=$(wrk -t$t -c$c -d10s --latency "${url[$name]}")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    echo "| $name | $c | $rps | $p50 | $p99 |"
  done
done
