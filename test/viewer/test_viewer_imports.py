"""The viewer's own import rules, beyond test/test_layering.py.

Inside ``geometry_core/viewer/`` only ``lcm_buses.py`` imports ``lcm`` (the
conversions are pure, the visualizer reaches LCM through the bus module),
and the generated message modules import nothing but ``io``, ``struct`` and
their own package.
"""

from __future__ import annotations

import ast
from pathlib import Path

VIEWER = Path(__file__).resolve().parents[2] / "geometry_core" / "viewer"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
    return found


def test_only_lcm_buses_imports_lcm():
    importers = sorted(p.name for p in VIEWER.glob("*.py")
                       if any(n == "lcm" or n.startswith("lcm.") for n in _imports(p)))
    assert importers == ["lcm_buses.py"]


def test_viewer_never_imports_fcl_ros_or_pydrake():
    forbidden = ("fcl", "rclpy", "cyclonedds", "pydrake", "drake")
    for path in VIEWER.rglob("*.py"):
        bad = [n for n in _imports(path) if n.split(".")[0] in forbidden]
        assert bad == [], f"{path.name} imports {bad}"


def test_generated_modules_import_only_io_struct_and_their_package():
    allowed = {"io", "struct", "geometry_core.viewer.lcmtypes"}
    for path in (VIEWER / "lcmtypes" / "drake").glob("lcmt_*.py"):
        assert _imports(path) <= allowed, path.name
