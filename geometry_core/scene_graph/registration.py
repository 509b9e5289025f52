"""Registration: the records of sources, frames and geometries, and the calls that change them.

:class:`Registration` registers and removes sources, frames and geometries,
assigns and removes roles, and tints branches. Every call validates
everything before it changes anything, so a rejected call leaves the model
as it was. It owns the records only: a new frame's pose row, the filters of
removed geometry and the caches belong to
:class:`~geometry_core.scene_graph.GeometryState`, which this class tells
through three hooks (``_new_frame_slots``, ``_geometries_removed``,
``_topology_changed``).

Imports ``geometry_core.shapes`` and the scene graph's ids, instances and
roles; never the query engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

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

__all__ = ["Registration"]

_WORLD_NAME = "world"
_ROLE_OF = {ProximityProperties: Role.PROXIMITY, IllustrationProperties: Role.ILLUSTRATION,
            PerceptionProperties: Role.PERCEPTION}


@dataclass(eq=False)
class _Source:
    name: str
    frame_ids: list[FrameId] = field(default_factory=list)
    frame_names: set[str] = field(default_factory=set)  # duplicate check in O(1)
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
    # Geometries of this frame by name (any role): the unique-name check
    # scans the frame only when the name is already there.
    name_count: dict[str, int] = field(default_factory=dict)


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


class Registration:
    """Sources, frames and geometries with their roles; the model half of a scene graph.

    Subclasses implement the three hooks below;
    :class:`~geometry_core.scene_graph.GeometryState` is the one that does.
    """

    def __init__(self) -> None:
        self._sources: dict[SourceId, _Source] = {}
        self._source_names: set[str] = set()
        self._world_id = FrameId.get_new_id()
        world = _Frame(self._world_id, _WORLD_NAME, None, None, 0, 0)
        self._frames: dict[FrameId, _Frame] = {self._world_id: world}
        self._frame_by_slot: list[_Frame] = [world]
        self._geometries: dict[GeometryId, _Geometry] = {}

    # ------------------------------------------------------------------- hooks

    def _new_frame_slots(self, parent_slots: list[int], names: list[str],
                         scoped_names: list[str]) -> None:
        """Give new frames the next pose rows, in order (a parent's row before its child's)."""
        raise NotImplementedError

    def _geometries_removed(self, removed: set[int]) -> None:
        """Forget what refers to the geometries with these id values."""
        raise NotImplementedError

    def _topology_changed(self) -> None:
        """Registration, roles, filters or tints changed."""
        raise NotImplementedError

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
        return self.register_frames(source_id, [frame], [parent_id])[0]

    def register_frames(self, source_id: SourceId, frames: Sequence[GeometryFrame],
                        parent_ids: Sequence[FrameId | None]) -> list[FrameId]:
        """Register many frames at once: ``register_frame`` for each pair, in order.

        A parent may be a frame earlier in ``frames``. All or nothing: the
        frames are checked first, and one bad frame registers none.

        Raises
        ------
        KeyError, ValueError, TypeError
            As :meth:`register_frame`, for the first frame at fault; also
            ValueError when the two sequences differ in length.
        """
        source = self._source(source_id)
        frames, parent_ids = list(frames), list(parent_ids)
        if len(frames) != len(parent_ids):
            raise ValueError(f"{len(frames)} frames but {len(parent_ids)} parent ids")
        pending: dict[FrameId, GeometryFrame] = {}
        names: set[str] = set()
        parents = []
        for frame, parent_id in zip(frames, parent_ids):
            if not isinstance(frame, GeometryFrame):
                raise TypeError(f"frame must be a GeometryFrame, got {type(frame).__name__}")
            parent_id = self._world_id if parent_id is None else parent_id
            if parent_id not in pending:
                parent = self._frame(parent_id)
                if parent.source_id is not None and parent.source_id != source_id:
                    raise ValueError(f"parent frame {parent.name!r} belongs to source "
                                     f"{self._sources[parent.source_id].name!r}, not "
                                     f"{source.name!r}")
            frame_id, name = frame._id, frame._name
            if frame_id in self._frames or frame_id in pending:
                raise ValueError(f"frame {name!r} ({frame_id!r}) is already registered")
            if name in source.frame_names or name in names:
                raise ValueError(f"source {source.name!r} already has a frame named {name!r}")
            pending[frame_id] = frame
            names.add(name)
            parents.append(parent_id)
        # Slots are handed out in order, so a frame's slot is known before it exists.
        base = len(self._frame_by_slot)
        parent_slots = []
        records, by_slot = self._frames, self._frame_by_slot
        for k, (frame, parent_id) in enumerate(zip(frames, parents)):
            parent = records[parent_id]  # pending parents come first: already added
            record = _Frame(frame._id, frame._name, source_id, parent_id, frame._frame_group,
                            base + k)
            records[record.id] = record
            by_slot.append(record)
            parent.child_ids.append(record.id)
            parent_slots.append(parent.slot)
        names = [frame._name for frame in frames]
        self._new_frame_slots(parent_slots, names, [f"{source.name}::{name}" for name in names])
        source.frame_ids.extend(pending)
        source.frame_names.update(names)
        self._topology_changed()
        return list(pending)

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
            frame = self._own_frame(source_id, parent_id)
            X_FG = X_PG
        else:
            raise TypeError(f"parent_id must be a FrameId or GeometryId, got {parent_id!r}")
        return self._add_geometry(source, source_id, frame, parent_geometry_id, X_PG, X_FG,
                                  geometry)

    def register_geometries(self, source_id: SourceId, frame_ids: Sequence[FrameId],
                            geometries: Sequence[GeometryInstance]) -> list[GeometryId]:
        """Register many geometries on frames at once: ``register_geometry`` for each pair.

        All or nothing: everything is checked first (names unique per frame
        and role among the new geometries too), and one bad geometry
        registers none.

        Raises
        ------
        KeyError, ValueError, TypeError
            As :meth:`register_geometry` on a frame, for the first geometry
            at fault; also ValueError when the two sequences differ in length.
        """
        source = self._source(source_id)
        frame_ids, geometries = list(frame_ids), list(geometries)
        if len(frame_ids) != len(geometries):
            raise ValueError(f"{len(frame_ids)} frame ids but {len(geometries)} geometries")
        new_ids: set[GeometryId] = set()
        # Roles of the new geometries by (frame record, name): names stay unique per role.
        new_names: dict[tuple[int, str], list[Role]] = {}
        pending = []
        frame_id = frame = None
        for next_id, geometry in zip(frame_ids, geometries):
            if not isinstance(geometry, GeometryInstance):
                raise TypeError(f"geometry must be a GeometryInstance, got "
                                f"{type(geometry).__name__}")
            if next_id is not frame_id:  # a frame's geometries usually come together
                if not isinstance(next_id, FrameId):
                    raise TypeError(f"parent_id must be a FrameId, got {next_id!r}")
                frame = self._frames.get(next_id)
                if frame is None or frame.source_id != source_id:
                    frame = self._own_frame(source_id, next_id)  # raises, naming the fault
                frame_id = next_id
            # The instance's fields, read directly: this loop runs once per geometry
            # of a robot (tens of thousands).
            geometry_id, name = geometry._id, geometry._name
            if geometry_id in self._geometries or geometry_id in new_ids:
                raise ValueError(f"geometry {name!r} ({geometry_id!r}) is already registered")
            roles = {_ROLE_OF[type(props)]: props for props in
                     (geometry._proximity, geometry._illustration, geometry._perception)
                     if props is not None}
            taken = new_names.setdefault((id(frame), name), [])
            for role in roles:
                if name in frame.name_count:
                    self._check_unique_name(frame, role, name)
                if role in taken:
                    raise ValueError(f"frame {frame.name!r} already has a geometry named "
                                     f"{name!r} with the {role.name.lower()} role")
                taken.append(role)
            new_ids.add(geometry_id)
            pending.append((frame, geometry, roles))
        geometries_by_id, source_ids = self._geometries, source.geometry_ids
        for frame, geometry, roles in pending:
            X_FG = geometry._X_PG._X.copy()  # the instance keeps its own
            record = _Geometry(geometry._id, geometry._name, source_id, frame.id, None, X_FG,
                               X_FG, geometry._shape, roles)
            # _insert_geometry, inline
            geometries_by_id[record.id] = record
            frame.geometry_ids.append(record.id)
            frame.name_count[record.name] = frame.name_count.get(record.name, 0) + 1
            source_ids.append(record.id)
        if pending:
            self._topology_changed()
        return [geometry.id() for geometry in geometries]

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
        self._insert_geometry(record, frame, source)
        if parent_geometry_id is not None:
            self._geometries[parent_geometry_id].child_ids.append(record.id)
        self._topology_changed()
        return record.id

    def _own_frame(self, source_id: SourceId, frame_id: FrameId) -> _Frame:
        """The record of a frame of ``source_id`` that geometry may be registered on."""
        frame = self._frame(frame_id)
        if frame.source_id is None:
            raise ValueError("use register_anchored_geometry() for geometry on the world frame")
        self._check_owner(source_id, frame.source_id, f"frame {frame.name!r}")
        return frame

    def _insert_geometry(self, record: _Geometry, frame: _Frame, source) -> None:
        """Enter a checked geometry record in the tables of its frame and source."""
        self._geometries[record.id] = record
        frame.geometry_ids.append(record.id)
        frame.name_count[record.name] = frame.name_count.get(record.name, 0) + 1
        source.geometry_ids.append(record.id)

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
            frame = self._frames[gone.frame_id]
            frame.geometry_ids.remove(gid)
            frame.name_count[gone.name] -= 1
            if not frame.name_count[gone.name]:
                del frame.name_count[gone.name]
            self._sources[gone.source_id].geometry_ids.remove(gid)
        self._geometries_removed({gid.get_value() for gid in doomed})
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
        if name not in frame.name_count:
            return
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
        tints of its frame and of every ancestor frame (the Robotics
        Toolbox's branch alpha and colour). ``None`` clears the tint.
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

    # ----------------------------------------------------------------- lookups

    def _expand(self, geometry_set: GeometrySet) -> set[int]:
        """Id values of every geometry in the set (a frame stands for its geometries)."""
        values = set()
        for frame_id in geometry_set._frames:  # read, not copied
            values.update([g._value for g in self._frame(frame_id).geometry_ids])
        for geometry_id in geometry_set._geometries:
            values.add(self._geometry(geometry_id).id.get_value())
        return values

    def _scoped_name(self, record: _Geometry) -> str:
        frame = self._frames[record.frame_id]
        return f"{self._sources[record.source_id].name}::{frame.name}::{record.name}"

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
