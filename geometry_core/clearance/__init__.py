"""Configuration space for planners: collision checks and clearance tables of a robot.

- :class:`CollisionChecker` (Drake's ``SceneGraphCollisionChecker``): is q
  collision-free, is the edge q1 -> q2 (discrete, or certified by
  conservative advancement), and the :class:`RobotClearance` table of q,
  for one q or K at once;
- :class:`RobotClearance` and :class:`RobotCollisionType` (Drake's
  ``drake::planning::RobotClearance``);
- :class:`KinematicChain`: link poses, point Jacobians and motion bounds
  from a URDF's joints.

This package sits above the proximity queries, the scene graph, the math
and the scene files; nothing below imports it. It never imports fcl, lcm or
ROS.
"""

from geometry_core.clearance.collision_checker import CollisionChecker
from geometry_core.clearance.kinematic_chain import KinematicChain
from geometry_core.clearance.live_world import BodyShapeDescription, PointCloudReport
from geometry_core.clearance.robot_clearance import (
    RobotClearance,
    RobotCollisionType,
    RobotContact,
)

__all__ = ["BodyShapeDescription", "CollisionChecker", "KinematicChain", "PointCloudReport",
           "RobotClearance", "RobotCollisionType", "RobotContact"]
