"""Joint states in, clearance tables out: the scene graph node's planner interface.

:func:`joint_state_to_positions` turns a ``sensor_msgs/JointState`` into
positions and velocities in a :class:`~geometry_core.clearance.CollisionChecker`'s
order, or raises :class:`JointStateError` (a ``ValueError``) naming what is
wrong: arrays of different lengths, an unknown joint name, a NaN or
infinite value. Joint states may arrive split over several messages (one
per controller); :class:`JointStateTracker` keeps the newest value of each
joint and has a configuration once every joint has been heard.

:class:`ClearanceMonitor` wires it into a node: it builds the checker from
``robot_description`` (the parameter, or the latched topic when it arrives)
and the node's SRDF (``srdf_file``, ``robot_description_semantic``, or its
latched topic; a new one rebuilds the checker), subscribes to
``joint_states`` and publishes a ``geometry_core_ros/ClearanceTable`` per
accepted joint state, at the joint state rate. Bad joint states are counted
(``counters["bad_joint_state"]``) and dropped, with a warning the first time
and at each power of ten; so are joint states that arrive before any robot
(``counters["joint_state_without_robot"]``).

This module must never import cyclonedds, rclpy, fcl or lcm directly.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from geometry_core.clearance import CollisionChecker
from geometry_core_nodes.inbound import stamp_to_ns
from geometry_core_nodes.outbound import clearance_table_to_msg
from geometry_core_nodes.transport import RELIABLE_RESULTS, SENSOR_DATA, ParameterError

__all__ = ["ClearanceMonitor", "JointStateError", "JointStateTracker",
           "joint_state_to_positions"]


class JointStateError(ValueError):
    """A joint state that cannot be used; the message says why."""


def joint_state_to_positions(msg: Any, checker: CollisionChecker
                             ) -> tuple[dict[str, float], dict[str, float]]:
    """Return ``(positions, velocities)`` by joint name from a JointState message.

    Names of mimic joints are accepted and ignored (their leader sets them).

    Raises
    ------
    JointStateError
        If ``position`` (or a non-empty ``velocity``) is not as long as
        ``name``, a name is not a joint of the robot, or a value is not finite.
    """
    names = list(msg.name)
    position = list(msg.position)
    velocity = list(msg.velocity)
    if len(position) != len(names):
        raise JointStateError(f"joint state has {len(names)} names but {len(position)} "
                              "positions")
    if velocity and len(velocity) != len(names):
        raise JointStateError(f"joint state has {len(names)} names but {len(velocity)} "
                              "velocities")
    known = set(checker.position_names)
    unknown = [n for n in names if n not in known and n not in checker.mimic_joint_names]
    if unknown:
        raise JointStateError(f"joint state names unknown joints {unknown}; the robot's joints: "
                              f"{', '.join(checker.position_names)}")
    positions, velocities = {}, {}
    for k, name in enumerate(names):
        if name not in known:
            continue
        values = [("position", position[k])] + ([("velocity", velocity[k])] if velocity else [])
        for field, value in values:
            if not math.isfinite(value):
                raise JointStateError(f"joint state {field} of {name!r} is {value!r}")
        positions[name] = float(position[k])
        if velocity:
            velocities[name] = float(velocity[k])
    return positions, velocities


class JointStateTracker:
    """The newest position (and velocity) of each joint, from one or more JointState streams."""

    def __init__(self, position_names: Sequence[str]) -> None:
        self._index = {name: k for k, name in enumerate(position_names)}
        self.q = np.full(len(position_names), np.nan)
        self.v = np.full(len(position_names), np.nan)

    def update(self, positions: Mapping[str, float], velocities: Mapping[str, float]) -> None:
        """Record the values of one message."""
        for name, value in positions.items():
            self.q[self._index[name]] = value
        for name, value in velocities.items():
            self.v[self._index[name]] = value

    @property
    def ready(self) -> bool:
        """Whether every joint's position has been heard."""
        return bool(np.all(np.isfinite(self.q)))

    @property
    def velocities(self) -> np.ndarray | None:
        """Joint velocities, or None until every joint's velocity has been heard."""
        return self.v.copy() if np.all(np.isfinite(self.v)) else None


class ClearanceMonitor:
    """Publishes a clearance table for every usable joint state (one per node).

    Parameters
    ----------
    node : TransportNode
    robot_description : str or None
        URDF text; None to wait for :meth:`load` (the robot_description topic).
    srdf : tuple of (str, bool) or None
        The node's SRDF: ``(path or text, is_text)``.
    package_roots : mapping of str to str
        For ``package://`` mesh URIs.
    world_frame : str
        ``header.frame_id`` of the tables.
    counters : dict
        The node's dropped-input counters (``bad_joint_state`` is added).
    drop : callable
        ``drop(kind, message)``: the node's count-and-warn function.
    robot : LoadedScene, optional
        ``robot_description`` already loaded by the node (SceneInputs): the
        checker is built on it instead of loading the text again.

    Raises
    ------
    ParameterError
        For a bad parameter value.
    ValueError
        If the robot or its SRDF or environment cannot be loaded.
    """

    def __init__(self, node: Any, robot_description: str | None,
                 srdf: tuple[str, bool] | None, package_roots: Mapping[str, str],
                 world_frame: str, counters: dict, drop, robot: Any = None) -> None:
        self.node = node
        self._environment = node.declare_parameter(
            "clearance_environment", "",
            "YAML scene or URDF file of obstacles for the clearance table (empty: none).")
        self.influence_distance = float(node.declare_parameter(
            "influence_distance", 0.1,
            "Clearance table rows are published for pairs closer than this (metres)."))
        topic = node.declare_parameter(
            "clearance_table_topic", "clearance_table",
            "Topic of geometry_core_ros/ClearanceTable, one per joint state.")
        if not self.influence_distance >= 0:
            raise ParameterError("parameter 'influence_distance' must be >= 0, not "
                                 f"{self.influence_distance}")
        self._package_roots = package_roots
        self._robot: str | None = None
        self._srdf = srdf
        self.checker: CollisionChecker | None = None
        self.tracker = JointStateTracker([])
        if robot_description is not None:
            self.load(robot_description, srdf, robot=robot)
        self.world_frame = world_frame
        counters.setdefault("bad_joint_state", 0)
        self._drop = drop
        self.tables = 0
        self._publisher = node.create_publisher("geometry_core_ros/msg/ClearanceTable", topic,
                                                RELIABLE_RESULTS)
        node.create_subscription("sensor_msgs/msg/JointState", "joint_states",
                                 self.on_joint_state, SENSOR_DATA)

    def load(self, robot_description: str, srdf: tuple[str, bool] | None,
             robot: Any = None) -> None:
        """Build the checker for this robot and SRDF, replacing the previous one.

        ``robot`` (the node's LoadedScene of ``robot_description``, with the
        node's SRDF filters) is copied when there is no
        ``clearance_environment``: one parse per robot. Else, and for a new
        SRDF, the text is loaded again.

        Raises
        ------
        ValueError
            If the robot, its SRDF or the environment cannot be loaded; the
            previous checker is then kept.
        """
        from geometry_core.scene_files import load_scene, load_urdf
        from geometry_core_nodes.scene_inputs import load_robot_description, node_load_limits

        shared = robot is not None and not self._environment
        if shared:
            # The checker changes its scene graph's filters (links welded to
            # the world, say): it gets a copy of the node's robot, not a second
            # parse. The copy is taken before any query, so it holds no
            # collision engine objects.
            robot = copy.deepcopy(robot)
        else:
            robot = load_robot_description(robot_description, self._package_roots)
        environment = None
        if self._environment:
            loader = load_urdf if self._environment.lower().endswith((".urdf", ".xml")) \
                else load_scene
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                environment = (loader(self._environment, package_roots=self._package_roots,
                                      visuals=False) if loader is load_urdf
                               else loader(self._environment))
        if srdf is not None and not shared:  # a shared robot has the node's SRDF filters
            from geometry_core.scene_files.srdf import apply_srdf_filters

            with warnings.catch_warnings():
                # The node logged this SRDF's warnings when it applied it to its scene.
                warnings.simplefilter("ignore")
                apply_srdf_filters(robot.scene_graph, srdf[0], text=srdf[1],
                                   limits=node_load_limits())
        checker = CollisionChecker(robot, environment=environment)
        self.checker, self._robot, self._srdf = checker, robot_description, srdf
        self.tracker = JointStateTracker(checker.position_names)

    def set_srdf(self, srdf: tuple[str, bool] | None) -> None:
        """Use a new SRDF: the checker is rebuilt when there is a robot.

        Raises
        ------
        ValueError
            As :meth:`load`; the previous checker and SRDF are then kept.
        """
        if self._robot is None:
            self._srdf = srdf
        else:
            self.load(self._robot, srdf)  # a fresh load: the old SRDF's filters are gone

    def on_joint_state(self, msg: Any) -> None:
        """Convert, check and publish; a bad message is counted and dropped."""
        if self.checker is None:
            self._drop("joint_state_without_robot", "dropped a joint state: no robot yet "
                       "(waiting for the robot_description topic)")
            return
        try:
            positions, velocities = joint_state_to_positions(msg, self.checker)
            tracker = JointStateTracker(self.checker.position_names)
            tracker.q, tracker.v = self.tracker.q.copy(), self.tracker.v.copy()
            tracker.update(positions, velocities)
            if not tracker.ready:
                self.tracker = tracker
                return
            table = self.checker.calc_robot_clearance(tracker.q, self.influence_distance)
        except ValueError as err:     # JointStateError, or a position outside its limits
            self._drop("bad_joint_state", f"dropped a joint state: {err}")
            return
        self.tracker = tracker
        self._publisher.publish(clearance_table_to_msg(
            table, self.checker, tracker.q, tracker.velocities, table.is_collision_free(),
            self.influence_distance, stamp_to_ns(msg.header.stamp), self.world_frame,
            self.node.message_type))
        self.tables += 1
