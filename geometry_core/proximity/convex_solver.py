"""Signed distance between two posed convex shapes, to near machine precision.

What it computes. For convex A and B the signed distance is

    φ(A, B) = max_{|n|=1} g(n),   g(n) = min_{a∈A} n·a − max_{b∈B} n·b = −h_A(−n) − h_B(n),

with h the support functions: the separation when apart, minus the
penetration depth when overlapping. The maximiser n is ``nhat_BA_W`` (it
points from B into A); the witnesses are ``p_WCa = s_A(−n)``,
``p_WCb = s_B(n)`` and ``p_WCa − p_WCb = φ n``.

Method (``signed_distance_convex``).

1. Margins. Spheres and capsules are a core (point, segment) swelled by a
   radius r; the algorithms below run on the cores and
   ``φ(A, B) = φ(core_A, core_B) − r_A − r_B`` exactly, with the witnesses
   moved by the radii along n. Sphere and capsule pairs with boxes, convex
   hulls, spheres and capsules are thereby polytope problems.
2. Separated cores: GJK on the support maps with a signed-volume style
   closest-point sub-algorithm (Montanari et al. 2017: recurse only into
   faces whose barycentric coordinate is non-positive, keep the nearest),
   run until the certified duality gap ``|v| − v̂·s(−v)`` is below
   ``CONVEX_GJK_GAP``. For polytope cores it terminates exactly.
3. Overlapping cores: EPA from a 26-direction initial hull, expanded until
   the certified gap between the polytope's nearest face and the support
   function in its normal is below ``CONVEX_EPA_GAP``. For polytope cores
   EPA is exact.
4. Curved cores (ellipsoid, cylinder rim and side): after GJK/EPA get within
   ``CONVEX_NEWTON_START`` radians, Newton's method on the unit sphere
   maximises g with the analytic Hessian of the support functions
   (curvature-radius tensors): ``(K + φ I) δn = (I − nnᵀ) m`` with
   ``m = s_A(−n) − s_B(n)``. It converges quadratically; its answer is kept
   only if g did not decrease and the gradient vanished. Where a support
   map has a kink at the answer (a cylinder's cap or side line, a box face)
   Newton does not apply and GJK/EPA's certified answer is returned.

Accuracy (measured by ``test/proximity/test_convex_solver.py`` against exact
formulas and a converged independent reference): polytope and margin pairs
to ~1e-15 m; smooth curved pairs to ~1e-12 m after Newton; curved-kinked
pairs (cylinder cap on a box, ...) to the certified gap, ~1e-10 m or better.

Cost: tens of µs for margin/polytope pairs, ~0.1–1 ms for curved pairs
(pure Python iterations; see the timing test).

``signed_distance_halfspace`` is exact in closed form for every shape:
φ = n·(s_B(−n) − p_WHo) with n the half space's outward normal (for a Mesh,
the minimum over its vertices). Drake does not support half spaces in
signed-distance queries; geometry_core does.

Imports numpy and scipy (ConvexHull for EPA's initial hull); never fcl.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from geometry_core import tolerances as tol
from geometry_core.proximity.support import PosedSupport
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import HalfSpace, Mesh, Shape

__all__ = [
    "signed_distance_convex",
    "signed_distance_halfspace",
    "signed_distance_supports",
    "as_pose_matrix",
]


def as_pose_matrix(X, name: str = "X_WG") -> np.ndarray:
    """Return a pose as a (4, 4) float array.

    Accepts a (4, 4) array or an object with ``get_as_matrix4()`` (our
    RigidTransform) or ``GetAsMatrix4()`` (Drake's).

    Raises
    ------
    ValueError
        If the result is not (4, 4) or holds NaN or infinity.
    """
    for method in ("get_as_matrix4", "GetAsMatrix4"):
        if hasattr(X, method):
            X = getattr(X, method)()
            break
    X = np.asarray(X, dtype=float)
    if X.shape != (4, 4):
        raise ValueError(f"{name} must have shape (4, 4), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity")
    return X


# --- half spaces ----------------------------------------------------------------


def signed_distance_halfspace(X_WH, shape_B: Shape, X_WB) -> PairWitness:
    """Return the exact signed distance between a half space A and a shape B.

    Parameters
    ----------
    X_WH : (4, 4) float
        Pose of the half space's frame H in W (the half space is z <= 0 of H;
        its outward normal is +Hz).
    shape_B : Shape
        Any bounded shape. A Mesh counts by its vertices (exact: a linear
        function's minimum over a mesh is at a vertex).
    X_WB : (4, 4) float
        Pose of B in W.

    Returns
    -------
    PairWitness
        A is the half space. ``distance`` in metres (negative when B dips
        below the plane); ``p_WCb`` is B's lowest point along the normal,
        ``p_WCa`` its projection onto the plane; ``nhat_BA_W = -Hz_W``.

    Raises
    ------
    ValueError
        If B is also a HalfSpace, or a pose is not a finite (4, 4) array.
    """
    X_WH = as_pose_matrix(X_WH, "X_WH")
    X_WB = as_pose_matrix(X_WB, "X_WB")
    if isinstance(shape_B, HalfSpace):
        raise ValueError("signed distance between two half spaces is not supported")
    Hz_W = X_WH[:3, 2] / np.linalg.norm(X_WH[:3, 2])
    support = PosedSupport(shape_B, X_WB)
    p_WCb = support.point_W(-Hz_W)
    distance = float(Hz_W @ (p_WCb - X_WH[:3, 3]))
    p_WCa = p_WCb - distance * Hz_W
    return PairWitness(distance, p_WCa, p_WCb, -Hz_W, True)


# --- small-vector arithmetic on 3-tuples ----------------------------------------
# numpy's per-call overhead on 3-vectors (np.cross ~20 µs) would dominate the
# iterations, so GJK and EPA work on plain tuples of floats.


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _combine(lam, pts):
    x = y = z = 0.0
    for li, p in zip(lam, pts):
        x += li * p[0]
        y += li * p[1]
        z += li * p[2]
    return (x, y, z)


def _neg(a):
    return (-a[0], -a[1], -a[2])


# --- GJK on cores ---------------------------------------------------------------


def _closest_segment(a, b):
    ab = _sub(b, a)
    denom = _dot(ab, ab)
    t = -_dot(a, ab) / denom if denom > 0.0 else 0.0
    if t <= 0.0:
        return a, [0], [1.0]
    if t >= 1.0:
        return b, [1], [1.0]
    return (a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]), [0, 1], [1.0 - t, t]


def _closest_triangle(a, b, c):
    n = _cross(_sub(b, a), _sub(c, a))
    nn = _dot(n, n)
    if nn > 0.0:
        s = _dot(a, n) / nn
        p0 = (n[0] * s, n[1] * s, n[2] * s)
        la = _dot(_cross(_sub(b, p0), _sub(c, p0)), n) / nn
        lb = _dot(_cross(_sub(c, p0), _sub(a, p0)), n) / nn
        lc = 1.0 - la - lb
        if la > 0.0 and lb > 0.0 and lc > 0.0:
            return p0, [0, 1, 2], [la, lb, lc]
    pts = (a, b, c)
    best = None
    for i, j in ((0, 1), (1, 2), (0, 2)):
        p, idx, lam = _closest_segment(pts[i], pts[j])
        dist2 = _dot(p, p)
        if best is None or dist2 < best[0]:
            best = (dist2, p, [(i, j)[k] for k in idx], lam)
    return best[1], best[2], best[3]


def _closest_tetrahedron(pts):
    a, b, c, d = pts
    ab, ac, ad, ao = _sub(b, a), _sub(c, a), _sub(d, a), _neg(a)
    volume = _dot(ab, _cross(ac, ad))
    if volume != 0.0:
        x0 = _dot(ao, _cross(ac, ad)) / volume
        x1 = _dot(ab, _cross(ao, ad)) / volume
        x2 = _dot(ab, _cross(ac, ao)) / volume
        lam = (1.0 - x0 - x1 - x2, x0, x1, x2)
        if min(lam) > 0.0:
            return (0.0, 0.0, 0.0), [0, 1, 2, 3], list(lam)
        candidates = [k for k in range(4) if lam[k] <= 0.0]
    else:
        candidates = [0, 1, 2, 3]
    best = None
    for k in candidates:
        face = [i for i in range(4) if i != k]
        p, idx, lam_f = _closest_triangle(*(pts[i] for i in face))
        dist2 = _dot(p, p)
        if best is None or dist2 < best[0]:
            best = (dist2, p, [face[i] for i in idx], lam_f)
    return best[1], best[2], best[3]


def _closest_on_simplex(pts):
    if len(pts) == 1:
        return pts[0], [0], [1.0]
    if len(pts) == 2:
        return _closest_segment(pts[0], pts[1])
    if len(pts) == 3:
        return _closest_triangle(pts[0], pts[1], pts[2])
    return _closest_tetrahedron(pts)


class _GjkResult:
    __slots__ = ("overlap", "v", "p_A", "p_B", "iterations", "gap")

    def __init__(self, overlap, v, p_A, p_B, iterations, gap):
        self.overlap = overlap
        self.v = v
        self.p_A = p_A
        self.p_B = p_B
        self.iterations = iterations
        self.gap = gap


def _gjk(A: PosedSupport, B: PosedSupport, scale: float) -> _GjkResult:
    """GJK on the cores; v is the closest point of A ⊖ B to the origin."""
    v = _sub(A._p, B._p)
    if _dot(v, v) == 0.0:
        v = (1.0, 0.0, 0.0)
    W: list = []
    WA: list = []
    WB: list = []
    lam = [1.0]
    gap_tol = tol.CONVEX_GJK_GAP * max(scale, 1.0)
    touch = tol.CONVEX_CORE_TOUCH * max(scale, 1.0)
    gap = math.inf
    iteration = 0
    for iteration in range(1, tol.CONVEX_GJK_MAX_ITERATIONS + 1):
        a = A.core_point(_neg(v))
        b = B.core_point(v)
        w = _sub(a, b)
        vv = _dot(v, v)
        vnorm = math.sqrt(vv)
        if W:
            gap = vnorm - _dot(v, w) / vnorm
            if gap <= gap_tol or w in W:
                break
        W.append(w)
        WA.append(a)
        WB.append(b)
        p, idx, lam_new = _closest_on_simplex(W)
        pp = _dot(p, p)
        if len(idx) == 4 or pp <= touch * touch:
            return _GjkResult(True, p, None, None, iteration, 0.0)
        if len(W) > 1 and pp >= vv:
            # No progress: round-off has the last word; keep the previous v.
            W.pop()
            WA.pop()
            WB.pop()
            break
        W = [W[i] for i in idx]
        WA = [WA[i] for i in idx]
        WB = [WB[i] for i in idx]
        lam = lam_new
        v = p
    p_A = _combine(lam, WA)
    p_B = _combine(lam, WB)
    return _GjkResult(False, _sub(p_A, p_B), p_A, p_B, iteration, gap)


# --- EPA on cores ---------------------------------------------------------------


def _initial_directions(A: PosedSupport, B: PosedSupport) -> np.ndarray:
    diag = np.array([[sx, sy, sz] for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)],
                    dtype=float) / math.sqrt(3.0)
    dirs = [diag]
    for R in (np.eye(3), A.R_WG.T, B.R_WG.T):
        dirs.append(R)
        dirs.append(-R)
    return np.vstack(dirs)


class _Epa:
    """Expanding polytope on the cores' Minkowski difference M = A ⊖ B.

    Faces are kept counter-clockwise seen from outside; each iteration adds
    the support point along the nearest face's normal, deletes the faces
    that see it and closes the hole with a fan over the horizon.

    The faces live in preallocated arrays (vertex indices, unit normals,
    plane offsets, first vertex, alive flag) so that the per-iteration scans
    (nearest face, faces visible from the new point, normal ties) are a few
    numpy operations whatever the face count, instead of a Python loop over
    hundreds of faces. Each scan evaluates the same floating-point
    expressions, in the same order, as a scalar loop would.
    """

    def __init__(self, A: PosedSupport, B: PosedSupport, scale: float) -> None:
        self.A, self.B, self.scale = A, B, scale
        self.iterations = 0

    def run(self, gap_tol: float):
        """Build the initial hull and expand until the certified gap is below ``gap_tol``."""
        self.gap_tol = gap_tol
        A, B = self.A, self.B
        dirs = _initial_directions(A, B)
        pa = A.core_points_W(dirs)
        pb = B.core_points_W(-dirs)
        pm = pa - pb
        try:
            hull = ConvexHull(pm)
        except (QhullError, ValueError):
            return None  # M is flat: a degenerate overlap of cores, handled by the caller.
        if hull.volume <= 1e-12 * max(self.scale, 1e-300) ** 3:
            return None
        used = np.unique(hull.simplices)
        remap = -np.ones(len(pm), dtype=np.int64)
        remap[used] = np.arange(len(used))
        faces = remap[hull.simplices]
        P = pm[used]
        # Orient every face outward (counter-clockwise seen from outside).
        centroid = P.mean(axis=0)
        e1 = P[faces[:, 1]] - P[faces[:, 0]]
        e2 = P[faces[:, 2]] - P[faces[:, 0]]
        nrm = np.stack([e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1],
                        e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
                        e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]], axis=1)
        inward = np.einsum("ij,ij->i", nrm, P[faces[:, 0]] - centroid) < 0
        faces[inward] = faces[inward][:, ::-1]
        self.P = [tuple(x) for x in P.tolist()]
        self.PA = [tuple(x) for x in pa[used].tolist()]
        self.PB = [tuple(x) for x in pb[used].tolist()]
        capacity = 2 * len(faces) + 64
        self.fv = np.zeros((capacity, 3), dtype=np.int64)
        self.fn = np.zeros((capacity, 3))
        self.fa = np.zeros((capacity, 3))
        self.fd = np.full(capacity, np.inf)  # plane offset; inf for dead slots
        self.alive = np.zeros(capacity, dtype=bool)
        self.uses = np.zeros(len(P) + tol.CONVEX_EPA_MAX_ITERATIONS + 1, dtype=np.int64)
        self.count = 0  # slots used (alive or dead)
        self.live = 0  # alive faces
        # The initial faces, with the arithmetic of _new_face done on all rows.
        a, b, c = P[faces[:, 0]], P[faces[:, 1]], P[faces[:, 2]]
        e1, e2 = b - a, c - a
        n = np.stack([e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1],
                      e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
                      e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]], axis=1)
        norm = np.sqrt(n[:, 0] * n[:, 0] + n[:, 1] * n[:, 1] + n[:, 2] * n[:, 2])
        if np.any(norm == 0.0):
            return None
        n = n / norm[:, None]
        self._store(faces, n, a, n[:, 0] * a[:, 0] + n[:, 1] * a[:, 1] + n[:, 2] * a[:, 2])
        return self._expand()

    def _store(self, fv, fn, fa, fd) -> None:
        """Append faces (vertex indices, unit normals, first vertices, offsets)."""
        start = self.count
        end = start + len(fv)
        while end > len(self.fd):
            self._grow()
        self.fv[start:end] = fv
        self.fn[start:end] = fn
        self.fa[start:end] = fa
        self.fd[start:end] = fd
        self.alive[start:end] = True
        np.add.at(self.uses, np.asarray(fv).ravel(), 1)
        self.count = end
        self.live += len(fv)

    def _grow(self) -> None:
        extra = len(self.fd)
        self.fv = np.concatenate([self.fv, np.zeros((extra, 3), dtype=np.int64)])
        self.fn = np.concatenate([self.fn, np.zeros((extra, 3))])
        self.fa = np.concatenate([self.fa, np.zeros((extra, 3))])
        self.fd = np.concatenate([self.fd, np.full(extra, np.inf)])
        self.alive = np.concatenate([self.alive, np.zeros(extra, dtype=bool)])

    def _kill(self, slots) -> None:
        self.alive[slots] = False
        self.fd[slots] = np.inf
        np.subtract.at(self.uses, self.fv[slots].ravel(), 1)
        self.live -= len(slots)

    def _revive(self, slots, fd) -> None:
        self.alive[slots] = True
        self.fd[slots] = fd
        np.add.at(self.uses, self.fv[slots].ravel(), 1)
        self.live += len(slots)

    def _face(self, slot: int):
        return (tuple(self.fv[slot].tolist()), tuple(self.fn[slot].tolist()),
                float(self.fd[slot]))

    def resume(self, gap_tol: float):
        """Expand the same polytope further, to a tighter ``gap_tol``."""
        self.gap_tol = gap_tol
        return self._expand()

    def _expand(self):
        gap_tol = self.gap_tol
        while True:
            self.iterations += 1
            face = self._face(int(np.argmin(self.fd[:self.count])))
            f, u, dist = face
            a = self.A.core_point(u)
            b = self.B.core_point(_neg(u))
            w = _sub(a, b)
            gap = _dot(u, w) - dist
            if (gap <= gap_tol or self.iterations >= tol.CONVEX_EPA_MAX_ITERATIONS
                    or not self._add(w, a, b)):
                return self._witness(face, gap)

    def _add(self, w, a, b) -> bool:
        eps = 1e-14 * max(self.scale, 1.0)
        count = self.count
        fn, fa = self.fn[:count], self.fa[:count]
        # n·(w − a0), summed in the order of _dot.
        height = (fn[:, 0] * (w[0] - fa[:, 0]) + fn[:, 1] * (w[1] - fa[:, 1])
                  + fn[:, 2] * (w[2] - fa[:, 2]))
        visible = np.flatnonzero(self.alive[:count] & (height > eps)).tolist()
        if not visible:
            return False
        edges: dict = {}
        for f in self.fv[visible].tolist():
            for e in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
                if (e[1], e[0]) in edges:
                    del edges[(e[1], e[0])]
                else:
                    edges[e] = True
        saved_fd = self.fd[visible]
        floor = float(np.min(saved_fd)) - eps
        self._kill(visible)
        P = self.P
        index = len(P)
        # New faces (a fan over the horizon), with _dot/_cross arithmetic.
        fv, fn, fa, fd = [], [], [], []
        for i, j in edges:
            p, q = P[i], P[j]
            n = _cross(_sub(q, p), _sub(w, p))
            norm = math.sqrt(_dot(n, n))
            if norm == 0.0:
                fv = None
                break
            n = (n[0] / norm, n[1] / norm, n[2] / norm)
            fv.append((i, j, index))
            fn.append(n)
            fa.append(p)
            fd.append(_dot(n, p))
        # The polytope only grows, so no new face may come nearer the origin
        # than the faces it replaces, and it must stay a closed triangulated
        # sphere (F = 2V - 4). Round-off on slivers breaks both first.
        ok = bool(fv) and min(fd) >= floor
        if ok:
            if index >= len(self.uses):
                self.uses = np.concatenate([self.uses, np.zeros_like(self.uses)])
            self._store(fv, fn, fa, fd)
            ok = self.live == 2 * int(np.count_nonzero(self.uses[:index + 1])) - 4
            if not ok:
                self._kill(np.arange(self.count - len(fv), self.count))
        if ok:
            P.append(w)
            self.PA.append(a)
            self.PB.append(b)
        else:
            self._revive(visible, saved_fd)
        return ok

    def _witness(self, face, gap: float):
        f, u, depth = face
        a, b, c = (self.P[i] for i in f)
        p = (depth * u[0], depth * u[1], depth * u[2])
        area = _dot(_cross(_sub(b, a), _sub(c, a)), u)
        la = _dot(_cross(_sub(b, p), _sub(c, p)), u) / area
        lb = _dot(_cross(_sub(c, p), _sub(a, p)), u) / area
        lam = (la, lb, 1.0 - la - lb)
        p_A = _combine(lam, [self.PA[i] for i in f])
        p_B = _combine(lam, [self.PB[i] for i in f])
        tie = tol.CONVEX_NORMAL_TIE * max(self.scale, 1.0)
        count = self.count
        fn = self.fn[:count]
        cosine = fn[:, 0] * u[0] + fn[:, 1] * u[1] + fn[:, 2] * u[2]
        unique = not bool(np.any(self.alive[:count] & (self.fd[:count] - depth <= tie)
                                 & (cosine < 1.0 - 1e-6)))
        return np.array(_neg(u)), depth, np.array(p_A), np.array(p_B), gap, unique


def _flat_overlap(A: PosedSupport, B: PosedSupport):
    """Cores overlap and A ⊖ B is flat (point, segment or planar): depth 0.

    The penetration direction is then normal to the flat set; e.g. two
    crossing capsule axes give their common perpendicular.
    """
    dirs = _initial_directions(A, B)
    pm = A.core_points_W(dirs) - B.core_points_W(-dirs)
    centred = pm - pm.mean(axis=0)
    _, sv, Vt = np.linalg.svd(centred)
    flat_tol = 1e-9 * max(sv[0], 1e-300)
    c_W = A.p_WGo - B.p_WGo
    unique = True
    if sv[0] <= flat_tol:
        # M is a point (concentric spheres): every direction is as good.
        n = c_W / np.linalg.norm(c_W) if c_W @ c_W > 0 else np.array([0.0, 0.0, 1.0])
        unique = False
    elif sv[1] > flat_tol:
        n = Vt[2]
    else:
        # M is a segment: any perpendicular works; prefer the centre-to-centre one.
        axis = Vt[0]
        n = c_W - (c_W @ axis) * axis
        if n @ n < 1e-24:
            n = np.cross(axis, [1.0, 0.0, 0.0] if abs(axis[0]) < 0.9 else [0.0, 1.0, 0.0])
        n = n / np.linalg.norm(n)
        unique = False
    if n @ c_W < 0.0:
        n = -n
    return n, 0.0, A.core_point_W(-n), B.core_point_W(n), unique


# --- Newton refinement ----------------------------------------------------------


def _g_and_m(A: PosedSupport, B: PosedSupport, n: np.ndarray):
    a = A.core_point_W(-n)
    b = B.core_point_W(n)
    m = a - b - (A.radius + B.radius) * n
    return float(n @ m), m, a, b


def _line_constraints(A: PosedSupport, B: PosedSupport, n: np.ndarray) -> list:
    """Return the Newton variants worth trying at n: None (free) and/or a line e.

    Newton applies freely where both supports are smooth, and along the
    great circle n ⊥ e where one or both sit near a side line or edge of one
    common direction e (parallel cylinder sides, a cylinder side on a box
    edge): g is smooth along that circle. Near a face kink n is pinned
    completely, which snapping handles.
    """
    near = tol.CONVEX_KINK_SNAP
    variants = []
    if A.is_smooth(-n, tol.CONVEX_NEWTON_START) and B.is_smooth(n, tol.CONVEX_NEWTON_START):
        variants.append(None)
    constraint = None
    for support, u in ((A, -n), (B, n)):
        if support.is_smooth(u, near):
            continue
        faces, lines = support.kink_directions_W()
        if len(faces) and np.any(np.abs(faces @ u) > 1.0 - 0.5 * near * near):
            return variants
        hits = np.flatnonzero(np.abs(lines @ n) < near) if len(lines) else []
        if len(hits) != 1:
            return variants
        e = lines[hits[0]]
        if constraint is not None and abs(abs(constraint @ e) - 1.0) > 1e-12:
            return variants
        constraint = e
    if constraint is not None:
        variants.append(constraint)
    return variants


def _newton(A: PosedSupport, B: PosedSupport, n: np.ndarray, scale: float):
    """Best of Newton's maximisations of g from n (free and along a kink); None if none applies.

    Returns ``(n, g, smooth_A, smooth_B)``.
    """
    best = None
    for e in _line_constraints(A, B, n):
        result = _newton_one(A, B, n, scale, e)
        if result is not None and (best is None or result[1] > best[1]):
            best = result
    return best


def _newton_one(A: PosedSupport, B: PosedSupport, n: np.ndarray, scale: float, e):
    """Newton on the unit sphere (e None) or on the circle n ⊥ e."""
    if e is not None:
        n = n - (n @ e) * e
        n = n / np.linalg.norm(n)
    g, m, _, _ = _g_and_m(A, B, n)
    g0 = g
    grad_tol = tol.CONVEX_NEWTON_GRADIENT * max(scale, 1.0)
    eye = np.eye(3)
    for _ in range(tol.CONVEX_NEWTON_MAX_ITERATIONS):
        if e is None:
            t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
            t1 /= np.linalg.norm(t1)
            T = np.array([t1, np.cross(n, t1)]).T
        else:
            t1 = np.cross(e, n)
            T = (t1 / np.linalg.norm(t1))[:, np.newaxis]
        grad_T = T.T @ m  # tangential gradient of g
        if math.sqrt(grad_T @ grad_T) <= grad_tol:
            break
        P = eye - np.outer(n, n)
        K = A.core_jacobian_W(-n) + B.core_jacobian_W(n) + (A.radius + B.radius) * P
        H = T.T @ (K + g * eye) @ T
        if not np.all(np.isfinite(H)) or np.any(np.linalg.eigvalsh(H) <= 0.0):
            return None  # not a local maximum of g here
        n = n + T @ np.linalg.solve(H, grad_T)
        if e is not None:
            n = n - (n @ e) * e
        n = n / np.linalg.norm(n)
        g, m, _, _ = _g_and_m(A, B, n)
    else:
        return None
    if g < g0 - grad_tol:
        return None
    smooth_A = A.is_smooth(-n, tol.CONVEX_NEWTON_START)
    smooth_B = B.is_smooth(n, tol.CONVEX_NEWTON_START)
    return n, g, smooth_A, smooth_B


# --- snapping onto kinks ----------------------------------------------------------


def _snap_to_kinks(A: PosedSupport, B: PosedSupport, n: np.ndarray, distance: float,
                   p_WCa: np.ndarray, p_WCb: np.ndarray, slack: float):
    """Move n exactly onto a nearby kink of either support if that is no worse.

    Where the answer's normal sits on a kink (a box face, a cylinder cap or
    side line, parallel edges), GJK/EPA pin the distance to their certified
    gap but the normal only to about sqrt(gap / size) — the distance is
    insensitive to it to first order. Candidate normals are n snapped onto
    each nearby face normal (n = ±f) or line (n ⊥ e). Since every unit n
    gives a lower bound g(n) on the signed distance, a candidate is kept
    when g does not drop below the current answer by more than round-off.
    """
    g0, _, _, _ = _g_and_m(A, B, n)
    best = None
    near = tol.CONVEX_KINK_SNAP
    for support, sign in ((A, -1.0), (B, 1.0)):
        faces, lines = support.kink_directions_W()
        u = sign * n  # the direction in which this support is queried
        candidates = []
        if len(faces):
            cosines = faces @ u
            for k in np.flatnonzero(np.abs(cosines) > 1.0 - 0.5 * near * near):
                candidates.append(sign * np.sign(cosines[k]) * faces[k])
        if len(lines):
            along = lines @ n
            for k in np.flatnonzero(np.abs(along) < near):
                m = n - along[k] * lines[k]
                candidates.append(m / np.linalg.norm(m))
        for candidate in candidates:
            g, _, _, _ = _g_and_m(A, B, candidate)
            if best is None or g > best[0]:
                best = (g, candidate)
    if best is None or best[0] < max(g0, distance - slack):
        return None
    g, n_new = best
    # Move A's witness onto its exact supporting plane and put B's opposite it.
    h_A = -(n_new @ A.core_point_W(-n_new) - A.radius)
    p_WCa = p_WCa + (-h_A - n_new @ p_WCa) * n_new
    return n_new, g, p_WCa, p_WCa - g * n_new


# --- entry point ----------------------------------------------------------------


def signed_distance_convex(shape_A: Shape, X_WA, shape_B: Shape, X_WB) -> PairWitness:
    """Return the signed distance between two posed convex shapes, with witnesses.

    Parameters
    ----------
    shape_A, shape_B : Shape
        Sphere, Box, Cylinder, Capsule, Ellipsoid, Convex, or HalfSpace (then
        the closed-form half-space kernel answers; two half spaces are
        refused).
    X_WA, X_WB : (4, 4) float
        Poses of A's and B's frames in W (or RigidTransform-like objects).

    Returns
    -------
    PairWitness
        ``distance`` in metres, positive apart, negative overlapping;
        ``p_WCa`` on A's surface and ``p_WCb`` on B's, in W;
        ``nhat_BA_W`` unit, from B into A, with ``p_WCa - p_WCb =
        distance * nhat_BA_W``. ``is_nhat_BA_W_unique`` is False where the
        shapes touch or overlap with several equally shallow directions.

    Raises
    ------
    ValueError
        If a shape is a Mesh (not convex: use ``fcl_adapter``), both are half
        spaces, or a pose is not a finite (4, 4) array.
    """
    X_WA = as_pose_matrix(X_WA, "X_WA")
    X_WB = as_pose_matrix(X_WB, "X_WB")
    for name, shape in (("shape_A", shape_A), ("shape_B", shape_B)):
        if isinstance(shape, Mesh):
            raise ValueError(f"{name} is a Mesh, which is not convex; use "
                             "fcl_adapter.fcl_signed_distance (or a Convex)")
    if isinstance(shape_A, HalfSpace):
        return signed_distance_halfspace(X_WA, shape_B, X_WB)
    if isinstance(shape_B, HalfSpace):
        return signed_distance_halfspace(X_WB, shape_A, X_WA).swapped()
    return signed_distance_supports(PosedSupport(shape_A, X_WA), PosedSupport(shape_B, X_WB))


def signed_distance_supports(A: PosedSupport, B: PosedSupport) -> PairWitness:
    """Return the signed distance between two posed support maps.

    The engine of :func:`signed_distance_convex`, exposed for callers that
    build supports themselves (``fcl_adapter`` uses it on mesh triangles).

    Parameters
    ----------
    A, B : PosedSupport
        Posed convex sets; at least one should be solid (three-dimensional)
        for an overlap to have a penetration direction.

    Returns
    -------
    PairWitness
        As :func:`signed_distance_convex`.
    """
    scale = max(A.bounding_radius(), B.bounding_radius())
    r_sum = A.radius + B.radius
    curved = A.is_curved or B.is_curved

    tight = tol.CONVEX_EPA_GAP * max(scale, 1.0)
    gjk = _gjk(A, B, scale)
    epa = None
    if not gjk.overlap:
        v = np.array(gjk.v)
        n = v / math.sqrt(v @ v)
        p_A, p_B = np.array(gjk.p_A), np.array(gjk.p_B)
        unique = True
        core_distance = math.sqrt(v @ v)
        gap = gjk.gap if math.isfinite(gjk.gap) else 0.0
        answer = (n, core_distance, p_A, p_B, gap, unique)
    else:
        epa = _Epa(A, B, scale)
        # Curved pairs hand over to Newton early; EPA resumes if Newton declines.
        answer = epa.run(tol.CONVEX_EPA_NEWTON_HANDOFF * max(scale, 1.0) if curved else tight)
        if answer is None:
            n, depth, p_A, p_B, unique = _flat_overlap(A, B)
            answer = (n, -depth, p_A, p_B, 0.0, unique)
            epa = None
        else:
            n, depth, p_A, p_B, gap, unique = answer
            answer = (n, -depth, p_A, p_B, gap, unique)
    while True:
        n, core_distance, p_A, p_B, gap, unique = answer
        distance = core_distance - r_sum
        # GJK's |v| and EPA's -depth are upper bounds on the signed distance, off
        # by at most the certified gap; g(n) at any unit n is a lower bound. A
        # refinement is accepted when its g reaches the bracket.
        slack = max(gap, 0.0) + 1e-15 * max(scale, 1.0)
        p_WCa = p_A - A.radius * n
        p_WCb = p_B + B.radius * n
        refined = _newton(A, B, n, scale) if curved else None
        if refined is not None and refined[1] >= distance - slack:
            n, distance, smooth_A, smooth_B = refined
            # A support on a kink is ambiguous; take the witness from the smooth
            # side, or move the old one onto the new supporting plane.
            if smooth_A:
                p_WCa = A.core_point_W(-n) - A.radius * n
                p_WCb = p_WCa - distance * n
            elif smooth_B:
                p_WCb = B.core_point_W(n) + B.radius * n
                p_WCa = p_WCb + distance * n
            else:
                h_A = -(n @ A.core_point_W(-n) - A.radius)
                p_WCa = p_WCa + (-h_A - n @ p_WCa) * n
                p_WCb = p_WCa - distance * n
            break
        if epa is None or epa.gap_tol <= tight:
            break
        n_, depth, p_A, p_B, gap, unique = epa.resume(tight)
        answer = (n_, -depth, p_A, p_B, gap, unique)
    snapped = _snap_to_kinks(A, B, n, distance, p_WCa, p_WCb, slack)
    if snapped is not None:
        n, distance, p_WCa, p_WCb = snapped
    if abs(distance) <= tol.CONVEX_CORE_TOUCH * max(scale, 1.0):
        unique = False
    return PairWitness(float(distance), p_WCa, p_WCb, n, bool(unique))
