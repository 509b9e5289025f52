"""MoveIt's planning-scene protocol with real ROS 2: an rclpy user, the node on either backend.

The test process is an rclpy node (rmw_cyclonedds) publishing the ROS
distribution's moveit_msgs (2.2.1) for a Panda from example-robot-data and
calling ``check_state_validity`` through a real rclpy client; the scene
graph node runs as its own process on rclpy, then on the DDS backend. After
each step the answer must become the library's for the same world
(:mod:`moveit_scenario`). Skipped where rclpy, moveit_msgs or the generated
geometry_core_ros messages are missing; CI runs it with ROS 2 Humble.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

_here = Path(__file__).resolve().parent
_specs = {name: importlib.util.spec_from_file_location(name, _here / f"{name}.py")
          for name in ("moveit_scenario", "node_scenario")}
scenario = importlib.util.module_from_spec(_specs["moveit_scenario"])
_specs["moveit_scenario"].loader.exec_module(scenario)
nodes = importlib.util.module_from_spec(_specs["node_scenario"])
_specs["node_scenario"].loader.exec_module(nodes)

pytestmark = [pytest.mark.network, pytest.mark.dds]


@pytest.mark.parametrize("backend", ["rclpy", "dds"])
def test_an_rclpy_user_gets_the_librarys_answers(backend, tmp_path, monkeypatch):
    pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
    pytest.importorskip("moveit_msgs.srv", reason="moveit_msgs comes with a ROS 2 installation")
    if backend == "rclpy":
        pytest.importorskip("geometry_core_ros.msg",
                            reason="geometry_core_ros messages not generated")
    from geometry_core_nodes.transport import RELIABLE_RESULTS, SENSOR_DATA, create_node

    domain = 70 + os.getpid() % 7 + (backend == "dds")
    env = nodes.loopback_environment(domain)
    env["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"scene_graph_node": {
        "ros__parameters": scenario.parameters()}}))
    user = create_node("moveit_user", [], backend="rclpy")
    try:
        with nodes.NodeProcess("scene_graph_node", params, domain, backend=backend) as node:
            node.wait_for_line(f"ready on the {backend} backend", timeout=60)
            T = user.message_type
            publishers = {
                topic: user.create_publisher(msg_type, topic, qos)
                for topic, msg_type, qos in (
                    ("collision_object", "moveit_msgs/msg/CollisionObject", RELIABLE_RESULTS),
                    ("attached_collision_object", "moveit_msgs/msg/AttachedCollisionObject",
                     RELIABLE_RESULTS),
                    ("planning_scene", "moveit_msgs/msg/PlanningScene", RELIABLE_RESULTS),
                    ("camera/points", "sensor_msgs/msg/PointCloud2", SENSOR_DATA))}
            validity = user.create_client("moveit_msgs/srv/GetStateValidity",
                                          "/check_state_validity")
            assert validity.request_type.__module__.startswith("moveit_msgs.srv")
            request = scenario.validity_request(validity.request_type, T)
            reference = scenario.reference_checker()
            assert scenario.answer(validity.call(request, timeout_s=30)) == (True, [])
            verdicts = []
            for name, topic, message, apply in scenario.steps(T):
                apply(reference)
                expected = scenario.expected(reference, scenario.READY)
                deadline = time.monotonic() + 30
                while True:
                    publishers[topic].publish(message)  # again, until the node has it
                    got = scenario.answer(validity.call(request, timeout_s=30))
                    if got == expected or time.monotonic() > deadline:
                        break
                    user.spin_once(0.1)
                assert got == expected, (name, node.output[-2000:])
                verdicts.append(expected[0])
            assert verdicts == [False, True, True, False, False]
            _check_batch(user, validity, T)
            assert node.process.poll() is None, node.output
    finally:
        user.shutdown()


def _check_batch(user, validity, T) -> None:
    """An rclpy client of ``check_multi_state_validity`` gets one call's answer per state."""
    import numpy as np

    try:
        import geometry_core_ros.srv  # noqa: F401
    except ImportError:
        return  # a build without our services: the single-state service alone is checked
    batch = user.create_client("geometry_core_ros/srv/GetMultiStateValidity",
                               "/check_multi_state_validity")
    assert batch.request_type.__module__.startswith("geometry_core_ros.srv")
    rng = np.random.default_rng(3)
    states = [scenario.READY] + [
        (np.asarray(scenario.READY) + np.r_[rng.uniform(-0.6, 0.6, 7), 0.0]).tolist()
        for _ in range(9)]
    request = batch.request_type()
    request.joint_names = [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]
    request.positions = [float(v) for q in states for v in q]
    response = batch.call(request, timeout_s=30)
    assert response.error_message == ""
    expected = [bool(validity.call(scenario.validity_request(validity.request_type, T, q),
                                   timeout_s=30).valid) for q in states]
    assert list(response.valid) == expected
