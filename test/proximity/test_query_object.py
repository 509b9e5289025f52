"""QueryObject: snapshot semantics, every public method, bad input, threads.

No Drake here (see test_scene_differential.py for that): answers are checked
against brute force over the scene's pairs, sampled surface points, or
closed forms.
"""

from __future__ import annotations

import math
import os
import sys
import threading

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scene_builders as sb  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    SceneGraphInspector,
    Sphere,
)


def _scene(seed: int = 0, **options):
    spec = sb.random_scene_spec(seed, **options)
    return spec, sb.build_ours(spec)


def _pair_keys(results):
    return [(r.id_A, r.id_B) for r in results]


def _answers(query):
    """Everything a snapshot answers, as plain comparable values."""
    p_WQ = np.array([0.05, 0.02, -0.03])
    return (
        [(r.id_A, r.id_B, round(r.depth, 12)) for r in query.compute_point_pair_penetration()],
        [(r.id_A, r.id_B, round(r.distance, 12)) for r in
         query.compute_signed_distance_pairwise_closest_points(0.05)],
        [(r.id_G, round(r.distance, 12)) for r in query.compute_signed_distance_to_point(p_WQ)],
        query.has_collisions(),
        query.find_collision_candidates(),
    )


# ------------------------------------------------------------------ snapshot


def test_set_poses_after_the_snapshot_does_not_change_its_answers():
    spec, ours = _scene(1)
    sg = ours.scene_graph
    query = sg.query_object()
    before = _answers(query)
    X_WG_before = [query.get_pose_in_world(g).get_as_matrix4() for g in ours.geometry_ids]
    sg.set_poses(ours.source_id, {f: RigidTransform([5.0 * k, 0.0, 0.0])
                                  for k, f in enumerate(ours.frame_ids)})
    assert _answers(query) == before
    for g, X_WG in zip(ours.geometry_ids, X_WG_before):
        np.testing.assert_array_equal(query.get_pose_in_world(g).get_as_matrix4(), X_WG)
    # The new snapshot does see the new poses: the frames are now 5 m apart.
    assert _answers(sg.query_object()) != before


def test_registration_after_the_snapshot_does_not_change_its_answers():
    spec, ours = _scene(2)
    sg = ours.scene_graph
    query = sg.query_object()
    before = _answers(query)
    frame = sg.register_frame(ours.source_id, GeometryFrame("late"))
    late = sg.register_geometry(ours.source_id, frame,
                                GeometryInstance(RigidTransform(), Sphere(1.0), "late_ball"))
    sg.assign_role(ours.source_id, late, ProximityProperties())
    sg.set_poses(ours.source_id, {frame: RigidTransform()})
    assert _answers(query) == before
    with pytest.raises(KeyError, match="is not a frame of this snapshot"):
        query.get_pose_in_world(frame)
    # A 1 m ball at the origin touches everything in the new snapshot.
    assert late in {r.id_B for r in sg.query_object().compute_point_pair_penetration()}


def test_branch_queries_of_an_old_snapshot_ignore_frames_registered_later():
    # Branch queries walk the (live) frame tree: a frame added under the
    # branch after the snapshot must not break the snapshot's answer.
    spec, ours = _scene(0)
    sg = ours.scene_graph
    parent = next(f for f, s in enumerate(spec.frames) if s.parent is None)
    other = next(f for f, s in enumerate(spec.frames) if f != parent and s.parent is None)
    query = sg.query_object()
    before = query.has_collisions_between_branches(ours.frame_ids[parent],
                                                   ours.frame_ids[other])
    sg.register_frame(ours.source_id, GeometryFrame("late_child"), ours.frame_ids[parent])
    assert query.has_collisions_between_branches(ours.frame_ids[parent],
                                                 ours.frame_ids[other]) == before


# --------------------------------------------------------------------- poses


def test_get_pose_in_world_and_in_parent():
    spec, ours = _scene(0)
    query = ours.scene_graph.query_object()
    assert any(f.parent is not None for f in spec.frames)
    for k, frame in enumerate(spec.frames):
        frame_id = ours.frame_ids[k]
        np.testing.assert_allclose(query.get_pose_in_world(frame_id).get_as_matrix4(),
                                   spec.X_WF(k), atol=1e-14)
        np.testing.assert_allclose(query.get_pose_in_parent(frame_id).get_as_matrix4(),
                                   frame.X_PF, atol=1e-13)
    for k, geometry_id in enumerate(ours.geometry_ids):
        np.testing.assert_allclose(query.get_pose_in_world(geometry_id).get_as_matrix4(),
                                   spec.X_WG(k), atol=1e-14)


def test_get_poses_in_world_are_get_pose_in_world_to_the_bit():
    spec, ours = _scene(0)
    # A geometry without the proximity role is posed from its frame.
    sg = ours.scene_graph
    source = sg.register_source("visual_only")
    frame = sg.register_frame(source, GeometryFrame("visual_frame"))
    visual = sg.register_geometry(source, frame, GeometryInstance(
        RigidTransform([0.1, 0.2, 0.3]), Sphere(0.1), "visual"))
    sg.set_poses(source, {frame: RigidTransform([1.0, -2.0, 0.5])})
    query = sg.query_object()
    proximity = list(reversed(ours.geometry_ids))
    mixed = [ours.frame_ids[1], visual, *ours.geometry_ids[:3], frame, ours.geometry_ids[0]]
    for ids in (proximity, mixed, []):
        stacked = query.get_poses_in_world(ids)
        assert stacked.shape == (len(ids), 4, 4)
        for X, some_id in zip(stacked, ids):
            np.testing.assert_array_equal(X, query.get_pose_in_world(some_id).get_as_matrix4())
    # A copy: changing it changes no later answer.
    stacked = query.get_poses_in_world(proximity)
    stacked[:] = 0.0
    np.testing.assert_array_equal(query.get_poses_in_world(proximity[:1])[0],
                                  query.get_pose_in_world(proximity[0]).get_as_matrix4())
    with pytest.raises(KeyError, match="not a registered geometry"):
        query.get_poses_in_world([proximity[0], GeometryId.get_new_id()])
    with pytest.raises(TypeError, match="expected a FrameId or GeometryId"):
        query.get_poses_in_world([proximity[0], "frame_0"])


# ---------------------------------------------------------------------- AABB


def _surface_points(shape, rng, count=20000):
    """Points on the surface of ``shape`` in its frame, shape (count, 3)."""
    u = rng.normal(size=(count, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    if isinstance(shape, Sphere):
        return shape.radius * u
    if isinstance(shape, Ellipsoid):
        return np.array([shape.a, shape.b, shape.c]) * u
    if isinstance(shape, Box):
        h = 0.5 * np.array([shape.width, shape.depth, shape.height])
        p = rng.uniform(-1.0, 1.0, size=(count, 3))
        axis = rng.integers(0, 3, size=count)
        p[np.arange(count), axis] = np.sign(rng.uniform(-1, 1, size=count))
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        return np.vstack([p, corners]) * h
    if isinstance(shape, (Cylinder, Capsule)):
        half = 0.5 * shape.length
        theta = rng.uniform(0, 2 * math.pi, size=count)
        z = rng.uniform(-half, half, size=count)
        side = np.column_stack([shape.radius * np.cos(theta), shape.radius * np.sin(theta), z])
        if isinstance(shape, Cylinder):
            rims = side.copy()
            rims[:, 2] = np.where(z > 0, half, -half)
            return np.vstack([side, rims])
        caps = shape.radius * u
        caps[:, 2] += np.where(u[:, 2] > 0, half, -half)
        return np.vstack([side, caps])
    raise TypeError(type(shape).__name__)


@pytest.mark.parametrize("shape", [Sphere(0.1), Box(0.1, 0.2, 0.3), Cylinder(0.1, 0.3),
                                   Capsule(0.05, 0.2), Ellipsoid(0.1, 0.2, 0.05)],
                         ids=lambda s: type(s).__name__)
def test_compute_aabb_in_world_is_tight(shape):
    rng = np.random.default_rng(5)
    X_WG = sb.random_pose(rng, 0.5)
    sg = SceneGraph()
    src = sg.register_source("aabb")
    f = sg.register_frame(src, GeometryFrame("f"))
    g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), shape, "g"))
    sg.assign_role(src, g, ProximityProperties())
    sg.set_poses(src, {f: sb.our_pose(X_WG)})
    box = sg.query_object().compute_aabb_in_world(g)
    # Exact: the box's faces are the support values along +-Wx, +-Wy, +-Wz.
    for k in range(3):
        e = np.eye(3)[k]
        assert box.upper()[k] == pytest.approx(sb.support_value_W(shape, X_WG, e), abs=1e-12)
        assert box.lower()[k] == pytest.approx(-sb.support_value_W(shape, X_WG, -e), abs=1e-12)
    # Brute force: sampled surface points lie inside, and come close to each face.
    p_WS = _surface_points(shape, rng) @ X_WG[:3, :3].T + X_WG[:3, 3]
    assert np.all(p_WS <= box.upper() + 1e-12) and np.all(p_WS >= box.lower() - 1e-12)
    assert np.all(p_WS.max(axis=0) > box.upper() - 2e-3 * np.max(box.half_width))
    assert np.all(p_WS.min(axis=0) < box.lower() + 2e-3 * np.max(box.half_width))
    assert all(box.contains(p) for p in p_WS[:50])


def test_compute_aabb_in_world_of_a_halfspace_is_unbounded():
    spec, ours = _scene(0)
    floor = ours.geometry_ids[[g.name for g in spec.geometries].index("floor")]
    box = ours.scene_graph.query_object().compute_aabb_in_world(floor)
    assert np.all(np.isinf(box.half_width))


# ------------------------------------------------------- pairs and branches


@pytest.mark.parametrize("seed", range(5))
def test_collision_candidates_contain_every_penetrating_pair(seed):
    _, ours = _scene(seed)
    query = ours.scene_graph.query_object()
    candidates = query.find_collision_candidates()
    assert candidates == sorted(candidates) and all(a < b for a, b in candidates)
    penetrating = _pair_keys(query.compute_point_pair_penetration())
    assert penetrating and set(penetrating) <= set(candidates)


def _subtree(spec, root):
    frames = {root}
    changed = True
    while changed:
        changed = False
        for k, frame in enumerate(spec.frames):
            if frame.parent in frames and k not in frames:
                frames.add(k)
                changed = True
    return frames


@pytest.mark.parametrize("seed", range(6))
def test_branch_queries_match_brute_force_over_subtree_pairs(seed):
    spec, ours = _scene(seed, halfspaces=False)
    query = ours.scene_graph.query_object()
    inspector = ours.scene_graph.model_inspector()
    roots = [k for k, frame in enumerate(spec.frames) if frame.parent is None]
    for a_root in roots:
        for b_root in roots:
            if a_root == b_root:
                continue
            A, B = _subtree(spec, a_root), _subtree(spec, b_root)
            pairs = [(ga, gb) for ga, sa in zip(ours.geometry_ids, spec.geometries)
                     for gb, sb_ in zip(ours.geometry_ids, spec.geometries)
                     if sa.frame in A and sb_.frame in B
                     and not inspector.collision_filtered(ga, gb)]
            distances = [query.compute_signed_distance_pair_closest_points(ga, gb).distance
                         for ga, gb in pairs]
            f_A, f_B = ours.frame_ids[a_root], ours.frame_ids[b_root]
            assert query.has_collisions_between_branches(f_A, f_B) == \
                any(d < 0 for d in distances)
            closest = query.compute_min_distance_between_branches(f_A, f_B)
            if not pairs:
                assert closest is None
                continue
            assert closest.distance == pytest.approx(min(distances), abs=1e-12)
            assert (closest.id_A, closest.id_B) in pairs


def test_branch_queries_reject_overlapping_branches():
    spec, ours = _scene(0)
    child = next(k for k, frame in enumerate(spec.frames) if frame.parent is not None)
    query = ours.scene_graph.query_object()
    with pytest.raises(ValueError, match="the two branches share geometry"):
        query.has_collisions_between_branches(ours.frame_ids[spec.frames[child].parent],
                                              ours.frame_ids[child])


def test_inspector_describes_the_scene():
    spec, ours = _scene(0)
    inspector = ours.scene_graph.query_object().inspector()
    assert isinstance(inspector, SceneGraphInspector)
    assert inspector.num_geometries() == len(spec.geometries)
    assert inspector.num_anchored_geometries() == sum(g.frame is None for g in spec.geometries)
    for geometry_id, geometry in zip(ours.geometry_ids, spec.geometries):
        assert inspector.get_name(geometry_id) == geometry.name
        assert inspector.get_shape(geometry_id) is geometry.shape


# ----------------------------------------------------------------- bad input


@pytest.fixture
def query_and_ids():
    spec, ours = _scene(0)
    return ours.scene_graph.query_object(), ours, spec


@pytest.mark.parametrize("p_WQ", [np.zeros(4), np.zeros((2, 3)), [1.0, 2.0]])
def test_point_of_wrong_shape_is_rejected(query_and_ids, p_WQ):
    query, _, _ = query_and_ids
    with pytest.raises(ValueError, match=r"p_WQ must have shape \(3,\)"):
        query.compute_signed_distance_to_point(p_WQ)


def test_point_query_skips_a_mesh_logs_it_once_and_answers_the_rest(tmp_path, caplog):
    """A mesh among compiled geometries: C answers the rest, the mesh is logged once."""
    from kernel_calls import point

    from geometry_core import Mesh

    obj = tmp_path / "tetra.obj"
    obj.write_text("v 0 0 0\nv 0.12 0 0\nv 0 0.12 0\nv 0 0 0.12\n"
                   "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    sg = SceneGraph()
    src = sg.register_source("mixed")
    shapes = [Sphere(0.1), Mesh(str(obj)), Box(0.2, 0.1, 0.3), Capsule(0.05, 0.2)]
    ids = []
    for k, shape in enumerate(shapes):
        gid = sg.register_anchored_geometry(src, GeometryInstance(
            RigidTransform([0.3 * k, 0.1, -0.2]), shape, f"g{k}"))
        sg.assign_role(src, gid, ProximityProperties())
        ids.append(gid)
    query = sg.query_object()
    caplog.set_level("WARNING", logger="geometry_core.proximity")
    for p_WQ in ([0.2, 0.0, 0.0], np.array([[0.5], [0.1], [-0.1]]), np.array([1, 0, 0])):
        results = query.compute_signed_distance_to_point(p_WQ)
        assert [r.id_G for r in results] == [ids[0], ids[2], ids[3]]
        p = np.asarray(p_WQ, dtype=float).reshape(3)
        for r in results:
            X_WG = query.get_pose_in_world(r.id_G).get_as_matrix4()
            expected = point(query.inspector().get_shape(r.id_G), X_WG, p)
            assert r.distance == pytest.approx(expected.distance, abs=1e-14)
            np.testing.assert_allclose(r.p_GN, expected.p_GN, atol=1e-14)
            np.testing.assert_allclose(r.grad_W, expected.grad_W, atol=1e-14)
            assert r.is_grad_W_unique == expected.is_grad_W_unique
    skipped = [m for m in caplog.messages if "skips mesh" in m]
    assert len(skipped) == 1 and "g1" in skipped[0]
    # Records own their vectors: writing one leaves the others alone.
    first, second = query.compute_signed_distance_to_point([0.2, 0.0, 0.0])[:2]
    before = second.p_GN.copy()
    first.p_GN[:] = 7.0
    np.testing.assert_array_equal(second.p_GN, before)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_point_is_rejected(query_and_ids, bad):
    query, _, _ = query_and_ids
    with pytest.raises(ValueError, match="p_WQ must be finite"):
        query.compute_signed_distance_to_point([0.0, bad, 0.0])


def test_nan_thresholds_are_rejected(query_and_ids):
    query, _, _ = query_and_ids
    with pytest.raises(ValueError, match="threshold must be a number"):
        query.compute_signed_distance_to_point(np.zeros(3), threshold=math.nan)
    with pytest.raises(ValueError, match="max_distance must be a number"):
        query.compute_signed_distance_pairwise_closest_points(max_distance=math.nan)


def test_unknown_geometry_id_is_a_key_error(query_and_ids):
    query, ours, _ = query_and_ids
    stranger = GeometryId.get_new_id()
    with pytest.raises(KeyError, match="not a geometry with the proximity role"):
        query.compute_signed_distance_pair_closest_points(stranger, ours.geometry_ids[0])
    with pytest.raises(KeyError, match="not a geometry with the proximity role"):
        query.compute_aabb_in_world(stranger)
    with pytest.raises(KeyError, match="not a registered geometry"):
        query.get_pose_in_world(stranger)


def test_filtered_pair_in_the_pair_query_is_a_value_error(query_and_ids):
    query, ours, spec = query_and_ids
    statement = next(s for s in spec.filters if s.kind == "exclude_within")
    a, b = (ours.geometry_ids[g] for g in statement.geometries_A)
    with pytest.raises(ValueError, match="is filtered"):
        query.compute_signed_distance_pair_closest_points(a, b)
    # Same-frame and anchored pairs are filtered too.
    anchored = [ours.geometry_ids[k] for k, g in enumerate(spec.geometries) if g.frame is None]
    with pytest.raises(ValueError, match="is filtered"):
        query.compute_signed_distance_pair_closest_points(*anchored[:2])


def test_pose_of_a_non_id_is_a_type_error(query_and_ids):
    query, _, _ = query_and_ids
    with pytest.raises(TypeError, match="expected a FrameId or GeometryId"):
        query.get_pose_in_world("frame_0")


# ------------------------------------------------------------------- threads


def test_a_snapshot_answers_the_same_from_four_threads_while_poses_change():
    spec, ours = _scene(3)
    sg = ours.scene_graph
    query = sg.query_object()
    expected = _answers(query)
    rng = np.random.default_rng(0)
    poses = [{f: sb.our_pose(sb.random_pose(rng, 0.3)) for f in ours.frame_ids}
             for _ in range(20)]
    mismatches, errors, rounds = [], [], []
    # Every worker and the main thread start together, and the workers keep
    # asking until the main thread has changed the poses 40 times: the
    # overlap does not depend on how fast either side is.
    start, stop = threading.Barrier(5), threading.Event()

    def worker():
        done = 0
        try:
            start.wait()
            while True:
                answers = _answers(query)
                done += 1
                if answers != expected:
                    mismatches.append(answers)
                if stop.is_set():
                    break
        except Exception as err:  # surfaced below with the thread's error
            errors.append(err)
        rounds.append(done)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    start.wait()
    for k in range(40):
        sg.set_poses(ours.source_id, poses[k % len(poses)])
        sg.query_object().has_collisions()
    stop.set()
    for thread in threads:
        thread.join()
    assert not errors
    assert not mismatches
    assert len(rounds) == 4 and min(rounds) >= 1
