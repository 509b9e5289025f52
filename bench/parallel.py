"""``parallelize=``: one thread against several, side by side, on the Panda and the UR5.

Usage::

    python -m bench.parallel                  # K = 20000 configurations, threads 1, 2 and all cores
    python -m bench.parallel --count 5000 --threads 1 2 4 --rounds 5

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
import os
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


def bench_arm(name: str, count: int, threads: list[int], rounds: int) -> None:
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
    print(f"\n{name}: {count} configurations, {serial.mean():.0%} free, answers equal for "
          f"every thread count")
    print(f"{'threads':>8} {'µs/config (median)':>20} {'speed-up median':>16} {'best':>6}")
    for t in threads:
        ratios = [b / x for b, x in zip(base, times[t])]
        print(f"{t:>8} {statistics.median(times[t]) / count * 1e6:>20.2f} "
              f"{statistics.median(ratios):>16.2f} {max(ratios):>6.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=None)
    parser.add_argument("--arms", nargs="+", default=["panda", "ur5"])
    args = parser.parse_args(argv)
    threads = args.threads or sorted({1, 2, available_cores()})
    print(f"cores available: {available_cores()}; load average before: {load()}")
    for name in args.arms:
        bench_arm(name, args.count, threads, args.rounds)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
