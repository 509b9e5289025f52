"""ROS 2 message type names, and where the DDS backend finds ``.msg`` definitions.

Pure Python, for both backends: it must never import cyclonedds, rosbags,
rclpy or anything from ``geometry_core``. The transport knows no package of
its own: whoever uses it (the nodes) tells it where a package's ``.msg``
files are, with :func:`add_message_directory`.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "RosField",
    "add_message_directory",
    "dds_type_name",
    "message_directories",
    "normalize_type_name",
]

_PACKAGE_NAME = re.compile(r"^(?!.*__)(?!.*_$)[a-z][a-z0-9_]*$")
_MESSAGE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_DIRECTORIES: dict[str, list[Path]] = {}
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

    Parameters
    ----------
    type_name : str
        ``"pkg/msg/Name"`` or ``"pkg/Name"``.

    Raises
    ------
    ValueError
        If the name has another form or an invalid package or message name.
    """
    parts = type_name.split("/")
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


def dds_type_name(ros_type: str) -> str:
    """Return the DDS type name of a ROS 2 message type, as rmw_cyclonedds spells it.

    >>> dds_type_name("tf2_msgs/msg/TFMessage")
    'tf2_msgs::msg::dds_::TFMessage_'
    """
    package, _, name = normalize_type_name(ros_type).split("/")
    return f"{package}::msg::dds_::{name}_"


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


def message_directories(package: str) -> list[Path]:
    """Directories added for ``package``, in order (see :func:`add_message_directory`)."""
    with _DIRECTORIES_LOCK:
        return list(_DIRECTORIES.get(package, []))
