"""The rclpy backend against a hostile writer (skipped where rclpy is not installed).

Where the DDS backend's decoder raised on a string that is not UTF-8 (and
now drops the sample), rclpy (Humble) decodes it with replacement
characters: the node receives a frame name nobody uses and keeps taking.
This test pins that, so a change of rclpy's behaviour is seen. The writer
runs in a process of its own (the cyclonedds wheel beside rclpy's Cyclone in
one process is not something to rely on) and writes raw CDR.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy")

from geometry_core_nodes.transport import TF, create_node, loopback_config  # noqa: E402

pytestmark = [pytest.mark.network, pytest.mark.dds]

_WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {here!r})
    import hostile
    from geometry_core_nodes.transport import TF, get_message_type, loopback_config

    T = get_message_type
    writer = hostile.RawWriter({domain}, "/tf", "tf2_msgs/msg/TFMessage", TF,
                               dds_config=loopback_config())
    deadline = time.monotonic() + 20
    while writer.matched() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    tf = T("tf2_msgs/msg/TFMessage")
    for _ in range(3):
        writer.write(hostile.patch_string(tf(transforms=[
            hostile.transform(T, "world", hostile.PLACEHOLDER)])))
    time.sleep(0.5)
    writer.write(tf(transforms=[hostile.transform(T, "world", "fine")]).serialize(
        use_version_2=False))
    time.sleep(3)
    writer.close()
""")


def test_invalid_utf8_arrives_replaced_and_the_node_keeps_taking(monkeypatch):
    domain = 40 + os.getpid() % 20
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
    monkeypatch.setenv("CYCLONEDDS_URI", loopback_config())
    node = create_node("rclpy_victim", [], backend="rclpy")
    writer = None
    try:
        received = []
        node.create_subscription("tf2_msgs/msg/TFMessage", "/tf", received.append, TF)
        script = _WRITER.format(here=str(Path(__file__).parent.parent), domain=domain)
        writer = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE,
                                  text=True)
        deadline = time.monotonic() + 30
        while len(received) < 4:
            assert time.monotonic() < deadline, f"{len(received)} of 4 received"
            node.spin_once(0.05)
        names = [t.child_frame_id for m in received for t in m.transforms]
        assert names == ["\ufffd" * 4] * 3 + ["fine"]
        assert node.ok
    finally:
        node.shutdown()
        if writer is not None:
            writer.wait(30)
