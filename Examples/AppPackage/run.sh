#!/bin/sh
# Builds the app package (QuakeStore as an app links it, debug, Swift 6 mode) and runs its tests:
# the README's library code compiled with warnings as errors, each risky case in a Probe process
# of its own, Foundation's semantics on the real feeds in ../shared/usgs when they are there.
# First, every ```swift block of README.md and of the DocC articles is compiled (snippets.py);
# QUAKES_SYNC_BUILD names a build folder of quakes with QuakeSync (as .build-test/release), against
# which the blocks that import QuakeSync are compiled (`make test` passes its own).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -rf "$here/.build/apptests-tmp"
start=$(date +%s)
status=0
SWIFT=${SWIFT:-swift} python3 "$here/snippets.py" ${QUAKES_SYNC_BUILD:+--sync-build "$QUAKES_SYNC_BUILD"} ||
  status=$?
echo "Examples/AppPackage: snippets: $(( $(date +%s) - start )) s, exit $status"
# A block that does not compile stops the run here: the package's tests would not build either.
if [ "$status" -eq 0 ]; then
  ${SWIFT:-swift} test --scratch-path "$here/.build" "$@" || status=$?
fi
rm -rf "$here/.build/apptests-tmp"
echo "Examples/AppPackage: $(( $(date +%s) - start )) s, exit $status"
exit $status
