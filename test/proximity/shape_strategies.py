"""Poses and hypothesis strategies shared by the point-distance and pair tests.

Not a test module: test files put ``os.path.dirname(__file__)`` on
``sys.path`` and ``import shape_strategies`` (as with ``scene_builders``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from geometry_core.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Sphere


def make_pose(R_WG: np.ndarray, p_WGo) -> np.ndarray:
    """X_WG as a (4, 4) array from a rotation matrix and a position."""
    X_WG = np.eye(4)
    X_WG[:3, :3] = R_WG
    X_WG[:3, 3] = p_WGo
    return X_WG


def points_within(extent: float) -> st.SearchStrategy:
    """Points with every coordinate in [-extent, extent]."""
    coordinate = st.floats(-extent, extent)
    return st.tuples(coordinate, coordinate, coordinate).map(np.array)


sizes = st.floats(0.05, 0.5)
points = points_within(0.6)
rotations = st.tuples(*[st.floats(-1, 1)] * 4).filter(
    lambda q: np.linalg.norm(q) > 0.1).map(lambda q: Rotation.from_quat(q).as_matrix())
poses = st.builds(make_pose, rotations, points)
convex_points = st.integers(0, 2**32 - 1).map(
    lambda seed: np.random.default_rng(seed).uniform(-0.3, 0.3, (10, 3)))
shapes = st.one_of(
    st.builds(Sphere, sizes), st.builds(Box, sizes, sizes, sizes),
    st.builds(Cylinder, sizes, sizes), st.builds(Capsule, sizes, sizes),
    st.builds(Ellipsoid, sizes, sizes, sizes), st.just(HalfSpace()),
    st.builds(Convex.from_points, convex_points))
