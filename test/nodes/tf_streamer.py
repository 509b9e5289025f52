"""A /tf publisher in a process of its own, for the node tests that need /tf flowing.

Run as ``python tf_streamer.py demo|panda RATE TIMEOUT``: wait until a
subscriber matches, print ``matched``, then publish the scene's frame poses
(the demo arm at its contact time, or the Panda from example-robot-data in
MoveIt's "ready" pose, each link in its parent link) at RATE
messages a second, every message with a stamp one nanosecond later than
the one before, until killed or TIMEOUT seconds have passed. With ``burst
COUNT AGO`` after them it sends COUNT messages at once instead, each with a
DDS source timestamp AGO seconds before its write (messages that queued),
prints ``sent`` and waits for the timeout (its reliable writer resends). The
environment (``loopback_environment``) gives the domain and the
loopback-only configuration. Being another process, its messages reach the
node through Cyclone's receive thread, as a robot's would.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from pathlib import Path

from cyclonedds._clayer import ddspy_write_ts

from geometry_core.math import quaternion_wxyz_to_xyzw, rotation_matrix_to_quaternion
from geometry_core_nodes.transport import TF, create_node

HERE = Path(__file__).parent
STAMP_NS = 1_800_000_000_000_000_000


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frame_poses(scene: str) -> list[tuple[str, str, object]]:
    """``(parent, child, X_PC)`` of every frame of the scene."""
    if scene == "demo":
        scenario = _load("node_scenario", HERE / "node_scenario.py")
        poses = scenario.demo_poses(scenario.T_CONTACT)
        return [(poses[f][0], f, poses[f][1]) for f in scenario.ARM_FRAMES]
    from geometry_core.scene_files import SceneFileWarning, load_urdf

    moveit = _load("moveit_scenario", HERE / "moveit_scenario.py")
    urdf, _, _ = moveit.robots.ARMS["panda"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SceneFileWarning)
        loaded = load_urdf(urdf, package_roots=moveit.robots.PACKAGE_ROOTS)
    inspector = loaded.scene_graph.model_inspector()
    world = inspector.world_frame_id()
    names = [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]
    ready = dict(zip(names, moveit.READY))
    out = []
    for frame, X_PF in loaded.kinematics.calc_frame_poses(ready).items():
        parent = inspector.get_parent_frame(frame)
        out.append(("world" if parent == world else inspector.get_name(parent),
                    inspector.get_name(frame), X_PF))
    return out


def main(scene: str, rate: float, timeout: float, burst: int = 0, ago_s: float = 0.0) -> int:
    node = create_node("tf_streamer", [], backend="dds")
    T = node.message_type
    publisher = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
    transforms = []
    for parent, child, X_PC in _frame_poses(scene):
        q = quaternion_wxyz_to_xyzw(rotation_matrix_to_quaternion(X_PC.rotation().matrix()))
        p = X_PC.translation()
        transforms.append(T("geometry_msgs/msg/TransformStamped")(
            header=T("std_msgs/msg/Header")(frame_id=parent),
            child_frame_id=child,
            transform=T("geometry_msgs/msg/Transform")(
                translation=T("geometry_msgs/msg/Vector3")(x=p[0], y=p[1], z=p[2]),
                rotation=T("geometry_msgs/msg/Quaternion")(x=q[0], y=q[1], z=q[2], w=q[3]))))
    message = T("tf2_msgs/msg/TFMessage")(transforms=transforms)

    def stamped(sent: int) -> object:
        """The message with the stamp of the ``sent``-th one."""
        for transform in transforms:
            transform.header.stamp.sec, transform.header.stamp.nanosec = divmod(
                STAMP_NS + sent, 10**9)
        return message

    deadline = time.monotonic() + timeout
    try:
        while publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                return 3
            node.spin_once(0.01)
        print("matched", flush=True)
        if burst:
            for sent in range(burst):
                ddspy_write_ts(publisher._ref, publisher.serialize(stamped(sent)),
                               time.time_ns() - round(ago_s * 1e9))
            print("sent", flush=True)
            while time.monotonic() < deadline:
                node.spin_once(0.05)
            return 0
        start = time.monotonic()
        sent = 0
        while time.monotonic() < deadline:
            ahead = start + sent / rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
            publisher.publish(stamped(sent))
            sent += 1
    finally:
        node.shutdown()
    return 0


if __name__ == "__main__":
    burst = sys.argv[4:] and sys.argv[4] == "burst"
    sys.exit(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]),
                  int(sys.argv[5]) if burst else 0, float(sys.argv[6]) if burst else 0.0))
