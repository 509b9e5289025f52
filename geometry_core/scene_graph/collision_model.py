"""The frozen view of the scene that proximity queries run on.

A :class:`CollisionModel` lists the geometries with the proximity role in
ascending id order (so a pair of indices ``i < j`` is already Drake's
``id_A < id_B``), with the arrays a vectorised query needs: each geometry's
frame slot, its fixed pose in that frame, whether it is anchored, and the
explicitly filtered pairs as sorted integer keys. It is rebuilt only when the
topology changes (registration, removal, roles, filters), never per pose
update, and it is immutable, so a query snapshot can hold it while the scene
graph moves on.

Same-frame pairs and anchored–anchored pairs are excluded by comparing
arrays, not by storing pairs, so the model stays O(geometries + declared
filters) in memory.

Imports numpy and the scene graph's own id and shape types; never the query
engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry_core.scene_graph.identifiers import GeometryId
from geometry_core.shapes import Shape

__all__ = ["CollisionModel"]


@dataclass(frozen=True, eq=False)
class CollisionModel:
    """Proximity geometries of one topology version, in ascending id order.

    Attributes
    ----------
    version : int
        The scene graph's topology version this model was built from.
    geometry_ids : tuple[GeometryId, ...]
        Proximity geometries, ascending by id value.
    names : tuple[str, ...]
        ``source::frame::geometry`` style names for messages.
    shapes : tuple[Shape, ...]
        Each geometry's shape.
    frame_slot : (G,) int
        Index into the snapshot's frame pose array ``X_WF``.
    X_FG : (G, 4, 4) float
        Each geometry's fixed pose in its frame.
    anchored : (G,) bool
        True for geometry on the world frame.
    filtered_keys : (K,) int64, sorted
        ``i * G + j`` for each explicitly filtered pair of indices ``i < j``.
    """

    version: int
    geometry_ids: tuple[GeometryId, ...]
    names: tuple[str, ...]
    shapes: tuple[Shape, ...]
    frame_slot: np.ndarray
    X_FG: np.ndarray
    anchored: np.ndarray
    filtered_keys: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index_of",
                           {gid: i for i, gid in enumerate(self.geometry_ids)})
        for array in (self.frame_slot, self.X_FG, self.anchored, self.filtered_keys):
            array.setflags(write=False)

    @property
    def size(self) -> int:
        """Number of proximity geometries."""
        return len(self.geometry_ids)

    def index_of(self, geometry_id: GeometryId) -> int:
        """Return the index of a proximity geometry.

        Raises
        ------
        KeyError
            If the geometry is unknown or lacks the proximity role.
        """
        try:
            return self._index_of[geometry_id]
        except KeyError:
            raise KeyError(f"{geometry_id!r} is not a geometry with the proximity role") from None

    def find_index(self, geometry_id: GeometryId) -> int | None:
        """Return the index of a proximity geometry, or None when it has none here."""
        return self._index_of.get(geometry_id)

    def unfiltered(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Return a mask of the index pairs (``i < j`` elementwise) that may be reported.

        A pair is dropped when both geometries are on one frame (this covers
        anchored–anchored, since anchored geometry sits on the world frame) or
        when the pair was filtered explicitly.
        """
        keep = self.frame_slot[i] != self.frame_slot[j]
        if self.filtered_keys.size:
            keys = i.astype(np.int64) * self.size + j
            keep &= ~_sorted_contains(self.filtered_keys, keys)
        return keep

    def subset(self, keep: np.ndarray) -> CollisionModel:
        """Return the model restricted to the geometries where ``keep`` (G,) is True.

        Ids stay in ascending order; filtered pairs among kept geometries
        carry over. Returns ``self`` when everything is kept.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.all():
            return self
        old = np.flatnonzero(keep)
        new_index = -np.ones(self.size, dtype=np.int64)
        new_index[old] = np.arange(len(old))
        size = len(old)
        i, j = self.filtered_keys // max(self.size, 1), self.filtered_keys % max(self.size, 1)
        both = keep[i] & keep[j] if self.filtered_keys.size else np.zeros(0, dtype=bool)
        keys = np.sort(new_index[i[both]] * size + new_index[j[both]])
        return CollisionModel(
            version=self.version,
            geometry_ids=tuple(self.geometry_ids[k] for k in old),
            names=tuple(self.names[k] for k in old),
            shapes=tuple(self.shapes[k] for k in old),
            frame_slot=self.frame_slot[old],
            X_FG=self.X_FG[old],
            anchored=self.anchored[old],
            filtered_keys=keys.astype(np.int64),
        )

    def is_filtered(self, i: int, j: int) -> bool:
        """Report whether the pair of indices ``(i, j)`` is never reported."""
        if i == j:
            return True
        i, j = min(i, j), max(i, j)
        return not bool(self.unfiltered(np.array([i]), np.array([j]))[0])


def _sorted_contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    where = np.searchsorted(sorted_keys, keys)
    where = np.minimum(where, sorted_keys.size - 1)
    return sorted_keys[where] == keys
