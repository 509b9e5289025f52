"""The discrete edge check: every configuration of a straight edge in q, decided pair by pair.

``check_edge_collision_free`` (discrete) asks whether any of the edge's
configurations ``q1 + (m / steps) (q2 - q1)``, m = 0..steps (q2 itself for
the last), has a pair in contact. :func:`discrete_edge_free` answers that in
one compiled call (``native.Motion``, ``csrc/motion.c``) without checking
most configurations whole: a pair's distance at one configuration, less its
padding, bounds it from below at the configurations near by, because along
the edge the distance falls at most as fast as :func:`pair_rates` allows
(``KinematicChain.motion_rates``: joint motion times the reach of the
geometry beyond each joint, the joints that move both bodies left out). A
pair proven clear by more than ``MOTION_PROOF_MARGIN`` is skipped at every
configuration its bound covers; a configuration whose every pair is proven
is never posed; a pair within the margin of its padding is decided by the
same tests the configuration's own check runs. So the answer is exactly that
of checking every configuration, which :func:`edge_configurations` lists.

Point clouds are not in the compiled model: where the model's pairs are free
at every configuration, the clouds are checked at all of them as the batch
check does. A pair the kernels leave to Python sends the edge to the batch
check. The checker calls this for ``certified=False``.

Never fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core import native
from geometry_core.proximity.engine import ModelCache

__all__ = ["discrete_edge_free", "edge_configurations", "edge_free_at_once", "edge_steps",
           "pair_rates"]

#: Above this many geometries, or this many entries of the pairs' rate table
#: (pairs times links), edges are checked as batches of configurations: the
#: tables would grow with the square of the scene.
_PAIRS_GEOMETRIES_MAX = 1024
_RATE_ENTRIES_MAX = 1 << 22


def edge_configurations(q1: np.ndarray, q2: np.ndarray, steps: int) -> np.ndarray:
    """The (steps + 1, n) configurations of the edge in the order the check takes them.

    ``q2``, then ``q1 + (m / steps) (q2 - q1)`` for m = 0..steps-1.
    """
    ratios = np.arange(steps) / steps
    return np.vstack([q2[None], q1 + ratios[:, None] * (q2 - q1)])


def edge_steps(q1: np.ndarray, q2: np.ndarray, step: float) -> int:
    """The steps of at most ``step`` (Euclidean in q) from ``q1`` to ``q2``.

    The squares summed in order, as ``native.Motion.between`` sums them.
    """
    squares = 0.0
    for d in (q2 - q1).tolist():
        squares += d * d
    return max(1, math.ceil(math.sqrt(squares) / step))


def edge_free_at_once(checker, q1, q2, threads: int) -> bool | None:
    """:func:`discrete_edge_free` for ends as given, in one compiled call.

    None where it cannot answer so: an end that is not a float64 array of
    finite positions within the limits (the caller checks them and names
    what is wrong), a checker without the compiled check, or an edge whose
    answer needs the batch path (clouds, pairs left to Python).
    """
    world = checker._world
    motion = _motion_of(checker, world)
    if motion is None:
        return None
    found = motion.between(q1, q2, checker.edge_step_size, threads)
    if found is None:
        return None
    answer, steps = found
    return _edge_answer(checker, world, answer, np.asarray(q1), np.asarray(q2), steps, threads)


def discrete_edge_free(checker, q1: np.ndarray, q2: np.ndarray, steps: int,
                       threads: int) -> bool:
    """Whether no configuration of the edge ``q1 -> q2`` of ``steps`` steps is in collision.

    ``q1`` and ``q2`` validated (n,) positions; ``threads`` native threads
    share the configurations (the answer does not depend on their number).
    """
    world = checker._world
    motion = _motion_of(checker, world)
    answer = -1 if motion is None else motion.edge(q1, q2, steps, threads)
    return _edge_answer(checker, world, answer, q1, q2, steps, threads)


def _edge_answer(checker, world, answer: int, q1: np.ndarray, q2: np.ndarray, steps: int,
                 threads: int) -> bool:
    """The edge's answer from the compiled check's (1 free, 0 not, -1 left to the batch).

    Free model pairs still leave the clouds to check.
    """
    if answer == 0:
        return False
    if answer == 1 and not world.clouds:
        return True
    return _batch_edge_free(checker, world, q1, q2, steps, threads, answer == 1)


def _batch_edge_free(checker, world, q1: np.ndarray, q2: np.ndarray, steps: int, threads: int,
                     model_free: bool) -> bool:
    """The edge by the batch check; with ``model_free`` only its clouds are left to check."""
    qs = edge_configurations(q1, q2, steps)
    if not model_free:
        if checker._padding_bounds() == (0.0, 0.0) and not world.clouds:
            # One compiled call that stops at the first configuration in contact.
            return not checker._chain_batch(qs, world).any_contact(threads)
        return bool(np.all(checker._collision_free(qs, threads)))
    # The model's pairs are free everywhere: the clouds decide, as in the
    # batch check.
    batch = checker._chain_batch(qs, world)
    if checker._padding_bounds() == (0.0, 0.0):
        return not checker._cloud_contacts(world, batch.X_WF).any()
    reach = checker._max_padding()
    rows = checker._rows_of_pairs(world, checker._with_cloud_pairs(
        world, batch.X_WF, reach, [[] for _ in range(len(qs))]))
    return all(d > 0.0 for config in rows for _, _, d, _ in config)


def _motion_of(checker, world):
    """The compiled edge check of ``world`` at the current filters, padding and frame tree.

    Made again when one of them changes; None where the batch check must
    answer (a geometry of no body, or too many geometries or pairs).
    """
    tree = checker._pose_tree(world)
    filtered, padding = checker._filtered, checker._padding
    cached = checker._motion_of
    if cached is not None:
        # Compared one by one, without building tuples: a run of single
        # edge checks pays this on every call.
        (w, t, f, p), (f_version, p_version), motion = cached
        if w is world and t is tree and f is filtered and p is padding \
                and f_version == filtered.version and p_version == padding.version:
            return motion
    objects, versions = (world, tree, filtered, padding), (filtered.version, padding.version)
    motion = _make_motion(checker, world, tree)
    checker._motion_of = (objects, versions, motion)
    return motion


def _make_motion(checker, world, tree):
    model = world.model
    if len(model.geometry_ids) > _PAIRS_GEOMETRIES_MAX:
        return None
    compiled = ModelCache.of(model).native
    pairs = np.frombuffer(compiled.unfiltered_pairs(), dtype=np.int32).reshape(-1, 2)
    if len(pairs) * len(checker._chain.links) > _RATE_ENTRIES_MAX:
        return None
    bodies = np.asarray(world.index_bodies, dtype=np.intp)
    a, b = bodies[pairs[:, 0]], bodies[pairs[:, 1]]
    if (a < 0).any() or (b < 0).any():
        return None
    low, high = checker._padding_bounds()
    padded = (low, high) != (0.0, 0.0)
    if padded:
        # The batch check drops the pairs of filtered bodies after measuring.
        keep = ~np.asarray(checker._filtered[a, b], dtype=bool)
        pairs, a, b = pairs[keep], a[keep], b[keep]
        padding = np.asarray(checker._padding[a, b], dtype=np.float64)
        margin, report_max = max(high, 0.0), high
    else:
        padding = np.zeros(len(pairs))
        margin = report_max = 0.0
    _, _, X_PF, link_slot, parent_slot = tree
    chain = checker._chain
    return native.Motion(
        compiled, chain.arrays, X_PF, np.ascontiguousarray(link_slot, dtype=np.int32),
        np.ascontiguousarray(parent_slot, dtype=np.int32), np.ascontiguousarray(pairs),
        np.ascontiguousarray(padding), pair_rates(checker, world, a, b),
        np.ascontiguousarray(chain._lowest, dtype=np.float64),
        np.ascontiguousarray(chain._highest, dtype=np.float64), checker.num_positions, padded,
        margin, report_max, link_groups(checker, bodies))


def link_groups(checker, bodies: np.ndarray) -> np.ndarray:
    """(G,) int32: per geometry, which robot link of several geometries holds it (-1: none).

    Numbered 0, 1, ... over those links. The compiled check bounds such a
    link's geometries by one sphere (in the link's frame, around their outer
    spheres) and tries it before each pair's own: the Panda's fingers are
    four boxes each.
    """
    robot = (bodies >= 0) & np.asarray(checker._is_robot, dtype=bool)[np.maximum(bodies, 0)]
    counts = np.bincount(bodies[robot], minlength=1)
    several = np.flatnonzero(counts >= 2)
    number = np.full(len(counts), -1)
    number[several] = np.arange(len(several))
    out = np.where(robot, number[np.where(robot, bodies, 0)], -1)
    return np.ascontiguousarray(out, dtype=np.int32)


def pair_rates(checker, world, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(P, L): how fast the distance of body pairs (a[p], b[p]) can fall per unit of each joint.

    Row p times the links' joint motions ``|dq|`` (each link's parent joint,
    in its position's units) bounds the pair's approach over an edge of
    that motion, anywhere in the joint limits. A joint that moves both
    bodies moves them together and drops out; a body that is not a link
    does not move. Prismatic joints count their largest extension within
    the limits (``KinematicChain.motion_rates`` over the whole box).
    """
    chain = checker._chain
    L = len(chain.links)
    moves = chain.ancestor_mask()
    with np.errstate(invalid="ignore"):
        rates = chain.motion_rates(world.link_radius, chain._lowest, chain._highest)
    # A prismatic joint without limits reaches without bound (inf - inf is NaN).
    rates = np.where(moves, np.where(np.isnan(rates), np.inf, rates), 0.0)
    # Row L: what a body that is not a link has (no motion, no joints).
    rates = np.vstack([rates, np.zeros(L)])
    moves = np.vstack([moves, np.zeros(L, dtype=bool)])
    is_robot = checker._is_robot
    link_a = np.where(is_robot[a], a - 1, L)
    link_b = np.where(is_robot[b], b - 1, L)
    out = np.where(moves[link_b], 0.0, rates[link_a]) + np.where(moves[link_a], 0.0,
                                                                 rates[link_b])
    return np.ascontiguousarray(out, dtype=np.float64)
