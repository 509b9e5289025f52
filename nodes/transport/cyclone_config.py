"""Cyclone DDS configurations for the DDS backend.

:func:`loopback_config` keeps every DDS packet on this machine's loopback
interface: Cyclone binds to ``lo`` only, multicast is off (so no SPDP
discovery to 239.255.0.1), and participants find each other by unicast to
the single peer 127.0.0.1. Tests use it for every participant they create;
users can put it in ``CYCLONEDDS_URI`` to try nodes on one machine without
touching the network. The element names are those of Cyclone DDS 0.10 and
11 (``General/Interfaces/NetworkInterface``, ``General/AllowMulticast``,
``Discovery/Peers/Peer@Address``, ``Discovery/ParticipantIndex``).

This module must never import rclpy or ``geometry_core``.
"""

from __future__ import annotations

import os
from xml.sax.saxutils import escape, quoteattr

__all__ = ["loopback_config", "loopback_environment"]

_TRACE_LEVELS = ("none", "severe", "warning", "info", "config", "fine", "finer", "finest")


def loopback_config(
    *,
    interface: str = "lo",
    max_participants: int = 32,
    trace_file: str | None = None,
    trace_verbosity: str = "config",
) -> str:
    """Return a Cyclone DDS XML configuration that talks over loopback only.

    Parameters
    ----------
    interface : str
        Loopback interface name (``lo`` on Linux).
    max_participants : int
        Highest participant index probed by unicast discovery, so how many
        DDS participants (one per node) may run at once on this machine.
        Each probe is one small packet to 127.0.0.1 per discovery interval.
    trace_file : str, optional
        Write Cyclone's trace there (to check which interfaces and addresses
        it used).
    trace_verbosity : str
        Cyclone's trace level: ``config`` (configuration, interfaces, peers)
        up to ``finest`` (every packet).

    Returns
    -------
    str
        XML text, usable as ``CYCLONEDDS_URI`` or as ``dds_config`` of the
        DDS backend.

    Raises
    ------
    ValueError
        If ``max_participants`` is not in 1..119 (Cyclone's port scheme), or
        ``trace_verbosity`` is not a Cyclone trace level.
    """
    if isinstance(max_participants, bool) or not 1 <= int(max_participants) <= 119:
        raise ValueError(f"max_participants must be in 1..119, not {max_participants!r}")
    if trace_verbosity not in _TRACE_LEVELS:
        raise ValueError(f"trace_verbosity must be one of {_TRACE_LEVELS}, not {trace_verbosity!r}")
    tracing = ""
    if trace_file is not None:
        tracing = (
            f"<Tracing><Verbosity>{trace_verbosity}</Verbosity>"
            f"<OutputFile>{escape(trace_file)}</OutputFile></Tracing>"
        )
    return (
        '<CycloneDDS xmlns="https://cdds.io/config"><Domain Id="any">'
        "<General>"
        f"<Interfaces><NetworkInterface name={quoteattr(interface)}/></Interfaces>"
        "<AllowMulticast>false</AllowMulticast>"
        "</General>"
        "<Discovery>"
        "<ParticipantIndex>auto</ParticipantIndex>"
        f"<MaxAutoParticipantIndex>{int(max_participants)}</MaxAutoParticipantIndex>"
        '<Peers><Peer Address="127.0.0.1"/></Peers>'
        "</Discovery>"
        f"{tracing}"
        "</Domain></CycloneDDS>"
    )


def loopback_environment(domain_id: int, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a child process that uses the DDS backend over loopback only.

    Parameters
    ----------
    domain_id : int
        ``ROS_DOMAIN_ID`` for the child (0..232).
    base : dict, optional
        Environment to extend; a copy of ``os.environ`` by default.

    Returns
    -------
    dict
        ``base`` plus ``CYCLONEDDS_URI``, ``ROS_DOMAIN_ID`` and
        ``GEOMETRY_CORE_TRANSPORT=dds``.
    """
    if isinstance(domain_id, bool) or not 0 <= int(domain_id) <= 232:
        raise ValueError(f"domain_id must be in 0..232, not {domain_id!r}")
    environment = dict(os.environ if base is None else base)
    environment["CYCLONEDDS_URI"] = loopback_config()
    environment["ROS_DOMAIN_ID"] = str(int(domain_id))
    environment["GEOMETRY_CORE_TRANSPORT"] = "dds"
    return environment
