"""``collision_object`` samples that repeat the previous one but for its stamp and pose.

A client that moves an object (MoveIt's MOVE, or an ADD sent again at a new
pose) sends the same ``moveit_msgs/CollisionObject`` many times over: the
same id, frame, shapes, subframes and operation, with only
``header.stamp`` and ``pose`` changed. Decoding such a sample with the
message class's deserializer rebuilds every nested object again (a
millisecond for a box). :class:`CollisionObjectDecoder` keeps the last
sample it decoded, bytes and message: a sample of the same length whose
bytes equal the kept ones everywhere but the stamp's eight bytes and the
pose's 56 is that message with the new stamp and pose, read with one
``struct`` call. Everything else is byte for byte a message the
deserializer took before, so the value handed on equals what the
deserializer returns for the same bytes; the checks of the message
(:func:`~geometry_core_nodes.planning_scene.collision_object_edit`: a
non-finite pose, an unknown object) run on it as on any other.

Only little-endian XCDR1 samples (what ROS 2 writers send) take this way;
any other goes to the deserializer. The kept message is never changed:
each sample gets its own header and pose objects (the rest, not edited by
anyone, is shared).

This module knows the message's layout only; it imports no transport.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

__all__ = ["COLLISION_OBJECT_CODEC", "CollisionObjectCodec", "CollisionObjectDecoder"]

_XCDR1_LE = b"\x00\x01"
_STAMP = struct.Struct("<iI")
_LENGTH = struct.Struct("<I")
_POSE = struct.Struct("<7d")


def _copy(obj: Any) -> Any:
    """A shallow copy of a message object (``copy.copy`` takes four times as long)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def _pose_offset(data: bytes) -> int | None:
    """Offset in ``data`` of ``pose`` (after the header's stamp and frame id), or None."""
    if len(data) < 16:
        return None
    (length,) = _LENGTH.unpack_from(data, 12)
    # Body offsets count from the end of the 4-byte encapsulation header.
    body = (8 + 4 + length + 7) & ~7
    if 4 + body + _POSE.size > len(data):
        return None
    return 4 + body


class CollisionObjectDecoder:
    """A ``CollisionObject`` deserializer that reads a repeated object's new stamp and pose only.

    Parameters
    ----------
    deserialize : callable
        The message class's deserializer, for every sample that is not a
        repeat of the last one it decoded.
    """

    def __init__(self, deserialize: Callable[[bytes], Any]) -> None:
        self._deserialize = deserialize
        self._data = b""
        self._msg: Any = None
        self._pose_at = 0
        #: Samples read as a repeat (for tests and benchmarks).
        self.repeats = 0

    def __call__(self, data: bytes) -> Any:
        """Decode one sample, with the deserializer's result and errors."""
        data = bytes(data)
        kept, at = self._data, self._pose_at
        if (self._msg is not None and len(data) == len(kept) and data[:4] == kept[:4]
                and data[12:at] == kept[12:at] and data[at + 56:] == kept[at + 56:]):
            self.repeats += 1
            return self._repeat(data, at)
        msg = self._deserialize(data)
        at = _pose_offset(data) if data[:2] == _XCDR1_LE else None
        if at is None:
            self._msg, self._data = None, b""
        else:
            self._msg, self._data, self._pose_at = msg, data, at
        return msg

    def _repeat(self, data: bytes, at: int) -> Any:
        sec, nanosec = _STAMP.unpack_from(data, 4)
        x, y, z, qx, qy, qz, qw = _POSE.unpack_from(data, at)
        kept = self._msg
        msg = _copy(kept)
        msg.header = header = _copy(kept.header)
        header.stamp = stamp = _copy(kept.header.stamp)
        stamp.sec, stamp.nanosec = sec, nanosec
        msg.pose = pose = _copy(kept.pose)
        pose.position = position = _copy(kept.pose.position)
        pose.orientation = orientation = _copy(kept.pose.orientation)
        position.x, position.y, position.z = x, y, z
        orientation.x, orientation.y, orientation.z, orientation.w = qx, qy, qz, qw
        return msg


class CollisionObjectCodec:
    """The transport codec of ``collision_object`` subscriptions: message objects, faster."""

    def from_message(self, msg: Any) -> Any:
        """A message object of either backend, as it is."""
        return msg

    def bytes_decoder(self, deserialize: Callable[[bytes], Any]) -> CollisionObjectDecoder:
        """A decoder of one subscription's samples (each keeps its own last sample)."""
        return CollisionObjectDecoder(deserialize)


#: The codec the nodes subscribe to ``collision_object`` with.
COLLISION_OBJECT_CODEC = CollisionObjectCodec()
