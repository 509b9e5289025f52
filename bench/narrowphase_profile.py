"""Where a query's time goes: per-pair cost by shape kind, and the cycle's phases.

Usage::

    python -m bench.narrowphase_profile            # random N=100 and the robot scene
    python -m bench.narrowphase_profile --cprofile # also the top functions by own time

For each scene and margin (0 for penetration, ``MAX_DISTANCE`` for signed
distance) every cycle's candidate pairs are answered one by one and timed;
the table gives, per pair kind, how many pairs a cycle has, the mean and
median microseconds per pair, and the kind's share of the narrowphase. A
pair is timed through ``specs.pair``, whose own Python call overhead
(printed, measured on two far-apart spheres) is subtracted. The phase line
splits one full cycle (poses in, snapshot, the candidate pairs with their
answers, and turning those into result records)
so the gap to Drake can be read off. It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import pstats
import statistics
import time

import numpy as np

from bench.scenes import query_points, random_scene, robot_scene
from bench.systems import MAX_DISTANCE, Ours
from geometry_core.proximity import specs


def _kind(scene, i: int, j: int) -> str:
    return "–".join(sorted(type(scene.model.shapes[k]).__name__.lower() for k in (i, j)))


def _call_overhead() -> float:
    """Seconds of one ``specs.pair`` call that are Python, not geometry."""
    from geometry_core import Sphere

    a, b = np.eye(4), np.eye(4)
    b[0, 3] = 10.0
    ball = Sphere(0.1)
    samples = []
    for _ in range(2000):
        t0 = time.perf_counter()
        specs.pair(ball, a, ball, b)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def per_pair(spec, margin: float) -> tuple[dict, int]:
    """Seconds per pair, grouped by kind, over every cycle of the scene."""
    ours = Ours(spec, query_points(1))
    overhead = _call_overhead()
    times = collections.defaultdict(list)
    cycles = spec.X_PF.shape[0]
    for c in range(cycles):
        ours.set_poses(c)
        scene = ours.sg.query_object()._scene
        shapes, X_WG = scene.model.shapes, scene.X_WG
        for i, j in zip(*scene.candidates(margin)):
            i, j = int(i), int(j)
            t0 = time.perf_counter()
            specs.pair(shapes[i], X_WG[i], shapes[j], X_WG[j])
            times[_kind(scene, i, j)].append(max(time.perf_counter() - t0 - overhead, 0.0))
    return times, cycles


def phases(spec, query: str, repeats: int = 3) -> dict[str, float]:
    """Median milliseconds per cycle of each phase of a plain-API cycle."""
    ours = Ours(spec, query_points(1))
    margin = 0.0 if query == "penetration" else MAX_DISTANCE
    out = collections.defaultdict(list)
    for _ in range(repeats):
        for c in range(spec.X_PF.shape[0]):
            t0 = time.perf_counter()
            ours.set_poses(c)
            t1 = time.perf_counter()
            q = ours.sg.query_object()
            scene = q._scene
            scene.X_WG  # noqa: B018 - world poses are part of the snapshot's cost
            t2 = time.perf_counter()
            scene.answered_pairs(margin, margin, query == "penetration",
                                 query != "penetration")
            t3 = time.perf_counter()
            # The whole query again on a fresh snapshot: what it adds to the
            # phase above is turning answers into result records.
            q = ours.sg.query_object()
            if query == "penetration":
                found = len(q.compute_point_pair_penetration())
            else:
                found = len(q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE))
            t4 = time.perf_counter()
            out["set_poses"].append(t1 - t0)
            out["snapshot + X_WG"].append(t2 - t1)
            out["candidates + answers"].append(t3 - t2)
            out["whole query"].append(t4 - t3)
            out["results"].append(found)
    return {k: statistics.median(v) * (1 if k == "results" else 1e3) for k, v in out.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cprofile", action="store_true",
                        help="also print the top functions by own time")
    args = parser.parse_args(argv)
    np.seterr(all="ignore")
    print(f"specs.pair call overhead subtracted: {_call_overhead() * 1e6:.2f} µs")
    for spec in (random_scene(100), robot_scene()):
        for query, margin in (("penetration", 0.0), ("signed_distance", MAX_DISTANCE)):
            times, cycles = per_pair(spec, margin)
            total = sum(sum(v) for v in times.values())
            print(f"\n## {spec.name}, {query} (margin {margin} m): narrowphase "
                  f"{total / cycles * 1e3:.2f} ms per cycle")
            print("| pair | pairs/cycle | mean µs | median µs | share |")
            print("|---|---:|---:|---:|---:|")
            for kind, v in sorted(times.items(), key=lambda kv: -sum(kv[1])):
                print(f"| {kind} | {len(v) / cycles:.1f} | {np.mean(v) * 1e6:.1f} "
                      f"| {np.median(v) * 1e6:.1f} | {sum(v) / max(total, 1e-12):.0%} |")
            ms = phases(spec, query)
            print("phases (ms per cycle, median): " + ", ".join(
                f"{k} {v:.3f}" if k != "results" else f"{k} {v:.0f}" for k, v in ms.items()))
            if args.cprofile:
                profiler = cProfile.Profile()
                profiler.enable()
                phases(spec, query, repeats=1)
                profiler.disable()
                stream = io.StringIO()
                pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(12)
                print(stream.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
