"""Two OS processes exchange ROS 2 messages over Cyclone DDS, on loopback only.

Every DDS participant these tests start is configured by
``loopback_config()`` (bound to ``lo``, multicast off, the single unicast
peer 127.0.0.1), through ``CYCLONEDDS_URI`` in the child's environment.
Each test uses its own DDS domain so that concurrent runs do not meet. One
test repeats the exchange inside a private network namespace (``unshare
-n``) where no other interface exists, and one reads Cyclone's packet trace
to check that no locator other than 127.0.0.1 was used.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from geometry_core_nodes.transport import (
    get_message_type,
    loopback_config,
    loopback_environment,
)

PEER = Path(__file__).with_name("dds_peer.py")
_spec = importlib.util.spec_from_file_location("dds_peer", PEER)
dds_peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dds_peer)

_DOMAINS = itertools.count((os.getpid() * 7) % 97)
NS = {"c": "https://cdds.io/config"}


def _domain_id() -> int:
    """A DDS domain for one test, different between tests and, likely, between runs."""
    return 120 + next(_DOMAINS) % 110


def _expected_tf() -> dict:
    message = dds_peer.make_tf_message(get_message_type)
    return json.loads(json.dumps(dataclasses.asdict(message)))


def _peer(mode: str, env: dict, *options: str) -> list[str]:
    return [sys.executable, str(PEER), mode, *options]


def _start_publisher(env: dict, *options: str) -> subprocess.Popen:
    return subprocess.Popen(
        _peer("publish", env, *options),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(process: subprocess.Popen) -> str:
    process.kill()
    _, stderr = process.communicate(timeout=30)
    return stderr


def _subscribe(env: dict, *options: str, timeout: float = 20.0) -> subprocess.CompletedProcess:
    return subprocess.run(
        _peer("subscribe", env, *options, "--timeout", str(timeout)),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout + 40,
    )


def _received(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, f"subscriber failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_loopback_config_binds_lo_without_multicast():
    root = ElementTree.fromstring(loopback_config())
    domain = root.find("c:Domain", NS)
    assert domain.get("Id") == "any"
    interfaces = domain.findall("c:General/c:Interfaces/c:NetworkInterface", NS)
    assert [i.get("name") for i in interfaces] == ["lo"]
    assert domain.findtext("c:General/c:AllowMulticast", namespaces=NS) == "false"
    peers = domain.findall("c:Discovery/c:Peers/c:Peer", NS)
    assert [p.get("Address") for p in peers] == ["127.0.0.1"]
    assert domain.findtext("c:Discovery/c:ParticipantIndex", namespaces=NS) == "auto"


def test_loopback_config_rejects_bad_arguments():
    with pytest.raises(ValueError, match="max_participants must be in 1..119"):
        loopback_config(max_participants=0)
    with pytest.raises(ValueError, match="trace_verbosity must be one of"):
        loopback_config(trace_verbosity="loud")
    with pytest.raises(ValueError, match="domain_id must be in 0..232"):
        loopback_environment(233)


@pytest.mark.network
@pytest.mark.dds
def test_tf_message_between_processes():
    env = loopback_environment(_domain_id())
    publisher = _start_publisher(env, "--topic", "/tf", "--qos", "tf", "--count", "0")
    try:
        result = _subscribe(env, "--topic", "/tf", "--qos", "tf")
    finally:
        stderr = _stop(publisher)
    assert _received(result) == _expected_tf(), stderr


@pytest.mark.network
@pytest.mark.dds
def test_best_effort_subscriber_receives_from_reliable_publisher():
    env = loopback_environment(_domain_id())
    publisher = _start_publisher(env, "--topic", "/poses", "--qos", "results", "--count", "0")
    try:
        result = _subscribe(env, "--topic", "/poses", "--qos", "sensor")
    finally:
        _stop(publisher)
    assert _received(result) == _expected_tf()


@pytest.mark.network
@pytest.mark.dds
def test_tf_static_reaches_late_subscriber():
    env = loopback_environment(_domain_id())
    publisher = _start_publisher(env, "--topic", "/tf_static", "--qos", "tf_static", "--count", "1")
    try:
        # The one sample is written before the subscriber's process exists.
        assert publisher.stdout.readline().strip() == "published"
        time.sleep(0.5)
        late = _subscribe(env, "--topic", "/tf_static", "--qos", "tf_static")
        # Control: a volatile subscriber joining late gets nothing, so the
        # transient-local durability is what delivered the sample above.
        volatile = _subscribe(env, "--topic", "/tf_static", "--qos", "results", timeout=2.0)
    finally:
        _stop(publisher)
    assert _received(late) == _expected_tf()
    assert volatile.returncode == 3, volatile.stdout + volatile.stderr


def _unshare_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, timeout=30
    )
    return probe.returncode == 0


@pytest.mark.network
@pytest.mark.dds
def test_exchange_in_private_network_namespace():
    if not _unshare_works():
        pytest.skip("unshare -n is not permitted here (needs root or user namespaces)")
    env = loopback_environment(_domain_id())
    command = (
        "ip link set lo up && exec "
        f"{sys.executable} {PEER} exchange --topic /tf --qos tf --timeout 20"
    )
    result = subprocess.run(
        ["unshare", "-n", "sh", "-c", command],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert _received(result) == _expected_tf()


# Trace lines that list addresses without sending to them: the host's
# interfaces, and the configured (here unused) multicast addresses.
_INFORMATIONAL = re.compile(r": (interfaces|SPDP MC|default MC|config): ")
_LOCATOR = re.compile(r"udp/(\d+\.\d+\.\d+\.\d+)")


@pytest.mark.network
@pytest.mark.dds
def test_traffic_uses_only_loopback_addresses(tmp_path):
    domain = _domain_id()

    def env_for(name: str) -> dict:
        env = loopback_environment(domain)
        env["CYCLONEDDS_URI"] = loopback_config(
            trace_file=str(tmp_path / f"{name}.log"), trace_verbosity="finest"
        )
        return env

    publisher = _start_publisher(env_for("publisher"), "--topic", "/tf", "--count", "0")
    try:
        result = _subscribe(env_for("subscriber"), "--topic", "/tf")
    finally:
        _stop(publisher)
    assert _received(result) == _expected_tf()
    for name in ("publisher", "subscriber"):
        trace = (tmp_path / f"{name}.log").read_text(errors="replace")
        assert "selected interfaces: lo " in trace
        assert "No multicast SPDP" in trace
        used = {
            address
            for line in trace.splitlines()
            if not _INFORMATIONAL.search(line)
            for address in _LOCATOR.findall(line)
        }
        assert used == {"127.0.0.1"}, f"{name} used {used}"
