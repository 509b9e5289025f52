"""House rule 1 for the math layer: it imports numpy, transforms3d, tolerances and itself only.

And geometry_core.compiled, the loader of the compiled kernels, which knows no scene.
"""

import ast
import pathlib
import sys

import geometry_core.math

MATH_DIR = pathlib.Path(geometry_core.math.__file__).parent
ALLOWED_ROOTS = {"numpy", "transforms3d", "__future__"}
ALLOWED_GEOMETRY_CORE = ("geometry_core.math", "geometry_core.tolerances", "geometry_core.compiled")


def _imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
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
