#!/bin/sh
# Builds the app package (QuakeStore as an app links it, debug, Swift 6 mode) and runs its tests:
# the README's library code compiled with warnings as errors, each risky case in a Probe process
# of its own, Foundation's semantics on the real feeds in ../shared/usgs when they are there.
# First, the documents are checked: every path README.md, docs/*.md and the DocC articles name
# exists, and the `quakes` commands of their shell blocks (the README's tour) run on the bundled
# sample (doccheck.py; with the quakes binary of QUAKES_SYNC_BUILD, else they are reported skipped). Then every ```swift
# block of README.md, docs/*.md and the DocC articles is compiled (snippets.py);
# QUAKES_SYNC_BUILD names a build folder of quakes with QuakeSync (as .build-test/release), against
# which the blocks that import QuakeSync are compiled (`make test` passes its own).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -rf "$here/.build/apptests-tmp"
start=$(date +%s)
status=0
docs=0
python3 "$here/doccheck.py" ${QUAKES_SYNC_BUILD:+--build "$QUAKES_SYNC_BUILD"} || docs=$?
echo "Examples/AppPackage: doccheck: $(( $(date +%s) - start )) s, exit $docs"
SWIFT=${SWIFT:-swift} python3 "$here/snippets.py" ${QUAKES_SYNC_BUILD:+--sync-build "$QUAKES_SYNC_BUILD"} ||
  status=$?
echo "Examples/AppPackage: snippets: $(( $(date +%s) - start )) s, exit $status"
# A block that does not compile stops the run here: the package's tests would not build either.
if [ "$status" -eq 0 ]; then
  ${SWIFT:-swift} test --scratch-path "$here/.build" "$@" || status=$?
fi
rm -rf "$here/.build/apptests-tmp"
# A document that names a missing path or a tour command that fails fails the run, after the rest ran.
if [ "$status" -eq 0 ] && [ "$docs" -ne 0 ]; then
  status=$docs
fi
echo "Examples/AppPackage: $(( $(date +%s) - start )) s, exit $status"
exit $status
