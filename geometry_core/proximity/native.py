"""The compiled kernels, if they were built, and the conversions they need.

``geometry_core._native`` (see :mod:`geometry_core.compiled`) answers
pairs, points and the broadphase with the same algorithms and tolerances as
the pure-Python modules. When it is missing, or ``GEOMETRY_CORE_NATIVE=0`` is
set, every query runs the pure-Python code instead, with the same answers,
slower. ``AVAILABLE`` and ``REASON`` say which path is in use.

Imports numpy and the shapes only.
"""

from __future__ import annotations

import weakref

import numpy as np

from geometry_core import compiled
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

__all__ = ["AVAILABLE", "REASON", "shape_spec", "pair", "point"]

SPHERE, BOX, CYLINDER, CAPSULE, ELLIPSOID, HALFSPACE, CONVEX, MESH = range(8)
#: Status codes of the kernels (csrc/gc.h).
OK, NOT_HANDLED, UNCERTIFIED, ERROR_HALFSPACES, SEARCHED = range(5)

_native = compiled.native
AVAILABLE, REASON = compiled.AVAILABLE, compiled.REASON

_HULLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hull_spec(convex: Convex) -> tuple:
    """``(vertices, triangles, normals, offsets, size)`` of a Convex's hull, in G."""
    spec = _HULLS.get(convex)
    if spec is None:
        vertices, faces = convex.hull()
        vertices = np.ascontiguousarray(vertices, dtype=np.float64)
        triangles = np.ascontiguousarray(faces, dtype=np.int32)
        a, b, c = (vertices[faces[:, k]] for k in range(3))
        normals = np.cross(b - a, c - a)
        normals = np.ascontiguousarray(normals / np.linalg.norm(normals, axis=1, keepdims=True))
        offsets = np.ascontiguousarray(np.einsum("ij,ij->i", normals, a))
        size = float(np.max(np.linalg.norm(vertices, axis=1)))
        spec = _HULLS[convex] = (vertices, triangles, normals, offsets, size)
    return spec


def shape_spec(shape: Shape) -> tuple:
    """``(kind, (s0, s1, s2), hull)``: a shape as the compiled kernels read it."""
    if isinstance(shape, Sphere):
        return SPHERE, (float(shape.radius), 0.0, 0.0), None
    if isinstance(shape, Box):
        return BOX, (0.5 * shape.width, 0.5 * shape.depth, 0.5 * shape.height), None
    if isinstance(shape, Cylinder):
        return CYLINDER, (float(shape.radius), 0.5 * shape.length, 0.0), None
    if isinstance(shape, Capsule):
        return CAPSULE, (float(shape.radius), 0.5 * shape.length, 0.0), None
    if isinstance(shape, Ellipsoid):
        return ELLIPSOID, (float(shape.a), float(shape.b), float(shape.c)), None
    if isinstance(shape, HalfSpace):
        return HALFSPACE, (0.0, 0.0, 0.0), None
    if isinstance(shape, Convex):
        return CONVEX, (0.0, 0.0, 0.0), hull_spec(shape)
    if isinstance(shape, Mesh):
        return MESH, (0.0, 0.0, 0.0), None
    raise TypeError(f"no native form for {type(shape).__name__}")


def _pose(X: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(X, dtype=np.float64)


def pair(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
         kernel: str = "auto") -> tuple[int, PairWitness]:
    """``(status, witness)`` of one pair from the compiled kernels (tests, tools).

    ``kernel`` picks ``"auto"`` (the dispatcher), ``"exact"``, ``"convex"`` or
    ``"halfspace"`` (A a half space). ``status`` is one of the module's
    ``OK``, ``NOT_HANDLED``, ``UNCERTIFIED``, ``ERROR_HALFSPACES``.
    """
    status, distance, p_WCa, p_WCb, nhat, unique = _native.pair(
        shape_spec(shape_A), _pose(X_WA), shape_spec(shape_B), _pose(X_WB), kernel)
    return status, PairWitness(distance, np.array(p_WCa), np.array(p_WCb), np.array(nhat),
                               unique)


def point(shape: Shape, X_WG: np.ndarray, p_WQ: np.ndarray) -> tuple[int, PointWitness]:
    """``(status, witness)`` of one point from the compiled kernels (tests, tools)."""
    status, distance, p_GN, grad_W, unique = _native.point(
        shape_spec(shape), _pose(X_WG), np.ascontiguousarray(p_WQ, dtype=np.float64))
    return status, PointWitness(distance, np.array(p_GN), np.array(grad_W), unique)


def support_value(shape: Shape, X_WG: np.ndarray, d_W: np.ndarray) -> float:
    """max over G of ``d_W · p_WP`` from the compiled support functions (tests)."""
    return _native.support_value(shape_spec(shape), _pose(X_WG),
                                 np.ascontiguousarray(d_W, dtype=np.float64))


class PairAnswers:
    """Candidate pairs answered by ``Model.pairs``, as columns.

    ``i``, ``j``, ``status`` lists of int; ``distance`` list of float;
    ``unique`` list of bool; ``pa``, ``pb``, ``n`` lists of (3,) arrays (the
    witnesses and ``nhat_BA_W``, rows of one array). ``all_ok`` when no pair
    was left to Python; ``searched`` counts direction-search answers.
    """

    __slots__ = ("i", "j", "status", "distance", "unique", "pa", "pb", "n", "all_ok",
                 "searched")

    def __init__(self, answer: tuple) -> None:
        vectors, self.i, self.j, self.status, self.distance, self.unique, not_ok, \
            self.searched = answer
        rows = list(np.frombuffer(vectors, dtype=np.float64).reshape(-1, 3))
        self.pa, self.pb, self.n = rows[0::3], rows[1::3], rows[2::3]
        self.all_ok = not_ok == 0 and self.searched == 0


def build_model(shapes, frame_slot: np.ndarray, X_FG: np.ndarray, filtered_keys: np.ndarray):
    """A ``_native.Model`` of one collision model's geometries (None without the kernels)."""
    if _native is None:
        return None
    size = len(shapes)
    kinds = np.empty(size, dtype=np.int32)
    sizes = np.zeros((size, 3))
    boxes = np.zeros((size, 6))
    hulls = []
    for g, shape in enumerate(shapes):
        kind, s, hull = shape_spec(shape)
        kinds[g] = kind
        sizes[g] = s
        box = shape.local_aabb()
        if box is not None:
            boxes[g, :3], boxes[g, 3:] = box
        if hull is not None:
            hulls.append((g, hull))
    return _native.Model(kinds, sizes, boxes, np.ascontiguousarray(frame_slot, dtype=np.int32),
                         np.ascontiguousarray(X_FG, dtype=np.float64).reshape(-1),
                         np.ascontiguousarray(filtered_keys, dtype=np.int64), hulls)


def build_records(cls: type, names: tuple[str, ...], columns: tuple[list, ...]) -> list:
    """``[cls(*row) for row in zip(*columns)]`` for a frozen result dataclass, in C.

    The objects get their fields without ``cls.__init__`` running (the query
    loops pass values they computed and checked); a tenth of the cost.
    """
    return _native.build_records(cls, names, columns)
