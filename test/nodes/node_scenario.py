"""Helpers of the process-level node tests: the demo's poses as /tf, a peer, a node process.

- :func:`demo_transforms` turns the demo arm's frame poses at time ``t`` into
  ``TransformStamped`` messages (the scene parent as ``header.frame_id``);
- :func:`reference` computes, with the library directly, what the node must
  publish for the same poses;
- :class:`Peer` is a DDS participant of its own (the test's side): it
  publishes /tf, /tf_static and poses and collects the node's results;
- :class:`NodeProcess` starts a real node process
  (``python -m geometry_core_nodes.<module> --ros-args --params-file ...``)
  on the DDS backend with the loopback-only Cyclone configuration, and stops
  it with SIGINT as Ctrl-C would.

Run as a script (``python node_scenario.py DOMAIN PARAMS``) it plays
:func:`static_then_dynamic` and prints its result as JSON: the netns test
runs it that way inside ``unshare -n``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from geometry_core.demo import make_demo_scene
from geometry_core.math import quaternion_wxyz_to_xyzw, rotation_matrix_to_quaternion
from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    SENSOR_DATA,
    TF,
    TF_STATIC,
    create_node,
    loopback_config,
    loopback_environment,
)

ARM_FRAMES = ("base", "turret", "upper_arm", "forearm", "wrist", "gripper")
#: Demo time at which the gripper is in the table top and the ball.
T_CONTACT = 1.8
STAMP_NS = 1_700_000_000_000_000_000


def demo_poses(t: float) -> dict[str, tuple[str, Any]]:
    """``{frame: (scene parent name, X_PF)}`` of the demo arm at time ``t``."""
    demo = make_demo_scene()
    inspector = demo.scene_graph.model_inspector()
    world = inspector.world_frame_id()
    poses = {}
    for frame_id, X_PF in demo.kinematics.calc_frame_poses(demo.joint_positions(t)).items():
        parent = inspector.get_parent_frame(frame_id)
        parent_name = "world" if parent == world else inspector.get_name(parent)
        poses[inspector.get_name(frame_id)] = (parent_name, X_PF)
    return poses


def make_transform(message_type: Callable[[str], type], parent: str, child: str, X_PC: Any,
                   stamp_ns: int) -> Any:
    """``TransformStamped`` of ``X_PC`` (quaternion converted by the math helpers)."""
    T = message_type
    q = quaternion_wxyz_to_xyzw(rotation_matrix_to_quaternion(X_PC.rotation().matrix()))
    p = X_PC.translation()
    return T("geometry_msgs/msg/TransformStamped")(
        header=T("std_msgs/msg/Header")(
            stamp=T("builtin_interfaces/msg/Time")(sec=stamp_ns // 10**9,
                                                   nanosec=stamp_ns % 10**9),
            frame_id=parent),
        child_frame_id=child,
        transform=T("geometry_msgs/msg/Transform")(
            translation=T("geometry_msgs/msg/Vector3")(x=p[0], y=p[1], z=p[2]),
            rotation=T("geometry_msgs/msg/Quaternion")(x=q[0], y=q[1], z=q[2], w=q[3])))


def demo_transforms(message_type: Callable[[str], type], t: float, stamp_ns: int,
                    frames: Sequence[str] = ARM_FRAMES) -> Any:
    """``TFMessage`` with the demo arm's ``frames`` at time ``t``."""
    poses = demo_poses(t)
    return message_type("tf2_msgs/msg/TFMessage")(transforms=[
        make_transform(message_type, poses[f][0], f, poses[f][1], stamp_ns) for f in frames])


def reference(t: float, frames: Sequence[str] = ARM_FRAMES,
              max_distance: float = 0.1) -> dict[str, list[dict]]:
    """What the node must publish for the demo at ``t`` when only ``frames`` are posed.

    Computed with the library directly: the full query, restricted to pairs
    whose geometries hang on posed frames (or the world).
    """
    demo = make_demo_scene()
    demo.advance(t)
    sg = demo.scene_graph
    inspector = sg.model_inspector()
    world = inspector.world_frame_id()

    def name(g):
        frame = inspector.get_frame_id(g)
        frame_name = "world" if frame == world else inspector.get_name(frame)
        return (f"{inspector.get_owning_source_name(g)}::{inspector.get_name(frame)}::"
                f"{inspector.get_name(g)}", frame_name)

    posed = set(frames) | {"world"}
    query = sg.query_object()
    penetrations, clearance = [], []
    for p in query.compute_point_pair_penetration():
        (ga, fa), (gb, fb) = name(p.id_A), name(p.id_B)
        if fa in posed and fb in posed:
            penetrations.append(dict(geometry_a=ga, geometry_b=gb, frame_a=fa, frame_b=fb,
                                     depth=p.depth, p_wca=list(p.p_WCa), p_wcb=list(p.p_WCb),
                                     nhat_ba_w=list(p.nhat_BA_W)))
    for d in query.compute_signed_distance_pairwise_closest_points(max_distance):
        (ga, fa), (gb, fb) = name(d.id_A), name(d.id_B)
        if fa in posed and fb in posed:
            clearance.append(dict(
                geometry_a=ga, geometry_b=gb, frame_a=fa, frame_b=fb, distance=d.distance,
                p_aca=list(d.p_ACa), p_bcb=list(d.p_BCb), nhat_ba_w=list(d.nhat_BA_W),
                is_nhat_ba_w_unique=d.is_nhat_BA_W_unique,
                p_wca=list(query.get_pose_in_world(d.id_A) @ d.p_ACa),
                p_wcb=list(query.get_pose_in_world(d.id_B) @ d.p_BCb)))
    return {"penetrations": penetrations, "clearance": clearance}


def _vector(v: Any) -> list[float]:
    return [v.x, v.y, v.z]


def pairs_as_dicts(msg: Any) -> list[dict]:
    """The pairs of a PenetrationPairArray or SignedDistancePairArray as plain dicts."""
    out = []
    for pair in msg.pairs:
        entry = {}
        for key in ("geometry_a", "geometry_b", "frame_a", "frame_b", "depth", "distance",
                    "is_nhat_ba_w_unique"):
            if hasattr(pair, key):
                entry[key] = getattr(pair, key)
        for key in ("p_wca", "p_wcb", "nhat_ba_w", "p_aca", "p_bcb"):
            if hasattr(pair, key):
                entry[key] = _vector(getattr(pair, key))
        out.append(entry)
    return out


def assert_pairs_match(actual: list[dict], expected: list[dict], tol: float = 1e-9) -> None:
    """Same pairs in the same order, every field equal (numbers within ``tol``)."""
    assert [(p["geometry_a"], p["geometry_b"]) for p in actual] == \
        [(p["geometry_a"], p["geometry_b"]) for p in expected]
    for a, e in zip(actual, expected):
        assert set(a) == set(e), (a, e)
        for key, value in e.items():
            if isinstance(value, (str, bool)):
                assert a[key] == value, (key, a, e)
            else:
                np.testing.assert_allclose(a[key], value, atol=tol, err_msg=f"{key}: {a} {e}")


def stamp_ns_of(msg: Any) -> int:
    return msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec


class Peer:
    """The test's own DDS participant: publishes poses, collects the node's results."""

    def __init__(self, domain_id: int, pose_topics: Sequence[str] = (),
                 backend: str = "dds") -> None:
        if backend == "dds":
            self.node = create_node("test_peer", [], backend="dds", domain_id=domain_id,
                                    dds_config=loopback_config())
        else:  # rclpy reads ROS_DOMAIN_ID and CYCLONEDDS_URI from the environment
            self.node = create_node("test_peer", [], backend=backend)
        self.tf = self.node.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        self.tf_static = self.node.create_publisher("tf2_msgs/msg/TFMessage", "/tf_static",
                                                    TF_STATIC)
        self.poses = {topic: self.node.create_publisher("geometry_msgs/msg/PoseStamped", topic,
                                                        SENSOR_DATA)
                      for topic in pose_topics}
        self.received: dict[str, list[Any]] = {
            "penetrations": [], "clearance": [], "proximity_markers": []}
        for topic, msg_type in (("penetrations", "geometry_core_ros/msg/PenetrationPairArray"),
                                ("clearance", "geometry_core_ros/msg/SignedDistancePairArray"),
                                ("proximity_markers", "visualization_msgs/msg/MarkerArray")):
            self.node.create_subscription(msg_type, topic, self.received[topic].append,
                                          RELIABLE_RESULTS)

    def message_type(self, name: str) -> type:
        return self.node.message_type(name)

    def wait_for(self, topic: str, predicate: Callable[[Any], bool], timeout: float = 20.0,
                 repeat: Callable[[], None] | None = None, period: float = 0.05) -> Any:
        """Spin until a message on ``topic`` satisfies ``predicate``; call ``repeat`` meanwhile.

        Raises
        ------
        TimeoutError
            With the number of messages seen.
        """
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            if repeat is not None:
                repeat()
            self.node.spin_once(period)
            messages = self.received[topic]
            for msg in messages[seen:]:
                if predicate(msg):
                    return msg
            seen = len(messages)
        raise TimeoutError(f"no matching message on {topic} within {timeout} s "
                           f"({seen} messages seen)")

    def shutdown(self) -> None:
        self.node.shutdown()


def _default_sigint() -> None:
    """In a child before exec: SIGINT's default action, whatever the parent had."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class NodeProcess:
    """A node started as its own process on the DDS backend, loopback only.

    Parameters
    ----------
    module : str
        ``scene_graph_node`` or ``lcm_bridge_node``.
    params_file : Path
        Passed as ``--ros-args --params-file``.
    domain_id : int
        ``ROS_DOMAIN_ID`` of the child.
    extra_args : sequence of str
        More ``--ros-args`` arguments.
    """

    def __init__(self, module: str, params_file: Path, domain_id: int,
                 extra_args: Sequence[str] = (), command: Sequence[str] | None = None,
                 backend: str = "dds") -> None:
        env = loopback_environment(domain_id)
        env["GEOMETRY_CORE_TRANSPORT"] = backend
        env["PYTHONUNBUFFERED"] = "1"
        if command is None:
            command = [sys.executable, "-m", f"geometry_core_nodes.{module}", "--ros-args",
                       "--params-file", str(params_file), *extra_args]
        # Ctrl-C as a terminal delivers it: a suite started in the background
        # (SIGINT ignored, inherited by children) must not make stop() wait.
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True,
                                        preexec_fn=_default_sigint)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for_line(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output:
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise TimeoutError(f"{text!r} not in the node's output:\n{self.output}")

    def stop(self, timeout: float = 20.0) -> int:
        """Send SIGINT (Ctrl-C), wait, and return the exit status (kill after ``timeout``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(5)
        return self.process.returncode

    def __enter__(self) -> NodeProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def wait_until(condition: Callable[[], Any], timeout_s: float = 30.0,
               spin: Callable[[float], Any] | None = None, poll_s: float = 0.01) -> None:
    """Return once ``condition()`` holds; fail after ``timeout_s``.

    Between two checks, ``spin(poll_s)`` (a node's ``spin_once``) or a sleep.
    """
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        if spin is not None:
            spin(poll_s)
        else:
            time.sleep(poll_s)


def stop_process(process: subprocess.Popen) -> None:
    """Kill ``process`` if it still runs, and collect its output."""
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=10)


def write_params(path: Path, node: str = "scene_graph_node", **values: Any) -> Path:
    """A ROS 2 parameter file for ``node`` with ``values`` (JSON is valid YAML)."""
    path.write_text(json.dumps({node: {"ros__parameters": values}}, indent=2))
    return path


def static_then_dynamic(domain_id: int, params_file: Path, node_backend: str = "dds",
                        peer_backend: str = "dds") -> dict:
    """/tf_static for ``base`` before the node starts, then /tf for some, then all frames.

    Returns the results as plain data: the partial clearance (only ``turret``
    and ``upper_arm`` on /tf) and the full penetrations and clearance, with
    the node's log and exit status.
    """
    peer = Peer(domain_id, backend=peer_backend)
    T = peer.message_type
    poses = demo_poses(T_CONTACT)
    static = T("tf2_msgs/msg/TFMessage")(transforms=[
        make_transform(T, poses["base"][0], "base", poses["base"][1], STAMP_NS)])
    peer.tf_static.publish(static)
    time.sleep(0.3)  # the node's process does not exist yet: only durability can deliver it
    result: dict[str, Any] = {}
    with NodeProcess("scene_graph_node", params_file, domain_id, backend=node_backend) as node:
        try:
            partial = demo_transforms(T, T_CONTACT, STAMP_NS + 1, ("turret", "upper_arm"))
            msg = peer.wait_for("clearance", lambda m: stamp_ns_of(m) == STAMP_NS + 1,
                                repeat=lambda: peer.tf.publish(partial))
            result["partial_clearance"] = pairs_as_dicts(msg)
            full = demo_transforms(T, T_CONTACT, STAMP_NS + 2, ARM_FRAMES[1:])
            stamp = STAMP_NS + 2
            msg = peer.wait_for("penetrations", lambda m: stamp_ns_of(m) == stamp,
                                repeat=lambda: peer.tf.publish(full))
            result["penetrations"] = pairs_as_dicts(msg)
            result["stale_frames"] = list(msg.stale_frames)
            result["frame_id"] = msg.header.frame_id
            msg = peer.wait_for("clearance", lambda m: stamp_ns_of(m) == stamp)
            result["clearance"] = pairs_as_dicts(msg)
            result["max_distance"] = msg.max_distance
            markers = peer.wait_for("proximity_markers",
                                    lambda m: stamp_ns_of(m.markers[0]) == stamp)
            result["markers"] = [(m.ns, m.id, m.type, m.action) for m in markers.markers]
        finally:
            result["returncode"] = node.stop()
            result["log"] = node.output
            peer.shutdown()
    return result


if __name__ == "__main__":
    os.environ.setdefault("GEOMETRY_CORE_TRANSPORT", "dds")
    print(json.dumps(static_then_dynamic(int(sys.argv[1]), Path(sys.argv[2]))))
