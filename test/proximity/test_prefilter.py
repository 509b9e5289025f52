"""The separating-axis prefilter drops only pairs that are truly farther than the margin."""

import numpy as np
import pytest

from geometry_core import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    Sphere,
)
from geometry_core.math.kernels import rotation_matrices_from_rpy
from geometry_core.proximity.broadphase import candidate_pairs
from geometry_core.proximity.prefilter import provably_apart, support_from_origin


def random_scene(seed, n=30):
    rng = np.random.default_rng(seed)
    makers = [lambda s: Sphere(s[0]), lambda s: Box(*(2 * s)), lambda s: Cylinder(s[0], 2 * s[1]),
              lambda s: Capsule(s[0], 2 * s[1]), lambda s: Ellipsoid(*s),
              lambda s: Convex.from_points(rng.normal(scale=s[0], size=(12, 3)))]
    sg = SceneGraph()
    src = sg.register_source("s")
    poses = {}
    for k in range(n):
        frame = sg.register_frame(src, GeometryFrame(f"f{k}"))
        shape = makers[k % len(makers)](rng.uniform(0.05, 0.2, 3))
        g = sg.register_geometry(src, frame, GeometryInstance(RigidTransform(), shape, f"g{k}"))
        sg.assign_role(src, g, ProximityProperties())
        X = np.eye(4)
        X[:3, :3] = rotation_matrices_from_rpy(rng.uniform(-3, 3, (1, 3)))[0]
        X[:3, 3] = rng.uniform(-0.5, 0.5, 3)
        poses[frame] = RigidTransform(X)
    sg.set_poses(src, poses)
    return sg.query_object()._scene


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("margin", [0.0, 0.05, 0.2])
def test_dropped_pairs_are_farther_than_the_margin(seed, margin):
    scene = random_scene(seed)
    center_W, half_W = scene.aabbs
    i, j = candidate_pairs(scene.cache.broadphase, scene.X_WG, center_W, half_W, margin)
    apart = provably_apart(scene.cache.broadphase, scene.X_WG, i, j, margin)
    assert apart.any(), "the scene should give the prefilter something to drop"
    for a, b in zip(i[apart], j[apart]):
        assert scene.signed_distance(int(a), int(b)).distance > margin


def test_support_is_exact_for_primitives():
    """h(n) equals the max of n·p over dense surface samples (from above, within sampling)."""
    scene = random_scene(7, n=10)
    rng = np.random.default_rng(1)
    bp, X_WG = scene.cache.broadphase, scene.X_WG
    for g in range(scene.model.size):
        n_W = rng.normal(size=(20, 3))
        n_W /= np.linalg.norm(n_W, axis=1)[:, None]
        h = support_from_origin(bp, X_WG, np.full(20, g), n_W)
        # A point far out along n has distance d0 - h from the shape's tangent plane.
        for n, h_n in zip(n_W, h):
            far = X_WG[g, :3, 3] + 10.0 * n
            w = scene.model.shapes[g]
            from geometry_core.proximity.point_distance import signed_distance_to_point

            if isinstance(w, Convex):
                assert signed_distance_to_point(w, X_WG[g], far).distance >= 10.0 - h_n - 1e-9
            else:
                # Projection of the nearest surface point is at most h; at the
                # support point it is exactly h, so the plane bound is tight.
                p_GN = signed_distance_to_point(w, X_WG[g], X_WG[g, :3, 3] + 1e3 * n).p_GN
                p_WN = X_WG[g, :3, :3] @ p_GN + X_WG[g, :3, 3]
                assert n @ (p_WN - X_WG[g, :3, 3]) == pytest.approx(h_n, abs=1e-3)
