"""Scene-to-message conversions, field by field, without sockets."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from geometry_core import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    IllustrationProperties,
    Mesh,
    PenetrationAsPointPair,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    RigidTransform,
    Role,
    RollPitchYaw,
    RotationMatrix,
    SceneGraph,
    Sphere,
    make_phong_illustration_properties,
)
from geometry_core.math.quaternion import quaternion_to_rotation_matrix
from geometry_core.viewer import conversions as conv
from geometry_core.viewer.lcmtypes.drake import lcmt_viewer_geometry_data as GeometryData

F32 = np.float32
CUBE_OBJ = """v -1 -1 -1
v 1 -1 -1
v 1 1 -1
v -1 1 -1
v -1 -1 1
v 1 -1 1
v 1 1 1
v -1 1 1
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
"""


@pytest.fixture
def cube_obj(tmp_path):
    path = tmp_path / "cube.obj"
    path.write_text(CUBE_OBJ)
    return path


def _f32(values):
    return [float(F32(v)) for v in values]


def _roundtrip(msg):
    """Encode and decode, so the asserted values are what travels (float32)."""
    return type(msg).decode(msg.encode())


X_FG = RigidTransform(RollPitchYaw(0.3, -0.2, 1.1), [0.1, -0.2, 0.3])
RED = Rgba(1.0, 0.0, 0.0, 0.5)

# ------------------------------------------------------------- pose and time


def test_pose_to_lcm_gives_position_and_wxyz_with_nonnegative_w():
    rng = np.random.default_rng(7)
    for _ in range(50):
        q = rng.normal(size=4)
        R = quaternion_to_rotation_matrix(q)
        X = np.eye(4)
        X[:3, :3], X[:3, 3] = R, rng.normal(size=3)
        position, quaternion = conv.pose_to_lcm(X)
        assert position == X[:3, 3].tolist()
        assert quaternion[0] >= 0.0
        assert math.isclose(np.linalg.norm(quaternion), 1.0, rel_tol=1e-12)
        np.testing.assert_allclose(quaternion_to_rotation_matrix(quaternion), R, atol=1e-12)
    # A half turn about z: w = 0, the vector part carries the axis.
    position, quaternion = conv.pose_to_lcm(RigidTransform(RotationMatrix.make_z_rotation(np.pi)))
    np.testing.assert_allclose(np.abs(quaternion), [0, 0, 0, 1], atol=1e-12)


def test_pose_to_lcm_accepts_rigid_transform():
    position, quaternion = conv.pose_to_lcm(X_FG)
    np.testing.assert_allclose(position, X_FG.translation())
    np.testing.assert_allclose(quaternion_to_rotation_matrix(quaternion),
                               X_FG.rotation().matrix(), atol=1e-12)


def test_timestamps_truncate_like_drake():
    assert conv.seconds_to_milliseconds(1.0 / 64.0) == 15
    assert conv.seconds_to_milliseconds(2.5) == 2500
    assert conv.seconds_to_microseconds(1.0 / 64.0) == 15625
    assert conv.seconds_to_microseconds(0.0) == 0
    with pytest.raises(ValueError, match="time_s must be finite"):
        conv.seconds_to_milliseconds(math.nan)
    with pytest.raises(ValueError, match="time_s must be finite"):
        conv.seconds_to_microseconds(math.inf)


# --------------------------------------------------------------------- shapes


@pytest.mark.parametrize("shape, kind, floats", [
    (Box(0.1, 0.2, 0.3), GeometryData.BOX, [0.1, 0.2, 0.3]),
    (Sphere(0.25), GeometryData.SPHERE, [0.25]),
    (Cylinder(0.1, 0.7), GeometryData.CYLINDER, [0.1, 0.7]),
    (Capsule(0.05, 0.4), GeometryData.CAPSULE, [0.05, 0.4]),
    (Ellipsoid(0.1, 0.2, 0.3), GeometryData.ELLIPSOID, [0.1, 0.2, 0.3]),
])
def test_primitive_fields(shape, kind, floats):
    msg = _roundtrip(conv.shape_to_geometry_data(shape, X_FG, RED))
    assert msg.type == kind
    assert list(msg.float_data) == _f32(floats)
    assert msg.num_float_data == len(floats)
    assert msg.string_data == ""
    position, quaternion = conv.pose_to_lcm(X_FG)
    assert list(msg.position) == _f32(position)
    assert list(msg.quaternion) == _f32(quaternion)
    assert list(msg.color) == _f32(RED.rgba())


def test_geometry_type_constants_are_drakes():
    assert (GeometryData.BOX, GeometryData.SPHERE, GeometryData.CYLINDER, GeometryData.MESH,
            GeometryData.CAPSULE, GeometryData.ELLIPSOID) == (1, 2, 3, 4, 5, 6)


def test_half_space_is_drakes_thin_box_with_top_face_on_the_plane():
    msg = conv.shape_to_geometry_data(HalfSpace(), X_FG, RED)
    assert msg.type == GeometryData.BOX
    assert msg.float_data == [50.0, 50.0, 1.0]
    # Box centre: half the thickness below the plane, along the half space's normal.
    Gz_F = X_FG.rotation().matrix()[:, 2]
    np.testing.assert_allclose(msg.position, X_FG.translation() - 0.5 * Gz_F, atol=1e-15)
    _, quaternion = conv.pose_to_lcm(X_FG)
    assert msg.quaternion == quaternion


def test_mesh_sends_absolute_path_and_scale3(cube_obj, monkeypatch):
    monkeypatch.chdir(cube_obj.parent)
    msg = conv.shape_to_geometry_data(Mesh("cube.obj", scale=[1.0, 2.0, 0.5]), X_FG, RED)
    assert msg.type == GeometryData.MESH
    assert msg.string_data == str(cube_obj)
    assert os.path.isabs(msg.string_data)
    assert msg.float_data == [1.0, 2.0, 0.5]
    assert msg.num_float_data == 3


def test_uniform_mesh_scale_is_repeated(cube_obj):
    msg = conv.shape_to_geometry_data(Mesh(str(cube_obj), scale=0.1), X_FG, RED)
    assert msg.float_data == [0.1, 0.1, 0.1]


def _inline_triangles(float_data):
    """Decode the inline MESH layout into a (T, 3, 3) array of triangle corners."""
    data = np.asarray(float_data, dtype=float)
    V, T = int(data[0]), int(data[1])
    assert len(data) == 2 + 3 * V + 3 * T
    vertices = data[2:2 + 3 * V].reshape(V, 3)
    indices = data[2 + 3 * V:].reshape(T, 3).astype(int)
    return vertices[indices]


def test_inline_mesh_layout_is_faceted():
    p_GV = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    faces = np.array([[0, 2, 1], [0, 1, 3]])
    data = conv.inline_mesh_float_data(p_GV, faces)
    assert data[:2] == [6.0, 2.0]
    assert data[2:20] == p_GV[faces].ravel().tolist()
    assert data[20:] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("from_file", [True, False])
def test_convex_is_drawn_as_its_inline_hull(cube_obj, from_file):
    if from_file:
        convex = Convex(str(cube_obj), scale=[1.0, 2.0, 3.0])
    else:
        rng = np.random.default_rng(3)
        convex = Convex.from_points(rng.normal(size=(40, 3)), scale=[1.0, 2.0, 3.0])
    msg = _roundtrip(conv.shape_to_geometry_data(convex, X_FG, RED))
    assert msg.type == GeometryData.MESH
    assert msg.string_data == ""
    vertices, faces = convex.hull()
    np.testing.assert_allclose(_inline_triangles(msg.float_data), vertices[faces], atol=1e-6)
    # The scale is in the vertices (the cube spans 2, 4, 6 along x, y, z).
    if from_file:
        corners = _inline_triangles(msg.float_data).reshape(-1, 3)
        np.testing.assert_allclose(corners.max(axis=0) - corners.min(axis=0), [2, 4, 6])


def test_convex_without_a_hull_raises():
    flat = Convex.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="degenerate"):
        conv.shape_to_geometry_data(flat, X_FG, RED)


def test_bad_shape_or_colour_raises():
    with pytest.raises(TypeError, match="cannot draw a str"):
        conv.shape_to_geometry_data("box", X_FG, RED)
    with pytest.raises(TypeError, match="rgba must be an Rgba"):
        conv.shape_to_geometry_data(Sphere(1.0), X_FG, (1, 0, 0, 1))


# ---------------------------------------------------------------------- scene


def _scene():
    """Two sources, nested frames, anchored geometry, mixed roles."""
    sg = SceneGraph()
    robot = sg.register_source("robot")
    env = sg.register_source("env")
    base = sg.register_frame(robot, GeometryFrame("base", 2))
    arm = sg.register_frame(robot, GeometryFrame("arm", 2), parent_id=base)
    bare = sg.register_frame(robot, GeometryFrame("bare", 2))  # no geometry
    prox_only = sg.register_frame(robot, GeometryFrame("prox_only", 5))
    ball = sg.register_frame(env, GeometryFrame("ball", 0))
    ids = {}

    def add(source, frame, name, shape, X, roles):
        gid = sg.register_geometry(source, frame, GeometryInstance(X, shape, name))
        for props in roles:
            sg.assign_role(source, gid, props)
        ids[name] = gid

    add(robot, base, "base_box", Box(0.4, 0.3, 0.1), RigidTransform([0, 0, 0.05]),
        [make_phong_illustration_properties(Rgba(0.2, 0.4, 0.6, 1.0)), ProximityProperties()])
    add(robot, arm, "arm_cyl", Cylinder(0.05, 0.5), RigidTransform(RollPitchYaw(0, 1.0, 0)),
        [IllustrationProperties(), ProximityProperties()])
    add(robot, arm, "arm_tip", Sphere(0.06), RigidTransform([0, 0, 0.25]),
        [IllustrationProperties()])
    prox = ProximityProperties()
    prox.add_property("phong", "diffuse", Rgba(0.0, 1.0, 0.0, 1.0))
    add(robot, prox_only, "prox_capsule", Capsule(0.1, 0.2), RigidTransform(), [prox])
    add(env, ball, "ball", Sphere(0.1), RigidTransform(), [
        make_phong_illustration_properties(Rgba(1.0, 1.0, 0.0, 1.0)), ProximityProperties(),
        PerceptionProperties()])
    floor = sg.register_anchored_geometry(
        env, GeometryInstance(RigidTransform([0, 0, -0.1]), HalfSpace(), "floor"))
    sg.assign_role(env, floor, IllustrationProperties())
    sg.assign_role(env, floor, ProximityProperties())
    ids["floor"] = floor
    frames = {"base": base, "arm": arm, "bare": bare, "prox_only": prox_only, "ball": ball}
    sg.set_poses(robot, {base: RigidTransform(RollPitchYaw(0, 0, 0.5), [1, 0, 0]),
                         arm: RigidTransform(RollPitchYaw(0.2, 0, 0), [0, 0, 0.3]),
                         bare: RigidTransform(), prox_only: RigidTransform([0, 2, 0])})
    sg.set_poses(env, {ball: RigidTransform([0.5, 0.5, 0.5])})
    return sg, robot, env, frames, ids


def _links(msg):
    return [(link.name, link.robot_num, link.num_geom) for link in msg.link]


def test_load_message_illustration_links_names_and_groups():
    sg, *_ = _scene()
    msg = _roundtrip(conv.make_load_message(sg.model_inspector(), Role.ILLUSTRATION))
    assert _links(msg) == [("world", 0, 1), ("robot::base", 2, 1), ("robot::arm", 2, 2),
                           ("env::ball", 0, 1)]
    assert msg.num_links == 4


def test_load_message_proximity_links():
    sg, *_ = _scene()
    msg = conv.make_load_message(sg.model_inspector(), Role.PROXIMITY)
    assert _links(msg) == [("world", 0, 1), ("robot::base", 2, 1), ("robot::arm", 2, 1),
                           ("robot::prox_only", 5, 1), ("env::ball", 0, 1)]


def test_load_message_perception_without_anchored_geometry_has_no_world_link():
    sg, *_ = _scene()
    msg = conv.make_load_message(sg.model_inspector(), Role.PERCEPTION)
    assert _links(msg) == [("env::ball", 0, 1)]


def test_load_message_of_an_empty_scene():
    msg = conv.make_load_message(SceneGraph().model_inspector(), Role.ILLUSTRATION)
    assert msg.num_links == 0 and msg.link == []


def test_load_message_geometry_poses_are_in_the_link_frame():
    sg, _, _, _, ids = _scene()
    inspector = sg.model_inspector()
    msg = conv.make_load_message(inspector, Role.ILLUSTRATION)
    arm = msg.link[2]
    for geom, name in zip(arm.geom, ["arm_cyl", "arm_tip"]):
        expected = conv.shape_to_geometry_data(
            inspector.get_shape(ids[name]), inspector.get_pose_in_frame(ids[name]),
            conv.geometry_color(inspector, ids[name], Role.ILLUSTRATION))
        assert geom.encode() == expected.encode()
    # The anchored half space: its box hangs half a thickness below the floor plane.
    assert msg.link[0].geom[0].position == [0.0, 0.0, -0.6]


def test_load_message_refuses_unassigned_role():
    with pytest.raises(ValueError, match="Role.UNASSIGNED"):
        conv.make_load_message(SceneGraph().model_inspector(), Role.UNASSIGNED)


def test_illustration_colour_is_diffuse_times_branch_tints():
    sg, robot, _, frames, ids = _scene()
    sg.set_branch_color(robot, frames["base"], Rgba(0.5, 0.5, 0.5, 0.5))
    inspector = sg.model_inspector()
    assert conv.geometry_color(inspector, ids["base_box"], Role.ILLUSTRATION) == Rgba(
        0.1, 0.2, 0.3, 0.5)
    # The arm hangs under the base: the default grey, tinted by the base's branch colour.
    assert conv.geometry_color(inspector, ids["arm_tip"], Role.ILLUSTRATION) == Rgba(
        0.45, 0.45, 0.45, 0.5)
    assert conv.geometry_color(inspector, ids["arm_tip"], Role.ILLUSTRATION,
                               Rgba(0, 0, 1, 1)) == Rgba(0, 0, 0.5, 0.5)
    msg = _roundtrip(conv.make_load_message(inspector, Role.ILLUSTRATION))
    assert list(msg.link[1].geom[0].color) == _f32([0.1, 0.2, 0.3, 0.5])


def test_non_illustration_colour_follows_drakes_lookup():
    sg, _, _, _, ids = _scene()
    inspector = sg.model_inspector()
    # Own role's diffuse first.
    assert conv.geometry_color(inspector, ids["prox_capsule"], Role.PROXIMITY) == Rgba(0, 1, 0)
    # Then the illustration diffuse.
    assert conv.geometry_color(inspector, ids["base_box"], Role.PROXIMITY) == Rgba(
        0.2, 0.4, 0.6, 1.0)
    assert conv.geometry_color(inspector, ids["ball"], Role.PERCEPTION) == Rgba(1, 1, 0)
    # Then the role's default: Drake's red for collision geometry ...
    assert conv.geometry_color(inspector, ids["arm_cyl"], Role.PROXIMITY) == Rgba(0.8, 0, 0, 1)
    # ... or the caller's.
    assert conv.geometry_color(inspector, ids["arm_cyl"], Role.PROXIMITY,
                               Rgba(0, 0, 1, 1)) == Rgba(0, 0, 1, 1)


def test_diffuse_given_as_a_sequence_is_accepted_for_other_roles():
    sg = SceneGraph()
    src = sg.register_source("s")
    gid = sg.register_anchored_geometry(src, GeometryInstance(RigidTransform(), Sphere(1), "g"))
    props = ProximityProperties()
    props.add_property("phong", "diffuse", [0.1, 0.2, 0.3])
    sg.assign_role(src, gid, props)
    assert conv.geometry_color(sg.model_inspector(), gid, Role.PROXIMITY) == Rgba(0.1, 0.2, 0.3)


def test_draw_message_poses_match_the_scene_and_the_load_links():
    sg, _, _, frames, _ = _scene()
    inspector = sg.model_inspector()
    links, anchored = conv.collect_links(inspector, Role.ILLUSTRATION)
    assert len(anchored) == 1
    msg = _roundtrip(conv.make_draw_message(links, sg.compute_world_poses(), 1.2345))
    load = conv.make_load_message(inspector, Role.ILLUSTRATION)
    dynamic = [link for link in load.link if link.name != "world"]
    assert list(msg.link_name) == [link.name for link in dynamic]
    assert list(msg.robot_num) == [link.robot_num for link in dynamic]
    assert msg.timestamp == 1234
    query = sg.query_object()
    for i, name in enumerate(["base", "arm", "ball"]):
        X_WF = query.get_pose_in_world(frames[name])
        np.testing.assert_allclose(msg.position[i], X_WF.translation(), atol=1e-6)
        np.testing.assert_allclose(quaternion_to_rotation_matrix(msg.quaternion[i]),
                                   X_WF.rotation().matrix(), atol=1e-6)


def test_draw_message_checks_its_inputs():
    with pytest.raises(ValueError, match=r"X_WF must have shape \(F, 4, 4\)"):
        conv.make_draw_message([], np.eye(4), 0.0)
    with pytest.raises(ValueError, match="time_s must be finite"):
        conv.make_draw_message([], np.zeros((1, 4, 4)), math.nan)


# ------------------------------------------------------------------- contacts


def _penetration(ids):
    return PenetrationAsPointPair(
        id_A=ids["base_box"], id_B=ids["ball"],
        p_WCa=np.array([1.0, 2.0, 3.0]), p_WCb=np.array([1.0, 2.0, 3.02]),
        nhat_BA_W=np.array([0.0, 0.0, 1.0]), depth=0.02)


def test_contact_message_fields():
    sg, _, _, _, ids = _scene()
    msg = _roundtrip(conv.make_contact_results_message(
        [_penetration(ids)], sg.model_inspector(), 2.5, force_per_depth=100.0))
    assert msg.timestamp == 2_500_000
    assert msg.num_point_pair_contacts == 1 and msg.num_hydroelastic_contacts == 0
    info = msg.point_pair_contact_info[0]
    assert info.timestamp == 2_500_000
    assert info.body1_name == "robot::base::base_box"
    assert info.body2_name == "env::ball::ball"
    np.testing.assert_allclose(info.contact_point, [1.0, 2.0, 3.01])
    np.testing.assert_allclose(info.normal, [0.0, 0.0, 1.0])
    # The force on B pushes B out of A: along -nhat_BA_W, 100 N/m * 0.02 m = 2 N.
    np.testing.assert_allclose(info.contact_force, [0.0, 0.0, -2.0])


def test_contact_message_names_anchored_geometry_by_world_frame():
    sg, _, _, _, ids = _scene()
    assert conv.contact_body_name(sg.model_inspector(), ids["floor"]) == "env::world::floor"


def test_contact_message_from_a_real_query():
    sg, _, _, _, _ = _scene()
    penetrations = sg.query_object().compute_point_pair_penetration()
    assert penetrations, "the scene has overlaps (arm and base, base and floor)"
    msg = conv.make_contact_results_message(penetrations, sg.model_inspector(), 0.0)
    assert msg.num_point_pair_contacts == len(penetrations)
    for pair, info in zip(penetrations, msg.point_pair_contact_info):
        np.testing.assert_allclose(info.contact_point, 0.5 * (pair.p_WCa + pair.p_WCb))
        np.testing.assert_allclose(
            info.contact_force,
            -conv.DEFAULT_CONTACT_FORCE_PER_DEPTH * pair.depth * pair.nhat_BA_W)


def test_empty_contact_message_and_bad_inputs():
    sg, _, _, _, ids = _scene()
    msg = conv.make_contact_results_message([], sg.model_inspector(), 1.0)
    assert msg.num_point_pair_contacts == 0 and msg.point_pair_contact_info == []
    with pytest.raises(ValueError, match="force_per_depth must be positive"):
        conv.make_contact_results_message([], sg.model_inspector(), 1.0, force_per_depth=0.0)
    with pytest.raises(ValueError, match="time_s must be finite"):
        conv.make_contact_results_message([], sg.model_inspector(), math.nan)
