"""Support functions of the shapes, from their definitions, as a test reference.

``h_S(d) = max over s in S of d·s`` for rows d, written from each shape's
definition (sphere, box, cylinder, capsule, ellipsoid, the vertices of a
hull or mesh) and nothing else: no code shared with ``csrc/`` (the kernels'
support functions are checked against these and against dense surface
samples in test_support.py). The references that maximise
``g(n) = -h_A(-n) - h_B(n)`` (test_convex_reference.py) build on these.

Imports numpy and the shapes only.
"""

from __future__ import annotations

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


def support_value_G(shape: Shape, d_G) -> np.ndarray:
    """h(d) for rows d (any length) in G; +inf for a half space where d leaves it."""
    d = np.atleast_2d(np.asarray(d_G, dtype=float))
    length = np.linalg.norm(d, axis=1)
    if isinstance(shape, Sphere):
        return shape.radius * length
    if isinstance(shape, Box):
        half = 0.5 * np.array([shape.width, shape.depth, shape.height])
        return np.abs(d) @ half
    if isinstance(shape, Cylinder):
        return (shape.radius * np.hypot(d[:, 0], d[:, 1])
                + 0.5 * shape.length * np.abs(d[:, 2]))
    if isinstance(shape, Capsule):
        return shape.radius * length + 0.5 * shape.length * np.abs(d[:, 2])
    if isinstance(shape, Ellipsoid):
        return np.linalg.norm(d * np.array([shape.a, shape.b, shape.c]), axis=1)
    if isinstance(shape, Convex):
        return np.max(d @ shape.hull()[0].T, axis=1)
    if isinstance(shape, Mesh):
        return np.max(d @ shape.vertices().T, axis=1)
    if isinstance(shape, HalfSpace):
        # z <= 0: bounded only along +Gz, where the plane's points give 0. A
        # direction that round-off of a pose tilted off +Gz by 1e-12 counts
        # as along it (the tests pose normals through rotations).
        along = (np.hypot(d[:, 0], d[:, 1]) <= 1e-12 * length) & (d[:, 2] > 0.0)
        return np.where(along, 0.0, np.inf)
    raise TypeError(f"no reference support for {type(shape).__name__}")


def support_value_W(shape: Shape, X_WG: np.ndarray, d_W) -> np.ndarray:
    """h(d) for rows d in W, points measured from Wo: h_G(R_WGᵀ d) + d·p_WGo."""
    X_WG = np.asarray(X_WG, dtype=float)
    d = np.atleast_2d(np.asarray(d_W, dtype=float))
    return support_value_G(shape, d @ X_WG[:3, :3]) + d @ X_WG[:3, 3]
