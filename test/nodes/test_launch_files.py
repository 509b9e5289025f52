"""The launch files: arguments read without ROS, and loaded by launch_ros where present."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

LAUNCH = Path(__file__).resolve().parents[2] / "launch"
FILES = ("scene_graph.launch.py", "scene_graph_with_lcm_bridge.launch.py")


def _declared(path: Path) -> set[str]:
    """Names of DeclareLaunchArgument calls and of the argument tables the file loops over."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "DeclareLaunchArgument":
            if isinstance(node.args[0], ast.Constant):
                names.add(node.args[0].value)
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id.endswith("_ARGUMENTS"):
            names |= {entry.elts[0].value for entry in node.value.elts}
    return names


def test_launch_files_declare_scene_rate_topic_and_lcm_arguments():
    scene = _declared(LAUNCH / FILES[0])
    assert {"params_file", "namespace", "scene_file", "world_frame", "max_distance", "rate_hz",
            "penetration_topic", "clearance_topic", "markers_topic", "demo"} <= scene
    bridge = _declared(LAUNCH / FILES[1])
    assert {"params_file", "lcm_url", "role", "publish_period", "scene_file"} <= bridge


def test_parameters_of_the_nodes_match_the_launch_arguments():
    # Every launch argument passed as a parameter must be a parameter the nodes declare.
    sources = "".join((Path(__file__).resolve().parents[2] / "nodes" / name).read_text()
                      for name in ("scene_inputs.py", "scene_graph_node.py", "lcm_bridge_node.py"))
    for file in FILES:
        # demo is the launch file's own: it picks the scene and starts demo_motion_node.
        for name in _declared(LAUNCH / file) - {"params_file", "namespace", "demo"}:
            assert f'"{name}"' in sources, (file, name)


@pytest.mark.parametrize("file", FILES)
def test_launch_description_loads(file):
    pytest.importorskip("launch_ros", reason="launch_ros comes with a ROS 2 installation")
    spec = importlib.util.spec_from_file_location(file.split(".")[0], LAUNCH / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    description = module.generate_launch_description()
    assert {a.name for a in description.get_launch_arguments()} >= {"params_file", "scene_file"}


def test_a_launch_argument_that_does_not_convert_is_named():
    from geometry_core_nodes.launch_support import LaunchArgumentError, convert_argument

    assert convert_argument("max_distance", float, "0.05") == 0.05
    with pytest.raises(LaunchArgumentError,
                       match=r"launch argument 'max_distance:=abc': expected a number"):
        convert_argument("max_distance", float, "abc")


def test_the_demo_flag_takes_true_or_false_and_names_anything_else():
    from geometry_core_nodes.launch_support import LaunchArgumentError, convert_argument, parse_flag

    assert [convert_argument("demo", parse_flag, text)
            for text in ("true", "True", "1", "false", "0")] == [True, True, True, False, False]
    with pytest.raises(LaunchArgumentError,
                       match=r"launch argument 'demo:=yes please': expected true or false"):
        convert_argument("demo", parse_flag, "yes please")
