"""ROS 2 node: the built-in demo arm moving along its scripted motion, on /tf.

For a real arm, ``robot_state_publisher`` and ``joint_state_publisher`` put
its links on /tf; this node does the same for the demo arm of
``scene_file: builtin:demo`` (:mod:`geometry_core.demo`), so that
``ros2 launch geometry_core_ros scene_graph.launch.py demo:=true`` shows
penetrations and clearances at once. Every ``1 / rate_hz`` seconds it
publishes one ``tf2_msgs/TFMessage`` with the six arm frames at the demo's
time (``start_time_s`` plus the seconds since the node started, looping
every :data:`geometry_core.demo.PERIOD_S`), each with its scene parent as
``header.frame_id`` (``world`` for the base, the ``world_frame`` parameter).
The default start, 1.8 s, has the gripper in the table top and the ball, so
the first results already hold penetrations.

Parameters: ``rate_hz`` (default 30, > 0), ``start_time_s`` (default 1.8),
``world_frame`` (default ``world``).

Run: ``ros2 run geometry_core_ros demo_motion_node``, or ``python -m
geometry_core_nodes.demo_motion_node``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

from geometry_core.demo import make_demo_scene
from geometry_core_nodes.outbound import transform_stamped
from geometry_core_nodes.serve import serve
from geometry_core_nodes.transport import TF, ParameterError, TransportNode, at_least, create_node

__all__ = ["NODE_NAME", "DemoMotionNode", "main"]

NODE_NAME = "demo_motion_node"


class DemoMotionNode:
    """Publishes the demo arm's frames on /tf along the demo's scripted motion.

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
    published : int
        TFMessages sent.

    Raises
    ------
    ParameterError
        For a bad parameter value.
    """

    node: TransportNode

    def __init__(self, args: Sequence[str] | None = None, backend: str = "auto",
                 **options: Any) -> None:
        self.node = create_node(NODE_NAME, args, backend, **options)
        try:
            self._setup()
        except BaseException:
            self.node.shutdown()
            raise

    def _setup(self) -> None:
        node = self.node
        rate_hz = float(node.declare_parameter(
            "rate_hz", 30.0, "TFMessages per second.",
            check=at_least("rate_hz", 0.0, inclusive=False)))
        self.start_time_s = float(node.declare_parameter(
            "start_time_s", 1.8,
            "Demo time of the first message (s); at 1.8 the gripper is in the table and the "
            "ball."))
        self.world_frame = str(node.declare_parameter(
            "world_frame", "world", "/tf name of the parent of the arm's base."))
        self.demo = make_demo_scene()
        inspector = self.demo.scene_graph.model_inspector()
        world = inspector.world_frame_id()
        self._names = {}
        for frame in inspector.frames_for_source(self.demo.arm_source_id):
            parent = inspector.get_parent_frame(frame)
            self._names[frame] = (
                self.world_frame if parent == world else inspector.get_name(parent),
                inspector.get_name(frame))
        self._tf_message = node.message_type("tf2_msgs/msg/TFMessage")
        self.publisher = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        self.published = 0
        self._start = time.monotonic()
        self._timer = node.create_timer(1.0 / rate_hz, self.publish)
        node.get_logger().info(
            f"ready on the {node.backend} backend; publishing the demo arm's "
            f"{len(self._names)} frames on /tf at {rate_hz:g} Hz")

    def publish(self, t: float | None = None) -> None:
        """Publish the arm's frames at demo time ``t`` (seconds since start when None)."""
        if t is None:
            t = self.start_time_s + time.monotonic() - self._start
        stamp_ns = self.node.now()
        poses = self.demo.kinematics.calc_frame_poses(self.demo.joint_positions(t))
        self.publisher.publish(self._tf_message(transforms=[
            transform_stamped(*self._names[frame], X_PF, stamp_ns, self.node.message_type)
            for frame, X_PF in poses.items()]))
        self.published += 1

    def spin_once(self, timeout_s: float | None = None) -> None:
        """Run due timers, waiting at most ``timeout_s``."""
        self.node.spin_once(timeout_s)

    def shutdown(self) -> None:
        """Release the node; safe to call twice."""
        self.node.shutdown()


def main(args: Sequence[str] | None = None) -> int:
    """Run the node until Ctrl-C; the console script ``demo_motion_node``.

    Returns
    -------
    int
        0 after Ctrl-C or shutdown; 2 for a bad parameter.
    """
    try:
        node = DemoMotionNode(args)
    except ParameterError as err:
        print(f"{NODE_NAME}: error: {err}", file=sys.stderr)
        return 2
    return serve(node)


if __name__ == "__main__":
    sys.exit(main())
