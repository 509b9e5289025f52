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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geometry_core.scene_graph.identifiers import GeometryId
from geometry_core.shapes import Shape

__all__ = ["CollisionModel", "MAX_LINEAGE"]

#: Most edits a model remembers it was derived by (see ``derived_from``).
MAX_LINEAGE = 64


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
    derived_from : tuple or None
        ``(base model, steps)`` when this model is ``base`` edited by
        :meth:`inserted`, :meth:`without` and :meth:`replaced` (the steps
        name the rows: ``insert``, ``delete``, ``replace``, or ``pose`` for
        a geometry moved in its frame), so that the query engine's caches
        of ``base`` can be edited the same way instead of rebuilt; None
        otherwise.
    """

    version: int
    geometry_ids: tuple[GeometryId, ...]
    names: tuple[str, ...]
    shapes: tuple[Shape, ...]
    frame_slot: np.ndarray
    X_FG: np.ndarray
    anchored: np.ndarray
    filtered_keys: np.ndarray
    derived_from: tuple | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index_of",
                           dict(zip(self.geometry_ids, range(len(self.geometry_ids)))))
        object.__setattr__(self, "_id_values", np.fromiter(
            (g.get_value() for g in self.geometry_ids), np.int64, len(self.geometry_ids)))
        for array in (self.frame_slot, self.X_FG, self.anchored, self.filtered_keys):
            array.setflags(write=False)

    @classmethod
    def _edited(cls, index_of: dict, id_values: np.ndarray, **fields) -> CollisionModel:
        """A model from fields and an index map derived from another model's (no rehash)."""
        model = cls.__new__(cls)
        fields.setdefault("derived_from", None)
        for name, value in fields.items():
            object.__setattr__(model, name, value)
        object.__setattr__(model, "_index_of", index_of)
        object.__setattr__(model, "_id_values", id_values)
        for array in (model.frame_slot, model.X_FG, model.anchored, model.filtered_keys):
            array.setflags(write=False)
        return model

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

    def find_indices(self, geometry_ids: Sequence[GeometryId]) -> list[int | None]:
        """:meth:`find_index` of each id, in one pass (None for anything not found)."""
        try:
            return list(map(self._index_of.get, geometry_ids))
        except TypeError:  # an unhashable id: not found
            return [self.find_index(g) if isinstance(g, GeometryId) else None
                    for g in geometry_ids]

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

    # ------------------------------------------------------------- live edits

    def _lineage(self, step: tuple) -> tuple | None:
        """``derived_from`` of this model edited by ``step``.

        The query engine cuts a model's lineage once it has derived its
        caches, so a lineage spans the edits since the last query; past
        :data:`MAX_LINEAGE` steps it is dropped (the next query rebuilds),
        so it never grows without bound.
        """
        if self.derived_from is not None:
            base, steps = self.derived_from
            return (base, steps + (step,)) if len(steps) < MAX_LINEAGE else None
        return self, (step,)

    def inserted(self, version: int, geometry_id: GeometryId, name: str, shape: Shape,
                 frame_slot: int, X_FG: np.ndarray) -> CollisionModel:
        """This model with one more geometry, in id order; filters of the others carry over.

        Costs array copies, plus re-indexing the geometries after it in id
        order (none for a new geometry: its id is the largest).
        """
        ids = self.geometry_ids
        pos = int(np.searchsorted(self._id_values, geometry_id.get_value()))
        G = self.size
        index_of = self._index_of.copy()
        for k in range(pos, G):
            index_of[ids[k]] = k + 1
        index_of[geometry_id] = pos
        i, j = self.filtered_keys // max(G, 1), self.filtered_keys % max(G, 1)
        i, j = i + (i >= pos), j + (j >= pos)
        return CollisionModel._edited(
            index_of, np.insert(self._id_values, pos, geometry_id.get_value()),
            version=version,
            geometry_ids=ids[:pos] + (geometry_id,) + ids[pos:],
            names=self.names[:pos] + (name,) + self.names[pos:],
            shapes=self.shapes[:pos] + (shape,) + self.shapes[pos:],
            frame_slot=np.insert(self.frame_slot, pos, frame_slot),
            X_FG=np.insert(self.X_FG.reshape(-1, 4, 4), pos, X_FG, axis=0),
            anchored=np.insert(self.anchored, pos, frame_slot == 0),
            filtered_keys=(i * (G + 1) + j).astype(np.int64),
            derived_from=self._lineage(("insert", pos)),
        )

    def without(self, version: int, geometry_ids) -> CollisionModel:
        """This model without the given geometries (ids it lacks are ignored).

        Costs array copies, plus re-indexing the geometries after the first
        removed one in id order.
        """
        gone = sorted(k for k in (self._index_of.get(g) for g in geometry_ids) if k is not None)
        if not gone:
            return self
        G = self.size
        keep = np.ones(G, dtype=bool)
        keep[gone] = False
        ids, names, shapes = self.geometry_ids, self.names, self.shapes
        index_of = self._index_of.copy()
        for k in gone:
            del index_of[ids[k]]
        new_index = np.cumsum(keep) - 1
        for k in range(gone[0], G):
            if keep[k]:
                index_of[ids[k]] = int(new_index[k])
        edges = [-1] + gone + [G]

        def cut(values: tuple) -> tuple:
            return sum((values[a + 1:b] for a, b in zip(edges, edges[1:])), ())

        size = G - len(gone)
        i, j = self.filtered_keys // max(G, 1), self.filtered_keys % max(G, 1)
        both = keep[i] & keep[j]
        return CollisionModel._edited(
            index_of, self._id_values[keep],
            version=version, geometry_ids=cut(ids), names=cut(names), shapes=cut(shapes),
            frame_slot=self.frame_slot[keep], X_FG=self.X_FG[keep], anchored=self.anchored[keep],
            filtered_keys=(new_index[i[both]] * size + new_index[j[both]]).astype(np.int64),
            derived_from=self._lineage(("delete", keep)))

    def replaced(self, version: int, geometry_id: GeometryId, shape: Shape,
                 X_FG: np.ndarray) -> CollisionModel:
        """This model with one geometry's shape and pose in its frame changed.

        The same shape object (a geometry moved, not reshaped) keeps the
        shapes tuple, and its step says so (``("pose", k)``): the query
        engine then converts no shape again.
        """
        k = self.index_of(geometry_id)
        poses = self.X_FG.copy()
        poses[k] = X_FG
        same = shape is self.shapes[k]
        return CollisionModel._edited(
            self._index_of, self._id_values,
            version=version, geometry_ids=self.geometry_ids, names=self.names,
            shapes=self.shapes if same else self.shapes[:k] + (shape,) + self.shapes[k + 1:],
            frame_slot=self.frame_slot, X_FG=poses, anchored=self.anchored,
            filtered_keys=self.filtered_keys,
            derived_from=self._lineage(("pose" if same else "replace", k)))

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
