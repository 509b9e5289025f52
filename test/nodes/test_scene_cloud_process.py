"""A PointCloud2 in the /tf-driven results of the real scene graph node process.

The node runs as its own process with a two-link robot of boxes as
``robot_description`` and ``point_cloud_topic`` set, on the DDS backend
(loopback only) and, where ROS 2 is installed, on rclpy; the test's
participant publishes the robot's /tf and a real ``sensor_msgs/PointCloud2``
and reads ``penetrations`` and ``clearance``. A point inside the hand when
the cloud comes is the robot itself (the self filter drops it); the points
above the hand are obstacles, which the hand then rises into. Each pair
with a point is named by the point's row and its depth or distance is
compared with python-fcl's sphere-box solution on the same poses.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
from pathlib import Path

import fcl
import numpy as np
import pytest

from geometry_core.math import RigidTransform
from geometry_core_nodes.transport import SENSOR_DATA, loopback_config

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("node_scenario", HERE / "node_scenario.py")
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)
_spec = importlib.util.spec_from_file_location("moveit_scenario", HERE / "moveit_scenario.py")
moveit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(moveit)

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 11) % 37)
RADIUS = 0.01
MAX_DISTANCE = 0.05
HAND_Z = 0.5     # the hand's centre at the default position (lift 0)
HAND = 0.1       # its box's side
URDF = f"""<?xml version="1.0"?>
<robot name="lifter">
  <link name="base">
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.4 0.4 0.1"/></geometry></collision>
  </link>
  <link name="hand">
    <collision name="palm"><geometry><box size="{HAND} {HAND} {HAND}"/></geometry></collision>
  </link>
  <joint name="lift" type="prismatic">
    <parent link="base"/><child link="hand"/><origin xyz="0 0 {HAND_Z}"/><axis xyz="0 0 1"/>
    <limit lower="-0.2" upper="0.2" effort="1" velocity="1"/>
  </joint>
</robot>
"""
#: Row 0 inside the hand (the robot seen by the camera), rows 1-2 above it, row 3 far.
POINTS = np.array([[0.0, 0.0, HAND_Z], [0.02, 0.0, HAND_Z + 0.09], [-0.03, 0.01, HAND_Z + 0.1],
                   [1.0, 1.0, 1.0]])
LIFT = 0.05      # the hand rises into rows 1 and 2


def _expected(lift: float) -> tuple[dict, dict]:
    """fcl's ``{row: depth}`` and ``{row: distance < MAX_DISTANCE}`` of the hand's box."""
    box = fcl.CollisionObject(fcl.Box(HAND, HAND, HAND),
                              fcl.Transform(np.array([0.0, 0.0, HAND_Z + lift])))
    depths, distances = {}, {}
    # The message carries the points in single precision: fcl gets the same numbers.
    for row, p in enumerate(POINTS[1:].astype(np.float32).astype(float), start=1):
        sphere = fcl.CollisionObject(fcl.Sphere(RADIUS), fcl.Transform(p))
        result = fcl.CollisionResult()
        if fcl.collide(sphere, box, fcl.CollisionRequest(enable_contact=True), result):
            depths[row] = result.contacts[0].penetration_depth
            distances[row] = -depths[row]
            continue
        distance = fcl.distance(sphere, box, fcl.DistanceRequest(), fcl.DistanceResult())
        if distance < MAX_DISTANCE:
            distances[row] = distance
    return depths, distances


_POINT = re.compile(r"^planning_scene::world::point_cloud\[(\d+)\]$")


def _rows(msg, value: str) -> dict:
    """``{row: depth or distance}`` of the pairs of a cloud point with the hand's box."""
    out = {}
    for pair in msg.pairs:
        for mine, other in ((pair.geometry_a, pair.geometry_b),
                            (pair.geometry_b, pair.geometry_a)):
            match = _POINT.match(mine)
            if match and other.endswith("::hand::palm"):
                out[int(match.group(1))] = getattr(pair, value)
    return out


@pytest.mark.parametrize("backend", ["dds", "rclpy"])
def test_cloud_points_reach_penetrations_and_clearance(tmp_path, monkeypatch, backend):
    domain = 60 + next(_DOMAINS) % 30
    if backend == "rclpy":
        pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
        pytest.importorskip("geometry_core_ros.msg",
                            reason="geometry_core_ros messages not generated")
        monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
        monkeypatch.setenv("CYCLONEDDS_URI", loopback_config())
        monkeypatch.setenv("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp")
    params = scenario.write_params(
        tmp_path / "params.yaml", robot_description=URDF, world_frame="world",
        point_cloud_topic="camera/points", point_cloud_radius=RADIUS,
        max_distance=MAX_DISTANCE, stale_after_s=0.0)
    peer = scenario.Peer(domain, backend=backend)
    T = peer.message_type
    cloud = peer.node.create_publisher("sensor_msgs/msg/PointCloud2", "camera/points",
                                       SENSOR_DATA)
    stamps = itertools.count(scenario.STAMP_NS)
    lift, sent = [0.0], [0]

    def tick():  # /tf of the robot, a new stamp each time
        sent[0] = next(stamps)
        peer.tf.publish(T("tf2_msgs/msg/TFMessage")(transforms=[
            scenario.make_transform(T, "world", "base", RigidTransform(), sent[0]),
            scenario.make_transform(T, "base", "hand",
                                    RigidTransform(p=[0.0, 0.0, HAND_Z + lift[0]]), sent[0])]))

    def wait(topic, predicate):
        since = sent[0]
        return peer.wait_for(topic, lambda m: scenario.stamp_ns_of(m) > since and predicate(m),
                             repeat=tick)

    depths_up, distances_up = _expected(LIFT)
    assert set(depths_up) == {1, 2}  # the raised hand is in both points
    _, distances_down = _expected(0.0)
    assert distances_down and not _expected(0.0)[0]  # near, not in, before it rises
    with scenario.NodeProcess("scene_graph_node", params, domain, backend=backend) as node:
        try:
            peer.wait_for("clearance", lambda m: cloud.get_subscription_count() > 0,
                          repeat=tick)
            msg = wait("clearance", lambda m: True)
            assert not _rows(msg, "distance")
            # Repeated, as a camera does (best-effort delivery).
            send = moveit._cloud(T, POINTS.tolist())
            since = sent[0]
            msg = peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) > since and (
                _rows(m, "distance")), repeat=lambda: (cloud.publish(send), tick()))
            rows = _rows(msg, "distance")
            assert set(rows) == set(distances_down), (rows, distances_down)
            for row, value in distances_down.items():
                assert abs(rows[row] - value) <= 1e-6, (row, rows[row], value)
            # The hand rises into the points above it; row 0 (the hand itself) stays out.
            lift[0] = LIFT
            msg = wait("penetrations", lambda m: len(_rows(m, "depth")) == 2)
            rows = _rows(msg, "depth")
            assert set(rows) == set(depths_up), (rows, depths_up)
            for row, value in depths_up.items():
                assert abs(rows[row] - value) <= 1e-6, (row, rows[row], value)
            msg = wait("clearance", lambda m: True)
            rows = _rows(msg, "distance")
            assert set(rows) == set(distances_up)
            for pair in msg.pairs:  # witness points in W on the point's sphere
                match = _POINT.match(pair.geometry_a) or _POINT.match(pair.geometry_b)
                if match is None:
                    continue
                a = _POINT.match(pair.geometry_a) is not None
                p = pair.p_wca if a else pair.p_wcb
                centre = POINTS[int(match.group(1))]
                assert abs(np.linalg.norm([p.x - centre[0], p.y - centre[1],
                                           p.z - centre[2]]) - RADIUS) < 1e-6
                # In the cloud's frame (the world's here) it is the same point.
                local = pair.p_aca if a else pair.p_bcb
                assert np.allclose([local.x, local.y, local.z], [p.x, p.y, p.z], atol=1e-12)
        finally:
            returncode = node.stop()
            peer.shutdown()
    assert returncode == 0, node.output
    assert "Traceback" not in node.output
