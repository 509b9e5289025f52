"""Where one small-scene cycle of ours goes, step by step, beside the peers' whole cycles.

Usage::

    python -m bench.cycle_breakdown              # random N=10, both pose modes
    python -m bench.cycle_breakdown --n 100

The cycle of ``bench.run`` (set every frame's pose, take a snapshot, ask one
question) cut into its steps, each timed alone over batches of cycles (the
poses of 20 configurations in turn), median of 7 batches:

* ``build poses``: ``RigidTransform(RollPitchYaw(rpy), p)`` for every frame
  (rpy mode only; prebuilt mode reuses objects made before timing);
* ``set_poses``: ``SceneGraph.set_poses`` with those objects;
* ``query_object``: the snapshot (world poses composed);
* ``penetration`` / ``signed distance``: the query on a fresh snapshot
  (broadphase, narrowphase, result records).

Then the whole cycle of ours and of each peer (Drake, coal, pybullet), timed
the same way. The steps are timed separately, so their sum differs from the
whole by the cost of the calls between them; only the shares and the
order of magnitude are meant. It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from bench.scenes import query_points, random_scene
from bench.systems import MAX_DISTANCE, Coal, Drake, Ours, PyBullet
from geometry_core.math import RigidTransform, RollPitchYaw

BATCH = 2000
REPEATS = 7


def _per_call(step, cycles: int, batch: int) -> float:
    """Median over REPEATS batches of the microseconds per call of ``step(c)``."""
    samples = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for k in range(batch):
            step(k % cycles)
        samples.append((time.perf_counter() - t0) / batch * 1e6)
    return statistics.median(samples)


def breakdown(n: int, from_rpy: bool, batch: int = BATCH) -> list[tuple[str, float]]:
    """``(step, µs)`` rows for one pose mode on the random scene of ``n`` geometries."""
    spec = random_scene(n)
    points = query_points(10)
    ours = Ours(spec, points, from_rpy=from_rpy)
    sg, source, frames = ours.sg, ours.src, ours.frames
    cycles = spec.X_PF.shape[0]
    if from_rpy:
        def build(c):
            return {f: RigidTransform(RollPitchYaw(r), p)
                    for f, r, p in zip(frames, ours.rpy[c], ours.p[c])}
        built = [build(c) for c in range(cycles)]
    else:
        built = ours.poses

    def penetration(c):
        sg.set_poses(source, built[c])
        return sg.query_object().compute_point_pair_penetration()

    def distance(c):
        sg.set_poses(source, built[c])
        return sg.query_object().compute_signed_distance_pairwise_closest_points(MAX_DISTANCE)

    rows = []
    gc.disable()
    try:
        if from_rpy:
            rows.append(("build poses", _per_call(build, cycles, batch)))
        set_only = _per_call(lambda c: sg.set_poses(source, built[c]), cycles, batch)
        rows.append(("set_poses", set_only))
        set_and_snapshot = _per_call(
            lambda c: (sg.set_poses(source, built[c]), sg.query_object()), cycles, batch)
        rows.append(("query_object", set_and_snapshot - rows[-1][1]))
        rows.append(("penetration", _per_call(penetration, cycles, batch) - set_and_snapshot))
        rows.append(("signed distance", _per_call(distance, cycles, batch) - set_and_snapshot))
        for query in ("penetration", "signed_distance"):
            for cls in (Ours, Drake, Coal, PyBullet):
                system = cls(spec, points, from_rpy)
                system.cycle(0, query)  # warm-up: caches, first snapshot
                rows.append((f"whole cycle, {query}: {system.label}",
                             _per_call(lambda c, s=system, q=query: s.cycle(c, q), cycles,
                                       batch)))
                if hasattr(system, "close"):
                    system.close()
    finally:
        gc.enable()
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10, help="geometries in the random scene")
    parser.add_argument("--batch", type=int, default=BATCH, help="cycles per timed batch")
    args = parser.parse_args(argv)
    for from_rpy in (False, True):
        mode = "poses built in the cycle (rpy)" if from_rpy else "prebuilt poses"
        print(f"\nrandom N={args.n}, {mode}: µs per cycle (median of {REPEATS} batches "
              f"of {args.batch})")
        for label, us in breakdown(args.n, from_rpy, args.batch):
            print(f"  {label:45s} {us:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
