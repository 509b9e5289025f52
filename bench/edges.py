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

The same configurations for both, at two resolutions R (states a radian).
vamp's ``validate_vector`` (its ``planning/validate.hh``) checks an edge of
length L in n = max(1, ceil(L R / 8)) passes of its SIMD width 8: the
first at the fractions j / 8, j = 1..8, each next one stepped back by
1 / (8 n), so it checks the fractions m / (8 n), m = 1..8n (the end, not
the start), and stops at the first pass that collides.

* R = 1: vamp's Python ``validate_motion`` (its binding instantiates
  ``validate_motion<Robot, rake, 1>``), one call an edge.
* R = 32: vamp's planners (RRT-Connect, PRM, FCIT, AORRTC, simplify) check at
  ``Robot::resolution``, 32 for both arms, which Python cannot ask for. It
  gets n calls of ``validate_motion`` whose edges are at most 8 / 32 rad
  long, one pass each, stopping at the first False (:func:`vamp_calls`),
  in two orders: vamp's own (call k is the edge shifted back by k / (8 n) of
  itself, which is vamp's k-th pass exactly where L <= 8; longer edges make
  each call take more passes, so this order can only cost vamp time) and
  contiguous (the edge cut into n equal sub-edges, first to last: exactly
  the states, not the order). vamp's rate is that of the faster order.

Ours is given ``edge_step_size`` = L / (8 n), so it checks the same
configurations and the start as well. States a second count ``8 n`` per
edge for both (the start ours adds is not counted), so their ratio is the
ratio of edges a second. Every call of vamp's binding pays Python's call,
converting its arguments and converting the environment to vamp's SIMD
layout, which vamp's planners inside C++ do not. So the same loop is timed
again with its calls answered before anything is checked (``check_bounds``
set and both ends outside the limits: the binding returns False before it
converts the environment), and ``vamp best case`` is vamp's time less that
loop's: the Python loop and calls subtracted, the environment's conversion
still in. The headline ratio is vamp's best case over ours. Times are
medians of alternating rounds, each a Python loop of single calls;
``per-state batch`` is ``check_configs_collision_free`` on each edge's
configurations (what checking every configuration costs).

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

#: vamp's SIMD width (AVX2: 8 floats): configurations one pass of its check poses.
VAMP_RAKE = 8
#: The resolutions compared: that of vamp's Python ``validate_motion`` (1)
#: and that of its planners (``Robot::resolution``, 32 for both arms).
RESOLUTIONS = (1, 32)
#: A planner's extension: edges of at most this length (rad).
SHORT_EDGE = 0.5


def vamp_blocks(length: float, resolution: int = 1) -> int:
    """vamp's n on an edge of ``length``: how many passes of 8 configurations it checks."""
    return max(1, math.ceil(length * resolution / VAMP_RAKE))


def vamp_steps(length: float, resolution: int = 1) -> int:
    """How many configurations vamp checks on an edge of ``length`` at ``resolution``."""
    return VAMP_RAKE * vamp_blocks(length, resolution)


def vamp_calls(q1: np.ndarray, q2: np.ndarray, blocks: int, order: str) -> list:
    """The ``validate_motion`` calls (pairs of ends) that check vamp's ``8 blocks`` states.

    Each call's edge is at most ``8 / resolution`` long, so vamp checks one
    pass of 8 configurations on it, at the fractions j / 8 of that edge.
    ``"contiguous"``: the edge cut into ``blocks`` equal sub-edges, first to
    last (sub-edge i gives the fractions (8 i + j) / (8 blocks) of the edge).
    ``"vamp"``: vamp's own order, the edge shifted back by k / (8 blocks) of
    itself for k = 0..blocks-1 (call k gives the fractions
    (j blocks - k) / (8 blocks): the first spans the whole edge, each next
    one steps back, as vamp's planners walk it). Both give every fraction
    m / (8 blocks), m = 1..8 blocks, once.
    """
    if order == "contiguous":
        cuts = q1 + (np.arange(blocks + 1) / blocks)[:, None] * (q2 - q1)
        return [(cuts[i], cuts[i + 1]) for i in range(blocks)]
    back = (np.arange(blocks) / (VAMP_RAKE * blocks))[:, None] * (q2 - q1)
    return list(zip(q1 - back, q2 - back))


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


class VampEdges:
    """vamp's ``validate_motion`` over the calls of :func:`vamp_calls`, and its cost a call."""

    def __init__(self, vamp, q1s, q2s, blocks: np.ndarray) -> None:
        self.validate_motion, self.environment = vamp.robot.validate_motion, vamp.environment
        self.vamp = vamp
        self.q1s, self.q2s, self.blocks = q1s, q2s, blocks
        # Below every lower limit: with check_bounds=True the binding returns
        # False before it converts the environment or poses anything.
        self.outside = vamp.convert(np.full((1, q1s.shape[1]), -1e3))[0]
        self.calls = {order: [self._convert(vamp_calls(a, b, int(n), order))
                              for a, b, n in zip(q1s, q2s, blocks)]
                      for order in ("contiguous", "vamp")}
        self.made: dict[str, list] = {}

    def _convert(self, pairs: list) -> list:
        if not pairs:
            return []
        ends = self.vamp.convert(np.array([end for pair in pairs for end in pair]))
        return list(zip(ends[0::2], ends[1::2]))

    def run(self, order: str) -> np.ndarray:
        """Each edge's verdict, its calls in ``order``, stopping at the first False."""
        validate_motion, environment, out = self.validate_motion, self.environment, []
        for calls in self.calls[order]:
            free = True
            for a, b in calls:
                if not validate_motion(a, b, environment, False):
                    free = False
                    break
            out.append(free)
        return np.array(out)

    def record(self, order: str) -> np.ndarray:
        """:meth:`run`, noting for :meth:`idle` how many calls each edge made."""
        validate_motion, environment, out, made = self.validate_motion, self.environment, [], []
        for calls in self.calls[order]:
            free, count = True, 0
            for a, b in calls:
                count += 1
                if not validate_motion(a, b, environment, False):
                    free = False
                    break
            made.append(count)
            out.append(free)
        outside = self.outside
        self.made[order] = [[(outside, outside)] * count for count in made]
        return np.array(out)

    def idle(self, order: str) -> int:
        """The loop of :meth:`run` with its calls answered before anything is checked."""
        validate_motion, environment, made = self.validate_motion, self.environment, 0
        for calls in self.made[order]:
            for a, b in calls:
                if validate_motion(a, b, environment, True):
                    made += 1
        return made


def bench_arm(arm: str, count: int, rounds: int) -> tuple[list, list]:
    urdf, srdf, _ = robots.ARMS[arm]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    vamp = Vamp(arm, checker)
    rows, notes = [], []
    for kind, seed in (("long", 5), ("short", 7)):
        q1s, q2s = edges_of(checker, kind, count, seed, vamp.opened)
        for resolution in RESOLUTIONS:
            row, note = compare(arm, kind, resolution, checker, vamp, q1s, q2s, rounds)
            rows.append(row)
            notes.append(note)
    return rows, notes


def compare(arm: str, kind: str, resolution: int, checker, vamp, q1s: np.ndarray,
            q2s: np.ndarray, rounds: int) -> tuple[tuple, str]:
    """One kind of edges at one resolution: verdicts compared edge by edge, then timed."""
    ours = OurEdges(checker)
    count = len(q1s)
    lengths = np.linalg.norm(q2s - q1s, axis=1)
    blocks = np.array([vamp_blocks(float(length), resolution) for length in lengths])
    counts = VAMP_RAKE * blocks
    # Our step: the length over vamp's count, a hair longer so that
    # ceil(length / step) is that count and not one more.
    steps = [float(length) / n * (1.0 + 1e-12) if length > 0 else 1.0
             for length, n in zip(lengths, counts)]
    ours_count = [max(1, math.ceil(float(np.linalg.norm(b - a)) / step))
                  for a, b, step in zip(q1s, q2s, steps)]
    if any(c != n for c, n, length in zip(ours_count, counts, lengths) if length > 0):
        raise SystemExit(f"{arm}: the steps do not give vamp's configuration counts")
    # At resolution 1 one call an edge is vamp's own check; above it, one
    # call a pass of 8 (``vamp_calls``), in both orders.
    theirs = VampEdges(vamp, q1s, q2s, blocks if resolution > 1 else np.ones(count, int))
    orders = ("vamp", "contiguous") if resolution > 1 else ("vamp",)

    mine, reference = ours.run(q1s, q2s, steps), ours.per_state(q1s, q2s, counts)
    if not np.array_equal(mine, reference):
        raise SystemExit(f"{arm}, {kind}, resolution {resolution}: our edge check differs "
                         f"from checking every configuration on "
                         f"{int(np.sum(mine != reference))} edges")
    verdicts = {order: theirs.record(order) for order in orders}
    vamps = verdicts["vamp"]
    orders_differ = sum(int(np.sum(v != vamps)) for v in verdicts.values())
    differ = np.flatnonzero(vamps != mine)
    model = 0
    for e in differ:
        # vamp's configurations: ours but the start (row 1).
        qs = np.delete(edge_configurations(q1s[e], q2s[e], int(counts[e])), 1, axis=0)
        by_vamp = np.array([vamp.robot.validate(q, vamp.environment, False)
                            for q in vamp.convert(qs)])
        model += bool(np.any(by_vamp != checker.check_configs_collision_free(qs)))
    calls = {order: sum(len(c) for c in theirs.made[order]) for order in orders}
    note = (f"{arm}, {kind} edges, resolution {resolution}: {count - len(differ)} of {count} "
            f"verdicts equal (ours free {int(mine.sum())}, vamp free {int(vamps.sum())}); of the "
            f"{len(differ)} others, {int(np.sum(~vamps[differ]))} vamp calls colliding "
            f"and {int(np.sum(vamps[differ]))} free; on {model} of them the two "
            "models give some configuration of the edge different verdicts; vamp's calls "
            + ", ".join(f"{calls[o]} in {o} order" for o in orders)
            + (f" (the orders' verdicts differ on {orders_differ} edges)"
               if resolution > 1 else ""))
    # The edges both call free: both check every state of these, so their
    # rates do not depend on where either model first finds contact.
    both = np.flatnonzero(mine & vamps)
    both_steps = [steps[e] for e in both]
    free_theirs = VampEdges(vamp, q1s[both], q2s[both], theirs.blocks[both])
    free_theirs.record("vamp")
    runs = {"ours": lambda: ours.run(q1s, q2s, steps),
            "per-state": lambda: ours.per_state(q1s, q2s, counts),
            "ours both free": lambda: ours.run(q1s[both], q2s[both], both_steps),
            "vamp both free": lambda: free_theirs.run("vamp"),
            "idle both free": lambda: free_theirs.idle("vamp")}
    for order in orders:
        runs[f"vamp {order}"] = lambda order=order: theirs.run(order)
        runs[f"idle {order}"] = lambda order=order: theirs.idle(order)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - start)
    median = {name: statistics.median(times) for name, times in samples.items()}
    states = float(counts.sum())
    rate = {"ours": states / median["ours"], "per-state": states / median["per-state"]}
    # vamp as measured: its faster order; its best case: each order less its
    # calls' cost (the idle loop), the faster of those.
    rate["vamp"] = max(states / median[f"vamp {o}"] for o in orders)
    rate["vamp best"] = max(states / max(median[f"vamp {o}"] - median[f"idle {o}"], 1e-9)
                            for o in orders)
    rate["call us"] = max(median[f"idle {o}"] / max(calls[o], 1) for o in orders) * 1e6
    rate["calls"] = calls[orders[0]] / count
    rate["both"] = len(both)
    rate["both ratio"] = (median["ours both free"]
                          / max(median["vamp both free"] - median["idle both free"], 1e-9)
                          if len(both) else math.nan)
    return (arm, kind, resolution, float(lengths.mean()), float(counts.mean()), rate,
            count - len(differ), count), note


def table(rows: list) -> list[str]:
    out = ["| arm | edges | resolution | mean length rad | states an edge | vamp calls an edge "
           "| vamp µs a call | vamp M states/s | vamp best case M states/s | ours M states/s "
           "| vamp best case / ours | vamp / ours | vamp best case / ours, edges both free "
           "| per-state batch M states/s | verdicts equal to vamp |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for arm, kind, resolution, length, states, rate, equal, count in rows:
        out.append(f"| {arm} | {kind} | {resolution} | {length:.2f} | {states:.1f} | "
                   f"{rate['calls']:.1f} | {rate['call us']:.2f} | {rate['vamp'] / 1e6:.2f} | "
                   f"{rate['vamp best'] / 1e6:.2f} | {rate['ours'] / 1e6:.2f} | "
                   f"**{rate['vamp best'] / rate['ours']:.1f}** | "
                   f"{rate['vamp'] / rate['ours']:.1f} | "
                   f"{rate['both ratio']:.1f} ({rate['both']}) | {rate['per-state'] / 1e6:.2f} | "
                   f"{equal}/{count} |")
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
              f"{VAMP_RAKE} n states an edge as vamp checks them at each resolution); load "
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
