"""Real robots from example-robot-data, and their copies for Drake.

The PyPI package ``example-robot-data`` (a cmeel wheel) installs its robots
under ``site-packages/cmeel.prefix/share/example-robot-data/robots/``; the
URDFs name their meshes ``package://example-robot-data/robots/...``.

Drake hulls only ``.obj`` (and ``.vtk``, ``.gltf``) collision meshes, so
:func:`drake_copy` writes a copy of a URDF whose collision meshes are
converted to ``.obj`` with trimesh and whose visuals are dropped (they play
no part in proximity). Both systems then hull the same vertices.

Used by ``bench/robots.py`` and by the tests that load the whole set; never
imported by the library.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROBOT_PACKAGE = "example-robot-data"

#: The arms with an SRDF in example-robot-data 6.0.0: (URDF, SRDF) under robots/.
ARMS_WITH_SRDF = {
    "panda": ("panda_description/urdf/panda.urdf", "panda_description/srdf/panda.srdf"),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", "ur_description/srdf/ur5.srdf"),
    "kinova": ("kinova_description/robots/kinova.urdf", "kinova_description/srdf/kinova.srdf"),
    "z1": ("z1_description/urdf/z1.urdf", "z1_description/srdf/z1.srdf"),
}


def robots_share() -> Path | None:
    """``.../cmeel.prefix/share/example-robot-data``, or None when the package is absent."""
    for entry in sys.path:
        candidate = Path(entry) / "cmeel.prefix" / "share" / ROBOT_PACKAGE
        if (candidate / "robots").is_dir():
            return candidate
    return None


def all_urdfs(share: Path) -> list[Path]:
    """Every URDF of the package, sorted."""
    return sorted((share / "robots").glob("*/*/*.urdf"))


def package_roots(share: Path) -> dict[str, Path]:
    return {ROBOT_PACKAGE: share}


def obj_copy(source: Path, out_dir: Path) -> Path:
    """The mesh file ``source`` converted to .obj with trimesh, in ``out_dir`` (once)."""
    import trimesh

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / (hashlib.sha1(str(source).encode()).hexdigest()[:12] + ".obj")
    if not target.exists():
        loaded = trimesh.load(str(source), force="mesh", process=False)
        target.write_text(trimesh.exchange.obj.export_obj(
            loaded, include_normals=False, include_color=False, include_texture=False))
    return target


def drake_copy(urdf: Path, share: Path, out_dir: Path) -> Path:
    """Write Drake's copy of ``urdf`` into ``out_dir`` (collision meshes as .obj, no visuals).

    Returns the copy's path. Mesh scales are kept as written.
    """
    from lxml import etree

    from geometry_core.scene_files.urdf import resolve_mesh_path

    out_dir.mkdir(parents=True, exist_ok=True)
    root = etree.parse(str(urdf)).getroot()
    for link in root.findall("link"):
        for visual in link.findall("visual"):
            link.remove(visual)
        for mesh in link.findall("collision/geometry/mesh"):
            source = resolve_mesh_path(mesh.get("filename"), urdf.parent,
                                       package_roots(share))
            mesh.set("filename", str(obj_copy(source, out_dir)))
    copy = out_dir / urdf.name
    copy.write_bytes(etree.tostring(root))
    return copy


def srdf_disabled_pairs(srdf: Path) -> list[tuple[str, str]]:
    """The ``disable_collisions`` link pairs of an SRDF, for Drake's copy."""
    from lxml import etree

    root = etree.parse(str(srdf)).getroot()
    return [(e.get("link1"), e.get("link2")) for e in root.iter("disable_collisions")]


def srdf_group_states(srdf: Path) -> dict[str, dict[str, float]]:
    """The ``group_state`` joint values of an SRDF by name (first of a name wins)."""
    from lxml import etree

    root = etree.parse(str(srdf)).getroot()
    states: dict[str, dict[str, float]] = {}
    for state in root.iter("group_state"):
        states.setdefault(state.get("name"), {
            j.get("name"): float(j.get("value")) for j in state.findall("joint")
            if len(j.get("value").split()) == 1})
    return states


class DrakeRobot:
    """One URDF (Drake's copy) in a MultibodyPlant with a SceneGraph, root welded to the world.

    ``root_link`` is welded where geometry_core puts a URDF's root (the world
    origin); None when the URDF has a ``world`` link of its own.

    ``disabled`` link pairs are filtered as our SRDF loader filters them.
    """

    def __init__(self, copy: Path, root_link: str | None, disabled=()) -> None:
        from pydrake.geometry import CollisionFilterDeclaration, GeometrySet
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        self.plant, self.scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
        self.model = Parser(self.plant).AddModels(str(copy))[0]
        plant = self.plant
        if root_link is not None:  # None: the URDF's own "world" link anchors it
            plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root_link, self.model))
        plant.Finalize()
        manager = self.scene_graph.collision_filter_manager()
        for a, b in disabled:
            if plant.HasBodyNamed(a, self.model) and plant.HasBodyNamed(b, self.model):
                ids = [GeometrySet(plant.GetCollisionGeometriesForBody(
                    plant.GetBodyByName(n, self.model))) for n in (a, b)]
                manager.Apply(CollisionFilterDeclaration().ExcludeBetween(*ids))
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.plant_context = plant.GetMyMutableContextFromRoot(self.context)
        self.sg_context = self.scene_graph.GetMyContextFromRoot(self.context)

    def set_joint_positions(self, q: dict[str, float]) -> None:
        positions = self.plant.GetPositions(self.plant_context)
        for name, value in q.items():
            joint = self.plant.GetJointByName(name, self.model)
            positions[joint.position_start()] = value
        self.plant.SetPositions(self.plant_context, positions)

    def query(self):
        return self.scene_graph.get_query_output_port().Eval(self.sg_context)

    def link_of(self, inspector, geometry_id) -> str:
        return self.plant.GetBodyFromFrameId(inspector.GetFrameId(geometry_id)).name()
