"""The compiled kernels are built, loaded and the only implementation; without them, a clear error.

``geometry_core._native`` must be present and in use wherever the tests run
(pip's editable install, colcon's install space). There is no pure-Python
copy to fall back on: a source tree whose extension was not built fails at
import with an ImportError that says how to build it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import geometry_core
from geometry_core import native, tolerances
from geometry_core.proximity import specs

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
    """The layers use the compiled extension of the package they belong to, by one name."""
    compiled = native._native
    # A real extension module, in the package whose layers import it.
    assert isinstance(compiled.__spec__.loader, importlib.machinery.ExtensionFileLoader)
    assert Path(compiled.__file__).parent == Path(geometry_core.__file__).parent
    assert compiled.__name__ == "geometry_core._native"
    for status in ("OK", "NOT_HANDLED", "UNCERTIFIED", "ERROR_HALFSPACES", "SEARCHED"):
        assert getattr(compiled, status) == getattr(specs, status)
    # geometry_core.native is the extension's face: each of its names is the extension's.
    assert native.__all__ and all(getattr(native, name) is getattr(compiled, name)
                                  for name in native.__all__)
    assert {"Model", "Cloud", "kinematics", "rotation", "pair"} <= set(native.__all__)


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
    """_native.tolerances() has every value (and int/float type) of geometry_core/tolerances.py.

    Both ways: a constant added to tolerances.py but not compiled in (a
    stale header or build) fails as much as a different value.
    """
    compiled = _compiled_module().tolerances()
    expected = {name: value for name, value in vars(tolerances).items()
                if name.isupper() and isinstance(value, int | float)}
    assert set(compiled) == set(expected)
    for name, value in compiled.items():
        # The type too: an int count must not come back a float, or the reverse.
        assert (type(value).__name__, value) == (type(expected[name]).__name__, expected[name]), \
            name


def _generator():
    path = ROOT / "scripts" / "gen_tolerances_header"
    if not path.is_file():
        pytest.skip("no scripts/ next to the tests")
    loader = importlib.machinery.SourceFileLoader("gen_tolerances_header", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_committed_header_is_generated_from_tolerances_py():
    """csrc/gc_tolerances.h is exactly what scripts/gen_tolerances_header writes."""
    generator = _generator()
    assert (ROOT / "csrc" / "gc_tolerances.h").read_text() == generator.render(), (
        "csrc/gc_tolerances.h is stale: run scripts/gen_tolerances_header")
    assert generator.main(["--check"]) == 0


def test_every_define_of_the_header_is_a_tolerance():
    """Each GC_* the header defines is a constant of tolerances.py (GC_EPS aside)."""
    header = (ROOT / "csrc" / "gc_tolerances.h").read_text()
    defined = set(re.findall(r"^#define GC_(\w+) ", header, re.MULTILINE))
    defined -= {"EPS", "TOLERANCES"}  # machine epsilon; the list macro
    assert defined == set(_compiled_module().tolerances())


def test_no_tuned_literal_is_left_in_the_convex_kernels():
    """Bare small literals (1e-6, 1e-12, ...) in csrc/convex*.c belong in tolerances.py.

    1e-300 guards a division against zero and is not tuned.
    """
    found = []
    for path in sorted((ROOT / "csrc").glob("convex*.c")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            if code.lstrip().startswith(("*", "/*")):
                continue
            for literal in re.findall(r"(?<![\w.])\d+(?:\.\d+)?e-\d+", code):
                if literal != "1e-300":
                    found.append(f"{path.name}:{number}: {literal}")
    assert not found, found
