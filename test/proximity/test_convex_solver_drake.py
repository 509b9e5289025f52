"""Differential accuracy of the convex kernels against Drake and raw FCL, on a trusted reference.

For the pairs where Drake is iterative (cylinder, ellipsoid, capsule-box and
convex pairs: Drake hands them to FCL's GJK/EPA), random scenes are answered
by us, by Drake (``drake_oracle``), by raw python-fcl (signed distance on,
libccd) and by the converged reference of test_convex_reference.py. We
assert, per case, that our error is no larger than Drake's (+1e-9 m), for
signed distance and for penetration depth, and that the set of overlapping
pairs agrees with Drake's wherever the pair is not within 1e-6 m of touching.

Run with ``-s`` to print the accuracy table (max over the scenes, vs the
reference): distance error (m), normal error (1 - cos), witness error (m:
distance of each witness from its shape's true supporting plane).
"""

from __future__ import annotations

import sys
from pathlib import Path

import fcl
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import drake_oracle  # noqa: E402
from kernel_calls import convex_pair as signed_distance_convex  # noqa: E402
from reference_support import support_value_W  # noqa: E402
from test_convex_reference import reference_signed_distance  # noqa: E402
from test_convex_solver import random_scene  # noqa: E402

from geometry_core.proximity.fcl_adapter import fcl_geometry, fcl_transform  # noqa: E402

pytestmark = pytest.mark.drake

PAIRS = [
    ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "capsule"),
    ("ellipsoid", "ellipsoid"), ("ellipsoid", "box"), ("ellipsoid", "cylinder"),
    ("ellipsoid", "capsule"), ("ellipsoid", "sphere"), ("capsule", "box"),
    ("convex", "cylinder"), ("convex", "ellipsoid"), ("convex", "convex"), ("convex", "box"),
]
SCENES = 10
SEED_OFFSET = 1000  # other scenes than test_convex_solver's


def _raw_fcl(shape_A, X_WA, shape_B, X_WB):
    """Raw python-fcl: signed distance on, libccd; (distance, nhat_BA_W, p_WCa, p_WCb)."""
    o_A = fcl.CollisionObject(fcl_geometry(shape_A), fcl_transform(X_WA))
    o_B = fcl.CollisionObject(fcl_geometry(shape_B), fcl_transform(X_WB))
    result = fcl.DistanceResult()
    distance = fcl.distance(o_A, o_B, fcl.DistanceRequest(True, True), result)
    p_WCa, p_WCb = (np.asarray(p, dtype=float) for p in result.nearest_points)
    n = (p_WCa - p_WCb) / distance if distance != 0 else np.full(3, np.nan)
    return distance, n / np.linalg.norm(n), p_WCa, p_WCb


def _raw_fcl_depth(shape_A, X_WA, shape_B, X_WB):
    o_A = fcl.CollisionObject(fcl_geometry(shape_A), fcl_transform(X_WA))
    o_B = fcl.CollisionObject(fcl_geometry(shape_B), fcl_transform(X_WB))
    result = fcl.CollisionResult()
    fcl.collide(o_A, o_B, fcl.CollisionRequest(num_max_contacts=10, enable_contact=True), result)
    return max((c.penetration_depth for c in result.contacts), default=None)


def _witness_error(shape_A, X_WA, shape_B, X_WB, n_ref, p_WCa, p_WCb) -> float:
    return max(abs(n_ref @ p_WCa + support_value_W(shape_A, X_WA, -n_ref)[0]),
               abs(n_ref @ p_WCb - support_value_W(shape_B, X_WB, n_ref)[0]))


@pytest.mark.parametrize("kinds", PAIRS, ids=lambda k: "-".join(k))
def test_at_least_as_accurate_as_drake(kinds):
    stats = {key: 0.0 for key in (
        "ours_d", "drake_d", "fcl_d", "ours_n", "drake_n", "fcl_n", "ours_w", "drake_w", "fcl_w",
        "ours_depth", "drake_depth", "fcl_depth")}
    agree = compared = 0
    for seed in range(SEED_OFFSET, SEED_OFFSET + SCENES):
        A, X_WA, B, X_WB = random_scene(*kinds, seed)
        ref, n_ref = reference_signed_distance(A, X_WA, B, X_WB)
        ours = signed_distance_convex(A, X_WA, B, X_WB)
        try:
            drake = drake_oracle.drake_signed_distance_pair(A, X_WA, B, X_WB)
        except drake_oracle.DrakeUnsupportedError:
            drake = None
        if drake is not None:
            e_ours, e_drake = abs(ours.distance - ref), abs(drake.distance - ref)
            assert e_ours <= e_drake + 1e-9, (kinds, seed, ours.distance, drake.distance, ref)
            stats["ours_d"] = max(stats["ours_d"], e_ours)
            stats["drake_d"] = max(stats["drake_d"], e_drake)
            if np.all(np.isfinite(drake.nhat_BA_W)):
                stats["drake_n"] = max(stats["drake_n"], 1.0 - drake.nhat_BA_W @ n_ref)
                stats["drake_w"] = max(stats["drake_w"], _witness_error(
                    A, X_WA, B, X_WB, n_ref, drake.p_WCa, drake.p_WCb))
        stats["ours_n"] = max(stats["ours_n"], 1.0 - ours.nhat_BA_W @ n_ref)
        stats["ours_w"] = max(stats["ours_w"], _witness_error(
            A, X_WA, B, X_WB, n_ref, ours.p_WCa, ours.p_WCb))
        d_fcl, n_fcl, pa_fcl, pb_fcl = _raw_fcl(A, X_WA, B, X_WB)
        stats["fcl_d"] = max(stats["fcl_d"], abs(d_fcl - ref))
        stats["fcl_n"] = max(stats["fcl_n"], 1.0 - n_fcl @ n_ref)
        stats["fcl_w"] = max(stats["fcl_w"], _witness_error(A, X_WA, B, X_WB, n_ref, pa_fcl,
                                                            pb_fcl))
        # Penetration: the same depth from the point-pair query.
        penetration = drake_oracle.drake_penetration(A, X_WA, B, X_WB)
        if abs(ref) > 1e-6:
            compared += 1
            agree += (penetration is not None) == (ours.distance < 0)
        if penetration is not None and ref < 0:
            e_ours, e_drake = abs(ours.distance - ref), abs(penetration.distance - ref)
            assert e_ours <= e_drake + 1e-9, (kinds, seed, ours.distance, penetration.distance)
            stats["ours_depth"] = max(stats["ours_depth"], e_ours)
            stats["drake_depth"] = max(stats["drake_depth"], e_drake)
            depth_fcl = _raw_fcl_depth(A, X_WA, B, X_WB)
            if depth_fcl is not None:
                stats["fcl_depth"] = max(stats["fcl_depth"], abs(depth_fcl + ref))
    assert agree == compared, f"{kinds}: overlap sets differ in {compared - agree} scenes"
    print(f"\n{'-'.join(kinds):20s} distance ours {stats['ours_d']:.1e} drake "
          f"{stats['drake_d']:.1e} fcl {stats['fcl_d']:.1e} | normal(1-cos) ours "
          f"{stats['ours_n']:.1e} drake {stats['drake_n']:.1e} fcl {stats['fcl_n']:.1e} | "
          f"witness ours {stats['ours_w']:.1e} drake {stats['drake_w']:.1e} fcl "
          f"{stats['fcl_w']:.1e} | depth ours {stats['ours_depth']:.1e} drake "
          f"{stats['drake_depth']:.1e} fcl {stats['fcl_depth']:.1e} | overlap sets agree "
          f"{agree}/{compared}")
