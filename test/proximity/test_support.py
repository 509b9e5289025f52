"""Support functions: the kernels' (csrc/) and the tests' reference, against dense surface samples.

The compiled support functions are what every convex kernel asks its shapes;
``reference_support`` is what the tests' references ask. Both are checked
here against points on each shape's surface, built without any support map.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_support import support_value_G, support_value_W  # noqa: E402

from geometry_core.proximity import specs  # noqa: E402
from geometry_core.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Sphere  # noqa: E402, E501

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


def _kernel_values(shape, X_WG, d_W) -> np.ndarray:
    return np.array([specs.support_value(shape, X_WG, d) for d in np.atleast_2d(d_W)])


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.type_name)
@pytest.mark.parametrize("which", ["kernel", "reference"])
def test_support_value_matches_dense_surface_samples(shape, which):
    # h(d) is the max of d·p over the surface: at least every sample's value,
    # and within the sampling's resolution of the best sample.
    d = _fibonacci(500) * np.random.default_rng(RNG_SEED).uniform(0.5, 2.0, (500, 1))
    if which == "kernel":
        # The kernels take unit directions: h is positively homogeneous.
        length = np.linalg.norm(d, axis=1)
        h = _kernel_values(shape, np.eye(4), d / length[:, None]) * length
    else:
        h = support_value_G(shape, d)
    sampled = np.max(d @ _surface_samples(shape).T, axis=1)
    assert np.all(h >= sampled - 1e-12)
    assert np.max(h - sampled) < 2e-3 * np.max(np.linalg.norm(d, axis=1))


def test_convex_support_is_the_extreme_input_point():
    points = np.random.default_rng(RNG_SEED).normal(size=(30, 3))
    convex = Convex.from_points(points)
    d = np.random.default_rng(1).normal(size=(100, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    expected = np.max(d @ points.T, axis=1)
    np.testing.assert_allclose(support_value_G(convex, d), expected, atol=1e-15)
    np.testing.assert_allclose(_kernel_values(convex, np.eye(4), d), expected, atol=1e-15)


@pytest.mark.parametrize("shape", SHAPES + [Convex.from_points(np.eye(3).tolist() + [[0, 0, 0],
                                                                                     [1, 1, 1]])],
                         ids=lambda s: s.type_name)
def test_posed_support_matches_frame_formula(shape):
    # h_W(d) = h_G(R_WGᵀ d) + d·p_WGo, for the kernels and the reference alike.
    rng = np.random.default_rng(RNG_SEED)
    X_WG = np.eye(4)
    X_WG[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    X_WG[:3, 3] = rng.normal(size=3)
    d_W = rng.normal(size=(50, 3))
    d_W /= np.linalg.norm(d_W, axis=1, keepdims=True)
    expected = support_value_G(shape, d_W @ X_WG[:3, :3]) + d_W @ X_WG[:3, 3]
    np.testing.assert_allclose(support_value_W(shape, X_WG, d_W), expected, atol=1e-14)
    np.testing.assert_allclose(_kernel_values(shape, X_WG, d_W), expected, atol=1e-14)


def test_support_value_of_a_half_space_is_infinite_off_its_normal():
    assert specs.support_value(HalfSpace(), np.eye(4), np.array([1.0, 0.0, 0.0])) == np.inf
    assert support_value_G(HalfSpace(), [[1.0, 0.0, 0.0]])[0] == np.inf
    assert support_value_G(HalfSpace(), [[0.0, 0.0, 1.0]])[0] == 0.0
