"""CollisionChecker: configuration-space questions about one robot among obstacles.

A planner asks, for a joint vector q of a URDF robot: is q collision-free,
is the straight motion from q1 to q2 collision-free, and how far is every
robot body from everything, and how does that distance change with each
joint (:class:`RobotClearance`). Drake's ``SceneGraphCollisionChecker``
(pydrake.planning) is the model; its names are kept in snake_case.

Bodies
    Index 0 is the world (anchored environment geometry and the URDF's
    ``world`` link), then the robot's links in the order the kinematic chain
    visits them (:attr:`CollisionChecker.body_names`), then one body per
    environment frame (named as the frame, ``environment::<name>`` when a
    robot link has that name). Links on fixed joints stay bodies of their own; links
    welded to the world (the root link, and links fixed to it) are anchored:
    as in Drake, they are never checked against the environment.
Filters
    Per body pair, initialised as Drake does it: a body with itself, links
    joined by a joint (Drake's parser), links welded together, anchored
    bodies with each other, and SRDF ``disable_collisions`` pairs.
    :meth:`CollisionChecker.set_collision_filtered_between` changes them.
Padding
    Per body pair, separately for self pairs (``self_padding``) and
    environment pairs (``environment_padding``): every distance is reported
    less its pair's padding, and a configuration is in collision when a
    padded distance is at or below zero.
Environment
    Copied, as anchored geometry at its current pose, into the checker's own
    scene graph: the checker never changes the scene it was given.
Added shapes and point clouds
    Drake's ``AddCollisionShapeToBody`` family, by group name: a shape added
    to a robot body is a held object (it moves with the body, keeps the
    body's filters and padding, and its rows in a clearance table are the
    body's); a shape added to ``world`` or an environment body is an
    obstacle. :meth:`CollisionChecker.add_point_cloud` adds points, each a
    sphere of one radius, without the points on the robot itself.
    Everything added is checked exactly, and is gone after
    :meth:`CollisionChecker.remove_all_added_collision_shapes`. Caps:
    ``live_world.MAX_ADDED_SHAPES`` shapes, ``MAX_ADDED_TRIANGLES``
    triangles, ``MAX_CLOUD_POINTS`` points a cloud, ``MAX_CLOUD_GROUPS``
    clouds.

Threads: queries only read the checker (the poses of K configurations go to
the scene graph's batched query, never into its pose table), so several
threads may query one checker at once. Adding and removing shapes and
clouds may run while other threads query: a change builds the new world
aside and swaps it in as one reference, so a query sees the world before
the change or after it, never a part. Changing padding or filters while a
query runs is not supported.

This module uses the scene files, the scene graph and the proximity queries;
never fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from geometry_core.clearance.kinematic_chain import KinematicChain
from geometry_core.clearance.live_world import (
    MAX_ADDED_SHAPES,
    MAX_ADDED_TRIANGLES,
    MAX_CLOUD_GROUPS,
    BodyShapeDescription,
    PointCloud,
    PointCloudReport,
    checked_points,
)
from geometry_core.clearance.robot_clearance import (
    RobotClearance,
    RobotCollisionType,
    RobotContact,
)
from geometry_core.math import RigidTransform
from geometry_core.parallelism import num_threads
from geometry_core.proximity.batch_query import BatchQuery
from geometry_core.proximity.engine import ModelCache
from geometry_core.proximity.results import SignedDistancePair
from geometry_core.scene import SceneGraph
from geometry_core.scene_files import LoadedScene, load_scene
from geometry_core.scene_files.srdf import apply_srdf_filters
from geometry_core.scene_files.urdf import load_urdf
from geometry_core.scene_graph import (
    CollisionFilterDeclaration,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
    Role,
)
from geometry_core.shapes import Convex, HalfSpace, Mesh, Shape
from geometry_core.tolerances import CERTIFIED_EDGE_CLEARANCE, CERTIFIED_EDGE_MAX_STEPS

__all__ = ["CollisionChecker"]

_WORLD = "world"
Body = int | str


_SELF = RobotCollisionType.SELF_COLLISION
_ENVIRONMENT = RobotCollisionType.ENVIRONMENT_COLLISION


class _World(NamedTuple):
    """Everything a query reads that a change of added shapes replaces, swapped as one."""

    model: object                 # the scene graph's CollisionModel
    native: object                # its compiled Model (what a cloud query reads)
    slot_of: dict                 # frame id -> slot
    row_of: dict                  # geometry id (clouds too) -> row
    body_rows: np.ndarray         # (rows,) body of each row
    X_BG_rows: np.ndarray         # (rows, 4, 4) pose of each row's geometry on its body
    link_radius: np.ndarray       # (links,) reach of each link's geometry from its frame
    clouds: tuple                 # PointCloud of every group with one
    robot_geometries: np.ndarray  # (R,) int32 model indices of robot geometry a cloud can hit
    robot_bodies: np.ndarray      # (R,) their bodies


class CollisionChecker:
    """Collision and clearance queries for one URDF robot in a static environment.

    Build one with :meth:`from_urdf`. Positions ``q`` are the robot's
    actuated joints in :attr:`position_names` order (radians, metres).

    Raises
    ------
    ValueError
        If a padding or the edge step size is not a valid number, or the
        SRDF is malformed (``SceneFileError``).
    """

    def __init__(self, robot: LoadedScene, *, srdf: str | os.PathLike | None = None,
                 srdf_is_text: bool = False,
                 environment: SceneGraph | LoadedScene | None = None,
                 self_padding: float = 0.0, environment_padding: float = 0.0,
                 edge_step_size: float = 0.05) -> None:
        if robot.kinematics is None:
            raise ValueError(f"{robot.path} has no joints: a collision checker needs a URDF robot")
        for name, value in (("self_padding", self_padding),
                            ("environment_padding", environment_padding)):
            _check_padding(name, value)
        edge_step_size = float(edge_step_size)
        if not (math.isfinite(edge_step_size) and edge_step_size > 0.0):
            raise ValueError(f"edge_step_size must be a positive number, got {edge_step_size!r}")
        self.edge_step_size = edge_step_size
        self._sg = robot.scene_graph
        if srdf is not None:
            # MoveIt's semantics (scene_files.srdf): unknown links are skipped
            # with a warning; the filters land in the scene graph, and
            # _initial_filters reads them back per body pair.
            apply_srdf_filters(self._sg, srdf, text=srdf_is_text)
        self._source = robot.kinematics.source_id
        self._chain = KinematicChain(robot.kinematics, robot.frames)
        self._frame_ids = [robot.frames[link] for link in self._chain.links]
        self.position_names: list[str] = list(self._chain.position_names)
        self.num_positions: int = self._chain.num_positions
        #: URDF mimic joints: they follow a position of q and take none of their own.
        self.mimic_joint_names: list[str] = list(self._chain.mimic_names)
        self.body_names: list[str] = [_WORLD] + list(self._chain.links)
        num_links = len(self._chain.links)
        frame_body = {f: 1 + k for k, f in enumerate(self._frame_ids)}
        inspector = self._sg.model_inspector()
        world = inspector.world_frame_id()
        self._body_of: dict[GeometryId, int] = {}
        self._X_BG: dict[GeometryId, np.ndarray] = {}
        for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
            frame = inspector.get_frame_id(g)
            self._body_of[g] = 0 if frame == world else frame_body[frame]
            self._X_BG[g] = inspector.get_pose_in_frame(g).get_as_matrix4()
        if environment is not None:
            self._copy_environment(environment)
        B = len(self.body_names)
        self._is_robot = np.zeros(B, dtype=bool)
        self._is_robot[1:1 + num_links] = True
        self._geometry_sets = self._body_geometry_sets()
        self._shape_of = {g: inspector.get_shape(g) for g in self._body_of}
        self._filtered = self._initial_filters()
        self._padding = np.zeros((B, B))
        robot_pair = np.outer(self._is_robot, self._is_robot)
        env_pair = np.outer(self._is_robot, ~self._is_robot)
        self._padding[robot_pair] = float(self_padding)
        self._padding[env_pair | env_pair.T] = float(environment_padding)
        self._padding_range: tuple[float, float] | None = None
        np.fill_diagonal(self._padding, 0.0)
        self._apply_filters(np.argwhere(np.triu(self._filtered, 1)), filtered=True)
        # Added shapes and clouds by group; one lock orders the changes.
        self._lock = threading.RLock()
        self._added: dict[str, list[BodyShapeDescription]] = {}
        self._clouds: dict[str, PointCloud] = {}
        self._added_source = None
        self._added_count = 0
        self._added_triangles = 0
        self._world = self._make_world()

    @classmethod
    def from_urdf(cls, urdf: str | os.PathLike, srdf: str | os.PathLike | None = None,
                  environment: str | os.PathLike | SceneGraph | None = None,
                  package_roots: Mapping[str, str | os.PathLike] | None = None,
                  self_padding: float = 0.0, environment_padding: float = 0.0,
                  edge_step_size: float = 0.05, srdf_is_text: bool = False,
                  xacro_args: Mapping[str, str] | None = None) -> CollisionChecker:
        """Build a checker for the robot of a URDF file.

        Parameters
        ----------
        urdf : path
            The robot (a ``.urdf``, or a ``.xacro`` expanded with
            ``xacro_args``). Only its collision geometry is loaded.
        srdf : path or str, optional
            MoveIt SRDF file (its text with ``srdf_is_text=True``) whose ``disable_collisions`` (and
            ``disable_default_collisions``) pairs are filtered; links the
            robot lacks are skipped with a ``SceneFileWarning``, as MoveIt
            does.
        environment : path or SceneGraph, optional
            Obstacles: a YAML scene file, a URDF, or a scene graph; its
            proximity geometry at its current poses.
        package_roots : mapping of str to path, optional
            ``{package: folder}`` for ``package://`` URIs (robot and a URDF
            environment).
        self_padding, environment_padding : float
            Default padding of robot-robot and robot-environment pairs (metres).
        edge_step_size : float
            Largest configuration-space step of the discrete edge check.
        xacro_args : mapping of str to str, optional
            Arguments of a ``.xacro`` robot (``$(arg name)``).

        Raises
        ------
        SceneFileError
            (a ValueError) If a file cannot be read; the message names it.
        ValueError
            As the constructor.
        """
        robot = load_urdf(urdf, package_roots=package_roots, visuals=False,
                          xacro_args=xacro_args)
        if environment is not None and not isinstance(environment, SceneGraph):
            path = Path(environment)
            if path.suffix.lower() in (".urdf", ".xml", ".xacro"):
                environment = load_urdf(path, package_roots=package_roots, visuals=False)
            else:
                environment = load_scene(path)
        checker = cls(robot, srdf=srdf, srdf_is_text=srdf_is_text, environment=environment,
                      self_padding=self_padding, environment_padding=environment_padding,
                      edge_step_size=edge_step_size)
        # What rebuilds it elsewhere (geometry_core.distributed.CheckerRecipe).
        checker._sources = {"urdf": urdf, "srdf": srdf, "srdf_is_text": srdf_is_text,
                            "package_roots": package_roots, "self_padding": self_padding,
                            "environment_padding": environment_padding}
        return checker

    # ------------------------------------------------------------ environment

    def _copy_environment(self, environment: SceneGraph | LoadedScene) -> None:
        scene = environment.scene_graph if isinstance(environment, LoadedScene) else environment
        if not isinstance(scene, SceneGraph):
            raise TypeError(f"environment must be a path, a SceneGraph or a LoadedScene, got "
                            f"{type(environment).__name__}")
        inspector = scene.model_inspector()
        query = scene.query_object(frames_without_pose="skip")
        source = self._sg.register_source("environment")
        world = inspector.world_frame_id()
        body_index = {_WORLD: 0}
        for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
            frame = inspector.get_frame_id(g)
            body_name = _WORLD if frame == world else inspector.get_name(frame)
            if body_name not in body_index and body_name in self.body_names:
                # A robot link of the same name: keep names unique, so a body
                # given by name is never ambiguous.
                body_name = f"environment::{body_name}"
            if body_name not in body_index:
                body_index[body_name] = len(self.body_names)
                self.body_names.append(body_name)
            X_WG = query.get_pose_in_world(g)
            instance = GeometryInstance(X_WG, inspector.get_shape(g),
                                        f"environment::{body_name}::{inspector.get_name(g)}")
            instance.set_proximity_properties(ProximityProperties())
            copy = self._sg.register_anchored_geometry(source, instance)
            self._body_of[copy] = body_index[body_name]
            self._X_BG[copy] = X_WG.get_as_matrix4()

    def _body_geometry_sets(self) -> list[GeometrySet | None]:
        ids: list[list] = [[] for _ in self.body_names]
        for g, body in self._body_of.items():
            ids[body].append(g)
        return [GeometrySet(members) if members else None for members in ids]

    def _make_world(self) -> _World:
        """The world queries read, built from the current geometries and clouds."""
        num_links = len(self._chain.links)
        link_radius = np.zeros(num_links)
        for g, body in self._body_of.items():
            if 1 <= body <= num_links:
                X_LG = self._X_BG[g]
                r = self._shape_of[g].bounding_radius() + np.linalg.norm(X_LG[:3, 3])
                link_radius[body - 1] = max(link_radius[body - 1], r)
        clouds = tuple(self._clouds.values())
        # Every geometry's row (a cloud's too: on the world, at identity) in
        # arrays the queries gather from at once.
        ids = list(self._body_of) + [cloud.geometry_id for cloud in clouds]
        row_of = {g: k for k, g in enumerate(ids)}
        body_rows = np.array(list(self._body_of.values()) + [0] * len(clouds), dtype=np.intp)
        X_BG_rows = np.array([self._X_BG[g] for g in self._body_of] + [np.eye(4)] * len(clouds))
        model = self._sg.collision_model()
        # Robot geometry a cloud (on the world body) can touch: the bodies
        # not filtered against the world.
        robot = [(model.index_of(g), body) for g, body in self._body_of.items()
                 if self._is_robot[body] and not self._filtered[body, 0]]
        robot.sort()
        return _World(model, ModelCache.of(model).native if clouds else None,
                      self._sg.frame_slot_map(), row_of, body_rows, X_BG_rows,
                      link_radius, clouds,
                      np.array([m for m, _ in robot], dtype=np.int32),
                      np.array([b for _, b in robot], dtype=np.intp))

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
                shape = self._shape_of.pop(g)
                self._added_triangles -= _triangles(shape)
                self._added_count -= 1
                source = self._source if self._is_robot[body] else self._added_source
                if inspector.get_frame_id(g) is not None:
                    self._sg.remove_geometry(source, g)
            for body in touched:
                members = [g for g, b in self._body_of.items() if b == body]
                self._geometry_sets[body] = GeometrySet(members) if members else None
            self._world = self._make_world()

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
        self._world = self._make_world()
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
            cloud = PointCloud.build(group_name, points, radius, GeometryId.get_new_id())
            covered = self._self_covered(cloud, q)
            if covered.any():
                cloud = cloud.without(covered)
            self._clouds[group_name] = cloud
            self._world = self._make_world()
            return cloud.report

    def _self_covered(self, cloud: PointCloud, q: np.ndarray) -> np.ndarray:
        """(N,) bool: points within the radius plus padding of the robot's geometry at q."""
        model = self._sg.collision_model()
        robot = [(model.index_of(g), body) for g, body in self._body_of.items()
                 if self._is_robot[body]]
        if not robot or cloud.native.size == 0:
            return np.zeros(cloud.native.size, dtype=bool)
        geometries = np.array([m for m, _ in robot], dtype=np.int32)
        bodies = np.array([b for _, b in robot], dtype=np.intp)
        thresholds = np.ascontiguousarray(cloud.radius + self._padding[bodies, 0])
        X_PF, _ = self._chain.frame_poses(q)
        X_WF = np.ascontiguousarray(
            self._sg.compute_world_poses_batch(self._source, self._frame_ids, X_PF))
        mask = cloud.native.within(ModelCache.of(model).native, X_WF, X_WF.shape[1], geometries,
                                   thresholds)
        return np.frombuffer(mask, dtype=np.uint8).astype(bool)

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

    # ---------------------------------------------------------------- filters

    def _link_geometries(self) -> list[list[GeometryId]]:
        members: list[list[GeometryId]] = [[] for _ in self._chain.links]
        for g, body in self._body_of.items():
            if self._is_robot[body]:
                members[body - 1].append(g)
        return members

    def _initial_filters(self) -> np.ndarray:
        chain = self._chain
        B = len(self.body_names)
        filtered = np.eye(B, dtype=bool)
        # Anchored bodies: the world, the environment, links welded to the world.
        anchored = ~self._is_robot.copy()
        anchored[1:1 + len(chain.links)] = chain.anchored
        filtered |= np.outer(anchored, anchored)
        for k in range(len(chain.links)):
            p = chain.parent[k]
            if p >= 0:
                filtered[1 + k, 1 + p] = filtered[1 + p, 1 + k] = True    # Drake's parser
        # Links welded by fixed joints form one body as far as collisions go.
        group = np.arange(len(chain.links))
        for k in range(len(chain.links)):
            p = chain.parent[k]
            if p >= 0 and chain.kind[k] == "fixed":
                group[k] = group[p]
        same = group[:, None] == group[None, :]
        filtered[1:1 + len(chain.links), 1:1 + len(chain.links)] |= same
        # Pairs the scene graph already filters throughout (the loader's,
        # the SRDF's): every geometry pair of the two links.
        # All geometry pairs at once, in chunks (a pair at a time was O(n^2)
        # Python calls: minutes for a robot of a few thousand links).
        members = self._link_geometries()
        L = len(chain.links)
        model = self._sg.collision_model()
        link_of = np.array([a for a in range(L) for _ in members[a]], dtype=np.intp)
        index = np.array([model.index_of(g) for a in range(L) for g in members[a]],
                         dtype=np.int64)
        has = np.array([bool(m) for m in members], dtype=bool)
        reported = np.zeros((L, L), dtype=bool)   # some geometry pair of the links is checked
        G = len(index)
        step = max(1, 2_000_000 // max(G, 1))
        for start in range(0, G, step):
            u, v = np.nonzero(np.triu(np.ones((min(step, G - start), G), dtype=bool),
                                      start + 1))
            u += start
            la, lb = link_of[u], link_of[v]
            wanted = la != lb
            u, v, la, lb = u[wanted], v[wanted], la[wanted], lb[wanted]
            i, j = np.minimum(index[u], index[v]), np.maximum(index[u], index[v])
            keep = model.unfiltered(i, j)
            reported[la[keep], lb[keep]] = True
        reported |= reported.T
        pair = np.outer(has, has) & ~reported
        np.fill_diagonal(pair, False)
        filtered[1:1 + L, 1:1 + L] |= pair
        return filtered

    def _apply_filters(self, pairs, filtered: bool) -> None:
        declaration = CollisionFilterDeclaration()
        count = 0
        for a, b in pairs:
            set_a, set_b = self._geometry_sets[a], self._geometry_sets[b]
            if set_a is None or set_b is None:
                continue
            if filtered:
                declaration.exclude_between(set_a, set_b)
            else:
                declaration.allow_between(set_a, set_b)
            count += 1
        if count:
            self._sg.collision_filter_manager().apply(declaration)
            if hasattr(self, "_world"):
                self._world = self._make_world()

    def body_name(self, index: int) -> str:
        """Return the name of a body index (a URDF link, ``world``, or an environment frame).

        Raises
        ------
        IndexError
            If there is no such body.
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) \
                or not 0 <= index < len(self.body_names):
            raise IndexError(f"body index must be an integer in [0, {len(self.body_names)}), "
                             f"got {index!r}")
        return self.body_names[index]

    def geometry_name(self, geometry_id: GeometryId) -> str:
        """Return the name of a geometry of a clearance row (:meth:`RobotClearance.geometry_ids`).

        Raises
        ------
        KeyError
            If the id is not one of the checker's geometries.
        """
        for cloud in self._world.clouds:
            if cloud.geometry_id == geometry_id:
                return f"{cloud.group}::point_cloud"
        if geometry_id not in self._body_of:
            raise KeyError(f"{geometry_id!r} is not a geometry of this checker")
        return self._sg.model_inspector().get_name(geometry_id)

    def body_index(self, body: Body) -> int:
        """Return the index of a body given by name or index.

        Raises
        ------
        KeyError
            If there is no body of that name (lists the names).
        IndexError
            As :meth:`body_name`.
        """
        if isinstance(body, str):
            try:
                return self.body_names.index(body)
            except ValueError:
                raise KeyError(f"no body named {body!r}; bodies: "
                               f"{', '.join(self.body_names)}") from None
        self.body_name(body)
        return int(body)

    def is_part_of_robot(self, body: Body) -> bool:
        """Report whether a body is one of the robot's links."""
        return bool(self._is_robot[self.body_index(body)])

    def _pair(self, body_a: Body, body_b: Body, what: str) -> tuple[int, int]:
        a, b = self.body_index(body_a), self.body_index(body_b)
        if a == b:
            raise ValueError(f"{what} needs two different bodies, got {self.body_names[a]!r} "
                             "twice")
        if not (self._is_robot[a] or self._is_robot[b]):
            raise ValueError(f"{what}: neither {self.body_names[a]!r} nor "
                             f"{self.body_names[b]!r} is a robot body")
        return a, b

    def is_collision_filtered_between(self, body_a: Body, body_b: Body) -> bool:
        """Report whether collisions between two bodies are ignored.

        Raises
        ------
        KeyError, IndexError
            For an unknown body.
        """
        return bool(self._filtered[self.body_index(body_a), self.body_index(body_b)])

    def set_collision_filtered_between(self, body_a: Body, body_b: Body,
                                       filtered: bool) -> None:
        """Ignore (``filtered=True``) or check collisions between two bodies.

        Raises
        ------
        ValueError
            If the bodies are the same, neither is a robot body, or the pair
            is two anchored bodies (a robot link welded to the world and the
            environment), which can never be checked.
        KeyError, IndexError
            For an unknown body.
        """
        a, b = self._pair(body_a, body_b, "set_collision_filtered_between")
        anchored = [not self._is_robot[i] or self._chain.anchored[i - 1] for i in (a, b)]
        if not filtered and all(anchored):
            raise ValueError(f"{self.body_names[a]!r} and {self.body_names[b]!r} are both "
                             "welded to the world: their collisions cannot be unfiltered")
        self._filtered[a, b] = self._filtered[b, a] = bool(filtered)
        self._padding_range = None
        self._apply_filters([(a, b)], bool(filtered))

    def get_padding_between(self, body_a: Body, body_b: Body) -> float:
        """Return the padding of a body pair (metres).

        Raises
        ------
        KeyError, IndexError
            For an unknown body.
        """
        return float(self._padding[self.body_index(body_a), self.body_index(body_b)])

    def set_padding_between(self, body_a: Body, body_b: Body, padding: float) -> None:
        """Set the padding of one body pair (metres; negative allows that much overlap).

        Raises
        ------
        ValueError
            If ``padding`` is not finite, the bodies are the same, or neither
            is a robot body.
        KeyError, IndexError
            For an unknown body.
        """
        a, b = self._pair(body_a, body_b, "set_padding_between")
        _check_padding("padding", padding)
        self._padding[a, b] = self._padding[b, a] = float(padding)
        self._padding_range = None

    def _padding_bounds(self) -> tuple[float, float]:
        """Smallest and largest padding of an unfiltered pair (cached until a setter runs)."""
        if self._padding_range is None:
            live = self._padding[~self._filtered]
            self._padding_range = ((float(live.min()), float(live.max())) if live.size
                                   else (0.0, 0.0))
        return self._padding_range

    def _max_padding(self) -> float:
        return self._padding_bounds()[1]

    # ---------------------------------------------------------------- queries

    def _positions(self, qs, name: str, batch: bool) -> np.ndarray:
        try:
            qs = np.array(qs, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be an array of numbers, got {qs!r}") from None
        n = self.num_positions
        if batch:
            if qs.ndim != 2 or qs.shape[1] != n:
                raise ValueError(f"{name} must have shape (K, {n}), got {qs.shape}")
        elif qs.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) (positions of "
                             f"{', '.join(self.position_names)}), got {qs.shape}")
        qs = qs.reshape(-1, n)
        return self._chain.check_positions(qs, name)

    def _chain_batch(self, qs: np.ndarray, world: _World | None = None) -> BatchQuery:
        """The batch of K configurations of one world, posed inside the compiled loop.

        Its ``X_WF`` (every frame's world pose) is computed when read.
        """
        world = self._world if world is None else world
        X_PF, parents, slots = self._sg.pose_tree(self._source, self._frame_ids)
        return BatchQuery.of_chain(world.model, world.slot_of, self._chain.arrays,
                                   np.ascontiguousarray(qs, dtype=np.float64), X_PF, slots,
                                   parents)

    def _pairs_within(self, qs: np.ndarray, max_distance: float, parallelize=1):
        """Per configuration: unfiltered pairs as (body_a, body_b, padded distance, pair)."""
        rows, X_WL, _ = self._pairs_in(qs, max_distance, parallelize=parallelize)
        return rows, X_WL

    def _pairs_in(self, qs: np.ndarray, max_distance: float, world: _World | None = None,
                  parallelize=1):
        """:meth:`_pairs_within` in ``world`` (the current one when None), and that world."""
        world = self._world if world is None else world
        batch = self._chain_batch(qs, world)
        _, X_WL = self._chain.frame_poses(qs)
        out = []
        row_of, body_rows = world.row_of, world.body_rows
        all_pairs = batch.compute_signed_distance_pairwise_closest_points(max_distance,
                                                                          parallelize)
        if world.clouds:
            all_pairs = self._with_cloud_pairs(world, batch.X_WF, max_distance, all_pairs)
        for pairs in all_pairs:
            if not pairs:
                out.append([])
                continue
            a = body_rows[[row_of[pair.id_A] for pair in pairs]]
            b = body_rows[[row_of[pair.id_B] for pair in pairs]]
            distance = np.array([pair.distance for pair in pairs]) - self._padding[a, b]
            keep = np.flatnonzero(~self._filtered[a, b])
            out.append(list(zip(a[keep].tolist(), b[keep].tolist(), distance[keep].tolist(),
                                [pairs[k] for k in keep])))
        return out, X_WL, world

    def _with_cloud_pairs(self, world: _World, X_WF: np.ndarray, max_distance: float,
                          all_pairs: list[list[SignedDistancePair]]):
        """``all_pairs`` with, per cloud and robot geometry, the nearest point within reach.

        The row of a point is the row of a sphere of the cloud's radius
        there (the cloud's geometry frame is the world), in id order.
        """
        geometries = world.robot_geometries
        ids = world.model.geometry_ids
        out = [list(pairs) for pairs in all_pairs]
        for cloud in world.clouds:
            # The batch query's rule for a sphere at each point: raw distance
            # (to the sphere) at most max_distance.
            thresholds = np.full(len(geometries), max_distance + cloud.radius)
            distance, index, p_GN, grad_W, unique, p_WPs = cloud.nearest(
                world.native, X_WF, geometries, thresholds)
            c, r = cloud.geometry_id, cloud.radius
            for k, m in zip(*np.nonzero(index >= 0)):
                g = ids[geometries[m]]
                p_WP = p_WPs[k, m]
                grad = grad_W[k, m]
                if g.get_value() < c.get_value():
                    pair = SignedDistancePair(g, c, p_GN[k, m].copy(), p_WP - r * grad,
                                              float(distance[k, m] - r), -grad,
                                              bool(unique[k, m]))
                else:
                    pair = SignedDistancePair(c, g, p_WP - r * grad, p_GN[k, m].copy(),
                                              float(distance[k, m] - r), grad.copy(),
                                              bool(unique[k, m]))
                out[k].append(pair)
        for pairs in out:
            pairs.sort(key=lambda pair: (pair.id_A.get_value(), pair.id_B.get_value()))
        return out

    def _cloud_contacts(self, world: _World, X_WF: np.ndarray) -> np.ndarray:
        """(K,) bool: some robot geometry's padded distance to a cloud point is <= 0."""
        hit = np.zeros(X_WF.shape[0], dtype=bool)
        geometries, bodies = world.robot_geometries, world.robot_bodies
        for cloud in world.clouds:
            thresholds = np.ascontiguousarray(cloud.radius + self._padding[bodies, 0],
                                              dtype=np.float64)
            hit |= cloud.any_within(world.native, X_WF, geometries, thresholds)
        return hit

    def check_configs_collision_free(self, qs, parallelize=1) -> np.ndarray:
        """Return a (K,) bool array: whether each configuration is collision-free.

        Parameters
        ----------
        qs : (K, num_positions) float
        parallelize : bool, int or Parallelism
            Native threads that share the configurations (``True``: every
            core; :func:`geometry_core.parallelism.num_threads`). The
            answers are the same for any number of threads.

        Raises
        ------
        ValueError
            If ``qs`` has the wrong shape or a position is not finite or is
            outside its joint's limits (the message names the joint), or
            ``parallelize`` is not a thread count.
        """
        return self._collision_free(self._positions(qs, "qs", batch=True), parallelize)

    def calc_min_distances(self, qs, max_distance: float = math.inf,
                           parallelize=1) -> np.ndarray:
        """Return a (K,) array: each configuration's smallest padded distance of any pair.

        Over the unfiltered pairs whose padded distance is at most
        ``max_distance`` (inf where none is); negative where bodies overlap
        by more than their padding. A configuration is collision-free exactly
        when this is above zero. ``parallelize`` as in
        :meth:`check_configs_collision_free`.

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free`, or if ``max_distance``
            is NaN.
        """
        qs = self._positions(qs, "qs", batch=True)
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        world = self._world
        if self._padding_bounds() == (0.0, 0.0) and not world.clouds:
            return self._chain_batch(qs, world).compute_min_distance(max_distance, parallelize)
        rows, _, _ = self._pairs_in(qs, max_distance + max(self._max_padding(), 0.0), world,
                                    parallelize)
        return np.array([min((d for _, _, d, _ in config if d <= max_distance),
                             default=math.inf) for config in rows])

    def _collision_free(self, qs: np.ndarray, parallelize=1) -> np.ndarray:
        """check_configs_collision_free of validated (K, n) positions."""
        world = self._world
        if self._padding_bounds() == (0.0, 0.0):
            # No padding anywhere: the compiled test poses and answers every
            # configuration and stops each at its first overlap; a pair that
            # touches (distance 0) is a collision, as with padding.
            batch = self._chain_batch(qs, world)
            free = ~batch.has_contacts(parallelize)
            if world.clouds and free.any():
                # Only configurations still free need the cloud.
                free[free] = ~self._cloud_contacts(world, batch.X_WF[free])
            return free
        rows, _, _ = self._pairs_in(qs, self._max_padding(), world, parallelize)
        return np.array([all(d > 0.0 for _, _, d, _ in config) for config in rows], dtype=bool)

    def check_config_collision_free(self, q) -> bool:
        """Report whether configuration ``q`` is collision-free (padded distances > 0).

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free`.
        """
        return bool(self._collision_free(self._positions(q, "q", batch=False))[0])

    def classify_body_collisions(self, q) -> list[RobotCollisionType]:
        """Return, per body index, what the body is in collision with at ``q``.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`.
        """
        q = self._positions(q, "q", batch=False)
        types = [RobotCollisionType.NO_COLLISION] * len(self.body_names)
        (rows,), _, _ = self._pairs_in(q, self._max_padding())
        for a, b, distance, _ in rows:
            if distance > 0.0:
                continue
            if self._is_robot[a] and self._is_robot[b]:
                types[a] = types[a].with_self(True)
                types[b] = types[b].with_self(True)
            else:
                robot = a if self._is_robot[a] else b
                types[robot] = types[robot].with_environment(True)
        return types

    def calc_contacts(self, q) -> list[RobotContact]:
        """Return the contacts of configuration ``q``: the unfiltered pairs at padded distance <= 0.

        One :class:`RobotContact` per pair of geometries (robot with robot,
        environment, added shapes, or a point cloud's nearest point, as a
        sphere of the cloud's radius), in order of the pair's geometry ids,
        with its depth, witness points and normal in the world; empty
        exactly when :meth:`check_config_collision_free` is true.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`.
        """
        q = self._positions(q, "q", batch=False)
        (rows,), X_WL, world = self._pairs_in(q, max(self._max_padding(), 0.0))
        contacts = []
        for a, b, distance, pair in rows:
            if distance > 0.0:
                continue
            p_WC = []
            for body, g, p_GC in ((a, pair.id_A, pair.p_ACa), (b, pair.id_B, pair.p_BCb)):
                # A link's geometry moves with the link; any other body's frame is the world's.
                X_WB = X_WL[0, body - 1] if self._is_robot[body] else np.eye(4)
                X_WG = X_WB @ world.X_BG_rows[world.row_of[g]]
                p_WC.append(X_WG[:3, :3] @ p_GC + X_WG[:3, 3])
            contacts.append(RobotContact(self.body_names[a], self.body_names[b], pair.id_A,
                                         pair.id_B, -float(distance), p_WC[0], p_WC[1],
                                         np.array(pair.nhat_BA_W, dtype=float)))
        return contacts

    def calc_robot_clearance(self, q, influence_distance: float) -> RobotClearance:
        """Return the clearance table of configuration ``q``.

        One row per unfiltered geometry pair (robot and anything) whose
        padded distance is at most ``influence_distance``, in order of the
        pair's geometry ids. The Jacobian row is
        ``nhat_BA_W · (J_v(Ca) - J_v(Cb))``: witness Ca fixed on A's body,
        Cb on B's, ``J_v`` their translational Jacobians with respect to q.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`, or if
            ``influence_distance`` is negative or NaN.
        """
        return self._clearances(self._positions(q, "q", batch=False), influence_distance)[0]

    def calc_robot_clearances(self, qs, influence_distance: float,
                              parallelize=1) -> list[RobotClearance]:
        """Return :meth:`calc_robot_clearance` for K configurations in one call.

        ``parallelize`` (as :meth:`check_configs_collision_free`): native
        threads pose the configurations and find their pairs; the tables are
        then assembled in Python. The tables are the same for any number of
        threads.

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free` and :meth:`calc_robot_clearance`.
        """
        return self._clearances(self._positions(qs, "qs", batch=True), influence_distance,
                                parallelize)

    def _clearances(self, qs: np.ndarray, influence_distance: float,
                    parallelize=1) -> list[RobotClearance]:
        """calc_robot_clearances of validated (K, n) positions."""
        influence_distance = float(influence_distance)
        if not influence_distance >= 0.0:
            raise ValueError(f"influence_distance must be non-negative, got {influence_distance!r}")
        rows, X_WL, world = self._pairs_in(
            qs, influence_distance + max(self._max_padding(), 0.0), parallelize=parallelize)
        out = []
        for k, config in enumerate(rows):
            config = [row for row in config if row[2] <= influence_distance]
            if not config:
                out.append(RobotClearance(self.num_positions))
                continue
            # Both witnesses of every row at once (Ca fixed on A's body, Cb on
            # B's): their world points and Jacobian rows in one compiled pass.
            pairs = [pair for _, _, _, pair in config]
            bodies = np.array([[a, b] for a, b, _, _ in config]).reshape(-1)
            rows = [world.row_of[g] for pair in pairs for g in (pair.id_A, pair.id_B)]
            p_GQ = np.array([p for pair in pairs for p in (pair.p_ACa, pair.p_BCb)])
            links = np.where(self._is_robot[bodies], bodies - 1, -1)
            jacobian_rows = self._chain.distance_jacobians(
                X_WL[k], links, world.X_BG_rows[rows], p_GQ,
                np.array([pair.nhat_BA_W for pair in pairs]))
            robot, other, types = [], [], []
            is_robot = self._is_robot
            for a, b, _, _ in config:
                robot.append(a if is_robot[a] else b)
                other.append(b if is_robot[a] else a)
                types.append(_SELF if is_robot[a] and is_robot[b] else _ENVIRONMENT)
            out.append(RobotClearance._from_rows(
                self.num_positions, robot, other, types, [row[2] for row in config],
                jacobian_rows, [(pair.id_A, pair.id_B) for pair in pairs]))
        return out

    # ------------------------------------------------------------------ edges

    def check_edge_collision_free(self, q1, q2, certified: bool = False,
                                  parallelize=1) -> bool:
        """Report whether the straight motion from ``q1`` to ``q2`` is collision-free.

        Discrete (default, Drake's check): ``q2``, then ``q1`` and the
        configurations between them at steps of at most
        :attr:`edge_step_size` (Euclidean in q). It can miss an obstacle
        thinner than what a body sweeps in one step.

        Certified (``certified=True``): conservative advancement. At a
        configuration on the edge, every unfiltered pair's padded distance d
        and a bound v on how fast its two bodies can approach per unit of
        edge (joint motion times the farthest reach of the geometry beyond
        each joint, :meth:`KinematicChain.motion_rates`) prove the next
        ``(d - eps) / v`` of the edge free; the check advances by the
        smallest such step. It returns True only for an edge it has proven
        free, so it never calls a colliding edge free; it returns False at a
        collision, when a pair comes within ``2 eps`` (2 µm), or after
        ``CERTIFIED_EDGE_MAX_STEPS`` steps.

        ``parallelize`` (as :meth:`check_configs_collision_free`): native
        threads share the configurations of a discrete check (Drake's
        ``CheckEdgeCollisionFreeParallel``), each stopping once a
        configuration before its own is known to collide; the certified check
        goes one step after another and ignores it.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`, for either end.
        """
        threads = num_threads(parallelize)
        q1 = self._positions(q1, "q1", batch=False)[0]
        q2 = self._positions(q2, "q2", batch=False)[0]
        if certified:
            return self._certified_edge(q1, q2)
        steps = max(1, math.ceil(float(np.linalg.norm(q2 - q1)) / self.edge_step_size))
        ratios = np.arange(steps) / steps
        qs = np.vstack([q2[None], q1 + ratios[:, None] * (q2 - q1)])
        # Both ends are within the limits, so every point between them is.
        world = self._world
        if self._padding_bounds() == (0.0, 0.0) and not world.clouds:
            # One compiled call that stops at the first configuration in contact.
            return not self._chain_batch(qs, world).any_contact(threads)
        return bool(np.all(self._collision_free(qs, threads)))

    def _certified_edge(self, q1: np.ndarray, q2: np.ndarray) -> bool:
        world = self._world
        speed = self._pair_speeds(q1, q2, world.link_radius)
        fastest_pair = float(speed.max())
        eps = CERTIFIED_EDGE_CLEARANCE
        dq = q2 - q1
        s = 0.0
        for _ in range(CERTIFIED_EDGE_MAX_STEPS):
            q = (q1 + s * dq)[None]
            # Pairs farther apart than their padding plus what the bodies can
            # sweep in the rest of the edge cannot meet: the query skips them.
            horizon = max(self._max_padding(), 0.0) + (1.0 - s) * fastest_pair
            (rows,), _, _ = self._pairs_in(q, horizon, world)
            step = 1.0 - s
            for a, b, distance, _ in rows:
                # Each step keeps every pair at least eps apart, so the
                # distance only tends to eps at a contact: stop at 2 eps.
                if distance <= 2.0 * eps:
                    return False
                if speed[a, b] > 0.0:
                    step = min(step, (distance - eps) / speed[a, b])
            if s + step >= 1.0:
                return True
            s += step
        return False

    def _pair_speeds(self, q1: np.ndarray, q2: np.ndarray,
                     link_radius: np.ndarray) -> np.ndarray:
        """Bound (B, B) on how fast each body pair can approach per unit of the edge q1 -> q2.

        An environment pair approaches at most as fast as the robot body's
        points move. A self pair's distance does not change under a motion
        of both bodies together, so joints that move both drop out: only the
        joints below their deepest common ancestor count.
        """
        chain, L = self._chain, len(self._chain.links)
        dq = np.zeros(L)
        moving = chain.column >= 0
        dq[moving] = np.abs(q2 - q1)[chain.column[moving]]
        r = chain.motion_rates(link_radius, q1, q2) * dq[None, :]
        total = r.sum(axis=1)
        shared = r @ chain.ancestor_mask().T.astype(float)
        robot = np.zeros((L, L))
        robot[:] = total[:, None] + total[None, :] - shared - shared.T
        B = len(self.body_names)
        speed = np.zeros((B, B))
        link_total = np.zeros(B)
        link_total[1:1 + L] = total
        speed[:] = link_total[:, None] + link_total[None, :]
        speed[1:1 + L, 1:1 + L] = robot
        return np.maximum(speed, 0.0)


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


def _check_padding(name: str, value) -> None:
    try:
        ok = math.isfinite(float(value))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a finite number (metres), got {value!r}")
