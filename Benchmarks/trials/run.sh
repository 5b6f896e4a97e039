#!/usr/bin/env bash
# make trials: crash, corruption and concurrent-reader trials on the real feeds (not in CI).
# CRASH=N CORRUPTION=N READERS=N override the counts.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 Benchmarks/trials/trials.py --quakes .build/release/quakes --usgs "${USGS:-../shared/usgs}" \
  --crash "${CRASH:-50}" --corruption "${CORRUPTION:-200}" --readers "${READERS:-10}" "$@"
