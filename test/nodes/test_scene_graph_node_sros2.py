"""The scene graph node under SROS2 on rclpy: a secured client is answered, an unsecured one is not.

Runs where ROS 2 is sourced (rclpy, the ``ros2 security`` verb, rmw_cyclonedds
with Debian's Cyclone DDS security plugins, generated ``geometry_core_ros``
messages) and a private network namespace can be made; skipped with the
reason elsewhere. Inside the namespace (``netns.run_here_or_in_netns``):

1. ``ros2 security create_keystore`` and ``create_enclave`` for the node and
   for a client;
2. the node on rclpy with ``ROS_SECURITY_ENABLE=true``,
   ``ROS_SECURITY_STRATEGY=Enforce`` and ``--enclave``;
3. a secured client (same keystore, its own enclave) publishes the demo
   arm's /tf and must get the library's answer; an unsecured client at the
   same time publishes /tf with another stamp and must get nothing, and its
   /tf must never reach the node (no result carries its stamp).

Run it in the workspace of the README's ROS 2 recipe (built, sourced, its
virtual environment active)::

    python -m pytest src/geometry_core/test/nodes/test_scene_graph_node_sros2.py
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("rclpy", reason="rclpy comes with a ROS 2 installation")
pytest.importorskip("geometry_core_ros.msg", reason="geometry_core_ros messages not generated")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "viewer"))
import netns  # noqa: E402

_spec = importlib.util.spec_from_file_location("node_scenario", HERE / "node_scenario.py")
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

NODE_ENCLAVE = "/geometry_core/scene_graph_node"
CLIENT_ENCLAVE = "/geometry_core/client"
SECURED_STAMP = scenario.STAMP_NS + 1
UNSECURED_STAMP = scenario.STAMP_NS + 2

# A client: publishes the arm's /tf with its stamp for ``seconds`` and prints
# the stamps and pairs of every penetrations message it receives, as JSON.
_CLIENT = """
import json, sys, time
sys.path.insert(0, {here!r})
import node_scenario as scenario
from geometry_core_nodes.transport import RELIABLE_RESULTS, TF, create_node

args = ["--ros-args", "--enclave", {enclave!r}] if {enclave!r} else []
node = create_node("client", args, backend="rclpy")
T = node.message_type
tf = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
received = []
node.create_subscription("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                         received.append, RELIABLE_RESULTS)
arm = scenario.demo_transforms(T, scenario.T_CONTACT, {stamp})
deadline = time.monotonic() + {seconds}
while time.monotonic() < deadline:
    tf.publish(arm)
    node.spin_once(0.05)
print(json.dumps([[scenario.stamp_ns_of(m), scenario.pairs_as_dicts(m)] for m in received]))
node.shutdown()
"""


def _ros2() -> str | None:
    return shutil.which("ros2")


def _environment(keystore: Path | None) -> dict[str, str]:
    # sros2's default governance covers domain 0 only; the namespace is ours alone.
    env = scenario.loopback_environment(0)
    env.update(GEOMETRY_CORE_TRANSPORT="rclpy", RMW_IMPLEMENTATION="rmw_cyclonedds_cpp",
               PYTHONUNBUFFERED="1")
    for key in ("ROS_SECURITY_KEYSTORE", "ROS_SECURITY_ENABLE", "ROS_SECURITY_STRATEGY"):
        env.pop(key, None)
    if keystore is not None:
        env.update(ROS_SECURITY_KEYSTORE=str(keystore), ROS_SECURITY_ENABLE="true",
                   ROS_SECURITY_STRATEGY="Enforce")
    return env


def _client(tmp_path: Path, enclave: str, stamp: int, keystore: Path | None,
            seconds: float) -> subprocess.Popen:
    script = tmp_path / f"client_{stamp}.py"
    script.write_text(_CLIENT.format(here=str(HERE), enclave=enclave, stamp=stamp,
                                     seconds=seconds))
    return subprocess.Popen([sys.executable, str(script)], env=_environment(keystore),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_secured_client_gets_results_and_unsecured_one_gets_nothing(request, tmp_path):
    if _ros2() is None:
        pytest.skip("the ros2 command (ros2cli with sros2) is not on PATH")
    if not netns.run_here_or_in_netns(request, timeout=600):
        return  # ran, and passed, in a private network namespace
    keystore = tmp_path / "keystore"
    for command in (["create_keystore", str(keystore)],
                    ["create_enclave", str(keystore), NODE_ENCLAVE],
                    ["create_enclave", str(keystore), CLIENT_ENCLAVE]):
        run = subprocess.run([_ros2(), "security", *command], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
    params = scenario.write_params(tmp_path / "params.yaml", scene_file="builtin:demo",
                                   max_distance=0.1, publish_markers=False)
    node = subprocess.Popen(
        [sys.executable, "-m", "geometry_core_nodes.scene_graph_node", "--ros-args",
         "--params-file", str(params), "--enclave", NODE_ENCLAVE],
        env=_environment(keystore), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        time.sleep(3.0)  # the node's start-up, then both clients at once
        assert node.poll() is None, node.communicate()[0]
        secured = _client(tmp_path, CLIENT_ENCLAVE, SECURED_STAMP, keystore, 12.0)
        unsecured = _client(tmp_path, "", UNSECURED_STAMP, None, 12.0)
        outputs = {}
        for name, process in (("secured", secured), ("unsecured", unsecured)):
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, f"{name} client failed:\n{err}"
            outputs[name] = json.loads(out.strip().splitlines()[-1])
    finally:
        node.send_signal(2)
        log = node.communicate(timeout=30)[0]
    assert node.returncode == 0, log
    assert outputs["unsecured"] == [], "an unsecured client received results"
    stamps = {stamp for stamp, _ in outputs["secured"]}
    assert SECURED_STAMP in stamps, (outputs["secured"][:3], log)
    assert UNSECURED_STAMP not in stamps, "the unsecured client's /tf reached the node"
    expected = scenario.reference(scenario.T_CONTACT)["penetrations"]
    answer = next(pairs for stamp, pairs in outputs["secured"] if stamp == SECURED_STAMP)
    scenario.assert_pairs_match(answer, expected)
