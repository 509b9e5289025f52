"""Result records as structured rows: every field's bits, and the witness points in W.

The reference reads each record's fields in Python and packs them with
``struct`` (no code shared with the compiled reader); the world witness
points are the pose applied in Python floats, coordinate by coordinate,
``r0 a0 + r1 a1 + r2 a2 + t``, which the compiled loop must reproduce to the
bit. Random records include NaN, infinities, signed zeros and subnormals.

``QueryObject.compute_proximity_rows`` (both queries from one pass of the
kernels) is compared, every byte, with the rows of the two record queries
read by those functions, on random scenes of every primitive, the demo arm
and scenes whose pairs the kernels leave to Python.
"""

from __future__ import annotations

import math
import os
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from geometry_core import (
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    Mesh,
    ProximityProperties,
    SceneGraph,
    Sphere,
)
from geometry_core.demo import PERIOD_S, make_demo_scene
from geometry_core.math import RigidTransform, RollPitchYaw
from geometry_core.proximity.result_rows import (
    PENETRATION_ROW,
    SIGNED_DISTANCE_ROW,
    penetration_rows,
    signed_distance_rows,
)
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph import GeometryId

sys.path.insert(0, os.path.dirname(__file__))
from scene_builders import build_ours, random_scene_spec  # noqa: E402

_SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -1.7976931348623157e308]

# A box of 0.06 x 0.06 x 0.2 m, as an OBJ (eight vertices, twelve triangles).
_BOX_OBJ = Path(__file__).parents[1] / "data" / "meshes" / "forearm.obj"


def _numbers(rng, n: int) -> np.ndarray:
    """Random doubles, about one in five of them a special value."""
    values = rng.normal(scale=rng.choice([1e-6, 1.0, 1e6]), size=n)
    special = rng.random(n) < 0.2
    values[special] = rng.choice(_SPECIAL, size=int(special.sum()))
    return values


def _vector(rng) -> np.ndarray:
    return _numbers(rng, 3)


def _pose(rng) -> np.ndarray:
    return RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)),
                          rng.normal(size=3)).get_as_matrix4()


def _world(X: np.ndarray, p: np.ndarray) -> list[float]:
    (r00, r01, r02, t0), (r10, r11, r12, t1), (r20, r21, r22, t2) = X[:3].tolist()
    a0, a1, a2 = p.tolist()
    return [r00 * a0 + r01 * a1 + r02 * a2 + t0, r10 * a0 + r11 * a1 + r12 * a2 + t1,
            r20 * a0 + r21 * a1 + r22 * a2 + t2]


@pytest.mark.parametrize("count", [0, 1, 7, 40])
def test_penetration_rows_hold_each_fields_bits(count):
    rng = np.random.default_rng(count)
    records = [PenetrationAsPointPair(GeometryId.get_new_id(), GeometryId.get_new_id(),
                                      _vector(rng), _vector(rng), _vector(rng),
                                      float(_numbers(rng, 1)[0])) for _ in range(count)]
    rows = penetration_rows(records)
    assert rows.dtype == PENETRATION_ROW and rows.shape == (count,)
    expected = b"".join(struct.pack("=10d", p.depth, *p.p_WCa, *p.p_WCb, *p.nhat_BA_W)
                        for p in records)
    assert rows.tobytes() == expected


@pytest.mark.parametrize("count", [0, 1, 7, 40])
def test_signed_distance_rows_hold_each_fields_bits_and_the_world_points(count):
    rng = np.random.default_rng(100 + count)
    records = [SignedDistancePair(GeometryId.get_new_id(), GeometryId.get_new_id(),
                                  _vector(rng), _vector(rng), float(_numbers(rng, 1)[0]),
                                  _vector(rng), bool(rng.random() < 0.5))
               for _ in range(count)]
    poses = np.array([_pose(rng) for _ in range(2 * count)]).reshape(2 * count, 4, 4)
    rows = signed_distance_rows(records, poses)
    assert rows.dtype == SIGNED_DISTANCE_ROW and rows.shape == (count,)
    expected = b"".join(
        struct.pack("=10d?7x6d", d.distance, *d.p_ACa, *d.p_BCb, *d.nhat_BA_W,
                    d.is_nhat_BA_W_unique, *_world(poses[2 * k], d.p_ACa),
                    *_world(poses[2 * k + 1], d.p_BCb))
        for k, d in enumerate(records))
    assert rows.tobytes() == expected


def test_rows_of_query_results_equal_the_records():
    demo = make_demo_scene()
    seen = 0
    for t in np.linspace(0.0, PERIOD_S, 30, endpoint=False):
        demo.advance(t)
        query = demo.scene_graph.query_object()
        penetrations = query.compute_point_pair_penetration()
        rows = penetration_rows(penetrations)
        for p, row in zip(penetrations, rows):
            assert row["depth"] == p.depth
            np.testing.assert_array_equal(row["nhat_BA_W"], p.nhat_BA_W)
        distances = query.compute_signed_distance_pairwise_closest_points(0.1)
        poses = query.get_poses_in_world([g for d in distances for g in (d.id_A, d.id_B)])
        rows = signed_distance_rows(distances, poses)
        for d, row in zip(distances, rows):
            X_WA = query.get_pose_in_world(d.id_A)
            np.testing.assert_allclose(row["p_WCa"], X_WA @ d.p_ACa, rtol=0, atol=1e-15)
            assert row["is_nhat_BA_W_unique"] == d.is_nhat_BA_W_unique
        seen += len(distances)
    assert seen


def test_a_field_that_is_no_float64_vector_is_refused_by_name():
    good = np.zeros(3)
    record = PenetrationAsPointPair(GeometryId.get_new_id(), GeometryId.get_new_id(),
                                    good, np.zeros(3, dtype=np.float32), good, 0.5)
    with pytest.raises(TypeError, match="p_WCb"):
        penetration_rows([record])
    record = PenetrationAsPointPair(GeometryId.get_new_id(), GeometryId.get_new_id(),
                                    good, good, np.zeros(4), 0.5)
    with pytest.raises(ValueError, match="nhat_BA_W"):
        penetration_rows([record])
    record = PenetrationAsPointPair(GeometryId.get_new_id(), GeometryId.get_new_id(),
                                    good, good, good, "deep")
    with pytest.raises(TypeError):
        penetration_rows([record])


def test_signed_distance_rows_need_two_poses_per_pair():
    d = SignedDistancePair(GeometryId.get_new_id(), GeometryId.get_new_id(), np.zeros(3),
                           np.zeros(3), 0.1, np.array([1.0, 0.0, 0.0]), True)
    with pytest.raises(ValueError, match="world"):
        signed_distance_rows([d, d], np.tile(np.eye(4), (3, 1, 1)))


# ---------------------------------------------------------------- both queries as rows

def _reference_rows(query, max_distance, penetrations=True, distances=True):
    """Pair indices and rows of the two record queries, read by the functions above."""
    ids = list(query._scene.model.geometry_ids)

    def pairs(records):
        return np.array([[ids.index(r.id_A), ids.index(r.id_B)] for r in records],
                        dtype=np.int32).reshape(-1, 2)

    pen = query.compute_point_pair_penetration() if penetrations else []
    dist = (query.compute_signed_distance_pairwise_closest_points(max_distance)
            if distances else [])
    poses = query.get_poses_in_world([g for d in dist for g in (d.id_A, d.id_B)])
    return (pairs(pen), penetration_rows(pen), pairs(dist),
            signed_distance_rows(dist, poses.reshape(-1, 4, 4)))


def _assert_rows_equal(rows, reference):
    pen_ij, pen, dist_ij, dist = reference
    np.testing.assert_array_equal(rows.penetration_pairs, pen_ij)
    np.testing.assert_array_equal(rows.distance_pairs, dist_ij)
    assert rows.penetrations.dtype == PENETRATION_ROW
    assert rows.distances.dtype == SIGNED_DISTANCE_ROW
    # Every bit, padding included: the rows go into messages as they are.
    assert rows.penetrations.tobytes() == pen.tobytes()
    assert rows.distances.tobytes() == dist.tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_proximity_rows_equal_the_two_queries_records_bit_for_bit(seed):
    spec = random_scene_spec(seed, num_geometries=14, halfspaces=seed % 3 == 0)
    scene = build_ours(spec)
    rng = np.random.default_rng(seed)
    counts = [0, 0]
    for _ in range(6):
        scene.scene_graph.set_poses(scene.source_id, {
            f: RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.uniform(-0.2, 0.2, 3))
            for f in scene.frame_ids})
        query = scene.scene_graph.query_object()
        for max_distance in (0.0, 0.03, 0.1, math.inf):
            rows = query.compute_proximity_rows(max_distance)
            _assert_rows_equal(rows, _reference_rows(query, max_distance))
            counts[0] += len(rows.penetrations)
            counts[1] += len(rows.distances)
        _assert_rows_equal(query.compute_proximity_rows(0.05, distances=False),
                           _reference_rows(query, 0.05, distances=False))
        _assert_rows_equal(query.compute_proximity_rows(0.05, penetrations=False),
                           _reference_rows(query, 0.05, penetrations=False))
    assert all(counts), counts


def test_proximity_rows_of_the_demo_arm_along_its_motion():
    demo = make_demo_scene()
    seen = [0, 0]
    for t in np.linspace(0.0, PERIOD_S, 60, endpoint=False):
        demo.advance(t)
        query = demo.scene_graph.query_object()
        rows = query.compute_proximity_rows(0.1)
        _assert_rows_equal(rows, _reference_rows(query, 0.1))
        assert rows.geometry_ids == query._scene.model.geometry_ids
        seen[0] += len(rows.penetrations)
        seen[1] += len(rows.distances)
    assert all(seen), seen


def _mesh_and_ball(ball_z):
    """A mesh box on a frame at the origin, and an anchored 0.2 m ball at height ``ball_z``."""
    sg = SceneGraph()
    src = sg.register_source("s")
    frame = sg.register_frame(src, GeometryFrame("f"))
    mesh = sg.register_geometry(src, frame, GeometryInstance(
        RigidTransform(), Mesh(str(_BOX_OBJ)), "mesh"))
    ball = sg.register_anchored_geometry(src, GeometryInstance(
        RigidTransform([0.0, 0.0, ball_z]), Sphere(0.2), "ball"))
    for g in (mesh, ball):
        sg.assign_role(src, g, ProximityProperties())
    return sg, src, frame


def test_pairs_left_to_python_give_the_records_rows_too():
    # A mesh pair is answered in Python (FCL), two half spaces are an error:
    # the rows then come from the records, with the same errors.
    sg, src, frame = _mesh_and_ball(0.4)
    for z in (0.0, 0.25, 0.45):
        sg.set_poses(src, {frame: RigidTransform([0.0, 0.0, z])})
        query = sg.query_object()
        rows = query.compute_proximity_rows(0.1)
        _assert_rows_equal(rows, _reference_rows(query, 0.1))
    assert len(rows.penetrations) == 1 and len(rows.distances) == 1
    floor = sg.register_anchored_geometry(src, GeometryInstance(
        RigidTransform([0.0, 0.0, -1.0]), HalfSpace(), "floor"))
    plate = sg.register_geometry(src, frame, GeometryInstance(
        RigidTransform(), HalfSpace(), "plate"))
    for g in (floor, plate):
        sg.assign_role(src, g, ProximityProperties())
    query = sg.query_object()
    with pytest.raises(ValueError) as expected:
        query.compute_signed_distance_pairwise_closest_points(0.1)
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        query.compute_proximity_rows(0.1)


def test_proximity_rows_refuse_nan_and_point_clouds():
    demo = make_demo_scene()
    query = demo.scene_graph.query_object()
    with pytest.raises(ValueError, match="NaN"):
        query.compute_proximity_rows(math.nan)
    sg = demo.scene_graph
    source = sg.register_source("camera")
    sg.register_point_cloud(source, sg.world_frame_id(), np.zeros((3, 3)), radius=0.01,
                            name="cloud")
    with pytest.raises(ValueError, match="point cloud"):
        sg.query_object().compute_proximity_rows(0.1)


def test_the_scene_graphs_one_call_gives_the_query_objects_rows():
    # SceneGraph.compute_proximity_rows takes the snapshot itself: the same
    # rows, the same errors, and the query object's answer where it must.
    spec = random_scene_spec(3, num_geometries=14)
    scene = build_ours(spec)
    rng = np.random.default_rng(3)
    for _ in range(8):
        scene.scene_graph.set_poses(scene.source_id, {
            f: RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.uniform(-0.2, 0.2, 3))
            for f in scene.frame_ids})
        query = scene.scene_graph.query_object()
        for max_distance in (0.0, 0.1, math.inf):
            _assert_rows_equal(scene.scene_graph.compute_proximity_rows(max_distance),
                               _reference_rows(query, max_distance))
        _assert_rows_equal(scene.scene_graph.compute_proximity_rows(0.1, penetrations=False),
                           _reference_rows(query, 0.1, penetrations=False))
    with pytest.raises(ValueError, match="NaN"):
        scene.scene_graph.compute_proximity_rows(math.nan)
    sg = scene.scene_graph
    late = sg.register_frame(scene.source_id, GeometryFrame("late"))
    sg.assign_role(scene.source_id, sg.register_geometry(scene.source_id, late, GeometryInstance(
        RigidTransform(), Sphere(0.1), "late_ball")), ProximityProperties())
    with pytest.raises(ValueError, match="no pose"):
        sg.compute_proximity_rows(0.1)


def test_the_scene_graphs_one_call_with_a_mesh_or_a_cloud_answers_as_the_query_object():
    sg, src, frame = _mesh_and_ball(0.25)
    sg.set_poses(src, {frame: RigidTransform()})
    rows = sg.compute_proximity_rows(0.1)
    _assert_rows_equal(rows, _reference_rows(sg.query_object(), 0.1))
    assert len(rows.penetrations) == 1
    sg.register_point_cloud(src, frame, np.zeros((2, 3)), radius=0.01)
    with pytest.raises(ValueError, match="point cloud"):
        sg.compute_proximity_rows(0.1)
