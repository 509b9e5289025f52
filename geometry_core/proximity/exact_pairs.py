"""Exact signed distance between two posed shapes, for the pairs with a closed form.

``signed_distance_pair`` answers sphere-{sphere, box, cylinder, capsule,
ellipsoid, convex, half space}, capsule-capsule and box-box exactly (to
round-off), in either argument order, and returns ``None`` for every other
pair so the dispatcher can fall back to the general convex solver.

Conventions (checked against Drake 1.51 by ``test/proximity/test_exact_*``):

* ``distance`` is positive apart, zero touching, negative overlapping
  (``-distance`` is the penetration depth);
* ``nhat_BA_W`` is a unit vector from B into A: translating A along it
  increases the distance fastest;
* ``p_WCa - p_WCb == distance * nhat_BA_W`` in every regime. Apart, Ca and Cb
  are the closest points; overlapping, Ca is the point of A deepest inside B
  and Cb the point of B deepest inside A (Drake's PenetrationAsPointPair), so
  the same record serves both ``compute_signed_distance_*`` and
  ``compute_point_pair_penetration``;
* sphere-X follows Drake's construction exactly: the distance from B to A's
  centre minus A's radius, ``nhat_BA_W`` the point-distance gradient (so for
  concentric spheres it is B's x axis in W, as in Drake), ``Cb`` B's nearest
  point and ``Ca = centre - r nhat_BA_W``;
* where the normal is a choice (concentric spheres, crossing capsule axes,
  touching boxes, ties between SAT axes) ``is_nhat_BA_W_unique`` is False and
  the normal is still a unit vector.

Imports numpy only (never fcl or pydrake).
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.proximity.point_distance import signed_distance_to_point
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Shape,
    Sphere,
)
from geometry_core.tolerances import (
    BOX_FEATURE_FLAT_TOLERANCE,
    BOX_PARALLEL_SIN_TOLERANCE,
    BOX_SAT_EDGE_AXIS_BIAS,
    DISTANCE_TO_POINT_RELATIVE_TOLERANCE,
)

__all__ = [
    "closest_points_between_segments",
    "exact_pair_types",
    "signed_distance_pair",
]

#: Shapes whose point-distance kernel is exact, so sphere-X is exact.
_SPHERE_PARTNERS = (Sphere, Box, Cylinder, Capsule, Ellipsoid, Convex, HalfSpace)


def _feature_tolerance(size: float) -> float:
    return DISTANCE_TO_POINT_RELATIVE_TOLERANCE * max(1.0, size)


def _any_perpendicular(v_W: np.ndarray) -> np.ndarray:
    """Return a unit vector perpendicular to the unit vector ``v_W``."""
    # Crossing with the world axis least aligned with v keeps the result well
    # conditioned.
    axis = np.zeros(3)
    axis[int(np.argmin(np.abs(v_W)))] = 1.0
    perpendicular = np.cross(v_W, axis)
    return perpendicular / np.linalg.norm(perpendicular)


# --------------------------------------------------------------------------
# Segment-segment closest points (capsules; box edges).
# --------------------------------------------------------------------------


def closest_points_between_segments(p_WP1: np.ndarray, d_W1: np.ndarray, p_WP2: np.ndarray,
                                    d_W2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the closest points of segments P1 + s d1 and P2 + t d2, s, t in [0, 1].

    Vectorised over a leading axis. Parallel segments have a whole range of
    closest pairs; we return the pair at the middle of their overlap (or the
    nearest ends when they do not overlap), which makes the answer symmetric
    under exchanging the two segments.

    Parameters
    ----------
    p_WP1, d_W1, p_WP2, d_W2 : (N, 3) or (3,) float
        Start points and (non-zero) direction vectors, any common frame.

    Returns
    -------
    p_WC1, p_WC2 : (N, 3) or (3,) float
        Closest point on segment 1 and on segment 2.
    """
    single = np.ndim(p_WP1) == 1
    p1, d1, p2, d2 = (np.atleast_2d(np.asarray(v, dtype=float)) for v in
                      (p_WP1, d_W1, p_WP2, d_W2))
    r = p1 - p2
    a = np.einsum("ij,ij->i", d1, d1)
    e = np.einsum("ij,ij->i", d2, d2)
    b = np.einsum("ij,ij->i", d1, d2)
    c = np.einsum("ij,ij->i", d1, r)
    f = np.einsum("ij,ij->i", d2, r)
    # Line-line parameter from cross products, not Ericson's (b f - c e) /
    # (a e - b²): that difference cancels catastrophically for nearly parallel
    # segments (1e-10 m errors at 1e-7 rad), while |d1 x d2| keeps full
    # relative precision, so the error in s stays ~eps / sin(angle) and its
    # effect on the distance ~eps.
    n = np.cross(d1, d2)
    nn = np.einsum("ij,ij->i", n, n)
    # Below sin(angle) = 1e-12 the middle-of-overlap pair is within
    # 1e-12 * length of the closest one, and s would be all round-off.
    parallel = nn <= 1e-24 * a * e
    with np.errstate(divide="ignore", invalid="ignore"):
        s_general = np.clip(np.einsum("ij,ij->i", np.cross(-r, d2), n) / nn, 0.0, 1.0)
        # Parallel: the middle of segment 2's shadow on segment 1, clipped.
        s_ends = np.stack([-c / a, (b - c) / a], axis=1)
        lo = np.maximum(0.0, s_ends.min(axis=1))
        hi = np.minimum(1.0, s_ends.max(axis=1))
        s_parallel = np.where(lo <= hi, 0.5 * (lo + hi), np.where(hi < 0.0, 0.0, 1.0))
        s = np.where(parallel, s_parallel, s_general)
        t = (b * s + f) / e
        s = np.where(t < 0.0, np.clip(-c / a, 0.0, 1.0),
                     np.where(t > 1.0, np.clip((b - c) / a, 0.0, 1.0), s))
        t = np.clip(t, 0.0, 1.0)
    p_WC1 = p1 + s[:, None] * d1
    p_WC2 = p2 + t[:, None] * d2
    if single:
        return p_WC1[0], p_WC2[0]
    return p_WC1, p_WC2


# --------------------------------------------------------------------------
# Sphere-X: the point kernel at the sphere's centre, minus the radius.
# --------------------------------------------------------------------------


def _sphere_shape(sphere_A: Sphere, X_WA: np.ndarray, shape_B: Shape,
                  X_WB: np.ndarray) -> PairWitness:
    p_WAo = X_WA[:3, 3]
    point = signed_distance_to_point(shape_B, X_WB, p_WAo)
    nhat_BA_W = point.grad_W
    p_WCb = X_WB[:3, :3] @ point.p_GN + X_WB[:3, 3]
    p_WCa = p_WAo - sphere_A.radius * nhat_BA_W
    return PairWitness(point.distance - sphere_A.radius, p_WCa, p_WCb, nhat_BA_W,
                       point.is_grad_W_unique)


# --------------------------------------------------------------------------
# Capsule-capsule: segment-segment distance minus both radii (exact, since a
# capsule pair's Minkowski difference is a parallelogram inflated by rA + rB).
# --------------------------------------------------------------------------


def _segment_closest_floats(p1, d1, p2, d2):
    """closest_points_between_segments for one pair, on 3-tuples of floats.

    The same formulas, branch for branch, without numpy's per-call overhead
    (which is most of the cost of one capsule pair); ``test_exact_pairs_fast``
    checks it against the vectorised version to 1e-15.
    """
    r = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    a = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]
    e = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2]
    b = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]
    c = d1[0] * r[0] + d1[1] * r[1] + d1[2] * r[2]
    f = d2[0] * r[0] + d2[1] * r[1] + d2[2] * r[2]
    n = _cross3(d1, d2)
    nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2]
    if nn <= 1e-24 * a * e:
        s_lo, s_hi = -c / a, (b - c) / a
        lo = max(0.0, min(s_lo, s_hi))
        hi = min(1.0, max(s_lo, s_hi))
        s = 0.5 * (lo + hi) if lo <= hi else (0.0 if hi < 0.0 else 1.0)
    else:
        m = _cross3((-r[0], -r[1], -r[2]), d2)
        s = min(max((m[0] * n[0] + m[1] * n[1] + m[2] * n[2]) / nn, 0.0), 1.0)
    t = (b * s + f) / e
    if t < 0.0:
        s = min(max(-c / a, 0.0), 1.0)
    elif t > 1.0:
        s = min(max((b - c) / a, 0.0), 1.0)
    t = min(max(t, 0.0), 1.0)
    return ((p1[0] + s * d1[0], p1[1] + s * d1[1], p1[2] + s * d1[2]),
            (p2[0] + t * d2[0], p2[1] + t * d2[1], p2[2] + t * d2[2]))


def _cross3(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _dot3(u, v) -> float:
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _capsule_capsule(capsule_A: Capsule, X_WA: np.ndarray, capsule_B: Capsule,
                     X_WB: np.ndarray) -> PairWitness:
    # Plain floats throughout: a capsule pair is a few dozen flops, and numpy
    # calls on 3-vectors would cost ten times more than the arithmetic.
    (zax, zay, zaz, pax, pay, paz), (zbx, zby, zbz, pbx, pby, pbz) = (
        X[:3, 2:4].T.ravel().tolist() for X in (X_WA, X_WB))
    z_WA, z_WB = (zax, zay, zaz), (zbx, zby, zbz)
    p_WAo, p_WBo = (pax, pay, paz), (pbx, pby, pbz)
    L_A, L_B = float(capsule_A.length), float(capsule_B.length)
    r_A, r_B = float(capsule_A.radius), float(capsule_B.radius)
    p_WC1, p_WC2 = _segment_closest_floats(
        (pax - 0.5 * L_A * zax, pay - 0.5 * L_A * zay, paz - 0.5 * L_A * zaz),
        (L_A * zax, L_A * zay, L_A * zaz),
        (pbx - 0.5 * L_B * zbx, pby - 0.5 * L_B * zby, pbz - 0.5 * L_B * zbz),
        (L_B * zbx, L_B * zby, L_B * zbz))
    p_C2C1 = (p_WC1[0] - p_WC2[0], p_WC1[1] - p_WC2[1], p_WC1[2] - p_WC2[2])
    # Where a closest point is interior to its spine, C1 - C2 is exactly normal
    # to that spine; removing the round-off along it keeps tiny gaps (crossing
    # spines) pointing the right way. Two interior points on non-parallel
    # spines make it the common normal, i.e. the line-line distance formula.
    normal = _cross3(z_WA, z_WB)
    normal_norm = math.sqrt(_dot3(normal, normal))
    interior = [z_W for z_W, p_WC, p_WGo, length in
                ((z_WA, p_WC1, p_WAo, L_A), (z_WB, p_WC2, p_WBo, L_B))
                if abs(_dot3((p_WC[0] - p_WGo[0], p_WC[1] - p_WGo[1], p_WC[2] - p_WGo[2]),
                             z_W)) < 0.5 * length * (1.0 - 1e-12)]
    if len(interior) == 2 and normal_norm > BOX_PARALLEL_SIN_TOLERANCE:
        nhat = (normal[0] / normal_norm, normal[1] / normal_norm, normal[2] / normal_norm)
        k = _dot3(p_C2C1, nhat)
        p_C2C1 = (k * nhat[0], k * nhat[1], k * nhat[2])
    else:
        for z_W in interior:
            k = _dot3(p_C2C1, z_W)
            p_C2C1 = (p_C2C1[0] - k * z_W[0], p_C2C1[1] - k * z_W[1], p_C2C1[2] - k * z_W[2])
    spine_distance = math.sqrt(_dot3(p_C2C1, p_C2C1))
    size = max(L_A + r_A, L_B + r_B)
    unique = spine_distance > _feature_tolerance(size)
    if unique:
        nhat_BA_W = np.array(p_C2C1) / spine_distance
    else:
        # The spines meet: every direction normal to both spines separates them
        # equally fast; pick that one (or any normal to parallel spines),
        # oriented from B's centre toward A's when that says anything.
        nhat_BA_W = (np.array(normal) / normal_norm if normal_norm > BOX_PARALLEL_SIN_TOLERANCE
                     else _any_perpendicular(np.array(z_WA)))
        if float(nhat_BA_W @ (np.array(p_WAo) - np.array(p_WBo))) < 0.0:
            nhat_BA_W = -nhat_BA_W
    distance = spine_distance - r_A - r_B
    p_WCa = np.array(p_WC1) - r_A * nhat_BA_W
    p_WCb = np.array(p_WC2) + r_B * nhat_BA_W
    return PairWitness(distance, p_WCa, p_WCb, nhat_BA_W, bool(unique))


# --------------------------------------------------------------------------
# Box-box: SAT on 15 axes decides overlap and gives the exact depth; apart, the
# exact distance comes from vertex-box and edge-edge features.
# --------------------------------------------------------------------------

# Corners of the unit cube [-1, 1]³, and its 12 edges as (start corner, axis).
_CUBE_CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0)
                          for z in (-1.0, 1.0)])
_EDGE_STARTS = np.array([
    [-1.0 if k == axis else u if k == (axis + 1) % 3 else v for k in range(3)]
    for axis in range(3) for u in (-1.0, 1.0) for v in (-1.0, 1.0)])
_EDGE_AXES = np.repeat(np.arange(3), 4)


class _PosedBox:
    __slots__ = ("half", "R_WB", "p_WBo")

    def __init__(self, box: Box, X_WB: np.ndarray):
        self.half = box.half_extents()
        self.R_WB = X_WB[:3, :3]
        self.p_WBo = X_WB[:3, 3]

    def corners_W(self) -> np.ndarray:
        return (_CUBE_CORNERS * self.half) @ self.R_WB.T + self.p_WBo

    def edges_W(self) -> tuple[np.ndarray, np.ndarray]:
        starts = (_EDGE_STARTS * self.half) @ self.R_WB.T + self.p_WBo
        directions = 2.0 * self.half[_EDGE_AXES, None] * self.R_WB.T[_EDGE_AXES]
        return starts, directions

    def closest_points_W(self, p_WQ: np.ndarray) -> np.ndarray:
        """Closest points of the solid box to points Q (N, 3) outside or on it."""
        p_BQ = (p_WQ - self.p_WBo) @ self.R_WB
        return np.clip(p_BQ, -self.half, self.half) @ self.R_WB.T + self.p_WBo

    def support_feature_W(self, u_W: np.ndarray, flat: float) -> np.ndarray:
        """Vertices (1, 2 or 4, in cyclic order) of the face/edge/vertex extreme along u.

        Box axes within ``flat`` (a sine) of perpendicular to u count as spanned.
        """
        u_B = self.R_WB.T @ u_W
        free = np.abs(u_B) <= flat
        corner = np.where(u_B < 0.0, -1.0, 1.0) * self.half
        free_axes = np.flatnonzero(free)
        if len(free_axes) == 0:
            vertices_B = corner[None, :]
        elif len(free_axes) == 1:
            vertices_B = np.repeat(corner[None, :], 2, axis=0)
            vertices_B[:, free_axes[0]] = [-self.half[free_axes[0]], self.half[free_axes[0]]]
        else:
            j, k = free_axes[:2]
            vertices_B = np.repeat(corner[None, :], 4, axis=0)
            for row, (sj, sk) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
                vertices_B[row, j] = sj * self.half[j]
                vertices_B[row, k] = sk * self.half[k]
        return vertices_B @ self.R_WB.T + self.p_WBo


def _sat_axes(box_A: _PosedBox, box_B: _PosedBox) -> tuple[np.ndarray, np.ndarray]:
    """Return the unit SAT axes (K, 3) in W and whether each is an edge-edge axis."""
    faces = np.concatenate([box_A.R_WB.T, box_B.R_WB.T])
    crosses = np.cross(box_A.R_WB.T[:, None, :], box_B.R_WB.T[None, :, :]).reshape(9, 3)
    norms = np.linalg.norm(crosses, axis=1)
    # Edges (nearly) parallel give no new axis: the face axes cover that case.
    keep = norms > BOX_PARALLEL_SIN_TOLERANCE
    axes = np.concatenate([faces, crosses[keep] / norms[keep, None]])
    is_edge = np.concatenate([np.zeros(6, dtype=bool), np.ones(int(keep.sum()), dtype=bool)])
    return axes, is_edge


def _clip_to_rectangle(points_2d: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Clip a point, a segment or a convex polygon (cyclic order) to [-half, half]².

    Returns the vertices of the clipped set, (M, 2), M = 0 when it misses.
    """
    # A vertex or edge lying on the rectangle's border must count as inside.
    slack = half + 1e-12 * max(1.0, float(np.max(half)))
    if len(points_2d) == 1:
        inside = bool(np.all(np.abs(points_2d[0]) <= slack))
        return points_2d if inside else np.zeros((0, 2))
    if len(points_2d) == 2:
        # Liang-Barsky: keep the parameter range of the segment inside.
        start, delta = points_2d[0], points_2d[1] - points_2d[0]
        t_lo, t_hi = 0.0, 1.0
        for axis in (0, 1):
            if delta[axis] == 0.0:
                if abs(start[axis]) > slack[axis]:
                    return np.zeros((0, 2))
                continue
            t_a = (-slack[axis] - start[axis]) / delta[axis]
            t_b = (slack[axis] - start[axis]) / delta[axis]
            t_lo, t_hi = max(t_lo, min(t_a, t_b)), min(t_hi, max(t_a, t_b))
        if t_lo > t_hi:
            return np.zeros((0, 2))
        return np.array([start + t_lo * delta, start + t_hi * delta])
    # Sutherland-Hodgman against the four sides.
    polygon = list(points_2d)
    for axis in (0, 1):
        for side in (-1.0, 1.0):
            clipped = []
            for i, current in enumerate(polygon):
                following = polygon[(i + 1) % len(polygon)]
                inside_c = side * current[axis] <= slack[axis]
                inside_f = side * following[axis] <= slack[axis]
                if inside_c:
                    clipped.append(current)
                if inside_c != inside_f:
                    fraction = ((side * slack[axis] - current[axis])
                                / (following[axis] - current[axis]))
                    clipped.append(current + fraction * (following - current))
            polygon = clipped
            if not polygon:
                return np.zeros((0, 2))
    return np.array(polygon)


def _distinct_mean(points: np.ndarray, tolerance: float) -> np.ndarray:
    distinct: list[np.ndarray] = []
    for p in points:
        if not any(float(np.max(np.abs(p - q))) <= tolerance for q in distinct):
            distinct.append(p)
    return np.mean(distinct, axis=0)


def _face_witness(face_box: _PosedBox, nhat_out_W: np.ndarray, feature_W: np.ndarray,
                  clamp: bool) -> np.ndarray | None:
    """Return the middle of the contact patch on face_box's face.

    The face is the one with outward normal nhat_out_W; the patch is the
    projection of the other box's support feature onto it. When the
    projections miss, return None, or with ``clamp`` the feature's centre
    clamped into the face.
    """
    n_B = face_box.R_WB.T @ nhat_out_W
    axis = int(np.argmax(np.abs(n_B)))
    in_plane = [k for k in range(3) if k != axis]
    p_BF = (feature_W - face_box.p_WBo) @ face_box.R_WB
    half_2d = face_box.half[in_plane]
    patch = _clip_to_rectangle(p_BF[:, in_plane], half_2d)
    if len(patch):
        centre_2d = _distinct_mean(patch, 1e-12 * max(1.0, float(np.max(half_2d))))
    elif clamp:
        centre_2d = np.clip(p_BF[:, in_plane].mean(axis=0), -half_2d, half_2d)
    else:
        return None
    p_BC = np.empty(3)
    p_BC[axis] = math.copysign(face_box.half[axis], n_B[axis])
    p_BC[in_plane] = centre_2d
    return face_box.R_WB @ p_BC + face_box.p_WBo


def _penetration_witnesses(box_A: _PosedBox, box_B: _PosedBox, nhat_BA_W: np.ndarray,
                           axis_index: int, depth: float, flat: float,
                           clamp: bool) -> tuple[np.ndarray, np.ndarray] | None:
    feature_A = box_A.support_feature_W(-nhat_BA_W, flat)  # A's part deepest in B
    feature_B = box_B.support_feature_W(nhat_BA_W, flat)  # B's part deepest in A
    if axis_index < 3 or len(feature_A) == 4:
        p_WCa = _face_witness(box_A, -nhat_BA_W, feature_B, clamp)
        return None if p_WCa is None else (p_WCa, p_WCa + depth * nhat_BA_W)
    if axis_index < 6 or len(feature_B) == 4:
        p_WCb = _face_witness(box_B, nhat_BA_W, feature_A, clamp)
        return None if p_WCb is None else (p_WCb - depth * nhat_BA_W, p_WCb)
    if len(feature_A) == 2 and len(feature_B) == 2:
        return closest_points_between_segments(
            feature_A[0], feature_A[1] - feature_A[0], feature_B[0], feature_B[1] - feature_B[0])
    if len(feature_A) == 1:
        return feature_A[0], feature_A[0] + depth * nhat_BA_W
    return feature_B[0] - depth * nhat_BA_W, feature_B[0]


def _box_box_penetration(box_A: _PosedBox, box_B: _PosedBox, axis_W: np.ndarray,
                         axis_index: int, depth: float, unique: bool) -> PairWitness:
    p_BoAo_W = box_A.p_WBo - box_B.p_WBo
    nhat_BA_W = axis_W if float(axis_W @ p_BoAo_W) >= 0.0 else -axis_W
    # At the optimal axis the two support features' projections overlap. A box
    # tilted by a hair (1e-12 .. 1e-9) offers a vertex where the contact needs
    # its edge or face; the looser flatness then finds the patch, costing at
    # most that tilt times the size in how far the witness is off the surface.
    witnesses = (_penetration_witnesses(box_A, box_B, nhat_BA_W, axis_index, depth,
                                        BOX_FEATURE_FLAT_TOLERANCE, clamp=False)
                 or _penetration_witnesses(box_A, box_B, nhat_BA_W, axis_index, depth,
                                           BOX_PARALLEL_SIN_TOLERANCE, clamp=True))
    p_WCa, p_WCb = witnesses
    return PairWitness(-depth, p_WCa, p_WCb, nhat_BA_W, unique)


def _box_box_separated(box_A: _PosedBox, box_B: _PosedBox, axis_W: np.ndarray,
                       tolerance: float) -> PairWitness:
    # The closest pair of two disjoint convex polytopes has a vertex of one on
    # the other, or lies on two edges: vertex-box and edge-edge cover it.
    corners_A, corners_B = box_A.corners_W(), box_B.corners_W()
    on_B = box_B.closest_points_W(corners_A)
    on_A = box_A.closest_points_W(corners_B)
    starts_A, directions_A = box_A.edges_W()
    starts_B, directions_B = box_B.edges_W()
    edge_A, edge_B = closest_points_between_segments(
        np.repeat(starts_A, 12, axis=0), np.repeat(directions_A, 12, axis=0),
        np.tile(starts_B, (12, 1)), np.tile(directions_B, (12, 1)))
    candidates_A = np.concatenate([corners_A, on_A, edge_A])
    candidates_B = np.concatenate([on_B, corners_B, edge_B])
    gaps = candidates_A - candidates_B
    gap2 = np.einsum("ij,ij->i", gaps, gaps)
    best = int(np.argmin(gap2))
    distance = math.sqrt(float(gap2[best]))
    p_WCa, p_WCb = candidates_A[best], candidates_B[best]
    if distance > tolerance:
        return PairWitness(distance, p_WCa, p_WCb, gaps[best] / distance, True)
    # Touching within round-off: the direction of a 1e-16 gap is noise; the
    # separating axis is a valid normal.
    p_BoAo_W = box_A.p_WBo - box_B.p_WBo
    nhat_BA_W = axis_W if float(axis_W @ p_BoAo_W) >= 0.0 else -axis_W
    return PairWitness(distance, p_WCa, p_WCb, nhat_BA_W, False)


def _box_box(shape_A: Box, X_WA: np.ndarray, shape_B: Box, X_WB: np.ndarray) -> PairWitness:
    box_A, box_B = _PosedBox(shape_A, X_WA), _PosedBox(shape_B, X_WB)
    axes_W, is_edge = _sat_axes(box_A, box_B)
    radius_A = np.abs(axes_W @ box_A.R_WB) @ box_A.half
    radius_B = np.abs(axes_W @ box_B.R_WB) @ box_B.half
    centre_gap = np.abs(axes_W @ (box_A.p_WBo - box_B.p_WBo))
    separation = centre_gap - radius_A - radius_B  # > 0: the axis separates the boxes
    size = float(max(np.max(box_A.half), np.max(box_B.half)))
    tolerance = _feature_tolerance(size)
    # Face axes win near ties: the same contact found on a cross-product axis
    # would come from round-off in the cross product.
    score = separation - np.where(is_edge, BOX_SAT_EDGE_AXIS_BIAS * max(1.0, size), 0.0)
    best = int(np.argmax(score))
    if separation[best] > tolerance:
        return _box_box_separated(box_A, box_B, axes_W[best], tolerance)
    depth = max(0.0, -float(separation[best]))
    # A tie with a different axis (not the same direction found twice) or a
    # centre gap of zero along the axis leaves the normal a choice.
    others = np.abs(axes_W @ axes_W[best]) < 1.0 - 1e-12
    ties = others & (separation >= separation[best] - tolerance)
    unique = not ties.any() and centre_gap[best] > tolerance
    return _box_box_penetration(box_A, box_B, axes_W[best], best, depth, bool(unique))


# --------------------------------------------------------------------------
# Dispatch.
# --------------------------------------------------------------------------


def exact_pair_types(shape_A: Shape, shape_B: Shape) -> bool:
    """Return True when ``signed_distance_pair`` has an exact answer for this pair."""
    if isinstance(shape_A, Sphere) and isinstance(shape_B, _SPHERE_PARTNERS):
        return True
    if isinstance(shape_B, Sphere) and isinstance(shape_A, _SPHERE_PARTNERS):
        return True
    return (isinstance(shape_A, Capsule) and isinstance(shape_B, Capsule)) or (
        isinstance(shape_A, Box) and isinstance(shape_B, Box))


def signed_distance_pair(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                         X_WB: np.ndarray) -> PairWitness | None:
    """Return the exact signed distance between posed shapes A and B, or None.

    Parameters
    ----------
    shape_A, shape_B : Shape
        The shapes, each in its canonical frame.
    X_WA, X_WB : (4, 4) float
        Poses of A and B in W (rotation blocks orthonormal; not re-validated).

    Returns
    -------
    PairWitness or None
        Distance (m) and witnesses in W with the conventions of the module
        docstring, for sphere-{sphere, box, cylinder, capsule, ellipsoid,
        convex, half space} (either order), capsule-capsule and box-box;
        None for every other pair (the caller uses the general solver).

    Raises
    ------
    ValueError
        If a pose is not (4, 4).
    """
    X_WA = np.asarray(X_WA, dtype=float)
    X_WB = np.asarray(X_WB, dtype=float)
    if X_WA.shape != (4, 4) or X_WB.shape != (4, 4):
        raise ValueError(f"X_WA and X_WB must have shape (4, 4), got {X_WA.shape} "
                         f"and {X_WB.shape}")
    if isinstance(shape_A, Sphere) and isinstance(shape_B, _SPHERE_PARTNERS):
        return _sphere_shape(shape_A, X_WA, shape_B, X_WB)
    if isinstance(shape_B, Sphere) and isinstance(shape_A, _SPHERE_PARTNERS):
        return _sphere_shape(shape_B, X_WB, shape_A, X_WA).swapped()
    if isinstance(shape_A, Capsule) and isinstance(shape_B, Capsule):
        return _capsule_capsule(shape_A, X_WA, shape_B, X_WB)
    if isinstance(shape_A, Box) and isinstance(shape_B, Box):
        return _box_box(shape_A, X_WA, shape_B, X_WB)
    return None
