"""GeometryState: the scene model, coordinating registration, filters, poses and snapshots.

:class:`GeometryState` is the scene graph minus the ability to answer
questions: the query engine in ``geometry_core.proximity`` reads a
:class:`~geometry_core.scene_graph.SceneSnapshot` from it, and this package
never imports the engine (DESIGN.md section 1). Each concern lives in its
own module, and this class ties them together:

* ``registration.py``: sources, frames, geometries and roles (the base class);
* ``collision_filters.py``: filter declarations and the filtered pairs;
* ``pose_table.py``: each frame's pose in its parent and their composition;
* ``frame_pose_vector.py``: the FramePoseVector that ``set_poses`` accepts;
* ``snapshot.py``: the frozen snapshot and the cached proximity model.

The proximity model (:class:`CollisionModel`) is rebuilt only when the
topology changes, never per pose update. Geometry added, removed or
changed (:meth:`GeometryState.change_shape`, :meth:`GeometryState.change_pose`)
between two snapshots edits the last model instead: the next snapshot costs
the changed geometry plus an array copy, not a rebuild of every geometry.
Every mutating call validates everything before it changes anything, so a
rejected call leaves the model as it was. Changes and snapshots take one
lock, so a snapshot taken on one thread while another changes the scene
holds the scene before the change or after it, never a part.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from geometry_core.math import RigidTransform, matrix4_from_pose_rows
from geometry_core.scene_graph.collision_filters import (
    CollisionFilterDeclaration,
    CollisionFilterManager,
    FilteredPairs,
)
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.frame_pose_vector import FramePoseVector
from geometry_core.scene_graph.identifiers import FrameId, GeometryId, SourceId
from geometry_core.scene_graph.instances import GeometryFrame, GeometryInstance, GeometrySet
from geometry_core.scene_graph.point_clouds import (
    MAX_SCENE_CLOUDS,
    PointCloudRecord,
    checked_cloud,
)
from geometry_core.scene_graph.pose_table import PoseTable
from geometry_core.scene_graph.registration import Registration
from geometry_core.scene_graph.roles import Role
from geometry_core.scene_graph.snapshot import SceneSnapshot, SnapshotCache
from geometry_core.shapes import Shape

__all__ = ["GeometryState"]


class GeometryState(Registration):
    """Registration of sources, frames and geometries, roles, filters and poses.

    This is the model half of :class:`geometry_core.SceneGraph`; use that
    class (it adds ``query_object()``).
    """

    def __init__(self) -> None:
        super().__init__()
        self._poses = PoseTable()
        self._filters = FilteredPairs()
        self._cache = SnapshotCache()
        self._version = 0
        self._slot_cache: tuple[tuple, np.ndarray] | None = None
        # Per source, {frame id: slot} of its frames: what set_poses' compiled
        # path looks ids up in (rebuilt after a frame is registered).
        self._source_slots: dict[SourceId, dict[FrameId, int]] = {}
        self._lock = threading.RLock()
        # Registered point clouds by id, in id order (records are immutable).
        self._clouds: dict[GeometryId, PointCloudRecord] = {}

    def __deepcopy__(self, memo: dict) -> GeometryState:
        """An independent copy with a lock of its own (a lock is not copied).

        Taken before any query, it holds no collision engine objects: the ROS
        node gives its clearance checker a copy of the robot it loaded.
        """
        twin = self.__class__.__new__(self.__class__)
        memo[id(self)] = twin
        with self._lock:
            for key, value in self.__dict__.items():
                setattr(twin, key, threading.RLock() if key == "_lock"
                        else copy.deepcopy(value, memo))
        return twin

    # ------------------------------------------------------------------- hooks

    def _new_frame_slots(self, parent_slots: list[int], names: list[str],
                         scoped_names: list[str]) -> None:
        self._source_slots.clear()
        self._poses.add_frames(parent_slots, names, scoped_names)

    def _geometries_removed(self, removed: set[int]) -> None:
        self._filters.forget(removed)

    def _topology_changed(self) -> None:
        self._version += 1
        self._cache.clear()

    def geometry_version(self) -> int:
        """Return a counter that changes whenever registration, roles or filters change."""
        return self._version

    # ------------------------------------------------------- changes at run time

    def register_frames(self, source_id: SourceId, frames: Sequence[GeometryFrame],
                        parent_ids: Sequence[FrameId | None]) -> list[FrameId]:
        with self._lock:
            return super().register_frames(source_id, frames, parent_ids)

    def register_geometries(self, source_id: SourceId, frame_ids: Sequence[FrameId],
                            geometries: Sequence[GeometryInstance]) -> list[GeometryId]:
        # Many geometries: the next snapshot rebuilds the model rather than
        # editing it once per geometry.
        with self._lock:
            return super().register_geometries(source_id, frame_ids, geometries)

    def register_geometry(self, source_id: SourceId, parent_id: FrameId | GeometryId,
                          geometry: GeometryInstance) -> GeometryId:
        with self._lock:
            mark = self._cache.mark()
            geometry_id = super().register_geometry(source_id, parent_id, geometry)
            self._cache.resume(mark, ("add", geometry_id))
            return geometry_id

    def register_anchored_geometry(self, source_id: SourceId,
                                   geometry: GeometryInstance) -> GeometryId:
        with self._lock:
            mark = self._cache.mark()
            geometry_id = super().register_anchored_geometry(source_id, geometry)
            self._cache.resume(mark, ("add", geometry_id))
            return geometry_id

    def remove_geometry(self, source_id: SourceId, geometry_id: GeometryId) -> None:
        with self._lock:
            if geometry_id in self._clouds:
                self._source(source_id)
                record = self._clouds[geometry_id]
                self._check_owner(source_id, record.source_id, f"point cloud {record.name!r}")
                del self._clouds[geometry_id]
                self._version += 1
                return
            mark = self._cache.mark()
            # The geometry and those registered relative to it.
            doomed, k = [geometry_id], 0
            while k < len(doomed) and doomed[k] in self._geometries:
                doomed.extend(self._geometries[doomed[k]].child_ids)
                k += 1
            super().remove_geometry(source_id, geometry_id)
            self._cache.resume(mark, ("remove", tuple(doomed)))

    def assign_role(self, source_id, geometry_id, properties, *args, **kwargs) -> None:
        with self._lock:
            super().assign_role(source_id, geometry_id, properties, *args, **kwargs)

    def remove_role(self, source_id, id, role) -> int:
        with self._lock:
            return super().remove_role(source_id, id, role)

    def change_shape(self, source_id: SourceId, geometry_id: GeometryId, shape: Shape,
                     X_FG: RigidTransform | None = None) -> None:
        """Replace a geometry's shape, and its pose in its frame when ``X_FG`` is given.

        Drake's ``SceneGraph::ChangeShape``. Geometry registered relative
        to this one keeps its pose relative to it. The next snapshot sees
        the change; it costs that geometry, not the scene.

        Raises
        ------
        KeyError
            If the source or geometry is unknown.
        ValueError
            If the geometry belongs to another source.
        TypeError
            If ``shape`` is not a Shape or ``X_FG`` not a RigidTransform.
        """
        if not isinstance(shape, Shape):
            raise TypeError(f"shape must be a Shape, got {type(shape).__name__}")
        self._change(source_id, geometry_id, shape, X_FG)

    def change_pose(self, source_id: SourceId, geometry_id: GeometryId,
                    X_FG: RigidTransform) -> None:
        """Move a geometry on its frame: its new pose in the frame is ``X_FG``.

        For anchored geometry the frame is the world: this moves an
        obstacle. Geometry registered relative to this one moves with it.
        As :meth:`change_shape` with the geometry's own shape.
        """
        self._change(source_id, geometry_id, None, X_FG)

    # ------------------------------------------------------------- point clouds

    def register_point_cloud(self, source_id: SourceId, frame_id: FrameId, p_FP,
                             radius: float, name: str = "point_cloud") -> GeometryId:
        """Register a point cloud: each finite row of ``p_FP`` a sphere of ``radius`` on a frame.

        ``p_FP`` (N, 3) is measured and expressed in frame ``frame_id`` (the
        world frame's id for an obstacle in the world). Proximity queries
        answer the cloud as they would N spheres registered on that frame
        with the proximity role, in one id: results name the cloud's
        GeometryId and the row hit (``point_index``). Rows holding a NaN or
        an infinity are skipped (:meth:`get_point_cloud` counts them).
        Points of one cloud, or of two clouds, are not checked against
        each other; a cloud is checked against every proximity geometry
        not on its frame (nor anchored, when the cloud is in the world).
        Collision filter declarations do not name clouds.

        Raises
        ------
        KeyError
            If the source or frame is unknown.
        ValueError
            If the frame belongs to another source, ``p_FP`` is not (N, 3)
            numbers or passes ``MAX_SCENE_CLOUD_POINTS`` rows, ``radius`` is
            not finite and > 0, or ``MAX_SCENE_CLOUDS`` clouds exist.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        points, radius, non_finite = checked_cloud(p_FP, radius, name)
        with self._lock:
            self._source(source_id)
            if not isinstance(frame_id, FrameId):
                raise TypeError(f"frame_id must be a FrameId, got {frame_id!r}")
            frame = self._frame(frame_id)
            if frame.source_id is not None:
                self._check_owner(source_id, frame.source_id, f"frame {frame.name!r}")
            if len(self._clouds) >= MAX_SCENE_CLOUDS:
                raise ValueError(f"registering point cloud {name!r} would pass the cap of "
                                 f"{MAX_SCENE_CLOUDS} clouds")
            geometry_id = GeometryId.get_new_id()
            self._clouds[geometry_id] = PointCloudRecord(geometry_id, name, source_id, frame_id,
                                                         frame.slot, points, radius, non_finite)
            self._version += 1
            return geometry_id

    def change_point_cloud(self, source_id: SourceId, geometry_id: GeometryId, p_FP,
                           radius: float | None = None) -> None:
        """Replace a cloud's points (and its radius when given); the next snapshot sees them.

        Snapshots taken before keep the points they saw. Costs the new
        points, not the scene. Raises as :meth:`register_point_cloud`, and
        KeyError when ``geometry_id`` is not a point cloud.
        """
        with self._lock:
            record = self._cloud(geometry_id)
            points, radius, non_finite = checked_cloud(
                p_FP, record.radius if radius is None else radius, record.name)
            self._source(source_id)
            self._check_owner(source_id, record.source_id, f"point cloud {record.name!r}")
            self._clouds[geometry_id] = PointCloudRecord(
                geometry_id, record.name, source_id, record.frame_id, record.frame_slot, points,
                radius, non_finite)
            self._version += 1

    def get_point_cloud(self, geometry_id: GeometryId) -> PointCloudRecord:
        """Return the registered cloud ``geometry_id`` (points as given, radius, frame)."""
        with self._lock:
            return self._cloud(geometry_id)

    def get_point_cloud_ids(self) -> list[GeometryId]:
        """Return the ids of every registered point cloud, in id order."""
        with self._lock:
            return list(self._clouds)

    def _cloud(self, geometry_id: GeometryId) -> PointCloudRecord:
        record = self._clouds.get(geometry_id)
        if record is None:
            raise KeyError(f"{geometry_id!r} is not a registered point cloud")
        return record

    def _change(self, source_id, geometry_id, shape, X_FG) -> None:
        if X_FG is not None and not isinstance(X_FG, RigidTransform):
            raise TypeError(f"X_FG must be a RigidTransform, got {type(X_FG).__name__}")
        with self._lock:
            self._source(source_id)
            record = self._geometry(geometry_id)
            self._check_owner(source_id, record.source_id, f"geometry {record.name!r}")
            mark = self._cache.mark()
            if shape is not None:
                record.shape = shape
            changed = [record]
            if X_FG is not None:
                X_FG = X_FG.get_as_matrix4()
                if record.parent_geometry_id is not None:
                    parent = self._geometries[record.parent_geometry_id]
                    record.X_PG = np.linalg.inv(parent.X_FG) @ X_FG
                else:
                    record.X_PG = X_FG
                record.X_FG = X_FG
                k = 0
                while k < len(changed):
                    for child_id in changed[k].child_ids:
                        child = self._geometries[child_id]
                        child.X_FG = changed[k].X_FG @ child.X_PG
                        changed.append(child)
                    k += 1
            self._topology_changed()
            self._cache.resume(mark, ("change", tuple(r.id for r in changed)))

    def _edit_model(self, model: CollisionModel, edits: list) -> CollisionModel:
        """``model`` with the geometry edits since it was built applied, in order."""
        for kind, what in edits:
            if kind == "remove":
                model = model.without(self._version, what)
                continue
            for geometry_id in ((what,) if kind == "add" else what):
                record = self._geometries.get(geometry_id)
                present = model.find_index(geometry_id) is not None
                if record is None or Role.PROXIMITY not in record.properties:
                    if present:
                        model = model.without(self._version, (geometry_id,))
                elif present:
                    model = model.replaced(self._version, geometry_id, record.shape,
                                           record.X_FG)
                else:
                    model = model.inserted(self._version, geometry_id,
                                           self._scoped_name(record), record.shape,
                                           self._frames[record.frame_id].slot, record.X_FG)
        if model.version != self._version:
            object.__setattr__(model, "version", self._version)
        return model

    # ------------------------------------------------------------------ filters

    def collision_filter_manager(self) -> CollisionFilterManager:
        """Return the manager that applies collision filter declarations."""
        return CollisionFilterManager(self)

    def exclude_collisions_within(self, geometry_set: GeometrySet) -> None:
        """Never report pairs within ``geometry_set`` (frames stand for their geometries)."""
        self._apply_filter_declaration(CollisionFilterDeclaration().exclude_within(geometry_set))

    def exclude_collisions_between(self, set_A: GeometrySet, set_B: GeometrySet) -> None:
        """Never report pairs with one geometry in each set."""
        self._apply_filter_declaration(CollisionFilterDeclaration().exclude_between(set_A, set_B))

    def _apply_filter_declaration(self, declaration: CollisionFilterDeclaration) -> None:
        with self._lock:
            # A set in several statements (a link between its two joints) is expanded once.
            sets: dict[int, set[int]] = {}

            def expand(geometry_set: GeometrySet) -> set[int]:
                values = sets.get(id(geometry_set))
                if values is None:
                    values = sets[id(geometry_set)] = self._expand(geometry_set)
                return values

            expanded = [(kind, expand(a), None if b is None else expand(b))
                        for kind, a, b in declaration.statements]
            self._filters.apply(expanded)
            self._topology_changed()

    # -------------------------------------------------------------------- poses

    def set_poses(self, source_id: SourceId,
                  poses: Mapping[FrameId, RigidTransform] | FramePoseVector) -> None:
        """Set frame poses in their parent frames (FramePoseVector semantics).

        Frames not in ``poses`` keep their previous pose. The update is all or
        nothing: on any error no pose changes.

        Raises
        ------
        KeyError
            If the source or a frame is unknown.
        ValueError
            If a frame belongs to another source.
        TypeError
            If a value is not a RigidTransform.
        """
        with self._lock:
            # The common call, a dict (or FramePoseVector) of RigidTransforms for
            # frames of this source, is one compiled call; anything else, and every
            # error, takes the loop below, which names what is wrong.
            items = poses if type(poses) is dict else (
                poses._poses if type(poses) is FramePoseVector else None)
            if items is not None and type(source_id) is SourceId:
                if self._poses.copy_items(items, self._slots_of_source(source_id), RigidTransform):
                    return
            source = self._source(source_id)
            frames = self._frames
            slots, matrices = [], []
            for frame_id, X_PF in poses.items():
                frame = frames.get(frame_id)
                # Identity first: ids compare in Python, and callers pass the id
                # register_source gave them.
                if frame is None or (frame.source_id is not source_id
                                     and frame.source_id != source_id):
                    self._bad_frame_for_source(frame_id, source_id, source)
                if not isinstance(X_PF, RigidTransform):
                    raise TypeError(f"pose of frame {frame.name!r} must be a RigidTransform, "
                                    f"got {type(X_PF).__name__}")
                slots.append(frame.slot)
                # A RigidTransform's matrix is valid by construction and is copied
                # into the pose table below, so it is read without a copy here.
                matrices.append(X_PF._X)
            self._poses.copy_rows(slots, matrices)

    def _slots_of_source(self, source_id: SourceId) -> dict[FrameId, int]:
        """``{frame id: slot}`` of the frames of ``source_id`` (cached until a frame is added).

        Raises
        ------
        KeyError
            If the source is unknown.
        """
        slot_of = self._source_slots.get(source_id)
        if slot_of is None:
            source = self._source(source_id)
            slot_of = {frame_id: self._frames[frame_id].slot for frame_id in source.frame_ids}
            self._source_slots[source_id] = slot_of
        return slot_of

    def set_poses_array(self, source_id: SourceId, frame_ids: Iterable[FrameId],
                        X_PF: np.ndarray) -> None:
        """Vectorised pose setter: ``X_PF[k]`` is the pose of ``frame_ids[k]`` in its parent.

        Parameters
        ----------
        frame_ids : sequence of FrameId, length N
            Frames of ``source_id``. Passing the same sequence again skips the
            id lookup (it is cached).
        X_PF : (N, 4, 4) float
            Homogeneous poses, validated as a batch (finite, proper rotation,
            last row ``[0, 0, 0, 1]``).

        Raises
        ------
        KeyError, ValueError
            As ``set_poses``, plus ``ValueError`` for a bad shape or an invalid
            pose (the message gives the frame's name and what is wrong).
        """
        with self._lock:
            self._poses.set_rows(self._slots_for(source_id, frame_ids), X_PF)

    def set_poses_from_pose_rows(self, source_id: SourceId, frame_ids: Iterable[FrameId],
                                 rows: Sequence[Sequence[float]],
                                 order: Sequence[int] = (0, 1, 2, 3, 4, 5, 6)) -> None:
        """Vectorised pose setter from rows of seven numbers: position, then quaternion.

        ``set_poses_array(source_id, frame_ids, matrix4_from_pose_rows(rows,
        order))``, the same poses to the bit and the same errors, in one
        compiled call that reads the rows and writes the pose table: for a
        caller that keeps poses as the numbers they arrived as (a /tf buffer).

        Parameters
        ----------
        frame_ids : sequence of FrameId, length N
            As for :meth:`set_poses_array` (the same sequence again skips the
            id lookup).
        rows : sequence of N sequences of float
        order : sequence of 7 int
            Where each row holds the position's x, y, z, then the
            quaternion's w, x, y, z (normalised here; it must not be zero).

        Raises
        ------
        KeyError, ValueError
            As :meth:`set_poses_array` and ``matrix4_from_pose_rows``.
        """
        rows = rows if type(rows) is list else list(rows)
        if type(order) is not tuple:
            order = tuple(map(int, order))
        with self._lock:
            slots = self._slots_for(source_id, frame_ids)
            if len(rows) == len(slots) and len(order) == 7 and \
                    self._poses.set_rows_from_pose_rows(slots, rows, order):
                return
        # A row the compiled call refused: the checked path says what is wrong.
        self.set_poses_array(source_id, frame_ids, matrix4_from_pose_rows(rows, order))

    def compute_world_poses_batch(self, source_id: SourceId, frame_ids: Iterable[FrameId],
                                  X_PF: np.ndarray) -> np.ndarray:
        """World poses of every frame for K configurations, without changing the scene.

        Parameters
        ----------
        frame_ids : sequence of FrameId, length N
            Frames of ``source_id`` whose poses vary; every other frame keeps
            its current pose in all K configurations.
        X_PF : (K, N, 4, 4) float
            ``X_PF[k, n]`` is the pose of ``frame_ids[n]`` in its parent in
            configuration k; validated as a batch.

        Returns
        -------
        (K, F, 4, 4) float
            ``X_WF`` of every frame slot in each configuration.

        Raises
        ------
        KeyError, ValueError
            As ``set_poses_array``; also when a frame outside ``frame_ids``
            has never been given a pose.
        """
        return self._poses.world_poses_batch(self._slots_for(source_id, frame_ids), X_PF)

    @property
    def pose_writes(self) -> int:
        """How many times a frame pose (or the frame tree) has changed: equal, nothing moved."""
        return self._poses.writes

    def pose_tree(self, source_id: SourceId, frame_ids: Iterable[FrameId]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The frame tree for a compiled loop that poses ``frame_ids`` itself.

        Returns
        -------
        X_PF : (F, 4, 4) float
            Every frame slot's current pose in its parent (a copy; the rows
            of ``frame_ids`` are to be overwritten).
        parent_slot : (F,) int32
            Each slot's parent slot (the world, slot 0, is its own).
        slots : (N,) int32
            The slot of each of ``frame_ids``.

        Raises
        ------
        KeyError, ValueError
            As :meth:`compute_world_poses_batch`.
        """
        slots = self._slots_for(source_id, frame_ids)
        X_PF, parents = self._poses.pose_tree(slots)
        return X_PF, parents, slots.astype(np.int32)

    def _bad_frame_for_source(self, frame_id, source_id, source) -> None:
        if not isinstance(frame_id, FrameId):
            raise TypeError(f"pose keys must be FrameId, got {frame_id!r}")
        frame = self._frames.get(frame_id)
        if frame is None:
            raise KeyError(f"{frame_id!r} is not a registered frame")
        if frame.source_id is None:
            raise ValueError("the world frame's pose cannot be set")
        raise ValueError(f"frame {frame.name!r} belongs to source "
                         f"{self._sources[frame.source_id].name!r}, not {source.name!r}")

    def _slots_for(self, source_id: SourceId, frame_ids: Iterable[FrameId]) -> np.ndarray:
        """Slots of ``frame_ids`` (all of ``source_id``); the last lookup is cached."""
        cache = self._slot_cache
        # The same source and tuple objects again (a caller that poses the
        # same frames every cycle): checked when cached, no id compared.
        # Neither sources nor frames are ever removed.
        if cache is not None and cache[0][1] is frame_ids and cache[0][0] is source_id:
            return cache[1]
        source = self._source(source_id)
        key = (source_id, tuple(frame_ids))
        if cache is not None and cache[0] == key:
            return cache[1]
        slot_of = self._slots_of_source(source_id)
        slots = np.empty(len(key[1]), dtype=np.intp)
        for n, frame_id in enumerate(key[1]):
            slot = slot_of.get(frame_id)
            if slot is None:
                self._bad_frame_for_source(frame_id, source_id, source)
            slots[n] = slot
        self._slot_cache = (key, slots)
        return slots

    def frames_without_poses(self) -> list[FrameId]:
        """Return the frames that have never been given a pose."""
        return [self._frame_by_slot[s].id for s in self._poses.slots_without_pose()]

    def compute_world_poses(self) -> np.ndarray:
        """Return ``X_WF`` for every frame slot, shape (F, 4, 4).

        Raises
        ------
        ValueError
            If a frame has never been given a pose (names every such frame).
        """
        return self._poses.world_poses()

    # --------------------------------------------------------------- snapshots

    def snapshot(self, frames_without_pose: str = "raise") -> SceneSnapshot:
        """Freeze the current poses and proximity model for querying.

        Parameters
        ----------
        frames_without_pose : {"raise", "skip"}
            What to do when a frame has never been given a pose: raise
            ``ValueError`` naming the frames (the default), or leave out of
            this snapshot every geometry on such a frame or below one (a node
            that has not yet heard of some frames keeps answering for the
            rest).

        Raises
        ------
        ValueError
            With ``"raise"`` and a frame without a pose, or an unknown option.
        """
        if frames_without_pose not in ("raise", "skip"):
            raise ValueError("frames_without_pose must be 'raise' or 'skip', "
                             f"got {frames_without_pose!r}")
        with self._lock:
            return self._snapshot(frames_without_pose)

    def _snapshot(self, frames_without_pose: str) -> SceneSnapshot:
        slot_of = self.frame_slot_map()
        clouds = tuple(self._clouds.values())
        if frames_without_pose == "raise" or self._poses.all_posed():
            return SceneSnapshot(self.collision_model(), self.compute_world_poses(), slot_of,
                                 clouds)
        X_WF, unposed = self._poses.world_poses_where_posed()
        model = self.collision_model()
        return SceneSnapshot(self._cache.partial_model(model, ~unposed[model.frame_slot]),
                             X_WF, slot_of,
                             tuple(c for c in clouds if not unposed[c.frame_slot]))

    def frame_slot_map(self) -> dict:
        """``{frame id: slot}`` of every frame, cached until the topology changes (read only)."""
        return self._cache.slot_of(lambda: {f.id: f.slot for f in self._frame_by_slot})

    def collision_model(self) -> CollisionModel:
        """Return the proximity model of the current topology (cached until it changes)."""
        with self._lock:
            return self._cache.collision_model(self._build_collision_model, self._edit_model)

    def _build_collision_model(self) -> CollisionModel:
        records = sorted((g for g in self._geometries.values()
                          if Role.PROXIMITY in g.properties), key=lambda g: g.id)
        index = {g.id.get_value(): i for i, g in enumerate(records)}
        keys = self._filters.keys(index)
        frame_slot = np.array([self._frames[g.frame_id].slot for g in records], dtype=np.intp)
        X_FG = (np.array([g.X_FG for g in records]) if records else np.zeros((0, 4, 4)))
        return CollisionModel(
            version=self._version,
            geometry_ids=tuple(g.id for g in records),
            names=tuple(self._scoped_name(g) for g in records),
            shapes=tuple(g.shape for g in records),
            frame_slot=frame_slot,
            X_FG=X_FG,
            anchored=frame_slot == 0,
            filtered_keys=np.array(sorted(keys), dtype=np.int64),
        )
