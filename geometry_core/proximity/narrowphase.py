"""Narrowphase dispatch: which algorithm answers a given pair of shapes.

One table decides, for every pair kind, where its answer comes from:

==========================  ===============================================
pair                        algorithm
==========================  ===============================================
half space – any shape      exact, support function (``convex_solver``)
half space – half space     unsupported: ``ValueError``
mesh – any shape            FCL on the mesh's triangles (``fcl_adapter``)
sphere – any convex         exact, point distance (``exact_pairs``)
capsule – capsule           exact, segment–segment (``exact_pairs``)
box – box                   exact (``exact_pairs``)
other convex pairs          support-function solver converged to ~1e-9 m
                            (``convex_solver``), certified: an answer whose
                            distance the support functions do not reproduce
                            along its own normal, or whose normal g can
                            ascend from (``ascent_gap``), is replaced by a
                            direction search (``direction_search``; counted,
                            logged)
==========================  ===============================================

The penetration, signed-distance and collision queries all read the same
:class:`~geometry_core.proximity.witness.PairWitness`, so they cannot
disagree about a pair.
"""

from __future__ import annotations

import logging

import numpy as np

from geometry_core.proximity import convex_solver, exact_pairs
from geometry_core.proximity.direction_search import (
    ascent_gap,
    certificate_gap,
    search_signed_distance,
)
from geometry_core.proximity.witness import PairWitness
from geometry_core.shapes import HalfSpace, Mesh, Shape
from geometry_core.tolerances import PAIR_CERTIFICATE_TOLERANCE

__all__ = ["PairSolver", "solver_fallbacks"]

_log = logging.getLogger("geometry_core.proximity")

#: How many iterative answers failed their certificate and were replaced by
#: a direction search, since the process started (read by tests and tools).
solver_fallbacks = 0


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
        if isinstance(shape_A, HalfSpace) or isinstance(shape_B, HalfSpace):
            if isinstance(shape_A, HalfSpace) and isinstance(shape_B, HalfSpace):
                raise ValueError("the signed distance between two half spaces is undefined; "
                                 "filter the pair or anchor both (anchored pairs are skipped)")
            if isinstance(shape_A, HalfSpace):
                return convex_solver.signed_distance_halfspace(X_WA, shape_B, X_WB)
            return convex_solver.signed_distance_halfspace(X_WB, shape_A, X_WA).swapped()
        if isinstance(shape_A, Mesh) or isinstance(shape_B, Mesh):
            # fcl takes ~0.1 s to import and only meshes need it: import it
            # when the first mesh pair comes, not with the library.
            from geometry_core.proximity import fcl_adapter

            return fcl_adapter.fcl_signed_distance(self._fcl_geometry(i), X_WA,
                                                   self._fcl_geometry(j), X_WB)
        exact = exact_pairs.signed_distance_pair(shape_A, X_WA, shape_B, X_WB)
        if exact is not None:
            return exact
        answer = convex_solver.signed_distance_convex(shape_A, X_WA, shape_B, X_WB)
        # The certificate proves g(n) equals the answer; the ascent test that
        # n is a local maximum of g (an answer too deep passes the first alone).
        # As csrc/dispatch.c; `not <=` also sends a NaN gap to the search.
        gap = certificate_gap(shape_A, X_WA, shape_B, X_WB, answer)
        if gap <= PAIR_CERTIFICATE_TOLERANCE:
            gap = max(gap, ascent_gap(shape_A, X_WA, shape_B, X_WB, answer))
        if not gap <= PAIR_CERTIFICATE_TOLERANCE:
            count_fallback(shape_A, shape_B, gap)
            answer = search_signed_distance(shape_A, X_WA, shape_B, X_WB, answer.nhat_BA_W)
        return answer

    def _fcl_geometry(self, i: int):
        from geometry_core.proximity import fcl_adapter

        geometry = self._fcl.get(i)
        if geometry is None:
            geometry = self._fcl[i] = fcl_adapter.fcl_geometry(self._shapes[i])
        return geometry


def count_fallback(shape_A: Shape, shape_B: Shape, gap: float | None = None) -> None:
    """Count and log one solver answer replaced by the direction search."""
    global solver_fallbacks
    solver_fallbacks += 1
    by = "" if gap is None else f" by {gap:.3g} m"
    _log.warning("convex solver answer for %s-%s failed its certificate%s; "
                 "using a direction search instead (fallback #%d)",
                 shape_A.type_name, shape_B.type_name, by, solver_fallbacks)
