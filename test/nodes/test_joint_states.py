"""Joint states to clearance tables: the pure conversions, and the node's monitor.

The monitor runs in a real DDS-backend scene graph node (loopback-only
configuration, a domain of its own) with the UR5 from example-robot-data as
``robot_description``; joint states are handed to its callback by the test.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clearance"))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker, RobotCollisionType  # noqa: E402
from geometry_core_nodes.joint_states import (  # noqa: E402
    JointStateError,
    JointStateTracker,
    joint_state_to_positions,
)
from geometry_core_nodes.outbound import clearance_table_to_msg  # noqa: E402
from geometry_core_nodes.transport import loopback_config  # noqa: E402
from geometry_core_nodes.transport.msg_types import get_message_type  # noqa: E402

JointState = get_message_type("sensor_msgs/msg/JointState")
UR5 = robots.ARMS["ur5"][0]
NAMES = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
         "wrist_2_joint", "wrist_3_joint"]
Q = [0.0, -1.0, 2.6, 0.0, 0.0, 0.0]
_DOMAINS = itertools.count((os.getpid() * 7) % 37)


@pytest.fixture(scope="module")
def checker():
    return CollisionChecker.from_urdf(UR5, environment=robots.environment_scene(),
                                      package_roots=robots.PACKAGE_ROOTS)


def test_positions_and_velocities_by_name(checker):
    msg = JointState(name=NAMES[::-1], position=Q[::-1], velocity=[0.1] * 6)
    positions, velocities = joint_state_to_positions(msg, checker)
    assert positions == dict(zip(NAMES, Q)) and velocities == dict.fromkeys(NAMES, 0.1)


@pytest.mark.parametrize("fields, match", [
    (dict(name=NAMES, position=Q[:5]), "6 names but 5 positions"),
    (dict(name=NAMES, position=Q, velocity=[0.0]), "6 names but 1 velocities"),
    (dict(name=["gripper"], position=[0.0]), r"unknown joints \['gripper'\]"),
    (dict(name=NAMES[:1], position=[math.nan]), "position of 'shoulder_pan_joint' is nan"),
    (dict(name=NAMES[:1], position=[0.0], velocity=[math.inf]),
     "velocity of 'shoulder_pan_joint' is inf"),
])
def test_bad_joint_states_are_refused(checker, fields, match):
    with pytest.raises(JointStateError, match=match):
        joint_state_to_positions(JointState(**fields), checker)


def test_tracker_merges_split_joint_states():
    tracker = JointStateTracker(NAMES)
    tracker.update(dict(zip(NAMES[:3], Q[:3])), {})
    assert not tracker.ready
    tracker.update(dict(zip(NAMES[3:], Q[3:])), dict.fromkeys(NAMES[3:], 0.2))
    assert tracker.ready and tracker.velocities is None
    np.testing.assert_array_equal(tracker.q, Q)


def test_clearance_table_message_carries_every_column(checker):
    q = np.array(Q)
    v = np.array([0.3, -0.2, 0.1, 0.0, 0.5, 0.0])
    table = checker.calc_robot_clearance(q, 0.3)
    assert table.size() > 0
    msg = clearance_table_to_msg(table, checker, q, v, checker.check_config_collision_free(q),
                                 0.3, 1_500_000_000, "world", get_message_type)
    assert msg.header.frame_id == "world" and msg.header.stamp.sec == 1
    assert msg.header.stamp.nanosec == 500_000_000
    assert msg.joint_names == NAMES and msg.positions == Q and msg.influence_distance == 0.3
    assert msg.collision_free == checker.check_config_collision_free(q)
    rates, times = table.approach_rates(v), table.times_to_contact(v)
    for k, row in enumerate(msg.rows):
        assert row.robot_link == checker.body_name(table.robot_indices()[k])
        assert row.other_link == checker.body_name(table.other_indices()[k])
        assert row.type == int(table.collision_types()[k])
        assert row.type in (row.SELF_COLLISION, row.ENVIRONMENT_COLLISION)
        assert row.geometry_a == checker.geometry_name(table.geometry_ids()[k][0])
        assert row.distance == table.distances()[k] and row.rate == rates[k]
        assert row.time_to_contact == times[k]
        assert row.jacobian == list(table.jacobians()[k])
    assert any(row.type == RobotCollisionType.ENVIRONMENT_COLLISION for row in msg.rows)


@pytest.mark.network
@pytest.mark.dds
def test_node_publishes_tables_and_counts_bad_joint_states(tmp_path):
    import yaml

    from geometry_core_nodes.scene_graph_node import SceneGraphNode

    # The node's own scene loads visuals too, and the UR5's are COLLADA: give
    # it the collision-only copy (OBJ meshes, absolute paths).
    urdf = robots.obj_urdf("ur5", tmp_path)
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"scene_graph_node": {"ros__parameters": {
        "robot_description": urdf.read_text(),
        "robot_description_semantic": robots.ARMS["ur5"][1].read_text(),
        "influence_distance": 0.3}}}))
    args = ["--ros-args", "--params-file", str(params)]
    node = SceneGraphNode(args, backend="dds", domain_id=10 + next(_DOMAINS) % 37,
                          dds_config=loopback_config())
    try:
        monitor = node.clearance_monitor
        assert monitor is not None and monitor.checker.position_names == NAMES
        monitor.on_joint_state(JointState(name=NAMES, position=Q, velocity=[0.1] * 6))
        assert monitor.tables == 1
        for bad in (JointState(name=NAMES, position=Q[:5]),
                    JointState(name=["gripper"], position=[0.0]),
                    JointState(name=NAMES[:1], position=[math.nan]),
                    JointState(name=NAMES[5:], position=[99.0])):
            monitor.on_joint_state(bad)
        assert monitor.tables == 1
        assert node.inputs.counters["bad_joint_state"] == 4
        monitor.on_joint_state(JointState(name=NAMES[:2], position=Q[:2]))
        assert monitor.tables == 2     # merged with the joints heard before
    finally:
        node.shutdown()
