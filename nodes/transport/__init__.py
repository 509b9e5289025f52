"""Transport for the geometry_core ROS 2 nodes: one interface, two implementations.

Nodes call :func:`create_node` and use the returned
:class:`~.base.TransportNode` (publishers, subscriptions, timers,
parameters, logging, spinning). With ``backend="auto"`` the node runs on
rclpy when ``import rclpy`` works, else on the built-in Cyclone DDS backend,
which speaks the ROS 2 wire protocol (``rt/<topic>``,
``<pkg>::msg::dds_::<Name>_`` types, CDR, ROS QoS) so a real ROS 2 node on
the same domain talks to it. The environment variable
``GEOMETRY_CORE_TRANSPORT`` (``auto``, ``dds``, ``rclpy``) chooses when
the caller leaves ``backend="auto"``.

Example
-------
>>> from geometry_core_nodes.transport import TF_STATIC, create_node, get_message_type
>>> node = create_node("talker", args=[], backend="dds")              # doctest: +SKIP
>>> pub = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf_static", TF_STATIC)  # doctest: +SKIP
>>> TFMessage = node.message_type("tf2_msgs/msg/TFMessage")            # doctest: +SKIP
>>> pub.publish(TFMessage(transforms=[]))                              # doctest: +SKIP

The DDS backend's message classes come from rosbags' type store: ROS 2
Humble's standard messages, and the ``.msg`` files of any other package
whose directory the user gives with :func:`add_message_directory` (the
transport itself knows no package).

This package must never import ``geometry_core`` (its proximity engine and
python-fcl least of all); rclpy is imported only by the rclpy backend, and
cyclonedds and rosbags only by the DDS backend and the message classes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .base import NodeLogger, Publisher, Service, Subscription, Timer, TransportNode
from .cyclone_config import loopback_config, loopback_environment
from .interfaces import add_definitions, add_message_directory
from .params import ParameterError, at_least
from .qos import (
    LATCHED,
    RELIABLE_RESULTS,
    SENSOR_DATA,
    SERVICES,
    TF,
    TF_STATIC,
    TF_STATIC_LISTENER,
    Durability,
    History,
    QoSProfile,
    Reliability,
)

__all__ = [
    "BACKENDS",
    "LATCHED",
    "RELIABLE_RESULTS",
    "SENSOR_DATA",
    "SERVICES",
    "TF",
    "TF_STATIC",
    "TF_STATIC_LISTENER",
    "Durability",
    "History",
    "NodeLogger",
    "ParameterError",
    "Publisher",
    "QoSProfile",
    "Reliability",
    "Service",
    "Subscription",
    "Timer",
    "TransportNode",
    "add_definitions",
    "add_message_directory",
    "at_least",
    "create_node",
    "get_message_type",
    "loopback_config",
    "loopback_environment",
    "rclpy_available",
]

#: Accepted values of ``create_node(backend=...)`` and ``GEOMETRY_CORE_TRANSPORT``.
BACKENDS = ("auto", "dds", "rclpy")


def get_message_type(ros_type: str) -> type:
    """The DDS backend's message class of ``ros_type`` (see :mod:`.msg_types`).

    Nodes should prefer ``node.message_type(name)``, which gives the class of
    the backend they run on.
    """
    from .msg_types import get_message_type as _get

    return _get(ros_type)


def rclpy_available() -> bool:
    """Whether ``import rclpy`` works in this interpreter."""
    try:
        import rclpy  # noqa: F401
    except ImportError:
        return False
    return True


def create_node(
    name: str,
    args: Sequence[str] | None = None,
    backend: str = "auto",
    **options: Any,
) -> TransportNode:
    """Create a node on the chosen transport.

    Parameters
    ----------
    name : str
        Node name; ``-r __node:=other`` in ``args`` renames it.
    args : sequence of str, optional
        Command line with an optional ``--ros-args`` section (``-p name:=value``,
        ``--params-file f.yaml``, ``-r from:=to``, ``--log-level``); ``sys.argv``
        when None, as in rclpy.
    backend : {"auto", "dds", "rclpy"}
        ``"auto"`` uses ``GEOMETRY_CORE_TRANSPORT`` when set, else rclpy when
        importable, else DDS.
    **options
        Passed to the backend: ``namespace`` for both; ``domain_id``,
        ``dds_config`` and ``log_stream`` for DDS.

    Returns
    -------
    TransportNode

    Raises
    ------
    ValueError
        For an unknown backend name (argument or environment variable).
    ImportError
        If ``backend="rclpy"`` and rclpy is not importable.
    ParameterError
        For a malformed command line or parameter file.
    """
    chosen = _choose_backend(backend)
    if chosen == "rclpy":
        from .rclpy_backend import RclpyNode

        return RclpyNode(name, args, **options)
    from .dds import DdsNode

    return DdsNode(name, args, **options)


def _choose_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(
            f"unknown transport backend {backend!r}; expected one of {', '.join(BACKENDS)}"
        )
    if backend == "auto":
        backend = os.environ.get("GEOMETRY_CORE_TRANSPORT", "auto").strip() or "auto"
        if backend not in BACKENDS:
            raise ValueError(
                f"unknown transport backend {backend!r} in GEOMETRY_CORE_TRANSPORT; "
                f"expected one of {', '.join(BACKENDS)}"
            )
    if backend == "auto":
        backend = "rclpy" if rclpy_available() else "dds"
    return backend
