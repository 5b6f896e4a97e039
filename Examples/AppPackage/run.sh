#!/bin/sh
# Builds the app package (QuakeStore as an app links it, debug, Swift 6 mode) and runs its tests:
# the README's library code compiled with warnings as errors, each risky case in a Probe process
# of its own, Foundation's semantics on the real feeds in ../shared/usgs when they are there.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -rf "$here/.build/apptests-tmp"
start=$(date +%s)
status=0
${SWIFT:-swift} test --scratch-path "$here/.build" "$@" || status=$?
rm -rf "$here/.build/apptests-tmp"
echo "Examples/AppPackage: $(( $(date +%s) - start )) s, exit $status"
exit $status
