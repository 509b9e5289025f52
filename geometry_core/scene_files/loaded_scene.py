"""What a scene-file loader returns: the scene graph and the names that address it.

This module imports the scene graph only; never fcl, lcm or ROS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from geometry_core.math import RigidTransform
from geometry_core.scene import SceneGraph
from geometry_core.scene_files.kinematics import KinematicTree
from geometry_core.scene_graph import FrameId, GeometryId, SourceId

__all__ = ["LoadedScene", "NamedPose"]

#: Frame poses of one named configuration, grouped by source for ``set_poses``.
NamedPose = dict[SourceId, dict[FrameId, RigidTransform]]


@dataclass(eq=False)
class LoadedScene:
    """A scene graph built from a file, with its names.

    Attributes
    ----------
    scene_graph : SceneGraph
        The scene; every frame already has a pose.
    path : Path
        The file it came from.
    source_ids : dict of str to SourceId
        Sources by name.
    frames : dict of str to FrameId
        Frames by name (YAML frame names, URDF link names).
    geometries : dict of str to GeometryId
        Geometries by name: the YAML ``name``; for a URDF ``link::name``.
    named_poses : dict of str to NamedPose
        Named configurations: ``scene_graph.set_poses(source_id, poses)`` for
        each ``source_id, poses`` in ``named_poses[name].items()`` (or call
        :meth:`apply_named_pose`).
    kinematics : KinematicTree or None
        The joints of a URDF robot (None for a YAML scene).
    warnings : list of str
        The texts of the warnings issued while loading (``path:line: ...``):
        what was accepted although it breaks the format's letter.
    """

    scene_graph: SceneGraph
    path: Path
    source_ids: dict[str, SourceId] = field(default_factory=dict)
    frames: dict[str, FrameId] = field(default_factory=dict)
    geometries: dict[str, GeometryId] = field(default_factory=dict)
    named_poses: dict[str, NamedPose] = field(default_factory=dict)
    kinematics: KinematicTree | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def names(self) -> dict[str, FrameId | GeometryId]:
        """Frames and geometries by name, in one map (geometries win a clash)."""
        return {**self.frames, **self.geometries}

    def name_of(self, id: FrameId | GeometryId) -> str:
        """Return the file name of a frame or geometry.

        Raises
        ------
        KeyError
            If the id did not come from this file.
        """
        for table in (self.geometries, self.frames):
            for name, known in table.items():
                if known == id:
                    return name
        raise KeyError(f"{id!r} was not loaded from {self.path}")

    def apply_named_pose(self, name: str) -> None:
        """Set the frame poses of the named configuration (others keep theirs).

        Raises
        ------
        KeyError
            If there is no such named pose (lists the names).
        """
        try:
            poses = self.named_poses[name]
        except KeyError:
            known = ", ".join(sorted(self.named_poses)) or "(none)"
            if not self.named_poses and self.kinematics is not None:
                known += ("; a URDF's named poses come from its MoveIt SRDF "
                          "(load_urdf(..., srdf=...), or check's --srdf)")
            raise KeyError(f"{self.path} has no pose named {name!r}; poses: {known}") from None
        for source_id, frame_poses in poses.items():
            self.scene_graph.set_poses(source_id, frame_poses)

    def set_joint_positions(self, q: dict[str, float]) -> None:
        """Pose a URDF robot: joints not in ``q`` take their default positions.

        Raises
        ------
        ValueError
            If the scene has no joints, or as :meth:`KinematicTree.calc_frame_poses`.
        KeyError
            If ``q`` names an unknown joint.
        """
        if self.kinematics is None:
            raise ValueError(f"{self.path} has no joints: joint positions apply to URDF robots")
        self.scene_graph.set_poses(self.kinematics.source_id,
                                   self.kinematics.calc_frame_poses(q))
