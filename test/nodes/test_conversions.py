"""Pure message conversions of the nodes: no node, no socket, no spinning."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from geometry_core.demo import make_demo_scene
from geometry_core.math import RigidTransform, RollPitchYaw
from geometry_core_nodes.inbound import PoseError, rigid_transform_from_transform, stamp_to_ns
from geometry_core_nodes.outbound import (
    ARROW_LENGTH_M,
    GeometryNames,
    clearance_color,
    ns_to_stamp,
    penetrations_to_msg,
    results_to_markers,
    signed_distances_to_msg,
)
from geometry_core_nodes.transport import get_message_type as T

_ref_spec = importlib.util.spec_from_file_location(
    "frame_pose_reference", Path(__file__).with_name("frame_pose_reference.py"))
frame_pose_reference = importlib.util.module_from_spec(_ref_spec)
# Registered first: its dataclass looks its module up by name.
sys.modules.setdefault("frame_pose_reference", frame_pose_reference)
_ref_spec.loader.exec_module(frame_pose_reference)
pose_stamped_to_frame_pose = frame_pose_reference.pose_stamped_to_frame_pose
tf_message_to_frame_poses = frame_pose_reference.tf_message_to_frame_poses
transform_stamped_to_frame_pose = frame_pose_reference.transform_stamped_to_frame_pose


def _transform(parent="world", child="link", xyz=(0.5, -1.25, 2.0), xyzw=(0, 0, 0, 1),
               sec=3, nanosec=7):
    x, y, z, w = xyzw
    return T("geometry_msgs/msg/TransformStamped")(
        header=T("std_msgs/msg/Header")(
            stamp=T("builtin_interfaces/msg/Time")(sec=sec, nanosec=nanosec), frame_id=parent),
        child_frame_id=child,
        transform=T("geometry_msgs/msg/Transform")(
            translation=T("geometry_msgs/msg/Vector3")(x=xyz[0], y=xyz[1], z=xyz[2]),
            rotation=T("geometry_msgs/msg/Quaternion")(x=x, y=y, z=z, w=w)))


def _pose_stamped(frame_id="", xyz=(1.0, 2.0, 3.0), xyzw=(0, 0, 0, 1)):
    x, y, z, w = xyzw
    return T("geometry_msgs/msg/PoseStamped")(
        header=T("std_msgs/msg/Header")(
            stamp=T("builtin_interfaces/msg/Time")(sec=1, nanosec=2), frame_id=frame_id),
        pose=T("geometry_msgs/msg/Pose")(
            position=T("geometry_msgs/msg/Point")(x=xyz[0], y=xyz[1], z=xyz[2]),
            orientation=T("geometry_msgs/msg/Quaternion")(x=x, y=y, z=z, w=w)))


# ------------------------------------------------------------------- inputs


def test_transform_stamped_gives_parent_child_pose_and_stamp():
    s = math.sqrt(0.5)
    pose = transform_stamped_to_frame_pose(_transform(xyzw=(0, 0, s, s)))
    assert (pose.parent, pose.child, pose.stamp_ns) == ("world", "link", 3_000_000_007)
    # ROS x, y, z, w = (0, 0, sin 45, cos 45): +90 degrees about z.
    expected = RigidTransform(RollPitchYaw(0, 0, math.pi / 2), [0.5, -1.25, 2.0])
    assert pose.X_PC.is_nearby(expected, 1e-12)


def test_quaternion_need_not_be_unit_and_leading_slashes_are_dropped():
    pose = transform_stamped_to_frame_pose(
        _transform(parent="/world", child="/link", xyzw=(0, 0, 2.0, 2.0)))
    assert (pose.parent, pose.child) == ("world", "link")
    np.testing.assert_allclose(pose.X_PC.rotation().matrix(),
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(xyz=(math.nan, 0, 0)), r"frame 'link': transform.translation is not finite"),
    (dict(xyz=(0, math.inf, 0)), r"frame 'link': transform.translation is not finite"),
    (dict(xyzw=(0, math.nan, 0, 1)), r"frame 'link': transform.rotation is not finite"),
    (dict(xyzw=(0, 0, 0, 0)), r"frame 'link': transform.rotation is the zero quaternion"),
    (dict(nanosec=2**32 - 1), r"frame 'link': header.stamp.nanosec must be in 0..999999999, "
                              r"not 4294967295"),
    (dict(child="c" * 300), r"child_frame_id is 300 characters long, more than 256: 'c{80}"
                            r"\.\.\.\(300 characters\)'"),
    (dict(parent="p" * 10**6), r"header.frame_id is 1000000 characters long"),
    (dict(child=""), r"transform from 'world' has an empty child_frame_id"),
    (dict(parent=""), r"frame 'link': header.frame_id is empty"),
    (dict(parent="link"), r"frame 'link': header.frame_id names the frame itself"),
])
def test_bad_transforms_raise_naming_frame_and_field(kwargs, match):
    with pytest.raises(PoseError, match=match) as info:
        transform_stamped_to_frame_pose(_transform(**kwargs))
    assert isinstance(info.value, ValueError)
    assert info.value.frame == ("" if kwargs.get("child", "link") != "link" else "link")
    assert len(str(info.value)) < 200


def test_bad_stamps_and_names_are_their_own_kinds_of_drop():
    with pytest.raises(PoseError, match="nanosec") as stamp:
        transform_stamped_to_frame_pose(_transform(nanosec=10**9))
    with pytest.raises(PoseError, match="characters long") as name:
        pose_stamped_to_frame_pose(_pose_stamped(frame_id="w" * 257), "gripper", "world")
    assert (stamp.value.kind, name.value.kind) == ("bad_stamp", "bad_name")
    assert PoseError("f", "m").kind == "bad_pose"


@pytest.mark.parametrize("norm", [1e-300, 1e-200, 1e200, 1e300])
def test_any_finite_nonzero_quaternion_length_gives_its_rotation(norm):
    # Norm 1e300 was read as the identity: squaring overflowed before scaling.
    s = math.sqrt(0.5) * norm
    pose = transform_stamped_to_frame_pose(_transform(xyzw=(0, 0, s, s)))
    np.testing.assert_allclose(pose.X_PC.rotation().matrix(),
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


@pytest.mark.parametrize("stamp_ns, sec, nanosec", [
    (1_700_000_000_000_000_005, 1_700_000_000, 5),
    ((2**31 - 1) * 10**9 + 999_999_999, 2**31 - 1, 999_999_999),
    ((2**31 - 1) * 10**9 + 2**32 - 1, 2**31 - 1, 999_999_999),  # clamped, not overflowed
    (10**30, 2**31 - 1, 999_999_999),
    (-(2**31) * 10**9 - 1, -(2**31), 0),
])
def test_output_stamps_fit_the_int32_field(stamp_ns, sec, nanosec):
    stamp = ns_to_stamp(stamp_ns, T)
    assert (stamp.sec, stamp.nanosec) == (sec, nanosec)
    stamp.serialize()  # fits the wire types


def test_tf_message_converts_at_most_max_transforms():
    msg = T("tf2_msgs/msg/TFMessage")(transforms=[_transform(child=f"f{i}") for i in range(5)])
    poses, errors = tf_message_to_frame_poses(msg, 3)
    assert [p.child for p in poses] == ["f0", "f1", "f2"] and errors == []


def test_tf_message_keeps_good_transforms_and_reports_bad_ones():
    msg = T("tf2_msgs/msg/TFMessage")(transforms=[
        _transform(child="a"), _transform(child="b", xyz=(math.nan, 0, 0)), _transform(child="c")])
    poses, errors = tf_message_to_frame_poses(msg)
    assert [p.child for p in poses] == ["a", "c"]
    assert [e.frame for e in errors] == ["b"]


def test_pose_stamped_uses_the_default_parent_and_names_pose_fields():
    pose = pose_stamped_to_frame_pose(_pose_stamped(), "gripper", "world")
    assert (pose.parent, pose.child, pose.stamp_ns) == ("world", "gripper", 1_000_000_002)
    np.testing.assert_array_equal(pose.X_PC.translation(), [1.0, 2.0, 3.0])
    assert pose_stamped_to_frame_pose(_pose_stamped("wrist"), "gripper", "world").parent == "wrist"
    with pytest.raises(PoseError, match=r"frame 'gripper': pose.position is not finite"):
        pose_stamped_to_frame_pose(_pose_stamped(xyz=(0, 0, math.nan)), "gripper", "world")
    with pytest.raises(PoseError, match=r"frame 'gripper': pose.orientation is the zero"):
        pose_stamped_to_frame_pose(_pose_stamped(xyzw=(0, 0, 0, 0)), "gripper", "world")
    with pytest.raises(PoseError, match=r"names the frame itself"):
        pose_stamped_to_frame_pose(_pose_stamped("gripper"), "gripper", "world")


def test_transform_without_header():
    msg = _transform(xyz=(1, 2, 3)).transform
    np.testing.assert_array_equal(rigid_transform_from_transform(msg, "x").translation(), [1, 2, 3])


def test_stamps_round_trip():
    for ns in (0, 1, 999_999_999, 1_700_000_000_123_456_789):
        assert stamp_to_ns(ns_to_stamp(ns, T)) == ns
    assert (ns_to_stamp(1_500_000_000, T).sec, ns_to_stamp(1_500_000_000, T).nanosec) == \
        (1, 500_000_000)


# ------------------------------------------------------------------ results


@pytest.fixture(scope="module")
def contact():
    demo = make_demo_scene()
    demo.advance(1.8)
    query = demo.scene_graph.query_object()
    names = GeometryNames(demo.scene_graph.model_inspector(), "map")
    penetrations = query.compute_point_pair_penetration()
    distances = query.compute_signed_distance_pairwise_closest_points(0.1)
    assert penetrations and distances
    return demo, query, names, penetrations, distances


def _xyz(v):
    return [v.x, v.y, v.z]


def test_geometry_names_are_source_frame_geometry_and_world_frame_for_anchored(contact):
    demo, _, names, _, _ = contact
    assert names(demo.geometries["palm"]) == ("arm::gripper::palm", "gripper")
    assert names(demo.geometries["table"]) == ("environment::world::table", "map")


def test_penetrations_carry_every_field(contact):
    _, _, names, penetrations, _ = contact
    msg = penetrations_to_msg(penetrations, names, 1_700_000_000_000_000_005, {"b", "a"}, T)
    assert (msg.header.frame_id, msg.header.stamp.sec, msg.header.stamp.nanosec) == \
        ("map", 1_700_000_000, 5)
    assert list(msg.stale_frames) == ["a", "b"]
    assert list(msg.lost_frames) == []
    lost = penetrations_to_msg(penetrations, names, 5, [], T, lost_frames=["z", "y"])
    assert list(lost.lost_frames) == ["y", "z"]
    assert len(msg.pairs) == len(penetrations)
    for pair, p in zip(msg.pairs, penetrations):
        assert (pair.geometry_a, pair.frame_a) == names(p.id_A)
        assert (pair.geometry_b, pair.frame_b) == names(p.id_B)
        assert pair.depth == p.depth > 0
        assert _xyz(pair.p_wca) == list(p.p_WCa)
        assert _xyz(pair.p_wcb) == list(p.p_WCb)
        assert _xyz(pair.nhat_ba_w) == list(p.nhat_BA_W)


def test_signed_distances_carry_every_field_and_world_witness_points(contact):
    _, query, names, _, distances = contact
    msg = signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, 42, [], T)
    assert msg.max_distance == 0.1 and msg.header.stamp.nanosec == 42
    assert list(msg.lost_frames) == []
    lost = signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, 42, [], T,
                                   lost_frames=["gripper"])
    assert list(lost.lost_frames) == ["gripper"]
    assert len(msg.pairs) == len(distances)
    for pair, d in zip(msg.pairs, distances):
        assert (pair.geometry_a, pair.frame_a) == names(d.id_A)
        assert (pair.geometry_b, pair.frame_b) == names(d.id_B)
        assert pair.distance == d.distance
        assert _xyz(pair.p_aca) == list(d.p_ACa) and _xyz(pair.p_bcb) == list(d.p_BCb)
        assert _xyz(pair.nhat_ba_w) == list(d.nhat_BA_W)
        assert pair.is_nhat_ba_w_unique == d.is_nhat_BA_W_unique
        np.testing.assert_allclose(_xyz(pair.p_wca),
                                   query.get_pose_in_world(d.id_A) @ d.p_ACa, atol=1e-15)
        np.testing.assert_allclose(_xyz(pair.p_wcb),
                                   query.get_pose_in_world(d.id_B) @ d.p_BCb, atol=1e-15)
        # The witness points in W are |distance| apart.
        gap = np.linalg.norm(np.subtract(_xyz(pair.p_wca), _xyz(pair.p_wcb)))
        assert gap == pytest.approx(abs(d.distance), abs=1e-6)


def test_signed_distances_accept_a_mapping_of_poses(contact):
    _, query, names, _, distances = contact
    poses = {g: query.get_pose_in_world(g) for d in distances for g in (d.id_A, d.id_B)}
    by_map = signed_distances_to_msg(distances, names, poses, 0.1, 0, [], T)
    by_call = signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, 0, [], T)
    assert by_map == by_call


@pytest.mark.parametrize("distance, rgba", [
    (-0.01, (1.0, 0.0, 0.0, 1.0)), (0.0, (1.0, 0.0, 0.0, 1.0)),
    (0.05, (0.5, 0.5, 0.0, 1.0)), (0.1, (0.0, 1.0, 0.0, 1.0)), (0.3, (0.0, 1.0, 0.0, 1.0))])
def test_clearance_color_runs_red_to_green(distance, rgba):
    assert clearance_color(distance, 0.1) == pytest.approx(rgba)
    assert clearance_color(0.01, 0.0) == (0.0, 1.0, 0.0, 1.0)


def test_markers_delete_all_then_points_arrows_and_coloured_segments(contact):
    _, query, names, penetrations, distances = contact
    clearance = signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, 9, [], T)
    Marker = T("visualization_msgs/msg/Marker")
    msg = results_to_markers(penetrations, clearance, 0.1, 9, "map", T)
    markers = msg.markers
    assert markers[0].action == Marker.DELETEALL
    assert all(m.header.frame_id == "map" and m.header.stamp.nanosec == 9 for m in markers)
    spheres = [m for m in markers if m.ns == "penetration_points"]
    assert [(m.id, m.type) for m in spheres] == [(0, Marker.SPHERE_LIST)]
    assert len(spheres[0].points) == 2 * len(penetrations)
    arrows = [m for m in markers if m.ns == "penetration_normals"]
    assert [m.id for m in arrows] == list(range(len(penetrations)))
    for arrow, p in zip(arrows, penetrations):
        assert arrow.type == Marker.ARROW
        start, tip = (np.array(_xyz(q)) for q in arrow.points)
        np.testing.assert_allclose(start, p.p_WCb)
        np.testing.assert_allclose(tip - start, ARROW_LENGTH_M * p.nhat_BA_W, atol=1e-15)
    (lines,) = [m for m in markers if m.ns == "clearance"]
    assert (lines.id, lines.type) == (0, Marker.LINE_LIST)
    assert len(lines.points) == len(lines.colors) == 2 * len(distances)
    for n, pair in enumerate(clearance.pairs):
        colour = lines.colors[2 * n]
        assert (colour.r, colour.g, colour.b, colour.a) == \
            pytest.approx(clearance_color(pair.distance, 0.1))
        assert _xyz(lines.points[2 * n]) == _xyz(pair.p_wca)


def test_markers_without_results_only_delete():
    empty = T("geometry_core_ros/msg/SignedDistancePairArray")()
    msg = results_to_markers([], empty, 0.1, 0, "world", T)
    assert [m.action for m in msg.markers] == [T("visualization_msgs/msg/Marker").DELETEALL]
