"""Drake's free functions for the viewer: ConnectDrakeVisualizer and DispatchLoadMessage.

Drake wires a visualizer into a Diagram and sends the load message from an
initialization event. Without a systems framework, ``connect_drake_visualizer``
makes the :class:`DrakeVisualizer` and sends the load message at once (the
moment Drake's initialization would), and ``dispatch_load_message`` sends one
load message, as Drake's does. Like the rest of ``viewer/``, imports no fcl
or ROS.
"""

from __future__ import annotations

from geometry_core.scene_graph import GeometryState, Role
from geometry_core.viewer.drake_visualizer import DrakeVisualizer

__all__ = ["connect_drake_visualizer", "dispatch_load_message"]


def connect_drake_visualizer(scene_graph: GeometryState, lcm=None,
                             role: Role = Role.ILLUSTRATION,
                             publish_period: float | None = None) -> DrakeVisualizer:
    """Return a DrakeVisualizer for ``scene_graph`` whose load message is already sent.

    Parameters
    ----------
    lcm : DrakeLcm, lcm.LCM or pydrake.lcm.DrakeLcm, optional
        Where to publish; None opens LCM's default URL (Drake's default too).
    role : Role
        Which geometries to draw (illustration by default, as in Drake).
    publish_period : float, optional
        Seconds between draws; the visualizer's default (1/64 s) when None.

    Raises
    ------
    ValueError
        If ``role`` is UNASSIGNED or the period is not positive.
    """
    kwargs = {} if publish_period is None else {"publish_period": publish_period}
    visualizer = DrakeVisualizer(scene_graph, role=role, lcm=lcm, **kwargs)
    visualizer.dispatch_load_message()
    return visualizer


def dispatch_load_message(scene_graph: GeometryState, lcm,
                          role: Role = Role.ILLUSTRATION) -> None:
    """Send one load message for every geometry of ``role`` on ``lcm``'s load channel."""
    DrakeVisualizer(scene_graph, role=role, lcm=lcm).dispatch_load_message()
