"""Batched queries for planners: K configurations of one scene in one call.

Usage::

    python -m bench.batch            # K = 1, 10, 100, 1000 on the robot scene
    python -m bench.batch --quick    # K = 1, 10, 100

A planner checks many candidate states of the same arm. For each K and each
question (penetration; signed distance within ``MAX_DISTANCE``) this prints
the time per configuration of

* ``batch``: one ``SceneGraph.query_batch`` over all K configurations
  (``has_collisions`` and ``min_distance``, the smallest signed distance
  within ``MAX_DISTANCE``, run all K in one compiled call);
* ``separate``: K plain cycles through the array API (``set_poses_array``,
  ``query_object``, the query), what a caller without the batch call writes;
* ``Drake``: K cycles of pydrake's SceneGraph (FramePoseVector fixed on the
  pose port, the query object evaluated, the query).

The three run in alternating rounds in one process, and every batch answer
is checked against the separate calls before timing (same pairs, same
distances), so the numbers compare equal work. It prints numbers and
asserts nothing about time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench.scenes import query_points, robot_scene
from bench.systems import MAX_DISTANCE, Drake, OursArray

QUESTIONS = ("penetration", "signed_distance", "has_collisions", "min_distance")


def _batch_answers(ours: OursArray, X_PF: np.ndarray, question: str):
    batch = ours.sg.query_batch(ours.src, ours.frames, X_PF)
    if question == "penetration":
        return batch.compute_point_pair_penetration()
    if question == "has_collisions":
        return batch.has_collisions().tolist()
    if question == "min_distance":
        return batch.compute_min_distance(MAX_DISTANCE).tolist()
    return batch.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE)


def _separate_answers(ours: OursArray, X_PF: np.ndarray, question: str):
    out = []
    for X in X_PF:
        ours.sg.set_poses_array(ours.src, ours.frames, X)
        q = ours.sg.query_object()
        if question == "penetration":
            out.append(q.compute_point_pair_penetration())
        elif question == "has_collisions":
            out.append(q.has_collisions())
        elif question == "min_distance":
            pairs = q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE)
            out.append(min((p.distance for p in pairs), default=float("inf")))
        else:
            out.append(q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE))
    return out


def _drake_answers(drake: Drake, K: int, question: str) -> int:
    total = 0
    for k in range(K):
        if question in ("penetration", "signed_distance"):
            total += drake.cycle(k, question)
            continue
        q = drake.query(k)
        if question == "has_collisions":
            total += q.HasCollisions()
        else:
            pairs = q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE)
            total += len(pairs) and min(p.distance for p in pairs) < 0.0
    return total


def _check_same(batch, separate, question: str) -> None:
    if question in ("has_collisions", "min_distance"):
        if batch != separate:
            raise SystemExit(f"{question}: batch and separate calls disagree")
        return
    field = "depth" if question == "penetration" else "distance"
    for k, (a, b) in enumerate(zip(batch, separate)):
        pairs_a = [(r.id_A, r.id_B) for r in a]
        pairs_b = [(r.id_A, r.id_B) for r in b]
        if pairs_a != pairs_b:
            raise SystemExit(f"configuration {k}: batch and separate calls disagree on pairs")
        for r, s in zip(a, b):
            if abs(getattr(r, field) - getattr(s, field)) > 1e-12:
                raise SystemExit(f"configuration {k}: batch and separate calls disagree")


def measure(K: int, question: str, rounds: int) -> dict[str, list[float]]:
    """Seconds per configuration of each way, per round."""
    spec = robot_scene(cycles=K, seed=3)
    points = query_points(1)
    ours, drake = OursArray(spec, points), Drake(spec, points)
    X_PF = spec.X_PF
    _check_same(_batch_answers(ours, X_PF, question), _separate_answers(ours, X_PF, question),
                question)
    ways = {
        "batch": lambda: _batch_answers(ours, X_PF, question),
        "separate": lambda: _separate_answers(ours, X_PF, question),
        "Drake": lambda: _drake_answers(drake, K, question),
    }
    times = {name: [] for name in ways}
    for r in range(rounds):
        order = list(ways.items()) if r % 2 == 0 else list(ways.items())[::-1]
        for name, run in order:
            t0 = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - t0) / K)
    return times


def _ratio(a: list[float], b: list[float]) -> str:
    r = [x / y for x, y in zip(a, b)]
    return f"{statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="K <= 100, fewer rounds")
    args = parser.parse_args(argv)
    sizes = (1, 10, 100) if args.quick else (1, 10, 100, 1000)
    print("Robot arm + 50 obstacles; microseconds per configuration (median over rounds); "
          "ratios per round, median (min–max).\n")
    print("| question | K | batch µs | separate µs | Drake µs | batch/separate | batch/Drake |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for question in QUESTIONS:
        for K in sizes:
            rounds = 7 if K <= 100 else 3
            t = measure(K, question, rounds)
            med = {name: statistics.median(v) * 1e6 for name, v in t.items()}

            print(f"| {question} | {K} | {med['batch']:.1f} | {med['separate']:.1f} "
                  f"| {med['Drake']:.1f} | {_ratio(t['batch'], t['separate'])} "
                  f"| {_ratio(t['batch'], t['Drake'])} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
