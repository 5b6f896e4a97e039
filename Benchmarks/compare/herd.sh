#!/usr/bin/env bash
# Many clients at once on an answer nobody has asked for yet: a fresh `quakes serve` per run, and
# wrk's 64 connections ask for one day's GeoJSON from the first second on (as after a commit,
# when a page that many people have open asks again). Each binary given runs in turn per day, so
# that two builds are compared in one run.
# By hand only, after run.sh has built the 10 M-row store:
#   bash Benchmarks/compare/herd.sh QUAKES_BINARY... (default: .build/release/quakes)
# Days: DAYS (default: the five of RESULTS.md's server tables); ROUNDS (default 2).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${WORK:-$root/Benchmarks/work}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=("$root/.build/release/quakes")
port=8795
echo "| round | day | binary | answers/s | p50 | p99 | max |"
echo "|---:|---|---|---:|---:|---:|---:|"
for round in $(seq "${ROUNDS:-2}"); do
  for day in ${DAYS:-2024-06-15 2016-02-29 2021-04-01 2019-02-25 2002-08-14}; do
    next=$(python3 -c "import datetime; print(datetime.date.fromisoformat('$day') + datetime.timedelta(days=1))")
    for bin in "${bins[@]}"; do
      "$bin" serve --store "$work/quakes.store" --port $port --quiet >/dev/null 2>&1 &
      pid=$!
      for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
      out=$(wrk -t2 -c64 -d8s --latency "http://127.0.0.1:$port/fdsnws/event/1/query?starttime=$day&endtime=$next&format=geojson")
      kill $pid
      wait $pid 2>/dev/null || true
      echo "| $round | $day | $(basename "$bin") | $(echo "$out" | awk '/Requests\/sec/ {print $2}') |" \
        "$(echo "$out" | awk '$1=="50%" {print $2}') | $(echo "$out" | awk '$1=="99%" {print $2}') |" \
        "$(echo "$out" | awk '/Latency/ && !/Distribution/ {print $4}') |"
    done
  done
done
