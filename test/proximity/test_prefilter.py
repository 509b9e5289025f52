"""The broadphase (boxes, then a separating-axis prefilter) drops only pairs beyond the margin.

``PosedScene.candidates`` is the compiled broadphase (csrc/model.c); every
unfiltered pair it leaves out must be farther apart than the margin by the
pair kernel, checked over all pairs of random scenes.
"""

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
    kept = set(zip(*(k.tolist() for k in scene.candidates(margin))))
    size = scene.model.size
    dropped = 0
    for a in range(size):
        for b in range(a + 1, size):
            if (a, b) in kept:
                continue
            dropped += 1
            assert scene.signed_distance(a, b).distance > margin, (a, b)
    assert dropped, "the scene should give the broadphase something to drop"
    assert all(a < b for a, b in kept)


def test_candidates_keep_every_pair_within_the_margin_only_once():
    scene = random_scene(9)
    i, j = scene.candidates(0.1)
    assert list(zip(i, j)) == sorted(set(zip(i, j)))  # sorted, no repeats
    for a, b in zip(i, j):
        assert scene.signed_distance(int(a), int(b)).distance == pytest.approx(
            scene.signed_distance(int(b), int(a)).distance, abs=1e-9)
