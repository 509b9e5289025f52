"""XCDR1 bytes of the scene graph node's result messages, written flat.

Cyclone's Python serializer walks a message field by field through a
machine per type (about 150 calls for a result of five pairs): at 1 kHz
that was half of the node's CPU. The two messages the node publishes every
query, ``geometry_core_ros/PenetrationPairArray`` and
``SignedDistancePairArray``, are written here directly, little endian,
with the same bytes (``test/nodes/test_result_cdr.py`` compares
them with Cyclone's for every field); the node uses these writers only
after checking that they reproduce the bytes its publisher would send
(:func:`serializer_for`, given ``Publisher.serialize``).

Two ways in: from a message object (:func:`serialize_penetrations`,
:func:`serialize_signed_distances`), or from the pieces
(:func:`write_penetration_array`, :func:`write_signed_distance_array`),
which the node fills from query results without making message objects
(:mod:`geometry_core_nodes.result_encoder`, through a :class:`SampleLayout`
per sequence of pairs, which these writers lay out). All share one writer,
so one check covers them all.

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Any

from geometry_core.math import fill_template

__all__ = [
    "PENETRATION_NUMBERS", "SIGNED_DISTANCE_NUMBERS", "SampleLayout", "cdr_string", "cdr_strings",
    "pair_names", "penetration_array_layout", "sample_message", "serialize_penetrations",
    "serialize_signed_distances", "serializer_for", "signed_distance_array_layout",
    "write_penetration_array", "write_signed_distance_array",
]

_HEADER = b"\x00\x01\x00\x00"  # XCDR1, little endian, no options
_U32 = struct.Struct("<I")
_STAMP = struct.Struct("<iI")
_F64 = struct.Struct("<d")
#: A PenetrationPair after its names: depth, p_wca, p_wcb, nhat_ba_w.
PENETRATION_NUMBERS = struct.Struct("<10d")
#: A SignedDistancePair after its names: distance, p_aca, p_bcb, nhat_ba_w,
#: is_nhat_ba_w_unique, the padding to the next float64, p_wca, p_wcb. The
#: first float64 is 8-aligned, so the padding is always 7 bytes.
SIGNED_DISTANCE_NUMBERS = struct.Struct("<10d?7x6d")
_ZEROS = tuple(b"\x00" * n for n in range(8))
_NO_STRINGS = _U32.pack(0)


@functools.lru_cache(maxsize=64)
def cdr_string(value: str) -> bytes:
    """A CDR string: its length (with the terminating zero) as a uint32, the UTF-8, a zero."""
    encoded = value.encode("utf-8")
    return _U32.pack(len(encoded) + 1) + encoded + b"\x00"


def cdr_strings(values: list[str]) -> bytes:
    """A ``string[]`` that starts 4-aligned: its count, then each string 4-aligned."""
    if not values:
        return _NO_STRINGS
    return _U32.pack(len(values)) + _joined(values)


def pair_names(geometry_a: str, geometry_b: str, frame_a: str, frame_b: str) -> bytes:
    """The four name fields of a result pair, for a pair that starts 4-aligned."""
    return _joined([geometry_a, geometry_b, frame_a, frame_b])


def _joined(values: list[str]) -> bytes:
    # Each string after the first starts 4-aligned; nothing pads the last.
    parts = []
    offset = 0
    for value in values:
        if offset % 4:
            parts.append(_ZEROS[-offset % 4])
            offset += -offset % 4
        encoded = cdr_string(value)
        parts.append(encoded)
        offset += len(encoded)
    return b"".join(parts)


def _sample(head: list[bytes], pairs: list[tuple[bytes, bytes]], stale_frames: list[str],
            lost_frames: list[str], numbers_at: list[int] | None = None) -> bytes:
    """Join a sample: ``head`` (header to pair count), the pairs, the two name lists.

    Offsets (for alignment) count from the end of the 4-byte encapsulation
    header. The head ends 4-aligned, a pair's names start 4-aligned and its
    numbers 8-aligned and a multiple of 4 long, so only the padding before
    the numbers varies. ``numbers_at``, when given, gets the index in the
    returned bytes of each pair's numbers.
    """
    parts = head
    offset = sum(map(len, head)) - 4
    for names, numbers in pairs:
        offset += len(names)
        pad = -offset % 8
        parts += (names, _ZEROS[pad], numbers)
        offset += pad
        if numbers_at is not None:
            numbers_at.append(4 + offset)
        offset += len(numbers)
    parts.append(cdr_strings(stale_frames))
    offset += len(parts[-1])
    parts.append(_ZEROS[-offset % 4])
    parts.append(cdr_strings(lost_frames))
    offset += len(parts[-2]) + len(parts[-1])
    # DataWriter.write pads every sample to a multiple of 4 bytes.
    parts.append(_ZEROS[-offset % 4])
    return b"".join(parts)


def _header(sec: int, nanosec: int, frame_id: str) -> list[bytes]:
    frame = cdr_string(frame_id)
    return [_HEADER, _STAMP.pack(sec, nanosec), frame, _ZEROS[-(8 + len(frame)) % 4]]


def write_penetration_array(sec: int, nanosec: int, frame_id: str,
                            pairs: list[tuple[bytes, bytes]], stale_frames: list[str],
                            lost_frames: list[str], numbers_at: list[int] | None = None
                            ) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/PenetrationPairArray``.

    Parameters
    ----------
    sec, nanosec : int
        The header stamp.
    frame_id : str
        The header frame.
    pairs : list of (bytes, bytes)
        Per pair, :func:`pair_names` and :data:`PENETRATION_NUMBERS` packed.
    stale_frames, lost_frames : list of str
    numbers_at : list, optional
        Gets the index of each pair's numbers in the bytes.
    """
    head = _header(sec, nanosec, frame_id)
    head.append(_U32.pack(len(pairs)))
    return _sample(head, pairs, stale_frames, lost_frames, numbers_at)


def write_signed_distance_array(sec: int, nanosec: int, frame_id: str, max_distance: float,
                                pairs: list[tuple[bytes, bytes]], stale_frames: list[str],
                                lost_frames: list[str], numbers_at: list[int] | None = None
                                ) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/SignedDistancePairArray``.

    ``pairs`` holds, per pair, :func:`pair_names` and
    :data:`SIGNED_DISTANCE_NUMBERS` packed; the rest as
    :func:`write_penetration_array`.
    """
    head = _header(sec, nanosec, frame_id)
    head += (_ZEROS[-(sum(map(len, head)) - 4) % 8], _F64.pack(max_distance),
             _U32.pack(len(pairs)))
    return _sample(head, pairs, stale_frames, lost_frames, numbers_at)


class SampleLayout:
    """A result message with given names, whose stamp and numbers are written per sample.

    At 1 kHz the same pairs come back query after query with new numbers:
    the names, lengths and padding are laid out once, by the writers above
    (so the bytes are theirs), and a sample is that template with its
    stamp, ``max_distance`` and every pair's numbers written in place.

    Parameters
    ----------
    template : bytes
        The sample with a zero stamp and zero numbers.
    numbers_at : list of int
        Index of each pair's numbers in ``template``.
    numbers_size : int
        Bytes of one pair's numbers.
    max_distance_at : int or None
        Index of ``max_distance`` (SignedDistancePairArray), else None.
    """

    __slots__ = ("template", "pairs", "_size", "_numbers_at", "_max_distance_at")

    def __init__(self, template: bytes, numbers_at: list[int], numbers_size: int,
                 max_distance_at: int | None) -> None:
        self.template = bytes(template)
        self.pairs = len(numbers_at)
        self._size = numbers_size
        self._numbers_at = tuple(numbers_at)
        self._max_distance_at = max_distance_at

    def write(self, sec: int, nanosec: int, numbers: Any = None,
              max_distance: float | None = None) -> bytes:
        """The sample's bytes.

        Parameters
        ----------
        sec, nanosec : int
            The header stamp.
        numbers : buffer
            Every pair's numbers as :data:`PENETRATION_NUMBERS` or
            :data:`SIGNED_DISTANCE_NUMBERS` packs them, pair after pair
            (None or empty when there is no pair).
        max_distance : float, optional
            For a SignedDistancePairArray.

        Raises
        ------
        ValueError
            If ``numbers`` does not hold the numbers of every pair.
        """
        # The template copied, stamp, max_distance and numbers written in
        # place, in one compiled call.
        if self._max_distance_at is None:
            return fill_template(self.template, numbers, self._size, self._numbers_at,
                                 (4, _STAMP.pack(sec, nanosec)))
        return fill_template(self.template, numbers, self._size, self._numbers_at,
                             (4, _STAMP.pack(sec, nanosec)),
                             (self._max_distance_at, _F64.pack(max_distance)))


def penetration_array_layout(frame_id: str, names: list[bytes], stale_frames: list[str],
                             lost_frames: list[str]) -> SampleLayout:
    """The :class:`SampleLayout` of a PenetrationPairArray of pairs named ``names``.

    ``names`` holds each pair's :func:`pair_names`.
    """
    zeros = bytes(PENETRATION_NUMBERS.size)
    numbers_at: list[int] = []
    template = write_penetration_array(0, 0, frame_id, [(n, zeros) for n in names],
                                       stale_frames, lost_frames, numbers_at)
    return SampleLayout(template, numbers_at, PENETRATION_NUMBERS.size, None)


def signed_distance_array_layout(frame_id: str, names: list[bytes], stale_frames: list[str],
                                 lost_frames: list[str]) -> SampleLayout:
    """The :class:`SampleLayout` of a SignedDistancePairArray of pairs named ``names``."""
    zeros = bytes(SIGNED_DISTANCE_NUMBERS.size)
    numbers_at: list[int] = []
    template = write_signed_distance_array(0, 0, frame_id, 0.0, [(n, zeros) for n in names],
                                           stale_frames, lost_frames, numbers_at)
    # After the stamp, the frame string, padded to 8 for the float64.
    frame = len(cdr_string(frame_id))
    return SampleLayout(template, numbers_at, SIGNED_DISTANCE_NUMBERS.size,
                        4 + 8 + frame + (-(8 + frame) % 8))


def _names_of(pair: Any) -> bytes:
    return pair_names(pair.geometry_a, pair.geometry_b, pair.frame_a, pair.frame_b)


def serialize_penetrations(msg: Any) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/PenetrationPairArray`` (with the header)."""
    pairs = []
    for pair in msg.pairs:
        a, b, n = pair.p_wca, pair.p_wcb, pair.nhat_ba_w
        pairs.append((_names_of(pair), PENETRATION_NUMBERS.pack(
            pair.depth, a.x, a.y, a.z, b.x, b.y, b.z, n.x, n.y, n.z)))
    stamp = msg.header.stamp
    return write_penetration_array(stamp.sec, stamp.nanosec, msg.header.frame_id, pairs,
                                   list(msg.stale_frames), list(msg.lost_frames))


def serialize_signed_distances(msg: Any) -> bytes:
    """XCDR1 bytes of a ``geometry_core_ros/SignedDistancePairArray`` (with the header)."""
    pairs = []
    for pair in msg.pairs:
        a, b, n, wa, wb = pair.p_aca, pair.p_bcb, pair.nhat_ba_w, pair.p_wca, pair.p_wcb
        pairs.append((_names_of(pair), SIGNED_DISTANCE_NUMBERS.pack(
            pair.distance, a.x, a.y, a.z, b.x, b.y, b.z, n.x, n.y, n.z,
            bool(pair.is_nhat_ba_w_unique), wa.x, wa.y, wa.z, wb.x, wb.y, wb.z)))
    stamp = msg.header.stamp
    return write_signed_distance_array(stamp.sec, stamp.nanosec, msg.header.frame_id,
                                       msg.max_distance, pairs, list(msg.stale_frames),
                                       list(msg.lost_frames))


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
