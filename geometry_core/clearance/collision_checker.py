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

The class is put together from its parts: the tables of bodies, filters and
padding (``checker_tables``), the added shapes and clouds
(``added_geometry``), the queries (``checker_queries``) and the certified
edge check (``certified_edge``). This module builds it from a URDF; it uses
the scene files and never fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

from geometry_core.clearance.added_geometry import AddedGeometry
from geometry_core.clearance.checker_queries import CheckerQueries
from geometry_core.clearance.checker_tables import CheckerTables, check_padding
from geometry_core.scene import SceneGraph
from geometry_core.scene_files import LoadedScene, load_scene
from geometry_core.scene_files.urdf import load_urdf

__all__ = ["CollisionChecker"]


class CollisionChecker(CheckerQueries, AddedGeometry, CheckerTables):
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
            check_padding(name, value)
        edge_step_size = float(edge_step_size)
        if not (math.isfinite(edge_step_size) and edge_step_size > 0.0):
            raise ValueError(f"edge_step_size must be a positive number, got {edge_step_size!r}")
        self.edge_step_size = edge_step_size
        self._build_tables(robot, srdf, srdf_is_text, environment, self_padding,
                           environment_padding)
        self._start_live_world()
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
