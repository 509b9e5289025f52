"""ROS 2 adapters of geometry_core, installed as the package ``geometry_core_nodes``.

Nodes are thin: messages in, library calls, messages out. They talk to ROS 2
through :mod:`geometry_core_nodes.transport` (rclpy when importable, else a
built-in Cyclone DDS backend). The library ``geometry_core`` must never import
this package.

Our result messages belong to the ROS 2 package ``geometry_core_ros``
(``msg/`` at the repository root, and the batch validity service in
``srv/``). rclpy finds them as generated code; the
DDS backend builds them from the ``.msg`` files, which importing this
package points it to: the source tree's ``msg/``, else
``share/geometry_core_ros/msg`` under the Python prefix (pip) or under an
``AMENT_PREFIX_PATH`` entry (colcon). MoveIt's planning-scene messages and
services, which the nodes speak, are registered too
(:mod:`geometry_core_nodes.moveit_types`), so any DDS-backend node of this
package can use them.
"""

import os
import sys
from pathlib import Path

from geometry_core_nodes.transport.interfaces import add_message_directory

#: ROS 2 package name of our result messages.
MESSAGE_PACKAGE = "geometry_core_ros"


def message_directories(kind: str = "msg") -> list[Path]:
    """The existing directories that hold our ``.msg`` (or ``.srv``) files, in search order."""
    candidates = [Path(__file__).resolve().parents[1] / kind,
                  Path(sys.prefix) / "share" / MESSAGE_PACKAGE / kind]
    candidates += [Path(prefix) / "share" / MESSAGE_PACKAGE / kind
                   for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
                   if prefix]
    return [path for path in candidates if path.is_dir()]


for _directory in message_directories() + message_directories("srv"):
    add_message_directory(MESSAGE_PACKAGE, _directory)

# MoveIt's definitions for the DDS backend (registering them imports no DDS).
from geometry_core_nodes import moveit_types  # noqa: E402, F401
