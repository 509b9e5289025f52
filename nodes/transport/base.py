"""The transport interface the nodes are written against.

A :class:`TransportNode` is the small part of an rclpy ``Node`` our nodes
use: publishers, subscriptions, timers, declared parameters, a logger that
counts what it logged, the clock, and spinning. Callbacks run on the thread
that calls :meth:`TransportNode.spin` or :meth:`TransportNode.spin_once`,
one at a time, never concurrently; a subscription handed to
:meth:`TransportNode.deliver_on_receive` (where the backend can) runs its
callback on the backend's receive thread instead, still one callback at a
time (:meth:`TransportNode.exclusive`). Two implementations exist:
``dds.DdsNode`` (Cyclone DDS, ROS 2 wire compatible) and
``rclpy_backend.RclpyNode``; ``create_node`` picks one.

Message types are named by their ROS name (``"tf2_msgs/msg/TFMessage"``) or
given as a class; :meth:`TransportNode.message_type` returns the class the
backend publishes and delivers. Both kinds of class are built with keyword
arguments and read by attribute, so conversion code written against one
works with the other.

Topic names resolve as in ROS 2: ``/tf`` is absolute, ``tf`` is relative to
the node's namespace, ``~/x`` is private to the node, and ``-r from:=to``
rules remap them.

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TextIO

from .params import ParameterStore, RemapRule
from .qos import QoSProfile

__all__ = [
    "LOG_LEVELS",
    "Client",
    "LogPeriod",
    "NodeLogger",
    "Publisher",
    "Service",
    "Subscription",
    "SubscriptionCodec",
    "Timer",
    "TransportNode",
    "resolve_topic_name",
    "validate_node_name",
    "validate_namespace",
]

LOG_LEVELS = ("debug", "info", "warn", "error", "fatal")
_NO_LOCK = contextlib.nullcontext()
_NAME_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def validate_node_name(name: str) -> str:
    """Return ``name`` if it is a valid ROS node name, else raise ValueError."""
    if not isinstance(name, str) or not _NAME_TOKEN.match(name):
        raise ValueError(
            f"invalid node name {name!r}: letters, digits and underscores, "
            "not starting with a digit"
        )
    return name


def validate_namespace(namespace: str) -> str:
    """Return the absolute form of a ROS namespace (``""`` -> ``"/"``), else raise ValueError."""
    if not namespace or namespace == "/":
        return "/"
    absolute = namespace if namespace.startswith("/") else "/" + namespace
    tokens = absolute[1:].split("/")
    if not all(_NAME_TOKEN.match(token) for token in tokens):
        raise ValueError(f"invalid namespace {namespace!r}")
    return absolute


def _expand(name: str, namespace: str, node_name: str) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"invalid topic name {name!r}")
    if name == "~" or name.startswith("~/"):
        base = f"{namespace.rstrip('/')}/{node_name}"
        expanded = base + name[1:]
    elif name.startswith("/"):
        expanded = name
    else:
        expanded = f"{namespace.rstrip('/')}/{name}"
    tokens = expanded[1:].split("/")
    if expanded.endswith("/") or not all(_NAME_TOKEN.match(token) for token in tokens):
        raise ValueError(
            f"invalid topic name {name!r}: tokens of letters, digits and underscores "
            "separated by '/', optionally starting with '/' or '~/'"
        )
    return expanded


def resolve_topic_name(
    name: str, namespace: str, node_name: str, remaps: Sequence[RemapRule] = ()
) -> str:
    """Fully qualified topic name after expansion and remapping, as rcl resolves it.

    Parameters
    ----------
    name : str
        ``"/tf"``, ``"tf"`` or ``"~/markers"``.
    namespace, node_name : str
        The node's namespace (absolute) and name.
    remaps : sequence of RemapRule
        Rules in command-line order; the first matching one applies. A rule
        with a node prefix applies only to the node of that name.

    Raises
    ------
    ValueError
        If the name or a remap target is not a valid topic name.
    """
    expanded = _expand(name, namespace, node_name)
    for rule in remaps:
        if rule.node is not None and rule.node != node_name:
            continue
        if _expand(rule.source, namespace, node_name) == expanded:
            return _expand(rule.target, namespace, node_name)
    return expanded


class NodeLogger:
    """A node's logger; counts every message by level.

    Parameters
    ----------
    name : str
        Logger name shown in each line (the node's fully qualified name).
    level : str
        Lowest level printed: ``debug``, ``info``, ``warn``, ``error``, ``fatal``.
    emit : callable, optional
        ``emit(level, message)`` replaces printing to ``stream`` (the rclpy
        backend hands messages to rclpy's logger).
    stream : file, optional
        Where lines go; standard error by default.
    """

    def __init__(
        self,
        name: str,
        level: str = "info",
        emit: Callable[[str, str], None] | None = None,
        stream: TextIO | None = None,
    ) -> None:
        if level not in LOG_LEVELS:
            raise ValueError(f"log level must be one of {LOG_LEVELS}, not {level!r}")
        self.name = name
        self.level = level
        self._emit = emit
        self._stream = stream
        self.counts: dict[str, int] = dict.fromkeys(LOG_LEVELS, 0)

    def _log(self, level: str, message: str) -> None:
        self.counts[level] += 1
        if self._emit is not None:
            self._emit(level, message)
            return
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.level):
            return
        stream = self._stream if self._stream is not None else sys.stderr
        stamp = time.time()
        stream.write(f"[{level.upper()}] [{stamp:.9f}] [{self.name}]: {message}\n")
        stream.flush()

    def debug(self, message: str) -> None:
        """Log a debugging detail."""
        self._log("debug", message)

    def info(self, message: str) -> None:
        """Log normal operation."""
        self._log("info", message)

    def warn(self, message: str) -> None:
        """Log something wrong that the node works around."""
        self._log("warn", message)

    warning = warn

    def error(self, message: str) -> None:
        """Log something wrong that loses data or output."""
        self._log("error", message)

    def fatal(self, message: str) -> None:
        """Log a failure the node cannot continue after."""
        self._log("fatal", message)


class LogPeriod:
    """When a rate-limited log line is due: the first time, then once per ``period_s``.

    What an outsider can make happen at any rate (undecodable samples, a
    callback that raises, dropped writes) is counted every time and logged
    only when :meth:`due` says so.
    """

    __slots__ = ("period_s", "_clock", "_logged_at")

    def __init__(self, period_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.period_s = period_s
        self._clock = clock
        self._logged_at: float | None = None

    def due(self) -> bool:
        """True, and the period restarts, when no line was logged in the last ``period_s``."""
        now = self._clock()
        if self._logged_at is not None and now - self._logged_at < self.period_s:
            return False
        self._logged_at = now
        return True


class Publisher(ABC):
    """Publishes messages of one type on one topic."""

    topic: str
    msg_type: type

    @abstractmethod
    def publish(self, msg: Any) -> None:
        """Send ``msg`` (an instance of ``msg_type``).

        Raises
        ------
        TypeError
            If ``msg`` is of another type.
        """

    @abstractmethod
    def get_subscription_count(self) -> int:
        """Number of matched subscriptions (in any process)."""

    def accepts_serialized(self) -> bool:
        """Whether :meth:`publish_serialized` sends bytes as they are given."""
        return False

    def serialize(self, msg: Any) -> bytes:
        """The bytes this publisher sends for ``msg`` (XCDR1 with its 4-byte header).

        A caller with a faster writer of its own compares that writer's
        bytes with these once before it uses :meth:`publish_serialized`.

        Raises
        ------
        NotImplementedError
            If :meth:`accepts_serialized` is False.
        """
        raise NotImplementedError(f"publisher on {self.topic} takes message objects only")

    def publish_serialized(self, data: bytes) -> None:
        """Send one message already serialized (XCDR1 with its 4-byte header).

        Raises
        ------
        NotImplementedError
            If :meth:`accepts_serialized` is False.
        """
        raise NotImplementedError(f"publisher on {self.topic} takes message objects only")


class SubscriptionCodec(Protocol):
    """How a subscription hands its messages to the callback, when not as message objects.

    A backend that takes serialized samples calls ``bytes_decoder`` once per
    subscription (with the message class's own deserializer, for what the
    decoder does not read itself) and each sample's bytes go through the
    function it returns; any other backend passes each message object
    through ``from_message``. Both give the callback the same value.
    """

    def from_message(self, msg: Any) -> Any:
        """The callback's value for a message object of either backend."""

    def bytes_decoder(self, deserialize: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
        """A function from one serialized sample to the callback's value; it may raise."""


class Subscription(ABC):
    """Delivers messages of one topic to a callback while the node spins."""

    topic: str
    msg_type: type

    @abstractmethod
    def get_publisher_count(self) -> int:
        """Number of matched publishers (in any process)."""


class Service(ABC):
    """Answers the requests of one ROS 2 service while the node spins.

    Attributes
    ----------
    name : str
        Fully qualified service name.
    srv_type : str
        ``pkg/srv/Name``.
    request_type, response_type : type
        The backend's classes of the request and the response.
    """

    name: str
    srv_type: str
    request_type: type
    response_type: type


class Client(ABC):
    """Calls one ROS 2 service.

    Attributes
    ----------
    name : str
        Fully qualified service name.
    srv_type : str
        ``pkg/srv/Name``.
    request_type, response_type : type
        The backend's classes of the request and the response.
    """

    name: str
    srv_type: str
    request_type: type
    response_type: type

    @abstractmethod
    def service_is_ready(self) -> bool:
        """Whether a server of the service is matched (``rclpy``'s ``service_is_ready``)."""

    @abstractmethod
    def call(self, request: Any, timeout_s: float = 5.0) -> Any:
        """Send ``request``, wait for the server's reply and return it.

        Raises
        ------
        TypeError
            If ``request`` is not of ``request_type``.
        TimeoutError
            If no server is available or no reply came within ``timeout_s``.
        """


class Timer(ABC):
    """Calls a callback every period while the node spins."""

    period_s: float

    @abstractmethod
    def cancel(self) -> None:
        """Stop calling the callback."""

    @abstractmethod
    def is_canceled(self) -> bool:
        """Whether :meth:`cancel` was called."""


class TransportNode(ABC):
    """A ROS 2 node as the geometry nodes need it.

    Attributes
    ----------
    name : str
        Node name after ``-r __node:=`` remapping.
    namespace : str
        Absolute namespace after ``-r __ns:=`` remapping.
    backend : str
        ``"dds"`` or ``"rclpy"``.
    """

    name: str
    namespace: str
    backend: str

    @property
    def fully_qualified_name(self) -> str:
        """``/namespace/name``."""
        return f"{self.namespace.rstrip('/')}/{self.name}"

    # -- messages and topics --------------------------------------------------

    @abstractmethod
    def message_type(self, msg_type: str | type) -> type:
        """The class this backend uses for a ROS message type.

        Parameters
        ----------
        msg_type : str or type
            ``"pkg/msg/Name"``, or a message class of either backend.

        Raises
        ------
        LookupError
            If the type is unknown to this backend.
        """

    @abstractmethod
    def create_publisher(self, msg_type: str | type, topic: str, qos: QoSProfile) -> Publisher:
        """Create a publisher.

        Parameters
        ----------
        msg_type : str or type
            ROS type name or message class.
        topic : str
            Topic name, resolved against the namespace and remapped.
        qos : QoSProfile
            One of the named profiles in :mod:`.qos`, usually.

        Raises
        ------
        ValueError
            For an invalid topic name or a topic already used with another type.
        """

    @abstractmethod
    def create_subscription(
        self,
        msg_type: str | type,
        topic: str,
        callback: Callable[[Any], None],
        qos: QoSProfile,
        codec: SubscriptionCodec | None = None,
    ) -> Subscription:
        """Create a subscription; ``callback(msg)`` runs on the spinning thread.

        With a ``codec``, the callback gets what the codec makes of each
        message instead of the message object (see :class:`SubscriptionCodec`).
        """

    @abstractmethod
    def service_types(self, srv_type: str) -> tuple[type, type]:
        """The request and response classes this backend uses for ``pkg/srv/Name``.

        Raises
        ------
        LookupError
            If the service type is unknown to this backend.
        """

    @abstractmethod
    def create_service(self, srv_type: str, name: str,
                       callback: Callable[[Any, Any], Any]) -> Service:
        """Serve ``name`` (resolved like a topic): ``callback(request, response)`` answers.

        As in rclpy, the callback fills the empty ``response`` it is given (or
        makes another of the same class) and returns it; it runs on the
        spinning thread, like message callbacks. When the callback raises,
        the error is logged, the client gets the empty (default) response,
        and the node keeps serving.

        Raises
        ------
        ValueError
            For an invalid service name, or one this node already serves.
        LookupError
            If the service type is unknown to this backend.
        """

    @abstractmethod
    def create_client(self, srv_type: str, name: str) -> Client:
        """A client of the service ``name`` (resolved like a topic).

        Raises
        ------
        ValueError
            For an invalid service name.
        LookupError
            If the service type is unknown to this backend.
        """

    @abstractmethod
    def create_timer(self, period_s: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback()`` every ``period_s`` seconds on the spinning thread.

        Raises
        ------
        ValueError
            If ``period_s`` is not a positive finite number.
        """

    def resolve_topic(self, topic: str) -> str:
        """The fully qualified name ``topic`` resolves to for this node."""
        return resolve_topic_name(topic, self.namespace, self.name, self._remaps())

    def _remaps(self) -> Sequence[RemapRule]:
        return ()

    # -- parameters --------------------------------------------------------------

    @property
    @abstractmethod
    def parameters(self) -> ParameterStore:
        """The node's declared parameters."""

    def declare_parameter(
        self,
        name: str,
        default: object,
        description: str = "",
        *,
        check: Callable[[object], None] | None = None,
        on_set: Callable[[object], None] | None = None,
    ) -> object:
        """Declare a parameter with a default and a description; return its value.

        The value comes from a parameter file or ``-p`` when one matches this
        node (see :mod:`.params` for the precedence), else from ``default``,
        whose type (bool, int, float, str, or a list of one) it must have.
        ``check(value)`` refuses a value with a :class:`ParameterError`;
        ``on_set(value)`` applies a value set while the node runs (``ros2
        param set`` on the rclpy backend, :meth:`set_parameter` on both). A
        parameter without ``on_set`` is read-only.

        Raises
        ------
        ParameterError
            For an invalid or duplicate name, a value of the wrong type, or
            one that ``check`` refuses.
        """
        return self.parameters.declare(name, default, description, check=check, on_set=on_set)

    def set_parameter(self, name: str, value: object) -> object:
        """Change a parameter while the node runs, as ``ros2 param set`` does; return it.

        Raises
        ------
        ParameterError
            If it is not declared or read-only, or ``value`` is refused.
        """
        return self.parameters.set(name, value, "set_parameter")

    def get_parameter(self, name: str) -> object:
        """Value of a declared parameter.

        Raises
        ------
        KeyError
            If ``name`` was never declared.
        """
        return self.parameters.get(name)

    # -- logging and time --------------------------------------------------------

    @abstractmethod
    def get_logger(self) -> NodeLogger:
        """The node's counting logger."""

    @abstractmethod
    def now(self) -> int:
        """The node's clock, in integer nanoseconds (system time: since the Unix epoch)."""

    def now_msg(self) -> Any:
        """:meth:`now` as a ``builtin_interfaces/msg/Time`` of this backend."""
        seconds, nanoseconds = divmod(self.now(), 1_000_000_000)
        return self.message_type("builtin_interfaces/msg/Time")(
            sec=int(seconds), nanosec=int(nanoseconds)
        )

    # -- execution ---------------------------------------------------------------

    @property
    @abstractmethod
    def ok(self) -> bool:
        """False once :meth:`shutdown` was called."""

    @abstractmethod
    def spin_once(self, timeout_s: float | None = None) -> None:
        """Wait up to ``timeout_s`` (None: until something happens) and run due callbacks."""

    def spin(self) -> None:
        """Run callbacks until :meth:`shutdown` (from a callback, another thread or a signal).

        ``KeyboardInterrupt`` propagates; a node's ``main`` catches it and
        calls :meth:`shutdown`.
        """
        while self.ok:
            # Bounded waits keep Python's signal handlers (Ctrl-C) responsive.
            self.spin_once(0.1)

    def deliver_on_receive(self, subscription: Subscription,
                           after: Callable[[], bool] | None = None) -> bool:
        """Run ``subscription``'s callback where its messages arrive, if this backend can.

        The callback then runs on the thread that receives the message (the
        backend's own), so the spinning thread is not woken for it; callbacks
        still run one at a time (see :meth:`exclusive`). When that thread
        finds another callback under way, it leaves the messages to the
        spinning thread, which then delivers them as it does any other's.
        ``after()`` runs on the receiving thread after a batch of messages
        it delivered, under the same exclusion, when the batch is fresh (the
        backend's judgement: on DDS, written less than ``RECEIVE_FRESH_S``
        before it was taken); it returns True when the spinning thread must look at the node
        (its :meth:`spin_once` then returns). After a stale batch (messages
        that queued) ``after`` does not run: :meth:`spin_once` returns
        instead, having taken what queued meanwhile, so that the work after
        it is done once for all. An exception raised by the callback or
        ``after`` there is logged and counted, and delivery goes on.

        Returns
        -------
        bool
            False when the backend delivers on the spinning thread only (then
            nothing changes and ``after`` is never called).
        """
        return False

    def exclusive(self) -> contextlib.AbstractContextManager[Any]:
        """A re-entrant context in which no callback of this node runs on another thread.

        Work that touches what callbacks touch, done outside a callback
        (after :meth:`spin_once` returns, at shutdown), holds it. Without
        :meth:`deliver_on_receive` every callback runs on the spinning
        thread and this context does nothing.
        """
        return _NO_LOCK

    @abstractmethod
    def shutdown(self) -> None:
        """Stop spinning and release the node's resources; safe to call twice."""

    def __enter__(self) -> TransportNode:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
