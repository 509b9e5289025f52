"""Signed distance of two polytopes in exact rational arithmetic, as a test reference.

A box or a hull posed by ``X`` is the image of its vertices under the affine
map ``X`` (the pose's doubles taken exactly, as :class:`fractions.Fraction`).
Overlapping or touching, the signed distance is the largest
``g(c) / |c|`` over the facet normals ``c`` of the Minkowski difference,
``g(c) = min_A c·a - max_B c·b``; every facet normal is a face normal of
either shape or the cross product of an edge of each, so the maximum over
all of those (no pruning) is exact. ``g(c)² / |c|²`` is rational, so the
candidates are compared exactly and only the winner is rounded. Apart, the
distance is the least over vertex-triangle and edge-edge pairs, computed in
floats (numpy) from each pair's closed form.

Shares no code with ``csrc/``: written from the definitions, imports numpy,
fractions and the shapes only.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from geometry_core.shapes import Box, Convex

_CUBE = np.array(list(itertools.product((-1, 1), repeat=3)), dtype=float)


def polytope_W(shape, X_WG: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(vertices in G, triangles)`` of a box or a hull (triangles outward wound)."""
    if isinstance(shape, Box):
        half = 0.5 * np.array([shape.width, shape.depth, shape.height])
        p_GV = _CUBE * half
        faces = []
        for axis in range(3):
            for sign in (-1, 1):
                on = [i for i in range(8) if _CUBE[i, axis] == sign]
                u, v = (axis + 1) % 3, (axis + 2) % 3
                # Order the face's corners around its normal.
                ring = sorted(on, key=lambda i: math.atan2(_CUBE[i, v], _CUBE[i, u]))
                if sign < 0:
                    ring = ring[::-1]
                faces += [(ring[0], ring[1], ring[2]), (ring[0], ring[2], ring[3])]
        return p_GV, np.array(faces)
    if isinstance(shape, Convex):
        p_GV, faces = shape.hull()
        return np.asarray(p_GV, float), np.asarray(faces)
    raise TypeError(f"not a polytope: {type(shape).__name__}")


def _exact_points(X: np.ndarray, p_G: np.ndarray) -> list[tuple[Fraction, ...]]:
    R = [[Fraction(float(X[i, j])) for j in range(3)] for i in range(3)]
    p = [Fraction(float(X[i, 3])) for i in range(3)]
    out = []
    for q in p_G:
        qf = [Fraction(float(x)) for x in q]
        out.append(tuple(sum((R[i][j] * qf[j] for j in range(3)), p[i]) for i in range(3)))
    return out


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _edges(triangles: np.ndarray) -> set[tuple[int, int]]:
    out = set()
    for t in triangles:
        for k in range(3):
            a, b = int(t[k]), int(t[(k + 1) % 3])
            out.add((min(a, b), max(a, b)))
    return out


def exact_penetration(shape_A, X_WA, shape_B, X_WB) -> tuple[float, np.ndarray]:
    """``(g, nhat_BA_W)``: the largest g over all facet candidates, exactly compared.

    Equals the signed distance when the shapes overlap or touch (``g <= 0``);
    apart it is only a lower bound (use :func:`separated_distance`).
    """
    pa_G, ta = polytope_W(shape_A, X_WA)
    pb_G, tb = polytope_W(shape_B, X_WB)
    A = _exact_points(np.asarray(X_WA, float), pa_G)
    B = _exact_points(np.asarray(X_WB, float), pb_G)
    # Every coordinate is dyadic: scaled by their common denominator they
    # are integers, and the comparisons below stay exact and fast.
    D = max(x.denominator for P in (A, B) for v in P for x in v)
    A = [tuple(int(x * D) for x in v) for v in A]
    B = [tuple(int(x * D) for x in v) for v in B]
    candidates = []
    for P, tris, sign in ((A, ta, -1), (B, tb, 1)):
        for t in tris:
            c = _cross(_sub(P[t[1]], P[t[0]]), _sub(P[t[2]], P[t[0]]))
            candidates.append(tuple(sign * x for x in c))
    dirs_A = [_sub(A[j], A[i]) for i, j in _edges(ta)]
    dirs_B = [_sub(B[j], B[i]) for i, j in _edges(tb)]
    for ea in dirs_A:
        for eb in dirs_B:
            c = _cross(ea, eb)
            candidates += [c, tuple(-x for x in c)]
    best_key, best_c = None, None
    for c in candidates:
        cc = _dot(c, c)
        if cc == 0:
            continue
        g = min(_dot(c, a) for a in A) - max(_dot(c, b) for b in B)
        key = (1 if g > 0 else -1) * Fraction(g * g, cc)  # sign(g) g² / |c|², monotone in g / |c|
        if best_key is None or key > best_key:
            best_key, best_c = key, c
    value = math.copysign(math.sqrt(float(abs(best_key))), float(best_key)) / D
    n = np.array([float(x) for x in best_c])
    return value, n / np.linalg.norm(n)


def _closest_on_segment(p, a, b):
    d = b - a
    t = np.clip(np.dot(p - a, d) / np.dot(d, d), 0.0, 1.0) if np.dot(d, d) > 0 else 0.0
    return a + t * d


def _closest_on_triangle(p, a, b, c):
    n = np.cross(b - a, c - a)
    q = p - np.dot(p - a, n) / np.dot(n, n) * n
    # Inside when q is on the inner side of every edge.
    inside = all(np.dot(np.cross(e1 - e0, q - e0), n) >= 0
                 for e0, e1 in ((a, b), (b, c), (c, a)))
    if inside:
        return q
    options = [_closest_on_segment(p, e0, e1) for e0, e1 in ((a, b), (b, c), (c, a))]
    return min(options, key=lambda x: np.linalg.norm(p - x))


def _segment_segment(p1, q1, p2, q2):
    """Closest points of two segments: the interior critical point or an end's projection."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    pairs = [(p1, _closest_on_segment(p1, p2, q2)), (q1, _closest_on_segment(q1, p2, q2)),
             (_closest_on_segment(p2, p1, q1), p2), (_closest_on_segment(q2, p1, q1), q2)]
    a, e, b = np.dot(d1, d1), np.dot(d2, d2), np.dot(d1, d2)
    denom = a * e - b * b
    if denom > 1e-300:
        c, f = np.dot(d1, r), np.dot(d2, r)
        s, t = (b * f - c * e) / denom, (a * f - b * c) / denom
        if 0.0 <= s <= 1.0 and 0.0 <= t <= 1.0:
            pairs.append((p1 + s * d1, p2 + t * d2))
    return min(pairs, key=lambda x: np.linalg.norm(x[0] - x[1]))


def separated_distance(shape_A, X_WA, shape_B, X_WB):
    """``(distance, p_WCa, p_WCb)`` of disjoint polytopes: the closest feature pair."""
    out = []
    for shape, X in ((shape_A, X_WA), (shape_B, X_WB)):
        p_G, tris = polytope_W(shape, X)
        X = np.asarray(X, float)
        out.append((p_G @ X[:3, :3].T + X[:3, 3], tris))
    (VA, TA), (VB, TB) = out
    best = (np.inf, None, None)
    for P, Q, TQ, flip in ((VA, VB, TB, False), (VB, VA, TA, True)):
        for p in P:
            for t in TQ:
                q = _closest_on_triangle(p, *Q[t])
                d = np.linalg.norm(p - q)
                if d < best[0]:
                    best = (d, q, p) if flip else (d, p, q)
    for i, j in _edges(TA):
        for k, m in _edges(TB):
            ca, cb = _segment_segment(VA[i], VA[j], VB[k], VB[m])
            d = np.linalg.norm(ca - cb)
            if d < best[0]:
                best = (d, ca, cb)
    return best


def polytope_signed_distance(shape_A, X_WA, shape_B, X_WB) -> float:
    """The signed distance of two polytopes: exact when touching or overlapping."""
    g, _ = exact_penetration(shape_A, X_WA, shape_B, X_WB)
    if g <= 0.0:
        return g
    return float(separated_distance(shape_A, X_WA, shape_B, X_WB)[0])
