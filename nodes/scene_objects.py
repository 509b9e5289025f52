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
  never paired with it: same frame);
- an allowed-collision entry (an entry or a default entry of the
  PlanningScene's matrix) between two names, each a scene frame (its own
  geometry, not the objects it holds) or an object id (its shapes), is a
  collision filter between their geometries. The filters the matrix added
  are kept apart from the scene's own (a scene file's or SRDF's, the touch
  links'): an entry set back to not allowed removes only the filters the
  matrix added, and a pair the scene filtered already stays filtered. An
  entry naming an object that does not exist yet applies when it comes.
  ``link_padding`` has no counterpart: the scene graph has no padding.
- the point cloud (``point_cloud_topic``) is a point cloud of the scene
  graph, named ``point_cloud``, on the world frame of the source
  ``planning_scene``: each point a sphere of ``point_cloud_radius``; a new
  cloud replaces its points (``change_point_cloud``). Results name a pair
  with a point ``planning_scene::world::point_cloud[k]``, k the point's row
  in the message. A radius of 0 (points, not spheres) is not a scene-graph
  cloud: the cloud is then left out of the /tf-driven results.

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
    CollisionFilterDeclaration,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    IllustrationProperties,
    ProximityProperties,
    Rgba,
    Role,
    SourceId,
)
from geometry_core.scene_graph.point_clouds import checked_cloud
from geometry_core_nodes.limits import MAX_ACM_GEOMETRY_PAIRS
from geometry_core_nodes.planning_scene import PlanningSceneError

__all__ = ["CLOUD_NAME", "OBJECT_COLOR", "OBJECT_SOURCE", "SceneObjects", "shape_names"]

#: Source name of the objects fixed in the planning frame.
OBJECT_SOURCE = "planning_scene"
#: Name of the point cloud in the scene graph.
CLOUD_NAME = "point_cloud"
#: Colour of the objects where they are drawn (the illustration role).
OBJECT_COLOR = Rgba(0.35, 0.75, 0.35, 0.8)


def _pair(a: GeometryId, b: GeometryId) -> tuple[GeometryId, GeometryId]:
    return (a, b) if a.get_value() < b.get_value() else (b, a)


def _pair_key(pair: tuple[GeometryId, GeometryId]) -> tuple[int, int]:
    return pair[0].get_value(), pair[1].get_value()


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
    illustration : bool
        Also give the shapes the illustration role (in :data:`OBJECT_COLOR`),
        for a viewer; by default they have the proximity role only.
    """

    def __init__(self, scene_graph: Callable[[], Any], frames: Callable[[], dict],
                 world_frame: str, on_change: Callable[[bool], None],
                 illustration: bool = False) -> None:
        self._roles = (Role.PROXIMITY, Role.ILLUSTRATION) if illustration else (
            Role.PROXIMITY,)
        self._scene_graph = scene_graph
        self._frames = frames
        self.world_frame = world_frame
        self._on_change = on_change
        self._graph: Any = None  # the scene graph the registered ids belong to
        self._source: SourceId | None = None
        #: ``{object id: (HeldObject, body, [GeometryId])}`` as registered.
        self.registered: dict[str, tuple[Any, str, list[GeometryId]]] = {}
        #: ``{(name, name): allowed}``: the allowed-collision entries to apply.
        self.allowed: dict[tuple[str, str], bool] = {}
        #: Geometry pairs ``(a, b)``, ``a < b`` by value, that the entries filtered.
        self.acm_pairs: set[tuple[GeometryId, GeometryId]] = set()
        #: ``(p_WP, radius)`` of the point cloud, or None.
        self.cloud: tuple[Any, float] | None = None
        self._cloud_id: GeometryId | None = None
        self._cloud_dirty = False  # a cloud came since the last sync
        #: Times the entries were left unapplied for passing ``MAX_ACM_GEOMETRY_PAIRS``.
        self.entries_refused = 0

    # ----------------------------------------------------------------- checks

    def body_names(self) -> set[str]:
        """Names a world object's frame or an attached object's link may have."""
        return set(self._frames())

    def _body_of(self, held: Any) -> str:
        if held.link is not None:
            return held.link
        frame = held.edit.frame_id
        return "" if frame in ("", self.world_frame, "world") else frame

    def check(self, planned: dict[str, Any], allowed: dict | None = None) -> None:
        """Refuse ``planned`` (``{object id: HeldObject}``) when the scene graph cannot hold it.

        Raises
        ------
        PlanningSceneError
            For an object on a frame the scene does not have, a shape name
            already used on its frame by the scene's own geometry, or
            allowed-collision entries (``allowed``, as :meth:`sync` takes
            them) that would filter more than ``MAX_ACM_GEOMETRY_PAIRS``
            pairs of geometries.
        """
        graph = self._scene_graph()
        if graph is None:
            return
        frames = self._frames()
        inspector = graph.model_inspector()
        if not (graph is self._graph and all(
                self._holds_names_of(object_id, held) for object_id, held in planned.items())):
            self._check_names(planned, graph, frames, inspector)
        # Else moves only (every object planned where it is registered, with
        # as many shapes): each name was checked when it was registered, and
        # the scene graph refuses a name used twice on a frame since.
        if allowed:
            self._check_allowed(planned, allowed, frames, inspector)

    def _check_names(self, planned: dict[str, Any], graph: Any, frames: dict,
                     inspector: Any) -> None:
        """Refuse an object on an unknown frame or with a name its frame has already."""
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
                taken[body] = {inspector.get_name(g) for role in self._roles
                               for g in inspector.get_geometries(frame_id, role)
                               if g not in ours}
            names = shape_names(object_id, len(held.edit.shapes))
            clash = taken[body].intersection(names)
            if clash:
                raise PlanningSceneError(
                    f"collision object {object_id!r}: the name {sorted(clash)[0]!r} is used on "
                    f"frame {body or self.world_frame!r} already")
            taken[body].update(names)

    def _holds_names_of(self, object_id: str, held: Any) -> bool:
        """Whether ``object_id`` is registered on ``held``'s body with as many shapes."""
        current = self.registered.get(object_id)
        return current is not None and current[1] == self._body_of(held) and (
            len(current[0].edit.shapes) == len(held.edit.shapes))

    def _check_allowed(self, planned: dict[str, Any], allowed: dict, frames: dict,
                       inspector: Any) -> None:
        """Refuse entries that would filter too many pairs (counted, not built)."""
        counts: dict[str, int] = {}

        def count(name: str) -> int:
            if name not in counts:
                if name in planned:
                    counts[name] = len(planned[name].edit.shapes)
                elif name in frames:
                    counts[name] = inspector.num_geometries_for_frame_with_role(
                        frames[name][0], Role.PROXIMITY)
                else:
                    counts[name] = 0
            return counts[name]

        pairs = sum(count(a) * count(b) for (a, b), value in allowed.items() if value)
        if pairs > MAX_ACM_GEOMETRY_PAIRS:
            raise PlanningSceneError(
                f"allowed_collision_matrix: its entries would filter {pairs} pairs of "
                f"geometries, more than the cap of {MAX_ACM_GEOMETRY_PAIRS}")

    # ----------------------------------------------------------------- syncing

    def sync(self, planned: dict[str, Any], allowed: dict | None = None) -> None:
        """Make the scene graph hold exactly ``planned`` (checked by :meth:`check`).

        ``allowed`` (``{(name, name): bool}``) replaces the allowed-collision
        entries; None keeps them. The filters are brought up to date either
        way, as the objects they name may have changed.
        """
        entries_changed = allowed is not None and dict(allowed) != self.allowed
        if entries_changed:
            self.allowed = dict(allowed)
        graph = self._scene_graph()
        if graph is not self._graph:
            # A new scene graph holds none of the objects nor filters yet.
            self._graph, self._source, self.registered = graph, None, {}
            self.acm_pairs, self._cloud_id = set(), None
            self._cloud_dirty = entries_changed = True
        if graph is None:
            return
        cloud_changed = self._sync_cloud()
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
        # The names map to other geometry only when geometry came or went.
        filters = self._apply_allowed() if (entries_changed or structural) else False
        if structural or cloud_changed or moved or filters:
            self._on_change(structural or cloud_changed)

    # ------------------------------------------------------------ point cloud

    @staticmethod
    def check_cloud(p_WP: Any, radius: float) -> None:
        """Refuse a cloud the scene graph could not take (before the checker takes it).

        Raises
        ------
        PlanningSceneError
            For points that are not (N, 3) numbers or too many of them.
        """
        if radius > 0:
            try:
                checked_cloud(p_WP, radius, CLOUD_NAME)
            except ValueError as err:
                raise PlanningSceneError(str(err)) from None

    def set_cloud(self, p_WP: Any, radius: float) -> None:
        """Make the scene graph's cloud ``p_WP`` (checked by :meth:`check_cloud`)."""
        self.cloud, self._cloud_dirty = (p_WP, float(radius)), True
        graph = self._scene_graph()
        if graph is not self._graph:
            self.sync({k: v[0] for k, v in self.registered.items()})
            return
        if graph is not None and self._sync_cloud():
            self._on_change(True)

    def _sync_cloud(self) -> bool:
        """Register, change or remove the scene graph's cloud; True when it changed."""
        graph = self._graph
        if graph is None or not self._cloud_dirty:
            return False
        self._cloud_dirty = False
        if self.cloud is None or self.cloud[1] <= 0:
            if self._cloud_id is None:
                return False
            graph.remove_geometry(self._source, self._cloud_id)
            self._cloud_id = None
            return True
        p_WP, radius = self.cloud
        source_id, _ = self._owner("")
        if self._cloud_id is not None:
            # New points: the names, which read a point's row, are rebuilt too.
            graph.change_point_cloud(source_id, self._cloud_id, p_WP, radius)
            return True
        self._cloud_id = graph.register_point_cloud(
            source_id, graph.model_inspector().world_frame_id(), p_WP, radius, CLOUD_NAME)
        return True

    # ------------------------------------------------------ allowed collisions

    def _geometries_of(self, name: str, ours: set[GeometryId]) -> list[GeometryId]:
        """The geometries an allowed-collision name stands for (none if unknown)."""
        if name in self.registered:
            return list(self.registered[name][2])
        frame = self._frames().get(name)
        if frame is None:
            return []
        return [g for g in self._graph.model_inspector().get_geometries(frame[0], Role.PROXIMITY)
                if g not in ours]

    def _touch_pairs(self) -> set[tuple[GeometryId, GeometryId]]:
        """The pairs the touch links filter (the entries never undo those)."""
        pairs = set()
        inspector = self._graph.model_inspector()
        frames = self._frames()
        for held, _, ids in self.registered.values():
            for link in held.touch_links:
                if link in frames and link != held.link:
                    for other in inspector.get_geometries(frames[link][0], Role.PROXIMITY):
                        pairs.update(_pair(g, other) for g in ids)
        return pairs

    def _apply_allowed(self) -> bool:
        """Filter the pairs the allowed entries name, unfilter those they no longer do.

        Returns True when a filter changed.
        """
        graph = self._graph
        inspector = graph.model_inspector()
        existing = set(inspector.get_all_geometry_ids(Role.PROXIMITY))
        # Removed geometry took its filters with it.
        self.acm_pairs = {p for p in self.acm_pairs if p[0] in existing and p[1] in existing}
        ours = {g for _, _, ids in self.registered.values() for g in ids}
        wanted: set[tuple[GeometryId, GeometryId]] = set()
        members = {n: self._geometries_of(n, ours) for pair, value in self.allowed.items()
                   if value for n in pair}
        if sum(len(members[a]) * len(members[b]) for (a, b), value in self.allowed.items()
               if value) > MAX_ACM_GEOMETRY_PAIRS:
            # Entries kept from before a scene came (not checked against it): none apply.
            self.entries_refused += 1
        else:
            for (a, b), value in self.allowed.items():
                if value:
                    wanted.update(_pair(x, y) for x in members[a] for y in members[b]
                                  if x != y)
        undo = self.acm_pairs - wanted - self._touch_pairs()
        new = [p for p in wanted - self.acm_pairs if not inspector.collision_filtered(*p)]
        if not undo and not new:
            return False
        declaration = CollisionFilterDeclaration()
        for a, b in sorted(undo, key=_pair_key):
            declaration.allow_between(GeometrySet([a]), GeometrySet([b]))
        for a, b in sorted(new, key=_pair_key):
            declaration.exclude_between(GeometrySet([a]), GeometrySet([b]))
        graph.collision_filter_manager().apply(declaration)
        self.acm_pairs = (self.acm_pairs - undo) | set(new)
        return True

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
            if Role.ILLUSTRATION in self._roles:
                illustration = IllustrationProperties()
                illustration.add_property("phong", "diffuse", OBJECT_COLOR)
                instance.set_illustration_properties(illustration)
            if frame_id is None:
                ids.append(graph.register_anchored_geometry(source_id, instance))
            else:
                ids.append(graph.register_geometry(source_id, frame_id, instance))
        frames = self._frames()
        touch = [frames[link][0] for link in held.touch_links
                 if link != held.link and link in frames]
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
