"""Round trip of MoveIt's check_state_validity through the scene graph node, per backend.

Usage::

    python -m bench.moveit_validity                       # DDS backend, 300 calls
    python -m bench.moveit_validity --backends dds rclpy  # rclpy needs ROS 2 sourced
    python -m bench.moveit_validity --calls 1000 --world-rate 30
    python -m bench.moveit_validity --move-cost 300 --beside PYTHON

Starts ``python -m geometry_core_nodes.scene_graph_node`` for the Panda of
example-robot-data (robot_description and SRDF) on each backend, loopback
only, in a DDS domain of its own, gives it a box near the hand
(``collision_object``), then calls ``check_state_validity`` from this
process (a client of the same backend) with configurations around MoveIt's
"ready" pose: first with the world still, then while another thread moves
the box at ``--world-rate`` Hz (``collision_object`` MOVE), as a perception
pipeline would. Printed per backend: the round trip (p50, p99, max), the
node's CPU share, and the library's own answer time for the same
configurations in this process (``check_config_collision_free`` plus
``calc_contacts``), the floor of the round trip, with the ratio.

``--move-cost N`` measures instead what one MOVE of that box costs the
node: a Panda node built in this process (DDS backend, loopback, a domain
of its own) applies N ``collision_object`` MOVEs, as its subscription
would (``MoveItInterface.on_collision_object``: the message checked, the
scene graph's object and the validity checker's world changed), timed by
this thread's CPU clock, median of 5 rounds. With ``--beside PYTHON`` the
same script runs under that interpreter (another installation: run as a
script, so that it imports that installation's packages), the two in turn
three times, with the ratio of each round.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from geometry_core.clearance import CollisionChecker
from geometry_core.math import RigidTransform
from geometry_core.shapes import Box

READY = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04])
HAND = np.array([0.30702, 0.0, 0.59027])
JOINTS = [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]


def _panda():
    import sysconfig

    share = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share"
    robot = share / "example-robot-data" / "robots" / "panda_description"
    return (robot / "urdf" / "panda.urdf", robot / "srdf" / "panda.srdf",
            {"example-robot-data": str(share / "example-robot-data")})


def _configurations(count: int) -> np.ndarray:
    rng = np.random.default_rng(1)
    qs = READY + rng.uniform(-0.3, 0.3, (count, 8)) * [1, 1, 1, 1, 1, 1, 1, 0]
    return qs


def _box(T, p, operation: int):
    co = T("moveit_msgs/msg/CollisionObject")()
    co.id = "box"
    co.operation = operation if hasattr(type(co), "__ros_fields__") else bytes([operation])
    co.header.frame_id = "world"
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    primitive = T("shape_msgs/msg/SolidPrimitive")()
    primitive.type, primitive.dimensions = 1, [0.1, 0.1, 0.1]
    co.primitives, co.primitive_poses = [primitive], [T("geometry_msgs/msg/Pose")()]
    return co


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _library_ms(qs: np.ndarray) -> np.ndarray:
    urdf, srdf, roots = _panda()
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, package_roots=roots)
    checker.add_collision_shape_to_body("box", "world", Box(0.1, 0.1, 0.1),
                                        RigidTransform(HAND + [0.0, 0.0, -0.25]))
    checker.calc_contacts(qs[0])  # warm-up: first-use costs are not the answer time
    times = []
    for q in qs:
        start = time.perf_counter()
        checker.check_config_collision_free(q)
        checker.calc_contacts(q)
        times.append(time.perf_counter() - start)
    return np.array(times) * 1e3


def _panda_parameters() -> dict:
    urdf, srdf, roots = _panda()
    return {"robot_description": urdf.read_text(), "srdf_file": str(srdf),
            "package_roots": [f"{k}={v}" for k, v in roots.items()]}


def _move_us(count: int, domain: int) -> float:
    """Median CPU µs of one MOVE applied by a Panda node in this process."""
    from geometry_core_nodes.scene_graph_node import SceneGraphNode
    from geometry_core_nodes.transport import loopback_config

    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        params.write_text(json.dumps({"scene_graph_node": {
            "ros__parameters": _panda_parameters()}}))
        log = open(os.devnull, "w")  # noqa: SIM115 - closed after the node, below
        node = SceneGraphNode(["--ros-args", "--params-file", str(params)], backend="dds",
                              domain_id=domain, dds_config=loopback_config(), log_stream=log)
    try:
        moveit, T = node.moveit, node.node.message_type
        moveit.on_collision_object(_box(T, HAND + [0.0, 0.0, -0.25], 0))
        moves = [_box(T, HAND + [0.0, 0.01 * (k % 10), -0.25], 3) for k in range(count)]
        warm_up = moves[:20]
        for msg in warm_up:
            moveit.on_collision_object(msg)
        rounds = []
        for _ in range(5):
            start = time.thread_time()
            for msg in moves:
                moveit.on_collision_object(msg)
            rounds.append((time.thread_time() - start) / count * 1e6)
        expected = 1 + len(warm_up) + 5 * count
        if moveit.applied != expected:  # each MOVE must have been applied, not refused
            raise RuntimeError(f"{moveit.applied} messages applied, not {expected}")
        return float(np.median(rounds))
    finally:
        node.shutdown()
        log.close()


def _move_cost(count: int, beside: str | None, domain: int) -> None:
    print(f"one collision_object MOVE of a box applied by the Panda node "
          f"(MoveItInterface.on_collision_object, {count} in a loop, thread CPU, "
          f"median of 5 rounds)")
    if beside is None:
        print(f"this: {_move_us(count, domain):.0f} µs")
        return
    for k in range(3):
        ours = _move_us(count, domain)
        done = subprocess.run([beside, str(Path(__file__).resolve()), "--move-cost",
                               str(count), "--domain", str(domain + 1), "--json"],
                              capture_output=True, text=True, cwd=tempfile.gettempdir())
        if done.returncode != 0:
            raise RuntimeError(f"{beside}: {done.stderr.strip()[-2000:]}")
        theirs = json.loads(done.stdout.strip().splitlines()[-1])["move_us"]
        print(f"round {k + 1}: this {ours:.0f} µs, beside {theirs:.0f} µs, "
              f"ratio {ours / theirs:.2f}")


def _run_backend(backend: str, qs: np.ndarray, world_rate: float, domain: int) -> dict:
    from geometry_core_nodes.transport import RELIABLE_RESULTS, create_node, loopback_config
    from geometry_core_nodes.transport.cyclone_config import loopback_environment

    env = loopback_environment(domain)
    env["GEOMETRY_CORE_TRANSPORT"] = backend
    env["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
    if backend == "rclpy":  # this process's rclpy client reads the same environment
        os.environ.update(env)
    options = {} if backend == "rclpy" else {"domain_id": domain,
                                             "dds_config": loopback_config()}
    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        params.write_text(json.dumps({"scene_graph_node": {
            "ros__parameters": _panda_parameters()}}))
        node = subprocess.Popen([sys.executable, "-m", "geometry_core_nodes.scene_graph_node",
                                 "--ros-args", "--params-file", str(params)],
                                env=env, stderr=subprocess.PIPE, text=True)
        user = create_node("validity_user", [], backend=backend, **options)
        talker = create_node("world_talker", [], backend=backend, **options)
        stop = threading.Event()
        try:
            objects = talker.create_publisher("moveit_msgs/msg/CollisionObject",
                                              "collision_object", RELIABLE_RESULTS)
            client = user.create_client("moveit_msgs/srv/GetStateValidity",
                                        "/check_state_validity")
            request = client.request_type()
            request.robot_state.joint_state.name = JOINTS
            deadline = time.monotonic() + 60
            while objects.get_subscription_count() == 0:
                if time.monotonic() > deadline:
                    raise TimeoutError("the node did not subscribe to collision_object")
                time.sleep(0.05)
            objects.publish(_box(talker.message_type, HAND + [0.0, 0.0, -0.25], 0))

            def call_all() -> tuple[np.ndarray, float, int]:
                cpu, wall = _cpu_seconds(node.pid), time.monotonic()
                times, invalid = [], 0
                for q in qs:
                    request.robot_state.joint_state.position = [float(v) for v in q]
                    start = time.perf_counter()
                    response = client.call(request, timeout_s=30)
                    times.append(time.perf_counter() - start)
                    invalid += not response.valid
                share = (_cpu_seconds(node.pid) - cpu) / (time.monotonic() - wall)
                return np.array(times) * 1e3, share, invalid

            call_all()  # warm-up: discovery, first queries
            still, still_cpu, invalid = call_all()

            moves = [0]

            def move() -> None:
                period = 1.0 / world_rate
                start = time.perf_counter()
                while not stop.is_set():
                    k = moves[0]
                    offset = [0.05 * np.sin(0.1 * k), 0.05 * np.cos(0.1 * k), -0.25]
                    objects.publish(_box(talker.message_type, HAND + offset, 3))
                    moves[0] += 1
                    delay = start + moves[0] * period - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)

            mover = threading.Thread(target=move, daemon=True)
            mover.start()
            moving, moving_cpu, _ = call_all()
            stop.set()
            mover.join(5)
        finally:
            stop.set()
            user.shutdown()
            talker.shutdown()
            node.terminate()
            node.communicate(timeout=20)
    return {"backend": backend, "still": still, "still_cpu": still_cpu, "moving": moving,
            "moving_cpu": moving_cpu, "moves": moves[0], "invalid": invalid}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["dds"], choices=["dds", "rclpy"])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--world-rate", type=float, default=30.0,
                        help="collision_object MOVE messages per second in the second phase")
    parser.add_argument("--domain", type=int, default=150 + os.getpid() % 30)
    parser.add_argument("--move-cost", type=int, metavar="N",
                        help="time N MOVEs applied by a Panda node in this process instead")
    parser.add_argument("--beside", metavar="PYTHON",
                        help="with --move-cost: the same under another interpreter, in turn")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.move_cost is not None:
        if args.move_cost < 1:
            parser.error("--move-cost must be at least 1")
        if args.json:
            print(json.dumps({"move_us": _move_us(args.move_cost, args.domain)}))
        else:
            _move_cost(args.move_cost, args.beside, args.domain)
        return 0
    if args.beside is not None:
        parser.error("--beside goes with --move-cost")
    qs = _configurations(args.calls)
    library = _library_ms(qs)
    rows = [_run_backend(backend, qs, args.world_rate, args.domain + k)
            for k, backend in enumerate(args.backends)]
    print(f"\ncheck_state_validity round trip, Panda (example-robot-data) with a box, "
          f"{args.calls} configurations around 'ready', client in this process, node a "
          f"process of its own, loopback")
    print(f"library alone (check_config_collision_free + calc_contacts): p50 "
          f"{np.median(library):.3f} ms, p99 {np.percentile(library, 99):.3f} ms\n")
    header = ("backend", "world", "p50 ms", "p99 ms", "max ms", "p50 / library p50",
              "node CPU")
    print(" | ".join(header))
    print(" | ".join("-" * len(h) for h in header))
    for row in rows:
        for phase, label in (("still", "still"), ("moving", f"moving at {args.world_rate:g} Hz "
                                                            f"({row['moves']} moves)")):
            t = row[phase]
            print(" | ".join([row["backend"], label, f"{np.median(t):.3f}",
                              f"{np.percentile(t, 99):.3f}", f"{t.max():.3f}",
                              f"{np.median(t) / np.median(library):.1f}",
                              f"{row[phase + '_cpu']:.0%}"]))
        print(f"({row['backend']}: {row['invalid']} of {args.calls} configurations in "
              "collision in the still phase)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
