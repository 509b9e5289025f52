"""CDR bytes of our DDS message classes against rosbags, an independent ROS 2 serializer.

For every message type the nodes send or receive, a value with awkward
contents (odd string lengths that break alignment, negative numbers, nested
arrays of odd length) must serialize to exactly the bytes rosbags produces
for the ROS 2 Humble definition, and rosbags' bytes must read back into the
same value. The standard layouts are also compared field by field with
rosbags' Humble type store, which does not read our ``.msg`` files.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from geometry_core_nodes.transport.msg_parser import FieldType, MessageSpec
from geometry_core_nodes.transport.msg_types import (
    INTERFACES_DIR,
    default_registry,
    get_message_type,
    ros_type_name,
)

rosbags_typesys = pytest.importorskip("rosbags.typesys")
Nodetype = pytest.importorskip("rosbags.interfaces").Nodetype

STANDARD_TYPES = [
    "builtin_interfaces/msg/Time",
    "builtin_interfaces/msg/Duration",
    "std_msgs/msg/Header",
    "std_msgs/msg/ColorRGBA",
    "std_msgs/msg/String",
    "geometry_msgs/msg/Point",
    "geometry_msgs/msg/Vector3",
    "geometry_msgs/msg/Quaternion",
    "geometry_msgs/msg/Pose",
    "geometry_msgs/msg/PoseStamped",
    "geometry_msgs/msg/Transform",
    "geometry_msgs/msg/TransformStamped",
    "tf2_msgs/msg/TFMessage",
    "sensor_msgs/msg/CompressedImage",
    "sensor_msgs/msg/JointState",
    "visualization_msgs/msg/UVCoordinate",
    "visualization_msgs/msg/MeshFile",
    "visualization_msgs/msg/Marker",
    "visualization_msgs/msg/MarkerArray",
]
OWN_TYPES = [
    "geometry_core_ros/msg/PenetrationPair",
    "geometry_core_ros/msg/PenetrationPairArray",
    "geometry_core_ros/msg/SignedDistancePair",
    "geometry_core_ros/msg/SignedDistancePairArray",
    "geometry_core_ros/msg/ClearanceRow",
    "geometry_core_ros/msg/ClearanceTable",
]
OWN_MSG_DIR = Path(__file__).resolve().parents[3] / "msg"

_ROSBAGS_DTYPES = {
    "bool": np.bool_,
    "byte": np.uint8,
    "char": np.uint8,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "float32": np.float32,
    "float64": np.float64,
}


@pytest.fixture(scope="module")
def typestore():
    """rosbags' ROS 2 Humble store, plus our own messages parsed by rosbags."""
    store = rosbags_typesys.get_typestore(rosbags_typesys.Stores.ROS2_HUMBLE)
    definitions = {}
    for path in sorted(OWN_MSG_DIR.glob("*.msg")):
        definitions.update(
            rosbags_typesys.get_types_from_msg(
                path.read_text(), f"geometry_core_ros/msg/{path.stem}"
            )
        )
    store.register(definitions)
    return store


class _Values:
    """Deterministic awkward values: every call gives a new one."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def scalar(self, base: str, bound: int | None = None) -> object:
        n = next(self._counter)
        if base == "bool":
            return n % 2 == 1
        if base in ("byte", "char", "uint8"):
            return (37 * n) % 256
        if base.startswith("uint"):
            return 1000 * n + 7
        if base.startswith("int"):
            return -(100 * n + 3) if base != "int8" else -(n % 100)
        if base in ("float32", "float64"):
            # Exact in float32, so both sides see the same bits.
            return -0.375 * n if n % 2 else 1.25 * n
        length = 2 * (n % 4) + 1  # 1, 3, 5, 7 characters: odd, to break alignment
        if bound is not None:
            length = min(length, bound)
        return "".join(chr(ord("a") + (n + i) % 26) for i in range(length))

    def message(self, spec: MessageSpec) -> object:
        registry = default_registry()
        kwargs = {}
        for field in spec.fields:
            kwargs[field.name] = self.field_value(field.type, registry)
        return registry.get(spec.full_name)(**kwargs)

    def field_value(self, field_type: FieldType, registry) -> object:
        def one() -> object:
            if field_type.is_primitive:
                return self.scalar(field_type.base, field_type.string_bound)
            return self.message(registry.get_spec(field_type.base))

        if field_type.array is None:
            return one()
        if field_type.array == "fixed":
            count = field_type.array_size
        else:
            # Odd counts, and larger for bytes so alignment after them is tested.
            count = 5 if field_type.is_primitive else 3
            if field_type.array_size is not None:
                count = min(count, field_type.array_size)
        return [one() for _ in range(count)]


def _to_rosbags(value: object, typestore) -> object:
    """Convert one of our messages to the rosbags class of the same type."""
    spec: MessageSpec = type(value).__ros_spec__
    cls = typestore.types[spec.full_name]
    kwargs = {}
    for field in spec.fields:
        item = getattr(value, field.name)
        field_type = field.type
        if field_type.is_primitive:
            if field_type.array is not None and field_type.base not in ("string", "wstring"):
                item = np.array(item, dtype=_ROSBAGS_DTYPES[field_type.base])
            elif field_type.array is not None:
                item = list(item)
        elif field_type.array is not None:
            item = [_to_rosbags(element, typestore) for element in item]
        else:
            item = _to_rosbags(item, typestore)
        kwargs[field.name] = item
    return cls(**kwargs)


@pytest.mark.parametrize("ros_type", STANDARD_TYPES + OWN_TYPES)
def test_cdr_bytes_equal_rosbags(ros_type, typestore):
    value = _Values().message(default_registry().get_spec(ros_type))
    ours = value.serialize()
    theirs = bytes(typestore.serialize_cdr(_to_rosbags(value, typestore), ros_type))
    assert ours[:4] == b"\x00\x01\x00\x00", "CDR little-endian encapsulation header"
    assert ours == theirs


@pytest.mark.parametrize("ros_type", STANDARD_TYPES + OWN_TYPES)
def test_rosbags_bytes_read_back(ros_type, typestore):
    value = _Values().message(default_registry().get_spec(ros_type))
    theirs = bytes(typestore.serialize_cdr(_to_rosbags(value, typestore), ros_type))
    decoded = get_message_type(ros_type).deserialize(theirs)
    assert decoded == value
    assert ros_type_name(decoded) == ros_type


@pytest.mark.parametrize("ros_type", STANDARD_TYPES)
def test_layout_matches_rosbags_humble_store(ros_type, typestore):
    """Field names, types, order and constants as in ROS 2 Humble."""
    spec = default_registry().get_spec(ros_type)
    constants, fields = typestore.fielddefs[ros_type]
    assert [(c.name, c.type, c.value) for c in spec.constants] == [
        (name, kind, value) for name, kind, value in constants
    ]
    assert [field.name for field in spec.fields] == [name for name, _ in fields]
    for field, (_, (node_type, detail)) in zip(spec.fields, fields):
        assert _rosbags_shape(field.type) == (node_type.name, detail), field.name


def _rosbags_shape(field_type: FieldType) -> tuple[str, object]:
    element = (
        ("BASE", (field_type.base, field_type.string_bound or 0))
        if field_type.is_primitive
        else ("NAME", field_type.base)
    )
    if field_type.array is None:
        return element
    kind = "ARRAY" if field_type.array == "fixed" else "SEQUENCE"
    nested = (getattr(Nodetype, element[0]), element[1])
    return (kind, (nested, field_type.array_size or 0))


def test_every_standard_definition_is_covered():
    shipped = {
        f"{path.parents[1].name}/msg/{path.stem}" for path in INTERFACES_DIR.glob("*/msg/*.msg")
    }
    assert shipped == set(STANDARD_TYPES)
    assert {f"geometry_core_ros/msg/{p.stem}" for p in OWN_MSG_DIR.glob("*.msg")} == set(OWN_TYPES)


def test_tf_message_bytes_by_hand():
    """One TFMessage spelled out byte by byte, independent of both serializers."""
    TFMessage = get_message_type("tf2_msgs/msg/TFMessage")
    TransformStamped = get_message_type("geometry_msgs/msg/TransformStamped")
    Header = get_message_type("std_msgs/msg/Header")
    Time = get_message_type("builtin_interfaces/msg/Time")
    message = TFMessage(
        transforms=[
            TransformStamped(
                header=Header(stamp=Time(sec=-2, nanosec=7), frame_id="w"), child_frame_id="ab"
            )
        ]
    )
    expected = (
        bytes.fromhex("00010000")  # CDR little endian, no options
        + (1).to_bytes(4, "little")  # one transform
        + (-2).to_bytes(4, "little", signed=True)
        + (7).to_bytes(4, "little")
        + (2).to_bytes(4, "little")
        + b"w\x00"  # frame_id with its terminating zero
        + b"\x00\x00"  # pad to 4
        + (3).to_bytes(4, "little")
        + b"ab\x00"
        + b"\x00" * 5  # pad to 8 for the float64 translation
        + np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]).tobytes()
    )
    assert message.serialize() == expected


def test_defaults_are_ros_defaults():
    Marker = get_message_type("visualization_msgs/msg/Marker")
    marker = Marker()
    assert marker.pose.orientation.w == 1.0  # the .msg default: identity rotation
    assert marker.points == [] and marker.text == "" and marker.lifetime.sec == 0
    assert (Marker.ARROW, Marker.ADD, Marker.MODIFY, Marker.DELETE, Marker.DELETEALL) == (
        0,
        0,
        0,
        2,
        3,
    )
    other = Marker()
    other.points.append(get_message_type("geometry_msgs/msg/Point")(x=1.0))
    assert marker.points == [], "defaults must not be shared between instances"


def test_dds_type_names():
    TFMessage = get_message_type("tf2_msgs/msg/TFMessage")
    assert TFMessage.__idl_typename__ == "tf2_msgs::msg::dds_::TFMessage_"
    assert get_message_type("tf2_msgs/TFMessage") is TFMessage
    own = get_message_type("geometry_core_ros/msg/SignedDistancePairArray")
    assert own.__idl_typename__ == "geometry_core_ros::msg::dds_::SignedDistancePairArray_"
