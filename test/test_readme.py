"""The README's examples (and the command lines of docs/cli.md) run as written."""

import contextlib
import io
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CLI_DOC = ROOT / "docs" / "cli.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def marked_block(name: str) -> str:
    """The fenced block between ``<!-- name:start -->`` and ``<!-- name:end -->``."""
    section = re.search(f"<!-- {name}:start -->(.*?)<!-- {name}:end -->", README.read_text(),
                        re.S)
    assert section, f"README has no {name} section"
    (block,) = re.findall(r"```bash\n(.*?)```", section[1], re.S)
    return block


def test_quick_start_runs_and_finds_the_penetration():
    quick_start = python_blocks()[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(quick_start, "README quick start", "exec"), {})
    first = out.getvalue().splitlines()[0].split()
    assert first[:2] == ["link1_box", "floor"]
    assert float(first[2]) == pytest.approx(0.05)


def test_configuration_space_example_runs_on_the_example_obstacles(monkeypatch):
    from geometry_core.scene_files import example_robot_data_share

    if example_robot_data_share() is None:
        pytest.skip("example-robot-data is not installed (it is in the test extra)")
    (example,) = [b for b in python_blocks() if "CollisionChecker" in b]
    assert "config/obstacles.yaml" in example and (ROOT / "config" / "obstacles.yaml").is_file()
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README configuration space", "exec"), {})
    free, rows = out.getvalue().splitlines()
    assert free == "True"
    size, closest = rows.split()
    assert int(size) > 0 and 0.0 < float(closest) < 0.3


def test_live_world_example_runs_after_the_configuration_space_example(monkeypatch):
    from geometry_core.scene_files import example_robot_data_share

    if example_robot_data_share() is None:
        pytest.skip("example-robot-data is not installed (it is in the test extra)")
    (example,) = [b for b in python_blocks() if "CollisionChecker" in b]
    (live,) = [b for b in python_blocks() if "add_collision_shape_to_body" in b]
    monkeypatch.chdir(ROOT)
    namespace = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README configuration space", "exec"), namespace)
        exec(compile(live, "README live world", "exec"), namespace)
    kept, self_filtered, free = out.getvalue().splitlines()[2].split()
    assert int(kept) + int(self_filtered) == 1000 and free in ("True", "False")
    checker = namespace["checker"]
    assert set(checker.get_all_added_collision_shapes()) == {"shelf"}, "the part was detached"
    checker.remove_all_added_collision_shapes()
    assert checker.check_config_collision_free(namespace["q"]), "the world as before"


def test_two_commands_exist_and_are_executable():
    text = README.read_text()
    root = README.parent
    for command in ("scripts/demo", "scripts/test"):
        assert command in text
        assert (root / command).stat().st_mode & 0o111


def test_ci_runs_the_readme_test_command():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "scripts/test" in ci


def _run_cli(*args):
    # Safe-path mode: the geometry_core this test imports, not the source tree's.
    return subprocess.run([sys.executable, "-m", "geometry_core.cli", *args],
                          capture_output=True, text=True, cwd=README.parent, timeout=120,
                          env={**os.environ, "PYTHONSAFEPATH": "1"})


def test_yaml_example_loads_as_written(tmp_path):
    (example,) = re.findall(r"```yaml\n(.*?)```", CLI_DOC.read_text(), re.S)
    path = tmp_path / "scene.yaml"
    path.write_text(example)
    result = _run_cli("check", str(path), "--pose", "home", "--format", "json")
    assert result.returncode in (0, 1), result.stderr  # 2 would be a bad scene
    report = json.loads(result.stdout)
    assert report["frames"] == 2 and report["geometries"] == 3


def test_check_commands_run_as_written():
    from geometry_core.scene_files import example_robot_data_share

    commands = [command for doc in (README, CLI_DOC) for command in re.findall(
        r"^geometry-core (check [^\n#]*?)\s*(?:#.*)?$", doc.read_text(), re.M)]
    assert len(commands) >= 4
    for command in commands:
        words = shlex.split(command)
        if any(re.fullmatch(r"[A-Z][A-Z_]+", w) for w in words):
            continue  # a placeholder line (URDF, SRDF, NAME): nothing to run
        if "--robot" in words and example_robot_data_share() is None:
            continue
        result = _run_cli(*words)
        assert result.returncode in (0, 1), (command, result.stderr)
        assert result.stdout, command


def test_ros2_recipe_is_what_ci_runs():
    build, run = marked_block("ros2-build"), marked_block("ros2-run")
    assert "--system-site-packages" in build and "constraints.txt" in build
    assert "-DPYTHON_EXECUTABLE=/usr/bin/python3" in build
    assert "requirements-ros.txt" in build and (ROOT / "requirements-ros.txt").is_file()
    assert "demo:=true" in run and "colcon test" in run
    ci = (ROOT / ".ci" / "run").read_text()
    for name in ("ros2-build", "ros2-run"):
        assert f"readme_block {name}" in ci, name


@pytest.mark.parametrize("script", ["scripts/demo", "scripts/test"])
def test_scripts_fail_loudly_when_the_environment_cannot_be_made(tmp_path, script):
    blocker = tmp_path / "a_file"
    blocker.write_text("")  # so python3 -m venv cannot make a directory under it
    env = {**os.environ, "GEOMETRY_CORE_VENV": str(blocker / "venv")}
    result = subprocess.run([str(README.parent / script)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 1
    assert f"error: 'python3 -m venv {blocker / 'venv'}' failed" in result.stderr
    assert "python3-venv" in result.stderr
