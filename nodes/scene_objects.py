"""MoveIt's objects in the scene graph that the /tf-driven results query.

:class:`~geometry_core_nodes.planning_scene_world.PlanningSceneWorld`
decides which objects the world holds; :class:`SceneObjects` puts them in
the node's :class:`~geometry_core.scene.SceneGraph` with the scene graph's
run-time calls, so that ``penetrations``, ``clearance`` and the markers
include them from the next query on:

- an object in the planning frame is anchored geometry of the source
  ``planning_scene``; an object given in a scene frame, and an attached
  object, is geometry on that frame (registered by the frame's source), so
  it moves with the frame;
- each shape is named by the object's MoveIt id (``id`` for an object of
  one shape, ``id[k]`` for the k-th of several), so results name it
  ``source::frame::id``;
- a MOVE of an object whose shapes and frame stay is ``change_pose`` of its
  shapes (what the changed geometry costs, not the scene); any other
  change removes the object's shapes and registers the new ones;
- an attached object's ``touch_links`` are collision filters between the
  object's shapes and those frames (geometry on the holding frame itself is
  never paired with it: same frame).

:meth:`SceneObjects.check` refuses, before anything is applied, what the
scene graph cannot take (a frame it does not have, a name already used on
that frame), so a planning-scene message is applied to both the robot's
checker and the scene graph, or to neither.

This module uses the library's public API; it never imports the
transport's backends, cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from geometry_core.scene_graph import (
    GeometryId,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
    Role,
    SourceId,
)
from geometry_core_nodes.planning_scene import PlanningSceneError

__all__ = ["OBJECT_SOURCE", "SceneObjects", "shape_names"]

#: Source name of the objects fixed in the planning frame.
OBJECT_SOURCE = "planning_scene"


def shape_names(object_id: str, count: int) -> list[str]:
    """The geometry names of an object's ``count`` shapes."""
    return [object_id] if count == 1 else [f"{object_id}[{k}]" for k in range(count)]


class SceneObjects:
    """The planning scene's objects as geometry of a scene graph.

    Parameters
    ----------
    scene_graph : callable
        Returns the node's current scene graph (None before a scene is
        loaded; a new robot is a new scene graph, which gets the objects
        again at the next :meth:`sync`).
    frames : callable
        Returns ``{frame name: (FrameId, SourceId)}`` of the scene's frames.
    world_frame : str
        The planning frame: objects in it (or in ``""`` or ``world``) are
        anchored.
    on_change : callable
        ``on_change(structural)`` after every :meth:`sync` that changed the
        scene graph; ``structural`` is True when geometry was added or
        removed (names and frame maps change), False for moves only.
    """

    def __init__(self, scene_graph: Callable[[], Any], frames: Callable[[], dict],
                 world_frame: str, on_change: Callable[[bool], None]) -> None:
        self._scene_graph = scene_graph
        self._frames = frames
        self.world_frame = world_frame
        self._on_change = on_change
        self._graph: Any = None  # the scene graph the registered ids belong to
        self._source: SourceId | None = None
        #: ``{object id: (HeldObject, body, [GeometryId])}`` as registered.
        self.registered: dict[str, tuple[Any, str, list[GeometryId]]] = {}

    # ----------------------------------------------------------------- checks

    def body_names(self) -> set[str]:
        """Names a world object's frame or an attached object's link may have."""
        return set(self._frames())

    def _body_of(self, held: Any) -> str:
        if held.link is not None:
            return held.link
        frame = held.edit.frame_id
        return "" if frame in ("", self.world_frame, "world") else frame

    def check(self, planned: dict[str, Any]) -> None:
        """Refuse ``planned`` (``{object id: HeldObject}``) when the scene graph cannot hold it.

        Raises
        ------
        PlanningSceneError
            For an object on a frame the scene does not have, or a shape
            name already used on its frame by the scene's own geometry.
        """
        graph = self._scene_graph()
        if graph is None:
            return
        frames = self._frames()
        inspector = graph.model_inspector()
        ours = {g for _, _, ids in self.registered.values() for g in ids} if (
            self._graph is graph) else set()
        taken: dict[str, set[str]] = {}
        for object_id, held in planned.items():
            body = self._body_of(held)
            if body and body not in frames:
                raise PlanningSceneError(f"collision object {object_id!r}: frame {body!r} is "
                                         "not a frame of the scene")
            if body not in taken:
                frame_id = frames[body][0] if body else inspector.world_frame_id()
                taken[body] = {inspector.get_name(g) for g in inspector.get_geometries(
                    frame_id, Role.PROXIMITY) if g not in ours}
            names = shape_names(object_id, len(held.edit.shapes))
            clash = taken[body].intersection(names)
            if clash:
                raise PlanningSceneError(
                    f"collision object {object_id!r}: the name {sorted(clash)[0]!r} is used on "
                    f"frame {body or self.world_frame!r} already")
            taken[body].update(names)

    # ----------------------------------------------------------------- syncing

    def sync(self, planned: dict[str, Any]) -> None:
        """Make the scene graph hold exactly ``planned`` (checked by :meth:`check`)."""
        graph = self._scene_graph()
        if graph is not self._graph:
            # A new scene graph holds none of the objects yet.
            self._graph, self._source, self.registered = graph, None, {}
        if graph is None:
            return
        structural = moved = False
        for object_id in [k for k in self.registered if k not in planned]:
            self._remove(object_id)
            structural = True
        for object_id, held in planned.items():
            current = self.registered.get(object_id)
            if current is not None and current[0] == held:
                continue
            body = self._body_of(held)
            if current is not None and current[1] == body and (
                    current[0].edit.shapes is held.edit.shapes) and (
                    current[0].touch_links == held.touch_links):
                self._move(object_id, held)  # a MOVE: same shapes, same frame
                moved = True
                continue
            if current is not None:
                self._remove(object_id)
            self._add(object_id, held, body)
            structural = True
        if structural or moved:
            self._on_change(structural)

    def _owner(self, body: str) -> tuple[SourceId, Any]:
        """(source, frame id) that registers geometry on ``body`` ("" : the world)."""
        if body:
            frame_id, source_id = self._frames()[body]
            return source_id, frame_id
        if self._source is None:
            inspector = self._graph.model_inspector()
            taken = {inspector.get_name(s) for s in inspector.get_all_source_ids()}
            name, k = OBJECT_SOURCE, 1
            while name in taken:
                name, k = f"{OBJECT_SOURCE}_{k}", k + 1
            self._source = self._graph.register_source(name)
        return self._source, None

    def _add(self, object_id: str, held: Any, body: str) -> None:
        graph = self._graph
        source_id, frame_id = self._owner(body)
        ids = []
        for name, (shape, X_OG) in zip(shape_names(object_id, len(held.edit.shapes)),
                                       held.edit.shapes):
            instance = GeometryInstance(held.edit.X_FO @ X_OG, shape, name)
            instance.set_proximity_properties(ProximityProperties())
            if frame_id is None:
                ids.append(graph.register_anchored_geometry(source_id, instance))
            else:
                ids.append(graph.register_geometry(source_id, frame_id, instance))
        touch = [self._frames()[link][0] for link in held.touch_links
                 if link != held.link and link in self._frames()]
        if touch and ids:
            graph.exclude_collisions_between(GeometrySet(ids), GeometrySet(touch))
        self.registered[object_id] = (held, body, ids)

    def _move(self, object_id: str, held: Any) -> None:
        _, body, ids = self.registered[object_id]
        source_id, _ = self._owner(body)
        for geometry_id, (_, X_OG) in zip(ids, held.edit.shapes):
            self._graph.change_pose(source_id, geometry_id, held.edit.X_FO @ X_OG)
        self.registered[object_id] = (held, body, ids)

    def _remove(self, object_id: str) -> None:
        _, body, ids = self.registered.pop(object_id)
        source_id, _ = self._owner(body)
        for geometry_id in ids:
            self._graph.remove_geometry(source_id, geometry_id)
