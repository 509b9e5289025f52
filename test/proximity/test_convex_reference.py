"""An independent, converged reference for convex signed distance, and its own checks.

``reference_signed_distance`` maximises ``g(n) = -h_A(-n) - h_B(n)`` over
unit n by brute force: dense Fibonacci sampling of the sphere (20 000
directions, spacing ~0.03 rad) to find the basin, then Nelder-Mead in a
tangent chart with restarts until the direction stops moving (xatol 1e-14).
It shares only the closed-form support values with ``convex_solver`` (those
are checked against dense surface samples in test_support.py); no GJK, EPA,
simplex logic or curvature model. Nelder-Mead needs no gradient, so kinks
(box faces, cylinder caps) do not trouble it. It is slow (~0.1-0.5 s) and
serves only as a test reference; the tests below show it reproduces exact
answers to ~1e-12 m.

Imported by test_convex_solver.py and test_convex_solver_drake.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_support import support_value_W  # noqa: E402

from geometry_core.shapes import Box, Cylinder, Ellipsoid, Sphere  # noqa: E402


def fibonacci_directions(n: int) -> np.ndarray:
    i = np.arange(n) + 0.5
    phi = np.arccos(1.0 - 2.0 * i / n)
    theta = np.pi * (1.0 + 5.0**0.5) * i
    return np.c_[np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)]


_DIRECTIONS = fibonacci_directions(20_000)


def g_values(shape_A, X_WA, shape_B, X_WB, n_W) -> np.ndarray:
    """g(n) = -h_A(-n) - h_B(n) for unit directions n (rows)."""
    n_W = np.atleast_2d(n_W)
    n_W = n_W / np.linalg.norm(n_W, axis=1, keepdims=True)
    return -support_value_W(shape_A, X_WA, -n_W) - support_value_W(shape_B, X_WB, n_W)


def _tangent_basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def reference_signed_distance(shape_A, X_WA, shape_B, X_WB, starts: int = 6):
    """Return ``(distance, nhat_BA_W)``: the converged max of g and its direction."""
    values = g_values(shape_A, X_WA, shape_B, X_WB, _DIRECTIONS)
    best = (-np.inf, None)
    for k in np.argsort(-values)[:starts]:
        n0 = _DIRECTIONS[k]
        for _ in range(8):
            t1, t2 = _tangent_basis(n0)

            def cost(x, n0=n0, t1=t1, t2=t2):
                return -g_values(shape_A, X_WA, shape_B, X_WB, n0 + x[0] * t1 + x[1] * t2)[0]

            result = minimize(cost, [0.0, 0.0], method="Nelder-Mead",
                              options=dict(xatol=1e-14, fatol=1e-16, maxiter=4000,
                                           initial_simplex=[[0, 0], [1e-3, 0], [0, 1e-3]]))
            n1 = n0 + result.x[0] * t1 + result.x[1] * t2
            n1 /= np.linalg.norm(n1)
            moved = np.linalg.norm(n1 - n0)
            n0 = n1
            if moved < 1e-15:
                break
        value = g_values(shape_A, X_WA, shape_B, X_WB, n0)[0]
        if value > best[0]:
            best = (value, n0)
    return float(best[0]), best[1]


def _X(p, R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def test_reference_reproduces_sphere_pairs_exactly():
    rng = np.random.default_rng(7)
    for _ in range(5):
        p = rng.normal(size=3) * 0.4
        distance, n = reference_signed_distance(Sphere(0.3), _X(p), Sphere(0.2), _X([0, 0, 0]))
        assert abs(distance - (np.linalg.norm(p) - 0.5)) < 1e-12
        assert 1.0 - n @ (p / np.linalg.norm(p)) < 1e-12


def test_reference_on_kinks_box_face_and_cylinder_cap():
    # Box face against box face: n is pinned at a kink of both support functions.
    distance, n = reference_signed_distance(Box(1, 1, 1), _X([1.3, 0.2, 0.1]), Box(1, 1, 1),
                                            _X([0, 0, 0]))
    assert abs(distance - 0.3) < 1e-12
    assert 1.0 - n[0] < 1e-12
    # Cylinder standing on its cap on a box, overlapping by 0.01.
    distance, n = reference_signed_distance(Cylinder(0.2, 0.4), _X([0.1, 0, 0.69]),
                                            Box(2, 2, 1), _X([0, 0, 0]))
    assert abs(distance + 0.01) < 1e-12
    assert 1.0 - n[2] < 1e-12


def test_reference_on_analytic_ellipsoid_overlap():
    # Two equal ellipsoids (1, 2, 3) offset 5 along z: depth minimises
    # -5c + sqrt(4 + 32c^2) over c = cos(angle), at c^2 = 100/224.
    c = np.sqrt(100.0 / 224.0)
    exact = -(-5.0 * c + np.sqrt(4.0 + 32.0 * c * c))
    distance, _ = reference_signed_distance(Ellipsoid(1, 2, 3), _X([0, 0, 5]), Ellipsoid(1, 2, 3),
                                            _X([0, 0, 0]))
    assert abs(distance - exact) < 1e-12
