"""The systems under test, each built from a SceneSpec and run one cycle at a time.

A cycle is what a monitoring node does per pose message: set every frame's
pose from fresh values, take a snapshot, ask one question. Two pose modes:
with ``from_rpy=False`` each system's own pose objects are made before
timing starts (a caller holds them already) and putting them into the scene
is timed; with ``from_rpy=True`` every frame's pose is built inside the
cycle from a roll-pitch-yaw (3,) array and a translation (3,) array, as a
node or a user loop does.

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
* ``Coal``: coal (the maintained fork of FCL) with its dynamic AABB tree
  manager, every pair answered inside C++ by its default callback; signed
  distance within ``MAX_DISTANCE`` as a collision query with that security
  margin, each object's box grown by half of it so the broadphase keeps
  those pairs.
* ``PyBullet``: pybullet in DIRECT mode, one body per geometry (mass 0 for
  anchored ones, whose pairs Bullet then skips), collision margins 0,
  ``performCollisionDetection`` and ``getContactPoints`` for penetration;
  for signed distance, ``getOverlappingObjects`` on each box grown by
  ``MAX_DISTANCE`` and ``getClosestPoints`` on each such pair (Bullet's
  contact points stop at its contact threshold). Ellipsoids are convex
  hulls of 16x8 points on them (Bullet has no ellipsoid), within ~2 mm.

Coal and pybullet answer penetration and signed distance on scenes whose
frames all hang from the world (the random scenes); they are not asked for
distance to points, which neither offers as one query. ``answers`` gives
each system's pairs and values so that ``compare_answers`` can check that
the peers answer the same question.
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
    RollPitchYaw,
    SceneGraph,
    Sphere,
)
from geometry_core.math import rotation_matrix_to_quaternion
from geometry_core.math.kernels import rotation_matrices_from_rpy

QUERIES = ("penetration", "signed_distance", "points")
MAX_DISTANCE = 0.1


def pose_parts(spec: SceneSpec) -> tuple[np.ndarray, np.ndarray]:
    """Roll-pitch-yaw and translation of every X_PF: two (cycles, F, 3) arrays."""
    R = spec.X_PF[..., :3, :3].reshape(-1, 3, 3)
    rpy = np.array([RollPitchYaw(matrix=M).vector() for M in R]).reshape(spec.X_PF.shape[:2] + (3,))
    return rpy, spec.X_PF[..., :3, 3].copy()


def _matrix4s(rpy: np.ndarray, p: np.ndarray) -> np.ndarray:
    X = np.zeros(rpy.shape[:-1] + (4, 4))
    X[..., :3, :3] = rotation_matrices_from_rpy(rpy)
    X[..., :3, 3] = p
    X[..., 3, 3] = 1.0
    return X


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

    def __init__(self, spec: SceneSpec, points: np.ndarray, from_rpy: bool = False) -> None:
        self.sg = SceneGraph()
        self.src = self.sg.register_source("bench")
        self.index = {}
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
            self.index[gid] = g
        self.poses = [dict(zip(self.frames, (RigidTransform(X) for X in X_PF)))
                      for X_PF in spec.X_PF]
        self.X_PF = spec.X_PF
        self.points = points
        self.from_rpy = from_rpy
        if from_rpy:
            self.rpy, self.p = pose_parts(spec)

    def set_poses(self, c: int) -> None:
        if self.from_rpy:
            self.sg.set_poses(self.src, {f: RigidTransform(RollPitchYaw(rpy), p) for f, rpy, p
                                         in zip(self.frames, self.rpy[c], self.p[c])})
        else:
            self.sg.set_poses(self.src, self.poses[c])

    def answers(self, c: int, query: str) -> dict[tuple[int, int], float]:
        """{(g, h): depth or distance} of cycle ``c``, geometry indices g < h."""
        self.set_poses(c)
        q = self.sg.query_object()
        if query == "penetration":
            found = [(p.id_A, p.id_B, p.depth) for p in q.compute_point_pair_penetration()]
        else:
            found = [(p.id_A, p.id_B, p.distance)
                     for p in q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE)]
        return _by_index(((self.index[a], self.index[b], v) for a, b, v in found))

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
        if self.from_rpy:
            self.sg.set_poses_array(self.src, self.frames, _matrix4s(self.rpy[c], self.p[c]))
        else:
            self.sg.set_poses_array(self.src, self.frames, self.X_PF[c])


def _primitive(module, shape):
    """Build ``shape`` with ``module`` (pydrake.geometry or coal).

    Both name the primitives as we do and take the same sizes (full box
    sides, full cylinder and capsule lengths, ellipsoid semi-axes).
    """
    sizes = {Sphere: lambda s: (s.radius,), Box: lambda s: (s.width, s.depth, s.height),
             Cylinder: lambda s: (s.radius, s.length), Capsule: lambda s: (s.radius, s.length),
             Ellipsoid: lambda s: (s.a, s.b, s.c)}.get(type(shape))
    if sizes is None:
        raise TypeError(f"no {module.__name__} shape for {shape!r} in the benchmark")
    return getattr(module, type(shape).__name__)(*sizes(shape))


class Drake:
    """pydrake's SceneGraph on the same scene."""

    label = "Drake"

    def __init__(self, spec: SceneSpec, points: np.ndarray, from_rpy: bool = False) -> None:
        from pydrake import geometry as dg
        from pydrake.math import RigidTransform as DrakeTransform
        from pydrake.math import RollPitchYaw as DrakeRollPitchYaw
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        self.index = {}
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
            instance = dg.GeometryInstance(DrakeTransform(spec.X_FG[g]), _primitive(dg, shape),
                                           f"g{g}")
            if spec.frame_of[g] < 0:
                gid = self.sg.RegisterAnchoredGeometry(src, instance)
            else:
                gid = self.sg.RegisterGeometry(src, self.frames[spec.frame_of[g]], instance)
            self.sg.AssignRole(src, gid, dg.ProximityProperties())
            self.index[gid] = g
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.sg_context = self.sg.GetMyContextFromRoot(self.context)
        self.port = self.sg.get_source_pose_port(src)
        self.query_port = self.sg.get_query_output_port()
        self.poses = [[DrakeTransform(X) for X in X_PF] for X_PF in spec.X_PF]
        self.FramePoseVector = dg.FramePoseVector
        self.points = [p.reshape(3, 1) for p in points]
        self.from_rpy = from_rpy
        if from_rpy:
            self.rpy, self.p = pose_parts(spec)
            self.Transform, self.RollPitchYaw = DrakeTransform, DrakeRollPitchYaw

    def query(self, c: int):
        """Set cycle ``c``'s poses and return the query object."""
        poses = self.FramePoseVector()
        if self.from_rpy:
            Transform, RollPitchYaw = self.Transform, self.RollPitchYaw
            for frame, rpy, p in zip(self.frames, self.rpy[c], self.p[c]):
                poses.set_value(frame, Transform(RollPitchYaw(rpy), p))
        else:
            for frame, X in zip(self.frames, self.poses[c]):
                poses.set_value(frame, X)
        self.port.FixValue(self.sg_context, poses)
        return self.query_port.Eval(self.sg_context)

    def answers(self, c: int, query: str) -> dict[tuple[int, int], float]:
        """{(g, h): depth or distance} of cycle ``c``, geometry indices g < h."""
        q = self.query(c)
        if query == "penetration":
            found = [(p.id_A, p.id_B, p.depth) for p in q.ComputePointPairPenetration()]
        else:
            found = [(p.id_A, p.id_B, p.distance)
                     for p in q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE)]
        return _by_index(((self.index[a], self.index[b], v) for a, b, v in found))

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

    def __init__(self, spec: SceneSpec, points: np.ndarray, from_rpy: bool = False) -> None:
        import fcl

        from geometry_core.proximity.fcl_adapter import fcl_geometry

        self.from_rpy = from_rpy
        if from_rpy:
            self.rpy, self.p = pose_parts(spec)
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
        X_PF = _matrix4s(self.rpy[c], self.p[c]) if self.from_rpy else self.spec.X_PF[c]
        X_WF = world_poses(self.spec, X_PF)
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


def _by_index(found) -> dict[tuple[int, int], float]:
    """{(g, h): value} with g < h from (g, h, value) triples; the least value of a pair."""
    pairs: dict[tuple[int, int], float] = {}
    for g, h, value in found:
        key = (g, h) if g < h else (h, g)
        pairs[key] = min(value, pairs.get(key, math.inf))
    return pairs


def _as_depths(signed_distances: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    return {pair: -d for pair, d in signed_distances.items()}


def peers_apply(spec: SceneSpec, query: str) -> bool:
    """Whether coal and pybullet take part: penetration or signed distance, every frame a root."""
    return query != "points" and bool((spec.parent_of < 0).all())


class Coal:
    """coal's dynamic AABB tree manager and its default (C++) callback."""

    label = "coal"

    def __init__(self, spec: SceneSpec, points: np.ndarray, from_rpy: bool = False) -> None:
        import coal

        self.coal = coal
        self.spec = spec
        self.from_rpy = from_rpy
        if from_rpy:
            self.rpy, self.p = pose_parts(spec)
        self.moving, self.anchored = coal.DynamicAABBTreeCollisionManager(), None
        self.objects, self.frame_of = [], []
        for g, shape in enumerate(spec.shapes):
            geometry = _primitive(coal, shape)
            # A contact names its geometries, not its objects: the tag maps it back.
            geometry.cost_density = float(g)
            X = spec.X_FG[g]
            obj = coal.CollisionObject(geometry, coal.Transform3s(X[:3, :3], X[:3, 3]))
            if spec.frame_of[g] < 0:
                if self.anchored is None:
                    self.anchored = coal.DynamicAABBTreeCollisionManager()
                self.anchored.registerObject(obj)
            else:
                self.moving.registerObject(obj)
                self.objects.append(obj)
                self.frame_of.append(spec.frame_of[g])
        self.moving.setup()
        if self.anchored is not None:
            self.anchored.setup()
        self.X_FG = spec.X_FG[[g for g in range(len(spec.shapes)) if spec.frame_of[g] >= 0]]
        self.transforms = [[coal.Transform3s(X[:3, :3], X[:3, 3])
                            for X in X_PF[self.frame_of] @ self.X_FG] for X_PF in spec.X_PF]

    def _pairs(self, c: int, query: str) -> list:
        coal = self.coal
        if self.from_rpy:
            X_WG = _matrix4s(self.rpy[c], self.p[c])[self.frame_of] @ self.X_FG
            transforms = [coal.Transform3s(X[:3, :3], X[:3, 3]) for X in X_WG]
        else:
            transforms = self.transforms[c]
        grow = 0.5 * MAX_DISTANCE if query == "signed_distance" else 0.0
        for obj, X in zip(self.objects, transforms):
            obj.setTransform(X)
            obj.computeAABB()
            if grow:
                obj.getAABB().expand(grow)
        self.moving.update()
        callback = coal.CollisionCallBackDefault()
        request = callback.data.request
        request.num_max_contacts = 1 << 30
        request.enable_contact = True
        request.security_margin = grow * 2.0
        self.moving.collide(callback)
        if self.anchored is not None:
            self.moving.collide(self.anchored, callback)
        frame_of = self.spec.frame_of
        return [contact for contact in callback.data.result.getContacts()
                if frame_of[int(contact.o1.cost_density)] != frame_of[int(contact.o2.cost_density)]
                or frame_of[int(contact.o1.cost_density)] < 0]

    def cycle(self, c: int, query: str) -> int:
        return len(self._pairs(c, query))

    def answers(self, c: int, query: str) -> dict[tuple[int, int], float]:
        """{(g, h): depth or distance} of cycle ``c``, geometry indices g < h."""
        # coal's penetration_depth is a signed distance (negative inside).
        found = _by_index((int(k.o1.cost_density), int(k.o2.cost_density),
                           k.penetration_depth) for k in self._pairs(c, query))
        return _as_depths(found) if query == "penetration" else found


class PyBullet:
    """pybullet (DIRECT): one body per geometry, contact points after collision detection."""

    label = "pybullet"

    def __init__(self, spec: SceneSpec, points: np.ndarray, from_rpy: bool = False) -> None:
        import pybullet

        self.pb = pybullet
        self.client = pybullet.connect(pybullet.DIRECT)
        self.spec = spec
        self.from_rpy = from_rpy
        self.bodies, self.index = [], {}
        for g, shape in enumerate(spec.shapes):
            X = spec.X_FG[g]
            anchored = spec.frame_of[g] < 0
            # Mass 0 makes a body static, and Bullet never pairs two static bodies.
            body = pybullet.createMultiBody(
                0.0 if anchored else 1.0, _bullet_shape(pybullet, shape, self.client),
                basePosition=X[:3, 3].tolist(), baseOrientation=_xyzw(X[:3, :3]),
                physicsClientId=self.client)
            pybullet.changeDynamics(body, -1, collisionMargin=0.0,
                                    contactProcessingThreshold=MAX_DISTANCE,
                                    physicsClientId=self.client)
            self.index[body] = g
            if not anchored:
                self.bodies.append(body)
        moving = [g for g in range(len(spec.shapes)) if spec.frame_of[g] >= 0]
        if not np.allclose(spec.X_FG[moving], np.eye(4)):
            raise ValueError("the pybullet peer takes geometries at their frames' origins")
        frame_of = spec.frame_of[moving]
        self.poses = [[(X[:3, 3].tolist(), _xyzw(X[:3, :3])) for X in X_PF[frame_of]]
                      for X_PF in spec.X_PF]
        if from_rpy:
            rpy, p = pose_parts(spec)
            self.rpy, self.p = rpy[:, frame_of], p[:, frame_of]
        self.moving = set(self.bodies)
        self.threshold = None

    def close(self) -> None:
        """Disconnect from the physics server."""
        self.pb.disconnect(physicsClientId=self.client)

    def _contacts(self, c: int, query: str) -> list:
        pb, client = self.pb, self.client
        if self.from_rpy:
            quaternion = pb.getQuaternionFromEuler
            for body, rpy, p in zip(self.bodies, self.rpy[c], self.p[c]):
                pb.resetBasePositionAndOrientation(body, p, quaternion(rpy),
                                                   physicsClientId=client)
        else:
            for body, (p, q) in zip(self.bodies, self.poses[c]):
                pb.resetBasePositionAndOrientation(body, p, q, physicsClientId=client)
        if self.threshold is None:
            # A threshold of exactly 0 makes Bullet's convex-convex pairs report
            # nothing; a micrometre keeps them, and the filter below drops the rest.
            pb.setPhysicsEngineParameter(contactBreakingThreshold=1e-6, physicsClientId=client)
            self.threshold = 1e-6
        pb.performCollisionDetection(physicsClientId=client)
        if query == "penetration":
            return [k for k in pb.getContactPoints(physicsClientId=client) if k[8] < 0.0]
        # Distances within MAX_DISTANCE: Bullet's contacts stop at the contact
        # threshold, so ask the broadphase for boxes within reach, then each pair.
        found = []
        reach = MAX_DISTANCE
        for body in self.bodies:
            lo, hi = pb.getAABB(body, physicsClientId=client)
            near = pb.getOverlappingObjects([lo[0] - reach, lo[1] - reach, lo[2] - reach],
                                            [hi[0] + reach, hi[1] + reach, hi[2] + reach],
                                            physicsClientId=client) or ()
            for other, _ in near:
                if other > body or (other != body and other not in self.moving):
                    found += pb.getClosestPoints(body, other, MAX_DISTANCE,
                                                 physicsClientId=client)
        return found

    def cycle(self, c: int, query: str) -> int:
        return len({(k[1], k[2]) for k in self._contacts(c, query)})

    def answers(self, c: int, query: str) -> dict[tuple[int, int], float]:
        """{(g, h): depth or distance} of cycle ``c``, geometry indices g < h."""
        # The least signed distance of a pair's points: its deepest or nearest.
        found = _by_index((self.index[k[1]], self.index[k[2]], k[8])
                          for k in self._contacts(c, query))
        return _as_depths(found) if query == "penetration" else found


def _xyzw(R: np.ndarray) -> list[float]:
    w, x, y, z = rotation_matrix_to_quaternion(R).tolist()
    return [x, y, z, w]


def _bullet_shape(pybullet, shape, client: int) -> int:
    if isinstance(shape, Sphere):
        return pybullet.createCollisionShape(pybullet.GEOM_SPHERE, radius=shape.radius,
                                             physicsClientId=client)
    if isinstance(shape, Box):
        return pybullet.createCollisionShape(
            pybullet.GEOM_BOX, halfExtents=[0.5 * shape.width, 0.5 * shape.depth,
                                            0.5 * shape.height], physicsClientId=client)
    if isinstance(shape, Cylinder):
        return pybullet.createCollisionShape(pybullet.GEOM_CYLINDER, radius=shape.radius,
                                             height=shape.length, physicsClientId=client)
    if isinstance(shape, Capsule):
        return pybullet.createCollisionShape(pybullet.GEOM_CAPSULE, radius=shape.radius,
                                             height=shape.length, physicsClientId=client)
    if isinstance(shape, Ellipsoid):
        longitudes = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        theta, phi = np.meshgrid(np.linspace(0, np.pi, 8), longitudes)
        unit = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi),
                         np.cos(theta)], axis=-1).reshape(-1, 3)
        return pybullet.createCollisionShape(
            pybullet.GEOM_MESH, vertices=(unit * [shape.a, shape.b, shape.c]).tolist(),
            physicsClientId=client)
    raise TypeError(f"no pybullet shape for {shape!r} in the benchmark")


def compare_answers(spec: SceneSpec, query: str, cycle: int,
                    tolerance: dict[str, float]) -> dict[str, dict[str, float]]:
    """Each peer's answers against geometry_core's on one cycle.

    Returns, per peer label: ``pairs`` (pairs found by us), ``missing`` and
    ``extra`` (pairs one side reports and the other does not, beyond the
    peer's ``tolerance`` of the depth or distance bound, so pairs at the
    edge of the question may differ), and ``max_error`` (largest |value
    difference| on the pairs both report).
    """
    points = np.zeros((1, 3))
    ours = Ours(spec, points).answers(cycle, query)
    found = {}
    peers = [Drake] + ([Coal, PyBullet] if peers_apply(spec, query) else [])
    for cls in peers:
        system = cls(spec, points)
        theirs = system.answers(cycle, query)
        if hasattr(system, "close"):
            system.close()
        tol = tolerance[cls.label]
        bound = 0.0 if query == "penetration" else MAX_DISTANCE

        common = ours.keys() & theirs.keys()
        found[cls.label] = {
            "pairs": len(ours),
            "missing": sum(abs(ours[k] - bound) > tol for k in ours.keys() - theirs.keys()),
            "extra": sum(abs(theirs[k] - bound) > tol for k in theirs.keys() - ours.keys()),
            "max_error": max((abs(ours[k] - theirs[k]) for k in common), default=0.0),
        }
    return found
