"""Results encoded straight from the query records give the bytes of the message path.

The message path (``penetrations_to_msg`` / ``signed_distances_to_msg``, then
Cyclone's own serializer) is the reference; the encoder shares no code with
Cyclone's serializer, so equal bytes mean every field, its order, alignment
and padding agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from geometry_core import Box, GeometryInstance, ProximityProperties
from geometry_core.demo import PERIOD_S, make_demo_scene
from geometry_core.math import RigidTransform
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core_nodes.limits import MAX_STAMP_SEC
from geometry_core_nodes.outbound import (
    GeometryNames,
    penetrations_to_msg,
    signed_distances_to_msg,
)
from geometry_core_nodes.result_encoder import ResultEncoder
from geometry_core_nodes.transport import get_message_type as T


def _cyclone(msg) -> bytes:
    """What DataWriter.write sends: XCDR1, padded to a multiple of 4."""
    data = msg.serialize(use_version_2=False)
    return data.ljust((len(data) + 3) & ~3, b"\0")


def _queries(demo):
    """The demo arm along one period of its motion: in contact, near, and apart."""
    for t in np.linspace(0.0, PERIOD_S, 40, endpoint=False):
        demo.advance(t)
        yield demo.scene_graph.query_object()


@pytest.mark.parametrize("world_frame", ["world", "wörld_ünïcødé"])
def test_encoded_results_equal_the_serialized_messages(world_frame):
    demo = make_demo_scene()
    names = GeometryNames(demo.scene_graph.model_inspector(), world_frame)
    encoder = ResultEncoder(names)
    seen = {"penetrating": 0, "near": 0, "empty": 0}
    stamps = [1_700_000_000_123_456_789, -5, 0, (MAX_STAMP_SEC + 10) * 10**9]
    for n, query in enumerate(_queries(demo)):
        penetrations = query.compute_point_pair_penetration()
        distances = query.compute_signed_distance_pairwise_closest_points(0.1)
        stamp = stamps[n % len(stamps)]
        stale = [["upper_arm"], [], ["b", "a", "ccc"]][n % 3]
        lost = [[], ["gripper", "wrist"]][n % 2]
        data = encoder.penetrations(penetrations, stamp, stale, lost)
        msg = penetrations_to_msg(penetrations, names, stamp, stale, T, lost)
        assert data == _cyclone(msg)
        assert type(msg).deserialize(data) == msg
        data = encoder.signed_distances(distances, query.get_pose_in_world, 0.1, stamp, stale,
                                        lost)
        msg = signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, stamp,
                                      stale, T, lost)
        assert data == _cyclone(msg)
        seen["penetrating"] += bool(penetrations)
        seen["near"] += bool(distances)
        seen["empty"] += not penetrations
    assert all(seen.values()), seen


def test_world_witness_points_are_the_geometry_poses_applied():
    demo = make_demo_scene()
    names = GeometryNames(demo.scene_graph.model_inspector(), "world")
    encoder = ResultEncoder(names)
    for query in _queries(demo):
        distances = query.compute_signed_distance_pairwise_closest_points(0.1)
        if len(distances) >= 2:
            break
    msg = T("geometry_core_ros/msg/SignedDistancePairArray").deserialize(
        encoder.signed_distances(distances, query.get_pose_in_world, 0.1, 7, [], []))
    assert len(msg.pairs) == len(distances)
    for d, pair in zip(distances, msg.pairs):
        X_WA, X_WB = query.get_pose_in_world(d.id_A), query.get_pose_in_world(d.id_B)
        np.testing.assert_allclose([pair.p_wca.x, pair.p_wca.y, pair.p_wca.z],
                                   X_WA @ d.p_ACa, atol=1e-12)
        np.testing.assert_allclose([pair.p_wcb.x, pair.p_wcb.y, pair.p_wcb.z],
                                   X_WB @ d.p_BCb, atol=1e-12)
        assert (pair.geometry_a, pair.frame_a) == names(d.id_A)
        assert pair.distance == d.distance and pair.is_nhat_ba_w_unique == d.is_nhat_BA_W_unique


def test_poses_asked_all_at_once_give_the_bytes_of_poses_asked_one_by_one():
    demo = make_demo_scene()
    scene_graph = demo.scene_graph
    inspector = scene_graph.model_inspector()
    # A cloud on the gripper: its pairs' witness points go out in the cloud's frame.
    gripper = next(f for f in inspector.get_all_frame_ids() if inspector.get_name(f) == "gripper")
    source = next(s for s in inspector.get_all_source_ids()
                  if gripper in inspector.frames_for_source(s))
    cloud = scene_graph.register_point_cloud(
        source, gripper, np.array([[0.0, 0.0, 0.05], [0.02, -0.01, 0.0], [0.3, 0.3, 0.3]]), 0.02)
    clouds = {cloud: scene_graph.get_point_cloud(cloud)}
    names = GeometryNames(scene_graph.model_inspector(), "world", clouds)
    encoder = ResultEncoder(names)
    seen_cloud = 0
    for query in _queries(demo):
        distances = names.cloud_pairs_in_cloud_frames(
            query.compute_signed_distance_pairwise_closest_points(0.1))
        seen_cloud += any(cloud in (d.id_A, d.id_B) for d in distances)
        one_by_one = names.pose_of(query.get_pose_in_world)
        assert encoder.signed_distances(distances, names.poses_in_world(query), 0.1, 3, [],
                                        []) == \
            encoder.signed_distances(distances, one_by_one, 0.1, 3, [], [])
        assert signed_distances_to_msg(distances, names, names.poses_in_world(query), 0.1, 3,
                                       [], T) == \
            signed_distances_to_msg(distances, names, one_by_one, 0.1, 3, [], T)
    assert seen_cloud


def test_a_geometry_the_scene_does_not_have_raises_key_error():
    demo = make_demo_scene()
    encoder = ResultEncoder(GeometryNames(demo.scene_graph.model_inspector(), "world"))
    # Another scene's ids: the same names, but none of them registered in this one.
    foreign = make_demo_scene().scene_graph.query_object()
    distances = foreign.compute_signed_distance_pairwise_closest_points(10.0)
    assert distances
    with pytest.raises(KeyError):
        encoder.signed_distances(distances, lambda g: RigidTransform(), 10.0, 0, [], [])


_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, 1.7976931348623157e308]


def _numbers(rng, n: int) -> np.ndarray:
    values = rng.normal(size=n)
    special = rng.random(n) < 0.25
    values[special] = rng.choice(_SPECIAL, size=int(special.sum()))
    return values


@pytest.mark.parametrize("poses", ["all at once", "one by one"])
def test_random_results_with_special_numbers_give_the_serialized_messages(poses):
    """Made-up records with NaN, infinities and signed zeros give the message path's bytes.

    No pair, one, many: a few pair sequences in turn, so that a sequence laid
    out once is written again with other numbers.
    """
    demo = make_demo_scene()
    query = demo.scene_graph.query_object()
    inspector = demo.scene_graph.model_inspector()
    names = GeometryNames(inspector, "world")
    encoder = ResultEncoder(names)
    X_WG = names.poses_in_world(query) if poses == "all at once" else query.get_pose_in_world
    ids = sorted(inspector.get_all_geometry_ids())
    rng = np.random.default_rng(7)
    sequences = [[], [(ids[0], ids[3])], [(ids[k], ids[-1 - k]) for k in range(6)],
                 [(ids[1], ids[2])] * 3 + [(ids[2], ids[4])]]
    for trial in range(60):
        pairs = sequences[trial % len(sequences)]
        penetrations = [PenetrationAsPointPair(a, b, _numbers(rng, 3), _numbers(rng, 3),
                                               _numbers(rng, 3), float(_numbers(rng, 1)[0]))
                        for a, b in pairs]
        distances = [SignedDistancePair(a, b, _numbers(rng, 3), _numbers(rng, 3),
                                        float(_numbers(rng, 1)[0]), _numbers(rng, 3),
                                        bool(rng.random() < 0.5)) for a, b in pairs]
        stamp = int(rng.integers(-10**18, 10**18))
        stale = [[], ["upper_arm", "base"]][trial % 2]
        lost = [[], ["gripper"], ["ä", "bb", "c"]][trial % 3]
        max_distance = float(_numbers(rng, 1)[0])
        assert encoder.penetrations(penetrations, stamp, stale, lost) == _cyclone(
            penetrations_to_msg(penetrations, names, stamp, stale, T, lost))
        assert encoder.signed_distances(distances, X_WG, max_distance, stamp, stale, lost) == \
            _cyclone(signed_distances_to_msg(distances, names, X_WG, max_distance, stamp, stale,
                                             T, lost))


def test_layouts_kept_stay_bounded_and_right_when_the_pairs_keep_changing():
    demo = make_demo_scene()
    inspector = demo.scene_graph.model_inspector()
    names = GeometryNames(inspector, "world")
    encoder = ResultEncoder(names)
    ids = sorted(inspector.get_all_geometry_ids())
    rng = np.random.default_rng(3)
    for n in range(300):  # a new sequence of pairs every time, some longer than kept
        pairs = [(ids[a], ids[b]) for a, b in rng.integers(0, len(ids), (n % 70 + 1, 2))]
        penetrations = [PenetrationAsPointPair(a, b, _numbers(rng, 3), _numbers(rng, 3),
                                               _numbers(rng, 3), 0.5) for a, b in pairs]
        if n % 25 == 0:
            assert encoder.penetrations(penetrations, n, [], []) == _cyclone(
                penetrations_to_msg(penetrations, names, n, [], T))
        else:
            encoder.penetrations(penetrations, n, [], [])
    assert 0 < len(encoder._penetration_layouts) <= 64


def test_rows_of_one_pass_give_the_bytes_of_the_records_and_of_cyclone():
    """``compute_proximity_rows`` encoded: the records' bytes, while the world changes too.

    A box is added beside the arm halfway through (a new model, new ids),
    then moved now and then (a new model, the same ids), and the stale and
    lost frames change from query to query, so the layouts kept by rows and
    by records are both used, kept and renewed.
    """
    demo = make_demo_scene()
    scene_graph = demo.scene_graph
    names = GeometryNames(scene_graph.model_inspector(), "world")
    by_rows, by_records = ResultEncoder(names), ResultEncoder(names)
    stamps = [1_700_000_000_123_456_789, -5, 0, (MAX_STAMP_SEC + 10) * 10**9]
    seen = {"penetrating": 0, "near": 0}
    for n, t in enumerate(np.linspace(0.0, 2 * PERIOD_S, 80, endpoint=False)):
        if n == 40:
            source = scene_graph.register_source("objects")
            box = scene_graph.register_anchored_geometry(source, GeometryInstance(
                RigidTransform([0.35, 0.0, 0.45]), Box(0.1, 0.2, 0.3), "box"))
            scene_graph.assign_role(source, box, ProximityProperties())
        elif n > 40 and n % 7 == 0:  # moved: a new model of the same geometries
            scene_graph.change_pose(source, box, RigidTransform([0.35, 0.0, 0.4 + 0.01 * n]))
        demo.advance(t)
        query = scene_graph.query_object()
        rows = query.compute_proximity_rows(0.1)
        penetrations = query.compute_point_pair_penetration()
        distances = query.compute_signed_distance_pairwise_closest_points(0.1)
        stamp = stamps[n % len(stamps)]
        stale = [[], [], ["upper_arm"]][n % 3]
        lost = [[], ["gripper"]][(n // 5) % 2]
        # The frames as any iterable (a generator here, a tuple there): the same bytes.
        data = by_rows.penetration_rows(rows, stamp, (f for f in stale) if n % 2 else stale,
                                        tuple(lost) if n % 4 == 1 else lost)
        assert data == by_records.penetrations(penetrations, stamp, stale, lost)
        assert data == _cyclone(penetrations_to_msg(penetrations, names, stamp, stale, T, lost))
        data = by_rows.signed_distance_rows(rows, 0.1, stamp, stale, lost)
        assert data == by_records.signed_distances(distances, names.poses_in_world(query), 0.1,
                                                   stamp, stale, lost)
        assert data == _cyclone(signed_distances_to_msg(
            distances, names, query.get_pose_in_world, 0.1, stamp, stale, T, lost))
        seen["penetrating"] += bool(penetrations)
        seen["near"] += bool(distances)
    assert all(seen.values()), seen


@pytest.mark.parametrize("count", [0, 1, 16, 17, 40])
def test_signed_distances_of_few_and_many_pairs_give_the_serialized_messages(count):
    # Up to 16 pairs a sample is joined from the template's pieces, beyond
    # it is written by one array assignment: both give Cyclone's bytes.
    demo = make_demo_scene()
    query = demo.scene_graph.query_object()
    inspector = demo.scene_graph.model_inspector()
    names = GeometryNames(inspector, "world")
    encoder = ResultEncoder(names)
    ids = sorted(inspector.get_all_geometry_ids())
    rng = np.random.default_rng(count)
    for trial in range(3):
        pairs = [(ids[a], ids[b]) for a, b in rng.integers(0, len(ids), (count, 2))]
        distances = [SignedDistancePair(a, b, _numbers(rng, 3), _numbers(rng, 3),
                                        float(_numbers(rng, 1)[0]), _numbers(rng, 3),
                                        bool(rng.random() < 0.5)) for a, b in pairs]
        max_distance = float(_numbers(rng, 1)[0])
        stale = [[], ["base"]][trial % 2]
        assert encoder.signed_distances(distances, query.get_pose_in_world, max_distance, 5,
                                        stale, []) == \
            _cyclone(signed_distances_to_msg(distances, names, query.get_pose_in_world,
                                             max_distance, 5, stale, T, []))
