"""ROS 2 message and service type names, and where the DDS backend finds definitions.

Pure Python, for both backends: it must never import cyclonedds, rosbags,
rclpy or anything from ``geometry_core``. The transport knows no package of
its own: whoever uses it (the nodes) tells it where a package's ``.msg``
and ``.srv`` files are, with :func:`add_message_directory`, or hands it the
definitions as text, with :func:`add_definitions`.

A service ``pkg/srv/Name`` is two message types on the wire,
``pkg/srv/Name_Request`` and ``pkg/srv/Name_Response``
(:func:`service_type_names`), whose DDS names rmw_cyclonedds spells
``pkg::srv::dds_::Name_Request_`` and ``pkg::srv::dds_::Name_Response_``.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "RosField",
    "add_definitions",
    "add_message_directory",
    "dds_type_name",
    "definition_text",
    "message_directories",
    "normalize_service_name",
    "normalize_type_name",
    "service_type_names",
    "split_service_text",
]

_PACKAGE_NAME = re.compile(r"^(?!.*__)(?!.*_$)[a-z][a-z0-9_]*$")
_MESSAGE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_SERVICE_PART = re.compile(r"^(?P<name>[A-Z][A-Za-z0-9]*)_(?:Request|Response)$")
_DIRECTORIES: dict[str, list[Path]] = {}
_DEFINITIONS: dict[str, str] = {}
_DIRECTORIES_LOCK = threading.Lock()


class RosField(NamedTuple):
    """One field of a message class of the DDS backend (its ``__ros_fields__``).

    ``base`` is the primitive type (``float64``, ``string``...) or, when
    ``is_primitive`` is false, the full name of the nested message type.
    """

    name: str
    base: str
    is_primitive: bool
    is_array: bool


def normalize_type_name(type_name: str) -> str:
    """Return a message type name in the full form ``pkg/msg/Name``.

    The two halves of a service, ``pkg/srv/Name_Request`` and
    ``pkg/srv/Name_Response``, are message types too and keep their form.

    Parameters
    ----------
    type_name : str
        ``"pkg/msg/Name"``, ``"pkg/Name"`` or ``"pkg/srv/Name_Request"``.

    Raises
    ------
    ValueError
        If the name has another form or an invalid package or message name.
    """
    parts = type_name.split("/") if isinstance(type_name, str) else []
    if len(parts) == 3 and parts[1] == "srv":
        if not _PACKAGE_NAME.match(parts[0]) or not _SERVICE_PART.match(parts[2]):
            raise ValueError(
                f"invalid service message type {type_name!r}: expected "
                "'pkg/srv/Name_Request' or 'pkg/srv/Name_Response'")
        return type_name
    if len(parts) == 2:
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


def normalize_service_name(srv_type: str) -> str:
    """Return a service type name in the full form ``pkg/srv/Name``.

    Raises
    ------
    ValueError
        If the name is not ``pkg/srv/Name`` or ``pkg/Name`` with valid parts.
    """
    parts = srv_type.split("/") if isinstance(srv_type, str) else []
    if len(parts) == 3 and parts[1] == "srv":
        parts = [parts[0], parts[2]]
    if (len(parts) != 2 or not _PACKAGE_NAME.match(parts[0])
            or not _MESSAGE_NAME.match(parts[1])):
        raise ValueError(
            f"service type name {srv_type!r} is not of the form 'pkg/srv/Name' or 'pkg/Name'")
    return f"{parts[0]}/srv/{parts[1]}"


def service_type_names(srv_type: str) -> tuple[str, str]:
    """The message types of a service's request and response.

    >>> service_type_names("rcl_interfaces/srv/SetParameters")
    ('rcl_interfaces/srv/SetParameters_Request', 'rcl_interfaces/srv/SetParameters_Response')
    """
    full = normalize_service_name(srv_type)
    return f"{full}_Request", f"{full}_Response"


def dds_type_name(ros_type: str) -> str:
    """Return the DDS type name of a ROS 2 message type, as rmw_cyclonedds spells it.

    >>> dds_type_name("tf2_msgs/msg/TFMessage")
    'tf2_msgs::msg::dds_::TFMessage_'
    >>> dds_type_name("rcl_interfaces/srv/SetParameters_Request")
    'rcl_interfaces::srv::dds_::SetParameters_Request_'
    """
    package, kind, name = normalize_type_name(ros_type).split("/")
    return f"{package}::{kind}::dds_::{name}_"


def add_message_directory(package: str, directory: str | Path) -> None:
    """Let the DDS backend read ``package``'s messages from ``directory/<Name>.msg``.

    Directories are searched in the order they were added, before the
    ``share/<package>/msg`` folders of ``AMENT_PREFIX_PATH``; adding one twice
    changes nothing. Messages of ROS 2 Humble's standard packages need no
    directory (they come with rosbags).

    Raises
    ------
    ValueError
        If ``package`` is not a valid ROS package name.
    """
    if not _PACKAGE_NAME.match(package):
        raise ValueError(f"invalid package name {package!r}")
    path = Path(directory)
    with _DIRECTORIES_LOCK:
        known = _DIRECTORIES.setdefault(package, [])
        if path not in known:
            known.append(path)


def add_definitions(definitions: dict[str, str]) -> None:
    """Give the DDS backend message and service definitions as text.

    Parameters
    ----------
    definitions : dict
        ``{"pkg/msg/Name": ".msg text", "pkg/srv/Name": ".srv text"}``: the
        text of the ``.msg`` or ``.srv`` file (a service's request and
        response separated by a ``---`` line). They are consulted before the
        directories; a name given twice keeps its first text.

    Raises
    ------
    ValueError
        For a name that is not ``pkg/msg/Name`` or ``pkg/srv/Name``, or a
        ``.srv`` text without its ``---`` line.
    """
    checked = {}
    for name, text in definitions.items():
        if "/srv/" in name:
            full = normalize_service_name(name)
            if split_service_text(text) is None:
                raise ValueError(f"definition of service {name!r} has no '---' line")
        else:
            full = normalize_type_name(name)
        checked[full] = str(text)
    with _DIRECTORIES_LOCK:
        for name, text in checked.items():
            _DEFINITIONS.setdefault(name, text)


def split_service_text(text: str) -> tuple[str, str] | None:
    """A ``.srv`` text's request and response parts (around its ``---`` line), or None."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.strip() == "---":
            return "\n".join(lines[:k]) + "\n", "\n".join(lines[k + 1:]) + "\n"
    return None


def definition_text(ros_type: str) -> str | None:
    """The ``.msg`` text given with :func:`add_definitions` for a message type, or None.

    For ``pkg/srv/Name_Request`` (``_Response``) it is the part of the
    service's text before (after) its ``---`` line.
    """
    full = normalize_type_name(ros_type)
    with _DIRECTORIES_LOCK:
        if "/srv/" not in full:
            return _DEFINITIONS.get(full)
        service, _, part = full.rpartition("_")
        text = _DEFINITIONS.get(service)
    if text is None:
        return None
    halves = split_service_text(text)
    return None if halves is None else halves[0 if part == "Request" else 1]


def message_directories(package: str) -> list[Path]:
    """Directories added for ``package``, in order (see :func:`add_message_directory`)."""
    with _DIRECTORIES_LOCK:
        return list(_DIRECTORIES.get(package, []))
