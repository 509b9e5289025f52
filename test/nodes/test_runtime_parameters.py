"""Parameters a running node takes: checked, applied, or refused as read-only.

The store's rules (without DDS), the scene graph node on the DDS backend
(``set_parameter``), and the real thing: ``ros2 param set`` against the node
running on rclpy, whose results change with ``max_distance`` (skipped where
``ros2`` and rclpy are not installed; CI runs it with ROS 2 Humble).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from geometry_core_nodes.transport import ParameterError, at_least
from geometry_core_nodes.transport.params import ParameterAssignment, ParameterStore

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)


def _store(**overrides):
    assignments = [ParameterAssignment("/**", k, v, "-p") for k, v in overrides.items()]
    return ParameterStore("/node", assignments)


def test_a_settable_parameter_is_checked_then_applied():
    applied = []
    store = _store()
    store.declare("max_distance", 0.1, check=at_least("max_distance", 0.0),
                  on_set=applied.append)
    assert store.set("max_distance", 2) == 2.0  # an int for a float, as in rclpy
    assert applied == [2.0] and store.get("max_distance") == 2.0
    assert not store.is_read_only("max_distance")
    with pytest.raises(ParameterError, match=r"'max_distance' must be a finite number >= 0"):
        store.set("max_distance", -1.0)
    with pytest.raises(ParameterError, match=r"'max_distance': expected float but got 'abc'"):
        store.set("max_distance", "abc")
    with pytest.raises(ParameterError, match=r"'max_distance' must be a finite number"):
        store.set("max_distance", float("nan"))
    assert applied == [2.0] and store.get("max_distance") == 2.0  # refused: nothing changed


def test_a_parameter_without_on_set_is_read_only():
    store = _store(scene_file="a.yaml")
    assert store.declare("scene_file", "") == "a.yaml"
    assert store.is_read_only("scene_file")
    with pytest.raises(ParameterError, match=r"'scene_file' is read-only: it is read once"):
        store.set("scene_file", "/does/not/exist.yaml")
    with pytest.raises(ParameterError, match=r"'nothing' is not declared"):
        store.set("nothing", 1.0)


def test_the_check_refuses_a_bad_starting_value():
    with pytest.raises(ParameterError, match=r"'rate_hz' must be a finite number >= 0, not -1"):
        _store(rate_hz=-1.0).declare("rate_hz", 0.0, check=at_least("rate_hz", 0.0),
                                     on_set=print)


@pytest.mark.network
@pytest.mark.dds
def test_scene_graph_node_applies_parameters_set_at_run_time():
    from geometry_core_nodes.scene_graph_node import SceneGraphNode
    from geometry_core_nodes.transport import loopback_config

    domain = 40 + os.getpid() % 7
    node = SceneGraphNode(["--ros-args", "-p", "scene_file:=builtin:demo"], backend="dds",
                          domain_id=domain, dds_config=loopback_config())
    try:
        settable = {"max_distance", "rate_hz", "publish_markers", "stale_after_s",
                    "min_query_period_s"}
        store = node.node.parameters
        assert {n for n in store.describe() if not store.is_read_only(n)} == settable
        node.node.set_parameter("max_distance", 0.3)
        assert node.max_distance == 0.3
        node.node.set_parameter("stale_after_s", 2.0)
        assert node.inputs.params.stale_after_s == 2.0
        node.node.set_parameter("rate_hz", 20.0)
        assert node._timer is not None and node._timer.period_s == pytest.approx(0.05)
        node.node.set_parameter("rate_hz", 0.0)
        assert node._timer is None
        node.node.set_parameter("publish_markers", False)
        assert node.publish_markers is False
        with pytest.raises(ParameterError, match="'max_distance' must be a finite number >= 0"):
            node.node.set_parameter("max_distance", -1.0)
        with pytest.raises(ParameterError, match="'clearance_topic' is read-only"):
            node.node.set_parameter("clearance_topic", "other")
        assert node.max_distance == 0.3
    finally:
        node.shutdown()


def _ros2_param(env, *args):
    done = subprocess.run(["ros2", "param", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    return done.stdout + done.stderr


@pytest.mark.network
@pytest.mark.dds
def test_ros2_param_set_changes_the_results_of_the_rclpy_node(tmp_path, monkeypatch):
    pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
    pytest.importorskip("geometry_core_ros.msg", reason="geometry_core_ros messages not generated")
    if shutil.which("ros2") is None:
        pytest.skip("the ros2 command comes with a ROS 2 installation")
    domain = 50 + os.getpid() % 7
    env = scenario.loopback_environment(domain)
    env["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=0.1)
    peer = scenario.Peer(domain, backend="rclpy")
    T = peer.message_type
    stamps = iter(range(scenario.STAMP_NS, scenario.STAMP_NS + 1000))

    def clearance_after_new_poses():
        stamp = next(stamps)
        poses = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
        msg = peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp,
                            repeat=lambda: peer.tf.publish(poses))
        return msg.max_distance, scenario.pairs_as_dicts(msg)

    try:
        with scenario.NodeProcess("scene_graph_node", params, domain, backend="rclpy") as node:
            node.wait_for_line("ready on the rclpy backend")
            before = clearance_after_new_poses()
            assert before[0] == pytest.approx(0.1)
            scenario.assert_pairs_match(before[1], scenario.reference(
                scenario.T_CONTACT, max_distance=0.1)["clearance"])

            out = _ros2_param(env, "set", "--no-daemon", "/scene_graph_node", "max_distance",
                              "0.3")
            assert "Set parameter successful" in out, out
            distance, pairs = clearance_after_new_poses()
            assert distance == pytest.approx(0.3)
            expected = scenario.reference(scenario.T_CONTACT, max_distance=0.3)["clearance"]
            assert len(expected) > len(before[1])  # the change shows in the results
            scenario.assert_pairs_match(pairs, expected)

            for name, value, reason in (
                    ("max_distance", "-1.0", "must be a finite number >= 0"),
                    ("max_distance", "abc", "expected float but got 'abc'"),
                    ("rate_hz", "-5.0", "'rate_hz' must be a finite number >= 0"),
                    ("scene_file", "/does/not/exist.yaml", "read-only"),
                    ("clearance_topic", "other", "read-only")):
                out = _ros2_param(env, "set", "--no-daemon", "/scene_graph_node", name, value)
                assert "Setting parameter failed" in out and reason in out, (name, out)
            out = _ros2_param(env, "get", "--no-daemon", "/scene_graph_node", "max_distance")
            assert "0.3" in out, out
            assert node.process.poll() is None, node.output
    finally:
        peer.shutdown()


@pytest.mark.network
@pytest.mark.dds
def test_lcm_bridge_node_applies_parameters_set_at_run_time():
    pytest.importorskip("lcm")
    from geometry_core_nodes.lcm_bridge_node import LcmBridgeNode
    from geometry_core_nodes.transport import loopback_config

    node = LcmBridgeNode(["--ros-args", "-p", "scene_file:=builtin:demo",
                          "-p", "lcm_url:=memq://null"], backend="dds",
                         domain_id=40 + os.getpid() % 7, dds_config=loopback_config())
    try:
        store = node.node.parameters
        assert {n for n in store.describe() if not store.is_read_only(n)} == {
            "publish_period", "publish_contacts", "stale_after_s"}
        first = node._timer
        node.node.set_parameter("publish_period", 0.5)
        assert first.is_canceled() and node._timer.period_s == 0.5
        node.node.set_parameter("publish_contacts", False)
        assert node.publish_contacts is False
        with pytest.raises(ParameterError, match="'publish_period' must be a finite number > 0"):
            node.node.set_parameter("publish_period", 0.0)
        with pytest.raises(ParameterError, match="'role' is read-only"):
            node.node.set_parameter("role", "proximity")
        assert node._timer.period_s == 0.5
    finally:
        node.shutdown()


@pytest.mark.network
@pytest.mark.dds
def test_min_query_period_answers_the_newest_pose_at_the_end_of_the_period():
    from geometry_core_nodes.scene_graph_node import SceneGraphNode
    from geometry_core_nodes.transport import loopback_config

    domain = 47 + os.getpid() % 7
    node = SceneGraphNode(["--ros-args", "-p", "scene_file:=builtin:demo",
                           "-p", "min_query_period_s:=0.3"], backend="dds",
                          domain_id=domain, dds_config=loopback_config())
    published = []
    node._penetration_pub.publish_serialized = published.append
    node._penetration_pub.publish = published.append
    node._penetration_pub.get_subscription_count = lambda: 1  # as if a reader listened
    try:
        def pose(stamp):
            node.inputs._on_tf(scenario.demo_transforms(node.node.message_type,
                                                        scenario.T_CONTACT, stamp))

        pose(scenario.STAMP_NS)
        node.spin_once(0)
        assert node.queries == 1  # the first pose after a pause: answered at once
        for k in (1, 2, 3):
            pose(scenario.STAMP_NS + k)
            node.spin_once(0)
        assert node.queries == 1  # within the period: waiting
        node.spin_once(None)  # wakes up at the end of the period
        assert node.queries == 2 and node.inputs.coalesced == 2
        assert node.inputs.apply().stamp_ns == scenario.STAMP_NS + 3
        assert len(published) == 2
        node.node.set_parameter("min_query_period_s", 0.0)
        pose(scenario.STAMP_NS + 4)
        node.spin_once(0)
        assert node.queries == 3
        with pytest.raises(ParameterError, match="'min_query_period_s' must be a finite number"):
            node.node.set_parameter("min_query_period_s", -1.0)
    finally:
        node.shutdown()
