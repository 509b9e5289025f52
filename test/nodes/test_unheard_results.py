"""A result topic that no reader has matched is not computed nor written, and is counted.

The scene graph node's results are volatile (a reader that matches later
never gets an earlier sample), so a query whose topic nobody reads is work
for no one; the node leaves it out and counts it per topic (``unheard``),
and logs the counts at shutdown. Real DDS on loopback, in one process.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

from geometry_core_nodes.transport import RELIABLE_RESULTS, create_node, loopback_config

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]


def _until(condition, what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_results_are_computed_only_for_topics_a_reader_matched():
    from geometry_core_nodes.scene_graph_node import SceneGraphNode

    domain = 60 + os.getpid() % 7
    node = SceneGraphNode(["--ros-args", "-p", "scene_file:=builtin:demo",
                           "-p", "publish_markers:=false"], backend="dds",
                          domain_id=domain, dds_config=loopback_config())
    peer = create_node("reader", [], backend="dds", domain_id=domain,
                       dds_config=loopback_config())
    stamp = [scenario.STAMP_NS]

    def answer():
        stamp[0] += 1
        node.inputs._on_tf(scenario.demo_transforms(node.node.message_type, scenario.T_CONTACT,
                                                    stamp[0]))
        assert node.publish_results()

    try:
        answer()  # nobody reads either topic: no query, both counted
        assert node.unheard == {"/penetrations": 1, "/clearance": 1}
        penetrations, clearance = [], []
        peer.create_subscription("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                                 penetrations.append, RELIABLE_RESULTS)
        _until(lambda: node._penetration_pub.get_subscription_count() > 0, "no match")
        answer()
        _until(lambda: peer.spin_once(0.05) or penetrations, "no penetrations")
        assert penetrations[-1].pairs, "the demo's contact configuration has contacts"
        assert node.unheard == {"/penetrations": 1, "/clearance": 2}
        peer.create_subscription("geometry_core_ros/msg/SignedDistancePairArray", "clearance",
                                 clearance.append, RELIABLE_RESULTS)
        _until(lambda: node._clearance_pub.get_subscription_count() > 0, "no match")
        answer()
        _until(lambda: peer.spin_once(0.05) or clearance, "no clearance")
        assert clearance[-1].pairs and node.unheard == {"/penetrations": 1, "/clearance": 2}
        assert node.queries == 3
    finally:
        peer.shutdown()
        node.shutdown()
