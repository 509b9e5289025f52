"""ROS 2 node: frame poses in, penetration and clearance results out.

Inputs (see :mod:`geometry_core_nodes.scene_inputs`): a scene (``scene_file``
or ``robot_description``), ``/tf`` and ``/tf_static`` (tf2_msgs/TFMessage)
and optional PoseStamped ``pose_topics``. Outputs, reliable (ROS default
QoS, keep last 10):

- ``penetration_topic`` (``penetrations``):
  ``geometry_core_ros/PenetrationPairArray``, every overlapping pair;
- ``clearance_topic`` (``clearance``):
  ``geometry_core_ros/SignedDistancePairArray``, every pair closer than
  ``max_distance``;
- ``markers_topic`` (``proximity_markers``): ``visualization_msgs/MarkerArray``
  for RViz, when ``publish_markers`` and a subscriber is matched;
- ``clearance_table_topic`` (``clearance_table``):
  ``geometry_core_ros/ClearanceTable`` per ``/joint_states`` message, for
  a robot (the ``robot_description`` parameter, or the latched topic once
  it arrives; not with ``scene_file``), see
  :mod:`geometry_core_nodes.joint_states`.

The node also takes MoveIt's planning scene (``collision_object``,
``attached_collision_object``, ``planning_scene``; with a robot an optional
PointCloud2 ``point_cloud_topic``): its objects are in ``penetrations``,
``clearance`` and the markers from the next query on
(:mod:`geometry_core_nodes.scene_objects`) and, with a robot, in the
clearance table's world; with a robot the node answers
``check_state_validity``, and ``get_planning_scene`` always
(:mod:`geometry_core_nodes.moveit_interface`).

With ``rate_hz: 0`` a query runs after each batch of pose messages the node
takes from DDS (on either backend), so a burst of poses costs one query,
not a growing queue; with ``rate_hz > 0`` a timer queries at that rate
when new poses arrived. ``min_query_period_s > 0`` (with ``rate_hz: 0``)
answers a pose at once when the last query is at least that long ago, else
at that time, with the newest poses: fewer queries at high /tf rates (the
poses in between are counted as coalesced), the first pose after a pause
answered without delay. On the DDS backend, ``inputs_on_receive_thread`` (on
by default) has Cyclone's receive thread take each /tf and ``collision_object``
message and, with ``rate_hz: 0`` and no ``min_query_period_s``, query and
publish at once, without waking the node's own thread (see
:meth:`TransportNode.deliver_on_receive` and docs/ros2.md); a
``collision_object`` change while /tf flows is answered by the next /tf
message's query (``TF_FLOWING_S``). The header
stamp of every output is the newest pose stamp used; frames whose pose is
older than ``stale_after_s`` are listed in ``stale_frames``, and scene
frames without a usable pose (none yet, or a /tf chain that stopped
reaching the world) in ``lost_frames``.

Run: ``ros2 run geometry_core_ros scene_graph_node --ros-args --params-file
p.yaml`` in a ROS 2 workspace, or without ROS ``python -m
geometry_core_nodes.scene_graph_node --ros-args ...`` (Cyclone DDS backend).

This module must never import cyclonedds, rclpy, fcl or lcm directly.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

from geometry_core_nodes.joint_states import ClearanceMonitor
from geometry_core_nodes.moveit_interface import MoveItInterface
from geometry_core_nodes.outbound import (
    CachedMessageType,
    penetrations_to_msg,
    results_to_markers,
    signed_distances_to_msg,
)
from geometry_core_nodes.result_cdr import (
    serialize_penetrations,
    serialize_signed_distances,
    serializer_for,
)
from geometry_core_nodes.result_encoder import ResultEncoder
from geometry_core_nodes.scene_inputs import SceneInputs, short_text
from geometry_core_nodes.scene_objects import SceneObjects
from geometry_core_nodes.serve import ServedNode, serve
from geometry_core_nodes.transport import (
    LATCHED,
    RELIABLE_RESULTS,
    ParameterError,
    TransportNode,
    at_least,
    create_node,
)

__all__ = ["NODE_NAME", "SceneGraphNode", "main"]

NODE_NAME = "scene_graph_node"
#: A world change taken on the receive thread less than this long after a
#: /tf message waits for the next /tf message's query (see
#: ``SceneGraphNode._after_world_change``); /tf at 200 Hz or more always
#: comes sooner.
TF_FLOWING_S = 0.005


class SceneGraphNode(ServedNode):
    """Penetration and clearance of a scene whose frames move with /tf.

    Parameters
    ----------
    args : sequence of str, optional
        Command line with ``--ros-args`` (``sys.argv`` when None).
    backend : {"auto", "dds", "rclpy"}
        Transport (see :func:`geometry_core_nodes.transport.create_node`).
    **options
        Passed to ``create_node`` (``domain_id``, ``dds_config``, ...).

    Attributes
    ----------
    node : TransportNode
    inputs : SceneInputs
    queries : int
        Queries run and published so far.

    Raises
    ------
    ParameterError
        For a bad parameter value.
    ValueError
        If the scene file cannot be loaded.
    """

    node: TransportNode

    def __init__(self, args: Sequence[str] | None = None, backend: str = "auto",
                 **options: Any) -> None:
        self._start(create_node(NODE_NAME, args, backend, **options))

    def _setup(self) -> None:
        node = self.node
        self._timer = None
        self._markers_pub = None
        self.max_distance = float(node.declare_parameter(
            "max_distance", 0.1,
            "Clearance threshold (metres): pairs closer than this are published on the "
            "clearance topic with their signed distance and witness points. Settable at run "
            "time.", check=at_least("max_distance", 0.0), on_set=self._set_max_distance))
        self.rate_hz = float(node.declare_parameter(
            "rate_hz", 0.0,
            "Query rate (Hz). 0: query after every batch of pose updates; > 0: query at this "
            "rate when new poses arrived. Settable at run time.",
            check=at_least("rate_hz", 0.0), on_set=self._set_rate_hz))
        self.inputs_on_receive_thread = bool(node.declare_parameter(
            "inputs_on_receive_thread", True,
            "DDS backend: take each /tf and collision_object message on Cyclone's receive "
            "thread, and with rate_hz 0 and min_query_period_s 0 query and publish there "
            "too, instead of waking the node's thread for it (less CPU per message). The "
            "rclpy backend always delivers on its executor."))
        self.min_query_period_s = float(node.declare_parameter(
            "min_query_period_s", 0.0,
            "With rate_hz 0: at least this long (seconds) between two queries; poses that "
            "arrive sooner are answered together at the end of the period, the ones a newer "
            "pose replaced counted as coalesced. 0: a query after every batch. Settable at run "
            "time.", check=at_least("min_query_period_s", 0.0),
            on_set=self._set_min_query_period_s))
        self._last_query_s = -math.inf
        #: World changes on the receive thread answered by the next /tf
        #: message's query instead of one of their own.
        self.world_changes_joined = 0
        penetration_topic = node.declare_parameter(
            "penetration_topic", "penetrations",
            "Topic of geometry_core_ros/PenetrationPairArray results.")
        clearance_topic = node.declare_parameter(
            "clearance_topic", "clearance",
            "Topic of geometry_core_ros/SignedDistancePairArray results.")
        self._markers_topic = node.declare_parameter(
            "markers_topic", "proximity_markers",
            "Topic of visualization_msgs/MarkerArray for RViz.")
        self.publish_markers = bool(node.declare_parameter(
            "publish_markers", True, "Publish RViz markers of the results. Settable at run time.",
            on_set=self._set_publish_markers))
        self._srdf = self._declare_srdf(node)
        self._message_type = CachedMessageType(node.message_type)
        self.clearance_monitor = None
        self.inputs = SceneInputs(node, on_scene=self._on_scene)
        self._apply_srdf()
        # MoveIt latches the SRDF text on this topic, as robot_state_publisher the URDF.
        node.create_subscription("std_msgs/msg/String", "robot_description_semantic",
                                 self._on_srdf, LATCHED)
        params = self.inputs.params
        # A robot (robot_description parameter, or the topic when it arrives):
        # /joint_states -> ClearanceTable (joint_states.py).
        self.clearance_monitor = ClearanceMonitor(
            node, params.robot_description or None, self._srdf, params.package_roots,
            params.world_frame, self.inputs.counters, self.inputs._drop,
            robot=self.inputs.robot,
        ) if not params.scene_file else None
        # MoveIt's planning scene and validity service, on the robot's checker
        # (with a robot) and on the scene graph of the /tf-driven results.
        self.scene_objects = SceneObjects(lambda: self.inputs.scene_graph,
                                          self.inputs.scene_frames, params.world_frame,
                                          self.inputs.geometry_changed)
        self.moveit = None
        try:
            self.moveit = MoveItInterface(node, self.clearance_monitor, params.world_frame,
                                          self.inputs._drop, scene=self.scene_objects)
        except LookupError as err:  # rclpy without the moveit_msgs package
            node.get_logger().warning(f"MoveIt's planning scene is off: {err}")
        if self.clearance_monitor is not None and self.inputs.robot_description_text:
            self._on_scene()  # the latched topic came during set-up
        self._penetration_pub = node.create_publisher(
            "geometry_core_ros/msg/PenetrationPairArray", penetration_topic, RELIABLE_RESULTS)
        self._clearance_pub = node.create_publisher(
            "geometry_core_ros/msg/SignedDistancePairArray", clearance_topic, RELIABLE_RESULTS)
        # Where both publishers take bytes (the DDS backend) and the flat
        # writers give the bytes they would send, results are encoded from
        # the query's records; else as message objects.
        self._serialized = all(
            publisher.accepts_serialized() and serializer_for(
                publisher_type, node.message_type, publisher.serialize) is not None
            for publisher, publisher_type in (
                (self._penetration_pub, "geometry_core_ros/msg/PenetrationPairArray"),
                (self._clearance_pub, "geometry_core_ros/msg/SignedDistancePairArray")))
        self._encoder: ResultEncoder | None = None
        self._set_publish_markers(self.publish_markers)
        self._set_rate_hz(self.rate_hz)
        self.queries = 0
        #: Results not computed because no reader had matched their topic, by topic.
        self.unheard: Counter = Counter()
        #: Whether /tf is delivered on the transport's receive thread (DDS backend).
        self.tf_delivered_on_receive = self.inputs_on_receive_thread and node.deliver_on_receive(
            self.inputs.tf_subscription, after=self._after_input)
        #: Whether collision_object is too: a planner or a perception pipeline
        #: moving an object at tens of Hz would otherwise wake the node's
        #: thread for each change, and cost what /tf there saves.
        self.objects_delivered_on_receive = self.tf_delivered_on_receive and (
            self.moveit is not None and node.deliver_on_receive(
                self.moveit.collision_object_subscription, after=self._after_world_change))
        scene = "waiting for robot_description" if self.inputs.scene_graph is None else (
            f"{len(self.inputs.scene_graph.model_inspector().get_all_frame_ids()) - 1} frames")
        if self.tf_delivered_on_receive:
            scene += "; /tf on the receive thread" + (
                " (and collision_object)" if self.objects_delivered_on_receive else "")
        node.get_logger().info(
            f"ready on the {node.backend} backend ({scene}); publishing "
            f"{self._penetration_pub.topic}, {self._clearance_pub.topic}"
            + (f", {self._markers_pub.topic}" if self._markers_pub else ""))

    @staticmethod
    def _declare_srdf(node: TransportNode) -> tuple[str, bool] | None:
        """The SRDF from the parameters: ``(path or text, is_text)``, or None."""
        srdf_file = node.declare_parameter(
            "srdf_file", "",
            "MoveIt SRDF of the robot: its disable_collisions pairs are not reported. "
            "Exclusive with robot_description_semantic.")
        semantic = node.declare_parameter(
            "robot_description_semantic", "",
            "SRDF text (as MoveIt's parameter); else the latched robot_description_semantic "
            "topic (std_msgs/String) is used when it arrives.")
        if srdf_file and semantic:
            raise ParameterError("set srdf_file or robot_description_semantic, not both")
        return (srdf_file, False) if srdf_file else (semantic, True) if semantic else None

    def _apply_srdf(self) -> None:
        """Filter the SRDF's pairs in the current scene (again after a new robot_description)."""
        if self._srdf is None or self.inputs.scene_graph is None:
            return
        from geometry_core.scene_files.srdf import apply_srdf_filters
        from geometry_core_nodes.scene_inputs import node_load_limits

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # logged below, bounded
            issued = apply_srdf_filters(self.inputs.scene_graph, self._srdf[0],
                                        text=self._srdf[1], limits=node_load_limits())
        self.inputs.log_budget.lines("srdf_warnings", issued, prefix="SRDF: ")

    def _on_scene(self) -> None:
        """A new scene from the robot_description topic: filters, then the clearance robot.

        The clearance checker is built on the robot just loaded (one load per
        robot). Errors are the caller's to log (SceneInputs guards this call).
        """
        self._apply_srdf()
        monitor, text = self.clearance_monitor, self.inputs.robot_description_text
        if monitor is None or not text:
            return
        try:
            monitor.load(text, self._srdf, robot=self.inputs.robot)
        except ValueError as err:  # the node keeps serving, with the previous robot if any
            self.inputs._drop("bad_scene", "clearance table: robot_description refused: "
                                           f"{short_text(str(err))}")
            return
        moveit = getattr(self, "moveit", None)  # None while the node is being set up
        if moveit is not None:
            moveit.on_new_scene()  # the objects held go into the new robot and scene

    def _on_srdf(self, msg: Any) -> None:
        previous = self._srdf
        try:
            self._srdf = (str(msg.data), True)
            self._apply_srdf()
            if self.clearance_monitor is not None:
                self.clearance_monitor.set_srdf(self._srdf)
        except Exception as err:  # noqa: BLE001 - a bad SRDF is refused; the node keeps serving
            self._srdf = previous
            self.inputs._drop("bad_srdf", "robot_description_semantic refused: "
                                          f"{short_text(str(err) or type(err).__name__)}")
            return

    # Parameters settable at run time: each takes effect at the next query.

    def _set_max_distance(self, value: object) -> None:
        self.max_distance = float(value)  # type: ignore[arg-type]
        self._requery()

    def _set_rate_hz(self, value: object) -> None:
        self.rate_hz = float(value)  # type: ignore[arg-type]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.rate_hz > 0:
            self._timer = self.node.create_timer(1.0 / self.rate_hz, self._on_timer)

    def _set_min_query_period_s(self, value: object) -> None:
        self.min_query_period_s = float(value)  # type: ignore[arg-type]

    def _set_publish_markers(self, value: object) -> None:
        self.publish_markers = bool(value)
        if self.publish_markers and self._markers_pub is None:
            self._markers_pub = self.node.create_publisher(
                "visualization_msgs/msg/MarkerArray", self._markers_topic, RELIABLE_RESULTS)

    def _requery(self) -> None:
        # New settings change the results of poses already heard: publish
        # them again, as if those poses had just arrived.
        inputs = getattr(self, "inputs", None)
        if inputs is not None:
            inputs.invalidate()

    def _on_timer(self) -> None:
        if self.inputs.changed:
            self.publish_results()

    def _after_world_change(self) -> bool:
        """After ``collision_object`` messages taken on the receive thread.

        While /tf flows (a message taken in the last ``TF_FLOWING_S``) the
        change is answered by the next /tf message's query, which must run
        anyway, rather than by a query of its own: an object moved at tens
        of Hz then costs its decoding and its edit, not a query and two
        writes more. Should /tf stop meanwhile, the node's thread answers
        the change at its next wake-up (at most the spin period, 0.1 s).
        """
        if (self.rate_hz == 0 and self.min_query_period_s == 0 and self.inputs.changed
                and time.monotonic() - self.inputs.tf_taken_s < TF_FLOWING_S):
            self.world_changes_joined += 1
            return False
        return self._after_input()

    def _after_input(self) -> bool:
        """After inputs taken on the receive thread: query there when due at once.

        Returns True when the spinning thread must decide (a
        ``min_query_period_s`` to time); with ``rate_hz > 0`` the timer queries.
        """
        if self.rate_hz > 0 or not self.inputs.changed:
            return False
        if self.min_query_period_s > 0:
            return True
        self.publish_results()
        return False

    def publish_results(self) -> bool:
        """Apply the poses heard, query the scene and publish the results.

        Returns
        -------
        bool
            False when there is nothing to query yet (no scene or no pose).
        """
        state = self.inputs.apply()
        if state is None:
            return False
        # Markers cost as much to serialise as the results: only for a listening RViz.
        markers = (self.publish_markers and self._markers_pub is not None
                   and self._markers_pub.get_subscription_count() > 0)
        # A result topic no reader has matched is not computed nor written
        # (the results are volatile: a reader that matches later could not
        # get it either); each one left out is counted in self.unheard.
        to_penetrations = markers or self._penetration_pub.get_subscription_count() > 0
        to_clearance = markers or self._clearance_pub.get_subscription_count() > 0
        if not to_penetrations:
            self.unheard[self._penetration_pub.topic] += 1
        if not to_clearance:
            self.unheard[self._clearance_pub.topic] += 1
        if not (to_penetrations or to_clearance):
            self.queries += 1
            return True
        names = self.inputs.names
        if (self._serialized and not markers and not names.clouds
                and state.usable_geometries is None):
            # Every frame posed, no point cloud, no message object wanted:
            # both results as rows from one library call (one pass of the
            # kernels), and their bytes from those rows.
            rows = self.inputs.scene_graph.compute_proximity_rows(
                self.max_distance, to_penetrations, to_clearance)
            encoder = self._encoder
            if encoder is None or encoder.names is not names:
                encoder = self._encoder = ResultEncoder(names)
            penetration_bytes, clearance_bytes = encoder.encode_rows(
                rows, self.max_distance, state.stamp_ns, state.stale_frames,
                state.missing_frames, to_penetrations, to_clearance)
            if to_penetrations:
                self._penetration_pub.publish_serialized(penetration_bytes)
            if to_clearance:
                self._clearance_pub.publish_serialized(clearance_bytes)
            self.queries += 1
            return True
        query = self.inputs.scene_graph.query_object()
        penetrations = query.compute_point_pair_penetration() if to_penetrations else []
        distances = (query.compute_signed_distance_pairwise_closest_points(self.max_distance)
                     if to_clearance else [])
        if state.usable_geometries is not None:
            penetrations, distances = state.keep(penetrations), state.keep(distances)
        # A point cloud's witness points go out in the cloud's frame.
        distances = names.cloud_pairs_in_cloud_frames(distances)
        X_WG = names.poses_in_world(query)
        if self._serialized and not markers:
            # The bytes straight from the results: no message object per pair.
            encoder = self._encoder
            if encoder is None or encoder.names is not names:
                encoder = self._encoder = ResultEncoder(names)
            if to_penetrations:
                self._penetration_pub.publish_serialized(encoder.penetrations(
                    penetrations, state.stamp_ns, state.stale_frames, state.missing_frames))
            if to_clearance:
                self._clearance_pub.publish_serialized(encoder.signed_distances(
                    distances, X_WG, self.max_distance, state.stamp_ns,
                    state.stale_frames, state.missing_frames))
            self.queries += 1
            return True
        message_type = self._message_type
        if to_penetrations:
            penetration_msg = penetrations_to_msg(
                penetrations, names, state.stamp_ns, state.stale_frames, message_type,
                state.missing_frames)
            if self._serialized:
                self._penetration_pub.publish_serialized(serialize_penetrations(penetration_msg))
            else:
                self._penetration_pub.publish(penetration_msg)
        clearance = signed_distances_to_msg(
            distances, names, X_WG, self.max_distance, state.stamp_ns,
            state.stale_frames, message_type, state.missing_frames) if to_clearance else None
        if clearance is not None:
            if self._serialized:
                self._clearance_pub.publish_serialized(serialize_signed_distances(clearance))
            else:
                self._clearance_pub.publish(clearance)
        if markers:
            self._markers_pub.publish(results_to_markers(
                penetrations, clearance, self.max_distance, state.stamp_ns, names.world_frame,
                message_type))
        self.queries += 1
        return True

    def shutdown(self) -> None:
        """Log the results left unwritten for want of a reader, then as ServedNode."""
        with self.node.exclusive():
            if self.unheard and not self._shut_down:
                counts = ", ".join(f"{topic} {n}" for topic, n in sorted(self.unheard.items()))
                self.node.get_logger().info(
                    f"results not computed (no reader matched): {counts}")
            if self.world_changes_joined and not self._shut_down:
                self.node.get_logger().info(
                    f"world changes answered by the next /tf query: "
                    f"{self.world_changes_joined}")
        super().shutdown()

    def spin_once(self, timeout_s: float | None = None) -> None:
        """Take what arrived (waiting up to ``timeout_s``), then query if due."""
        period = self.min_query_period_s
        if period > 0 and self.rate_hz == 0 and self.inputs.changed:
            # Poses wait for the end of the period: wake up for it.
            due = max(0.0, self._last_query_s + period - time.monotonic())
            timeout_s = due if timeout_s is None else min(timeout_s, due)
        self.node.spin_once(timeout_s)
        if self.rate_hz == 0 and self.inputs.changed and self.node.ok:
            with self.node.exclusive():  # /tf may be taken on the receive thread
                if not self.inputs.changed:
                    return  # that thread answered meanwhile
                if period > 0:
                    now = time.monotonic()
                    if now < self._last_query_s + period:
                        return
                    self._last_query_s = now
                self.publish_results()

    def spin(self) -> None:
        """Serve until :meth:`shutdown` or Ctrl-C (``KeyboardInterrupt`` propagates)."""
        while self.node.ok:
            self.spin_once(0.1)


def main(args: Sequence[str] | None = None) -> int:
    """Run the node until Ctrl-C; the console script ``scene_graph_node``.

    Returns
    -------
    int
        0 after Ctrl-C or shutdown; 2 for a bad parameter or scene file.
    """
    try:
        node = SceneGraphNode(args)
    except (ParameterError, ValueError) as err:
        print(f"{NODE_NAME}: error: {err}", file=sys.stderr)
        return 2
    return serve(node)


if __name__ == "__main__":
    sys.exit(main())
