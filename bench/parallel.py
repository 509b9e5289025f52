"""``parallelize=``: one thread against several, side by side, on the Panda and the UR5.

Usage::

    python -m bench.parallel                  # K = 20000 configurations, threads 1, 2 and all cores
    python -m bench.parallel --count 5000 --threads 1 2 4 --rounds 5
    python -m bench.parallel --write-docs     # also docs/benchmarks.md's table

For each arm of example-robot-data (with its SRDF, among the primitive
obstacles of the clearance tests) ``check_configs_collision_free`` answers
the same K random configurations with each thread count in turn, round after
round, so a change in the machine's load hits every count alike. It prints
the time per configuration and the speed-up over one thread (median and
best of the rounds), the load average before and after (other processes on
the machine take cores from the threads), and checks that every thread
count gives the one-thread answers exactly. It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "clearance"))

import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.parallelism import available_cores  # noqa: E402


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def bench_arm(name: str, count: int, threads: list[int], rounds: int) -> list[str]:
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, count, 3)
    serial = checker.check_configs_collision_free(qs)
    for t in threads:
        if not np.array_equal(checker.check_configs_collision_free(qs, parallelize=t), serial):
            raise SystemExit(f"{name}: parallelize={t} changed an answer")
    times: dict[int, list[float]] = {t: [] for t in threads}
    for _ in range(rounds):
        for t in threads:
            start = time.perf_counter()
            checker.check_configs_collision_free(qs, parallelize=t)
            times[t].append(time.perf_counter() - start)
    base = times[threads[0]]
    rows = []
    for t in threads:
        ratios = [b / x for b, x in zip(base, times[t])]
        rows.append(f"| {name} | {serial.mean():.0%} | {t} | "
                    f"{statistics.median(times[t]) / count * 1e6:.2f} | "
                    f"{statistics.median(ratios):.2f} | {max(ratios):.2f} |")
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=None)
    parser.add_argument("--arms", nargs="+", default=["panda", "ur5"])
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the parallel table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    threads = args.threads or sorted({1, 2, available_cores()})
    before = load()
    rows = ["| arm | free | threads | µs a configuration (median) | speed-up (median) | "
            "speed-up (best round) |", "|---|---:|---:|---:|---:|---:|"]
    print("\n".join(rows))
    for name in args.arms:
        rows += bench_arm(name, args.count, threads, args.rounds)
    header = (f"Measured {datetime.date.today()} on {platform.machine()} "
              f"({available_cores()} cores), K = {args.count} configurations, {args.rounds} "
              f"alternating rounds; answers equal to one thread's for every count; load "
              f"average {before} before, {load()} after (other processes' share of the "
              f"cores is not the threads').")
    text = "\n".join([header, "", *rows])
    print(text)
    if args.write_docs:
        from bench.run import write_docs

        write_docs(text, "parallel")


if __name__ == "__main__":
    main()
