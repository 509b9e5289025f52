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

from geometry_core.proximity.support import PosedSupport, support_point_W, support_value_W
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import Shape

__all__ = ["ascent_gap", "certificate_gap", "search_signed_distance"]

#: Directions of the initial Fibonacci sphere: their spacing (~0.06 rad)
#: keeps the start inside the basin of the global maximum for shapes whose
#: features are no smaller than a twentieth of their size.
_SPHERE_DIRECTIONS = 4000
#: Directions per cone, the factor the cone shrinks by after a round that
#: found nothing better (and grows back by, up to its start of 0.1 rad, after
#: one that did: a walk along a ridge of g, below, must not be held to the
#: steps of a cone that shrank while it was still off the ridge), and the
#: cone at which the search stops: 1e-13 rad moves a witness on a 1 m shape
#: by 1e-13 m. The round cap only bounds the cost (each round ~30 µs).
_CONE_DIRECTIONS = 96
_CONE_SHRINK = 0.6
_CONE_STOP = 1e-13
_CONE_MAX_ROUNDS = 2000
#: Kinks (ridges, peaks) within this angle of the best direction are tried
#: every round (see _kink_candidates): the initial cone.
_KINK_WINDOW = 0.1


def _g(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
       n_W: np.ndarray) -> np.ndarray:
    return -support_value_W(shape_A, X_WA, -n_W) - support_value_W(shape_B, X_WB, n_W)


def certificate_gap(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
                    witness: PairWitness) -> float:
    """Return |g(nhat_BA_W) − distance|: zero (to round-off) for a correct answer."""
    n_W = np.asarray(witness.nhat_BA_W, dtype=float)
    return float(abs(_g(shape_A, X_WA, shape_B, X_WB, n_W[None])[0] - witness.distance))


#: Tilt angles (rad) of the ascent test's probes; see :func:`ascent_gap`.
ASCENT_ANGLES = (1e-3, 1e-6)
#: Probe directions about the normal: eight, 45° apart, in its tangent plane.
_ASCENT_DIRECTIONS = 8


def _tangent_basis(n_W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit u, v with (u, v, n) right handed, from the world axis least aligned with n."""
    axis = np.zeros(3)
    axis[int(np.argmin(np.abs(n_W)))] = 1.0
    u = np.cross(n_W, axis)
    u /= np.linalg.norm(u)
    return u, np.cross(n_W, u)


def ascent_probes(n_W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the ascent test's unit probe directions about ``n_W`` and their cos(tilt)."""
    n_W = np.asarray(n_W, dtype=float)
    n_W = n_W / np.linalg.norm(n_W)
    u, v = _tangent_basis(n_W)
    alpha = 2.0 * math.pi * np.arange(_ASCENT_DIRECTIONS) / _ASCENT_DIRECTIONS
    w = np.outer(np.cos(alpha), u) + np.outer(np.sin(alpha), v)
    probes, cosines = [], []
    for tilt in ASCENT_ANGLES:
        probes.append(math.cos(tilt) * n_W + math.sin(tilt) * w)
        cosines.append(np.full(_ASCENT_DIRECTIONS, math.cos(tilt)))
    return np.vstack(probes), np.concatenate(cosines)


def ascent_gap(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
               witness: PairWitness) -> float:
    """Return how far ``witness.nhat_BA_W`` is from maximising g: ~0 for a correct answer.

    The certificate checks ``g(n) == distance`` but g is a lower bound of φ
    everywhere, so an answer too deep (a normal that does not maximise g,
    with the distance it does give) passes it. This test probes g at unit
    directions n' tilted by an angle t from n (eight azimuths, two angles)
    and returns ``max(g(n') − cos(t) g(n))``.

    Why ``cos(t) g(n)`` and these angles. g(n') = min over c in A ⊖ B of
    n'·c (A ⊖ B = {a − b}): concave and positively homogeneous. At the true
    answer, c* = φ n* lies in A ⊖ B (the witnesses' difference), so
    ``g(n') ≤ n'·c* = φ cos t`` for every unit n', whatever the shapes'
    curvature and at kinks (box faces, cylinder rims) too: the statistic is
    ≤ 0 up to round-off at any true maximum. Comparing with g(n) alone would
    have to allow the sphere's curvature term |φ|(1 − cos t) ≈ |φ| t²/2 on
    overlaps: 5e-7 m at t = 1e-3 for a 1 m deep overlap of 1 m shapes,
    fifty times PAIR_CERTIFICATE_TOLERANCE.

    What remains at a correct answer is its normal's own error δ: near a
    smooth maximum g(n') − cos(t) g(n) ≈ K_s δ t − K t²/2 (K the summed
    curvature radii, K_s = K + φ), at most ~1e-10 m at t = 1e-3 for solver
    normals (δ ≲ 1e-7 from a 1e-13 GJK/EPA gap; ~eps after Newton or a kink
    snap) on metre-sized scenes, well inside the tolerance.

    What it catches: if n is θ from n* and g(n) = φ − e, concavity along the
    great circle towards n* gives a rise of at least about t e / θ at tilt
    t ≤ θ in that azimuth (cos 22.5° of it for the nearest probe): for
    e ≥ 0.1 mm and θ ≤ π/2, t = 1e-3 rises ≥ 6e-8 > 1e-8. Near misses
    (θ < 1e-3 rad) need a slope e/θ ≥ 0.1 m/rad, so t = 1e-6 rises ≥ 1e-7
    unless θ < 1e-6, which would need a slope of 100 m/rad (shapes that
    size). The larger tilt also steps over the round-off of g.
    """
    n_W = np.asarray(witness.nhat_BA_W, dtype=float)
    norm = float(np.linalg.norm(n_W))
    if not (0.0 < norm < math.inf):
        return math.inf
    n_W = n_W / norm
    probes, cosines = ascent_probes(n_W)
    values = _g(shape_A, X_WA, shape_B, X_WB, np.vstack([n_W[None], probes]))
    gap = float(np.max(values[1:] - cosines * values[0]))
    return math.inf if math.isnan(gap) else gap


def _fibonacci_sphere(count: int) -> np.ndarray:
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    theta = math.pi * (1.0 + 5.0 ** 0.5) * k
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(theta), r * np.sin(theta), z], axis=1)


def _kink_candidates(n_W: np.ndarray, angle: float, lines: np.ndarray, faces: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """Directions on the kinks of g near ``n_W`` (search.c kink_candidates is the twin).

    g is not smooth where a support point jumps: on the great circle n ⊥ e
    of a line direction e (a box edge, a cylinder's or capsule's side, a hull
    edge), a ridge, and at a face normal ±f (a box face, a cylinder cap, a
    hull face), a peak. At a peak random cones do well, but on a ridge only a
    wedge of width ~ (slope along it)/(slope across it) about the ridge
    improves, which narrows as the search closes in: random cones stall
    there ~1e-6 m short of the maximum. So each round also tries, for every
    line e with |n·e| ≤ _KINK_WINDOW, n snapped onto its ridge and that
    point turned about e (along the ridge) by two random angles in
    [−angle, angle], and every face normal (either sign) within
    _KINK_WINDOW of n.
    """
    c = lines @ n_W
    near = np.abs(c) <= _KINK_WINDOW
    e = lines[near]
    p = n_W - c[near, None] * e
    p /= np.linalg.norm(p, axis=1)[:, None]
    q = np.cross(e, p)
    turns = angle * rng.uniform(-1.0, 1.0, (len(e), 2))
    rotated = [np.cos(turns[:, k, None]) * p + np.sin(turns[:, k, None]) * q for k in range(2)]
    cf = faces @ n_W
    near = np.abs(cf) >= math.cos(_KINK_WINDOW)
    peaks = np.sign(cf[near])[:, None] * faces[near]
    return np.vstack([p, rotated[0], rotated[1], peaks])


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
    faces_A, lines_A = PosedSupport(shape_A, X_WA).kink_directions_W()
    faces_B, lines_B = PosedSupport(shape_B, X_WB).kink_directions_W()
    lines, faces = np.vstack([lines_A, lines_B]), np.vstack([faces_A, faces_B])
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
        candidates = np.vstack([candidates, _kink_candidates(n_W, angle, lines, faces, rng)])
        values = _g(shape_A, X_WA, shape_B, X_WB, candidates)
        k = int(np.argmax(values))
        if values[k] > g_best:
            n_W, g_best = candidates[k], float(values[k])
            angle = min(angle / _CONE_SHRINK, 0.1)
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
