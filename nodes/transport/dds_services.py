"""ROS 2 services on the Cyclone DDS backend, as rmw_cyclonedds carries them.

A service ``/name`` of type ``pkg/srv/Name`` is a request topic and a reply
topic: ``rq/nameRequest`` of type ``pkg::srv::dds_::Name_Request_`` and
``rr/nameReply`` of type ``pkg::srv::dds_::Name_Response_``, reliable,
volatile, keep last 10 (ROS 2's service profile). Each sample carries, before
the message's CDR fields, the header rmw_cyclonedds prepends: the client's
``uint64`` id (the instance handle of its request writer) and an ``int64``
sequence number, in the sample's byte order. A server echoes both in its
reply; a client keeps the replies with its own id.

Readers and writers of one client or server carry ``clientid=<id>;`` or
``serviceid=<id>;`` in their DDS user data. A client takes a service as
available when a request reader and a reply writer with the same
``serviceid`` are matched; a server sends a reply once the requesting
client's reply reader (the one with the ``clientid`` of its request writer)
is matched, so that a reply is never written before its reader can receive
it. Until then (at most :data:`REPLY_WAIT_S`) the reply waits here, and the
node keeps serving meanwhile; rmw_cyclonedds blocks for up to 100 ms instead.

This module must never import rclpy or ``geometry_core``.
"""

from __future__ import annotations

import dataclasses
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cyclonedds._clayer import ddspy_take, ddspy_write
from cyclonedds.core import DDSException, Policy, ReadCondition, WaitSet
from cyclonedds.idl import IdlMeta, IdlStruct
from cyclonedds.idl import types as idl_types
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader

from .base import Client, LogPeriod, NodeLogger, Service

__all__ = ["REPLY_WAIT_S", "SERVICE_QOS_DEPTH", "DdsClient", "DdsService", "join_header",
           "split_header", "user_data_key", "wire_type"]

#: Keep-last depth of ROS 2's default service profile (rmw_qos_profile_services_default).
SERVICE_QOS_DEPTH = 10
#: Seconds a reply waits for its client's reply reader to match before it is dropped
#: (counted in ``Service.dropped``). Discovery on one host takes milliseconds.
REPLY_WAIT_S = 2.0
#: Replies waiting for their reader, per service; beyond, the oldest is dropped.
MAX_PENDING_REPLIES = 64
#: Requests taken per wake-up, as for subscriptions.
_TAKE_BATCH = 64
_HEADER_SIZE = 16  # uint64 client id + int64 sequence number
_ENCAPSULATION = 4


def split_header(data: bytes) -> tuple[int, int, bytes]:
    """A request or reply sample as ``(client_id, sequence_number, message bytes)``.

    ``data`` is the serialized sample: the 4-byte encapsulation header, then
    the 16-byte request header, then the message's fields. The message bytes
    returned are the encapsulation header and the fields, as a message class
    deserializes them (the fields keep their alignment: 16 is a multiple of 8).

    Raises
    ------
    ValueError
        If ``data`` is too short to hold the headers.
    """
    if len(data) < _ENCAPSULATION + _HEADER_SIZE:
        raise ValueError(f"a service sample needs at least 20 bytes, got {len(data)}")
    order = "<" if data[1] & 1 else ">"  # CDR_LE is 0x0001, CDR_BE 0x0000
    client_id, sequence = struct.unpack_from(order + "Qq", data, _ENCAPSULATION)
    return client_id, sequence, data[:_ENCAPSULATION] + data[_ENCAPSULATION + _HEADER_SIZE:]


def join_header(client_id: int, sequence: int, message: bytes) -> bytes:
    """The sample of a serialized message with the request header put in front of its fields."""
    order = "<" if message[1] & 1 else ">"
    return (message[:_ENCAPSULATION] + struct.pack(order + "Qq", client_id, sequence)
            + message[_ENCAPSULATION:])


_WIRE_TYPES: dict[type, type] = {}


def wire_type(message_type: type) -> type:
    """The DDS type of a request or reply topic: the header's two fields, then the message's.

    Cyclone checks each received sample against its topic's type, so the
    topic's type must describe the header too. Samples are written and
    taken as bytes (:func:`join_header`, :func:`split_header`); this class
    only names and describes them.
    """
    wire = _WIRE_TYPES.get(message_type)
    if wire is not None:
        return wire
    name = message_type.__name__
    namespace = IdlMeta.__prepare__(name, (IdlStruct,),
                                    typename=message_type.__idl_typename__)
    namespace["__annotations__"]["request_client_id"] = idl_types.uint64
    namespace["__annotations__"]["request_sequence_number"] = idl_types.int64
    for field in dataclasses.fields(message_type):
        namespace["__annotations__"][field.name] = message_type.__annotations__[field.name]
    namespace["__module__"] = __name__
    namespace["__qualname__"] = name
    wire = _WIRE_TYPES[message_type] = dataclasses.dataclass(
        IdlMeta(name, (IdlStruct,), namespace))
    return wire


def user_data_key(qos: Any, key: str) -> str | None:
    """The value of ``key`` in an endpoint's ``key=value;`` user data, as rmw parses it."""
    if qos is None:
        return None
    try:
        policy = qos[Policy.Userdata]
    except (KeyError, ValueError):
        return None
    if policy is None:
        return None
    for item in bytes(policy.data).split(b";"):
        name, sep, value = item.partition(b"=")
        if sep and name.decode("utf-8", "replace") == key:
            return value.decode("utf-8", "replace")
    return None


@dataclass
class _PendingReply:
    writer_handle: int
    client_id: str | None
    data: bytes
    deadline: float


class DdsService(Service):
    """A service server on the DDS backend (created by ``DdsNode.create_service``).

    Attributes
    ----------
    dropped : int
        Requests not answered: undecodable, larger than the node's sample
        limit, or whose reply found no matched reader of its client within
        :data:`REPLY_WAIT_S`.
    failed : int
        Requests whose callback raised; they are answered with the empty response.
    answered : int
        Replies written.
    """

    def __init__(self, srv_type: str, name: str, request_type: type, response_type: type,
                 reader: DataReader, condition: ReadCondition, writer: DataWriter,
                 callback: Callable[[Any, Any], Any], logger: NodeLogger,
                 max_sample_bytes: int, log_period_s: float,
                 on_pending: Callable[[DdsService], None] | None = None) -> None:
        self.srv_type = srv_type
        # Told when a reply starts waiting, so that a spin looks only at the
        # services with replies to flush.
        self._on_pending = on_pending
        self.name = name
        self.request_type = request_type
        self.response_type = response_type
        self.condition = condition
        self._reader = reader
        self._writer = writer
        self._user_callback = callback
        self._logger = logger
        self._max_sample_bytes = max_sample_bytes
        self._log_period = LogPeriod(log_period_s)
        self._pending: list[_PendingReply] = []
        self.dropped = 0
        self.failed = 0
        self.answered = 0

    # The node's spin loop treats a service as a subscription whose samples
    # are requests: take() decodes them, callback() answers one.

    def take(self) -> list[tuple[Any, int, int, int]]:
        raw = ddspy_take(self._reader._ref, self.condition.mask, _TAKE_BATCH)
        if isinstance(raw, int):
            raise DDSException(raw, f"Occurred while taking requests on {self.name}")
        requests = []
        for data, info in raw:
            if not info.valid_data:
                continue
            if len(data) > self._max_sample_bytes:
                self._drop(f"a request of {len(data)} bytes, more than {self._max_sample_bytes}")
                continue
            try:
                client_id, sequence, body = split_header(data)
                request = self.request_type.deserialize(body)
            except Exception as error:  # noqa: BLE001 - anything a hostile writer's bytes raise
                self._drop(f"an undecodable request: {type(error).__name__}: {str(error)[:200]}")
                continue
            requests.append((request, client_id, sequence, info.publication_handle))
        return requests

    def callback(self, item: tuple[Any, int, int, int]) -> None:
        request, client_id, sequence, writer_handle = item
        try:
            response = self._user_callback(request, self.response_type())
            if not isinstance(response, self.response_type):
                raise TypeError(f"the callback returned {type(response).__name__}, not "
                                f"{self.response_type.__name__}")
            body = response.serialize(use_version_2=False)
        except Exception as error:  # noqa: BLE001 - the node keeps serving
            self.failed += 1
            self._log_limited(f"service {self.name}: the callback failed: "
                              f"{type(error).__name__}: {str(error)[:200]} "
                              f"[failed #{self.failed}]")
            body = self.response_type().serialize(use_version_2=False)
        writer = self._request_writer(writer_handle)
        client = user_data_key(getattr(writer, "qos", None), "clientid")
        if len(self._pending) >= MAX_PENDING_REPLIES:
            self._pending.pop(0)
            self._drop("a reply whose client never matched its reply reader")
        self._pending.append(_PendingReply(writer_handle, client, join_header(
            client_id, sequence, body), time.monotonic() + REPLY_WAIT_S))
        self.flush()
        if self._pending and self._on_pending is not None:
            self._on_pending(self)

    @property
    def has_pending(self) -> bool:
        """Whether replies wait for their client's reply reader."""
        return bool(self._pending)

    def flush(self) -> None:
        """Write the replies whose reader matched; drop those past their wait."""
        if not self._pending:
            return
        now = time.monotonic()
        matched = None
        waiting = []
        for reply in self._pending:
            if self._request_writer(reply.writer_handle) is None:
                continue  # the client left: nobody to answer, as rmw_cyclonedds does
            if reply.client_id is not None:
                if matched is None:
                    matched = self._matched_client_ids()
                if reply.client_id not in matched:
                    if now < reply.deadline:
                        waiting.append(reply)
                    else:
                        self._drop("a reply whose client never matched its reply reader")
                    continue
            ret = ddspy_write(self._writer._ref, reply.data)
            if ret < 0:
                self._drop(f"a reply that could not be written (DDS error {ret})")
            else:
                self.answered += 1
        self._pending = waiting

    def _request_writer(self, handle: int) -> Any:
        """The matched request writer of a client (its DcpsEndpoint), or None once it left."""
        try:
            return self._reader.get_matched_publication_data(handle)
        except DDSException:
            return None

    def _matched_client_ids(self) -> set[str]:
        ids = set()
        for handle in self._writer.get_matched_subscriptions():
            try:
                endpoint = self._writer.get_matched_subscription_data(handle)
            except DDSException:
                continue
            client = user_data_key(getattr(endpoint, "qos", None), "clientid")
            if client is not None:
                ids.add(client)
        return ids

    def _drop(self, what: str) -> None:
        self.dropped += 1
        self._log_limited(f"service {self.name}: dropped {what} [dropped #{self.dropped}]")

    def _log_limited(self, line: str) -> None:
        # At most one line per period, whatever a client sends.
        if self._log_period.due():
            self._logger.warn(line)


class DdsClient(Client):
    """A service client on the DDS backend (created by ``DdsNode.create_client``).

    :meth:`call` waits on the client's own reader, not on the node's spin:
    callbacks of the node do not run meanwhile, and a node may call a
    service it serves itself only from another thread.
    """

    def __init__(self, srv_type: str, name: str, request_type: type, response_type: type,
                 writer: DataWriter, reader: DataReader, condition: ReadCondition,
                 waitset: WaitSet) -> None:
        self.srv_type = srv_type
        self.name = name
        self.request_type = request_type
        self.response_type = response_type
        self._writer = writer
        self._reader = reader
        self._condition = condition
        self._waitset = waitset
        # rmw_cyclonedds puts its request writer's instance handle in the header.
        self._client_id = writer.get_instance_handle() & 0xFFFF_FFFF_FFFF_FFFF  # uint64
        self._sequence = 0

    def service_is_ready(self) -> bool:
        # As rmw_cyclonedds: a request reader and a reply writer of one server matched.
        readers = set()
        for handle in self._writer.get_matched_subscriptions():
            endpoint = self._writer.get_matched_subscription_data(handle)
            readers.add(user_data_key(getattr(endpoint, "qos", None), "serviceid"))
        for handle in self._reader.get_matched_publications():
            endpoint = self._reader.get_matched_publication_data(handle)
            if user_data_key(getattr(endpoint, "qos", None), "serviceid") in readers:
                return True
        return False

    def call(self, request: Any, timeout_s: float = 5.0) -> Any:
        if not isinstance(request, self.request_type):
            raise TypeError(f"client of {self.name} sends {self.request_type.__name__}, "
                            f"not {type(request).__name__}")
        deadline = time.monotonic() + timeout_s
        while not self.service_is_ready():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"service {self.name} is not available "
                                   f"after {timeout_s} s")
            time.sleep(0.01)
        self._sequence += 1
        sequence = self._sequence
        data = join_header(self._client_id, sequence, request.serialize(use_version_2=False))
        ret = ddspy_write(self._writer._ref, data)
        if ret < 0:
            raise DDSException(ret, f"Occurred while sending a request to {self.name}")
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply from {self.name} within {timeout_s} s")
            self._waitset.wait(round(left * 1e9))
            raw = ddspy_take(self._reader._ref, self._condition.mask, _TAKE_BATCH)
            if isinstance(raw, int):
                raise DDSException(raw, f"Occurred while taking replies of {self.name}")
            for sample, info in raw:
                if not info.valid_data:
                    continue
                client_id, reply_sequence, body = split_header(sample)
                if client_id == self._client_id and reply_sequence == sequence:
                    return self.response_type.deserialize(body)
