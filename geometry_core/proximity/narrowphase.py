"""Narrowphase dispatch: which algorithm answers a given pair of shapes.

One table decides, for every pair kind, where its answer comes from:

==========================  ===============================================
pair                        algorithm
==========================  ===============================================
half space – any shape      exact, support function (``csrc/convex_*.c``;
                            a mesh by its lowest vertex)
half space – half space     unsupported: ``ValueError``
mesh – any shape            FCL finds the triangles, the compiled kernels
                            answer each (``fcl_adapter``)
sphere – any convex         exact, point distance (``csrc/exact.c``)
capsule – capsule           exact, segment–segment (``csrc/exact.c``)
box – box                   exact (``csrc/exact.c``; edges a hair from
                            parallel: ``csrc/polytope.c``, counted)
other convex pairs          support-function solver converged to ~1e-9 m
                            (``csrc/convex_*.c``), certified: an answer whose
                            distance the support functions do not reproduce
                            along its own normal, or whose normal g can
                            ascend from, is replaced by the exact polytope
                            path for two boxes or hulls (``csrc/polytope.c``;
                            counted) or else by a direction search
                            (``csrc/search.c``; counted, logged)
==========================  ===============================================

Everything but the mesh row runs in the compiled kernels (``csrc/dispatch.c``
holds the table); this module adds FCL for meshes and the fallback counter.
The penetration, signed-distance and collision queries all read the same
:class:`~geometry_core.proximity.witness.PairWitness`, so they cannot
disagree about a pair.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import HalfSpace, Mesh, Shape

__all__ = ["PairSolver", "FallbackCounter", "solver_fallbacks", "PolytopeRescues",
           "polytope_rescues", "kernel_pair"]

_log = logging.getLogger("geometry_core.proximity")

HALFSPACES_UNDEFINED = ("the signed distance between two half spaces is undefined; "
                        "filter the pair or anchor both (anchored pairs are skipped)")


class FallbackCounter:
    """How many solver answers failed their certificate and were replaced by a search.

    Queries on one snapshot may run in several threads at once (snapshots
    are thread-safe), so the count is kept under a lock: no increment is
    lost. Read ``value``; tests and tools compare it before and after.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    @property
    def value(self) -> int:
        """The number of replaced answers counted so far."""
        return self._value

    def count(self, shape_A: Shape, shape_B: Shape) -> None:
        """Count and log one solver answer replaced by the direction search."""
        with self._lock:
            self._value += 1
            number = self._value
        _log.warning("convex solver answer for %s-%s failed its certificate; "
                     "using a direction search instead (fallback #%d)",
                     shape_A.type_name, shape_B.type_name, number)


#: Solver answers replaced by a direction search since the process started.
solver_fallbacks = FallbackCounter()


class PolytopeRescues:
    """How many pairs the exact polytope path answered in place of an untrusted first answer.

    The count lives in the compiled kernels (atomic, every query path
    included); read ``value`` before and after, like ``solver_fallbacks``.
    """

    @property
    def value(self) -> int:
        """The number of rescued answers counted so far."""
        return specs.polytope_rescues()


#: Box and hull pairs the exact polytope path answered since the process started.
polytope_rescues = PolytopeRescues()


def kernel_pair(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                X_WB: np.ndarray) -> PairWitness:
    """Return the compiled dispatcher's answer for two shapes that are not meshes.

    Raises
    ------
    ValueError
        For a pair of half spaces, whose distance is undefined, or a mesh.
    RuntimeError
        If the kernels could not certify an answer (a bug: the direction
        search answers every bounded pair).
    """
    status, witness = specs.pair(shape_A, X_WA, shape_B, X_WB)
    if status == specs.SEARCHED:
        solver_fallbacks.count(shape_A, shape_B)
    elif status == specs.ERROR_HALFSPACES:
        raise ValueError(HALFSPACES_UNDEFINED)
    elif status == specs.NOT_HANDLED:
        raise ValueError(f"{shape_A.type_name}-{shape_B.type_name}: mesh pairs go through FCL "
                         "(PairSolver.signed_distance), not the compiled kernels alone")
    elif status != specs.OK:
        raise RuntimeError(f"the compiled kernels answered {shape_A.type_name}-"
                           f"{shape_B.type_name} with status {status}")
    return witness


def _halfspace_mesh(X_WH: np.ndarray, mesh: Mesh, X_WM: np.ndarray) -> PairWitness:
    """Half space H (A) and a mesh: exact, from the mesh's lowest vertex."""
    _, witness = specs.pair_of_specs((specs.HALFSPACE, (0.0, 0.0, 0.0), None), X_WH,
                                     specs.vertices_spec(mesh.vertices()), X_WM, "halfspace")
    return witness


class PairSolver:
    """Answers pairs of one collision model; caches FCL geometry per geometry index."""

    def __init__(self, shapes: tuple[Shape, ...]) -> None:
        self._shapes = shapes
        self._fcl: dict[int, object] = {}

    def signed_distance(self, i: int, X_WA: np.ndarray, j: int, X_WB: np.ndarray) -> PairWitness:
        """Return the signed distance of geometries ``i`` (as A) and ``j`` (as B).

        Raises
        ------
        ValueError
            For a pair of half spaces, whose distance is undefined.
        """
        shape_A, shape_B = self._shapes[i], self._shapes[j]
        if isinstance(shape_A, HalfSpace) and isinstance(shape_B, HalfSpace):
            raise ValueError(HALFSPACES_UNDEFINED)
        if isinstance(shape_A, HalfSpace) and isinstance(shape_B, Mesh):
            return _halfspace_mesh(X_WA, shape_B, X_WB)
        if isinstance(shape_A, Mesh) and isinstance(shape_B, HalfSpace):
            return _halfspace_mesh(X_WB, shape_A, X_WA).swapped()
        if isinstance(shape_A, Mesh) or isinstance(shape_B, Mesh):
            # fcl takes ~0.1 s to import and only meshes need it: import it
            # when the first mesh pair comes, not with the library.
            from geometry_core.proximity import fcl_adapter

            return fcl_adapter.fcl_signed_distance(self._fcl_geometry(i), X_WA,
                                                   self._fcl_geometry(j), X_WB)
        return kernel_pair(shape_A, X_WA, shape_B, X_WB)

    def _fcl_geometry(self, i: int):
        from geometry_core.proximity import fcl_adapter

        geometry = self._fcl.get(i)
        if geometry is None:
            geometry = self._fcl[i] = fcl_adapter.fcl_geometry(self._shapes[i])
        return geometry
