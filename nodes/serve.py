"""What both nodes share: the serving loop, and a start and shutdown around it.

Signal handlers only ask the loop to stop; the node is released afterwards,
on the main thread, never in the middle of a callback or of rclpy's executor.
Imports only the standard library.
"""

from __future__ import annotations

import gc
import signal
from typing import Any, Protocol


class Servable(Protocol):
    """What ``serve`` needs of a node wrapper."""

    node: object  # the TransportNode: ``ok`` and ``backend``

    def spin_once(self, timeout_s: float | None = None) -> None: ...

    def shutdown(self) -> None: ...


class ServedNode:
    """The start and shutdown both node wrappers share.

    :meth:`_start` releases the node if set-up fails; :meth:`shutdown` logs
    the drop counters once. Subclasses call :meth:`_start` with their
    transport node and implement ``_setup`` (parameters, inputs as
    ``self.inputs``, publishers).
    """

    node: Any
    inputs: Any

    def _start(self, node: Any) -> None:
        self.node = node
        self._shut_down = False
        try:
            self._setup()
        except BaseException:
            node.shutdown()
            raise

    def _setup(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        """Log the drop counters and release the node; safe to call twice."""
        with self.node.exclusive():  # no callback on another thread changes them meanwhile
            if not self._shut_down:
                self.inputs.report_dropped()
            self._shut_down = True
        self.node.shutdown()


def serve(served: Servable, period_s: float = 0.1) -> int:
    """Spin ``served`` until shutdown, SIGTERM or Ctrl-C; shut it down; return 0."""
    stop: list[bool] = []
    # ros2 launch and process managers stop nodes with SIGTERM after SIGINT.
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    # Ctrl-C stops between two spins, as SIGTERM does: a KeyboardInterrupt
    # raised inside rclpy's C++ comes out as a RuntimeError, and one raised
    # inside Cyclone's Python layer or a callback could leave a take or an
    # update half done (a 10-minute soak's node then hung on shutdown).
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    # What set-up made (the scene, modules, DDS entities) lives as long as the
    # node: out of the collector's generations, a full collection no longer
    # walks it, a pause of 15-20 ms at 1 kHz /tf that showed in the latency tail.
    gc.freeze()
    try:
        while served.node.ok and not stop:
            served.spin_once(period_s)
    except KeyboardInterrupt:
        pass
    finally:
        served.shutdown()
    return 0
