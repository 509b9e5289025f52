"""Differential tests of the point-distance kernels against Drake (pydrake 1.51).

Drake 1.51 answers ComputeSignedDistanceToPoint exactly for spheres, boxes,
cylinders, capsules, half spaces and convex hulls: we must agree within
1e-6 m (distance and nearest point) and 1e-4 in (1 - cos) on the gradient,
including at Drake's documented conventions (centres, edges, corners, ties).
For ellipsoids Drake runs FCL's GJK with a 1e-6 tolerance; ours is exact (see
the high-precision reference in test_point_distance.py), so we only assert
Drake's documented bound. Each test prints its largest differences (``-s``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

# pytest runs with --import-mode=importlib, which does not put test folders on
# sys.path; the oracle lives beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import drake_oracle  # noqa: E402
from kernel_calls import point as signed_distance_to_point  # noqa: E402

from geometry_core.shapes import (  # noqa: E402
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Sphere,
)

pytestmark = pytest.mark.drake

SAMPLES = 300


def _size(rng):
    return rng.uniform(0.05, 0.5)


MAKERS = {
    "sphere": lambda rng: Sphere(_size(rng)),
    "box": lambda rng: Box(_size(rng), _size(rng), _size(rng)),
    "cylinder": lambda rng: Cylinder(_size(rng), _size(rng)),
    "capsule": lambda rng: Capsule(_size(rng), _size(rng)),
    "halfspace": lambda rng: HalfSpace(),
    "convex": lambda rng: Convex.from_points(rng.uniform(-0.25, 0.25, (12, 3))),
    "ellipsoid": lambda rng: Ellipsoid(_size(rng), _size(rng), _size(rng)),
}


def _random_pose(rng):
    X_WG = np.eye(4)
    X_WG[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    X_WG[:3, 3] = rng.uniform(-0.3, 0.3, 3)
    return X_WG


def _cases(name, seed):
    rng = np.random.default_rng(seed)
    for index in range(SAMPLES):
        shape, X_WG = MAKERS[name](rng), _random_pose(rng)
        # A third of the points at G's origin or on its axes: Drake's conventions.
        if index % 3 == 0:
            p_GQ = np.zeros(3)
            p_GQ[2] = rng.uniform(-0.2, 0.2) if index % 2 else 0.0
        else:
            p_GQ = rng.uniform(-0.4, 0.4, 3)
        yield shape, X_WG, X_WG[:3, :3] @ p_GQ + X_WG[:3, 3]


def _differences(ours, drake):
    return [abs(ours.distance - drake.distance), float(np.max(np.abs(ours.p_GN - drake.p_GN))),
            1.0 - float(ours.grad_W @ drake.grad_W)]


EXACT_IN_DRAKE = ["sphere", "box", "cylinder", "capsule", "halfspace", "convex"]


@pytest.mark.parametrize("name", EXACT_IN_DRAKE)
def test_point_distance_matches_drake(name):
    rows, inside = [], 0
    for shape, X_WG, p_WQ in _cases(name, 17):
        ours = signed_distance_to_point(shape, X_WG, p_WQ)
        drake = drake_oracle.drake_signed_distance_to_point(shape, X_WG, p_WQ)
        assert drake is not None, f"Drake 1.51 ignored {name}"
        row = _differences(ours, drake)
        assert row[0] < 1e-6, (p_WQ, ours, drake)
        # Where the nearest point is a tie (Q on a box's mid-plane), Drake
        # documents that round-off in X_WG decides which face: compare the
        # distance only.
        if ours.is_grad_W_unique or name != "box":
            assert row[1] < 1e-6 and row[2] < 1e-4, (p_WQ, ours, drake)
            rows.append(row)
        inside += ours.distance < 0
    assert inside > 0.2 * SAMPLES
    worst = np.max(rows, axis=0)
    print(f"\n{name}: n={len(rows)} max |d|={worst[0]:.2e} |N|={worst[1]:.2e} "
          f"1-cos={worst[2]:.2e}")


def test_ellipsoid_within_drakes_documented_error():
    rows = []
    for shape, X_WG, p_WQ in _cases("ellipsoid", 19):
        ours = signed_distance_to_point(shape, X_WG, p_WQ)
        drake = drake_oracle.drake_signed_distance_to_point(shape, X_WG, p_WQ)
        row = _differences(ours, drake)
        # Drake's GJK-based answer is an upper bound of the distance outside.
        if ours.distance > 1e-3:
            assert drake.distance >= ours.distance - 1e-9
        assert row[0] < 2e-3
        if ours.is_grad_W_unique:  # Drake picks its own point among ties
            rows.append(row)
    worst = np.max(rows, axis=0)
    print(f"\nellipsoid (Drake iterative): max |d|={worst[0]:.2e} |N|={worst[1]:.2e} "
          f"1-cos={worst[2]:.2e}")
