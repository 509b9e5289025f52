"""Message classes of the DDS backend built from rosbags' layouts: names, defaults, errors."""

from __future__ import annotations

import pytest

from geometry_core_nodes.transport.interfaces import (
    add_message_directory,
    dds_type_name,
    message_directories,
    normalize_type_name,
)

pytest.importorskip("cyclonedds")
pytest.importorskip("rosbags")
from geometry_core_nodes.transport.msg_types import MessageRegistry  # noqa: E402


def test_normalize_type_name():
    assert normalize_type_name("std_msgs/Header") == "std_msgs/msg/Header"
    assert normalize_type_name("std_msgs/msg/Header") == "std_msgs/msg/Header"
    with pytest.raises(ValueError, match="not of the form"):
        normalize_type_name("Header")
    with pytest.raises(ValueError, match="invalid message name 'header'"):
        normalize_type_name("std_msgs/header")
    with pytest.raises(ValueError, match="invalid package name 'Std'"):
        normalize_type_name("Std/Header")
    assert dds_type_name("std_msgs/Header") == "std_msgs::msg::dds_::Header_"


def test_message_directories_are_per_package_ordered_and_unique(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for directory in (first, second, first):
        add_message_directory("structure_test_msgs", directory)
    assert message_directories("structure_test_msgs") == [first, second]
    assert message_directories("no_such_msgs") == []
    with pytest.raises(ValueError, match="invalid package name 'Bad-Name'"):
        add_message_directory("Bad-Name", tmp_path)


def _registry(tmp_path, files: dict[str, str]) -> MessageRegistry:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return MessageRegistry(roots=[tmp_path])


def test_built_class_layout_defaults_and_round_trip(tmp_path):
    registry = _registry(
        tmp_path,
        {
            "demo_msgs/msg/Inner.msg": "float32 v\n",
            "demo_msgs/msg/Outer.msg": (
                "int32 LIMIT=4\nInner inner\nInner[2] pair\nint16[3] three\n"
                "uint8[] data\nstring<=4 tag\nbool ok\nbyte[<=3] raw\n"
                "std_msgs/Header header\n"
            ),
        },
    )
    Outer = registry.get("demo_msgs/Outer")
    Inner = registry.get("demo_msgs/msg/Inner")
    outer = Outer()
    assert outer.inner == Inner(v=0.0)
    assert outer.pair == [Inner(), Inner()] and outer.pair[0] is not outer.pair[1]
    assert outer.three == [0, 0, 0] and outer.data == [] and outer.tag == ""
    assert outer.header.stamp.sec == 0  # a Humble standard type, nested in a parsed one
    assert Outer.LIMIT == 4
    assert [f.name for f in Outer.__ros_fields__][:3] == ["inner", "pair", "three"]
    assert Outer.__ros_fields__[1] == ("pair", "demo_msgs/msg/Inner", False, True)
    value = Outer(pair=[Inner(v=-1.0), Inner(v=2.0)], three=[1, -2, 3], data=[1, 2, 255],
                  tag="abcd", raw=[9])
    assert Outer.deserialize(value.serialize()) == value
    assert Outer.__idl_typename__ == "demo_msgs::msg::dds_::Outer_"
    assert registry.find_file("demo_msgs/Outer") == tmp_path / "demo_msgs/msg/Outer.msg"


def test_humble_defaults_rosbags_does_not_carry():
    registry = MessageRegistry()
    Quaternion = registry.get("geometry_msgs/msg/Quaternion")
    assert (Quaternion().x, Quaternion().w) == (0.0, 1.0)
    assert registry.get("geometry_msgs/msg/Pose")().orientation.w == 1.0


def test_registry_errors(tmp_path):
    registry = _registry(
        tmp_path,
        {
            "demo_msgs/msg/Loop.msg": "Loop next\n",
            "demo_msgs/msg/Wide.msg": "wstring w\n",
            "demo_msgs/msg/Orphan.msg": "Missing m\n",
            "demo_msgs/msg/Broken.msg": "int32[ x\n",
        },
    )
    with pytest.raises(ValueError, match="recursive message definition"):
        registry.get("demo_msgs/msg/Loop")
    with pytest.raises(NotImplementedError, match="wstring fields are not supported"):
        registry.get("demo_msgs/msg/Wide")
    with pytest.raises(LookupError, match="no definition of message type 'demo_msgs/msg/Missing'"):
        registry.get("demo_msgs/msg/Orphan")
    with pytest.raises(ValueError, match=r"Broken\.msg: "):
        registry.get("demo_msgs/msg/Broken")
    with pytest.raises(LookupError, match="no definition of message type 'other_msgs/msg/X'"):
        registry.get("other_msgs/X")
