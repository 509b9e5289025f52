"""The rclpy backend: the transport interface on a real ROS 2 installation.

Used when ``import rclpy`` works (``create_node(backend="auto")``). Each node
gets its own rclpy context and single-threaded executor, so callbacks run on
the thread that spins, one at a time, as with the DDS backend. As there,
``spin_once`` runs every message callback that is ready, not just one (an
rclpy ``spin_once`` runs a single callback), so a node that acts after each
spin sees a whole batch: /tf and /tf_static that arrived together, a burst of
poses. Also as there, ``shutdown`` may be called from a callback or a signal
handler while the node spins: the spin releases the node when it returns. Messages are
the generated rosidl classes (``tf2_msgs.msg.TFMessage``); a message built
with the DDS backend's classes is converted field by field when published,
so conversion code written against either kind works. Command-line
arguments, parameter files and remapping are rclpy's own; declared
parameters get the same type rules as the DDS backend (see
:func:`.params.coerce_parameter_value`), so both backends accept the same
values.

rclpy cannot be installed from PyPI: this module is imported only when
rclpy is present, and its tests skip elsewhere.

This module must never import cyclonedds or ``geometry_core``.
"""

from __future__ import annotations

import array
import importlib
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import rclpy
import rclpy.context
import rclpy.executors
import rclpy.node
import rclpy.parameter
import rclpy.qos
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult

from .base import (
    Client,
    NodeLogger,
    Publisher,
    Service,
    Subscription,
    SubscriptionCodec,
    Timer,
    TransportNode,
)
from .interfaces import normalize_service_name, normalize_type_name
from .params import ParameterError, ParameterStore, coerce_parameter_value
from .qos import Durability, History, QoSProfile, Reliability

__all__ = ["RclpyNode", "rclpy_qos"]


def rclpy_qos(qos: QoSProfile) -> rclpy.qos.QoSProfile:
    """The ``rclpy.qos.QoSProfile`` of one of our profiles."""
    if not isinstance(qos, QoSProfile):
        raise TypeError(f"qos must be a QoSProfile, not {qos!r}")
    return rclpy.qos.QoSProfile(
        history=rclpy.qos.HistoryPolicy.KEEP_LAST
        if qos.history is History.KEEP_LAST
        else rclpy.qos.HistoryPolicy.KEEP_ALL,
        depth=qos.depth,
        reliability=rclpy.qos.ReliabilityPolicy.RELIABLE
        if qos.reliability is Reliability.RELIABLE
        else rclpy.qos.ReliabilityPolicy.BEST_EFFORT,
        durability=rclpy.qos.DurabilityPolicy.TRANSIENT_LOCAL
        if qos.durability is Durability.TRANSIENT_LOCAL
        else rclpy.qos.DurabilityPolicy.VOLATILE,
    )


def _rosidl_class(ros_type: str) -> type:
    package, _, name = normalize_type_name(ros_type).split("/")
    try:
        module = importlib.import_module(f"{package}.msg")
        return getattr(module, name)
    except (ImportError, AttributeError):
        raise LookupError(
            f"message type {ros_type!r} is not available to rclpy: build and source the "
            f"ROS 2 package {package!r}"
        ) from None


def _rosidl_service(srv_type: str) -> type:
    package, _, name = normalize_service_name(srv_type).split("/")
    try:
        module = importlib.import_module(f"{package}.srv")
        return getattr(module, name)
    except (ImportError, AttributeError):
        raise LookupError(
            f"service type {srv_type!r} is not available to rclpy: build and source the "
            f"ROS 2 package {package!r}"
        ) from None


def _ros_name(cls: type) -> str:
    # rosidl puts class Name of package pkg in module pkg.msg._name.
    return f"{cls.__module__.split('.')[0]}/msg/{cls.__name__}"


def _is_rosidl_class(cls: type) -> bool:
    return hasattr(type(cls), "_TYPE_SUPPORT") or hasattr(cls, "_TYPE_SUPPORT")


def _to_rosidl(value: Any, cls: type) -> Any:
    """Copy a DDS-backend message into the rosidl class ``cls``, recursively."""
    kwargs = {}
    for field in type(value).__ros_fields__:
        item = getattr(value, field.name)
        if not field.is_primitive:
            nested = _rosidl_class(field.base)
            if not field.is_array:
                item = _to_rosidl(item, nested)
            else:
                item = [_to_rosidl(element, nested) for element in item]
        elif field.base == "byte" and field.is_array:
            item = [bytes([element]) for element in item]
        elif field.base == "byte":
            item = bytes([item])
        kwargs[field.name] = item
    return cls(**kwargs)


def _emit(logger: Any, level: str, message: str) -> None:
    """Log ``message`` at ``level`` on an rclpy logger, one call site per severity.

    rclpy keys each logging context by its caller's file, line and
    instruction, and raises ValueError when one call site logs at two
    severities ("Logger severity cannot be changed between calls"): a single
    ``emitters[level](message)`` line made a node's first warning after an
    info line an exception in its callback.
    """
    if level == "debug":
        logger.debug(message)
    elif level == "info":
        logger.info(message)
    elif level == "warn":
        logger.warning(message)
    elif level == "error":
        logger.error(message)
    else:
        logger.fatal(message)


class _RclpyPublisher(Publisher):
    def __init__(self, publisher: Any, msg_type: type, topic: str) -> None:
        self._publisher = publisher
        self.msg_type = msg_type
        self.topic = topic

    def publish(self, msg: Any) -> None:
        if not isinstance(msg, self.msg_type):
            if getattr(type(msg), "__ros_type__", None) == _ros_name(self.msg_type):
                msg = _to_rosidl(msg, self.msg_type)
            else:
                raise TypeError(
                    f"publisher on {self.topic} sends {self.msg_type.__name__}, "
                    f"not {type(msg).__name__}"
                )
        self._publisher.publish(msg)

    def get_subscription_count(self) -> int:
        return self._publisher.get_subscription_count()


class _RclpySubscription(Subscription):
    def __init__(self, node: rclpy.node.Node, subscription: Any, msg_type: type) -> None:
        self._node = node
        self._subscription = subscription
        self.msg_type = msg_type
        self.topic = subscription.topic_name

    def get_publisher_count(self) -> int:
        return self._node.count_publishers(self.topic)


class _RclpyService(Service):
    def __init__(self, service: Any, srv_type: str, srv_class: type) -> None:
        self._service = service
        self.name = service.srv_name
        self.srv_type = srv_type
        self.request_type = srv_class.Request
        self.response_type = srv_class.Response


class _RclpyClient(Client):
    def __init__(self, node: RclpyNode, client: Any, srv_type: str, srv_class: type) -> None:
        self._owner = node
        self._client = client
        self.name = client.srv_name
        self.srv_type = srv_type
        self.request_type = srv_class.Request
        self.response_type = srv_class.Response

    def service_is_ready(self) -> bool:
        return self._client.service_is_ready()

    def call(self, request: Any, timeout_s: float = 5.0) -> Any:
        if not isinstance(request, self.request_type):
            raise TypeError(f"client of {self.name} sends {self.request_type.__name__}, "
                            f"not {type(request).__name__}")
        deadline = time.monotonic() + timeout_s
        if not self._client.wait_for_service(timeout_sec=timeout_s):
            raise TimeoutError(f"service {self.name} is not available after {timeout_s} s")
        future = self._client.call_async(request)
        executor = self._owner._executor
        while not future.done():
            left = deadline - time.monotonic()
            if left <= 0:
                self._client.remove_pending_request(future)
                raise TimeoutError(f"no reply from {self.name} within {timeout_s} s")
            executor.spin_once(timeout_sec=min(left, 0.1))
        return future.result()


class _RclpyTimer(Timer):
    def __init__(self, timer: Any, period_s: float) -> None:
        self._timer = timer
        self.period_s = period_s

    def cancel(self) -> None:
        self._timer.cancel()

    def is_canceled(self) -> bool:
        return self._timer.is_canceled()


class _RclpyParameterStore(ParameterStore):
    """Declares through rclpy (which applies files and ``-p``), checks types our way.

    A parameter declared without ``on_set`` gets rclpy's read-only
    descriptor, so ``ros2 param set`` answers that it is read-only; one with
    ``on_set`` is checked by the set-parameters callback, which refuses a
    bad value with the reason (``ros2 param set`` prints it) and applies a
    good one, on the spinning thread, before rclpy stores it.
    """

    def __init__(self, node: rclpy.node.Node) -> None:
        super().__init__(node.get_fully_qualified_name(), [])
        self._node = node
        node.add_on_set_parameters_callback(self._on_set_parameters)

    def declare(
        self,
        name: str,
        default: object,
        description: str = "",
        *,
        check: Callable[[object], None] | None = None,
        on_set: Callable[[object], None] | None = None,
    ) -> object:
        if self.has(name):
            raise ParameterError(f"parameter {name!r} is already declared")
        default = coerce_parameter_value(name, default, default, "its default")
        # Typing is ours (coerce_parameter_value), so an int for a float
        # parameter is accepted alike on both backends.
        descriptor = ParameterDescriptor(
            description=description, dynamic_typing=True, read_only=on_set is None
        )
        try:
            parameter = self._node.declare_parameter(name, default, descriptor)
        except Exception as error:  # rclpy's exceptions share no useful base class
            raise ParameterError(f"parameter {name!r}: {error}") from None
        value = _plain(parameter.value)
        source = "default" if value == default else "ROS parameter overrides"
        value = coerce_parameter_value(name, value, default, source)
        if check is not None:
            check(value)
        self._record(name, value, description, source, default, check, on_set)
        return value

    def set(self, name: str, value: object, source: str = "a parameter update") -> object:
        # Through rclpy, so that its parameter services and events see the change.
        value = self.validate(name, value, source)
        result = self._node.set_parameters([rclpy.parameter.Parameter(name, value=value)])[0]
        if not result.successful:
            raise ParameterError(result.reason)
        return value

    def _on_set_parameters(self, parameters: list[Any]) -> SetParametersResult:
        accepted = []
        for parameter in parameters:
            if not self.has(parameter.name):
                continue  # being declared: declare checks it
            try:
                value = self.validate(parameter.name, _plain(parameter.value), "ros2 param set")
            except ParameterError as error:
                return SetParametersResult(successful=False, reason=str(error))
            accepted.append((parameter.name, value))
        for name, value in accepted:
            ParameterStore.set(self, name, value, "ros2 param set")
        return SetParametersResult(successful=True)


def _plain(value: object) -> object:
    """A parameter value as Python types (rclpy gives arrays as array.array or tuples)."""
    return list(value) if isinstance(value, (array.array, tuple)) else value


class RclpyNode(TransportNode):
    """A node on rclpy (see the module docstring).

    Parameters
    ----------
    name : str
        Node name (``-r __node:=`` in ``args`` overrides it, as in rclpy).
    args : sequence of str, optional
        Command line with ``--ros-args``; ``sys.argv`` when None.
    namespace : str
        Node namespace.
    """

    backend = "rclpy"

    def __init__(
        self, name: str, args: Sequence[str] | None = None, *, namespace: str = "/",
        max_sample_bytes: int | None = None,
    ) -> None:
        # max_sample_bytes concerns the DDS backend's decoding; rmw has its own.
        del max_sample_bytes
        self._context = rclpy.context.Context()
        rclpy.init(args=list(sys.argv if args is None else args), context=self._context)
        self._node = rclpy.node.Node(name, namespace=namespace, context=self._context)
        self._executor = rclpy.executors.SingleThreadedExecutor(context=self._context)
        self._executor.add_node(self._node)
        self.name = self._node.get_name()
        self.namespace = self._node.get_namespace()
        self._parameters = _RclpyParameterStore(self._node)
        rclpy_logger = self._node.get_logger()
        self._logger = NodeLogger(
            self.fully_qualified_name,
            emit=lambda level, message: _emit(rclpy_logger, level, message))
        self._ok = True
        self._spinning = False
        self._released = False
        self._messages_taken = 0

    def _counted(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        # One positional parameter: rclpy (Iron and later) inspects the
        # signature to decide whether to pass MessageInfo too.
        def on_message(msg: Any) -> None:
            self._messages_taken += 1
            callback(msg)

        return on_message

    def message_type(self, msg_type: str | type) -> type:
        if isinstance(msg_type, str):
            return _rosidl_class(msg_type)
        if _is_rosidl_class(msg_type):
            return msg_type
        ros_type = getattr(msg_type, "__ros_type__", None)
        if ros_type is None:
            raise TypeError(f"{msg_type!r} is not a ROS message class")
        return _rosidl_class(ros_type)

    def resolve_topic(self, topic: str) -> str:
        resolve = getattr(self._node, "resolve_topic_name", None)
        if resolve is None:
            # rclpy before Galactic: expand without remapping.
            return super().resolve_topic(topic)
        return resolve(topic)

    def create_publisher(self, msg_type: str | type, topic: str, qos: QoSProfile) -> Publisher:
        cls = self.message_type(msg_type)
        publisher = self._node.create_publisher(cls, topic, rclpy_qos(qos))
        return _RclpyPublisher(publisher, cls, publisher.topic_name)

    def create_subscription(
        self,
        msg_type: str | type,
        topic: str,
        callback: Callable[[Any], None],
        qos: QoSProfile,
        codec: SubscriptionCodec | None = None,
    ) -> Subscription:
        cls = self.message_type(msg_type)
        if codec is not None:
            deliver = callback

            def callback(msg: Any) -> None:
                deliver(codec.from_message(msg))

        subscription = self._node.create_subscription(
            cls, topic, self._counted(callback), rclpy_qos(qos)
        )
        return _RclpySubscription(self._node, subscription, cls)

    def service_types(self, srv_type: str) -> tuple[type, type]:
        srv_class = _rosidl_service(srv_type)
        return srv_class.Request, srv_class.Response

    def create_service(self, srv_type: str, name: str,
                       callback: Callable[[Any, Any], Any]) -> Service:
        if not callable(callback):
            raise TypeError(f"callback for service {name} must be callable, not {callback!r}")
        full_type = normalize_service_name(srv_type)
        srv_class = _rosidl_service(full_type)
        logger = self._logger

        def answer(request: Any, response: Any) -> Any:
            self._messages_taken += 1
            try:
                return callback(request, response)
            except Exception as error:  # noqa: BLE001 - the node keeps serving
                # rclpy would raise out of spin: log it and answer the empty
                # response, as the DDS backend does.
                logger.error(f"service {name}: the callback failed: "
                             f"{type(error).__name__}: {str(error)[:200]}")
                return srv_class.Response()

        service = self._node.create_service(srv_class, name, answer)
        return _RclpyService(service, full_type, srv_class)

    def create_client(self, srv_type: str, name: str) -> Client:
        full_type = normalize_service_name(srv_type)
        srv_class = _rosidl_service(full_type)
        return _RclpyClient(self, self._node.create_client(srv_class, name), full_type,
                            srv_class)

    def create_timer(self, period_s: float, callback: Callable[[], None]) -> Timer:
        if isinstance(period_s, bool) or not isinstance(period_s, (int, float)) or period_s <= 0:
            raise ValueError(f"timer period must be a positive number of seconds, not {period_s!r}")
        return _RclpyTimer(self._node.create_timer(float(period_s), callback), float(period_s))

    @property
    def parameters(self) -> ParameterStore:
        return self._parameters

    def get_logger(self) -> NodeLogger:
        return self._logger

    def now(self) -> int:
        return self._node.get_clock().now().nanoseconds

    def now_msg(self) -> Any:
        return self._node.get_clock().now().to_msg()

    @property
    def ok(self) -> bool:
        return self._ok and self._context.ok()

    #: Most extra rclpy callbacks one ``spin_once`` runs after the first, so a
    #: publisher faster than the callbacks cannot keep it from returning.
    MAX_BATCH = 256

    def spin_once(self, timeout_s: float | None = None) -> None:
        if not self.ok:
            return
        if self._spinning:
            raise RuntimeError(
                f"node {self.fully_qualified_name} is already spinning "
                "(spin called from a callback)"
            )
        self._spinning = True
        try:
            self._executor.spin_once(timeout_sec=timeout_s)
            # rclpy ran one callback: take the other messages already there
            # too (without waiting), as the DDS backend takes every sample.
            for _ in range(self.MAX_BATCH):
                taken = self._messages_taken
                if not self.ok:
                    break
                self._executor.spin_once(timeout_sec=0)
                if self._messages_taken == taken:
                    break
        finally:
            self._spinning = False
            if not self._ok:
                self._release()

    def shutdown(self) -> None:
        self._ok = False
        if self._spinning:
            # Called from a callback or a signal handler in the middle of a
            # spin: destroying the node under rclpy's executor breaks it, so
            # the spin releases the node when it returns.
            wake = getattr(self._executor, "wake", None)
            if wake is not None:
                wake()
            return
        self._release()

    def _release(self) -> None:
        if self._released:
            return
        self._released = True
        self._executor.remove_node(self._node)
        self._executor.shutdown()
        self._node.destroy_node()
        self._context.try_shutdown()
