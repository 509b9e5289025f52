"""DrakeVisualizer: publish a scene graph to Meldis / drake_visualizer over LCM.

The message contents come from :mod:`geometry_core.viewer.conversions`; this
module decides *when* to send what, and on which channel:

* Channels. Drake's DrakeVisualizer sends on ``DRAKE_VIEWER_LOAD_ROBOT`` and
  ``DRAKE_VIEWER_DRAW``, with the suffix ``_ILLUSTRATION``, ``_PROXIMITY``
  or ``_PERCEPTION`` when ``use_role_channel_suffix`` is set. Drake's default
  visualization (``ApplyVisualizationConfig``) sends illustration without
  and proximity with the suffix; ours does the same by default. Meldis
  (Drake 1.51) draws the plain channels under ``/DRAKE_VIEWER``,
  ``_ILLUSTRATION`` under ``/Visual Geometry``, ``_PROXIMITY`` under
  ``/Collision Geometry`` (hidden until ticked in its controls, 50 %
  alpha), and does not subscribe to ``_PERCEPTION``.
* Load before draw. Meldis builds a scene at the first draw after a load
  and ignores a load byte-identical to the previous one. So the load is sent
  before the first draw, again whenever ``geometry_version()`` changes, and
  again every ``reload_period`` seconds of wall-clock time: a viewer started
  later then gets the scene within that period, and a viewer that already
  has it ignores the repeat.
* Throttle. :meth:`DrakeVisualizer.publish_draw` publishes at most once per
  ``publish_period`` of the caller's time stamps (Drake's period is in
  simulated time as well); time running backwards (a new run) publishes.
* Contacts go to ``CONTACT_RESULTS`` unthrottled.

This module must never import fcl or ROS; it reaches lcm only through
:mod:`geometry_core.viewer.lcm_buses`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from geometry_core.scene_graph import Rgba, Role
from geometry_core.viewer import conversions
from geometry_core.viewer.lcm_buses import DrakeLcm

if TYPE_CHECKING:
    from geometry_core.proximity.results import PenetrationAsPointPair
    from geometry_core.scene import SceneGraph

__all__ = [
    "CONTACT_RESULTS_CHANNEL",
    "DEFAULT_PUBLISH_PERIOD",
    "DEFAULT_RELOAD_PERIOD",
    "DRAW_CHANNEL",
    "LOAD_CHANNEL",
    "DrakeVisualizer",
    "LcmPublisher",
    "make_channel_name",
]

LOAD_CHANNEL = "DRAKE_VIEWER_LOAD_ROBOT"
DRAW_CHANNEL = "DRAKE_VIEWER_DRAW"
CONTACT_RESULTS_CHANNEL = "CONTACT_RESULTS"

#: Seconds between draw messages: Drake's DrakeVisualizerParams default
#: (1/64 s; the 1/60 in older Drake docs is superseded).
DEFAULT_PUBLISH_PERIOD = 1.0 / 64.0

#: Wall-clock seconds between repeated load messages. A late viewer waits at
#: most this long for the scene; a viewer that has it compares bytes and
#: skips the repeat, so the cost is one message of a few kB per period.
DEFAULT_RELOAD_PERIOD = 2.0

# A draw at exactly one period after the last must not be refused because
# k/64 sums are inexact in binary; this slack is far below any useful period.
_PERIOD_SLACK = 1e-9

_ROLE_SUFFIX = {Role.ILLUSTRATION: "_ILLUSTRATION", Role.PROXIMITY: "_PROXIMITY",
                Role.PERCEPTION: "_PERCEPTION"}


class LcmPublisher(Protocol):
    """Anything with ``publish(channel, data)``: a DrakeLcm or an ``lcm.LCM``."""

    def publish(self, channel: str, data: bytes) -> None: ...


class _PydrakeLcmAdapter:
    """Publishes through a ``pydrake.lcm.DrakeLcmInterface`` (its ``Publish`` method)."""

    def __init__(self, bus: object) -> None:
        self.bus = bus

    def publish(self, channel: str, data: bytes) -> None:
        self.bus.Publish(channel, data)


def _as_publisher(lcm: object) -> LcmPublisher:
    if callable(getattr(lcm, "publish", None)):
        return lcm
    if callable(getattr(lcm, "Publish", None)):
        return _PydrakeLcmAdapter(lcm)
    raise TypeError("lcm must have publish(channel, data) (DrakeLcm, lcm.LCM) or "
                    f"Publish(channel, data) (pydrake.lcm.DrakeLcm), got {type(lcm).__name__}")


def make_channel_name(channel: str, role: Role, use_role_channel_suffix: bool) -> str:
    """Return ``channel`` with the role's suffix appended when asked (Drake's rule)."""
    if not use_role_channel_suffix:
        return channel
    return channel + _ROLE_SUFFIX[role]


class DrakeVisualizer:
    """Draws a scene graph's geometries of one role in Meldis or drake_visualizer.

    Parameters
    ----------
    scene_graph : SceneGraph
        The scene; read on every call (poses at draw time, topology at load
        time), never modified.
    lcm_url : str, optional
        Where to publish when ``lcm`` is not given. None: LCM's default,
        ``LCM_DEFAULT_URL`` or ``udpm://239.255.76.67:7667?ttl=0``;
        ``memq://null`` publishes nothing.
    role : Role
        The role drawn (illustration, proximity or perception).
    publish_period : float
        Minimum seconds between draw messages, in the time stamps passed to
        :meth:`publish_draw`.
    lcm : DrakeLcm, lcm.LCM or pydrake.lcm.DrakeLcm, optional
        An existing bus (e.g. ``apply_lcm_bus_config(...).find(...)``).
    use_role_channel_suffix : bool, optional
        Append the role suffix to the channel names. None (default): only for
        proximity and perception, like Drake's default visualization.
    default_color : Rgba, optional
        Colour of geometry without a diffuse property (default per role:
        ``conversions.DEFAULT_COLORS``).
    reload_period : float
        Wall-clock seconds after which the next draw re-sends the load
        message; ``math.inf`` disables the repeat.
    contact_force_per_depth : float
        Newtons per metre of depth in the contact arrows
        (``conversions.DEFAULT_CONTACT_FORCE_PER_DEPTH``).
    clock : callable, optional
        Wall clock for ``reload_period`` (default ``time.monotonic``).

    Raises
    ------
    ValueError
        If ``role`` is UNASSIGNED, a period is not positive, or both ``lcm``
        and ``lcm_url`` are given.
    TypeError
        If ``lcm`` cannot publish.

    Examples
    --------
    >>> viz = DrakeVisualizer(sg, lcm_url="memq://null")  # doctest: +SKIP
    >>> viz.dispatch_load_message()                       # doctest: +SKIP
    >>> viz.publish_draw(0.0)                             # doctest: +SKIP
    True
    """

    def __init__(self, scene_graph: SceneGraph, lcm_url: str | None = None,
                 role: Role = Role.ILLUSTRATION,
                 publish_period: float = DEFAULT_PUBLISH_PERIOD,
                 lcm: LcmPublisher | None = None, *,
                 use_role_channel_suffix: bool | None = None,
                 default_color: Rgba | None = None,
                 reload_period: float = DEFAULT_RELOAD_PERIOD,
                 contact_force_per_depth: float = conversions.DEFAULT_CONTACT_FORCE_PER_DEPTH,
                 clock: Callable[[], float] = time.monotonic) -> None:
        conversions._check_role(role)
        _check_positive("publish_period", publish_period, allow_inf=False)
        _check_positive("reload_period", reload_period, allow_inf=True)
        _check_positive("contact_force_per_depth", contact_force_per_depth, allow_inf=False)
        if default_color is not None and not isinstance(default_color, Rgba):
            raise TypeError(f"default_color must be an Rgba, got {type(default_color).__name__}")
        if lcm is not None and lcm_url is not None:
            raise ValueError("give lcm or lcm_url, not both")
        self._scene_graph = scene_graph
        self._role = role
        self._publish_period = float(publish_period)
        self._reload_period = float(reload_period)
        self._lcm = _as_publisher(lcm) if lcm is not None else DrakeLcm(lcm_url)
        if use_role_channel_suffix is None:
            use_role_channel_suffix = self._role != Role.ILLUSTRATION
        self._load_channel = make_channel_name(LOAD_CHANNEL, self._role, use_role_channel_suffix)
        self._draw_channel = make_channel_name(DRAW_CHANNEL, self._role, use_role_channel_suffix)
        self._default_color = default_color
        self._force_per_depth = float(contact_force_per_depth)
        self._clock = clock
        self._lock = threading.Lock()
        self._links: list[conversions.ViewerLink] | None = None
        self._loaded_version: int | None = None
        self._last_load_wall: float | None = None
        self._last_draw_time: float | None = None

    # ------------------------------------------------------------ properties

    def role(self) -> Role:
        return self._role

    def publish_period(self) -> float:
        return self._publish_period

    def reload_period(self) -> float:
        return self._reload_period

    def load_channel(self) -> str:
        return self._load_channel

    def draw_channel(self) -> str:
        return self._draw_channel

    def lcm(self) -> LcmPublisher:
        """Return the bus this visualizer publishes on (a pydrake bus comes wrapped)."""
        return self._lcm

    # ----------------------------------------------------------------- sends

    def dispatch_load_message(self) -> None:
        """Send the load message of every geometry with the role, now.

        Drake's ``DispatchLoadMessage``. Not needed before
        :meth:`publish_draw`, which sends the load itself when due.
        """
        with self._lock:
            self._send_load()

    def publish_draw(self, time_s: float, force: bool = False) -> bool:
        """Send the current world poses ``X_WF`` of every drawn link.

        The load message goes first when none was sent yet, when the scene's
        geometry version changed, or when ``reload_period`` has passed.

        Parameters
        ----------
        time_s : float
            Time stamp in seconds (sent in milliseconds).
        force : bool
            Publish even if less than ``publish_period`` has passed.

        Returns
        -------
        bool
            True if a draw message was sent, False if throttled.

        Raises
        ------
        ValueError
            If ``time_s`` is not finite, or a frame of the scene has no pose.
        """
        time_s = float(time_s)
        if not math.isfinite(time_s):
            raise ValueError(f"time_s must be finite, got {time_s!r}")
        with self._lock:
            last = self._last_draw_time
            if (not force and last is not None
                    and last <= time_s < last + self._publish_period - _PERIOD_SLACK):
                return False
            X_WF = self._scene_graph.compute_world_poses()
            if self._load_due():
                self._send_load()
            message = conversions.make_draw_message(self._links, X_WF, time_s)
            self._lcm.publish(self._draw_channel, message.encode())
            self._last_draw_time = time_s
            return True

    def publish_contacts(self, penetrations: Sequence[PenetrationAsPointPair],
                         time_s: float) -> None:
        """Send penetrations to ``CONTACT_RESULTS`` as point contacts.

        See ``conversions.make_contact_results_message`` for the fields
        (arrow = ``contact_force_per_depth * depth`` newtons along
        ``-nhat_BA_W``, at the midpoint of the witness points).

        Raises
        ------
        ValueError
            If ``time_s`` is not finite.
        KeyError
            If a penetration names a geometry the scene does not have.
        """
        message = conversions.make_contact_results_message(
            penetrations, self._scene_graph.model_inspector(), time_s, self._force_per_depth)
        self._lcm.publish(CONTACT_RESULTS_CHANNEL, message.encode())

    # --------------------------------------------------------------- helpers

    def _load_due(self) -> bool:
        if self._loaded_version != self._scene_graph.geometry_version():
            return True
        return self._clock() - self._last_load_wall >= self._reload_period

    def _send_load(self) -> None:
        inspector = self._scene_graph.model_inspector()
        version = self._scene_graph.geometry_version()
        message = conversions.make_load_message(inspector, self._role,
                                                default_color=self._default_color)
        self._lcm.publish(self._load_channel, message.encode())
        self._links, _ = conversions.collect_links(inspector, self._role)
        self._loaded_version = version
        self._last_load_wall = self._clock()

    def __repr__(self) -> str:
        return (f"DrakeVisualizer(role={self._role.name}, load={self._load_channel!r}, "
                f"draw={self._draw_channel!r}, publish_period={self._publish_period})")


def _check_positive(name: str, value: float, *, allow_inf: bool) -> None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None
    if not value > 0.0 or math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be positive{'' if allow_inf else ' and finite'}, "
                         f"got {value!r}")
