"""The geometry-core command, run as a real process, and the demo scene it drives.

Every CLI test runs ``python -m geometry_core.cli`` (the module behind the
``geometry-core`` console script) as a subprocess and checks its output and
exit status: 0 ok, 1 ``check`` found penetrations, 2 bad input (message on
stderr, no traceback), 3 viewer unavailable. LCM traffic goes to
``memq://null`` (publishes nothing) except in the ``network`` test, which
runs demo and subscriber in a private network namespace.
"""

import json
import math
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from geometry_core.demo import PERIOD_S, WAYPOINTS, make_demo_scene

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "test" / "data"
SCENE = DATA / "scene.yaml"
URDF = DATA / "tiny_arm.urdf"


# The command runs in the repository root (for the relative paths of the
# tests' scene files), where `python -m` would put the source tree first on
# sys.path: safe-path mode (Python 3.11+) keeps the geometry_core this test
# imports, which under colcon test is the install space's (the source tree
# has no compiled kernels there).
SAFE_PATH = {"PYTHONSAFEPATH": "1"}


def run(*args, timeout=120, env=None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "geometry_core.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**(os.environ if env is None else env), **SAFE_PATH}, **kwargs)


def assert_bad_input(result, *fragments):
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    for fragment in fragments:
        assert fragment in result.stderr


# ---------------------------------------------------------------------- help


@pytest.mark.parametrize("command", [[], ["demo"], ["check"], ["view"]])
def test_help_on_every_subcommand(command):
    result = run(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: geometry-core")
    assert "exit status" in result.stdout or command == ["demo"]


def test_version_and_missing_command():
    assert run("--version").stdout.startswith("geometry-core 0.")
    result = run()
    assert result.returncode == 2 and "required: COMMAND" in result.stderr


# --------------------------------------------------------------------- check


def test_check_clear_scene_exits_0_with_a_table():
    result = run("check", SCENE, "--pose", "home")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (f"scene {SCENE}: 3 frames, 9 geometries (8 with proximity); "
                        "pose 'home'")
    assert "penetrations: 0" in lines
    assert "clearances within 0.1 m: 3" in lines
    header = next(line for line in lines if line.strip().startswith("geometry A") and
                  "distance [m]" in line)
    row = next(line for line in lines if "link1::joint_ball" in line)
    # Aligned: the distance column is right-aligned under its header.
    assert row.index("0.010000") + len("0.010000") == header.index("distance [m]") + len(
        "distance [m]")
    assert "(+0.0000, +0.3400, +0.3000)" in row  # witness on the ball, in world


def test_check_penetration_exits_1():
    result = run("check", SCENE, "--pose", "reach_post")
    assert result.returncode == 1, result.stderr
    assert "penetrations: 2" in result.stdout
    assert "link2::hand" in result.stdout and "world::post" in result.stdout


def test_check_json():
    result = run("check", SCENE, "--pose", "reach_post", "--format", "json",
                 "--max-distance", "0.02")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["max_distance"] == 0.02
    pairs = {(p["geometry_A"], p["geometry_B"]) for p in report["penetrations"]}
    assert pairs == {("link2::hand", "world::post"), ("link2::knob_hull", "world::post")}
    hand = next(p for p in report["penetrations"] if p["geometry_A"] == "link2::hand")
    assert hand["depth"] == pytest.approx(0.05, abs=1e-6)
    assert hand["nhat_BA_W"] == pytest.approx([0, -1, 0], abs=1e-4)
    assert set(hand) == {"geometry_A", "geometry_B", "depth", "p_WCa", "p_WCb", "nhat_BA_W"}
    clearance = report["clearances"][0]
    assert set(clearance) == {"geometry_A", "geometry_B", "distance", "p_WCa", "p_WCb",
                              "p_ACa", "p_BCb", "nhat_BA_W"}
    assert [c["distance"] for c in report["clearances"]] == sorted(
        c["distance"] for c in report["clearances"])
    assert all(c["distance"] <= 0.02 for c in report["clearances"])


def test_check_urdf_with_joints_and_package_root():
    result = run("check", URDF, "--package-root", f"tiny_arm={DATA}", "--joint", "elbow=2.9",
                 "--format", "json")
    assert result.returncode == 1, result.stderr
    pairs = {frozenset((p["geometry_A"].split("::")[0], p["geometry_B"].split("::")[0]))
             for p in json.loads(result.stdout)["penetrations"]}
    assert pairs == {frozenset(("base", "tool")), frozenset(("link1", "link3")),
                     frozenset(("link1", "tool"))}
    straight = run("check", URDF, "--package-root", f"tiny_arm={DATA}")
    assert straight.returncode == 0, straight.stderr


@pytest.mark.parametrize("args, fragments", [
    (["check", DATA / "broken" / "unknown_key.yaml"],
     ["unknown_key.yaml:10: unknown key 'colour'", "allowed keys: rgba"]),
    (["check", DATA / "broken" / "negative_size.yaml"],
     ["negative_size.yaml:10: box size must have 3 positive numbers, got [1, -2]"]),
    (["check", DATA / "broken" / "bad_syntax.yaml"], ["bad_syntax.yaml:6: YAML syntax error"]),
    (["check", DATA / "broken" / "bad_joint.urdf"],
     ["bad_joint.urdf:7: joint 'shoulder': child link 'forearm'"]),
    (["check", DATA / "no_such.yaml"], ["no_such.yaml: cannot read the file"]),
    (["check", DATA / "broken" / "missing_mesh.urdf"],
     ["missing_mesh.urdf:5: link 'base', collision #1: mesh file 'meshes/no_such_mesh.obj' "
      "not found"]),
    (["check", SCENE, "--pose", "nope"], ["has no pose named 'nope'; poses: home, reach_post"]),
    (["check", SCENE, "--joint", "a=1"], ["has no joints"]),
    (["check", URDF, "--package-root", f"tiny_arm={DATA}", "--pose", "home"],
     ["has no pose named 'home'; poses: (none); a URDF's named poses come from its MoveIt "
      "SRDF", "--srdf"]),
    (["check"], ["give a SCENE file or --robot NAME"]),
    (["check", SCENE, "--robot", "panda"], ["give a SCENE file or --robot NAME"]),
    (["check", URDF, "--package-root", f"tiny_arm={DATA}", "--joint", "elbow=9"],
     ["position 9 of joint 'elbow' is outside its limits [-3, 3]"]),
    (["check", URDF, "--package-root", f"tiny_arm={DATA}", "--joint", "elbow=up"],
     ["--joint elbow=up: the value must be a number"]),
    (["check", URDF, "--package-root", f"tiny_arm={DATA}", "--joint", "knee=1"],
     ["no joint named 'knee'"]),
])
def test_check_bad_input_exits_2_with_the_message(args, fragments):
    assert_bad_input(run(*args), "geometry-core check: error: ", *fragments)


def _example_robot_data():
    from geometry_core.scene_files import example_robot_data_share

    if example_robot_data_share() is None:
        pytest.skip("example-robot-data is not installed (it is in the test extra)")


def test_check_robot_by_name_uses_its_srdf_and_named_poses():
    _example_robot_data()
    result = run("check", "--robot", "panda", "--pose", "default", "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["scene"].endswith("panda_description/urdf/panda.urdf")
    # The SRDF's disable_collisions pairs are filtered: without it, neighbours touch.
    from geometry_core.scene_files import example_robot

    panda = example_robot("panda")
    plain = run("check", panda.urdf, "--package-root",
                f"example-robot-data={panda.package_roots['example-robot-data']}",
                "--format", "json")
    assert len(json.loads(plain.stdout)["penetrations"]) > len(report["penetrations"])
    ur5 = run("check", "--robot", "ur5", "--pose", "nope")
    assert_bad_input(ur5, "has no pose named 'nope'; poses: ")


def test_check_robot_list_and_unknown_names():
    _example_robot_data()
    listed = run("check", "--robot", "list")
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    assert {"panda", "ur5", "z1", "ur5_robot"} <= set(names) and names == sorted(names)
    assert_bad_input(run("check", "--robot", "pandas"),
                     "--robot pandas: example-robot-data has no robot named 'pandas'; did you "
                     "mean panda", "--robot list")


@pytest.mark.parametrize("args, fragment", [
    (["check", SCENE, "--max-distance", "-1"], "expected a number >= 0"),
    (["check", SCENE, "--format", "xml"], "invalid choice: 'xml'"),
    (["check", SCENE, "--joint", "elbow"], "expected NAME=VALUE"),
    (["demo", "--rate", "0"], "expected a positive number"),
])
def test_bad_options_exit_2(args, fragment):
    result = run(*args)
    assert result.returncode == 2 and fragment in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------- demo


def test_demo_plain_output_and_summary_table():
    result = run("demo", "--no-lcm", "--duration", "1.5", "--rate", "20")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    live = [line for line in lines if line.startswith("t ")]
    # Not a TTY: one plain line per second and one at the end, no carriage returns.
    assert len(live) == 3 and "\r" not in result.stdout
    assert "6 frames" in live[0] and "0 in penetration" in live[0]
    assert "min clearance +0.070 m pedestal/upper_arm" in live[0]
    assert "query" in live[0] and " ms" in live[0]
    no_contact_yet = "t  1.50/1.5 s | 6 frames | 0 in"
    assert "in penetration" in live[-1] and not live[-1].startswith(no_contact_yet)
    assert "demo summary" in lines
    assert any("steps in penetration" in line for line in lines)
    assert any(line.strip().startswith("LCM") and "off (--no-lcm)" in line for line in lines)
    assert "pairs that penetrated:" in result.stdout
    assert "palm / table" in result.stdout or "finger_left / table" in result.stdout


def test_demo_json_summary():
    result = run("demo", "--no-lcm", "--duration", "2", "--rate", "10", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["steps"] == 21
    assert summary["frames"] == 6 and summary["proximity_geometries"] == 15
    assert 0 < summary["steps_in_penetration"] < summary["steps"]
    assert summary["min_clearance_m"] < 0
    assert summary["lcm"] == "off (--no-lcm)"
    assert {p["pair"] for p in summary["pairs_in_penetration"]} >= {"palm / table"}
    assert all(p["max_depth_m"] > 0 for p in summary["pairs_in_penetration"])


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_demo_progress_bar_on_a_tty():
    leader, follower = os.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "geometry_core.cli", "demo", "--no-lcm", "--duration",
             "0.5", "--rate", "10"], stdout=follower, stderr=subprocess.PIPE, cwd=ROOT,
            timeout=60, env={**os.environ, "COLUMNS": "200", **SAFE_PATH})
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    output = b"".join(chunks).decode()
    assert result.returncode == 0, result.stderr
    assert output.count("\r[") >= 5
    assert "[####################] t  0.50/0.5 s" in output
    assert "demo summary" in output


def test_demo_publishes_through_the_viewer_when_available():
    pytest.importorskip("lcm")
    pytest.importorskip("geometry_core.viewer")
    result = run("demo", "--duration", "0.3", "--rate", "10", "--lcm-url", "memq://null",
                 "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["lcm"].startswith("published on DRAKE_VIEWER_DRAW")


def test_demo_without_lcm_says_so_and_continues(tmp_path):
    # A stand-in `lcm` that fails to import, first on the path: the viewer is unavailable.
    (tmp_path / "lcm").mkdir()
    (tmp_path / "lcm" / "__init__.py").write_text("raise ImportError('no lcm here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = run("demo", "--duration", "0.2", "--rate", "10", env=env)
    assert result.returncode == 0, result.stderr
    assert "LCM publishing off: geometry_core.viewer is unavailable (no lcm here)" in \
        result.stdout
    assert "demo summary" in result.stdout
    view = run("view", SCENE, "--duration", "0.1", env=env)
    assert view.returncode == 3
    assert "geometry_core.viewer is unavailable" in view.stderr


def test_view_publishes_until_duration():
    pytest.importorskip("lcm")
    pytest.importorskip("geometry_core.viewer")
    result = run("view", SCENE, "--duration", "0.5", "--rate", "10", "--lcm-url",
                 "memq://null", "--contacts", "--pose", "reach_post")
    assert result.returncode == 0, result.stderr
    assert "publishing 7 illustration geometries" in result.stdout
    assert "DRAKE_VIEWER_LOAD_ROBOT / DRAKE_VIEWER_DRAW at 10 Hz for 0.5 s" in result.stdout
    assert "sent 6 draw messages" in result.stdout


def test_view_bad_input_exits_2():
    assert_bad_input(run("view", DATA / "broken" / "negative_size.yaml", "--duration", "0.1"),
                     "geometry-core view: error: ", "negative_size.yaml:10:")


SUBSCRIBER = textwrap.dedent("""
    import collections, json, sys, time, lcm
    bus = lcm.LCM(sys.argv[1])
    counts = collections.Counter()
    bus.subscribe(".*", lambda channel, data: counts.update([channel]))
    open(sys.argv[2], "w").close()
    end = time.monotonic() + float(sys.argv[3])
    while time.monotonic() < end:
        bus.handle_timeout(100)
    print(json.dumps(counts))
""")


@pytest.mark.network
def test_demo_messages_reach_an_lcm_subscriber(tmp_path):
    """Demo and subscriber in a private network namespace (only `lo`, multicast routed)."""
    pytest.importorskip("lcm")
    pytest.importorskip("geometry_core.viewer")
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    if unshare is None or not os.access(ip, os.X_OK):
        pytest.skip("needs unshare(1) and ip(8)")
    probe = subprocess.run([unshare, "-n", ip, "link", "set", "lo", "up"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace: {probe.stderr.decode().strip()}")
    url = "udpm://239.255.76.67:7667?ttl=0"
    (tmp_path / "sub.py").write_text(SUBSCRIBER)
    ready = tmp_path / "ready"
    script = (f"{ip} link set lo up && {ip} link set lo multicast on && "
              f"{ip} route add 224.0.0.0/4 dev lo && "
              f"({sys.executable} {tmp_path / 'sub.py'} '{url}' {ready} 4 > {tmp_path / 'out'} &) "
              f"&& while [ ! -e {ready} ]; do sleep 0.05; done && "
              f"{sys.executable} -m geometry_core.cli demo --duration 2 --rate 20 "
              f"--lcm-url '{url}' --json && sleep 2.5")
    result = subprocess.run([unshare, "-n", "sh", "-c", script], capture_output=True,
                            text=True, cwd=ROOT, timeout=120, env={**os.environ, **SAFE_PATH})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["lcm"].startswith("published")
    counts = json.loads((tmp_path / "out").read_text())
    assert counts.get("DRAKE_VIEWER_LOAD_ROBOT", 0) >= 1
    assert counts.get("DRAKE_VIEWER_DRAW", 0) >= 20
    assert counts.get("CONTACT_RESULTS", 0) >= 20


# ------------------------------------------------------------ the demo scene


def test_demo_scene_contents():
    demo = make_demo_scene()
    inspector = demo.scene_graph.model_inspector()
    assert list(demo.frames) == ["base", "turret", "upper_arm", "forearm", "wrist", "gripper"]
    assert demo.kinematics.joint_names() == ["yaw", "shoulder", "elbow", "wrist", "roll"]
    assert inspector.num_anchored_geometries() == 7
    assert demo.scene_graph.frames_without_poses() == []


def test_demo_trajectory_hits_waypoints_and_repeats():
    demo = make_demo_scene()
    for t, q in WAYPOINTS:
        assert list(demo.joint_positions(t).values()) == pytest.approx(list(q))
    assert demo.joint_positions(1.234) == pytest.approx(demo.joint_positions(1.234 + PERIOD_S))


@pytest.mark.parametrize("t, expected", [
    (0.0, set()),
    (1.8, {"table", "ball"}),
    (2.8, set()),
    (3.6, {"shelf_low"}),
    (4.9, set()),
])
def test_demo_goes_into_and_out_of_contact(t, expected):
    demo = make_demo_scene()
    demo.advance(t)
    obstacles = {demo.name_of(p.id_B) for p in
                 demo.scene_graph.query_object().compute_point_pair_penetration()}
    assert obstacles == expected


def test_check_urdf_with_srdf_pose_and_warnings(tmp_path):
    srdf = tmp_path / "arm.srdf"
    srdf.write_text('<robot name="tiny_arm">\n<group_state name="folded" group="arm">\n'
                    '<joint name="elbow" value="2.9"/>\n</group_state>\n'
                    '<disable_collisions link1="base" link2="tool"/>\n'
                    '<disable_collisions link1="base" link2="nope"/>\n</robot>\n')
    result = run("check", URDF, "--srdf", srdf, "--pose", "folded", "--format", "json")
    assert result.returncode == 1, result.stderr
    assert (f"geometry-core check: warning: {srdf}:6: <disable_collisions> names link 'nope', "
            "which the robot does not have; skipped") in result.stderr
    pairs = {frozenset((p["geometry_A"].split("::")[0], p["geometry_B"].split("::")[0]))
             for p in json.loads(result.stdout)["penetrations"]}
    # As at --joint elbow=2.9, less the base-tool pair the SRDF disables.
    assert pairs == {frozenset(("link1", "link3")), frozenset(("link1", "tool"))}


@pytest.mark.parametrize("output", ["json", "table"])
def test_check_never_prints_a_negative_zero(output):
    # This scene's report had six -0.0 in JSON (axis-aligned normals and points).
    result = run("check", SCENE, "--format", output, "--max-distance", "0.5")
    assert result.returncode in (0, 1), result.stderr
    assert not re.search(r"-0\.0+(?![0-9])", result.stdout), result.stdout
    if output == "json":
        numbers = json.loads(result.stdout)["clearances"][0]["nhat_BA_W"]
        assert all(math.copysign(1.0, x) > 0 for x in numbers if x == 0.0)


def test_interrupted_demo_says_it_was_interrupted():
    process = subprocess.Popen(
        [sys.executable, "-m", "geometry_core.cli", "demo", "--no-lcm", "--duration", "60",
         "--rate", "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, **SAFE_PATH},
        # SIGINT's default action, as in a terminal, even when this suite runs
        # in the background (SIGINT ignored, and children inherit that).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = process.stdout.readline()  # the header, then one line a second
        while not first.startswith("t "):
            # An empty read is the end of the output: the demo died before its rows.
            assert first, f"the demo ended before printing a row: {process.stderr.read()}"
            first = process.stdout.readline()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "demo summary (interrupted by Ctrl-C: the run did not reach its end)" in out
    assert re.search(r"run\s+INTERRUPTED at t = \d+\.\d\d s of 60 s", out), out
