"""Real arms from example-robot-data and an environment of primitives, for the clearance tests.

The Panda (7 arm joints + a finger joint and its mimic) and the UR5
(6 joints) as shipped: collision meshes are STL, visual meshes COLLADA (the
checker loads collision geometry only). Drake reads no STL, so
:func:`obj_urdf` writes a copy of a robot whose collision meshes are
converted to OBJ with trimesh (vertices unchanged) and whose visuals are
dropped; the Drake comparisons load that one file into both checkers.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np

SHARE = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share"
ROBOTS = SHARE / "example-robot-data" / "robots"
PACKAGE_ROOTS = {"example-robot-data": str(SHARE / "example-robot-data")}

ARMS = {
    "panda": (ROBOTS / "panda_description" / "urdf" / "panda.urdf",
              ROBOTS / "panda_description" / "srdf" / "panda.srdf", "panda_link0"),
    "ur5": (ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf",
            ROBOTS / "ur_description" / "srdf" / "ur5.srdf", "base_link"),
}

#: Obstacles around both arms' workspaces: (kind, size, p_WG). Spheres make
#: pairs where Drake's distance is exact; boxes make pairs with hulls where it
#: is not.
OBSTACLES = [
    ("sphere", (0.08,), (0.45, 0.0, 0.45)),
    ("sphere", (0.05,), (0.0, 0.45, 0.35)),
    ("sphere", (0.12,), (-0.35, -0.3, 0.5)),
    ("box", (0.6, 0.6, 0.04), (0.5, 0.0, -0.05)),
    ("box", (0.05, 0.4, 0.3), (-0.45, 0.25, 0.25)),
    ("sphere", (0.06,), (0.3, -0.35, 0.7)),
]


def environment_scene():
    """Our SceneGraph holding :data:`OBSTACLES` as anchored geometry."""
    from geometry_core import (
        Box,
        GeometryInstance,
        ProximityProperties,
        RigidTransform,
        SceneGraph,
        Sphere,
    )

    sg = SceneGraph()
    source = sg.register_source("obstacles")
    for k, (kind, size, p_WG) in enumerate(OBSTACLES):
        shape = Sphere(*size) if kind == "sphere" else Box(*size)
        instance = GeometryInstance(RigidTransform(p_WG), shape, f"{kind}_{k}")
        instance.set_proximity_properties(ProximityProperties())
        sg.register_anchored_geometry(source, instance)
    return sg


def obj_urdf(name: str, folder: Path) -> Path:
    """Write ``folder/<name>.urdf``: collision meshes as OBJ (absolute paths), no visuals."""
    import trimesh
    from lxml import etree

    from geometry_core.scene_files.urdf import resolve_mesh_path

    urdf, _, _ = ARMS[name]
    root = etree.parse(str(urdf)).getroot()
    for link in root.iter("link"):
        for visual in link.findall("visual"):
            link.remove(visual)
    for k, mesh in enumerate(root.iter("mesh")):
        source = resolve_mesh_path(mesh.get("filename"), urdf.parent, PACKAGE_ROOTS)
        target = folder / f"{name}_{k}_{source.stem}.obj"
        trimesh.load(source, force="mesh", process=False).export(target)
        mesh.set("filename", str(target))
    path = folder / f"{name}.urdf"
    path.write_bytes(etree.tostring(root))
    return path


def random_configurations(checker, count: int, seed: int) -> np.ndarray:
    """Uniform configurations within the joint limits (±π where unlimited)."""
    rng = np.random.default_rng(seed)
    lower = np.maximum(checker._chain.lower, -np.pi)
    upper = np.minimum(checker._chain.upper, np.pi)
    return lower + rng.random((count, checker.num_positions)) * (upper - lower)
