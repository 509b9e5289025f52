"""TFMessages as arrays: our CDR decoder against Cyclone's, our checks against the object path."""

from __future__ import annotations

import importlib.util
import math
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from geometry_core_nodes.inbound import pose_stamped_to_transform, tf_arrays_to_transforms
from geometry_core_nodes.tf_arrays import (
    TfArrays,
    TfDecoder,
    decode_tf_message,
    tf_arrays_from_message,
)
from geometry_core_nodes.transport import get_message_type as T

_ref_spec = importlib.util.spec_from_file_location(
    "frame_pose_reference", Path(__file__).with_name("frame_pose_reference.py"))
frame_pose_reference = importlib.util.module_from_spec(_ref_spec)
# Registered first: its dataclass looks its module up by name.
sys.modules.setdefault("frame_pose_reference", frame_pose_reference)
_ref_spec.loader.exec_module(frame_pose_reference)
pose_stamped_to_frame_pose = frame_pose_reference.pose_stamped_to_frame_pose
tf_message_to_frame_poses = frame_pose_reference.tf_message_to_frame_poses

_spec = importlib.util.spec_from_file_location("hostile", Path(__file__).with_name("hostile.py"))
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)


def _transform(parent, child, xyz, xyzw, sec=3, nanosec=7):
    return hostile.transform(T, parent, child, xyz, xyzw, sec, nanosec)


def _message(transforms):
    return T("tf2_msgs/msg/TFMessage")(transforms=list(transforms))


#: Names of every length modulo 8 (each string's padding differs), non-ASCII
#: UTF-8, negative stamps, values of every sign and magnitude.
_MIXED = _message([
    _transform("world", "a", (0.5, -1.25, 2.0), (0, 0, 0, 1), sec=-2, nanosec=0),
    _transform("w", "base_link", (1e-300, 1e300, -0.0), (0.1, -0.2, 0.3, 0.9), sec=2**31 - 1),
    _transform("odom_frame", "Ünïcødé", (3.0, 4.0, 5.0), (1, 2, 3, 4), nanosec=999_999_999),
    _transform("/ns/parent7", "c" * 255, (-1.0, 0.0, 1.0), (0.5, 0.5, 0.5, -0.5)),
])


def _assert_same(a: TfArrays, b: TfArrays) -> None:
    assert (a.parents, a.children, a.sec, a.nanosec) == (b.parents, b.children, b.sec, b.nanosec)
    np.testing.assert_array_equal(a.values, b.values)


@pytest.mark.parametrize("version_2", [False, True])
def test_decoder_reads_what_cyclone_reads(version_2):
    """Our XCDR1 reader and Cyclone's deserializer (XCDR2 goes through it) agree field by field."""
    TFMessage = T("tf2_msgs/msg/TFMessage")
    for msg in (_MIXED, _message([])):
        data = msg.serialize(use_version_2=version_2)
        decoded = decode_tf_message(data, TFMessage.deserialize)
        _assert_same(decoded, tf_arrays_from_message(TFMessage.deserialize(data)))
    assert decoded.values == []
    assert len(decode_tf_message(_MIXED.serialize(use_version_2=version_2),
                                 TFMessage.deserialize)) == 4


def test_decoder_reads_big_endian_bytes():
    # The same message with every field swapped: header 00 00, big-endian numbers.
    TFMessage = T("tf2_msgs/msg/TFMessage")
    msg = _message([_transform("w", "ab", (1.0, -2.0, 3.5), (0, 0, 1, 0), sec=-2, nanosec=7)])
    data = (bytes.fromhex("00000000") + struct.pack(">IiII", 1, -2, 7, 2) + b"w\x00\x00\x00"
            + struct.pack(">I", 3) + b"ab\x00" + b"\x00" * 5
            + struct.pack(">7d", 1.0, -2.0, 3.5, 0.0, 0.0, 1.0, 0.0))
    _assert_same(decode_tf_message(data, TFMessage.deserialize), tf_arrays_from_message(msg))


def test_layout_decoder_reads_repeated_layouts_as_the_full_decoder_does():
    """New stamps and numbers in a known layout; other names of the same length; bad bytes."""
    TFMessage = T("tf2_msgs/msg/TFMessage")
    decoder = TfDecoder(TFMessage.deserialize)
    first = decoder(_MIXED.serialize(use_version_2=False))
    assert first.layout is not None
    rng = np.random.default_rng(3)
    for k in range(4):
        msg = _message([_transform(t.header.frame_id, t.child_frame_id, rng.normal(size=3),
                                   rng.normal(size=4), sec=k - 2, nanosec=999_999_990 + k)
                        for t in _MIXED.transforms])
        data = msg.serialize(use_version_2=False)
        decoded = decoder(data)
        assert decoded.layout is first.layout  # read through the remembered layout
        _assert_same(decoded, decode_tf_message(data, TFMessage.deserialize))
    # Same byte length, one name changed: the layout must not apply.
    renamed = _message([_transform("world", "b", (1, 2, 3), (0, 0, 0, 1))] + list(
        _MIXED.transforms[1:]))
    data = renamed.serialize(use_version_2=False)
    assert len(data) == len(_MIXED.serialize(use_version_2=False))
    decoded = decoder(data)
    assert decoded.children[0] == "b" and decoded.layout is not first.layout
    _assert_same(decoded, decode_tf_message(data, TFMessage.deserialize))
    # A known layout with an invalid name byte is refused as the full decoder refuses it.
    data = _message([_transform("world", "@@@@", (0, 0, 0), (0, 0, 0, 1))]).serialize(
        use_version_2=False)
    decoder(data)
    with pytest.raises(UnicodeDecodeError):
        decoder(data.replace(b"@@@@\x00", b"\xff\xfe\xff\xfe\x00"))
    big_endian = TfDecoder(TFMessage.deserialize)
    msg = _message([_transform("w", "ab", (1.0, -2.0, 3.5), (0, 0, 1, 0), sec=-2, nanosec=7)])
    for x in (1.0, 4.0):
        data = (bytes.fromhex("00000000") + struct.pack(">IiII", 1, -2, 7, 2) + b"w\x00\x00\x00"
                + struct.pack(">I", 3) + b"ab\x00" + b"\x00" * 5
                + struct.pack(">7d", x, -2.0, 3.5, 0.0, 0.0, 1.0, 0.0))
        msg.transforms[0].transform.translation.x = x
        _assert_same(big_endian(data), tf_arrays_from_message(msg))


@pytest.mark.parametrize("cut", [5, 11, 20, 60])
def test_decoder_refuses_truncated_bytes(cut):
    data = _MIXED.serialize(use_version_2=False)
    with pytest.raises((ValueError, struct.error)):
        decode_tf_message(data[:cut], T("tf2_msgs/msg/TFMessage").deserialize)


def test_decoder_refuses_invalid_utf8_a_missing_zero_and_a_huge_count():
    deserialize = T("tf2_msgs/msg/TFMessage").deserialize
    data = _message([_transform("world", "@@@@", (0, 0, 0), (0, 0, 0, 1))]).serialize(
        use_version_2=False)
    with pytest.raises(UnicodeDecodeError):
        decode_tf_message(data.replace(b"@@@@\x00", b"\xff\xfe\xff\xfe\x00"), deserialize)
    with pytest.raises(ValueError, match="does not end with a zero byte"):
        decode_tf_message(data.replace(b"@@@@\x00", b"@@@@@"), deserialize)
    huge = data[:4] + struct.pack("<I", 10**8) + data[8:]
    with pytest.raises(ValueError, match="a sequence of 100000000 transforms does not fit"):
        decode_tf_message(huge, deserialize)


def test_checks_and_messages_match_the_object_path():
    """Every transform the object path refuses is refused here with the same kind and message."""
    nan, inf = math.nan, math.inf
    msg = _message([
        _transform("world", "ok", (1, 2, 3), (0, 0, 0, 2)),
        _transform("world", "", (0, 0, 0), (0, 0, 0, 1)),
        _transform("", "a", (0, 0, 0), (0, 0, 0, 1)),
        _transform("a", "/a", (0, 0, 0), (0, 0, 0, 1)),
        _transform("world", "x" * 300, (0, 0, 0), (0, 0, 0, 1)),
        _transform("world", "t", (nan, 0, 0), (0, 0, 0, 1)),
        _transform("world", "r", (0, 0, 0), (0, inf, 0, 1)),
        _transform("world", "z", (0, 0, 0), (0, 0, 0, 0)),
        _transform("world", "s", (0, 0, 0), (0, 0, 0, 1), nanosec=1_000_000_000),
        _transform("/world", "/big", (4, 5, 6), (1e300, 0, 0, 1e300)),
        _transform("world", "beyond_the_cap", (0, 0, 0), (0, 0, 0, 1)),
    ])
    poses, errors = tf_message_to_frame_poses(msg, 10)
    transforms, array_errors = tf_arrays_to_transforms(tf_arrays_from_message(msg), 10)
    assert [(type(e), e.kind, e.frame, str(e)) for e in array_errors] == [
        (type(e), e.kind, e.frame, str(e)) for e in errors]
    assert len(errors) == 8
    assert [(t[0], t[1], t[2]) for t in transforms] == [
        (p.parent, p.child, p.stamp_ns) for p in poses] == [
        ("world", "ok", 3_000_000_007), ("world", "big", 3_000_000_007)]
    np.testing.assert_array_equal(transforms[1][3], [4, 5, 6, 1e300, 0, 0, 1e300])


@pytest.mark.parametrize("position, orientation", [
    ((1.0, 2.0, 3.0), (0, 0, 0, 1)), ((math.nan, 0, 0), (0, 0, 0, 1)),
    ((0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0), (0, 0, math.inf, 1))])
def test_pose_stamped_transform_checks_as_the_frame_pose(position, orientation):
    x, y, z, w = orientation
    msg = T("geometry_msgs/msg/PoseStamped")(
        header=T("std_msgs/msg/Header")(
            stamp=T("builtin_interfaces/msg/Time")(sec=1, nanosec=2), frame_id=""),
        pose=T("geometry_msgs/msg/Pose")(
            position=T("geometry_msgs/msg/Point")(x=position[0], y=position[1], z=position[2]),
            orientation=T("geometry_msgs/msg/Quaternion")(x=x, y=y, z=z, w=w)))
    try:
        expected = pose_stamped_to_frame_pose(msg, "tool", "world")
    except ValueError as err:
        with pytest.raises(type(err), match=f"^{re.escape(str(err))}$"):
            pose_stamped_to_transform(msg, "tool", "world")
        return
    parent, child, stamp_ns, values = pose_stamped_to_transform(msg, "tool", "world")
    assert (parent, child, stamp_ns) == (expected.parent, expected.child, expected.stamp_ns)
    np.testing.assert_array_equal(values, [*position, *orientation])
