"""Pose-in to result-out latency of the scene graph node through the real transport.

Usage::

    python -m bench.node_latency                   # 100 Hz and 1 kHz, 5 s each
    python -m bench.node_latency --rates 100 --duration 10
    python -m bench.node_latency --set min_query_period_s=0.002   # a node parameter
    python -m bench.node_latency --rates 1000 --read-clearance --world-changes 30
    python -m bench.node_latency --node-python OTHER_VENV/bin/python   # another installation
    python -m bench.node_latency --rates 1000 --read-clearance --world-changes 30 \
        --beside OTHER_VENV/bin/python --pairs 5     # both, alternated, with ratios

Starts ``python -m geometry_core_nodes.scene_graph_node`` on the built-in
demo arm (six moving frames, 17 geometries) on the Cyclone DDS backend with
the loopback-only configuration, in a DDS domain of its own. A sender
process publishes the arm's /tf along the demo's scripted motion (in and
out of contact) at each input rate, every message stamped with its send
time, and this process subscribes to ``penetrations``: a result's header
stamp is the newest pose it used, so ``receive time - stamp`` is the
latency from pose out to result in, and the stamps tell which input each
result answered.

The harness keeps out of the node's way, as separate programs on a robot
would: the sender is a process of its own (a tf broadcaster and a planner
do not share an interpreter), it sends the messages' bytes made once with
only the stamps written per message, and the reader takes each result's
stamp from its bytes instead of decoding the message. Each side's CPU is
printed beside the node's. ``--node-python PYTHON`` runs the node from
another installation (the version before a change, say) under the same
harness. ``--beside PYTHON`` runs both nodes in one invocation, alternating
which goes first for ``--pairs`` pairs (each node started afresh, the
sender and reader kept), and prints each pair's ratios of CPU and p99
beside both runs' host steal, and their medians over all pairs and over the
quiet ones.
The node computes and writes only the results some reader matched, so by
default (``penetrations`` read, ``clearance`` not) it runs the penetration
query alone; ``--read-clearance`` subscribes to both, as a node feeding a
planner and a monitor would run.

With ``rate_hz: 0`` the node queries once per batch of poses it takes from
DDS, so above its query rate it answers fewer inputs (``results/sent`` < 1)
instead of queueing them. The backlog check: if a queue grew, the latency of
the last quarter of results would exceed that of the first quarter, and the
last input's result would arrive late after sending stops (``drain``).
The percentiles above are over the inputs answered; ``p99 every input``
is over every input sent: one the node coalesced into a newer one is late
until the first result at least as new as it arrives, and one no result
covered counts as never answered (the column says how many).

Beside the latency, the node's CPU: user plus system time of its process
(``/proc/PID/stat``) over the wall time of each rate, as a share of one
core. Beside it the host's steal time over the run (``/proc/stat``), as a
share of all this machine's CPUs: on a virtual machine, runs with much of it
shared the host with a busy neighbour and read slower and costlier; compare
runs of little steal. Beside the node's CPU, its context switches per input
sent, over all its threads (``/proc/PID/task/*/status``): ``wake-ups``,
the times a thread went to sleep (about one per input when the receive
thread answers each one), and ``preempted``, the times the kernel took the
CPU from a thread that could have run on (on a busy machine, for the
results' reader, which a write of the node woke on the node's CPU). And at
exit the node's own count of /tf messages taken and of those coalesced
(superseded by a newer message before a query used them), which
``SceneInputs.report_dropped`` logs: every input is either answered or
counted there; with the world moving, also how many of its changes the
next /tf message's query answered (``SceneGraphNode.world_changes_joined``).

``--world-changes HZ`` runs each rate twice, side by side on the same node:
the world still, then a MoveIt ``collision_object`` (a box beside the
arm's path, added once) moved (MOVE) at HZ while /tf runs, as a planner or
a perception pipeline updates it; the table gets a row per run and the
ratios of the moving run's p50, p99 and CPU to the still run's. A world
change makes the node query the last poses again, so a result whose stamp
was answered already is not a new latency sample: only the first result of
each stamp counts (in both runs).

Also printed: the library's own query time for the same poses (penetration
plus signed distance, in this process), the floor of the node's latency.
Nothing here asserts a time: benchmarks print numbers, tests assert behaviour.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from geometry_core.demo import PERIOD_S, make_demo_scene
from geometry_core.math import quaternion_wxyz_to_xyzw, rotation_matrix_to_quaternion
from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    TF,
    create_node,
    loopback_config,
    loopback_environment,
)

_PARAMS = """scene_graph_node:
  ros__parameters:
    scene_file: "builtin:demo"
    max_distance: 0.1
    rate_hz: 0.0
    publish_markers: true
"""
#: Distinct arm configurations cycled through (one demo period).
_CONFIGURATIONS = 250


def _tf_messages(message_type) -> list:
    """TFMessages of the demo arm along one period of its motion (stamps set at send time)."""
    T = message_type
    demo = make_demo_scene()
    inspector = demo.scene_graph.model_inspector()
    world = inspector.world_frame_id()
    messages = []
    for t in np.linspace(0.0, PERIOD_S, _CONFIGURATIONS, endpoint=False):
        transforms = []
        for frame_id, X_PF in demo.kinematics.calc_frame_poses(demo.joint_positions(t)).items():
            parent = inspector.get_parent_frame(frame_id)
            q = quaternion_wxyz_to_xyzw(rotation_matrix_to_quaternion(X_PF.rotation().matrix()))
            p = X_PF.translation()
            transforms.append(T("geometry_msgs/msg/TransformStamped")(
                header=T("std_msgs/msg/Header")(
                    frame_id="world" if parent == world else inspector.get_name(parent)),
                child_frame_id=inspector.get_name(frame_id),
                transform=T("geometry_msgs/msg/Transform")(
                    translation=T("geometry_msgs/msg/Vector3")(x=p[0], y=p[1], z=p[2]),
                    rotation=T("geometry_msgs/msg/Quaternion")(x=q[0], y=q[1], z=q[2], w=q[3]))))
        messages.append(T("tf2_msgs/msg/TFMessage")(transforms=transforms))
    return messages


def _stamp_now(message) -> int:
    """Stamp every transform of ``message`` with the time now; that time in ns."""
    stamp = time.time_ns()
    sec, nanosec = divmod(stamp, 1_000_000_000)
    for transform in message.transforms:
        transform.header.stamp.sec, transform.header.stamp.nanosec = sec, nanosec
    return stamp


def _library_query_ms() -> tuple[float, float]:
    """Median and 99th percentile of one node query (penetration + clearance) in this process."""
    demo = make_demo_scene()
    times = []
    for t in np.linspace(0.0, PERIOD_S, 100, endpoint=False):
        demo.advance(t)
        t0 = time.perf_counter()
        query = demo.scene_graph.query_object()
        query.compute_point_pair_penetration()
        query.compute_signed_distance_pairwise_closest_points(0.1)
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times)), float(np.percentile(times, 99))


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` so far (Linux ``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        # The command name (field 2) may hold spaces: split after its closing parenthesis.
        fields = stat.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 of the file, 12 and 13 after the name.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _switches(pid: int) -> tuple[int, int]:
    """Context switches of all threads of process ``pid`` so far: (voluntary, involuntary).

    From each thread's ``/proc/PID/task/TID/status``. A voluntary switch is
    a thread going to sleep (waiting for the next sample: one wake-up each);
    an involuntary one is the kernel taking the CPU from a thread that could
    run on, most often for a thread it just woke (a reader of the results
    placed on the writer's CPU). Threads that ended meanwhile are not counted.
    """
    voluntary = involuntary = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except FileNotFoundError:
            continue  # the thread ended between the listing and the read
    return voluntary, involuntary


def _steal_seconds(stat_text: str | None = None) -> float:
    """CPU seconds the hypervisor took from this machine's CPUs so far, all CPUs together.

    The eighth number of ``/proc/stat``'s ``cpu`` line (``steal``, in
    ``USER_HZ`` ticks): time a virtual CPU was ready to run and the host ran
    something else. A run with much of it shared its cores with a busy
    neighbour, whose cache traffic also slows what did run.
    """
    if stat_text is None:
        with open("/proc/stat", encoding="ascii") as stat:
            stat_text = stat.readline()
    fields = stat_text.split()
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        raise ValueError(f"not the cpu line of /proc/stat: {stat_text[:80]!r}")
    return int(fields[8]) / os.sysconf("SC_CLK_TCK")


#: A stamp no demo message carries, written into every transform to find where stamps lie.
_MARK = struct.pack("<iI", 0x1234ABCD, 0x0FEDCBA9)


class _StampedBytes:
    """The /tf messages as bytes made once; ``stamped(n)`` writes the time into the n-th."""

    def __init__(self, publisher, messages: list) -> None:
        self._buffers, self._offsets = [], []
        for message in messages:
            for transform in message.transforms:
                transform.header.stamp.sec, transform.header.stamp.nanosec = struct.unpack(
                    "<iI", _MARK)
            data = publisher.serialize(message)
            if data[:2] != b"\x00\x01":
                raise RuntimeError("expected little-endian CDR from the serializer")
            offsets = [i for i in range(len(data) - 7) if data[i:i + 8] == _MARK]
            if len(offsets) != len(message.transforms):
                raise RuntimeError("could not locate every transform's stamp in the bytes")
            self._buffers.append(bytearray(data))
            self._offsets.append(offsets)

    def stamped(self, n: int) -> tuple[bytes, int]:
        """The n-th message (cyclically) stamped with the time now, and that time in ns."""
        k = n % len(self._buffers)
        buffer, offsets = self._buffers[k], self._offsets[k]
        stamp = time.time_ns()
        sec, nanosec = divmod(stamp, 1_000_000_000)
        for offset in offsets:
            struct.pack_into("<iI", buffer, offset, sec, nanosec)
        return bytes(buffer), stamp


def _process_cpu() -> float:
    """User plus system CPU seconds of this process so far."""
    times = os.times()
    return times.user + times.system


def _sender_main(domain: int, world_hz: float, conn) -> None:
    """The sender process: answers ``(rate, duration, move_world)`` commands from ``conn``.

    Each command publishes /tf at ``rate`` for ``duration`` seconds (and, with
    ``move_world``, moves a collision object at ``world_hz`` meanwhile), then
    sends back the stamps sent, the world changes made and its CPU seconds.
    ``None`` ends it.
    """
    talker = create_node("latency_talker", [], backend="dds", domain_id=domain,
                         dds_config=loopback_config())
    try:
        publisher = talker.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        messages = _StampedBytes(publisher, _tf_messages(talker.message_type))
        change = _world_changer(domain) if world_hz > 0 else None
        conn.send("ready")
        while (command := conn.recv()) is not None:
            rate, duration, move_world = command
            cpu = _process_cpu()
            stop = threading.Event()
            changes = [0]
            changer = None
            if move_world:
                changer = threading.Thread(target=_change_world,
                                           args=(change, world_hz, stop, changes))
                changer.start()
            stamps = _send(publisher, messages, rate, duration)
            stop.set()
            if changer is not None:
                changer.join()
            conn.send((stamps, changes[0], _process_cpu() - cpu))
    finally:
        talker.shutdown()


def _send(publisher, messages: _StampedBytes, rate_hz: float, duration: float) -> list[int]:
    """Publish /tf at ``rate_hz`` for ``duration`` seconds; the stamps sent."""
    period = 1.0 / rate_hz
    stamps = []
    start = time.perf_counter()
    n = 0
    while n * period < duration:
        data, stamp = messages.stamped(n)
        publisher.publish_serialized(data)
        stamps.append(stamp)
        n += 1
        delay = start + n * period - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    return stamps


def _change_world(change, world_hz: float, stop: threading.Event, count: list[int]) -> None:
    period = 1.0 / world_hz
    start = time.perf_counter()
    while not stop.is_set():
        change(count[0])
        count[0] += 1
        delay = start + count[0] * period - time.perf_counter()
        if delay > 0:
            stop.wait(delay)


class _ResultStamps:
    """A subscription codec: a result's receive time and header stamp, read from its bytes."""

    def from_message(self, msg) -> tuple[int, int]:
        return time.time_ns(), msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec

    def bytes_decoder(self, deserialize):
        def decode(data: bytes) -> tuple[int, int]:
            received = time.time_ns()
            # The header's stamp opens the message, after the 4-byte encapsulation.
            sec, nanosec = struct.unpack_from("<iI" if data[1] == 1 else ">iI", data, 4)
            return received, sec * 1_000_000_000 + nanosec
        return decode


class _Counted:
    """A subscription codec that decodes nothing: the reader only counts the messages."""

    def from_message(self, msg) -> None:
        return None

    def bytes_decoder(self, deserialize):
        return lambda data: None


class _Run:
    """One input rate: the sender publishes for ``duration`` seconds, this process collects."""

    def __init__(self, peer, sender, rate_hz: float, duration: float, node_pid: int,
                 world_hz: float = 0.0) -> None:
        self.peer, self.sender, self.node_pid = peer, sender, node_pid
        self.rate_hz, self.duration, self.world_hz = rate_hz, duration, world_hz
        self.sent_stamps: list[int] = []
        self.results: list[tuple[int, int]] = []  # (stamp, receive time), ns
        self._answered: set[int] = set()
        self._sending = False
        self._first_stamp = time.time_ns()
        self.world_changes = 0

    def on_result(self, value: tuple[int, int]) -> None:
        received, stamp = value
        if stamp in self._answered:
            return  # the same poses queried again after a world change: not a new input
        if self._sending or stamp >= self._first_stamp:
            self._answered.add(stamp)
            self.results.append((stamp, received))

    def run(self) -> dict:
        self._sending = True
        self._first_stamp = time.time_ns()
        cpu_start, wall_start = _cpu_seconds(self.node_pid), time.monotonic()
        switches_start = _switches(self.node_pid)
        steal_start = _steal_seconds()
        reader_cpu = _process_cpu()
        self.sender.send((self.rate_hz, self.duration, self.world_hz > 0))
        while not self.sender.poll():
            self.peer.spin_once(0.01)
        self.sent_stamps, self.world_changes, self.sender_cpu = self.sender.recv()
        self._sending = False
        sent_end = time.time_ns()
        wall = time.monotonic() - wall_start
        self.cpu = (_cpu_seconds(self.node_pid) - cpu_start) / wall
        self.switches = [b - a for a, b in zip(switches_start, _switches(self.node_pid))]
        self.reader_cpu = (_process_cpu() - reader_cpu) / wall
        self.sender_cpu /= wall
        self.steal = (_steal_seconds() - steal_start) / (wall * (os.cpu_count() or 1))
        last = self.sent_stamps[-1]
        drain_ns = None
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            self.peer.spin_once(0.01)
            done = [r for s, r in self.results if s == last]
            if done:
                drain_ns = done[0] - sent_end
                break
        return self.summary(drain_ns)

    def summary(self, drain_ns: int | None) -> dict:
        latencies = np.array([(r - s) * 1e-6 for s, r in self.results])
        every = _until_covered_ms(self.sent_stamps, self.results)
        quarter = max(1, len(latencies) // 4)
        return {
            "rate": self.rate_hz,
            "sent": len(self.sent_stamps),
            "results": len(self.results),
            "p50": float(np.median(latencies)) if len(latencies) else float("nan"),
            "p99": float(np.percentile(latencies, 99)) if len(latencies) else float("nan"),
            "max": float(latencies.max()) if len(latencies) else float("nan"),
            "first_q_p50": float(np.median(latencies[:quarter])) if len(latencies) else 0.0,
            "last_q_p50": float(np.median(latencies[-quarter:])) if len(latencies) else 0.0,
            "drain_ms": None if drain_ns is None else max(0.0, drain_ns * 1e-6),
            "p999": float(np.percentile(latencies, 99.9)) if len(latencies) else float("nan"),
            # Over every input sent, a never-covered one as infinitely late.
            "p99_all": float(np.percentile(np.nan_to_num(every, nan=np.inf), 99,
                                           method="higher")) if len(every) else float("nan"),
            "uncovered": int(np.isnan(every).sum()),
            "cpu": self.cpu,
            # Per input sent: the node's sleeps (wake-ups) and its preemptions.
            "wakeups": self.switches[0] / max(1, len(self.sent_stamps)),
            "preempted": self.switches[1] / max(1, len(self.sent_stamps)),
            "sender_cpu": self.sender_cpu,
            "reader_cpu": self.reader_cpu,
            "steal": self.steal,
            "world_hz": self.world_hz,
            "world": f"{_world_name(self.world_hz)} ({self.world_changes} changes)"
                     if self.world_hz > 0 else "still",
        }


def _until_covered_ms(sent_stamps: list[int], results: list[tuple[int, int]]) -> np.ndarray:
    """For each input sent, ms until the first result at least as new as it arrived.

    ``results`` holds ``(stamp, receive time)`` in the order received. An
    input coalesced into a newer one gets no result of its own stamp: it is
    covered by the first result answering a newer pose, and its latency runs
    until then. NaN for an input no result covered.
    """
    sent = np.asarray(sent_stamps, dtype=np.int64)
    covered = np.full(len(sent), np.nan)
    if not len(results) or not len(sent):
        return covered
    stamps = np.array([s for s, _ in results], dtype=np.int64)
    received = np.array([r for _, r in results], dtype=np.int64)
    newest = np.maximum.accumulate(stamps)  # the newest pose answered so far, by arrival
    first = np.searchsorted(newest, sent, side="left")
    found = first < len(newest)
    covered[found] = (received[first[found]] - sent[found]) * 1e-6
    return covered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[100.0, 1000.0],
                        help="input rates in Hz (default 100 1000)")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per rate")
    parser.add_argument("--domain", type=int, default=200 + os.getpid() % 30)
    parser.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                        help="a scene_graph_node parameter (YAML value) besides the defaults "
                             "above; repeatable")
    parser.add_argument("--read-clearance", action="store_true",
                        help="also subscribe to the clearance topic (the node computes and "
                             "writes only the results some reader matched)")
    parser.add_argument("--world-changes", metavar="HZ", type=float, default=0.0,
                        help="also run each rate with a collision object moved at HZ "
                             "(MoveIt's collision_object topic), beside the still run")
    parser.add_argument("--node-python", metavar="PYTHON", default=sys.executable,
                        help="the interpreter that runs the node (another installation's, "
                             "to measure it under the same harness); this one by default")
    parser.add_argument("--beside", metavar="PYTHON",
                        help="also run the node of another installation (PYTHON its "
                             "interpreter), alternating with this one, and print the ratios "
                             "pair by pair beside each run's host steal")
    parser.add_argument("--pairs", type=int, default=3,
                        help="with --beside: how many alternated pairs (default 3)")
    parser.add_argument("--profile", metavar="FILE",
                        help="run the node under cProfile and write its stats to FILE "
                             "(read with python -m pstats FILE); the figures then include "
                             "the profiler's own cost")
    args = parser.parse_args(argv)
    settings = [tuple(item.split("=", 1)) for item in args.set]
    if any(len(setting) != 2 or not setting[0] for setting in settings):
        parser.error("--set takes NAME=VALUE")

    if args.pairs < 1:
        parser.error("--pairs takes a positive count")
    if args.beside and args.profile:
        parser.error("--profile profiles one node: leave --beside out")
    versions = [("this", args.node_python)]
    if args.beside:
        versions.append(("beside", args.beside))
    pairs = args.pairs if args.beside else 1

    query_p50, query_p99 = _library_query_ms()
    rows: list[dict] = []
    logs: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        params.write_text(_PARAMS + "".join(f"    {name}: {value}\n" for name, value in settings))
        peer = create_node("latency_peer", [], backend="dds", domain_id=args.domain,
                           dds_config=loopback_config())
        conn, child_conn = multiprocessing.get_context("spawn").Pipe()
        sender = multiprocessing.get_context("spawn").Process(
            target=_sender_main, args=(args.domain, args.world_changes, child_conn), daemon=True)
        sender.start()
        try:
            if not conn.poll(60) or conn.recv() != "ready":
                raise RuntimeError("the sender process did not start")
            current: list[_Run] = []
            peer.create_subscription("geometry_core_ros/msg/PenetrationPairArray",
                                     "penetrations",
                                     lambda value: current and current[-1].on_result(value),
                                     RELIABLE_RESULTS, codec=_ResultStamps())
            clearance: list[int] = [0]
            if args.read_clearance:
                def count(_value) -> None:
                    clearance[0] += 1
                peer.create_subscription("geometry_core_ros/msg/SignedDistancePairArray",
                                         "clearance", count, RELIABLE_RESULTS, codec=_Counted())
            for pair in range(pairs):
                # Alternate which node goes first: the host drifts within minutes.
                for label, python in (versions if pair % 2 == 0 else versions[::-1]):
                    node_rows, log = _measure_node(python, params, args, peer, conn, current)
                    for row in node_rows:
                        row["node"], row["pair"] = label, pair
                    rows += node_rows
                    logs.append((f"{label}, pair {pair + 1}" if args.beside else "", log))
        finally:
            if sender.is_alive():
                conn.send(None)
            sender.join(timeout=20)
            peer.shutdown()
    _print(rows, query_p50, query_p99, args.duration, settings, args.read_clearance)
    if args.beside:
        _print_pairs(rows, args.node_python, args.beside)
    if args.read_clearance:
        print(f"clearance messages received: {clearance[0]}")
    # The node's own account of its inputs, logged at exit (SceneInputs.report_dropped).
    for which, log in logs:
        for line in log.splitlines():
            if ("messages taken" in line or "coalesced" in line or "dropped inputs" in line
                    or "not computed" in line or "on the receive thread" in line
                    or "world changes answered" in line):
                print(f"node{f' ({which})' if which else ''}:", line.split("]: ", 1)[-1])
    return 0


def _measure_node(python: str, params: Path, args, peer, conn,
                  current: list[_Run]) -> tuple[list[dict], str]:
    """Start a node with ``python``, run every rate (still, then moving), stop it.

    Returns the rows and the node's log (its standard error).
    """
    profile = ["-m", "cProfile", "-o", args.profile] if args.profile else []
    node = subprocess.Popen(
        [python, *profile, "-m", "geometry_core_nodes.scene_graph_node",
         "--ros-args", "--params-file", str(params)],
        env=loopback_environment(args.domain), stderr=subprocess.PIPE, text=True)
    rows = []
    try:
        # Warm-up: discovery and the node's first queries.
        warm = _Run(peer, conn, 20.0, 1.0, node.pid)
        current.append(warm)
        while not warm.results:
            if node.poll() is not None:
                raise RuntimeError("the node exited:\n" + node.stderr.read()[-3000:])
            warm.run()
        for rate in args.rates:
            for world_hz in ((0.0, args.world_changes) if args.world_changes > 0 else (0.0,)):
                run = _Run(peer, conn, rate, args.duration, node.pid, world_hz)
                current.append(run)
                rows.append(run.run())
    finally:
        node.terminate()
        _, log = node.communicate(timeout=20)
    return rows, log


def _world_name(world_hz: float) -> str:
    return f"moving at {world_hz:g} Hz" if world_hz > 0 else "still"


#: A run with more host steal than this (of all CPUs' time) is not a quiet one.
QUIET_STEAL = 0.03


def _print_pairs(rows: list[dict], this: str, beside: str) -> None:
    """Per pair and world, this node's CPU and p99 over the other's, beside both runs' steal."""
    print(f"\nthis node ({this}) over the node beside it ({beside}), run by run:")
    header = ("pair", "input Hz", "world", "CPU ratio", "p99 ratio", "p99 ms (this / beside)",
              "CPU (this / beside)", "steal (this / beside)")
    print(" | ".join(header))
    print(" | ".join("-" * len(h) for h in header))
    found: dict[tuple[float, float], list[tuple[float, float, bool]]] = {}
    beside_runs = {(r["pair"], r["rate"], r["world_hz"]): r for r in rows if r["node"] == "beside"}
    for mine in sorted((r for r in rows if r["node"] == "this"),
                       key=lambda r: (r["pair"], r["rate"], r["world_hz"])):
        pair, rate, world_hz = mine["pair"], mine["rate"], mine["world_hz"]
        other = beside_runs.get((pair, rate, world_hz))
        if other is None:
            continue
        cpu = mine["cpu"] / max(other["cpu"], 1e-9)
        p99 = mine["p99"] / max(other["p99"], 1e-9)
        quiet = max(mine["steal"], other["steal"]) < QUIET_STEAL
        found.setdefault((rate, world_hz), []).append((cpu, p99, quiet))
        print(" | ".join([
            str(pair + 1), f"{rate:g}", _world_name(world_hz), f"{cpu:.2f}", f"{p99:.2f}",
            f"{mine['p99']:.2f} / {other['p99']:.2f}", f"{mine['cpu']:.0%} / {other['cpu']:.0%}",
            f"{mine['steal']:.1%} / {other['steal']:.1%}"]))
    print(f"\nmedian ratios (this / beside); quiet: both runs under {QUIET_STEAL:.0%} host steal")
    for (rate, world_hz), ratios in sorted(found.items()):
        quiet = [r for r in ratios if r[2]]
        line = (f"{rate:g} Hz, {_world_name(world_hz)}: "
                f"CPU x{np.median([r[0] for r in ratios]):.2f}, "
                f"p99 x{np.median([r[1] for r in ratios]):.2f} over {len(ratios)} pairs")
        if quiet:
            line += (f"; quiet pairs ({len(quiet)}): CPU x{np.median([r[0] for r in quiet]):.2f}, "
                     f"p99 x{np.median([r[1] for r in quiet]):.2f}")
        else:
            line += "; no quiet pair"
        print(line)


def _world_changer(domain: int):
    """``change(n)``: the n-th MOVE of a box beside the arm's path (the first is its ADD).

    Waits until the node subscribes to ``collision_object``. Publishes from
    a participant of its own (the /tf sender's thread keeps the other one).
    """
    obstacle = create_node("world_talker", [], backend="dds", domain_id=domain,
                           dds_config=loopback_config())
    T = obstacle.message_type
    publisher = obstacle.create_publisher("moveit_msgs/msg/CollisionObject", "collision_object",
                                          RELIABLE_RESULTS)
    deadline = time.monotonic() + 20
    while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = "moving_box"
    co.header.frame_id = "world"
    co.pose.orientation.w = 1.0
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 1, [0.1, 0.1, 0.1]
    co.primitives = [primitive]
    pose = T("geometry_msgs/msg/Pose")()
    pose.orientation.w = 1.0
    co.primitive_poses = [pose]

    def change(n: int) -> None:
        # A 0.2 m circle at the height of the gripper's path, once around in 2 s.
        angle = 2 * np.pi * (n % 60) / 60
        co.operation = 0 if n == 0 else 3
        co.pose.position.x = 0.45 + 0.1 * float(np.cos(angle))
        co.pose.position.y = 0.1 * float(np.sin(angle))
        co.pose.position.z = 0.35
        publisher.publish(co)

    return change


def _every_input(row: dict) -> str:
    text = f"{row['p99_all']:.2f}"
    return text if not row.get("uncovered") else f"{text} ({row['uncovered']} never)"


def _print(rows: list[dict], query_p50: float, query_p99: float, duration: float,
           settings: list[tuple[str, str]], read_clearance: bool) -> None:
    print(f"\nscene_graph_node latency, demo arm (6 frames on /tf), {duration:g} s per rate, "
          "Cyclone DDS backend over loopback; topics read: penetrations"
          + (", clearance" if read_clearance else " (clearance has no reader)"))
    print("node parameters: rate_hz 0, publish_markers true (no markers subscriber), "
          + (", ".join(f"{name} {value}" for name, value in settings) or "the other defaults"))
    print(f"library query alone (penetration + clearance): p50 {query_p50:.2f} ms, "
          f"p99 {query_p99:.2f} ms\n")
    beside = any(r.get("node", "this") != "this" for r in rows)
    header = ("input Hz", "world", "sent", "results", "answered", "p50 ms", "p99 ms", "p99.9 ms",
              "max ms", "p99 every input", "1st-quarter p50", "last-quarter p50", "drain ms",
              "node CPU", "node wake-ups/input", "node preempted/input", "sender CPU",
              "reader CPU", "host steal")
    if beside:
        header = ("pair", "node") + header
    print(" | ".join(header))
    print(" | ".join("-" * len(h) for h in header))
    for r in rows:
        drain = "lost" if r["drain_ms"] is None else f"{r['drain_ms']:.1f}"
        print(" | ".join(([str(r["pair"] + 1), r["node"]] if beside else []) + [
            f"{r['rate']:g}", r["world"], str(r["sent"]), str(r["results"]),
            f"{r['results'] / max(1, r['sent']):.0%}", f"{r['p50']:.2f}", f"{r['p99']:.2f}",
            f"{r['p999']:.2f}", f"{r['max']:.2f}", _every_input(r), f"{r['first_q_p50']:.2f}",
            f"{r['last_q_p50']:.2f}", drain, f"{r['cpu']:.0%}", f"{r['wakeups']:.2f}",
            f"{r['preempted']:.2f}", f"{r['sender_cpu']:.0%}",
            f"{r['reader_cpu']:.0%}", f"{r['steal']:.1%}"]))
    if beside:
        return  # the ratios between the two nodes follow
    still = {r["rate"]: r for r in rows if r["world"] == "still"}
    for r in rows:
        base = still.get(r["rate"])
        if r["world"] != "still" and base is not None:
            print(f"\n{r['rate']:g} Hz /tf, world {r['world']} / world still: "
                  f"p50 x{r['p50'] / base['p50']:.2f}, p99 x{r['p99'] / base['p99']:.2f}, "
                  f"CPU x{r['cpu'] / max(base['cpu'], 1e-9):.2f}")


if __name__ == "__main__":
    sys.exit(main())
