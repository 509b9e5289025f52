"""The private-namespace helper: what a child sees, and LCM multicast inside it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import netns  # noqa: E402  (a test helper beside this file)

pytestmark = pytest.mark.network

REASON = netns.netns_unavailable_reason()
needs_netns = pytest.mark.skipif(REASON is not None, reason=str(REASON))


def test_this_process_is_not_in_a_private_namespace():
    assert not netns.in_private_netns()


@needs_netns
def test_child_sees_only_loopback_with_multicast_routed_to_it():
    script = ("import os, socket, subprocess, sys; sys.path.insert(0, sys.argv[1]); "
              "import netns; print([n for _, n in socket.if_nameindex()]); "
              "print(netns.in_private_netns()); "
              "print(subprocess.run(['ip', 'route', 'show', 'table', 'all'], "
              "capture_output=True, text=True, env={'PATH': '/usr/sbin:/sbin:/usr/bin:/bin'})"
              ".stdout)")
    result = netns.run_in_netns([sys.executable, "-c", script, str(Path(__file__).parent)],
                                timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "['lo']"
    assert lines[1] == "True"
    assert any(line.startswith("224.0.0.0/4 dev lo") for line in lines[2:]), result.stdout


@needs_netns
def test_lcm_udpm_round_trip_inside_the_namespace():
    script = """
from geometry_core.viewer import DrakeLcm
bus = DrakeLcm("udpm://239.255.76.67:7667?ttl=0")
got = []
bus.subscribe("PING", got.append)
bus.publish("PING", b"hello")
for _ in range(20):
    if bus.handle_subscriptions(100):
        break
print(got)
"""
    result = netns.run_in_netns([sys.executable, "-c", script], timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[b'hello']"


def test_a_marker_without_a_private_namespace_is_refused(monkeypatch):
    import socket
    if [name for _, name in socket.if_nameindex()] == ["lo"]:
        pytest.skip("this machine has only a loopback: nothing to refuse")
    monkeypatch.setenv(netns.MARKER_ENV, "1")
    with pytest.raises(RuntimeError, match="refusing to run a networked test"):
        netns.in_private_netns()
