"""LCM transports by URL and named buses (Drake's DrakeLcm, DrakeLcmParams, LcmBuses).

:class:`DrakeLcm` wraps one ``lcm.LCM`` instance for a URL; ``memq://null``
makes one that drops everything (no LCM instance, no socket, no queue that
grows). :func:`apply_lcm_bus_config` turns a ``{bus name: params or None}``
mapping into :class:`LcmBuses`, as pydrake's ``ApplyLcmBusConfig`` does,
without a systems framework: a bus given ``None`` is a ``memq://null`` bus.

This is the one module of geometry_core that imports ``lcm``; it must never
import fcl or ROS.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import lcm as _lcm

__all__ = [
    "DEFAULT_LCM_URL",
    "LCM_URL_MEMQ_NULL",
    "DrakeLcm",
    "DrakeLcmParams",
    "LcmBuses",
    "apply_lcm_bus_config",
    "resolve_lcm_url",
]

#: LCM's own default URL: UDP multicast with ttl=0, so packets never leave
#: the host. Used when no URL is given and LCM_DEFAULT_URL is not set.
DEFAULT_LCM_URL = "udpm://239.255.76.67:7667?ttl=0"

#: The URL that turns publishing off (Drake's ``LcmBuses::kLcmUrlMemqNull``).
LCM_URL_MEMQ_NULL = "memq://null"


def resolve_lcm_url(lcm_url: str | None) -> str:
    """Return the URL an LCM instance will use for ``lcm_url``.

    ``None`` or ``""`` means LCM's default: the ``LCM_DEFAULT_URL``
    environment variable when set, else :data:`DEFAULT_LCM_URL` (what the
    lcm library and Drake's DrakeLcm both do).

    Raises
    ------
    TypeError
        If ``lcm_url`` is neither None nor a str.
    """
    if lcm_url is not None and not isinstance(lcm_url, str):
        raise TypeError(f"lcm_url must be a str or None, got {type(lcm_url).__name__}")
    return lcm_url or os.environ.get("LCM_DEFAULT_URL") or DEFAULT_LCM_URL


@dataclass
class DrakeLcmParams:
    """How to open one LCM bus (Drake's ``DrakeLcmParams``).

    Attributes
    ----------
    lcm_url : str
        The bus URL; empty means LCM's default (see :func:`resolve_lcm_url`).
    channel_suffix : str
        Appended to every channel name published or subscribed.
    defer_initialization : bool
        Open the LCM instance (and its socket) at first use, not at
        construction.
    """

    lcm_url: str = ""
    channel_suffix: str = ""
    defer_initialization: bool = False


class DrakeLcm:
    """A publisher/subscriber on one LCM URL.

    Parameters
    ----------
    lcm_url : str or DrakeLcmParams or None
        The URL (None: LCM's default), or full parameters.

    Raises
    ------
    ValueError
        If the URL is malformed or the transport cannot be opened (the
        ``lcm`` library's error, with the URL).
    """

    def __init__(self, lcm_url: str | DrakeLcmParams | None = None) -> None:
        params = lcm_url if isinstance(lcm_url, DrakeLcmParams) else DrakeLcmParams(
            resolve_lcm_url(lcm_url))
        self._url = resolve_lcm_url(params.lcm_url)
        self._suffix = params.channel_suffix
        self._lock = threading.Lock()
        self._instance: _lcm.LCM | None = None
        if not params.defer_initialization:
            self._get()

    def get_lcm_url(self) -> str:
        """Return the URL of this bus."""
        return self._url

    def is_null(self) -> bool:
        """Report whether this bus drops every message (``memq://null``)."""
        return self._url == LCM_URL_MEMQ_NULL

    def publish(self, channel: str, data: bytes) -> None:
        """Send encoded ``data`` on ``channel`` (plus the channel suffix)."""
        instance = self._get()
        if instance is not None:
            instance.publish(channel + self._suffix, data)

    def subscribe(self, channel: str, handler: Callable[[bytes], None]) -> None:
        """Call ``handler(data)`` for messages on ``channel`` (plus the suffix).

        Handlers run inside :meth:`handle_subscriptions`. On a null bus
        nothing ever arrives.
        """
        instance = self._get()
        if instance is not None:
            instance.subscribe(channel + self._suffix, lambda _channel, data: handler(data))

    def handle_subscriptions(self, timeout_millis: int) -> int:
        """Run the handlers of pending messages, waiting up to ``timeout_millis``.

        Returns the number of messages handled (0 or 1: LCM hands over one
        message per call; call again to drain).
        """
        instance = self._get()
        if instance is None:
            return 0
        return int(instance.handle_timeout(int(timeout_millis)) > 0)

    def _get(self) -> _lcm.LCM | None:
        if self.is_null():
            return None
        with self._lock:
            if self._instance is None:
                try:
                    self._instance = _lcm.LCM(self._url)
                except (RuntimeError, OSError) as err:
                    raise ValueError(f"cannot open LCM at {self._url!r}: {err}") from err
            return self._instance

    def __repr__(self) -> str:
        return f"DrakeLcm({self._url!r})"


class LcmBuses:
    """Named LCM buses (Drake's ``LcmBuses``)."""

    #: Drake's spelling of :data:`LCM_URL_MEMQ_NULL`.
    kLcmUrlMemqNull = LCM_URL_MEMQ_NULL

    def __init__(self) -> None:
        self._buses: dict[str, DrakeLcm] = {}

    def add(self, bus_name: str, bus: DrakeLcm) -> None:
        """Add a bus.

        Raises
        ------
        ValueError
            If ``bus`` is None or a bus of that name exists.
        """
        if bus is None:
            raise ValueError(f"LCM bus {bus_name!r} must not be None")
        if bus_name in self._buses:
            raise ValueError(f"an LCM bus named {bus_name!r} already exists")
        self._buses[bus_name] = bus

    def find(self, description_of_caller: str, bus_name: str) -> DrakeLcm:
        """Return the bus named ``bus_name``.

        Raises
        ------
        KeyError
            Naming the caller, the bus and the buses that exist.
        """
        try:
            return self._buses[bus_name]
        except KeyError:
            raise KeyError(f"{description_of_caller} requested an LCM bus named {bus_name!r} "
                           f"but there is no such bus; the buses are "
                           f"{sorted(self._buses)}") from None

    def get_all_bus_names(self) -> list[str]:
        """Return every bus name, in insertion order."""
        return list(self._buses)

    def size(self) -> int:
        """Return the number of buses."""
        return len(self._buses)


def apply_lcm_bus_config(lcm_buses: Mapping[str, DrakeLcmParams | None]) -> LcmBuses:
    """Open one :class:`DrakeLcm` per named bus (pydrake's ``ApplyLcmBusConfig``).

    A bus whose params are ``None``, or whose URL is ``memq://null``, is a
    bus that drops every message.

    Raises
    ------
    TypeError
        If a value is neither DrakeLcmParams nor None.
    ValueError
        If a bus cannot be opened.
    """
    buses = LcmBuses()
    for bus_name, params in lcm_buses.items():
        if params is None:
            params = DrakeLcmParams(lcm_url=LCM_URL_MEMQ_NULL)
        if not isinstance(params, DrakeLcmParams):
            raise TypeError(f"LCM bus {bus_name!r}: expected DrakeLcmParams or None, "
                            f"got {type(params).__name__}")
        buses.add(bus_name, DrakeLcm(params))
    return buses
