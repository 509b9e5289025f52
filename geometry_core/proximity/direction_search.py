"""A certificate for iterative pair answers, and a slow search that never fails.

For convex A and B the signed distance is φ = max over unit n of
g(n) = −h_A(−n) − h_B(n) (support functions h). Any answer
``(distance, nhat_BA_W)`` must satisfy ``g(nhat_BA_W) == distance``: g(n) is
a lower bound of φ for every n, and equals it at the maximiser. That check
costs two support evaluations, so the dispatcher applies it to every answer
of the iterative solver.

When it fails (a rare numerical breakdown of GJK/EPA), ``search_signed_distance``
finds φ by brute force: g on a dense Fibonacci sphere of directions, then
repeated sampling in shrinking cones around the best direction. It is
derivative free, so kinks (box faces, cylinder rims) do not trouble it, and
it is vectorised over directions; it costs a few milliseconds.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.proximity.support import support_point_W, support_value_W
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import Shape

__all__ = ["certificate_gap", "search_signed_distance"]

#: Directions of the initial Fibonacci sphere: their spacing (~0.06 rad)
#: keeps the start inside the basin of the global maximum for shapes whose
#: features are no smaller than a twentieth of their size.
_SPHERE_DIRECTIONS = 4000
#: Directions per cone, the factor the cone shrinks by after a round that
#: found nothing better, and the cone at which the search stops: 1e-13 rad
#: moves a witness on a 1 m shape by 1e-13 m. The round cap only bounds the
#: cost (each round ~30 µs).
_CONE_DIRECTIONS = 96
_CONE_SHRINK = 0.6
_CONE_STOP = 1e-13
_CONE_MAX_ROUNDS = 2000


def _g(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
       n_W: np.ndarray) -> np.ndarray:
    return -support_value_W(shape_A, X_WA, -n_W) - support_value_W(shape_B, X_WB, n_W)


def certificate_gap(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
                    witness: PairWitness) -> float:
    """Return |g(nhat_BA_W) − distance|: zero (to round-off) for a correct answer."""
    n_W = np.asarray(witness.nhat_BA_W, dtype=float)
    return float(abs(_g(shape_A, X_WA, shape_B, X_WB, n_W[None])[0] - witness.distance))


def _fibonacci_sphere(count: int) -> np.ndarray:
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    theta = math.pi * (1.0 + 5.0 ** 0.5) * k
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(theta), r * np.sin(theta), z], axis=1)


def search_signed_distance(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                           X_WB: np.ndarray, seed: np.ndarray | None = None) -> PairWitness:
    """Return the signed distance of two convex shapes by direction search.

    Parameters
    ----------
    seed : (3,) float, optional
        A direction to try first (for example a failed solver's normal).

    Returns
    -------
    PairWitness
        Witnesses are the support points ``s_A(−n)`` and ``s_B(n)``, moved
        toward each other across n (by the round-off-sized part of their
        difference that is not along n) so that ``p_WCa − p_WCb = φ n``.
    """
    directions = _fibonacci_sphere(_SPHERE_DIRECTIONS)
    if seed is not None and np.linalg.norm(seed) > 0.0:
        directions = np.vstack([np.asarray(seed, dtype=float) / np.linalg.norm(seed),
                                directions])
    values = _g(shape_A, X_WA, shape_B, X_WB, directions)
    best = int(np.argmax(values))
    n_W, g_best = directions[best], float(values[best])
    rng = np.random.default_rng(0)
    angle = 0.1
    for _ in range(_CONE_MAX_ROUNDS):
        if angle < _CONE_STOP:
            break
        # Random directions in a cone of half-angle `angle` about n_W.
        offsets = rng.normal(size=(_CONE_DIRECTIONS, 3))
        offsets -= np.outer(offsets @ n_W, n_W)
        offsets *= (angle * rng.uniform(0.0, 1.0, _CONE_DIRECTIONS)
                    / np.maximum(np.linalg.norm(offsets, axis=1), 1e-300))[:, None]
        candidates = n_W + offsets
        candidates /= np.linalg.norm(candidates, axis=1)[:, None]
        values = _g(shape_A, X_WA, shape_B, X_WB, candidates)
        k = int(np.argmax(values))
        if values[k] > g_best:
            n_W, g_best = candidates[k], float(values[k])
        else:
            angle *= _CONE_SHRINK
    p_WCa = np.asarray(support_point_W(shape_A, X_WA, -n_W), dtype=float)
    p_WCb = np.asarray(support_point_W(shape_B, X_WB, n_W), dtype=float)
    # Where a support set is a line or face (a cylinder's side, a box face) the
    # chosen support points may differ across the normal as well; at the
    # optimum some pair differs only along it. Split the across part between
    # the two so that p_WCa - p_WCb = distance * n holds, as every kernel's does.
    across = (p_WCa - p_WCb) - g_best * n_W
    return PairWitness(g_best, p_WCa - 0.5 * across, p_WCb + 0.5 * across, n_W, True)
