"""geometry_core: a Python geometry world in the spirit of Drake's SceneGraph.

Rigid-transform math, shapes, frames and geometries with roles, collision
filtering, and proximity queries (penetration, signed distance with witness
points, distance to a point), on numpy, transforms3d and python-fcl.
Everything public is importable from here; names follow Drake in snake_case
(see the README's name table).

This package never imports ROS, DDS or anything under ``nodes/``.
"""

from geometry_core.math import (
    RigidTransform,
    RollPitchYaw,
    RotationMatrix,
    compute_basis_from_axis,
)
from geometry_core.proximity.query_object import QueryObject
from geometry_core.proximity.results import (
    Aabb,
    PenetrationAsPointPair,
    SignedDistancePair,
    SignedDistanceToPoint,
)
from geometry_core.scene import SceneGraph
from geometry_core.scene_graph import (
    CollisionFilterDeclaration,
    CollisionFilterManager,
    FrameId,
    FramePoseVector,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometryProperties,
    GeometrySet,
    IllustrationProperties,
    PerceptionProperties,
    PointCloudRecord,
    ProximityProperties,
    Rgba,
    Role,
    RoleAssign,
    SceneGraphInspector,
    SourceId,
    make_phong_illustration_properties,
)
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)

__version__ = "0.1.0"

# The viewer imports lcm; load it only when one of its names is used, so that
# `import geometry_core` works (and stays light) for users who never draw.
_VIEWER_NAMES = ("DrakeVisualizer", "DrakeLcm", "DrakeLcmParams", "LcmBuses",
                 "apply_lcm_bus_config", "connect_drake_visualizer", "dispatch_load_message")


# The clearance layer sits above everything else (and reads URDF files):
# loaded on first use, like the viewer.
_CLEARANCE_NAMES = ("BodyShapeDescription", "CollisionChecker", "PointCloudReport",
                    "RobotClearance", "RobotCollisionType")


def __getattr__(name: str):
    if name in _VIEWER_NAMES:
        from geometry_core import viewer

        return getattr(viewer, name)
    if name in _CLEARANCE_NAMES:
        from geometry_core import clearance

        return getattr(clearance, name)
    raise AttributeError(f"module 'geometry_core' has no attribute {name!r}")


__all__ = [
    "Aabb", "BodyShapeDescription", "Box", "Capsule", "CollisionChecker",
    "CollisionFilterDeclaration", "PointCloudRecord", "PointCloudReport",
    "CollisionFilterManager",
    "Convex", "Cylinder", "DrakeLcm", "DrakeLcmParams", "DrakeVisualizer", "LcmBuses",
    "apply_lcm_bus_config", "connect_drake_visualizer", "dispatch_load_message", "Ellipsoid",
    "FrameId", "FramePoseVector", "GeometryFrame",
    "GeometryId", "GeometryInstance", "GeometryProperties", "GeometrySet", "HalfSpace",
    "IllustrationProperties", "Mesh", "PenetrationAsPointPair", "PerceptionProperties",
    "ProximityProperties", "QueryObject", "Rgba", "RigidTransform", "RollPitchYaw", "Role",
    "RobotClearance", "RobotCollisionType", "RoleAssign", "RotationMatrix", "SceneGraph",
    "SceneGraphInspector", "Shape",
    "SignedDistancePair", "SignedDistanceToPoint", "SourceId", "Sphere",
    "compute_basis_from_axis", "make_phong_illustration_properties",
]
