"""The compiled kernels are built and loaded, and the pure-Python fallback still answers.

``geometry_core._native`` must be present and in use wherever the
tests run (pip's editable install, colcon's install space): a build that
silently failed would otherwise pass every test, slowly, in pure Python. Set
``GEOMETRY_CORE_NATIVE=0`` to test the fallback on purpose (a machine without
a C compiler or Python's headers); these tests then check that it is in use.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import geometry_core
from geometry_core import tolerances
from geometry_core.proximity import native

ROOT = Path(__file__).resolve().parents[2]
OPTED_OUT = os.environ.get("GEOMETRY_CORE_NATIVE") == "0"
HOW_TO_BUILD = ("build them (pip install -e ., or colcon build) or set GEOMETRY_CORE_NATIVE=0 "
                "to test the pure-Python fallback")

#: Runs in a fresh interpreter: a small scene whose answers are exact in binary
#: (radii, offsets and depths are multiples of 1/4), printed as JSON.
PENETRATION_SCRIPT = """
import json
import geometry_core
from geometry_core import (SceneGraph, GeometryFrame, GeometryInstance, Sphere, Box,
                           RigidTransform, ProximityProperties)
from geometry_core.proximity import native

sg = SceneGraph()
src = sg.register_source("native_build")
link = sg.register_frame(src, GeometryFrame("link"))
ball = sg.register_geometry(src, link, GeometryInstance(RigidTransform(), Sphere(0.5), "ball"))
box = sg.register_anchored_geometry(src, GeometryInstance(
    RigidTransform([0.75, 0.0, 0.0]), Box(1.0, 1.0, 1.0), "box"))
other = sg.register_anchored_geometry(src, GeometryInstance(
    RigidTransform([-0.75, 0.0, 0.0]), Sphere(0.5), "other_ball"))
for g in (ball, box, other):
    sg.assign_role(src, g, ProximityProperties())
sg.set_poses(src, {link: RigidTransform()})
q = sg.query_object()
name = q.inspector().get_name
pairs = [{"A": name(p.id_A), "B": name(p.id_B), "depth": float(p.depth),
          "p_WCa": [float(x) for x in p.p_WCa], "p_WCb": [float(x) for x in p.p_WCb],
          "nhat_BA_W": [float(x) for x in p.nhat_BA_W]}
         for p in q.compute_point_pair_penetration()]
print(json.dumps({"available": native.AVAILABLE, "reason": native.REASON,
                  "package": geometry_core.__file__, "pairs": pairs}))
"""


def _run_penetration(native_setting: str | None, cwd: Path) -> dict:
    """The scene's answers in a fresh interpreter with GEOMETRY_CORE_NATIVE set or unset.

    It imports the geometry_core this process imports (checkout, editable
    install or colcon's install space) and runs outside the checkout, so that
    ``python -c`` cannot pick up another copy from the working directory.
    """
    env = dict(os.environ)
    env.pop("GEOMETRY_CORE_NATIVE", None)
    if native_setting is not None:
        env["GEOMETRY_CORE_NATIVE"] = native_setting
    package_root = str(Path(geometry_core.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    result = subprocess.run([sys.executable, "-c", PENETRATION_SCRIPT], env=env,
                            cwd=cwd,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert Path(answer["package"]).resolve() == Path(geometry_core.__file__).resolve()
    return answer


def _compiled_module():
    """The compiled module, imported directly (GEOMETRY_CORE_NATIVE does not apply)."""
    try:
        return importlib.import_module("geometry_core._native")
    except ImportError as err:
        if OPTED_OUT:
            pytest.skip(f"GEOMETRY_CORE_NATIVE=0 and the kernels are not built ({err})")
        pytest.fail(f"geometry_core._native does not import ({err}): {HOW_TO_BUILD}")


def test_compiled_kernels_are_loaded():
    """The queries use the compiled kernels, unless GEOMETRY_CORE_NATIVE=0 says not to."""
    if OPTED_OUT:
        assert not native.AVAILABLE
        assert native.REASON.startswith("disabled by GEOMETRY_CORE_NATIVE=0")
        return
    assert native.AVAILABLE, f"{native.REASON}: {HOW_TO_BUILD}"
    assert native.REASON == "compiled kernels loaded"
    compiled = native._native
    # A real extension module, in the package whose layers import it.
    assert isinstance(compiled.__spec__.loader, importlib.machinery.ExtensionFileLoader)
    assert Path(compiled.__file__).parent == Path(geometry_core.__file__).parent
    assert compiled.__name__ == "geometry_core._native"
    for status in ("OK", "NOT_HANDLED", "UNCERTIFIED", "ERROR_HALFSPACES"):
        assert isinstance(getattr(compiled, status), int)


def test_native_off_falls_back_to_python_with_the_same_answers(tmp_path):
    """GEOMETRY_CORE_NATIVE=0: AVAILABLE is False with its reason, and the answers agree."""
    fallback = _run_penetration("0", tmp_path)
    assert fallback["available"] is False
    assert fallback["reason"].startswith("disabled by GEOMETRY_CORE_NATIVE=0")

    default = _run_penetration(None, tmp_path)
    if not OPTED_OUT:
        assert default["available"] is True, f"{default['reason']}: {HOW_TO_BUILD}"
        assert default["reason"] == "compiled kernels loaded"

    # Exactly representable answers: both paths must give them to the bit.
    expected = [
        {"A": "ball", "B": "box", "depth": 0.25, "p_WCa": [0.5, 0.0, 0.0],
         "p_WCb": [0.25, 0.0, 0.0], "nhat_BA_W": [-1.0, 0.0, 0.0]},
        {"A": "ball", "B": "other_ball", "depth": 0.25, "p_WCa": [-0.5, 0.0, 0.0],
         "p_WCb": [-0.25, 0.0, 0.0], "nhat_BA_W": [1.0, 0.0, 0.0]},
    ]
    assert fallback["pairs"] == default["pairs"]
    assert sorted(default["pairs"], key=lambda p: p["B"]) == expected


def test_compiled_tolerances_equal_tolerances_py():
    """_native.tolerances() has the values (and int/float types) of geometry_core/tolerances.py."""
    compiled = _compiled_module().tolerances()
    assert isinstance(compiled, dict) and compiled
    for name, value in compiled.items():
        assert hasattr(tolerances, name), f"{name} is compiled in but not in tolerances.py"
        expected = getattr(tolerances, name)
        assert type(value) is type(expected), (name, value, expected)
        assert value == expected, f"{name}: compiled {value!r}, tolerances.py {expected!r}"


def test_every_tolerance_of_the_c_header_is_reported():
    """Each GC_* tolerance that csrc/gc_tolerances.h defines is in _native.tolerances().

    Otherwise a tolerance added to the header but not to the module's table
    would escape the comparison above.
    """
    header = ROOT / "csrc" / "gc_tolerances.h"
    if not header.is_file():
        pytest.skip("no csrc/ next to the tests")
    defined = set(re.findall(r"^#define GC_(\w+) ", header.read_text(), re.MULTILINE))
    defined.discard("EPS")  # machine epsilon, a constant of double, not a tuned tolerance
    assert defined, "no tolerance found in csrc/gc_tolerances.h"
    assert defined == set(_compiled_module().tolerances())
