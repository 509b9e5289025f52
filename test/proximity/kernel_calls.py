"""The compiled kernels called one pair or one point at a time, for the tests.

Thin wrappers over :mod:`geometry_core.proximity.specs` with the
signatures the tests use: each returns the kernel's witness, or raises when
the kernel did not answer. They add no geometry: the references the tests
compare with (closed forms, ``reference_support``, Drake) live elsewhere.
"""

from __future__ import annotations

import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.narrowphase import kernel_pair
from geometry_core.proximity.witness import PairWitness, PointWitness
from geometry_core.shapes import HalfSpace, Shape


def exact_pair(shape_A: Shape, X_WA, shape_B: Shape, X_WB) -> PairWitness | None:
    """The exact-pair kernel (csrc/exact.c); None for a pair it does not handle."""
    status, witness = specs.pair(shape_A, np.asarray(X_WA, float), shape_B,
                                 np.asarray(X_WB, float), "exact")
    if status == specs.NOT_HANDLED:
        return None
    assert status == specs.OK, status
    return witness


def convex_pair(shape_A: Shape, X_WA, shape_B: Shape, X_WB) -> PairWitness:
    """What the queries answer for a pair: the compiled dispatcher (csrc/dispatch.c)."""
    return kernel_pair(shape_A, np.asarray(X_WA, float), shape_B, np.asarray(X_WB, float))


def solver_pair(shape_A: Shape, X_WA, shape_B: Shape, X_WB) -> tuple[int, PairWitness]:
    """``(status, witness)`` of the support-function solver and its certificate alone."""
    return specs.pair(shape_A, np.asarray(X_WA, float), shape_B, np.asarray(X_WB, float),
                      "convex")


def halfspace_pair(X_WH, shape_B: Shape, X_WB) -> PairWitness:
    """The half-space kernel, half space as A."""
    status, witness = specs.pair(HalfSpace(), np.asarray(X_WH, float), shape_B,
                                 np.asarray(X_WB, float), "halfspace")
    assert status == specs.OK, status
    return witness


def point(shape: Shape, X_WG, p_WQ) -> PointWitness:
    """The point kernel (csrc/point.c).

    Raises
    ------
    ValueError
        For a mesh, which has no inside.
    """
    status, witness = specs.point(shape, np.asarray(X_WG, float), np.asarray(p_WQ, float))
    if status == specs.NOT_HANDLED:
        raise ValueError(f"{shape.type_name} has no signed distance to a point")
    assert status == specs.OK, status
    return witness


def search_pair(shape_A: Shape, X_WA, shape_B: Shape, X_WB,
                seed=None) -> tuple[int, PairWitness]:
    """``(status, witness)`` of the direction search alone (csrc/search.c)."""
    return specs.pair(shape_A, np.asarray(X_WA, float), shape_B, np.asarray(X_WB, float),
                      "search", seed)


def ascent_gap(shape_A: Shape, X_WA, shape_B: Shape, X_WB, witness: PairWitness) -> float:
    """How far ``witness``'s normal is from a local maximum of g (the kernels' check)."""
    return specs.ascent_gap(shape_A, X_WA, shape_B, X_WB, witness.distance, witness.nhat_BA_W)
