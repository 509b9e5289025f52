"""Run tests that use the network inside a private network namespace.

DESIGN.md section 6: networked tests never send to a real interface. A test
that opens LCM ``udpm://`` (or DDS) sockets re-executes itself in a fresh
namespace made by ``unshare -n``, where the only interface is a loopback with
multicast enabled and ``224.0.0.0/4`` routed to it:

.. code-block:: python

    import netns

    @pytest.mark.network
    def test_over_udpm(request):
        if not netns.run_here_or_in_netns(request):
            return  # the body ran (and passed) in a private namespace
        ...  # here: inside the namespace, only `lo` exists

Outside the namespace, :func:`run_here_or_in_netns` runs ``pytest <this test's
node id>`` in a new namespace, fails the calling test with the child's
output when the child fails, and returns False. Inside, it checks that ``lo``
is the only interface and returns True. Where namespaces cannot be made
(not root, no ``unshare``/``ip``, a container without CAP_SYS_ADMIN) the test
is skipped with the reason.

Nothing in this module is viewer-specific: it is meant to be moved to
``test/`` for the DDS tests as it is. Import it with this folder on
``sys.path`` (the tests insert it: pytest's importlib mode does not).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence

import pytest

__all__ = [
    "MARKER_ENV",
    "SETUP_COMMANDS",
    "in_private_netns",
    "netns_unavailable_reason",
    "run_here_or_in_netns",
    "run_in_netns",
]

#: Set to "1" in the environment of every process started in a namespace.
MARKER_ENV = "GEOMETRY_CORE_PRIVATE_NETNS"

#: Shell commands that make the new namespace's loopback carry multicast.
SETUP_COMMANDS = (
    "ip link set lo up",
    "ip link set lo multicast on",
    "ip route add 224.0.0.0/4 dev lo",
)


def _tool(name: str) -> str | None:
    """Find a tool on PATH or in the sbin folders a non-login PATH may lack."""
    return shutil.which(name) or next(
        (f"{d}/{name}" for d in ("/usr/sbin", "/sbin", "/usr/bin", "/bin")
         if os.access(f"{d}/{name}", os.X_OK)), None)


@functools.cache
def netns_unavailable_reason() -> str | None:
    """Return why private namespaces cannot be made here, or None if they can."""
    unshare, ip = _tool("unshare"), _tool("ip")
    if unshare is None or ip is None:
        return "unshare(1) and ip(8) are needed for a private network namespace"
    try:
        probe = subprocess.run([unshare, "-n", ip, "link", "set", "lo", "up"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unshare -n failed: {err}"
    if probe.returncode != 0:
        return f"unshare -n failed (root or CAP_SYS_ADMIN needed): {probe.stderr.strip()}"
    return None


def in_private_netns() -> bool:
    """Report whether this process runs in a namespace made here, with only ``lo``."""
    if os.environ.get(MARKER_ENV) != "1":
        return False
    names = [name for _, name in socket.if_nameindex()]
    if names != ["lo"]:
        raise RuntimeError(f"{MARKER_ENV} is set but the interfaces are {names}: refusing "
                           "to run a networked test outside a private namespace")
    return True


def run_in_netns(argv: Sequence[str], *, timeout: float, env: dict[str, str] | None = None,
                 cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` in a new private network namespace and return its result.

    The namespace has only a loopback, up, with multicast routed to it (see
    :data:`SETUP_COMMANDS`); it disappears when the command exits.

    Raises
    ------
    RuntimeError
        If namespaces cannot be made here (the reason is in the message).
    subprocess.TimeoutExpired
        If the command runs longer than ``timeout`` seconds.
    """
    reason = netns_unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    ip = _tool("ip")
    setup = " && ".join(command.replace("ip ", f"{ip} ", 1) for command in SETUP_COMMANDS)
    child_env = dict(os.environ if env is None else env)
    child_env[MARKER_ENV] = "1"
    return subprocess.run(
        [_tool("unshare"), "-n", "sh", "-c", f'{setup} && exec "$@"', "sh", *argv],
        env=child_env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def run_here_or_in_netns(request: pytest.FixtureRequest, *, timeout: float = 300.0) -> bool:
    """Return True inside a private namespace; else run this test in one and return False.

    Outside, the calling test is re-run as ``python -m pytest <node id>`` in a
    new namespace; a failing child fails the caller (with the child's
    output), a child that skipped skips it with the child's reason.
    """
    if in_private_netns():
        return True
    reason = netns_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    rootdir = str(request.config.rootpath)
    # Safe-path mode: the child imports the geometry_core this process uses (under
    # colcon test, the install space's), not the checkout's source tree in rootdir.
    result = run_in_netns(
        [sys.executable, "-m", "pytest", request.node.nodeid, "-q", "-rA",
         "-p", "no:cacheprovider", "--rootdir", rootdir],
        timeout=timeout, cwd=rootdir, env={**os.environ, "PYTHONSAFEPATH": "1"})
    output = f"--- child pytest (rc {result.returncode}) ---\n{result.stdout}\n{result.stderr}"
    lines = result.stdout.strip().splitlines()
    summary = lines[-1] if lines else ""
    # -rA lists the child's test as "PASSED <node id>"; the count line alone
    # is not enough, as a doubled -q (PYTEST_ADDOPTS under colcon test) drops it.
    passed_line = re.compile(r"^PASSED \S*::" + re.escape(request.node.name) + r"$", re.M)
    if result.returncode == 0 and (re.search(r"\b1 passed\b", summary)
                                   or passed_line.search(result.stdout)):
        return False
    if result.returncode in (0, 5):  # skipped, or nothing collected
        pytest.skip(f"the test did not run in the private namespace: {summary}\n{output}")
    pytest.fail(f"the test failed in its private namespace:\n{output}", pytrace=False)
