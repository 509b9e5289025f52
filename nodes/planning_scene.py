"""MoveIt's planning-scene messages in, checked values out: pure conversions, no node.

What a planner or a perception pipeline sends (``moveit_msgs/CollisionObject``,
``AttachedCollisionObject``, ``PlanningScene``, ``sensor_msgs/PointCloud2``)
becomes plain records of the library's shapes and poses:

- :func:`collision_object_edit` -> :class:`ObjectEdit`: the operation (ADD,
  REMOVE, APPEND, MOVE), the object id, the frame, the object's pose and its
  shapes, each with its pose in the object (``X_OG``);
- :func:`attached_object_edit` -> :class:`AttachEdit`: the link, the touch
  links and the object's edit;
- :func:`planning_scene_edits` -> :class:`SceneEdits`: a whole
  ``PlanningScene`` (diff or full), its world and attached objects, the
  allowed-collision entries and the link padding;
- :func:`point_cloud_points` -> ``(N, 3)`` points of a ``PointCloud2``.

Shapes (``shape_msgs``): a BOX is a :class:`~geometry_core.shapes.Box` of
its three sides, a SPHERE a Sphere, a CYLINDER a Cylinder (height, radius),
a mesh the :class:`~geometry_core.shapes.Convex` hull of its vertices (a
held mesh must be convex for the checker; a world mesh is approximated by
its hull, which contains it: a collision the mesh has is never missed), a
plane ``ax + by + cz + d = 0`` the :class:`~geometry_core.shapes.HalfSpace`
below it (its normal points out of the solid; MoveIt's FCL plane is
two-sided). A CONE has no exact shape here and is refused.

Everything is checked before anything is returned, so a caller that
converts first and applies after never half-applies a message: a NaN or
negative size, a zero quaternion, mismatched shape and pose arrays, an
empty or non-finite mesh, a triangle index out of range, a point cloud
whose fields, steps or length do not fit, and anything beyond the caps of
:mod:`geometry_core_nodes.limits` raise :class:`PlanningSceneError` (a
``ValueError``) naming the object and the field.

This module uses the library's shapes and math only; it never imports the
transport's backends, cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.shapes import Box, Convex, Cylinder, HalfSpace, Shape, Sphere
from geometry_core_nodes.inbound import PoseError, rigid_transform_from_pose
from geometry_core_nodes.limits import (
    MAX_ACM_NAMES,
    MAX_CLOUD_POINTS,
    MAX_FRAME_NAME_LENGTH,
    MAX_LOGGED_NAME_LENGTH,
    MAX_MESH_TRIANGLES,
    MAX_MESH_VERTICES,
    MAX_OBJECT_ID_LENGTH,
    MAX_OBJECTS_PER_MESSAGE,
    MAX_SHAPES_PER_OBJECT,
    MAX_TOUCH_LINKS,
)

__all__ = [
    "ADD", "APPEND", "MOVE", "REMOVE", "AttachEdit", "ObjectEdit", "PlanningSceneError",
    "SceneEdits", "attached_object_edit", "collision_object_edit", "planning_scene_edits",
    "point_cloud_points",
]

# moveit_msgs/CollisionObject operations.
ADD, REMOVE, APPEND, MOVE = 0, 1, 2, 3
_OPERATIONS = {ADD: "ADD", REMOVE: "REMOVE", APPEND: "APPEND", MOVE: "MOVE"}
# shape_msgs/SolidPrimitive types and the number of dimensions each takes.
_BOX, _SPHERE, _CYLINDER, _CONE = 1, 2, 3, 4
_DIMENSIONS = {_BOX: 3, _SPHERE: 1, _CYLINDER: 2, _CONE: 2}
# sensor_msgs/PointField datatypes of coordinates we read.
_FLOAT32, _FLOAT64 = 7, 8


class PlanningSceneError(ValueError):
    """A planning-scene message that cannot be used; the message names object and field."""


def _byte(value: Any) -> int:
    """A ``byte`` field: an int on the DDS backend, a one-byte ``bytes`` on rclpy."""
    return value[0] if isinstance(value, (bytes, bytearray)) else int(value)


def _quoted(name: str) -> str:
    if len(name) > MAX_LOGGED_NAME_LENGTH:
        return repr(name[:MAX_LOGGED_NAME_LENGTH] + "...")
    return repr(name)


@dataclass(frozen=True)
class ObjectEdit:
    """One ``CollisionObject``, checked.

    Attributes
    ----------
    operation : int
        ``ADD``, ``REMOVE``, ``APPEND`` or ``MOVE``.
    object_id : str
        MoveIt's object id ("" with REMOVE: every world object).
    frame_id : str
        ``header.frame_id`` ("" means the planning frame, as in MoveIt).
    X_FO : RigidTransform
        The object's pose in that frame (``pose``).
    shapes : tuple of (Shape, RigidTransform)
        Each shape and its pose in the object (``X_OG``): primitives, then
        meshes, then planes, in message order. Empty for REMOVE and MOVE.
    """

    operation: int
    object_id: str
    frame_id: str
    X_FO: RigidTransform
    shapes: tuple[tuple[Shape, RigidTransform], ...] = ()

    @property
    def operation_name(self) -> str:
        """``"ADD"``, ``"REMOVE"``, ``"APPEND"`` or ``"MOVE"``."""
        return _OPERATIONS[self.operation]


@dataclass(frozen=True)
class AttachEdit:
    """One ``AttachedCollisionObject``, checked.

    Attributes
    ----------
    link_name : str
        The robot link that holds the object ("" with REMOVE: every link).
    touch_links : tuple of str
        Links the object may touch (besides ``link_name``).
    edit : ObjectEdit
        The object, its operation and shapes (an ADD without shapes takes
        the world object of that id, as MoveIt does).
    """

    link_name: str
    touch_links: tuple[str, ...]
    edit: ObjectEdit


@dataclass(frozen=True)
class SceneEdits:
    """One ``PlanningScene``, checked.

    Attributes
    ----------
    is_diff : bool
        A diff edits what the receiver holds; a full scene replaces its world.
    objects : tuple of ObjectEdit
        ``world.collision_objects``.
    attached : tuple of AttachEdit
        ``robot_state.attached_collision_objects``.
    allowed : dict
        ``{(name_a, name_b): allowed}`` from ``allowed_collision_matrix``
        (both orders are not repeated: ``name_a <= name_b``).
    default_allowed : dict
        ``{name: allowed}`` from its ``default_entry_names`` and values.
    link_padding : dict
        ``{link: padding in metres}`` from ``link_padding``.
    """

    is_diff: bool
    objects: tuple[ObjectEdit, ...] = ()
    attached: tuple[AttachEdit, ...] = ()
    allowed: dict[tuple[str, str], bool] = field(default_factory=dict)
    default_allowed: dict[str, bool] = field(default_factory=dict)
    link_padding: dict[str, float] = field(default_factory=dict)


def _name(value: Any, what: str, limit: int = MAX_FRAME_NAME_LENGTH) -> str:
    text = str(value)
    if len(text) > limit:
        raise PlanningSceneError(f"{what} is {len(text)} characters, more than {limit}: "
                                 f"{_quoted(text)}")
    return text


def _pose(pose: Any, what: str) -> RigidTransform:
    try:
        return rigid_transform_from_pose(pose, what)
    except PoseError as err:
        raise PlanningSceneError(str(err)) from None


def _primitive(msg: Any, what: str) -> Shape:
    kind = int(msg.type)
    dims = [float(d) for d in msg.dimensions]
    if kind == _CONE:
        raise PlanningSceneError(f"{what}: CONE primitives are not supported (no exact cone "
                                 "shape); send a mesh")
    if kind not in _DIMENSIONS:
        raise PlanningSceneError(f"{what}: unknown SolidPrimitive type {kind}")
    if len(dims) < _DIMENSIONS[kind]:
        raise PlanningSceneError(f"{what}: {len(dims)} dimensions, type {kind} needs "
                                 f"{_DIMENSIONS[kind]}")
    dims = dims[:_DIMENSIONS[kind]]
    if not all(math.isfinite(d) and d > 0.0 for d in dims):
        raise PlanningSceneError(f"{what}: dimensions must be finite and positive, got {dims}")
    if kind == _BOX:
        return Box(*dims)
    if kind == _SPHERE:
        return Sphere(dims[0])
    height, radius = dims
    return Cylinder(radius, height)


def _mesh(msg: Any, what: str, budget: list[int]) -> Shape:
    # Counted before anything is built from them: a mesh of millions of
    # triangles is refused at the cost of two len() calls.
    budget[0] -= len(msg.vertices)
    budget[1] -= len(msg.triangles)
    if budget[0] < 0 or budget[1] < 0:
        raise PlanningSceneError(f"{what}: meshes of more than {MAX_MESH_VERTICES} vertices or "
                                 f"{MAX_MESH_TRIANGLES} triangles in one object")
    vertices = np.array([[p.x, p.y, p.z] for p in msg.vertices], dtype=float).reshape(-1, 3)
    triangles = np.array([list(t.vertex_indices) for t in msg.triangles],
                         dtype=np.int64).reshape(-1, 3)
    if len(vertices) == 0 or len(triangles) == 0:
        raise PlanningSceneError(f"{what}: an empty mesh ({len(vertices)} vertices, "
                                 f"{len(triangles)} triangles)")
    if not np.all(np.isfinite(vertices)):
        raise PlanningSceneError(f"{what}: vertices are not all finite")
    if triangles.min() < 0 or triangles.max() >= len(vertices):
        raise PlanningSceneError(f"{what}: a triangle's vertex index is out of range "
                                 f"0..{len(vertices) - 1}")
    used = vertices[np.unique(triangles)]
    try:
        convex = Convex.from_points(used)
        convex.hull()  # now, so that a flat mesh is refused here
        return convex
    except ValueError as err:
        raise PlanningSceneError(f"{what}: {err} (a flat mesh has no volume)") from None


def _plane(msg: Any, what: str) -> tuple[Shape, RigidTransform]:
    a, b, c, d = (float(v) for v in msg.coef)
    normal = np.array([a, b, c])
    norm = float(np.linalg.norm(normal))
    if not (math.isfinite(norm) and math.isfinite(d)) or norm == 0.0:
        raise PlanningSceneError(f"{what}: coefficients must be finite with a non-zero normal, "
                                 f"got {[a, b, c, d]}")
    # ax + by + cz + d = 0: the point -d n / |n|^2 lies on it.
    return HalfSpace(), HalfSpace.make_pose(normal, -d * normal / norm**2)


def collision_object_edit(msg: Any) -> ObjectEdit:
    """Check a ``moveit_msgs/CollisionObject`` and return it as an :class:`ObjectEdit`.

    Raises
    ------
    PlanningSceneError
        For an unknown operation, an empty or over-long id (besides REMOVE of
        all), a bad pose, shapes and poses of different counts, a bad shape,
        or more than ``MAX_SHAPES_PER_OBJECT`` shapes.
    """
    operation = _byte(msg.operation)
    object_id = _name(msg.id, "collision object id", MAX_OBJECT_ID_LENGTH)
    what = f"collision object {_quoted(object_id)}"
    if operation not in _OPERATIONS:
        raise PlanningSceneError(f"{what}: unknown operation {operation}")
    if not object_id and operation != REMOVE:
        raise PlanningSceneError(f"collision object: empty id with operation "
                                 f"{_OPERATIONS[operation]}")
    frame_id = _name(msg.header.frame_id, f"{what}: header.frame_id")
    X_FO = _pose(msg.pose, f"{what} pose")
    if operation in (REMOVE, MOVE):
        return ObjectEdit(operation, object_id, frame_id, X_FO)
    groups = (("primitives", "primitive_poses"), ("meshes", "mesh_poses"),
              ("planes", "plane_poses"))
    count = sum(len(getattr(msg, shapes)) for shapes, _ in groups)
    if count > MAX_SHAPES_PER_OBJECT:
        raise PlanningSceneError(f"{what}: {count} shapes, more than {MAX_SHAPES_PER_OBJECT}")
    for shapes, poses in groups:
        if len(getattr(msg, shapes)) != len(getattr(msg, poses)):
            raise PlanningSceneError(f"{what}: {len(getattr(msg, shapes))} {shapes} but "
                                     f"{len(getattr(msg, poses))} {poses}")
    out: list[tuple[Shape, RigidTransform]] = []
    for k, (primitive, pose) in enumerate(zip(msg.primitives, msg.primitive_poses)):
        out.append((_primitive(primitive, f"{what}: primitives[{k}]"),
                    _pose(pose, f"{what}: primitive_poses[{k}]")))
    budget = [MAX_MESH_VERTICES, MAX_MESH_TRIANGLES]
    for k, (mesh, pose) in enumerate(zip(msg.meshes, msg.mesh_poses)):
        out.append((_mesh(mesh, f"{what}: meshes[{k}]", budget),
                    _pose(pose, f"{what}: mesh_poses[{k}]")))
    for k, (plane, pose) in enumerate(zip(msg.planes, msg.plane_poses)):
        shape, X_PG = _plane(plane, f"{what}: planes[{k}]")
        out.append((shape, _pose(pose, f"{what}: plane_poses[{k}]") @ X_PG))
    if operation == ADD and not out:
        raise PlanningSceneError(f"{what}: ADD without any shape")
    return ObjectEdit(operation, object_id, frame_id, X_FO, tuple(out))


def attached_object_edit(msg: Any) -> AttachEdit:
    """Check a ``moveit_msgs/AttachedCollisionObject`` and return it as an :class:`AttachEdit`.

    An ADD may carry no shapes: it then attaches the world object of that id
    (MoveIt's way of picking up an object already in the scene).

    Raises
    ------
    PlanningSceneError
        As :func:`collision_object_edit`, for an empty link with ADD, or more
        than ``MAX_TOUCH_LINKS`` touch links.
    """
    link = _name(msg.link_name, "attached object link_name")
    operation = _byte(msg.object.operation)
    if operation == ADD and not msg.object.primitives and not msg.object.meshes \
            and not msg.object.planes:
        object_id = _name(msg.object.id, "attached object id", MAX_OBJECT_ID_LENGTH)
        if not object_id:
            raise PlanningSceneError("attached object: ADD without an id or shapes")
        edit = ObjectEdit(ADD, object_id, _name(msg.object.header.frame_id, "header.frame_id"),
                          _pose(msg.object.pose, f"attached object {_quoted(object_id)} pose"))
    else:
        edit = collision_object_edit(msg.object)
    if operation in (ADD, APPEND) and not link:
        raise PlanningSceneError(f"attached object {_quoted(edit.object_id)}: empty link_name")
    if len(msg.touch_links) > MAX_TOUCH_LINKS:
        raise PlanningSceneError(f"attached object {_quoted(edit.object_id)}: "
                                 f"{len(msg.touch_links)} touch_links, more than "
                                 f"{MAX_TOUCH_LINKS}")
    touch = tuple(_name(t, "touch_links entry") for t in msg.touch_links)
    return AttachEdit(link, touch, edit)


def planning_scene_edits(msg: Any) -> SceneEdits:
    """Check a ``moveit_msgs/PlanningScene`` and return its edits.

    Read: ``is_diff``, ``world.collision_objects``,
    ``robot_state.attached_collision_objects``, ``allowed_collision_matrix``
    and ``link_padding``. Not read (left as they are): ``name``,
    ``robot_state`` joints (joint states come from ``joint_states``),
    ``fixed_frame_transforms``, ``link_scale``, ``object_colors`` and the
    octomap.

    Raises
    ------
    PlanningSceneError
        As :func:`collision_object_edit` for any object, for an allowed
        collision matrix whose rows do not match its names, more than
        ``MAX_ACM_NAMES`` names, or a padding that is negative or not finite.
    """
    objects = list(msg.world.collision_objects)
    attached = list(msg.robot_state.attached_collision_objects)
    if len(objects) + len(attached) > MAX_OBJECTS_PER_MESSAGE:
        raise PlanningSceneError(f"planning scene: {len(objects) + len(attached)} objects, "
                                 f"more than {MAX_OBJECTS_PER_MESSAGE}")
    acm = msg.allowed_collision_matrix
    if len(acm.entry_names) > MAX_ACM_NAMES or len(acm.default_entry_names) > MAX_ACM_NAMES:
        raise PlanningSceneError(f"planning scene: allowed_collision_matrix of more than "
                                 f"{MAX_ACM_NAMES} names")
    names = [_name(n, "allowed_collision_matrix entry name") for n in acm.entry_names]
    if len(acm.entry_values) != len(names):
        raise PlanningSceneError(f"planning scene: allowed_collision_matrix has {len(names)} "
                                 f"entry_names but {len(acm.entry_values)} entry_values")
    allowed: dict[tuple[str, str], bool] = {}
    for i, (name, row) in enumerate(zip(names, acm.entry_values)):
        values = list(row.enabled)
        if len(values) != len(names):
            raise PlanningSceneError(f"planning scene: allowed_collision_matrix row {i} "
                                     f"({_quoted(name)}) has {len(values)} values, not "
                                     f"{len(names)}")
        for other, value in zip(names, values):
            if other != name:
                allowed[(min(name, other), max(name, other))] = bool(value)
    if len(acm.default_entry_names) != len(acm.default_entry_values):
        raise PlanningSceneError("planning scene: allowed_collision_matrix has "
                                 f"{len(acm.default_entry_names)} default_entry_names but "
                                 f"{len(acm.default_entry_values)} default_entry_values")
    default_allowed = {_name(n, "default_entry_names entry"): bool(v)
                       for n, v in zip(acm.default_entry_names, acm.default_entry_values)}
    padding: dict[str, float] = {}
    if len(msg.link_padding) > MAX_ACM_NAMES:
        raise PlanningSceneError(f"planning scene: more than {MAX_ACM_NAMES} link_padding entries")
    for entry in msg.link_padding:
        link = _name(entry.link_name, "link_padding link_name")
        value = float(entry.padding)
        if not (math.isfinite(value) and value >= 0.0):
            raise PlanningSceneError(f"planning scene: link_padding of {_quoted(link)} must be "
                                     f"finite and non-negative, got {value}")
        padding[link] = value
    return SceneEdits(bool(msg.is_diff), tuple(collision_object_edit(o) for o in objects),
                      tuple(attached_object_edit(a) for a in attached), allowed,
                      default_allowed, padding)


def point_cloud_points(msg: Any) -> np.ndarray:
    """The ``(N, 3)`` points of a ``sensor_msgs/PointCloud2``, in its ``header.frame_id``.

    Fields ``x``, ``y``, ``z`` of FLOAT32 or FLOAT64 (count 1) are read
    from every point of ``height * width``, in the cloud's byte order.
    Points with a NaN or infinity are kept (the library skips and counts
    them, as a depth camera marks missing returns with NaN).

    Raises
    ------
    PlanningSceneError
        If ``x``, ``y`` or ``z`` is missing or of another type, a field or a
        row does not fit in its step, ``data`` is shorter than the steps say,
        or there are more than ``MAX_CLOUD_POINTS`` points.
    """
    height, width = int(msg.height), int(msg.width)
    count = height * width
    if count > MAX_CLOUD_POINTS:
        raise PlanningSceneError(f"point cloud: {height} x {width} points, more than "
                                 f"{MAX_CLOUD_POINTS}")
    point_step, row_step = int(msg.point_step), int(msg.row_step)
    order = ">" if msg.is_bigendian else "<"
    fields = {str(f.name): f for f in msg.fields}
    formats = []
    for axis in "xyz":
        f = fields.get(axis)
        if f is None:
            raise PlanningSceneError(f"point cloud: no field {axis!r} (fields: "
                                     f"{sorted(fields)[:10]})")
        if int(f.datatype) not in (_FLOAT32, _FLOAT64) or int(f.count) != 1:
            raise PlanningSceneError(f"point cloud: field {axis!r} has datatype {f.datatype} "
                                     f"and count {f.count}; FLOAT32 (7) or FLOAT64 (8), count "
                                     "1 expected")
        size = 4 if int(f.datatype) == _FLOAT32 else 8
        if int(f.offset) < 0 or int(f.offset) + size > point_step:
            raise PlanningSceneError(f"point cloud: field {axis!r} at offset {f.offset} does not "
                                     f"fit in point_step {point_step}")
        formats.append((axis, f"{order}f{size}", int(f.offset)))
    if count == 0:
        return np.zeros((0, 3))
    if row_step < width * point_step:
        raise PlanningSceneError(f"point cloud: row_step {row_step} is less than width "
                                 f"{width} x point_step {point_step}")
    data = msg.data
    if len(data) < (height - 1) * row_step + width * point_step:
        raise PlanningSceneError(f"point cloud: {len(data)} bytes of data, {height} rows of "
                                 f"row_step {row_step} need {height * row_step}")
    raw = np.frombuffer(bytes(data) if not isinstance(data, (bytes, bytearray))
                        else data, dtype=np.uint8)
    rows = np.lib.stride_tricks.as_strided(
        raw, shape=(height, width, point_step), strides=(row_step, point_step, 1))
    points = np.empty((count, 3))
    for k, (_, fmt, offset) in enumerate(formats):
        size = int(fmt[-1])
        column = np.ascontiguousarray(rows[:, :, offset:offset + size]).view(fmt)
        points[:, k] = column.reshape(-1)
    return points
