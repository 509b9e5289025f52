"""The world a MoveIt planning scene describes, applied to a CollisionChecker.

:class:`PlanningSceneWorld` keeps the objects a node was told about
(:mod:`geometry_core_nodes.planning_scene` edits) and puts them in the
checker with the checker's live-world calls: each object is one group of
added shapes named ``object:<id>``, on the ``world`` body (a world object)
or on the link that holds it (an attached object, which then moves with the
link and keeps its filters); a point cloud is the group ``point_cloud``; the
allowed-collision matrix and ``link_padding`` become the checker's filters
and padding between bodies.

An edit is all or nothing: it is checked against what the world holds
(an unknown object on REMOVE, MOVE or APPEND, an unknown frame or link), then
applied; if the checker refuses a part (its caps), the groups it touched
are restored from what they held before and the error is raised. The
objects are kept as edits, so a new checker (a new ``robot_description`` or
SRDF) gets them again with :meth:`PlanningSceneWorld.replay`.

The same objects also go into the scene graph that the node's /tf-driven
results query, through a :class:`~geometry_core_nodes.scene_objects.SceneObjects`
given as ``scene``: it is asked first whether it can take them (so a
message goes into both or neither), then synced after the checker took
them. Without a robot (a node on a ``scene_file``) the checker is None: the
objects live in the scene graph only, the frames of the scene standing for
the robot's links; padding is then kept (for ``get_planning_scene``) but
not applied, and point clouds are refused. The allowed-collision entries go
into the scene graph in both cases, as collision filters between the
geometries of the links and objects they name (the checker takes the
entries between its bodies; the scene graph also those naming objects).

What differs from MoveIt, said where it matters: an object given in a robot
link's frame is fixed to that link (MoveIt fixes it in the world at the
link's current pose); touch links and allowed-collision entries filter whole
bodies (the holding link's own pairs with a touch link are filtered too;
entries naming objects are counted, not applied); picking up a world object
by id (an attach without shapes) is refused.

This module uses the library's public API; it never imports the
transport's backends, cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core_nodes.limits import MAX_WORLD_OBJECTS
from geometry_core_nodes.planning_scene import (
    APPEND,
    MOVE,
    REMOVE,
    AttachEdit,
    ObjectEdit,
    PlanningSceneError,
    SceneEdits,
)

__all__ = ["CLOUD_GROUP", "HeldObject", "PlanningSceneWorld", "object_group"]

#: The checker group of the point cloud.
CLOUD_GROUP = "point_cloud"


def object_group(object_id: str) -> str:
    """The checker group of a MoveIt object."""
    return f"object:{object_id}"


@dataclass(frozen=True)
class HeldObject:
    """An object of the world as applied: its edit, and the link holding it (or None)."""

    edit: ObjectEdit
    link: str | None = None
    touch_links: tuple[str, ...] = ()


class PlanningSceneWorld:
    """MoveIt's objects, allowed collisions and padding, in a checker.

    Parameters
    ----------
    checker : CollisionChecker or None
        The robot's checker (with the live-world calls); None without a
        robot (then ``scene`` must be given).
    world_frame : str
        The planning frame: an object in it (or in ``""`` or ``world``) is
        fixed in the world.
    scene : SceneObjects, optional
        The node's scene graph, which gets the objects too.

    Attributes
    ----------
    objects : dict
        ``{object id: HeldObject}``, world and attached objects.
    ignored : Counter
        What was accepted but not applied, by kind (``acm_entry_not_a_link``).
    """

    def __init__(self, checker: Any, world_frame: str, scene: Any = None) -> None:
        if checker is None and scene is None:
            raise ValueError("a PlanningSceneWorld needs a checker or a scene graph")
        self.checker = checker
        self.scene = scene
        self.world_frame = world_frame
        self.objects: dict[str, HeldObject] = {}
        self.allowed: dict[tuple[str, str], bool] = {}
        self.padding: dict[str, float] = {}
        self.cloud: tuple[np.ndarray, float] | None = None
        self.ignored: Counter = Counter()
        self._initial_filters: dict[tuple[str, str], bool] = {}
        self._initial_padding: dict[tuple[str, str], float] = {}

    # ---------------------------------------------------------------- frames

    def _body_names(self) -> set[str] | list[str]:
        """The checker's bodies, or without one the scene's frames."""
        if self.checker is not None:
            return self.checker.body_names
        return self.scene.body_names()

    def _body(self, frame_id: str, what: str) -> str:
        """The checker body an object given in ``frame_id`` is fixed to."""
        if frame_id in ("", self.world_frame, "world"):
            return "world"
        if frame_id not in self._body_names():
            raise PlanningSceneError(f"{what}: unknown frame {frame_id!r} (the planning frame "
                                     f"{self.world_frame!r} or a link of the robot)")
        return frame_id

    def _link(self, link: str, what: str) -> str:
        if self.checker is None:
            if link not in self._body_names():
                raise PlanningSceneError(f"{what}: {link!r} is not a frame of the scene")
            return link
        if link not in self.checker.body_names or not self.checker.is_part_of_robot(link):
            raise PlanningSceneError(f"{what}: {link!r} is not a link of the robot")
        return link

    # ---------------------------------------------------------------- edits

    def _planned_object(self, edit: ObjectEdit, planned: dict[str, HeldObject],
                        link: str | None = None, touch: tuple[str, ...] = ()) -> None:
        """Apply one object edit to ``planned`` (a copy of :attr:`objects`), checking it."""
        what = f"collision object {edit.object_id!r}"
        if edit.operation == REMOVE:
            if not edit.object_id:
                for object_id in [k for k, v in planned.items() if (v.link is None) == (
                        link is None)]:
                    del planned[object_id]
                return
            if edit.object_id not in planned:
                raise PlanningSceneError(f"{what}: REMOVE of an unknown object")
            del planned[edit.object_id]
            return
        current = planned.get(edit.object_id)
        if edit.operation in (MOVE, APPEND) and current is None:
            raise PlanningSceneError(f"{what}: {edit.operation_name} of an unknown object")
        if edit.operation == MOVE:
            self._body(edit.frame_id, what)
            planned[edit.object_id] = replace(current, edit=replace(
                current.edit, frame_id=edit.frame_id, X_FO=edit.X_FO))
            return
        if edit.operation == APPEND:
            # New shapes in the object's frame: kept with the object's own pose.
            X_OF = current.edit.X_FO.inverse() @ edit.X_FO
            if edit.frame_id not in ("", current.edit.frame_id):
                raise PlanningSceneError(f"{what}: APPEND in frame {edit.frame_id!r}, the "
                                         f"object is in {current.edit.frame_id!r}")
            shapes = current.edit.shapes + tuple((s, X_OF @ X_OG) for s, X_OG in edit.shapes)
            planned[edit.object_id] = replace(current, edit=replace(current.edit,
                                                                    shapes=shapes))
            return
        if not edit.shapes:
            raise PlanningSceneError(f"{what}: picking up a world object by id (an attach "
                                     "without shapes) is not supported; send its shapes")
        if link is None:
            self._body(edit.frame_id, what)
        elif edit.frame_id not in ("", link):
            raise PlanningSceneError(f"{what}: an attached object's poses must be in its "
                                     f"link's frame {link!r}, not {edit.frame_id!r}")
        if current is None and len(planned) >= MAX_WORLD_OBJECTS:
            raise PlanningSceneError(f"{what}: the world holds {MAX_WORLD_OBJECTS} objects "
                                     "already")
        planned[edit.object_id] = HeldObject(edit, link, touch)

    def _planned_attach(self, attach: AttachEdit, planned: dict[str, HeldObject]) -> None:
        what = f"attached object {attach.edit.object_id!r}"
        if attach.edit.operation == REMOVE:
            held = [k for k, v in planned.items() if v.link is not None and (
                not attach.edit.object_id or k == attach.edit.object_id) and (
                not attach.link_name or v.link == attach.link_name)]
            if attach.edit.object_id and not held:
                raise PlanningSceneError(f"{what}: REMOVE of an object no link holds")
            for object_id in held:
                del planned[object_id]
            return
        link = self._link(attach.link_name, what)
        for touch in attach.touch_links:
            self._link(touch, f"{what}: touch link")
        self._planned_object(attach.edit, planned, link, attach.touch_links)

    def plan(self, edits: SceneEdits) -> tuple[dict[str, HeldObject], dict, dict]:
        """The objects, allowed entries and padding after ``edits``; nothing is applied.

        Raises
        ------
        PlanningSceneError
            If an edit does not fit what the world holds.
        """
        planned = dict(self.objects) if edits.is_diff else {}
        for edit in edits.objects:
            self._planned_object(edit, planned)
        if not edits.is_diff:
            # A full scene says which objects are held, too.
            planned = {k: v for k, v in planned.items() if v.link is None}
        for attach in edits.attached:
            self._planned_attach(attach, planned)
        allowed = dict(self.allowed) if edits.is_diff else {}
        allowed.update(edits.allowed)
        for name, value in edits.default_allowed.items():
            # A default entry pairs the name with every link and every object.
            for other in set(self._body_names()) | set(planned):
                if other != name:
                    allowed[(min(name, other), max(name, other))] = value
        padding = dict(self.padding) if edits.is_diff else {}
        for link, value in edits.link_padding.items():
            padding[self._link(link, "link_padding")] = value
        return planned, allowed, padding

    # --------------------------------------------------------------- applying

    def apply(self, edits: SceneEdits) -> None:
        """Apply a planning scene (or one object, as a diff of one edit); all or nothing.

        Raises
        ------
        PlanningSceneError
            If an edit does not fit what the world holds, or the checker
            refuses it (a cap); the world is then as it was.
        """
        planned, allowed, padding = self.plan(edits)
        self._commit(planned, allowed, padding)

    def apply_object(self, edit: ObjectEdit) -> None:
        """Apply one ``collision_object`` message; as :meth:`apply`."""
        self.apply(SceneEdits(is_diff=True, objects=(edit,)))

    def apply_attached(self, attach: AttachEdit) -> None:
        """Apply one ``attached_collision_object`` message; as :meth:`apply`."""
        self.apply(SceneEdits(is_diff=True, attached=(attach,)))

    def set_point_cloud(self, p_WP: np.ndarray, radius: float, q: np.ndarray | None) -> Any:
        """Replace the point cloud (points in the world frame); return the checker's report.

        Raises
        ------
        PlanningSceneError
            If the checker refuses the cloud; the previous one is kept.
        """
        if self.checker is None:
            raise PlanningSceneError("point cloud: clouds need a robot (robot_description); "
                                     "this node has a scene file")
        if self.scene is not None:
            self.scene.check_cloud(p_WP, radius)  # before anything is applied
        try:
            report = self.checker.add_point_cloud(CLOUD_GROUP, p_WP, radius, q=q)
        except ValueError as err:
            raise PlanningSceneError(f"point cloud: {err}") from None
        self.cloud = (np.asarray(p_WP, dtype=float), float(radius))
        if self.scene is not None:
            if radius <= 0:
                self.ignored["cloud_of_radius_0_not_in_scene_graph"] += 1
            self.scene.set_cloud(self._scene_points(report), self.cloud[1])
        return report

    def _scene_points(self, report: Any) -> np.ndarray:
        """The cloud's rows for the scene graph: a row the self filter dropped is NaN.

        So the scene graph holds the points the checker holds, and a
        result's point index stays the row in the message.
        """
        points = np.ascontiguousarray(self.cloud[0], dtype=np.float64).reshape(-1, 3)
        if not report.self_filtered:
            return points
        kept = np.ascontiguousarray(
            self.checker.get_all_added_point_clouds()[CLOUD_GROUP][0], dtype=np.float64)
        row = np.dtype((np.void, 3 * 8))
        shown = np.isin(points.view(row).ravel(), kept.reshape(-1, 3).view(row).ravel())
        return np.where(shown[:, None], points, np.nan)

    def replay(self, checker: Any) -> None:
        """Put the objects, filters, padding and cloud in a new checker (a new robot).

        Objects the new robot cannot hold (their link is gone) are dropped
        and counted in :attr:`ignored` (``object_of_unknown_link``).
        """
        objects, allowed, padding, cloud = self.objects, self.allowed, self.padding, self.cloud
        self.checker = checker
        self.objects, self.allowed, self.padding, self.cloud = {}, {}, {}, None
        self._initial_filters, self._initial_padding = {}, {}
        names = set(checker.body_names)
        kept = {k: v for k, v in objects.items() if v.link is None or v.link in names}
        self.ignored["object_of_unknown_link"] += len(objects) - len(kept)
        self._commit(kept, {k: v for k, v in allowed.items() if set(k) <= names},
                     {k: v for k, v in padding.items() if k in names})
        if cloud is not None:
            self.set_point_cloud(cloud[0], cloud[1], None)

    def _shapes_of(self, held: HeldObject) -> list[tuple[str, Any, RigidTransform]]:
        body = held.link if held.link is not None else self._body(held.edit.frame_id, "")
        return [(body, shape, held.edit.X_FO @ X_OG) for shape, X_OG in held.edit.shapes]

    def _commit(self, planned: dict[str, HeldObject], allowed: dict, padding: dict) -> None:
        if self.scene is not None:
            self.scene.check(planned, allowed)  # before anything is applied
        if self.checker is None:
            self.objects, self.allowed, self.padding = planned, allowed, padding
            self.scene.sync(planned, allowed)
            return
        checker = self.checker
        changed = [k for k in set(planned) | set(self.objects)
                   if planned.get(k) != self.objects.get(k)]
        before = checker.get_all_added_collision_shapes()
        # One new world for the whole message (a MOVE removes and adds its shapes).
        with checker.batched_changes():
            try:
                for object_id in changed:
                    checker.remove_all_added_collision_shapes(object_group(object_id))
                    held = planned.get(object_id)
                    if held is None:
                        continue
                    for body, shape, X_BG in self._shapes_of(held):
                        checker.add_collision_shape_to_body(object_group(object_id), body,
                                                            shape, X_BG)
            except ValueError as err:
                for object_id in changed:  # back to what the groups held
                    group = object_group(object_id)
                    checker.remove_all_added_collision_shapes(group)
                    for description in before.get(group, []):
                        checker.add_collision_shape(group, description)
                raise PlanningSceneError(str(err)) from None
        self.objects = planned
        self._apply_filters(planned, allowed)
        self._apply_padding(padding)
        if self.scene is not None:
            self.scene.sync(planned, allowed)

    def _set_filter(self, a: str, b: str, filtered: bool) -> None:
        checker = self.checker
        key = (min(a, b), max(a, b))
        if key not in self._initial_filters:
            self._initial_filters[key] = checker.is_collision_filtered_between(a, b)
        try:
            checker.set_collision_filtered_between(a, b, filtered)
        except ValueError:
            self.ignored["filter_not_settable"] += 1  # two bodies welded to the world

    def _apply_filters(self, planned: dict[str, HeldObject], allowed: dict) -> None:
        names = set(self.checker.body_names)
        wanted = dict(self._initial_filters)  # undo what no longer applies
        for (a, b), value in allowed.items():
            if a in names and b in names:
                if self.checker.is_part_of_robot(a) or self.checker.is_part_of_robot(b):
                    wanted[(a, b)] = bool(value) or self._initial_filters.get(
                        (a, b), self.checker.is_collision_filtered_between(a, b))
            else:
                self.ignored["acm_entry_not_a_link"] += 1
        for held in planned.values():
            for touch in held.touch_links:
                if held.link is not None and touch != held.link:
                    wanted[(min(held.link, touch), max(held.link, touch))] = True
        for (a, b), filtered in wanted.items():
            if self.checker.is_collision_filtered_between(a, b) != filtered:
                self._set_filter(a, b, filtered)
        self.allowed = allowed

    def _apply_padding(self, padding: dict[str, float]) -> None:
        checker = self.checker
        links = set(padding) | set(self.padding)
        for link in links:
            for other in checker.body_names:
                if other == link:
                    continue
                key = (min(link, other), max(link, other))
                if key not in self._initial_padding:
                    self._initial_padding[key] = checker.get_padding_between(link, other)
                value = self._initial_padding[key] + padding.get(link, 0.0) + padding.get(
                    other, 0.0)
                try:
                    checker.set_padding_between(link, other, value)
                except ValueError:
                    self.ignored["padding_not_settable"] += 1
        self.padding = padding
