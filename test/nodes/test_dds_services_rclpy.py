"""Services of a DDS-backend node called by real ROS 2: an rclpy client, and ``ros2 param``.

The node runs as its own process on the DDS backend (loopback only); the
test process is an rclpy node on rmw_cyclonedds, whose client must find the
service (rmw's ``serviceid`` pairing), send its request (rmw's request
header) and get the reply back (the header echoed). Skipped where rclpy
and the ``ros2`` command are not installed; CI runs it with ROS 2 Humble.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]


@pytest.fixture
def ros_environment(monkeypatch):
    pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
    domain = 60 + os.getpid() % 7
    env = scenario.loopback_environment(domain)
    env["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return domain, env


def _ros2(env, *args):
    done = subprocess.run(["ros2", *args], env=env, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def test_an_rclpy_client_calls_the_parameter_services_of_a_dds_node(ros_environment, tmp_path):
    from geometry_core_nodes.transport import create_node

    domain, env = ros_environment
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=0.1)
    caller = create_node("rclpy_caller", [], backend="rclpy")
    try:
        with scenario.NodeProcess("scene_graph_node", params, domain, backend="dds") as node:
            node.wait_for_line("ready on the dds backend")
            get = caller.create_client("rcl_interfaces/srv/GetParameters",
                                       "/scene_graph_node/get_parameters")
            assert get.request_type.__module__.startswith("rcl_interfaces.srv")
            reply = get.call(get.request_type(names=["max_distance", "scene_file", "nope"]),
                             timeout_s=20)
            assert [v.type for v in reply.values] == [3, 4, 0]
            assert reply.values[0].double_value == pytest.approx(0.1)
            assert reply.values[1].string_value == "builtin:demo"

            T = caller.message_type
            set_ = caller.create_client("rcl_interfaces/srv/SetParameters",
                                        "/scene_graph_node/set_parameters")
            reply = set_.call(set_.request_type(parameters=[
                T("rcl_interfaces/msg/Parameter")(name="max_distance", value=T(
                    "rcl_interfaces/msg/ParameterValue")(type=3, double_value=0.25)),
                T("rcl_interfaces/msg/Parameter")(name="max_distance", value=T(
                    "rcl_interfaces/msg/ParameterValue")(type=3, double_value=-1.0))]),
                timeout_s=20)
            assert [r.successful for r in reply.results] == [True, False]
            assert "must be a finite number >= 0" in reply.results[1].reason
            reply = get.call(get.request_type(names=["max_distance"]), timeout_s=20)
            assert reply.values[0].double_value == pytest.approx(0.25)
            assert node.process.poll() is None, node.output
    finally:
        caller.shutdown()


def test_ros2_param_set_changes_the_results_of_the_dds_node(ros_environment, tmp_path):
    if shutil.which("ros2") is None:
        pytest.skip("the ros2 command comes with a ROS 2 installation")
    domain, env = ros_environment
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=0.1)
    peer = scenario.Peer(domain, backend="dds")
    T = peer.message_type
    stamps = iter(range(scenario.STAMP_NS, scenario.STAMP_NS + 1000))

    def clearance_after_new_poses():
        stamp = next(stamps)
        poses = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
        msg = peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp,
                            repeat=lambda: peer.tf.publish(poses))
        return msg.max_distance, scenario.pairs_as_dicts(msg)

    try:
        with scenario.NodeProcess("scene_graph_node", params, domain, backend="dds") as node:
            node.wait_for_line("ready on the dds backend")
            before = clearance_after_new_poses()
            assert before[0] == pytest.approx(0.1)
            out = _ros2(env, "param", "set", "--no-daemon", "/scene_graph_node",
                        "max_distance", "0.3")
            assert "Set parameter successful" in out, out
            distance, pairs = clearance_after_new_poses()
            assert distance == pytest.approx(0.3)
            expected = scenario.reference(scenario.T_CONTACT, max_distance=0.3)["clearance"]
            assert len(expected) > len(before[1])  # the change shows in the results
            scenario.assert_pairs_match(pairs, expected)
            for name, value, reason in (
                    ("max_distance", "-1.0", "must be a finite number >= 0"),
                    ("max_distance", "abc", "expected float but got 'abc'"),
                    ("clearance_topic", "other", "read-only")):
                out = _ros2(env, "param", "set", "--no-daemon", "/scene_graph_node", name, value)
                assert "Setting parameter failed" in out and reason in out, (name, out)
            out = _ros2(env, "param", "get", "--no-daemon", "/scene_graph_node", "max_distance")
            assert "0.3" in out, out
            out = _ros2(env, "param", "list", "--no-daemon", "/scene_graph_node")
            assert "max_distance" in out and "scene_file" in out, out
            out = _ros2(env, "service", "list", "--no-daemon")
            assert "/scene_graph_node/set_parameters" in out, out
            assert node.process.poll() is None, node.output
    finally:
        peer.shutdown()
