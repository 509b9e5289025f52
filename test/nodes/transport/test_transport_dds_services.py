"""Services on the DDS backend: the wire layout, a server and a client, the parameter services.

The request header's layout is checked against rosbags (an independent CDR
serializer) given the header's two fields as message fields; the exchange
runs between two DDS-backend nodes on loopback. The same services answer a
real rclpy client and ``ros2 param`` in test_transport_rclpy_services.py
(where ROS 2 is installed).
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from cyclonedds._clayer import ddspy_write
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from geometry_core_nodes.transport import create_node, loopback_config
from geometry_core_nodes.transport.dds import dds_qos
from geometry_core_nodes.transport.dds_services import join_header, split_header, wire_type
from geometry_core_nodes.transport.interfaces import (
    dds_type_name,
    normalize_service_name,
    service_type_names,
)
from geometry_core_nodes.transport.msg_types import get_service_types
from geometry_core_nodes.transport.parameter_services import RCL_INTERFACES_SERVICES
from geometry_core_nodes.transport.qos import SERVICES

pytestmark = [pytest.mark.network, pytest.mark.dds]

DOMAIN = 10 + (os.getpid() * 17) % 90


def _node(name, *ros_args, **options):
    return create_node(name, ["--ros-args", *ros_args] if ros_args else [], backend="dds",
                       domain_id=DOMAIN, dds_config=loopback_config(), **options)


class _Spinning:
    """A node spun by a thread of its own while the test's client waits for replies."""

    def __init__(self, node):
        self.node = node
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self):
        while not self._stop.is_set():
            self.node.spin_once(0.02)

    def close(self):
        self._stop.set()
        self._thread.join(5)
        self.node.shutdown()


@pytest.fixture
def server():
    spinning = []

    def start(node):
        spinning.append(_Spinning(node))
        return node

    yield start
    for s in spinning:
        s.close()


@pytest.fixture
def client_node():
    node = _node("caller")
    yield node
    node.shutdown()


def test_service_type_names_are_rmw_cyclonedds_ones():
    assert normalize_service_name("rcl_interfaces/SetParameters") == \
        "rcl_interfaces/srv/SetParameters"
    request, response = service_type_names("moveit_msgs/srv/GetStateValidity")
    assert dds_type_name(request) == "moveit_msgs::srv::dds_::GetStateValidity_Request_"
    assert dds_type_name(response) == "moveit_msgs::srv::dds_::GetStateValidity_Response_"
    with pytest.raises(ValueError, match="not of the form"):
        normalize_service_name("rcl_interfaces/msg/SetParameters")
    with pytest.raises(ValueError, match="invalid service message type"):
        dds_type_name("rcl_interfaces/srv/SetParameters_Reply")


@pytest.mark.parametrize("srv_type, values", [
    ("rcl_interfaces/srv/GetParameters", {"names": ["a", "max_distance"]}),
    ("rcl_interfaces/srv/ListParameters", {"prefixes": ["x"], "depth": 3}),
])
def test_request_header_layout_matches_rosbags(srv_type, values):
    # rosbags serializes the header's two fields as the first fields of a
    # message: the bytes rmw_cyclonedds puts on the wire for a request.
    request_type, _ = get_service_types(srv_type)
    store = get_typestore(Stores.ROS2_HUMBLE)
    request_text = RCL_INTERFACES_SERVICES[srv_type].split("---")[0]
    name = "test_wire/msg/Request"
    store.register(get_types_from_msg("uint64 client_id\nint64 sequence_number\n" + request_text,
                                      name))
    wire = store.types[name](client_id=0x0102030405060708, sequence_number=-3, **values)
    expected = bytes(store.serialize_cdr(wire, name))
    ours = join_header(0x0102030405060708, -3, request_type(**values).serialize())
    assert ours[:len(expected)] == expected
    assert set(ours[len(expected):]) <= {0}  # only padding after
    client_id, sequence, body = split_header(expected)
    assert (client_id, sequence) == (0x0102030405060708, -3)
    decoded = request_type.deserialize(body)
    assert {k: getattr(decoded, k) for k in values} == values


def test_split_header_refuses_a_short_sample():
    with pytest.raises(ValueError, match="at least 20 bytes"):
        split_header(b"\x00\x01\x00\x00" + b"\x00" * 8)


def test_a_client_calls_a_service_and_the_node_survives_bad_requests(server, client_node):
    calls = []

    def answer(request, response):
        calls.append(list(request.names))
        if request.names == ["raise"]:
            raise RuntimeError("refused on purpose")
        response.values = [response_value(type=4, string_value=n.upper())
                           for n in request.names]
        return response

    node = _node("answering", max_sample_bytes=4096)
    response_value = node.message_type("rcl_interfaces/msg/ParameterValue")
    service = node.create_service("rcl_interfaces/srv/GetParameters", "~/shout", answer)
    assert service.name == "/answering/shout"
    with pytest.raises(ValueError, match="already served"):
        node.create_service("rcl_interfaces/srv/GetParameters", "~/shout", answer)
    server(node)
    client = client_node.create_client("rcl_interfaces/srv/GetParameters", "/answering/shout")
    Request = client.request_type
    reply = client.call(Request(names=["ab", "c"]), timeout_s=10)
    assert [v.string_value for v in reply.values] == ["AB", "C"]
    # A callback that raises: logged, counted, answered with the empty response.
    assert client.call(Request(names=["raise"]), timeout_s=10).values == []
    assert service.failed == 1
    # A request over the node's sample limit: dropped and counted, no reply.
    with pytest.raises(TimeoutError, match="no reply"):
        client.call(Request(names=["x" * 5000]), timeout_s=1)
    assert service.dropped == 1
    # Bytes that are no request (Cyclone refuses them against the topic's
    # type), then a good request: the node keeps serving.
    rogue = DataWriter(client_node._participant, Topic(
        client_node._participant, "rq/answering/shoutRequest", wire_type(Request)),
        qos=dds_qos(SERVICES))
    deadline = time.monotonic() + 10
    while rogue.get_publication_matched_status().current_count == 0:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    ddspy_write(rogue._ref, b"\x00\x01\x00\x00" + b"\xff" * 30)
    reply = client.call(Request(names=["again"]), timeout_s=10)
    assert [v.string_value for v in reply.values] == ["AGAIN"]
    assert calls == [["ab", "c"], ["raise"], ["again"]]
    with pytest.raises(TypeError, match="sends GetParameters_Request"):
        client.call(object())


def test_a_call_without_a_server_times_out(client_node):
    client = client_node.create_client("rcl_interfaces/srv/GetParameters", "/nobody/here")
    assert not client.service_is_ready()
    with pytest.raises(TimeoutError, match="not available"):
        client.call(client.request_type(names=[]), timeout_s=0.3)


def test_parameter_services_get_set_list_describe(server, client_node):
    node = _node("tunable", "-p", "gain:=2.0")
    applied = []
    node.declare_parameter("gain", 1.0, "a gain", on_set=applied.append)
    node.declare_parameter("group.depth", 3, "nested")
    node.declare_parameter("names", ["a"], "a list", on_set=applied.append)
    assert sorted(s.name for s in node.parameter_services) == [
        f"/tunable/{n}" for n in ("describe_parameters", "get_parameter_types",
                                  "get_parameters", "list_parameters", "set_parameters",
                                  "set_parameters_atomically")]
    server(node)
    T = client_node.message_type

    def call(name, **fields):
        srv = "".join(part.capitalize() for part in name.split("_"))
        client = client_node.create_client(f"rcl_interfaces/srv/{srv}", f"/tunable/{name}")
        return client.call(client.request_type(**fields), timeout_s=10)

    values = call("get_parameters", names=["gain", "group.depth", "names", "absent"]).values
    assert [v.type for v in values] == [3, 2, 9, 0]
    assert (values[0].double_value, values[1].integer_value, values[2].string_array_value) == \
        (2.0, 3, ["a"])
    assert call("get_parameter_types", names=["gain", "absent"]).types == [3, 0]
    listed = call("list_parameters", prefixes=[], depth=0).result
    assert sorted(listed.names) == ["gain", "group.depth", "names"]
    assert listed.prefixes == ["group"]
    assert call("list_parameters", prefixes=["group"], depth=1).result.names == ["group.depth"]
    described = call("describe_parameters", names=["gain", "group.depth"]).descriptors
    assert (described[0].description, described[0].read_only) == ("a gain", False)
    assert described[1].read_only

    def parameter(name, **value):
        return T("rcl_interfaces/msg/Parameter")(
            name=name, value=T("rcl_interfaces/msg/ParameterValue")(**value))

    results = call("set_parameters", parameters=[
        parameter("gain", type=3, double_value=4.5),
        parameter("gain", type=4, string_value="abc"),
        parameter("group.depth", type=2, integer_value=1),
        parameter("absent", type=2, integer_value=1),
        parameter("gain", type=0)]).results
    assert [r.successful for r in results] == [True, False, False, False, False]
    assert "expected float" in results[1].reason
    assert "read-only" in results[2].reason
    assert "not declared" in results[3].reason
    assert "undeclared" in results[4].reason
    assert applied == [4.5]
    assert node.get_parameter("gain") == 4.5
    # Atomically: one bad value and nothing changes.
    result = call("set_parameters_atomically", parameters=[
        parameter("gain", type=3, double_value=9.0),
        parameter("names", type=9, string_array_value=[])]).result
    assert result.successful, result.reason
    assert node.get_parameter("gain") == 9.0 and node.get_parameter("names") == []
    result = call("set_parameters_atomically", parameters=[
        parameter("gain", type=3, double_value=1.0),
        parameter("group.depth", type=2, integer_value=5)]).result
    assert not result.successful and "read-only" in result.reason
    assert node.get_parameter("gain") == 9.0
    assert applied == [4.5, 9.0, []]
