"""ROS 2 message classes for the Cyclone DDS backend, built from rosbags' type store.

The layouts come from rosbags, a maintained ROS 2 type system that this
module does not reimplement: ROS 2 Humble's standard messages from its
Humble type store, and every other package's from ``.msg`` files parsed by
rosbags' own parser (:func:`rosbags.typesys.get_types_from_msg`). Those files
are found in the directories given to
:func:`~geometry_core_nodes.transport.add_message_directory` (the nodes give
theirs), then in ``share/<pkg>/msg`` of each ``AMENT_PREFIX_PATH`` entry.

Each message type becomes a Cyclone DDS ``IdlStruct`` dataclass with the DDS
type name rmw_cyclonedds uses (``tf2_msgs::msg::dds_::TFMessage_``) and the
field types rosidl maps the ``.msg`` types to, so that its CDR bytes are the
ones a real ROS 2 node sends and expects. Users construct messages with
keyword arguments; omitted fields take the ROS defaults (zero, empty, a
default nested message, and the ``.msg`` default values listed below).
Constants are class attributes (``Marker.ARROW``).

rosbags' layouts do not carry a ``.msg`` file's default values. Among ROS 2
Humble's messages only ``geometry_msgs/Quaternion`` has a non-zero one
(``w = 1``, so that a default pose is the identity), kept in
``HUMBLE_FIELD_DEFAULTS``; test/nodes/transport checks that table against
Humble's own ``.msg`` files where they are installed.

This module must never import rclpy or anything from ``geometry_core``.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from pathlib import Path
from typing import Any

from cyclonedds.idl import IdlMeta, IdlStruct
from cyclonedds.idl import types as idl_types
from rosbags.interfaces import Nodetype
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from .interfaces import (
    RosField,
    dds_type_name,
    definition_text,
    message_directories,
    normalize_type_name,
    service_type_names,
    split_service_text,
)

__all__ = [
    "HUMBLE_FIELD_DEFAULTS",
    "MessageRegistry",
    "default_registry",
    "get_message_type",
    "get_service_types",
    "ros_type_name",
]

#: Non-zero ``.msg`` default values of ROS 2 Humble's messages, which rosbags drops.
HUMBLE_FIELD_DEFAULTS: dict[str, dict[str, Any]] = {
    "geometry_msgs/msg/Quaternion": {"w": 1.0},
}

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


class MessageRegistry:
    """Builds (once) the message class of each type from a rosbags type store.

    Parameters
    ----------
    typestore : rosbags.typesys.store.Typestore, optional
        Layouts of the known types; ROS 2 Humble's store by default. Types of
        other packages are parsed from ``.msg`` files and added to it.
    roots : list of Path, optional
        Directories holding ``<pkg>/msg/<Name>.msg``, searched after the
        directories added with ``add_message_directory``.
    """

    def __init__(self, typestore: Any = None, roots: list[Path] | None = None) -> None:
        self._store = get_typestore(Stores.ROS2_HUMBLE) if typestore is None else typestore
        self._roots = [Path(root) for root in roots or []]
        self._classes: dict[str, type] = {}
        self._building: list[str] = []
        self._lock = threading.RLock()

    def find_file(self, ros_type: str) -> Path:
        """Return the ``.msg`` (or, for a service's half, ``.srv``) file that defines ``ros_type``.

        Raises
        ------
        LookupError
            If no searched directory has it; the message lists them.
        """
        package, kind, name = normalize_type_name(ros_type).split("/")
        if kind == "srv":
            name = name.rpartition("_")[0]
        candidates = [d / f"{name}.{kind}" for d in message_directories(package)]
        candidates += [root / package / kind / f"{name}.{kind}" for root in self._roots]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        searched = ", ".join(str(c) for c in candidates) or "nothing"
        raise LookupError(f"no definition of message type {ros_type!r}; searched {searched}")

    def _definition(self, full_name: str) -> tuple[str, str]:
        """The ``.msg`` text of ``full_name`` and where it came from."""
        text = definition_text(full_name)
        if text is not None:
            return text, f"the definition of {full_name}"
        path = self.find_file(full_name)
        text = path.read_text(encoding="utf-8")
        if "/srv/" in full_name:
            halves = split_service_text(text)
            if halves is None:
                raise ValueError(f"{path}: a service definition needs a '---' line")
            text = halves[0 if full_name.endswith("_Request") else 1]
        return text, str(path)

    def fielddefs(self, ros_type: str) -> tuple[list, list]:
        """Return rosbags' ``(constants, fields)`` of ``ros_type``, parsing its text if needed.

        Raises
        ------
        LookupError
            If the type is neither in the store nor in a definition or file.
        ValueError
            If its definition does not parse.
        """
        full_name = normalize_type_name(ros_type)
        # rosbags files every type under "msg"; a service's halves carry an
        # underscore no message name has, so they cannot collide there.
        key = full_name.replace("/srv/", "/msg/")
        with self._lock:
            if key not in self._store.fielddefs:
                text, origin = self._definition(full_name)
                try:
                    types = get_types_from_msg(text, key)
                except Exception as error:  # rosbags raises TypesysError, a plain Exception
                    raise ValueError(f"{origin}: {error}") from None
                self._store.register(types)
            return self._store.fielddefs[key]

    def get(self, ros_type: str) -> type:
        """Return the message class of ``ros_type``, building it on first use.

        Parameters
        ----------
        ros_type : str
            ``"pkg/msg/Name"`` or ``"pkg/Name"``.

        Raises
        ------
        LookupError
            If the type or one of its nested types is unknown.
        ValueError
            If a name or a definition is malformed, or a definition is recursive.
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
                cls = self._build(full_name)
            finally:
                self._building.pop()
            self._classes[full_name] = cls
            return cls

    def _build(self, full_name: str) -> type:
        constants, fields = self.fielddefs(full_name)
        name = full_name.rsplit("/", 1)[1]
        defaults = HUMBLE_FIELD_DEFAULTS.get(full_name, {})
        namespace = IdlMeta.__prepare__(name, (IdlStruct,), typename=dds_type_name(full_name))
        ros_fields = []
        for field_name, description in fields:
            element, array, size = _unpack(description)
            namespace["__annotations__"][field_name] = self._annotation(
                full_name, field_name, element, array, size)
            namespace[field_name] = self._default(element, array, size, defaults.get(field_name))
            primitive = element[0] == Nodetype.BASE
            base = element[1][0] if primitive else element[1]
            ros_fields.append(RosField(field_name, base, primitive, array is not None))
        for constant_name, _, value in constants:
            namespace[constant_name] = value
        namespace["__ros_type__"] = full_name
        namespace["__ros_fields__"] = tuple(ros_fields)
        namespace["__module__"] = __name__
        namespace["__qualname__"] = name
        namespace["__doc__"] = f"ROS 2 message {full_name} (Cyclone DDS IdlStruct)."
        return dataclasses.dataclass(IdlMeta(name, (IdlStruct,), namespace))

    def _element_annotation(self, full_name: str, field: str, element: tuple) -> Any:
        # rosbags' .msg grammar has no wstring: it reads one as a message named "wstring".
        wide = (element[1][0] if element[0] == Nodetype.BASE
                else element[1].rsplit("/", 1)[1]) == "wstring"
        if wide:
            raise NotImplementedError(
                f"{full_name}.{field}: wstring fields are not supported by the DDS backend")
        if element[0] != Nodetype.BASE:
            return self.get(element[1])
        base, bound = element[1]
        if base == "string" and bound:
            return idl_types.bounded_str[bound]
        return _PRIMITIVE_IDL[base]

    def _annotation(self, full_name: str, field: str, element: tuple, array: str | None,
                    size: int) -> Any:
        annotation = self._element_annotation(full_name, field, element)
        if array == "fixed":
            return idl_types.array[annotation, size]
        if array == "sequence" and size:
            return idl_types.sequence[annotation, size]
        if array == "sequence":
            return idl_types.sequence[annotation]
        return annotation

    def _default(self, element: tuple, array: str | None, size: int, default: Any) -> Any:
        if element[0] != Nodetype.BASE:
            zero: Any = self.get(element[1])  # a factory of the nested default
        else:
            zero = _PRIMITIVE_ZERO.get(element[1][0], 0)
        if array is None:
            if default is not None:
                return default
            return dataclasses.field(default_factory=zero) if callable(zero) else zero
        if array == "fixed":
            if callable(zero):
                return dataclasses.field(default_factory=lambda: [zero() for _ in range(size)])
            return dataclasses.field(default_factory=lambda: [zero] * size)
        return dataclasses.field(default_factory=list)


def _unpack(description: tuple) -> tuple[tuple, str | None, int]:
    """rosbags' field description as (element, "fixed" | "sequence" | None, size or bound)."""
    kind, detail = description
    if kind == Nodetype.ARRAY:
        return detail[0], "fixed", detail[1]
    if kind == Nodetype.SEQUENCE:
        return detail[0], "sequence", detail[1]
    return description, None, 0


_DEFAULT_REGISTRY: MessageRegistry | None = None
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> MessageRegistry:
    """Return the process-wide registry: Humble's store, added directories, then ament's."""
    global _DEFAULT_REGISTRY
    with _DEFAULT_LOCK:
        if _DEFAULT_REGISTRY is None:
            ament_roots = [
                Path(prefix) / "share"
                for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
                if prefix
            ]
            _DEFAULT_REGISTRY = MessageRegistry(roots=ament_roots)
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
        If the type is neither a Humble standard type nor in a ``.msg`` file.
    ValueError
        If the name or the definition is malformed.

    Examples
    --------
    >>> Point = get_message_type("geometry_msgs/msg/Point")
    >>> Point(x=1.0).z
    0.0
    """
    return default_registry().get(ros_type)


def get_service_types(srv_type: str) -> tuple[type, type]:
    """Return the request and response classes of a ROS 2 service for the DDS backend.

    Parameters
    ----------
    srv_type : str
        ``"rcl_interfaces/srv/SetParameters"`` (or ``"rcl_interfaces/SetParameters"``).

    Returns
    -------
    tuple of type
        ``(Request, Response)``: message classes as :func:`get_message_type`
        gives, with the DDS names ``pkg::srv::dds_::Name_Request_`` and
        ``pkg::srv::dds_::Name_Response_``.

    Raises
    ------
    LookupError
        If no definition of the service is known.
    ValueError
        If the name or the definition is malformed.
    """
    request, response = service_type_names(srv_type)
    return default_registry().get(request), default_registry().get(response)
