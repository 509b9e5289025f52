"""CPU time of the scene graph node per /tf input, one input at a time.

Usage::

    python -m bench.node_cpu                       # 2000 inputs, both result topics read
    python -m bench.node_cpu --inputs 5000 --world-changes 33
    python -m bench.node_cpu --beside OTHER_VENV/bin/python   # two installations in turn

The same node, scene and transport as :mod:`bench.node_latency` (the demo
arm on the Cyclone DDS backend over loopback, ``rate_hz: 0``,
``publish_markers: true`` without a markers reader), but driven in lock
step: this process publishes one /tf message, waits until both
``penetrations`` and ``clearance`` answered its stamp, then sends the next.
Nothing is coalesced or queued, so the node's user and system CPU time
(``/proc/PID/stat``, every thread of the process: Python, Cyclone's receive
and send threads, the kernel's loopback work) over the inputs is the whole
cost of answering one input. Unlike a latency percentile, that figure hardly
moves when other processes share the cores, which makes it the number to
compare before and after a change to the node's per-message path.

``--world-changes K`` moves a MoveIt ``collision_object`` (MOVE) after every
K-th input, as :mod:`bench.node_latency`'s ``--world-changes`` does at a
rate (33 inputs per change: 30 Hz at 1 kHz /tf); a change makes the node
query the last poses again, so the node's CPU then includes those queries.

``--beside PYTHON`` runs a second node, from another installation (say the
virtual environment of a checkout of the previous version), in the next
DDS domain, and sends the inputs to the two in turn, one each: on a
machine whose load changes from one minute to the next (one run may differ
from the next by a third on a shared machine), the two then run under the
same load, and the ratio of their CPU per input is the figure to compare.

Nothing here asserts a time: benchmarks print numbers, tests assert behaviour.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.node_latency import _PARAMS, _stamp_now, _tf_messages, _world_changer
from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    TF,
    create_node,
    loopback_config,
    loopback_environment,
)

# The node's main under a profiler whose clock is the thread's CPU time; the
# stats are written when the node returns (serve() ends it on SIGTERM).
_PROFILED = """
import cProfile, sys, time
from geometry_core_nodes.scene_graph_node import main
profile = cProfile.Profile(time.thread_time)
try:
    profile.runcall(main, sys.argv[1:])
finally:
    profile.dump_stats({out!r})
"""


def _cpu_ticks(pid: int) -> tuple[int, int]:
    """User and system CPU clock ticks of process ``pid`` so far (``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


class _Node:
    """One node process under test, with the peer that drives it in lock step."""

    def __init__(self, python: str, run: list[str], params: Path, domain: int,
                 world_changes: bool) -> None:
        self.domain = domain
        # Started outside the checkout: ``python -m`` puts its working folder
        # first on sys.path, where a checkout's geometry_core would shadow the
        # installation's own.
        self.process = subprocess.Popen(
            [python, *run, "--ros-args", "--params-file", str(params)], cwd=params.parent,
            env=loopback_environment(domain), stderr=subprocess.PIPE, text=True)
        self.peer = create_node("cpu_peer", [], backend="dds", domain_id=domain,
                                dds_config=loopback_config())
        self.publisher = self.peer.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        self.messages = _tf_messages(self.peer.message_type)
        self.answered: dict[str, int] = {"penetrations": -1, "clearance": -1}
        for topic, ros_type in (("penetrations", "PenetrationPairArray"),
                                ("clearance", "SignedDistancePairArray")):
            self.peer.create_subscription(f"geometry_core_ros/msg/{ros_type}", topic,
                                          self._recorder(topic), RELIABLE_RESULTS)
        self.change = _world_changer(domain) if world_changes else None
        self.changes = 0
        self.lost = 0
        self.ticks = (0, 0)

    def _recorder(self, topic: str):
        def record(msg) -> None:
            self.answered[topic] = msg.header.stamp.sec * 1_000_000_000 \
                + msg.header.stamp.nanosec
        return record

    def send(self, n: int, timeout_s: float) -> bool:
        """Publish input ``n`` and wait until both results answered its stamp."""
        message = self.messages[n % len(self.messages)]
        stamp = _stamp_now(message)
        self.publisher.publish(message)
        deadline = time.monotonic() + timeout_s
        while min(self.answered.values()) < stamp:
            if time.monotonic() > deadline:
                return False
            self.peer.spin_once(0.01)
        return True

    def close(self) -> None:
        self.peer.shutdown()
        self.process.terminate()
        self.process.communicate(timeout=20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=2000, help="/tf messages sent (measured)")
    parser.add_argument("--warmup", type=int, default=200, help="inputs sent before measuring")
    parser.add_argument("--world-changes", metavar="K", type=int, default=0,
                        help="move a collision object after every K-th input (0: never)")
    parser.add_argument("--domain", type=int, default=170 + os.getpid() % 30)
    parser.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                        help="a scene_graph_node parameter (YAML value); repeatable")
    parser.add_argument("--beside", metavar="PYTHON",
                        help="also run the node of another installation (the python of "
                             "another checkout's virtual environment) in the next DDS "
                             "domain, the inputs alternating between the two, and print "
                             "the ratio of their CPU per input")
    parser.add_argument("--profile", metavar="FILE",
                        help="run the node under cProfile timed by its main thread's CPU time "
                             "(not wall time: waiting and being preempted cost nothing) and "
                             "write the stats to FILE (python -m pstats FILE); the CPU figures "
                             "then include the profiler's own cost")
    args = parser.parse_args(argv)
    nodes: list[_Node] = []
    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        params.write_text(_PARAMS + "".join(
            f"    {name}: {value}\n" for name, value in (s.split("=", 1) for s in args.set)))
        run = ["-m", "geometry_core_nodes.scene_graph_node"]
        try:
            nodes.append(_Node(sys.executable, run if not args.profile else [
                "-c", _PROFILED.format(out=os.path.abspath(args.profile))], params,
                args.domain, args.world_changes > 0))
            if args.beside:
                nodes.append(_Node(args.beside, run, params, args.domain + 1,
                                   args.world_changes > 0))
            # Discovery, then the warm-up inputs.
            for node in nodes:
                deadline = time.monotonic() + 30
                while not node.send(0, 0.5):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the node of domain {node.domain} did not answer "
                                           "within 30 s")
            for n in range(args.warmup):
                for node in nodes:
                    node.send(n, 2.0)
            for node in nodes:
                node.ticks = _cpu_ticks(node.process.pid)
            wall0 = time.monotonic()
            # Input by input, one node then the other: both under the same load.
            for n in range(args.inputs):
                for node in nodes:
                    if node.change is not None and n % args.world_changes == 0:
                        node.change(node.changes)
                        node.changes += 1
                    if not node.send(n, 2.0):
                        node.lost += 1
            wall = time.monotonic() - wall0
            for node in nodes:
                user, system = _cpu_ticks(node.process.pid)
                node.ticks = (user - node.ticks[0], system - node.ticks[1])
        finally:
            for node in nodes:
                node.close()
    tick_ms = 1e3 / os.sysconf("SC_CLK_TCK")
    print(f"scene_graph_node CPU per /tf input, lock step, {args.inputs} inputs "
          f"({wall / args.inputs / len(nodes) * 1e3:.2f} ms each round trip), both result "
          "topics read, "
          + (f"a collision object moved every {args.world_changes} inputs "
             f"({nodes[0].changes} moves)" if args.world_changes > 0 else "world still")
          + "".join(f"; {node.lost} inputs unanswered within 2 s" for node in nodes
                    if node.lost))
    per_input = []
    for node, name in zip(nodes, ["node", f"node beside ({args.beside})"]):
        user, system = (ticks * tick_ms / args.inputs for ticks in node.ticks)
        per_input.append(user + system)
        print(f"{name} CPU per input: {user + system:.3f} ms (user {user:.3f} ms, "
              f"system {system:.3f} ms); load average {os.getloadavg()[0]:.2f}")
    if len(per_input) == 2 and per_input[1] > 0:
        print(f"ratio node / node beside: {per_input[0] / per_input[1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
