"""The scene graph node on rclpy, and across backends (rclpy <-> built-in DDS).

rclpy comes with a ROS 2 installation (not from PyPI): these tests run where
``import rclpy`` works, with rmw_cyclonedds and the generated
``geometry_core_ros`` messages, and are skipped elsewhere.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
pytest.importorskip("geometry_core_ros.msg", reason="geometry_core_ros messages not generated")

from geometry_core_nodes.transport import loopback_config  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)
_check = importlib.util.spec_from_file_location(
    "node_process_tests", Path(__file__).with_name("test_scene_graph_node_process.py"))

pytestmark = [pytest.mark.network, pytest.mark.dds]


@pytest.mark.parametrize("node_backend, peer_backend",
                         [("rclpy", "rclpy"), ("dds", "rclpy"), ("rclpy", "dds")])
def test_static_then_dynamic_on_rclpy(tmp_path, monkeypatch, node_backend, peer_backend):
    domain = 30 + os.getpid() % 7
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
    monkeypatch.setenv("CYCLONEDDS_URI", loopback_config())
    monkeypatch.setenv("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp")
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=0.1, stale_after_s=0.5)
    result = scenario.static_then_dynamic(domain, params, node_backend, peer_backend)
    tests = importlib.util.module_from_spec(_check)
    _check.loader.exec_module(tests)
    tests._check_static_then_dynamic(result)
