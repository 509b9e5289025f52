"""The certified edge check: conservative advancement along a straight edge in q.

At a configuration on the edge, each unfiltered pair's padded distance and a
bound on how fast its two bodies can approach per unit of edge
(:func:`pair_speeds`, from ``KinematicChain.motion_rates``) prove a stretch
of the edge ahead free; :func:`certified_edge_free` advances by the
smallest such stretch until the edge ends (free) or a pair comes too close
(not proven). It reads a checker's tables and asks its queries for the
pairs within reach; the checker calls it for ``certified=True``.

Never fcl, lcm or ROS.
"""

from __future__ import annotations

import numpy as np

from geometry_core.tolerances import CERTIFIED_EDGE_CLEARANCE, CERTIFIED_EDGE_MAX_STEPS

__all__ = ["certified_edge_free", "pair_speeds"]


def certified_edge_free(checker, q1: np.ndarray, q2: np.ndarray) -> bool:
    """Whether the edge ``q1 -> q2`` is proven collision-free by conservative advancement.

    ``CollisionChecker.check_edge_collision_free(q1, q2, certified=True)``
    of validated positions: it documents the steps and when they stop.
    """
    world = checker._world
    speed = pair_speeds(checker, q1, q2, world.link_radius)
    fastest_pair = float(speed.max())
    eps = CERTIFIED_EDGE_CLEARANCE
    dq = q2 - q1
    s = 0.0
    for _ in range(CERTIFIED_EDGE_MAX_STEPS):
        q = (q1 + s * dq)[None]
        # Pairs farther apart than their padding plus what the bodies can
        # sweep in the rest of the edge cannot meet: the query skips them.
        horizon = max(checker._max_padding(), 0.0) + (1.0 - s) * fastest_pair
        (rows,), _, _ = checker._pairs_in(q, horizon, world)
        step = 1.0 - s
        for a, b, distance, _ in rows:
            # Each step keeps every pair at least eps apart, so the
            # distance only tends to eps at a contact: stop at 2 eps.
            if distance <= 2.0 * eps:
                return False
            if speed[a, b] > 0.0:
                step = min(step, (distance - eps) / speed[a, b])
        if s + step >= 1.0:
            return True
        s += step
    return False


def pair_speeds(checker, q1: np.ndarray, q2: np.ndarray, link_radius: np.ndarray) -> np.ndarray:
    """Bound (B, B) on how fast each body pair can approach per unit of the edge q1 -> q2.

    An environment pair approaches at most as fast as the robot body's
    points move. A self pair's distance does not change under a motion
    of both bodies together, so joints that move both drop out: only the
    joints below their deepest common ancestor count.
    """
    chain, L = checker._chain, len(checker._chain.links)
    dq = np.zeros(L)
    moving = chain.column >= 0
    dq[moving] = np.abs(q2 - q1)[chain.column[moving]]
    r = chain.motion_rates(link_radius, q1, q2) * dq[None, :]
    total = r.sum(axis=1)
    shared = r @ chain.ancestor_mask().T.astype(float)
    robot = np.zeros((L, L))
    robot[:] = total[:, None] + total[None, :] - shared - shared.T
    B = len(checker.body_names)
    speed = np.zeros((B, B))
    link_total = np.zeros(B)
    link_total[1:1 + L] = total
    speed[:] = link_total[:, None] + link_total[None, :]
    speed[1:1 + L, 1:1 + L] = robot
    return np.maximum(speed, 0.0)
