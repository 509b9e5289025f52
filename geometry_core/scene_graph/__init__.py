"""The scene model: ids, sources, frames, geometries, roles, collision filters, poses.

Imports ``geometry_core.math`` and ``geometry_core.shapes``; never the query
engine (``geometry_core.proximity``), lcm, fcl or ROS.
"""

from geometry_core.scene_graph.collision_filters import (
    CollisionFilterDeclaration,
    CollisionFilterManager,
)
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.frame_pose_vector import FramePoseVector
from geometry_core.scene_graph.geometry_state import GeometryState
from geometry_core.scene_graph.identifiers import FrameId, GeometryId, Identifier, SourceId
from geometry_core.scene_graph.inspector import SceneGraphInspector
from geometry_core.scene_graph.instances import GeometryFrame, GeometryInstance, GeometrySet
from geometry_core.scene_graph.point_clouds import PointCloudRecord
from geometry_core.scene_graph.roles import (
    GeometryProperties,
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    Role,
    RoleAssign,
    make_phong_illustration_properties,
)
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = [
    "CollisionFilterDeclaration", "CollisionFilterManager", "CollisionModel", "FrameId",
    "FramePoseVector", "GeometryFrame", "GeometryId", "GeometryInstance", "GeometryProperties",
    "GeometrySet", "GeometryState", "Identifier", "IllustrationProperties",
    "PerceptionProperties", "PointCloudRecord", "ProximityProperties", "Rgba", "Role", "RoleAssign",
    "SceneGraphInspector", "SceneSnapshot", "SourceId", "make_phong_illustration_properties",
]
