"""The one module of geometry_core that imports python-fcl.

It converts shapes to FCL geometries and wraps FCL's pairwise distance and
collision calls so that every known FCL trap is guarded in one place. Convex
pairs are answered more accurately by the compiled kernels; these wrappers are
for pairs that involve a non-convex Mesh (an FCL BVH of its triangles) and
serve as a documented fallback.

Traps (python-fcl 0.7.0.11, FCL 0.7), each guarded here and pinned by a test
in ``test/proximity/test_fcl_adapter.py``:

* Signed distance is off by default: ``DistanceRequest()`` reports -1 and
  zero witnesses for any overlap. We enable it, and ask FCL for signed
  distance only when the pair is apart (see the next item).
* FCL's signed-distance EPA (both GJK solvers) can loop forever (two
  spheres or ellipsoids with centres 1e-10 apart) or throw a C++
  ``std::logic_error`` that python-fcl does not translate, which aborts the
  whole process (two nearly coincident boxes). Neither can be caught from
  Python. So convex primitives never reach FCL's EPA: the compiled
  kernels answer them. Exceptions that a future python-fcl may raise are caught and
  reported as ``RuntimeError`` naming the pair.
* Solver choice: ``GST_INDEP`` collision reports negative or wrong
  penetration depths (concentric spheres: -0.04 for a true 0.2); we use
  ``GST_LIBCCD`` for ``collide``. For ``distance`` the two solvers give
  identical answers in 0.7.
* Normal direction: FCL's ``Contact.normal`` points from o1 to o2, i.e.
  from A into B; ours, ``nhat_BA_W``, points from B into A.
* Stale results: ``fcl.collide`` appends to ``result.contacts`` and
  ``fcl.distance`` keeps a smaller ``min_distance`` from an earlier call, so
  reused result objects mix answers. Every call builds fresh objects.
* The default manager callback stops after ``num_max_contacts`` (default 1)
  contacts in total, across all pairs. :func:`fcl_colliding_pairs` uses its
  own callback that never stops early.
* BVH pairs: ``distance`` between a BVH and a shape returns garbage
  (denormals, uninitialised witnesses) when they overlap, and when apart
  its nearest points come in the shape's and mesh's *local* frames, in
  (mesh, shape) order whatever the argument order. BVH collision contacts
  carry negative depths with a normal flipped with the argument order. We
  use FCL only to find the triangles involved (``b1``/``b2``) and recompute
  each triangle's answer exactly with the compiled kernels.

What a Mesh means here: its triangles, a surface. A shape inside a closed
mesh without touching a triangle does not collide with it, and the
"penetration" of a shape into a mesh is the deepest overlap of the shape
with any one triangle (the distance that triangle must move to clear the
shape). FCL behaves the same; Drake's ``Mesh`` in point-pair penetration is
not supported for that reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import fcl
import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.narrowphase import kernel_pair, solver_fallbacks
from geometry_core.proximity.witness import PairWitness
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

__all__ = [
    "fcl_geometry",
    "fcl_transform",
    "fcl_signed_distance",
    "fcl_penetration",
    "fcl_colliding_pairs",
    "DISTANCE_SOLVER",
    "COLLISION_SOLVER",
    "MAX_CONTACTS_PER_PAIR",
]

#: Solver for ``fcl.distance``; in FCL 0.7 both solvers agree there.
DISTANCE_SOLVER = fcl.GJKSolverType.GST_LIBCCD
#: Solver for ``fcl.collide``: GST_INDEP reports wrong-signed depths.
COLLISION_SOLVER = fcl.GJKSolverType.GST_LIBCCD
#: Contacts requested per pair: a BVH pair yields one per touching triangle,
#: and we need all of them to find the deepest.
MAX_CONTACTS_PER_PAIR = 100_000


# Python subclasses of FCL's geometry classes can carry the source shape, so
# the wrappers can route overlapping convex pairs away from FCL's EPA.
class _Sphere(fcl.Sphere):
    pass


class _Box(fcl.Box):
    pass


class _Cylinder(fcl.Cylinder):
    pass


class _Capsule(fcl.Capsule):
    pass


class _Ellipsoid(fcl.Ellipsoid):
    pass


class _Halfspace(fcl.Halfspace):
    pass


class _Convex(fcl.Convex):
    pass


class _BVHModel(fcl.BVHModel):
    pass


def fcl_geometry(shape: Shape) -> fcl.CollisionGeometry:
    """Return the FCL geometry of a shape, in the shape's own frame G.

    Parameters
    ----------
    shape : Shape
        Sphere, Box, Cylinder (along Gz), Capsule (along Gz), Ellipsoid,
        HalfSpace (z <= 0: ``Halfspace(n=(0, 0, 1), d=0)``), Convex (an
        ``fcl.Convex`` of its hull), or Mesh (a ``BVHModel`` of its
        triangles).

    Returns
    -------
    fcl.CollisionGeometry
        A subclass instance whose ``source_shape`` attribute is ``shape``.

    Raises
    ------
    ValueError
        If the shape has no FCL counterpart.
    """
    if isinstance(shape, Sphere):
        geom = _Sphere(shape.radius)
    elif isinstance(shape, Box):
        geom = _Box(shape.width, shape.depth, shape.height)
    elif isinstance(shape, Cylinder):
        geom = _Cylinder(shape.radius, shape.length)
    elif isinstance(shape, Capsule):
        geom = _Capsule(shape.radius, shape.length)
    elif isinstance(shape, Ellipsoid):
        geom = _Ellipsoid(shape.a, shape.b, shape.c)
    elif isinstance(shape, HalfSpace):
        geom = _Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)
    elif isinstance(shape, Convex):
        vertices, faces = shape.hull()
        # python-fcl 0.7: Convex(vertices, num_faces, faces) with faces a flat
        # list in which each face is prefixed by its vertex count.
        flat = np.hstack([np.full((len(faces), 1), 3), faces]).ravel().tolist()
        geom = _Convex(np.asarray(vertices, dtype=float), len(faces), flat)
    elif isinstance(shape, Mesh):
        geom = _BVHModel()
        geom.beginModel(len(shape.vertices()), len(shape.faces()))
        geom.addSubModel(np.asarray(shape.vertices(), dtype=float),
                         np.asarray(shape.faces(), dtype=np.int64))
        geom.endModel()
    else:
        raise ValueError(f"no FCL geometry for shape {shape!r}")
    geom.source_shape = shape
    return geom


def fcl_transform(X_WG) -> fcl.Transform:
    """Return an ``fcl.Transform`` for a pose ``X_WG`` ((4, 4) float)."""
    X_WG = as_pose_matrix(X_WG)
    return fcl.Transform(np.ascontiguousarray(X_WG[:3, :3]), np.array(X_WG[:3, 3]))


def _source(geom: fcl.CollisionGeometry) -> Shape | None:
    return getattr(geom, "source_shape", None)


def _is_bvh(geom) -> bool:
    return isinstance(geom, fcl.BVHModel)


def as_pose_matrix(X, name: str = "X_WG") -> np.ndarray:
    """Return a pose as a (4, 4) float array.

    Accepts a (4, 4) array or an object with ``get_as_matrix4()`` (our
    RigidTransform) or ``GetAsMatrix4()`` (Drake's).

    Raises
    ------
    ValueError
        If the result is not (4, 4) or holds NaN or infinity.
    """
    for method in ("get_as_matrix4", "GetAsMatrix4"):
        if hasattr(X, method):
            X = getattr(X, method)()
            break
    X = np.asarray(X, dtype=float)
    if X.shape != (4, 4):
        raise ValueError(f"{name} must have shape (4, 4), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity")
    return X


def _side(geom, X_WG: np.ndarray, index: int) -> tuple[tuple, np.ndarray]:
    """``(spec, pose)`` of one side of a pair: a mesh's triangle ``index`` or the shape."""
    shape = _source(geom)
    if _is_bvh(geom):
        p_GV = shape.vertices()[shape.faces()[index]]
        return specs.triangle_spec(p_GV @ X_WG[:3, :3].T + X_WG[:3, 3])
    return specs.shape_spec(shape), X_WG


def _sides_pair(geom_A, X_WA, index_A: int, geom_B, X_WB, index_B: int) -> PairWitness:
    """The compiled kernels' answer for the two sides (triangles of meshes, or shapes)."""
    spec_A, X_WA = _side(geom_A, X_WA, index_A)
    spec_B, X_WB = _side(geom_B, X_WB, index_B)
    status, witness = specs.pair_of_specs(spec_A, X_WA, spec_B, X_WB)
    if status == specs.SEARCHED:
        solver_fallbacks.count(_source(geom_A), _source(geom_B))
    elif status != specs.OK:
        raise RuntimeError(f"the compiled kernels answered a {_source(geom_A).type_name}-"
                           f"{_source(geom_B).type_name} triangle pair with status {status}")
    return witness


def _call_fcl(what: str, fn, *args):
    try:
        return fn(*args)
    except Exception as err:  # python-fcl surfaces C++ failures as assorted types
        raise RuntimeError(f"FCL {what} failed: {err}") from err


def _unsigned_distance(obj_A, obj_B) -> tuple[float, fcl.DistanceResult]:
    request = fcl.DistanceRequest(enable_nearest_points=True, enable_signed_distance=False,
                                  gjk_solver_type=DISTANCE_SOLVER)
    result = fcl.DistanceResult()
    distance = _call_fcl("distance", fcl.distance, obj_A, obj_B, request, result)
    return float(distance), result


def _collide(obj_A, obj_B) -> fcl.CollisionResult:
    request = fcl.CollisionRequest(num_max_contacts=MAX_CONTACTS_PER_PAIR, enable_contact=True,
                                   gjk_solver_type=COLLISION_SOLVER)
    result = fcl.CollisionResult()
    _call_fcl("collide", fcl.collide, obj_A, obj_B, request, result)
    return result


def _check_geometries(geom_A, geom_B) -> None:
    for name, geom in (("geom_A", geom_A), ("geom_B", geom_B)):
        if not isinstance(geom, fcl.CollisionGeometry):
            raise ValueError(f"{name} must be an fcl.CollisionGeometry from fcl_geometry, "
                             f"got {type(geom).__name__}")
        if _source(geom) is None:
            raise ValueError(f"{name} was not made by fcl_geometry (it carries no "
                             "source_shape); its triangles and shape are unknown")


def fcl_signed_distance(geom_A: fcl.CollisionGeometry, X_WA, geom_B: fcl.CollisionGeometry,
                        X_WB) -> PairWitness:
    """Return the signed distance between two FCL geometries, traps guarded.

    Parameters
    ----------
    geom_A, geom_B : fcl.CollisionGeometry
        Geometries made by :func:`fcl_geometry`.
    X_WA, X_WB : (4, 4) float
        Poses of A's and B's frames in W.

    Returns
    -------
    PairWitness
        Distance in metres (negative when overlapping), witnesses in W,
        ``nhat_BA_W`` from B into A. Convex pairs are answered by the
        compiled kernels (FCL is unsafe for overlaps and off by up to ~3e-4 m
        for curved shapes when apart). For a Mesh, FCL finds the nearest
        triangle and the compiled kernels compute the
        triangle's exact distance; an overlapping Mesh reports the deepest
        triangle overlap (see the module docstring).

    Raises
    ------
    ValueError
        If a geometry was not made by :func:`fcl_geometry`, both are half
        spaces, or a pose is invalid.
    RuntimeError
        If FCL raises.
    """
    _check_geometries(geom_A, geom_B)
    X_WA = as_pose_matrix(X_WA, "X_WA")
    X_WB = as_pose_matrix(X_WB, "X_WB")
    shape_A, shape_B = _source(geom_A), _source(geom_B)
    if not (_is_bvh(geom_A) or _is_bvh(geom_B)):
        # Convex pair: FCL adds nothing but risk (EPA hangs/aborts) and error.
        return kernel_pair(shape_A, X_WA, shape_B, X_WB)
    obj_A = fcl.CollisionObject(geom_A, fcl_transform(X_WA))
    obj_B = fcl.CollisionObject(geom_B, fcl_transform(X_WB))
    collision = _collide(obj_A, obj_B)
    if collision.is_collision:
        witness = _deepest_contact(geom_A, X_WA, geom_B, X_WB, collision)
        if witness is not None:
            return witness
    distance, result = _unsigned_distance(obj_A, obj_B)
    if not math.isfinite(distance) or distance < 0.0:
        raise RuntimeError(f"FCL distance returned {distance} for a pair it reports apart")
    # b1 / b2 index o1's / o2's triangles; FCL 0.7 puts the BVH's index in b1
    # whatever the argument order when only one side is a BVH.
    if _is_bvh(geom_A) and _is_bvh(geom_B):
        index_A, index_B = result.b1, result.b2
    else:
        index_A = index_B = result.b1
    return _sides_pair(geom_A, X_WA, index_A, geom_B, X_WB, index_B)


def _deepest_contact(geom_A, X_WA, geom_B, X_WB, collision) -> PairWitness | None:
    best = None
    seen = set()
    for contact in collision.contacts:
        key = (contact.b1, contact.b2)
        if key in seen:
            continue
        seen.add(key)
        if _is_bvh(geom_A) and _is_bvh(geom_B):
            index_A, index_B = contact.b1, contact.b2
        else:
            bvh_index = contact.b1 if contact.b1 >= 0 else contact.b2
            index_A = index_B = bvh_index
        witness = _sides_pair(geom_A, X_WA, index_A, geom_B, X_WB, index_B)
        if best is None or witness.distance < best.distance:
            best = witness
    return best


def fcl_penetration(geom_A: fcl.CollisionGeometry, X_WA, geom_B: fcl.CollisionGeometry,
                    X_WB) -> PairWitness | None:
    """Return FCL's penetration answer for one pair, or None if apart.

    Parameters
    ----------
    geom_A, geom_B : fcl.CollisionGeometry
        Geometries made by :func:`fcl_geometry` (a HalfSpace is allowed).
    X_WA, X_WB : (4, 4) float
        Poses of A's and B's frames in W.

    Returns
    -------
    PairWitness or None
        None when FCL reports no collision. Otherwise ``distance = -depth``
        of FCL's deepest contact, ``nhat_BA_W = -contact.normal`` (FCL's
        normal points from A into B), and witnesses ``pos ∓ depth/2 ·
        nhat_BA_W`` (FCL's contact point is midway between the surfaces).
        For BVH pairs the contacts are recomputed per triangle exactly (FCL
        reports negative depths there). This is the raw-FCL fallback: its
        depth is libccd's MPR estimate, off by up to tens of percent for
        curved shapes; prefer the compiled kernels (``PairSolver``).

    Raises
    ------
    ValueError
        If a geometry was not made by :func:`fcl_geometry` or a pose is
        invalid.
    RuntimeError
        If FCL raises.
    """
    _check_geometries(geom_A, geom_B)
    X_WA = as_pose_matrix(X_WA, "X_WA")
    X_WB = as_pose_matrix(X_WB, "X_WB")
    obj_A = fcl.CollisionObject(geom_A, fcl_transform(X_WA))
    obj_B = fcl.CollisionObject(geom_B, fcl_transform(X_WB))
    collision = _collide(obj_A, obj_B)
    if not collision.is_collision or not collision.contacts:
        return None
    if _is_bvh(geom_A) or _is_bvh(geom_B):
        witness = _deepest_contact(geom_A, X_WA, geom_B, X_WB, collision)
        return witness if witness is not None and witness.distance <= 0.0 else None
    contact = max(collision.contacts, key=lambda c: c.penetration_depth)
    depth = float(contact.penetration_depth)
    nhat_BA_W = -np.asarray(contact.normal, dtype=float)
    nhat_BA_W = nhat_BA_W / np.linalg.norm(nhat_BA_W)
    p_WC = np.asarray(contact.pos, dtype=float)
    return PairWitness(-depth, p_WC - 0.5 * depth * nhat_BA_W, p_WC + 0.5 * depth * nhat_BA_W,
                       nhat_BA_W, True)


def fcl_colliding_pairs(geoms: Sequence[fcl.CollisionGeometry],
                        X_WGs: Sequence) -> list[tuple[int, int]]:
    """Return every pair (i, j), i < j, whose FCL geometries collide.

    Uses a ``DynamicAABBTreeCollisionManager`` with a callback that never
    stops early, unlike ``fcl.defaultCollisionCallback`` whose contact cap
    (``num_max_contacts``, default 1) is global across all pairs.

    Parameters
    ----------
    geoms : sequence of fcl.CollisionGeometry
    X_WGs : sequence of (4, 4) float
        One pose per geometry.

    Returns
    -------
    list of (int, int)
        Sorted index pairs.

    Raises
    ------
    ValueError
        If the sequences differ in length or a pose is invalid.
    """
    if len(geoms) != len(X_WGs):
        raise ValueError(f"got {len(geoms)} geometries but {len(X_WGs)} poses")
    objects = [fcl.CollisionObject(g, fcl_transform(X)) for g, X in zip(geoms, X_WGs)]
    keys = [_object_key(o) for o in objects]
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objects)
    manager.setup()
    candidates: list[tuple] = []

    def callback(o1, o2, _data) -> bool:
        candidates.append((_object_key(o1), _object_key(o2)))
        return False  # never stop: we want every pair

    manager.collide(None, callback)
    pairs = set()
    request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False,
                                   gjk_solver_type=COLLISION_SOLVER)
    for key1, key2 in candidates:
        # The callback receives fresh Python wrappers of the C++ objects, so
        # they are matched back by node type and pose; objects that tie on
        # both are all tried, and every pair is confirmed by its own collide.
        for i in (k for k, key in enumerate(keys) if key == key1):
            for j in (k for k, key in enumerate(keys) if key == key2):
                if i == j or (min(i, j), max(i, j)) in pairs:
                    continue
                result = fcl.CollisionResult()
                if _call_fcl("collide", fcl.collide, objects[i], objects[j], request, result):
                    pairs.add((min(i, j), max(i, j)))
    return sorted(pairs)


def _object_key(obj) -> tuple:
    return (obj.getNodeType(), tuple(obj.getTranslation().tolist()),
            tuple(obj.getRotation().ravel().tolist()))
