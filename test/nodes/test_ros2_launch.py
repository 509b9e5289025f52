"""``ros2 launch geometry_core_ros scene_graph.launch.py`` on a real ROS 2.

An rclpy client publishes the demo arm's /tf to the launched node and
compares its results with the library's; with ``demo:=true`` the launch
moves the arm itself and an rclpy subscriber sees penetrations and
clearances at once; bad launch arguments and a node
that exits on bad configuration make ``ros2 launch`` fail, naming what was
wrong. Needs the ``ros2`` command, rclpy and a workspace where
``geometry_core_ros`` is built and sourced: skipped elsewhere (CI runs it
with ROS 2 Humble, inside a private network namespace).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
pytest.importorskip("geometry_core_ros.msg", reason="geometry_core_ros messages not generated")
if shutil.which("ros2") is None:
    pytest.skip("the ros2 command comes with a ROS 2 installation", allow_module_level=True)
if subprocess.run(["ros2", "pkg", "prefix", "geometry_core_ros"],
                  capture_output=True).returncode != 0:
    pytest.skip("geometry_core_ros is not built and sourced", allow_module_level=True)

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]


def _launch(domain: int, *arguments: str) -> scenario.NodeProcess:
    command = ["ros2", "launch", "geometry_core_ros", "scene_graph.launch.py", *arguments]
    return scenario.NodeProcess("scene_graph_node", Path(os.devnull), domain, command=command,
                                backend="rclpy")


def test_launched_node_answers_an_rclpy_client_as_the_library_does(monkeypatch):
    domain = 60 + os.getpid() % 7
    for key, value in scenario.loopback_environment(domain).items():
        monkeypatch.setenv(key, value)
    peer = scenario.Peer(domain, backend="rclpy")
    T = peer.message_type
    stamp = scenario.STAMP_NS
    poses = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
    try:
        with _launch(domain, "scene_file:=builtin:demo", "max_distance:=0.2") as launch:
            launch.wait_for_line("ready on the rclpy backend")
            penetrations = peer.wait_for("penetrations",
                                         lambda m: scenario.stamp_ns_of(m) == stamp,
                                         repeat=lambda: peer.tf.publish(poses))
            clearance = peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == stamp)
            expected = scenario.reference(scenario.T_CONTACT, max_distance=0.2)
            assert expected["penetrations"] and expected["clearance"]
            scenario.assert_pairs_match(scenario.pairs_as_dicts(penetrations),
                                        expected["penetrations"])
            scenario.assert_pairs_match(scenario.pairs_as_dicts(clearance),
                                        expected["clearance"])
            assert clearance.max_distance == pytest.approx(0.2)
            assert launch.stop() == 0, launch.output
    finally:
        peer.shutdown()


def test_demo_launch_shows_results_to_an_rclpy_subscriber_at_once(monkeypatch):
    domain = 80 + os.getpid() % 7
    for key, value in scenario.loopback_environment(domain).items():
        monkeypatch.setenv(key, value)
    peer = scenario.Peer(domain, backend="rclpy")
    try:
        with _launch(domain, "demo:=true") as launch:
            launch.wait_for_line("publishing the demo arm's 6 frames on /tf")
            # No /tf from the test: the demo motion node moves the arm, and it
            # starts in contact, so the first results already hold pairs.
            penetrations = peer.wait_for("penetrations", lambda m: len(m.pairs) > 0)
            clearance = peer.wait_for("clearance", lambda m: len(m.pairs) > 0)
            names = {p.geometry_a for p in penetrations.pairs} | {
                p.geometry_b for p in penetrations.pairs}
            assert any(name.startswith("arm::") for name in names), names
            assert not penetrations.lost_frames and not clearance.lost_frames
            assert launch.stop() == 0, launch.output
    finally:
        peer.shutdown()


def test_demo_with_another_scene_is_refused_by_name():
    with _launch(70 + os.getpid() % 7, "demo:=true", "scene_file:=other.yaml") as launch:
        launch.process.wait(60)
    assert launch.process.returncode == 1, launch.output
    assert "launch argument 'scene_file:=other.yaml': demo:=true moves the demo arm" \
        in launch.output


def test_a_bad_launch_argument_is_named_and_fails_the_launch():
    with _launch(70 + os.getpid() % 7, "max_distance:=abc") as launch:
        launch.process.wait(60)
    assert launch.process.returncode == 1, launch.output
    assert "launch argument 'max_distance:=abc': expected a number" in launch.output


def test_a_node_exiting_on_bad_configuration_fails_the_launch(tmp_path):
    missing = tmp_path / "missing.yaml"
    with _launch(70 + os.getpid() % 7, f"scene_file:={missing}") as launch:
        launch.process.wait(60)
    assert launch.process.returncode == 1, launch.output
    assert f"scene_graph_node: error: {missing}" in launch.output
    assert "exited with status 2" in launch.output
