"""The DDS backend against a hostile writer, and under enforced ROS 2 security.

A sample whose bytes do not decode (a string that is not UTF-8; Cyclone
itself refuses truncated CDR before Python sees it) is counted, logged at a
rate limit and dropped; the subscription and every other one keep receiving.
With ``ROS_SECURITY_ENABLE=true`` and ``ROS_SECURITY_STRATEGY=Enforce`` the
backend refuses to create a node.
"""

from __future__ import annotations

import importlib.util
import io
import os
import time
from pathlib import Path

import pytest

from geometry_core_nodes.transport import TF, create_node, loopback_config
from geometry_core_nodes.transport.dds import DdsSecurityError, check_security_environment

_spec = importlib.util.spec_from_file_location(
    "hostile", Path(__file__).parent.parent / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

pytestmark = [pytest.mark.network, pytest.mark.dds]

DOMAIN = 100 + (os.getpid() * 7) % 19


def _transform(T, child: str):
    return T("geometry_msgs/msg/TransformStamped")(
        header=T("std_msgs/msg/Header")(frame_id="world"), child_frame_id=child,
        transform=T("geometry_msgs/msg/Transform")(
            rotation=T("geometry_msgs/msg/Quaternion")(w=1.0)))


def test_undecodable_samples_are_dropped_and_the_subscriptions_keep_working():
    stream = io.StringIO()
    node = create_node("victim", [], backend="dds", domain_id=DOMAIN,
                       dds_config=loopback_config(), log_stream=stream)
    writer = hostile.RawWriter(DOMAIN, "/tf", "tf2_msgs/msg/TFMessage", TF,
                               dds_config=loopback_config())
    try:
        T = node.message_type
        received, other = [], []
        subscription = node.create_subscription("tf2_msgs/msg/TFMessage", "/tf",
                                                received.append, TF)
        node.create_subscription("std_msgs/msg/String", "/chatter", other.append, TF)
        chatter = node.create_publisher("std_msgs/msg/String", "/chatter", TF)
        deadline = time.monotonic() + 10
        while writer.matched() == 0:
            assert time.monotonic() < deadline, "the raw writer never matched"
            node.spin_once(0.05)
        bad = hostile.patch_string(T("tf2_msgs/msg/TFMessage")(
            transforms=[_transform(T, hostile.PLACEHOLDER)]))
        good = T("tf2_msgs/msg/TFMessage")(transforms=[_transform(T, "fine")])
        for _ in range(3):
            writer.write(bad)
        writer.write(good.serialize(use_version_2=False))
        chatter.publish(T("std_msgs/msg/String")(data="still here"))
        while not (received and other):
            assert time.monotonic() < deadline, f"nothing received; log:\n{stream.getvalue()}"
            node.spin_once(0.05)
        assert [t.child_frame_id for m in received for t in m.transforms] == ["fine"]
        assert other[0].data == "still here"
        assert subscription.dropped == 3
        log = stream.getvalue()
        # One line for the first, the rest counted within the rate limit.
        assert log.count("dropped a sample on /tf") == 1, log
        assert "cannot be decoded as tf2_msgs/msg/TFMessage: UnicodeDecodeError" in log
        assert "[undecodable #1]" in log
    finally:
        writer.close()
        node.shutdown()


def test_enforced_security_refuses_to_start_with_a_reason(monkeypatch):
    monkeypatch.setenv("ROS_SECURITY_ENABLE", "true")
    monkeypatch.setenv("ROS_SECURITY_STRATEGY", "Enforce")
    with pytest.raises(DdsSecurityError, match="has no DDS security plugins and would talk "
                                               "in the clear: refusing to start"):
        create_node("secured", [], backend="dds", domain_id=DOMAIN,
                    dds_config=loopback_config())


@pytest.mark.parametrize("environ, warns", [
    ({}, False),
    ({"ROS_SECURITY_ENABLE": "false", "ROS_SECURITY_STRATEGY": "Enforce"}, False),
    ({"ROS_SECURITY_ENABLE": "true"}, True),
    ({"ROS_SECURITY_ENABLE": "true", "ROS_SECURITY_STRATEGY": "Permissive"}, True),
])
def test_security_without_enforce_runs_with_a_warning(environ, warns):
    warning = check_security_environment(environ)
    assert (warning is not None) == warns
    if warns:
        assert "talks unsecured" in warning
