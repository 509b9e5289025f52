"""The demo motion node: the demo arm's frames on /tf, as the scene graph node expects them.

What ``ros2 launch ... demo:=true`` relies on, over the DDS backend on
loopback (the rclpy side is in ``test_ros2_launch.py``): the transforms the
node sends are the demo's own frame poses, and a scene graph node fed by it
alone publishes penetrations and clearances.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from geometry_core_nodes.demo_motion_node import DemoMotionNode
from geometry_core_nodes.transport import TF, ParameterError, create_node, loopback_config

_ref_spec = importlib.util.spec_from_file_location(
    "frame_pose_reference", Path(__file__).with_name("frame_pose_reference.py"))
frame_pose_reference = importlib.util.module_from_spec(_ref_spec)
# Registered first: its dataclass looks its module up by name.
sys.modules.setdefault("frame_pose_reference", frame_pose_reference)
_ref_spec.loader.exec_module(frame_pose_reference)
tf_message_to_frame_poses = frame_pose_reference.tf_message_to_frame_poses

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]


def test_published_transforms_are_the_demo_arm_at_that_time():
    domain = 40 + os.getpid() % 9
    options = dict(backend="dds", domain_id=domain, dds_config=loopback_config())
    # A timer period of 1000 s: only the explicit publish below is sent.
    motion = DemoMotionNode(["--ros-args", "-p", "rate_hz:=0.001"], **options)
    listener = create_node("listener", [], **options)
    received = []
    listener.create_subscription("tf2_msgs/msg/TFMessage", "/tf", received.append, TF)
    try:
        deadline = time.monotonic() + 20.0
        while not received and time.monotonic() < deadline:
            motion.publish(scenario.T_CONTACT)
            motion.spin_once(0.05)
            listener.spin_once(0.05)
    finally:
        motion.shutdown()
        listener.shutdown()
    assert received, "no /tf message from the demo motion node"
    poses, errors = tf_message_to_frame_poses(received[0])
    assert not errors
    expected = scenario.demo_poses(scenario.T_CONTACT)
    assert sorted(p.child for p in poses) == sorted(scenario.ARM_FRAMES)
    for pose in poses:
        parent, X_PF = expected[pose.child]
        assert pose.parent == parent
        np.testing.assert_allclose(pose.X_PC.get_as_matrix4(), X_PF.get_as_matrix4(),
                                   atol=1e-12)


def test_a_bad_rate_is_refused_with_its_name():
    with pytest.raises(ParameterError, match="rate_hz"):
        DemoMotionNode(["--ros-args", "-p", "rate_hz:=0"], backend="dds",
                       domain_id=40 + os.getpid() % 9, dds_config=loopback_config())


def test_scene_graph_node_fed_by_the_demo_motion_reports_contacts(tmp_path):
    domain = 30 + os.getpid() % 9
    scene_params = scenario.write_params(tmp_path / "scene.yaml", scene_file="builtin:demo",
                                         max_distance=0.1)
    motion_params = scenario.write_params(tmp_path / "motion.yaml", node="demo_motion_node",
                                          rate_hz=50.0)
    peer = scenario.Peer(domain)
    try:
        with scenario.NodeProcess("scene_graph_node", scene_params, domain) as node, \
                scenario.NodeProcess("demo_motion_node", motion_params, domain) as motion:
            node.wait_for_line("ready on the dds backend")
            motion.wait_for_line("ready on the dds backend")
            # One period of the motion (5 s) passes through the table, the ball and the shelf.
            contact = peer.wait_for("penetrations", lambda m: len(m.pairs) > 0, timeout=30.0)
            clearance = peer.wait_for("clearance", lambda m: len(m.pairs) > 0, timeout=30.0)
            assert not contact.lost_frames and not clearance.lost_frames
            touched = {p.frame_a for p in contact.pairs} | {p.frame_b for p in contact.pairs}
            assert touched & set(scenario.ARM_FRAMES), touched
            assert motion.stop() == 0, motion.output
            assert node.stop() == 0, node.output
    finally:
        peer.shutdown()
