"""Import rules of the transport (STYLE.md rules 1 and 12), checked on the source.

The transport never imports geometry_core (its proximity engine and fcl
least of all); rclpy appears only in the rclpy backend; cyclonedds only in
the DDS backend (dds.py, dds_services.py, ros_discovery.py) and the message
classes, rosbags only in the latter; nothing of the nodes outside the
transport (their limits, codecs and message layouts are the nodes'); and the
library never imports the nodes package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TRANSPORT = REPO / "nodes" / "transport"

ALLOWED = {
    # __init__ imports rclpy only to probe whether it is installed.
    "rclpy": {"rclpy_backend.py", "__init__.py"},
    "rcl_interfaces": {"rclpy_backend.py"},
    "cyclonedds": {"dds.py", "dds_services.py", "ros_discovery.py", "msg_types.py"},
    # rosbags gives the DDS backend its message layouts; the rclpy backend needs none.
    "rosbags": {"msg_types.py"},
}
FORBIDDEN_IN_TRANSPORT = ("geometry_core", "fcl", "lcm")


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize(
    "path", sorted(TRANSPORT.rglob("*.py")), ids=lambda p: str(p.relative_to(TRANSPORT))
)
def test_transport_module_imports(path):
    roots = _imported_roots(path)
    assert not roots & set(FORBIDDEN_IN_TRANSPORT), f"{path.name} imports {roots}"
    for package, files in ALLOWED.items():
        if package in roots:
            assert path.name in files, f"{path.name} must not import {package}"


@pytest.mark.parametrize(
    "path", sorted(TRANSPORT.rglob("*.py")), ids=lambda p: str(p.relative_to(TRANSPORT))
)
def test_transport_imports_nothing_of_the_nodes(path):
    outside = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level > 1:
            outside.append("." * node.level + (node.module or ""))
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        outside += [n for n in names if n.startswith("geometry_core_nodes")
                    and not n.startswith("geometry_core_nodes.transport")]
    assert outside == [], f"{path.name} imports {outside}"


def test_library_never_imports_nodes():
    offenders = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "geometry_core").rglob("*.py"))
        if "geometry_core_nodes" in _imported_roots(path)
    ]
    assert offenders == []
