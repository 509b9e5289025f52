"""The README's Python examples run as written and say what the README says."""

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

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_quick_start_runs_and_finds_the_penetration():
    quick_start = python_blocks()[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(quick_start, "README quick start", "exec"), {})
    first = out.getvalue().splitlines()[0].split()
    assert first[:2] == ["link1_box", "floor"]
    assert float(first[2]) == pytest.approx(0.05)


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
    return subprocess.run([sys.executable, "-m", "geometry_core.cli", *args],
                          capture_output=True, text=True, cwd=README.parent, timeout=120)


def test_yaml_example_loads_as_written(tmp_path):
    (example,) = re.findall(r"```yaml\n(.*?)```", README.read_text(), re.S)
    path = tmp_path / "scene.yaml"
    path.write_text(example)
    result = _run_cli("check", str(path), "--pose", "home", "--format", "json")
    assert result.returncode in (0, 1), result.stderr  # 2 would be a bad scene
    report = json.loads(result.stdout)
    assert report["frames"] == 2 and report["geometries"] == 3


def test_check_commands_run_as_written():
    commands = re.findall(r"^geometry-core (check [^\n#]*?)\s*$", README.read_text(), re.M)
    assert len(commands) >= 2
    for command in commands:
        result = _run_cli(*shlex.split(command))
        assert result.returncode in (0, 1), (command, result.stderr)
        assert result.stdout, command


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
