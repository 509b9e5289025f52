"""The serving loop both nodes share: spin until asked to stop, then shut down.

Signal handlers only ask the loop to stop; the node is released afterwards,
on the main thread, never in the middle of a callback or of rclpy's executor.
Imports only the standard library.
"""

from __future__ import annotations

import signal
from typing import Protocol


class Servable(Protocol):
    """What ``serve`` needs of a node wrapper."""

    node: object  # the TransportNode: ``ok`` and ``backend``

    def spin_once(self, timeout_s: float | None = None) -> None: ...

    def shutdown(self) -> None: ...


def serve(served: Servable, period_s: float = 0.1) -> int:
    """Spin ``served`` until shutdown, SIGTERM or Ctrl-C; shut it down; return 0."""
    stop: list[bool] = []
    # ros2 launch and process managers stop nodes with SIGTERM after SIGINT.
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    if served.node.backend == "rclpy":
        # Ctrl-C's KeyboardInterrupt raised inside rclpy's C++ (taking a
        # message) comes out as a RuntimeError: stop as on SIGTERM instead.
        signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    try:
        while served.node.ok and not stop:
            served.spin_once(period_s)
    except KeyboardInterrupt:
        pass
    finally:
        served.shutdown()
    return 0
