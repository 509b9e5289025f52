"""The plain-float segment kernel used by capsule-capsule equals the vectorised one.

``_segment_closest_floats`` repeats ``closest_points_between_segments``'s
formulas on 3-tuples (numpy's per-call overhead dominated a capsule pair);
both must agree to 1e-15 on random segments and on every degenerate branch:
parallel (overlapping, disjoint, collinear), antiparallel, nearly parallel,
crossing, touching at ends, and a zero-length-like short segment.
"""

from __future__ import annotations

import numpy as np
import pytest

from geometry_core import Capsule
from geometry_core.proximity import exact_pairs
from geometry_core.proximity.exact_pairs import (
    _segment_closest_floats,
    closest_points_between_segments,
    signed_distance_pair,
)


def _cases():
    rng = np.random.default_rng(7)
    for _ in range(300):
        yield tuple(rng.uniform(-1.0, 1.0, (4, 3)))
    d = np.array([1.0, 0.0, 0.0])
    yield np.zeros(3), d, np.array([0.5, 0.3, 0.0]), d  # parallel, overlapping
    yield np.zeros(3), d, np.array([2.0, 0.3, 0.0]), d  # parallel, disjoint ahead
    yield np.zeros(3), d, np.array([-3.0, 0.3, 0.0]), d  # parallel, disjoint behind
    yield np.zeros(3), d, np.array([0.5, 0.0, 0.0]), d  # collinear
    yield np.zeros(3), d, np.array([1.5, 0.2, 0.0]), -d  # antiparallel
    yield np.zeros(3), d, np.array([0.2, 0.1, 0.0]), np.array([1.0, 1e-7, 0.0])  # near
    yield np.zeros(3), d, np.array([0.2, 0.1, 0.0]), np.array([1.0, 1e-13, 0.0])
    yield np.zeros(3), d, np.array([0.5, -0.5, 0.0]), np.array([0.0, 1.0, 0.0])  # crossing
    yield np.zeros(3), d, np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])  # touching
    yield np.zeros(3), d, np.array([0.3, 0.2, 0.1]), np.array([1e-9, 0.0, 1e-9])  # short


@pytest.mark.parametrize("case", list(_cases()))
def test_floats_equal_vectorised(case):
    p1, d1, p2, d2 = (np.asarray(v, dtype=float) for v in case)
    c1, c2 = closest_points_between_segments(p1, d1, p2, d2)
    f1, f2 = _segment_closest_floats(*(tuple(v.tolist()) for v in (p1, d1, p2, d2)))
    np.testing.assert_allclose(f1, c1, rtol=0, atol=1e-15)
    np.testing.assert_allclose(f2, c2, rtol=0, atol=1e-15)


def test_capsule_pair_matches_segment_distance():
    rng = np.random.default_rng(3)
    for _ in range(200):
        A, B = Capsule(*rng.uniform(0.02, 0.2, 2)), Capsule(*rng.uniform(0.02, 0.2, 2))
        X_WA, X_WB = np.eye(4), np.eye(4)
        for X in (X_WA, X_WB):
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            X[:3, :3] = q * np.sign(np.linalg.det(q))
            X[:3, 3] = rng.uniform(-0.2, 0.2, 3)
        w = signed_distance_pair(A, X_WA, B, X_WB)
        c1, c2 = closest_points_between_segments(
            X_WA[:3, 3] - 0.5 * A.length * X_WA[:3, 2], A.length * X_WA[:3, 2],
            X_WB[:3, 3] - 0.5 * B.length * X_WB[:3, 2], B.length * X_WB[:3, 2])
        assert w.distance == pytest.approx(np.linalg.norm(c1 - c2) - A.radius - B.radius,
                                           abs=1e-14)
        np.testing.assert_allclose(w.p_WCa - w.p_WCb, w.distance * w.nhat_BA_W, atol=1e-14)
        assert abs(np.linalg.norm(w.nhat_BA_W) - 1.0) < 1e-14
    assert exact_pairs.exact_pair_types(A, B)
