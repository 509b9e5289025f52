"""XCDR1 bytes of the scene graph node's result messages, written flat.

Cyclone's Python serializer walks a message field by field through a
machine per type (about 150 calls for a result of five pairs): at 1 kHz
that was half of the node's CPU. The two messages the node publishes every
query, ``geometry_core_ros/PenetrationPairArray`` and
``SignedDistancePairArray``, are written here directly, little endian,
with the same bytes (``test/nodes/transport/test_result_cdr.py`` compares
them with Cyclone's for every field); the DDS backend uses these writers
only after checking that they reproduce Cyclone's bytes for its writer's
encoding (:func:`serializer_for`).

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

__all__ = [
    "sample_message", "serialize_penetrations", "serialize_signed_distances", "serializer_for",
]

_HEADER = b"\x00\x01\x00\x00"  # XCDR1, little endian, no options
_U32 = struct.Struct("<I")
_STAMP = struct.Struct("<iI")
_F64 = struct.Struct("<d")
_PENETRATION = struct.Struct("<10d")  # depth, p_wca, p_wcb, nhat_ba_w
_DISTANCE = struct.Struct("<10d")  # distance, p_aca, p_bcb, nhat_ba_w
_WORLD_POINTS = struct.Struct("<6d")  # p_wca, p_wcb


class _Writer:
    """A growing buffer; offsets (for alignment) count from the end of the 4-byte header."""

    def __init__(self) -> None:
        self.data = bytearray(_HEADER)

    def align(self, n: int) -> None:
        pad = -(len(self.data) - 4) % n
        if pad:
            self.data += b"\x00" * pad

    def u32(self, value: int) -> None:
        self.align(4)
        self.data += _U32.pack(value)

    def string(self, value: str) -> None:
        encoded = value.encode("utf-8")
        self.u32(len(encoded) + 1)
        self.data += encoded
        self.data += b"\x00"

    def strings(self, values: list[str]) -> None:
        self.u32(len(values))
        for value in values:
            self.string(value)

    def packed(self, layout: struct.Struct, *values: float) -> None:
        self.align(8)
        self.data += layout.pack(*values)

    def header(self, header: Any) -> None:
        self.align(4)
        self.data += _STAMP.pack(header.stamp.sec, header.stamp.nanosec)
        self.string(header.frame_id)

    def names(self, pair: Any) -> None:
        self.string(pair.geometry_a)
        self.string(pair.geometry_b)
        self.string(pair.frame_a)
        self.string(pair.frame_b)

    def result(self) -> bytes:
        # DataWriter.write pads every sample to a multiple of 4 bytes.
        self.data += b"\x00" * (-len(self.data) % 4)
        return bytes(self.data)


def serialize_penetrations(msg: Any) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/PenetrationPairArray`` (with the header)."""
    w = _Writer()
    w.header(msg.header)
    w.u32(len(msg.pairs))
    for pair in msg.pairs:
        w.names(pair)
        a, b, n = pair.p_wca, pair.p_wcb, pair.nhat_ba_w
        w.packed(_PENETRATION, pair.depth, a.x, a.y, a.z, b.x, b.y, b.z, n.x, n.y, n.z)
    w.strings(msg.stale_frames)
    w.strings(msg.lost_frames)
    return w.result()


def serialize_signed_distances(msg: Any) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/SignedDistancePairArray`` (with the header)."""
    w = _Writer()
    w.header(msg.header)
    w.packed(_F64, msg.max_distance)
    w.u32(len(msg.pairs))
    for pair in msg.pairs:
        w.names(pair)
        a, b, n = pair.p_aca, pair.p_bcb, pair.nhat_ba_w
        w.packed(_DISTANCE, pair.distance, a.x, a.y, a.z, b.x, b.y, b.z, n.x, n.y, n.z)
        w.data += b"\x01" if pair.is_nhat_ba_w_unique else b"\x00"
        a, b = pair.p_wca, pair.p_wcb
        w.packed(_WORLD_POINTS, a.x, a.y, a.z, b.x, b.y, b.z)
    w.strings(msg.stale_frames)
    w.strings(msg.lost_frames)
    return w.result()


_SERIALIZERS: dict[str, Callable[[Any], bytes]] = {
    "geometry_core_ros/msg/PenetrationPairArray": serialize_penetrations,
    "geometry_core_ros/msg/SignedDistancePairArray": serialize_signed_distances,
}


def sample_message(ros_type: str, message_type: Callable[[str], type]) -> Any:
    """A message of ``ros_type`` with every field set: two pairs, odd-length names."""
    Point = message_type("geometry_msgs/msg/Point")
    Vector3 = message_type("geometry_msgs/msg/Vector3")
    header = message_type("std_msgs/msg/Header")(
        stamp=message_type("builtin_interfaces/msg/Time")(sec=-3, nanosec=999_999_999),
        frame_id="wörld")

    def pair(k: int) -> dict[str, Any]:
        return dict(geometry_a="a" * k, geometry_b="src::f::b", frame_a="f" * (k + 2),
                    frame_b="", nhat_ba_w=Vector3(x=-0.0, y=1e-300, z=k),
                    p_wca=Point(x=1.5, y=-2.5, z=k), p_wcb=Point(x=7.0, y=8.0, z=-9.0))

    if ros_type.endswith("/PenetrationPairArray"):
        Pair = message_type("geometry_core_ros/msg/PenetrationPair")
        pairs = [Pair(depth=0.25 * k, **pair(k)) for k in (1, 2)]
        return message_type(ros_type)(header=header, pairs=pairs, stale_frames=["s1", "s22"],
                                      lost_frames=["lost"])
    Pair = message_type("geometry_core_ros/msg/SignedDistancePair")
    pairs = [Pair(distance=-0.5 * k, p_aca=Point(x=k, y=2.0, z=3.0), p_bcb=Point(x=-1.0),
                  is_nhat_ba_w_unique=k == 1, **pair(k)) for k in (1, 2)]
    return message_type(ros_type)(header=header, max_distance=0.1, pairs=pairs,
                                  stale_frames=["s1"], lost_frames=["l", "lost"])


def serializer_for(ros_type: str, message_type: Callable[[str], type],
                   reference: Callable[[Any], bytes]) -> Callable[[Any], bytes] | None:
    """The flat writer of ``ros_type`` if it gives the transport's own bytes, else None.

    Parameters
    ----------
    ros_type : str
        ``pkg/msg/Name``.
    message_type : callable
        ROS type name -> message class.
    reference : callable
        The bytes the transport writes for a message (its serializer and
        padding), compared on :func:`sample_message`.
    """
    serialize = _SERIALIZERS.get(ros_type)
    if serialize is None:
        return None
    sample = sample_message(ros_type, message_type)
    return serialize if serialize(sample) == reference(sample) else None
