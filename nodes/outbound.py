"""Pure conversions of query results to the ROS 2 messages the nodes publish.

Query results become our ``geometry_core_ros`` messages
(:func:`penetrations_to_msg`, :func:`signed_distances_to_msg`,
:func:`clearance_table_to_msg`) with geometry and frame names instead of
process-local ids, and RViz markers (:func:`results_to_markers`). The
node's hot path writes the same bytes without message objects
(:mod:`geometry_core_nodes.result_encoder`); incoming messages are
:mod:`geometry_core_nodes.inbound`'s.

Every function takes the message classes through ``message_type``, a
callable from a ROS type name (``"geometry_msgs/msg/Point"``) to a class, so
the same code builds DDS-backend messages or rclpy ones
(``node.message_type``). Nothing here opens a socket or spins a node.

This module imports the library's public API only (math, scene graph
inspector, result types); it must never import the transport's backends,
cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from geometry_core.math import RigidTransform, quaternion_wxyz_to_xyzw
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph import GeometryId, SceneGraphInspector
from geometry_core_nodes.limits import MAX_STAMP_SEC, MIN_STAMP_SEC

__all__ = [
    "ARROW_LENGTH_M",
    "MARKER_NAMESPACES",
    "CachedMessageType",
    "GeometryNames",
    "WorldPoses",
    "MessageType",
    "clearance_color",
    "clearance_table_to_msg",
    "make_header",
    "ns_to_stamp",
    "penetrations_to_msg",
    "results_to_markers",
    "signed_distances_to_msg",
    "stamp_fields",
    "transform_stamped",
    "witness_points",
    "witness_rows",
]

#: ``message_type("pkg/msg/Name") -> class``; ``node.message_type`` or the
#: transport's ``get_message_type``.
MessageType = Callable[[str], type]

#: Length of the penetration-normal arrows in RViz (metres). Depths are often
#: millimetres, which would make an arrow of length ``depth`` invisible; the
#: depth itself is in the PenetrationPair message.
ARROW_LENGTH_M = 0.05
#: Diameter of the penetration-point spheres and width of the clearance lines (metres).
_POINT_DIAMETER_M = 0.01
_LINE_WIDTH_M = 0.004
_ARROW_SHAFT_M = 0.006
_ARROW_HEAD_M = 0.012

#: Marker namespaces, one per kind of marker; ids count from 0 within each.
MARKER_NAMESPACES = ("penetration_points", "penetration_normals", "clearance")

_NS_PER_S = 1_000_000_000


def ns_to_stamp(stamp_ns: int, message_type: MessageType) -> Any:
    """``builtin_interfaces/Time`` of integer nanoseconds (floored to the nanosecond).

    A time beyond what the int32 ``sec`` holds is clamped to the nearest
    representable nanosecond (:data:`~geometry_core_nodes.limits.MAX_STAMP_SEC`),
    so an output never fails to serialise.
    """
    seconds, nanoseconds = stamp_fields(stamp_ns)
    return message_type("builtin_interfaces/msg/Time")(sec=seconds, nanosec=nanoseconds)


def stamp_fields(stamp_ns: int) -> tuple[int, int]:
    """``(sec, nanosec)`` of integer nanoseconds, clamped as :func:`ns_to_stamp` says."""
    seconds, nanoseconds = divmod(int(stamp_ns), _NS_PER_S)
    if seconds > MAX_STAMP_SEC:
        return MAX_STAMP_SEC, _NS_PER_S - 1
    if seconds < MIN_STAMP_SEC:
        return MIN_STAMP_SEC, 0
    return seconds, nanoseconds


def make_header(stamp_ns: int, frame_id: str, message_type: MessageType) -> Any:
    """``std_msgs/Header`` with the stamp and frame."""
    return message_type("std_msgs/msg/Header")(
        stamp=ns_to_stamp(stamp_ns, message_type), frame_id=frame_id)


def transform_stamped(parent: str, child: str, X_PC: RigidTransform, stamp_ns: int,
                      message_type: MessageType) -> Any:
    """``geometry_msgs/TransformStamped`` of ``X_PC``: what a /tf publisher sends.

    The inverse of :func:`geometry_core_nodes.inbound.rigid_transform_from_transform`;
    the quaternion goes out in ROS order (``x, y, z, w``) through
    :func:`geometry_core.math.quaternion_wxyz_to_xyzw`.
    """
    T = message_type
    q = quaternion_wxyz_to_xyzw(X_PC.rotation().to_quaternion())
    p = X_PC.translation()
    return T("geometry_msgs/msg/TransformStamped")(
        header=make_header(stamp_ns, parent, T),
        child_frame_id=child,
        transform=T("geometry_msgs/msg/Transform")(
            translation=T("geometry_msgs/msg/Vector3")(x=float(p[0]), y=float(p[1]),
                                                       z=float(p[2])),
            rotation=T("geometry_msgs/msg/Quaternion")(x=float(q[0]), y=float(q[1]),
                                                       z=float(q[2]), w=float(q[3]))))


class GeometryNames:
    """Names of geometries and their frames, as results messages carry them.

    A geometry is named ``source::frame::geometry`` (unique in a scene,
    stable across runs, unlike a GeometryId); its frame is the scene frame's
    name, or ``world_frame`` for anchored geometry, which is the name /tf
    uses for the scene's world.

    Parameters
    ----------
    inspector : SceneGraphInspector
        Of the scene the results come from.
    world_frame : str
        Name of the scene's world frame on /tf.
    """

    def __init__(self, inspector: SceneGraphInspector, world_frame: str,
                 clouds: Mapping[GeometryId, Any] | None = None) -> None:
        self._inspector = inspector
        self._world_id = inspector.world_frame_id()
        self.world_frame = world_frame
        self._cache: dict[GeometryId, tuple[str, str]] = {}
        #: The scene's point clouds, ``{GeometryId: PointCloudRecord}``.
        self.clouds = dict(clouds or {})

    def __call__(self, geometry_id: GeometryId,
                 point_index: int | None = None) -> tuple[str, str]:
        """Return ``(geometry name, frame name)`` of a geometry.

        A point cloud's point (``point_index`` of a result naming a cloud)
        is named ``source::frame::cloud[k]``, k its row in the cloud.

        Raises
        ------
        KeyError
            If the scene has no such geometry.
        """
        names = self._cache.get(geometry_id)
        if names is None:
            inspector = self._inspector
            cloud = self.clouds.get(geometry_id)
            if cloud is not None:
                frame_id, source_id, name = cloud.frame_id, cloud.source_id, cloud.name
                source = inspector.get_name(source_id)
            else:
                frame_id = inspector.get_frame_id(geometry_id)
                source = inspector.get_owning_source_name(geometry_id)
                name = inspector.get_name(geometry_id)
            frame = self.world_frame if frame_id == self._world_id else inspector.get_name(frame_id)
            geometry = f"{source}::{inspector.get_name(frame_id)}::{name}"
            names = self._cache[geometry_id] = (geometry, frame)
        if point_index is not None and geometry_id in self.clouds:
            return f"{names[0]}[{point_index}]", names[1]
        return names

    def cloud_pairs_in_cloud_frames(self, distances: Sequence[SignedDistancePair]
                                    ) -> Sequence[SignedDistancePair]:
        """``distances`` with a cloud's witness point in the cloud's frame, not its point's.

        The query gives a point's witness in the frame of the sphere at the
        point (the cloud's frame moved to the point); the messages carry
        it in the cloud's frame, whose pose :meth:`pose_of` gives.
        """
        if not self.clouds:
            return distances
        out = []
        for d in distances:
            cloud = self.clouds.get(d.id_A) or self.clouds.get(d.id_B)
            if cloud is None or d.point_index is None:
                out.append(d)
                continue
            p_FP = cloud.p_FP[d.point_index]
            if d.id_A == cloud.id:
                d = dataclasses.replace(d, p_ACa=d.p_ACa + p_FP)
            else:
                d = dataclasses.replace(d, p_BCb=d.p_BCb + p_FP)
            out.append(d)
        return out

    def pose_of(self, X_WG: Callable[[Any], RigidTransform]
                ) -> Callable[[GeometryId], RigidTransform]:
        """``X_WG`` that also answers a cloud's id, with the pose of the cloud's frame."""
        if not self.clouds:
            return X_WG

        def pose(geometry_id: GeometryId) -> RigidTransform:
            cloud = self.clouds.get(geometry_id)
            return X_WG(cloud.frame_id if cloud is not None else geometry_id)

        return pose

    def poses_in_world(self, query: Any) -> WorldPoses:
        """:meth:`pose_of` ``query.get_pose_in_world``, also asked for many poses at once."""
        return WorldPoses(query, self.clouds)


class WorldPoses:
    """Poses in W of a query's geometries (a cloud's: its frame's), one or many at once.

    Called with a GeometryId, it is ``query.get_pose_in_world`` (a
    RigidTransform); :meth:`matrices` gives many poses from one
    ``query.get_poses_in_world`` call, the same numbers, and
    :meth:`matrices34` their top three rows as lists.

    Parameters
    ----------
    query : QueryObject
    clouds : mapping
        ``{GeometryId: PointCloudRecord}`` of the scene's point clouds.
    """

    def __init__(self, query: Any, clouds: Mapping[GeometryId, Any]) -> None:
        self._query = query
        self._clouds = clouds

    def _posed(self, geometry_id: GeometryId) -> Any:
        cloud = self._clouds.get(geometry_id) if self._clouds else None
        return cloud.frame_id if cloud is not None else geometry_id

    def __call__(self, geometry_id: GeometryId) -> RigidTransform:
        return self._query.get_pose_in_world(self._posed(geometry_id))

    def matrices34(self, geometry_ids: Sequence[GeometryId]) -> list[list[list[float]]]:
        """``X_WG`` of each geometry as three rows of four floats (a list per pose).

        Raises
        ------
        KeyError
            If the query does not know a geometry.
        """
        return self.matrices(geometry_ids)[:, :3].tolist()

    def matrices(self, geometry_ids: Sequence[GeometryId]) -> np.ndarray:
        """``X_WG`` of each geometry as one ``(N, 4, 4)`` array (:meth:`matrices34`'s numbers).

        Raises
        ------
        KeyError
            If the query does not know a geometry.
        """
        ids = [self._posed(g) for g in geometry_ids] if self._clouds else geometry_ids
        return self._query.get_poses_in_world(ids)


class CachedMessageType:
    """``message_type`` that remembers each class it returned.

    A result message names a few classes tens of times, and resolving a
    name costs as much as building the object: a node makes one of these
    and passes it to every conversion.

    Parameters
    ----------
    message_type : callable
        ROS type name -> message class.
    """

    def __init__(self, message_type: MessageType) -> None:
        self._message_type = message_type
        self._classes: dict[str, type] = {}

    def __call__(self, name: str) -> type:
        """The class of ``name``, resolved once."""
        cls = self._classes.get(name)
        if cls is None:
            cls = self._classes[name] = self._message_type(name)
        return cls


def _resolved(message_type: MessageType) -> MessageType:
    return message_type if isinstance(message_type, CachedMessageType) else CachedMessageType(
        message_type)


def _point(v: np.ndarray, message_type: MessageType) -> Any:
    return message_type("geometry_msgs/msg/Point")(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def _vector(v: np.ndarray, message_type: MessageType) -> Any:
    return message_type("geometry_msgs/msg/Vector3")(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def penetrations_to_msg(
    penetrations: Sequence[PenetrationAsPointPair],
    names: GeometryNames,
    stamp_ns: int,
    stale_frames: Iterable[str],
    message_type: MessageType,
    lost_frames: Iterable[str] = (),
) -> Any:
    """``geometry_core_ros/PenetrationPairArray`` of penetration results.

    Parameters
    ----------
    penetrations : sequence of PenetrationAsPointPair
        From ``compute_point_pair_penetration``, in its order.
    names : GeometryNames
        Names of the geometries; ``names.world_frame`` is the header's frame.
    stamp_ns : int
        Header stamp: the newest pose used, in nanoseconds.
    stale_frames : iterable of str
        Frame names whose pose was stale (sorted here).
    message_type : callable
        ROS type name -> message class.
    lost_frames : iterable of str
        Scene frames without a usable pose, whose geometry is in no pair
        (sorted here).

    Raises
    ------
    KeyError
        If a result names a geometry ``names`` does not know.
    """
    message_type = _resolved(message_type)
    Pair = message_type("geometry_core_ros/msg/PenetrationPair")
    pairs = []
    for p in penetrations:
        geometry_a, frame_a = names(p.id_A, p.point_index)
        geometry_b, frame_b = names(p.id_B, p.point_index)
        pairs.append(Pair(
            geometry_a=geometry_a, geometry_b=geometry_b, frame_a=frame_a, frame_b=frame_b,
            depth=float(p.depth),
            p_wca=_point(p.p_WCa, message_type), p_wcb=_point(p.p_WCb, message_type),
            nhat_ba_w=_vector(p.nhat_BA_W, message_type)))
    return message_type("geometry_core_ros/msg/PenetrationPairArray")(
        header=make_header(stamp_ns, names.world_frame, message_type),
        pairs=pairs, stale_frames=sorted(stale_frames), lost_frames=sorted(lost_frames))


def signed_distances_to_msg(
    distances: Sequence[SignedDistancePair],
    names: GeometryNames,
    X_WG: Mapping[GeometryId, RigidTransform] | Callable[[GeometryId], RigidTransform],
    max_distance: float,
    stamp_ns: int,
    stale_frames: Iterable[str],
    message_type: MessageType,
    lost_frames: Iterable[str] = (),
) -> Any:
    """``geometry_core_ros/SignedDistancePairArray`` of signed-distance results.

    Parameters
    ----------
    distances : sequence of SignedDistancePair
        From ``compute_signed_distance_pairwise_closest_points``, in its order.
    names : GeometryNames
        Names of the geometries; ``names.world_frame`` is the header's frame.
    X_WG : mapping or callable
        Pose of a geometry's frame G in W (``query_object.get_pose_in_world``),
        to also give the witness points in W: ``p_WCa = X_WA @ p_ACa``.
    max_distance : float
        The query's limit (metres), copied into the message.
    stamp_ns : int
        Header stamp: the newest pose used, in nanoseconds.
    stale_frames : iterable of str
        Frame names whose pose was stale (sorted here).
    message_type : callable
        ROS type name -> message class.
    lost_frames : iterable of str
        Scene frames without a usable pose, whose geometry is in no pair
        (sorted here).

    Raises
    ------
    KeyError
        If a result names a geometry ``names`` or ``X_WG`` does not know.
    """
    pose = X_WG.__getitem__ if isinstance(X_WG, Mapping) else X_WG
    message_type = _resolved(message_type)
    Pair = message_type("geometry_core_ros/msg/SignedDistancePair")
    Point = message_type("geometry_msgs/msg/Point")
    Vector3 = message_type("geometry_msgs/msg/Vector3")
    pairs = []
    for d, (a, b, n, wa, wb) in zip(distances, witness_points(distances, pose)):
        geometry_a, frame_a = names(d.id_A, d.point_index)
        geometry_b, frame_b = names(d.id_B, d.point_index)
        pairs.append(Pair(
            geometry_a=geometry_a, geometry_b=geometry_b, frame_a=frame_a,
            frame_b=frame_b, distance=float(d.distance),
            p_aca=Point(x=a[0], y=a[1], z=a[2]), p_bcb=Point(x=b[0], y=b[1], z=b[2]),
            nhat_ba_w=Vector3(x=n[0], y=n[1], z=n[2]),
            is_nhat_ba_w_unique=bool(d.is_nhat_BA_W_unique),
            p_wca=Point(x=wa[0], y=wa[1], z=wa[2]), p_wcb=Point(x=wb[0], y=wb[1], z=wb[2])))
    return message_type("geometry_core_ros/msg/SignedDistancePairArray")(
        header=make_header(stamp_ns, names.world_frame, message_type),
        max_distance=float(max_distance), pairs=pairs, stale_frames=sorted(stale_frames),
        lost_frames=sorted(lost_frames))


def witness_points(distances: Sequence[SignedDistancePair],
                   X_WG: Callable[[GeometryId], RigidTransform],
                   ) -> list[tuple[list[float], ...]]:
    """Witness points of signed-distance results, in their geometries' frames and in W.

    Parameters
    ----------
    distances : sequence of SignedDistancePair
    X_WG : callable
        Pose of a geometry's frame G in W (``query_object.get_pose_in_world``),
        asked once per geometry; a :class:`WorldPoses` is asked once for all.

    Returns
    -------
    list of (p_ACa, p_BCb, nhat_BA_W, p_WCa, p_WCb)
        Per result, five lists of three floats (:func:`witness_rows`, cut).
    """
    return [(row[0:3], row[3:6], row[6:9], row[9:12], row[12:15])
            for row in witness_rows(distances, X_WG)]


def witness_rows(distances: Sequence[SignedDistancePair],
                 X_WG: Callable[[GeometryId], RigidTransform]) -> list[list[float]]:
    """:func:`witness_points` as one list of 15 floats per result, in that order.

    ``p_WCa = R_WA p_ACa + p_WA`` (and for B). Plain Python: a result
    message holds a few pairs, for which numpy's per-call cost exceeds the
    arithmetic; the result encoder packs these rows as they are.
    """
    many = getattr(X_WG, "matrices34", None)
    if many is not None and distances:
        ids = list(dict.fromkeys(g for d in distances for g in (d.id_A, d.id_B)))
        matrices: dict[GeometryId, list[list[float]]] = dict(zip(ids, many(ids)))
    else:
        matrices = {}
    rows = []
    for d in distances:
        X_WA = matrices.get(d.id_A)
        if X_WA is None:
            X_WA = matrices[d.id_A] = X_WG(d.id_A).get_as_matrix34().tolist()
        X_WB = matrices.get(d.id_B)
        if X_WB is None:
            X_WB = matrices[d.id_B] = X_WG(d.id_B).get_as_matrix34().tolist()
        a0, a1, a2 = d.p_ACa.tolist()
        b0, b1, b2 = d.p_BCb.tolist()
        n0, n1, n2 = d.nhat_BA_W.tolist()
        (r00, r01, r02, t0), (r10, r11, r12, t1), (r20, r21, r22, t2) = X_WA
        (s00, s01, s02, u0), (s10, s11, s12, u1), (s20, s21, s22, u2) = X_WB
        rows.append([a0, a1, a2, b0, b1, b2, n0, n1, n2,
                     r00 * a0 + r01 * a1 + r02 * a2 + t0, r10 * a0 + r11 * a1 + r12 * a2 + t1,
                     r20 * a0 + r21 * a1 + r22 * a2 + t2,
                     s00 * b0 + s01 * b1 + s02 * b2 + u0, s10 * b0 + s11 * b1 + s12 * b2 + u1,
                     s20 * b0 + s21 * b1 + s22 * b2 + u2])
    return rows


def clearance_table_to_msg(
    table: Any,
    checker: Any,
    q: Sequence[float],
    v: Sequence[float] | None,
    collision_free: bool,
    influence_distance: float,
    stamp_ns: int,
    frame_id: str,
    message_type: MessageType,
) -> Any:
    """``geometry_core_ros/ClearanceTable`` of a :class:`~geometry_core.clearance.RobotClearance`.

    Parameters
    ----------
    table : RobotClearance
        From ``checker.calc_robot_clearance(q, influence_distance)``.
    checker : CollisionChecker
        Names the bodies, geometries and joints.
    q, v : sequence of float
        Positions the table was computed at, and joint velocities (None: no
        velocities known; rates are then 0 and times to contact inf).
    collision_free : bool
        ``checker.check_config_collision_free(q)``.
    stamp_ns : int
        Header stamp (the joint state's), nanoseconds.
    frame_id : str
        The world frame's name.
    message_type : callable
        ROS type name -> message class.
    """
    Row = message_type("geometry_core_ros/msg/ClearanceRow")
    if v is None:
        rates = np.zeros(table.size())
        times = np.full(table.size(), np.inf)
    else:
        rates = table.approach_rates(v)
        times = table.times_to_contact(v)
    rows = []
    for k, (r, o, kind, distance, ids) in enumerate(zip(
            table.robot_indices(), table.other_indices(), table.collision_types(),
            table.distances(), table.geometry_ids())):
        names = ["", ""] if ids is None else [checker.geometry_name(g) for g in ids]
        rows.append(Row(robot_link=checker.body_name(r), other_link=checker.body_name(o),
                        type=int(kind), geometry_a=names[0], geometry_b=names[1],
                        distance=float(distance), rate=float(rates[k]),
                        time_to_contact=float(times[k]),
                        jacobian=[float(x) for x in table.jacobians()[k]]))
    return message_type("geometry_core_ros/msg/ClearanceTable")(
        header=make_header(stamp_ns, frame_id, message_type), collision_free=bool(collision_free),
        influence_distance=float(influence_distance), joint_names=list(checker.position_names),
        positions=[float(x) for x in q], rows=rows)


def clearance_color(distance: float, max_distance: float) -> tuple[float, float, float, float]:
    """RGBA of a witness segment: red in penetration (distance <= 0) to green at max_distance.

    Linear in between; a zero ``max_distance`` makes every non-penetrating
    pair green.
    """
    if distance <= 0.0:
        s = 0.0
    elif max_distance <= 0.0:
        s = 1.0
    else:
        s = min(1.0, distance / max_distance)
    return (1.0 - s, s, 0.0, 1.0)


def results_to_markers(
    penetrations: Sequence[PenetrationAsPointPair],
    clearance_msg: Any,
    max_distance: float,
    stamp_ns: int,
    frame_id: str,
    message_type: MessageType,
) -> Any:
    """``visualization_msgs/MarkerArray`` of one query's results.

    The first marker is ``DELETEALL``, so markers of pairs that are gone
    vanish. Then, in namespaces :data:`MARKER_NAMESPACES`: one SPHERE_LIST
    (id 0) with both witness points of every penetration; one ARROW per
    penetration (ids 0, 1, ... in result order) from ``p_WCb`` along
    ``nhat_BA_W`` (:data:`ARROW_LENGTH_M` long); one LINE_LIST (id 0) with a
    segment ``p_WCa``-``p_WCb`` per clearance pair, coloured per vertex by
    :func:`clearance_color`.

    Parameters
    ----------
    penetrations : sequence of PenetrationAsPointPair
    clearance_msg : geometry_core_ros/SignedDistancePairArray
        As :func:`signed_distances_to_msg` made it (witness points in W).
    max_distance : float
        Distance coloured pure green.
    stamp_ns : int
        Header stamp of every marker.
    frame_id : str
        The world frame, header frame of every marker.
    message_type : callable
        ROS type name -> message class.
    """
    Marker = message_type("visualization_msgs/msg/Marker")
    ColorRGBA = message_type("std_msgs/msg/ColorRGBA")
    Vector3 = message_type("geometry_msgs/msg/Vector3")

    def header() -> Any:
        return make_header(stamp_ns, frame_id, message_type)

    markers = [Marker(header=header(), action=Marker.DELETEALL)]
    points_ns, normals_ns, clearance_ns = MARKER_NAMESPACES
    if penetrations:
        points = [_point(v, message_type) for p in penetrations for v in (p.p_WCa, p.p_WCb)]
        markers.append(Marker(
            header=header(), ns=points_ns, id=0, type=Marker.SPHERE_LIST, action=Marker.ADD,
            scale=Vector3(x=_POINT_DIAMETER_M, y=_POINT_DIAMETER_M, z=_POINT_DIAMETER_M),
            color=ColorRGBA(r=1.0, g=0.0, b=0.0, a=1.0), points=points))
        for n, p in enumerate(penetrations):
            p_WCb = np.asarray(p.p_WCb, dtype=float)
            tip = p_WCb + ARROW_LENGTH_M * np.asarray(p.nhat_BA_W, dtype=float)
            markers.append(Marker(
                header=header(), ns=normals_ns, id=n, type=Marker.ARROW, action=Marker.ADD,
                scale=Vector3(x=_ARROW_SHAFT_M, y=_ARROW_HEAD_M, z=_ARROW_HEAD_M),
                color=ColorRGBA(r=1.0, g=0.4, b=0.0, a=1.0),
                points=[_point(p_WCb, message_type), _point(tip, message_type)]))
    if clearance_msg.pairs:
        points, colors = [], []
        for pair in clearance_msg.pairs:
            r, g, b, a = clearance_color(pair.distance, max_distance)
            points += [pair.p_wca, pair.p_wcb]
            colors += [ColorRGBA(r=r, g=g, b=b, a=a), ColorRGBA(r=r, g=g, b=b, a=a)]
        markers.append(Marker(
            header=header(), ns=clearance_ns, id=0, type=Marker.LINE_LIST, action=Marker.ADD,
            scale=Vector3(x=_LINE_WIDTH_M), color=ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0),
            points=points, colors=colors))
    return message_type("visualization_msgs/msg/MarkerArray")(markers=markers)
