"""Configuration-space checks on real arms: ours against Drake's SceneGraphCollisionChecker.

Usage::

    python -m bench.clearance            # K = 200 configurations, 20 edges per arm
    python -m bench.clearance --quick    # K = 40, 5 edges
    python -m bench.clearance --influence 0.1 0.25 --rounds 9

For the UR5 (6 joints) and the Panda (7 + finger) from example-robot-data,
with their SRDF pairs and the primitive obstacles of the clearance tests,
both checkers load the same URDF (collision meshes converted to OBJ, which
Drake reads). The time per configuration (per edge for edges) of

* ``free, batch``: ``check_configs_collision_free`` over all K at once;
* ``free, loop``: K calls of ``check_config_collision_free``;
* ``clearance D``: K calls of ``calc_robot_clearance`` at influence D m
  (each ``--influence``, default 0.1 and 0.25);
* ``clearance D, batch``: one ``calc_robot_clearances`` call for all K
  (Drake has no batch: its column is the loop of ``CalcRobotClearance``);
* ``clearance D, closest 1``: K calls with ``num_closest_pairs=1`` (Drake
  has no such option: its column is the whole table);
* ``edge``: the discrete edge check (edge_step_size 0.05);
* ``edge, certified``: ours only (Drake has none), on the same edges;

for ours and Drake's (``CheckConfigsCollisionFree``, ``CheckConfigCollisionFree``,
``CalcRobotClearance``, ``CheckEdgeCollisionFree``); Drake runs
single-threaded (``parallelize=False``). Where Pinocchio and coal are
installed (``pip install pin``), the clearance rows have a third column:
Pinocchio + coal on the arm's own URDF with its meshes as convex hulls (as
``bench.peers`` sets it up), ``computeDistances`` over every pair, then for
each pair within the influence distance its Jacobian row
``n · (J(p2) - J(p1))`` from ``computeJointJacobians``, the witnesses and
the normal (a Pinocchio user's clearance table). The row count and smallest
distance of its tables, and the Jacobian of the nearest row, are compared
with ours before timing.

Every timed call runs once per round, the rounds alternate between the
checkers, and each figure is the median of the rounds. Every verdict is
checked to agree before timing. Then the certified edge check against our
discrete one on the same edges, in 9 alternating rounds of CPU time of this
process (other processes on a shared machine slow both alike), after
checking that every edge certified free is free at the discrete samples.
It prints numbers and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "clearance"))

import drake_checker  # noqa: E402
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402


def load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def once(fn, count: int) -> float:
    """The time per item of one run of ``fn`` (microseconds)."""
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / count * 1e6


def alternating_ratio(first, second, count: int, rounds: int) -> tuple[float, float, float]:
    """``(first µs, second µs, median of second / first)`` per item, CPU time, alternating."""
    a, b = [], []
    for _ in range(rounds):
        for fn, out in ((first, a), (second, b)):
            start = time.process_time()
            fn()
            out.append((time.process_time() - start) / count * 1e6)
    return (statistics.median(a), statistics.median(b),
            statistics.median(y / x for x, y in zip(a, b)))


#: (arm, edges, discrete µs, certified µs, ratio) of each arm, for the last table.
EDGE_RATIOS: list[tuple[str, int, float, float, float]] = []


class PinocchioClearance:
    """Pinocchio + coal's table: every pair's distance, Jacobians of those within reach."""

    name = "Pinocchio + coal"

    def __init__(self, arm: str, checker: CollisionChecker) -> None:
        from bench.peers import PinocchioCoal

        peer = PinocchioCoal(arm, checker)
        self.peer, self.pin = peer, peer.pin
        self.model, self.data = peer.model, peer.data
        self.geometry = peer.geometry
        # The pairs ours and Drake's keep (bench.peers filters by joint:
        # there a link on a fixed joint, like the UR5's ee_link, also skips
        # the link before its parent, which ours and Drake's measure).
        pin, geometry = self.pin, self.geometry
        body_of = {name: k for k, name in enumerate(checker.body_names)}
        body_of["universe"] = body_of["world"]
        objects = geometry.geometryObjects
        frames = self.model.frames
        # The obstacles were added on the universe joint with no frame.
        bodies = [body_of[frames[g.parentFrame].name if g.parentFrame < len(frames)
                          else "universe"] for g in objects]
        geometry.removeAllCollisionPairs()
        for i in range(len(objects)):
            for j in range(i + 1, len(objects)):
                if not checker._filtered[bodies[i], bodies[j]]:
                    geometry.addCollisionPair(pin.CollisionPair(i, j))
        self.geometry_data = pin.GeometryData(geometry)
        self.joints = [(objects[pair.first].parentJoint, objects[pair.second].parentJoint)
                       for pair in self.geometry.collisionPairs]
        self.world = self.pin.ReferenceFrame.LOCAL_WORLD_ALIGNED

    def convert(self, qs) -> np.ndarray:
        return self.peer.convert(qs)

    def _point_jacobian(self, joint: int, p_WQ: np.ndarray) -> np.ndarray:
        J = self.pin.getJointJacobian(self.model, self.data, joint, self.world)
        r = p_WQ - self.data.oMi[joint].translation
        # v_Q = v_Jo + w x r = v_Jo - r x w
        return J[:3] - np.cross(r[:, None], J[3:], axis=0)

    def table(self, q, influence: float) -> tuple[np.ndarray, np.ndarray]:
        """(distances, Jacobian rows) of the pairs within ``influence`` (Pinocchio's columns)."""
        pin = self.pin
        pin.computeDistances(self.model, self.data, self.geometry, self.geometry_data, q)
        pin.computeJointJacobians(self.model, self.data, q)
        distances, rows = [], []
        for k, result in enumerate(self.geometry_data.distanceResults):
            d = result.min_distance
            if d > influence:
                continue
            a, b = self.joints[k]
            p1, p2 = result.getNearestPoint1(), result.getNearestPoint2()
            n = result.normal   # from the first object to the second
            distances.append(d)
            rows.append(n @ (self._point_jacobian(b, p2) - self._point_jacobian(a, p1)))
        return np.array(distances), np.array(rows).reshape(-1, self.model.nv)


def bench_arm(name: str, folder: Path, K: int, edges: int, influences: list[float],
              rounds: int) -> tuple[list[tuple[str, float, float, float]], list[str]]:
    from pydrake.common import Parallelism

    urdf = robots.obj_urdf(name, folder)
    ours = CollisionChecker.from_urdf(urdf, srdf=robots.ARMS[name][1],
                                      environment=robots.environment_scene())
    drake = drake_checker.DrakeArm(name, urdf, ours)
    notes = []
    try:
        pinocchio = PinocchioClearance(name, ours)
    except ImportError as err:
        pinocchio = None
        notes.append(f"{name}: Pinocchio + coal not installed ({err}): no third column")
    qs = robots.random_configurations(ours, K, 3)
    qd = np.array([drake.q(q) for q in qs])
    qp = pin_of_q = None
    if pinocchio is not None:
        qp = pinocchio.convert(qs)
        # Pinocchio's positions are linear in ours: d q_pin / d q, column by column.
        unit = np.eye(ours.num_positions)
        pin_of_q = np.stack([pinocchio.convert(qs[:1] + unit[k])[0] - qp[0]
                             for k in range(ours.num_positions)], axis=1)
    serial = Parallelism(False)
    mine = ours.check_configs_collision_free(qs)
    theirs = np.array(drake.checker.CheckConfigsCollisionFree(list(qd), serial), dtype=bool)
    agree = float(np.mean(mine == theirs))
    for influence in influences:
        tables = ours.calc_robot_clearances(qs, influence)
        drakes = [drake.checker.CalcRobotClearance(q, influence) for q in qd]
        sizes = [t.size() for t in tables]
        same = sum(t.size() == d.size() for t, d in zip(tables, drakes))
        gap = max((abs(t.distances().min() - d.distances().min())
                   for t, d in zip(tables, drakes) if t.size() and d.size()), default=0.0)
        notes.append(f"{name}, influence {influence} m: {np.mean(sizes):.1f} rows a table "
                     f"(most {max(sizes)}); Drake's row count equal on {same}/{K}, smallest "
                     f"distances within {gap * 1e3:.3f} mm")
        if pinocchio is not None:
            theirs = [pinocchio.table(q, influence) for q in qp]
            same = sum(t.size() == len(d) for t, (d, _) in zip(tables, theirs))
            gap = max((abs(t.distances().min() - d.min())
                       for t, (d, _) in zip(tables, theirs) if t.size() and len(d)),
                      default=0.0)
            # The nearest row's Jacobian, in our columns (dq_pin/dq is linear).
            nearest = ours.calc_robot_clearances(qs, influence, num_closest_pairs=1)
            errors = [np.abs(J[np.argmin(d)] @ pin_of_q - t.jacobians()[0]).max()
                      for t, (d, J) in zip(nearest, theirs)
                      if t.size() and len(d) and abs(d.min() - t.distances()[0]) < 1e-6]
            notes.append(f"{name}, influence {influence} m: Pinocchio + coal's row count "
                         f"equal on {same}/{K}, smallest distances within {gap * 1e3:.3f} mm; "
                         f"the nearest row's Jacobian (where its distance agrees to 1e-6 m, "
                         f"{len(errors)}/{K}) within {max(errors, default=0.0):.1e}")
    starts = qs[mine][:edges + 1]
    ends = starts[1:] + 0.0
    starts = starts[:-1]
    ends = starts + 0.3 * (ends - starts)
    n = len(starts)
    nan = float("nan")
    # (check, count, ours, Drake, Pinocchio): None where a checker has no such call.
    runs = [
        ("free, batch", K, lambda: ours.check_configs_collision_free(qs),
         lambda: drake.checker.CheckConfigsCollisionFree(list(qd), serial), None),
        ("free, loop", K, lambda: [ours.check_config_collision_free(q) for q in qs],
         lambda: [drake.checker.CheckConfigCollisionFree(q) for q in qd], None),
    ]
    for d in influences:
        def drake_loop(d=d):
            return [drake.checker.CalcRobotClearance(q, d) for q in qd]

        pin_loop = None
        if pinocchio is not None:
            def pin_loop(d=d):
                return [pinocchio.table(q, d) for q in qp]

        runs += [
            (f"clearance {d}", K, lambda d=d: [ours.calc_robot_clearance(q, d) for q in qs],
             drake_loop, pin_loop),
            (f"clearance {d}, batch", K, lambda d=d: ours.calc_robot_clearances(qs, d),
             drake_loop, pin_loop),
            (f"clearance {d}, closest 1", K,
             lambda d=d: [ours.calc_robot_clearance(q, d, num_closest_pairs=1) for q in qs],
             drake_loop, pin_loop),
        ]
    runs += [
        ("edge", n, lambda: [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)],
         lambda: [drake.checker.CheckEdgeCollisionFree(drake.q(a), drake.q(b))
                  for a, b in zip(starts, ends)], None),
    ]
    samples: dict[tuple, list[float]] = {}
    for _ in range(rounds):
        for check, count, *fns in runs:
            for who, fn in enumerate(fns):
                if fn is not None:
                    samples.setdefault((check, who), []).append(once(fn, count))
    rows = [(check, *(statistics.median(samples[(check, who)]) if (check, who) in samples
                      else nan for who in range(3)))
            for check, *_ in runs]
    # One round (its ratio to the discrete check is timed below).
    rows.append(("edge, certified",
                 once(lambda: [ours.check_edge_collision_free(a, b, certified=True)
                               for a, b in zip(starts, ends)], n), nan, nan))
    certified = [ours.check_edge_collision_free(a, b, certified=True)
                 for a, b in zip(starts, ends)]
    discrete = [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)]
    # A certified-free edge is free at every discrete sample too.
    assert all(d for c, d in zip(certified, discrete) if c)
    EDGE_RATIOS.append((name, n) + alternating_ratio(
        lambda: [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)],
        lambda: [ours.check_edge_collision_free(a, b, certified=True)
                 for a, b in zip(starts, ends)], n, 9))
    notes.insert(0, f"{name}: verdicts agree on {agree:.1%} of {K} configurations; {n} edges, "
                 f"{sum(certified)} certified free, {sum(discrete)} free at the discrete samples")
    return rows, notes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--influence", type=float, nargs="+", default=[0.1, 0.25],
                        help="influence distances of the clearance rows (m)")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (medians)")
    args = parser.parse_args(argv)
    K, edges = (40, 5) if args.quick else (200, 20)
    rounds = 3 if args.quick else args.rounds
    print(f"K = {K}, {rounds} alternating rounds, medians; load average {load()} before")
    lines, notes = [], []
    with tempfile.TemporaryDirectory() as folder:
        for name in ("ur5", "panda"):
            rows, arm_notes = bench_arm(name, Path(folder), K, edges, args.influence, rounds)
            notes += arm_notes
            for check, t_ours, *peers in rows:
                cells = [("-", "") if np.isnan(t) else (f"{t:.0f}", f"{t_ours / t:.2f}")
                         for t in peers]
                lines.append(f"| {name} | {check} | {t_ours:.0f} | "
                             + " | ".join(" | ".join(cell) for cell in cells) + " |")
    print("\n".join(notes))
    print(f"load average {load()} after")
    print("| arm | check | ours (µs) | Drake (µs) | ours / Drake | Pinocchio + coal (µs) "
          "| ours / Pinocchio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(lines))
    print()
    print(f"Certified against discrete edges (ours, same edges, 9 alternating rounds, CPU "
          f"time; load average {load()}):")
    print("| arm | edges | discrete (µs) | certified (µs) | certified / discrete |")
    print("|---|---:|---:|---:|---:|")
    for name, n, discrete, certified, ratio in EDGE_RATIOS:
        print(f"| {name} | {n} | {discrete:.0f} | {certified:.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
