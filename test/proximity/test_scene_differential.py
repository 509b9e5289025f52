"""Scene-level differential tests: geometry_core's QueryObject against Drake's.

The same seeded random scene (frames with parents, anchored geometry, every
primitive, convex hulls, collision filters) is built in both libraries by
``scene_builders`` and every scene-level query is compared: the set of pairs,
depths and distances, witness points and normals, the ordering, what is never
reported, and the pair and point queries.

Where Drake is exact (its characterization tables, confirmed here) answers
agree within ``EXACT`` metres and ``NORMAL`` on normals. Where Drake is
iterative, or where this test shows Drake's answer is not exact (box-box
penetration uses ODE's face-preferring SAT; its ellipsoid-half-space witness
is not the deepest point), our answer is checked against an independent
reference instead (``scene_builders.reference_signed_distance``: support
functions written from the shapes' definitions, dense sampling and
refinement) and must be at least as accurate as Drake's.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

pytest.importorskip("pydrake")

sys.path.insert(0, os.path.dirname(__file__))
import scene_builders as sb  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    Cylinder,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    Sphere,
)

pytestmark = pytest.mark.drake

#: Agreement with Drake where Drake is exact (its tables give 2e-15 to 6e-15 m
#: for these pairs; 1e-6 m is the contract of DESIGN.md section 3).
EXACT = 1e-6
#: 1 - cos(angle) between normals where both answers are exact.
NORMAL = 1e-4
#: Drake's worst documented penetration error for its iterative pairs
#: (cylinder-cylinder, Table 1 of QueryObject::ComputePointPairPenetration).
DRAKE_ITERATIVE = 2e-3
#: Our answer against the converged independent reference (metres). The
#: reference's Nelder-Mead stops near 1e-12 in g; 1e-8 leaves margin for
#: polytope kinks where it converges more slowly.
REFERENCE = 1e-8
#: Pairs per scene whose reference maximum is searched (~0.1 s each); the
#: cheap certificate g(nhat) = distance is checked for every pair.
REFERENCE_PAIRS = 6

#: Penetration pairs Drake 1.51 answers in closed form, with unique witnesses:
#: depth, normal and witness points are compared with Drake directly.
PENETRATION_EXACT = {
    ("sphere", "sphere"), ("box", "sphere"), ("capsule", "sphere"),
    ("cylinder", "sphere"), ("halfspace", "sphere"), ("box", "halfspace"),
    ("capsule", "halfspace"), ("cylinder", "halfspace"),
}
#: Drake's depth and normal are exact but its witness is not the deepest point
#: of the ellipsoid (measured here: up to 2e-2 m away); witnesses are checked
#: against the closed-form deepest point instead.
PENETRATION_EXACT_DEPTH_ONLY = {("ellipsoid", "halfspace")}

#: Signed-distance pairs Drake 1.51 answers in closed form (Table 4:
#: 3e-15 to 6e-15 m).
DISTANCE_EXACT = {
    ("sphere", "sphere"), ("box", "sphere"), ("capsule", "sphere"),
    ("cylinder", "sphere"), ("box", "box"), ("box", "convex"), ("convex", "convex"),
}

SEEDS = range(10)


def _scenes(seed: int, **options):
    spec = sb.random_scene_spec(seed, **options)
    ours = sb.build_ours(spec)
    drake = sb.build_drake(spec, ours)
    return spec, ours, drake


def _shapes(spec, ours, id_A, id_B):
    i, j = ours.index_of(id_A), ours.index_of(id_B)
    return spec.geometries[i].shape, spec.X_WG(i), spec.geometries[j].shape, spec.X_WG(j)


def _one_minus_cos(n1, n2) -> float:
    return 1.0 - float(np.dot(n1, n2)) / float(np.linalg.norm(n1) * np.linalg.norm(n2))


def _drake_penetrations(drake):
    """Drake's penetrations keyed by our (id_A, id_B), put in our id order."""
    result = {}
    for pair in drake.query_object.ComputePointPairPenetration():
        a, b = drake.to_ours[pair.id_A], drake.to_ours[pair.id_B]
        p_WCa, p_WCb = np.array(pair.p_WCa), np.array(pair.p_WCb)
        nhat_BA_W = np.array(pair.nhat_BA_W)
        if b < a:  # Drake only promises a repeatable order, not id_A < id_B
            a, b, p_WCa, p_WCb, nhat_BA_W = b, a, p_WCb, p_WCa, -nhat_BA_W
        result[(a, b)] = (float(pair.depth), p_WCa, p_WCb, nhat_BA_W)
    return result


def _reference(spec, ours, id_A, id_B, hints=()):
    return sb.reference_signed_distance(*_shapes(spec, ours, id_A, id_B), hints=hints)[0]


# ------------------------------------------------------------------ builders


def test_both_realisations_pose_every_geometry_alike():
    spec, ours, drake = _scenes(0)
    query = ours.scene_graph.query_object()
    for k, (our_id, drake_id) in enumerate(zip(ours.geometry_ids, drake.geometry_ids)):
        X_WG = query.get_pose_in_world(our_id).get_as_matrix4()
        np.testing.assert_allclose(X_WG, spec.X_WG(k), atol=1e-14)
        np.testing.assert_allclose(drake.query_object.GetPoseInWorld(drake_id).GetAsMatrix4(),
                                   X_WG, atol=1e-14)
    # The id maps preserve order, so id_A < id_B means the same pair order.
    our_order = np.argsort([g.get_value() for g in ours.geometry_ids])
    drake_order = np.argsort([g.get_value() for g in drake.geometry_ids])
    np.testing.assert_array_equal(our_order, drake_order)


def test_random_scenes_overlap_about_half_of_their_candidate_pairs():
    overlapping = candidates = 0
    for seed in SEEDS:
        _, ours, _ = _scenes(seed)
        query = ours.scene_graph.query_object()
        candidates += len(query.compute_signed_distance_pairwise_closest_points())
        overlapping += len(query.compute_point_pair_penetration())
    assert 0.2 < overlapping / candidates < 0.7


# --------------------------------------------------------------- penetration


@pytest.mark.parametrize("seed", SEEDS)
def test_penetration_matches_drake(seed):
    spec, ours, drake = _scenes(seed)
    query = ours.scene_graph.query_object()
    results = query.compute_point_pair_penetration()
    keys = [(r.id_A, r.id_B) for r in results]
    assert keys == sorted(keys)
    assert all(a < b for a, b in keys)
    ours_by_pair = dict(zip(keys, results))
    theirs = _drake_penetrations(drake)

    for a, b in set(ours_by_pair) ^ set(theirs):
        kind = sb.pair_kind(*_shapes(spec, ours, a, b)[::2])
        phi = _reference(spec, ours, a, b)
        # A pair only one side reports is a near-touching pair...
        tolerance = EXACT if kind in PENETRATION_EXACT else DRAKE_ITERATIVE
        assert abs(phi) < tolerance, (seed, kind, phi, (a, b) in ours_by_pair)
        # ...and we are on the right side of zero.
        if (a, b) in ours_by_pair:
            assert phi < REFERENCE, (seed, kind, phi)
        else:
            assert phi > -REFERENCE, (seed, kind, phi)

    searched = 0
    for key in sorted(set(ours_by_pair) & set(theirs)):
        result = ours_by_pair[key]
        depth, p_WCa, p_WCb, nhat_BA_W = theirs[key]
        shape_A, X_WA, shape_B, X_WB = _shapes(spec, ours, *key)
        kind = sb.pair_kind(shape_A, shape_B)
        context = (seed, kind, result.depth, depth)
        assert result.depth > 0
        assert abs(np.linalg.norm(result.nhat_BA_W) - 1.0) < 1e-12
        np.testing.assert_allclose(result.p_WCa - result.p_WCb,
                                   -result.depth * result.nhat_BA_W, atol=1e-9)
        if kind in PENETRATION_EXACT | PENETRATION_EXACT_DEPTH_ONLY:
            assert abs(result.depth - depth) < EXACT, context
            assert _one_minus_cos(result.nhat_BA_W, nhat_BA_W) < NORMAL, context
        if kind in PENETRATION_EXACT:
            np.testing.assert_allclose(result.p_WCa, p_WCa, atol=EXACT, err_msg=str(context))
            np.testing.assert_allclose(result.p_WCb, p_WCb, atol=EXACT, err_msg=str(context))
            continue
        # Everything else: against the independent reference. Our depth is
        # attained along our normal (a certificate, checked for every pair)
        # and no direction does better (a search, for REFERENCE_PAIRS pairs).
        g_ours = sb.support_gap(shape_A, X_WA, shape_B, X_WB, result.nhat_BA_W)
        assert abs(g_ours + result.depth) < REFERENCE, context + (g_ours,)
        searched += 1
        if searched > REFERENCE_PAIRS:
            continue
        phi_ref, _ = sb.reference_signed_distance(shape_A, X_WA, shape_B, X_WB,
                                                  hints=(result.nhat_BA_W, nhat_BA_W))
        assert -result.depth > phi_ref - REFERENCE, context + (phi_ref,)
        # At least as accurate as Drake, whatever Drake's method.
        assert abs(result.depth + phi_ref) <= abs(depth + phi_ref) + REFERENCE, context


def test_box_box_penetration_depth_is_exact_where_drake_overestimates():
    # Drake's box-box (FCL's port of ODE's dBoxBox) prefers face axes over
    # edge-edge axes by a 5% fudge factor, so on edge-edge contacts its depth
    # is up to 5% too large. Ours equals the minimum over the 15 SAT axes.
    R_WB = sb.random_rotation(np.random.default_rng(7))
    worse = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        shape_A, shape_B = sb.random_shape("box", rng), sb.random_shape("box", rng)
        X_WA, X_WB = sb.random_pose(rng, 0.08), np.eye(4)
        X_WB[:3, :3] = R_WB
        sg = SceneGraph()
        src = sg.register_source("boxes")
        ids = []
        for name, shape, X in (("a", shape_A, X_WA), ("b", shape_B, X_WB)):
            f = sg.register_frame(src, GeometryFrame(name))
            g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), shape, name))
            sg.assign_role(src, g, ProximityProperties())
            sg.set_poses(src, {f: sb.our_pose(X)})
            ids.append(g)
        (result,) = sg.query_object().compute_point_pair_penetration()
        exact = -_sat_box_box(shape_A, X_WA, shape_B, X_WB)
        assert abs(result.depth - exact) < 1e-12
        import drake_oracle

        theirs = drake_oracle.drake_penetration(shape_A, X_WA, shape_B, X_WB)
        assert -theirs.distance >= exact - 1e-12
        worse += -theirs.distance > exact + 1e-6
    assert worse > 0, "no edge-edge case drawn: the test no longer shows the difference"


def _sat_box_box(box_A: Box, X_WA, box_B: Box, X_WB) -> float:
    """Signed distance of two overlapping boxes: max over the 15 SAT axes of the gap."""
    axes = [X_WA[:3, k] for k in range(3)] + [X_WB[:3, k] for k in range(3)]
    axes += [np.cross(X_WA[:3, i], X_WB[:3, j]) for i in range(3) for j in range(3)]
    gaps = [sb.support_gap(box_A, X_WA, box_B, X_WB, s * n)
            for n in axes if np.linalg.norm(n) > 1e-9 for s in (1.0, -1.0)]
    return max(gaps)


# ----------------------------------------------------------- signed distance


def _drake_distances(drake, max_distance):
    result = {}
    for pair in drake.query_object.ComputeSignedDistancePairwiseClosestPoints(max_distance):
        a, b = drake.to_ours[pair.id_A], drake.to_ours[pair.id_B]
        p_ACa, p_BCb = np.array(pair.p_ACa), np.array(pair.p_BCb)
        nhat_BA_W = np.array(pair.nhat_BA_W)
        if b < a:
            a, b, p_ACa, p_BCb, nhat_BA_W = b, a, p_BCb, p_ACa, -nhat_BA_W
        result[(a, b)] = (float(pair.distance), p_ACa, p_BCb, nhat_BA_W)
    return result


def _to_world(X_WG, p_GQ):
    return X_WG[:3, :3] @ p_GQ + X_WG[:3, 3]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("max_distance", [0.03, math.inf])
def test_signed_distance_pairwise_matches_drake(seed, max_distance):
    spec, ours, drake = _scenes(seed, halfspaces=False)
    query = ours.scene_graph.query_object()
    results = query.compute_signed_distance_pairwise_closest_points(max_distance=max_distance)
    keys = [(r.id_A, r.id_B) for r in results]
    assert keys == sorted(keys) and all(a < b for a, b in keys)
    ours_by_pair = dict(zip(keys, results))
    theirs = _drake_distances(drake, max_distance)

    for a, b in set(ours_by_pair) ^ set(theirs):
        # Only pairs right at the threshold may differ.
        distance = (ours_by_pair[(a, b)].distance if (a, b) in ours_by_pair
                    else query.compute_signed_distance_pair_closest_points(a, b).distance)
        assert abs(distance - max_distance) < 1e-4, (seed, a, b, distance)

    searched = 0
    for key in sorted(set(ours_by_pair) & set(theirs)):
        result = ours_by_pair[key]
        distance, p_ACa, p_BCb, nhat_BA_W = theirs[key]
        shape_A, X_WA, shape_B, X_WB = _shapes(spec, ours, *key)
        kind = sb.pair_kind(shape_A, shape_B)
        context = (seed, kind, result.distance, distance)
        assert result.distance <= max_distance
        p_WCa, p_WCb = _to_world(X_WA, result.p_ACa), _to_world(X_WB, result.p_BCb)
        np.testing.assert_allclose(p_WCa - p_WCb, result.distance * result.nhat_BA_W,
                                   atol=1e-9, err_msg=str(context))
        if kind in DISTANCE_EXACT:
            assert abs(result.distance - distance) < EXACT, context
            assert _one_minus_cos(result.nhat_BA_W, nhat_BA_W) < NORMAL, context
            np.testing.assert_allclose(result.p_ACa, p_ACa, atol=EXACT, err_msg=str(context))
            np.testing.assert_allclose(result.p_BCb, p_BCb, atol=EXACT, err_msg=str(context))
            continue
        g_ours = sb.support_gap(shape_A, X_WA, shape_B, X_WB, result.nhat_BA_W)
        assert abs(g_ours - result.distance) < REFERENCE, context + (g_ours,)
        searched += 1
        if searched > REFERENCE_PAIRS:
            continue
        phi_ref, _ = sb.reference_signed_distance(shape_A, X_WA, shape_B, X_WB,
                                                  hints=(result.nhat_BA_W, nhat_BA_W))
        assert result.distance > phi_ref - REFERENCE, context + (phi_ref,)
        assert abs(result.distance - phi_ref) <= abs(distance - phi_ref) + REFERENCE, context


def _halfspace_and_box():
    sg = SceneGraph()
    src = sg.register_source("floor_and_box")
    floor = sg.register_anchored_geometry(src, GeometryInstance(RigidTransform(), HalfSpace(),
                                                                "floor"))
    f = sg.register_frame(src, GeometryFrame("body"))
    X_FB = sb.our_pose(sb.random_pose(np.random.default_rng(3), 0.0))
    box = sg.register_geometry(src, f, GeometryInstance(X_FB, Box(0.2, 0.3, 0.4), "box"))
    for g in (floor, box):
        sg.assign_role(src, g, ProximityProperties())
    return sg, src, f, floor, box


@pytest.mark.parametrize("height", [0.5, 0.05, -0.02])
def test_halfspace_signed_distance_drake_throws_and_we_answer_exactly(height):
    import drake_oracle

    sg, src, f, floor, box = _halfspace_and_box()
    sg.set_poses(src, {f: RigidTransform([0.1, -0.2, height])})
    query = sg.query_object()
    X_WB = query.get_pose_in_world(box).get_as_matrix4()
    with pytest.raises(drake_oracle.DrakeUnsupportedError):
        drake_oracle.drake_signed_distance_pair(HalfSpace(), np.eye(4), Box(0.2, 0.3, 0.4),
                                                X_WB)
    (result,) = query.compute_signed_distance_pairwise_closest_points()
    # Lowest box corner against the plane z = 0: the exact answer.
    corners = np.array([[sx * 0.1, sy * 0.15, sz * 0.2] for sx in (-1, 1) for sy in (-1, 1)
                        for sz in (-1, 1)])
    p_WC = corners @ X_WB[:3, :3].T + X_WB[:3, 3]
    lowest = p_WC[np.argmin(p_WC[:, 2])]
    assert (result.id_A, result.id_B) == (floor, box)
    assert abs(result.distance - lowest[2]) < 1e-12
    np.testing.assert_allclose(result.nhat_BA_W, [0.0, 0.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(_to_world(X_WB, result.p_BCb), lowest, atol=1e-12)
    np.testing.assert_allclose(result.p_ACa, [lowest[0], lowest[1], 0.0], atol=1e-12)


# --------------------------------------------------------- distance to point

#: Drake's ellipsoid point distance is iterative (3e-5 m in its Table 8;
#: measured here up to 4e-4 m on the nearest point, 1e-6 m on the distance).
DRAKE_ELLIPSOID_POINT = 1e-3


def _check_ellipsoid_point(ellipsoid, X_WG, p_WQ, result, other, context):
    """Check our ellipsoid answer by its optimality conditions, and against Drake's.

    N is the nearest point iff N is on the surface and Q - N is along the
    surface normal at N (outward when Q is outside), which these checks test
    to 1e-9; Drake's iterative answer must then be no closer to Q.
    """
    axes = np.array([ellipsoid.a, ellipsoid.b, ellipsoid.c])
    p_GN = result.p_GN
    assert abs(np.sum((p_GN / axes) ** 2) - 1.0) < 1e-9, context
    n_G = p_GN / axes ** 2
    n_G /= np.linalg.norm(n_G)
    p_GQ = X_WG[:3, :3].T @ (p_WQ - X_WG[:3, 3])
    np.testing.assert_allclose(p_GQ - p_GN, result.distance * n_G, atol=1e-9,
                               err_msg=str(context))
    np.testing.assert_allclose(result.grad_W, X_WG[:3, :3] @ n_G, atol=1e-9,
                               err_msg=str(context))
    assert abs(result.distance) <= abs(other.distance) + 1e-12, context
    np.testing.assert_allclose(p_GN, other.p_GN, atol=DRAKE_ELLIPSOID_POINT,
                               err_msg=str(context))


@pytest.mark.parametrize("seed", SEEDS)
def test_signed_distance_to_point_matches_drake(seed):
    spec, ours, drake = _scenes(seed)
    query = ours.scene_graph.query_object()
    rng = np.random.default_rng(1000 + seed)
    compared = set()
    for p_WQ in rng.uniform(-0.3, 0.3, size=(8, 3)):
        results = query.compute_signed_distance_to_point(p_WQ)
        ids = [r.id_G for r in results]
        assert ids == sorted(ids)
        theirs = {drake.to_ours[r.id_G]: r for r in
                  drake.query_object.ComputeSignedDistanceToPoint(p_WQ)}
        # Drake 1.51 answers every shape in these scenes (Table 8); so do we.
        assert set(ids) == set(theirs)
        for result in results:
            k = ours.index_of(result.id_G)
            kind = sb.kind_of(spec.geometries[k].shape)
            compared.add(kind)
            other = theirs[result.id_G]
            context = (seed, kind, result.distance, other.distance)
            if kind == "ellipsoid":
                _check_ellipsoid_point(spec.geometries[k].shape, spec.X_WG(k), p_WQ, result,
                                       other, context)
            else:
                assert abs(result.distance - other.distance) < EXACT, context
                np.testing.assert_allclose(result.p_GN, other.p_GN, atol=EXACT,
                                           err_msg=str(context))
                if abs(result.distance) > 1e-3:  # off the surface the gradient is unique
                    np.testing.assert_allclose(result.grad_W, other.grad_W, atol=1e-6,
                                               err_msg=str(context))
            # Our nearest point is on G's surface, at |distance| from Q.
            X_WG = spec.X_WG(k)
            p_WN = _to_world(X_WG, result.p_GN)
            assert abs(np.linalg.norm(p_WQ - p_WN) - abs(result.distance)) < 1e-9, context
    assert {"sphere", "box", "halfspace"} <= compared


def test_signed_distance_to_point_threshold_matches_drake():
    _, ours, drake = _scenes(4)
    query = ours.scene_graph.query_object()
    p_WQ = np.array([0.05, -0.02, 0.1])
    for threshold in (0.0, 0.05, 0.2):
        ids = {r.id_G for r in query.compute_signed_distance_to_point(p_WQ, threshold)}
        theirs = {drake.to_ours[r.id_G] for r in
                  drake.query_object.ComputeSignedDistanceToPoint(p_WQ, threshold)}
        assert ids == theirs


# ---------------------------------------------------------------- collisions


@pytest.mark.parametrize("seed", list(SEEDS) + [101, 102])
def test_has_collisions_agrees_with_penetrations_and_drake(seed):
    # Seeds 101, 102 spread the scene out so some scenes have no collision.
    spread = 0.22 if seed < 100 else 2.0
    _, ours, drake = _scenes(seed, half_side=spread, halfspaces=seed < 100)
    query = ours.scene_graph.query_object()
    has = query.has_collisions()
    assert has == (len(query.compute_point_pair_penetration()) > 0)
    assert has == drake.query_object.HasCollisions()


@pytest.mark.parametrize("seed", SEEDS)
def test_collision_candidates_contain_drakes_penetrations(seed):
    _, ours, drake = _scenes(seed)
    candidates = set(ours.scene_graph.query_object().find_collision_candidates())
    assert set(_drake_penetrations(drake)) <= candidates


# ------------------------------------------------- what is never reported


@pytest.mark.parametrize("seed", SEEDS)
def test_filtered_same_frame_and_anchored_pairs_are_never_reported(seed):
    spec, ours, drake = _scenes(seed)
    sg = ours.scene_graph
    inspector = sg.model_inspector()
    query = sg.query_object()
    reported = [(r.id_A, r.id_B) for r in query.compute_point_pair_penetration()]
    reported += [(r.id_A, r.id_B) for r in
                 query.compute_signed_distance_pairwise_closest_points()
                 if not isinstance(_shapes(spec, ours, r.id_A, r.id_B)[0], HalfSpace)]
    reported += query.find_collision_candidates()
    excluded = set()
    for i, a in enumerate(ours.geometry_ids):
        for b in ours.geometry_ids[i + 1:]:
            ga, gb = spec.geometries[ours.index_of(a)], spec.geometries[ours.index_of(b)]
            same_frame = ga.frame == gb.frame  # None == None: both anchored
            if same_frame or inspector.collision_filtered(a, b):
                excluded.add((a, b))
            # Our filter model agrees with Drake's.
            assert inspector.collision_filtered(a, b) == drake.scene_graph.model_inspector() \
                .CollisionFiltered(drake.to_drake[a], drake.to_drake[b])
    assert excluded, "the scene has no excluded pair"
    assert not excluded & set(reported)


# -------------------------------------------------------- one named pair


@pytest.mark.parametrize("seed", SEEDS)
def test_pair_closest_points_in_both_orders_match_drake(seed):
    spec, ours, drake = _scenes(seed, halfspaces=False)
    query = ours.scene_graph.query_object()
    inspector = ours.scene_graph.model_inspector()
    checked = 0
    for i, a in enumerate(ours.geometry_ids):
        for b in ours.geometry_ids[i + 1:]:
            shape_A, X_WA, shape_B, X_WB = _shapes(spec, ours, a, b)
            if inspector.collision_filtered(a, b) or \
                    sb.pair_kind(shape_A, shape_B) not in DISTANCE_EXACT:
                continue
            forward = query.compute_signed_distance_pair_closest_points(a, b)
            backward = query.compute_signed_distance_pair_closest_points(b, a)
            assert (forward.id_A, forward.id_B) == (a, b)
            assert (backward.id_A, backward.id_B) == (b, a)
            assert forward.distance == pytest.approx(backward.distance, abs=1e-12)
            np.testing.assert_allclose(forward.p_ACa, backward.p_BCb, atol=1e-12)
            np.testing.assert_allclose(forward.nhat_BA_W, -backward.nhat_BA_W, atol=1e-12)
            theirs = drake.query_object.ComputeSignedDistancePairClosestPoints(
                drake.to_drake[b], drake.to_drake[a])
            # Drake answers in id order whatever the argument order; ours keeps it.
            if drake.to_ours[theirs.id_A] == a:
                p_ACa, p_BCb = np.array(theirs.p_ACa), np.array(theirs.p_BCb)
                nhat_BA_W = np.array(theirs.nhat_BA_W)
            else:
                p_ACa, p_BCb = np.array(theirs.p_BCb), np.array(theirs.p_ACa)
                nhat_BA_W = -np.array(theirs.nhat_BA_W)
            context = (seed, sb.pair_kind(shape_A, shape_B), forward.distance, theirs.distance)
            assert abs(forward.distance - theirs.distance) < EXACT, context
            np.testing.assert_allclose(forward.p_ACa, p_ACa, atol=EXACT, err_msg=str(context))
            np.testing.assert_allclose(forward.p_BCb, p_BCb, atol=EXACT, err_msg=str(context))
            assert _one_minus_cos(forward.nhat_BA_W, nhat_BA_W) < NORMAL, context
            checked += 1
    assert checked > 0


def test_sphere_pair_closest_points_is_exact():
    sg = SceneGraph()
    src = sg.register_source("two_spheres")
    ids, frames = [], []
    for name, radius in (("a", 0.1), ("b", 0.2)):
        f = sg.register_frame(src, GeometryFrame(name))
        g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), Sphere(radius), name))
        sg.assign_role(src, g, ProximityProperties())
        ids.append(g)
        frames.append(f)
    sg.set_poses(src, {frames[0]: RigidTransform([0.0, 0.0, 0.0]),
                       frames[1]: RigidTransform([0.5, 0.0, 0.0])})
    result = sg.query_object().compute_signed_distance_pair_closest_points(ids[1], ids[0])
    assert result.distance == pytest.approx(0.2, abs=1e-15)
    np.testing.assert_allclose(result.p_ACa, [-0.2, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(result.p_BCb, [0.1, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(result.nhat_BA_W, [1.0, 0.0, 0.0], atol=1e-15)


def test_overlapping_cylinders_are_reported_as_overlapping():
    # Found by test_penetration_matches_drake[5]: two cylinders that overlap
    # by 0.89 mm (Drake: depth 0.93 mm; the independent reference: signed
    # distance -0.886 mm) were reported 6.4 mm apart, with a normal along
    # which the gap is -7.6 mm (so the answer is not even self-consistent).
    cylinder_A = Cylinder(radius=0.0923812190127267, length=0.14012257479926316)
    X_WA = np.array([
        [-0.6317640324114594, 0.4729275350827103, -0.6141772984340964, 0.10795488693904204],
        [0.6393446069375909, 0.7659181445558039, -0.0678812891746548, 0.20321282250034367],
        [0.43830660607733324, -0.43555590043160675, -0.7862432045290967, -0.10838846026207444],
        [0.0, 0.0, 0.0, 1.0]])
    cylinder_B = Cylinder(radius=0.05531310255993786, length=0.18643755631011327)
    X_WB = np.array([
        [0.9316566342474211, 0.1388239141373041, 0.3357734902078568, -0.005989899331912357],
        [-0.3593113041591563, 0.48925255621233016, 0.7946869339199851, 0.016676664777796613],
        [-0.05395648771198423, -0.8610225648049524, 0.5056963914548802, -0.13448196510962074],
        [0.0, 0.0, 0.0, 1.0]])
    sg = SceneGraph()
    src = sg.register_source("cylinders")
    ids = []
    for name, shape, X in (("a", cylinder_A, X_WA), ("b", cylinder_B, X_WB)):
        f = sg.register_frame(src, GeometryFrame(name))
        g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), shape, name))
        sg.assign_role(src, g, ProximityProperties())
        sg.set_poses(src, {f: sb.our_pose(X)})
        ids.append(g)
    query = sg.query_object()
    phi_ref, _ = sb.reference_signed_distance(cylinder_A, X_WA, cylinder_B, X_WB)
    assert phi_ref == pytest.approx(-0.000886479, abs=1e-8)
    result = query.compute_signed_distance_pair_closest_points(*ids)
    assert result.distance == pytest.approx(phi_ref, abs=REFERENCE)
    assert query.has_collisions()
