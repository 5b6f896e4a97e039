#!/usr/bin/env bash
# Writes the link order of quakes's functions: the text sections that one-shot commands run, one
# per line, so that the linker (gold's --section-ordering-file) puts them side by side and a query
# faults in a few pages of the 31 MB of text instead of pages all over it (Benchmarks/RESULTS.md,
# "An order file").
#
#   bash Tools/order/order.sh BINARY OUT
#
# `make build` runs it once, on its first build, and links again with OUT (.build/quakes.order);
# `make order` writes it anew. BINARY must be built with -function-sections, as `make build` does.
# The commands are `make demo`'s and the comparison's lookups, on the bundled sample, each run
# once under valgrind's callgrind, which lists every function that ran. Functions that more of the
# commands run come first; ties in name order, so that the file changes only with the code.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
Q="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="$2"
command -v valgrind >/dev/null || { echo "installing valgrind (the link order)"; \
  (apt-get update -qq && apt-get install -y -qq valgrind) >/dev/null; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# valgrind 3.19 cannot read this toolchain's debug info; the symbol table is all it needs
strip --strip-debug -o "$tmp/quakes" "$Q"
Q="$tmp/quakes"
s="$tmp/store"
n=0
run() {  # one command under callgrind; its output is not needed
  n=$((n + 1))
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$n" "$Q" "$@" >/dev/null 2>&1 || true
}
cd "$root"
run load --store "$s" data/csv
run load --store "$s" data/geojson
run --help
run info --store "$s"
run count --store "$s" --min-mag 4.5
run query --store "$s" --day 2024-06-15 --sort mag:desc --limit 5 --fields time,mag,place
run query --store "$s" --day 2024-06-15 --place Hawaii --sort mag:desc --fields time,mag,place,id
run query --store "$s" --day 2024-06-15 --sort time:desc --page 3 --page-size 10 --fields time,mag,place,id
run query --store "$s" --place-like pahala --sort time:desc --limit 5 --fields time,mag,place
run count --store "$s" --bbox 18,21,-157,-154 --min-mag 2
run agg --store "$s" --from 2024-01-01 --to 2025-01-01 --by month --metrics 'count,avg(mag),max(mag)'
run agg --store "$s" --by net --metrics 'count,avg(mag),max(depth)' --sort count:desc
python3 - "$out" "$tmp"/cg.* <<'PY'
import re, sys
from collections import Counter
runs = Counter()
for path in sys.argv[2:]:
    names, ran = {}, set()
    for line in open(path, errors="replace"):
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, ident, name = m.groups()
        if name:
            names[ident] = name
        if kind == "fn":
            ran.add(ident)
    runs.update({names[i] for i in ran if i in names})
order = sorted((n for n in runs if re.match(r"^[$_A-Za-z][$\w.]*$", n)), key=lambda n: (-runs[n], n))
if not order:
    sys.exit("no function ran under callgrind: no link order written")
with open(sys.argv[1], "w") as f:
    for n in order:
        f.write(f".text.{n}\n")
print(f"{len(order)} functions from {len(sys.argv) - 2} commands -> {sys.argv[1]}")
PY
