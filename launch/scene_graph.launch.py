"""Launch the geometry_core scene graph node: poses from /tf in, penetrations and clearance out.

    ros2 launch geometry_core_ros scene_graph.launch.py demo:=true
    ros2 launch geometry_core_ros scene_graph.launch.py scene_file:=/path/scene.yaml
    ros2 launch geometry_core_ros scene_graph.launch.py \
        params_file:=$PREFIX/share/geometry_core_ros/config/example_params.yaml

with ``PREFIX=$(ros2 pkg prefix geometry_core_ros)``. Every argument left
empty keeps the value from ``params_file`` (or the node's default); an
argument given on the command line overrides it. ``demo:=true`` loads the
built-in demo scene and starts ``demo_motion_node``, which moves the demo
arm on /tf (as ``robot_state_publisher`` does for a real robot), so results
appear at once.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from geometry_core_nodes.launch_support import (
    DEMO_SCENE,
    exit_code_on_failure,
    launch_flag,
    node_parameters,
)

#: Launch arguments passed as node parameters when not empty: (name, type, help).
SCENE_ARGUMENTS = (
    ("scene_file", str, "YAML scene or URDF file, or 'builtin:demo'"),
    ("world_frame", str, "/tf name of the scene's world frame (default world)"),
    ("stale_after_s", float, "poses older than this relative to the newest are stale"),
    ("max_distance", float, "clearance threshold in metres (default 0.1)"),
    ("rate_hz", float, "query rate; 0 = after every batch of pose updates (default)"),
    ("min_query_period_s", float, "with rate_hz 0: shortest time between two queries"),
    ("penetration_topic", str, "PenetrationPairArray topic (default penetrations)"),
    ("clearance_topic", str, "SignedDistancePairArray topic (default clearance)"),
    ("markers_topic", str, "MarkerArray topic (default proximity_markers)"),
)


def _scene_graph_node(context):
    demo = launch_flag(context, "demo")
    node = Node(
        package="geometry_core_ros",
        executable="scene_graph_node",
        name="scene_graph_node",
        namespace=LaunchConfiguration("namespace"),
        output="screen",
        parameters=node_parameters(context, SCENE_ARGUMENTS, demo=demo),
    )
    actions = [node, exit_code_on_failure(node)]
    if demo:
        motion = Node(
            package="geometry_core_ros",
            executable="demo_motion_node",
            name="demo_motion_node",
            namespace=LaunchConfiguration("namespace"),
            output="screen",
            parameters=[{"world_frame": LaunchConfiguration("world_frame").perform(context)
                         or "world"}],
        )
        actions += [motion, exit_code_on_failure(motion)]
    return actions


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("params_file", default_value="",
                              description="ROS 2 parameter file (e.g. config/example_params.yaml)"),
        DeclareLaunchArgument("namespace", default_value="", description="node namespace"),
        DeclareLaunchArgument("demo", default_value="false",
                              description=f"true: scene_file {DEMO_SCENE} and the demo arm "
                                          "moving on /tf (demo_motion_node)"),
        *[DeclareLaunchArgument(name, default_value="", description=help_text)
          for name, _, help_text in SCENE_ARGUMENTS],
        OpaqueFunction(function=_scene_graph_node),
    ])
