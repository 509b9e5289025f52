"""MoveIt's objects in the /tf-driven results of the real scene graph node process.

The node runs as its own process with the built-in demo arm, on the DDS
backend (loopback only) and, where ROS 2 is installed, on rclpy with an
rclpy peer; the test's participant publishes the arm's /tf and real
``moveit_msgs`` messages, and reads ``penetrations``, ``clearance`` and
the markers. A sphere is added where the gripper's palm is, moved away,
removed; a sphere held by the wrist is checked with and without
``touch_links`` and at two arm poses; a full PlanningScene replaces the
world. Every depth and distance of a pair naming an object is compared with
python-fcl called directly on the same shapes and poses (sphere against
boxes and capsules: fcl's exact primitive solvers), and the set of such
pairs with the set fcl finds.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from pathlib import Path

import fcl
import numpy as np
import pytest

from geometry_core.demo import make_demo_scene
from geometry_core.math import RigidTransform
from geometry_core.scene_graph import Role
from geometry_core.shapes import Box, Capsule, Cylinder, Sphere
from geometry_core_nodes.transport import RELIABLE_RESULTS, loopback_config

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("node_scenario", HERE / "node_scenario.py")
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 7) % 41)
T_ARM = scenario.T_CONTACT  # the gripper in the table top and the ball
T_LATER = 3.0
RADIUS = 0.03
MAX_DISTANCE = 0.1


def _fcl_geometry(shape):
    if isinstance(shape, Sphere):
        return fcl.Sphere(shape.radius)
    if isinstance(shape, Box):
        return fcl.Box(shape.width, shape.depth, shape.height)
    if isinstance(shape, Capsule):
        return fcl.Capsule(shape.radius, shape.length)
    if isinstance(shape, Cylinder):
        return fcl.Cylinder(shape.radius, shape.length)
    return None  # the floor: a half space, far below everything an object touches here


def _fcl_object(shape, X_WG: RigidTransform):
    geometry = _fcl_geometry(shape)
    if geometry is None:
        return None
    return fcl.CollisionObject(geometry, fcl.Transform(X_WG.rotation().matrix(),
                                                       X_WG.translation()))


class Reference:
    """The demo at time ``t``: every proximity geometry's name, shape and world pose."""

    def __init__(self, t: float) -> None:
        demo = make_demo_scene()
        demo.advance(t)
        sg = demo.scene_graph
        inspector = sg.model_inspector()
        query = sg.query_object()
        self.frames = {inspector.get_name(f): query.get_pose_in_world(f)
                       for f in inspector.get_all_frame_ids()
                       if f != inspector.world_frame_id()}
        self.geometries = {}
        for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
            frame = inspector.get_frame_id(g)
            name = (f"{inspector.get_owning_source_name(g)}::{inspector.get_name(frame)}::"
                    f"{inspector.get_name(g)}")
            self.geometries[name] = (inspector.get_frame_id(g) == inspector.world_frame_id(),
                                     inspector.get_name(frame),
                                     _fcl_object(inspector.get_shape(g),
                                                 query.get_pose_in_world(g)))

    def pairs(self, p_WS, skip=lambda anchored, frame: False) -> tuple[dict, dict]:
        """fcl's ``{name: depth}`` and ``{name: distance < MAX_DISTANCE}`` of a sphere at p_WS."""
        sphere = fcl.CollisionObject(fcl.Sphere(RADIUS), fcl.Transform(np.asarray(p_WS)))
        depths, distances = {}, {}
        for name, (anchored, frame, other) in self.geometries.items():
            if other is None or skip(anchored, frame):
                continue
            request = fcl.CollisionRequest(enable_contact=True, num_max_contacts=1)
            result = fcl.CollisionResult()
            if fcl.collide(sphere, other, request, result):
                depths[name] = result.contacts[0].penetration_depth
                distances[name] = -depths[name]
                continue
            distance = fcl.distance(sphere, other, fcl.DistanceRequest(), fcl.DistanceResult())
            if distance < MAX_DISTANCE:
                distances[name] = distance
        return depths, distances


def _of_object(msg, geometry_name: str, value: str) -> dict:
    """``{other geometry: depth or distance}`` of the pairs naming ``geometry_name``."""
    out = {}
    for pair in msg.pairs:
        names = (pair.geometry_a, pair.geometry_b)
        if geometry_name in names:
            other = names[1] if names[0] == geometry_name else names[0]
            out[other] = getattr(pair, value)
    return out


def _names_object(msg, object_id: str) -> bool:
    return any(name.endswith(f"::{object_id}") for pair in msg.pairs
               for name in (pair.geometry_a, pair.geometry_b))


def _assert_same(actual: dict, expected: dict, tol: float = 1e-6) -> None:
    assert set(actual) == set(expected), (actual, expected)
    for name, value in expected.items():
        assert abs(actual[name] - value) <= tol, (name, actual[name], value)


def _sphere(T, object_id, p, operation=0, frame="world"):
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = object_id
    co.operation = operation if hasattr(type(co), "__ros_fields__") else bytes([operation])
    co.header.frame_id = frame
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    co.pose.orientation.w = 1.0
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 2, [RADIUS]
    co.primitives = [primitive]
    pose = T("geometry_msgs/msg/Pose")()
    pose.orientation.w = 1.0
    co.primitive_poses = [pose]
    return co


def _domain_for(backend: str, monkeypatch) -> int:
    """A fresh DDS domain; for rclpy, skip where ROS 2 is missing and point it at loopback."""
    domain = 20 + next(_DOMAINS) % 40
    if backend == "rclpy":
        pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
        pytest.importorskip("moveit_msgs.msg", reason="moveit_msgs comes with a ROS 2 "
                            "installation")
        pytest.importorskip("geometry_core_ros.msg",
                            reason="geometry_core_ros messages not generated")
        monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
        monkeypatch.setenv("CYCLONEDDS_URI", loopback_config())
        monkeypatch.setenv("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp")
    return domain


@pytest.mark.parametrize("backend", ["dds", "rclpy"])
def test_objects_reach_penetrations_clearance_and_markers(tmp_path, monkeypatch, backend):
    domain = _domain_for(backend, monkeypatch)
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=MAX_DISTANCE, stale_after_s=0.0)
    peer = scenario.Peer(domain, backend=backend)
    T = peer.message_type
    objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                         RELIABLE_RESULTS)
    attached = peer.node.create_publisher("moveit_msgs/msg/AttachedCollisionObject",
                                          "attached_collision_object", RELIABLE_RESULTS)
    scenes = peer.node.create_publisher("moveit_msgs/msg/PlanningScene", "planning_scene",
                                        RELIABLE_RESULTS)
    stamps = itertools.count(scenario.STAMP_NS)
    t_arm = [T_ARM]
    sent = [0]

    def tick():  # /tf of the arm, a new stamp each time
        sent[0] = next(stamps)
        peer.tf.publish(scenario.demo_transforms(T, t_arm[0], sent[0]))

    def stamp(msg):
        return scenario.stamp_ns_of(msg.markers[0] if hasattr(msg, "markers") else msg)

    def wait(topic, predicate):
        since = sent[0]
        return peer.wait_for(topic, lambda m: stamp(m) > since and predicate(m), repeat=tick)

    here = Reference(T_ARM)
    palm = here.geometries["arm::gripper::palm"][2].getTranslation()
    world_name = "planning_scene::world::"
    with scenario.NodeProcess("scene_graph_node", params, domain, backend=backend) as node:
        try:
            peer.wait_for("penetrations", lambda m: len(m.pairs) > 0, repeat=tick)
            for publisher in (objects, attached, scenes):
                peer.wait_for("penetrations", lambda m, p=publisher:
                              p.get_subscription_count() > 0, repeat=tick)

            # ADD a sphere at the palm: pairs named by its id, depths as fcl's.
            objects.publish(_sphere(T, "probe", palm))
            msg = wait("penetrations", lambda m: _names_object(m, "probe"))
            depths, distances = here.pairs(palm, skip=lambda anchored, frame: anchored)
            assert "arm::gripper::palm" in depths
            _assert_same(_of_object(msg, world_name + "probe", "depth"), depths)
            clearance = wait("clearance", lambda m: _names_object(m, "probe"))
            _assert_same(_of_object(clearance, world_name + "probe", "distance"), distances)
            markers = wait("proximity_markers", lambda m: len(m.markers) > 1)
            points = [(p.x, p.y, p.z) for m in markers.markers
                      if m.ns == "penetration_points" for p in m.points]
            probe_points = [(p.p_wca.x, p.p_wca.y, p.p_wca.z) for p in msg.pairs
                            if p.geometry_a.endswith("::probe")] + [
                (p.p_wcb.x, p.p_wcb.y, p.p_wcb.z) for p in msg.pairs
                if p.geometry_b.endswith("::probe")]
            assert probe_points and all(
                min(np.linalg.norm(np.subtract(q, p)) for p in points) < 1e-9
                for q in probe_points), (points, probe_points)

            # MOVE it 9 cm sideways: out of the penetrations, in the clearance.
            above = palm + [0.0, 0.09, 0.0]
            objects.publish(_sphere(T, "probe", above, operation=3))
            msg = wait("clearance", lambda m: _names_object(m, "probe") and all(
                d > 0 for d in _of_object(m, world_name + "probe", "distance").values()))
            _, distances = here.pairs(above, skip=lambda anchored, frame: anchored)
            assert distances, "the moved sphere should be near the gripper"
            _assert_same(_of_object(msg, world_name + "probe", "distance"), distances)
            wait("penetrations", lambda m: not _names_object(m, "probe"))

            # REMOVE: gone from the clearance too.
            objects.publish(_sphere(T, "probe", above, operation=1))
            wait("clearance", lambda m: not _names_object(m, "probe"))
            msg = wait("clearance", lambda m: True)
            assert not _names_object(msg, "probe")

            # A sphere held by the wrist, at the palm: paired with the gripper...
            X_WW = here.frames["wrist"]
            p_wrist = X_WW.inverse() @ palm
            held = T("moveit_msgs/msg/AttachedCollisionObject")()
            held.link_name = "wrist"
            held.object = _sphere(T, "part", p_wrist, frame="wrist")
            attached.publish(held)
            held_name = "arm::wrist::part"
            msg = wait("penetrations", lambda m: _names_object(m, "part"))
            depths, _ = here.pairs(palm, skip=lambda anchored, frame: frame == "wrist")
            _assert_same(_of_object(msg, held_name, "depth"), depths)
            assert "arm::gripper::palm" in depths
            # ... and not with the gripper once it is a touch link.
            held.touch_links = ["gripper"]
            attached.publish(held)
            msg = wait("penetrations", lambda m: not any(
                "::gripper::" in other for other in _of_object(m, held_name, "depth")))
            depths, _ = here.pairs(palm, skip=lambda anchored, frame: frame in ("wrist",
                                                                                "gripper"))
            _assert_same(_of_object(msg, held_name, "depth"), depths)

            # The arm moves: the held sphere moves with the wrist.
            later = Reference(T_LATER)
            p_later = later.frames["wrist"] @ p_wrist
            t_arm[0] = T_LATER
            _, distances = later.pairs(p_later, skip=lambda anchored, frame: frame in (
                "wrist", "gripper"))
            assert distances, "the held sphere should be near something at the later pose"
            msg = wait("clearance", lambda m: True)  # a stamp sent after the arm moved
            _assert_same(_of_object(msg, held_name, "distance"), distances)

            # A full planning scene replaces the world: only its object is left.
            full = T("moveit_msgs/msg/PlanningScene")()
            full.is_diff = False
            full.world.collision_objects = [_sphere(T, "fresh", p_later)]
            scenes.publish(full)
            msg = wait("clearance", lambda m: _names_object(m, "fresh"))
            assert not _names_object(msg, "part")
            _, distances = later.pairs(p_later, skip=lambda anchored, frame: anchored)
            _assert_same(_of_object(msg, world_name + "fresh", "distance"), distances)
        finally:
            returncode = node.stop()
            peer.shutdown()
    assert returncode == 0, node.output
    assert "Traceback" not in node.output


def _acm_diff(T, object_id: str, link: str, allowed: bool):
    """A PlanningScene diff whose matrix has the one entry ``(object_id, link)``."""
    scene = T("moveit_msgs/msg/PlanningScene")()
    scene.is_diff = True
    acm = scene.allowed_collision_matrix
    acm.entry_names = [object_id, link]
    acm.entry_values = [T("moveit_msgs/msg/AllowedCollisionEntry")(enabled=[False, allowed]),
                        T("moveit_msgs/msg/AllowedCollisionEntry")(enabled=[allowed, False])]
    return scene


@pytest.mark.parametrize("backend", ["dds", "rclpy"])
def test_allowed_collision_entries_at_run_time(tmp_path, monkeypatch, backend):
    """An entry added at run time takes a pair out of /penetrations; set back, it returns."""
    domain = _domain_for(backend, monkeypatch)
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=MAX_DISTANCE, stale_after_s=0.0)
    peer = scenario.Peer(domain, backend=backend)
    T = peer.message_type
    objects = peer.node.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                         RELIABLE_RESULTS)
    scenes = peer.node.create_publisher("moveit_msgs/msg/PlanningScene", "planning_scene",
                                        RELIABLE_RESULTS)
    stamps = itertools.count(scenario.STAMP_NS)
    sent = [0]

    def tick():
        sent[0] = next(stamps)
        peer.tf.publish(scenario.demo_transforms(T, T_ARM, sent[0]))

    def wait(topic, predicate):
        since = sent[0]
        return peer.wait_for(topic, lambda m: scenario.stamp_ns_of(m) > since and predicate(m),
                             repeat=tick)

    here = Reference(T_ARM)
    palm = here.geometries["arm::gripper::palm"][2].getTranslation()
    probe = "planning_scene::world::probe"
    depths, _ = here.pairs(palm, skip=lambda anchored, frame: anchored)
    assert "arm::gripper::palm" in depths and len(depths) > 1  # the palm and another link
    without_gripper = {k: v for k, v in depths.items() if "::gripper::" not in k}
    with scenario.NodeProcess("scene_graph_node", params, domain, backend=backend) as node:
        try:
            peer.wait_for("penetrations", lambda m: len(m.pairs) > 0, repeat=tick)
            for publisher in (objects, scenes):
                peer.wait_for("penetrations", lambda m, p=publisher:
                              p.get_subscription_count() > 0, repeat=tick)
            objects.publish(_sphere(T, "probe", palm))
            msg = wait("penetrations", lambda m: _names_object(m, "probe"))
            _assert_same(_of_object(msg, probe, "depth"), depths)
            for _ in range(2):  # allowed, not allowed, and once more
                scenes.publish(_acm_diff(T, "probe", "gripper", True))
                msg = wait("penetrations", lambda m: "arm::gripper::palm" not in _of_object(
                    m, probe, "depth"))
                _assert_same(_of_object(msg, probe, "depth"), without_gripper)
                scenes.publish(_acm_diff(T, "probe", "gripper", False))
                msg = wait("penetrations", lambda m: "arm::gripper::palm" in _of_object(
                    m, probe, "depth"))
                _assert_same(_of_object(msg, probe, "depth"), depths)
        finally:
            returncode = node.stop()
            peer.shutdown()
    assert returncode == 0, node.output
    assert "Traceback" not in node.output
