"""MoveIt's planning-scene message and service definitions, as data for the DDS backend.

On rclpy these types come from the ROS distribution (``ros-humble-moveit-msgs``);
the DDS backend builds its classes from the definitions below (through
rosbags' parser, :func:`geometry_core_nodes.transport.add_definitions`),
which importing this module registers. They are the fields and constants of
moveit_msgs 2.2.1 (Humble), octomap_msgs 2.0.0 and object_recognition_msgs
2.0.0, comments left out: the closure of ``CollisionObject``,
``AttachedCollisionObject``, ``PlanningScene``, ``GetStateValidity``,
``GetPlanningScene`` and ``ApplyPlanningScene`` over the packages that
rosbags' Humble store lacks (shape_msgs, sensor_msgs, trajectory_msgs,
geometry_msgs and std_msgs come from that store). A test compares each
definition with the installed ``.msg``/``.srv`` files where ROS 2 is.

Imports only the transport's definition registry.
"""

from geometry_core_nodes.transport import add_definitions

__all__ = ["DEFINITIONS"]

#: ``{"pkg/msg/Name" or "pkg/srv/Name": definition text}``.
DEFINITIONS = {
    "moveit_msgs/msg/AllowedCollisionEntry": (
        "bool[] enabled\n"
    ),
    "moveit_msgs/msg/AllowedCollisionMatrix": (
        "string[] entry_names\n"
        "AllowedCollisionEntry[] entry_values\n"
        "string[] default_entry_names\n"
        "bool[] default_entry_values\n"
    ),
    "moveit_msgs/msg/AttachedCollisionObject": (
        "string link_name\n"
        "CollisionObject object\n"
        "string[] touch_links\n"
        "trajectory_msgs/JointTrajectory detach_posture\n"
        "float64 weight\n"
    ),
    "moveit_msgs/msg/BoundingVolume": (
        "shape_msgs/SolidPrimitive[] primitives\n"
        "geometry_msgs/Pose[] primitive_poses\n"
        "shape_msgs/Mesh[] meshes\n"
        "geometry_msgs/Pose[] mesh_poses\n"
    ),
    "moveit_msgs/msg/CollisionObject": (
        "std_msgs/Header header\n"
        "geometry_msgs/Pose pose\n"
        "string id\n"
        "object_recognition_msgs/ObjectType type\n"
        "shape_msgs/SolidPrimitive[] primitives\n"
        "geometry_msgs/Pose[] primitive_poses\n"
        "shape_msgs/Mesh[] meshes\n"
        "geometry_msgs/Pose[] mesh_poses\n"
        "shape_msgs/Plane[] planes\n"
        "geometry_msgs/Pose[] plane_poses\n"
        "string[] subframe_names\n"
        "geometry_msgs/Pose[] subframe_poses\n"
        "byte ADD=0\n"
        "byte REMOVE=1\n"
        "byte APPEND=2\n"
        "byte MOVE=3\n"
        "byte operation\n"
    ),
    "moveit_msgs/msg/ConstraintEvalResult": (
        "bool result\n"
        "float64 distance\n"
    ),
    "moveit_msgs/msg/Constraints": (
        "string name\n"
        "JointConstraint[] joint_constraints\n"
        "PositionConstraint[] position_constraints\n"
        "OrientationConstraint[] orientation_constraints\n"
        "VisibilityConstraint[] visibility_constraints\n"
    ),
    "moveit_msgs/msg/ContactInformation": (
        "std_msgs/Header header\n"
        "geometry_msgs/Point position\n"
        "geometry_msgs/Vector3 normal\n"
        "float64 depth\n"
        "string contact_body_1\n"
        "uint32 body_type_1\n"
        "string contact_body_2\n"
        "uint32 body_type_2\n"
        "uint32 ROBOT_LINK=0\n"
        "uint32 WORLD_OBJECT=1\n"
        "uint32 ROBOT_ATTACHED=2\n"
    ),
    "moveit_msgs/msg/CostSource": (
        "float64 cost_density\n"
        "geometry_msgs/Vector3 aabb_min\n"
        "geometry_msgs/Vector3 aabb_max\n"
    ),
    "moveit_msgs/msg/JointConstraint": (
        "string joint_name\n"
        "float64 position\n"
        "float64 tolerance_above\n"
        "float64 tolerance_below\n"
        "float64 weight\n"
    ),
    "moveit_msgs/msg/LinkPadding": (
        "string link_name\n"
        "float64 padding\n"
    ),
    "moveit_msgs/msg/LinkScale": (
        "string link_name\n"
        "float64 scale\n"
    ),
    "moveit_msgs/msg/ObjectColor": (
        "string id\n"
        "std_msgs/ColorRGBA color\n"
    ),
    "moveit_msgs/msg/OrientationConstraint": (
        "std_msgs/Header header\n"
        "geometry_msgs/Quaternion orientation\n"
        "string link_name\n"
        "float64 absolute_x_axis_tolerance\n"
        "float64 absolute_y_axis_tolerance\n"
        "float64 absolute_z_axis_tolerance\n"
        "uint8 parameterization\n"
        "uint8 XYZ_EULER_ANGLES=0\n"
        "uint8 ROTATION_VECTOR=1\n"
        "float64 weight\n"
    ),
    "moveit_msgs/msg/PlanningScene": (
        "string name\n"
        "RobotState robot_state\n"
        "string robot_model_name\n"
        "geometry_msgs/TransformStamped[] fixed_frame_transforms\n"
        "AllowedCollisionMatrix allowed_collision_matrix\n"
        "LinkPadding[] link_padding\n"
        "LinkScale[] link_scale\n"
        "ObjectColor[] object_colors\n"
        "PlanningSceneWorld world\n"
        "bool is_diff\n"
    ),
    "moveit_msgs/msg/PlanningSceneComponents": (
        "uint32 SCENE_SETTINGS=1\n"
        "uint32 ROBOT_STATE=2\n"
        "uint32 ROBOT_STATE_ATTACHED_OBJECTS=4\n"
        "uint32 WORLD_OBJECT_NAMES=8\n"
        "uint32 WORLD_OBJECT_GEOMETRY=16\n"
        "uint32 OCTOMAP=32\n"
        "uint32 TRANSFORMS=64\n"
        "uint32 ALLOWED_COLLISION_MATRIX=128\n"
        "uint32 LINK_PADDING_AND_SCALING=256\n"
        "uint32 OBJECT_COLORS=512\n"
        "uint32 components\n"
    ),
    "moveit_msgs/msg/PlanningSceneWorld": (
        "CollisionObject[] collision_objects\n"
        "octomap_msgs/OctomapWithPose octomap\n"
    ),
    "moveit_msgs/msg/PositionConstraint": (
        "std_msgs/Header header\n"
        "string link_name\n"
        "geometry_msgs/Vector3 target_point_offset\n"
        "BoundingVolume constraint_region\n"
        "float64 weight\n"
    ),
    "moveit_msgs/msg/RobotState": (
        "sensor_msgs/JointState joint_state\n"
        "sensor_msgs/MultiDOFJointState multi_dof_joint_state\n"
        "AttachedCollisionObject[] attached_collision_objects\n"
        "bool is_diff\n"
    ),
    "moveit_msgs/msg/VisibilityConstraint": (
        "float64 target_radius\n"
        "geometry_msgs/PoseStamped target_pose\n"
        "int32 cone_sides\n"
        "geometry_msgs/PoseStamped sensor_pose\n"
        "float64 max_view_angle\n"
        "float64 max_range_angle\n"
        "uint8 SENSOR_Z=0\n"
        "uint8 SENSOR_Y=1\n"
        "uint8 SENSOR_X=2\n"
        "uint8 sensor_view_direction\n"
        "float64 weight\n"
    ),
    "moveit_msgs/srv/ApplyPlanningScene": (
        "PlanningScene scene\n"
        "---\n"
        "bool success\n"
    ),
    "moveit_msgs/srv/GetPlanningScene": (
        "PlanningSceneComponents components\n"
        "---\n"
        "PlanningScene scene\n"
    ),
    "moveit_msgs/srv/GetStateValidity": (
        "RobotState robot_state\n"
        "string group_name\n"
        "Constraints constraints\n"
        "---\n"
        "bool valid\n"
        "ContactInformation[] contacts\n"
        "CostSource[] cost_sources\n"
        "ConstraintEvalResult[] constraint_result\n"
    ),
    "object_recognition_msgs/msg/ObjectType": (
        "string key\n"
        "string db\n"
    ),
    "octomap_msgs/msg/Octomap": (
        "std_msgs/Header header\n"
        "bool binary\n"
        "string id\n"
        "float64 resolution\n"
        "int8[] data\n"
    ),
    "octomap_msgs/msg/OctomapWithPose": (
        "std_msgs/Header header\n"
        "geometry_msgs/Pose origin\n"
        "octomap_msgs/Octomap octomap\n"
    ),
}

add_definitions(DEFINITIONS)
