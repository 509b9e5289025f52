"""Quality-of-service profiles of the transport, named for what they carry.

A profile is a small frozen dataclass that both backends translate (the DDS
backend to Cyclone DDS policies the way rmw_cyclonedds does, the rclpy
backend to ``rclpy.qos.QoSProfile``). The named profiles are the choices the
nodes make on purpose:

- :data:`SENSOR_DATA` for incoming poses: best effort, volatile, keep last 5
  (ROS 2's ``qos_profile_sensor_data``); a late pose is worth less than the
  next one.
- :data:`RELIABLE_RESULTS` for our results and markers: ROS 2's default
  profile, reliable, volatile, keep last 10.
- :data:`TF` for ``/tf``: reliable, volatile, keep last 100, as tf2_ros's
  listener and broadcaster.
- :data:`TF_STATIC` for publishing ``/tf_static``: reliable, transient local,
  keep last 1, as tf2_ros's ``StaticTransformBroadcaster`` (the one message
  holds every static transform of the publisher).
- :data:`TF_STATIC_LISTENER` for subscribing to ``/tf_static``: the same with
  keep last 100, as tf2_ros's ``TransformListener``, so that the latched
  messages of many static publishers all fit.
- :data:`SERVICES` for the request and reply topics of a service: reliable,
  volatile, keep last 10 (ROS 2's ``qos_profile_services_default``).
- :data:`LATCHED` for ``robot_description``: reliable, transient local, keep
  last 1, as robot_state_publisher publishes it.

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "LATCHED",
    "RELIABLE_RESULTS",
    "SENSOR_DATA",
    "SERVICES",
    "TF",
    "TF_STATIC",
    "TF_STATIC_LISTENER",
    "Durability",
    "History",
    "QoSProfile",
    "Reliability",
]


class Reliability(enum.Enum):
    """Whether lost samples are resent."""

    RELIABLE = "reliable"
    BEST_EFFORT = "best_effort"


class Durability(enum.Enum):
    """Whether a late subscriber receives samples published before it joined."""

    VOLATILE = "volatile"
    TRANSIENT_LOCAL = "transient_local"


class History(enum.Enum):
    """How many samples are kept: the last ``depth``, or all."""

    KEEP_LAST = "keep_last"
    KEEP_ALL = "keep_all"


@dataclass(frozen=True)
class QoSProfile:
    """A ROS 2 QoS profile (the policies this project uses).

    Parameters
    ----------
    reliability : Reliability
    durability : Durability
    depth : int
        Queue depth for ``KEEP_LAST``; must be at least 1.
    history : History
        ``KEEP_LAST`` (default) or ``KEEP_ALL``.

    Raises
    ------
    ValueError
        If depth is below 1 with ``KEEP_LAST``.

    Notes
    -----
    A best-effort subscription matches a reliable publisher, not the reverse;
    a transient-local subscription matches only a transient-local publisher.
    """

    reliability: Reliability = Reliability.RELIABLE
    durability: Durability = Durability.VOLATILE
    depth: int = 10
    history: History = History.KEEP_LAST

    def __post_init__(self) -> None:
        if not isinstance(self.reliability, Reliability):
            raise ValueError(f"reliability must be a Reliability, not {self.reliability!r}")
        if not isinstance(self.durability, Durability):
            raise ValueError(f"durability must be a Durability, not {self.durability!r}")
        if not isinstance(self.history, History):
            raise ValueError(f"history must be a History, not {self.history!r}")
        if self.history is History.KEEP_LAST and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1
        ):
            raise ValueError(f"depth must be an integer >= 1 with KEEP_LAST, not {self.depth!r}")


SENSOR_DATA = QoSProfile(Reliability.BEST_EFFORT, Durability.VOLATILE, depth=5)
RELIABLE_RESULTS = QoSProfile(Reliability.RELIABLE, Durability.VOLATILE, depth=10)
TF = QoSProfile(Reliability.RELIABLE, Durability.VOLATILE, depth=100)
TF_STATIC = QoSProfile(Reliability.RELIABLE, Durability.TRANSIENT_LOCAL, depth=1)
TF_STATIC_LISTENER = QoSProfile(Reliability.RELIABLE, Durability.TRANSIENT_LOCAL, depth=100)
LATCHED = QoSProfile(Reliability.RELIABLE, Durability.TRANSIENT_LOCAL, depth=1)
SERVICES = QoSProfile(Reliability.RELIABLE, Durability.VOLATILE, depth=10)
