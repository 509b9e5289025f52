"""geometry_core: a Python geometry world in the spirit of Drake's SceneGraph.

Rigid-transform math, shapes, frames and geometries with roles, collision
filtering, and proximity queries (penetration, signed distance with witness
points, distance to a point), on numpy, transforms3d and python-fcl.
Everything public is importable from here; names follow Drake in snake_case
(see the README's name table).

Each name is loaded from its layer on first use (``from geometry_core import
SceneGraph`` loads the scene model and the query engine, ``RigidTransform``
the math alone), so that importing one layer, ``geometry_core.math`` say,
does not load the layers above it through this package, and the viewer's
lcm is loaded only by a user who draws.

This package never imports ROS, DDS or anything under ``nodes/``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: Where each public name lives: {module: names}.
_EXPORTS = {
    "geometry_core.math": (
        "RigidTransform", "RollPitchYaw", "RotationMatrix", "compute_basis_from_axis"),
    "geometry_core.proximity.query_object": ("QueryObject",),
    "geometry_core.proximity.results": (
        "Aabb", "PenetrationAsPointPair", "SignedDistancePair", "SignedDistanceToPoint"),
    "geometry_core.scene": ("SceneGraph",),
    "geometry_core.scene_graph": (
        "CollisionFilterDeclaration", "CollisionFilterManager", "FrameId", "FramePoseVector",
        "GeometryFrame", "GeometryId", "GeometryInstance", "GeometryProperties", "GeometrySet",
        "IllustrationProperties", "PerceptionProperties", "PointCloudRecord",
        "ProximityProperties", "Rgba", "Role", "RoleAssign", "SceneGraphInspector", "SourceId",
        "make_phong_illustration_properties"),
    "geometry_core.shapes": (
        "Box", "Capsule", "Convex", "Cylinder", "Ellipsoid", "HalfSpace", "Mesh", "Shape",
        "Sphere"),
    # The viewer imports lcm.
    "geometry_core.viewer": (
        "DrakeVisualizer", "DrakeLcm", "DrakeLcmParams", "LcmBuses", "apply_lcm_bus_config",
        "connect_drake_visualizer", "dispatch_load_message"),
    # The clearance layer sits above everything else (and reads URDF files).
    "geometry_core.clearance": (
        "BodyShapeDescription", "CollisionChecker", "PointCloudReport", "RobotClearance",
        "RobotCollisionType"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'geometry_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value     # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and editors see (the layers below the viewer)
    from geometry_core.math import (  # noqa: F401
        RigidTransform,
        RollPitchYaw,
        RotationMatrix,
        compute_basis_from_axis,
    )
    from geometry_core.proximity.query_object import QueryObject  # noqa: F401
    from geometry_core.proximity.results import (  # noqa: F401
        Aabb,
        PenetrationAsPointPair,
        SignedDistancePair,
        SignedDistanceToPoint,
    )
    from geometry_core.scene import SceneGraph  # noqa: F401
    from geometry_core.scene_graph import (  # noqa: F401
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
    from geometry_core.shapes import (  # noqa: F401
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
