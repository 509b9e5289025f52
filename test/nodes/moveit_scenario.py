"""The MoveIt scenario of the node tests: a Panda, its planning scene step by step, the answers.

:func:`steps` gives, in order, the messages a MoveIt user publishes (a box
where the hand is, the same box moved away, a box held by the hand with its
touch links, a PlanningScene diff with an allowed-collision entry and link
padding, a PointCloud2) and, for each, a function that makes the same world
in a reference :class:`CollisionChecker` with the library's own calls.
:func:`expected` is the library's answer for a configuration: validity and
the contacts as ``(body, body, depth)`` with MoveIt's names (object ids for
added shapes); :func:`answer` reads a ``GetStateValidity`` response the
same way.
"""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path
from typing import Any

import numpy as np

from geometry_core.clearance import CollisionChecker
from geometry_core.math import RigidTransform
from geometry_core.shapes import Box

_spec = importlib.util.spec_from_file_location(
    "robots", Path(__file__).resolve().parents[1] / "clearance" / "robots.py")
robots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(robots)

#: MoveIt's "ready" pose of the Panda (panda_moveit_config), fingers 4 cm open.
READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04]
#: Where the hand of the Panda is at READY (its frame origin, in the world).
HAND = (0.30702, 0.0, 0.59027)
CLOUD_RADIUS = 0.01


def parameters() -> dict:
    """The scene graph node's parameters for the Panda from example-robot-data."""
    urdf, srdf, _ = robots.ARMS["panda"]
    return {"robot_description": Path(urdf).read_text(), "srdf_file": str(srdf),
            "package_roots": [f"{k}={v}" for k, v in robots.PACKAGE_ROOTS.items()],
            "world_frame": "world", "point_cloud_topic": "camera/points",
            "point_cloud_radius": CLOUD_RADIUS}


def reference_checker() -> CollisionChecker:
    urdf, srdf, _ = robots.ARMS["panda"]
    return CollisionChecker.from_urdf(urdf, srdf=srdf, package_roots=robots.PACKAGE_ROOTS)


def _box(T, object_id, p, operation=0, dims=(0.1, 0.1, 0.1), frame="world"):
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = object_id
    co.operation = operation if hasattr(type(co), "__ros_fields__") else bytes([operation])
    co.header.frame_id = frame
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 1, [float(d) for d in dims]
    co.primitives = [primitive]
    co.primitive_poses = [T("geometry_msgs/msg/Pose")()]
    return co


def _cloud(T, points) -> Any:
    msg = T("sensor_msgs/msg/PointCloud2")()
    msg.header.frame_id = "world"
    msg.height, msg.width = 1, len(points)
    msg.point_step, msg.row_step = 16, 16 * len(points)
    fields = []
    for k, axis in enumerate("xyz"):
        f = T("sensor_msgs/msg/PointField")()
        f.name, f.offset, f.datatype, f.count = axis, 4 * k, 7, 1
        fields.append(f)
    msg.fields = fields
    data = b"".join(struct.pack("<3f", *p) + b"\0" * 4 for p in points)
    msg.data = list(data) if hasattr(type(msg), "__ros_fields__") else data
    return msg


def steps(T) -> list[tuple[str, str, Any, Any]]:
    """``(name, topic, message, apply_to_reference)`` in the scenario's order."""
    hand = np.array(HAND)
    table = hand - [0.0, 0.0, 0.16]
    out = []
    out.append(("box at the hand", "collision_object", _box(T, "obstacle", hand),
                lambda c: c.add_collision_shape_to_body("obstacle", "world", Box(0.1, 0.1, 0.1),
                                                        RigidTransform(hand))))

    def moved(c):
        c.remove_all_added_collision_shapes("obstacle")
        c.add_collision_shape_to_body("obstacle", "world", Box(0.1, 0.1, 0.1),
                                      RigidTransform([1.5, 0.0, 0.5]))

    out.append(("box moved away", "collision_object",
                _box(T, "obstacle", (1.5, 0.0, 0.5), operation=3), moved))
    aco = T("moveit_msgs/msg/AttachedCollisionObject")()
    aco.link_name = "panda_hand"
    aco.touch_links = ["panda_leftfinger", "panda_rightfinger"]
    aco.object = _box(T, "part", (0.0, 0.0, 0.1034), dims=(0.02, 0.14, 0.08),
                      frame="panda_hand")

    def held(c):
        c.add_collision_shape_to_body("part", "panda_hand", Box(0.02, 0.14, 0.08),
                                      RigidTransform([0.0, 0.0, 0.1034]))
        for finger in ("panda_leftfinger", "panda_rightfinger"):
            c.set_collision_filtered_between("panda_hand", finger, True)

    out.append(("box held by the hand", "attached_collision_object", aco, held))
    scene = T("moveit_msgs/msg/PlanningScene")()
    scene.is_diff = True
    scene.world.collision_objects = [_box(T, "table", table, dims=(0.2, 0.2, 0.02))]
    acm = scene.allowed_collision_matrix
    acm.entry_names = ["panda_link5", "panda_link7"]
    entries = []
    for values in ([False, True], [True, False]):
        entry = T("moveit_msgs/msg/AllowedCollisionEntry")()
        entry.enabled = values
        entries.append(entry)
    acm.entry_values = entries
    padding = T("moveit_msgs/msg/LinkPadding")()
    padding.link_name, padding.padding = "panda_hand", 0.05
    scene.link_padding = [padding]

    def diff(c):
        c.add_collision_shape_to_body("table", "world", Box(0.2, 0.2, 0.02),
                                      RigidTransform(table))
        c.set_collision_filtered_between("panda_link5", "panda_link7", True)
        for body in c.body_names:
            if body != "panda_hand":
                c.set_padding_between("panda_hand", body,
                                      c.get_padding_between("panda_hand", body) + 0.05)

    out.append(("planning scene diff", "planning_scene", scene, diff))
    rng = np.random.default_rng(5)
    points = hand + [0.0, 0.25, 0.0] + rng.uniform(-0.05, 0.05, (200, 3))
    out.append(("point cloud", "camera/points", _cloud(T, points.tolist()),
                lambda c: c.add_point_cloud("point_cloud", points.astype(np.float32),
                                            CLOUD_RADIUS)))
    return out


def _names(checker: CollisionChecker) -> dict:
    out = {}
    for group, descriptions in checker.get_all_added_collision_shapes().items():
        for d in descriptions:
            out[d.geometry_id] = group
    return out


def expected(checker: CollisionChecker, q) -> tuple[bool, list]:
    """The library's answer at ``q``: validity, and contacts as sorted (body, body, depth)."""
    names = _names(checker)
    contacts = []
    for c in checker.calc_contacts(np.asarray(q, dtype=float)):
        a = names.get(c.geometry_id_A, c.body_A)
        b = names.get(c.geometry_id_B, c.body_B)
        contacts.append((min(a, b), max(a, b), round(c.depth, 6)))
    return bool(checker.check_config_collision_free(q)), sorted(contacts)


def answer(response: Any) -> tuple[bool, list]:
    """A GetStateValidity response read as :func:`expected`'s answer."""
    contacts = [(min(c.contact_body_1, c.contact_body_2), max(c.contact_body_1,
                c.contact_body_2), round(c.depth, 6)) for c in response.contacts]
    return bool(response.valid), sorted(contacts)


def validity_request(request_type: type, T, q=READY) -> Any:
    request = request_type()
    joints = request.robot_state.joint_state
    joints.name = [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]
    joints.position = [float(v) for v in q]
    request.robot_state.is_diff = False
    return request
