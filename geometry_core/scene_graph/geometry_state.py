"""The scene model: sources, frames, geometries, roles, collision filters and poses.

:class:`GeometryState` owns registration and the current frame poses. It is
the scene graph minus the ability to answer questions: the query engine in
``geometry_core.proximity`` reads a :class:`SceneSnapshot` from it, and this
module never imports the engine (DESIGN.md section 1).

Data layout, chosen for the pose-update-and-query cycle:

* Frames get a slot at registration, in registration order. A parent must
  exist before its child, so slot order is already topological and world
  poses compose level by level: one batched ``matmul`` per tree depth.
* Poses in parent ``X_PF`` live in one ``(capacity, 4, 4)`` array; setting a
  pose is a row copy, and the vectorised setter is one fancy-index write.
* The proximity view (:class:`CollisionModel`) is rebuilt only when the
  topology changes, never per pose update.

Every mutating call validates everything before it changes anything, so a
rejected call leaves the model as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from geometry_core import compiled
from geometry_core.math import RigidTransform
from geometry_core.math.kernels import validate_matrix4s
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.identifiers import FrameId, GeometryId, SourceId
from geometry_core.scene_graph.instances import GeometryFrame, GeometryInstance, GeometrySet
from geometry_core.scene_graph.roles import (
    GeometryProperties,
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    Role,
    RoleAssign,
)
from geometry_core.shapes import Shape

__all__ = ["GeometryState", "SceneSnapshot", "FramePoseVector",
           "CollisionFilterDeclaration", "CollisionFilterManager"]

_WORLD_NAME = "world"
_ROLE_OF = {ProximityProperties: Role.PROXIMITY, IllustrationProperties: Role.ILLUSTRATION,
            PerceptionProperties: Role.PERCEPTION}


@dataclass(eq=False)
class _Source:
    name: str
    frame_ids: list[FrameId] = field(default_factory=list)
    geometry_ids: list[GeometryId] = field(default_factory=list)


@dataclass(eq=False)
class _Frame:
    id: FrameId
    name: str
    source_id: SourceId | None  # None for the world frame
    parent_id: FrameId | None
    frame_group: int
    slot: int
    child_ids: list[FrameId] = field(default_factory=list)
    geometry_ids: list[GeometryId] = field(default_factory=list)
    tint: Rgba | None = None


@dataclass(eq=False)
class _Geometry:
    id: GeometryId
    name: str
    source_id: SourceId
    frame_id: FrameId
    parent_geometry_id: GeometryId | None
    X_PG: np.ndarray  # pose in the parent (frame or geometry)
    X_FG: np.ndarray  # pose in the frame
    shape: Shape
    properties: dict[Role, GeometryProperties] = field(default_factory=dict)
    child_ids: list[GeometryId] = field(default_factory=list)


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


class CollisionFilterDeclaration:
    """A list of filter statements to apply at once (Drake's declaration).

    Each method returns ``self`` so statements chain.
    """

    def __init__(self) -> None:
        self.statements: list[tuple[str, GeometrySet, GeometrySet | None]] = []

    def exclude_within(self, geometry_set: GeometrySet) -> CollisionFilterDeclaration:
        """Never report pairs with both geometries in the set."""
        self.statements.append(("exclude_within", _as_set(geometry_set), None))
        return self

    def exclude_between(self, set_A: GeometrySet, set_B: GeometrySet) -> CollisionFilterDeclaration:
        """Never report pairs with one geometry in each set."""
        self.statements.append(("exclude_between", _as_set(set_A), _as_set(set_B)))
        return self

    def allow_within(self, geometry_set: GeometrySet) -> CollisionFilterDeclaration:
        """Undo exclusions within the set (same-frame and anchored pairs stay excluded)."""
        self.statements.append(("allow_within", _as_set(geometry_set), None))
        return self

    def allow_between(self, set_A: GeometrySet, set_B: GeometrySet) -> CollisionFilterDeclaration:
        """Undo exclusions between the sets (same-frame and anchored pairs stay excluded)."""
        self.statements.append(("allow_between", _as_set(set_A), _as_set(set_B)))
        return self


def _as_set(geometry_set) -> GeometrySet:
    if not isinstance(geometry_set, GeometrySet):
        raise TypeError(f"expected a GeometrySet, got {type(geometry_set).__name__}")
    return geometry_set


class CollisionFilterManager:
    """Applies collision filter declarations to a scene (Drake's manager)."""

    def __init__(self, state: GeometryState) -> None:
        self._state = state

    def apply(self, declaration: CollisionFilterDeclaration) -> None:
        """Apply every statement; on an unknown id nothing is applied.

        Raises
        ------
        KeyError
            If a set names an unknown frame or geometry.
        """
        self._state._apply_filter_declaration(declaration)


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
    """

    collision_model: CollisionModel
    X_WF: np.ndarray
    frame_slot_of: dict


class GeometryState:
    """Registration of sources, frames and geometries, roles, filters and poses.

    This is the model half of :class:`geometry_core.SceneGraph`; use that
    class (it adds ``query_object()``).
    """

    def __init__(self) -> None:
        self._sources: dict[SourceId, _Source] = {}
        self._source_names: set[str] = set()
        self._world_id = FrameId.get_new_id()
        world = _Frame(self._world_id, _WORLD_NAME, None, None, 0, 0)
        self._frames: dict[FrameId, _Frame] = {self._world_id: world}
        self._frame_by_slot: list[_Frame] = [world]
        self._geometries: dict[GeometryId, _Geometry] = {}
        self._filtered_pairs: set[tuple[int, int]] = set()
        self._X_PF = np.tile(np.eye(4), (8, 1, 1))
        self._has_pose = np.zeros(8, dtype=bool)
        self._has_pose[0] = True
        self._parent_slot = np.zeros(8, dtype=np.intp)
        self._version = 0
        self._parent_slot32: np.ndarray | None = None  # int32 parents, for compiled.native
        self._slot_of: dict | None = None  # frame id -> slot, shared by snapshots
        self._collision_model: CollisionModel | None = None
        # The last partial model of snapshot(frames_without_pose="skip"):
        # (full model, which geometries it keeps, the subset).
        self._partial_model: tuple[CollisionModel, bytes, CollisionModel] | None = None
        self._slot_cache: tuple[tuple, np.ndarray] | None = None

    # ------------------------------------------------------------------ sources

    def register_source(self, name: str = "") -> SourceId:
        """Register a geometry source and return its id.

        Parameters
        ----------
        name : str
            Unique name; empty picks ``source_<n>``.

        Raises
        ------
        ValueError
            If the name is already used by another source.
        """
        if not isinstance(name, str):
            raise TypeError(f"source name must be a str, got {type(name).__name__}")
        source_id = SourceId.get_new_id()
        if not name:
            name = f"source_{source_id.get_value()}"
        if name in self._source_names:
            raise ValueError(f"a source named {name!r} is already registered; "
                             "source names must be unique")
        self._sources[source_id] = _Source(name)
        self._source_names.add(name)
        return source_id

    def source_is_registered(self, source_id: SourceId) -> bool:
        return source_id in self._sources

    def world_frame_id(self) -> FrameId:
        return self._world_id

    # ------------------------------------------------------------------- frames

    def register_frame(self, source_id: SourceId, frame: GeometryFrame,
                       parent_id: FrameId | None = None) -> FrameId:
        """Register ``frame`` under ``parent_id`` (the world frame by default).

        Raises
        ------
        KeyError
            If the source or parent frame is unknown.
        ValueError
            If the parent belongs to another source, the frame id is already
            registered, or the source already has a frame of that name.
        """
        source = self._source(source_id)
        if not isinstance(frame, GeometryFrame):
            raise TypeError(f"frame must be a GeometryFrame, got {type(frame).__name__}")
        parent_id = self._world_id if parent_id is None else parent_id
        parent = self._frame(parent_id)
        if parent.source_id is not None and parent.source_id != source_id:
            raise ValueError(f"parent frame {parent.name!r} belongs to source "
                             f"{self._sources[parent.source_id].name!r}, not "
                             f"{source.name!r}")
        if frame.id() in self._frames:
            raise ValueError(f"frame {frame.name()!r} ({frame.id()!r}) is already registered")
        if any(self._frames[f].name == frame.name() for f in source.frame_ids):
            raise ValueError(f"source {source.name!r} already has a frame named {frame.name()!r}")
        slot = len(self._frame_by_slot)
        self._grow_frames(slot + 1)
        record = _Frame(frame.id(), frame.name(), source_id, parent_id, frame.frame_group(), slot)
        self._frames[frame.id()] = record
        self._frame_by_slot.append(record)
        self._parent_slot[slot] = parent.slot
        self._X_PF[slot] = np.eye(4)
        self._has_pose[slot] = False
        parent.child_ids.append(frame.id())
        source.frame_ids.append(frame.id())
        self._topology_changed()
        return frame.id()

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

    # --------------------------------------------------------------- geometries

    def register_geometry(self, source_id: SourceId, parent_id: FrameId | GeometryId,
                          geometry: GeometryInstance) -> GeometryId:
        """Register ``geometry`` on a frame, or posed relative to another geometry.

        When ``parent_id`` is a GeometryId the instance's pose is taken in that
        geometry's frame G and the new geometry is fixed to G's frame.

        Raises
        ------
        KeyError
            If the source, frame or parent geometry is unknown.
        ValueError
            If the parent belongs to another source, or the id is already used.
        """
        source = self._source(source_id)
        if not isinstance(geometry, GeometryInstance):
            raise TypeError(f"geometry must be a GeometryInstance, got {type(geometry).__name__}")
        X_PG = geometry.pose().get_as_matrix4()
        parent_geometry_id = None
        if isinstance(parent_id, GeometryId):
            parent_geometry = self._geometry(parent_id)
            self._check_owner(source_id, parent_geometry.source_id,
                              f"geometry {parent_geometry.name!r}")
            frame = self._frames[parent_geometry.frame_id]
            X_FG = parent_geometry.X_FG @ X_PG
            parent_geometry_id = parent_id
        elif isinstance(parent_id, FrameId):
            frame = self._frame(parent_id)
            if frame.source_id is None:
                raise ValueError("use register_anchored_geometry() for geometry on the world frame")
            self._check_owner(source_id, frame.source_id, f"frame {frame.name!r}")
            X_FG = X_PG
        else:
            raise TypeError(f"parent_id must be a FrameId or GeometryId, got {parent_id!r}")
        return self._add_geometry(source, source_id, frame, parent_geometry_id, X_PG, X_FG,
                                  geometry)

    def register_anchored_geometry(self, source_id: SourceId,
                                   geometry: GeometryInstance) -> GeometryId:
        """Register geometry fixed in the world; its pose is ``X_WG``.

        Raises
        ------
        KeyError
            If the source is unknown.
        """
        source = self._source(source_id)
        if not isinstance(geometry, GeometryInstance):
            raise TypeError(f"geometry must be a GeometryInstance, got {type(geometry).__name__}")
        X_WG = geometry.pose().get_as_matrix4()
        world = self._frames[self._world_id]
        return self._add_geometry(source, source_id, world, None, X_WG, X_WG, geometry)

    def _add_geometry(self, source, source_id, frame, parent_geometry_id, X_PG, X_FG,
                      geometry: GeometryInstance) -> GeometryId:
        if geometry.id() in self._geometries:
            raise ValueError(f"geometry {geometry.name()!r} ({geometry.id()!r}) is already "
                             "registered")
        record = _Geometry(geometry.id(), geometry.name(), source_id, frame.id,
                           parent_geometry_id, X_PG, X_FG, geometry.shape())
        pending = [(props, _ROLE_OF[type(props)]) for props in
                   (geometry.proximity_properties(), geometry.illustration_properties(),
                    geometry.perception_properties()) if props is not None]
        for _, role in pending:
            self._check_unique_name(frame, role, record.name)
        for props, role in pending:
            record.properties[role] = props
        self._geometries[record.id] = record
        frame.geometry_ids.append(record.id)
        source.geometry_ids.append(record.id)
        if parent_geometry_id is not None:
            self._geometries[parent_geometry_id].child_ids.append(record.id)
        self._topology_changed()
        return record.id

    def remove_geometry(self, source_id: SourceId, geometry_id: GeometryId) -> None:
        """Remove a geometry and every geometry registered relative to it.

        Raises
        ------
        KeyError
            If the source or geometry is unknown.
        ValueError
            If the geometry belongs to another source.
        """
        self._source(source_id)
        record = self._geometry(geometry_id)
        self._check_owner(source_id, record.source_id, f"geometry {record.name!r}")
        doomed = [geometry_id]
        for gid in doomed:
            doomed.extend(self._geometries[gid].child_ids)
        if record.parent_geometry_id is not None:
            self._geometries[record.parent_geometry_id].child_ids.remove(geometry_id)
        for gid in doomed:
            gone = self._geometries.pop(gid)
            self._frames[gone.frame_id].geometry_ids.remove(gid)
            self._sources[gone.source_id].geometry_ids.remove(gid)
        removed = {gid.get_value() for gid in doomed}
        self._filtered_pairs = {pair for pair in self._filtered_pairs
                                if pair[0] not in removed and pair[1] not in removed}
        self._topology_changed()

    # -------------------------------------------------------------------- roles

    def assign_role(self, source_id: SourceId, geometry_id: GeometryId,
                    properties: GeometryProperties,
                    assign: RoleAssign = RoleAssign.NEW) -> None:
        """Give a geometry the role that ``properties`` stands for.

        Raises
        ------
        KeyError
            If the source or geometry is unknown.
        ValueError
            If the geometry belongs to another source, already has the role
            (with ``RoleAssign.NEW``), lacks it (with ``RoleAssign.REPLACE``), or
            another geometry of its frame has that role and the same name.
        """
        self._source(source_id)
        record = self._geometry(geometry_id)
        self._check_owner(source_id, record.source_id, f"geometry {record.name!r}")
        role = _ROLE_OF.get(type(properties))
        if role is None:
            raise TypeError("properties must be ProximityProperties, IllustrationProperties "
                            f"or PerceptionProperties, got {type(properties).__name__}")
        if assign == RoleAssign.NEW:
            if role in record.properties:
                raise ValueError(f"geometry {record.name!r} already has the {role.name.lower()} "
                                 "role; pass RoleAssign.REPLACE to replace its properties")
            self._check_unique_name(self._frames[record.frame_id], role, record.name)
        elif role not in record.properties:
            raise ValueError(f"geometry {record.name!r} has no {role.name.lower()} role to "
                             "replace")
        record.properties[role] = properties.copy()
        self._topology_changed()

    def remove_role(self, source_id: SourceId, id: FrameId | GeometryId, role: Role) -> int:
        """Remove ``role`` from a geometry, or from every geometry of a frame.

        Returns the number of geometries that lost the role.
        """
        self._source(source_id)
        if isinstance(id, FrameId):
            frame = self._frame(id)
            if frame.source_id is not None:
                self._check_owner(source_id, frame.source_id, f"frame {frame.name!r}")
            targets = [self._geometries[g] for g in frame.geometry_ids
                       if self._geometries[g].source_id == source_id]
        else:
            record = self._geometry(id)
            self._check_owner(source_id, record.source_id, f"geometry {record.name!r}")
            targets = [record]
        count = sum(1 for record in targets if record.properties.pop(role, None) is not None)
        if count:
            self._topology_changed()
        return count

    def _check_unique_name(self, frame: _Frame, role: Role, name: str) -> None:
        for gid in frame.geometry_ids:
            other = self._geometries[gid]
            if other.name == name and role in other.properties:
                raise ValueError(f"frame {frame.name!r} already has a geometry named {name!r} "
                                 f"with the {role.name.lower()} role")

    # --------------------------------------------------------------- appearance

    def set_branch_color(self, source_id: SourceId, frame_id: FrameId,
                         rgba: Rgba | None) -> None:
        """Tint a frame's whole subtree: illustration colours multiply by ``rgba``.

        Tints nest: a geometry's drawn colour is its diffuse colour times the
        tints of its frame and of every ancestor frame (seed 002's branch
        alpha and colour). ``None`` clears the tint.
        """
        self._source(source_id)
        frame = self._frame(frame_id)
        if frame.source_id is None:
            raise ValueError("the world frame cannot be tinted")
        self._check_owner(source_id, frame.source_id, f"frame {frame.name!r}")
        if rgba is not None and not isinstance(rgba, Rgba):
            raise TypeError(f"rgba must be an Rgba or None, got {type(rgba).__name__}")
        frame.tint = rgba
        # Drawn colours changed: viewers re-send their load message on a new version.
        self._topology_changed()

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

    def _expand(self, geometry_set: GeometrySet) -> set[int]:
        values = set()
        for frame_id in geometry_set.frames():
            values.update(g.get_value() for g in self._frame(frame_id).geometry_ids)
        for geometry_id in geometry_set.geometries():
            values.add(self._geometry(geometry_id).id.get_value())
        return values

    def _apply_filter_declaration(self, declaration: CollisionFilterDeclaration) -> None:
        expanded = [(kind, self._expand(a), None if b is None else self._expand(b))
                    for kind, a, b in declaration.statements]
        pairs = set(self._filtered_pairs)
        for kind, a, b in expanded:
            if b is None:
                ordered = sorted(a)
                statement = {(x, y) for n, x in enumerate(ordered) for y in ordered[n + 1:]}
            else:
                statement = {(min(x, y), max(x, y)) for x in a for y in b if x != y}
            if kind.startswith("exclude"):
                pairs |= statement
            else:
                pairs -= statement
        self._filtered_pairs = pairs
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
        if slots:
            compiled.native.copy_poses(self._X_PF, slots, matrices)
            self._has_pose[slots] = True

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
        slots = self._slots_for(source_id, frame_ids)
        X_PF = np.asarray(X_PF, dtype=float)
        if X_PF.shape != (len(slots), 4, 4):
            raise ValueError(f"X_PF must have shape ({len(slots)}, 4, 4), got {X_PF.shape}")
        self._validate_pose_rows(X_PF, slots)
        self._X_PF[slots] = X_PF
        self._has_pose[slots] = True

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
        slots = self._slots_for(source_id, frame_ids)
        X_PF = np.asarray(X_PF, dtype=float)
        if X_PF.ndim != 4 or X_PF.shape[1:] != (len(slots), 4, 4):
            raise ValueError(f"X_PF must have shape (K, {len(slots)}, 4, 4), got {X_PF.shape}")
        self._validate_pose_rows(X_PF.reshape(-1, 4, 4), np.tile(slots, X_PF.shape[0]))
        n = len(self._frame_by_slot)
        has_pose = self._has_pose[:n].copy()
        has_pose[slots] = True
        self._require_poses(has_pose)
        X_WF = np.broadcast_to(self._X_PF[:n], (X_PF.shape[0], n, 4, 4)).copy()
        X_WF[:, slots] = X_PF
        # The composition query_object uses, so a batch answer equals a
        # single query's to the bit.
        for k in range(X_WF.shape[0]):
            X_WF[k] = self._compose(X_WF[k])
        return X_WF

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
        source = self._source(source_id)
        key = (source_id, tuple(frame_ids))
        if self._slot_cache is not None and self._slot_cache[0] == key:
            return self._slot_cache[1]
        slots = np.empty(len(key[1]), dtype=np.intp)
        for n, frame_id in enumerate(key[1]):
            frame = self._frames.get(frame_id)
            if frame is None or frame.source_id != source_id:
                self._bad_frame_for_source(frame_id, source_id, source)
            slots[n] = frame.slot
        self._slot_cache = (key, slots)
        return slots

    def _validate_pose_rows(self, X_PF: np.ndarray, slots: np.ndarray) -> None:
        """Validate (M, 4, 4) poses; an error names the frame of the first bad row."""
        try:
            validate_matrix4s(X_PF, name="X_PF")
        except ValueError as err:
            row = re.search(r"\[(\d+)\]", str(err))
            if row is None:
                raise
            name = self._frame_by_slot[slots[int(row.group(1))]].name
            raise ValueError(f"{err} (the pose of frame {name!r})") from None

    def frames_without_poses(self) -> list[FrameId]:
        """Return the frames that have never been given a pose."""
        n = len(self._frame_by_slot)
        return [self._frame_by_slot[s].id for s in np.flatnonzero(~self._has_pose[:n])]

    def compute_world_poses(self) -> np.ndarray:
        """Return ``X_WF`` for every frame slot, shape (F, 4, 4).

        Raises
        ------
        ValueError
            If a frame has never been given a pose (names every such frame).
        """
        n = len(self._frame_by_slot)
        self._require_poses(self._has_pose[:n])
        return self._compose(self._X_PF[:n])

    def _compose(self, X_PF: np.ndarray) -> np.ndarray:
        """World poses of all n frame slots from their poses in their parents (a new array)."""
        parents = self._parent_slot32
        if parents is None or len(parents) != len(X_PF):
            parents = self._parent_slot32 = np.ascontiguousarray(
                self._parent_slot[:len(X_PF)], dtype=np.int32)
        X_WF = np.frombuffer(compiled.native.compose_world(X_PF, parents),
                             dtype=np.float64).reshape(-1, 4, 4)
        return X_WF.copy()

    def _require_poses(self, has_pose: np.ndarray) -> None:
        if not has_pose.all():
            missing = [f"{self._sources[self._frame_by_slot[s].source_id].name}::"
                       f"{self._frame_by_slot[s].name}" for s in np.flatnonzero(~has_pose)]
            raise ValueError(f"no pose has been set for frame(s) {', '.join(missing)}; "
                             "call set_poses() first")

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
        n = len(self._frame_by_slot)
        if self._slot_of is None:
            self._slot_of = {f.id: f.slot for f in self._frame_by_slot}
        slot_of = self._slot_of
        if frames_without_pose == "raise" or self._has_pose[:n].all():
            return SceneSnapshot(self.collision_model(), self.compute_world_poses(), slot_of)
        unposed = ~self._has_pose[:n]
        for slot in range(1, n):  # parents come first: a missing ancestor propagates
            unposed[slot] |= unposed[self._parent_slot[slot]]
        X_PF = self._X_PF[:n].copy()
        X_PF[unposed] = np.eye(4)  # never read: their geometry is left out below
        X_WF = self._compose(X_PF)
        model = self.collision_model()
        keep = ~unposed[model.frame_slot]
        key = keep.tobytes()
        # Reuse the subset while the same frames lack poses (a node starting
        # up), so that its broadphase and compiled model are built once.
        partial = self._partial_model
        if partial is None or partial[0] is not model or partial[1] != key:
            partial = self._partial_model = (model, key, model.subset(keep))
        return SceneSnapshot(partial[2], X_WF, slot_of)

    # ---------------------------------------------------------------- topology

    def _topology_changed(self) -> None:
        self._version += 1
        self._parent_slot32 = None
        self._slot_of = None
        self._collision_model = None
        self._partial_model = None

    def geometry_version(self) -> int:
        """Return a counter that changes whenever registration, roles or filters change."""
        return self._version

    def collision_model(self) -> CollisionModel:
        """Return the proximity model of the current topology (cached until it changes)."""
        if self._collision_model is None:
            records = sorted((g for g in self._geometries.values()
                              if Role.PROXIMITY in g.properties), key=lambda g: g.id)
            size = len(records)
            index = {g.id.get_value(): i for i, g in enumerate(records)}
            keys = []
            for a, b in self._filtered_pairs:
                if a in index and b in index:
                    i, j = sorted((index[a], index[b]))
                    keys.append(i * size + j)
            frame_slot = np.array([self._frames[g.frame_id].slot for g in records], dtype=np.intp)
            X_FG = (np.array([g.X_FG for g in records]) if records else np.zeros((0, 4, 4)))
            self._collision_model = CollisionModel(
                version=self._version,
                geometry_ids=tuple(g.id for g in records),
                names=tuple(self._scoped_name(g) for g in records),
                shapes=tuple(g.shape for g in records),
                frame_slot=frame_slot,
                X_FG=X_FG,
                anchored=frame_slot == 0,
                filtered_keys=np.array(sorted(keys), dtype=np.int64),
            )
        return self._collision_model

    def _scoped_name(self, record: _Geometry) -> str:
        frame = self._frames[record.frame_id]
        return f"{self._sources[record.source_id].name}::{frame.name}::{record.name}"

    # ------------------------------------------------------------------ lookups

    def _source(self, source_id: SourceId) -> _Source:
        if not isinstance(source_id, SourceId):
            raise TypeError(f"expected a SourceId, got {source_id!r}")
        try:
            return self._sources[source_id]
        except KeyError:
            raise KeyError(f"{source_id!r} is not a registered source") from None

    def _frame(self, frame_id: FrameId) -> _Frame:
        if not isinstance(frame_id, FrameId):
            raise TypeError(f"expected a FrameId, got {frame_id!r}")
        try:
            return self._frames[frame_id]
        except KeyError:
            raise KeyError(f"{frame_id!r} is not a registered frame") from None

    def _geometry(self, geometry_id: GeometryId) -> _Geometry:
        if not isinstance(geometry_id, GeometryId):
            raise TypeError(f"expected a GeometryId, got {geometry_id!r}")
        try:
            return self._geometries[geometry_id]
        except KeyError:
            raise KeyError(f"{geometry_id!r} is not a registered geometry") from None

    def _check_owner(self, source_id: SourceId, owner_id: SourceId, what: str) -> None:
        if owner_id != source_id:
            raise ValueError(f"{what} belongs to source {self._sources[owner_id].name!r}, "
                             f"not {self._sources[source_id].name!r}")
