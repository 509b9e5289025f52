"""A separate OS process on the DDS backend, driven by the exchange tests.

Run as ``python dds_peer.py publish|subscribe|exchange [options]``. The
environment (from ``loopback_environment``) sets ``CYCLONEDDS_URI`` to the
loopback-only configuration and ``ROS_DOMAIN_ID`` to the test's domain.

- ``publish``: publish a known TFMessage ``--count`` times (``0``: every
  50 ms until killed), print ``published`` after the first, then stay alive
  (a transient-local sample lives in its writer).
- ``subscribe``: wait up to ``--timeout`` s for one message, print it as
  JSON and exit 0; exit 3 on timeout.
- ``exchange``: start a publisher and a subscriber as child processes and
  print the subscriber's output; used inside a private network namespace.
- ``stream``: wait until a subscriber matches, print ``matched``, then
  publish the ``std_msgs/String`` messages ``"0"``, ``"1"``, ... (``--count``
  of them, ``0``: until killed or ``--timeout``) at ``--rate`` per second
  (``0``: as fast as it can), print ``sent N`` and stay until ``--linger``
  seconds have passed (its reliable writer resends what a reader missed).

Imports nothing from ``geometry_core``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time

from cyclonedds._clayer import ddspy_write_ts

from geometry_core_nodes.transport import (
    RELIABLE_RESULTS,
    SENSOR_DATA,
    TF,
    TF_STATIC,
    TF_STATIC_LISTENER,
    QoSProfile,
    create_node,
)

#: Reliable with room for every message a test streams: none is lost.
STREAM = QoSProfile(depth=5000)

PUBLISHER_QOS = {
    "tf": TF,
    "tf_static": TF_STATIC,
    "results": RELIABLE_RESULTS,
    "sensor": SENSOR_DATA,
    "stream": STREAM,
}
SUBSCRIBER_QOS = {
    "tf": TF,
    "tf_static": TF_STATIC_LISTENER,
    "results": RELIABLE_RESULTS,
    "sensor": SENSOR_DATA,
    "stream": STREAM,
}


def make_tf_message(message_type):
    """The TFMessage every publisher sends: odd-length names, negative values, two transforms."""
    TFMessage = message_type("tf2_msgs/msg/TFMessage")
    TransformStamped = message_type("geometry_msgs/msg/TransformStamped")
    Header = message_type("std_msgs/msg/Header")
    Time = message_type("builtin_interfaces/msg/Time")
    Transform = message_type("geometry_msgs/msg/Transform")
    Vector3 = message_type("geometry_msgs/msg/Vector3")
    Quaternion = message_type("geometry_msgs/msg/Quaternion")
    return TFMessage(
        transforms=[
            TransformStamped(
                header=Header(stamp=Time(sec=1700000000, nanosec=123456789), frame_id="world"),
                child_frame_id="link1",
                transform=Transform(
                    translation=Vector3(x=0.5, y=-1.25, z=2.0),
                    rotation=Quaternion(x=0.0, y=0.0, z=0.7071067811865476, w=0.7071067811865476),
                ),
            ),
            TransformStamped(
                header=Header(stamp=Time(sec=-1, nanosec=7), frame_id="link1"),
                child_frame_id="gripper_tip",
                transform=Transform(translation=Vector3(x=-0.125, y=0.0, z=1e-3)),
            ),
        ]
    )


def _publish(args: argparse.Namespace) -> int:
    node = create_node("peer_publisher", args=[], backend="dds")
    publisher = node.create_publisher("tf2_msgs/msg/TFMessage", args.topic, PUBLISHER_QOS[args.qos])
    message = make_tf_message(node.message_type)
    sent = 0
    deadline = time.monotonic() + args.timeout
    try:
        while time.monotonic() < deadline:
            if args.count == 0 or sent < args.count:
                publisher.publish(message)
                sent += 1
                if sent == 1:
                    print("published", flush=True)
            node.spin_once(0.05)
    finally:
        node.shutdown()
    return 0


def _subscribe(args: argparse.Namespace) -> int:
    node = create_node("peer_subscriber", args=[], backend="dds")
    received = []
    node.create_subscription(
        "tf2_msgs/msg/TFMessage", args.topic, received.append, SUBSCRIBER_QOS[args.qos]
    )
    print("subscribed", flush=True)
    deadline = time.monotonic() + args.timeout
    try:
        while not received and time.monotonic() < deadline:
            node.spin_once(0.05)
    finally:
        node.shutdown()
    if not received:
        print("timeout", flush=True)
        return 3
    print(json.dumps(dataclasses.asdict(received[0])), flush=True)
    return 0


def _stream(args: argparse.Namespace) -> int:
    node = create_node("peer_stream", args=[], backend="dds")
    publisher = node.create_publisher("std_msgs/msg/String", args.topic, PUBLISHER_QOS[args.qos])
    String = node.message_type("std_msgs/msg/String")
    deadline = time.monotonic() + args.timeout
    sent = 0
    try:
        while publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                print("no subscriber", flush=True)
                return 3
            node.spin_once(0.01)
        print("matched", flush=True)
        start = time.monotonic()
        while (args.count == 0 or sent < args.count) and time.monotonic() < deadline:
            if args.rate > 0:
                ahead = start + sent / args.rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
            message = String(data=str(sent))
            if args.written_ago > 0:
                # A source timestamp in the past: a sample that queued.
                ddspy_write_ts(publisher._ref, publisher.serialize(message),
                               time.time_ns() - round(args.written_ago * 1e9))
            else:
                publisher.publish(message)
            sent += 1
        print(f"sent {sent}", flush=True)
        linger = time.monotonic() + args.linger
        while time.monotonic() < min(linger, deadline):
            node.spin_once(0.05)
    finally:
        node.shutdown()
    return 0


def _exchange(args: argparse.Namespace) -> int:
    me = [sys.executable, __file__]
    common = ["--topic", args.topic, "--qos", args.qos]
    publisher = subprocess.Popen(
        [*me, "publish", *common, "--count", "0", "--timeout", str(args.timeout)],
        stdout=subprocess.DEVNULL,
    )
    try:
        result = subprocess.run(
            [*me, "subscribe", *common, "--timeout", str(args.timeout)],
            capture_output=True,
            text=True,
            timeout=args.timeout + 30,
        )
    finally:
        publisher.kill()
        publisher.wait()
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["publish", "subscribe", "exchange", "stream"])
    parser.add_argument("--topic", default="/tf")
    parser.add_argument("--qos", default="tf", choices=sorted(SUBSCRIBER_QOS))
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.0)
    parser.add_argument("--linger", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--written-ago", type=float, default=0.0,
                        help="stream: source timestamps this many seconds before the write")
    args = parser.parse_args(argv)
    return {"publish": _publish, "subscribe": _subscribe, "exchange": _exchange,
            "stream": _stream}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
