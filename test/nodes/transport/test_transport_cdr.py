"""CDR bytes of our DDS message classes against rosbags, an independent ROS 2 serializer.

Our classes take their layouts from rosbags' type store but serialize with
Cyclone DDS. For every message type the nodes send or receive, a value with
awkward contents (odd string lengths that break alignment, negative numbers,
nested arrays of odd length) must serialize to exactly the bytes rosbags
produces for the ROS 2 Humble definition, and rosbags' bytes must read back
into the same value. The ``.msg`` default values that rosbags' layouts drop
are checked against Humble's own files where ROS 2 is installed.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import numpy as np
import pytest

rosbags_typesys = pytest.importorskip("rosbags.typesys")
Nodetype = pytest.importorskip("rosbags.interfaces").Nodetype
pytest.importorskip("cyclonedds")
from geometry_core_nodes import MESSAGE_PACKAGE  # noqa: E402
from geometry_core_nodes.moveit_types import DEFINITIONS as MOVEIT_DEFINITIONS  # noqa: E402
from geometry_core_nodes.transport.interfaces import split_service_text  # noqa: E402
from geometry_core_nodes.transport.msg_types import (  # noqa: E402
    HUMBLE_FIELD_DEFAULTS,
    default_registry,
    get_message_type,
    ros_type_name,
)
from geometry_core_nodes.transport.parameter_services import (  # noqa: E402
    RCL_INTERFACES_SERVICES,
)

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
    "rcl_interfaces/msg/Parameter",
    "rcl_interfaces/msg/ParameterValue",
    "rcl_interfaces/msg/ParameterDescriptor",
    "rcl_interfaces/msg/SetParametersResult",
    "rcl_interfaces/msg/ListParametersResult",
    "shape_msgs/msg/SolidPrimitive",
    "shape_msgs/msg/Mesh",
    "shape_msgs/msg/MeshTriangle",
    "shape_msgs/msg/Plane",
    "sensor_msgs/msg/PointCloud2",
    "sensor_msgs/msg/PointField",
    "trajectory_msgs/msg/JointTrajectory",
]
# Definitions given as data (MoveIt's, rcl_interfaces' services): messages,
# and each service's request and response.
DATA_DEFINITIONS = {**MOVEIT_DEFINITIONS, **RCL_INTERFACES_SERVICES}
DATA_TYPES = sorted(
    [name for name in DATA_DEFINITIONS if "/msg/" in name]
    + [f"{name}_{part}" for name in DATA_DEFINITIONS if "/srv/" in name
       for part in ("Request", "Response")])
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
    for name, text in DATA_DEFINITIONS.items():
        if "/msg/" in name:
            definitions.update(rosbags_typesys.get_types_from_msg(text, name))
            continue
        for part, half in zip(("Request", "Response"), split_service_text(text)):
            key = f"{name}_{part}".replace("/srv/", "/msg/")  # rosbags' names are msg
            definitions.update(rosbags_typesys.get_types_from_msg(half, key))
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
        if base == "byte":
            # rosbags packs a scalar byte as a signed char: keep to 0..127.
            return (37 * n) % 128
        if base in ("char", "uint8"):
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

    def message(self, ros_type: str) -> object:
        registry = default_registry()
        _, fields = registry.fielddefs(ros_type)
        kwargs = {name: self.field_value(description) for name, description in fields}
        return registry.get(ros_type)(**kwargs)

    def field_value(self, description) -> object:
        kind, detail = description
        if kind == Nodetype.ARRAY:
            element, count = detail
        elif kind == Nodetype.SEQUENCE:
            element, bound = detail
            # Odd counts, and larger for bytes so alignment after them is tested.
            count = 5 if element[0] == Nodetype.BASE else 3
            if bound:
                count = min(count, bound)
        else:
            return self.one(description)
        return [self.one(element) for _ in range(count)]

    def one(self, element) -> object:
        if element[0] == Nodetype.BASE:
            base, bound = element[1]
            return self.scalar(base, bound or None)
        return self.message(element[1])


def _to_rosbags(value: object, typestore) -> object:
    """Convert one of our messages to the rosbags class of the same type."""
    ros_type = ros_type_name(value)
    key = ros_type.replace("/srv/", "/msg/")
    kwargs = {}
    for name, (kind, detail) in default_registry().fielddefs(ros_type)[1]:
        item = getattr(value, name)
        if kind in (Nodetype.ARRAY, Nodetype.SEQUENCE):
            element = detail[0]
            if element[0] != Nodetype.BASE:
                item = [_to_rosbags(e, typestore) for e in item]
            elif element[1][0] in ("string", "wstring"):
                item = list(item)
            else:
                item = np.array(item, dtype=_ROSBAGS_DTYPES[element[1][0]])
        elif kind == Nodetype.NAME:
            item = _to_rosbags(item, typestore)
        kwargs[name] = item
    return typestore.types[key](**kwargs)


@pytest.mark.parametrize("ros_type", STANDARD_TYPES + OWN_TYPES + DATA_TYPES)
def test_cdr_bytes_equal_rosbags(ros_type, typestore):
    value = _Values().message(ros_type)
    ours = value.serialize()
    theirs = bytes(typestore.serialize_cdr(_to_rosbags(value, typestore),
                                           ros_type.replace("/srv/", "/msg/")))
    assert ours[:4] == b"\x00\x01\x00\x00", "CDR little-endian encapsulation header"
    assert ours == theirs


@pytest.mark.parametrize("ros_type", STANDARD_TYPES + OWN_TYPES + DATA_TYPES)
def test_rosbags_bytes_read_back(ros_type, typestore):
    value = _Values().message(ros_type)
    theirs = bytes(typestore.serialize_cdr(_to_rosbags(value, typestore),
                                           ros_type.replace("/srv/", "/msg/")))
    decoded = get_message_type(ros_type).deserialize(theirs)
    assert decoded == value
    assert ros_type_name(decoded) == ros_type


def test_every_type_the_nodes_name_is_covered():
    nodes = Path(__file__).resolve().parents[3] / "nodes"
    named = set()
    for path in nodes.rglob("*.py"):
        named |= set(re.findall(r'"([a-z0-9_]+/msg/[A-Z][A-Za-z0-9]*)"', path.read_text()))
    named.discard("pkg/msg/Name")  # the docstrings' placeholder
    covered = set(STANDARD_TYPES + OWN_TYPES + DATA_TYPES)
    assert named <= covered, sorted(named - covered)
    assert {f"{MESSAGE_PACKAGE}/msg/{p.stem}" for p in OWN_MSG_DIR.glob("*.msg")} == set(OWN_TYPES)


def _field_defaults(path: Path, ros_type: str) -> dict[str, object]:
    """Default values a .msg file declares, read with rosbags' parser (which keeps them)."""
    from rosbags.typesys.msg import MSGParser

    (message, *_) = MSGParser(f"MSG: {ros_type}\n{path.read_text()}").specification()
    return {field.name: field.value for field in message.fields if field.value is not None}


def test_our_messages_declare_no_defaults_and_rosidl_names():
    """rosbags' layouts drop .msg defaults, and rosidl wants lower-case field names."""
    for path in sorted(OWN_MSG_DIR.glob("*.msg")):
        assert _field_defaults(path, f"{MESSAGE_PACKAGE}/msg/{path.stem}") == {}, path.name
        _, fields = default_registry().fielddefs(f"{MESSAGE_PACKAGE}/msg/{path.stem}")
        bad = [name for name, _ in fields if not re.fullmatch(r"[a-z](_?[a-z0-9]+)*", name)]
        assert bad == [], path.name


def _humble_msg_files(package: str, name: str) -> list[Path]:
    """``<Name>.msg`` in the ament prefixes and in the ROS 2 Humble of CI.

    That Humble is /opt/ros_humble_local, one prefix per package.
    """
    prefixes = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes.append(Path("/opt/ros_humble_local") / package)
    files = [prefix / "share" / package / "msg" / f"{name}.msg" for prefix in prefixes]
    return [f for f in files if f.is_file()]


@pytest.mark.parametrize("ros_type", STANDARD_TYPES)
def test_humble_defaults_match_humbles_own_files(ros_type):
    package, _, name = ros_type.split("/")
    files = _humble_msg_files(package, name)
    if not files:
        pytest.skip(f"no ROS 2 installation with {ros_type}.msg")
    declared = _field_defaults(files[0], ros_type)
    nonzero = {k: v for k, v in declared.items() if v not in (0, 0.0, False, "", [])}
    assert nonzero == HUMBLE_FIELD_DEFAULTS.get(ros_type, {})
    message = get_message_type(ros_type)()
    for field, value in declared.items():
        assert getattr(message, field) == value, field


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


def _humble_interface_file(name: str) -> Path | None:
    """``share/<pkg>/{msg,srv}/<Name>.{msg,srv}`` of an installed ROS 2, or None."""
    package, kind, stem = name.split("/")
    prefixes = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes.append(Path("/opt/ros_humble_local") / package)
    for prefix in prefixes:
        path = prefix / "share" / package / kind / f"{stem}.{kind}"
        if path.is_file():
            return path
    return None


@pytest.mark.parametrize("name", sorted(DATA_DEFINITIONS))
def test_definitions_given_as_data_match_the_installed_ones(name):
    """Each definition we carry has the fields, types and constants of ROS 2 Humble's file."""
    from rosbags.typesys.msg import MSGParser

    path = _humble_interface_file(name)
    if path is None:
        pytest.skip(f"no ROS 2 installation with {name}")

    def parsed(text):
        (message, *_) = MSGParser(f"MSG: {name.replace('/srv/', '/msg/')}\n{text}").specification()
        return ([(c.name, str(c.typ), c.value) for c in message.constants],
                [(f.name, str(f.typ), f.value) for f in message.fields])

    theirs, ours = path.read_text(), DATA_DEFINITIONS[name]
    if "/srv/" in name:
        assert [parsed(half) for half in split_service_text(theirs)] == \
            [parsed(half) for half in split_service_text(ours)]
    else:
        assert parsed(theirs) == parsed(ours)
