"""The real LCM bridge node process: /tf in over loopback DDS, Drake viewer messages out.

The node publishes to an LCM log file (``file://...?mode=w``, LCM's file
provider): no socket is opened for LCM, and the test decodes exactly what a
viewer would have received, with the Drake message classes of
``geometry_core.viewer.lcmtypes``.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import numpy as np
import pytest

lcm = pytest.importorskip("lcm")

from geometry_core.viewer.lcmtypes.drake import (  # noqa: E402
    lcmt_contact_results_for_viz,
    lcmt_viewer_draw,
    lcmt_viewer_load_robot,
)

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]


def test_bridge_draws_tf_poses_and_penetrations_as_contacts(tmp_path):
    domain = 50 + (os.getpid() % 9)
    log_path = tmp_path / "viewer.lcmlog"
    params = scenario.write_params(
        tmp_path / "params.yaml", node="lcm_bridge_node", scene_file="builtin:demo",
        lcm_url=f"file://{log_path}?mode=w", publish_period=0.05, role="proximity")
    peer = scenario.Peer(domain)
    stamp = scenario.STAMP_NS
    tf = scenario.demo_transforms(peer.message_type, scenario.T_CONTACT, stamp)
    with scenario.NodeProcess("lcm_bridge_node", params, domain) as node:
        try:
            node.wait_for_line("ready on the dds backend")
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                peer.tf.publish(tf)
                peer.node.spin_once(0.05)
        finally:
            returncode = node.stop()
            peer.shutdown()
    assert returncode == 0, node.output
    events = list(lcm.EventLog(str(log_path), "r"))
    channels = {e.channel for e in events}
    assert {"DRAKE_VIEWER_LOAD_ROBOT_PROXIMITY", "DRAKE_VIEWER_DRAW_PROXIMITY",
            "CONTACT_RESULTS"} <= channels, channels
    assert events[0].channel == "DRAKE_VIEWER_LOAD_ROBOT_PROXIMITY"  # load before draw
    load = lcmt_viewer_load_robot.decode(events[0].data)
    assert {link.name for link in load.link} >= {"arm::gripper", "world"}

    draws = [lcmt_viewer_draw.decode(e.data) for e in events
             if e.channel == "DRAKE_VIEWER_DRAW_PROXIMITY"]
    draw = draws[-1]
    assert draw.timestamp == stamp // 1_000_000  # milliseconds of the newest pose stamp
    demo = scenario.make_demo_scene()
    demo.advance(scenario.T_CONTACT)
    query = demo.scene_graph.query_object()
    X_WG = query.get_pose_in_world(demo.frames["gripper"])
    p_WG = draw.position[draw.link_name.index("arm::gripper")]
    np.testing.assert_allclose(p_WG, X_WG.translation(), atol=1e-6)  # single precision

    contacts = [lcmt_contact_results_for_viz.decode(e.data) for e in events
                if e.channel == "CONTACT_RESULTS"]
    expected = scenario.reference(scenario.T_CONTACT)["penetrations"]
    assert contacts[-1].num_point_pair_contacts == len(expected) > 0


def test_bridge_draws_planning_scene_objects(tmp_path):
    """A collision object sent to the bridge is in its next load message and its contacts."""
    from geometry_core.scene_graph import Role
    from geometry_core_nodes.scene_objects import OBJECT_COLOR
    from geometry_core_nodes.transport import RELIABLE_RESULTS

    domain = 60 + (os.getpid() % 9)
    log_path = tmp_path / "viewer.lcmlog"
    params = scenario.write_params(
        tmp_path / "params.yaml", node="lcm_bridge_node", scene_file="builtin:demo",
        lcm_url=f"file://{log_path}?mode=w", publish_period=0.05)
    peer = scenario.Peer(domain)
    T = peer.message_type
    objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                         RELIABLE_RESULTS)
    demo = scenario.make_demo_scene()
    demo.advance(scenario.T_CONTACT)
    query = demo.scene_graph.query_object()
    inspector = demo.scene_graph.model_inspector()
    palm = next(g for g in inspector.get_all_geometry_ids(Role.PROXIMITY)
                if inspector.get_name(g) == "palm")
    p_palm = query.get_pose_in_world(palm).translation()
    radius = 0.03
    co = T("moveit_msgs/msg/CollisionObject")(id="probe", operation=0)
    co.header.frame_id = "world"
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p_palm)
    co.pose.orientation.w = 1.0
    co.primitives = [T("shape_msgs/msg/SolidPrimitive")(type=2, dimensions=[radius])]
    co.primitive_poses = [T("geometry_msgs/msg/Pose")(
        orientation=T("geometry_msgs/msg/Quaternion")(w=1.0))]
    tf = scenario.demo_transforms(T, scenario.T_CONTACT, scenario.STAMP_NS)
    with scenario.NodeProcess("lcm_bridge_node", params, domain) as node:
        try:
            node.wait_for_line("ready on the dds backend")
            deadline = time.monotonic() + 10.0
            while objects.get_subscription_count() == 0 and time.monotonic() < deadline:
                peer.node.spin_once(0.05)
            objects.publish(co)
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                peer.tf.publish(tf)
                peer.node.spin_once(0.05)
        finally:
            returncode = node.stop()
            peer.shutdown()
    assert returncode == 0, node.output
    assert "Traceback" not in node.output
    events = list(lcm.EventLog(str(log_path), "r"))
    loads = [lcmt_viewer_load_robot.decode(e.data) for e in events
             if e.channel == "DRAKE_VIEWER_LOAD_ROBOT"]
    world = next(link for link in loads[-1].link if link.name == "world")
    spheres = [g for g in world.geom if g.type == g.SPHERE and list(g.float_data) == [
        pytest.approx(radius)]]
    assert len(spheres) == 1, [(g.type, list(g.float_data)) for g in world.geom]
    np.testing.assert_allclose(spheres[0].position, p_palm, atol=1e-6)  # single precision
    np.testing.assert_allclose(spheres[0].color, OBJECT_COLOR.rgba(), atol=1e-6)
    assert not any(g.type == g.SPHERE and list(g.float_data) == [pytest.approx(radius)]
                   for link in loads[0].link for g in link.geom if link.name == "world")
    contacts = [lcmt_contact_results_for_viz.decode(e.data) for e in events
                if e.channel == "CONTACT_RESULTS"]
    names = {(c.body1_name, c.body2_name) for c in contacts[-1].point_pair_contact_info}
    assert ("arm::gripper::palm", "planning_scene::world::probe") in names or (
        "planning_scene::world::probe", "arm::gripper::palm") in names, names
