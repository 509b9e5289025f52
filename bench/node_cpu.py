"""CPU time of the scene graph node per /tf input, one input at a time.

Usage::

    python -m bench.node_cpu                       # 2000 inputs, both result topics read
    python -m bench.node_cpu --inputs 5000 --world-changes 33

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

from bench.node_latency import _PARAMS, _tf_messages, _world_changer
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=2000, help="/tf messages sent (measured)")
    parser.add_argument("--warmup", type=int, default=200, help="inputs sent before measuring")
    parser.add_argument("--world-changes", metavar="K", type=int, default=0,
                        help="move a collision object after every K-th input (0: never)")
    parser.add_argument("--domain", type=int, default=170 + os.getpid() % 30)
    parser.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                        help="a scene_graph_node parameter (YAML value); repeatable")
    parser.add_argument("--profile", metavar="FILE",
                        help="run the node under cProfile timed by its main thread's CPU time "
                             "(not wall time: waiting and being preempted cost nothing) and "
                             "write the stats to FILE (python -m pstats FILE); the CPU figures "
                             "then include the profiler's own cost")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        params.write_text(_PARAMS + "".join(
            f"    {name}: {value}\n" for name, value in (s.split("=", 1) for s in args.set)))
        run = ["-m", "geometry_core_nodes.scene_graph_node"] if not args.profile else [
            "-c", _PROFILED.format(out=os.path.abspath(args.profile))]
        node = subprocess.Popen(
            [sys.executable, *run, "--ros-args", "--params-file", str(params)],
            env=loopback_environment(args.domain), stderr=subprocess.PIPE, text=True)
        peer = create_node("cpu_peer", [], backend="dds", domain_id=args.domain,
                           dds_config=loopback_config())
        try:
            publisher = peer.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
            messages = _tf_messages(peer.message_type)
            answered: dict[str, int] = {"penetrations": -1, "clearance": -1}

            def on_result(topic: str):
                def record(msg) -> None:
                    answered[topic] = msg.header.stamp.sec * 1_000_000_000 \
                        + msg.header.stamp.nanosec
                return record

            peer.create_subscription("geometry_core_ros/msg/PenetrationPairArray",
                                     "penetrations", on_result("penetrations"),
                                     RELIABLE_RESULTS)
            peer.create_subscription("geometry_core_ros/msg/SignedDistancePairArray",
                                     "clearance", on_result("clearance"), RELIABLE_RESULTS)
            change = _world_changer(args.domain) if args.world_changes > 0 else None
            changes = 0
            lost = 0

            def send(n: int, timeout_s: float) -> bool:
                message = messages[n % len(messages)]
                stamp = time.time_ns()
                sec, nanosec = divmod(stamp, 1_000_000_000)
                for transform in message.transforms:
                    transform.header.stamp.sec, transform.header.stamp.nanosec = sec, nanosec
                publisher.publish(message)
                deadline = time.monotonic() + timeout_s
                while min(answered.values()) < stamp:
                    if time.monotonic() > deadline:
                        return False
                    peer.spin_once(0.01)
                return True

            # Discovery, then the warm-up inputs.
            deadline = time.monotonic() + 30
            while not send(0, 0.5):
                if time.monotonic() > deadline:
                    raise RuntimeError("the node did not answer within 30 s")
            for n in range(args.warmup):
                send(n, 2.0)
            user0, system0 = _cpu_ticks(node.pid)
            wall0 = time.monotonic()
            for n in range(args.inputs):
                if change is not None and n % args.world_changes == 0:
                    change(changes)
                    changes += 1
                if not send(n, 2.0):
                    lost += 1
            wall = time.monotonic() - wall0
            user1, system1 = _cpu_ticks(node.pid)
        finally:
            peer.shutdown()
            node.terminate()
            node.communicate(timeout=20)
    tick_ms = 1e3 / os.sysconf("SC_CLK_TCK")
    user = (user1 - user0) * tick_ms / args.inputs
    system = (system1 - system0) * tick_ms / args.inputs
    print(f"scene_graph_node CPU per /tf input, lock step, {args.inputs} inputs "
          f"({wall / args.inputs * 1e3:.2f} ms each round trip), both result topics read, "
          + (f"a collision object moved every {args.world_changes} inputs ({changes} moves)"
             if change is not None else "world still")
          + (f"; {lost} inputs unanswered within 2 s" if lost else ""))
    print(f"node CPU per input: {user + system:.3f} ms (user {user:.3f} ms, "
          f"system {system:.3f} ms); load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
