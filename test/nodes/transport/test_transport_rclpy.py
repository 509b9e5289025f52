"""The rclpy backend against a real rclpy (skipped where rclpy is not installed).

rclpy comes from a ROS 2 distribution, not PyPI; DESIGN.md section 5 says how
to build one for local checks. These tests run the same API checks as the
DDS backend's, through rclpy.
"""

from __future__ import annotations

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from geometry_core_nodes.transport import (  # noqa: E402
    RELIABLE_RESULTS,
    TF_STATIC,
    TF_STATIC_LISTENER,
    ParameterError,
    create_node,
    get_message_type,
)

pytestmark = pytest.mark.network


def _spin_until(node, condition, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        node.spin_once(0.05)


@pytest.fixture
def node():
    created = create_node("rclpy_check", args=["--ros-args", "-p", "rate_hz:=4"], backend="rclpy")
    yield created
    created.shutdown()


def test_backend_and_message_classes(node):
    assert node.backend == "rclpy"
    from tf2_msgs.msg import TFMessage

    assert node.message_type("tf2_msgs/msg/TFMessage") is TFMessage
    assert node.message_type(get_message_type("tf2_msgs/msg/TFMessage")) is TFMessage


def test_publish_our_message_class_and_receive_rosidl(node):
    received = []
    node.create_subscription(
        "tf2_msgs/msg/TFMessage", "/tf_static", received.append, TF_STATIC_LISTENER
    )
    publisher = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf_static", TF_STATIC)
    ours = get_message_type("tf2_msgs/msg/TFMessage")(
        transforms=[get_message_type("geometry_msgs/msg/TransformStamped")(child_frame_id="c")]
    )
    publisher.publish(ours)
    _spin_until(node, lambda: received)
    assert received[0].transforms[0].child_frame_id == "c"
    assert received[0].transforms[0].transform.rotation.w == 1.0


def test_parameters_and_type_rules(node):
    assert node.declare_parameter("rate_hz", 1.0, "query rate") == 4.0
    with pytest.raises(ParameterError, match="already declared"):
        node.declare_parameter("rate_hz", 1.0)


def test_timer_logger_clock(node):
    calls = []
    node.create_timer(0.01, lambda: calls.append(1))
    _spin_until(node, lambda: len(calls) >= 3)
    node.get_logger().warn("checked")
    assert node.get_logger().counts["warn"] == 1
    stamp = node.now_msg()
    assert abs(stamp.sec - time.time()) < 5
    publisher = node.create_publisher("std_msgs/msg/String", "chatter", RELIABLE_RESULTS)
    with pytest.raises(TypeError, match="publisher on /chatter sends String"):
        publisher.publish(get_message_type("geometry_msgs/msg/Point")())
