"""Drake viewer bridge: the scene graph drawn by Meldis (or drake_visualizer) over LCM.

* :class:`DrakeVisualizer`: load, draw and contact messages for one role.
* :func:`apply_lcm_bus_config`, :class:`LcmBuses`, :class:`DrakeLcmParams`,
  :class:`DrakeLcm`: LCM transports by URL and by bus name.
* :mod:`geometry_core.viewer.conversions`: the pure scene-to-message
  functions; :mod:`geometry_core.viewer.lcmtypes`: the generated messages
  (package ``drake``, fingerprints equal to Drake's).

This package is the only part of geometry_core that imports ``lcm`` (in
``lcm_buses`` alone). It must never import fcl or ROS.
"""

from geometry_core.viewer.connect import connect_drake_visualizer, dispatch_load_message
from geometry_core.viewer.drake_visualizer import (
    CONTACT_RESULTS_CHANNEL,
    DEFAULT_PUBLISH_PERIOD,
    DEFAULT_RELOAD_PERIOD,
    DRAW_CHANNEL,
    LOAD_CHANNEL,
    DrakeVisualizer,
    make_channel_name,
)
from geometry_core.viewer.lcm_buses import (
    DEFAULT_LCM_URL,
    LCM_URL_MEMQ_NULL,
    DrakeLcm,
    DrakeLcmParams,
    LcmBuses,
    apply_lcm_bus_config,
    resolve_lcm_url,
)

__all__ = [
    "CONTACT_RESULTS_CHANNEL",
    "DEFAULT_LCM_URL",
    "DEFAULT_PUBLISH_PERIOD",
    "DEFAULT_RELOAD_PERIOD",
    "DRAW_CHANNEL",
    "LCM_URL_MEMQ_NULL",
    "LOAD_CHANNEL",
    "DrakeLcm",
    "DrakeLcmParams",
    "DrakeVisualizer",
    "LcmBuses",
    "apply_lcm_bus_config",
    "connect_drake_visualizer",
    "dispatch_load_message",
    "make_channel_name",
    "resolve_lcm_url",
]
