"""The real scene graph node process: /joint_states in, ClearanceTable out, over DDS.

The node runs as its own process (loopback-only Cyclone configuration, a
domain of its own) with the UR5 as ``robot_description``, on the built-in
DDS backend and, where a ROS 2 installation provides rclpy and the
generated ``geometry_core_ros`` messages (colcon test), on rclpy with
rmw_cyclonedds; the test publishes joint states with its own participant
(built-in backend) and compares the tables with the library's, computed
here for the same positions.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "clearance"))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core_nodes.transport import (  # noqa: E402
    LATCHED,
    RELIABLE_RESULTS,
    create_node,
    loopback_config,
)

_spec = importlib.util.spec_from_file_location("node_scenario", HERE / "node_scenario.py")
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 17) % 41)
NAMES = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
         "wrist_2_joint", "wrist_3_joint"]


def _rclpy_available() -> bool:
    try:
        import geometry_core_ros.msg  # noqa: F401
        import rclpy  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("backend", [
    "dds",
    pytest.param("rclpy", marks=pytest.mark.skipif(
        not _rclpy_available(), reason="rclpy and geometry_core_ros come with a ROS 2 "
        "installation (run by colcon test)")),
])
def test_joint_states_become_clearance_tables_and_bad_ones_are_dropped(tmp_path, backend):
    domain = 115 + next(_DOMAINS) % 5
    urdf = robots.obj_urdf("ur5", tmp_path)     # the node's own scene loads no COLLADA
    srdf = robots.ARMS["ur5"][1]
    params = scenario.write_params(tmp_path / "params.yaml", robot_description=urdf.read_text(),
                                   robot_description_semantic=srdf.read_text(),
                                   influence_distance=0.2)
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf)
    q = np.array([0.3, -1.0, 2.6, 0.1, 0.0, 0.0])
    v = np.array([0.0, 0.0, 0.5, 0.0, 0.0, 0.0])
    assert checker.calc_robot_clearance(q, 0.2).size() > 0

    peer = create_node("test_peer", [], backend="dds", domain_id=domain,
                       dds_config=loopback_config())
    tables = []
    peer.create_subscription("geometry_core_ros/msg/ClearanceTable", "clearance_table",
                             tables.append, RELIABLE_RESULTS)
    JointState = peer.message_type("sensor_msgs/msg/JointState")
    publisher = peer.create_publisher("sensor_msgs/msg/JointState", "joint_states",
                                      RELIABLE_RESULTS)
    try:
        with scenario.NodeProcess("scene_graph_node", params, domain,
                                  backend=backend) as node:
            node.wait_for_line(f"ready on the {backend} backend")
            good = JointState(name=NAMES, position=list(q), velocity=list(v))
            good.header.stamp.sec = 7
            bad = [JointState(name=NAMES, position=list(q[:5])),
                   JointState(name=["gripper"], position=[0.0]),
                   JointState(name=NAMES[:1], position=[math.nan])]
            deadline = time.monotonic() + 30
            while not tables and time.monotonic() < deadline:
                for msg in bad + [good]:
                    publisher.publish(msg)
                peer.spin_once(0.2)
            assert tables, node.output
            node.wait_for_line("bad_joint_state", timeout=10)
        table = tables[0]
        assert table.header.stamp.sec == 7 and table.joint_names == NAMES
        _assert_table_is(table, checker, q, v)
    finally:
        peer.shutdown()


def _rows(table):
    return sorted((r.robot_link, r.other_link, r.distance, tuple(r.jacobian), r.rate)
                  for r in table.rows)


def _assert_table_is(table, checker, q, v):
    """The node's ClearanceTable message equals the library's table at (q, v)."""
    expected = checker.calc_robot_clearance(q, 0.2)
    assert table.collision_free == checker.check_config_collision_free(q)
    got = _rows(table)
    want = sorted((checker.body_name(a), checker.body_name(b), d, tuple(J), float(J @ v))
                  for a, b, d, J in zip(expected.robot_indices(), expected.other_indices(),
                                        expected.distances(), expected.jacobians()))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g[:2] == w[:2]
        np.testing.assert_allclose(g[2:3] + g[3] + g[4:], w[2:3] + w[3] + w[4:], atol=1e-12)


def test_a_robot_from_the_latched_topics_gets_clearance_tables(tmp_path):
    # No robot_description parameter: joint states before the robot are
    # counted and dropped; the URDF on the latched robot_description topic
    # builds the checker, and an SRDF arriving later on its topic rebuilds
    # it (the UR5's SRDF removes 4 of 21 rows at this configuration).
    domain = 115 + next(_DOMAINS) % 5
    urdf = robots.obj_urdf("ur5", tmp_path)
    srdf = robots.ARMS["ur5"][1]
    # The meshes are absolute paths under tmp_path: a description from the topic
    # reads them only under an allowed root.
    params = scenario.write_params(tmp_path / "params.yaml", influence_distance=0.2,
                                   allowed_file_roots=[str(tmp_path)])
    plain, filtered = CollisionChecker.from_urdf(urdf), CollisionChecker.from_urdf(urdf, srdf=srdf)
    q = np.array([0.3, -1.0, 2.6, 0.1, 0.0, 0.0])
    v = np.zeros(6)
    assert (plain.calc_robot_clearance(q, 0.2).size()
            > filtered.calc_robot_clearance(q, 0.2).size())

    peer = create_node("test_peer", [], backend="dds", domain_id=domain,
                       dds_config=loopback_config())
    tables = []
    peer.create_subscription("geometry_core_ros/msg/ClearanceTable", "clearance_table",
                             tables.append, RELIABLE_RESULTS)
    String = peer.message_type("std_msgs/msg/String")
    JointState = peer.message_type("sensor_msgs/msg/JointState")
    joints = peer.create_publisher("sensor_msgs/msg/JointState", "joint_states",
                                   RELIABLE_RESULTS)
    description = peer.create_publisher("std_msgs/msg/String", "robot_description", LATCHED)
    semantic = peer.create_publisher("std_msgs/msg/String", "robot_description_semantic",
                                     LATCHED)
    state = JointState(name=NAMES, position=list(q), velocity=list(v))

    def table_after(publish, wanted_rows):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            publish()
            joints.publish(state)
            peer.spin_once(0.2)
            if tables and len(tables[-1].rows) == wanted_rows:
                return tables[-1]
        raise AssertionError(f"no table of {wanted_rows} rows: {[len(t.rows) for t in tables]}")

    try:
        with scenario.NodeProcess("scene_graph_node", params, domain) as node:
            node.wait_for_line("waiting for the /robot_description topic")
            deadline = time.monotonic() + 30
            while "joint_state_without_robot" not in node.output:
                assert time.monotonic() < deadline, node.output
                joints.publish(state)
                peer.spin_once(0.2)
            assert not tables
            rows = plain.calc_robot_clearance(q, 0.2).size()
            table = table_after(lambda: description.publish(String(data=urdf.read_text())), rows)
            _assert_table_is(table, plain, q, v)
            rows = filtered.calc_robot_clearance(q, 0.2).size()
            table = table_after(lambda: semantic.publish(String(data=srdf.read_text())), rows)
            _assert_table_is(table, filtered, q, v)
    finally:
        peer.shutdown()
