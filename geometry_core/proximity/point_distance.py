"""Exact signed distance from a point Q to one posed shape G (world frame in, G frame out).

This is the kernel behind ``compute_signed_distance_to_point`` and behind every
sphere-X pair (a sphere is its centre's distance minus its radius). It follows
Drake's ``ComputeSignedDistanceToPoint`` conventions wherever Drake documents
one, so that the query layer can return Drake's answer unchanged:

* distance is negative inside; the gradient ``grad_W`` is a unit vector,
  ``(p_WQ - p_WN) / |p_WQ - p_WN|`` outside and the opposite direction inside;
* at a sphere's centre (and on a capsule's spine, a cylinder's axis where the
  barrel is nearest) the gradient is G's x axis (radial x for capsules and
  cylinders), expressed in W;
* on a box edge or corner the gradient is the normalised mean of the incident
  faces' outward normals;
* inside a box, equidistant from several faces, the first of +x, -x, +y, -y,
  +z, -z wins;
* "on a feature" means within ``1e-14 * max(1, size)`` metres of it, Drake's
  ``DistanceToPointRelativeTolerance``.

Unlike Drake, the ellipsoid is solved exactly (Eberly's 1-D root find on the
Lagrange parameter, to round-off) instead of by GJK with a 1e-6 tolerance, and
the convex hull by exact closest points on its triangles.

A ``Mesh`` has no inside, so its signed distance is undefined: asking raises
``ValueError`` and the query layer decides how to report it.

Imports numpy only (never fcl or pydrake).
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from geometry_core.proximity.witness import PointWitness
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)
from geometry_core.tolerances import (
    DISTANCE_TO_POINT_RELATIVE_TOLERANCE,
    ELLIPSOID_ROOT_MAX_ITERATIONS,
)

__all__ = [
    "PointWitnessBatch",
    "batch_point_types",
    "closest_points_on_triangles",
    "signed_distance_to_point",
    "signed_distances_to_point_batch",
    "stack_shape_params",
]

_UNIT_X = np.array([1.0, 0.0, 0.0])
_UNIT_Z = np.array([0.0, 0.0, 1.0])


def _feature_tolerance(size: float) -> float:
    # Drake's DistanceToPointRelativeTolerance(size).
    return DISTANCE_TO_POINT_RELATIVE_TOLERANCE * max(1.0, size)


def _check_pose(X_WG: np.ndarray) -> np.ndarray:
    X_WG = np.asarray(X_WG, dtype=float)
    if X_WG.shape != (4, 4):
        raise ValueError(f"X_WG must have shape (4, 4), got {X_WG.shape}")
    return X_WG


def _check_point(p_WQ: np.ndarray) -> np.ndarray:
    p_WQ = np.asarray(p_WQ, dtype=float)
    if p_WQ.shape != (3,):
        raise ValueError(f"p_WQ must have shape (3,), got {p_WQ.shape}")
    return p_WQ


# --------------------------------------------------------------------------
# Kernels in the geometry frame G. Each returns (distance, p_GN, grad_G, unique).
# --------------------------------------------------------------------------


def _sphere_in_G(radius: float, p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    dist_GoQ = math.sqrt(p_GQ[0] * p_GQ[0] + p_GQ[1] * p_GQ[1] + p_GQ[2] * p_GQ[2])
    unique = dist_GoQ > _feature_tolerance(radius)
    grad_G = p_GQ / dist_GoQ if unique else _UNIT_X.copy()
    p_GN = radius * grad_G
    # Projecting on grad_G (not |p_GQ| - r) keeps the distance consistent with
    # the chosen gradient when Q sits at the centre, as Drake does.
    distance = float((p_GQ - p_GN) @ grad_G)
    return distance, p_GN, grad_G, bool(unique)


def _box_in_G(h: np.ndarray, p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    """Signed distance to the axis-aligned box [-h, h] (2-D or 3-D), Drake's rules."""
    tol = DISTANCE_TO_POINT_RELATIVE_TOLERANCE * np.maximum(1.0, h)
    abs_p = np.abs(p_GQ)
    sign = np.where(p_GQ < 0.0, -1.0, 1.0)  # Drake's Sign(0) == +1
    outside = abs_p > h + tol
    boundary = ~outside & (abs_p >= h - tol)
    p_GN = np.where(outside | boundary, sign * h, p_GQ)
    if outside.any():
        p_NQ = p_GQ - p_GN
        distance = float(np.sqrt(p_NQ @ p_NQ))
        return distance, p_GN, p_NQ / distance, True
    if boundary.any():
        grad_G = np.where(boundary, sign, 0.0)
        grad_G = grad_G / np.sqrt(grad_G @ grad_G)
        distance = float(grad_G @ (p_GQ - p_GN))
        return distance, p_GN, grad_G, int(boundary.sum()) == 1
    # Strictly inside: the nearest face wins; argmin keeps Drake's tie order
    # (+x, -x, +y, -y, +z, -z) because it returns the first minimum.
    depth_to_face = h - abs_p
    axis = int(np.argmin(depth_to_face))
    p_GN = p_GQ.copy()
    p_GN[axis] = sign[axis] * h[axis]
    grad_G = np.zeros_like(p_GQ)
    grad_G[axis] = sign[axis]
    distance = float(grad_G @ (p_GQ - p_GN))
    ties = int(np.count_nonzero(depth_to_face <= depth_to_face[axis] + tol[axis]))
    # On the mid-plane of the chosen axis its two opposite faces tie as well.
    mirrored = abs_p[axis] <= tol[axis]
    return distance, p_GN, grad_G, ties == 1 and not mirrored


def _cylinder_in_G(radius: float, length: float,
                   p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    # Drake maps the cylinder to the 2-D box of its cross section through Q and
    # the axis, in (r, z) coordinates; on the axis the section is G's x-z plane.
    r_Q = math.hypot(p_GQ[0], p_GQ[1])
    near_axis = r_Q < _feature_tolerance(radius)
    v_GBr = (1.0, 0.0) if near_axis else (p_GQ[0] / r_Q, p_GQ[1] / r_Q)
    h = np.array([radius, 0.5 * length])
    _, p_BN, grad_B, unique = _box_in_G(h, np.array([r_Q, p_GQ[2]]))
    p_GN = np.array([p_BN[0] * v_GBr[0], p_BN[0] * v_GBr[1], p_BN[1]])
    grad_G = np.array([grad_B[0] * v_GBr[0], grad_B[0] * v_GBr[1], grad_B[1]])
    distance = float(grad_G @ (p_GQ - p_GN))
    if near_axis and grad_B[0] != 0.0:
        # Every radial direction is equally near: the x axis is a convention.
        unique = False
    return distance, p_GN, grad_G, unique


def _capsule_in_G(radius: float, length: float,
                  p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    half_length = 0.5 * length
    z = p_GQ[2]
    if z >= half_length or z <= -half_length:
        # Beyond the spine's ends: distance to the end cap's sphere (Drake's split).
        p_GS = np.array([0.0, 0.0, half_length if z >= half_length else -half_length])
        distance, p_SN, grad_G, unique = _sphere_in_G(radius, p_GQ - p_GS)
        return distance, p_GS + p_SN, grad_G, unique
    # Beside the spine: distance to a sphere in the x-y plane through Q's height.
    p_GR = np.array([p_GQ[0], p_GQ[1], 0.0])
    distance, p_GM, grad_G, unique = _sphere_in_G(radius, p_GR)
    return distance, np.array([p_GM[0], p_GM[1], z]), grad_G, unique


def _halfspace_in_G(p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    return float(p_GQ[2]), np.array([p_GQ[0], p_GQ[1], 0.0]), _UNIT_Z.copy(), True


def _ellipsoid_in_G(semi_axes: np.ndarray,
                    p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    """Exact nearest point on an ellipsoid by a 1-D root find (Eberly).

    Reflect Q into the first octant (y = |p_GQ|). The nearest point X satisfies
    y_i - x_i = t x_i / e_i² for a Lagrange parameter t, so
    x_i = e_i² y_i / (t + e_i²), and t is the root of
    F(t) = Σ (e_i y_i / (t + e_i²))² - 1 in t > -e_k² (e_k the smallest
    semi-axis). We solve for u = t + e_k² > 0 so the smallest axis's term keeps
    full relative precision near u = 0 (points deep inside, near the medial
    disc). F is convex and decreasing; the root is bracketed by
    u_lo = max_i(e_i y_i - c_i) and u_hi = |e ∘ y| with c_i = e_i² - e_k², and
    found by Newton on (F + 1)^(-1/2), which is exactly linear when one term
    dominates, safeguarded by bisection.

    When y_k = 0 and F(u=0) <= 0 the nearest points are the two mirror points
    with u = 0 (Q on the medial disc); we return the one with x_k >= 0 and
    mark the gradient non-unique.
    """
    e = [float(semi_axes[0]), float(semi_axes[1]), float(semi_axes[2])]
    sign = [-1.0 if p_GQ[i] < 0.0 else 1.0 for i in range(3)]
    y = [abs(float(p_GQ[i])) for i in range(3)]
    k = min(range(3), key=lambda i: (e[i], i))
    c = [(e[i] - e[k]) * (e[i] + e[k]) for i in range(3)]
    ey = [e[i] * y[i] for i in range(3)]
    # Coordinates below 1e-90 of the size count as zero: the nearest point
    # depends continuously on them, and the root find would cube (u + c_i) ~
    # e_i y_i into underflow.
    negligible = 1e-90 * max(e)
    active = [i for i in range(3) if y[i] > negligible]

    def f_plus_one(u: float) -> float:
        return sum((ey[i] / (u + c[i])) ** 2 for i in active)

    unique = True
    # The root sits at u > 0 unless the smallest-axis coordinate vanishes and the
    # remaining terms are already <= 1 at u = 0 (the medial-disc case).
    pole_at_zero = any(c[i] == 0.0 for i in active)
    if pole_at_zero or (active and f_plus_one(0.0) > 1.0):
        u_lo = max(0.0, max(ey[i] - c[i] for i in active))
        u_hi = math.sqrt(sum(v * v for v in ey))
        u = u_lo
        for _ in range(ELLIPSOID_ROOT_MAX_ITERATIONS):
            q = f_plus_one(u)
            if q > 1.0:
                u_lo = u
            elif q < 1.0:
                u_hi = u
            else:
                break
            dq = sum(ey[i] ** 2 / (u + c[i]) ** 3 for i in active)  # -dq/du / 2
            u_next = u - (q ** -0.5 - 1.0) / (q ** -1.5 * dq)
            if not u_lo < u_next < u_hi:
                u_next = 0.5 * (u_lo + u_hi)
            if u_next == u or u_hi - u_lo <= 2.0 * np.finfo(float).eps * u_hi:
                break
            u = u_next
        x = [e[i] * ey[i] / (u + c[i]) if i in active else 0.0 for i in range(3)]
    else:
        x = [e[i] * ey[i] / c[i] if i in active else 0.0 for i in range(3)]
        rest = 1.0 - sum((x[i] / e[i]) ** 2 for i in active)
        x[k] = e[k] * math.sqrt(max(0.0, rest))
        unique = False
    # Within round-off of the medial disc the side of Q decides between two
    # mirror nearest points: the gradient is a coin toss there.
    tol = _feature_tolerance(max(e))
    if all(y[i] <= tol for i in range(3) if c[i] == 0.0) and sum(
            (ey[i] / c[i]) ** 2 for i in range(3) if c[i] > 0.0) <= 1.0:
        unique = False
    p_GN = np.array([sign[i] * x[i] for i in range(3)])
    normal = p_GN / np.array(e) ** 2
    grad_G = normal / np.sqrt(normal @ normal)
    p_NQ = p_GQ - p_GN
    distance = math.sqrt(float(p_NQ @ p_NQ))
    # The sign comes from the side of the tangent plane Q is on: robust where
    # comparing Σ (y/e)² with 1 is not (Q within round-off of the surface).
    if float(p_NQ @ grad_G) < 0.0:
        distance = -distance
    return distance, p_GN, grad_G, unique


# --------------------------------------------------------------------------
# Convex hulls: exact closest points on the triangulated boundary.
# --------------------------------------------------------------------------


class _HullData(NamedTuple):
    a: np.ndarray  # (T, 3) first corners, in G
    b: np.ndarray  # (T, 3)
    c: np.ndarray  # (T, 3)
    nhat_G: np.ndarray  # (T, 3) outward unit normals
    offset: np.ndarray  # (T,) plane offsets: nhat_G · p = offset on the face
    size: float  # bounding radius, for the feature tolerance


_HULL_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _hull_data(convex: Convex) -> _HullData:
    data = _HULL_CACHE.get(convex)
    if data is None:
        vertices, faces = convex.hull()
        a, b, c = (vertices[faces[:, j]] for j in range(3))
        normals = np.cross(b - a, c - a)
        nhat_G = normals / np.linalg.norm(normals, axis=1, keepdims=True)
        offset = np.einsum("ij,ij->i", nhat_G, a)
        size = float(np.max(np.linalg.norm(vertices, axis=1)))
        data = _HullData(a, b, c, nhat_G, offset, size)
        _HULL_CACHE[convex] = data
    return data


def closest_points_on_triangles(p_Q: np.ndarray, a: np.ndarray, b: np.ndarray,
                                c: np.ndarray) -> np.ndarray:
    """Return the closest point to Q on each triangle (a, b, c), vectorised.

    Ericson's Voronoi-region classification (Real-Time Collision Detection,
    5.1.5), evaluated for every triangle at once.

    Parameters
    ----------
    p_Q : (3,) or (T, 3) float
        The query point(s), any common frame.
    a, b, c : (T, 3) float
        Triangle corners in the same frame.

    Returns
    -------
    (T, 3) float
        Closest point on each triangle, same frame.
    """
    ab, ac = b - a, c - a
    ap, bp, cp = p_Q - a, p_Q - b, p_Q - c
    d1 = np.einsum("ij,ij->i", ab, ap)
    d2 = np.einsum("ij,ij->i", ac, ap)
    d3 = np.einsum("ij,ij->i", ab, bp)
    d4 = np.einsum("ij,ij->i", ac, bp)
    d5 = np.einsum("ij,ij->i", ab, cp)
    d6 = np.einsum("ij,ij->i", ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = va + vb + vc
        result = a + ab * (vb / denom)[:, None] + ac * (vc / denom)[:, None]
        # Overwrite in reverse order of Ericson's tests so the earliest test wins.
        on_bc = (va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0)
        w_bc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        result = np.where(on_bc[:, None], b + (c - b) * w_bc[:, None], result)
        on_ac = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
        result = np.where(on_ac[:, None], a + ac * (d2 / (d2 - d6))[:, None], result)
        result = np.where(((d6 >= 0) & (d5 <= d6))[:, None], c, result)
        on_ab = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
        result = np.where(on_ab[:, None], a + ab * (d1 / (d1 - d3))[:, None], result)
        result = np.where(((d3 >= 0) & (d4 <= d3))[:, None], b, result)
        result = np.where(((d1 <= 0) & (d2 <= 0))[:, None], a, result)
    return result


def _distinct_mean_normal(normals: np.ndarray) -> tuple[np.ndarray, bool]:
    """Normalised mean of the distinct directions among unit ``normals`` (K, 3)."""
    distinct: list[np.ndarray] = []
    for n in normals:
        # Coplanar triangles of one hull facet share a normal up to round-off.
        if not any(float(n @ m) > 1.0 - 1e-9 for m in distinct):
            distinct.append(n)
    mean = np.sum(distinct, axis=0)
    return mean / np.linalg.norm(mean), len(distinct) == 1


def _convex_in_G(convex: Convex, p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    hull = _hull_data(convex)
    tol = _feature_tolerance(hull.size)
    height = hull.nhat_G @ p_GQ - hull.offset  # signed height above each face plane
    top = int(np.argmax(height))
    h_max = float(height[top])
    if h_max > tol:
        # Outside: the nearest point of a convex body is on its boundary triangles.
        p_GN_all = closest_points_on_triangles(p_GQ, hull.a, hull.b, hull.c)
        p_NQ_all = p_GQ - p_GN_all
        dist2 = np.einsum("ij,ij->i", p_NQ_all, p_NQ_all)
        best = int(np.argmin(dist2))
        distance = math.sqrt(float(dist2[best]))
        return distance, p_GN_all[best], p_NQ_all[best] / distance, True
    # Inside or on the boundary: for a convex polytope the nearest boundary
    # point is Q's projection on the nearest face plane, and it lies on that
    # facet. On the boundary the gradient is the mean of the incident facets'
    # normals, like Drake's box edges and corners.
    p_GN = p_GQ - h_max * hull.nhat_G[top]
    incident = height >= h_max - tol
    if h_max >= -tol:
        grad_G, unique = _distinct_mean_normal(hull.nhat_G[incident])
    else:
        grad_G = hull.nhat_G[top].copy()
        unique = _distinct_mean_normal(hull.nhat_G[incident])[1]
    return h_max, p_GN, grad_G, unique


def _in_G(shape: Shape, p_GQ: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, bool]:
    if isinstance(shape, Sphere):
        return _sphere_in_G(shape.radius, p_GQ)
    if isinstance(shape, Box):
        return _box_in_G(shape.half_extents(), p_GQ)
    if isinstance(shape, Cylinder):
        return _cylinder_in_G(shape.radius, shape.length, p_GQ)
    if isinstance(shape, Capsule):
        return _capsule_in_G(shape.radius, shape.length, p_GQ)
    if isinstance(shape, Ellipsoid):
        return _ellipsoid_in_G(shape.semi_axes(), p_GQ)
    if isinstance(shape, HalfSpace):
        return _halfspace_in_G(p_GQ)
    if isinstance(shape, Convex):
        return _convex_in_G(shape, p_GQ)
    if isinstance(shape, Mesh):
        # A value error, not a type error: Mesh is a valid Shape whose signed
        # distance does not exist; the query layer catches this one.
        raise ValueError(  # noqa: TRY004
            f"{shape!r}: a Mesh is a surface with no inside, so the signed "
            "distance to a point is undefined (use Convex for a solid)")
    raise ValueError(f"signed distance to a point is not defined for {type(shape).__name__}")


def signed_distance_to_point(shape: Shape, X_WG: np.ndarray, p_WQ: np.ndarray) -> PointWitness:
    """Return the exact signed distance from point Q to shape G posed at X_WG.

    Parameters
    ----------
    shape : Shape
        Sphere, Box, Cylinder, Capsule, Ellipsoid, HalfSpace or Convex, in its
        canonical frame G.
    X_WG : (4, 4) float
        Pose of G in the world frame W (rotation block orthonormal; not
        re-validated here, the scene graph validates poses once).
    p_WQ : (3,) float
        Position of Q measured and expressed in W, metres.

    Returns
    -------
    PointWitness
        ``distance`` (m, negative inside), the nearest point ``p_GN`` on G's
        surface (in G), the unit gradient ``grad_W`` of the distance with
        respect to Q (in W), and ``is_grad_W_unique`` (False where the
        gradient is Drake's documented convention: sphere centre, box edge or
        corner, ties between faces, cylinder axis, an ellipsoid's medial disc).

    Raises
    ------
    ValueError
        If ``shape`` is a Mesh (no inside, so no signed distance), or if
        ``X_WG`` is not (4, 4) or ``p_WQ`` is not (3,).
    """
    X_WG = _check_pose(X_WG)
    p_WQ = _check_point(p_WQ)
    R_WG = X_WG[:3, :3]
    p_GQ = R_WG.T @ (p_WQ - X_WG[:3, 3])
    distance, p_GN, grad_G, unique = _in_G(shape, p_GQ)
    return PointWitness(distance, p_GN, R_WG @ grad_G, unique)


# --------------------------------------------------------------------------
# Batches: many geometries of one shape type, one query point, no Python loop.
# --------------------------------------------------------------------------


class PointWitnessBatch(NamedTuple):
    """Signed distances from one point Q to N geometries of one shape type.

    Attributes
    ----------
    distance : (N,) float
        Signed distances in metres, negative inside.
    p_GN : (N, 3) float
        Nearest point on each geometry's surface, in that geometry's frame.
    grad_W : (N, 3) float
        Unit gradients, expressed in W.
    is_grad_W_unique : (N,) bool
        As ``PointWitness.is_grad_W_unique``.
    """

    distance: np.ndarray
    p_GN: np.ndarray
    grad_W: np.ndarray
    is_grad_W_unique: np.ndarray

    def witness(self, i: int) -> PointWitness:
        """Return the i-th answer as a ``PointWitness``."""
        return PointWitness(float(self.distance[i]), self.p_GN[i], self.grad_W[i],
                            bool(self.is_grad_W_unique[i]))


_BATCH_TYPES = (Sphere, Box, Capsule, Cylinder, HalfSpace)


def batch_point_types() -> tuple[type, ...]:
    """Return the shape types that ``signed_distances_to_point_batch`` accepts."""
    return _BATCH_TYPES


def stack_shape_params(shapes: list[Shape]) -> tuple[type, np.ndarray]:
    """Return ``(shape_type, params)`` for ``signed_distances_to_point_batch``.

    Parameters
    ----------
    shapes : list of Shape
        Non-empty, all of one type among Sphere, Box, Capsule, Cylinder,
        HalfSpace.

    Returns
    -------
    shape_type : type
    params : (N, k) float
        Sphere: radius (k=1); Box: width, depth, height (k=3); Capsule and
        Cylinder: radius, length (k=2); HalfSpace: none (k=0).

    Raises
    ------
    ValueError
        If ``shapes`` is empty, mixes types, or holds a type with no batch kernel.
    """
    if not shapes:
        raise ValueError("shapes must not be empty")
    shape_type = type(shapes[0])
    if shape_type not in _BATCH_TYPES:
        raise ValueError(f"no batch point-distance kernel for {shape_type.__name__}")
    if any(type(s) is not shape_type for s in shapes):
        raise ValueError(f"shapes must all be {shape_type.__name__}")
    if shape_type is Sphere:
        rows = [[s.radius] for s in shapes]
    elif shape_type is Box:
        rows = [[s.width, s.depth, s.height] for s in shapes]
    elif shape_type is HalfSpace:
        rows = [[] for _ in shapes]
    else:
        rows = [[s.radius, s.length] for s in shapes]
    return shape_type, np.array(rows, dtype=float).reshape(len(shapes), -1)


def _sphere_batch(radius: np.ndarray, p_GQ: np.ndarray):
    dist_GoQ = np.linalg.norm(p_GQ, axis=1)
    unique = dist_GoQ > DISTANCE_TO_POINT_RELATIVE_TOLERANCE * np.maximum(1.0, radius)
    with np.errstate(divide="ignore", invalid="ignore"):
        grad_G = np.where(unique[:, None], p_GQ / dist_GoQ[:, None], _UNIT_X)
    p_GN = radius[:, None] * grad_G
    distance = np.einsum("ij,ij->i", p_GQ - p_GN, grad_G)
    return distance, p_GN, grad_G, unique


def _box_batch(h: np.ndarray, p_GQ: np.ndarray):
    n = len(p_GQ)
    tol = DISTANCE_TO_POINT_RELATIVE_TOLERANCE * np.maximum(1.0, h)
    abs_p = np.abs(p_GQ)
    sign = np.where(p_GQ < 0.0, -1.0, 1.0)
    outside = abs_p > h + tol
    boundary = ~outside & (abs_p >= h - tol)
    p_GC = np.where(outside | boundary, sign * h, p_GQ)
    any_out = outside.any(axis=1)
    any_bnd = boundary.any(axis=1) & ~any_out
    inside = ~(any_out | any_bnd)

    p_CQ = p_GQ - p_GC
    dist_out = np.linalg.norm(p_CQ, axis=1)
    grad_bnd = np.where(boundary, sign, 0.0)
    depth_to_face = h - abs_p
    axis = np.argmin(depth_to_face, axis=1)
    rows = np.arange(n)
    grad_in = np.zeros_like(p_GQ)
    grad_in[rows, axis] = sign[rows, axis]
    with np.errstate(divide="ignore", invalid="ignore"):
        grad_G = np.where(any_out[:, None], p_CQ / dist_out[:, None], grad_bnd)
        grad_G = np.where(any_bnd[:, None],
                          grad_G / np.linalg.norm(grad_G, axis=1, keepdims=True), grad_G)
    grad_G = np.where(inside[:, None], grad_in, grad_G)
    p_GN = p_GC.copy()
    p_GN[rows[inside], axis[inside]] = (sign * h)[rows[inside], axis[inside]]
    distance = np.where(any_out, dist_out, np.einsum("ij,ij->i", p_GQ - p_GN, grad_G))
    min_depth = depth_to_face[rows, axis]
    ties = np.count_nonzero(depth_to_face <= (min_depth + tol[rows, axis])[:, None], axis=1)
    mirrored = abs_p[rows, axis] <= tol[rows, axis]
    unique = np.where(any_out, True,
                      np.where(any_bnd, boundary.sum(axis=1) == 1, (ties == 1) & ~mirrored))
    return distance, p_GN, grad_G, unique


def _cylinder_batch(params: np.ndarray, p_GQ: np.ndarray):
    radius, length = params[:, 0], params[:, 1]
    r_Q = np.hypot(p_GQ[:, 0], p_GQ[:, 1])
    near_axis = r_Q < DISTANCE_TO_POINT_RELATIVE_TOLERANCE * np.maximum(1.0, radius)
    with np.errstate(divide="ignore", invalid="ignore"):
        v_GBr = np.where(near_axis[:, None], [1.0, 0.0], p_GQ[:, :2] / r_Q[:, None])
    h = np.stack([radius, 0.5 * length], axis=1)
    _, p_BN, grad_B, unique = _box_batch(h, np.stack([r_Q, p_GQ[:, 2]], axis=1))
    p_GN = np.concatenate([p_BN[:, :1] * v_GBr, p_BN[:, 1:]], axis=1)
    grad_G = np.concatenate([grad_B[:, :1] * v_GBr, grad_B[:, 1:]], axis=1)
    distance = np.einsum("ij,ij->i", p_GQ - p_GN, grad_G)
    unique = unique & ~(near_axis & (grad_B[:, 0] != 0.0))
    return distance, p_GN, grad_G, unique


def _capsule_batch(params: np.ndarray, p_GQ: np.ndarray):
    radius, half_length = params[:, 0], 0.5 * params[:, 1]
    z = p_GQ[:, 2]
    # Centre of the sphere that answers: an end cap's centre, or the spine
    # point at Q's height (Drake's split; see _capsule_in_G).
    z_S = np.where(z >= half_length, half_length, np.where(z <= -half_length, -half_length, z))
    p_GS = np.zeros_like(p_GQ)
    p_GS[:, 2] = z_S
    distance, p_SN, grad_G, unique = _sphere_batch(radius, p_GQ - p_GS)
    return distance, p_GS + p_SN, grad_G, unique


def _halfspace_batch(p_GQ: np.ndarray):
    p_GN = p_GQ.copy()
    p_GN[:, 2] = 0.0
    n = len(p_GQ)
    return p_GQ[:, 2].copy(), p_GN, np.tile(_UNIT_Z, (n, 1)), np.ones(n, dtype=bool)


def signed_distances_to_point_batch(shape_type: type, params: np.ndarray, X_WG: np.ndarray,
                                    p_WQ: np.ndarray) -> PointWitnessBatch:
    """Return signed distances from Q to N posed geometries of one shape type.

    Same conventions and the same numbers (to round-off) as
    ``signed_distance_to_point`` called once per geometry, with no Python loop.

    Parameters
    ----------
    shape_type : type
        Sphere, Box, Capsule, Cylinder or HalfSpace.
    params : (N, k) float
        Shape sizes in metres, as ``stack_shape_params`` returns them (Sphere:
        radius; Box: full width, depth, height; Capsule, Cylinder: radius,
        length; HalfSpace: (N, 0) or None).
    X_WG : (N, 4, 4) float
        Poses of the geometries in W.
    p_WQ : (3,) or (N, 3) float
        Query point(s) in W.

    Returns
    -------
    PointWitnessBatch

    Raises
    ------
    ValueError
        If the shape type has no batch kernel or the array shapes disagree.
    """
    X_WG = np.asarray(X_WG, dtype=float)
    if X_WG.ndim != 3 or X_WG.shape[1:] != (4, 4):
        raise ValueError(f"X_WG must have shape (N, 4, 4), got {X_WG.shape}")
    n = X_WG.shape[0]
    p_WQ = np.asarray(p_WQ, dtype=float)
    if p_WQ.shape not in ((3,), (n, 3)):
        raise ValueError(f"p_WQ must have shape (3,) or ({n}, 3), got {p_WQ.shape}")
    widths = {Sphere: 1, Box: 3, Capsule: 2, Cylinder: 2, HalfSpace: 0}
    if shape_type not in widths:
        name = getattr(shape_type, "__name__", repr(shape_type))
        raise ValueError(f"no batch point-distance kernel for {name}")
    width = widths[shape_type]
    if width == 0:
        params = np.zeros((n, 0))
    else:
        params = np.asarray(params, dtype=float)
        if params.ndim == 1 and width == 1:
            params = params[:, None]
        if params.shape != (n, width):
            raise ValueError(f"params for {shape_type.__name__} must have shape "
                             f"({n}, {width}), got {params.shape}")
    R_WG = X_WG[:, :3, :3]
    p_GQ = np.einsum("nji,nj->ni", R_WG, p_WQ - X_WG[:, :3, 3])
    if shape_type is Sphere:
        distance, p_GN, grad_G, unique = _sphere_batch(params[:, 0], p_GQ)
    elif shape_type is Box:
        distance, p_GN, grad_G, unique = _box_batch(0.5 * params, p_GQ)
    elif shape_type is Cylinder:
        distance, p_GN, grad_G, unique = _cylinder_batch(params, p_GQ)
    elif shape_type is Capsule:
        distance, p_GN, grad_G, unique = _capsule_batch(params, p_GQ)
    else:
        distance, p_GN, grad_G, unique = _halfspace_batch(p_GQ)
    grad_W = np.einsum("nij,nj->ni", R_WG, grad_G)
    return PointWitnessBatch(distance, p_GN, grad_W, np.asarray(unique, dtype=bool))
