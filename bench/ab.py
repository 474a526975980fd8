#!/usr/bin/env python3
"""Interleaved wall-time comparison of two (or more) readout binaries on one config.

This machine's speed drifts by up to x1.5 within an hour (a VM whose memory the host
reclaims), so binaries are compared run by run, alternating, never one series after the
other. Usage:

    bench/ab.py [--gap SECONDS] N CONFIG OUT_DIR BINARY_A BINARY_B [...]

e.g. build the base commit into another target dir, then
    bench/ab.py 20 config/altn-ak105-ii-01.yaml /dev/shm/ab /tmp/readout-base target/release/readout

Prints min and median wall time of N runs of `BINARY build CONFIG --out OUT_DIR --quiet`
for each binary, their user+system CPU time (mean; system time alone in brackets: on this
VM mostly the kernel zeroing fresh pages) and median peak RSS. Installs nothing.

`--gap SECONDS` sleeps before each run. On this VM memory a process frees is handed back to
the host about 2 s later, and a huge page touched after that costs 2-6 ms instead of 0.2 ms:
runs 3 s apart measure a build as a user running it now and then sees it, back-to-back runs
(the default) the build with the machine's memory still warm.
"""
import os
import statistics
import subprocess
import sys
import time


def main() -> int:
    args = sys.argv[1:]
    gap = 0.0
    if args[:1] == ["--gap"] and len(args) > 1:
        gap, args = float(args[1]), args[2:]
    if len(args) < 5:
        print(__doc__)
        return 2
    n, config, out = int(args[0]), args[1], args[2]
    binaries = args[3:]
    wall = {b: [] for b in binaries}
    cpu = {b: [] for b in binaries}
    system = {b: [] for b in binaries}
    rss = {b: [] for b in binaries}
    for _ in range(n):
        for b in binaries:
            time.sleep(gap)
            t = time.perf_counter()
            child = subprocess.Popen([b, "build", config, "--out", out, "--quiet"])
            _, status, usage = os.wait4(child.pid, 0)
            wall[b].append(time.perf_counter() - t)
            if status != 0:
                raise SystemExit(f"{b} failed (wait status {status})")
            cpu[b].append(usage.ru_utime + usage.ru_stime)
            system[b].append(usage.ru_stime)
            rss[b].append(usage.ru_maxrss / 1024)
    for b in binaries:
        w = sorted(wall[b])
        print(
            f"{b}: min {w[0] * 1e3:.1f} ms, median {statistics.median(w) * 1e3:.1f} ms, "
            f"CPU {statistics.mean(cpu[b]) * 1e3:.0f} ms "
            f"(system {statistics.mean(system[b]) * 1e3:.0f} ms), "
            f"RSS {statistics.median(rss[b]):.0f} MiB (n={n})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
