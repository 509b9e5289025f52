"""The dependency rules of DESIGN.md section 1, checked on the source (house rule 12).

Arrows point down only: math <- scene_graph <- proximity <- clearance;
viewer and scene_files use the scene graph; nodes use the library. Only
``geometry_core/proximity/fcl_adapter.py`` imports fcl, only
``geometry_core/viewer/`` imports lcm, and the library never imports ROS, DDS,
pydrake or ``nodes/``.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "geometry_core"


def imports_of(path: pathlib.Path) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def library_files():
    return [p for p in LIBRARY.rglob("*.py") if "lcmtypes" not in p.parts]


def offenders(files, forbidden):
    bad = []
    for path in files:
        for name in imports_of(path):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


def test_library_never_imports_ros_dds_drake_or_nodes():
    forbidden = ["rclpy", "cyclonedds", "rosbags", "pydrake", "drake", "geometry_core_nodes",
                 "nodes", "launch", "launch_ros"]
    assert offenders(library_files(), forbidden) == []


def _code_strings(path: pathlib.Path) -> list[str]:
    """String constants of a file that are not docstrings."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and isinstance(node.body[0], ast.Expr):
                docstrings.add(id(node.body[0].value))
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_library_never_names_the_nodes_in_code():
    """No dynamic import or ``python -m`` of the nodes either.

    ``geometry-core run`` is the nodes' subcommand, found through the
    ``geometry_core.cli`` entry points.
    """
    named = [str(path.relative_to(ROOT)) for path in library_files()
             if any("geometry_core_nodes" in text for text in _code_strings(path))]
    assert named == []


def test_only_the_fcl_adapter_imports_fcl():
    files = [p for p in library_files() if p != LIBRARY / "proximity" / "fcl_adapter.py"]
    assert offenders(files, ["fcl"]) == []


def test_only_the_viewer_imports_lcm():
    files = [p for p in library_files() if "viewer" not in p.relative_to(LIBRARY).parts]
    assert offenders(files, ["lcm"]) == []


@pytest.mark.parametrize("layer, forbidden", [
    ("math", ["geometry_core.shapes", "geometry_core.scene_graph", "geometry_core.proximity",
              "geometry_core.clearance", "geometry_core.viewer", "geometry_core.scene_files",
              "geometry_core.scene", "geometry_core.cli"]),
    ("scene_graph", ["geometry_core.proximity", "geometry_core.clearance",
                     "geometry_core.viewer", "geometry_core.scene_files", "geometry_core.scene",
                     "geometry_core.cli"]),
    ("proximity", ["geometry_core.clearance", "geometry_core.viewer",
                   "geometry_core.scene_files", "geometry_core.scene", "geometry_core.cli"]),
    ("viewer", ["geometry_core.proximity.fcl_adapter", "geometry_core.scene_files",
                "geometry_core.cli"]),
    ("scene_files", ["geometry_core.viewer", "geometry_core.cli", "geometry_core.clearance"]),
    ("clearance", ["geometry_core.viewer", "geometry_core.cli"]),
])
def test_layers_import_only_downwards(layer, forbidden):
    folder = LIBRARY / layer
    if not folder.exists():
        pytest.skip(f"geometry_core/{layer} does not exist yet")
    assert offenders([p for p in folder.rglob("*.py") if "lcmtypes" not in p.parts],
                     forbidden) == []


def test_nothing_below_the_clearance_layer_imports_it():
    # Above it: the command line and the cluster layer (distributed.py).
    above = ("clearance", "cli", "distributed.py", "__init__.py")
    below = [p for p in library_files() if p.relative_to(LIBRARY).parts[0] not in above]
    assert offenders(below, ["geometry_core.clearance"]) == []


def test_shapes_import_no_layer_above():
    assert offenders([LIBRARY / "shapes.py"],
                     ["geometry_core.scene_graph", "geometry_core.proximity",
                      "geometry_core.viewer", "fcl", "lcm"]) == []


def test_transport_never_imports_the_query_engine():
    transport = ROOT / "nodes" / "transport"
    if not transport.exists():
        pytest.skip("nodes/transport does not exist yet")
    assert offenders(list(transport.rglob("*.py")),
                     ["geometry_core.proximity", "fcl", "lcm"]) == []


def test_every_design_name_is_importable_from_the_top_level():
    import geometry_core

    names = ("SceneGraph GeometryFrame GeometryInstance SourceId FrameId GeometryId GeometrySet "
             "Role Rgba ProximityProperties IllustrationProperties PerceptionProperties Sphere "
             "Box Cylinder Capsule Ellipsoid HalfSpace Mesh Convex RigidTransform RotationMatrix "
             "RollPitchYaw PenetrationAsPointPair SignedDistancePair SignedDistanceToPoint "
             "DrakeVisualizer").split()
    missing = [n for n in names if not hasattr(geometry_core, n)]
    assert missing == []
    assert set(names) <= set(geometry_core.__all__)


def test_importing_the_library_does_not_import_lcm_until_the_viewer_is_used():
    import subprocess
    import sys

    code = ("import sys, geometry_core; before = 'lcm' in sys.modules; "
            "geometry_core.DrakeVisualizer; print(before, 'lcm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_only_the_cluster_layer_and_its_command_import_dask():
    allowed = {LIBRARY / "distributed.py", LIBRARY / "cli" / "label.py"}
    assert offenders([p for p in library_files() if p not in allowed], ["dask"]) == []
