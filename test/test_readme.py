"""The README's Python examples run as written and say what the README says."""

import contextlib
import io
import pathlib
import re

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
