"""Drake viewer bridge: the scene graph drawn by Meldis (or drake_visualizer) over LCM.

This package is the only part of geometry_core that imports ``lcm``. It must
never import fcl or ROS.
"""
