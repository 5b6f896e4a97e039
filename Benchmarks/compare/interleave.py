"""Whole-process timings of commands run in turn, one of each per round, so that the machine's
drift lands on all of them alike. Prints the median, 25th percentile and minimum of each.

    python3 Benchmarks/compare/interleave.py ROUNDS "cmd a ..." "cmd b ..." [...]

Each command is split as a shell would split it and run with stdout and stderr to /dev/null.
"""
import os
import shlex
import statistics
import sys
import time


def main():
    rounds = int(sys.argv[1])
    cmds = [shlex.split(c) for c in sys.argv[2:]]
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = [[] for _ in cmds]
    for _ in range(rounds):
        for k, c in enumerate(cmds):
            t0 = time.perf_counter_ns()
            pid = os.posix_spawn(c[0], c, os.environ, file_actions=actions)
            _, status = os.waitpid(pid, 0)
            times[k].append((time.perf_counter_ns() - t0) / 1e6)
            if status != 0:
                sys.exit(f"{c[0]} exited with status {status}")
    for k, c in enumerate(cmds):
        t = sorted(times[k])
        print(f"median {statistics.median(t):.3f} ms  p25 {t[len(t) // 4]:.3f}  min {t[0]:.3f}  {shlex.join(c)[:90]}")


if __name__ == "__main__":
    main()
