"""Read-only questions about a scene's topology (Drake's SceneGraphInspector).

Names, ownership, frame hierarchy, shapes, fixed poses, roles and counts: all
that does not depend on the current poses. World poses and proximity answers
come from a query object instead. An inspector is a live view of its
:class:`GeometryState`: it is cheap to make and reflects later registration.
"""

from __future__ import annotations

from geometry_core.math import RigidTransform
from geometry_core.scene_graph.geometry_state import GeometryState
from geometry_core.scene_graph.identifiers import FrameId, GeometryId, SourceId
from geometry_core.scene_graph.instances import GeometrySet
from geometry_core.scene_graph.roles import (
    GeometryProperties,
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    Role,
)
from geometry_core.shapes import Shape

__all__ = ["SceneGraphInspector"]


class SceneGraphInspector:
    """Topology queries on a scene graph; see the module docstring."""

    def __init__(self, state: GeometryState) -> None:
        self._state = state

    # ----------------------------------------------------------------- counts

    def num_sources(self) -> int:
        return len(self._state._sources)

    def num_frames(self) -> int:
        """Number of frames, the world frame included (as in Drake)."""
        return len(self._state._frames)

    def num_geometries(self) -> int:
        return len(self._state._geometries)

    def num_anchored_geometries(self) -> int:
        return len(self._state._frames[self._state._world_id].geometry_ids)

    def num_dynamic_geometries(self) -> int:
        return self.num_geometries() - self.num_anchored_geometries()

    def num_geometries_with_role(self, role: Role) -> int:
        return sum(1 for g in self._state._geometries.values() if _has_role(g, role))

    def num_frames_for_source(self, source_id: SourceId) -> int:
        return len(self._state._source(source_id).frame_ids)

    def num_geometries_for_frame(self, frame_id: FrameId) -> int:
        return len(self._state._frame(frame_id).geometry_ids)

    def num_geometries_for_frame_with_role(self, frame_id: FrameId, role: Role) -> int:
        return len(self.get_geometries(frame_id, role))

    def geometry_version(self) -> int:
        return self._state.geometry_version()

    # -------------------------------------------------------------------- ids

    def world_frame_id(self) -> FrameId:
        return self._state.world_frame_id()

    def get_all_source_ids(self) -> list[SourceId]:
        return list(self._state._sources)

    def get_all_frame_ids(self) -> list[FrameId]:
        """All frames, the world frame first, then in registration order."""
        return [f.id for f in self._state._frame_by_slot]

    def get_all_geometry_ids(self, role: Role | None = None) -> list[GeometryId]:
        """All geometries (with ``role`` if given), in ascending id order."""
        return sorted(g.id for g in self._state._geometries.values()
                      if role is None or _has_role(g, role))

    def get_geometry_ids(self, geometry_set: GeometrySet,
                         role: Role | None = None) -> set[GeometryId]:
        """Expand a GeometrySet to geometry ids, keeping those with ``role`` if given."""
        values = self._state._expand(geometry_set)
        return {g.id for g in self._state._geometries.values()
                if g.id.get_value() in values and (role is None or _has_role(g, role))}

    def source_is_registered(self, source_id: SourceId) -> bool:
        return self._state.source_is_registered(source_id)

    def frames_for_source(self, source_id: SourceId) -> list[FrameId]:
        return list(self._state._source(source_id).frame_ids)

    def belongs_to_source(self, id: FrameId | GeometryId, source_id: SourceId) -> bool:
        """Report whether a frame or geometry was registered by ``source_id``.

        Raises
        ------
        KeyError
            If the source, frame or geometry is unknown.
        """
        self._state._source(source_id)
        return self._record(id).source_id == source_id

    def get_owning_source_name(self, id: FrameId | GeometryId) -> str:
        record = self._record(id)
        if record.source_id is None:
            return "SceneGraph"
        return self._state._sources[record.source_id].name

    # -------------------------------------------------------------- hierarchy

    def get_name(self, id: SourceId | FrameId | GeometryId) -> str:
        if isinstance(id, SourceId):
            return self._state._source(id).name
        return self._record(id).name

    def get_frame_id(self, geometry_id: GeometryId) -> FrameId:
        """Return the frame the geometry is fixed to (the world frame if anchored)."""
        return self._state._geometry(geometry_id).frame_id

    def get_parent_frame(self, frame_id: FrameId) -> FrameId:
        """Return the frame's parent (the world frame's parent is itself)."""
        frame = self._state._frame(frame_id)
        return frame.id if frame.parent_id is None else frame.parent_id

    def get_child_frames(self, frame_id: FrameId) -> list[FrameId]:
        return list(self._state._frame(frame_id).child_ids)

    def get_subtree_frames(self, frame_id: FrameId) -> list[FrameId]:
        """Return the frame and all frames below it, parents before children."""
        found = [frame_id]
        for fid in found:
            found.extend(self._state._frame(fid).child_ids)
        return found

    def get_frame_group(self, frame_id: FrameId) -> int:
        return self._state._frame(frame_id).frame_group

    def get_geometries(self, frame_id: FrameId, role: Role | None = None) -> list[GeometryId]:
        """Geometries fixed to a frame (with ``role`` if given), in registration order."""
        frame = self._state._frame(frame_id)
        return [g for g in frame.geometry_ids
                if role is None or _has_role(self._state._geometries[g], role)]

    def get_geometry_id_by_name(self, frame_id: FrameId, role: Role, name: str) -> GeometryId:
        """Return the geometry of ``frame_id`` with ``role`` and ``name``.

        Raises
        ------
        KeyError
            If there is none.
        """
        for gid in self.get_geometries(frame_id, role):
            if self._state._geometries[gid].name == name:
                return gid
        frame = self._state._frame(frame_id)
        raise KeyError(f"frame {frame.name!r} has no geometry named {name!r} with the "
                       f"{role.name.lower()} role")

    # --------------------------------------------------------------- geometry

    def get_shape(self, geometry_id: GeometryId) -> Shape:
        return self._state._geometry(geometry_id).shape

    def get_pose_in_frame(self, geometry_id: GeometryId) -> RigidTransform:
        """Return ``X_FG``, the geometry's fixed pose in its frame."""
        return RigidTransform(self._state._geometry(geometry_id).X_FG)

    def get_pose_in_parent(self, geometry_id: GeometryId) -> RigidTransform:
        """Return the pose given at registration, in the parent frame or geometry."""
        return RigidTransform(self._state._geometry(geometry_id).X_PG)

    def get_parent_geometry(self, geometry_id: GeometryId) -> GeometryId | None:
        """Return the geometry this one was posed relative to, if any."""
        return self._state._geometry(geometry_id).parent_geometry_id

    def get_properties(self, geometry_id: GeometryId, role: Role) -> GeometryProperties | None:
        """Return the properties of ``role`` (a copy), or None without that role."""
        props = self._state._geometry(geometry_id).properties.get(role)
        return None if props is None else props.copy()

    def get_proximity_properties(self, geometry_id: GeometryId) -> ProximityProperties | None:
        return self.get_properties(geometry_id, Role.PROXIMITY)

    def get_illustration_properties(self,
                                    geometry_id: GeometryId) -> IllustrationProperties | None:
        return self.get_properties(geometry_id, Role.ILLUSTRATION)

    def get_perception_properties(self, geometry_id: GeometryId) -> PerceptionProperties | None:
        return self.get_properties(geometry_id, Role.PERCEPTION)

    def has_role(self, geometry_id: GeometryId, role: Role) -> bool:
        return _has_role(self._state._geometry(geometry_id), role)

    def get_roles(self, geometry_id: GeometryId) -> set[Role]:
        return set(self._state._geometry(geometry_id).properties)

    def get_branch_color(self, frame_id: FrameId) -> Rgba | None:
        """Return the tint set on this frame itself (not inherited), or None."""
        return self._state._frame(frame_id).tint

    def get_illustration_color(self, geometry_id: GeometryId,
                               default: Rgba | None = None) -> Rgba:
        """Return the colour to draw: diffuse times every branch tint above it.

        ``default`` (grey, Drake's 0.9 0.9 0.9 1 when None) stands in for a
        missing ``("phong", "diffuse")`` property.
        """
        record = self._state._geometry(geometry_id)
        props = record.properties.get(Role.ILLUSTRATION)
        rgba = default or Rgba(0.9, 0.9, 0.9, 1.0)
        if props is not None:
            rgba = props.get_property_or_default("phong", "diffuse", rgba)
        frame = self._state._frames[record.frame_id]
        while frame is not None:
            if frame.tint is not None:
                rgba = rgba * frame.tint
            frame = None if frame.parent_id is None else self._state._frames[frame.parent_id]
        return rgba

    def collision_filtered(self, geometry_id1: GeometryId, geometry_id2: GeometryId) -> bool:
        """Report whether the pair is never reported by proximity queries.

        Raises
        ------
        KeyError
            If either geometry is unknown or lacks the proximity role.
        """
        model = self._state.collision_model()
        return model.is_filtered(model.index_of(geometry_id1), model.index_of(geometry_id2))

    def is_anchored(self, geometry_id: GeometryId) -> bool:
        return self._state._geometry(geometry_id).frame_id == self._state._world_id

    # ----------------------------------------------------------------- helpers

    def _record(self, id: FrameId | GeometryId):
        if isinstance(id, FrameId):
            return self._state._frame(id)
        if isinstance(id, GeometryId):
            return self._state._geometry(id)
        raise TypeError(f"expected a FrameId or GeometryId, got {id!r}")


def _has_role(record, role: Role) -> bool:
    if role == Role.UNASSIGNED:
        return not record.properties
    return role in record.properties
