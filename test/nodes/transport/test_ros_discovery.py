"""The DDS backend announces its nodes on ``ros_discovery_info``, as rmw does.

Read back with a plain Cyclone DDS reader (everywhere), and by a real
``ros2 node list`` (where ROS 2 is installed and sourced; CI runs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest
from cyclonedds.core import Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    TF,
    create_node,
    loopback_config,
    loopback_environment,
)
from geometry_core_nodes.transport.ros_discovery import (
    DISCOVERY_TOPIC,
    DiscoveryAnnouncer,
    ParticipantEntitiesInfo,
)

pytestmark = [pytest.mark.network, pytest.mark.dds]

DOMAIN = 80 + os.getpid() % 7


def _node(name, namespace="/"):
    return create_node(name, [], backend="dds", namespace=namespace, domain_id=DOMAIN,
                       dds_config=loopback_config())


def _take_until(reader, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        seen += reader.take(N=100)
        matching = [info for info in seen if predicate(info)]
        if matching:
            return matching[-1]
        time.sleep(0.05)
    raise TimeoutError(f"no matching ros_discovery_info in {timeout} s: {seen}")


def test_a_dds_node_announces_its_name_and_its_readers_and_writers():
    node = _node("announced", namespace="/cell")
    try:
        publisher = node.create_publisher("geometry_core_ros/msg/PenetrationPairArray",
                                          "penetrations", RELIABLE_RESULTS)
        node.create_subscription("tf2_msgs/msg/TFMessage", "/tf", lambda msg: None, TF)
        listener = DomainParticipant(DOMAIN)
        topic = Topic(listener, DISCOVERY_TOPIC, ParticipantEntitiesInfo)
        # A late joiner, as ros2 node list is: transient local gives it the latest.
        reader = DataReader(listener, topic, qos=Qos(*DiscoveryAnnouncer.QOS.policies))
        # Besides these two, the request reader and reply writer of each of
        # the six parameter services, as rmw announces a service's.
        services = len(node.parameter_services)
        info = _take_until(reader, lambda i: any(
            n.node_name == "announced" and len(n.reader_gid_seq) == 1 + services
            for n in i.node_entities_info_seq))
        (entry,) = info.node_entities_info_seq
        assert entry.node_namespace == "/cell"
        assert len(entry.writer_gid_seq) == 1 + services
        participant_guid = node._participant.guid.bytes
        assert bytes(info.gid.data) == participant_guid + bytes(8)
        writer_guid = publisher._writer.guid.bytes
        assert writer_guid + bytes(8) in [bytes(g.data) for g in entry.writer_gid_seq]
        # GUIDs of one participant share its 12-byte prefix, as DDS assigns them.
        assert bytes(entry.reader_gid_seq[0].data)[:12] == participant_guid[:12]
    finally:
        node.shutdown()


def test_ros2_node_list_shows_a_node_on_the_dds_backend():
    if shutil.which("ros2") is None:
        pytest.skip("the ros2 command comes with a ROS 2 installation")
    env = loopback_environment(DOMAIN)
    env["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
    node = _node("dds_backend_node", namespace="/cell")
    try:
        node.create_publisher("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                              RELIABLE_RESULTS)
        listed = ""
        for _ in range(10):  # discovery takes a moment; each try waits a second
            done = subprocess.run(["ros2", "node", "list", "--no-daemon", "--spin-time", "1"],
                                  env=env, capture_output=True, text=True, timeout=60)
            listed = done.stdout + done.stderr
            if "/cell/dds_backend_node" in listed.split():
                break
        assert "/cell/dds_backend_node" in listed.split(), listed
        done = subprocess.run(["ros2", "node", "info", "--no-daemon", "--spin-time", "1",
                               "/cell/dds_backend_node"],
                              env=env, capture_output=True, text=True, timeout=60)
        assert "/cell/penetrations: geometry_core_ros/msg/PenetrationPairArray" in done.stdout, (
            done.stdout + done.stderr)
    finally:
        node.shutdown()
