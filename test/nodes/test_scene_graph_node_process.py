"""The real scene graph node process, driven over DDS by the test as a separate participant.

Each test starts ``python -m geometry_core_nodes.scene_graph_node --ros-args
--params-file ...`` on the DDS backend with the loopback-only Cyclone
configuration (``loopback_environment``), in a DDS domain of its own; the
test process publishes /tf, /tf_static and poses with its own participant and
compares the node's results with the library's, computed here for the same
poses. One test repeats the main scenario inside a private network
namespace (``unshare -n``) where ``lo`` is the only interface.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("node_scenario", HERE / "node_scenario.py")
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 13) % 53)


def _domain_id() -> int:
    """A DDS domain per test, away from the transport tests' 120..229."""
    return 60 + next(_DOMAINS) % 55


def _params(tmp_path: Path, **values) -> Path:
    defaults = dict(scene_file="builtin:demo", max_distance=0.1, stale_after_s=0.5)
    return scenario.write_params(tmp_path / "params.yaml", **{**defaults, **values})


def _check_static_then_dynamic(result: dict) -> None:
    assert result["returncode"] == 0, result["log"]
    log = result["log"]
    # turret and upper_arm only: pairs among base, turret, upper_arm and the world.
    partial = scenario.reference(scenario.T_CONTACT, ("base", "turret", "upper_arm"))
    scenario.assert_pairs_match(result["partial_clearance"], partial["clearance"])
    # Each frame without a pose is reported once, however many queries leave it out.
    reported = [name for line in log.splitlines() if "no pose yet for frame(s) " in line
                for name in line.split("frame(s) ")[1].split(":")[0].split(", ")]
    assert sorted(reported) == sorted(set(reported)), log
    assert {"forearm", "wrist", "gripper"} <= set(reported) <= set(scenario.ARM_FRAMES[1:])
    expected = scenario.reference(scenario.T_CONTACT)
    assert expected["penetrations"], "the demo should be in contact at T_CONTACT"
    scenario.assert_pairs_match(result["penetrations"], expected["penetrations"])
    scenario.assert_pairs_match(result["clearance"], expected["clearance"])
    assert result["frame_id"] == "world"
    assert result["stale_frames"] == []
    assert result["max_distance"] == 0.1
    kinds = [(ns, kind, action) for ns, _, kind, action in result["markers"]]
    assert kinds[0] == ("", 0, 3)  # DELETEALL first
    assert ("penetration_points", 7, 0) in kinds and ("clearance", 5, 0) in kinds
    arrows = [m for m in result["markers"] if m[0] == "penetration_normals"]
    assert [m[1] for m in arrows] == list(range(len(expected["penetrations"])))


def test_static_before_start_partial_then_full_poses_match_the_library(tmp_path):
    result = scenario.static_then_dynamic(_domain_id(), _params(tmp_path))
    _check_static_then_dynamic(result)


def _unshare_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def test_same_scenario_in_a_private_network_namespace(tmp_path):
    if not _unshare_works():
        pytest.skip("unshare -n is not permitted here (needs root or user namespaces)")
    params = _params(tmp_path)
    command = (f"ip link set lo up && exec {sys.executable} {HERE / 'node_scenario.py'} "
               f"{_domain_id()} {params}")
    run = subprocess.run(["unshare", "-n", "sh", "-c", command], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    _check_static_then_dynamic(json.loads(run.stdout.strip().splitlines()[-1]))


def test_bad_input_is_counted_and_the_node_keeps_answering_and_flags_stale_frames(tmp_path):
    domain = _domain_id()
    params = _params(tmp_path, pose_topics=["/poses/gripper", "/poses/no_such_frame"])
    peer = scenario.Peer(domain, pose_topics=["/poses/gripper", "/poses/no_such_frame"])
    T = peer.message_type
    poses = scenario.demo_poses(scenario.T_CONTACT)
    stamp = scenario.STAMP_NS

    def pose_msg(frame: str, stamp_ns: int, nan: bool = False):
        _, X_PF = poses["gripper"]
        transform = scenario.make_transform(T, "wrist", frame, X_PF, stamp_ns)
        r, p = transform.transform.rotation, transform.transform.translation
        return T("geometry_msgs/msg/PoseStamped")(
            header=transform.header,
            pose=T("geometry_msgs/msg/Pose")(
                position=T("geometry_msgs/msg/Point")(x=math.nan if nan else p.x, y=p.y, z=p.z),
                orientation=r))

    arm = scenario.demo_transforms(T, scenario.T_CONTACT, stamp, scenario.ARM_FRAMES[:-1])
    nan_tf = scenario.demo_transforms(T, scenario.T_CONTACT, stamp + 1, ("gripper",))
    nan_tf.transforms[0].transform.rotation.w = math.nan
    wrong_parent = scenario.demo_transforms(T, scenario.T_CONTACT, stamp + 1, ("gripper",))
    wrong_parent.transforms[0].header.frame_id = "base"
    with scenario.NodeProcess("scene_graph_node", params, domain) as node:
        try:
            def send_first():
                peer.tf.publish(arm)
                peer.poses["/poses/gripper"].publish(pose_msg("gripper", stamp))

            # /tf and /poses/gripper are separate readers: the node may answer the arm's
            # poses before the gripper's arrive. Every contact at T_CONTACT involves the
            # gripper, so an answer with no pairs is that partial one; wait past it.
            first = peer.wait_for("penetrations",
                                  lambda m: scenario.stamp_ns_of(m) == stamp and len(m.pairs) > 0,
                                  repeat=send_first)
            expected = scenario.reference(scenario.T_CONTACT)
            scenario.assert_pairs_match(scenario.pairs_as_dicts(first),
                                        expected["penetrations"])
            # Bad input of every kind, then a valid update: the node must answer it.
            peer.tf.publish(nan_tf)
            peer.tf.publish(wrong_parent)
            peer.poses["/poses/gripper"].publish(pose_msg("gripper", stamp + 1, nan=True))
            peer.poses["/poses/no_such_frame"].publish(pose_msg("no_such_frame", stamp + 1))
            node.wait_for_line("[unknown_frame #1]")
            # 2 s later, all but the gripper move on: only the gripper is stale.
            later = stamp + 2 * 10**9
            moved = scenario.demo_transforms(T, scenario.T_CONTACT, later,
                                             scenario.ARM_FRAMES[:-1])
            msg = peer.wait_for("clearance", lambda m: scenario.stamp_ns_of(m) == later,
                                repeat=lambda: peer.tf.publish(moved))
            assert list(msg.stale_frames) == ["gripper"]
            scenario.assert_pairs_match(scenario.pairs_as_dicts(msg), expected["clearance"])
        finally:
            returncode = node.stop()
            peer.shutdown()
    log = node.output
    assert returncode == 0, log
    assert "frame 'gripper': transform.rotation is not finite" in log and "[bad_pose #1]" in log
    # The second bad pose of the same frame is counted, not logged (rate limit).
    assert "pose.position is not finite" not in log
    assert "frame 'gripper' is given in 'base', but its parent in the scene is 'wrist'" in log
    assert "pose topic for frame 'no_such_frame'" in log
    assert "dropped inputs: bad_pose 2, unknown_frame 1, wrong_parent 1" in log
    assert "Traceback" not in log


def test_bad_parameters_exit_with_status_2_and_a_message(tmp_path):
    params = _params(tmp_path, scene_file=str(tmp_path / "missing.yaml"), rate_hz=-1.0)
    with scenario.NodeProcess("scene_graph_node", params, _domain_id()) as node:
        node.process.wait(30)
    assert node.process.returncode == 2
    assert ("scene_graph_node: error: parameter 'rate_hz' must be a finite number >= 0"
            in node.output)
