"""Parser for ROS 2 ``.msg`` interface definitions.

Turns the text of a ``.msg`` file into a :class:`MessageSpec`: fields with
their types and default values, and constants, following the rules of
rosidl's ``.msg`` format (the same rules that decide whether ``colcon build``
accepts our ``msg/`` files): primitive types, bounded strings
(``string<=N``), fixed arrays (``T[N]``), bounded (``T[<=N]``) and unbounded
(``T[]``) sequences, nested types (``pkg/Name`` or, within the same package,
``Name``), constants (``TYPE NAME=value``) and default values
(``TYPE name value``).

This module is pure text processing: it must never import cyclonedds, rclpy
or anything from ``geometry_core``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = [
    "PRIMITIVE_TYPES",
    "Constant",
    "Field",
    "FieldType",
    "MessageSpec",
    "MsgParseError",
    "normalize_type_name",
    "parse_message",
]

#: Primitive types of the ``.msg`` format and, for integers, their value ranges.
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "byte": (0, 255),
    "char": (0, 255),
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
FLOAT_TYPES = frozenset({"float32", "float64"})
STRING_TYPES = frozenset({"string", "wstring"})
PRIMITIVE_TYPES = frozenset(INTEGER_RANGES) | FLOAT_TYPES | STRING_TYPES | {"bool"}

# rosidl's naming rules: lower-case field names without double or trailing
# underscores; upper-case constant names; CamelCase message names.
_FIELD_NAME = re.compile(r"^(?!.*__)(?!.*_$)[a-z][a-z0-9_]*$")
_CONSTANT_NAME = re.compile(r"^(?!.*__)(?!.*_$)[A-Z][A-Z0-9_]*$")
_PACKAGE_NAME = re.compile(r"^(?!.*__)(?!.*_$)[a-z][a-z0-9_]*$")
_MESSAGE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_CONSTANT_LINE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)\s*=(?P<value>.*)$")
_TYPE = re.compile(
    r"^(?P<base>[A-Za-z][A-Za-z0-9_/]*)"
    r"(?:<=(?P<string_bound>\d+))?"
    r"(?:\[(?P<array>(?:<=)?\d*)\])?$"
)


class MsgParseError(ValueError):
    """A ``.msg`` definition that rosidl would reject; the message names file and line."""


@dataclass(frozen=True)
class FieldType:
    """The type of one field.

    Attributes
    ----------
    base : str
        A primitive type name (``"int32"``, ``"string"``) or a message type in
        full form (``"geometry_msgs/msg/Point"``).
    string_bound : int or None
        ``N`` of ``string<=N``; None for unbounded strings and other types.
    array : str or None
        None for a single value, ``"fixed"`` for ``T[N]``, ``"bounded"`` for
        ``T[<=N]``, ``"unbounded"`` for ``T[]``.
    array_size : int or None
        ``N`` of a fixed array or bounded sequence.
    """

    base: str
    string_bound: int | None = None
    array: str | None = None
    array_size: int | None = None

    @property
    def is_primitive(self) -> bool:
        """True for primitive base types, False for nested messages."""
        return self.base in PRIMITIVE_TYPES


@dataclass(frozen=True)
class Field:
    """One field: name, type and default value (None: the ROS zero value)."""

    name: str
    type: FieldType
    default: object = None


@dataclass(frozen=True)
class Constant:
    """One constant: ``TYPE NAME=value`` with a primitive, non-array type."""

    name: str
    type: str
    value: object


@dataclass(frozen=True)
class MessageSpec:
    """A parsed message definition.

    Attributes
    ----------
    package, name : str
        ``"geometry_msgs"``, ``"Point"``.
    fields : tuple of Field
        In definition order, which is the order on the wire.
    constants : tuple of Constant
    """

    package: str
    name: str
    fields: tuple[Field, ...]
    constants: tuple[Constant, ...]

    @property
    def full_name(self) -> str:
        """``"<package>/msg/<Name>"``."""
        return f"{self.package}/msg/{self.name}"


def normalize_type_name(type_name: str, context_package: str | None = None) -> str:
    """Return a message type name in the full form ``pkg/msg/Name``.

    Parameters
    ----------
    type_name : str
        ``"pkg/msg/Name"``, ``"pkg/Name"``, or ``"Name"`` (only with a
        ``context_package``, the package of the file that mentions it).
    context_package : str, optional
        Package in which a bare ``Name`` is looked up.

    Raises
    ------
    ValueError
        If the name has another form or an invalid package or message name.
    """
    parts = type_name.split("/")
    if len(parts) == 1 and context_package is not None:
        # rosidl resolves the ROS 1 shorthand "Header" only through the package;
        # it is an error in ROS 2, as it is here unless Header is in the package.
        package, name = context_package, parts[0]
    elif len(parts) == 2:
        package, name = parts
    elif len(parts) == 3 and parts[1] == "msg":
        package, name = parts[0], parts[2]
    else:
        raise ValueError(
            f"message type name {type_name!r} is not of the form 'pkg/msg/Name' or 'pkg/Name'"
        )
    if not _PACKAGE_NAME.match(package):
        raise ValueError(f"invalid package name {package!r} in message type {type_name!r}")
    if not _MESSAGE_NAME.match(name):
        raise ValueError(f"invalid message name {name!r} in message type {type_name!r}")
    return f"{package}/msg/{name}"


def parse_message(text: str, package: str, name: str, source: str = "<string>") -> MessageSpec:
    """Parse the text of a ``.msg`` file.

    Parameters
    ----------
    text : str
        File contents.
    package, name : str
        Package and message name (``"tf2_msgs"``, ``"TFMessage"``); bare
        nested type names resolve within ``package``.
    source : str
        File name used in error messages.

    Returns
    -------
    MessageSpec

    Raises
    ------
    MsgParseError
        On any line rosidl would reject: unknown syntax, invalid names, a
        duplicate name, an out-of-range or malformed value, a default on a
        nested type, a constant of non-primitive or array type.
    """
    if not _PACKAGE_NAME.match(package):
        raise MsgParseError(f"{source}: invalid package name {package!r}")
    if not _MESSAGE_NAME.match(name):
        raise MsgParseError(f"{source}: invalid message name {name!r}")
    fields: list[Field] = []
    constants: list[Constant] = []
    seen: set[str] = set()
    for number, raw_line in enumerate(text.splitlines(), start=1):
        where = f"{source}:{number}"
        line = _strip_comment(raw_line.replace("\t", " ")).strip()
        if not line:
            continue
        type_text, _, rest = line.partition(" ")
        rest = rest.strip()
        if not rest:
            raise MsgParseError(f"{where}: expected 'TYPE name' but got {raw_line.strip()!r}")
        try:
            field_type = _parse_type(type_text, package)
        except ValueError as error:
            raise MsgParseError(f"{where}: {error}") from None
        constant_match = _CONSTANT_LINE.match(rest)
        if constant_match is not None:
            constant_name, value_text = constant_match["name"], constant_match["value"]
            if not _CONSTANT_NAME.match(constant_name):
                raise MsgParseError(
                    f"{where}: invalid constant name {constant_name!r} "
                    "(upper case letters, digits and single underscores)"
                )
            if not field_type.is_primitive or field_type.array is not None:
                raise MsgParseError(
                    f"{where}: constant {constant_name} must have a primitive non-array type, "
                    f"not {type_text!r}"
                )
            value = _parse_value(
                field_type, value_text.strip(), f"{where}: constant {constant_name}"
            )
            _check_unique(constant_name, seen, where)
            constants.append(Constant(constant_name, field_type.base, value))
            continue
        field_name, _, default_text = rest.partition(" ")
        if not _FIELD_NAME.match(field_name):
            raise MsgParseError(
                f"{where}: invalid field name {field_name!r} (lower case letters, digits and "
                "single underscores, starting with a letter, not ending with '_')"
            )
        default_text = default_text.strip()
        default = None
        if default_text:
            if not field_type.is_primitive:
                raise MsgParseError(
                    f"{where}: field {field_name} of message type {field_type.base} "
                    "cannot have a default value"
                )
            default = _parse_value(field_type, default_text, f"{where}: default of {field_name}")
        _check_unique(field_name, seen, where)
        fields.append(Field(field_name, field_type, default))
    return MessageSpec(package, name, tuple(fields), tuple(constants))


def _check_unique(name: str, seen: set[str], where: str) -> None:
    if name in seen:
        raise MsgParseError(f"{where}: duplicate name {name!r}")
    seen.add(name)


def _strip_comment(line: str) -> str:
    """Drop a ``#`` comment, keeping ``#`` inside quoted string values."""
    quote = None
    for index, char in enumerate(line):
        if quote is not None:
            if char == "\\":
                continue
            if char == quote and (index == 0 or line[index - 1] != "\\"):
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def _parse_type(text: str, package: str) -> FieldType:
    match = _TYPE.match(text)
    if match is None:
        raise ValueError(f"invalid type {text!r}")
    base = match["base"]
    string_bound = int(match["string_bound"]) if match["string_bound"] is not None else None
    if base in PRIMITIVE_TYPES:
        if string_bound is not None and base not in STRING_TYPES:
            raise ValueError(f"only strings can be bounded with '<=', not {base!r}")
        if string_bound == 0:
            raise ValueError(f"string bound must be positive in {text!r}")
    else:
        if string_bound is not None:
            raise ValueError(f"only strings can be bounded with '<=', not {base!r}")
        base = normalize_type_name(base, package)
    array_text = match["array"]
    if array_text is None:
        return FieldType(base, string_bound)
    if array_text == "":
        return FieldType(base, string_bound, "unbounded")
    if array_text.startswith("<="):
        size_text, kind = array_text[2:], "bounded"
    else:
        size_text, kind = array_text, "fixed"
    if not size_text or int(size_text) == 0:
        raise ValueError(f"array size must be a positive integer in {text!r}")
    return FieldType(base, string_bound, kind, int(size_text))


def _parse_value(field_type: FieldType, text: str, what: str) -> object:
    """Parse a constant or default value for ``field_type``; raise MsgParseError."""
    if field_type.array is None:
        return _parse_scalar(field_type, text, what)
    if field_type.base in STRING_TYPES:
        items = _split_string_list(text, what)
    else:
        if not (text.startswith("[") and text.endswith("]")):
            raise MsgParseError(f"{what}: expected a list like [1, 2] but got {text!r}")
        inner = text[1:-1].strip()
        items = [item.strip() for item in inner.split(",")] if inner else []
    element_type = FieldType(field_type.base, field_type.string_bound)
    values = [_parse_scalar(element_type, item, what) for item in items]
    size = field_type.array_size
    if field_type.array == "fixed" and len(values) != size:
        raise MsgParseError(f"{what}: expected exactly {size} values but got {len(values)}")
    if field_type.array == "bounded" and len(values) > size:
        raise MsgParseError(f"{what}: expected at most {size} values but got {len(values)}")
    return values


def _parse_scalar(field_type: FieldType, text: str, what: str) -> object:
    base = field_type.base
    if base == "bool":
        lowered = text.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise MsgParseError(f"{what}: expected true or false but got {text!r}")
    if base in INTEGER_RANGES:
        try:
            value = int(text, 0)
        except ValueError:
            raise MsgParseError(f"{what}: expected an integer ({base}) but got {text!r}") from None
        low, high = INTEGER_RANGES[base]
        if not low <= value <= high:
            raise MsgParseError(f"{what}: {value} is outside the {base} range [{low}, {high}]")
        return value
    if base in FLOAT_TYPES:
        try:
            return float(text)
        except ValueError:
            raise MsgParseError(f"{what}: expected a number ({base}) but got {text!r}") from None
    value = _unquote(text, what)
    bound = field_type.string_bound
    if bound is not None and len(value) > bound:
        raise MsgParseError(f"{what}: string {value!r} is longer than its bound {bound}")
    return value


def _unquote(text: str, what: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise MsgParseError(f"{what}: malformed quoted string {text!r}") from None
        return str(value)
    return text


def _split_string_list(text: str, what: str) -> list[str]:
    """Split ``["a", 'b', c]`` into raw item texts, respecting quotes."""
    if not (text.startswith("[") and text.endswith("]")):
        raise MsgParseError(f"{what}: expected a list like ['a', 'b'] but got {text!r}")
    items: list[str] = []
    current = ""
    quote = None
    escaped = False
    for char in text[1:-1]:
        if quote is not None:
            current += char
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            current += char
        elif char == ",":
            items.append(current.strip())
            current = ""
        else:
            current += char
    if quote is not None:
        raise MsgParseError(f"{what}: unterminated quote in {text!r}")
    if current.strip() or items:
        items.append(current.strip())
    return items
