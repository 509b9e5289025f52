"""The DDS backend's node API in one process: topics, timers, spinning, logging, parameters.

Every participant is created with ``dds_config=loopback_config()``: bound
to ``lo``, no multicast, unicast peer 127.0.0.1 only.
"""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    SENSOR_DATA,
    TF_STATIC,
    TF_STATIC_LISTENER,
    TransportNode,
    create_node,
    get_message_type,
    loopback_config,
)

pytestmark = [pytest.mark.network, pytest.mark.dds]

# One domain for this module's in-process participants, away from other tests.
DOMAIN = 10 + (os.getpid() * 13) % 90


def _node(name: str, *ros_args: str, **options) -> TransportNode:
    args = ["--ros-args", *ros_args] if ros_args else []
    return create_node(
        name, args=args, backend="dds", domain_id=DOMAIN, dds_config=loopback_config(), **options
    )


@pytest.fixture
def nodes():
    created: list[TransportNode] = []

    def make(name: str, *ros_args: str, **options) -> TransportNode:
        node = _node(name, *ros_args, **options)
        created.append(node)
        return node

    yield make
    for node in created:
        node.shutdown()


def _spin_until(node: TransportNode, condition, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        node.spin_once(0.05)


def test_publish_subscribe_with_remap_and_namespace(nodes):
    talker = nodes("talker")
    listener = nodes("listener", "-r", "__ns:=/robot", "-r", "results:=/shared/results")
    String = talker.message_type("std_msgs/msg/String")
    publisher = talker.create_publisher(String, "/shared/results", RELIABLE_RESULTS)
    received = []
    subscription = listener.create_subscription(
        "std_msgs/msg/String", "results", received.append, RELIABLE_RESULTS
    )
    assert listener.fully_qualified_name == "/robot/listener"
    assert subscription.topic == publisher.topic == "/shared/results"
    _spin_until(listener, lambda: publisher.get_subscription_count() == 1)
    _spin_until(listener, lambda: subscription.get_publisher_count() == 1)
    publisher.publish(String(data="odd"))
    _spin_until(listener, lambda: received)
    assert received == [String(data="odd")]


def test_topic_name_resolution(nodes):
    node = nodes("resolver", "-r", "__ns:=/ns")
    assert node.resolve_topic("tf") == "/ns/tf"
    assert node.resolve_topic("/tf") == "/tf"
    assert node.resolve_topic("~/markers") == "/ns/resolver/markers"
    for bad in ("", "a//b", "1abc", "trailing/", "sp ace"):
        with pytest.raises(ValueError, match="invalid topic name"):
            node.resolve_topic(bad)


def test_transient_local_in_process(nodes):
    static_talker = nodes("static_talker")
    TFMessage = get_message_type("tf2_msgs/msg/TFMessage")
    TransformStamped = get_message_type("geometry_msgs/msg/TransformStamped")
    publisher = static_talker.create_publisher(TFMessage, "/tf_static", TF_STATIC)
    message = TFMessage(transforms=[TransformStamped(child_frame_id="camera")])
    publisher.publish(message)
    late = nodes("late_listener")
    received = []
    late.create_subscription(TFMessage, "/tf_static", received.append, TF_STATIC_LISTENER)
    _spin_until(late, lambda: received)
    assert received == [message]


def test_publish_checks_type_and_topic_type(nodes):
    node = nodes("typed")
    publisher = node.create_publisher("std_msgs/msg/String", "chatter", SENSOR_DATA)
    with pytest.raises(TypeError, match="publisher on /chatter sends std_msgs/msg/String"):
        publisher.publish(get_message_type("geometry_msgs/msg/Point")())
    with pytest.raises(ValueError, match="topic /chatter is already used with std_msgs/msg/String"):
        node.create_publisher("geometry_msgs/msg/Point", "chatter", SENSOR_DATA)
    with pytest.raises(LookupError, match="no definition of message type 'nope_msgs/msg/Nope'"):
        node.create_publisher("nope_msgs/msg/Nope", "x", SENSOR_DATA)


def test_timers_run_on_spinning_thread_and_cancel(nodes):
    node = nodes("timed")
    calls: list[tuple[float, int]] = []
    timer = node.create_timer(0.02, lambda: calls.append((time.monotonic(), threading.get_ident())))
    start = time.monotonic()
    _spin_until(node, lambda: len(calls) >= 5)
    elapsed = time.monotonic() - start
    assert elapsed >= 0.09  # five periods of 20 ms cannot come sooner
    assert {ident for _, ident in calls} == {threading.get_ident()}
    timer.cancel()
    count = len(calls)
    deadline = time.monotonic() + 0.1
    while time.monotonic() < deadline:
        node.spin_once(0.02)
    assert len(calls) == count and timer.is_canceled()
    for bad in (0, -1.0, float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="timer period must be a positive number"):
            node.create_timer(bad, lambda: None)


def test_shutdown_from_callback_ends_spin(nodes):
    node = nodes("stopper")
    node.create_timer(0.01, node.shutdown)
    node.spin()
    assert not node.ok
    node.shutdown()  # twice is fine
    with pytest.raises(RuntimeError, match="node /stopper is shut down"):
        node.create_timer(1.0, lambda: None)


def test_shutdown_from_another_thread_ends_spin(nodes):
    node = nodes("remote_stop")
    stopper = threading.Timer(0.2, node.shutdown)
    stopper.start()
    start = time.monotonic()
    node.spin()
    assert time.monotonic() - start < 5.0 and not node.ok


def test_spin_inside_callback_is_an_error(nodes):
    node = nodes("nested")
    node.create_timer(0.01, lambda: node.spin_once(0.0))
    with pytest.raises(RuntimeError, match="is already spinning"):
        _spin_until(node, lambda: False, timeout_s=2.0)


def test_logger_counts_and_level(nodes):
    stream = io.StringIO()
    node = nodes("talkative", "--log-level", "warn", "-p", "typo:=1", log_stream=stream)
    logger = node.get_logger()
    logger.info("hidden")
    logger.warn("shown")
    logger.error("also shown")
    node.spin_once(0.0)  # reports the undeclared override 'typo'
    assert logger.counts["info"] == 1 and logger.counts["error"] == 1
    assert logger.counts["warn"] == 2
    lines = stream.getvalue().splitlines()
    assert "hidden" not in stream.getvalue()
    assert lines[0].startswith("[WARN] [") and lines[0].endswith("[/talkative]: shown")
    assert "parameter 'typo' is set (by -p typo:=1) but this node does not declare it" in lines[-1]


def test_a_log_period_is_due_first_then_once_per_period():
    from geometry_core_nodes.transport.base import LogPeriod

    now = [100.0]
    period = LogPeriod(10.0, clock=lambda: now[0])
    assert period.due() and not period.due()
    now[0] = 109.9
    assert not period.due()
    now[0] = 110.0
    assert period.due() and not period.due()


def test_parameters_through_create_node(nodes, tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("configured:\n  ros__parameters:\n    max_distance: 0.3\n    rate_hz: 4\n")
    node = nodes("configured", "--params-file", str(params), "-p", "configured:rate_hz:=8.0")
    assert node.declare_parameter("max_distance", 0.1, "clearance limit, m") == 0.3
    assert node.declare_parameter("rate_hz", 1.0, "query rate") == 8.0
    assert node.get_parameter("rate_hz") == 8.0


def test_clock_and_time_message(nodes):
    node = nodes("clocked")
    before = time.time_ns()
    stamp = node.now_msg()
    after = time.time_ns()
    assert before <= stamp.sec * 1_000_000_000 + stamp.nanosec <= after
    assert 0 <= stamp.nanosec < 1_000_000_000


def test_invalid_node_and_domain(nodes):
    with pytest.raises(ValueError, match="invalid node name '9lives'"):
        _node("9lives")
    with pytest.raises(ValueError, match="domain_id must be in 0..232"):
        create_node("n", args=[], backend="dds", domain_id=300)
    with pytest.raises(ValueError, match="already configured differently"):
        create_node(
            "n", args=[], backend="dds", domain_id=DOMAIN, dds_config=loopback_config(interface="x")
        )
