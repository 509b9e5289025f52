"""Soak of the scene graph node: hours of /tf at 1 kHz, or hostile inputs by the thousand.

Usage::

    python -m bench.soak --duration 600             # 10 minutes at 1 kHz /tf
    python -m bench.soak --hostile 10000            # every hostile input 10 000 times,
                                                    # then hostile robot descriptions
                                                    # for a minute

Starts ``python -m geometry_core_nodes.scene_graph_node`` on the built-in
demo arm on the Cyclone DDS backend with the loopback-only configuration, in
a DDS domain of its own, and from this process:

- ``--duration``: publishes the arm's /tf at ``--rate`` (1 kHz), every
  message stamped with its send time, and subscribes to ``penetrations``.
  Every ``--sample`` seconds it reads the node's resident memory
  (``VmRSS``) and CPU time from ``/proc``. At the end it reports inputs
  sent, messages the node took (its own count, logged at shutdown),
  outputs, latency percentiles (send to receive), the memory over time and
  its growth after the warm-up minute, and whether the last input sent was
  answered.
- ``--hostile N``: sends each kind of hostile input N times (distinct frame
  names each time, invalid UTF-8, NaN, zero and 1e300 quaternions, 2038
  stamps, loops, 1 kB names, a 5000-transform message every 500th round),
  about 1 kHz, then a valid pose, and reports the node's memory before and after and
  whether the valid pose was answered exactly. Then (``--descriptions``,
  60 s) a second node waiting for ``robot_description`` gets a valid robot
  and then hostile descriptions round after round (a link named like
  world_frame, 10 000 links, meshes outside the package roots, not XML, 200
  missing visual meshes with new names each time, an SRDF of 20 000
  unknown links) while /tf asks for answers at 100 Hz: reported are the
  memory after warm-up, the /tf stamps answered and the longest gap between
  two answers, and the log's size.

The machine may be shared: CPU figures are the node's own CPU time, but
latencies include waiting for a core. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench.node_latency import _tf_messages
from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    TF,
    create_node,
    loopback_config,
)

_TEST_NODES = Path(__file__).resolve().parent.parent / "test" / "nodes"
_CLK_TCK = os.sysconf("SC_CLK_TCK")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, _TEST_NODES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_scenario = _load("node_scenario")


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime + stime


def _stamp_ns(msg) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def _start_node(domain: int, folder: str):
    """The node process (``node_scenario.NodeProcess``: loopback only, log collected)."""
    params = _scenario.write_params(Path(folder) / "params.yaml", scene_file="builtin:demo",
                                    max_distance=0.1, rate_hz=0.0, publish_markers=False)
    return _scenario.NodeProcess("scene_graph_node", params, domain)


def _taken(lines: list[str]) -> int | None:
    """/tf messages the node took, from its log at shutdown."""
    for line in lines:
        if "messages taken:" in line:
            for item in line.split("messages taken:")[1].split(","):
                key, value = item.split()
                if key == "tf":
                    return int(value)
    return None


def soak(domain: int, duration: float, rate: float, sample: float) -> dict:
    """Publish /tf at ``rate`` for ``duration`` s; see the module docstring."""
    with tempfile.TemporaryDirectory() as folder:
        node = _start_node(domain, folder)
        peer = create_node("soak_peer", [], backend="dds", domain_id=domain,
                           dds_config=loopback_config())
        talker = create_node("soak_talker", [], backend="dds", domain_id=domain,
                             dds_config=loopback_config())
        publisher = talker.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        messages = _tf_messages(talker.message_type)
        sent: list[int] = []
        received: list[tuple[int, int]] = []
        peer.create_subscription("geometry_core_ros/msg/PenetrationPairArray", "penetrations",
                                 lambda msg: received.append((_stamp_ns(msg), time.time_ns())),
                                 RELIABLE_RESULTS)
        memory: list[tuple[float, int]] = []
        stop = threading.Event()

        def send() -> None:
            period = 1.0 / rate
            start = time.perf_counter()
            n = 0
            while not stop.is_set() and n * period < duration:
                message = messages[n % len(messages)]
                sec, nanosec = divmod(time.time_ns(), 1_000_000_000)
                for transform in message.transforms:
                    transform.header.stamp.sec, transform.header.stamp.nanosec = sec, nanosec
                publisher.publish(message)
                sent.append(sec * 1_000_000_000 + nanosec)
                n += 1
                delay = start + n * period - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)

        try:
            deadline = time.monotonic() + 30
            while not received and time.monotonic() < deadline:  # discovery and start-up
                publisher.publish(messages[0])
                peer.spin_once(0.1)
            received.clear()
            cpu0, t0 = _cpu_s(node.process.pid), time.monotonic()
            memory.append((0.0, _rss_kb(node.process.pid)))
            sender = threading.Thread(target=send)
            sender.start()
            next_sample = t0 + sample
            while sender.is_alive():
                peer.spin_once(0.01)
                if time.monotonic() >= next_sample:
                    memory.append((time.monotonic() - t0, _rss_kb(node.process.pid)))
                    next_sample += sample
            elapsed = time.monotonic() - t0
            cpu = _cpu_s(node.process.pid) - cpu0
            memory.append((elapsed, _rss_kb(node.process.pid)))
            last = sent[-1]
            answered_last = False
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not answered_last:
                peer.spin_once(0.05)
                answered_last = any(s == last for s, _ in received[-50:])
        finally:
            stop.set()
            peer.shutdown()
            talker.shutdown()
            returncode = node.stop()
    latencies = np.array([(r - s) * 1e-6 for s, r in received if s >= sent[0]])
    warm = [kb for t, kb in memory if t >= min(60.0, duration / 10)]
    return {
        "duration_s": elapsed, "rate_hz": rate, "sent": len(sent), "taken": _taken(node.lines),
        "outputs": len(received), "answered_last": answered_last,
        "latency_ms": {q: float(np.percentile(latencies, q)) for q in (50, 90, 99, 99.9)}
        | {"max": float(latencies.max())},
        "node_cpu_percent": 100.0 * cpu / elapsed,
        "rss_kb": memory,
        "rss_growth_after_warmup": (memory[-1][1] - warm[0]) / warm[0],
        "returncode": returncode, "tracebacks": sum("Traceback" in line for line in node.lines),
    }


def hostile(domain: int, rounds: int) -> dict:
    """Every hostile input ``rounds`` times, then a valid pose; see the module docstring."""
    scenario = _scenario
    attacks = _load("hostile")
    with tempfile.TemporaryDirectory() as folder:
        node = _start_node(domain, folder)
        peer = scenario.Peer(domain)
        raw = attacks.RawWriter(domain, "/tf", "tf2_msgs/msg/TFMessage", TF)
        T = peer.message_type
        stamp = scenario.STAMP_NS
        try:
            arm = scenario.demo_transforms(T, scenario.T_CONTACT, stamp)
            peer.wait_for("penetrations", lambda m: _stamp_ns(m) == stamp, timeout=60,
                          repeat=lambda: peer.tf.publish(arm))
            rss_before = _rss_kb(node.process.pid)
            cpu0, t0 = _cpu_s(node.process.pid), time.monotonic()
            X = scenario.demo_poses(0)["base"][1]
            kinds = attacks.hostile_messages(T)
            memory = []
            for n in range(rounds):
                if n % max(1, rounds // 10) == 0:
                    memory.append((n, _rss_kb(node.process.pid)))
                for make in kinds.values():
                    message = make(n)
                    if isinstance(message, bytes):
                        raw.write(message)
                    else:
                        peer.tf.publish(message)
                if n % 500 == 0:
                    peer.tf.publish(T("tf2_msgs/msg/TFMessage")(transforms=[
                        scenario.make_transform(T, "world", f"flood{n}_{k}", X, stamp)
                        for k in range(5000)]))
                # Paced so the node takes (not DDS overwrites) most of them: ~1 kHz.
                peer.node.spin_once(0.005)
            elapsed = time.monotonic() - t0
            final = stamp + 10**9
            valid = scenario.demo_transforms(T, scenario.T_CONTACT, final)
            msg = peer.wait_for("penetrations", lambda m: _stamp_ns(m) == final, timeout=120,
                                repeat=lambda: peer.tf.publish(valid))
            expected = scenario.reference(scenario.T_CONTACT)["penetrations"]
            scenario.assert_pairs_match(scenario.pairs_as_dicts(msg), expected)
            rss_after = _rss_kb(node.process.pid)
            memory.append((rounds, rss_after))
            cpu = _cpu_s(node.process.pid) - cpu0
        finally:
            raw.close()
            peer.shutdown()
            returncode = node.stop()
    counts = [line.split("]: ", 1)[1].strip() for line in node.lines
              if "dropped inputs:" in line or "messages taken:" in line]
    return {
        "rounds": rounds, "kinds": list(kinds), "seconds": elapsed,
        "node_cpu_s": cpu, "rss_before_kb": rss_before, "rss_after_kb": rss_after,
        "rss_kb_by_round": memory,
        "rss_growth": (rss_after - rss_before) / rss_before, "valid_pose_answered": True,
        "log_lines": len(node.lines), "counts": counts, "returncode": returncode,
        "tracebacks": sum("Traceback" in line for line in node.lines),
    }


_TWO_BOXES = ('<link name="base"><collision name="base_box"><geometry><box size="0.2 0.2 0.2"/>'
              '</geometry></collision></link><link name="arm"><collision name="arm_box">'
              '<geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>')


def _hostile_descriptions(folder: str) -> dict:
    """``{kind: make(n)}``: URDF (or ``("srdf", text)``) texts a hostile publisher sends.

    Each text differs per round where that matters (new names, so nothing
    can be remembered by text). Only ``missing_visuals`` is a valid robot:
    its visuals are skipped with a warning each, which used to grow memory.
    """
    secret = Path(folder) / "secret.obj"
    secret.write_text("".join(f"v {x} {y} {z}\n" for x in (0, 1) for y in (0, 1)
                              for z in (0, 1)) + "f 1 2 3\nf 5 6 7\nf 1 5 2\nf 3 7 4\n")

    def chain(n: int, links: int) -> str:
        body = "".join(f'<link name="c{n}_{i}"><collision><geometry><box size="0.1 0.1 0.1"/>'
                       "</geometry></collision></link>" for i in range(links))
        joints = "".join(f'<joint name="j{n}_{i}" type="fixed"><parent link="c{n}_{i - 1}"/>'
                         f'<child link="c{n}_{i}"/></joint>' for i in range(1, links))
        return f'<robot name="chain{n}">{body}{joints}</robot>'

    def mesh(n: int, filename: str) -> str:
        return (f'<robot name="m{n}"><link name="m{n}"><collision><geometry>'
                f'<mesh filename="{filename}"/></geometry></collision></link></robot>')

    def missing_visuals(n: int) -> str:
        visuals = "".join(f'<link name="v{i}"><visual><geometry><mesh filename="missing{n}_{i}'
                          '.stl"/></geometry></visual></link>' for i in range(200))
        return f'<robot name="two">{_TWO_BOXES}{visuals}</robot>'

    return {
        "link_named_world_frame": lambda n: '<robot name="w"><link name="odom"/></robot>',
        "ten_thousand_links": lambda n: chain(n, 10_000),
        "mesh_by_absolute_path": lambda n: mesh(n, str(secret)),
        "mesh_out_of_its_package": lambda n: mesh(n, "package://pkg/../../secret.obj"),
        "not_xml": lambda n: f"<robot name='{n}'",
        "missing_visuals": missing_visuals,
        "srdf_of_20000_unknown_links": lambda n: ("srdf", "<robot name='two'>" + "".join(
            f"<disable_collisions link1='x{n}_{k}' link2='y{k}'/>" for k in range(20_000))
            + "</robot>"),
    }


def hostile_descriptions(domain: int, seconds: float, tf_rate: float = 100.0,
                         sample: float = 5.0, warm_up: float = 15.0) -> dict:
    """Republish hostile robot descriptions for ``seconds`` while /tf asks for answers.

    A node waiting for ``robot_description`` (world_frame ``odom``) gets a
    valid two-box robot, then, round after round, every kind of
    :func:`_hostile_descriptions` on the latched topics while this process
    publishes the robot's /tf at ``tf_rate`` with fresh stamps. Reported:
    the node's memory every ``sample`` seconds and its growth after
    ``warm_up``, how many /tf stamps were answered and the longest time
    between two answers, and the size of the node's log.
    """
    from geometry_core import RigidTransform
    from geometry_core_nodes.transport import LATCHED

    scenario = _scenario
    with tempfile.TemporaryDirectory() as folder:
        kinds = _hostile_descriptions(folder)
        params = scenario.write_params(Path(folder) / "params.yaml", world_frame="odom",
                                       publish_markers=False, max_distance=0.1)
        node = scenario.NodeProcess("scene_graph_node", params, domain)
        peer = scenario.Peer(domain)
        T = peer.message_type
        String = T("std_msgs/msg/String")
        description = peer.node.create_publisher("std_msgs/msg/String", "robot_description",
                                                 LATCHED)
        semantic = peer.node.create_publisher("std_msgs/msg/String",
                                              "robot_description_semantic", LATCHED)
        answered: list[tuple[float, int]] = []
        peer.node.create_subscription(
            "geometry_core_ros/msg/PenetrationPairArray", "penetrations",
            lambda m: answered.append((time.monotonic(), _stamp_ns(m))), RELIABLE_RESULTS)

        def tf(stamp: int):
            return T("tf2_msgs/msg/TFMessage")(transforms=[
                scenario.make_transform(T, "odom", "base", RigidTransform(), stamp),
                scenario.make_transform(T, "odom", "arm", RigidTransform([0.0, 0.0, 0.15]),
                                        stamp)])

        valid = f'<robot name="two">{_TWO_BOXES}</robot>'
        try:
            node.wait_for_line("ready on the dds backend", timeout=60)
            description.publish(String(data=valid))
            node.wait_for_line("loaded robot_description: 2 frames", timeout=60)
            sent = 0
            stamp0 = scenario.STAMP_NS
            start = time.monotonic()
            memory: list[tuple[float, int]] = []
            next_sample = start
            next_tf = start
            rounds = 0
            names = list(kinds)
            while time.monotonic() - start < seconds:
                kind = names[rounds % len(names)]
                text = kinds[kind](rounds)
                if isinstance(text, tuple):
                    semantic.publish(String(data=text[1]))
                else:
                    description.publish(String(data=text))
                if kind == "missing_visuals":  # the valid robot back, for the next rounds
                    description.publish(String(data=valid))
                rounds += 1
                round_end = time.monotonic() + 0.25
                while time.monotonic() < round_end:
                    now = time.monotonic()
                    if now >= next_tf:
                        sent += 1
                        peer.tf.publish(tf(stamp0 + sent))
                        next_tf += 1.0 / tf_rate
                    if now >= next_sample:
                        memory.append((round(now - start, 1), _rss_kb(node.process.pid)))
                        next_sample += sample
                    peer.node.spin_once(0.002)
            elapsed = time.monotonic() - start
            final = stamp0 + sent + 1
            last = peer.wait_for("penetrations", lambda m: _stamp_ns(m) == final, timeout=60,
                                 repeat=lambda: peer.tf.publish(tf(final)))
            last_answered = len(last.pairs) == 1
            memory.append((round(time.monotonic() - start, 1), _rss_kb(node.process.pid)))
        finally:
            peer.shutdown()
            returncode = node.stop()
    times = [t for t, s in answered if stamp0 < s <= stamp0 + sent]
    gaps = np.diff([start, *times]) if times else np.array([elapsed])
    after = [kb for t, kb in memory if t >= warm_up]
    log = node.output
    return {
        "seconds": round(elapsed, 1), "description_rounds": rounds, "kinds": names,
        "tf_sent": sent, "tf_answered": len(times),
        "longest_gap_between_answers_s": round(float(gaps.max()), 3),
        "last_tf_answered_with_the_valid_robot": last_answered,
        "rss_kb_by_second": memory,
        "rss_after_warm_up_kb": [min(after), max(after)] if after else None,
        "rss_growth_after_warm_up": (after[-1] - after[0]) / after[0] if after else None,
        "log_lines": log.count("\n"), "log_bytes": len(log.encode()),
        "returncode": returncode, "tracebacks": log.count("Traceback"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of /tf input")
    parser.add_argument("--rate", type=float, default=1000.0, help="/tf messages per second")
    parser.add_argument("--sample", type=float, default=30.0, help="seconds between samples")
    parser.add_argument("--hostile", type=int, default=0,
                        help="instead: send every hostile input this many times")
    parser.add_argument("--descriptions", type=float, default=60.0,
                        help="with --hostile: then republish hostile robot descriptions for "
                             "this many seconds (0: not)")
    parser.add_argument("--domain", type=int, default=170 + os.getpid() % 30)
    args = parser.parse_args(argv)
    if args.hostile:
        result = hostile(args.domain, args.hostile)
        if args.descriptions > 0:
            result = {"tf": result, "descriptions": hostile_descriptions(
                (args.domain + 1) % 230, args.descriptions)}
    else:
        result = soak(args.domain, args.duration, args.rate, args.sample)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
