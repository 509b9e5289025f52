"""ROS command lines, parameter files and parameter precedence, and the backend factory."""

from __future__ import annotations

import textwrap

import pytest

from geometry_core_nodes.transport import ParameterError, create_node
from geometry_core_nodes.transport.params import (
    ParameterStore,
    node_pattern_matches,
    parse_ros_args,
)


@pytest.fixture
def params_file(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            /**:
              ros__parameters:
                rate_hz: 10.0
                world_frame: map
                shared: from_wildcard
            clearance_node:
              ros__parameters:
                max_distance: 0.25
                shared: from_node_block
                limits:
                  depth: 0.01
                frames: [base, tool]
            /robot/ns_node:
              ros__parameters:
                rate_hz: 5
            """
        )
    )
    return path


def _store(args, fqn="/clearance_node"):
    return ParameterStore(fqn, parse_ros_args(args).parameters)


def test_file_values_and_defaults(params_file):
    store = _store(["--ros-args", "--params-file", str(params_file)])
    assert store.declare("rate_hz", 30.0, "publish rate") == 10.0
    assert store.declare("max_distance", 0.1) == 0.25
    assert store.declare("limits.depth", 0.0) == 0.01
    assert store.declare("frames", ["a"]) == ["base", "tool"]
    assert store.declare("untouched", 7, "not in any file") == 7
    assert store.describe()["rate_hz"] == (10.0, "publish rate", str(params_file))
    assert store.describe()["untouched"][2] == "default"


def test_node_block_beats_wildcard_in_either_order(params_file):
    store = _store(["--ros-args", "--params-file", str(params_file)])
    assert store.declare("shared", "default") == "from_node_block"


def test_cli_overrides_file_with_ros_precedence(params_file):
    args = [
        "--ros-args",
        "--params-file",
        str(params_file),
        "-p",
        "rate_hz:=20.0",
        "-p",
        "max_distance:=0.5",
        "-p",
        "clearance_node:shared:=from_cli_for_node",
    ]
    store = _store(args)
    # A plain -p is a wildcard assignment: it overrides the /** block...
    assert store.declare("rate_hz", 1.0) == 20.0
    # ...but, as in rcl, not a block naming the node;
    assert store.declare("max_distance", 0.1) == 0.25
    # -p node:name:= does.
    assert store.declare("shared", "default") == "from_cli_for_node"


def test_later_assignment_wins_within_a_group():
    store = _store(["--ros-args", "-p", "x:=1", "--", "user_arg", "--ros-args", "-p", "x:=2"])
    assert store.declare("x", 0) == 2


def test_namespaced_node_and_int_for_float(params_file):
    store = _store(["--ros-args", "--params-file", str(params_file)], fqn="/robot/ns_node")
    value = store.declare("rate_hz", 30.0)
    assert value == 5.0 and isinstance(value, float)


def test_cli_values_are_yaml():
    store = _store(
        ["--ros-args", "-p", "flag:=true", "-p", "names:=[a, b]", "-p", "n:=3", "-p", "s:='3'"]
    )
    assert store.declare("flag", False) is True
    assert store.declare("names", ["x"]) == ["a", "b"]
    assert store.declare("n", 0) == 3
    assert store.declare("s", "") == "3"


@pytest.mark.parametrize(
    ("args", "default", "match"),
    [
        (
            ["-p", "x:=abc"],
            1.0,
            r"parameter 'x': expected float but got 'abc' \(str, from -p x:=abc\)",
        ),
        (["-p", "x:=1.5"], 1, r"parameter 'x': expected int but got 1.5"),
        (["-p", "x:=1"], True, r"parameter 'x': expected bool but got 1"),
        (["-p", "x:=true"], 1, r"parameter 'x': expected int but got True"),
        (["-p", "x:=[1, a]"], [1], r"parameter 'x': expected int but got 'a'"),
        (["-p", "x:=3"], ["a"], r"parameter 'x': expected a list but got 3"),
    ],
)
def test_bad_values_name_parameter_value_and_source(args, default, match):
    store = _store(["--ros-args", *args])
    with pytest.raises(ParameterError, match=match):
        store.declare("x", default)


def test_bad_file_value_names_the_file(params_file):
    store = _store(["--ros-args", "--params-file", str(params_file)])
    with pytest.raises(ParameterError, match=f"expected int but got 'map'.*{params_file.name}"):
        store.declare("world_frame", 0)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--ros-args", "--bogus"], "unknown ROS argument '--bogus'"),
        (["--ros-args", "-p"], "ROS argument -p needs a value"),
        (["--ros-args", "-p", "novalue"], "expected name:=value"),
        (["--ros-args", "-p", "bad name:=1"], "invalid parameter name 'bad name'"),
        (["--ros-args", "-r", "a"], "expected from:=to"),
        (["--ros-args", "--log-level", "chatty"], "expected one of debug"),
        (["--ros-args", "--params-file", "/nonexistent/p.yaml"], "cannot read parameter file"),
    ],
)
def test_bad_command_lines(args, match):
    with pytest.raises(ParameterError, match=match):
        parse_ros_args(args)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[1, 2]", "expected a mapping of node names"),
        ("node:\n  ros__parameters: 3\n", "'ros__parameters' must be a mapping"),
        ("node:\n  rate: 3\n", "expected a node name mapping with 'ros__parameters'"),
        ("node: {ros__parameters: {a: [}", "is not valid YAML"),
    ],
)
def test_bad_params_files(tmp_path, text, match):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ParameterError, match=match):
        parse_ros_args(["--ros-args", "--params-file", str(path)])


def test_declare_errors():
    store = _store([])
    store.declare("a", 1)
    with pytest.raises(ParameterError, match="parameter 'a' is already declared"):
        store.declare("a", 2)
    with pytest.raises(ParameterError, match="invalid parameter name '1a'"):
        store.declare("1a", 2)
    with pytest.raises(ParameterError, match="is not a bool, int, float, str or list"):
        store.declare("d", {"k": 1})
    with pytest.raises(KeyError, match="parameter 'zzz' is not declared"):
        store.get("zzz")


def test_undeclared_overrides_are_reported():
    store = _store(["--ros-args", "-p", "typo_rate:=3", "-p", "rate:=2"])
    store.declare("rate", 1)
    assert [a.name for a in store.undeclared_overrides()] == ["typo_rate"]


def test_remaps_node_name_namespace_and_log_level():
    ros_args = parse_ros_args(
        [
            "prog",
            "--ros-args",
            "-r",
            "__node:=renamed",
            "-r",
            "__ns:=/robot",
            "-r",
            "penetrations:=/safety/penetrations",
            "-r",
            "other_node:x:=y",
            "--log-level",
            "WARN",
            "--enable-stdout-logs",
            "--",
            "--user-flag",
        ]
    )
    assert ros_args.node_name == "renamed" and ros_args.namespace == "/robot"
    assert [(r.node, r.source, r.target) for r in ros_args.remaps] == [
        (None, "penetrations", "/safety/penetrations"),
        ("other_node", "x", "y"),
    ]
    assert ros_args.log_level == "warn"
    assert ros_args.unparsed == ("prog", "--user-flag")


@pytest.mark.parametrize(
    ("pattern", "fqn", "matches"),
    [
        ("/**", "/a", True),
        ("/**", "/ns/deep/a", True),
        ("a", "/a", True),
        ("/a", "/ns/a", False),
        ("/ns/*", "/ns/a", True),
        ("/ns/*", "/ns/deep/a", False),
        ("/**/a", "/ns/deep/a", True),
        ("/**/a", "/a", True),
    ],
)
def test_node_patterns(pattern, fqn, matches):
    assert node_pattern_matches(pattern, fqn) is matches


def test_unknown_backend_is_an_error(monkeypatch):
    with pytest.raises(ValueError, match="unknown transport backend 'zenoh'; expected one of"):
        create_node("n", args=[], backend="zenoh")
    monkeypatch.setenv("GEOMETRY_CORE_TRANSPORT", "fastdds")
    with pytest.raises(ValueError, match="'fastdds' in GEOMETRY_CORE_TRANSPORT"):
        create_node("n", args=[])


def test_rclpy_backend_without_rclpy_is_an_import_error():
    pytest.importorskip("cyclonedds")
    try:
        import rclpy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="rclpy"):
            create_node("n", args=[], backend="rclpy")
    else:
        pytest.skip("rclpy is installed here")
