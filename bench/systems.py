"""The systems under test, each built from a SceneSpec and run one cycle at a time.

A cycle is what a monitoring node does per pose message: set every frame's
pose from fresh values, take a snapshot, ask one question. Pose objects are
made before timing starts (a caller holds them already); putting them into
the scene is timed.

* ``Ours``: the plain API, a dict of RigidTransforms per cycle.
* ``OursArray``: the vectorised API, one (F, 4, 4) array per cycle.
* ``Drake``: pydrake's SceneGraph in a Diagram; a FramePoseVector fixed on
  the source's pose port, the query object evaluated from the output port.
* ``RawFcl``: python-fcl alone, the floor of what the engine can do from
  Python: world poses composed in numpy, one ``setTransform`` per moving
  geometry, the dynamic AABB tree updated, and FCL's broadphase collide or
  distance with a callback. It applies no collision filters and computes
  only what FCL gives (no witness fixes, no signed distance for overlaps
  beyond FCL's own), so it does less than the others.
"""

from __future__ import annotations

import math

import numpy as np

from bench.scenes import SceneSpec
from geometry_core import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    Sphere,
)

QUERIES = ("penetration", "signed_distance", "points")
MAX_DISTANCE = 0.1


def world_poses(spec: SceneSpec, X_PF: np.ndarray) -> np.ndarray:
    """X_WF of every frame for one cycle (parents come before children)."""
    X_WF = X_PF.copy()
    for f, parent in enumerate(spec.parent_of):
        if parent >= 0:
            X_WF[f] = X_WF[parent] @ X_PF[f]
    return X_WF


class Ours:
    """geometry_core through the plain API."""

    label = "geometry_core"

    def __init__(self, spec: SceneSpec, points: np.ndarray) -> None:
        self.sg = SceneGraph()
        self.src = self.sg.register_source("bench")
        self.frames = []
        for f, parent in enumerate(spec.parent_of):
            parent_id = None if parent < 0 else self.frames[parent]
            self.frames.append(self.sg.register_frame(self.src, GeometryFrame(f"f{f}"),
                                                      parent_id))
        for g, shape in enumerate(spec.shapes):
            X = RigidTransform(spec.X_FG[g])
            instance = GeometryInstance(X, shape, f"g{g}")
            if spec.frame_of[g] < 0:
                gid = self.sg.register_anchored_geometry(self.src, instance)
            else:
                gid = self.sg.register_geometry(self.src, self.frames[spec.frame_of[g]], instance)
            self.sg.assign_role(self.src, gid, ProximityProperties())
        self.poses = [dict(zip(self.frames, (RigidTransform(X) for X in X_PF)))
                      for X_PF in spec.X_PF]
        self.X_PF = spec.X_PF
        self.points = points

    def set_poses(self, c: int) -> None:
        self.sg.set_poses(self.src, self.poses[c])

    def cycle(self, c: int, query: str) -> int:
        self.set_poses(c)
        q = self.sg.query_object()
        if query == "penetration":
            return len(q.compute_point_pair_penetration())
        if query == "signed_distance":
            return len(q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE))
        return sum(len(q.compute_signed_distance_to_point(p)) for p in self.points)


class OursArray(Ours):
    """geometry_core through the vectorised pose setter."""

    label = "geometry_core (array API)"

    def set_poses(self, c: int) -> None:
        self.sg.set_poses_array(self.src, self.frames, self.X_PF[c])


def _drake_shape(shape):
    from pydrake import geometry as dg

    if isinstance(shape, Sphere):
        return dg.Sphere(shape.radius)
    if isinstance(shape, Box):
        return dg.Box(shape.width, shape.depth, shape.height)
    if isinstance(shape, Cylinder):
        return dg.Cylinder(shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return dg.Capsule(shape.radius, shape.length)
    if isinstance(shape, Ellipsoid):
        return dg.Ellipsoid(shape.a, shape.b, shape.c)
    raise TypeError(f"no Drake shape for {shape!r} in the benchmark")


class Drake:
    """pydrake's SceneGraph on the same scene."""

    label = "Drake"

    def __init__(self, spec: SceneSpec, points: np.ndarray) -> None:
        from pydrake import geometry as dg
        from pydrake.math import RigidTransform as DrakeTransform
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        self.sg = builder.AddSystem(dg.SceneGraph())
        src = self.sg.RegisterSource("bench")
        self.frames = []
        for f, parent in enumerate(spec.parent_of):
            frame = dg.GeometryFrame(f"f{f}")
            if parent < 0:
                self.frames.append(self.sg.RegisterFrame(src, frame))
            else:
                self.frames.append(self.sg.RegisterFrame(src, self.frames[parent], frame))
        for g, shape in enumerate(spec.shapes):
            instance = dg.GeometryInstance(DrakeTransform(spec.X_FG[g]), _drake_shape(shape),
                                           f"g{g}")
            if spec.frame_of[g] < 0:
                gid = self.sg.RegisterAnchoredGeometry(src, instance)
            else:
                gid = self.sg.RegisterGeometry(src, self.frames[spec.frame_of[g]], instance)
            self.sg.AssignRole(src, gid, dg.ProximityProperties())
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.sg_context = self.sg.GetMyContextFromRoot(self.context)
        self.port = self.sg.get_source_pose_port(src)
        self.query_port = self.sg.get_query_output_port()
        self.poses = [[DrakeTransform(X) for X in X_PF] for X_PF in spec.X_PF]
        self.FramePoseVector = dg.FramePoseVector
        self.points = [p.reshape(3, 1) for p in points]

    def query(self, c: int):
        """Set cycle ``c``'s poses and return the query object."""
        poses = self.FramePoseVector()
        for frame, X in zip(self.frames, self.poses[c]):
            poses.set_value(frame, X)
        self.port.FixValue(self.sg_context, poses)
        return self.query_port.Eval(self.sg_context)

    def cycle(self, c: int, query: str) -> int:
        q = self.query(c)
        if query == "penetration":
            return len(q.ComputePointPairPenetration())
        if query == "signed_distance":
            return len(q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE))
        return sum(len(q.ComputeSignedDistanceToPoint(p)) for p in self.points)


class RawFcl:
    """python-fcl alone: the engine's floor from Python (no filters, no fixes)."""

    label = "raw python-fcl"

    def __init__(self, spec: SceneSpec, points: np.ndarray) -> None:
        import fcl

        from geometry_core.proximity.fcl_adapter import fcl_geometry

        self.fcl = fcl
        self.spec = spec
        self.objects = []
        self.moving = []
        for g, shape in enumerate(spec.shapes):
            X = spec.X_FG[g]
            obj = fcl.CollisionObject(fcl_geometry(shape), fcl.Transform(X[:3, :3], X[:3, 3]))
            self.objects.append(obj)
            if spec.frame_of[g] >= 0:
                self.moving.append(g)
        self.moving = np.array(self.moving)
        self.moving_frame = spec.frame_of[self.moving]
        self.manager = fcl.DynamicAABBTreeCollisionManager()
        self.manager.registerObjects(self.objects)
        self.manager.setup()
        self.point_objects = [fcl.CollisionObject(fcl.Sphere(1e-9), fcl.Transform(p))
                              for p in points]

    def cycle(self, c: int, query: str) -> int:
        fcl = self.fcl
        X_WF = world_poses(self.spec, self.spec.X_PF[c])
        X_WG = X_WF[self.moving_frame] @ self.spec.X_FG[self.moving]
        for g, X in zip(self.moving, X_WG):
            self.objects[g].setTransform(fcl.Transform(X[:3, :3], X[:3, 3]))
        self.manager.update()
        found = []
        if query == "penetration":
            request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=True)

            def collide(o1, o2, data):
                if fcl.collide(o1, o2, request, fcl.CollisionResult()):
                    found.append((o1, o2))
                return False

            self.manager.collide(fcl.CollisionData(request=request), collide)
            return len(found)
        request = fcl.DistanceRequest(enable_signed_distance=True)
        if query == "signed_distance":
            def near(o1, o2, data):
                d = fcl.distance(o1, o2, request, fcl.DistanceResult())
                if d <= MAX_DISTANCE:
                    found.append(d)
                return False, MAX_DISTANCE

            self.manager.distance(fcl.DistanceData(request=request), near)
            return len(found)

        def every(o1, o2, data):
            found.append(fcl.distance(o1, o2, request, fcl.DistanceResult()))
            return False, math.inf

        for obj in self.point_objects:
            self.manager.distance(obj, fcl.DistanceData(request=request), every)
        return len(found)
