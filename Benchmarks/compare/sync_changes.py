#!/usr/bin/env python3
"""Writes newer versions of N random events of a store as one GeoJSON file, for an incremental sync.

The events are picked at random (the seed is printed) from `quakes query --sort time` of the store, fetched
with every field by `quakes query --id ... --format geojson`, and given a changed mag (+0.1) and `updated` =
now. The title is left null, so that it follows the new mag. The chosen ids go to --ids-out, one a line.
--from/--to pick among the events of that span only (as `quakes query --from/--to`).
By hand only:   sync_changes.py --quakes Q --store STORE --n 1000 --seed S --out FILE --ids-out IDS
"""
import argparse, json, random, subprocess, sys, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quakes", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ids-out", required=True)
    ap.add_argument("--from", dest="start", default=None)
    ap.add_argument("--to", dest="end", default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed}", file=sys.stderr)

    span = (["--from", a.start] if a.start else []) + (["--to", a.end] if a.end else [])
    total = int(subprocess.check_output([a.quakes, "count", "--store", a.store] + span).decode().strip())
    picks = set(random.Random(seed).sample(range(total), a.n))
    ids = []
    p = subprocess.Popen([a.quakes, "query", "--store", a.store] + span + ["--sort", "time", "--fields", "id",
                          "--format", "csv", "--no-header", "--limit", str(total)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for i, line in enumerate(p.stdout):
        if i in picks:
            ids.append(line.decode().strip())
    p.wait()
    if len(ids) != a.n:
        sys.exit(f"picked {len(ids)} ids of {a.n}")

    out = subprocess.check_output([a.quakes, "query", "--store", a.store] + span + ["--id", ",".join(ids),
                                   "--format", "geojson", "--limit", str(a.n)], stderr=subprocess.DEVNULL)
    now = int(time.time() * 1000)
    features = []
    for line in out.decode().splitlines()[1:]:
        line = line.rstrip(",")
        if not line.startswith('{"type":"Feature"'):
            continue
        f = json.loads(line)
        pr = f["properties"]
        pr["mag"] = round((pr["mag"] if pr["mag"] is not None else 1.0) + 0.1, 2)
        pr["updated"] = now
        pr["title"] = None
        features.append(json.dumps(f, ensure_ascii=False, separators=(",", ":")))
    if len(features) != a.n:
        sys.exit(f"quakes query --id answered {len(features)} features of {a.n}")
    meta = {"generated": now, "title": f"{a.n} changed events, seed {seed}", "count": a.n}
    with open(a.out, "w", encoding="utf-8") as f:
        f.write('{"type":"FeatureCollection","metadata":' + json.dumps(meta) + ',"features":[\n')
        f.write(",\n".join(features))
        f.write("\n]}\n")
    with open(a.ids_out, "w") as f:
        f.write("\n".join(sorted(ids)) + "\n")
    print(f"{a.n} events changed, updated={now}: {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
