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


#: The last link of each arm, where a held object goes.
HAND = {"panda": "panda_hand", "ur5": "wrist_3_link"}


def arm_checker(name: str, environment: bool = True, **kwargs):
    """A CollisionChecker of arm ``name`` (its SRDF), among :data:`OBSTACLES` unless told not."""
    from geometry_core.clearance import CollisionChecker

    urdf, srdf, _ = ARMS[name]
    return CollisionChecker.from_urdf(
        urdf, srdf=srdf, environment=environment_scene() if environment else None,
        package_roots=PACKAGE_ROOTS, **kwargs)


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


def srdf_pairs(path: Path) -> list[tuple[str, str]]:
    """The ``disable_collisions`` link pairs of an SRDF file."""
    from lxml import etree

    root = etree.parse(str(path)).getroot()
    return [(e.get("link1"), e.get("link2")) for e in root.iter("disable_collisions")]


def random_configurations(checker, count: int, seed: int) -> np.ndarray:
    """Uniform configurations within the joint limits (±π where unlimited)."""
    rng = np.random.default_rng(seed)
    lower = np.maximum(checker._chain.lower, -np.pi)
    upper = np.minimum(checker._chain.upper, np.pi)
    return lower + rng.random((count, checker.num_positions)) * (upper - lower)


def pair_distances(checker, q, ids) -> np.ndarray:
    """Padded distance of each geometry pair in ``ids`` at configuration q."""
    (rows,), _ = checker._pairs_within(np.asarray(q)[None], np.inf)
    found = {(pair.id_A, pair.id_B): distance for _, _, distance, pair in rows}
    return np.array([found[key] for key in ids])


def central_differences(checker, q, ids, h: float) -> np.ndarray:
    """(len(ids), n): central differences of the pairs' distances with step h."""
    fd = np.zeros((len(ids), checker.num_positions))
    for j in range(checker.num_positions):
        e = np.zeros(checker.num_positions)
        e[j] = h
        fd[:, j] = (pair_distances(checker, q + e, ids)
                    - pair_distances(checker, q - e, ids)) / (2 * h)
    return fd


def smooth_rows(checker, q, ids, h: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """``(smooth, fd)``: rows whose distance is differentiable at q, and their differences.

    Central differences cannot see a kink (at parallel faces the distance
    goes like ``-c |dq|`` both ways and the central difference is blind to
    it), so a row counts as smooth (its witness unique) when one-sided
    differences with step 1e-6 agree to 5e-5 (curvature and rounding stay
    below that; a kink does not) and central differences with steps h and
    2h agree to 1e-7.
    """
    q = np.asarray(q, dtype=float)
    fd = central_differences(checker, q, ids, h)
    fd2 = central_differences(checker, q, ids, 2 * h)
    d0 = pair_distances(checker, q, ids)
    kink = np.zeros(len(ids), dtype=bool)
    for j in range(checker.num_positions):
        e = np.zeros(checker.num_positions)
        e[j] = 1e-6
        forward = (pair_distances(checker, q + e, ids) - d0) / 1e-6
        backward = (d0 - pair_distances(checker, q - e, ids)) / 1e-6
        kink |= np.abs(forward - backward) > 5e-5
    return np.all(np.abs(fd - fd2) < 1e-7, axis=1) & ~kink, fd
