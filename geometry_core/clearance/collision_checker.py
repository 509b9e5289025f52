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

Threads: queries only read the checker (the poses of K configurations go to
the scene graph's batched query, never into its pose table), so several
threads may query one checker at once; changing padding or filters while a
query runs is not supported.

This module uses the scene files, the scene graph and the proximity queries;
never fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from geometry_core.clearance.kinematic_chain import KinematicChain
from geometry_core.clearance.robot_clearance import RobotClearance, RobotCollisionType
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
from geometry_core.tolerances import CERTIFIED_EDGE_CLEARANCE, CERTIFIED_EDGE_MAX_STEPS

__all__ = ["CollisionChecker"]

_WORLD = "world"
Body = int | str


_SELF = RobotCollisionType.SELF_COLLISION
_ENVIRONMENT = RobotCollisionType.ENVIRONMENT_COLLISION


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
        self._link_radius = np.zeros(num_links)
        for g, body in self._body_of.items():
            if 1 <= body <= num_links:
                X_LG = self._X_BG[g]
                r = inspector.get_shape(g).bounding_radius() + np.linalg.norm(X_LG[:3, 3])
                self._link_radius[body - 1] = max(self._link_radius[body - 1], r)
        self._filtered = self._initial_filters()
        self._padding = np.zeros((B, B))
        robot_pair = np.outer(self._is_robot, self._is_robot)
        env_pair = np.outer(self._is_robot, ~self._is_robot)
        self._padding[robot_pair] = float(self_padding)
        self._padding[env_pair | env_pair.T] = float(environment_padding)
        self._padding_range: tuple[float, float] | None = None
        np.fill_diagonal(self._padding, 0.0)
        self._apply_filters(np.argwhere(np.triu(self._filtered, 1)), filtered=True)
        # Every geometry's row in arrays the queries gather from at once.
        self._geometry_row = {g: k for k, g in enumerate(self._body_of)}
        self._body_rows = np.array(list(self._body_of.values()), dtype=np.intp)
        self._X_BG_rows = np.array([self._X_BG[g] for g in self._body_of])

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
        return cls(robot, srdf=srdf, srdf_is_text=srdf_is_text, environment=environment,
                   self_padding=self_padding, environment_padding=environment_padding,
                   edge_step_size=edge_step_size)

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
        inspector = self._sg.model_inspector()
        members = self._link_geometries()
        for a in range(len(chain.links)):
            for b in range(a + 1, len(chain.links)):
                if filtered[1 + a, 1 + b] or not members[a] or not members[b]:
                    continue
                if all(inspector.collision_filtered(g, h) for g in members[a]
                       for h in members[b]):
                    filtered[1 + a, 1 + b] = filtered[1 + b, 1 + a] = True
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

    def _posed(self, qs: np.ndarray):
        X_PF, X_WL = self._chain.frame_poses(qs)
        return self._sg.query_batch(self._source, self._frame_ids, X_PF), X_WL

    def _pairs_within(self, qs: np.ndarray, max_distance: float):
        """Per configuration: unfiltered pairs as (body_a, body_b, padded distance, pair)."""
        batch, X_WL = self._posed(qs)
        out = []
        row_of, body_rows = self._geometry_row, self._body_rows
        for pairs in batch.compute_signed_distance_pairwise_closest_points(max_distance):
            if not pairs:
                out.append([])
                continue
            a = body_rows[[row_of[pair.id_A] for pair in pairs]]
            b = body_rows[[row_of[pair.id_B] for pair in pairs]]
            distance = np.array([pair.distance for pair in pairs]) - self._padding[a, b]
            keep = np.flatnonzero(~self._filtered[a, b])
            out.append(list(zip(a[keep].tolist(), b[keep].tolist(), distance[keep].tolist(),
                                [pairs[k] for k in keep])))
        return out, X_WL

    def check_configs_collision_free(self, qs) -> np.ndarray:
        """Return a (K,) bool array: whether each configuration is collision-free.

        Parameters
        ----------
        qs : (K, num_positions) float

        Raises
        ------
        ValueError
            If ``qs`` has the wrong shape or a position is not finite or is
            outside its joint's limits (the message names the joint).
        """
        return self._collision_free(self._positions(qs, "qs", batch=True))

    def _collision_free(self, qs: np.ndarray) -> np.ndarray:
        """check_configs_collision_free of validated (K, n) positions."""
        if self._padding_bounds() == (0.0, 0.0):
            # No padding anywhere: the compiled test answers every
            # configuration and stops each at its first overlap; a pair that
            # touches (distance 0) is a collision, as with padding.
            batch, _ = self._posed(qs)
            return ~batch.has_contacts()
        rows, _ = self._pairs_within(qs, self._max_padding())
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
        (rows,), _ = self._pairs_within(q, self._max_padding())
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

    def calc_robot_clearances(self, qs, influence_distance: float) -> list[RobotClearance]:
        """Return :meth:`calc_robot_clearance` for K configurations in one call.

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free` and :meth:`calc_robot_clearance`.
        """
        return self._clearances(self._positions(qs, "qs", batch=True), influence_distance)

    def _clearances(self, qs: np.ndarray, influence_distance: float) -> list[RobotClearance]:
        """calc_robot_clearances of validated (K, n) positions."""
        influence_distance = float(influence_distance)
        if not influence_distance >= 0.0:
            raise ValueError(f"influence_distance must be non-negative, got {influence_distance!r}")
        rows, X_WL = self._pairs_within(qs, influence_distance + max(self._max_padding(), 0.0))
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
            rows = [self._geometry_row[g] for pair in pairs for g in (pair.id_A, pair.id_B)]
            p_GQ = np.array([p for pair in pairs for p in (pair.p_ACa, pair.p_BCb)])
            links = np.where(self._is_robot[bodies], bodies - 1, -1)
            jacobian_rows = self._chain.distance_jacobians(
                X_WL[k], links, self._X_BG_rows[rows], p_GQ,
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

    def check_edge_collision_free(self, q1, q2, certified: bool = False) -> bool:
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

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`, for either end.
        """
        q1 = self._positions(q1, "q1", batch=False)[0]
        q2 = self._positions(q2, "q2", batch=False)[0]
        if certified:
            return self._certified_edge(q1, q2)
        steps = max(1, math.ceil(float(np.linalg.norm(q2 - q1)) / self.edge_step_size))
        ratios = np.arange(steps) / steps
        qs = np.vstack([q2[None], q1 + ratios[:, None] * (q2 - q1)])
        # Both ends are within the limits, so every point between them is.
        if self._padding_bounds() == (0.0, 0.0):
            # One compiled call that stops at the first configuration in contact.
            batch, _ = self._posed(qs)
            return not batch.any_contact()
        return bool(np.all(self._collision_free(qs)))

    def _certified_edge(self, q1: np.ndarray, q2: np.ndarray) -> bool:
        speed = self._pair_speeds(q1, q2)
        fastest_pair = float(speed.max())
        eps = CERTIFIED_EDGE_CLEARANCE
        dq = q2 - q1
        s = 0.0
        for _ in range(CERTIFIED_EDGE_MAX_STEPS):
            q = (q1 + s * dq)[None]
            # Pairs farther apart than their padding plus what the bodies can
            # sweep in the rest of the edge cannot meet: the query skips them.
            horizon = max(self._max_padding(), 0.0) + (1.0 - s) * fastest_pair
            (rows,), _ = self._pairs_within(q, horizon)
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

    def _pair_speeds(self, q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
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
        r = chain.motion_rates(self._link_radius, q1, q2) * dq[None, :]
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


def _check_padding(name: str, value) -> None:
    try:
        ok = math.isfinite(float(value))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a finite number (metres), got {value!r}")
