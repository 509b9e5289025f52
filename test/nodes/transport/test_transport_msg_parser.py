"""The .msg parser and the message class builder: syntax, defaults, errors."""

from __future__ import annotations

import pytest

from geometry_core_nodes.transport.msg_parser import (
    FieldType,
    MsgParseError,
    normalize_type_name,
    parse_message,
)
from geometry_core_nodes.transport.msg_types import MessageRegistry, dds_type_name

EVERYTHING = """
# file comment
int32 A=1
int32 B = -2   # spaces around '=' and a comment
string GREETING="hi # not a comment"
bool FLAG=true
float64 PI=3.25

bool b true
byte y 7
char c 65
int8 i8 -8
uint64 u64 18446744073709551615
float32 f -1.5
string s "odd"
string<=5 bs 'abc'
int32[3] fixed [1, -2, 3]
int32[] seq
float64[<=4] bounded [0.5]
string<=3[2] names ["ab", 'c']
Header header
geometry_msgs/Point point
geometry_msgs/msg/Vector3[] vectors
"""


def test_parse_everything():
    spec = parse_message(EVERYTHING, "demo_msgs", "All")
    constants = {c.name: (c.type, c.value) for c in spec.constants}
    assert constants == {
        "A": ("int32", 1),
        "B": ("int32", -2),
        "GREETING": ("string", "hi # not a comment"),
        "FLAG": ("bool", True),
        "PI": ("float64", 3.25),
    }
    fields = {f.name: (f.type, f.default) for f in spec.fields}
    assert fields["b"] == (FieldType("bool"), True)
    assert fields["u64"][1] == 2**64 - 1
    assert fields["s"][1] == "odd"
    assert fields["bs"] == (FieldType("string", 5), "abc")
    assert fields["fixed"] == (FieldType("int32", None, "fixed", 3), [1, -2, 3])
    assert fields["seq"] == (FieldType("int32", None, "unbounded"), None)
    assert fields["bounded"] == (FieldType("float64", None, "bounded", 4), [0.5])
    assert fields["names"] == (FieldType("string", 3, "fixed", 2), ["ab", "c"])
    assert fields["header"][0].base == "demo_msgs/msg/Header"  # bare names stay in the package
    assert fields["point"][0].base == "geometry_msgs/msg/Point"
    assert fields["vectors"][0] == FieldType("geometry_msgs/msg/Vector3", None, "unbounded")
    assert [f.name for f in spec.fields][:3] == ["b", "y", "c"]  # wire order is file order


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("int32 p_WCa", "invalid field name 'p_WCa'"),
        ("int32 double__underscore", "invalid field name"),
        ("int32 trailing_", "invalid field name"),
        ("int32 lower=1", "invalid constant name 'lower'"),
        ("int32[] ARR=[1]", "must have a primitive non-array type"),
        ("geometry_msgs/Point P=1", "must have a primitive non-array type"),
        ("geometry_msgs/Point p 1", "cannot have a default value"),
        ("int8 x 200", "outside the int8 range"),
        ("uint8 X=-1", "outside the uint8 range"),
        ("bool b maybe", "expected true or false"),
        ("float64 f abc", "expected a number"),
        ("int32[2] a [1, 2, 3]", "expected exactly 2 values"),
        ("int32[<=1] a [1, 2]", "expected at most 1 values"),
        ("string<=2 s 'abc'", "longer than its bound 2"),
        ("int32<=3 x", "only strings can be bounded"),
        ("int32[0] x", "array size must be a positive integer"),
        ("int32", "expected 'TYPE name'"),
        ("int32 a\nint32 a", "duplicate name 'a'"),
        ("bad/type/name/x y", "not of the form"),
    ],
)
def test_rejects_what_rosidl_rejects(text, match):
    with pytest.raises(MsgParseError, match=match):
        parse_message(text, "demo_msgs", "Bad", source="Bad.msg")


def test_error_names_file_and_line():
    with pytest.raises(MsgParseError, match=r"^Bad\.msg:3: "):
        parse_message("int32 a\n\nint32 B_\n", "demo_msgs", "Bad", source="Bad.msg")


def test_normalize_type_name():
    assert normalize_type_name("std_msgs/Header") == "std_msgs/msg/Header"
    assert normalize_type_name("std_msgs/msg/Header") == "std_msgs/msg/Header"
    assert normalize_type_name("Point", "geometry_msgs") == "geometry_msgs/msg/Point"
    with pytest.raises(ValueError, match="not of the form"):
        normalize_type_name("Header")
    with pytest.raises(ValueError, match="invalid message name"):
        normalize_type_name("std_msgs/header")
    assert dds_type_name("std_msgs/Header") == "std_msgs::msg::dds_::Header_"


def _registry(tmp_path, files: dict[str, str]) -> MessageRegistry:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return MessageRegistry([tmp_path])


def test_built_class_defaults_and_round_trip(tmp_path):
    registry = _registry(
        tmp_path,
        {
            "demo_msgs/msg/Inner.msg": "float32 v 0.5\n",
            "demo_msgs/msg/Outer.msg": (
                "int32 LIMIT=4\nInner inner\nInner[2] pair\nint16[3] three\n"
                "uint8[] data\nstring<=4 tag 'ab'\nbool ok\nbyte[<=3] raw\n"
            ),
        },
    )
    Outer = registry.get("demo_msgs/Outer")
    Inner = registry.get("demo_msgs/msg/Inner")
    outer = Outer()
    assert outer.inner == Inner(v=0.5)
    assert outer.pair == [Inner(), Inner()] and outer.pair[0] is not outer.pair[1]
    assert outer.three == [0, 0, 0] and outer.data == [] and outer.tag == "ab"
    assert Outer.LIMIT == 4
    value = Outer(pair=[Inner(v=-1.0), Inner(v=2.0)], three=[1, -2, 3], data=[1, 2, 255], raw=[9])
    assert Outer.deserialize(value.serialize()) == value
    assert Outer.__idl_typename__ == "demo_msgs::msg::dds_::Outer_"


def test_registry_errors(tmp_path):
    registry = _registry(
        tmp_path,
        {
            "demo_msgs/msg/Loop.msg": "Loop next\n",
            "demo_msgs/msg/Wide.msg": "wstring w\n",
            "demo_msgs/msg/Orphan.msg": "Missing m\n",
        },
    )
    with pytest.raises(ValueError, match="recursive message definition"):
        registry.get("demo_msgs/msg/Loop")
    with pytest.raises(NotImplementedError, match="wstring fields are not supported"):
        registry.get("demo_msgs/msg/Wide")
    with pytest.raises(LookupError, match="no definition of message type 'demo_msgs/msg/Missing'"):
        registry.get("demo_msgs/msg/Orphan")
