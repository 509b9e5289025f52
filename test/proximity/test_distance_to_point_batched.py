"""compute_signed_distance_to_point over a whole scene equals the point kernel per geometry.

The query answers every geometry in one compiled call (box prefilter by
threshold, records built in C); every reported record must equal what the
one-point kernel gives for that geometry (to 1e-15), sorted by id, none
missing and none beyond the threshold, on random points and on the
degenerate ones where conventions decide (centres, axes).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scene_builders  # noqa: E402
from kernel_calls import point as signed_distance_to_point  # noqa: E402


def _points(query, ours, rng) -> np.ndarray:
    points = [rng.uniform(-0.6, 0.6, 3) for _ in range(40)]
    for gid in ours.geometry_ids:
        X_WG = query.get_pose_in_world(gid).get_as_matrix4()
        points.append(X_WG[:3, 3])  # centre: sphere/capsule/cylinder conventions
        points.append(X_WG[:3, 3] + 0.05 * X_WG[:3, 2])  # on the axis
    return np.array(points)


@pytest.mark.parametrize("seed", range(6))
def test_query_equals_scalar_kernel(seed):
    spec = scene_builders.random_scene_spec(seed, num_geometries=14)
    ours = scene_builders.build_ours(spec)
    query = ours.scene_graph.query_object()
    rng = np.random.default_rng(seed)
    for threshold in (np.inf, 0.05):
        for p_WQ in _points(query, ours, rng):
            results = query.compute_signed_distance_to_point(p_WQ, threshold)
            ids = [r.id_G for r in results]
            assert ids == sorted(ids)
            expected = [gid for gid in ours.geometry_ids if signed_distance_to_point(
                query.inspector().get_shape(gid), query.get_pose_in_world(gid).get_as_matrix4(),
                p_WQ).distance <= threshold]
            assert ids == sorted(expected)
            for r in results:
                shape = query.inspector().get_shape(r.id_G)
                X_WG = query.get_pose_in_world(r.id_G).get_as_matrix4()
                scalar = signed_distance_to_point(shape, X_WG, p_WQ)
                assert r.distance == pytest.approx(scalar.distance, abs=1e-15)
                np.testing.assert_allclose(r.p_GN, scalar.p_GN, atol=1e-15)
                np.testing.assert_allclose(r.grad_W, scalar.grad_W, atol=1e-15)
                assert r.is_grad_W_unique == scalar.is_grad_W_unique
                assert r.distance <= threshold
