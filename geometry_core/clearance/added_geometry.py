"""Shapes and point clouds added to a collision checker's world while it runs.

:class:`AddedGeometry` is the part of
:class:`~geometry_core.clearance.CollisionChecker` that holds Drake's
``AddCollisionShapeToBody`` family and point clouds, by group name: each
change edits the checker's tables (``checker_tables``) and registers or
removes geometry in its scene graph under one lock, then swaps in the new
world, so a query running meanwhile sees the world before or after it.

Uses the scene graph and the live-world records (``live_world``); never
fcl, lcm or ROS.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator

import numpy as np

from geometry_core.clearance.checker_tables import Body
from geometry_core.clearance.live_world import (
    MAX_ADDED_SHAPES,
    MAX_ADDED_TRIANGLES,
    MAX_CLOUD_GROUPS,
    BodyShapeDescription,
    PointCloud,
    PointCloudReport,
    checked_points,
)
from geometry_core.math import RigidTransform
from geometry_core.proximity.engine import ModelCache
from geometry_core.scene_graph import (
    CollisionFilterDeclaration,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
)
from geometry_core.shapes import Convex, HalfSpace, Mesh, Shape

__all__ = ["AddedGeometry"]


class AddedGeometry:
    """Added shapes and point clouds of a collision checker (a base of ``CollisionChecker``)."""

    def _start_live_world(self) -> None:
        """Nothing added yet."""
        # Added shapes and clouds by group; one lock orders the changes.
        self._lock = threading.RLock()
        self._added: dict[str, list[BodyShapeDescription]] = {}
        self._clouds: dict[str, PointCloud] = {}
        self._added_source = None
        self._added_count = 0
        self._added_triangles = 0
        # Inside batched_changes: the new world is swapped in once, at its end.
        self._batch_depth = 0
        self._world_stale = False

    def _swap_world(self) -> None:
        """Swap in the world of the tables as they are now (at a batch's end when in one)."""
        if self._batch_depth:
            self._world_stale = True
        else:
            self._world = self._make_world()

    @contextlib.contextmanager
    def batched_changes(self) -> Iterator[None]:
        """Make the added-shape changes of a ``with`` block one change of the world.

        Shapes removed and added inside the block (an object moved: its
        group removed and added again at the new pose) rebuild the world the
        queries see once, when the block ends (also when it raises), not
        once per call; a query in another thread sees the world before the
        block or after it. Blocks may nest; the outermost one swaps.
        """
        with self._lock:
            self._batch_depth += 1
            try:
                yield
            finally:
                self._batch_depth -= 1
                if not self._batch_depth and self._world_stale:
                    self._world_stale = False
                    self._world = self._make_world()

    # ------------------------------------------------------------- added shapes

    def add_collision_shape_to_body(self, group_name: str, body: Body, shape: Shape,
                                    X_BG: RigidTransform | None = None) -> GeometryId:
        """Add ``shape`` at ``X_BG`` on a body, in group ``group_name``; return its id.

        On a robot link it is a held object: it moves with the link, keeps
        the link's filters (a part between the fingers does not collide with
        the hand or the fingers) and padding, and its clearance rows carry
        the link's index. On ``world`` or an environment body it is an
        obstacle (an environment body's frame is the world's). The next
        query sees it.

        Raises
        ------
        KeyError, IndexError
            For an unknown body (the message lists the names).
        TypeError
            If ``shape`` is not a Shape or ``X_BG`` not a RigidTransform.
        ValueError
            If the group name is empty, a Mesh or HalfSpace goes on a robot
            link (hold a Convex), a mesh file is empty or not finite, or a
            cap (``MAX_ADDED_SHAPES``, ``MAX_ADDED_TRIANGLES``) would be
            passed. Nothing changes then.
        """
        with self._lock:
            return self._add_shape(group_name, self.body_index(body), shape, X_BG)

    def add_collision_shape_to_frame(self, group_name: str, frame: Body, shape: Shape,
                                     X_FG: RigidTransform | None = None) -> GeometryId:
        """Add ``shape`` at ``X_FG`` on a frame: a link's, ``world`` or an environment frame.

        Every frame of the checker is a body's frame (links on fixed joints
        are bodies of their own), so this is
        :meth:`add_collision_shape_to_body`.
        """
        return self.add_collision_shape_to_body(group_name, frame, shape, X_FG)

    def add_collision_shape(self, group_name: str,
                            description: BodyShapeDescription) -> GeometryId:
        """Add the shape of a :class:`BodyShapeDescription` to its body again.

        The descriptions are those :meth:`get_all_added_collision_shapes` returns.
        """
        if not isinstance(description, BodyShapeDescription):
            raise TypeError(f"description must be a BodyShapeDescription, got "
                            f"{type(description).__name__}")
        return self.add_collision_shape_to_body(group_name, description.body_name,
                                                description.shape, description.pose_in_body)

    def get_all_added_collision_shapes(self) -> dict[str, list[BodyShapeDescription]]:
        """Return ``{group name: [BodyShapeDescription, ...]}`` of every added shape, in order.

        Point clouds are not shapes: see :meth:`get_all_added_point_clouds`.
        """
        with self._lock:
            return {group: list(shapes) for group, shapes in self._added.items() if shapes}

    def get_all_added_point_clouds(self) -> dict[str, tuple[np.ndarray, float,
                                                            PointCloudReport]]:
        """Return ``{group name: (p_WP kept (N, 3), radius, report)}`` of every added cloud."""
        with self._lock:
            return {group: (cloud.points, cloud.radius, cloud.report)
                    for group, cloud in self._clouds.items()}

    def remove_all_added_collision_shapes(self, group_name: str | None = None) -> None:
        """Remove every shape and point cloud added in ``group_name`` (all groups when None).

        A group that holds nothing is no error (Drake's behaviour).

        Raises
        ------
        TypeError
            If ``group_name`` is neither a str nor None.
        """
        if group_name is not None and not isinstance(group_name, str):
            raise TypeError(f"group_name must be a str or None, got {group_name!r}")
        with self._lock:
            groups = list(self._added) if group_name is None else [group_name]
            doomed = [d for group in groups for d in self._added.pop(group, [])]
            clouds = list(self._clouds) if group_name is None else \
                [group_name] if group_name in self._clouds else []
            for group in clouds:
                del self._clouds[group]
            if not doomed and not clouds:
                return
            touched = set()
            inspector = self._sg.model_inspector()
            for description in doomed:
                g = description.geometry_id
                body = self._body_of.pop(g)
                touched.add(body)
                del self._X_BG[g]
                self._reach_of.pop(g, None)
                shape = self._shape_of.pop(g)
                self._added_triangles -= _triangles(shape)
                self._added_count -= 1
                source = self._source if self._is_robot[body] else self._added_source
                if inspector.get_frame_id(g) is not None:
                    self._sg.remove_geometry(source, g)
            for body in touched:
                members = [g for g, b in self._body_of.items() if b == body]
                self._geometry_sets[body] = GeometrySet(members) if members else None
            self._swap_world()

    def _add_shape(self, group_name, body: int, shape, X_BG) -> GeometryId:
        if not isinstance(group_name, str) or not group_name:
            raise ValueError(f"group_name must be a non-empty str, got {group_name!r}")
        if not isinstance(shape, Shape):
            raise TypeError(f"shape must be a Shape (Sphere, Box, ...), got "
                            f"{type(shape).__name__}")
        if X_BG is None:
            X_BG = RigidTransform()
        if not isinstance(X_BG, RigidTransform):
            raise TypeError(f"X_BG must be a RigidTransform, got {type(X_BG).__name__}")
        body_name = self.body_names[body]
        robot = bool(self._is_robot[body])
        if robot and isinstance(shape, (Mesh, HalfSpace)):
            raise ValueError(f"a {type(shape).__name__} cannot be held by robot link "
                             f"{body_name!r}: hold a Convex (or a primitive)")
        triangles = _checked_triangles(shape)
        if self._added_count + 1 > MAX_ADDED_SHAPES:
            raise ValueError(f"adding a shape to group {group_name!r} would pass the cap of "
                             f"{MAX_ADDED_SHAPES} added shapes")
        if self._added_triangles + triangles > MAX_ADDED_TRIANGLES:
            raise ValueError(f"adding {triangles} triangles to group {group_name!r} would pass "
                             f"the cap of {MAX_ADDED_TRIANGLES} added triangles")
        name = f"added::{group_name}::{self._added_count}::{id(shape):x}"
        if robot:
            instance = GeometryInstance(X_BG, shape, name)
            instance.set_proximity_properties(ProximityProperties())
            g = self._sg.register_geometry(self._source, self._frame_ids[body - 1], instance)
        else:
            if self._added_source is None:
                self._added_source = self._sg.register_source("added")
            instance = GeometryInstance(X_BG, shape, name)
            instance.set_proximity_properties(ProximityProperties())
            g = self._sg.register_anchored_geometry(self._added_source, instance)
        try:
            members = [g] + ([] if self._geometry_sets[body] is None
                             else list(self._geometry_sets[body].geometries()))
            declaration = CollisionFilterDeclaration()
            mine = GeometrySet([g])
            for other in np.flatnonzero(self._filtered[body]):
                if other != body and self._geometry_sets[other] is not None:
                    declaration.exclude_between(mine, self._geometry_sets[other])
            if declaration.statements:
                self._sg.collision_filter_manager().apply(declaration)
        except BaseException:
            self._sg.remove_geometry(self._source if robot else self._added_source, g)
            raise
        self._body_of[g] = body
        self._X_BG[g] = X_BG.get_as_matrix4()
        self._shape_of[g] = shape
        self._geometry_sets[body] = GeometrySet(members)
        self._added_count += 1
        self._added_triangles += triangles
        self._added.setdefault(group_name, []).append(
            BodyShapeDescription(shape, X_BG, body_name, g))
        self._swap_world()
        return g

    # ------------------------------------------------------------ point clouds

    def add_point_cloud(self, group_name: str, p_WP, radius: float,
                        q=None) -> PointCloudReport:
        """Add points ``p_WP`` (N, 3, world frame), each a sphere of ``radius``, to a group.

        A group holds one cloud: adding again replaces it. Rows with a NaN or
        an infinity are skipped and counted. Points the robot itself covers
        at configuration ``q`` (default: :attr:`default_positions`) are
        removed (the self filter): those within ``radius`` plus the link's
        environment padding of a robot geometry, held objects included.
        A configuration is in collision when a robot geometry's padded
        distance to a point's sphere is at or below zero; clearance rows
        report, per robot geometry, the nearest point's sphere (the
        cloud's geometry id, its frame the world's) with its Jacobian.

        Returns
        -------
        PointCloudReport
            Points kept, non-finite points skipped, points self-filtered.

        Raises
        ------
        ValueError
            If the group name is empty, ``p_WP`` is not an (N, 3) array of
            numbers or passes ``MAX_CLOUD_POINTS``, ``radius`` is negative
            or not finite, ``q`` is not a valid configuration, or a new
            group would pass ``MAX_CLOUD_GROUPS``. Nothing changes then.
        """
        if not isinstance(group_name, str) or not group_name:
            raise ValueError(f"group_name must be a non-empty str, got {group_name!r}")
        try:
            radius = float(radius)
        except (TypeError, ValueError):
            raise ValueError(f"point cloud {group_name!r}: radius must be a number, got "
                             f"{radius!r}") from None
        if not (math.isfinite(radius) and radius >= 0.0):
            raise ValueError(f"point cloud {group_name!r}: radius must be finite and "
                             f"non-negative, got {radius!r}")
        q = self.default_positions if q is None else q
        q = self._positions(q, "q", batch=False)
        points = checked_points(p_WP, group_name)
        with self._lock:
            if group_name not in self._clouds and len(self._clouds) >= MAX_CLOUD_GROUPS:
                raise ValueError(f"adding point cloud {group_name!r} would pass the cap of "
                                 f"{MAX_CLOUD_GROUPS} clouds")
            cloud = PointCloud.build(group_name, points, radius, GeometryId.get_new_id(),
                                     self._self_filter(radius, q))
            self._clouds[group_name] = cloud
            self._world = self._make_world()
            return cloud.report

    def _self_filter(self, radius: float, q: np.ndarray) -> tuple | None:
        """What the self filter tests a cloud's points against at q: the robot's geometries.

        ``(compiled model, X_WF (1, F, 4, 4), geometries, thresholds)``, each
        threshold ``radius`` plus the body's environment padding; None when
        the robot has no geometry.
        """
        model = self._sg.collision_model()
        robot = [(model.index_of(g), body) for g, body in self._body_of.items()
                 if self._is_robot[body]]
        if not robot:
            return None
        geometries = np.array([m for m, _ in robot], dtype=np.int32)
        bodies = np.array([b for _, b in robot], dtype=np.intp)
        thresholds = np.ascontiguousarray(radius + self._padding[bodies, 0])
        X_PF, _ = self._chain.frame_poses(q)
        X_WF = np.ascontiguousarray(
            self._sg.compute_world_poses_batch(self._source, self._frame_ids, X_PF))
        return ModelCache.of(model).native, X_WF, geometries, thresholds

    @property
    def default_positions(self) -> np.ndarray:
        """Configuration the self filter of :meth:`add_point_cloud` uses when given none.

        Zero for every position, moved into its joint's limits; settable.
        """
        if getattr(self, "_default_positions", None) is None:
            self._default_positions = np.clip(np.zeros(self.num_positions),
                                              self._chain.lower, self._chain.upper)
        return self._default_positions.copy()

    @default_positions.setter
    def default_positions(self, q) -> None:
        self._default_positions = self._positions(q, "default_positions", batch=False)[0]


def _triangles(shape: Shape) -> int:
    if isinstance(shape, Convex):
        return len(shape.hull()[1])
    if isinstance(shape, Mesh):
        return len(shape.faces())
    return 0


def _checked_triangles(shape: Shape) -> int:
    """Triangles of a Mesh or Convex, read now so that a bad file fails before anything changes.

    Raises
    ------
    ValueError
        If the file cannot be read, holds no triangles or a non-finite
        vertex, or the hull is degenerate.
    """
    if isinstance(shape, (Mesh, Convex)):
        vertices = shape.vertices()
        if not np.all(np.isfinite(vertices)):
            raise ValueError(f"{shape!r} has a vertex that is NaN or infinite")
    return _triangles(shape)
