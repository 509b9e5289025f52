"""URDF loading: links, geometry, materials, meshes, filters, joints, and errors with lines."""

import math
import pathlib
import textwrap

import numpy as np
import pytest

from geometry_core import Box, Convex, Cylinder, Mesh, Rgba, RigidTransform, Role, Sphere
from geometry_core.scene_files import SceneFileError, load_urdf
from geometry_core.scene_files.urdf import resolve_mesh_path

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
URDF = DATA / "tiny_arm.urdf"
ROOTS = {"tiny_arm": DATA}


@pytest.fixture()
def arm():
    return load_urdf(URDF, package_roots=ROOTS)


def write(tmp_path, body: str, name="robot.urdf") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body).strip() + "\n")
    return path


def world_p(scene, link):
    return scene.scene_graph.query_object().get_pose_in_world(scene.frames[link]).translation()


def test_links_become_frames_of_one_source(arm):
    assert list(arm.source_ids) == ["tiny_arm"]
    assert list(arm.frames) == ["base", "link1", "link2", "link3", "tool", "tool_tip"]
    inspector = arm.scene_graph.model_inspector()
    assert inspector.get_parent_frame(arm.frames["link2"]) == arm.frames["link1"]
    assert inspector.get_parent_frame(arm.frames["base"]) == inspector.world_frame_id()
    assert arm.scene_graph.frames_without_poses() == []


def test_geometry_names_shapes_and_roles(arm):
    inspector = arm.scene_graph.model_inspector()
    assert set(arm.geometries) == {
        "base::base_box", "base::visual", "link1::collision", "link1::visual",
        "link2::collision", "link2::visual", "link3::collision", "link3::visual", "tool::knob"}
    shape = {k: inspector.get_shape(g) for k, g in arm.geometries.items()}
    assert isinstance(shape["base::base_box"], Box)
    assert isinstance(shape["base::visual"], Cylinder)
    assert isinstance(shape["link3::collision"], Sphere)
    assert isinstance(shape["link2::collision"], Convex)  # collision meshes: convex hull
    assert isinstance(shape["link2::visual"], Mesh)
    assert pathlib.Path(shape["link2::collision"].filename) == DATA / "meshes" / "forearm.obj"
    assert pathlib.Path(shape["link2::visual"].filename) == DATA / "meshes" / "forearm.stl"
    assert shape["tool::knob"].scale == 1.2
    for key, g in arm.geometries.items():
        expected = ({Role.PROXIMITY} if key.endswith(("collision", "base_box", "knob"))
                    else {Role.ILLUSTRATION, Role.PERCEPTION})
        assert inspector.get_roles(g) == expected, key


def test_origins_and_materials(arm):
    inspector = arm.scene_graph.model_inspector()
    np.testing.assert_allclose(
        inspector.get_pose_in_frame(arm.geometries["base::base_box"]).translation(),
        [0, 0, 0.05])
    X_FG = inspector.get_pose_in_frame(arm.geometries["tool::knob"])
    np.testing.assert_allclose(X_FG.rotation().to_roll_pitch_yaw().vector(), [0, 0.3, 0],
                               atol=1e-15)
    color = lambda key: inspector.get_illustration_properties(  # noqa: E731
        arm.geometries[key]).get_property_or_default("phong", "diffuse", None)
    assert color("base::visual") == Rgba(0.1, 0.2, 0.8, 1)  # named, defined at robot level
    assert color("link2::visual") == Rgba(0.9, 0.5, 0.1, 1)  # inline
    assert color("link3::visual") is None


def test_adjacent_and_welded_links_are_filtered(arm):
    inspector = arm.scene_graph.model_inspector()
    g = arm.geometries
    assert inspector.collision_filtered(g["base::base_box"], g["link1::collision"])
    assert inspector.collision_filtered(g["link3::collision"], g["tool::knob"])
    assert not inspector.collision_filtered(g["base::base_box"], g["link3::collision"])
    assert not inspector.collision_filtered(g["link1::collision"], g["link3::collision"])


def test_filtering_adjacent_links_can_be_turned_off():
    arm = load_urdf(URDF, package_roots=ROOTS, filter_adjacent=False)
    inspector = arm.scene_graph.model_inspector()
    assert not inspector.collision_filtered(arm.geometries["base::base_box"],
                                            arm.geometries["link1::collision"])


def test_default_configuration_is_straight_up(arm):
    np.testing.assert_allclose(world_p(arm, "link3"), [0, 0, 0.6], atol=1e-15)
    np.testing.assert_allclose(world_p(arm, "tool_tip"), [0, 0, 0.75], atol=1e-15)


def test_joint_positions_pose_the_robot(arm):
    kin = arm.kinematics
    assert kin.joint_names() == ["shoulder", "elbow", "slide", "wrist"]
    assert kin.root_frames() == ["base"]
    arm.set_joint_positions({"elbow": math.pi / 2, "slide": 0.1})
    # elbow at z 0.4 turns link2's +z to world +x; link3 sits 0.2 + 0.1 along it.
    np.testing.assert_allclose(world_p(arm, "link3"), [0.3, 0, 0.4], atol=1e-12)
    arm.set_joint_positions({"shoulder": math.pi / 2, "elbow": math.pi / 2})
    np.testing.assert_allclose(world_p(arm, "link3"), [0, 0.2, 0.4], atol=1e-12)
    # Joints left out go back to their defaults.
    arm.set_joint_positions({})
    np.testing.assert_allclose(world_p(arm, "link3"), [0, 0, 0.6], atol=1e-15)


def test_continuous_joint_has_no_limits(arm):
    arm.set_joint_positions({"wrist": 100.0})
    spec = arm.kinematics.joint("wrist")
    assert (spec.lower, spec.upper) == (-math.inf, math.inf)


@pytest.mark.parametrize("q, error, message", [
    ({"elbow": 3.5}, ValueError, r"position 3.5 of joint 'elbow' is outside its limits \[-3, 3\]"),
    ({"slide": -0.01}, ValueError, r"position -0.01 of joint 'slide' is outside its limits"),
    ({"tip": 0.0}, ValueError, r"joint 'tip' is fixed: it takes no position"),
    ({"knee": 0.0}, KeyError, r"no joint named 'knee'; joints: shoulder, elbow, slide, "
                              r"wrist, tip"),
    ({"elbow": math.nan}, ValueError, r"position of joint 'elbow' must be finite"),
    ({"elbow": "x"}, ValueError, r"position of joint 'elbow' must be a number"),
])
def test_bad_joint_positions(arm, q, error, message):
    with pytest.raises(error, match=message):
        arm.set_joint_positions(q)


def test_mimic_world_link_and_root_pose(tmp_path):
    path = write(tmp_path, """
        <robot name="gripper">
          <link name="world">
            <collision><geometry><box size="1 1 0.1"/></geometry></collision>
          </link>
          <link name="palm">
            <collision><geometry><box size="0.1 0.1 0.02"/></geometry></collision>
          </link>
          <link name="left"/>
          <link name="right"/>
          <link name="loose"/>
          <joint name="mount" type="fixed">
            <parent link="world"/><child link="palm"/><origin xyz="0 0 1"/>
          </joint>
          <joint name="left_slide" type="prismatic">
            <parent link="palm"/><child link="left"/><axis xyz="1 0 0"/>
            <limit lower="0" upper="0.05" effort="1" velocity="1"/>
          </joint>
          <joint name="right_slide" type="prismatic">
            <parent link="palm"/><child link="right"/><axis xyz="2 0 0"/>
            <limit lower="-0.05" upper="0" effort="1" velocity="1"/>
            <mimic joint="left_slide" multiplier="-1" offset="0"/>
          </joint>
        </robot>
        """)
    scene = load_urdf(path, X_WR=RigidTransform([5.0, 0, 0]))
    inspector = scene.scene_graph.model_inspector()
    assert "world" not in scene.frames
    assert inspector.is_anchored(scene.geometries["world::collision"])
    # The palm is welded to the world: filtered against world geometry, like Drake.
    assert inspector.collision_filtered(scene.geometries["world::collision"],
                                        scene.geometries["palm::collision"])
    assert scene.kinematics.joint_names() == ["left_slide"]
    scene.set_joint_positions({"left_slide": 0.04})
    np.testing.assert_allclose(world_p(scene, "left"), [0.04, 0, 1], atol=1e-15)
    np.testing.assert_allclose(world_p(scene, "right"), [-0.04, 0, 1], atol=1e-15)
    np.testing.assert_allclose(world_p(scene, "loose"), [5, 0, 0])  # a root at X_WR
    with pytest.raises(ValueError, match="joint 'right_slide' mimics 'left_slide': set that"):
        scene.set_joint_positions({"right_slide": 0.0})


def test_resolve_mesh_path(tmp_path):
    roots = {"pkg": tmp_path / "share"}
    assert resolve_mesh_path("package://pkg/m/a.obj", tmp_path, roots) == \
        tmp_path / "share" / "m" / "a.obj"
    assert resolve_mesh_path("file:///abs/a.obj", tmp_path, roots) == pathlib.Path("/abs/a.obj")
    assert resolve_mesh_path("file://rel/a.obj", tmp_path, roots) == tmp_path / "rel" / "a.obj"
    assert resolve_mesh_path("m/a.obj", tmp_path, roots) == tmp_path / "m" / "a.obj"
    assert resolve_mesh_path("/abs/a.obj", tmp_path, roots) == pathlib.Path("/abs/a.obj")
    with pytest.raises(KeyError, match=r"package 'other' has no root \(package roots: pkg\)"):
        resolve_mesh_path("package://other/a.obj", tmp_path, roots)
    with pytest.raises(ValueError, match="unsupported URI scheme 'http'"):
        resolve_mesh_path("http://example.com/a.obj", tmp_path, roots)


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize("name, message", [
    ("bad_joint.urdf", r"bad_joint.urdf:7: joint 'shoulder': child link 'forearm' is not a "
                       r"link of the robot"),
    ("bad_syntax.urdf", r"bad_syntax.urdf:5: XML syntax error: Opening and ending tag "
                        r"mismatch"),
    ("missing_mesh.urdf", r"missing_mesh.urdf:5: link 'base', collision #1: mesh file "
                          r"'meshes/no_such_mesh.obj' not found"),
    ("negative_size.urdf", r"negative_size.urdf:8: link 'base', collision #1: <box> size "
                           r"must have 3 positive numbers, got '0.1 -0.2 0.3'"),
])
def test_broken_files_name_file_line_and_element(name, message):
    with pytest.raises(SceneFileError, match=message):
        load_urdf(DATA / "broken" / name)


def test_package_found_nowhere_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <collision><geometry><mesh filename="package://nowhere/m.obj"/></geometry></collision>
          </link>
        </robot>
        """)
    with pytest.raises(SceneFileError, match=r"robot.urdf:3: link 'a', collision #1: mesh "
                                             r"'package://nowhere/m.obj': package 'nowhere' has "
                                             r"no root \(package roots: none given\) and "
                                             r"'m.obj' was not found on ROS_PACKAGE_PATH"):
        load_urdf(path)


LINKS = '<link name="a"/><link name="b"/>'


@pytest.mark.parametrize("body, message", [
    ('<robot name="r">\n<link/>\n</robot>', r"robot.urdf:2: <link> needs a 'name' attribute"),
    ('<model name="r"/>', r"robot.urdf:1: the root element must be <robot>, got <model>"),
    ('<robot name="r">\n<link name="a"/>\n<link name="a"/>\n</robot>',
     r"robot.urdf:3: link 'a' is declared twice \(first on line 2\)"),
    ('<robot name="r">\n<link name="a">\n<collision><geometry><capsule radius="1" '
     'length="1"/></geometry></collision>\n</link>\n</robot>',
     r"robot.urdf:3: link 'a', collision #1: unsupported shape <capsule>"),
    ('<robot name="r">\n<link name="a">\n<collision>\n<geometry/>\n</collision>\n</link>\n'
     '</robot>',
     r"robot.urdf:4: link 'a', collision #1: <geometry> needs exactly one of box, sphere, "
     r"cylinder, mesh, got none"),
    ('<robot name="r">\n<link name="a">\n<collision><origin xyz="0 0"/>\n<geometry><sphere '
     'radius="1"/></geometry></collision>\n</link>\n</robot>',
     r"robot.urdf:3: link 'a', collision #1: <origin> xyz must have 3 finite numbers, "
     r"got '0 0'"),
    ('<robot name="r">\n<material name="m">\n<color rgba="2 0 0 1"/></material>\n</robot>',
     r"robot.urdf:3: material 'm': <color> rgba must be in \[0, 1\]"),
    ('<robot name="r">\n<link name="a"><inertial>\n<mass value="heavy"/></inertial></link>\n'
     '</robot>', r"robot.urdf:3: link 'a', inertial: <mass> value must have 1 finite numbers, "
                 r"got 'heavy'"),
    (f'<robot name="r">{LINKS}\n<joint name="j" type="floating"><parent link="a"/>'
     '<child link="b"/></joint>\n</robot>',
     r"robot.urdf:2: joint 'j': type must be one of revolute, continuous, prismatic, fixed, "
     r"got 'floating' \(floating and planar joints are not supported\)"),
    (f'<robot name="r">{LINKS}\n<joint name="j" type="fixed"><parent link="a"/></joint>\n'
     '</robot>', r"robot.urdf:2: joint 'j': needs <child link=\"...\"/>"),
    (f'<robot name="r">{LINKS}\n<joint name="j" type="revolute"><parent link="a"/>'
     '<child link="b"/>\n<axis xyz="0 0 0"/></joint>\n</robot>',
     r"robot.urdf:3: joint 'j': <axis> xyz must not be zero"),
    (f'<robot name="r">{LINKS}\n<joint name="j" type="revolute"><parent link="a"/>'
     '<child link="b"/>\n<limit lower="x" upper="1"/></joint>\n</robot>',
     r"robot.urdf:3: joint 'j': <limit> lower must have 1 finite numbers, got 'x'"),
    (f'<robot name="r">{LINKS}<link name="c"/>\n'
     '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
     '<joint name="k" type="fixed"><parent link="c"/><child link="b"/></joint>\n</robot>',
     r"robot.urdf:3: joint 'k': link 'b' already has parent joint 'j'; a URDF is a tree"),
    (f'<robot name="r">{LINKS}<link name="c"/>\n'
     '<joint name="j" type="fixed"><parent link="b"/><child link="c"/></joint>\n'
     '<joint name="k" type="fixed"><parent link="c"/><child link="b"/></joint>\n</robot>',
     r"robot.urdf:\d: links b, c form a cycle of joints"),
    (f'<robot name="r">{LINKS}\n'
     '<joint name="j" type="fixed"><parent link="a"/><child link="b"/>'
     '<mimic joint="j"/></joint>\n</robot>',
     r"robot.urdf:2: joint 'j': mimics 'j', which is not a moving joint"),
])
def test_errors_name_file_line_and_element(tmp_path, body, message):
    with pytest.raises(SceneFileError, match=message):
        load_urdf(write(tmp_path, body))
