"""ROS 2 node: the scene, posed from /tf, drawn in Drake's viewer (Meldis) over LCM.

The same scene and pose inputs as the scene graph node
(:mod:`geometry_core_nodes.scene_inputs`); every ``publish_period`` seconds,
once a pose has arrived, it sends the scene's poses through
:class:`geometry_core.viewer.DrakeVisualizer` (the load message first, again
when the scene changes and periodically for late viewers) and the
penetrations as ``CONTACT_RESULTS`` (when ``publish_contacts``). Frames
without a pose yet are drawn at the scene file's default pose; their
penetrations are left out, as in the scene graph node.

MoveIt's planning-scene objects are drawn too: the node subscribes
``collision_object``, ``attached_collision_object`` and ``planning_scene``
(relative to its namespace, as the scene graph node) and puts the objects
in its scene graph as the scene graph node does
(:mod:`geometry_core_nodes.scene_objects`, with the illustration role as
well, in ``OBJECT_COLOR``), so the viewer gets a new load message with
them and their penetrations are among the contacts. A message that does
not fit is refused whole, counted (``bad_collision_object``,
``bad_attached_object``, ``bad_planning_scene``) and logged. No services
and no point cloud here: those are the scene graph node's.

Parameters besides the shared ones: ``lcm_url`` (empty: LCM's default,
``udpm://239.255.76.67:7667?ttl=0``; ``memq://null`` sends nothing),
``role`` (``illustration``, ``proximity`` or ``perception``),
``publish_period`` (seconds, Drake's 1/64 by default), ``publish_contacts``.

Run: ``ros2 run geometry_core_ros lcm_bridge_node --ros-args --params-file
p.yaml``, or ``python -m geometry_core_nodes.lcm_bridge_node --ros-args ...``.

This module imports lcm only through ``geometry_core.viewer``; it must never
import cyclonedds, rclpy or fcl directly.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from geometry_core.scene_graph import Role
from geometry_core_nodes.scene_inputs import SceneInputs
from geometry_core_nodes.serve import ServedNode, serve
from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    ParameterError,
    TransportNode,
    at_least,
    create_node,
)

__all__ = ["NODE_NAME", "ROLES", "LcmBridgeNode", "main"]

NODE_NAME = "lcm_bridge_node"

#: Values of the ``role`` parameter.
ROLES = {"illustration": Role.ILLUSTRATION, "proximity": Role.PROXIMITY,
         "perception": Role.PERCEPTION}


class LcmBridgeNode(ServedNode):
    """Publishes a /tf-posed scene to Meldis or drake_visualizer over LCM.

    Parameters
    ----------
    args : sequence of str, optional
        Command line with ``--ros-args`` (``sys.argv`` when None).
    backend : {"auto", "dds", "rclpy"}
        Transport (see :func:`geometry_core_nodes.transport.create_node`).
    **options
        Passed to ``create_node``.

    Attributes
    ----------
    node : TransportNode
    inputs : SceneInputs
    visualizer : DrakeVisualizer or None
        None until a scene is loaded.
    draws : int
        Draw messages sent.

    Raises
    ------
    ParameterError
        For a bad parameter value.
    ValueError
        If the scene cannot be loaded or LCM cannot open ``lcm_url``.
    ImportError
        If ``lcm`` (so ``geometry_core.viewer``) is not installed.
    """

    node: TransportNode

    def __init__(self, args: Sequence[str] | None = None, backend: str = "auto",
                 **options: Any) -> None:
        self._start(create_node(NODE_NAME, args, backend, **options))

    def _setup(self) -> None:
        from geometry_core.viewer import DEFAULT_PUBLISH_PERIOD

        node = self.node
        self.lcm_url = node.declare_parameter(
            "lcm_url", "",
            "LCM URL to publish on; empty: LCM_DEFAULT_URL or LCM's default "
            "udpm://239.255.76.67:7667?ttl=0; memq://null publishes nothing.")
        role = node.declare_parameter(
            "role", "illustration",
            "Geometry role drawn: illustration, proximity (Meldis' collision geometry) or "
            "perception.")
        self._timer = None
        self.publish_period = float(node.declare_parameter(
            "publish_period", DEFAULT_PUBLISH_PERIOD,
            "Seconds between draw messages (Drake's DrakeVisualizer default 1/64). Settable "
            "at run time.", check=at_least("publish_period", 0.0, inclusive=False),
            on_set=self._set_publish_period))
        self.publish_contacts = bool(node.declare_parameter(
            "publish_contacts", True,
            "Also publish penetrations on CONTACT_RESULTS (drawn by Meldis as arrows). "
            "Settable at run time.", on_set=self._set_publish_contacts))
        if role not in ROLES:
            raise ParameterError(f"parameter 'role' must be one of {', '.join(ROLES)}, "
                                 f"not {role!r}")
        self.role = ROLES[role]
        self.visualizer = None
        self._penetrations = None
        self.draws = 0
        self.inputs = SceneInputs(node, on_scene=self._make_visualizer)
        self.planning_scene = None
        self._subscribe_planning_scene()
        if self.inputs.scene_graph is not None:
            self._make_visualizer()
        self._set_publish_period(self.publish_period)
        node.get_logger().info(
            f"ready on the {node.backend} backend; drawing the {role} role on "
            f"{self.lcm_url or 'the default LCM URL'} every {self.publish_period:g} s")

    def _set_publish_period(self, value: object) -> None:
        self.publish_period = float(value)  # type: ignore[arg-type]
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.node.create_timer(self.publish_period, self._on_timer)

    def _set_publish_contacts(self, value: object) -> None:
        self.publish_contacts = bool(value)
        self._penetrations = None

    def _subscribe_planning_scene(self) -> None:
        """The three planning-scene topics, into the scene graph alone (no checker)."""
        from geometry_core_nodes import moveit_types  # noqa: F401  (the DDS backend's)
        from geometry_core_nodes.planning_scene import (
            PlanningSceneError,
            attached_object_edit,
            collision_object_edit,
            planning_scene_edits,
        )
        from geometry_core_nodes.planning_scene_world import PlanningSceneWorld
        from geometry_core_nodes.scene_objects import SceneObjects

        node, inputs = self.node, self.inputs
        topics = (("moveit_msgs/msg/CollisionObject", "collision_object",
                   "bad_collision_object", lambda w, m: w.apply_object(collision_object_edit(m))),
                  ("moveit_msgs/msg/AttachedCollisionObject", "attached_collision_object",
                   "bad_attached_object",
                   lambda w, m: w.apply_attached(attached_object_edit(m))),
                  ("moveit_msgs/msg/PlanningScene", "planning_scene", "bad_planning_scene",
                   lambda w, m: w.apply(planning_scene_edits(m))))
        try:
            for type_name, _, _, _ in topics:
                node.message_type(type_name)
        except LookupError as err:  # rclpy without the moveit_msgs package
            node.get_logger().warning(f"MoveIt's planning scene is not drawn: {err}")
            return
        world_frame = inputs.params.world_frame
        objects = SceneObjects(lambda: inputs.scene_graph, inputs.scene_frames, world_frame,
                               inputs.geometry_changed, illustration=True)
        self.planning_scene = PlanningSceneWorld(None, world_frame, objects)

        def handler(topic: str, counter: str, apply: Any) -> Any:
            def on_message(msg: Any) -> None:
                if inputs.scene_graph is None:
                    inputs._drop("planning_scene_without_scene",
                                 f"dropped a {topic} message: no scene yet")
                    return
                try:
                    apply(self.planning_scene, msg)
                except PlanningSceneError as err:
                    inputs._drop(counter, f"refused a {topic} message: {err}")
            return on_message

        for type_name, topic, counter, apply in topics:
            node.create_subscription(type_name, topic, handler(topic, counter, apply),
                                     RELIABLE_RESULTS)

    def _make_visualizer(self) -> None:
        from geometry_core.viewer import DrakeVisualizer

        if self.planning_scene is not None:  # a new scene gets the objects held
            world = self.planning_scene
            world.scene.sync(world.objects, world.allowed)
        self.visualizer = DrakeVisualizer(
            self.inputs.scene_graph, lcm_url=self.lcm_url or None, role=self.role,
            publish_period=self.publish_period)
        self.visualizer.dispatch_load_message()
        self._penetrations = None

    def _on_timer(self) -> None:
        self.publish()

    def publish(self) -> bool:
        """Apply the poses heard and send a draw (and contacts) stamped with the newest pose.

        Returns
        -------
        bool
            False when there is nothing to draw yet (no scene or no pose).
        """
        changed = self.inputs.changed
        state = self.inputs.apply()
        if state is None or self.visualizer is None:
            return False
        time_s = state.stamp_ns * 1e-9
        # The timer already keeps the period; the stamps of poses may repeat.
        self.visualizer.publish_draw(time_s, force=True)
        self.draws += 1
        if self.publish_contacts:
            if changed or self._penetrations is None:
                query = self.inputs.scene_graph.query_object()
                self._penetrations = state.keep(query.compute_point_pair_penetration())
            self.visualizer.publish_contacts(self._penetrations, time_s)
        return True

    def spin_once(self, timeout_s: float | None = None) -> None:
        """Take what arrived and run due timers, waiting up to ``timeout_s``."""
        self.node.spin_once(timeout_s)

    def spin(self) -> None:
        """Serve until :meth:`shutdown` or Ctrl-C (``KeyboardInterrupt`` propagates)."""
        self.node.spin()


def main(args: Sequence[str] | None = None) -> int:
    """Run the node until Ctrl-C; the console script ``lcm_bridge_node``.

    Returns
    -------
    int
        0 after Ctrl-C or shutdown; 2 for a bad parameter, scene file or LCM
        URL; 3 if lcm is not installed.
    """
    try:
        node = LcmBridgeNode(args)
    except ImportError as err:
        print(f"{NODE_NAME}: error: the LCM viewer bridge needs lcm ({err})", file=sys.stderr)
        return 3
    except (ParameterError, ValueError) as err:
        print(f"{NODE_NAME}: error: {err}", file=sys.stderr)
        return 2
    return serve(node)


if __name__ == "__main__":
    sys.exit(main())
