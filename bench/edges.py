"""Is the motion q1 -> q2 free? Our discrete edge check and vamp's ``validate_motion``.

Usage::

    python -m bench.edges                  # 1000 edges of each kind per arm, prints the table
    python -m bench.edges --write-docs     # also docs/benchmarks.md's edges table
    python -m bench.edges --count 200

(``python -m bench.peers`` runs it too, after its table of configurations.)

For the Panda and the UR5 among the obstacles of ``bench.peers`` (vamp's
scenes placed to match its robots, the Panda's fingers opened to their
limit), two kinds of edges:

* long: consecutive pairs of random configurations that ours finds free;
* short: a planner's extension, from such a configuration a random direction
  and a length uniform in (0, 0.5] rad, clipped to the joint limits (the
  end need not be free).

The same configurations for both. vamp's Python ``validate_motion`` checks
``8 n`` configurations, n = max(1, ceil(|q2 - q1| / 8)) (its SIMD width 8
times the resolution 1 its binding passes), at fractions m / (8 n),
m = 1..8n: the end but not the start. Ours is given the equal
``edge_step_size``, |q2 - q1| / (8 n), so it checks the same configurations
and the start as well. States a second count ``8 n`` per edge for both
(the start ours adds is not counted), so their ratio is the ratio of edges
a second. Times are medians of alternating rounds, each a Python loop of
single calls; ``per-state batch`` is ``check_configs_collision_free`` on
each edge's configurations (what checking every configuration costs).

Verdicts are compared edge by edge. Where they differ, the edge's
configurations are checked one by one by both (vamp's ``validate``, ours
``check_config_collision_free``): a disagreement whose configurations also
get different verdicts from the two models is the models' (vamp's spheres
against our meshes; its UR5 carries a gripper ours lacks), not the edge
check's. It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import datetime
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "clearance"))

import robots  # noqa: E402

from bench.peers import Vamp, _load, _probe  # noqa: E402
from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.clearance.discrete_edge import edge_configurations  # noqa: E402

#: vamp's SIMD width (AVX2: 8 floats) times the resolution its Python
#: ``validate_motion`` passes (1): configurations per unit of edge length.
VAMP_RAKE = 8
#: A planner's extension: edges of at most this length (rad).
SHORT_EDGE = 0.5


def vamp_steps(length: float) -> int:
    """How many configurations vamp's ``validate_motion`` checks on an edge of ``length``."""
    return VAMP_RAKE * max(1, math.ceil(length / VAMP_RAKE))


def edges_of(checker, kind: str, count: int, seed: int, opened) -> tuple[np.ndarray, np.ndarray]:
    """(count, n) starts and ends of edges of one kind (see the module docstring)."""
    rng = np.random.default_rng(seed)
    starts = []
    while len(starts) < count + 1:
        qs = opened(robots.random_configurations(checker, 4 * (count + 1),
                                                 int(rng.integers(1 << 30))))
        starts.extend(qs[checker.check_configs_collision_free(qs)])
    starts = np.array(starts[:count + 1])
    if kind == "long":
        return starts[:-1], starts[1:]
    q1 = starts[:-1]
    direction = rng.normal(size=q1.shape)
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    q2 = q1 + direction * rng.uniform(0.0, SHORT_EDGE, size=(count, 1))
    q2 = opened(np.clip(q2, checker._chain.lower, checker._chain.upper))
    return q1, q2


class OurEdges:
    def __init__(self, checker) -> None:
        self.checker = checker

    def run(self, q1s, q2s, steps) -> np.ndarray:
        checker, out = self.checker, []
        for q1, q2, step in zip(q1s, q2s, steps):
            checker.edge_step_size = step
            out.append(checker.check_edge_collision_free(q1, q2))
        return np.array(out)

    def per_state(self, q1s, q2s, counts) -> np.ndarray:
        free = self.checker.check_configs_collision_free
        return np.array([bool(free(edge_configurations(q1, q2, n)).all())
                         for q1, q2, n in zip(q1s, q2s, counts)])


def bench_arm(arm: str, count: int, rounds: int) -> tuple[list, list]:
    urdf, srdf, _ = robots.ARMS[arm]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    vamp = Vamp(arm, checker)
    rows, notes = [], []
    for kind, seed in (("long", 5), ("short", 7)):
        q1s, q2s = edges_of(checker, kind, count, seed, vamp.opened)
        row, note = compare(arm, kind, checker, vamp, q1s, q2s, rounds)
        rows.append(row)
        notes.append(note)
    return rows, notes


def compare(arm: str, kind: str, checker, vamp, q1s: np.ndarray, q2s: np.ndarray,
            rounds: int) -> tuple[tuple, str]:
    """One kind of edges: verdicts compared edge by edge, then timed in alternating rounds."""
    ours = OurEdges(checker)
    validate_motion, environment = vamp.robot.validate_motion, vamp.environment
    count = len(q1s)
    v1s, v2s = vamp.convert(q1s), vamp.convert(q2s)
    lengths = np.linalg.norm(q2s - q1s, axis=1)
    counts = np.array([vamp_steps(float(length)) for length in lengths])
    # Our step: the length over vamp's count, a hair longer so that
    # ceil(length / step) is that count and not one more.
    steps = [float(length) / n * (1.0 + 1e-12) if length > 0 else 1.0
             for length, n in zip(lengths, counts)]
    ours_count = [max(1, math.ceil(float(np.linalg.norm(b - a)) / step))
                  for a, b, step in zip(q1s, q2s, steps)]
    if any(c != n for c, n, length in zip(ours_count, counts, lengths) if length > 0):
        raise SystemExit(f"{arm}: the steps do not give vamp's configuration counts")

    def theirs():
        return np.array([validate_motion(a, b, environment, False) for a, b in zip(v1s, v2s)])

    mine, reference = ours.run(q1s, q2s, steps), ours.per_state(q1s, q2s, counts)
    if not np.array_equal(mine, reference):
        raise SystemExit(f"{arm}, {kind}: our edge check differs from checking every "
                         f"configuration on {int(np.sum(mine != reference))} edges")
    vamps = theirs()
    differ = np.flatnonzero(vamps != mine)
    model = 0
    for e in differ:
        # vamp's configurations: ours but the start (row 1).
        qs = np.delete(edge_configurations(q1s[e], q2s[e], int(counts[e])), 1, axis=0)
        by_vamp = np.array([vamp.robot.validate(q, environment, False)
                            for q in vamp.convert(qs)])
        model += bool(np.any(by_vamp != checker.check_configs_collision_free(qs)))
    note = (f"{arm}, {kind} edges: {count - len(differ)} of {count} verdicts equal "
            f"(ours free {int(mine.sum())}, vamp free {int(vamps.sum())}); of the "
            f"{len(differ)} others, {int(np.sum(~vamps[differ]))} vamp calls colliding "
            f"and {int(np.sum(vamps[differ]))} free; on {model} of them the two "
            "models give some configuration of the edge different verdicts")
    runs = {"vamp": theirs, "ours": lambda: ours.run(q1s, q2s, steps),
            "per-state": lambda: ours.per_state(q1s, q2s, counts)}
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - start)
    states = float(counts.sum())
    rate = {name: states / statistics.median(times) for name, times in samples.items()}
    return (arm, kind, float(lengths.mean()), float(counts.mean()), rate,
            count - len(differ), count), note


def table(rows: list) -> list[str]:
    out = ["| arm | edges | mean length rad | states an edge | vamp M states/s | ours M states/s "
           "| vamp / ours | per-state batch M states/s | verdicts equal to vamp |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for arm, kind, length, states, rate, equal, count in rows:
        out.append(f"| {arm} | {kind} | {length:.2f} | {states:.1f} | {rate['vamp'] / 1e6:.2f} | "
                   f"{rate['ours'] / 1e6:.2f} | {rate['vamp'] / rate['ours']:.1f} | "
                   f"{rate['per-state'] / 1e6:.2f} | {equal}/{count} |")
    return out


def report(count: int, rounds: int) -> str | None:
    """The edges table and its notes, or None (after saying why) where vamp cannot run."""
    why = _probe("vamp")
    if why:
        print(f"edges: vamp not run here: {why} (vamp-planner 0.6.4); nothing to compare with")
        return None
    load_before = _load()
    rows, notes = [], []
    for arm in ("panda", "ur5"):
        arm_rows, arm_notes = bench_arm(arm, count, rounds)
        rows += arm_rows
        notes += arm_notes
    header = (f"Measured {datetime.date.today()} on {platform.machine()}, Python "
              f"{platform.python_version()}, numpy {np.__version__}; {count} edges of each kind "
              f"per arm, {rounds} alternating rounds, medians (million states a second, "
              f"{VAMP_RAKE} n states an edge as vamp's validate_motion checks them); load "
              f"average {load_before} before, {_load()} after.")
    return "\n".join([header, "", *table(rows), "", *[f"- {n}" for n in notes]])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the edges table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    text = report(args.count, args.rounds)
    if text is None:
        return
    print(text)
    if args.write_docs:
        from bench.run import write_docs

        write_docs(text, "edges")


if __name__ == "__main__":
    main()
