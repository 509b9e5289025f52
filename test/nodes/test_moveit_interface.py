"""MoveIt's planning-scene protocol against the scene graph node, on the DDS backend.

A test node publishes real moveit_msgs messages (the DDS backend's classes,
from the definitions of moveit_msgs 2.2.1) for a Panda from
example-robot-data and calls ``check_state_validity`` after each; every
answer must equal the library's for the same world built with its own calls
(:mod:`moveit_scenario`). Bad messages are refused whole and counted while
the node keeps answering. test_moveit_interface_rclpy.py plays the same
with rclpy where ROS 2 is installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from pathlib import Path

import pytest

from geometry_core_nodes.transport import RELIABLE_RESULTS, SENSOR_DATA, loopback_config

_spec = importlib.util.spec_from_file_location(
    "moveit_scenario", Path(__file__).with_name("moveit_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

DOMAIN = 10 + (os.getpid() * 23) % 90


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from geometry_core_nodes.scene_graph_node import SceneGraphNode

    # The URDF is too long for a command line: a parameter file carries it.
    params = tmp_path_factory.mktemp("moveit_node") / "params.yaml"
    params.write_text(json.dumps({"scene_graph_node": {
        "ros__parameters": scenario.parameters()}}))
    served = SceneGraphNode(["--ros-args", "--params-file", str(params)], backend="dds",
                            domain_id=DOMAIN, dds_config=loopback_config())
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            served.spin_once(0.02)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    yield served
    stop.set()
    thread.join(5)
    served.shutdown()


@pytest.fixture(scope="module")
def client():
    from geometry_core_nodes.transport import create_node

    node = create_node("moveit_user", [], backend="dds", domain_id=DOMAIN,
                       dds_config=loopback_config())
    yield node
    node.shutdown()


def _wait(condition, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_each_answer_equals_the_librarys(served, client):
    T = client.message_type
    moveit = served.moveit
    publishers = {}
    for topic, msg_type, qos in (
            ("collision_object", "moveit_msgs/msg/CollisionObject", RELIABLE_RESULTS),
            ("attached_collision_object", "moveit_msgs/msg/AttachedCollisionObject",
             RELIABLE_RESULTS),
            ("planning_scene", "moveit_msgs/msg/PlanningScene", RELIABLE_RESULTS),
            ("camera/points", "sensor_msgs/msg/PointCloud2", SENSOR_DATA)):
        publishers[topic] = client.create_publisher(msg_type, topic, qos)
    for publisher in publishers.values():
        _wait(lambda p=publisher: p.get_subscription_count() > 0)
    validity = client.create_client("moveit_msgs/srv/GetStateValidity", "/check_state_validity")
    request = scenario.validity_request(validity.request_type, T)
    reference = scenario.reference_checker()
    before = validity.call(request, timeout_s=20)
    assert scenario.answer(before) == scenario.expected(reference, scenario.READY) == (True, [])
    answers = []
    for name, topic, message, apply in scenario.steps(T):
        applied = moveit.applied
        publishers[topic].publish(message)
        _wait(lambda a=applied: moveit.applied > a)
        apply(reference)
        response = validity.call(request, timeout_s=20)
        expected = scenario.expected(reference, scenario.READY)
        assert scenario.answer(response) == expected, name
        answers.append((name, expected[0], len(expected[1])))
        for contact in response.contacts:
            assert contact.header.frame_id == "world"
            assert abs(contact.normal.x**2 + contact.normal.y**2 + contact.normal.z**2 - 1) < 1e-9
    # The scenario shows both verdicts, contacts with an object id, a held object.
    assert [valid for _, valid, _ in answers] == [False, True, True, False, False], answers
    assert served.inputs.counters.get("bad_collision_object", 0) == 0


def test_bad_messages_are_refused_whole_and_the_node_keeps_answering(served, client):
    T = client.message_type
    moveit = served.moveit
    publisher = client.create_publisher("moveit_msgs/msg/PlanningScene", "planning_scene",
                                        RELIABLE_RESULTS)
    _wait(lambda: publisher.get_subscription_count() > 0)
    held_before = set(moveit.world.objects)
    scene = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    good = scenario._box(T, "would_be_added", (2.0, 2.0, 2.0))
    bad = scenario._box(T, "bad", (0, 0, 0), dims=(0.1, float("nan"), 0.1))
    scene.world.collision_objects = [good, bad]
    counters = served.inputs.counters
    refused = counters.get("bad_planning_scene", 0)
    publisher.publish(scene)
    _wait(lambda: counters.get("bad_planning_scene", 0) > refused)
    assert set(moveit.world.objects) == held_before
    validity = client.create_client("moveit_msgs/srv/GetStateValidity", "/check_state_validity")
    request = scenario.validity_request(validity.request_type, T)
    request.robot_state.joint_state.name = ["not_a_joint"]
    request.robot_state.joint_state.position = [0.0]
    response = validity.call(request, timeout_s=20)
    assert response.valid is False and response.contacts == []
    assert counters["bad_validity_request"] >= 1
    response = validity.call(scenario.validity_request(validity.request_type, T), timeout_s=20)
    assert isinstance(response.valid, bool)


def test_get_planning_scene_returns_what_the_node_holds(served, client):
    scene_client = client.create_client("moveit_msgs/srv/GetPlanningScene", "/get_planning_scene")
    response = scene_client.call(scene_client.request_type(), timeout_s=20)
    scene = response.scene
    held = served.moveit.world.objects
    world_ids = sorted(o.id for o in scene.world.collision_objects)
    attached_ids = sorted(a.object.id for a in scene.robot_state.attached_collision_objects)
    assert world_ids == sorted(k for k, v in held.items() if v.link is None)
    assert attached_ids == sorted(k for k, v in held.items() if v.link is not None)
    assert scene.is_diff is False


def test_batch_validity_equals_one_call_per_state(served, client):
    """``check_multi_state_validity`` answers as ``check_state_validity`` does, state by state."""
    import numpy as np

    checker = served.moveit.world.checker
    lower, upper = checker._chain.lower, checker._chain.upper
    rng = np.random.default_rng(11)
    names = [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]
    states = [scenario.READY]
    for _ in range(39):
        q = np.asarray(scenario.READY) + rng.uniform(-1.2, 1.2, 8)
        states.append(np.clip(q, lower, upper).tolist())
    batch = client.create_client("geometry_core_ros/srv/GetMultiStateValidity",
                                 "/check_multi_state_validity")
    request = batch.request_type()
    request.joint_names = names
    request.positions = [float(v) for q in states for v in q]
    response = batch.call(request, timeout_s=30)
    assert response.error_message == ""
    single = client.create_client("moveit_msgs/srv/GetStateValidity", "/check_state_validity")
    expected = [bool(single.call(scenario.validity_request(single.request_type, client.message_type,
                                                           q), timeout_s=20).valid)
                for q in states]
    assert list(response.valid) == expected
    assert True in expected and False in expected, expected  # both verdicts are exercised
    # A bad request: refused whole, with the reason; the node keeps answering.
    counters = served.inputs.counters
    refused = counters.get("bad_validity_request", 0)
    request.positions = [0.0] * 9
    response = batch.call(request, timeout_s=20)
    assert list(response.valid) == [] and "not a multiple" in response.error_message
    assert counters["bad_validity_request"] == refused + 1
    request.joint_names = ["panda_joint1"]
    request.positions = [0.1, 0.2]
    assert len(batch.call(request, timeout_s=20).valid) == 2


def test_moves_read_as_repeats_are_checked_and_refused_whole(served, client):
    # MOVEs that differ from the sample before in pose and stamp only are read
    # from their bytes (collision_object_cdr); bad ones are refused and counted
    # as any other, and the world keeps the last good pose.
    T = client.message_type
    moveit = served.moveit
    counters = served.inputs.counters
    publisher = client.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                        RELIABLE_RESULTS)
    _wait(lambda: publisher.get_subscription_count() > 0)
    decoder = next(s._decode for s in served.node._subscriptions
                   if getattr(s, "topic", "").endswith("/collision_object"))
    repeats = decoder.repeats

    def send(co, refused=False):
        applied, bad = moveit.applied, counters.get("bad_collision_object", 0)
        publisher.publish(co)
        if refused:
            _wait(lambda: counters.get("bad_collision_object", 0) > bad)
            assert moveit.applied == applied
        else:
            _wait(lambda: moveit.applied > applied)

    def x_of_box():
        return moveit.world.objects["repeat_box"].edit.X_FO.translation()[0]

    send(scenario._box(T, "repeat_box", (2.0, 2.0, 2.0)))
    send(scenario._box(T, "repeat_box", (2.1, 2.0, 2.0), operation=3))
    send(scenario._box(T, "repeat_box", (2.2, 2.0, 2.0), operation=3))
    assert x_of_box() == 2.2
    nan = scenario._box(T, "repeat_box", (2.3, 2.0, 2.0), operation=3)
    nan.pose.orientation.x = float("nan")
    send(nan, refused=True)
    zero = scenario._box(T, "repeat_box", (2.4, 2.0, 2.0), operation=3)
    zero.pose.orientation.w = 0.0
    send(zero, refused=True)
    infinite = scenario._box(T, "repeat_box", (float("inf"), 2.0, 2.0), operation=3)
    send(infinite, refused=True)
    assert x_of_box() == 2.2
    send(scenario._box(T, "repeat_box", (2.5, 2.0, 2.0), operation=3))
    assert x_of_box() == 2.5
    send(scenario._box(T, "repeat_box", (0.0, 0.0, 0.0), operation=1))
    assert "repeat_box" not in moveit.world.objects
    # MOVEs of the removed object: decoded, then a repeat; both unknown.
    send(scenario._box(T, "repeat_box", (2.6, 2.0, 2.0), operation=3), refused=True)
    send(scenario._box(T, "repeat_box", (2.7, 2.0, 2.0), operation=3), refused=True)
    assert "repeat_box" not in moveit.world.objects
    assert decoder.repeats - repeats == 6
