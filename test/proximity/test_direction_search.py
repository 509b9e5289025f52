"""The certificate catches a wrong iterative answer and the search replaces it."""

import numpy as np
import pytest

from geometry_core import Box, Capsule, Cylinder, Ellipsoid
from geometry_core.math.kernels import rotation_matrices_from_rpy
from geometry_core.proximity import narrowphase
from geometry_core.proximity.direction_search import certificate_gap, search_signed_distance
from geometry_core.proximity.narrowphase import PairSolver
from geometry_core.proximity.witness import PairWitness

# Two cylinders that overlap by 0.886 mm (independent reference:
# -0.000886479050745681 m) on which GJK/EPA once answered +6.4 mm.
CYLINDER_A = Cylinder(0.0923812190127267, 0.14012257479926316)
X_WA = np.array([
    [-0.6317640324114594, 0.4729275350827103, -0.6141772984340964, 0.10795488693904204],
    [0.6393446069375909, 0.7659181445558039, -0.0678812891746548, 0.20321282250034367],
    [0.43830660607733324, -0.43555590043160675, -0.7862432045290967, -0.10838846026207444],
    [0.0, 0.0, 0.0, 1.0]])
CYLINDER_B = Cylinder(0.05531310255993786, 0.18643755631011327)
X_WB = np.array([
    [0.9316566342474211, 0.1388239141373041, 0.3357734902078568, -0.005989899331912357],
    [-0.3593113041591563, 0.48925255621233016, 0.7946869339199851, 0.016676664777796613],
    [-0.05395648771198423, -0.8610225648049524, 0.5056963914548802, -0.13448196510962074],
    [0.0, 0.0, 0.0, 1.0]])
REFERENCE = -0.000886479050745681


def test_search_finds_the_reference_distance():
    answer = search_signed_distance(CYLINDER_A, X_WA, CYLINDER_B, X_WB)
    assert answer.distance == pytest.approx(REFERENCE, abs=1e-9)
    assert certificate_gap(CYLINDER_A, X_WA, CYLINDER_B, X_WB, answer) < 1e-12
    # Witnesses are support points: their gap along the normal is the distance.
    gap = answer.nhat_BA_W @ (answer.p_WCa - answer.p_WCb)
    assert gap == pytest.approx(answer.distance, abs=1e-12)


def test_certificate_rejects_an_inconsistent_answer():
    wrong = PairWitness(0.006356616499080911, np.zeros(3), np.zeros(3),
                        np.array([0.20066166, 0.93869435, -0.28033517]))
    assert certificate_gap(CYLINDER_A, X_WA, CYLINDER_B, X_WB, wrong) > 1e-3


def test_dispatcher_never_returns_an_uncertified_answer(monkeypatch):
    """Force the solver to answer wrongly: the dispatcher falls back and counts it."""
    from geometry_core.proximity import convex_solver

    def broken(shape_A, X_WA, shape_B, X_WB):
        return PairWitness(0.5, X_WA[:3, 3], X_WB[:3, 3], np.array([1.0, 0.0, 0.0]))

    monkeypatch.setattr(convex_solver, "signed_distance_convex", broken)
    before = narrowphase.solver_fallbacks
    answer = PairSolver((CYLINDER_A, CYLINDER_B)).signed_distance(0, X_WA, 1, X_WB)
    assert narrowphase.solver_fallbacks == before + 1
    assert answer.distance == pytest.approx(REFERENCE, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_search_agrees_with_the_solver_on_random_pairs(seed):
    rng = np.random.default_rng(seed)
    makers = [lambda s: Cylinder(s[0], s[1]), lambda s: Box(*s), lambda s: Capsule(s[0], s[1]),
              lambda s: Ellipsoid(*s)]
    solver = None
    for _ in range(6):
        shapes = [makers[k](rng.uniform(0.05, 0.2, 3)) for k in rng.integers(4, size=2)]
        X = np.tile(np.eye(4), (2, 1, 1))
        X[:, :3, :3] = rotation_matrices_from_rpy(rng.uniform(-3, 3, (2, 3)))
        X[1, :3, 3] = rng.uniform(-0.2, 0.2, 3)
        solver = PairSolver(tuple(shapes))
        answer = solver.signed_distance(0, X[0], 1, X[1])
        searched = search_signed_distance(shapes[0], X[0], shapes[1], X[1])
        # The search is a lower bound that converges from below; the solver is
        # at least as good.
        assert searched.distance <= answer.distance + 1e-12
        assert answer.distance - searched.distance < 1e-6
