"""ROS 2 adapters of geometry_core, installed as the package ``geometry_core_nodes``.

Nodes are thin: messages in, library calls, messages out. They talk to ROS 2
through :mod:`geometry_core_nodes.transport` (rclpy when importable, else a
built-in Cyclone DDS backend). The library ``geometry_core`` must never import
this package.
"""
