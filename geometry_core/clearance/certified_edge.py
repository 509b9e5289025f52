"""The certified edge check: conservative advancement along a straight edge in q.

At a configuration s_k on the edge (s in [0, 1]), each unfiltered pair's
padded distance d and a bound v on how fast its two bodies can approach per
unit of edge (:func:`pair_speeds`, from ``KinematicChain.motion_rates``)
prove the stretch ``|s - s_k| <= (d - eps) / v`` free, on both sides. A pair
is measured only within its own margin ``padding + 2 eps + v * reach``: one
farther apart proves at least ``reach`` without its kernel running.
:func:`certified_edge_free` samples the edge in batches (one compiled call
poses and measures every sample of a batch), keeps the union of the proven
stretches, and samples again at both ends and the middle of each gap not yet
covered (conservative advancement into every gap from both sides at once),
until no gap is left (free) or a pair comes within 2 eps (not proven). A
pair that one sample proves free on the whole edge, a rigid pair (its two
bodies moved by the same joints only) once measured, is not measured again.
It reads a checker's tables and asks the scene graph's batch query for the
pairs; the checker calls it for ``certified=True``.

Never fcl, lcm or ROS.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from geometry_core.tolerances import CERTIFIED_EDGE_CLEARANCE, CERTIFIED_EDGE_MAX_STEPS

__all__ = ["certified_edge_free", "pair_speeds"]

#: Metres: the first batch spaces its samples so that pairs this far apart
#: (beyond padding) prove the stretch between two samples. Larger horizons
#: take fewer samples but measure more pairs exactly at each.
FIRST_HORIZON = 0.06

#: Each batch asks for this much more than the radius that closes its gaps.
_OVERLAP = 1.01


def certified_edge_free(checker, q1: np.ndarray, q2: np.ndarray) -> bool:
    """Whether the edge ``q1 -> q2`` is proven collision-free by conservative advancement.

    ``CollisionChecker.check_edge_collision_free(q1, q2, certified=True)``
    of validated positions: it documents what is proven and when it stops.
    """
    world = checker._world
    tables = _Tables.of(checker, world)
    speed = pair_speeds(checker, q1, q2, world.link_radius)
    # Geometry pairs by model index: each one's speed (zero where filtered).
    pair_speed = speed.take(tables.body_pair)
    pair_speed[~tables.live] = 0.0
    # A pair proven free on the whole edge (a rigid pair once measured)
    # needs no more measuring.
    settled = np.zeros(pair_speed.shape, dtype=bool)
    fastest = float(pair_speed.max(initial=0.0))
    count = max(1, math.ceil(fastest / (2.0 * FIRST_HORIZON)))
    if count >= CERTIFIED_EDGE_MAX_STEPS:
        return False        # not even the first batch fits in the sample cap
    todo = _first_batch(count)
    # The radius that closes the widest gap, with room so that stretches
    # that just meet overlap despite rounding.
    reach = _OVERLAP * 0.5 / count
    dq = q2 - q1
    batch = None
    if checker._padding_bounds() == (0.0, 0.0) and not world.clouds:
        # Collisions first: the yes/no kernel (inner spheres, first contact
        # in order) on the first batch's samples, which come in bisection
        # order. A colliding edge costs about a discrete check; a free one a
        # fraction more.
        batch = checker._chain_batch(q1 + todo[:, None] * dq, world)
        if batch.any_contact():
            return False
    s = r = None
    spent = 0
    while True:
        spent += len(todo)
        if spent > CERTIFIED_EDGE_MAX_STEPS:
            return False
        # Each pair's margin is what it must be measured within to prove
        # `reach` around a sample (padding + 2 eps + speed * reach); -inf
        # leaves a pair out.
        margin = tables.base + pair_speed * reach
        margin[settled] = -np.inf
        qs = batch if batch is not None else q1 + todo[:, None] * dq
        radius = _radii(checker, world, tables, speed, qs, margin, reach, todo, settled)
        if radius is None:
            return False
        settled |= pair_speed == 0.0      # measured at every sample of this batch
        if s is None:
            if radius.min() >= reach:
                return True     # evenly spaced from 0 to 1, each reaching the next
            s, r, batch = todo, radius, None
        else:
            s, r = np.concatenate([s, todo]), np.concatenate([r, radius])
        order = np.argsort(s - r, kind="stable")
        left, right = (s - r)[order], np.maximum.accumulate((s + r)[order])
        # Each sample's closed stretch [s - r, s + r] is proven; a gap opens
        # where the next stretch starts beyond all that came before.
        gap = np.flatnonzero(left[1:] > right[:-1])
        if len(gap) == 0:
            return True     # samples at 0 and 1 are in, so [0, 1] is covered
        lo, hi = right[gap], left[gap + 1]
        # Advance into every gap from both of its ends, and try its middle
        # (where a collision hides if there is one).
        todo = np.concatenate([lo, hi, 0.5 * (lo + hi)])
        reach = _OVERLAP * float(np.max(hi - lo)) / 4.0


@functools.lru_cache(maxsize=256)
def _first_batch(count: int) -> np.ndarray:
    """The fractions k / count, k = 0..count: the end, the start, then midpoints coarse to fine."""
    inner = sorted(range(1, count), key=lambda k: (-(k & -k), k))
    fractions = np.array([count, 0] + inner) / count
    fractions.setflags(write=False)
    return fractions


def _radii(checker, world, tables, speed, qs, margin, reach, at, settled):
    """Per configuration, the stretch of edge its pairs prove free; None if one is too close.

    ``qs`` is the configurations (K, n) or their chain batch.

    A pair farther apart than its ``margin`` proves at least ``reach``.
    Marks in ``settled`` the geometry pairs that one configuration (at
    ``at``, the fraction of the edge) proves free on the whole edge.
    """
    eps = CERTIFIED_EDGE_CLEARANCE
    if world.clouds:
        # Point clouds are not in the compiled batch (nor among the model's
        # geometries): the checker's own pair rows, within a margin that
        # holds for every unfiltered pair, the clouds' too.
        unfiltered = ~np.asarray(checker._filtered, dtype=bool)
        horizon = (max(checker._max_padding(), 0.0) + 2.0 * eps
                   + float(speed[unfiltered].max(initial=0.0)) * reach)
        rows, _, _ = checker._pairs_in(qs, horizon, world)   # never a batch here
        config = np.array([k for k, rows_k in enumerate(rows) for _ in rows_k], dtype=np.intp)
        a = np.array([row[0] for rows_k in rows for row in rows_k], dtype=np.intp)
        b = np.array([row[1] for rows_k in rows for row in rows_k], dtype=np.intp)
        d = np.array([row[2] for rows_k in rows for row in rows_k], dtype=np.float64)
        v = speed[a, b]
        i = None
    else:
        if isinstance(qs, np.ndarray):
            qs = checker._chain_batch(qs, world)
        config, i, j, d = qs.compute_pair_distances(max(float(margin.max()), 0.0),
                                                    pair_margin=margin)
        # Every pair reported is within its margin, so unfiltered.
        d = d - tables.padding[i, j]
        v = speed.take(tables.body_pair[i, j])
    # Each step keeps every pair at least eps apart, so the distance only
    # tends to eps at a contact: stop at 2 eps (a rigid pair too, whose
    # distance stays what it is).
    if (d <= 2.0 * eps).any():
        return None
    radius = np.full(len(at), reach)
    if len(d) == 0:
        return radius
    proven = np.full(len(d), np.inf)
    moving = v > 0.0
    proven[moving] = (d[moving] - eps) / v[moving]
    np.minimum.at(radius, config, proven)
    if i is not None:
        whole = (at[config] - proven <= 0.0) & (at[config] + proven >= 1.0)
        if whole.any():
            settled[i[whole], j[whole]] = settled[j[whole], i[whole]] = True
    return radius


class _Tables:
    """A checker's bodies, filters and padding by geometry pair (model index), for one world.

    Made again when the world, a filter or a padding changes.
    """

    def __init__(self, checker, world, key) -> None:
        self.key = key
        bodies = np.asarray(world.index_bodies, dtype=np.intp)   # -1: no body
        found = bodies >= 0
        bodies = np.where(found, bodies, 0)
        B = len(checker.body_names)
        pair = (bodies[:, None], bodies[None, :])
        #: (G, G) flat index of each geometry pair's body pair in a (B, B) table.
        self.body_pair = bodies[:, None] * B + bodies[None, :]
        self.live = ~np.asarray(checker._filtered[pair], dtype=bool) & np.outer(found, found)
        self.padding = np.asarray(checker._padding[pair], dtype=np.float64)
        #: padding + 2 eps of live pairs, -inf elsewhere.
        self.base = np.where(self.live, self.padding + 2.0 * CERTIFIED_EDGE_CLEARANCE, -np.inf)

    @classmethod
    def of(cls, checker, world) -> _Tables:
        filtered, padding = checker._filtered, checker._padding
        key = (world, filtered, padding, filtered.version, padding.version)
        tables = getattr(checker, "_certified_tables", None)
        if tables is None or any(x is not y for x, y in zip(tables.key[:3], key[:3])) \
                or tables.key[3:] != key[3:]:
            tables = checker._certified_tables = cls(checker, world, key)
        return tables


def pair_speeds(checker, q1: np.ndarray, q2: np.ndarray, link_radius: np.ndarray) -> np.ndarray:
    """Bound (B, B) on how fast each body pair can approach per unit of the edge q1 -> q2.

    An environment pair approaches at most as fast as the robot body's
    points move. A self pair's distance does not change under a motion
    of both bodies together, so joints that move both drop out: only the
    joints below their deepest common ancestor count.
    """
    chain, L = checker._chain, len(checker._chain.links)
    columns, moving, ancestors_T = chain.joint_tables
    dq = np.abs(q2 - q1).take(columns) * moving
    r = chain.motion_rates(link_radius, q1, q2) * dq
    total = r.sum(axis=1)
    shared = r @ ancestors_T
    B = len(checker.body_names)
    link_total = np.zeros(B)
    link_total[1:1 + L] = total
    speed = link_total[:, None] + link_total[None, :]
    speed[1:1 + L, 1:1 + L] -= shared + shared.T
    return np.maximum(speed, 0.0, out=speed)
