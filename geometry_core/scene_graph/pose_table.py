"""The pose table: every frame's pose in its parent, one row per frame slot.

Frames get a slot at registration, in registration order. A parent exists
before its child, so slot order is already topological and world poses
compose level by level: one batched ``matmul`` per tree depth (or one
compiled call). Poses in parent ``X_PF`` live in one ``(capacity, 4, 4)``
array; setting a pose is a row copy, and the vectorised setter is one
fancy-index write. Slot 0 is the world frame, whose pose is the identity.

The table knows slots and frame names (for its messages), not ids or
sources: :class:`~geometry_core.scene_graph.GeometryState` maps ids to slots.
Imports numpy, the math kernels and ``geometry_core.native``; never the
query engine.
"""

from __future__ import annotations

import re

import numpy as np

from geometry_core import native
from geometry_core.math import _scalar
from geometry_core.math.kernels import validate_matrix4s
from geometry_core.tolerances import USER_ROTATION_TOLERANCE

__all__ = ["PoseTable"]


class PoseTable:
    """Poses of frames in their parents, by slot, and their composition into world poses."""

    def __init__(self) -> None:
        self._X_PF = np.tile(np.eye(4), (8, 1, 1))
        self._has_pose = np.zeros(8, dtype=bool)
        self._has_pose[0] = True
        self._parent_slot = np.zeros(8, dtype=np.intp)
        self._size = 1
        # Per slot: the frame's name, and source::frame for "no pose" messages.
        self._names = ["world"]
        self._scoped_names = ["world"]
        self._parent_slot32: np.ndarray | None = None  # int32 parents, for native
        # Whether every slot has a pose; False after a new frame until the
        # next check finds them all posed (frames never lose their pose).
        self._all_posed = True
        #: Times any row or the tree changed: a cache of what was read keys on it.
        self.writes = 0

    def __len__(self) -> int:
        return self._size

    def add_frames(self, parent_slots: list[int], names: list[str],
                   scoped_names: list[str]) -> None:
        """Give new frames the next slots (no pose yet) under ``parent_slots``, in order."""
        count = len(parent_slots)
        start = self._size
        self._grow_frames(start + count)
        rows = slice(start, start + count)
        self._parent_slot[rows] = parent_slots
        self._X_PF[rows] = np.eye(4)
        self._has_pose[rows] = False
        self._names.extend(names)
        self._scoped_names.extend(scoped_names)
        self._size = start + count
        self._parent_slot32 = None
        self._all_posed = self._all_posed and count == 0
        self.writes += 1

    def _grow_frames(self, needed: int) -> None:
        capacity = len(self._X_PF)
        if needed <= capacity:
            return
        capacity = max(needed, 2 * capacity)
        X_PF = np.tile(np.eye(4), (capacity, 1, 1))
        X_PF[: len(self._X_PF)] = self._X_PF
        has_pose = np.zeros(capacity, dtype=bool)
        has_pose[: len(self._has_pose)] = self._has_pose
        parent = np.zeros(capacity, dtype=np.intp)
        parent[: len(self._parent_slot)] = self._parent_slot
        self._X_PF, self._has_pose, self._parent_slot = X_PF, has_pose, parent

    def copy_rows(self, slots: list[int], matrices: list[np.ndarray]) -> None:
        """Set the rows ``slots`` to ``matrices``: valid 4x4 poses (a RigidTransform's own)."""
        if slots:
            self.writes += 1
            native.copy_poses(self._X_PF, slots, matrices)
            self._has_pose[slots] = True

    def copy_items(self, poses: dict, slot_of: dict, transform_type: type) -> bool:
        """Set the rows of a ``{frame_id: RigidTransform}`` dict in one compiled call.

        ``slot_of`` maps each frame id the caller may set to its slot. All or
        nothing: False, with no row changed, when a key is not in ``slot_of``
        or a value is not exactly ``transform_type``; the caller then checks
        every item itself and raises the error that names it.
        """
        self.writes += 1
        return native.set_pose_items(self._X_PF, self._has_pose, poses, slot_of,
                                     transform_type) is not None

    def set_rows(self, slots: np.ndarray, X_PF: np.ndarray) -> None:
        """Validate ``X_PF`` (N, 4, 4) as a batch, then set the rows ``slots`` to it.

        Raises
        ------
        ValueError
            For a bad shape or an invalid pose (naming the frame and what is wrong).
        """
        X_PF = np.asarray(X_PF, dtype=float)
        if X_PF.shape != (len(slots), 4, 4):
            raise ValueError(f"X_PF must have shape ({len(slots)}, 4, 4), got {X_PF.shape}")
        self._validate_pose_rows(X_PF, slots)
        self.writes += 1
        native.set_pose_rows(self._X_PF, self._has_pose,
                             np.ascontiguousarray(slots, dtype=np.int64),
                             np.ascontiguousarray(X_PF))

    def set_rows_from_pose_rows(self, slots: np.ndarray, rows: list,
                                order: tuple[int, ...]) -> bool:
        """Set the rows ``slots`` to the poses of rows of seven numbers, in one compiled call.

        The poses ``matrix4_from_pose_rows(rows, order)`` gives, each checked
        as :meth:`set_rows` checks it. All or nothing: False, with no row
        changed, when a row is not seven usable numbers or its pose fails the
        check; the caller then takes the checked path, which says why.
        """
        if _scalar.pose_rows_into(rows, order, self._X_PF, self._has_pose, slots,
                                  USER_ROTATION_TOLERANCE) >= 0:
            return False
        self.writes += 1
        return True

    def world_poses_batch(self, slots: np.ndarray, X_PF: np.ndarray) -> np.ndarray:
        """World poses of every slot for K configurations of the rows ``slots``.

        ``X_PF`` is (K, N, 4, 4); the table itself is unchanged.

        Raises
        ------
        ValueError
            For a bad shape, an invalid pose, or a slot outside ``slots``
            that has never been given a pose.
        """
        X_PF = np.asarray(X_PF, dtype=float)
        if X_PF.ndim != 4 or X_PF.shape[1:] != (len(slots), 4, 4):
            raise ValueError(f"X_PF must have shape (K, {len(slots)}, 4, 4), got {X_PF.shape}")
        K = X_PF.shape[0]
        self._validate_pose_rows(X_PF.reshape(-1, 4, 4), slots)
        n = self._size
        if not self.all_posed():
            has_pose = self._has_pose[:n].copy()
            has_pose[slots] = True
            self._require_poses(has_pose)
        X_PF_all = np.empty((K, n, 4, 4))
        if K == 0:
            return X_PF_all
        X_PF_all[:] = self._X_PF[:n]
        X_PF_all[:, slots] = X_PF
        # The composition query_object uses (csrc compose_world, all K in one
        # call), so a batch answer equals a single query's to the bit.
        X_WF = np.empty_like(X_PF_all)
        native.compose_world(X_PF_all, self._parents32(n), X_WF)
        return X_WF

    def pose_tree(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every slot's pose in its parent and the parent slots, for posing ``slots`` elsewhere.

        What a compiled loop that sets the rows ``slots`` itself (K
        configurations of a kinematic chain) needs to compose world poses as
        :meth:`world_poses_batch` does: ``X_PF`` (F, 4, 4), a copy whose rows
        ``slots`` are meaningless, and the int32 parent slots (F,).

        Raises
        ------
        ValueError
            If a slot outside ``slots`` has never been given a pose.
        """
        n = self._size
        if not self.all_posed():
            has_pose = self._has_pose[:n].copy()
            has_pose[slots] = True
            self._require_poses(has_pose)
        return self._X_PF[:n].copy(), self._parents32(n)

    def _validate_pose_rows(self, X_PF: np.ndarray, slots: np.ndarray) -> None:
        """Validate (M, 4, 4) poses, stacks of ``slots``' rows; an error names the frame."""
        try:
            validate_matrix4s(X_PF, name="X_PF", copy=False)
        except ValueError as err:
            row = re.search(r"\[(\d+)\]", str(err))
            if row is None:
                raise
            name = self._names[slots[int(row.group(1)) % len(slots)]]
            raise ValueError(f"{err} (the pose of frame {name!r})") from None

    def all_posed(self) -> bool:
        """Whether every frame has been given a pose."""
        if not self._all_posed:
            self._all_posed = bool(self._has_pose[:self._size].all())
        return self._all_posed

    def slots_without_pose(self) -> np.ndarray:
        """Slots of the frames that have never been given a pose."""
        return np.flatnonzero(~self._has_pose[:self._size])

    def world_poses(self) -> np.ndarray:
        """Return ``X_WF`` for every frame slot, shape (F, 4, 4).

        Raises
        ------
        ValueError
            If a frame has never been given a pose (names every such frame).
        """
        n = self._size
        if not self.all_posed():
            self._require_poses(self._has_pose[:n])
        return self._compose(self._X_PF[:n])

    def world_poses_where_posed(self) -> tuple[np.ndarray, np.ndarray]:
        """World poses, and which slots lack a pose (or hang below a frame without one).

        Returns
        -------
        X_WF : (F, 4, 4) float
            World poses; the rows of unposed slots are meaningless.
        unposed : (F,) bool
            True for a slot without a pose, or with an ancestor without one.
        """
        n = self._size
        unposed = ~self._has_pose[:n]
        for slot in range(1, n):  # parents come first: a missing ancestor propagates
            unposed[slot] |= unposed[self._parent_slot[slot]]
        X_PF = self._X_PF[:n].copy()
        X_PF[unposed] = np.eye(4)  # never read: the caller leaves their geometry out
        return self._compose(X_PF), unposed

    def _parents32(self, n: int) -> np.ndarray:
        """int32 parent slot of the first n slots, as compose_world reads them (cached)."""
        parents = self._parent_slot32
        if parents is None or len(parents) != n:
            parents = self._parent_slot32 = np.ascontiguousarray(self._parent_slot[:n],
                                                                 dtype=np.int32)
        return parents

    def _compose(self, X_PF: np.ndarray) -> np.ndarray:
        """World poses of all n frame slots from their poses in their parents (a new array)."""
        X_WF = np.empty(X_PF.shape)
        native.compose_world(X_PF, self._parents32(len(X_PF)), X_WF)
        return X_WF

    def _require_poses(self, has_pose: np.ndarray) -> None:
        if not has_pose.all():
            missing = [self._scoped_names[s] for s in np.flatnonzero(~has_pose)]
            raise ValueError(f"no pose has been set for frame(s) {', '.join(missing)}; "
                             "call set_poses() first")
