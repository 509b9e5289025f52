"""SRDF: disabled collision pairs become filters, group states named poses."""

import math
import pathlib
import textwrap

import numpy as np
import pytest

from geometry_core.scene_files import SceneFileError, apply_srdf, load_any, load_urdf
from geometry_core.scene_files.errors import SceneFileWarning

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
URDF = DATA / "tiny_arm.urdf"
ROOTS = {"tiny_arm": DATA}


def write(tmp_path, body: str, name="arm.srdf") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body).lstrip("\n"))
    return path


SRDF = """
    <?xml version="1.0"?>
    <robot name="tiny_arm">
      <group name="arm"><joint name="shoulder"/><joint name="elbow"/></group>
      <group_state name="folded" group="arm">
        <joint name="elbow" value="2.9"/>
        <joint name="shoulder" value="0.5"/>
      </group_state>
      <disable_collisions link1="link1" link2="link3" reason="Never"/>
      <disable_collisions link1="base" link2="tool" reason="Never"/>
    </robot>
    """


def test_disable_collisions_become_filters(tmp_path):
    arm = load_urdf(URDF, package_roots=ROOTS, srdf=write(tmp_path, SRDF))
    inspector = arm.scene_graph.model_inspector()
    g = arm.geometries
    assert inspector.collision_filtered(g["link1::collision"], g["link3::collision"])
    assert inspector.collision_filtered(g["base::base_box"], g["tool::knob"])
    assert not inspector.collision_filtered(g["base::base_box"], g["link3::collision"])
    plain = load_urdf(URDF, package_roots=ROOTS)
    assert not plain.scene_graph.model_inspector().collision_filtered(
        plain.geometries["link1::collision"], plain.geometries["link3::collision"])


def test_group_state_is_a_named_pose(tmp_path):
    arm = load_any(URDF, package_roots=ROOTS, srdf=write(tmp_path, SRDF))
    assert list(arm.named_poses) == ["folded"]
    reference = load_urdf(URDF, package_roots=ROOTS)
    reference.set_joint_positions({"elbow": 2.9, "shoulder": 0.5})
    arm.apply_named_pose("folded")
    for link, frame in arm.frames.items():
        np.testing.assert_allclose(
            arm.scene_graph.query_object().get_pose_in_world(frame).get_as_matrix4(),
            reference.scene_graph.query_object().get_pose_in_world(
                reference.frames[link]).get_as_matrix4(), atol=1e-15)
    # The filters of the SRDF hide what the plain robot reports at that pose.
    pairs = arm.scene_graph.query_object().compute_point_pair_penetration()
    names = {frozenset(arm.name_of(i).split("::")[0] for i in (p.id_A, p.id_B)) for p in pairs}
    assert frozenset(("link1", "link3")) not in names and frozenset(("base", "tool")) not in names


def test_srdf_text_as_moveit_publishes_it():
    arm = load_urdf(URDF, package_roots=ROOTS)
    apply_srdf(arm, textwrap.dedent(SRDF).strip(), text=True)
    assert "folded" in arm.named_poses


def test_unknown_links_and_joints_are_skipped_with_a_warning(tmp_path):
    path = write(tmp_path, """
        <robot name="tiny_arm">
          <disable_collisions link1="link1" link2="gripper" reason="Never"/>
          <group_state name="s" group="arm">
            <joint name="virtual" value="0 0 0 0 0 0 1"/>
            <joint name="elbow" value="4"/>
          </group_state>
        </robot>
        """)
    with pytest.warns(SceneFileWarning) as record:
        arm = load_urdf(URDF, package_roots=ROOTS, srdf=path)
    messages = [str(w.message) for w in record]
    assert messages == [
        f"{path}:2: <disable_collisions> names link 'gripper', which the robot does not have; "
        "skipped",
        f"{path}:4: group_state 's': joint 'virtual' is not a one-value actuated joint of the "
        "robot; skipped",
        f"{path}:3: group_state 's': position 4 of joint 'elbow' is outside its limits [-3, 3]; "
        "applied as written"]
    assert arm.warnings == messages
    arm.apply_named_pose("s")
    X_W3 = arm.scene_graph.query_object().get_pose_in_world(arm.frames["link3"])
    assert X_W3.translation()[0] == pytest.approx(0.2 * math.sin(4.0))


@pytest.mark.parametrize("body, message", [
    ("<robot>\n<group_state name='s'>\n<joint name='elbow' value='nan'/>\n</group_state>\n"
     "</robot>", r"arm.srdf:3: group_state 's': joint 'elbow' value must be a finite number, "
                 r"got 'nan'"),
    ("<robot>\n<disable_collisions link1='base'/>\n</robot>",
     r"arm.srdf:2: <disable_collisions> needs the attribute 'link2'"),
    ("<robot>\n<oops>\n</robot>", r"arm.srdf:3: XML syntax error"),
    ("<model/>", r"arm.srdf:1: the root element must be <robot>, got <model>"),
])
def test_bad_srdf_names_file_and_line(tmp_path, body, message):
    with pytest.raises(SceneFileError, match=message):
        load_urdf(URDF, package_roots=ROOTS, srdf=write(tmp_path, body))


def test_srdf_with_a_yaml_scene_is_refused(tmp_path):
    with pytest.raises(SceneFileError, match="an SRDF applies to URDF files only"):
        load_any(DATA / "scene.yaml", srdf=write(tmp_path, SRDF))
