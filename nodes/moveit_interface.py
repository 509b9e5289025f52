"""MoveIt's planning-scene protocol on the scene graph node: topics in, two services.

A planner or a perception pipeline describes its world as MoveIt does, and
asks through MoveIt's service; this wires that to the node's robot checker
(:class:`~geometry_core_nodes.joint_states.ClearanceMonitor`), whose
clearance tables then include the objects:

- subscriptions (relative to the node's namespace, MoveIt's names):
  ``collision_object`` (``moveit_msgs/CollisionObject``),
  ``attached_collision_object`` (``moveit_msgs/AttachedCollisionObject``),
  ``planning_scene`` (``moveit_msgs/PlanningScene``: a diff edits, a full
  scene replaces), and, when the ``point_cloud_topic`` parameter names one,
  a ``sensor_msgs/PointCloud2`` (in the planning frame) whose points become
  spheres of ``point_cloud_radius``;
- services: ``check_state_validity`` (``moveit_msgs/GetStateValidity``),
  ``get_planning_scene`` (``moveit_msgs/GetPlanningScene``) and, with a
  robot, ``check_multi_state_validity``
  (``geometry_core_ros/GetMultiStateValidity``: many states in one call,
  batched through the library).

``check_state_validity`` reads the request's joint positions as MoveIt's
``robotStateMsgToRobotState`` does: on top of the node's current joint
state (the newest ``joint_states``, the checker's default positions for
joints not heard yet); with ``is_diff`` false the message must name at
least one joint. The reply's ``valid`` is the checker's
``check_config_collision_free``; its ``contacts`` are the checker's
contacts (:meth:`CollisionChecker.calc_contacts`), each with both body
names (an object's MoveIt id for its shapes), the penetration depth, a
position (midway between the witness points) and the normal. Attached
objects inside the request are not applied (counted as
``request_attached_objects``).

A message that cannot be used is refused whole (nothing of it applied),
counted by kind (``bad_collision_object``, ``bad_attached_object``,
``bad_planning_scene``, ``bad_point_cloud``, ``planning_scene_without_robot``)
and logged at most once per ``LOG_PERIOD_S`` per kind.

This module uses the library's public API and the transport interface; it
never imports cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from geometry_core.shapes import Box, Convex, Cylinder, HalfSpace, Sphere
from geometry_core_nodes import moveit_types  # noqa: F401  (the DDS backend's definitions)
from geometry_core_nodes.collision_object_cdr import COLLISION_OBJECT_CODEC
from geometry_core_nodes.joint_states import JointStateError, joint_state_to_positions
from geometry_core_nodes.limits import MAX_BATCH_STATES
from geometry_core_nodes.outbound import make_header
from geometry_core_nodes.planning_scene import (
    ADD,
    PlanningSceneError,
    attached_object_edit,
    collision_object_edit,
    planning_scene_edits,
    point_cloud_points,
)
from geometry_core_nodes.planning_scene_world import PlanningSceneWorld, object_group
from geometry_core_nodes.transport import RELIABLE_RESULTS, SENSOR_DATA, at_least

__all__ = ["BATCH_SERVICE_TYPE", "MoveItInterface", "contacts_to_msgs",
           "planning_scene_to_msg"]

#: Our batch validity service (MoveIt's GetMultiStateValidity is not in Humble).
BATCH_SERVICE_TYPE = "geometry_core_ros/srv/GetMultiStateValidity"

# moveit_msgs/ContactInformation body types.
_ROBOT_LINK, _WORLD_OBJECT, _ROBOT_ATTACHED = 0, 1, 2


class MoveItInterface:
    """The planning-scene topics and services of one node (see the module docstring).

    Parameters
    ----------
    node : TransportNode
    monitor : ClearanceMonitor or None
        The node's robot: its checker gets the objects. None for a node on
        a ``scene_file``: the objects then go into the scene graph only,
        and the validity service answers ``valid: false`` (no robot state).
    world_frame : str
        The planning frame (``header.frame_id`` of the replies).
    drop : callable
        ``drop(kind, message)``: the node's count-and-warn function.
    scene : SceneObjects, optional
        The scene graph of the /tf-driven results, which gets the objects
        too (:mod:`geometry_core_nodes.scene_objects`).

    Raises
    ------
    LookupError
        If the backend has no moveit_msgs (rclpy without the ROS package
        ``moveit_msgs``); nothing is created then.
    """

    def __init__(self, node: Any, monitor: Any, world_frame: str,
                 drop: Callable[[str, str], None], scene: Any = None) -> None:
        # Every type first, so that a missing package creates nothing.
        for name in ("moveit_msgs/msg/CollisionObject", "moveit_msgs/msg/AttachedCollisionObject",
                     "moveit_msgs/msg/PlanningScene", "sensor_msgs/msg/PointCloud2"):
            node.message_type(name)
        for name in ("moveit_msgs/srv/GetStateValidity", "moveit_msgs/srv/GetPlanningScene"):
            node.service_types(name)
        self.node = node
        self.monitor = monitor
        self.world_frame = world_frame
        self._drop = drop
        self.scene = scene
        self.world: PlanningSceneWorld | None = None
        self.applied = 0
        self.answered = 0
        # Point clouds need the robot's checker (its self-filter): without a
        # robot (a scene file) the cloud parameters are not declared.
        self.point_cloud_radius = 0.0
        cloud_topic = ""
        if monitor is not None:
            self.point_cloud_radius = float(node.declare_parameter(
                "point_cloud_radius", 0.01,
                "Radius (metres) of the sphere each point of the point cloud becomes. Settable "
                "at run time (from the next cloud on).",
                check=at_least("point_cloud_radius", 0.0), on_set=self._set_radius))
            cloud_topic = node.declare_parameter(
                "point_cloud_topic", "",
                "sensor_msgs/PointCloud2 topic of obstacle points in the planning frame (a depth "
                "camera's, transformed); empty: none.")
        #: The collision_object subscription (the node may have it delivered
        #: on the transport's receive thread).
        self.collision_object_subscription = node.create_subscription(
            "moveit_msgs/msg/CollisionObject", "collision_object", self.on_collision_object,
            RELIABLE_RESULTS, codec=COLLISION_OBJECT_CODEC)
        node.create_subscription("moveit_msgs/msg/AttachedCollisionObject",
                                 "attached_collision_object", self.on_attached_object,
                                 RELIABLE_RESULTS)
        node.create_subscription("moveit_msgs/msg/PlanningScene", "planning_scene",
                                 self.on_planning_scene, RELIABLE_RESULTS)
        if cloud_topic:
            node.create_subscription("sensor_msgs/msg/PointCloud2", cloud_topic,
                                     self.on_point_cloud, SENSOR_DATA)
        self.validity_service = node.create_service(
            "moveit_msgs/srv/GetStateValidity", "check_state_validity", self.check_state_validity)
        self.scene_service = node.create_service(
            "moveit_msgs/srv/GetPlanningScene", "get_planning_scene", self.get_planning_scene)
        self.batch_service = None
        if monitor is not None:
            try:
                node.service_types(BATCH_SERVICE_TYPE)
            except LookupError as err:  # rclpy where our package's services were not built
                node.get_logger().warning(f"check_multi_state_validity is off: {err}")
            else:
                self.batch_service = node.create_service(
                    BATCH_SERVICE_TYPE, "check_multi_state_validity",
                    self.check_multi_state_validity)

    def _set_radius(self, value: object) -> None:
        self.point_cloud_radius = float(value)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ world

    def _world(self, kind: str) -> PlanningSceneWorld | None:
        """The world of the current checker (a new checker gets the objects again)."""
        if self.monitor is None:  # a scene file: the scene graph alone
            if self.world is None:
                self.world = PlanningSceneWorld(None, self.world_frame, self.scene)
            return self.world
        checker = self.monitor.checker
        if checker is None:
            self._drop("planning_scene_without_robot", f"dropped a {kind}: no robot yet "
                       "(waiting for the robot_description topic)")
            return None
        if self.world is None:
            self.world = PlanningSceneWorld(checker, self.world_frame, self.scene)
        elif self.world.checker is not checker:
            try:
                self.world.replay(checker)
            except PlanningSceneError as err:
                self._drop("bad_planning_scene", f"objects dropped with the new robot: {err}")
        return self.world

    def on_new_scene(self) -> None:
        """A new robot or scene graph: the objects held go into it now, not at the next message."""
        if self.world is not None and (self.monitor is None or self.monitor.checker is not None):
            if self.monitor is not None and self.world.checker is not self.monitor.checker:
                self._world("new robot")
            elif self.scene is not None:
                self.scene.sync(self.world.objects, self.world.allowed)

    def _apply(self, kind: str, counter: str, apply: Callable[[PlanningSceneWorld], None]) -> None:
        world = self._world(kind)
        if world is None:
            return
        try:
            apply(world)
        except PlanningSceneError as err:
            self._drop(counter, f"refused a {kind}: {err}")
            return
        self.applied += 1

    def on_collision_object(self, msg: Any) -> None:
        """A ``collision_object`` message: checked whole, then applied."""
        self._apply("collision object", "bad_collision_object",
                    lambda world: world.apply_object(collision_object_edit(msg)))

    def on_attached_object(self, msg: Any) -> None:
        """An ``attached_collision_object`` message: checked whole, then applied."""
        self._apply("attached collision object", "bad_attached_object",
                    lambda world: world.apply_attached(attached_object_edit(msg)))

    def on_planning_scene(self, msg: Any) -> None:
        """A ``planning_scene`` message (diff or full): checked whole, then applied."""
        self._apply("planning scene", "bad_planning_scene",
                    lambda world: world.apply(planning_scene_edits(msg)))

    def on_point_cloud(self, msg: Any) -> None:
        """A point cloud: its points replace the previous cloud."""
        frame = str(msg.header.frame_id)

        def apply(world: PlanningSceneWorld) -> None:
            if frame not in ("", self.world_frame, "world"):
                raise PlanningSceneError(f"point cloud in frame {frame!r}: clouds must be in "
                                         f"the planning frame {self.world_frame!r}")
            world.set_point_cloud(point_cloud_points(msg), self.point_cloud_radius,
                                  self._current_positions())

        self._apply("point cloud", "bad_point_cloud", apply)

    # --------------------------------------------------------------- services

    def _current_positions(self) -> np.ndarray:
        checker = self.monitor.checker
        q = np.array(self.monitor.tracker.q, dtype=float)
        if q.shape != (checker.num_positions,):
            return checker.default_positions
        return np.where(np.isfinite(q), q, checker.default_positions)

    def check_state_validity(self, request: Any, response: Any) -> Any:
        """``GetStateValidity``: the request's state, valid or not, and its contacts."""
        self.answered += 1
        response.valid = False
        if self.monitor is None:
            self._drop("validity_without_robot", "validity request: this node has a scene file, "
                       "not a robot: no robot state to check")
            return response
        world = self._world("validity request")
        if world is None:
            return response
        state = request.robot_state
        joints = state.joint_state
        if not state.is_diff and not list(joints.name):
            self._drop("bad_validity_request", "validity request: robot_state is not a diff "
                       "and names no joint (MoveIt refuses it too)")
            return response
        if list(state.attached_collision_objects):
            self._drop("request_attached_objects", "validity request: its attached objects "
                       "are not applied")
        checker = world.checker
        try:
            positions, _ = joint_state_to_positions(_positions_only(joints), checker)
            q = self._current_positions()
            for name, value in positions.items():
                q[checker.position_names.index(name)] = value
            response.valid = bool(checker.check_config_collision_free(q))
            contacts = checker.calc_contacts(q)
        except (JointStateError, ValueError) as err:
            self._drop("bad_validity_request", f"validity request refused: {err}")
            response.valid = False
            return response
        stamp = self.node.now()
        response.contacts = contacts_to_msgs(contacts, _body_of_geometry(world), stamp,
                                             self.world_frame, self.node.message_type)
        return response

    def check_multi_state_validity(self, request: Any, response: Any) -> Any:
        """``GetMultiStateValidity``: whether each state of the request is collision-free.

        The states are rows of ``positions`` for ``joint_names``, on top of
        the node's current state; all are checked in one library call
        (``check_configs_collision_free``). A bad request (unknown or
        repeated joint, a length that is not a multiple, more than
        ``MAX_BATCH_STATES`` states, a position outside its limits) gets an
        empty ``valid`` and the reason in ``error_message``, and is counted
        as ``bad_validity_request``.
        """
        self.answered += 1
        response.valid = []
        response.error_message = ""
        if self.monitor is None:
            response.error_message = "this node has a scene file, not a robot"
            self._drop("validity_without_robot", f"batch validity request: "
                       f"{response.error_message}")
            return response
        world = self._world("batch validity request")
        if world is None:
            response.error_message = "no robot yet"
            return response
        checker = world.checker
        try:
            names = [str(n) for n in request.joint_names]
            positions = np.asarray(request.positions, dtype=float)
            if not names or len(set(names)) != len(names):
                raise ValueError("joint_names must name at least one joint, each once")
            unknown = [n for n in names if n not in checker.position_names]
            if unknown:
                raise ValueError(f"unknown joint {unknown[0][:80]!r}")
            if positions.size % len(names):
                raise ValueError(f"{positions.size} positions are not a multiple of the "
                                 f"{len(names)} joint names")
            count = positions.size // len(names)
            if count > MAX_BATCH_STATES:
                raise ValueError(f"{count} states, over the limit of {MAX_BATCH_STATES}")
            columns = [checker.position_names.index(n) for n in names]
            qs = np.tile(self._current_positions(), (count, 1))
            qs[:, columns] = positions.reshape(count, len(names))
            valid = checker.check_configs_collision_free(qs)
        except ValueError as err:
            response.error_message = str(err)
            self._drop("bad_validity_request", f"batch validity request refused: {err}")
            return response
        response.valid = [bool(v) for v in valid]
        return response

    def get_planning_scene(self, request: Any, response: Any) -> Any:
        """``GetPlanningScene``: the objects, allowed collisions and padding held now."""
        world = self._world("planning scene request")
        if world is not None:
            q = self._current_positions() if world.checker is not None else np.zeros(0)
            response.scene = planning_scene_to_msg(world, q,
                                                   self.world_frame, self.node.now(),
                                                   self.node.message_type)
        return response


def _positions_only(msg: Any) -> SimpleNamespace:
    """A JointState's names and positions only: a request's velocities are not read."""
    return SimpleNamespace(name=list(msg.name), position=list(msg.position), velocity=[])


def _body_of_geometry(world: PlanningSceneWorld) -> dict:
    """``{geometry id: (MoveIt body name, body type)}`` of every added shape."""
    out = {}
    added = world.checker.get_all_added_collision_shapes()
    for object_id, held in world.objects.items():
        kind = _WORLD_OBJECT if held.link is None else _ROBOT_ATTACHED
        for description in added.get(object_group(object_id), []):
            out[description.geometry_id] = (object_id, kind)
    return out


def contacts_to_msgs(contacts: list, added: dict, stamp_ns: int, frame: str,
                     message_type: Callable[[str], type]) -> list:
    """``moveit_msgs/ContactInformation`` of the checker's contacts.

    Parameters
    ----------
    contacts : list of RobotContact
        From ``CollisionChecker.calc_contacts``.
    added : dict
        ``{geometry id: (object id, body type)}`` of the shapes added for objects.
    """
    Contact = message_type("moveit_msgs/msg/ContactInformation")
    Point = message_type("geometry_msgs/msg/Point")
    Vector3 = message_type("geometry_msgs/msg/Vector3")
    out = []
    for contact in contacts:
        names = []
        for body, geometry in ((contact.body_A, contact.geometry_id_A),
                               (contact.body_B, contact.geometry_id_B)):
            names.append(added.get(geometry, (body, _ROBOT_LINK if body != "world"
                                              else _WORLD_OBJECT)))
        p_WC = 0.5 * (np.asarray(contact.p_WCa) + np.asarray(contact.p_WCb))
        n = np.asarray(contact.nhat_BA_W, dtype=float)
        out.append(Contact(
            header=make_header(stamp_ns, frame, message_type),
            position=Point(x=float(p_WC[0]), y=float(p_WC[1]), z=float(p_WC[2])),
            normal=Vector3(x=float(n[0]), y=float(n[1]), z=float(n[2])),
            depth=float(contact.depth),
            contact_body_1=names[0][0], body_type_1=names[0][1],
            contact_body_2=names[1][0], body_type_2=names[1][1]))
    return out


def _shape_msgs(shape: Any, X_OG: Any, message_type: Callable[[str], type]) -> tuple[str, Any]:
    """(``primitives``, ``meshes`` or ``planes``, the shape_msgs message) of a shape."""
    if isinstance(shape, Box):
        return "primitives", message_type("shape_msgs/msg/SolidPrimitive")(
            type=1, dimensions=[shape.width, shape.depth, shape.height])
    if isinstance(shape, Sphere):
        return "primitives", message_type("shape_msgs/msg/SolidPrimitive")(
            type=2, dimensions=[shape.radius])
    if isinstance(shape, Cylinder):
        return "primitives", message_type("shape_msgs/msg/SolidPrimitive")(
            type=3, dimensions=[shape.length, shape.radius])
    if isinstance(shape, HalfSpace):
        return "planes", message_type("shape_msgs/msg/Plane")(coef=[0.0, 0.0, 1.0, 0.0])
    if isinstance(shape, Convex):
        vertices, faces = shape.hull()
        Point = message_type("geometry_msgs/msg/Point")
        Triangle = message_type("shape_msgs/msg/MeshTriangle")
        return "meshes", message_type("shape_msgs/msg/Mesh")(
            vertices=[Point(x=float(v[0]), y=float(v[1]), z=float(v[2])) for v in vertices],
            triangles=[Triangle(vertex_indices=[int(i) for i in f]) for f in faces])
    raise TypeError(f"no shape_msgs message for {shape!r}")


def _pose_msg(X: Any, message_type: Callable[[str], type]) -> Any:
    from geometry_core.math import quaternion_wxyz_to_xyzw, rotation_matrix_to_quaternion

    p = X.translation()
    x, y, z, w = quaternion_wxyz_to_xyzw(rotation_matrix_to_quaternion(X.rotation().matrix()))
    return message_type("geometry_msgs/msg/Pose")(
        position=message_type("geometry_msgs/msg/Point")(x=float(p[0]), y=float(p[1]),
                                                         z=float(p[2])),
        orientation=message_type("geometry_msgs/msg/Quaternion")(x=float(x), y=float(y),
                                                                 z=float(z), w=float(w)))


def planning_scene_to_msg(world: PlanningSceneWorld, q: np.ndarray, frame: str, stamp_ns: int,
                          message_type: Callable[[str], type]) -> Any:
    """A full ``moveit_msgs/PlanningScene`` of what ``world`` holds, the robot at ``q``."""
    scene = message_type("moveit_msgs/msg/PlanningScene")()
    scene.is_diff = False
    scene.robot_model_name = ""
    checker = world.checker
    joints = scene.robot_state.joint_state
    joints.header = make_header(stamp_ns, frame, message_type)
    joints.name = list(checker.position_names) if checker is not None else []
    joints.position = [float(v) for v in q]
    collision_objects, attached = [], []
    for object_id, held in world.objects.items():
        co = message_type("moveit_msgs/msg/CollisionObject")()
        co.header = make_header(stamp_ns, held.link or held.edit.frame_id or frame,
                                message_type)
        co.id = object_id
        co.pose = _pose_msg(held.edit.X_FO, message_type)
        co.operation = _byte_of(type(co), ADD)
        groups: dict[str, tuple[list, list]] = {"primitives": ([], []), "meshes": ([], []),
                                                "planes": ([], [])}
        for shape, X_OG in held.edit.shapes:
            field, value = _shape_msgs(shape, X_OG, message_type)
            groups[field][0].append(value)
            groups[field][1].append(_pose_msg(X_OG, message_type))
        co.primitives, co.primitive_poses = groups["primitives"]
        co.meshes, co.mesh_poses = groups["meshes"]
        co.planes, co.plane_poses = groups["planes"]
        if held.link is None:
            collision_objects.append(co)
        else:
            aco = message_type("moveit_msgs/msg/AttachedCollisionObject")()
            aco.link_name, aco.object, aco.touch_links = held.link, co, list(held.touch_links)
            attached.append(aco)
    scene.world.collision_objects = collision_objects
    scene.robot_state.attached_collision_objects = attached
    names = sorted({n for pair in world.allowed for n in pair})
    index = {n: k for k, n in enumerate(names)}
    rows = [[False] * len(names) for _ in names]
    for (a, b), value in world.allowed.items():
        rows[index[a]][index[b]] = rows[index[b]][index[a]] = bool(value)
    acm = scene.allowed_collision_matrix
    acm.entry_names = names
    Entry = message_type("moveit_msgs/msg/AllowedCollisionEntry")
    acm.entry_values = [Entry(enabled=row) for row in rows]
    LinkPadding = message_type("moveit_msgs/msg/LinkPadding")
    scene.link_padding = [LinkPadding(link_name=link, padding=value)
                          for link, value in sorted(world.padding.items())]
    return scene


def _byte_of(cls: type, value: int) -> Any:
    """A ``byte`` field's value for the class: rclpy's take one-byte ``bytes``."""
    return value if hasattr(cls, "__ros_fields__") else bytes([value])
