"""Generated LCM message classes of package ``drake`` (see ``viewer/lcmgen.py``).

``from geometry_core.viewer.lcmtypes.drake import lcmt_viewer_draw``. The
modules under ``drake/`` are lcm-gen output: regenerate, never edit. They
import only ``io`` and ``struct`` (not lcm, fcl or ROS).
"""
