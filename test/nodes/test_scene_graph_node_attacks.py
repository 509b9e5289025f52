"""The scene graph node process against a hostile publisher, over the real DDS transport.

One node process (the demo arm, loopback-only Cyclone configuration, a DDS
domain of its own) takes every attack in turn; after each, the test sends
the arm's valid poses with a fresh stamp and checks that the node is alive
and answers them exactly as the library does (:func:`_assert_answers`).
Attacks that need a node of their own (a bad message latched on
/tf_static across a restart, enforced security) start their own.

Each test is one way an outside publisher can hurt a node:
invalid UTF-8, stamps beyond the int32 field and from 1970 and 2038,
quaternions of norm 1e300, NaN/inf/zero, unknown frames, cycles (lost
frames), floods, a 10 000-transform message, 1 MB names, wrong message
types.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from geometry_core_nodes.transport import TF, TF_STATIC, create_node, loopback_config

HERE = Path(__file__).parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


scenario = _load("node_scenario")
hostile = _load("hostile")

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 17) % 41)
_STAMPS = itertools.count(1)


def _domain_id() -> int:
    """A DDS domain per node, away from the other process tests' 60..114."""
    return 130 + next(_DOMAINS) % 41


class _Target:
    """The node process under attack and the test's peer, shared by this module's tests."""

    def __init__(self, tmp: Path) -> None:
        self.domain = _domain_id()
        params = scenario.write_params(tmp / "params.yaml", scene_file="builtin:demo",
                                       max_distance=0.1, stale_after_s=0.5,
                                       publish_markers=False)
        self.peer = scenario.Peer(self.domain)
        self.T = self.peer.message_type
        self.node = scenario.NodeProcess("scene_graph_node", params, self.domain)
        self.node.wait_for_line("ready on the dds backend")

    def assert_answers(self, t: float = scenario.T_CONTACT) -> object:
        """Valid poses of the whole arm with a fresh stamp: the node's answer is the library's."""
        assert self.node.process.poll() is None, f"the node died:\n{self.node.output}"
        stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
        valid = scenario.demo_transforms(self.T, t, stamp)
        msg = self.peer.wait_for("penetrations", lambda m: scenario.stamp_ns_of(m) == stamp,
                                 repeat=lambda: self.peer.tf.publish(valid))
        expected = scenario.reference(t)
        scenario.assert_pairs_match(scenario.pairs_as_dicts(msg), expected["penetrations"])
        assert list(msg.stale_frames) == [] and list(msg.lost_frames) == []
        clearance = self.peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp)
        scenario.assert_pairs_match(scenario.pairs_as_dicts(clearance), expected["clearance"])
        return msg

    def raw_writer(self, topic: str = "/tf", ros_type: str = "tf2_msgs/msg/TFMessage",
                   qos=TF) -> object:
        writer = hostile.RawWriter(self.domain, topic, ros_type, qos)
        deadline = time.monotonic() + 10
        while writer.matched() == 0:
            assert time.monotonic() < deadline, "the node's reader never matched"
            time.sleep(0.02)
        return writer

    def close(self) -> tuple[int, str]:
        returncode = self.node.stop()
        self.peer.shutdown()
        return returncode, self.node.output


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    node = _Target(tmp_path_factory.mktemp("attacks"))
    node.assert_answers()
    yield node
    returncode, log = node.close()
    assert returncode == 0, log
    assert "Traceback" not in log, log


def _assert_library_penetrations(msg) -> None:
    expected = scenario.reference(scenario.T_CONTACT)["penetrations"]
    scenario.assert_pairs_match(scenario.pairs_as_dicts(msg), expected)


def _tf(T, *transforms):
    return T("tf2_msgs/msg/TFMessage")(transforms=list(transforms))


def _arm_transform(T, frame: str, **override):
    parent, X = scenario.demo_poses(scenario.T_CONTACT)[frame]
    transform = scenario.make_transform(T, parent, frame, X, scenario.STAMP_NS)
    for key, value in override.items():
        if key in ("sec", "nanosec"):
            setattr(transform.header.stamp, key, value)
        else:
            setattr(transform, key, value)
    return transform


# -------------------------------------------------------------- failure modes


def test_frame_id_not_utf8_is_dropped_and_the_node_lives(target):
    writer = target.raw_writer()
    try:
        for field in ("child_frame_id", "frame_id"):
            transform = _arm_transform(target.T, "gripper")
            if field == "frame_id":
                transform.header.frame_id = hostile.PLACEHOLDER
            else:
                transform.child_frame_id = hostile.PLACEHOLDER
            writer.write(hostile.patch_string(_tf(target.T, transform)))
        target.node.wait_for_line("[undecodable #1]")
        target.assert_answers()
    finally:
        writer.close()
    assert "UnicodeDecodeError" in target.node.output


def test_stamp_beyond_a_second_of_nanoseconds_is_refused_not_carried_out(target):
    # sec 2^31-1, nanosec 2^32-1: legal on the wire, beyond the output's int32 sec.
    bad = _tf(target.T, _arm_transform(target.T, "gripper", sec=2**31 - 1, nanosec=2**32 - 1))
    target.peer.tf.publish(bad)
    target.node.wait_for_line("header.stamp.nanosec must be in 0..999999999, not 4294967295")
    target.assert_answers()


def test_quaternion_of_norm_1e300_gives_the_right_rotation(target):
    stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
    msg = scenario.demo_transforms(target.T, scenario.T_CONTACT, stamp)
    for transform in msg.transforms:
        q = transform.transform.rotation
        q.x, q.y, q.z, q.w = (1e300 * v for v in (q.x, q.y, q.z, q.w))
    answer = target.peer.wait_for("penetrations",
                                  lambda m: scenario.stamp_ns_of(m) == stamp,
                                  repeat=lambda: target.peer.tf.publish(msg))
    _assert_library_penetrations(answer)
    target.assert_answers()


def test_frame_whose_chain_loops_outside_the_scene_is_listed_as_lost(target):
    T = target.T
    stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
    loop = _tf(T, hostile.transform(T, "loop_b", "loop_a"),
               hostile.transform(T, "loop_a", "loop_b"))
    arm = scenario.demo_transforms(T, scenario.T_CONTACT, stamp, scenario.ARM_FRAMES[:-1])
    gripper = _arm_transform(T, "gripper")
    gripper.header.frame_id = "loop_a"
    gripper.header.stamp = arm.transforms[0].header.stamp

    def send():
        target.peer.tf.publish(loop)
        target.peer.tf.publish(_tf(T, *arm.transforms, gripper))

    msg = target.peer.wait_for("penetrations", lambda m: scenario.stamp_ns_of(m) == stamp,
                               repeat=send)
    # No pair with the gripper, and the result says why: its pose is unknown.
    assert list(msg.lost_frames) == ["gripper"]
    partial = scenario.reference(scenario.T_CONTACT, scenario.ARM_FRAMES[:-1])
    scenario.assert_pairs_match(scenario.pairs_as_dicts(msg), partial["penetrations"])
    clearance = target.peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp)
    assert list(clearance.lost_frames) == ["gripper"]
    target.assert_answers()


def test_a_parent_that_disappears_leaves_its_children_lost(target):
    # forearm is re-parented under a frame nobody publishes: it and its children are lost.
    T = target.T
    stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
    arm = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
    for transform in arm.transforms:
        if transform.child_frame_id == "forearm":
            transform.header.frame_id = "gone"
    msg = target.peer.wait_for("penetrations", lambda m: scenario.stamp_ns_of(m) == stamp,
                               repeat=lambda: target.peer.tf.publish(arm))
    assert list(msg.lost_frames) == ["forearm", "gripper", "wrist"]
    target.assert_answers()


def test_one_megabyte_frame_names_are_refused_and_logged_short(target):
    T = target.T
    for n in range(20):
        target.peer.tf.publish(_tf(T, hostile.transform(T, "world", f"{n}" + "x" * 10**6)))
    target.node.wait_for_line("child_frame_id is 1000001 characters long, more than 256")
    target.assert_answers()
    assert max(len(line) for line in target.node.lines) < 1000


def test_distinct_bad_names_do_not_multiply_the_log(target):
    T = target.T
    before = len(target.node.lines)
    for n in range(2000):
        target.peer.tf.publish(_tf(T, hostile.transform(T, "world", f"nan_{n}",
                                                        xyzw=(math.nan, 0, 0, 1))))
        if n % 100 == 0:
            target.peer.node.spin_once(0.01)  # pace: let the node take them
    target.assert_answers()
    # At most one line per kind of drop per 10 s, whatever the names.
    assert len(target.node.lines) - before <= 2, target.node.lines[before:]


def test_a_10000_frame_message_is_refused_whole_and_counted(target):
    T = target.T
    huge = _tf(T, *(hostile.transform(T, "world", f"many{n}") for n in range(10_000)))
    target.peer.tf.publish(huge)
    target.node.wait_for_line("a TFMessage of 10000 transforms of more than 1000 frames: "
                              "refused whole")
    target.assert_answers()


def test_10000_transforms_of_one_frame_are_answered_with_the_last(target):
    # The node kept the first 1000 and answered with the 1000th pose as if
    # it were the newest; the sender had replaced it in the same message.
    T = target.T
    stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
    arm = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
    gripper = next(t for t in arm.transforms if t.child_frame_id == "gripper")
    away = [_arm_transform(T, "gripper") for _ in range(9_999)]
    for t in away:
        t.header.stamp.sec, t.header.stamp.nanosec = stamp // 10**9, stamp % 10**9
        t.transform.translation.z += 5.0  # out of every contact
    others = [t for t in arm.transforms if t.child_frame_id != "gripper"]
    message = _tf(T, *others, *away, gripper)
    msg = target.peer.wait_for("penetrations", lambda m: scenario.stamp_ns_of(m) == stamp,
                               repeat=lambda: target.peer.tf.publish(message))
    _assert_library_penetrations(msg)
    target.assert_answers()


# ------------------------------------------------------- modes that already worked


@pytest.mark.parametrize("field, value", [
    ("rotation", (math.nan, 0.0, 0.0, 1.0)),
    ("rotation", (0.0, math.inf, 0.0, 1.0)),
    ("rotation", (0.0, 0.0, 0.0, 0.0)),
    ("translation", (math.nan, 0.0, 0.0)),
])
def test_non_finite_and_zero_quaternions_are_dropped(target, field, value):
    transform = _arm_transform(target.T, "gripper")
    part = getattr(transform.transform, field)
    for key, v in zip("xyzw", value):
        setattr(part, key, v)
    target.peer.tf.publish(_tf(target.T, transform))
    target.assert_answers()


def test_unknown_frames_and_wrong_parents_are_ignored(target):
    T = target.T
    wrong = _arm_transform(T, "gripper")
    wrong.header.frame_id = "base"
    target.peer.tf.publish(_tf(T, *(hostile.transform(T, f"nowhere{n}", f"unknown{n}")
                                    for n in range(100)), wrong))
    target.assert_answers()


@pytest.mark.parametrize("sec, nanosec", [(0, 1), (2**31 - 1, 999_999_999)])
def test_stamps_from_1970_and_2038_are_answered_with_their_stamp(target, sec, nanosec):
    T = target.T
    arm = scenario.demo_transforms(T, scenario.T_CONTACT, 0)
    for transform in arm.transforms:
        transform.header.stamp.sec, transform.header.stamp.nanosec = sec, nanosec
    msg = target.peer.wait_for(
        "penetrations",
        lambda m: (m.header.stamp.sec, m.header.stamp.nanosec) == (sec, nanosec),
        repeat=lambda: target.peer.tf.publish(arm))
    _assert_library_penetrations(msg)
    target.assert_answers()


def test_a_10_khz_flood_is_absorbed(target):
    T = target.T
    arm = scenario.demo_transforms(T, 0.3, scenario.STAMP_NS)
    start = time.perf_counter()
    for n in range(5000):  # 10 kHz for half a second
        target.peer.tf.publish(arm)
        delay = start + (n + 1) * 1e-4 - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    target.assert_answers()


def test_wrong_message_types_on_the_node_topics_are_not_delivered(target):
    # DDS matches readers and writers by type: a std_msgs/String writer on
    # rt/tf or a TFMessage writer on rt/penetrations meets no reader of ours.
    other = create_node("wrong_types", [], backend="dds", domain_id=target.domain,
                        dds_config=loopback_config())
    try:
        strings = other.create_publisher("std_msgs/msg/String", "/tf", TF)
        poses = other.create_publisher("geometry_msgs/msg/PoseStamped", "/tf_static", TF_STATIC)
        for _ in range(20):
            strings.publish(other.message_type("std_msgs/msg/String")(data="x" * 1000))
            poses.publish(other.message_type("geometry_msgs/msg/PoseStamped")())
            other.spin_once(0.01)
        assert strings.get_subscription_count() == 0
        target.assert_answers()
    finally:
        other.shutdown()


# ------------------------------------------------------------- nodes of their own


def test_bad_messages_latched_on_tf_static_do_not_crash_restarted_nodes(tmp_path):
    domain = _domain_id()
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   publish_markers=False)
    peer = scenario.Peer(domain)
    T = peer.message_type
    latched = hostile.RawWriter(domain, "/tf_static", "tf2_msgs/msg/TFMessage", TF_STATIC)
    try:
        # Both latched (transient local): every node that starts receives them first.
        latched.write(hostile.patch_string(_tf(T, hostile.transform(T, "world",
                                                                    hostile.PLACEHOLDER))))
        peer.tf_static.publish(_tf(T, _arm_transform(T, "base", sec=2**31 - 1,
                                                     nanosec=2**32 - 1)))
        for restart in range(2):
            with scenario.NodeProcess("scene_graph_node", params, domain) as node:
                node.wait_for_line("[undecodable #1]")
                node.wait_for_line("nanosec must be in 0..999999999")
                time.sleep(2.0)  # the crash came about 1.7 s after start
                assert node.process.poll() is None, node.output
                stamp = scenario.STAMP_NS + restart
                valid = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
                msg = peer.wait_for("penetrations",
                                    lambda m, stamp=stamp: scenario.stamp_ns_of(m) == stamp,
                                    repeat=lambda valid=valid: peer.tf.publish(valid))
                _assert_library_penetrations(msg)
            assert node.process.returncode == 0, node.output
    finally:
        latched.close()
        peer.shutdown()


def test_enforced_security_exits_2_without_touching_the_network(tmp_path):
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo")
    env = scenario.loopback_environment(_domain_id())
    env.update(GEOMETRY_CORE_TRANSPORT="dds", ROS_SECURITY_ENABLE="true",
               ROS_SECURITY_STRATEGY="Enforce")
    run = subprocess.run([sys.executable, "-m", "geometry_core_nodes.scene_graph_node",
                          "--ros-args", "--params-file", str(params)],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    assert ("scene_graph_node: error: ROS_SECURITY_ENABLE=true with "
            "ROS_SECURITY_STRATEGY=Enforce, but the DDS backend") in run.stderr
    assert "ready on the dds backend" not in run.stdout + run.stderr
