"""Frame matching of the nodes' shared inputs, with callbacks called directly (no spinning).

A real DDS-backend node is created (loopback-only configuration, a domain
of its own) so that parameters and subscriptions are the real ones; the
messages are handed to the subscription callbacks by the test.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from geometry_core_nodes.scene_inputs import SceneInputs, load_scene_graph
from geometry_core_nodes.tf_arrays import TF_CODEC
from geometry_core_nodes.transport import ParameterError, create_node, loopback_config

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 11) % 37)
T_CONTACT = scenario.T_CONTACT
STAMP = scenario.STAMP_NS

URDF = """<?xml version="1.0"?>
<robot name="two_boxes">
  <link name="root"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="tip"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="root"/><child link="tip"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""


@pytest.fixture
def make_inputs():
    nodes = []

    def make(*params: str) -> SceneInputs:
        args = ["--ros-args", *[a for p in params for a in ("-p", p)]]
        node = create_node("inputs_test", args, backend="dds",
                           domain_id=10 + next(_DOMAINS) % 37, dds_config=loopback_config())
        nodes.append(node)
        return SceneInputs(node)

    yield make
    for node in nodes:
        node.shutdown()


def _tf(inputs, frames, stamp=STAMP, t=T_CONTACT, static=False, **override):
    msg = scenario.demo_transforms(inputs._node.message_type, t, stamp, frames)
    for transform in msg.transforms:
        for key, value in override.items():
            setattr(transform.header, key, value)
    (inputs._on_tf_static if static else inputs._on_tf)(msg)


def test_frames_without_pose_are_left_out_until_they_arrive(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    assert inputs.apply() is None  # no pose at all yet
    _tf(inputs, ("base", "turret", "upper_arm", "wrist", "gripper"))  # forearm missing
    state = inputs.apply()
    # wrist and gripper hang below forearm: without its pose they cannot be placed.
    assert state.missing_frames == ["forearm", "gripper", "wrist"]
    names = {inputs.names(g)[1] for g in state.usable_geometries}
    assert names == {"world", "base", "turret", "upper_arm"}
    full = inputs.scene_graph.query_object().compute_signed_distance_pairwise_closest_points(1.0)
    kept = state.keep(full)
    assert 0 < len(kept) < len(full)
    assert all(inputs.names(g)[1] in names for p in kept for g in (p.id_A, p.id_B))
    assert inputs.apply() is state and not inputs.changed  # nothing new: same state
    _tf(inputs, ("forearm",))
    assert inputs.changed
    state = inputs.apply()
    assert state.missing_frames == [] and state.usable_geometries is None
    assert state.keep(full) == full


def test_wrong_parent_is_dropped_and_counted(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    _tf(inputs, ("gripper",), frame_id="base")
    _tf(inputs, ("base",), frame_id="turret")
    assert inputs.counters["wrong_parent"] == 2
    assert "gripper" not in inputs.buffer and "base" not in inputs.buffer


def test_chain_through_odom_to_a_renamed_world_and_static_frames_never_stale(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo", "world_frame:=map", "stale_after_s:=0.5")
    Tmsg = inputs._node.message_type
    poses = scenario.demo_poses(T_CONTACT)
    _, X_WB = poses["base"]
    from geometry_core.math import RigidTransform

    odom = scenario.make_transform(Tmsg, "map", "odom", RigidTransform([1.0, 0, 0]), 0)
    base = scenario.make_transform(Tmsg, "odom", "base",
                                   RigidTransform([-1.0, 0, 0]) @ X_WB, STAMP)
    inputs._on_tf_static(Tmsg("tf2_msgs/msg/TFMessage")(transforms=[odom]))
    inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=[base]))
    _tf(inputs, scenario.ARM_FRAMES[1:], stamp=STAMP + 2 * 10**9)
    state = inputs.apply()
    assert state.missing_frames == []
    assert state.stamp_ns == STAMP + 2 * 10**9
    assert state.stale_frames == ["base"]  # its odom edge is 2 s old; map->odom is static
    expected = scenario.reference(T_CONTACT)["penetrations"]
    got = inputs.scene_graph.query_object().compute_point_pair_penetration()
    assert len(got) == len(expected)
    assert inputs.names(got[0].id_A)[1] != "world"


def test_disconnected_frame_is_counted(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    _tf(inputs, ("base",), frame_id="odom")  # odom never connected to world
    assert inputs.apply() is None
    assert inputs.counters["disconnected"] == 1


def test_nan_transform_is_dropped_others_in_the_message_kept(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    msg = scenario.demo_transforms(inputs._node.message_type, T_CONTACT, STAMP)
    msg.transforms[2].transform.translation.x = math.nan
    inputs._on_tf(msg)
    assert inputs.counters["bad_pose"] == 1
    assert inputs.apply().missing_frames == ["forearm", "gripper", "upper_arm", "wrist"]


def test_robot_description_topic_loads_a_urdf(make_inputs):
    inputs = make_inputs()
    assert inputs.scene_graph is None and inputs.apply() is None
    inputs._on_robot_description(inputs._node.message_type("std_msgs/msg/String")(data=URDF))
    inspector = inputs.scene_graph.model_inspector()
    assert sorted(inspector.get_name(f) for f in inspector.get_all_frame_ids()) == \
        ["root", "tip", "world"]
    inputs._on_robot_description(inputs._node.message_type("std_msgs/msg/String")(data="<robot"))
    assert inputs.counters["bad_scene"] == 1


def test_scene_file_may_be_a_xacro_robot(make_inputs, tmp_path):
    """The scene_file parameter takes a .urdf.xacro, expanded with its default arguments."""
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "tip.xacro").write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="tip">'
        '<link name="tip"><collision><geometry><sphere radius="${radius}"/></geometry>'
        '</collision></link></xacro:macro></robot>')
    robot = tmp_path / "robot" / "two.urdf.xacro"
    robot.parent.mkdir()
    robot.write_text(URDF.replace('<robot name="two_boxes">', '<robot name="two_boxes" '
                                  'xmlns:xacro="http://www.ros.org/wiki/xacro">'
                                  '<xacro:arg name="r" default="0.05"/>'
                                  '<xacro:property name="radius" value="$(arg r)"/>'
                                  '<xacro:include filename="$(find parts)/tip.xacro"/>')
                     .replace('<link name="tip"><collision><geometry><sphere radius="0.05"/>'
                              '</geometry></collision></link>', '<xacro:tip/>'))
    inputs = make_inputs(f"scene_file:={robot}", f"package_roots:=[parts={tmp_path / 'parts'}]")
    inspector = inputs.scene_graph.model_inspector()
    assert sorted(inspector.get_name(f) for f in inspector.get_all_frame_ids()) == \
        ["root", "tip", "world"]
    sphere = [g for g in inspector.get_all_geometry_ids() if inspector.get_name(g) == "collision"
              and inspector.get_name(inspector.get_frame_id(g)) == "tip"]
    assert inspector.get_shape(sphere[0]).radius == 0.05


def test_parameter_errors():
    with pytest.raises(ValueError, match="set scene_file or robot_description, not both"):
        load_scene_graph("builtin:demo", URDF, {})
    node = create_node("bad_params", ["--ros-args", "-p", "package_roots:=[nope]"],
                       backend="dds", domain_id=9, dds_config=loopback_config())
    try:
        with pytest.raises(ParameterError, match="expected 'package=/folder' entries"):
            SceneInputs(node)
    finally:
        node.shutdown()


def _capture_log(inputs) -> list[str]:
    lines: list[str] = []
    inputs._logger.warn = lines.append
    inputs._logger.info = lines.append
    return lines


def test_frame_whose_chain_stops_reaching_the_world_is_lost_not_silently_dropped(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    _tf(inputs, scenario.ARM_FRAMES)
    assert inputs.apply().missing_frames == []
    # The gripper is re-parented to a frame outside the scene whose chain loops.
    Tmsg = inputs._node.message_type
    from geometry_core.math import RigidTransform

    loop = [scenario.make_transform(Tmsg, "b", "a", RigidTransform(), STAMP + 1),
            scenario.make_transform(Tmsg, "a", "b", RigidTransform(), STAMP + 1)]
    inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=loop))
    _tf(inputs, ("gripper",), stamp=STAMP + 1, frame_id="a")
    state = inputs.apply()
    assert state.missing_frames == ["gripper"]
    assert inputs.counters["disconnected"] == 1
    assert all(inputs.names(g)[1] != "gripper" for g in state.usable_geometries)


def test_warnings_are_rate_limited_per_kind_not_per_name(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    lines = _capture_log(inputs)
    Tmsg = inputs._node.message_type
    transforms = []
    for n in range(500):
        t = scenario.make_transform(Tmsg, "world", f"junk{n}", scenario.demo_poses(0)["base"][1],
                                    STAMP)
        t.transform.rotation.w = math.nan
        transforms.append(t)
    for t in transforms:
        inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=[t]))
    assert inputs.counters["bad_pose"] == 500
    assert len(lines) == 1 and "[bad_pose #1]" in lines[0]


def test_a_message_of_too_many_frames_is_refused_whole_and_counted(make_inputs):
    from geometry_core_nodes.limits import MAX_TRANSFORMS_PER_MESSAGE

    inputs = make_inputs("scene_file:=builtin:demo")
    lines = _capture_log(inputs)
    Tmsg = inputs._node.message_type
    X = scenario.demo_poses(0)["base"][1]
    msg = Tmsg("tf2_msgs/msg/TFMessage")(transforms=[
        scenario.make_transform(Tmsg, "world", f"f{n}", X, STAMP)
        for n in range(MAX_TRANSFORMS_PER_MESSAGE + 250)])
    inputs._on_tf(msg)
    assert inputs.counters["too_many_transforms"] == MAX_TRANSFORMS_PER_MESSAGE + 250
    assert len(inputs.buffer) == 0
    assert any("refused whole" in line for line in lines)


def test_over_the_cap_the_newest_transform_of_each_frame_wins(make_inputs):
    # 10 000 transforms of one frame: the sender replaced all but the last.
    # The node used to keep the first 1000 and answer with the 1000th pose.
    inputs = make_inputs("scene_file:=builtin:demo")
    lines = _capture_log(inputs)
    Tmsg = inputs._node.message_type
    _tf(inputs, scenario.ARM_FRAMES, static=True)
    parent, X = scenario.demo_poses(0)["gripper"]
    transforms = [scenario.make_transform(Tmsg, parent, "gripper", X, STAMP)
                  for _ in range(10_000)]
    for n, t in enumerate(transforms):
        t.transform.translation.z = n * 1e-4
    inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=transforms))
    assert inputs.counters["too_many_transforms"] == 9_999
    assert any("the newest of each frame is used" in line for line in lines)
    inputs.apply()
    sg = inputs.scene_graph
    gripper = inputs._frames[inputs._frame_index["gripper"]].id
    X_PF = sg.query_object().get_pose_in_world(gripper)
    X_WP = sg.query_object().get_pose_in_world(sg.model_inspector().get_parent_frame(gripper))
    assert (X_WP.inverse() @ X_PF).translation()[2] == pytest.approx(9_999e-4, abs=1e-12)


def test_unknown_frames_are_capped_and_scene_frames_never_evicted(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    inputs.buffer.max_foreign_frames = 50
    _tf(inputs, scenario.ARM_FRAMES, static=True)
    Tmsg = inputs._node.message_type
    X = scenario.demo_poses(0)["base"][1]
    for n in range(300):
        inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=[
            scenario.make_transform(Tmsg, "world", f"unknown{n}", X, STAMP)]))
    assert len(inputs.buffer) == len(scenario.ARM_FRAMES) + 50
    assert inputs.counters["evicted_frame"] == 250
    assert inputs.apply().missing_frames == []


# A message whose frames and parents repeat an earlier one's takes the short
# path (SceneInputs._store_known): it must check and store exactly as the
# first message of its layout did.


def test_a_repeated_layout_still_checks_every_transform(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    _tf(inputs, scenario.ARM_FRAMES)
    _tf(inputs, scenario.ARM_FRAMES, stamp=STAMP + 1)
    assert inputs.apply().stamp_ns == STAMP + 1 and not inputs.counters
    msg = scenario.demo_transforms(inputs._node.message_type, T_CONTACT, STAMP + 2)
    msg.transforms[3].transform.rotation.w = math.nan
    inputs._on_tf(msg)
    assert inputs.counters["bad_pose"] == 1
    assert inputs.buffer.lookup("upper_arm", "forearm").newest_ns == STAMP + 1  # kept the old
    assert inputs.buffer.lookup("world", "base").newest_ns == STAMP + 2  # the others stored
    msg = scenario.demo_transforms(inputs._node.message_type, T_CONTACT, STAMP + 3)
    msg.transforms[0].header.stamp.nanosec = 10**9
    inputs._on_tf(msg)
    assert inputs.counters["bad_stamp"] == 1
    assert inputs.buffer.lookup("world", "base").newest_ns == STAMP + 2
    _tf(inputs, scenario.ARM_FRAMES, stamp=STAMP + 4)
    state = inputs.apply()
    assert state.stamp_ns == STAMP + 4 and state.missing_frames == []
    assert inputs.taken["tf"] == 5 and inputs.coalesced == 3


def test_a_repeated_layout_gives_the_poses_of_the_first_path(make_inputs):
    fast, slow = make_inputs("scene_file:=builtin:demo"), make_inputs("scene_file:=builtin:demo")
    for t in (0.3, T_CONTACT, 2.9):
        _tf(fast, scenario.ARM_FRAMES, t=t)
        slow._layouts.clear()  # every message of this one takes the general path
        _tf(slow, scenario.ARM_FRAMES, t=t)
        fast.apply()
        slow.apply()
        assert fast._layouts
        for frame_fast, frame_slow in zip(fast._frames, slow._frames):
            X_fast = fast.scene_graph.query_object().get_pose_in_world(frame_fast.id)
            X_slow = slow.scene_graph.query_object().get_pose_in_world(frame_slow.id)
            np.testing.assert_array_equal(X_fast.get_as_matrix4(), X_slow.get_as_matrix4())


def test_a_static_parent_set_after_a_layout_was_learned_still_wins(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    Tmsg = inputs._node.message_type
    from geometry_core.math import RigidTransform

    def camera(parent, x, stamp):
        return Tmsg("tf2_msgs/msg/TFMessage")(transforms=[
            scenario.make_transform(Tmsg, parent, "camera", RigidTransform([x, 0, 0]), stamp)])

    inputs._on_tf(camera("odom", 1.0, STAMP))
    inputs._on_tf(camera("odom", 2.0, STAMP + 1))
    inputs._on_tf_static(camera("world", 3.0, STAMP + 2))
    inputs._on_tf(camera("odom", 4.0, STAMP + 3))  # tf2 keeps the static parent
    assert inputs.buffer.parent_of("camera") == "world"
    assert inputs.buffer.lookup("world", "camera").X_PC[0, 3] == 3.0


def test_frames_outside_the_scene_in_a_repeated_layout_stay_recently_updated(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    inputs.buffer.max_foreign_frames = 2
    Tmsg = inputs._node.message_type
    from geometry_core.math import RigidTransform

    def send(*children):
        inputs._on_tf(Tmsg("tf2_msgs/msg/TFMessage")(transforms=[
            scenario.make_transform(Tmsg, "world", c, RigidTransform(), STAMP)
            for c in children]))

    send("a")
    send("b")
    send("a")  # a repeated layout: "a" is now the most recently updated
    send("c")  # evicts "b", the least recently updated
    assert "a" in inputs.buffer and "c" in inputs.buffer and "b" not in inputs.buffer
    assert inputs.counters["evicted_frame"] == 1


def _bytes_path(inputs):
    """Hand a message to ``_on_tf`` as the DDS backend does: its bytes, through the /tf codec."""
    decode = TF_CODEC.bytes_decoder(
        inputs._node.message_type("tf2_msgs/msg/TFMessage").deserialize)
    return lambda msg: inputs._on_tf(decode(msg.serialize(use_version_2=False)))


def test_a_repeated_layout_of_bytes_checks_every_transform_in_one_call(make_inputs):
    inputs = make_inputs("scene_file:=builtin:demo")
    send = _bytes_path(inputs)
    T = inputs._node.message_type
    send(scenario.demo_transforms(T, T_CONTACT, STAMP))
    send(scenario.demo_transforms(T, T_CONTACT, STAMP + 1))
    assert inputs.apply().stamp_ns == STAMP + 1 and not inputs.counters
    assert inputs._layouts  # the second message came through the layout's path
    for k, (field, value, kind) in enumerate([("w", math.nan, "bad_pose"),
                                              ("x", math.inf, "bad_pose"),
                                              ("zero", 0.0, "bad_pose"),
                                              ("nanosec", 10**9, "bad_stamp")]):
        msg = scenario.demo_transforms(T, T_CONTACT, STAMP + 2 + k)
        bad = msg.transforms[3]
        if field == "nanosec":
            bad.header.stamp.nanosec = value
        elif field == "zero":
            for axis in "xyzw":
                setattr(bad.transform.rotation, axis, 0.0)
        else:
            setattr(bad.transform.rotation, field, value)
        counted = inputs.counters[kind]
        send(msg)
        assert inputs.counters[kind] == counted + 1
        # The bad transform is left out, the others stored, as the general path does.
        assert inputs.buffer.lookup("upper_arm", "forearm").newest_ns == STAMP + 1
        assert inputs.buffer.lookup("world", "base").newest_ns == STAMP + 2 + k
    send(scenario.demo_transforms(T, T_CONTACT, STAMP + 9))
    state = inputs.apply()
    assert state.stamp_ns == STAMP + 9 and state.missing_frames == []
    assert inputs.taken["tf"] == 7


def test_bytes_of_a_repeated_layout_store_what_the_general_path_stores(make_inputs):
    fast, slow = make_inputs("scene_file:=builtin:demo"), make_inputs("scene_file:=builtin:demo")
    send_fast, send_slow = _bytes_path(fast), _bytes_path(slow)
    T = fast._node.message_type
    rng = np.random.default_rng(11)
    special = [0.0, -0.0, 5e-324, -1e300, 1e-300]
    for n in range(60):
        msg = scenario.demo_transforms(T, 3.0 * rng.random(), STAMP + n)
        for transform in msg.transforms:
            transform.header.stamp.sec = int(rng.integers(-2**31, 2**31))
            transform.header.stamp.nanosec = int(rng.integers(0, 10**9))
            v = transform.transform.translation
            v.x, v.y, v.z = (float(rng.choice(special)) if rng.random() < 0.2 else
                             float(rng.normal(scale=100.0)) for _ in range(3))
        send_fast(msg)
        slow._layouts.clear()  # every message of this one takes the general path
        send_slow(msg)
        # Every bit of every number (a zero's sign too), and the stamps.
        assert np.array(fast.buffer._values, dtype=float).tobytes() == \
            np.array(slow.buffer._values, dtype=float).tobytes()
        assert fast.buffer._stamps == slow.buffer._stamps
        assert fast.buffer.version > 0 and fast.counters == slow.counters
    assert fast._layouts


def _mutated(rng, data: bytes, layout) -> bytes:
    """``data`` changed the way a broken or hostile writer might change it."""
    out = bytearray(data)
    kind = rng.integers(8)
    number = layout.values_at[rng.integers(len(layout.values_at))] + 8 * int(rng.integers(7))
    stamp = layout.stamp_at[rng.integers(len(layout.stamp_at))]
    specials = [math.nan, math.inf, -math.inf, 1.7e308, -1.7e308, 5e-324, -0.0, 0.0]
    if kind == 0:  # bit flips anywhere
        for at in rng.integers(len(out), size=rng.integers(1, 4)):
            out[at] ^= 1 << int(rng.integers(8))
    elif kind == 1:  # cut short
        del out[rng.integers(len(out)):]
    elif kind == 2:  # longer
        out += rng.integers(256, size=rng.integers(1, 80)).astype(np.uint8).tobytes()
    elif kind == 3:  # a number: special values or random bits, in the message's own order
        out[number:number + 8] = (struct.pack("<d", specials[rng.integers(len(specials))])
                                  if rng.random() < 0.7 else rng.bytes(8))
    elif kind == 4:  # a stamp: random, or at the edges of its fields
        out[stamp:stamp + 8] = rng.bytes(8) if rng.random() < 0.5 else struct.pack(
            "<iI", int(rng.choice([0, -1, 2**31 - 1, -2**31])),
            int(rng.choice([0, 10**9 - 1, 10**9, 2**32 - 1])))
    elif kind == 5:  # any aligned 4 bytes as a length: a sequence's or a string's
        at = 4 * int(rng.integers(1, len(out) // 4))
        out[at:at + 4] = struct.pack("<I", int(rng.choice(
            [0, 1, 2, 3, 5, 8, 255, 2**31, 2**32 - 1, int(rng.integers(2**32))])))
    elif kind == 6:  # a name's byte: a zero, a slash, a letter, invalid UTF-8
        out[rng.integers(8, len(out))] = int(rng.choice([0, 0x2F, 0x41, 0xC3, 0xFF]))
    else:  # the encapsulation header
        out[rng.integers(4)] = int(rng.choice([0, 1, 2, 3, 7, 0xFF]))
    return bytes(out)


def test_mutated_bytes_of_a_known_layout_store_what_the_deserializer_and_general_path_store(
        make_inputs):
    """Thousands of broken /tf samples: each refused as Cyclone refuses it, or stored as it is.

    The fast side reads every sample through a decoder that knows the
    message's layout and the node's remembered layout (one compiled call for
    the numbers); the reference side takes Cyclone's deserializer and the
    general path. After every sample both buffers hold the same bits, the
    same stamps and parents, and the same counters.
    """
    from geometry_core_nodes.tf_arrays import TfDecoder

    fast, slow = make_inputs("scene_file:=builtin:demo"), make_inputs("scene_file:=builtin:demo")
    T = fast._node.message_type
    cls = T("tf2_msgs/msg/TFMessage")
    decode = TfDecoder(cls.deserialize)
    rng = np.random.default_rng(17)
    counts = Counter()
    for n in range(2000):
        good = scenario.demo_transforms(T, 3.0 * (n % 7) / 7, STAMP + 2 * n)
        data = bytes(good.serialize(use_version_2=False))
        for _ in range(2):  # the second takes the remembered layout's path
            arrays = decode(data)
            fast._on_tf(arrays)
        slow._on_tf(good)
        assert fast._layouts and arrays.data is not None
        bad = _mutated(rng, data, arrays.layout)
        try:
            arrays = decode(bad)
        except Exception as err:  # noqa: BLE001 - the transport counts any of them
            fast_error = err
        else:
            fast_error = None
        try:
            msg = cls.deserialize(bad)
        except Exception:  # noqa: BLE001
            msg = None
        if fast_error is not None:
            # Refused as Cyclone refuses it, or for a string without its
            # terminating zero, which Cyclone's C reader refuses too.
            assert msg is None or "zero byte" in str(fast_error), (n, bad)
            counts["refused"] += 1
            continue
        assert msg is not None, (n, bad)
        counts["known layout" if arrays.data is not None else "decoded"] += 1
        fast._on_tf(arrays)
        slow._layouts.clear()  # the reference never takes a remembered layout
        slow._on_tf(msg)
        assert np.array(fast.buffer._values, dtype=float).tobytes() == \
            np.array(slow.buffer._values, dtype=float).tobytes(), (n, bad)
        assert fast.buffer._stamps == slow.buffer._stamps, (n, bad)
        assert fast.buffer._parents == slow.buffer._parents, (n, bad)
        assert fast.counters == slow.counters, (n, bad)
    # Every way was taken many times, and refusals were counted as drops.
    assert min(counts.values()) > 200 and len(counts) == 3, counts
    assert fast.counters["bad_pose"] > 40 and fast.counters["bad_stamp"] > 20
