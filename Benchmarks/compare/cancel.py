"""How fast Ctrl-C ends a writer (issue 67: "within 200 ms"): `quakes load` of a generated feed into a
copy of a store, and a `quakes load --wait` queued behind a stopped writer, each sent SIGINT at a
random instant. Prints, per case, how many runs were interrupted (exit 130) and the median, 90th
percentile and maximum time from the signal to the exit.

    .build-venv/bin/python Benchmarks/compare/cancel.py QUAKES WORK [--rows 300000] [--trials 30] [--seed N]

A timed test would fail on a busy machine; this is the measurement, taken on a quiet one.
"""
import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time


def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def interrupt(args, delay):
    """Starts `args`, sends SIGINT after `delay` seconds; returns (exit status, seconds from the signal to exit)."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    signalled = time.monotonic()
    process.send_signal(signal.SIGINT)
    status = process.wait()
    return status, time.monotonic() - signalled


def is_locked(store):
    """Whether some process holds the flock on STORE/LOCK (as /proc/locks lists it)."""
    try:
        inode = os.stat(os.path.join(store, "LOCK")).st_ino
    except FileNotFoundError:
        return False
    with open("/proc/locks") as locks:
        return any(len(f) > 5 and f[1] == "FLOCK" and f[5].split(":")[-1] == str(inode)
                   for f in (line.split() for line in locks))


def summary(name, results):
    latencies = sorted(seconds * 1000 for status, seconds in results if status == 130)
    if not latencies:
        print(f"{name}: no run was interrupted")
        return
    p90 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.9))]
    print(f"{name}: {len(latencies)} of {len(results)} interrupted; signal to exit "
          f"median {statistics.median(latencies):.0f} ms, p90 {p90:.0f} ms, max {latencies[-1]:.0f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quakes")
    parser.add_argument("work")
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    options = parser.parse_args()
    rng = random.Random(options.seed)
    print(f"seed {options.seed}")
    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    feed = os.path.join(options.work, "feed")
    extra = os.path.join(options.work, "extra")
    base = os.path.join(options.work, "base")
    run([options.quakes, "generate", "--rows", str(options.rows), "--years", "2015-2024", "--out", feed,
         "--seed", str(rng.randrange(1 << 20))])
    run([options.quakes, "generate", "--rows", "2000", "--years", "2015-2024", "--out", extra,
         "--seed", str(rng.randrange(1 << 20))])
    run([options.quakes, "load", "--store", base, extra])

    started = time.monotonic()
    whole_store = os.path.join(options.work, "whole")
    shutil.copytree(base, whole_store)
    run([options.quakes, "load", "--store", whole_store, feed])
    whole = time.monotonic() - started
    print(f"an uninterrupted load of {options.rows} rows: {whole:.2f} s")

    loads = []
    for trial in range(options.trials):
        store = os.path.join(options.work, f"trial{trial}")
        shutil.copytree(base, store)
        loads.append(interrupt([options.quakes, "load", "--store", store, feed], rng.uniform(0, whole * 0.9)))
        shutil.rmtree(store)
    summary("load, Ctrl-C at a random instant", loads)

    waits = []
    holder = subprocess.Popen([options.quakes, "load", "--store", base, feed],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not is_locked(base) and holder.poll() is None:
        time.sleep(0.01)
    holder.send_signal(signal.SIGSTOP)
    for _ in range(options.trials):
        waits.append(interrupt([options.quakes, "load", "--store", base, "--wait", extra], rng.uniform(0.1, 0.5)))
    holder.send_signal(signal.SIGCONT)
    holder.wait()
    summary("load --wait behind a stopped writer, Ctrl-C", waits)


if __name__ == "__main__":
    sys.exit(main())
