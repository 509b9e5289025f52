"""URDF leniencies: what the ROS toolchain accepts loads, with a warning naming file and line.

Each leniency has its own test asserting the warning's text; what would
make the collision model wrong (a collision mesh that cannot be found or
read, a non-finite number) is still refused.
"""

import pathlib
import textwrap

import numpy as np
import pytest
import trimesh

from geometry_core import Convex, Mesh, Rgba
from geometry_core.scene_files import SceneFileError, load_urdf
from geometry_core.scene_files.errors import SceneFileWarning
from geometry_core.scene_files.urdf import resolve_mesh_path


def write(folder: pathlib.Path, body: str, name="robot.urdf") -> pathlib.Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body).lstrip("\n"))
    return path


def box_mesh(path: pathlib.Path, extents=(0.1, 0.2, 0.3), center=(0.05, 0.0, 0.0)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mesh = trimesh.creation.box(extents=extents)
    mesh.apply_translation(center)
    data = mesh.export(file_type=path.suffix.lower().lstrip("."))
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def link_with_mesh(filename: str, kind="collision", scale="") -> str:
    scale = f' scale="{scale}"' if scale else ""
    return f"""
        <robot name="r">
          <link name="a">
            <{kind}>
              <geometry><mesh filename="{filename}"{scale}/></geometry>
            </{kind}>
          </link>
        </robot>
        """


def color(scene, key):
    inspector = scene.scene_graph.model_inspector()
    return inspector.get_illustration_properties(scene.geometries[key]).get_property_or_default(
        "phong", "diffuse", None)


@pytest.mark.parametrize("name", ["box.dae", "box.DAE", "box.glb", "box.obj", "box.stl",
                                  "box.STL", "box.ply"])
def test_mesh_formats_load_as_hulls_and_visuals(tmp_path, name):
    box_mesh(tmp_path / "meshes" / name)
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="a">
            <visual><geometry><mesh filename="meshes/{name}"/></geometry></visual>
            <collision><geometry><mesh filename="meshes/{name}"/></geometry></collision>
          </link>
        </robot>
        """)
    scene = load_urdf(path)
    inspector = scene.scene_graph.model_inspector()
    hull = inspector.get_shape(scene.geometries["a::collision"])
    assert isinstance(hull, Convex)
    center, half = hull.local_aabb()
    np.testing.assert_allclose(center, [0.05, 0, 0], atol=1e-6)
    np.testing.assert_allclose(half, [0.05, 0.1, 0.15], atol=1e-6)
    visual = inspector.get_shape(scene.geometries["a::visual"])
    assert isinstance(visual, Mesh)
    assert len(visual.faces()) == 12


def test_material_defined_at_first_use_is_used_by_name_later(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <visual><geometry><sphere radius="1"/></geometry>
              <material name="black"><color rgba="0.2 0.2 0.2 1"/></material></visual>
          </link>
          <link name="b">
            <visual><geometry><sphere radius="1"/></geometry>
              <material name="black"/></visual>
          </link>
        </robot>
        """)
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:8: link 'b', visual #1: material "
                                              r"'black' is defined inside a visual \(line 4\), "
                                              r"not at robot level; used by name here"):
        scene = load_urdf(path)
    assert color(scene, "b::visual") == Rgba(0.2, 0.2, 0.2, 1)
    assert color(scene, "a::visual") == Rgba(0.2, 0.2, 0.2, 1)


def test_undefined_material_leaves_the_visual_uncoloured(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <visual><geometry><sphere radius="1"/></geometry>
              <material name="nope"/></visual>
          </link>
        </robot>
        """)
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:4: link 'a', visual #1: material "
                                              r"'nope' is not defined in the robot; the visual "
                                              r"gets no colour"):
        scene = load_urdf(path)
    assert color(scene, "a::visual") is None


def outward(vertices, faces) -> bool:
    """Every face normal points away from the centroid (a convex shape's outside)."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    return bool(np.all(np.einsum("ij,ij->i", normals, a - vertices.mean(axis=0)) > 0))


def signed_volume(vertices, faces) -> float:
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def test_mirrored_scale_mirrors_the_hull_and_keeps_it_outward(tmp_path):
    box_mesh(tmp_path / "m.stl", center=(0.05, 0.02, 0.0))
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <visual><geometry><mesh filename="m.stl" scale="1 -1 1"/></geometry></visual>
            <collision><geometry><mesh filename="m.stl" scale="1 -1 1"/></geometry></collision>
          </link>
        </robot>
        """)
    with pytest.warns(SceneFileWarning) as record:
        scene = load_urdf(path)
    messages = [str(w.message) for w in record]
    assert any(m.endswith("robot.urdf:4: link 'a', collision #1: mesh scale '1 -1 1' mirrors "
                          "the mesh; its hull is mirrored and rewound to face outward")
               for m in messages), messages
    assert any(m.endswith("robot.urdf:3: link 'a', visual #1: mesh scale '1 -1 1' mirrors "
                          "the mesh; its faces are mirrored and rewound to face outward")
               for m in messages), messages
    inspector = scene.scene_graph.model_inspector()
    hull = inspector.get_shape(scene.geometries["a::collision"])
    vertices, faces = hull.hull()
    assert outward(vertices, faces)
    center, _ = hull.local_aabb()
    np.testing.assert_allclose(center, [0.05, -0.02, 0.0], atol=1e-9)  # y mirrored
    visual = inspector.get_shape(scene.geometries["a::visual"])
    # The file's box has positive volume; mirrored and rewound it still has.
    assert signed_volume(visual.vertices(), visual.faces()) == pytest.approx(0.006)
    assert signed_volume(*Convex(str(tmp_path / "m.stl"), [1, -1, 1]).hull()) == \
        pytest.approx(0.006)


def test_zero_scale_is_refused(tmp_path):
    path = write(tmp_path, link_with_mesh("m.stl", scale="1 0 1"))
    with pytest.raises(SceneFileError, match=r"robot.urdf:4: link 'a', collision #1: <mesh> "
                                             r"scale must not be zero, got '1 0 1'"):
        load_urdf(path)


@pytest.mark.parametrize("number", ["nan", "inf"])
def test_non_finite_number_is_refused(tmp_path, number):
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="a">
            <collision><origin xyz="0 {number} 0"/>
              <geometry><sphere radius="1"/></geometry></collision>
          </link>
        </robot>
        """)
    with pytest.raises(SceneFileError, match=r"robot.urdf:3: link 'a', collision #1: <origin> "
                                             r"xyz must have 3 finite numbers"):
        load_urdf(path)


def test_odd_xml_declaration_is_ignored_and_lines_kept(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text('\n\n<?xml version="1.0" encoding="utf-8"?>\n<robot name="r">\n'
                    '<link name="a">\n<visual><geometry><sphere radius="1"/></geometry>\n'
                    '<material name="nope"/></visual>\n</link>\n</robot>\n')
    with pytest.warns(SceneFileWarning) as record:
        scene = load_urdf(path)
    messages = [str(w.message) for w in record]
    assert messages[0].endswith("robot.urdf:3: odd XML declaration '<?xml version=\"1.0\" "
                                "encoding=\"utf-8\"?>' ignored; the file is read as UTF-8 XML "
                                "1.0, as urdfdom reads it"), messages
    assert "robot.urdf:7: link 'a', visual #1: material 'nope'" in messages[1]  # same lines
    assert list(scene.frames) == ["a"]


def test_unknown_encoding_in_the_declaration_is_ignored(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text('<?xml version="1.0" encoding="no-such-codec"?>\n<robot name="r">\n'
                    '<link name="a"/>\n</robot>\n')
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:1: odd XML declaration"):
        scene = load_urdf(path)
    assert list(scene.frames) == ["a"]


def test_missing_robot_name_takes_the_file_stem(tmp_path):
    path = write(tmp_path, """
        <robot>
          <link name="a"/>
        </robot>
        """, name="my_arm.urdf")
    with pytest.warns(SceneFileWarning, match=r"my_arm.urdf:1: <robot> has no 'name' "
                                              r"attribute; the robot is named 'my_arm' after its "
                                              r"file"):
        scene = load_urdf(path)
    assert list(scene.source_ids) == ["my_arm"]


def test_missing_visual_mesh_is_skipped_and_the_robot_kept(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <visual><geometry><mesh filename="meshes/gone.dae"/></geometry></visual>
            <collision><geometry><sphere radius="0.1"/></geometry></collision>
          </link>
        </robot>
        """)
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:3: link 'a', visual #1: mesh file "
                                              r"'meshes/gone.dae' not found \(looked for .*gone"
                                              r".dae\); this visual is skipped"):
        scene = load_urdf(path)
    assert list(scene.geometries) == ["a::collision"]
    assert len(scene.warnings) == 1


def test_unreadable_collision_mesh_is_refused(tmp_path):
    (tmp_path / "bad.stl").write_bytes(b"not a mesh at all")
    path = write(tmp_path, link_with_mesh("bad.stl"))
    with pytest.raises(SceneFileError, match=r"robot.urdf:4: link 'a', collision #1: Convex "
                                             r"file .*bad.stl"):
        load_urdf(path)


def test_collision_mesh_in_an_unknown_format_is_refused(tmp_path):
    (tmp_path / "m.mesh").write_text("ogre")
    path = write(tmp_path, link_with_mesh("m.mesh"))
    with pytest.raises(SceneFileError, match=r"robot.urdf:4: link 'a', collision #1: mesh file "
                                             r"'m.mesh': unsupported format '.mesh'"):
        load_urdf(path)


# ------------------------------------------------------------- package://


@pytest.fixture()
def no_ros_env(monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)


def test_package_root_wins_over_the_environment(tmp_path, no_ros_env):
    for folder in ("given", "ros/pkg"):
        box_mesh(tmp_path / folder / "m.stl")
    env = {"ROS_PACKAGE_PATH": str(tmp_path / "ros")}
    found = resolve_mesh_path("package://pkg/m.stl", tmp_path / "robot",
                              {"pkg": tmp_path / "given"}, env)
    assert found == tmp_path / "given" / "m.stl"


def test_package_on_ros_package_path(tmp_path, no_ros_env):
    box_mesh(tmp_path / "ros" / "src" / "pkg" / "m.stl")
    env = {"ROS_PACKAGE_PATH": f"{tmp_path / 'elsewhere'}:{tmp_path / 'ros' / 'src'}"}
    assert resolve_mesh_path("package://pkg/m.stl", tmp_path / "robot", {}, env) == \
        tmp_path / "ros" / "src" / "pkg" / "m.stl"


def test_package_on_ament_prefix_path(tmp_path, monkeypatch):
    box_mesh(tmp_path / "install" / "share" / "pkg" / "meshes" / "m.stl")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "install"))
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    path = write(tmp_path / "robot", link_with_mesh("package://pkg/meshes/m.stl"))
    scene = load_urdf(path)
    shape = scene.scene_graph.model_inspector().get_shape(scene.geometries["a::collision"])
    assert pathlib.Path(shape.filename) == tmp_path / "install" / "share" / "pkg" / "meshes" / \
        "m.stl"


def test_package_found_beside_the_urdf_and_in_ancestor_folders(tmp_path, no_ros_env):
    # pkg/path in an ancestor folder (a source tree), and path alone (a package's own folder).
    box_mesh(tmp_path / "pkg" / "meshes" / "m.stl")
    urdf_dir = tmp_path / "pkg" / "urdf"
    assert resolve_mesh_path("package://pkg/meshes/m.stl", urdf_dir, {}) == \
        tmp_path / "pkg" / "meshes" / "m.stl"
    box_mesh(tmp_path / "other" / "meshes" / "n.stl")
    assert resolve_mesh_path("package://renamed/meshes/n.stl", tmp_path / "other" / "urdf",
                             {}) == tmp_path / "other" / "meshes" / "n.stl"


def test_package_uri_without_a_package_name_is_searched_beside_the_urdf(tmp_path, no_ros_env):
    box_mesh(tmp_path / "data" / "robots" / "m.stl")
    path = write(tmp_path / "data" / "robots" / "urdf",
                 link_with_mesh("package:///data/robots/m.stl"))
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:4: link 'a', collision #1: "
                                              r"'package:///data/robots/m.stl' names no "
                                              r"package; found .*m.stl by searching beside the "
                                              r"URDF"):
        scene = load_urdf(path)
    assert "a::collision" in scene.geometries


# ------------------------------------------- what urdfdom's check_urdf accepts too


def test_content_after_the_root_element_is_ignored(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a"><collision><geometry><sphere radius="1"/></geometry></collision></link>
        </robot>
        <robot name="second"><link name="b"/></robot>
        trailing words
        """)
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:4: content after the closing "
                                              r"</robot> is ignored, as urdfdom ignores it"):
        scene = load_urdf(path)
    assert list(scene.frames) == ["a"]


def test_content_after_the_root_on_its_last_line_is_ignored(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_bytes('<robot name="r"><link name="é"/></robot><extra/>'.encode())
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:1: content after the closing"):
        scene = load_urdf(path)
    assert list(scene.frames) == ["é"]


def test_malformed_xml_inside_the_root_is_still_refused(tmp_path):
    path = write(tmp_path, '<robot name="r">\n<link name="a">\n</robot>\n')
    with pytest.raises(SceneFileError, match=r"robot.urdf:3: XML syntax error"):
        load_urdf(path)


VISUAL_SPHERE = '<visual><geometry><sphere radius="0.1"/></geometry></visual>'


@pytest.mark.parametrize("visual, message", [
    ('<visual><geometry><mesh filename="m.stl"/><box size="1 1 1"/></geometry></visual>',
     r"link 'a', visual #1: <geometry> needs exactly one of box, sphere, cylinder, mesh, got "
     r"mesh, box"),
    ('<visual><geometry><sphere radius="0"/></geometry></visual>',
     r"link 'a', visual #1: <sphere> radius must have 1 positive numbers, got '0'"),
    ('<visual><geometry><box size="1 0 1"/></geometry></visual>',
     r"link 'a', visual #1: <box> size must have 3 positive numbers, got '1 0 1'"),
    ('<visual><geometry/></visual>',
     r"link 'a', visual #1: <geometry> needs exactly one of box, sphere, cylinder, mesh, got "
     r"none"),
    ('<visual><origin xyz="0 0"/><geometry><sphere radius="1"/></geometry></visual>',
     r"link 'a', visual #1: <origin> xyz must have 3 finite numbers, got '0 0'"),
    ('<visual></visual>', r"link 'a', visual #1: <visual> needs a <geometry>"),
    ('<visual><geometry><capsule radius="1" length="1"/></geometry></visual>',
     r"link 'a', visual #1: unsupported shape <capsule>; URDF shapes are box, sphere, "
     r"cylinder, mesh"),
    ('<visual><geometry><mesh filename="m.stl" scale="0 1 1"/></geometry></visual>',
     r"link 'a', visual #1: <mesh> scale must not be zero, got '0 1 1'"),
    ('<visual><geometry><sphere radius="1"/></geometry><material name="m"><color '
     'rgba="2 0 0 1"/></material></visual>',
     r"link 'a', visual #1: <color> rgba must be in \[0, 1\], got '2 0 0 1'"),
])
def test_malformed_empty_or_zero_size_visual_is_skipped(tmp_path, visual, message):
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="a">
            {visual}
            <collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
            {VISUAL_SPHERE}
          </link>
        </robot>
        """)
    with pytest.warns(SceneFileWarning, match=r"robot.urdf:3: " + message + r"; this visual is "
                                              r"skipped, as RViz draws the robot without it"):
        scene = load_urdf(path)
    inspector = scene.scene_graph.model_inspector()
    assert sorted(scene.geometries) == ["a::collision", "a::visual"]
    assert inspector.get_shape(scene.geometries["a::visual"]).radius == 0.1
    assert len(scene.warnings) == 1


def test_the_same_faults_in_a_collision_are_refused(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a">
            <collision><geometry><sphere radius="0"/></geometry></collision>
          </link>
        </robot>
        """)
    with pytest.raises(SceneFileError, match=r"robot.urdf:3: link 'a', collision #1: <sphere> "
                                             r"radius must have 1 positive numbers, got '0'"):
        load_urdf(path)


JOINT = """
    <robot name="r">
      <link name="a"/><link name="b"/>
      <joint name="j" type="{kind}">
        <parent link="a"/><child link="b"/>
        {limit}
      </joint>
    </robot>
    """


@pytest.mark.parametrize("kind, limit, message, lower, upper", [
    ("revolute", '<limit lower="1" upper="-1" effort="1" velocity="1"/>',
     r"robot.urdf:5: joint 'j': <limit> lower 1 is above upper -1; the joint is unlimited",
     -np.inf, np.inf),
    ("prismatic", "",
     r"robot.urdf:3: joint 'j': a prismatic joint without <limit>; it is unlimited",
     -np.inf, np.inf),
    ("revolute", '<limit upper="0.5" effort="1" velocity="1"/>',
     r"robot.urdf:5: joint 'j': <limit> has no lower; that side is unlimited", -np.inf, 0.5),
    ("revolute", '<limit effort="1" velocity="1"/>',
     r"robot.urdf:5: joint 'j': <limit> has no lower and no upper; that side is unlimited",
     -np.inf, np.inf),
])
def test_inverted_or_missing_joint_limits_leave_the_joint_unlimited(
        tmp_path, kind, limit, message, lower, upper):
    path = write(tmp_path, JOINT.format(kind=kind, limit=limit))
    with pytest.warns(SceneFileWarning, match=message):
        scene = load_urdf(path)
    joint = scene.kinematics.joint("j")
    assert (joint.lower, joint.upper) == (lower, upper)
    scene.set_joint_positions({"j": 100.0 if upper == np.inf else -100.0})


def test_unknown_elements_and_attributes_are_warned_once_per_name(tmp_path):
    path = write(tmp_path, """
        <robot name="r" xmlns:drake="http://drake.mit.edu" colour="blue">
          <link name="a" mass="3">
            <collision><geometry><box size="1 1 1"/></geometry><friction mu="1"/></collision>
            <collision><geometry><box size="1 1 1"/></geometry><friction mu="1"/></collision>
            <drake:proximity_properties/>
          </link>
          <link name="b"/>
          <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
            <limit lower="-1" upper="1" effort="1" velocity="1" jerk="9"/>
            <drake:rotor_inertia value="1"/>
          </joint>
          <gazebo reference="a"><anything at="all"/></gazebo>
          <transmission name="t"><type>x</type></transmission>
          <klampt/>
        </robot>
        """)
    with pytest.warns(SceneFileWarning) as record:
        scene = load_urdf(path)
    texts = sorted((str(w.message).split("robot.urdf:")[1] for w in record),
                   key=lambda text: int(text.split(":")[0]))
    assert texts == [
        "1: unknown attribute 'colour' of <robot> ignored, as urdfdom ignores it",
        "2: unknown attribute 'mass' of <link> ignored, as urdfdom ignores it",
        "3: unknown element <friction> in <collision> ignored (2 times), as urdfdom ignores it",
        "9: unknown attribute 'jerk' of <limit> ignored, as urdfdom ignores it",
        "14: unknown element <klampt> in <robot> ignored, as urdfdom ignores it",
    ]
    assert len(scene.geometries) == 2


def test_unknown_names_are_warned_about_boundedly(tmp_path):
    tags = "".join(f"<extra{k}/>" for k in range(200))
    path = write(tmp_path, f'<robot name="r"><link name="a"/>{tags}</robot>')
    with pytest.warns(SceneFileWarning) as record:
        load_urdf(path)
    assert len(record) == 21
    assert "180 more unknown element or attribute names are ignored" in str(record[-1].message)
