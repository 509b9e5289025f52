"""Configuration-space checks on real arms: ours against Drake's SceneGraphCollisionChecker.

Usage::

    python -m bench.clearance            # K = 200 configurations, 20 edges per arm
    python -m bench.clearance --quick    # K = 40, 5 edges

For the UR5 (6 joints) and the Panda (7 + finger) from example-robot-data,
with their SRDF pairs and the primitive obstacles of the clearance tests,
both checkers load the same URDF (collision meshes converted to OBJ, which
Drake reads). The time per configuration (per edge for edges) of

* ``free, batch``: ``check_configs_collision_free`` over all K at once;
* ``free, loop``: K calls of ``check_config_collision_free``;
* ``clearance``: K calls of ``calc_robot_clearance`` (influence 0.1 m);
* ``edge``: the discrete edge check (edge_step_size 0.05);
* ``edge, certified``: ours only (Drake has none), on the same edges;

for ours and Drake's (``CheckConfigsCollisionFree``, ``CheckConfigCollisionFree``,
``CalcRobotClearance``, ``CheckEdgeCollisionFree``), measured in alternating
rounds in one process; Drake runs single-threaded (``parallelize=False``).
Every verdict is checked to agree before timing. Then the certified edge
check against our discrete one on the same edges, in alternating rounds
(CPU time of this process, so that other processes on the machine weigh
less; the load average is printed with it). It prints numbers and asserts
nothing about time.
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

INFLUENCE = 0.1


def timed(fn, count: int, rounds: int = 3) -> float:
    """Median over rounds of the time per item (microseconds)."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) / count * 1e6)
    return statistics.median(samples)


def alternating_ratio(first, second, count: int, rounds: int) -> tuple[float, float, float]:
    """``(first µs, second µs, median of second / first)`` per item, in alternating rounds.

    CPU time of this process: a shared machine's other processes slow both
    alike, and the ratio of each round pairs two runs taken side by side.
    """
    a, b = [], []
    for _ in range(rounds):
        start = time.process_time()
        first()
        a.append((time.process_time() - start) / count * 1e6)
        start = time.process_time()
        second()
        b.append((time.process_time() - start) / count * 1e6)
    return (statistics.median(a), statistics.median(b),
            statistics.median(y / x for x, y in zip(a, b)))


EDGE_RATIOS: list[tuple[str, int, float, float, float]] = []


def bench_arm(name: str, folder: Path, K: int, edges: int) -> list[tuple[str, float, float]]:
    from pydrake.common import Parallelism

    urdf = robots.obj_urdf(name, folder)
    ours = CollisionChecker.from_urdf(urdf, srdf=robots.ARMS[name][1],
                                      environment=robots.environment_scene())
    drake = drake_checker.DrakeArm(name, urdf, ours)
    qs = robots.random_configurations(ours, K, 3)
    qd = np.array([drake.q(q) for q in qs])
    serial = Parallelism(False)
    mine = ours.check_configs_collision_free(qs)
    theirs = np.array(drake.checker.CheckConfigsCollisionFree(list(qd), serial), dtype=bool)
    agree = float(np.mean(mine == theirs))
    starts = qs[mine][:edges + 1]
    ends = starts[1:] + 0.0
    starts = starts[:-1]
    ends = starts + 0.3 * (ends - starts)
    n = len(starts)
    rows = [
        ("free, batch",
         timed(lambda: ours.check_configs_collision_free(qs), K),
         timed(lambda: drake.checker.CheckConfigsCollisionFree(list(qd), serial), K)),
        ("free, loop",
         timed(lambda: [ours.check_config_collision_free(q) for q in qs], K),
         timed(lambda: [drake.checker.CheckConfigCollisionFree(q) for q in qd], K)),
        ("clearance",
         timed(lambda: [ours.calc_robot_clearance(q, INFLUENCE) for q in qs], K),
         timed(lambda: [drake.checker.CalcRobotClearance(q, INFLUENCE) for q in qd], K)),
        ("edge",
         timed(lambda: [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)], n),
         timed(lambda: [drake.checker.CheckEdgeCollisionFree(drake.q(a), drake.q(b))
                        for a, b in zip(starts, ends)], n)),
        ("edge, certified",
         timed(lambda: [ours.check_edge_collision_free(a, b, certified=True)
                        for a, b in zip(starts, ends)], n, rounds=1),
         float("nan")),
    ]
    certified = [ours.check_edge_collision_free(a, b, certified=True)
                 for a, b in zip(starts, ends)]
    discrete = [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)]
    # A certified-free edge is free at every discrete sample too.
    assert all(d for c, d in zip(certified, discrete) if c)
    EDGE_RATIOS.append((name, n) + alternating_ratio(
        lambda: [ours.check_edge_collision_free(a, b) for a, b in zip(starts, ends)],
        lambda: [ours.check_edge_collision_free(a, b, certified=True)
                 for a, b in zip(starts, ends)], n, 9))
    print(f"{name}: verdicts agree on {agree:.1%} of {K} configurations; {n} edges, "
          f"{sum(certified)} certified free, {sum(discrete)} free at the discrete samples")
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    K, edges = (40, 5) if args.quick else (200, 20)
    print("| arm | check | ours (µs) | Drake (µs) | ours / Drake |")
    print("|---|---|---:|---:|---:|")
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for name in ("ur5", "panda"):
            for check, t_ours, t_drake in bench_arm(name, Path(folder), K, edges):
                ratio = "" if np.isnan(t_drake) else f"{t_ours / t_drake:.2f}"
                drake_text = "-" if np.isnan(t_drake) else f"{t_drake:.0f}"
                lines.append(f"| {name} | {check} | {t_ours:.0f} | {drake_text} | {ratio} |")
    print("\n".join(lines))
    print()
    print("Certified against discrete edges (ours, same edges, 9 alternating rounds, CPU time;"
          f" load average {os.getloadavg()[0]:.2f}):")
    print("| arm | edges | discrete (µs) | certified (µs) | certified / discrete |")
    print("|---|---:|---:|---:|---:|")
    for name, n, discrete, certified, ratio in EDGE_RATIOS:
        print(f"| {name} | {n} | {discrete:.0f} | {certified:.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
