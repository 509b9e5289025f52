"""Repeated ``collision_object`` samples read from their bytes, against Cyclone's deserializer.

:class:`CollisionObjectDecoder` reads a sample that repeats the last one
decoded but for its stamp and pose with one ``struct`` call; every value it
hands on must equal what the message class's own deserializer returns for
the same bytes, whatever changed between two samples.
"""

from __future__ import annotations

import collections
import itertools
import math
import random
import struct

import pytest
from cyclonedds.idl._support import Endianness

from geometry_core_nodes import moveit_types  # noqa: F401  (the DDS backend's definitions)
from geometry_core_nodes.collision_object_cdr import CollisionObjectDecoder
from geometry_core_nodes.transport import get_message_type as T

CO = T("moveit_msgs/msg/CollisionObject")


def _object(object_id="box", frame="world", operation=3, p=(0.0, 0.0, 0.0),
            q=(0.0, 0.0, 0.0, 1.0), stamp=(0, 0), dims=(0.1, 0.2, 0.3), subframes=()):
    co = CO()
    co.id, co.header.frame_id = object_id, frame
    co.header.stamp.sec, co.header.stamp.nanosec = stamp
    co.operation = operation
    co.pose.position.x, co.pose.position.y, co.pose.position.z = p
    (co.pose.orientation.x, co.pose.orientation.y, co.pose.orientation.z,
     co.pose.orientation.w) = q
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 1, list(dims)
    co.primitives = [primitive]
    co.primitive_poses = [T("geometry_msgs/msg/Pose")()]
    co.subframe_names = list(subframes)
    co.subframe_poses = [T("geometry_msgs/msg/Pose")() for _ in subframes]
    return co


def _same(a, b) -> bool:
    """Message equality where NaN equals NaN (a NaN pose is a message too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__"):
        return a.__dict__.keys() == b.__dict__.keys() and all(
            _same(a.__dict__[k], b.__dict__[k]) for k in a.__dict__)
    return a == b


#: Samples in the order a node might take them: repeats at new poses and
#: stamps (NaN and zero quaternions included), then each other field changed.
_NAN = float("nan")
_SEQUENCE = [
    _object(operation=0),
    _object(p=(1.0, 2.0, 3.0)),                       # the operation changed: decoded
    _object(p=(1.5, -2.0, 1e300), stamp=(7, 9)),      # a repeat
    _object(p=(-0.0, 0.0, 5e-324), q=(0.5, 0.5, 0.5, 0.5), stamp=(-3, 2**32 - 1)),
    _object(q=(_NAN, 0.0, 0.0, 1.0)),
    _object(q=(0.0, 0.0, 0.0, 0.0), p=(math.inf, 0.0, -math.inf)),
    _object(object_id="bot"),                         # same length, other id
    _object(object_id="box_long_name"),               # other lengths and padding
    _object(object_id="box_long_name", p=(4.0, 4.0, 4.0)),
    _object(frame="base"),
    _object(frame="base_link_x"),
    _object(frame="base_link_x", p=(0.25, 0.0, 0.0)),
    _object(frame="base_link_x", dims=(0.1, 0.2, 0.4)),
    _object(frame="base_link_x", dims=(0.1, 0.2, 0.4), subframes=("tip",)),
    _object(frame="base_link_x", dims=(0.1, 0.2, 0.4), subframes=("tip",), p=(1.0, 1.0, 1.0)),
    _object(operation=1),
]


def test_every_sample_equals_the_deserializers():
    decode = CollisionObjectDecoder(CO.deserialize)
    results = []
    for co in _SEQUENCE:
        data = co.serialize()
        got = decode(data)
        assert _same(got, CO.deserialize(data)), co
        assert _same(got, co)
        results.append(got)
    # Repeats: a new pose or stamp of the sample before, nothing else changed.
    assert decode.repeats == 7
    # A repeat is a message of its own: the earlier ones are as they were.
    for co, got in zip(_SEQUENCE, results):
        assert _same(got, co)


def test_every_frame_and_id_length_with_every_neighbour():
    # Frame ids of every length modulo 8 move the pose's offset and padding.
    decode = CollisionObjectDecoder(CO.deserialize)
    samples = [_object(object_id="o" * n, frame="f" * m, p=(n, m, 0.5), stamp=(n, m))
               for n, m in itertools.product(range(1, 5), range(0, 10))]
    for a, b in itertools.product(samples[:12], repeat=2):
        for co in (a, b, b):
            data = co.serialize()
            assert _same(decode(data), CO.deserialize(data))


def test_bytes_the_deserializer_refuses_are_refused_the_same_way():
    decode = CollisionObjectDecoder(CO.deserialize)
    data = _object().serialize()
    decode(data)
    for bad in (data[:-3], data[:20], data[:4] + b"\xff" * (len(data) - 4)):
        with pytest.raises(Exception) as deserializer:
            CO.deserialize(bad)
        with pytest.raises(type(deserializer.value)):
            decode(bad)
    assert _same(decode(data), CO.deserialize(data))


def test_big_endian_and_xcdr2_samples_go_to_the_deserializer():
    decode = CollisionObjectDecoder(CO.deserialize)
    for options in ({"endianness": Endianness.Big}, {"use_version_2": True},
                    {"endianness": Endianness.Big, "use_version_2": True}):
        for p in ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)):
            data = _object(p=p).serialize(**options)
            assert _same(decode(data), CO.deserialize(data))
    assert decode.repeats == 0


def test_mutated_samples_after_a_kept_one_equal_the_deserializers_or_are_refused_as_it_does():
    """Thousands of broken samples, each right after a good one the decoder keeps."""
    rng = random.Random(23)
    specials = [struct.pack("<d", v) for v in (math.nan, math.inf, -math.inf, 1.7e308, 5e-324,
                                               -0.0)]
    goods = [_object().serialize(), _object(frame="base_link_x", subframes=("tip",)).serialize(),
             _object(object_id="o" * 9, frame="").serialize()]
    decode = CollisionObjectDecoder(CO.deserialize)
    outcomes = collections.Counter()
    for n in range(3000):
        good = rng.choice(goods)
        decode(good)
        bad = bytearray(good)
        kind = rng.randrange(6)
        if kind == 0:  # bit flips anywhere
            for _ in range(rng.randint(1, 3)):
                bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        elif kind == 1:  # cut short
            del bad[rng.randrange(len(bad)):]
        elif kind == 2:  # longer
            bad += bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        elif kind == 3:  # any aligned 4 bytes as a length
            at = 4 * rng.randrange(1, len(bad) // 4)
            bad[at:at + 4] = struct.pack("<I", rng.choice(
                [0, 1, 2, 3, 4, 7, 8, 2**31, 2**32 - 1, rng.randrange(2**32)]))
        elif kind == 4:  # a byte of the stamp, frame id or pose
            bad[rng.randrange(4, 96)] = rng.randrange(256)
        else:  # a number near the start: special values
            at = rng.randrange(4, 88)
            bad[at:at + 8] = rng.choice(specials)
        bad = bytes(bad)
        repeats = decode.repeats
        try:
            got = decode(bad)
        except Exception as err:  # noqa: BLE001 - the transport counts any of them
            with pytest.raises(type(err)):
                CO.deserialize(bad)
            outcomes["refused"] += 1
            continue
        assert _same(got, CO.deserialize(bad)), (n, bad)
        outcomes["repeat" if decode.repeats > repeats else "decoded"] += 1
    assert min(outcomes.values()) > 300 and len(outcomes) == 3, outcomes
