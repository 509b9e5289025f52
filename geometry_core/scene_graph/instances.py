"""What users hand to the scene graph at registration: frames, geometry instances, sets.

``GeometryFrame`` names a frame; ``GeometryInstance`` pairs a shape with its
pose in the parent frame, a name and optional role properties; a
``GeometrySet`` collects frames and geometries for collision filtering and
branch queries.
"""

from __future__ import annotations

from collections.abc import Iterable

from geometry_core.math import RigidTransform
from geometry_core.scene_graph.identifiers import FrameId, GeometryId
from geometry_core.scene_graph.roles import (
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
)
from geometry_core.shapes import Shape

__all__ = ["GeometryFrame", "GeometryInstance", "GeometrySet"]


def _checked_name(kind: str, name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name must be a str, got {type(name).__name__}")
    stripped = name.strip()
    if not stripped:
        raise ValueError(f"{kind} name must not be empty or whitespace, got {name!r}")
    return stripped


class GeometryFrame:
    """A frame to register: a name and a frame group (Drake's model instance index).

    The frame's id is assigned here, so it is known before registration.
    """

    def __init__(self, frame_name: str, frame_group_id: int = 0) -> None:
        self._id = FrameId.get_new_id()
        self._name = _checked_name("frame", frame_name)
        if not isinstance(frame_group_id, int) or frame_group_id < 0:
            raise ValueError(f"frame_group_id must be a non-negative int, got {frame_group_id!r}")
        self._frame_group = frame_group_id

    def id(self) -> FrameId:
        return self._id

    def name(self) -> str:
        return self._name

    def frame_group(self) -> int:
        return self._frame_group

    def __repr__(self) -> str:
        return f"GeometryFrame({self._name!r}, frame_group_id={self._frame_group})"


class GeometryInstance:
    """A shape, its pose ``X_PG`` in the parent (frame or geometry), and a name.

    Parameters
    ----------
    X_PG : RigidTransform
        Pose of the geometry frame G in its parent P.
    shape : Shape
        The shape (may be shared with other instances).
    name : str
        Name, unique among the frame's geometries of the same role.

    Raises
    ------
    TypeError
        If ``X_PG`` is not a RigidTransform or ``shape`` is not a Shape.
    ValueError
        If the name is empty.
    """

    def __init__(self, X_PG: RigidTransform, shape: Shape, name: str) -> None:
        if not isinstance(X_PG, RigidTransform):
            raise TypeError(f"X_PG must be a RigidTransform, got {type(X_PG).__name__}")
        if not isinstance(shape, Shape):
            raise TypeError(f"shape must be a Shape (Sphere, Box, ...), got {type(shape).__name__}")
        self._id = GeometryId.get_new_id()
        self._X_PG = RigidTransform(X_PG)
        self._shape = shape
        self._name = _checked_name("geometry", name)
        self._proximity: ProximityProperties | None = None
        self._illustration: IllustrationProperties | None = None
        self._perception: PerceptionProperties | None = None

    @classmethod
    def _of_trusted(cls, X_PG: RigidTransform, shape: Shape, name: str,
                    proximity: ProximityProperties | None = None) -> GeometryInstance:
        # Hot-path constructor for library loaders: ``X_PG`` is a rigid transform
        # the instance takes over (not copied), ``shape`` a Shape, ``name`` a
        # non-empty stripped str, ``proximity`` properties it takes over.
        instance = object.__new__(cls)
        instance._id = GeometryId.get_new_id()
        instance._X_PG = X_PG
        instance._shape = shape
        instance._name = name
        instance._proximity = proximity
        instance._illustration = instance._perception = None
        return instance

    def id(self) -> GeometryId:
        return self._id

    def pose(self) -> RigidTransform:
        return RigidTransform(self._X_PG)

    def set_pose(self, X_PG: RigidTransform) -> None:
        if not isinstance(X_PG, RigidTransform):
            raise TypeError(f"X_PG must be a RigidTransform, got {type(X_PG).__name__}")
        self._X_PG = RigidTransform(X_PG)

    def shape(self) -> Shape:
        return self._shape

    def name(self) -> str:
        return self._name

    def set_proximity_properties(self, properties: ProximityProperties) -> None:
        self._proximity = _typed(properties, ProximityProperties)

    def set_illustration_properties(self, properties: IllustrationProperties) -> None:
        self._illustration = _typed(properties, IllustrationProperties)

    def set_perception_properties(self, properties: PerceptionProperties) -> None:
        self._perception = _typed(properties, PerceptionProperties)

    def proximity_properties(self) -> ProximityProperties | None:
        return self._proximity

    def illustration_properties(self) -> IllustrationProperties | None:
        return self._illustration

    def perception_properties(self) -> PerceptionProperties | None:
        return self._perception

    def __repr__(self) -> str:
        return f"GeometryInstance({self._name!r}, {self._shape!r})"


def _typed(properties, cls):
    if not isinstance(properties, cls):
        raise TypeError(f"expected {cls.__name__}, got {type(properties).__name__}")
    return properties.copy()


class GeometrySet:
    """A set of frames and geometries (frames stand for all their geometries).

    ``GeometrySet(ids)`` accepts FrameIds and GeometryIds in any mix.
    """

    def __init__(self, ids: Iterable[FrameId | GeometryId] | FrameId | GeometryId = ()) -> None:
        self._frames: set[FrameId] = set()
        self._geometries: set[GeometryId] = set()
        self.add(ids)

    def add(self, ids: Iterable[FrameId | GeometryId] | FrameId | GeometryId) -> GeometrySet:
        """Add ids (one or an iterable); return self."""
        if type(ids) is FrameId:  # the common case: a frame (a robot link)
            self._frames.add(ids)
            return self
        if isinstance(ids, (FrameId, GeometryId)):
            ids = (ids,)
        for item in ids:
            if isinstance(item, FrameId):
                self._frames.add(item)
            elif isinstance(item, GeometryId):
                self._geometries.add(item)
            else:
                raise TypeError(f"GeometrySet takes FrameId or GeometryId, got {item!r}")
        return self

    def frames(self) -> set[FrameId]:
        return set(self._frames)

    def geometries(self) -> set[GeometryId]:
        return set(self._geometries)

    def num_frames(self) -> int:
        return len(self._frames)

    def num_geometries(self) -> int:
        return len(self._geometries)

    def contains(self, item: FrameId | GeometryId) -> bool:
        return item in self._frames or item in self._geometries

    def __repr__(self) -> str:
        return f"GeometrySet(frames={sorted(self._frames)}, geometries={sorted(self._geometries)})"
