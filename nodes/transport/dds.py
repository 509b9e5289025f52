"""The Cyclone DDS backend: a ROS 2 node without ROS, wire compatible with rmw_cyclonedds.

What a ROS 2 Humble node on the same domain sees: topics ``rt/<name>``, DDS
types ``<pkg>::msg::dds_::<Name>_`` with the ROS field layout, XCDR1 (plain
CDR) data, and the QoS policies rmw_cyclonedds sets for a ROS profile. What
it does not see: actions (there are none). Services follow rmw_cyclonedds'
request and reply topics (:mod:`.dds_services`), and every node serves the
parameter services ``ros2 param`` calls (:mod:`.parameter_services`).

One DDS participant per node, on ``ROS_DOMAIN_ID`` (default 0). Cyclone
reads its configuration from ``CYCLONEDDS_URI`` unless ``dds_config`` is
given; :func:`.cyclone_config.loopback_config` keeps all traffic on ``lo``.
Spinning waits on one Cyclone waitset (a read condition per subscription, a
guard condition to wake it) with a timeout until the next timer, then takes
the samples and calls the callbacks on the spinning thread, one at a time.
A subscription given to :meth:`DdsNode.deliver_on_receive` instead has a
data-available listener: Cyclone's receive thread, which stores each sample,
then takes it and runs the callback itself, so the spinning thread is not
woken per sample. One lock keeps callbacks one at a time: the receive
thread only tries it, and when the spinning thread holds it, sets the guard
condition and leaves the samples to that thread (see ``DdsNode._deliver_here``).

This module must never import rclpy or ``geometry_core``.
"""

from __future__ import annotations

import atexit
import ctypes as ct
import math
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from cyclonedds._clayer import ddspy_take, ddspy_write
from cyclonedds.core import (
    DDSException,
    Entity,
    GuardCondition,
    InstanceState,
    Listener,
    ReadCondition,
    SampleState,
    ViewState,
    WaitSet,
)
from cyclonedds.domain import Domain, DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.qos import Policy, Qos
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from .base import (
    Client,
    LogPeriod,
    NodeLogger,
    Publisher,
    Service,
    Subscription,
    SubscriptionCodec,
    Timer,
    TransportNode,
    validate_namespace,
    validate_node_name,
)
from .dds_services import DdsClient, DdsService, wire_type
from .interfaces import normalize_service_name
from .msg_types import get_message_type, get_service_types, ros_type_name
from .parameter_services import create_parameter_services
from .params import ParameterStore, RemapRule, parse_ros_args
from .qos import SERVICES, Durability, History, QoSProfile, Reliability
from .ros_discovery import DiscoveryAnnouncer

__all__ = ["DEFAULT_MAX_SAMPLE_BYTES", "DdsNode", "DdsSecurityError",
           "check_security_environment", "dds_qos", "ros_domain_id"]

#: Serialized bytes of one received sample beyond which it is dropped undecoded,
#: unless the node is given another ``max_sample_bytes``: decoding costs time and
#: memory in proportion to the size.
DEFAULT_MAX_SAMPLE_BYTES = 16 * 1024 * 1024
#: Seconds between two warnings of undecodable samples on one subscription.
DECODE_LOG_PERIOD_S = 10.0
# While replies wait for their client's reader, the spin wakes this often to send them.
_PENDING_REPLY_POLL_S = 0.005

# Samples taken per subscription per wake-up; the rest wait for the next one,
# so one busy topic cannot starve timers.
_TAKE_BATCH = 64
# Cyclone's own default: a reliable writer waits at most this long for room
# in its history before write() fails, instead of hanging the node.
_MAX_BLOCKING_TIME_NS = duration(milliseconds=100)
_NOT_READ = SampleState.NotRead | ViewState.Any | InstanceState.Any
_INFINITE_NS = duration(infinite=True)
# dds_waitset_wait itself, as the WaitSet class declares it (ctypes).
_waitset_wait = WaitSet._dll_handle.dds_waitset_wait

# Cyclone's listener calls, as functions of our own (cyclonedds' Listener class
# wraps each call in two more Python calls and an entity lookup). A ctypes
# foreign call releases the GIL: dds_set_listener waits for a listener under
# way, and that listener may be waiting for the GIL.
_dds = WaitSet._dll_handle
_DataAvailable = ct.CFUNCTYPE(None, ct.c_int32, ct.c_void_p)
_create_listener = ct.CFUNCTYPE(ct.c_void_p, ct.c_void_p)(("dds_create_listener", _dds))
_lset_data_available = ct.CFUNCTYPE(None, ct.c_void_p, _DataAvailable)(
    ("dds_lset_data_available", _dds))
_set_listener = ct.CFUNCTYPE(ct.c_int32, ct.c_int32, ct.c_void_p)(("dds_set_listener", _dds))
_delete_listener = ct.CFUNCTYPE(None, ct.c_void_p)(("dds_delete_listener", _dds))


class _SampleContainer(ct.Structure):
    # cyclonedds-python's ddspy_sample_container_t: what its sertype copies
    # the serialized bytes from (serdata_from_sample; no Python in it).
    _fields_ = [("usample", ct.c_char_p), ("usample_size", ct.c_size_t)]


# dds_write of serialized bytes with the GIL released (ddspy_write keeps it).
_write_without_gil = ct.CFUNCTYPE(ct.c_int32, ct.c_int32, ct.POINTER(_SampleContainer))(
    ("dds_write", _dds))
_gilstate_ensure = ct.pythonapi.PyGILState_Ensure

#: Threads whose Python thread state is kept alive (see _keep_thread_state).
_KEPT_THREAD_STATES: set[int] = set()
#: ``(domain id, topic)`` of the readers delivering on Cyclone's receive
#: thread in this process, with their number: writes on these topics release
#: the GIL (see _DdsPublisher.publish_serialized).
_RECEIVE_TOPICS: dict[tuple[int, str], int] = {}
#: Every node not yet shut down: their listeners are removed at exit.
_LIVE_NODES: weakref.WeakSet[DdsNode] = weakref.WeakSet()
#: Seconds between two logs of callbacks that raised on the receive thread
#: (and of writes dropped from the deferred queue).
RECEIVE_ERROR_LOG_PERIOD_S = 10.0
#: A batch taken on the receive thread whose newest sample was written
#: (its DDS source timestamp, the writer's wall clock) more than this long
#: before the take is stale: messages queued behind a stall or a slow
#: ``after``, or a burst (the callbacks' own time does not count). Its
#: callbacks still run there (storing is cheap), but not
#: ``after``: the spinning thread is woken instead, takes whatever queued
#: meanwhile in one batch and does the work once. A fresh batch runs
#: ``after`` at once. A clock offset between writer and reader only moves
#: the work between the two threads: writer behind, every batch looks stale
#: (the spinning thread does it all, as without the listener); writer ahead,
#: every batch looks fresh (the receive thread answers each in turn). Half
#: a millisecond: on loopback a sample reaches the listener some 0.1 ms
#: after its write, and a query at 1 kHz takes some 0.3 to 0.5 ms, so a
#: sample that waited out a query is stale (measured, docs/ros2.md).
RECEIVE_FRESH_S = 0.0005
_RECEIVE_FRESH_NS = round(RECEIVE_FRESH_S * 1e9)
#: Writes a receive-thread callback asked for on writers that may wait for
#: acknowledgements, kept for the spinning thread; the oldest beyond this are
#: dropped and counted.
_MAX_DEFERRED_WRITES = 256


def _keep_thread_state() -> None:
    """Keep the calling foreign thread's Python thread state between listener calls.

    ctypes calls a Python callback from a thread Python did not start under
    ``PyGILState_Ensure``/``PyGILState_Release``; the state the first creates
    is destroyed by the second when its count drops to zero, so each sample
    would make and free a thread state. One more ``PyGILState_Ensure`` on
    that thread, never released, keeps it: the thread state of each Cyclone
    thread that runs our listeners (a receive thread per domain) lives until
    the interpreter exits, when ``Py_FinalizeEx`` frees the states of all
    other threads. By then no listener can run Python: every node's listeners
    were removed at ``atexit`` (:func:`_remove_listeners_at_exit`), before
    finalization starts. On a thread Python started the extra count changes
    nothing (its state is deleted when the thread ends).
    """
    ident = threading.get_ident()
    if ident not in _KEPT_THREAD_STATES:
        _KEPT_THREAD_STATES.add(ident)
        _gilstate_ensure()


@atexit.register
def _remove_listeners_at_exit() -> None:
    # atexit runs before the interpreter starts finalizing; a Cyclone thread
    # entering Python after that would be ended in the middle of Cyclone's
    # own work. dds_set_listener waits for a listener under way (with the GIL
    # released), so none runs after this.
    for node in list(_LIVE_NODES):
        node._remove_listeners()


# Domains created with an explicit configuration, kept alive for the process:
# Cyclone allows one configuration per domain id per process.
_DOMAINS: dict[int, tuple[Domain, str]] = {}
_DOMAINS_LOCK = threading.Lock()


def ros_domain_id(environ: dict[str, str] | None = None) -> int:
    """``ROS_DOMAIN_ID`` from the environment (0 when unset).

    Raises
    ------
    ValueError
        If it is not an integer in 0..232.
    """
    text = (os.environ if environ is None else environ).get("ROS_DOMAIN_ID", "").strip()
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"ROS_DOMAIN_ID must be an integer, not {text!r}") from None
    if not 0 <= value <= 232:
        raise ValueError(f"ROS_DOMAIN_ID must be in 0..232, not {value}")
    return value


class DdsSecurityError(ValueError):
    """ROS 2 security is enforced, and this backend cannot provide it."""


def check_security_environment(environ: dict[str, str] | None = None) -> str | None:
    """Refuse to run in the clear when the environment enforces ROS 2 security.

    rcl reads ``ROS_SECURITY_ENABLE`` (``true`` turns security on) and
    ``ROS_SECURITY_STRATEGY`` (``Enforce``: never fall back to unsecured
    traffic). The cyclonedds wheel has no DDS security plugins, so under
    Enforce this backend must not start at all.

    Returns
    -------
    str or None
        A warning to log when security is enabled without Enforce (rcl's
        Permissive strategy, which also runs unsecured when it cannot
        secure); None when security is off.

    Raises
    ------
    DdsSecurityError
        If security is enabled with the Enforce strategy.
    """
    env = os.environ if environ is None else environ
    if env.get("ROS_SECURITY_ENABLE", "") != "true":
        return None
    if env.get("ROS_SECURITY_STRATEGY", "") == "Enforce":
        raise DdsSecurityError(
            "ROS_SECURITY_ENABLE=true with ROS_SECURITY_STRATEGY=Enforce, but the DDS backend "
            "(the cyclonedds wheel) has no DDS security plugins and would talk in the clear: "
            "refusing to start. Run the node on rclpy (GEOMETRY_CORE_TRANSPORT=rclpy, with "
            "ROS 2 sourced) for SROS2, or unset ROS_SECURITY_ENABLE.")
    return ("ROS_SECURITY_ENABLE=true without ROS_SECURITY_STRATEGY=Enforce: the DDS backend "
            "has no DDS security plugins, so this node talks unsecured (as rcl's Permissive "
            "strategy does when it cannot secure)")


def dds_qos(qos: QoSProfile) -> Qos:
    """Cyclone DDS policies for a ROS QoS profile, as rmw_cyclonedds sets them.

    Reliability, durability and history map one to one; data representation
    is XCDR1 (plain CDR), which is what ROS 2 Humble nodes send and accept.
    """
    if not isinstance(qos, QoSProfile):
        raise TypeError(f"qos must be a QoSProfile, not {qos!r}")
    policies = [
        Policy.Reliability.Reliable(_MAX_BLOCKING_TIME_NS)
        if qos.reliability is Reliability.RELIABLE
        else Policy.Reliability.BestEffort,
        Policy.Durability.TransientLocal
        if qos.durability is Durability.TRANSIENT_LOCAL
        else Policy.Durability.Volatile,
        Policy.History.KeepLast(qos.depth)
        if qos.history is History.KEEP_LAST
        else Policy.History.KeepAll,
        Policy.DataRepresentation(use_cdrv0_representation=True),
    ]
    return Qos(*policies)


def _delete(entity: Entity) -> None:
    # cyclonedds-python keeps every entity in a class-level registry, so
    # dropping our references never frees it: delete explicitly.
    Entity.__del__(entity)


class _DdsPublisher(Publisher):
    def __init__(self, writer: DataWriter, msg_type: type, topic: str, qos: QoSProfile,
                 node: DdsNode) -> None:
        self._writer = writer
        self._ref = writer._ref
        self.msg_type = msg_type
        self.topic = topic
        self._node = node
        self._topic_key = (node.domain_id, topic)
        # Cyclone makes a reliable writer wait for acknowledgements only when
        # its unacknowledged bytes pass the high-water mark, which it sets to
        # the maximum for a KEEP_LAST writer (new_writer in ddsi_endpoint.c):
        # only a reliable KEEP_ALL writer can wait.
        self._may_wait = (qos.reliability is Reliability.RELIABLE
                          and qos.history is History.KEEP_ALL)
        # Readers matched, kept by a listener on Cyclone's matching events: a
        # node asks before every query whether anyone reads its results, and
        # a status read through ctypes costs more than some queries.
        self._matched: int | None = None
        self._listener = Listener(on_publication_matched=self._on_matched)
        writer.set_listener(self._listener)
        count = writer.get_publication_matched_status().current_count
        if self._matched is None:  # else an event came meanwhile, with a newer count
            self._matched = count

    def _on_matched(self, writer: DataWriter, status: Any) -> None:
        self._matched = status.current_count

    def _remove_listener(self) -> None:
        # At shutdown or exit: matching events come from Cyclone's threads.
        if self._listener is not None:
            self._listener = None
            self._writer.set_listener(None)

    def publish(self, msg: Any) -> None:
        if not isinstance(msg, self.msg_type):
            raise TypeError(
                f"publisher on {self.topic} sends {ros_type_name(self.msg_type)}, "
                f"not {type(msg).__name__}"
            )
        self.publish_serialized(self.serialize(msg))

    def accepts_serialized(self) -> bool:
        return True

    def serialize(self, msg: Any) -> bytes:
        # What DataWriter.write sends: Cyclone's bytes, padded to 4.
        data = msg.serialize(use_version_2=self._writer._use_version_2)
        return data.ljust((len(data) + 3) & ~3, b"\0")

    def publish_serialized(self, data: bytes) -> None:
        if self._may_wait:
            if self._node._on_receive_thread():
                # Its acknowledgements are read by this very thread.
                self._node._defer_write(self, data)
                return
            self._write_releasing_gil(data)
        elif self._topic_key in _RECEIVE_TOPICS:
            # A reader of this topic in this process delivers on Cyclone's
            # receive thread: delivering to it here waits while its listener
            # runs, and that listener may be waiting for the GIL.
            self._write_releasing_gil(data)
        else:
            ret = ddspy_write(self._ref, data)
            if ret < 0:
                raise DDSException(ret, f"Occurred while writing sample on {self.topic}")

    def _write_releasing_gil(self, data: bytes) -> None:
        container = _SampleContainer(data, len(data))
        ret = _write_without_gil(self._ref, container)
        if ret < 0:
            raise DDSException(ret, f"Occurred while writing sample on {self.topic}")

    def get_subscription_count(self) -> int:
        return self._matched


class _DdsSubscription(Subscription):
    """A reader whose samples are decoded one by one, each under a guard.

    Attributes
    ----------
    dropped : int
        Samples taken but not delivered: undecodable (invalid UTF-8 in a
        string, truncated CDR) or larger than the node's ``max_sample_bytes``.
    """

    def __init__(
        self,
        reader: DataReader,
        condition: ReadCondition,
        msg_type: type,
        topic: str,
        callback: Callable[[Any], None],
        logger: NodeLogger,
        decode: Callable[[bytes], Any] | None = None,
        max_sample_bytes: int = DEFAULT_MAX_SAMPLE_BYTES,
    ) -> None:
        self._reader = reader
        self._reader_ref = reader._ref
        self._mask = condition.mask
        self._max_sample_bytes = max_sample_bytes
        self._decode = msg_type.deserialize if decode is None else decode
        self.condition = condition
        self.msg_type = msg_type
        self.topic = topic
        self.callback = callback
        self.dropped = 0
        #: Whether the last take filled a whole batch (more may be waiting).
        self.full = False
        #: Set by DdsNode.deliver_on_receive: what runs after a batch there,
        #: and the ctypes listener function Cyclone calls (kept alive here).
        self.after: Callable[[], bool] | None = None
        self.listener: Any = None
        self.listening = False
        self.registered = False
        #: The newest source timestamp (ns, the writer's wall clock) of the last take.
        self.newest_ns = 0
        self._logger = logger
        self._log_period = LogPeriod(DECODE_LOG_PERIOD_S)

    def take(self) -> Sequence[Any]:
        # Cyclone's DataReader.take decodes the whole batch and lets the first
        # decoding error escape, losing the batch and, unguarded, the node:
        # take the raw bytes and decode each sample on its own.
        raw = ddspy_take(self._reader_ref, self._mask, _TAKE_BATCH)
        if type(raw) is not list:
            raise DDSException(raw, f"Occurred while taking data on {self.topic}")
        self.full = len(raw) == _TAKE_BATCH
        if len(raw) == 1:
            # One sample a wake-up (the usual case at a steady rate): the
            # same checks as _decode_samples, without its list.
            data, info = raw[0]
            self.newest_ns = info.source_timestamp
            if info.valid_data and len(data) <= self._max_sample_bytes:
                try:
                    return (self._decode(data),)
                except Exception:  # noqa: BLE001 - said and counted below
                    pass
        self.newest_ns = max((info.source_timestamp for _, info in raw), default=0)
        return _decode_samples(raw, self._decode, self._drop, self._max_sample_bytes)

    def _drop(self, reason: str) -> None:
        self.dropped += 1
        if self._log_period.due():
            self._logger.warn(f"dropped a sample on {self.topic} that cannot be decoded as "
                              f"{ros_type_name(self.msg_type)}: {reason} "
                              f"[undecodable #{self.dropped}]")

    def get_publisher_count(self) -> int:
        return self._reader.get_subscription_matched_status().current_count


def _decode_samples(raw: Sequence[tuple[bytes, Any]], decode: Callable[[bytes], Any],
                    drop: Callable[[str], None], max_bytes: int) -> list[Any]:
    """Decode taken ``(bytes, info)`` pairs; call ``drop(reason)`` for each bad one."""
    samples = []
    for data, info in raw:
        if not info.valid_data:
            continue  # a sample without data only announces a writer leaving
        if len(data) > max_bytes:
            drop(f"{len(data)} bytes, more than {max_bytes}")
            continue
        try:
            samples.append(decode(data))
        except Exception as error:  # noqa: BLE001 - anything a hostile writer's bytes raise
            drop(f"{type(error).__name__}: {str(error)[:200]}")
    return samples


class _DdsTimer(Timer):
    def __init__(self, period_s: float, callback: Callable[[], None]) -> None:
        self.period_s = period_s
        self.period_ns = max(1, round(period_s * 1e9))
        self.callback = callback
        self.next_ns = time.monotonic_ns() + self.period_ns
        self._canceled = False

    def cancel(self) -> None:
        self._canceled = True

    def is_canceled(self) -> bool:
        return self._canceled

    def advance(self, now_ns: int) -> None:
        # Keep the phase; skip periods missed while a callback ran long, as rcl does.
        missed = max(1, (now_ns - self.next_ns) // self.period_ns + 1)
        self.next_ns += missed * self.period_ns


class _Exclusion:
    """The lock that keeps a node's callbacks one at a time.

    ``with`` waits for it and is re-entrant for its holder (work after a spin,
    a shutdown from a callback); :meth:`try_enter`, the receive thread's way
    in, never waits and fails for the holder too: a listener called on the
    thread of a callback under way (a write in this process to a topic it
    reads) must not run inside that callback.
    """

    __slots__ = ("_lock", "_owner", "_depth")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._depth = 0

    def try_enter(self) -> bool:
        if self._lock.acquire(blocking=False):
            self._owner = threading.get_ident()
            return True
        return False

    def __enter__(self) -> _Exclusion:
        me = threading.get_ident()
        if self._owner == me:
            self._depth += 1
        else:
            self._lock.acquire()
            self._owner = me
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._depth:
            self._depth -= 1
        else:
            self._owner = None
            self._lock.release()


class DdsNode(TransportNode):
    """A node on Cyclone DDS (see the module docstring).

    Parameters
    ----------
    name : str
        Node name (``-r __node:=`` in ``args`` overrides it).
    args : sequence of str, optional
        Command line with ``--ros-args``; ``sys.argv`` when None.
    namespace : str
        Node namespace (``-r __ns:=`` overrides it).
    domain_id : int, optional
        DDS domain; ``ROS_DOMAIN_ID`` (default 0) when None.
    dds_config : str, optional
        Cyclone XML configuration for the domain, replacing
        ``CYCLONEDDS_URI``. A process can use one configuration per domain.
    log_stream : file, optional
        Where the logger writes; standard error by default.
    max_sample_bytes : int
        Received samples (messages, requests) larger than this are dropped
        undecoded and counted.

    Raises
    ------
    ParameterError
        For a malformed command line or parameter file.
    DdsSecurityError
        (a ValueError) If the environment enforces ROS 2 security
        (:func:`check_security_environment`).
    ValueError
        For an invalid name, namespace or domain id, or a second, different
        ``dds_config`` for a domain already configured in this process.
    """

    backend = "dds"

    def __init__(
        self,
        name: str,
        args: Sequence[str] | None = None,
        *,
        namespace: str = "/",
        domain_id: int | None = None,
        dds_config: str | None = None,
        log_stream: Any = None,
        max_sample_bytes: int = DEFAULT_MAX_SAMPLE_BYTES,
    ) -> None:
        security_warning = check_security_environment()
        if isinstance(max_sample_bytes, bool) or not isinstance(max_sample_bytes, int) \
                or max_sample_bytes <= 0:
            raise ValueError(f"max_sample_bytes must be a positive integer, not "
                             f"{max_sample_bytes!r}")
        self.max_sample_bytes = max_sample_bytes
        ros_args = parse_ros_args(sys.argv if args is None else args)
        self.name = validate_node_name(ros_args.node_name or name)
        self.namespace = validate_namespace(ros_args.namespace or namespace)
        self._remap_rules = ros_args.remaps
        self._parameters = ParameterStore(self.fully_qualified_name, ros_args.parameters)
        self._logger = NodeLogger(
            self.fully_qualified_name, ros_args.log_level or "info", stream=log_stream
        )
        if security_warning is not None:
            self._logger.warn(security_warning)
        self.domain_id = ros_domain_id() if domain_id is None else int(domain_id)
        if not 0 <= self.domain_id <= 232:
            raise ValueError(f"domain_id must be in 0..232, not {domain_id!r}")
        if dds_config is not None:
            _configure_domain(self.domain_id, dds_config)
        self._participant = DomainParticipant(self.domain_id)
        # So that ros2 node list and rclpy's graph see this node (ros_discovery.py).
        self._discovery = DiscoveryAnnouncer(self._participant, self.namespace, self.name)
        self._waitset = WaitSet(self._participant)
        self._waitset_ref = self._waitset._ref
        #: The last timeout of spin_once in seconds, and in nanoseconds.
        self._wait_for: tuple[float | None, int] = (None, _INFINITE_NS)
        self._guard = GuardCondition(self._participant)
        self._waitset.attach(self._guard)
        self._topics: dict[str, Topic] = {}
        self._entities: list[Entity] = []
        self._publishers: list[_DdsPublisher] = []
        self._subscriptions: list[_DdsSubscription | DdsService] = []
        self._services: dict[str, DdsService] = {}
        #: The services whose replies wait for their client's reader.
        self._replying: set[DdsService] = set()
        self._service_ids = 0
        # What a wait reports: the attach values of the conditions that
        # triggered, each standing for a subscription (or the guard).
        self._triggered = (ct.c_void_p * 1)()
        self._attached: dict[int, _DdsSubscription | None] = {}
        self._index_attached()
        self._timers: list[_DdsTimer] = []
        self._ok = True
        self._released = False
        self._spin_lock = threading.Lock()
        # Held while any callback of this node runs (spinning or receive thread).
        self._exclusion = _Exclusion()
        #: Subscriptions delivered on Cyclone's receive thread.
        self._on_receive: list[_DdsSubscription] = []
        # Set by the receive thread when it left samples to the spinning thread.
        self._handed_off = False
        # The thread delivering on the receive side now, under the callback lock.
        self._receive_ident: int | None = None
        self._deferred: deque[tuple[_DdsPublisher, bytes]] = deque()
        #: Exceptions raised by callbacks run on the receive thread (logged,
        #: then delivery goes on); writes dropped from the deferred queue.
        self.receive_errors = 0
        self.deferred_dropped = 0
        #: Batches taken on the receive thread too old to run ``after`` there
        #: (RECEIVE_FRESH_S): the spinning thread was woken for them.
        self.receive_stale = 0
        self._receive_log_period = LogPeriod(RECEIVE_ERROR_LOG_PERIOD_S)
        self._dropped_log_period = LogPeriod(RECEIVE_ERROR_LOG_PERIOD_S)
        self._warned_undeclared = False
        # As rclpy: ros2 param get/set/list/describe reach every node.
        self.parameter_services = create_parameter_services(self)
        _LIVE_NODES.add(self)

    # -- messages and topics --------------------------------------------------

    def message_type(self, msg_type: str | type) -> type:
        if isinstance(msg_type, str):
            return get_message_type(msg_type)
        return get_message_type(_type_name_of(msg_type))

    def _remaps(self) -> Sequence[RemapRule]:
        return self._remap_rules

    def _topic(self, topic: str, msg_type: type) -> tuple[Topic, str]:
        resolved = self.resolve_topic(topic)
        existing = self._topics.get(resolved)
        if existing is not None:
            if existing.data_type is not msg_type:
                raise ValueError(
                    f"topic {resolved} is already used with "
                    f"{ros_type_name(existing.data_type)}, not {ros_type_name(msg_type)}"
                )
            return existing, resolved
        dds_topic = Topic(self._participant, "rt" + resolved, msg_type)
        self._topics[resolved] = dds_topic
        return dds_topic, resolved

    def create_publisher(self, msg_type: str | type, topic: str, qos: QoSProfile) -> Publisher:
        self._check_ok()
        cls = self.message_type(msg_type)
        dds_topic, resolved = self._topic(topic, cls)
        writer = DataWriter(self._participant, dds_topic, qos=dds_qos(qos))
        self._entities.append(writer)
        self._discovery.add_writer(writer)
        publisher = _DdsPublisher(writer, cls, resolved, qos, self)
        self._publishers.append(publisher)
        return publisher

    def create_subscription(
        self,
        msg_type: str | type,
        topic: str,
        callback: Callable[[Any], None],
        qos: QoSProfile,
        codec: SubscriptionCodec | None = None,
    ) -> Subscription:
        self._check_ok()
        if not callable(callback):
            raise TypeError(f"callback for {topic} must be callable, not {callback!r}")
        cls = self.message_type(msg_type)
        dds_topic, resolved = self._topic(topic, cls)
        reader = DataReader(self._participant, dds_topic, qos=dds_qos(qos))
        condition = ReadCondition(reader, _NOT_READ)
        self._waitset.attach(condition)
        self._entities += [condition, reader]
        self._discovery.add_reader(reader)
        # A codec reads the bytes itself: no message object on the way.
        decode = None if codec is None else codec.bytes_decoder(cls.deserialize)
        subscription = _DdsSubscription(reader, condition, cls, resolved, callback,
                                        self._logger, decode, self.max_sample_bytes)
        self._subscriptions.append(subscription)
        self._index_attached()
        return subscription

    def deliver_on_receive(self, subscription: Subscription,
                           after: Callable[[], bool] | None = None) -> bool:
        self._check_ok()
        if not isinstance(subscription, _DdsSubscription) or \
                subscription not in self._subscriptions:
            raise ValueError(f"{subscription!r} is not a subscription of this node")
        if after is not None and not callable(after):
            raise TypeError(f"after must be callable, not {after!r}")
        with self._exclusion:
            subscription.after = after
            if subscription in self._on_receive:
                return True
            self._on_receive.append(subscription)
            subscription.registered = True
            key = (self.domain_id, subscription.topic)
            _RECEIVE_TOPICS[key] = _RECEIVE_TOPICS.get(key, 0) + 1
            subscription.listener = _DataAvailable(self._receive_listener(subscription))
            self._listen(subscription)
        return True

    def exclusive(self) -> AbstractContextManager[Any]:
        return self._exclusion

    def _listen(self, subscription: _DdsSubscription) -> None:
        """Deliver on the receive thread from now on (callback lock held)."""
        # Cyclone signals the read condition before it calls the listener:
        # attached, it would wake the spinning thread for every sample.
        self._waitset.detach(subscription.condition)
        self._index_attached()
        listener = _create_listener(None)
        try:
            _lset_data_available(listener, subscription.listener)
            # Cyclone may call the listener from here for samples already
            # stored; it finds the lock held and leaves them to the spin.
            ret = _set_listener(subscription._reader_ref, listener)
        finally:
            _delete_listener(listener)
        if ret < 0:
            raise DDSException(ret, f"Occurred while setting a listener on {subscription.topic}")
        subscription.listening = True
        self._handed_off = True  # samples stored before the listener: the spin takes them
        self._guard.set(True)

    @staticmethod
    def _stop_listening(subscription: _DdsSubscription) -> None:
        """Stop the listener (at shutdown or exit: the reader is not delivered again)."""
        if not subscription.listening:
            return
        subscription.listening = False
        # Waits for a listener under way, with the GIL released so that the
        # listener can finish.
        _set_listener(subscription._reader_ref, None)

    def _receive_listener(self, subscription: _DdsSubscription) -> Callable[[int, Any], None]:
        exclusion = self._exclusion

        def on_data_available(_reader: int, _arg: Any) -> None:
            # Runs on the thread that stored the sample: Cyclone's receive
            # thread for a remote writer, the writing thread for one in this
            # process. Nothing may escape into Cyclone's thread.
            try:
                if not self._ok:
                    return
                _keep_thread_state()
                if not exclusion.try_enter():
                    # A callback is under way (on the spinning thread): never
                    # wait for it here; that thread takes the samples.
                    self._handed_off = True
                    self._guard.set(True)
                    return
                try:
                    if self._ok:
                        self._deliver_here(subscription)
                finally:
                    exclusion.__exit__()
            except BaseException as error:  # noqa: BLE001 - logged and counted
                self._receive_failed(subscription, error)

        return on_data_available

    def _deliver_here(self, subscription: _DdsSubscription) -> None:
        """Take and deliver a batch on the receiving thread (callback lock held).

        ``after`` runs here only for a fresh batch (RECEIVE_FRESH_S); for a
        stale one the spinning thread is woken, finds the samples stored,
        takes what queued meanwhile and does the work once. While it works,
        it holds the lock: what arrives then is left in the reader, and the
        guard, already set, wakes it once more, not once per sample.
        """
        self._receive_ident = threading.get_ident()
        wake = False
        try:
            samples = subscription.take()
            # Their age as they are taken: how long they queued, not how
            # long the callbacks below take (a MOVE's is most of 0.5 ms).
            stale = time.time_ns() - subscription.newest_ns > _RECEIVE_FRESH_NS
            callback = subscription.callback
            for sample in samples:
                try:
                    callback(sample)
                except Exception as error:  # noqa: BLE001 - logged and counted
                    self._receive_failed(subscription, error)
            after = subscription.after
            if samples and after is not None:
                if stale:
                    self.receive_stale += 1
                    self._handed_off = True  # the spin takes what stored meanwhile
                    wake = True
                else:
                    try:
                        wake = bool(after())
                    except Exception as error:  # noqa: BLE001 - logged and counted
                        self._receive_failed(subscription, error)
            if subscription.full:
                self._handed_off = True  # more than a batch waits: the spin takes it
                wake = True
        finally:
            self._receive_ident = None
        if wake or self._deferred:
            self._guard.set(True)

    def _on_receive_thread(self) -> bool:
        return self._receive_ident is not None and self._receive_ident == threading.get_ident()

    def _receive_failed(self, subscription: _DdsSubscription, error: BaseException) -> None:
        self.receive_errors += 1
        if self._receive_log_period.due():
            where = ""
            trace = error.__traceback__
            while trace is not None and trace.tb_next is not None:
                trace = trace.tb_next
            if trace is not None:
                where = (f" at {os.path.basename(trace.tb_frame.f_code.co_filename)}:"
                         f"{trace.tb_lineno}")
            self._logger.error(
                f"a callback on {subscription.topic} raised on the receive thread{where}: "
                f"{type(error).__name__}: {str(error)[:300]}; delivery goes on "
                f"[receive_errors #{self.receive_errors}]")

    def _defer_write(self, publisher: _DdsPublisher, data: bytes) -> None:
        if len(self._deferred) >= _MAX_DEFERRED_WRITES:
            self._deferred.popleft()
            self.deferred_dropped += 1
            # Counted every time, logged once a period (a callback writing
            # in a loop would otherwise log once per write).
            if self._dropped_log_period.due():
                self._logger.warn(f"dropped a write waiting for the spinning thread on "
                                  f"{publisher.topic} [deferred_dropped "
                                  f"#{self.deferred_dropped}]")
        self._deferred.append((publisher, data))

    def _deliver_handed_off(self) -> None:
        """What the receive thread left to the spinning thread (callback lock held)."""
        self._handed_off = False
        for subscription in self._on_receive:
            callback = subscription.callback
            for sample in subscription.take():
                if not self._ok:
                    return
                callback(sample)
            if subscription.full:
                self._handed_off = True
                self._guard.set(True)
        while self._deferred:
            publisher, data = self._deferred.popleft()
            publisher.publish_serialized(data)

    def _remove_listeners(self) -> None:
        """Stop delivering on the receive thread; wait for a delivery under way.

        Not on the receive thread inside its own listener: Cyclone would wait
        for that listener to return.
        """
        if self._on_receive_thread():
            return
        for subscription in self._on_receive:
            if subscription.registered:
                subscription.registered = False
                self._stop_listening(subscription)
                key = (self.domain_id, subscription.topic)
                left = _RECEIVE_TOPICS.get(key, 0) - 1
                if left > 0:
                    _RECEIVE_TOPICS[key] = left
                else:
                    _RECEIVE_TOPICS.pop(key, None)
        for publisher in self._publishers:
            publisher._remove_listener()

    def _index_attached(self) -> None:
        # WaitSet.attach gives each condition the address of a value of its
        # own as attach value: that address tells which condition triggered.
        by_condition = {id(s.condition): s for s in self._subscriptions}
        attached = self._waitset.attached
        self._attached = {ct.addressof(value): by_condition.get(id(entity))
                          for entity, value in attached}
        self._triggered = (ct.c_void_p * len(attached))()

    def service_types(self, srv_type: str) -> tuple[type, type]:
        return get_service_types(srv_type)

    def create_service(self, srv_type: str, name: str,
                       callback: Callable[[Any, Any], Any]) -> Service:
        self._check_ok()
        if not callable(callback):
            raise TypeError(f"callback for service {name} must be callable, not {callback!r}")
        full_type = normalize_service_name(srv_type)
        request_type, response_type = get_service_types(full_type)
        resolved = self.resolve_topic(name)
        if resolved in self._services:
            raise ValueError(f"service {resolved} is already served by this node")
        # rmw_cyclonedds' topics and the id that pairs a server's reader and writer.
        request_topic = Topic(self._participant, f"rq{resolved}Request",
                              wire_type(request_type))
        reply_topic = Topic(self._participant, f"rr{resolved}Reply", wire_type(response_type))
        qos = dds_qos(SERVICES) + Qos(Policy.Userdata(f"serviceid={self._service_id()};".encode()))
        reader = DataReader(self._participant, request_topic, qos=qos)
        writer = DataWriter(self._participant, reply_topic, qos=qos)
        condition = ReadCondition(reader, _NOT_READ)
        self._waitset.attach(condition)
        self._entities += [condition, reader, writer, request_topic, reply_topic]
        self._discovery.add_reader(reader)
        self._discovery.add_writer(writer)
        service = DdsService(full_type, resolved, request_type, response_type, reader,
                             condition, writer, callback, self._logger, self.max_sample_bytes,
                             DECODE_LOG_PERIOD_S, self._replying.add)
        self._services[resolved] = service
        self._subscriptions.append(service)
        self._index_attached()
        return service

    def _service_id(self) -> str:
        # rmw_cyclonedds' client and service ids: the participant's GUID
        # prefix and a counter, as dotted hexadecimal bytes.
        self._service_ids += 1
        guid = self._participant.guid.bytes[:12] + self._service_ids.to_bytes(4, "big")
        return ".".join(f"{b:x}" for b in guid)

    def create_client(self, srv_type: str, name: str) -> Client:
        self._check_ok()
        full_type = normalize_service_name(srv_type)
        request_type, response_type = get_service_types(full_type)
        resolved = self.resolve_topic(name)
        request_topic = Topic(self._participant, f"rq{resolved}Request",
                              wire_type(request_type))
        reply_topic = Topic(self._participant, f"rr{resolved}Reply", wire_type(response_type))
        qos = dds_qos(SERVICES) + Qos(Policy.Userdata(f"clientid={self._service_id()};".encode()))
        writer = DataWriter(self._participant, request_topic, qos=qos)
        reader = DataReader(self._participant, reply_topic, qos=qos)
        condition = ReadCondition(reader, _NOT_READ)
        waitset = WaitSet(self._participant)
        waitset.attach(condition)
        self._entities += [waitset, condition, reader, writer, request_topic, reply_topic]
        self._discovery.add_writer(writer)
        self._discovery.add_reader(reader)
        return DdsClient(full_type, resolved, request_type, response_type, writer, reader,
                         condition, waitset)

    def create_timer(self, period_s: float, callback: Callable[[], None]) -> Timer:
        self._check_ok()
        if (
            isinstance(period_s, bool)
            or not isinstance(period_s, (int, float))
            or not math.isfinite(period_s)
            or period_s <= 0
        ):
            raise ValueError(f"timer period must be a positive number of seconds, not {period_s!r}")
        if not callable(callback):
            raise TypeError(f"timer callback must be callable, not {callback!r}")
        timer = _DdsTimer(float(period_s), callback)
        self._timers.append(timer)
        self._guard.set(True)  # a spinning thread recomputes its timeout
        return timer

    # -- parameters, logging, time -----------------------------------------------

    @property
    def parameters(self) -> ParameterStore:
        return self._parameters

    def get_logger(self) -> NodeLogger:
        return self._logger

    def now(self) -> int:
        return time.time_ns()

    # -- execution ---------------------------------------------------------------

    @property
    def ok(self) -> bool:
        return self._ok

    def spin_once(self, timeout_s: float | None = None) -> None:
        if not self._spin_lock.acquire(blocking=False):
            raise RuntimeError(
                f"node {self.fully_qualified_name} is already spinning "
                "(spin called from a callback, or from two threads)"
            )
        try:
            if self._ok:
                self._spin_once_locked(timeout_s)
        finally:
            if not self._ok:
                self._release_entities()
            self._spin_lock.release()

    def _spin_once_locked(self, timeout_s: float | None) -> None:
        if not self._warned_undeclared:
            self._warn_undeclared_overrides()
        if timeout_s is None:
            wait_ns = _INFINITE_NS
        elif timeout_s == self._wait_for[0]:
            wait_ns = self._wait_for[1]  # the timeout of the last spin (a spin loop's)
        else:
            wait_ns = max(0, round(timeout_s * 1e9))
            self._wait_for = (timeout_s, wait_ns)
        if self._timers:
            self._timers = [t for t in self._timers if not t.is_canceled()]
            if self._timers:
                until_timer = max(0, min(t.next_ns for t in self._timers) - time.monotonic_ns())
                wait_ns = min(wait_ns, until_timer)
        pending = [s for s in self._replying if s.has_pending] if self._replying else ()
        if pending:
            wait_ns = min(wait_ns, round(_PENDING_REPLY_POLL_S * 1e9))
        # One wait says which conditions triggered: only their readers are
        # taken, and the guard only when it was set. The C function is called
        # as it is (WaitSet's method wraps it in a Python call of its own).
        triggered = self._triggered
        size = len(triggered)
        count = _waitset_wait(self._waitset_ref, triggered, size, wait_ns)
        if count < 0:
            raise DDSException(count, f"Occurred while waiting in {self.fully_qualified_name}")
        with self._exclusion:  # no callback on the receive thread meanwhile
            self._run_callbacks(count if count < size else size, pending)

    def _run_callbacks(self, count: int, pending: Sequence[DdsService]) -> None:
        triggered = self._triggered
        attached = self._attached
        for k in range(count):
            subscription = attached.get(triggered[k])
            if subscription is None:
                self._guard.take()
                continue
            callback = subscription.callback
            for sample in subscription.take():
                if not self._ok:
                    return
                callback(sample)
        if self._handed_off or self._deferred:
            self._deliver_handed_off()
        for service in pending:
            service.flush()
            if not service.has_pending:
                self._replying.discard(service)
        if not self._timers:
            return
        now_ns = time.monotonic_ns()
        for timer in list(self._timers):
            if self._ok and not timer.is_canceled() and timer.next_ns <= now_ns:
                timer.advance(now_ns)
                timer.callback()

    def shutdown(self) -> None:
        if self._ok:
            self._ok = False
            # From here no listener enters the node; one under way is waited for.
            self._remove_listeners()
            if self.receive_errors or self.receive_stale:
                self._logger.info(
                    f"on the receive thread: {self.receive_errors} callbacks raised; "
                    f"{self.receive_stale} stale batches left to the spinning thread")
            self._guard.set(True)  # wakes a thread waiting in spin_once
        if self._on_receive_thread():
            # Called by a callback on the receive thread: Cyclone cannot
            # delete the reader whose listener this is; the spinning thread,
            # a later shutdown or the exit does.
            return
        # While a spin is under way (this is a callback, or another thread
        # spins), that spin releases the entities when it returns.
        if self._spin_lock.acquire(blocking=False):
            try:
                self._release_entities()
            finally:
                self._spin_lock.release()

    def _release_entities(self) -> None:
        if self._released:
            return
        self._released = True
        self._remove_listeners()
        _LIVE_NODES.discard(self)
        # Children before the participant; the participant deletes what is left.
        for entity in [*self._entities, *self._topics.values(), *self._discovery.entities(),
                       self._guard, self._waitset]:
            _delete(entity)
        _delete(self._participant)
        self._entities.clear()
        self._topics.clear()
        self._subscriptions.clear()
        self._timers.clear()
        self._deferred.clear()

    def _check_ok(self) -> None:
        if not self._ok:
            raise RuntimeError(f"node {self.fully_qualified_name} is shut down")

    def _warn_undeclared_overrides(self) -> None:
        if self._warned_undeclared:
            return
        self._warned_undeclared = True
        for assignment in self._parameters.undeclared_overrides():
            self._logger.warn(
                f"parameter {assignment.name!r} is set (by {assignment.source}) "
                "but this node does not declare it"
            )


def _type_name_of(msg_type: type) -> str:
    name = getattr(msg_type, "__ros_type__", None)
    if name is not None:
        return name
    # An rclpy message class: module "<pkg>.msg._<name>", class "<Name>".
    module = getattr(msg_type, "__module__", "")
    package, _, rest = module.partition(".")
    if rest.startswith("msg"):
        return f"{package}/msg/{msg_type.__name__}"
    raise TypeError(f"{msg_type!r} is not a ROS message class")


def _configure_domain(domain_id: int, config: str) -> None:
    with _DOMAINS_LOCK:
        existing = _DOMAINS.get(domain_id)
        if existing is not None:
            if existing[1] != config:
                raise ValueError(
                    f"DDS domain {domain_id} is already configured differently in this process"
                )
            return
        try:
            domain = Domain(domain_id, config)
        except DDSException as error:
            raise ValueError(
                f"Cyclone DDS rejected the configuration for domain {domain_id} (or the domain "
                f"is already in use in this process): {error}"
            ) from None
        _DOMAINS[domain_id] = (domain, config)
