"""Support maps: values against dense surface samples, ties, poses, derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geometry_core.proximity.support import (
    PosedSupport,
    core_support_jacobian_G,
    core_support_point_G,
    is_core_support_smooth_G,
    margin_radius,
    support_point_G,
    support_point_W,
    support_value_G,
    support_value_W,
)
from geometry_core.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Sphere

RNG_SEED = 20261121


def _fibonacci(n: int) -> np.ndarray:
    i = np.arange(n) + 0.5
    phi = np.arccos(1.0 - 2.0 * i / n)
    theta = np.pi * (1.0 + 5.0**0.5) * i
    return np.c_[np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)]


def _surface_samples(shape, n: int = 40_000) -> np.ndarray:
    """Dense points on the shape's boundary (in G), built without support maps."""
    u = _fibonacci(n)
    if isinstance(shape, Sphere):
        return shape.radius * u
    if isinstance(shape, Ellipsoid):
        return u * shape.semi_axes()
    if isinstance(shape, Box):
        # Scale the cube [-1, 1]^3's surface (radial projection of the sphere).
        cube = u / np.max(np.abs(u), axis=1, keepdims=True)
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return np.vstack([cube, corners]) * shape.half_extents()
    if isinstance(shape, Cylinder):
        t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
        z = np.linspace(-0.5, 0.5, 21) * shape.length
        rim = np.stack(np.meshgrid(t, z), -1).reshape(-1, 2)
        return np.c_[shape.radius * np.cos(rim[:, 0]), shape.radius * np.sin(rim[:, 0]), rim[:, 1]]
    if isinstance(shape, Capsule):
        pts = shape.radius * u
        pts[:, 2] += np.where(u[:, 2] >= 0, 0.5, -0.5) * shape.length
        return pts
    raise AssertionError(shape)


SHAPES = [
    Sphere(0.3),
    Box(0.2, 0.5, 0.8),
    Cylinder(0.25, 0.9),
    Capsule(0.15, 0.6),
    Ellipsoid(0.1, 0.3, 0.5),
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.type_name)
def test_support_value_matches_dense_surface_samples(shape):
    # h(d) is the max of d·p over the surface: at least every sample's value,
    # and within the sampling's resolution of the best sample.
    d = _fibonacci(500) * np.random.default_rng(RNG_SEED).uniform(0.5, 2.0, (500, 1))
    h = support_value_G(shape, d)
    sampled = np.max(d @ _surface_samples(shape).T, axis=1)
    assert np.all(h >= sampled - 1e-12)
    assert np.max(h - sampled) < 2e-3 * np.max(np.linalg.norm(d, axis=1))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.type_name)
def test_support_point_is_a_maximiser_and_vectorised(shape):
    d = np.random.default_rng(RNG_SEED).normal(size=(200, 3))
    p = support_point_G(shape, d)
    assert p.shape == (200, 3)
    np.testing.assert_allclose(np.einsum("ij,ij->i", d, p), support_value_G(shape, d), atol=1e-15)
    for k in range(5):
        np.testing.assert_array_equal(support_point_G(shape, d[k]), p[k])
        assert support_value_G(shape, d[k]) == pytest.approx(d[k] @ p[k], abs=1e-15)


def test_ties_return_documented_valid_maximisers():
    box = Box(0.2, 0.4, 0.6)
    # Face direction: every point of the +x face maximises; a zero component counts as +.
    np.testing.assert_array_equal(support_point_G(box, [1.0, 0.0, 0.0]), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(support_point_G(box, [0.0, -1.0, 0.0]), [0.1, -0.2, 0.3])
    cyl = Cylinder(0.5, 2.0)
    # Cap direction: the whole disk maximises; the rim point on +Gx is returned.
    np.testing.assert_array_equal(support_point_G(cyl, [0.0, 0.0, -3.0]), [0.5, 0.0, -1.0])
    # Side direction: the whole side line maximises; the top end is returned.
    np.testing.assert_allclose(support_point_G(cyl, [0.0, 2.0, 0.0]), [0.0, 0.5, 1.0])
    cap = Capsule(0.1, 1.0)
    np.testing.assert_allclose(support_point_G(cap, [1.0, 0.0, 0.0]), [0.1, 0.0, 0.5])
    # d = 0: everything maximises (value 0); a point of the shape is still returned.
    for shape in SHAPES:
        p = support_point_G(shape, np.zeros(3))
        assert np.all(np.isfinite(p))
        assert support_value_G(shape, np.zeros(3)) == 0.0


def test_convex_support_is_the_extreme_input_point():
    points = np.random.default_rng(RNG_SEED).normal(size=(30, 3))
    convex = Convex.from_points(points)
    d = np.random.default_rng(1).normal(size=(100, 3))
    np.testing.assert_allclose(support_value_G(convex, d), np.max(d @ points.T, axis=1),
                               atol=1e-15)


@pytest.mark.parametrize("shape", SHAPES + [Convex.from_points(np.eye(3).tolist() + [[0, 0, 0],
                                                                                     [1, 1, 1]])],
                         ids=lambda s: s.type_name)
def test_posed_support_matches_frame_formula(shape):
    rng = np.random.default_rng(RNG_SEED)
    X_WG = np.eye(4)
    X_WG[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    X_WG[:3, 3] = rng.normal(size=3)
    d_W = rng.normal(size=(50, 3))
    R_WG, p_WGo = X_WG[:3, :3], X_WG[:3, 3]
    expected = support_point_G(shape, d_W @ R_WG) @ R_WG.T + p_WGo
    np.testing.assert_allclose(support_point_W(shape, X_WG, d_W), expected, atol=1e-15)
    np.testing.assert_allclose(support_value_W(shape, X_WG, d_W),
                               np.einsum("ij,ij->i", d_W, expected), atol=1e-14)
    posed = PosedSupport(shape, X_WG)
    for d in d_W[:10]:
        core = np.array(posed.core_point(tuple(d)))
        np.testing.assert_allclose(core + margin_radius(shape) * d / np.linalg.norm(d),
                                   support_point_W(shape, X_WG, d), atol=1e-14)
    np.testing.assert_allclose(posed.core_points_W(d_W),
                               core_support_point_G(shape, d_W @ R_WG) @ R_WG.T + p_WGo,
                               atol=1e-14)


def test_margin_decomposition():
    assert margin_radius(Sphere(0.3)) == 0.3
    assert margin_radius(Capsule(0.2, 1.0)) == 0.2
    assert margin_radius(Box(1, 1, 1)) == 0.0
    np.testing.assert_array_equal(core_support_point_G(Sphere(0.3), [1.0, 2.0, 3.0]), np.zeros(3))
    np.testing.assert_array_equal(core_support_point_G(Capsule(0.2, 1.0), [1.0, 2.0, -3.0]),
                                  [0.0, 0.0, -0.5])


@pytest.mark.parametrize("shape", [Ellipsoid(0.1, 0.3, 0.5), Cylinder(0.25, 0.9)],
                         ids=lambda s: s.type_name)
def test_support_jacobian_matches_finite_differences(shape):
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(10):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        assert is_core_support_smooth_G(shape, u, 1e-7)
        J = core_support_jacobian_G(shape, u)
        step = 1e-6
        J_fd = np.column_stack([
            (support_point_G(shape, u + step * e) - support_point_G(shape, u - step * e))
            / (2 * step) for e in np.eye(3)])
        np.testing.assert_allclose(J, J_fd, atol=1e-7)


def test_kinks_are_not_smooth():
    assert not is_core_support_smooth_G(Box(1, 1, 1), np.array([1.0, 0.0, 0.0]), 1e-7)
    assert not is_core_support_smooth_G(Cylinder(1, 1), np.array([0.0, 0.0, 1.0]), 1e-7)
    assert not is_core_support_smooth_G(Cylinder(1, 1), np.array([1.0, 0.0, 0.0]), 1e-7)
    assert not is_core_support_smooth_G(Capsule(1, 1), np.array([1.0, 0.0, 0.0]), 1e-7)
    assert is_core_support_smooth_G(Ellipsoid(1, 2, 3), np.array([1.0, 0.0, 0.0]), 1e-7)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="HalfSpace is unbounded"):
        support_point_G(HalfSpace(), [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="HalfSpace is unbounded"):
        PosedSupport(HalfSpace(), np.eye(4))
    with pytest.raises(ValueError, match="direction must have shape"):
        support_point_G(Sphere(1.0), [1.0, 2.0])
