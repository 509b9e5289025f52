"""What a query reads: the frozen :class:`SceneSnapshot`, and the cache its model comes from.

A snapshot pairs the proximity model of one topology with the world poses
of one moment. The model is built only when the topology changes
(registration, roles, filters), never per pose update; the
:class:`SnapshotCache` keeps it, the frame-slot map every snapshot shares,
and the last subset of the model that a snapshot without some frames' poses
used.

Imports the scene graph's collision model; never the query engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geometry_core.scene_graph.collision_model import CollisionModel

__all__ = ["SceneSnapshot", "SnapshotCache"]


@dataclass(frozen=True, eq=False)
class SceneSnapshot:
    """Frozen poses and proximity model: what a query object reads.

    Attributes
    ----------
    collision_model : CollisionModel
        The proximity geometries and filters of the topology at snapshot time.
    X_WF : (F, 4, 4) float
        World pose of every frame slot (slot 0 is the world frame).
    frame_slot_of : dict[FrameId, int]
        Frame id to slot, as at snapshot time.
    point_clouds : tuple of PointCloudRecord
        The registered point clouds (on posed frames), in id order.
    """

    collision_model: CollisionModel
    X_WF: np.ndarray
    frame_slot_of: dict
    point_clouds: tuple = ()


class SnapshotCache:
    """The proximity model and frame-slot map of the current topology, built on first use."""

    def __init__(self) -> None:
        self._collision_model: CollisionModel | None = None
        # The last model built and the geometry edits since (None: rebuild).
        self._base: CollisionModel | None = None
        self._edits: list | None = None
        # The last partial model of snapshot(frames_without_pose="skip"):
        # (full model, which geometries it keeps, the subset).
        self._partial_model: tuple[CollisionModel, bytes, CollisionModel] | None = None
        self._slot_of: dict | None = None  # frame id -> slot, shared by snapshots

    def clear(self) -> None:
        """Forget everything: the topology changed."""
        self._collision_model = None
        self._partial_model = None
        self._slot_of = None
        self._edits = None

    def mark(self) -> tuple | None:
        """What :meth:`resume` needs to turn the next :meth:`clear` into one edit."""
        if self._collision_model is not None:
            return self._collision_model, [], self._slot_of
        if self._base is not None and self._edits is not None:
            return self._base, list(self._edits), self._slot_of
        return None

    def resume(self, mark: tuple | None, edit: tuple) -> None:
        """After a :meth:`clear`: the change since ``mark`` was only ``edit`` of geometry.

        Frames did not change, so the frame-slot map is kept; the next model
        is the last one with the edits applied (:meth:`collision_model`).
        """
        if mark is None:
            return
        base, edits, slot_of = mark
        self._base, self._edits, self._slot_of = base, edits + [edit], slot_of

    def collision_model(self, build: Callable[[], CollisionModel],
                        edit: Callable[[CollisionModel, list], CollisionModel] | None = None
                        ) -> CollisionModel:
        """Return the cached model; ``edit(base, edits)`` it from the last one, else ``build()``."""
        if self._collision_model is None:
            if edit is not None and self._base is not None and self._edits is not None:
                model = edit(self._base, self._edits)
            else:
                model = build()
            self._collision_model = self._base = model
            self._edits = []
        return self._collision_model

    def slot_of(self, build: Callable[[], dict]) -> dict:
        """Return the cached frame id -> slot map, calling ``build`` when there is none."""
        if self._slot_of is None:
            self._slot_of = build()
        return self._slot_of

    def partial_model(self, model: CollisionModel, keep: np.ndarray) -> CollisionModel:
        """Return ``model.subset(keep)``, reusing the last one for the same model and mask.

        While the same frames lack poses (a node starting up) the subset, and
        so its broadphase and compiled model, is built once.
        """
        key = keep.tobytes()
        partial = self._partial_model
        if partial is None or partial[0] is not model or partial[1] != key:
            partial = self._partial_model = (model, key, model.subset(keep))
        return partial[2]
