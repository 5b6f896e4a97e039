#!/usr/bin/env python3
"""ObsPy's side of Benchmarks/compare/sync.sh: one window of events fetched from an FDSN event service.

`Client(URL).get_events(starttime=FROM, endtime=TO - 1 ms)`, which asks for QuakeML and parses it into a
Catalog. A window the service refuses as over its limit is split in two halves, and so on. Prints one
JSON line: the events, the seconds of the Client's set-up (it reads the services' WADLs), of the
get_events calls (the rate's time), and of the whole, the calls made and the peak RSS.
By hand only:   sync_obspy.py --url http://127.0.0.1:18200 --from 2020-01-01 --to 2020-01-14 [--expect N]
"""
import argparse, json, resource, sys, time

from obspy import UTCDateTime
from obspy.clients.fdsn import Client


def fetch(client, t0, t1, calls):
    """Events in [t0, t1] (FDSN times, both inclusive), halving the window while the service refuses it."""
    try:
        calls.append((str(t0), str(t1)))
        return list(client.get_events(starttime=t0, endtime=t1))
    except Exception as e:  # ObsPy raises FDSNBadRequestException (400) with the service's text
        if "exceeds search limit" not in str(e):
            raise
        mid = t0 + round((t1 - t0) / 2, 3)
        return fetch(client, t0, mid, calls) + fetch(client, mid + 0.001, t1, calls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--from", dest="start", required=True)
    ap.add_argument("--to", dest="end", required=True, help="exclusive, as quakes count --to")
    ap.add_argument("--expect", type=int, default=None, help="quakes count of the window, to check")
    a = ap.parse_args()
    t0 = time.perf_counter()
    client = Client(a.url)
    t1 = time.perf_counter()
    calls = []
    events = fetch(client, UTCDateTime(a.start), UTCDateTime(a.end) - 0.001, calls)
    t2 = time.perf_counter()
    ids = {str(e.resource_id).rsplit("/", 1)[-1].split("=")[-1] for e in events}
    out = {
        "events": len(events), "distinct_ids": len(ids), "calls": len(calls),
        "client_s": round(t1 - t0, 3), "get_events_s": round(t2 - t1, 3), "total_s": round(t2 - t0, 3),
        "events_per_s": round(len(events) / (t2 - t1), 1),
        "events_per_s_with_client": round(len(events) / (t2 - t0), 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sample_resource_id": str(events[0].resource_id) if events else None,
    }
    print(json.dumps(out))
    if a.expect is not None and len(events) != a.expect:
        print(f"sync_obspy: {len(events)} events, quakes count says {a.expect}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
