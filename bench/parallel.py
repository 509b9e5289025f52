"""``parallelize=``: one thread against several, side by side, on the Panda and the UR5.

Usage::

    python -m bench.parallel                  # K = 20000 configurations, threads 1, 2 and all cores
    python -m bench.parallel --count 5000 --threads 1 2 4 --rounds 5
    python -m bench.parallel --write-docs     # also docs/benchmarks.md's table
    python -m bench.parallel --count 300000 --threads 1 4 16 --processes 16

For each arm of example-robot-data (with its SRDF, among the primitive
obstacles of the clearance tests) ``check_configs_collision_free`` answers
the same K random configurations with each thread count in turn, round after
round, so a change in the machine's load hits every count alike. It prints
the time per configuration and the speed-up over one thread (median and
best of the rounds), the load average before and after (other processes on
the machine take cores from the threads), and checks that every thread
count gives the one-thread answers exactly. It asserts nothing about time.

``--processes P ...`` adds, in the same rounds, the reference that threads
should reach: P worker processes (forked after the checker is built, so each
holds its own copy), each answering one of P equal chunks with one thread;
the time is the map over the chunks alone (the pool starts before the
rounds), and the joined answers must equal the serial ones.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
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


#: The checker the forked workers inherit (set before the pool forks).
_CHECKER: CollisionChecker | None = None


def _check_chunk(qs: np.ndarray) -> np.ndarray:
    return _CHECKER.check_configs_collision_free(qs)


def bench_arm(name: str, count: int, threads: list[int], rounds: int,
              processes: tuple[int, ...] = ()) -> list[str]:
    global _CHECKER
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, count, 3)
    serial = checker.check_configs_collision_free(qs)
    for t in threads:
        if not np.array_equal(checker.check_configs_collision_free(qs, parallelize=t), serial):
            raise SystemExit(f"{name}: parallelize={t} changed an answer")
    _CHECKER = checker
    pools = {p: multiprocessing.get_context("fork").Pool(p) for p in processes}
    chunks = {p: np.array_split(qs, p) for p in processes}
    try:
        for p, pool in pools.items():
            if not np.array_equal(np.concatenate(pool.map(_check_chunk, chunks[p])), serial):
                raise SystemExit(f"{name}: {p} processes changed an answer")
        times: dict = {t: [] for t in threads} | {("p", p): [] for p in processes}
        for _ in range(rounds):
            for t in threads:
                start = time.perf_counter()
                checker.check_configs_collision_free(qs, parallelize=t)
                times[t].append(time.perf_counter() - start)
            for p, pool in pools.items():
                start = time.perf_counter()
                pool.map(_check_chunk, chunks[p], chunksize=1)
                times[("p", p)].append(time.perf_counter() - start)
    finally:
        for pool in pools.values():
            pool.terminate()
    base = times[threads[0]]
    rows = []
    for key, spent in times.items():
        label = f"{key[1]} processes" if isinstance(key, tuple) else str(key)
        ratios = [b / x for b, x in zip(base, spent)]
        per = statistics.median(spent) / count
        rows.append(f"| {name} | {serial.mean():.0%} | {label} | {per * 1e6:.2f} | "
                    f"{1 / per:,.0f} | {statistics.median(ratios):.2f} | {max(ratios):.2f} |")
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=None)
    parser.add_argument("--arms", nargs="+", default=["panda", "ur5"])
    parser.add_argument("--processes", type=int, nargs="+", default=[],
                        help="also P forked processes of one thread each, as the reference")
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the parallel table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    threads = args.threads or sorted({1, 2, available_cores()})
    before = load()
    rows = ["| arm | free | threads | µs a configuration (median) | configurations a second | "
            "speed-up (median) | speed-up (best round) |", "|---|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(rows))
    for name in args.arms:
        rows += bench_arm(name, args.count, threads, args.rounds, tuple(args.processes))
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
