"""Support functions and support points of convex shapes, in G and posed in W.

The support function of a convex set S is ``h_S(d) = max_{s in S} d·s`` and a
support point is any maximiser ``s_S(d)``. Every convex narrowphase of
geometry_core (GJK, EPA, the Newton refinement of ``convex_solver``, the
half-space kernel) asks its shapes only these two questions, so this module
is the one place where each shape's geometry enters those algorithms.

Shapes and their support maps in the canonical frame G (d need not be unit):

* Sphere(r): ``r d/|d|``.
* Box(half extents e): ``sign(d) * e`` componentwise.
* Cylinder(r, L) along Gz: ``(r d_xy/|d_xy|, sign(d_z) L/2)``.
* Capsule(r, L) along Gz: ``(0, 0, sign(d_z) L/2) + r d/|d|``.
* Ellipsoid(a, b, c), with D = diag(a, b, c): ``D² d / |D d|``.
* Convex: the hull vertex maximising ``d·v``; Mesh: the same over its
  vertices (the support of its convex hull: exact for a half space, which
  only ever needs the extreme vertex).

Non-smooth cases: where the maximiser is not unique (a box face or edge, a
cylinder cap or its side, a capsule's side, a polytope face, or ``d = 0``)
the functions return one valid maximiser, chosen deterministically: a zero
component of d counts as positive (box, cylinder and capsule ends), a
cylinder whose d has no xy part returns the rim point on +Gx, and a zero d
returns the maximiser for +Gz. The value ``h(d)`` does not depend on that
choice.

Sphere and capsule are also described as a *core* (a point, a segment)
swelled by a *margin* radius: ``S = core ⊕ ball(r)``. GJK and EPA run on the
cores, which are polytopes, so their answers are exact (finite termination)
and the margin is added back in closed form.

Imports numpy only; never imports fcl.
"""

from __future__ import annotations

import math

import numpy as np

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

__all__ = [
    "support_point_G",
    "support_value_G",
    "support_point_W",
    "support_value_W",
    "margin_radius",
    "core_support_point_G",
    "core_support_jacobian_G",
    "is_core_support_smooth_G",
    "PosedSupport",
]


def _as_directions(d_G) -> tuple[np.ndarray, bool]:
    d = np.asarray(d_G, dtype=float)
    if d.shape == (3,):
        return d[np.newaxis, :], True
    if d.ndim != 2 or d.shape[1] != 3:
        raise ValueError(f"direction must have shape (3,) or (N, 3), got {d.shape}")
    return d, False


def _positive_sign(x: np.ndarray) -> np.ndarray:
    # A zero component is a tie: both ends maximise, and +1 is our documented choice.
    return np.where(x >= 0.0, 1.0, -1.0)


def _unit_rows(d: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(d, axis=1)
    out = np.zeros_like(d)
    ok = norm > 0.0
    out[ok] = d[ok] / norm[ok, np.newaxis]
    # d = 0: every point maximises; +Gz is the documented choice.
    out[~ok] = (0.0, 0.0, 1.0)
    return out


def _hull_vertices(shape: Shape) -> np.ndarray:
    if isinstance(shape, Convex):
        return shape.hull()[0]
    return shape.vertices()


def margin_radius(shape: Shape) -> float:
    """Return the margin radius r with ``shape = core ⊕ ball(r)``.

    Parameters
    ----------
    shape : Shape
        Any convex shape.

    Returns
    -------
    float
        The sphere's or capsule's radius in metres; 0 for every other shape.
    """
    if isinstance(shape, (Sphere, Capsule)):
        return float(shape.radius)
    return 0.0


def core_support_point_G(shape: Shape, d_G) -> np.ndarray:
    """Return support points of the shape's core (margin removed), in G.

    Parameters
    ----------
    shape : Shape
        Sphere (core: the point Go), Capsule (core: its segment on Gz), or any
        other convex shape (core: the shape itself).
    d_G : (3,) or (N, 3) float
        Directions, expressed in G; need not be unit.

    Returns
    -------
    (3,) or (N, 3) float
        Support points of the core, measured and expressed in G, one per row.

    Raises
    ------
    ValueError
        If ``d_G`` has the wrong shape, or the shape is a HalfSpace
        (unbounded: no support point) or not a known shape.
    """
    d, single = _as_directions(d_G)
    if isinstance(shape, Sphere):
        p = np.zeros_like(d)
    elif isinstance(shape, Capsule):
        p = np.zeros_like(d)
        p[:, 2] = _positive_sign(d[:, 2]) * (0.5 * shape.length)
    else:
        p = _full_support(shape, d)
    return p[0] if single else p


def _full_support(shape: Shape, d: np.ndarray) -> np.ndarray:
    if isinstance(shape, Sphere):
        return shape.radius * _unit_rows(d)
    if isinstance(shape, Box):
        return _positive_sign(d) * shape.half_extents()
    if isinstance(shape, Cylinder):
        p = np.empty_like(d)
        rho = np.hypot(d[:, 0], d[:, 1])
        ok = rho > 0.0
        p[:, 0] = np.where(ok, shape.radius * d[:, 0] / np.where(ok, rho, 1.0), shape.radius)
        p[:, 1] = np.where(ok, shape.radius * d[:, 1] / np.where(ok, rho, 1.0), 0.0)
        p[:, 2] = _positive_sign(d[:, 2]) * (0.5 * shape.length)
        return p
    if isinstance(shape, Capsule):
        p = shape.radius * _unit_rows(d)
        p[:, 2] += _positive_sign(d[:, 2]) * (0.5 * shape.length)
        return p
    if isinstance(shape, Ellipsoid):
        axes = shape.semi_axes()
        Dd = d * axes
        norm = np.linalg.norm(Dd, axis=1)
        out = np.empty_like(d)
        ok = norm > 0.0
        out[ok] = (Dd[ok] * axes) / norm[ok, np.newaxis]
        out[~ok] = (0.0, 0.0, shape.c)
        return out
    if isinstance(shape, (Convex, Mesh)):
        vertices = _hull_vertices(shape)
        return vertices[np.argmax(d @ vertices.T, axis=1)]
    if isinstance(shape, HalfSpace):
        raise ValueError("HalfSpace is unbounded: it has no support point; "
                         "use signed_distance_halfspace")
    raise ValueError(f"no support function for shape {shape!r}")


def support_point_G(shape: Shape, d_G) -> np.ndarray:
    """Return support points ``s(d) = argmax_{s in shape} d·s``, in G.

    Parameters
    ----------
    shape : Shape
        A bounded shape: Sphere, Box, Cylinder, Capsule, Ellipsoid, Convex,
        or Mesh (then the support of its vertices' convex hull).
    d_G : (3,) or (N, 3) float
        Directions, expressed in G; need not be unit.

    Returns
    -------
    (3,) or (N, 3) float
        One maximiser per direction, measured and expressed in G. Ties (box
        faces, cylinder caps, ...) resolve as the module docstring says.

    Raises
    ------
    ValueError
        If ``d_G`` has the wrong shape or the shape is a HalfSpace.
    """
    d, single = _as_directions(d_G)
    p = _full_support(shape, d)
    return p[0] if single else p


def support_value_G(shape: Shape, d_G):
    """Return the support function ``h(d) = max_{s in shape} d·s`` (metres × |d|).

    Parameters
    ----------
    shape : Shape
        As for :func:`support_point_G`.
    d_G : (3,) or (N, 3) float
        Directions expressed in G.

    Returns
    -------
    float or (N,) float

    Raises
    ------
    ValueError
        As for :func:`support_point_G`.
    """
    d, single = _as_directions(d_G)
    h = np.einsum("ij,ij->i", d, _full_support(shape, d))
    return float(h[0]) if single else h


def support_point_W(shape: Shape, X_WG: np.ndarray, d_W) -> np.ndarray:
    """Return support points of the shape posed at ``X_WG``, in W.

    Parameters
    ----------
    shape : Shape
        As for :func:`support_point_G`.
    X_WG : (4, 4) float
        Pose of the shape's frame G in W.
    d_W : (3,) or (N, 3) float
        Directions expressed in W.

    Returns
    -------
    (3,) or (N, 3) float
        Support points measured and expressed in W.
    """
    X_WG = np.asarray(X_WG, dtype=float)
    R_WG, p_WGo = X_WG[:3, :3], X_WG[:3, 3]
    d_G = np.asarray(d_W, dtype=float) @ R_WG
    return support_point_G(shape, d_G) @ R_WG.T + p_WGo


def support_value_W(shape: Shape, X_WG: np.ndarray, d_W):
    """Return the support function of the posed shape, ``max_{s} d_W·p_WS``.

    Parameters
    ----------
    shape : Shape
        As for :func:`support_point_G`.
    X_WG : (4, 4) float
        Pose of G in W.
    d_W : (3,) or (N, 3) float
        Directions expressed in W.

    Returns
    -------
    float or (N,) float
    """
    X_WG = np.asarray(X_WG, dtype=float)
    d_W = np.asarray(d_W, dtype=float)
    h_G = support_value_G(shape, d_W @ X_WG[:3, :3])
    return h_G + d_W @ X_WG[:3, 3]


def core_support_jacobian_G(shape: Shape, u_G: np.ndarray) -> np.ndarray:
    """Return ``∂s_core/∂d`` at the unit direction ``u_G``, shape (3, 3), in G.

    It is the local curvature-radius tensor of the core's boundary (the
    Hessian of its support function): zero for polytope cores (Sphere's
    point, Capsule's segment, Box, Convex), ``r (P_xy - ŵŵᵀ)/|u_xy|`` for a
    cylinder rim, and the closed-form derivative for an ellipsoid. Valid
    only where :func:`is_core_support_smooth_G` is true.
    """
    if isinstance(shape, Ellipsoid):
        D2 = shape.semi_axes() ** 2
        q = D2 * u_G
        norm = float(np.sqrt(u_G @ q))
        return np.diag(D2) / norm - np.outer(q, q) / norm**3
    if isinstance(shape, Cylinder):
        rho = float(np.hypot(u_G[0], u_G[1]))
        w = np.array([u_G[0], u_G[1], 0.0]) / rho
        J = np.diag([1.0, 1.0, 0.0]) - np.outer(w, w)
        return (shape.radius / rho) * J
    return np.zeros((3, 3))


def is_core_support_smooth_G(shape: Shape, u_G: np.ndarray, tol: float) -> bool:
    """Return whether the core's support map is single-valued and smooth near ``u_G``.

    "Near" means every direction within about ``tol`` radians. Where it is
    not (a polytope face or edge, a cylinder's cap or side line, a capsule's
    side), the support function has a kink there and Newton refinement on
    directions does not apply.
    """
    if isinstance(shape, (Sphere, Ellipsoid)):
        return True
    if isinstance(shape, Capsule):
        return abs(u_G[2]) > tol
    if isinstance(shape, Box):
        return bool(np.all(np.abs(u_G) > tol))
    if isinstance(shape, Cylinder):
        return abs(u_G[2]) > tol and np.hypot(u_G[0], u_G[1]) > tol
    if isinstance(shape, (Convex, Mesh)):
        vertices = _hull_vertices(shape)
        values = vertices @ u_G
        top = np.partition(values, -2)[-2:] if len(values) > 1 else values
        spread = float(np.max(np.linalg.norm(vertices - vertices.mean(axis=0), axis=1)))
        return bool(abs(top[1] - top[0]) > tol * max(spread, 1e-300))
    return False


class PosedSupport:
    """Core support map and margin of one convex shape posed in W.

    The solvers' inner loops call :meth:`core_point` once per iteration, so
    it works on plain 3-tuples of floats: numpy's per-call overhead on
    3-vectors (a ``np.cross`` costs ~20 µs) would dominate everything else.
    The numpy methods serve the vectorised and Newton paths.

    Parameters
    ----------
    shape : Shape
        A bounded convex shape (not HalfSpace; Mesh is treated as its hull).
    X_WG : (4, 4) float
        Pose of G in W.

    Raises
    ------
    ValueError
        If the shape is a HalfSpace.
    """

    __slots__ = ("shape", "R_WG", "p_WGo", "radius", "kind", "_vertices_W", "_axes",
                 "_p", "_params")

    def __init__(self, shape: Shape, X_WG: np.ndarray) -> None:
        if isinstance(shape, HalfSpace):
            raise ValueError("HalfSpace is unbounded: it has no support point; "
                             "use signed_distance_halfspace")
        self.shape = shape
        self.R_WG = np.ascontiguousarray(X_WG[:3, :3], dtype=float)
        self.p_WGo = np.array(X_WG[:3, 3], dtype=float)
        self.radius = margin_radius(shape)
        # Columns of R_WG: G's axes expressed in W, as tuples for the fast path.
        self._axes = tuple(tuple(self.R_WG[:, j].tolist()) for j in range(3))
        self._p = tuple(self.p_WGo.tolist())
        self._vertices_W = None
        self._params: tuple = ()
        if isinstance(shape, (Convex, Mesh)):
            self.kind = "poly"
            self._vertices_W = _hull_vertices(shape) @ self.R_WG.T + self.p_WGo
        elif isinstance(shape, Sphere):
            self.kind = "point"
        elif isinstance(shape, Capsule):
            self.kind = "segment"
            self._params = (0.5 * shape.length,)
        elif isinstance(shape, Box):
            self.kind = "box"
            self._params = tuple(shape.half_extents().tolist())
        elif isinstance(shape, Cylinder):
            self.kind = "cylinder"
            self._params = (shape.radius, 0.5 * shape.length)
        elif isinstance(shape, Ellipsoid):
            self.kind = "ellipsoid"
            self._params = (shape.a, shape.b, shape.c)
        else:
            raise ValueError(f"no support function for shape {shape!r}")

    @classmethod
    def from_vertices_W(cls, p_WV: np.ndarray) -> PosedSupport:
        """Return the support of the convex hull of points given in W, shape (N, 3).

        The points may be flat (a mesh triangle): GJK and EPA only need
        support points, and A ⊖ B stays three-dimensional when the other
        shape is solid.
        """
        self = cls.__new__(cls)
        self.shape = None
        self.R_WG = np.eye(3)
        vertices = np.array(p_WV, dtype=float).reshape(-1, 3)
        self.p_WGo = vertices.mean(axis=0)
        self.radius = 0.0
        self._axes = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        self._p = tuple(self.p_WGo.tolist())
        self._vertices_W = vertices
        self._params = ()
        self.kind = "poly"
        return self

    def bounding_radius(self) -> float:
        """Return a radius about the origin of G bounding the posed shape."""
        if self.shape is None:
            return float(np.max(np.linalg.norm(self._vertices_W - self.p_WGo, axis=1)))
        return self.shape.bounding_radius()

    @property
    def is_curved(self) -> bool:
        """Whether the core has curved boundary (cylinder, ellipsoid)."""
        return self.kind in ("cylinder", "ellipsoid")

    def core_point(self, d: tuple) -> tuple:
        """Return the core's support point in W for direction ``d`` (3-tuple, W)."""
        kind = self.kind
        px, py, pz = self._p
        if kind == "point":
            return self._p
        if kind == "poly":
            vertices = self._vertices_W
            return tuple(vertices[int(np.argmax(vertices @ d))].tolist())
        ax, ay, az = self._axes
        dx, dy, dz = d
        g0 = ax[0] * dx + ax[1] * dy + ax[2] * dz
        g1 = ay[0] * dx + ay[1] * dy + ay[2] * dz
        g2 = az[0] * dx + az[1] * dy + az[2] * dz
        if kind == "segment":
            s2 = self._params[0] if g2 >= 0.0 else -self._params[0]
            return (px + s2 * az[0], py + s2 * az[1], pz + s2 * az[2])
        if kind == "box":
            ex, ey, ez = self._params
            s0 = ex if g0 >= 0.0 else -ex
            s1 = ey if g1 >= 0.0 else -ey
            s2 = ez if g2 >= 0.0 else -ez
        elif kind == "cylinder":
            r, half = self._params
            rho = math.hypot(g0, g1)
            if rho > 0.0:
                s0, s1 = r * g0 / rho, r * g1 / rho
            else:
                s0, s1 = r, 0.0
            s2 = half if g2 >= 0.0 else -half
        else:
            a, b, c = self._params
            q0, q1, q2 = a * a * g0, b * b * g1, c * c * g2
            norm = math.sqrt(q0 * g0 + q1 * g1 + q2 * g2)
            if norm > 0.0:
                s0, s1, s2 = q0 / norm, q1 / norm, q2 / norm
            else:
                s0, s1, s2 = 0.0, 0.0, c
        return (px + s0 * ax[0] + s1 * ay[0] + s2 * az[0],
                py + s0 * ax[1] + s1 * ay[1] + s2 * az[1],
                pz + s0 * ax[2] + s1 * ay[2] + s2 * az[2])

    def kink_directions_W(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(face_normals, line_directions)`` of the support's kinks, in W.

        A face normal f (either sign) is a direction at which the support
        point is a whole flat face: box faces, cylinder caps, hull faces. A
        line direction e marks directions n ⊥ e at which it is a segment
        parallel to e: box edges, cylinder and capsule sides, hull edges.
        Solvers snap a nearly-kinked normal onto these exactly.
        """
        empty = np.zeros((0, 3))
        if self.kind == "box":
            return self.R_WG.T.copy(), self.R_WG.T.copy()
        if self.kind == "cylinder":
            return self.R_WG[:, 2:].T.copy(), self.R_WG[:, 2:].T.copy()
        if self.kind == "segment":
            return empty, self.R_WG[:, 2:].T.copy()
        if self.kind == "poly":
            if self.shape is not None and isinstance(self.shape, Convex):
                vertices_G, faces = self.shape.hull()
                vertices = vertices_G @ self.R_WG.T + self.p_WGo
            else:
                vertices = self._vertices_W
                faces = np.arange(len(vertices))[np.newaxis, :3] if len(vertices) == 3 else None
            if faces is None:
                return empty, empty
            a, b, c = (vertices[faces[:, k]] for k in range(3))
            normals = np.cross(b - a, c - a)
            normals /= np.linalg.norm(normals, axis=1, keepdims=True)
            edges = np.vstack([b - a, c - b, a - c])
            edges /= np.linalg.norm(edges, axis=1, keepdims=True)
            return normals, edges
        return empty, empty

    def core_points_W(self, d_W: np.ndarray) -> np.ndarray:
        """Return the core's support points in W for many directions ``d_W`` (N, 3)."""
        if self.kind == "poly":
            return self._vertices_W[np.argmax(d_W @ self._vertices_W.T, axis=1)]
        p_G = core_support_point_G(self.shape, d_W @ self.R_WG)
        return p_G @ self.R_WG.T + self.p_WGo

    def core_point_W(self, d_W: np.ndarray) -> np.ndarray:
        """Return the core's support point in W for one direction ``d_W`` (3,)."""
        return np.array(self.core_point(tuple(np.asarray(d_W, dtype=float).tolist())))

    def point_W(self, d_W: np.ndarray) -> np.ndarray:
        """Return the full shape's support point in W for one direction ``d_W`` (3,)."""
        p = self.core_point_W(d_W)
        if self.radius > 0.0:
            p = p + self.radius * np.asarray(d_W) / np.linalg.norm(d_W)
        return p

    def core_jacobian_W(self, u_W: np.ndarray) -> np.ndarray:
        """Return ``∂s_core/∂d`` in W at unit ``u_W`` (see core_support_jacobian_G)."""
        if not self.is_curved:
            return np.zeros((3, 3))
        J_G = core_support_jacobian_G(self.shape, u_W @ self.R_WG)
        return self.R_WG @ J_G @ self.R_WG.T

    def is_smooth(self, u_W: np.ndarray, tol: float) -> bool:
        """Return whether the core's support map is smooth near unit ``u_W``."""
        if self.kind == "point":
            return True
        if self.kind == "poly":
            values = self._vertices_W @ u_W
            if len(values) < 2:
                return True
            top = np.partition(values, -2)[-2:]
            spread = float(np.ptp(self._vertices_W, axis=0).max())
            return bool(abs(top[1] - top[0]) > tol * spread)
        return is_core_support_smooth_G(self.shape, u_W @ self.R_WG, tol)
