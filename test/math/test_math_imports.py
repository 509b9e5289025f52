"""House rule 1 for the math layer: it imports numpy, transforms3d, tolerances and itself only.

And geometry_core.native, the compiled kernels, which know no scene.
"""

import ast
import pathlib
import sys

import geometry_core.math

MATH_DIR = pathlib.Path(geometry_core.math.__file__).parent
ALLOWED_ROOTS = {"numpy", "transforms3d", "__future__"}
ALLOWED_GEOMETRY_CORE = ("geometry_core.math", "geometry_core.tolerances", "geometry_core.native")


def _imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "geometry_core":
            yield from (f"geometry_core.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module


def test_math_imports_only_numpy_transforms3d_and_stdlib():
    offenders = []
    for path in sorted(MATH_DIR.glob("*.py")):
        for module in _imported_modules(path):
            root = module.split(".")[0]
            if module.startswith(ALLOWED_GEOMETRY_CORE) or root in ALLOWED_ROOTS:
                continue
            if root not in sys.stdlib_module_names:
                offenders.append(f"{path.name}: {module}")
    assert offenders == []


def test_the_check_sees_every_math_module():
    names = {path.name for path in MATH_DIR.glob("*.py")}
    assert {"rigid_transform.py", "rotation_matrix.py", "roll_pitch_yaw.py", "quaternion.py",
            "kernels.py"} <= names


def test_importing_the_math_loads_no_layer_above_it():
    """``import geometry_core.math`` runs the package's ``__init__``, which loads no layer itself.

    In a fresh interpreter: the package, the math, the tolerances and the
    compiled kernels, nothing of the scene, the queries or the viewer.
    """
    import subprocess

    code = ("import sys, geometry_core.math; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('geometry_core'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert "geometry_core.math" in out and "geometry_core._native" in out
    above = [m for m in out if m != "geometry_core" and not m.startswith((
        "geometry_core.math", "geometry_core.tolerances", "geometry_core.native",
        "geometry_core._native"))]
    assert above == []
