"""The scene graph node with /tf taken on Cyclone's receive thread (``inputs_on_receive_thread``).

- The same /tf inputs (and a MoveIt object added half way) give the same
  results, field for field, whether the node takes /tf on Cyclone's receive
  thread or on its own thread (two node processes, one per path).
- While /tf flows at 1 kHz from another process, the node answers
  ``check_state_validity``, ``get_planning_scene`` and the parameter
  services, turns ``/joint_states`` into clearance tables, and a
  ``collision_object`` change reaches both the validity answers and the
  /tf-driven results.
- A callback that raises on the receive thread is counted and logged, and
  the node keeps answering.
- A burst of /tf messages that queued (source timestamps in the past) is
  stored on the receive thread and answered with one query, not one each.
- Ctrl-C and SIGTERM while /tf flows at 2 kHz end the node process cleanly.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    SENSOR_DATA,
    create_node,
    loopback_config,
    loopback_environment,
)

HERE = Path(__file__).parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


scenario = _load("node_scenario")
moveit = _load("moveit_scenario")

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 17) % 53)


def _domain() -> int:
    return 60 + next(_DOMAINS) % 100


def _streamer(domain: int, scene: str, rate: float, timeout: float = 90,
              *more: str) -> subprocess.Popen:
    """``tf_streamer.py`` (``more``: its ``burst COUNT AGO`` arguments) in the test's domain."""
    return subprocess.Popen([sys.executable, str(HERE / "tf_streamer.py"), scene, str(rate),
                             str(timeout), *more], env=loopback_environment(domain),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_stop = scenario.stop_process
_wait = scenario.wait_until


# -- the same results on both paths ------------------------------------------------


def _results_of_one_node(tmp_path: Path, on_receive: bool) -> tuple[list[dict], str]:
    domain = _domain()
    params = scenario.write_params(tmp_path / f"params_{on_receive}.yaml",
                                   scene_file="builtin:demo", max_distance=0.1,
                                   publish_markers=False, inputs_on_receive_thread=on_receive)
    peer = scenario.Peer(domain)
    T = peer.message_type
    objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                         RELIABLE_RESULTS)
    times = [0.1 * k for k in range(16)]
    out = []
    try:
        with scenario.NodeProcess("scene_graph_node", params, domain) as node:
            node.wait_for_line("ready on the dds backend")
            for k, t in enumerate(times):
                stamp = scenario.STAMP_NS + k
                message = scenario.demo_transforms(T, t, stamp)
                probe = k >= 8
                if k == 8:
                    # A sphere where the gripper is from here on: the answers
                    # to this input and the next name it on both paths.
                    p_WG = scenario.demo_poses(t)["gripper"][1].translation()
                    objects.publish(_sphere(T, "probe", p_WG))

                def wanted(m, stamp=stamp, probe=probe) -> bool:
                    return scenario.stamp_ns_of(m) == stamp and (not probe or _names_probe(m))

                penetrations = peer.wait_for("penetrations", wanted,
                                             repeat=lambda m=message: peer.tf.publish(m))
                clearance = peer.wait_for("clearance",
                                          lambda m, s=stamp: scenario.stamp_ns_of(m) == s)
                out.append({
                    "penetrations": scenario.pairs_as_dicts(penetrations),
                    "clearance": scenario.pairs_as_dicts(clearance),
                    "stale": [list(penetrations.stale_frames), list(clearance.stale_frames)],
                    "frame_id": [penetrations.header.frame_id, clearance.header.frame_id],
                    "max_distance": clearance.max_distance})
            assert node.stop() == 0
            log = node.output
    finally:
        peer.shutdown()
    return out, log


def _names_probe(msg) -> bool:
    return any("probe" in p.geometry_a + p.geometry_b for p in msg.pairs)


def _sphere(T, object_id: str, p) -> object:
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = object_id
    co.operation = 0
    co.header.frame_id = "world"
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    co.pose.orientation.w = 1.0
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 2, [0.04]
    co.primitives = [primitive]
    pose = T("geometry_msgs/msg/Pose")()
    pose.orientation.w = 1.0
    co.primitive_poses = [pose]
    return co


def test_receive_thread_and_spinning_thread_give_the_same_results(tmp_path):
    on_receive, receive_log = _results_of_one_node(tmp_path, True)
    on_spin, spin_log = _results_of_one_node(tmp_path, False)
    assert "/tf on the receive thread (and collision_object)" in receive_log
    assert "on the receive thread" not in spin_log
    assert len(on_receive) == len(on_spin) == 16
    for k, (a, b) in enumerate(zip(on_receive, on_spin)):
        assert a == b, k
    # The inputs were worth comparing: contacts, clearances, the object.
    assert any(r["penetrations"] for r in on_spin)
    assert all(r["clearance"] for r in on_spin)
    assert all(any("probe" in p["geometry_a"] + p["geometry_b"] for p in r["clearance"])
               for r in on_spin[8:])
    assert "Traceback" not in receive_log + spin_log


# -- an in-process node served while /tf flows -----------------------------------------


#: The parameters of the in-process demo node (no markers: the results' own path).
_DEMO = {"scene_file": "builtin:demo", "publish_markers": False}


class _Served:
    """A scene graph node in this process, spun by a thread of its own."""

    def __init__(self, params: dict, domain: int, tmp_path: Path, spin: bool = True) -> None:
        from geometry_core_nodes.scene_graph_node import SceneGraphNode

        path = tmp_path / "params.yaml"
        path.write_text(json.dumps({"scene_graph_node": {"ros__parameters": params}}))
        self.log = io.StringIO()
        self.node = SceneGraphNode(["--ros-args", "--params-file", str(path)], backend="dds",
                                   domain_id=domain, dds_config=loopback_config(),
                                   log_stream=self.log)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        if spin:
            self._thread.start()

    def _spin(self) -> None:
        while not self._stop.is_set():
            self.node.spin_once(0.02)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        self.node.shutdown()


def test_services_and_world_changes_are_answered_while_tf_flows_at_1khz(tmp_path):
    domain = _domain()
    served = _Served(moveit.parameters(), domain, tmp_path)
    streamer = _streamer(domain, "panda", 1000)
    client = create_node("moveit_user", [], backend="dds", domain_id=domain,
                         dds_config=loopback_config())
    try:
        assert served.node.tf_delivered_on_receive
        assert served.node.objects_delivered_on_receive
        T = client.message_type
        penetrations = []
        client.create_subscription("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                                   penetrations.append, RELIABLE_RESULTS)
        assert streamer.stdout.readline().strip() == "matched"
        taken = served.node.inputs.taken
        _wait(lambda: taken["tf"] > 300)
        # /tf is flowing (and answered) while every call below is made.
        validity = client.create_client("moveit_msgs/srv/GetStateValidity",
                                        "/check_state_validity")
        request = moveit.validity_request(validity.request_type, T)
        before = taken["tf"]
        for _ in range(5):
            assert moveit.answer(validity.call(request, timeout_s=10)) == (True, [])
        _wait(lambda: taken["tf"] > before + 100)
        scene = client.create_client("moveit_msgs/srv/GetPlanningScene", "/get_planning_scene")
        assert scene.call(scene.request_type(), timeout_s=10).scene.world.collision_objects == []
        setter = client.create_client("rcl_interfaces/srv/SetParameters",
                                      "/scene_graph_node/set_parameters")
        value = T("rcl_interfaces/msg/ParameterValue")(type=3, double_value=0.05)
        result = setter.call(setter.request_type(parameters=[
            T("rcl_interfaces/msg/Parameter")(name="max_distance", value=value)]), timeout_s=10)
        assert [r.successful for r in result.results] == [True]
        assert served.node.max_distance == 0.05
        # /joint_states (another subscription, on the node's thread): a clearance table.
        joints = client.create_publisher("sensor_msgs/msg/JointState", "joint_states",
                                         SENSOR_DATA)
        tables = served.node.clearance_monitor.tables
        state = T("sensor_msgs/msg/JointState")(
            name=[f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"],
            position=[float(v) for v in moveit.READY])
        _wait(lambda: served.node.clearance_monitor.tables > tables,
              spin=lambda _: joints.publish(state) or time.sleep(0.02))
        # A box at the hand (the /tf poses are the request's, MoveIt's "ready"):
        # the validity answer and the /tf-driven results both see it.
        objects = client.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                          RELIABLE_RESULTS)
        _wait(lambda: objects.get_subscription_count() > 0)
        applied = served.node.moveit.applied
        objects.publish(moveit._box(T, "obstacle", moveit.HAND))
        _wait(lambda: served.node.moveit.applied > applied)
        valid, contacts = moveit.answer(validity.call(request, timeout_s=10))
        assert not valid and any("obstacle" in pair[:2] for pair in contacts), contacts
        _wait(lambda: any(p.geometry_a.endswith("obstacle") or p.geometry_b.endswith("obstacle")
                          for m in penetrations for p in m.pairs), spin=client.spin_once)
        assert served.node.node.receive_errors == 0
        assert "Traceback" not in served.log.getvalue()
    finally:
        _stop(streamer)
        client.shutdown()
        served.close()


def test_collision_objects_are_applied_on_the_receive_thread(tmp_path):
    # Nobody spins the node: an object added and moved reaches the world
    # only through the data-available listener (here, with the writer in
    # this process, Cyclone delivers it on the writing thread).
    domain = _domain()
    served = _Served(_DEMO, domain, tmp_path, spin=False)
    client = create_node("object_mover", [], backend="dds", domain_id=domain,
                         dds_config=loopback_config())
    try:
        node = served.node
        assert node.objects_delivered_on_receive
        subscription = node.moveit.collision_object_subscription
        apply, threads = subscription.callback, []
        subscription.callback = lambda msg: threads.append(threading.get_ident()) or apply(msg)
        T = client.message_type
        objects = client.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                          RELIABLE_RESULTS)
        _wait(lambda: objects.get_subscription_count() > 0)
        probe = _sphere(T, "probe", (0.5, 0.0, 0.5))
        objects.publish(probe)
        _wait(lambda: node.moveit.applied == 1)
        probe.operation, probe.pose.position.z = 3, 0.7  # MOVE
        objects.publish(probe)
        _wait(lambda: node.moveit.applied == 2)
        assert len(threads) == 2
        held = node.moveit.world.objects["probe"]
        assert held.edit.X_FO.translation()[2] == pytest.approx(0.7)
        assert node.node.receive_errors == 0 and "Traceback" not in served.log.getvalue()
    finally:
        client.shutdown()
        served.close()


def test_world_changes_while_tf_flows_are_answered_by_the_next_tf_query(tmp_path):
    # A node process, /tf at 1 kHz from another process, and from this one
    # an object added, then moved back and forth at 50 Hz: each change that
    # comes while /tf flows waits for the next /tf message's query instead
    # of a query of its own (the node counts them at exit), and the results
    # follow the object to its last place (out of the clearance range).
    domain = _domain()
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=1.0, publish_markers=False)
    peer = scenario.Peer(domain)
    T = peer.message_type
    objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                         RELIABLE_RESULTS)
    streamer = _streamer(domain, "demo", 1000)
    try:
        with scenario.NodeProcess("scene_graph_node", params, domain) as node:
            node.wait_for_line("ready on the dds backend")
            assert streamer.stdout.readline().strip() == "matched"
            probe = _sphere(T, "probe", (0.5, 0.0, 0.5))
            peer.wait_for("clearance", _names_probe, repeat=lambda: objects.publish(probe))
            probe.operation = 3  # MOVE
            for k in range(20):
                probe.pose.position.z = 10.5 if k % 2 else 0.5
                objects.publish(probe)
                peer.node.spin_once(0.02)
            seen = len(peer.received["clearance"])
            peer.wait_for("clearance", lambda m: not _names_probe(m) and
                          len(peer.received["clearance"]) > seen + 20)
            assert node.stop() == 0
            log = node.output
    finally:
        _stop(streamer)
        peer.shutdown()
    joined = re.search(r"world changes answered by the next /tf query: (\d+)", log)
    # 7 to 18 of the 21 on a quiet 2-core machine, 6 to 9 with two busy
    # loops beside: a change that queued behind a /tf query or a stall is
    # stale, left to the node's thread (which queries at once), not counted.
    assert joined and int(joined.group(1)) >= 1, log
    assert "Traceback" not in log


def test_a_world_change_joined_to_a_tf_query_that_never_comes_is_answered_anyway(tmp_path):
    # One /tf message, then at once an object: the object waits for the next
    # /tf query, but no /tf comes. The node's thread, at its next wake-up,
    # answers it: a planner that stops /tf still sees its object.
    domain = _domain()
    served = _Served({**_DEMO, "max_distance": 1.0}, domain, tmp_path)
    peer = scenario.Peer(domain)
    try:
        node = served.node
        T = peer.message_type
        objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject",
                                             "collision_object", RELIABLE_RESULTS)
        _wait(lambda: objects.get_subscription_count() > 0 and
              peer.tf.get_subscription_count() > 0 and
              node._clearance_pub.get_subscription_count() > 0)
        # A loaded machine may take longer than the bound between the two
        # writes: then the object is answered at once, and the next tries.
        for k in range(50):
            stamp = scenario.STAMP_NS + k
            peer.tf.publish(scenario.demo_transforms(T, 0.0, stamp))
            # Delivered on this thread, right after the /tf above.
            objects.publish(_sphere(T, f"probe_{k}", (0.5, 0.0, 0.5 + 0.01 * k)))
            if node.world_changes_joined:
                break
            time.sleep(0.01)
        assert node.world_changes_joined == 1
        # Only a query after the object's ADD names it with this stamp.
        peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp and any(
            name.endswith(f"probe_{k}") for p in m.pairs for name in (p.geometry_a, p.geometry_b)),
            timeout=5.0)
        assert node.node.receive_errors == 0 and "Traceback" not in served.log.getvalue()
    finally:
        peer.shutdown()
        served.close()


def test_a_callback_that_raises_on_the_receive_thread_is_counted_and_the_node_answers_on(
        tmp_path):
    domain = _domain()
    served = _Served(_DEMO, domain, tmp_path)
    subscription = served.node.inputs.tf_subscription
    store = subscription.callback
    calls = itertools.count()

    def flaky(msg) -> None:
        if next(calls) % 100 == 50:
            raise RuntimeError("injected failure")
        store(msg)

    subscription.callback = flaky
    streamer = _streamer(domain, "demo", 500)
    client = create_node("results_reader", [], backend="dds", domain_id=domain,
                         dds_config=loopback_config())
    try:
        stamps = []
        client.create_subscription("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                                   lambda m: stamps.append(scenario.stamp_ns_of(m)),
                                   RELIABLE_RESULTS)
        errors = served.node.node
        _wait(lambda: errors.receive_errors >= 3, spin=client.spin_once)
        newest = max(stamps, default=0)
        _wait(lambda: len(stamps) > 0 and max(stamps) > newest + 50, spin=client.spin_once)
        log = served.log.getvalue()
        assert "a callback on /tf raised on the receive thread" in log
        assert "RuntimeError: injected failure" in log and "[receive_errors #1]" in log
        assert stamps == sorted(stamps)
    finally:
        _stop(streamer)
        client.shutdown()
        served.close()


def test_a_burst_of_queued_tf_messages_is_answered_with_one_query(tmp_path):
    # 50 /tf messages whose DDS source timestamps say they were written a
    # second ago (queued behind a stall). Nobody spins the node: the receive
    # thread stores each and queries for none; the spinning thread, woken,
    # takes what is there and queries once, as the node did before /tf came
    # to the receive thread. Answered one at a time there, it would be 50.
    domain = _domain()
    served = _Served(_DEMO, domain, tmp_path, spin=False)
    streamer = _streamer(domain, "demo", 0, 60, "burst", "50", "1.0")
    try:
        node = served.node
        assert node.tf_delivered_on_receive
        _wait(lambda: node.inputs.taken["tf"] == 50)
        assert node.queries == 0
        assert node.node.receive_stale >= 1
        node.spin_once(5.0)
        assert node.queries == 1
        # One query used the newest; the other 49 were superseded before it.
        assert node.inputs.coalesced == 49
        node.spin_once(0.05)
        assert node.queries == 1
        assert node.node.receive_errors == 0
    finally:
        _stop(streamer)
        served.close()


# -- the process ends cleanly while /tf flows ----------------------------------------


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGINT, signal.SIGTERM],
                         ids=["ctrl-c", "ctrl-c-again", "sigterm"])
def test_node_process_stops_cleanly_while_tf_flows(tmp_path, stop_signal):
    domain = _domain()
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo")
    peer = scenario.Peer(domain)
    streamer = _streamer(domain, "demo", 2000)
    try:
        with scenario.NodeProcess("scene_graph_node", params, domain) as node:
            node.wait_for_line("/tf on the receive thread")
            peer.wait_for("penetrations", lambda m: True)
            time.sleep(0.5)
            node.process.send_signal(stop_signal)
            returncode = node.process.wait(20)
            node.stop()
            assert returncode == 0, node.output
            assert "Traceback" not in node.output and "Fatal" not in node.output, node.output
            # Stopped by serve's loop, not killed: the counters were reported.
            assert "messages taken: tf" in node.output, node.output
    finally:
        _stop(streamer)
        peer.shutdown()
