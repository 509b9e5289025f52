"""MoveIt's planning-scene messages to checked shapes and edits, without a node.

Run on the DDS backend's message classes everywhere, and on rclpy's
generated moveit_msgs classes where ROS 2 with moveit_msgs is installed.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

import geometry_core_nodes.moveit_types  # noqa: F401  (registers the definitions)
from geometry_core.shapes import Box, Convex, Cylinder, HalfSpace, Sphere
from geometry_core_nodes.limits import MAX_CLOUD_POINTS, MAX_SHAPES_PER_OBJECT
from geometry_core_nodes.planning_scene import (
    ADD,
    MOVE,
    REMOVE,
    PlanningSceneError,
    attached_object_edit,
    collision_object_edit,
    planning_scene_edits,
    point_cloud_points,
)
from geometry_core_nodes.transport import get_message_type


def _rclpy_type(name):
    import importlib

    package, kind, cls = name.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), cls)


def _rclpy_factory():
    pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
    pytest.importorskip("moveit_msgs.msg", reason="moveit_msgs comes with a ROS 2 installation")
    return _rclpy_type


@pytest.fixture(params=["dds", "rclpy"])
def T(request):
    return get_message_type if request.param == "dds" else _rclpy_factory()


def _pose(T, x=0.0, y=0.0, z=0.0, qw=1.0, qx=0.0, qy=0.0, qz=0.0):
    pose = T("geometry_msgs/msg/Pose")()
    pose.position.x, pose.position.y, pose.position.z = x, y, z
    o = pose.orientation
    o.x, o.y, o.z, o.w = qx, qy, qz, qw
    return pose


def _byte(T, value):
    """A ``byte`` field's value: an int for the DDS classes, one byte for rclpy's."""
    return value if T is get_message_type else bytes([value])


def _box_object(T, object_id="box", dims=(0.1, 0.2, 0.3), operation=ADD, **pose):
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = object_id
    co.operation = _byte(T, operation)
    co.header.frame_id = "panda_link0"
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type = 1
    primitive.dimensions = list(dims)
    co.primitives = [primitive]
    co.primitive_poses = [_pose(T, **pose)]
    return co


def test_primitives_meshes_and_planes_become_shapes(T):
    co = _box_object(T, z=0.5)
    co.pose = _pose(T, x=1.0, qw=math.cos(math.pi / 4), qz=math.sin(math.pi / 4))
    SP = T("shape_msgs/msg/SolidPrimitive")
    sphere, cylinder = SP(), SP()
    sphere.type, sphere.dimensions = 2, [0.05]
    cylinder.type, cylinder.dimensions = 3, [0.4, 0.02]  # height, radius
    co.primitives = [*co.primitives, sphere, cylinder]
    co.primitive_poses = [*co.primitive_poses, _pose(T), _pose(T, y=-1.0)]
    mesh = T("shape_msgs/msg/Mesh")()
    corners = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    for x, y, z in corners:
        point = T("geometry_msgs/msg/Point")()
        point.x, point.y, point.z = float(x), float(y), float(z)
        mesh.vertices = [*mesh.vertices, point]
    for tri in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
        triangle = T("shape_msgs/msg/MeshTriangle")()
        triangle.vertex_indices = list(tri)
        mesh.triangles = [*mesh.triangles, triangle]
    co.meshes, co.mesh_poses = [mesh], [_pose(T)]
    plane = T("shape_msgs/msg/Plane")()
    plane.coef = [0.0, 0.0, 2.0, -1.0]  # z = 0.5
    co.planes, co.plane_poses = [plane], [_pose(T, x=3.0)]
    edit = collision_object_edit(co)
    assert (edit.operation_name, edit.object_id, edit.frame_id) == ("ADD", "box", "panda_link0")
    np.testing.assert_allclose(edit.X_FO.translation(), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(edit.X_FO.rotation().matrix() @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    kinds = [type(shape) for shape, _ in edit.shapes]
    assert kinds == [Box, Sphere, Cylinder, Convex, HalfSpace]
    box, _ = edit.shapes[0]
    assert (box.width, box.depth, box.height) == (0.1, 0.2, 0.3)
    np.testing.assert_allclose(edit.shapes[0][1].translation(), [0, 0, 0.5])
    assert edit.shapes[1][0].radius == 0.05
    assert (edit.shapes[2][0].radius, edit.shapes[2][0].length) == (0.02, 0.4)
    assert len(edit.shapes[3][0].hull()[0]) == 4
    # The half space's boundary passes through z = 0.5 (plane pose moved by x = 3),
    # its normal +z: the point (3, 0, 0.5) is on it, (3, 0, 0.4) inside.
    X_OG = edit.shapes[4][1]
    p_GQ = X_OG.inverse() @ np.array([3.0, 7.0, 0.5])
    assert abs(p_GQ[2]) < 1e-12
    np.testing.assert_allclose(X_OG.rotation().matrix()[:, 2], [0, 0, 1], atol=1e-12)


@pytest.mark.parametrize("dims, match", [
    ((0.1, float("nan"), 0.3), "finite and positive"),
    ((0.1, -0.2, 0.3), "finite and positive"),
    ((0.1, 0.2), "2 dimensions, type 1 needs 3"),
])
def test_bad_dimensions_are_refused_naming_object_and_field(T, dims, match):
    with pytest.raises(PlanningSceneError, match=rf"'box': primitives\[0\]: .*{match}"):
        collision_object_edit(_box_object(T, dims=dims))


def test_bad_objects_are_refused(T):
    co = _box_object(T)
    co.primitives[0].type = 4
    with pytest.raises(PlanningSceneError, match="CONE primitives are not supported"):
        collision_object_edit(co)
    co = _box_object(T)
    co.primitive_poses = []
    with pytest.raises(PlanningSceneError, match="1 primitives but 0 primitive_poses"):
        collision_object_edit(co)
    co = _box_object(T, qw=0.0)
    with pytest.raises(PlanningSceneError, match=r"primitive_poses\[0\].*zero quaternion"):
        collision_object_edit(co)
    co = _box_object(T)
    co.pose.position.x = float("inf")
    with pytest.raises(PlanningSceneError, match="pose.position is not finite"):
        collision_object_edit(co)
    co = _box_object(T, operation=7)
    with pytest.raises(PlanningSceneError, match="unknown operation 7"):
        collision_object_edit(co)
    with pytest.raises(PlanningSceneError, match="empty id with operation ADD"):
        collision_object_edit(_box_object(T, object_id=""))
    with pytest.raises(PlanningSceneError, match="more than 256"):
        collision_object_edit(_box_object(T, object_id="x" * 1000))
    co = _box_object(T)
    co.primitives = list(co.primitives) * (MAX_SHAPES_PER_OBJECT + 1)
    co.primitive_poses = list(co.primitive_poses) * (MAX_SHAPES_PER_OBJECT + 1)
    with pytest.raises(PlanningSceneError, match="shapes, more than"):
        collision_object_edit(co)
    co = _box_object(T)
    co.primitives, co.primitive_poses = [], []
    with pytest.raises(PlanningSceneError, match="ADD without any shape"):
        collision_object_edit(co)


def _mesh_object(T, vertices, triangles):
    co = _box_object(T)
    co.primitives, co.primitive_poses = [], []
    mesh = T("shape_msgs/msg/Mesh")()
    points = []
    for v in vertices:
        point = T("geometry_msgs/msg/Point")()
        point.x, point.y, point.z = (float(c) for c in v)
        points.append(point)
    mesh.vertices = points
    faces = []
    for tri in triangles:
        face = T("shape_msgs/msg/MeshTriangle")()
        face.vertex_indices = list(tri)
        faces.append(face)
    mesh.triangles = faces
    co.meshes, co.mesh_poses = [mesh], [_pose(T)]
    return co


def test_bad_meshes_are_refused(T):
    tetra = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    with pytest.raises(PlanningSceneError, match=r"meshes\[0\]: an empty mesh"):
        collision_object_edit(_mesh_object(T, [], []))
    with pytest.raises(PlanningSceneError, match="not all finite"):
        collision_object_edit(_mesh_object(T, [*tetra[:3], (0, 0, float("nan"))],
                                           [(0, 1, 2), (1, 2, 3)]))
    with pytest.raises(PlanningSceneError, match="out of range 0..3"):
        collision_object_edit(_mesh_object(T, tetra, [(0, 1, 4)]))
    with pytest.raises(PlanningSceneError, match="flat mesh"):
        collision_object_edit(_mesh_object(T, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)],
                                           [(0, 1, 2), (1, 2, 3)]))


def test_remove_move_and_attach(T):
    removal = collision_object_edit(_box_object(T, object_id="", operation=REMOVE))
    assert (removal.operation, removal.object_id, removal.shapes) == (REMOVE, "", ())
    move = collision_object_edit(_box_object(T, operation=MOVE))
    assert move.operation == MOVE and move.shapes == ()
    aco = T("moveit_msgs/msg/AttachedCollisionObject")()
    aco.link_name = "panda_hand"
    aco.object = _box_object(T, object_id="held")
    aco.touch_links = ["panda_leftfinger", "panda_rightfinger"]
    attach = attached_object_edit(aco)
    assert attach.link_name == "panda_hand"
    assert attach.touch_links == ("panda_leftfinger", "panda_rightfinger")
    assert attach.edit.object_id == "held" and len(attach.edit.shapes) == 1
    # Picking up a world object by id: ADD without shapes.
    aco.object.primitives, aco.object.primitive_poses = [], []
    assert attached_object_edit(aco).edit.shapes == ()
    aco.link_name = ""
    with pytest.raises(PlanningSceneError, match="'held': empty link_name"):
        attached_object_edit(aco)


def test_planning_scene_diff_with_acm_and_padding(T):
    scene = T("moveit_msgs/msg/PlanningScene")()
    scene.is_diff = True
    scene.world.collision_objects = [_box_object(T, object_id="a")]
    acm = scene.allowed_collision_matrix
    acm.entry_names = ["a", "panda_hand", "panda_link7"]
    rows = []
    for values in ([False, True, False], [True, False, False], [False, False, False]):
        entry = T("moveit_msgs/msg/AllowedCollisionEntry")()
        entry.enabled = values
        rows.append(entry)
    acm.entry_values = rows
    acm.default_entry_names, acm.default_entry_values = ["panda_link0"], [True]
    padding = T("moveit_msgs/msg/LinkPadding")()
    padding.link_name, padding.padding = "panda_hand", 0.02
    scene.link_padding = [padding]
    edits = planning_scene_edits(scene)
    assert edits.is_diff and [o.object_id for o in edits.objects] == ["a"]
    assert edits.allowed == {("a", "panda_hand"): True, ("a", "panda_link7"): False,
                             ("panda_hand", "panda_link7"): False}
    assert edits.default_allowed == {"panda_link0": True}
    assert edits.link_padding == {"panda_hand": 0.02}
    padding.padding = -0.1
    with pytest.raises(PlanningSceneError, match="link_padding of 'panda_hand' must be"):
        planning_scene_edits(scene)
    padding.padding = 0.0
    rows[0].enabled = [True]
    with pytest.raises(PlanningSceneError, match=r"row 0 \('a'\) has 1 values, not 3"):
        planning_scene_edits(scene)


def _cloud(T, points, datatype=7, bigendian=False, pad=4, row_pad=0, width=None):
    size = 4 if datatype == 7 else 8
    code = "f" if datatype == 7 else "d"
    order = ">" if bigendian else "<"
    point_step = 3 * size + pad
    width = len(points) if width is None else width
    row = b"".join(struct.pack(f"{order}3{code}", *p) + b"\xee" * pad for p in points)
    msg = T("sensor_msgs/msg/PointCloud2")()
    msg.height, msg.width = 1, width
    msg.point_step, msg.row_step = point_step, point_step * width + row_pad
    msg.is_bigendian = bigendian
    fields = []
    for k, axis in enumerate("xyz"):
        f = T("sensor_msgs/msg/PointField")()
        f.name, f.offset, f.datatype, f.count = axis, k * size, datatype, 1
        fields.append(f)
    msg.fields = fields
    msg.data = list(row + b"\x00" * row_pad) if T is get_message_type else row + b"\x00" * row_pad
    return msg


@pytest.mark.parametrize("datatype, bigendian", [(7, False), (8, True)])
def test_point_cloud_points_in_either_byte_order(T, datatype, bigendian):
    points = [(0.5, -1.25, 2.0), (float("nan"), 0.0, 1.0), (3.0, 4.0, -5.5)]
    p = point_cloud_points(_cloud(T, points, datatype, bigendian, pad=4, row_pad=8))
    np.testing.assert_array_equal(p, np.array(points))


def test_bad_point_clouds_are_refused(T):
    good = [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)]
    msg = _cloud(T, good)
    msg.fields = [f for f in msg.fields if f.name != "z"]
    with pytest.raises(PlanningSceneError, match="no field 'z'"):
        point_cloud_points(msg)
    msg = _cloud(T, good)
    msg.fields[1].datatype = 5  # INT32
    with pytest.raises(PlanningSceneError, match="field 'y' has datatype 5"):
        point_cloud_points(msg)
    msg = _cloud(T, good)
    msg.fields[2].offset = 14
    with pytest.raises(PlanningSceneError, match="does not fit in point_step"):
        point_cloud_points(msg)
    with pytest.raises(PlanningSceneError, match="bytes of data"):
        point_cloud_points(_cloud(T, good, width=3))
    msg = _cloud(T, good)
    msg.height, msg.width = 10_000, 5_000  # 50 million points claimed in 32 bytes
    with pytest.raises(PlanningSceneError, match=f"more than {MAX_CLOUD_POINTS}"):
        point_cloud_points(msg)
    msg = _cloud(T, good)
    msg.row_step = 3
    with pytest.raises(PlanningSceneError, match="row_step 3 is less than"):
        point_cloud_points(msg)


def test_oversized_messages_are_refused_before_they_are_read(T):
    from geometry_core_nodes.limits import MAX_ACM_NAMES, MAX_MESH_TRIANGLES

    co = _box_object(T)
    co.primitives, co.primitive_poses = [], []
    mesh = T("shape_msgs/msg/Mesh")()
    triangle = T("shape_msgs/msg/MeshTriangle")()
    # Many references to one triangle: the count alone is refused.
    mesh.triangles = [triangle] * (MAX_MESH_TRIANGLES + 1)
    co.meshes, co.mesh_poses = [mesh], [_pose(T)]
    with pytest.raises(PlanningSceneError, match=f"{MAX_MESH_TRIANGLES} triangles"):
        collision_object_edit(co)
    scene = T("moveit_msgs/msg/PlanningScene")()
    scene.allowed_collision_matrix.entry_names = ["link"] * (MAX_ACM_NAMES + 1)
    with pytest.raises(PlanningSceneError, match=f"more than {MAX_ACM_NAMES} names"):
        planning_scene_edits(scene)
