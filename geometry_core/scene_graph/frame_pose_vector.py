"""FramePoseVector: the poses a source gives its frames, keyed by FrameId (as in Drake).

Imports ``geometry_core.math`` and the scene graph's ids; never the query
engine.
"""

from __future__ import annotations

from collections.abc import Mapping

from geometry_core.math import RigidTransform
from geometry_core.scene_graph.identifiers import FrameId

__all__ = ["FramePoseVector"]


class FramePoseVector:
    """Poses of frames in their parents, keyed by FrameId (Drake's FramePoseVector).

    A dict works as well wherever a FramePoseVector is accepted.
    """

    def __init__(self, poses: Mapping[FrameId, RigidTransform] | None = None) -> None:
        self._poses: dict[FrameId, RigidTransform] = {}
        for frame_id, X_PF in (poses or {}).items():
            self.set_value(frame_id, X_PF)

    def clear(self) -> None:
        self._poses.clear()

    def set_value(self, id: FrameId, value: RigidTransform) -> None:
        if not isinstance(id, FrameId):
            raise TypeError(f"FramePoseVector keys must be FrameId, got {id!r}")
        if not isinstance(value, RigidTransform):
            raise TypeError(f"pose of {id!r} must be a RigidTransform, "
                            f"got {type(value).__name__}")
        self._poses[id] = value

    def value(self, id: FrameId) -> RigidTransform:
        try:
            return self._poses[id]
        except KeyError:
            raise KeyError(f"{id!r} is not in this FramePoseVector") from None

    def has_id(self, id: FrameId) -> bool:
        return id in self._poses

    def frame_ids(self) -> list[FrameId]:
        return list(self._poses)

    def size(self) -> int:
        return len(self._poses)

    def items(self):
        return self._poses.items()

    def __len__(self) -> int:
        return len(self._poses)
