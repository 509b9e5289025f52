"""Shapes and models as the compiled kernels read them, and the kernels' answers.

:mod:`geometry_core.native` (the compiled kernels) is the one implementation
of the pair, point and broadphase kernels. This module turns shapes into
the specs those kernels read (hulls cached per Convex) and collision models
into their rows, turns the answers into :class:`PairWitness` /
:class:`PointWitness`, and names the kernels' status codes.

Imports numpy, the shapes and the compiled kernels only.
"""

from __future__ import annotations

import weakref

import numpy as np

from geometry_core import native
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

__all__ = ["shape_spec", "triangle_spec", "vertices_spec", "pair", "pair_of_specs", "point",
           "polytope_rescues"]

SPHERE, BOX, CYLINDER, CAPSULE, ELLIPSOID, HALFSPACE, CONVEX, MESH = range(8)
#: Status codes of the kernels (csrc/gc.h).
OK, NOT_HANDLED, UNCERTIFIED, ERROR_HALFSPACES, SEARCHED = (
    native.OK, native.NOT_HANDLED, native.UNCERTIFIED, native.ERROR_HALFSPACES, native.SEARCHED)

_HULLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def vertex_adjacency(triangles: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, neighbours)``: the triangles' edges as CSR over ``count`` vertices.

    Vertex i's neighbours are ``neighbours[offsets[i]:offsets[i + 1]]``,
    sorted and without repeats; the kernels walk this graph to a hull's
    support point instead of scanning every vertex.
    """
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    a = np.concatenate([t[:, 0], t[:, 1], t[:, 2], t[:, 1], t[:, 2], t[:, 0]])
    b = np.concatenate([t[:, 1], t[:, 2], t[:, 0], t[:, 0], t[:, 1], t[:, 2]])
    edges = np.unique(a * count + b)
    source, neighbours = np.divmod(edges, count)
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.bincount(source, minlength=count), out=offsets[1:])
    return offsets, np.ascontiguousarray(neighbours, dtype=np.int32)


def hull_arrays(p_GV: np.ndarray, faces: np.ndarray) -> tuple:
    """``(vertices, triangles, normals, offsets, size, adjacency offsets, adjacency)``.

    What the kernels read of a hull given its vertices and outward triangles
    in G; the last two are the vertex graph (:func:`vertex_adjacency`) the
    support walk follows.
    """
    vertices = np.ascontiguousarray(p_GV, dtype=np.float64)
    triangles = np.ascontiguousarray(faces, dtype=np.int32)
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    normals = np.ascontiguousarray(normals / np.linalg.norm(normals, axis=1, keepdims=True))
    offsets = np.ascontiguousarray(np.einsum("ij,ij->i", normals, a))
    size = float(np.max(np.linalg.norm(vertices, axis=1)))
    return (vertices, triangles, normals, offsets, size,
            *vertex_adjacency(triangles, len(vertices)))


def hull_spec(convex: Convex) -> tuple:
    """:func:`hull_arrays` of a Convex's hull, built once per Convex."""
    spec = _HULLS.get(convex)
    if spec is None:
        spec = _HULLS[convex] = hull_arrays(*convex.hull())
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


def triangle_spec(p_WV: np.ndarray) -> tuple[tuple, np.ndarray]:
    """``(spec, X_WT)`` of one triangle (rows of ``p_WV``, in W) as a flat hull.

    The frame T sits at the triangle's centroid, axes of W, so the hull's
    size (which scales the kernels' tolerances) is the triangle's, not its
    distance from Wo. Both windings are faces: a triangle has two sides.
    """
    p_WV = np.asarray(p_WV, dtype=np.float64)
    p_WTo = p_WV.mean(axis=0)
    vertices = np.ascontiguousarray(p_WV - p_WTo)
    normal = np.cross(vertices[1] - vertices[0], vertices[2] - vertices[0])
    normal = normal / np.linalg.norm(normal)
    normals = np.ascontiguousarray([normal, -normal])
    offsets = np.ascontiguousarray(normals @ vertices[0])
    triangles = np.array([[0, 1, 2], [0, 2, 1]], dtype=np.int32)
    size = float(np.max(np.linalg.norm(vertices, axis=1)))
    X_WT = np.eye(4)
    X_WT[:3, 3] = p_WTo
    return (CONVEX, (0.0, 0.0, 0.0), (vertices, triangles, normals, offsets, size)), X_WT


def vertices_spec(p_GV: np.ndarray) -> tuple:
    """Spec of a point set without faces: enough for the support function alone.

    A half space's distance to a mesh is its distance to the lowest vertex,
    so ``gc_halfspace_pair`` needs only the vertices (kernel ``"halfspace"``).
    """
    vertices = np.ascontiguousarray(p_GV, dtype=np.float64)
    size = float(np.max(np.linalg.norm(vertices, axis=1)))
    return CONVEX, (0.0, 0.0, 0.0), (vertices, np.zeros((0, 3), dtype=np.int32),
                                     np.zeros((0, 3)), np.zeros(0), size)


def _pose(X: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(X, dtype=np.float64)


def polytope_rescues() -> int:
    """Answers the exact polytope path gave where the first method could not be trusted.

    Counted in the kernels (process-wide) since they were loaded: a convex
    solver answer that failed its certificate for two boxes or hulls, or
    box-box SAT that skipped edges a hair from parallel.
    """
    return native.polytope_rescues()


def pair(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
         kernel: str = "auto", seed: np.ndarray | None = None) -> tuple[int, PairWitness]:
    """``(status, witness)`` of one pair from the compiled kernels.

    ``kernel`` picks ``"auto"`` (the dispatcher: half spaces, exact pairs,
    the certified convex solver, the direction search), ``"exact"``,
    ``"convex"`` (the solver and its certificate, without the search),
    ``"search"`` (the direction search alone, from direction ``seed`` if
    given) or ``"halfspace"`` (A a half space). ``status`` is one of the module's
    ``OK``, ``NOT_HANDLED``, ``UNCERTIFIED``, ``ERROR_HALFSPACES``,
    ``SEARCHED``.
    """
    return pair_of_specs(shape_spec(shape_A), X_WA, shape_spec(shape_B), X_WB, kernel, seed)


def pair_of_specs(spec_A: tuple, X_WA: np.ndarray, spec_B: tuple, X_WB: np.ndarray,
                  kernel: str = "auto", seed: np.ndarray | None = None
                  ) -> tuple[int, PairWitness]:
    """:func:`pair` for shapes given as specs (:func:`shape_spec`, :func:`triangle_spec`)."""
    if seed is not None:
        seed = np.ascontiguousarray(seed, dtype=np.float64)
    status, distance, p_WCa, p_WCb, nhat, unique = native.pair(
        spec_A, _pose(X_WA), spec_B, _pose(X_WB), kernel, seed)
    return status, PairWitness(distance, np.array(p_WCa), np.array(p_WCb), np.array(nhat),
                               unique)


def point(shape: Shape, X_WG: np.ndarray, p_WQ: np.ndarray) -> tuple[int, PointWitness]:
    """``(status, witness)`` of one point from the compiled kernels (``NOT_HANDLED`` for a mesh)."""
    status, distance, p_GN, grad_W, unique = native.point(
        shape_spec(shape), _pose(X_WG), np.ascontiguousarray(p_WQ, dtype=np.float64))
    return status, PointWitness(distance, np.array(p_GN), np.array(grad_W), unique)


def ascent_gap(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
               distance: float, nhat_BA_W: np.ndarray) -> float:
    """How far ``nhat_BA_W`` is from a local maximum of g (<= round-off at one; tests)."""
    return native.ascent_gap(shape_spec(shape_A), _pose(X_WA), shape_spec(shape_B),
                             _pose(X_WB), float(distance),
                             np.ascontiguousarray(nhat_BA_W, dtype=np.float64))


def support_value(shape: Shape, X_WG: np.ndarray, d_W: np.ndarray) -> float:
    """max over G of ``d_W · p_WP`` from the compiled support functions (tests)."""
    return native.support_value(shape_spec(shape), _pose(X_WG),
                                np.ascontiguousarray(d_W, dtype=np.float64))


class PairAnswers:
    """Candidate pairs answered by ``Model.pairs``, as columns.

    ``i``, ``j``, ``status`` lists of int; ``distance`` list of float;
    ``unique`` list of bool; ``pa``, ``pb``, ``n`` lists of (3,) arrays (the
    witnesses and ``nhat_BA_W``, rows of one array). ``all_ok`` when every
    pair was answered; ``searched`` counts direction-search answers.
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
    """A ``native.Model`` of one collision model's geometries."""
    return model_of_rows(model_rows(shapes), frame_slot, X_FG, filtered_keys)


def _shape_row(shape: Shape) -> tuple:
    kind, s, hull = shape_spec(shape)
    box = shape.local_aabb()
    return kind, s, (np.zeros(6) if box is None else np.concatenate(box)), hull


def model_rows(shapes) -> tuple:
    """``(kinds (G,), sizes (G, 3), local boxes (G, 6), hulls {index: hull})`` of shapes."""
    size = len(shapes)
    kinds = np.empty(size, dtype=np.int32)
    sizes = np.zeros((size, 3))
    boxes = np.zeros((size, 6))
    hulls = {}
    for g, shape in enumerate(shapes):
        kinds[g], sizes[g], boxes[g], hull = _shape_row(shape)
        if hull is not None:
            hulls[g] = hull
    return kinds, sizes, boxes, hulls


def edit_model_rows(rows: tuple, shapes, steps: tuple) -> tuple:
    """:func:`model_rows` of ``shapes``, from the rows of the model they were edited from.

    ``steps`` are ``CollisionModel.derived_from``'s: ``("insert", k)``,
    ``("delete", keep mask)``, ``("replace", k)``, ``("pose", k)``, in
    order; ``shapes`` are the edited model's. Only inserted and replaced
    shapes are converted (the rows hold no pose).
    """
    kinds, sizes, boxes, hulls = rows
    pending = []
    for kind, where in steps:
        if kind == "insert":
            kinds = np.insert(kinds, where, 0)
            sizes = np.insert(sizes, where, 0.0, axis=0)
            boxes = np.insert(boxes, where, 0.0, axis=0)
            hulls = {g + (g >= where): h for g, h in hulls.items()}
            pending = [g + (g >= where) for g in pending] + [where]
        elif kind == "delete":
            index = np.cumsum(where) - 1
            kinds, sizes, boxes = kinds[where], sizes[where], boxes[where]
            hulls = {int(index[g]): h for g, h in hulls.items() if where[g]}
            pending = [int(index[g]) for g in pending if where[g]]
        elif kind == "replace":
            pending.append(where)
    if pending:
        kinds, sizes, boxes, hulls = kinds.copy(), sizes.copy(), boxes.copy(), dict(hulls)
        for g in set(pending):
            kinds[g], sizes[g], boxes[g], hull = _shape_row(shapes[g])
            hulls.pop(g, None)
            if hull is not None:
                hulls[g] = hull
    return kinds, sizes, boxes, hulls


def model_of_rows(rows: tuple, frame_slot: np.ndarray, X_FG: np.ndarray,
                  filtered_keys: np.ndarray):
    """A ``native.Model`` of :func:`model_rows` and the model's frames and filters."""
    kinds, sizes, boxes, hulls = rows
    return native.Model(kinds, np.ascontiguousarray(sizes), np.ascontiguousarray(boxes),
                        np.ascontiguousarray(frame_slot, dtype=np.int32),
                        np.ascontiguousarray(X_FG, dtype=np.float64).reshape(-1),
                        np.ascontiguousarray(filtered_keys, dtype=np.int64),
                        sorted(hulls.items(), key=lambda item: item[0]))


def build_records(cls: type, names: tuple[str, ...], columns: tuple[list, ...]) -> list:
    """``[cls(*row) for row in zip(*columns)]`` for a frozen result dataclass, in C.

    The objects get their fields without ``cls.__init__`` running (the query
    loops pass values they computed and checked); a tenth of the cost.
    """
    return native.build_records(cls, names, columns)
