"""Scenarios of delivery on Cyclone's receive thread, each in a process of its own.

Run as ``python receive_scenarios.py SCENARIO`` beside a ``dds_peer.py
stream`` publisher on ``/stream`` (the environment from
``loopback_environment`` gives the domain and the loopback-only
configuration). A scenario that hangs shows as the test's timeout, not as a
hung test run; each prints one JSON line.

- ``shutdown``: once 200 messages were delivered on the receive thread,
  shut the node down while they keep coming; report how long that took and
  how many callbacks began after it returned.
- ``exit``: once 200 messages were delivered, leave the interpreter without
  shutting the node down: the transport's exit hook removes the listener;
  an exit hook that runs after it counts the callbacks that still begin.
- ``local``: while the remote stream is delivered on the receive thread,
  this process writes 3000 messages of its own to the same topic, each
  delivered in the writing thread: both kinds must all arrive.

Imports nothing from ``geometry_core``.
"""

from __future__ import annotations

import atexit
import json
import sys
import threading
import time

from geometry_core_nodes.transport import QoSProfile, create_node

STREAM = QoSProfile(depth=5000)


def _listening_node(work_s: float = 0.0):
    node = create_node("receive_scenario", args=[], backend="dds")
    received: list[str] = []
    threads: set[int] = set()
    shut_down = threading.Event()
    late: list[str] = []

    def on_message(msg) -> None:
        if shut_down.is_set():
            late.append(msg.data)
        threads.add(threading.get_ident())
        if work_s:
            end = time.perf_counter() + work_s
            while time.perf_counter() < end:  # Python work holding the GIL
                pass
        received.append(msg.data)

    subscription = node.create_subscription("std_msgs/msg/String", "/stream", on_message, STREAM)
    assert node.deliver_on_receive(subscription)
    return node, received, threads, shut_down, late


def _wait(condition, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the stream did not arrive")
        time.sleep(0.005)


def shutdown() -> dict:
    node, received, threads, shut_down, late = _listening_node(work_s=0.0002)
    _wait(lambda: len(received) >= 200)
    start = time.monotonic()
    node.shutdown()
    took = time.monotonic() - start
    shut_down.set()
    count = len(received)
    time.sleep(0.5)  # the stream goes on
    return {"before": count, "after": len(received) - count, "late": len(late),
            "shutdown_s": took, "main_thread_delivered": threading.get_ident() in threads}


def exit_without_shutdown() -> dict:
    from geometry_core_nodes.transport import dds

    node, received, threads, _, _ = _listening_node(work_s=0.0005)
    _wait(lambda: len(received) >= 200)

    def count_late() -> None:
        # Exit hooks run last registered first: this one after the transport's.
        count = len(received)
        time.sleep(0.3)  # the stream goes on
        print(json.dumps({"late_at_exit": len(received) - count}), flush=True)

    atexit.unregister(dds._remove_listeners_at_exit)
    atexit.register(count_late)
    atexit.register(dds._remove_listeners_at_exit)
    return {"before": len(received), "main_thread_delivered": threading.get_ident() in threads}


def local() -> dict:
    node, received, threads, _, _ = _listening_node(work_s=0.0001)
    _wait(lambda: len(received) >= 50)
    writer = create_node("local_writer", args=[], backend="dds")
    publisher = writer.create_publisher("std_msgs/msg/String", "/stream", STREAM)
    String = writer.message_type("std_msgs/msg/String")
    for k in range(3000):
        publisher.publish(String(data=f"local-{k}"))
    _wait(lambda: sum(m.startswith("local-") for m in received) == 3000)
    locals_ = [m for m in received if m.startswith("local-")]
    remote = [int(m) for m in received if not m.startswith("local-")]
    writer.shutdown()
    node.shutdown()
    return {"local_in_order": locals_ == [f"local-{k}" for k in range(3000)],
            "remote": len(remote), "remote_in_order": remote == sorted(remote),
            "threads": len(threads)}


if __name__ == "__main__":
    scenario = {"shutdown": shutdown, "exit": exit_without_shutdown, "local": local}[sys.argv[1]]
    print(json.dumps(scenario()), flush=True)
