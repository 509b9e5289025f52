"""``geometry_core_nodes.run PARAMS.yaml``: the example parameter file's nodes, stopped by Ctrl-C.

The same command is ``geometry-core run`` where the package's entry points
are installed (pip); the library's CLI finds it there and nowhere else.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "example_params.yaml"

_spec = importlib.util.spec_from_file_location(
    "node_scenario", Path(__file__).with_name("node_scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)


@pytest.mark.network
@pytest.mark.dds
def test_run_starts_both_nodes_of_the_example_and_ctrl_c_stops_them(tmp_path):
    pytest.importorskip("lcm")
    sections = yaml.safe_load(EXAMPLE.read_text())
    # The example draws on LCM's default multicast URL; this test writes an LCM log file.
    log_path = tmp_path / "viewer.lcmlog"
    sections["lcm_bridge_node"]["ros__parameters"]["lcm_url"] = f"file://{log_path}?mode=w"
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(sections))
    domain = 40 + os.getpid() % 9
    command = [sys.executable, "-m", "geometry_core_nodes.run", str(params),
               "--ros-args", "-p", "world_frame:=map"]
    peer = scenario.Peer(domain)
    tf = scenario.demo_transforms(peer.message_type, scenario.T_CONTACT, scenario.STAMP_NS)
    tf.transforms[0].header.frame_id = "map"  # base, on the renamed world
    with scenario.NodeProcess("", params, domain, command=command) as run:
        try:
            msg = peer.wait_for("clearance", lambda m: True, repeat=lambda: peer.tf.publish(tf))
            run.wait_for_line("[/lcm_bridge_node]: ready")
        finally:
            returncode = run.stop()
            peer.shutdown()
    assert returncode == 0, run.output
    assert msg.header.frame_id == "map"  # --ros-args reach the nodes
    assert "running scene_graph_node, lcm_bridge_node" in run.output
    assert "Traceback" not in run.output
    assert log_path.stat().st_size > 0


def test_run_refuses_a_file_that_is_not_a_parameter_file(tmp_path, capsys):
    from geometry_core_nodes.run import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    assert main([str(bad)]) == 2
    assert "geometry-core-run: error: " in capsys.readouterr().err
    assert main([str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main([str(EXAMPLE), "-p", "x:=1"]) == 2
    assert "extra arguments start with --ros-args" in capsys.readouterr().err


def test_geometry_core_run_is_the_nodes_command_where_entry_points_are_installed(tmp_path, capsys):
    names = [e.name for e in importlib.metadata.entry_points(group="geometry_core.cli")]
    if "run" not in names:
        pytest.skip("no geometry_core.cli entry points here (not a pip install)")
    from geometry_core.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    assert main(["run", str(bad)]) == 2
    assert "geometry-core run: error: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "Cyclone DDS backend" in capsys.readouterr().out
