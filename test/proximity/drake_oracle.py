"""Drake as a test oracle: the same posed shapes in a pydrake SceneGraph, answers as numpy.

A test utility (not a test module), reused by the kernel tests here and by the
scene-level differential tests. Each function builds a minimal SceneGraph from
OUR shape objects and 4x4 poses, asks one QueryObject question and returns
Drake's answer in OUR records (``PairWitness``, ``PointWitness``) with every
point and vector in W and A/B in OUR argument order:

* each geometry gets its own dynamic frame (Drake never reports a pair of
  anchored geometries, nor two geometries on one frame); the frame poses are
  fixed on the source's pose port through a ``FramePoseVector`` and each
  geometry sits at the identity in its frame, so X_WG is exactly the pose given;
* Drake orders results with ``id_A < id_B``; when Drake's A is our B the answer
  is swapped back (``PairWitness.swapped``);
* Drake's SignedDistancePair does not expose ``is_nhat_BA_W_unique`` in Python;
  the oracle sets it False exactly when Drake's normal is not finite (Drake
  returns NaN for touching pairs in its GJK fallback).

When Drake throws for a pair or shape it does not support, these functions
raise ``DrakeUnsupportedError`` carrying Drake's message, so a test can assert
that Drake refuses and check our answer against an analytic one instead.

Import it as ``import drake_oracle`` with this folder on ``sys.path`` (the
project runs pytest with ``--import-mode=importlib``, which does not add test
folders; the tests here insert their own folder).
The module skips the importing test module when pydrake is not installed.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

from geometry_core.proximity.witness import PairWitness, PointWitness
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

# Skips the importing test module where pydrake is absent (it is a test-only extra).
pydrake_geometry = pytest.importorskip("pydrake.geometry")
pydrake_math = pytest.importorskip("pydrake.math")

__all__ = [
    "DrakeUnsupportedError",
    "drake_penetration",
    "drake_signed_distance_pair",
    "drake_signed_distance_to_point",
    "to_drake_shape",
]


class DrakeUnsupportedError(RuntimeError):
    """Drake refused the query (unsupported pair or shape); the message is Drake's."""


def _write_hull_obj(convex: Convex, directory: str) -> str:
    # Convex.from_points has no file; Drake needs one. The hull's triangles
    # (already scaled) make a valid OBJ whose hull is the same polytope.
    vertices, faces = convex.hull()
    path = os.path.join(directory, f"hull_{id(convex)}.obj")
    with open(path, "w") as obj:
        obj.writelines(f"v {x:.17g} {y:.17g} {z:.17g}\n" for x, y, z in vertices)
        obj.writelines(f"f {i + 1} {j + 1} {k + 1}\n" for i, j, k in faces)
    return path


def to_drake_shape(shape: Shape, directory: str):
    """Return the pydrake shape equal to ``shape`` (same canonical frame, same sizes).

    Parameters
    ----------
    shape : Shape
        Any of our shapes.
    directory : str
        A folder for the temporary OBJ written for ``Convex.from_points``; it
        must outlive the SceneGraph that uses the shape's geometry.

    Raises
    ------
    TypeError
        For an unknown shape type.
    """
    if isinstance(shape, Sphere):
        return pydrake_geometry.Sphere(shape.radius)
    if isinstance(shape, Box):
        return pydrake_geometry.Box(shape.width, shape.depth, shape.height)
    if isinstance(shape, Cylinder):
        return pydrake_geometry.Cylinder(shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return pydrake_geometry.Capsule(shape.radius, shape.length)
    if isinstance(shape, Ellipsoid):
        return pydrake_geometry.Ellipsoid(shape.a, shape.b, shape.c)
    if isinstance(shape, HalfSpace):
        return pydrake_geometry.HalfSpace()
    if isinstance(shape, Convex):
        if shape.filename is None:
            return pydrake_geometry.Convex(_write_hull_obj(shape, directory), 1.0)
        return pydrake_geometry.Convex(shape.filename, np.asarray(shape.scale3))
    if isinstance(shape, Mesh):
        return pydrake_geometry.Mesh(shape.filename, np.asarray(shape.scale3))
    raise TypeError(f"no Drake conversion for {type(shape).__name__}")


def _rigid_transform(X: np.ndarray) -> pydrake_math.RigidTransform:
    X = np.asarray(X, dtype=float)
    return pydrake_math.RigidTransform(pydrake_math.RotationMatrix(X[:3, :3]), X[:3, 3])


class _Scene:
    """A SceneGraph with one dynamic frame per geometry, posed, and its QueryObject."""

    def __init__(self, shapes_and_poses: list[tuple[Shape, np.ndarray]], directory: str):
        geometry = pydrake_geometry
        self.scene_graph = geometry.SceneGraph()
        source_id = self.scene_graph.RegisterSource("oracle")
        poses = geometry.FramePoseVector()
        self.geometry_ids = []
        for index, (shape, X_WG) in enumerate(shapes_and_poses):
            frame_id = self.scene_graph.RegisterFrame(
                source_id, geometry.GeometryFrame(f"frame_{index}"))
            instance = geometry.GeometryInstance(
                pydrake_math.RigidTransform(), to_drake_shape(shape, directory),
                f"geometry_{index}")
            geometry_id = self.scene_graph.RegisterGeometry(source_id, frame_id, instance)
            self.scene_graph.AssignRole(source_id, geometry_id, geometry.ProximityProperties())
            poses.set_value(frame_id, _rigid_transform(X_WG))
            self.geometry_ids.append(geometry_id)
        self.context = self.scene_graph.CreateDefaultContext()
        self.scene_graph.get_source_pose_port(source_id).FixValue(self.context, poses)
        self.query_object = self.scene_graph.get_query_output_port().Eval(self.context)


def _call_drake(function, *args):
    try:
        return function(*args)
    except RuntimeError as err:  # pydrake maps std::logic_error/runtime_error here
        raise DrakeUnsupportedError(str(err)) from err


def drake_signed_distance_pair(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                               X_WB: np.ndarray) -> PairWitness:
    """Return Drake's ``ComputeSignedDistancePairClosestPoints`` answer for A and B.

    Parameters
    ----------
    shape_A, shape_B : Shape
    X_WA, X_WB : (4, 4) float
        Poses of A and B in W.

    Returns
    -------
    PairWitness
        Drake's signed distance (m), witnesses Ca on A and Cb on B moved into
        W (Drake reports them in each geometry's frame), and ``nhat_BA_W``,
        all in OUR A/B order. ``is_nhat_BA_W_unique`` is False only when
        Drake's normal is NaN.

    Raises
    ------
    DrakeUnsupportedError
        When Drake throws for the pair (e.g. a half space with anything but a
        sphere).
    """
    with tempfile.TemporaryDirectory() as directory:
        scene = _Scene([(shape_A, X_WA), (shape_B, X_WB)], directory)
        id_A, id_B = scene.geometry_ids
        pair = _call_drake(scene.query_object.ComputeSignedDistancePairClosestPoints, id_A, id_B)
    swap = pair.id_A != id_A
    X_WDa, X_WDb = (X_WB, X_WA) if swap else (X_WA, X_WB)
    p_WCa = np.asarray(X_WDa)[:3, :3] @ pair.p_ACa + np.asarray(X_WDa)[:3, 3]
    p_WCb = np.asarray(X_WDb)[:3, :3] @ pair.p_BCb + np.asarray(X_WDb)[:3, 3]
    nhat_BA_W = np.asarray(pair.nhat_BA_W, dtype=float).copy()
    witness = PairWitness(float(pair.distance), p_WCa, p_WCb, nhat_BA_W,
                          bool(np.all(np.isfinite(nhat_BA_W))))
    return witness.swapped() if swap else witness


def drake_penetration(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                      X_WB: np.ndarray) -> PairWitness | None:
    """Return Drake's ``ComputePointPairPenetration`` answer for A and B, or None.

    Returns
    -------
    PairWitness or None
        ``distance = -depth``, Drake's ``p_WCa`` (point of A deepest in B),
        ``p_WCb`` (point of B deepest in A) and ``nhat_BA_W`` (from B into A),
        in OUR A/B order; None when Drake reports no penetration.

    Raises
    ------
    DrakeUnsupportedError
        When Drake throws for the pair (two half spaces, meshes, ...).
    """
    with tempfile.TemporaryDirectory() as directory:
        scene = _Scene([(shape_A, X_WA), (shape_B, X_WB)], directory)
        id_A, _ = scene.geometry_ids
        pairs = _call_drake(scene.query_object.ComputePointPairPenetration)
    if not pairs:
        return None
    (pair,) = pairs
    witness = PairWitness(-float(pair.depth), np.array(pair.p_WCa, dtype=float),
                          np.array(pair.p_WCb, dtype=float),
                          np.array(pair.nhat_BA_W, dtype=float), True)
    return witness.swapped() if pair.id_A != id_A else witness


def drake_signed_distance_to_point(shape: Shape, X_WG: np.ndarray,
                                   p_WQ: np.ndarray) -> PointWitness | None:
    """Return Drake's ``ComputeSignedDistanceToPoint`` answer for one shape, or None.

    Returns
    -------
    PointWitness or None
        Drake's distance (m), nearest point ``p_GN`` in G and ``grad_W``;
        ``is_grad_W_unique`` is always True (pydrake does not expose it).
        None when Drake silently ignores the shape.

    Raises
    ------
    DrakeUnsupportedError
        When Drake throws (e.g. for a mesh whose boundary it cannot use).
    """
    with tempfile.TemporaryDirectory() as directory:
        scene = _Scene([(shape, X_WG)], directory)
        results = _call_drake(scene.query_object.ComputeSignedDistanceToPoint,
                              np.asarray(p_WQ, dtype=float))
    if not results:
        return None
    (result,) = results
    return PointWitness(float(result.distance), np.array(result.p_GN, dtype=float),
                        np.array(result.grad_W, dtype=float), True)
