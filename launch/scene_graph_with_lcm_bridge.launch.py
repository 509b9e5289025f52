"""Launch the scene graph node and the LCM bridge that draws the scene in Meldis.

    ros2 launch geometry_core_ros scene_graph_with_lcm_bridge.launch.py scene_file:=builtin:demo
    ros2 launch geometry_core_ros scene_graph_with_lcm_bridge.launch.py \
        params_file:=$PREFIX/share/geometry_core_ros/config/example_params.yaml \
        lcm_url:=udpm://239.255.76.67:7667?ttl=0

with ``PREFIX=$(ros2 pkg prefix geometry_core_ros)``. The scene graph
node's arguments are those of ``scene_graph.launch.py``; ``lcm_url``,
``role`` and ``publish_period`` go to the bridge. Empty arguments keep the
values from ``params_file``.
"""

import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from geometry_core_nodes.launch_support import exit_code_on_failure, node_parameters

HERE = os.path.dirname(os.path.abspath(__file__))

#: Bridge-only launch arguments: (name, type, help).
BRIDGE_ARGUMENTS = (
    ("lcm_url", str, "LCM URL (empty: LCM's default udpm://239.255.76.67:7667?ttl=0)"),
    ("role", str, "illustration, proximity or perception"),
    ("publish_period", float, "seconds between draw messages (default 1/64)"),
)
#: Scene arguments the bridge shares with the scene graph node.
SHARED_ARGUMENTS = (
    ("scene_file", str, ""),
    ("world_frame", str, ""),
    ("stale_after_s", float, ""),
)


def _bridge_node(context):
    node = Node(
        package="geometry_core_ros",
        executable="lcm_bridge_node",
        name="lcm_bridge_node",
        namespace=LaunchConfiguration("namespace"),
        output="screen",
        parameters=node_parameters(context, SHARED_ARGUMENTS + BRIDGE_ARGUMENTS),
    )
    return [node, exit_code_on_failure(node)]


def generate_launch_description():
    scene_graph = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(os.path.join(HERE, "scene_graph.launch.py")))
    return LaunchDescription([
        # Declared here too, so the bridge sees them whatever the include scopes.
        DeclareLaunchArgument("params_file", default_value="",
                              description="ROS 2 parameter file (e.g. config/example_params.yaml)"),
        DeclareLaunchArgument("namespace", default_value="", description="node namespace"),
        *[DeclareLaunchArgument(name, default_value="", description=help_text)
          for name, _, help_text in BRIDGE_ARGUMENTS],
        *[DeclareLaunchArgument(name, default_value="") for name, _, _ in SHARED_ARGUMENTS],
        scene_graph,
        OpaqueFunction(function=_bridge_node),
    ])
