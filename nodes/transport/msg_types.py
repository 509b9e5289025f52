"""ROS 2 message classes for the Cyclone DDS backend, built from ``.msg`` files.

Each message type becomes a Cyclone DDS ``IdlStruct`` dataclass with the DDS
type name rmw_cyclonedds uses (``tf2_msgs::msg::dds_::TFMessage_``) and the
field types rosidl maps the ``.msg`` types to, so that its CDR bytes are the
ones a real ROS 2 node sends and expects. Users construct messages with
keyword arguments; omitted fields take the ROS defaults (zero, empty, the
``.msg`` default value, a default nested message). Constants are class
attributes (``Marker.ARROW``).

The ``.msg`` files are looked up, in order, in ``interfaces/`` beside this
module (the standard types, as in ROS 2 Humble), the directories of the
``GEOMETRY_CORE_MSG_PATH`` environment variable (roots holding
``<pkg>/msg/<Name>.msg``), our own ``geometry_core_ros`` messages (``msg/``
of the source tree, else ``share/geometry_core_ros/msg`` under the Python
prefix or an ``AMENT_PREFIX_PATH`` entry), and ``share/<pkg>/msg`` of each
``AMENT_PREFIX_PATH`` entry.

This module must never import rclpy or anything from ``geometry_core``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from pathlib import Path
from typing import Any

from cyclonedds.idl import IdlMeta, IdlStruct
from cyclonedds.idl import types as idl_types

from .msg_parser import FieldType, MessageSpec, normalize_type_name, parse_message

__all__ = [
    "INTERFACES_DIR",
    "OWN_PACKAGE",
    "MessageRegistry",
    "dds_type_name",
    "default_registry",
    "get_message_type",
    "ros_type_name",
]

#: Root of the standard message definitions shipped with the transport.
INTERFACES_DIR = Path(__file__).resolve().parent / "interfaces"
#: ROS 2 package name of our own result messages (``msg/`` at the repository root).
OWN_PACKAGE = "geometry_core_ros"

# rosidl's mapping of .msg primitives to IDL, as rmw_cyclonedds puts them on
# the wire: byte is an octet, char an unsigned 8-bit integer.
_PRIMITIVE_IDL: dict[str, Any] = {
    "bool": bool,
    "byte": idl_types.byte,
    "char": idl_types.uint8,
    "int8": idl_types.int8,
    "uint8": idl_types.uint8,
    "int16": idl_types.int16,
    "uint16": idl_types.uint16,
    "int32": idl_types.int32,
    "uint32": idl_types.uint32,
    "int64": idl_types.int64,
    "uint64": idl_types.uint64,
    "float32": idl_types.float32,
    "float64": float,
    "string": str,
}
_PRIMITIVE_ZERO: dict[str, Any] = {
    "bool": False,
    "float32": 0.0,
    "float64": 0.0,
    "string": "",
}


def dds_type_name(ros_type: str) -> str:
    """Return the DDS type name of a ROS 2 message type.

    >>> dds_type_name("tf2_msgs/msg/TFMessage")
    'tf2_msgs::msg::dds_::TFMessage_'
    """
    package, _, name = normalize_type_name(ros_type).split("/")
    return f"{package}::msg::dds_::{name}_"


def ros_type_name(msg_type: type | object) -> str:
    """Return ``pkg/msg/Name`` of a message class or instance built here.

    Raises
    ------
    TypeError
        If ``msg_type`` is not a message class of this module.
    """
    cls = msg_type if isinstance(msg_type, type) else type(msg_type)
    name = getattr(cls, "__ros_type__", None)
    if name is None:
        raise TypeError(f"{cls!r} is not a ROS message class built by get_message_type")
    return name


def _own_package_dirs() -> list[Path]:
    source_tree = Path(__file__).resolve().parents[2] / "msg"
    candidates = [source_tree, Path(sys.prefix) / "share" / OWN_PACKAGE / "msg"]
    candidates += [
        Path(prefix) / "share" / OWN_PACKAGE / "msg"
        for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
        if prefix
    ]
    return [path for path in candidates if path.is_dir()]


class MessageRegistry:
    """Finds ``.msg`` files and builds (once) the message class of each type.

    Parameters
    ----------
    roots : list of Path
        Directories holding ``<pkg>/msg/<Name>.msg``, searched in order.
    package_dirs : dict of str to list of Path, optional
        Directories holding ``<Name>.msg`` for one package, searched before
        the roots (a ROS package's own ``msg/`` folder).
    """

    def __init__(
        self, roots: list[Path], package_dirs: dict[str, list[Path]] | None = None
    ) -> None:
        self._roots = [Path(root) for root in roots]
        self._package_dirs = {
            package: [Path(d) for d in dirs] for package, dirs in (package_dirs or {}).items()
        }
        self._classes: dict[str, type] = {}
        self._building: list[str] = []
        self._lock = threading.RLock()

    def find_file(self, ros_type: str) -> Path:
        """Return the ``.msg`` file defining ``ros_type``.

        Raises
        ------
        LookupError
            If no searched directory has it; the message lists them.
        """
        package, _, name = normalize_type_name(ros_type).split("/")
        candidates = [d / f"{name}.msg" for d in self._package_dirs.get(package, [])]
        candidates += [root / package / "msg" / f"{name}.msg" for root in self._roots]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        searched = ", ".join(str(c) for c in candidates) or "nothing"
        raise LookupError(f"no definition of message type {ros_type!r}; searched {searched}")

    def get_spec(self, ros_type: str) -> MessageSpec:
        """Parse and return the definition of ``ros_type``."""
        full_name = normalize_type_name(ros_type)
        path = self.find_file(full_name)
        package, _, name = full_name.split("/")
        return parse_message(path.read_text(encoding="utf-8"), package, name, str(path))

    def get(self, ros_type: str) -> type:
        """Return the message class of ``ros_type``, building it on first use.

        Parameters
        ----------
        ros_type : str
            ``"pkg/msg/Name"`` or ``"pkg/Name"``.

        Raises
        ------
        LookupError
            If the type or one of its nested types has no ``.msg`` file.
        ValueError
            If a definition is malformed (:class:`MsgParseError`) or recursive.
        NotImplementedError
            For ``wstring`` fields, which this backend does not carry.
        """
        full_name = normalize_type_name(ros_type)
        with self._lock:
            cls = self._classes.get(full_name)
            if cls is not None:
                return cls
            if full_name in self._building:
                chain = " -> ".join([*self._building, full_name])
                raise ValueError(f"recursive message definition: {chain}")
            self._building.append(full_name)
            try:
                cls = self._build(self.get_spec(full_name))
            finally:
                self._building.pop()
            self._classes[full_name] = cls
            return cls

    def _build(self, spec: MessageSpec) -> type:
        namespace = IdlMeta.__prepare__(
            spec.name, (IdlStruct,), typename=dds_type_name(spec.full_name)
        )
        for field in spec.fields:
            namespace["__annotations__"][field.name] = self._annotation(
                spec, field.name, field.type
            )
            namespace[field.name] = self._default(field.type, field.default)
        for constant in spec.constants:
            namespace[constant.name] = constant.value
        namespace["__ros_type__"] = spec.full_name
        namespace["__ros_spec__"] = spec
        namespace["__module__"] = __name__
        namespace["__qualname__"] = spec.name
        namespace["__doc__"] = f"ROS 2 message {spec.full_name} (Cyclone DDS IdlStruct)."
        return dataclasses.dataclass(IdlMeta(spec.name, (IdlStruct,), namespace))

    def _element_annotation(self, spec: MessageSpec, field: str, field_type: FieldType) -> Any:
        if field_type.base == "wstring":
            raise NotImplementedError(
                f"{spec.full_name}.{field}: wstring fields are not supported by the DDS backend"
            )
        if not field_type.is_primitive:
            return self.get(field_type.base)
        if field_type.base == "string" and field_type.string_bound is not None:
            return idl_types.bounded_str[field_type.string_bound]
        return _PRIMITIVE_IDL[field_type.base]

    def _annotation(self, spec: MessageSpec, field: str, field_type: FieldType) -> Any:
        element = self._element_annotation(spec, field, field_type)
        if field_type.array == "fixed":
            return idl_types.array[element, field_type.array_size]
        if field_type.array == "bounded":
            return idl_types.sequence[element, field_type.array_size]
        if field_type.array == "unbounded":
            return idl_types.sequence[element]
        return element

    def _default(self, field_type: FieldType, default: object) -> Any:
        element_zero = self._element_zero(field_type)
        if field_type.array is None:
            if callable(element_zero) and default is None:
                return dataclasses.field(default_factory=element_zero)
            return element_zero if default is None else default
        if default is not None:
            values = list(default)  # type: ignore[call-overload]
            return dataclasses.field(default_factory=lambda: list(values))
        if field_type.array == "fixed":
            size = field_type.array_size or 0
            if callable(element_zero):
                return dataclasses.field(
                    default_factory=lambda: [element_zero() for _ in range(size)]
                )
            return dataclasses.field(default_factory=lambda: [element_zero] * size)
        return dataclasses.field(default_factory=list)

    def _element_zero(self, field_type: FieldType) -> Any:
        """Zero value of one element, or the nested class (a factory)."""
        if not field_type.is_primitive:
            return self.get(field_type.base)
        return _PRIMITIVE_ZERO.get(field_type.base, 0)


_DEFAULT_REGISTRY: MessageRegistry | None = None
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> MessageRegistry:
    """Return the process-wide registry with the search path of the module docstring."""
    global _DEFAULT_REGISTRY
    with _DEFAULT_LOCK:
        if _DEFAULT_REGISTRY is None:
            extra_roots = [
                Path(p) for p in os.environ.get("GEOMETRY_CORE_MSG_PATH", "").split(os.pathsep) if p
            ]
            ament_roots = [
                Path(prefix) / "share"
                for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
                if prefix
            ]
            _DEFAULT_REGISTRY = MessageRegistry(
                [INTERFACES_DIR, *extra_roots, *ament_roots],
                {OWN_PACKAGE: _own_package_dirs()},
            )
        return _DEFAULT_REGISTRY


def get_message_type(ros_type: str) -> type:
    """Return the message class of a ROS 2 message type for the DDS backend.

    Parameters
    ----------
    ros_type : str
        ``"tf2_msgs/msg/TFMessage"`` (or ``"tf2_msgs/TFMessage"``).

    Returns
    -------
    type
        A Cyclone DDS ``IdlStruct`` dataclass; construct it with keyword
        arguments, ``msg.serialize()`` gives the 4-byte CDR encapsulation
        header and the CDR body, ``cls.deserialize(data)`` reads them back.

    Raises
    ------
    LookupError
        If no ``.msg`` file defines the type.
    ValueError
        If the name or the definition is malformed.

    Examples
    --------
    >>> Point = get_message_type("geometry_msgs/msg/Point")
    >>> Point(x=1.0).z
    0.0
    """
    return default_registry().get(ros_type)
