"""``tf2_msgs/TFMessage`` as arrays: decoded once, without a message object per transform.

A node on /tf at 1 kHz spends most of its time building message objects
(six per transform: TransformStamped, Header, Time, Transform, Vector3,
Quaternion) only to read their numbers once. :class:`TfArrays` holds the
same content as plain lists (the seven numbers of a transform as a tuple:
for the few transforms of a message, plain Python is cheaper than numpy);
:func:`decode_tf_message` fills it straight from the XCDR1 bytes a DDS
reader takes, :func:`tf_arrays_from_message` from a message object of
either backend.

A publisher sends the same frames in every message: only the stamps and
the numbers change. A :class:`TfDecoder` (one per subscription) remembers
where those sit in the bytes of the messages it decoded; a message whose
every other byte (sequence length, string lengths, names, padding) equals a
remembered one is read with one ``struct`` call, and its :class:`TfArrays`
carries that layout (:attr:`TfArrays.layout`), so that what depends on the
names alone can be worked out once per layout.

Nothing is validated here beyond decoding (truncated bytes, a string
without its terminating zero, invalid UTF-8 raise, as Cyclone's own
deserializer does): numbers and names are checked where they are used
(:func:`geometry_core_nodes.outbound.tf_arrays_to_transforms`).

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from geometry_core.math import matches_template

__all__ = ["TF_CODEC", "TfArrays", "TfCodec", "TfDecoder", "TfLayout", "decode_tf_message",
           "tf_arrays_from_message"]

#: XCDR1 encapsulation identifiers (big and little endian, no options); the
#: bytes of any other encoding are left to the message class's deserializer.
_XCDR1 = {b"\x00\x00": ">", b"\x00\x01": "<"}
#: Fewest bytes one serialized TransformStamped takes: stamp (8), two
#: strings of at least their length and terminating zero (5 each), the
#: seven float64 (56). A sequence length claiming more than fits is refused
#: before anything is allocated for it.
_MIN_TRANSFORM_BYTES = 74
#: Layouts a TfDecoder remembers (one per message size): a /tf topic has a
#: few publishers, each sending its own frames.
_MAX_LAYOUTS = 8


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
    values : list of tuple of 7 float
        ``transform.translation`` x, y, z then ``transform.rotation`` x, y,
        z, w (ROS order) of each transform.
    layout : TfLayout or None
        The layout a :class:`TfDecoder` read the message with: the same
        object for every message with the same names (``parents`` and
        ``children`` are then that layout's lists, not to be changed).
    data : bytes or None
        With a layout: the message's bytes, where the layout says its
        stamps and numbers are; ``sec``, ``nanosec`` and ``values`` are read
        from them when first asked for (a caller may instead read them
        straight from the bytes, see :attr:`TfLayout.stamp_at`).
    """

    __slots__ = ("parents", "children", "_sec", "_nanosec", "_values", "layout", "data")

    def __init__(self, parents: list[str], children: list[str], sec: list[int] | None = None,
                 nanosec: list[int] | None = None, values: list[tuple[float, ...]] | None = None,
                 layout: TfLayout | None = None, data: bytes | None = None) -> None:
        self.parents = parents
        self.children = children
        self._sec, self._nanosec, self._values = sec, nanosec, values
        self.layout = layout
        self.data = data

    def _read(self) -> None:
        self._sec, self._nanosec, self._values = self.layout.numbers(self.data)

    @property
    def sec(self) -> list[int]:
        if self._sec is None:
            self._read()
        return self._sec

    @sec.setter
    def sec(self, value: list[int]) -> None:
        self._sec = value

    @property
    def nanosec(self) -> list[int]:
        if self._nanosec is None:
            self._read()
        return self._nanosec

    @nanosec.setter
    def nanosec(self, value: list[int]) -> None:
        self._nanosec = value

    @property
    def values(self) -> list[tuple[float, ...]]:
        if self._values is None:
            self._read()
        return self._values

    @values.setter
    def values(self, value: list[tuple[float, ...]]) -> None:
        self._values = value

    def __len__(self) -> int:
        return len(self.children)

    def __repr__(self) -> str:
        return (f"TfArrays(parents={self.parents!r}, children={self.children!r}, "
                f"sec={self.sec!r}, nanosec={self.nanosec!r}, values={self.values!r})")


def tf_arrays_from_message(msg: Any) -> TfArrays:
    """A TFMessage object (DDS-backend or rclpy class) as :class:`TfArrays`."""
    transforms = msg.transforms
    values = [
        (float(t.transform.translation.x), float(t.transform.translation.y),
         float(t.transform.translation.z), float(t.transform.rotation.x),
         float(t.transform.rotation.y), float(t.transform.rotation.z),
         float(t.transform.rotation.w)) for t in transforms]
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
    return _decode(data, deserialize)[0]


@dataclass(frozen=True, eq=False)
class TfLayout:
    """Where stamps and numbers sit in the XCDR1 bytes of TFMessages with given names.

    Attributes
    ----------
    size : int
        Length of such a message's bytes.
    parents, children : list of str
        The names, in message order.
    """

    size: int
    parents: list[str]
    children: list[str]
    #: Offset in the bytes of each transform's stamp (int32 sec, uint32 nanosec).
    stamp_at: tuple[int, ...]
    #: Offset in the bytes of each transform's seven float64.
    values_at: tuple[int, ...]
    #: Whether the numbers are little endian.
    little_endian: bool
    _template: bytes  # the first message of the layout: its bytes but stamps and numbers
    _holes: tuple[tuple[int, int], ...]  # (start, end) of each stamp and numbers, in order
    _numbers: struct.Struct  # per transform: sec, nanosec, then the seven float64
    _values_at: range  # where each transform's seven float64 start in what _numbers reads

    def read(self, data: bytes) -> TfArrays | None:
        """``data`` as :class:`TfArrays` if it has this layout, else None.

        Only the names and lengths are compared here; the stamps and
        numbers are read when asked for (:attr:`TfArrays.data`).
        """
        if not matches_template(data, self._template, self._holes):
            return None
        return TfArrays(self.parents, self.children, layout=self, data=data)

    def numbers(self, data: bytes) -> tuple[list[int], list[int], list[tuple[float, ...]]]:
        """``(sec, nanosec, values)`` of a message of this layout."""
        numbers = self._numbers.unpack_from(data, 8)
        return (list(numbers[0::9]), list(numbers[1::9]),
                [numbers[k:k + 7] for k in self._values_at])


class TfDecoder:
    """:func:`decode_tf_message` that reads messages of a layout it has seen in one call.

    Parameters
    ----------
    deserialize : callable
        As for :func:`decode_tf_message`.
    """

    def __init__(self, deserialize: Callable[[bytes], Any]) -> None:
        self._deserialize = deserialize
        self._layouts: dict[int, TfLayout] = {}

    def __call__(self, data: bytes) -> TfArrays:
        """Decode one sample, as :func:`decode_tf_message` (and with the same errors)."""
        layout = self._layouts.get(len(data))
        if layout is not None:
            arrays = layout.read(data)
            if arrays is not None:
                return arrays
        arrays, layout = _decode(data, self._deserialize)
        if layout is not None:
            if len(self._layouts) >= _MAX_LAYOUTS:
                self._layouts.clear()
            self._layouts[layout.size] = layout
            arrays.layout = layout
            arrays.parents, arrays.children = layout.parents, layout.children
        return arrays


def _decode(data: bytes, deserialize: Callable[[bytes], Any]) -> tuple[TfArrays, TfLayout | None]:
    order = _XCDR1.get(bytes(data[:2]))
    if order is None:
        return tf_arrays_from_message(deserialize(data)), None
    body = bytes(data[4:])  # alignment counts from the end of the encapsulation header
    (count,) = struct.unpack_from(order + "I", body, 0)
    if count * _MIN_TRANSFORM_BYTES > len(body) - 4:
        raise ValueError(f"a sequence of {count} transforms does not fit in {len(body)} bytes")
    stamp_and_length = struct.Struct(order + "iII")
    length_of = struct.Struct(order + "I")
    seven = struct.Struct(order + "7d")
    parents, children, secs, nanosecs = [], [], [], []
    values: list[tuple[float, ...]] = []
    # Body offsets of each transform's stamp and numbers, for the layout.
    stamp_at, numbers_at = [], []
    offset = 4
    for _ in range(count):
        offset = (offset + 3) & ~3
        stamp_at.append(offset)
        sec, nanosec, length = stamp_and_length.unpack_from(body, offset)
        offset += 12
        parents.append(_string(body, offset, length))
        offset = (offset + length + 3) & ~3
        (length,) = length_of.unpack_from(body, offset)
        offset += 4
        children.append(_string(body, offset, length))
        offset = (offset + length + 7) & ~7
        numbers_at.append(offset)
        values.append(seven.unpack_from(body, offset))
        offset += 56
        secs.append(sec)
        nanosecs.append(nanosec)
    arrays = TfArrays(parents, children, secs, nanosecs, values)
    if not count:
        return arrays, None
    # In data (4 bytes of header before the body): every byte but each
    # transform's stamp and numbers (the header, the sequence length, the
    # names, their lengths and the padding) is the layout's.
    holes = tuple(hole for s, v in zip(stamp_at, numbers_at)
                  for hole in ((4 + s, 4 + s + 8), (4 + v, 4 + v + 56)))
    gaps = [v - s - 8 for s, v in zip(stamp_at, numbers_at)]
    layout = TfLayout(len(data), parents, children, tuple(4 + s for s in stamp_at),
                      tuple(4 + v for v in numbers_at), order == "<", bytes(data), holes,
                      struct.Struct(order + "".join(f"iI{gap}x7d" for gap in gaps)),
                      range(2, 9 * count, 9))
    return arrays, layout


class TfCodec:
    """The transport codec of ``tf2_msgs/TFMessage`` subscriptions: messages as arrays."""

    def from_message(self, msg: Any) -> TfArrays:
        """A message object of either backend, as arrays."""
        return tf_arrays_from_message(msg)

    def bytes_decoder(self, deserialize: Callable[[bytes], Any]) -> TfDecoder:
        """A decoder of one subscription's samples (each keeps its own layouts)."""
        return TfDecoder(deserialize)


#: The codec the nodes subscribe to /tf and /tf_static with.
TF_CODEC = TfCodec()
