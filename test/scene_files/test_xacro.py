"""xacro robots load as their expansion by ROS's own xacro would.

The reference expansion is the ``xacro`` command line (the PyPI package's
console script, run as a separate process): the library's expansion goes
through the same package, but our ``$(find)`` and mesh resolution, the
warnings and the loader are what is under test.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import trimesh

from geometry_core.cli import main
from geometry_core.scene_files import SceneFileError, load_any, load_urdf
from geometry_core.scene_files.errors import SceneFileWarning
from geometry_core.scene_files.xacro_files import expand_xacro, find_package

XACRO = shutil.which("xacro", path=os.path.dirname(sys.executable)) or shutil.which("xacro")

ARM = """\
<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:arg name="reach" default="0.5"/>
  <xacro:include filename="$(find arm_parts)/urdf/link.xacro"/>
  <xacro:property name="reach" value="$(arg reach)"/>
  <xacro:part name="base" length="0.2"/>
  <xacro:part name="upper" length="${reach}"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0 0 0.2"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="1"/>
  </joint>
</robot>
"""

PART = """\
<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="part" params="name length">
    <link name="${name}">
      <visual>
        <geometry><mesh filename="package://arm_parts/meshes/block.stl"/></geometry>
      </visual>
      <collision>
        <origin xyz="0 0 ${length / 2}"/>
        <geometry><box size="0.1 0.1 ${length}"/></geometry>
      </collision>
      <collision>
        <geometry><mesh filename="package://arm_parts/meshes/block.stl"/></geometry>
      </collision>
    </link>
  </xacro:macro>
</robot>
"""

PACKAGE_XML = """\
<?xml version="1.0"?>
<package format="3">
  <name>{name}</name>
  <version>1.0.0</version>
  <description>parts</description>
  <maintainer email="someone@example.com">someone</maintainer>
  <license>BSD</license>
</package>
"""


def workspace(tmp_path: pathlib.Path, parts_folder="arm_parts_src") -> pathlib.Path:
    """robot/urdf/arm.urdf.xacro, and the package arm_parts in a folder of another name."""
    parts = tmp_path / "src" / parts_folder
    (parts / "urdf").mkdir(parents=True)
    (parts / "meshes").mkdir()
    (parts / "package.xml").write_text(PACKAGE_XML.format(name="arm_parts"))
    (parts / "urdf" / "link.xacro").write_text(PART)
    block = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    (parts / "meshes" / "block.stl").write_bytes(block.export(file_type="stl"))
    arm = tmp_path / "src" / "robot" / "urdf" / "arm.urdf.xacro"
    arm.parent.mkdir(parents=True)
    arm.write_text(ARM)
    return arm


@pytest.fixture
def clean_environment(monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)


def reference_expansion(xacro_file: pathlib.Path, out: pathlib.Path, *args: str,
                        finds: dict[str, pathlib.Path]) -> pathlib.Path:
    """``xacro FILE ARGS -o OUT`` in its own process.

    Its ``$(find PKG)`` would need ament_index_python (ROS, not on PyPI), so
    the reference reads a copy of the file with each ``$(find PKG)`` written
    out as the package's folder.
    """
    if XACRO is None:
        pytest.fail("the xacro command (PyPI xacro, a dependency) is not installed")
    text = xacro_file.read_text()
    for package, folder in finds.items():
        text = text.replace(f"$(find {package})", str(folder))
    copy = xacro_file.with_name("reference_" + xacro_file.name)
    copy.write_text(text)
    done = subprocess.run([XACRO, str(copy), *args, "-o", str(out)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return out


def test_xacro_robot_loads_with_find_args_and_package_meshes(tmp_path, clean_environment):
    arm = workspace(tmp_path)
    scene = load_urdf(arm, package_roots={"arm_parts": tmp_path / "src" / "arm_parts_src"},
                      xacro_args={"reach": "0.75"})
    inspector = scene.scene_graph.model_inspector()
    assert sorted(scene.frames) == ["base", "upper"]
    assert list(scene.source_ids) == ["arm"]
    box = inspector.get_shape(scene.geometries["upper::collision"])
    np.testing.assert_allclose(box.size(), [0.1, 0.1, 0.75])
    hull = inspector.get_shape(scene.geometries["upper::collision_1"])
    np.testing.assert_allclose(hull.local_aabb()[1], [0.05, 0.05, 0.05], atol=1e-9)
    assert scene.kinematics.joint("shoulder").upper == 1.5
    import xacro

    assert xacro.all_includes == [] and xacro.filestack == [None]  # nothing kept per load


def test_find_uses_package_xml_beside_the_file_when_no_root_is_given(
        tmp_path, clean_environment):
    """``$(find arm_parts)``: the folder whose package.xml is named arm_parts, in an ancestor."""
    arm = workspace(tmp_path)
    assert find_package("arm_parts", arm.parent) is None  # not an ancestor of robot/urdf
    sibling = tmp_path / "src" / "robot"
    (sibling / "package.xml").write_text(PACKAGE_XML.format(name="arm_parts"))
    assert find_package("arm_parts", arm.parent) == sibling
    assert find_package("robot", arm.parent) == sibling  # a folder named robot
    assert find_package("other", arm.parent) is None


def test_find_uses_ros_package_path(tmp_path, monkeypatch, clean_environment):
    arm = workspace(tmp_path, parts_folder="arm_parts")
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "src"))
    scene = load_urdf(arm)
    assert sorted(scene.frames) == ["base", "upper"]


def test_same_check_report_as_xacro_commands_expansion(tmp_path, clean_environment, capsys):
    arm = workspace(tmp_path)
    parts = tmp_path / "src" / "arm_parts_src"
    expanded = reference_expansion(arm, tmp_path / "src" / "robot" / "urdf" / "arm.urdf",
                                   "reach:=0.3", finds={"arm_parts": parts})
    common = ["--max-distance", "0.2", "--joint", "shoulder=0.4",
              "--package-root", f"arm_parts={parts}"]
    assert main(["check", str(expanded), *common]) == 0
    from_urdf = capsys.readouterr()
    assert main(["check", str(arm), "--xacro-arg", "reach:=0.3", *common]) == 0
    from_xacro = capsys.readouterr()
    assert "clearances within 0.2 m: " in from_urdf.out
    assert from_xacro.out == from_urdf.out.replace(str(expanded), str(arm))
    assert from_xacro.err == from_urdf.err == ""
    assert main(["check", str(arm), "--format", "json", *common]) == 0
    assert json.loads(capsys.readouterr().out)["scene"] == str(arm)


def test_missing_package_is_named_and_exits_2(tmp_path, clean_environment, capsys):
    arm = workspace(tmp_path)
    with pytest.raises(SceneFileError, match=r"arm.urdf.xacro: \$\(find arm_parts\): ROS "
                                             r"package 'arm_parts' was not found"):
        load_urdf(arm)
    assert main(["check", str(arm)]) == 2
    err = capsys.readouterr().err
    assert "ROS package 'arm_parts' was not found" in err
    assert "--package-root arm_parts=DIR" in err
    with pytest.raises(SystemExit) as exited:
        main(["check", str(arm), "--xacro-arg", "reach=1"])
    assert exited.value.code == 2
    assert "--xacro-arg: expected NAME:=VALUE, got 'reach=1'" in capsys.readouterr().err


def test_find_in_an_included_file_names_that_file(tmp_path, clean_environment):
    arm = workspace(tmp_path)
    part = tmp_path / "src" / "arm_parts_src" / "urdf" / "link.xacro"
    part.write_text(PART.replace('<xacro:macro name="part"',
                                 '<xacro:include filename="$(find gone_pkg)/x.xacro"/>\n'
                                 '  <xacro:macro name="part"'))
    with pytest.raises(SceneFileError, match=r"\$\(find gone_pkg\) \(asked for in .*link.xacro"
                                             r"\): ROS package 'gone_pkg' was not found"):
        load_urdf(arm, package_roots={"arm_parts": part.parent.parent})


def test_xacro_errors_name_the_file(tmp_path, clean_environment):
    arm = workspace(tmp_path)
    roots = {"arm_parts": tmp_path / "src" / "arm_parts_src"}
    broken = arm.with_name("broken.urdf.xacro")
    broken.write_text(ARM.replace("${reach}", "${nowhere}"))
    with pytest.raises(SceneFileError, match=r"broken.urdf.xacro: xacro could not expand the "
                                             r"file: .*nowhere"):
        load_urdf(broken, package_roots=roots)
    missing = arm.with_name("missing.urdf.xacro")
    missing.write_text(ARM.replace("urdf/link.xacro", "urdf/absent.xacro"))
    with pytest.raises(SceneFileError, match=r"missing.urdf.xacro: xacro could not expand the "
                                             r"file: No such file or directory: .*absent.xacro"):
        load_urdf(missing, package_roots=roots)
    with pytest.raises(SceneFileError, match=r"xacro arguments apply to .xacro files only"):
        load_any(tmp_path / "x.urdf", xacro_args={"a": "b"})


def test_urdf_errors_of_an_expansion_name_its_line(tmp_path, clean_environment):
    """Lines are those of ``xacro FILE``'s output: the expansion is its pretty-printed XML."""
    arm = workspace(tmp_path)
    roots = {"arm_parts": tmp_path / "src" / "arm_parts_src"}
    with pytest.raises(SceneFileError) as raised:
        load_urdf(arm, package_roots=roots, xacro_args={"reach": "-1"})
    error = raised.value
    assert error.path == f"{arm} (expanded by xacro)"
    assert "link 'upper', collision #1: <box> size must have 3 positive numbers" in str(error)
    text = expand_xacro(arm, mappings={"reach": "-1"}, package_roots=roots)
    assert 'size="0.1 0.1 -1"' in text.splitlines()[error.line - 1]


def test_xacro_warnings_become_scene_file_warnings(tmp_path, clean_environment):
    arm = workspace(tmp_path)
    arm.write_text(ARM.replace('urdf/link.xacro"/>', 'urdf/link.xacro"><child/></xacro:include>'))
    with pytest.warns(SceneFileWarning, match=r"arm.urdf.xacro: xacro: warning: Child elements "
                                              r"of a <xacro:include> tag are ignored"):
        load_urdf(arm, package_roots={"arm_parts": tmp_path / "src" / "arm_parts_src"})


def test_macro_only_file_is_refused_with_a_hint(tmp_path):
    part = tmp_path / "link.xacro"
    part.write_text(PART)
    with pytest.warns(SceneFileWarning, match=r"link.xacro \(expanded by xacro\):6: <robot> has "
                                              r"no 'name' attribute"), \
            pytest.raises(SceneFileError, match=r"the robot has no <link>, as urdfdom refuses "
                                                r"too \(a xacro file that only defines macros"):
        load_urdf(part)


def write(tmp_path, body):
    path = tmp_path / "robot.urdf"
    path.write_text(textwrap.dedent(body).lstrip("\n"))
    return path


@pytest.mark.parametrize("line, message", [
    ('<collision><geometry><box size="${w} 1 1"/></geometry></collision>',
     r"robot.urdf:3: unexpanded xacro substitution '\$\{w\} 1 1' in <box> size; expand it with "
     r"xacro first \(xacro FILE > robot.urdf\), or load the .xacro file itself"),
    ('<visual><geometry><mesh filename="$(find arm)/m.stl"/></geometry></visual>',
     r"robot.urdf:3: unexpanded xacro substitution '\$\(find arm\)/m.stl' in <mesh> filename"),
    ('<xacro:part name="x"/>', r"robot.urdf:3: <xacro:part> is a xacro macro, not URDF; expand"),
])
def test_unexpanded_xacro_in_a_urdf_is_refused_with_its_line(tmp_path, line, message):
    path = write(tmp_path, f"""
        <robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
          <link name="a">
            {line}
          </link>
        </robot>
        """)
    with pytest.raises(SceneFileError, match=message):
        load_urdf(path)


def test_collision_checker_and_node_scene_file_take_xacro(tmp_path, clean_environment):
    from geometry_core import CollisionChecker

    arm = workspace(tmp_path)
    parts = tmp_path / "src" / "arm_parts_src"
    checker = CollisionChecker.from_urdf(arm, package_roots={"arm_parts": parts},
                                         xacro_args={"reach": "0.6"})
    assert checker.check_config_collision_free(np.zeros(1))
    scene = load_any(arm, package_roots={"arm_parts": parts})
    assert len(scene.frames) == 2
