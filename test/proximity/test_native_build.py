"""The compiled kernels are built, loaded and the only implementation; without them, a clear error.

``geometry_core._native`` must be present and in use wherever the tests run
(pip's editable install, colcon's install space). There is no pure-Python
copy to fall back on: a source tree whose extension was not built fails at
import with an ImportError that says how to build it.
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

#: Runs in a fresh interpreter: a small scene whose answers are exact in binary
#: (radii, offsets and depths are multiples of 1/4), printed as JSON.
PENETRATION_SCRIPT = """
import json
import geometry_core
from geometry_core import (SceneGraph, GeometryFrame, GeometryInstance, Sphere, Box,
                           RigidTransform, ProximityProperties)

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
print(json.dumps({"package": geometry_core.__file__, "pairs": pairs}))
"""

#: Imports geometry_core with its extension made unimportable (as in a source
#: tree that pip never built) and prints the error.
MISSING_SCRIPT = """
import sys
sys.modules["geometry_core._native"] = None  # import of it raises ImportError
try:
    import geometry_core.proximity.engine
except ImportError as err:
    print(err)
else:
    print("imported")
"""


def _run(script: str, cwd: Path) -> str:
    """Run ``script`` in a fresh interpreter that imports this process's geometry_core.

    It runs outside the checkout, so that ``python -c`` cannot pick up another
    copy from the working directory.
    """
    env = dict(os.environ)
    package_root = str(Path(geometry_core.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    result = subprocess.run([sys.executable, "-c", script], env=env, cwd=cwd,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _compiled_module():
    return importlib.import_module("geometry_core._native")


def test_compiled_kernels_are_loaded():
    """The layers use the compiled extension of the package they belong to."""
    compiled = native._native
    # A real extension module, in the package whose layers import it.
    assert isinstance(compiled.__spec__.loader, importlib.machinery.ExtensionFileLoader)
    assert Path(compiled.__file__).parent == Path(geometry_core.__file__).parent
    assert compiled.__name__ == "geometry_core._native"
    for status in ("OK", "NOT_HANDLED", "UNCERTIFIED", "ERROR_HALFSPACES", "SEARCHED"):
        assert getattr(compiled, status) == getattr(native, status)


def test_a_missing_extension_is_an_import_error_that_says_how_to_build(tmp_path):
    message = _run(MISSING_SCRIPT, tmp_path)
    assert "compiled kernels (geometry_core._native) are not built" in message
    assert "pip install ." in message and "python3-dev" in message


def test_queries_answer_exactly_in_a_fresh_interpreter(tmp_path):
    """A scene whose answers are exact in binary, answered to the bit."""
    answer = json.loads(_run(PENETRATION_SCRIPT, tmp_path))
    assert Path(answer["package"]).resolve() == Path(geometry_core.__file__).resolve()
    expected = [
        {"A": "ball", "B": "box", "depth": 0.25, "p_WCa": [0.5, 0.0, 0.0],
         "p_WCb": [0.25, 0.0, 0.0], "nhat_BA_W": [-1.0, 0.0, 0.0]},
        {"A": "ball", "B": "other_ball", "depth": 0.25, "p_WCa": [-0.5, 0.0, 0.0],
         "p_WCb": [-0.25, 0.0, 0.0], "nhat_BA_W": [1.0, 0.0, 0.0]},
    ]
    assert sorted(answer["pairs"], key=lambda p: p["B"]) == expected


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
