"""``tf2_msgs/TFMessage`` as arrays: decoded once, without a message object per transform.

A node on /tf at 1 kHz spends most of its time building message objects
(six per transform: TransformStamped, Header, Time, Transform, Vector3,
Quaternion) only to read their numbers once. :class:`TfArrays` holds the
same content as plain lists and one ``(N, 7)`` array;
:func:`decode_tf_message` fills it straight from the XCDR1 bytes a DDS
reader takes, :func:`tf_arrays_from_message` from a message object of
either backend.

Nothing is validated here beyond decoding (truncated bytes, a string
without its terminating zero, invalid UTF-8 raise, as Cyclone's own
deserializer does): numbers and names are checked where they are used
(:func:`geometry_core_nodes.conversions.tf_arrays_to_transforms`).

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["TfArrays", "decode_tf_message", "tf_arrays_from_message"]

#: XCDR1 encapsulation identifiers (big and little endian, no options); the
#: bytes of any other encoding are left to the message class's deserializer.
_XCDR1 = {b"\x00\x00": ">", b"\x00\x01": "<"}
#: Fewest bytes one serialized TransformStamped takes: stamp (8), two
#: strings of at least their length and terminating zero (5 each), the
#: seven float64 (56). A sequence length claiming more than fits is refused
#: before anything is allocated for it.
_MIN_TRANSFORM_BYTES = 74


@dataclass
class TfArrays:
    """The transforms of one TFMessage, field by field.

    Attributes
    ----------
    parents : list of str
        ``header.frame_id`` of each transform, as received.
    children : list of str
        ``child_frame_id`` of each transform, as received.
    sec, nanosec : list of int
        ``header.stamp`` of each transform, as received.
    values : (N, 7) float ndarray
        ``transform.translation`` x, y, z then ``transform.rotation`` x, y,
        z, w (ROS order) of each transform.
    """

    parents: list[str]
    children: list[str]
    sec: list[int]
    nanosec: list[int]
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.children)


def tf_arrays_from_message(msg: Any) -> TfArrays:
    """A TFMessage object (DDS-backend or rclpy class) as :class:`TfArrays`."""
    transforms = msg.transforms
    values = np.array([
        (t.transform.translation.x, t.transform.translation.y, t.transform.translation.z,
         t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z,
         t.transform.rotation.w) for t in transforms], dtype=float).reshape(-1, 7)
    return TfArrays(
        parents=[str(t.header.frame_id) for t in transforms],
        children=[str(t.child_frame_id) for t in transforms],
        sec=[int(t.header.stamp.sec) for t in transforms],
        nanosec=[int(t.header.stamp.nanosec) for t in transforms],
        values=values)


def _string(data: bytes, offset: int, length: int) -> str:
    # A CDR string's length counts its terminating zero.
    end = offset + length
    if length == 0:
        return ""
    if end > len(data):
        raise ValueError(f"a string of {length} bytes at offset {offset} runs past the end "
                         f"of the {len(data)} bytes")
    if data[end - 1] != 0:
        raise ValueError(f"the string at offset {offset} does not end with a zero byte")
    return data[offset:end - 1].decode("utf-8")


def decode_tf_message(data: bytes, deserialize: Callable[[bytes], Any]) -> TfArrays:
    """The transforms of a serialized TFMessage (with its 4-byte encapsulation header).

    Parameters
    ----------
    data : bytes
        One sample as a DDS reader takes it.
    deserialize : callable
        The message class's deserializer, used for an encoding other than
        XCDR1 (then the message is converted with :func:`tf_arrays_from_message`).

    Raises
    ------
    ValueError
        (``UnicodeDecodeError`` for invalid UTF-8) For bytes that are no
        TFMessage: truncated, a sequence longer than the sample, a string
        without its terminating zero.
    struct.error
        For a field cut off by the end of the sample.
    """
    order = _XCDR1.get(bytes(data[:2]))
    if order is None:
        return tf_arrays_from_message(deserialize(data))
    body = bytes(data[4:])  # alignment counts from the end of the encapsulation header
    (count,) = struct.unpack_from(order + "I", body, 0)
    if count * _MIN_TRANSFORM_BYTES > len(body) - 4:
        raise ValueError(f"a sequence of {count} transforms does not fit in {len(body)} bytes")
    stamp_and_length = struct.Struct(order + "iII")
    length_of = struct.Struct(order + "I")
    seven = struct.Struct(order + "7d")
    parents, children, secs, nanosecs = [], [], [], []
    flat: list[float] = []
    offset = 4
    for _ in range(count):
        offset = (offset + 3) & ~3
        sec, nanosec, length = stamp_and_length.unpack_from(body, offset)
        offset += 12
        parents.append(_string(body, offset, length))
        offset = (offset + length + 3) & ~3
        (length,) = length_of.unpack_from(body, offset)
        offset += 4
        children.append(_string(body, offset, length))
        offset = (offset + length + 7) & ~7
        flat.extend(seven.unpack_from(body, offset))
        offset += 56
        secs.append(sec)
        nanosecs.append(nanosec)
    return TfArrays(parents, children, secs, nanosecs,
                    np.array(flat, dtype=float).reshape(count, 7))
