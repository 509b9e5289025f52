"""The certificate, the ascent test and the direction search that replaces a failed answer.

The compiled dispatcher (csrc/dispatch.c) certifies every iterative answer:
``g(n) = -h_A(-n) - h_B(n)`` must reproduce the distance along the answer's
own normal, and no nearby direction may raise g (the ascent test). An answer
that fails is replaced by a brute-force direction search (csrc/search.c) and
counted. Every check here uses references that share no code with the
kernels: closed forms, the exact kernels' answers for exact pairs, and g
computed from ``reference_support``.
"""

from __future__ import annotations

import math
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_calls import ascent_gap, convex_pair, exact_pair, search_pair  # noqa: E402
from reference_support import support_value_W  # noqa: E402
from test_convex_reference import reference_signed_distance  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    Sphere,
)
from geometry_core.math.kernels import rotation_matrices_from_rpy  # noqa: E402
from geometry_core.proximity import narrowphase, specs  # noqa: E402
from geometry_core.proximity.narrowphase import PairSolver  # noqa: E402
from geometry_core.tolerances import PAIR_CERTIFICATE_TOLERANCE  # noqa: E402

DISTANCE_TOL = 1e-9
NORMAL_TOL = 1e-6

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

# A long thin ellipsoid beside a long flat hull (10 m across, 2 cm thick):
# the solver's normal is ~1e-4 rad off (its distance right to 2e-12 m), so
# g along it falls 2.4e-8 m short: the certificate rejects it and the
# search answers. Found by a random scan of scaled shapes.
THIN_ELLIPSOID = Ellipsoid(0.6869983188358971, 0.04594807900787277, 0.1858232066192608)
FLAT_HULL = Convex.from_points([
    [2.528986398876311, -0.5106182913007226, 0.16536789766831533],
    [-1.5133812227022778, -0.5827240233263662, -0.025816448161835738],
    [-2.278309478140616, -0.24818570509758778, -0.12203500123159397],
    [0.9361615306687493, -0.3772610987243424, -0.040616499205816614],
    [-0.3223748951036038, 0.014951363058816827, 0.07290787095501172],
    [2.5729260383889745, -0.05883265377470435, 0.04213328378891867],
    [-5.259268121687637, 0.6817602257103679, -0.04130043212132956]])
X_WE = np.array([
    [0.923108592124378, -0.07766465548595983, 0.37661482768791155, 0.074786482701519],
    [-0.38337175133510093, -0.1096079217615516, 0.9170671751651406, -0.3487784251403051],
    [-0.029943737649226143, -0.9909360750196555, -0.13095444933347472, -0.4414513919290971],
    [0.0, 0.0, 0.0, 1.0]])
X_WC = np.array([
    [0.020297982006692195, -0.9560667728706679, -0.29244540984450873, 0.32900994301113373],
    [-0.7211742476072754, -0.2165901673712688, 0.6580246226290971, 0.1340247591673015],
    [-0.6924562776916214, 0.197547526460729, -0.6938870789074484, -0.20852905597179605],
    [0.0, 0.0, 0.0, 1.0]])


def _X(p=(0.0, 0.0, 0.0), R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def _g(A, X_WA, B, X_WB, n) -> float:
    """g(n) from the reference support functions."""
    return float(-support_value_W(A, X_WA, -n)[0] - support_value_W(B, X_WB, n)[0])


def certificate_gap(A, X_WA, B, X_WB, w) -> float:
    """|g(n) - distance| along the answer's normal, by the reference."""
    return abs(_g(A, X_WA, B, X_WB, w.nhat_BA_W) - w.distance)


def _check_witness(A, X_WA, B, X_WB, w, label) -> None:
    n = w.nhat_BA_W
    assert abs(np.linalg.norm(n) - 1.0) < 1e-12, label
    np.testing.assert_allclose(w.p_WCa - w.p_WCb, w.distance * n, atol=1e-12, err_msg=label)
    # Each witness on its shape's supporting plane.
    assert abs(n @ w.p_WCa + support_value_W(A, X_WA, -n)[0]) < 1e-12, label
    assert abs(n @ w.p_WCb - support_value_W(B, X_WB, n)[0]) < 1e-12, label


def _shape(kind: str, rng, scale: float = 1.0):
    def u():
        return scale * rng.uniform(0.05, 0.3)

    if kind == "sphere":
        return Sphere(u())
    if kind == "box":
        return Box(2 * u(), 2 * u(), 2 * u())
    if kind == "cylinder":
        return Cylinder(u(), 2 * u())
    if kind == "capsule":
        return Capsule(u(), 2 * u())
    if kind == "ellipsoid":
        return Ellipsoid(u(), u(), u())
    return Convex.from_points(rng.normal(size=(int(rng.integers(6, 20)), 3)) * 0.15 * scale)


def _pose(rng, spread=0.3, R=None) -> np.ndarray:
    return _X(rng.uniform(-spread, spread, 3),
              Rotation.random(random_state=rng).as_matrix() if R is None else R)


# --- the search -------------------------------------------------------------------------


def test_search_finds_the_reference_distance():
    status, answer = search_pair(CYLINDER_A, X_WA, CYLINDER_B, X_WB)
    assert status == specs.OK
    assert answer.distance == pytest.approx(REFERENCE, abs=1e-9)
    assert certificate_gap(CYLINDER_A, X_WA, CYLINDER_B, X_WB, answer) < 1e-12
    _check_witness(CYLINDER_A, X_WA, CYLINDER_B, X_WB, answer, "cylinders")


def test_search_declines_half_spaces():
    box = Box(0.2, 0.2, 0.2)
    assert search_pair(HalfSpace(), np.eye(4), box, np.eye(4))[0] == specs.NOT_HANDLED
    assert search_pair(box, np.eye(4), HalfSpace(), np.eye(4))[0] == specs.NOT_HANDLED


def _slid(A, X_WA, B, X_WB, target: float) -> np.ndarray:
    """B moved along the pair's normal so that the distance is about ``target``."""
    w = convex_pair(A, X_WA, B, X_WB)
    X = X_WB.copy()
    X[:3, 3] += (w.distance - target) * w.nhat_BA_W
    return X


@pytest.mark.parametrize("kind", ["sphere", "box", "capsule"])
def test_search_matches_exact_answers(kind):
    rng = np.random.default_rng({"sphere": 1, "box": 2, "capsule": 3}[kind])
    for k in range(40):
        A, B = _shape(kind, rng), _shape(kind, rng)
        aligned = kind == "box" and k % 4 == 0  # faces parallel: peaks and ridges of g
        X_WA = _pose(rng)
        X_WB = _pose(rng, R=X_WA[:3, :3] if aligned else None)
        for target in (None, 0.02, -1e-4, -0.01):
            X = X_WB if target is None else _slid(A, X_WA, B, X_WB, target)
            if kind == "sphere":
                d = X_WA[:3, 3] - X[:3, 3]
                distance, normal = np.linalg.norm(d) - A.radius - B.radius, d / np.linalg.norm(d)
                unique = True
            else:
                exact = exact_pair(A, X_WA, B, X)
                distance, normal = exact.distance, exact.nhat_BA_W
                unique = exact.is_nhat_BA_W_unique
            # Apart, g > 0 has one local maximum on the sphere. Overlapping it
            # may have several of nearly equal depth (a box's face against an
            # edge-edge direction: SAT axes), and the search climbs the one
            # its best start lies in, which need not be the deepest.
            # Overlaps are therefore seeded with the answer's normal (the
            # search must keep it and reproduce the distance).
            seed = normal if distance < 0.0 else None
            status, c = search_pair(A, X_WA, B, X, seed)
            label = (kind, k, target)
            assert status == specs.OK, label
            assert abs(c.distance - distance) <= DISTANCE_TOL, (label, distance, c.distance)
            if unique:
                assert np.linalg.norm(c.nhat_BA_W - normal) <= NORMAL_TOL, label
            _check_witness(A, X_WA, B, X, c, label)


@pytest.mark.parametrize("seed", range(3))
def test_search_is_a_lower_bound_the_solver_meets(seed):
    rng = np.random.default_rng(seed)
    makers = [lambda s: Cylinder(s[0], s[1]), lambda s: Box(*s), lambda s: Capsule(s[0], s[1]),
              lambda s: Ellipsoid(*s)]
    for _ in range(6):
        shapes = [makers[k](rng.uniform(0.05, 0.2, 3)) for k in rng.integers(4, size=2)]
        X = np.tile(np.eye(4), (2, 1, 1))
        X[:, :3, :3] = rotation_matrices_from_rpy(rng.uniform(-3, 3, (2, 3)))
        X[1, :3, 3] = rng.uniform(-0.2, 0.2, 3)
        answer = PairSolver(tuple(shapes)).signed_distance(0, X[0], 1, X[1])
        status, searched = search_pair(shapes[0], X[0], shapes[1], X[1])
        assert status == specs.OK
        # The search converges from below; the solver is at least as good.
        assert searched.distance <= answer.distance + 1e-12
        assert answer.distance - searched.distance < 1e-6


# --- the ascent test -----------------------------------------------------------------


def _exact_cases(rng, count: int):
    """Random pairs the exact kernels answer, many at kinks of g."""
    partners = ["sphere", "box", "cylinder", "capsule", "ellipsoid", "convex"]
    for k in range(count):
        which = k % 4
        scale = 10.0 if k % 7 == 0 else 1.0  # and metre-sized shapes, metres apart
        if which == 0:  # box-box: faces, edges; every other one axis-aligned
            A, B = _shape("box", rng, scale), _shape("box", rng, scale)
        elif which == 1:  # capsule-capsule: side ridges, parallel axes
            A, B = _shape("capsule", rng, scale), _shape("capsule", rng, scale)
        else:  # sphere-X: box faces/edges, cylinder rims and caps, hull features
            A = _shape("sphere", rng, scale)
            B = _shape(partners[int(rng.integers(len(partners)))], rng, scale)
            if which == 3:
                A, B = B, A
        X_WA = _pose(rng, 0.3 * scale)
        X_WB = _pose(rng, 0.3 * scale, R=X_WA[:3, :3] if k % 2 == 0 else None)
        yield A, X_WA, B, X_WB


def test_ascent_gap_is_round_off_on_exact_answers():
    rng = np.random.default_rng(20)
    worst = -math.inf
    for k, (A, X_WA, B, X_WB) in enumerate(_exact_cases(rng, 1200)):
        w = exact_pair(A, X_WA, B, X_WB)
        assert w is not None
        gap = ascent_gap(A, X_WA, B, X_WB, w)
        assert gap <= PAIR_CERTIFICATE_TOLERANCE, (k, A, B, w, gap)
        worst = max(worst, gap)
    assert worst < 1e-12, worst


def test_ascent_gap_catches_wrong_normals():
    """A normal off by 1e-3..1.5 rad with distance g(n), ≥ 0.1 mm too deep: always caught."""
    rng = np.random.default_rng(21)
    caught = 0
    for k, (A, X_WA, B, X_WB) in enumerate(_exact_cases(rng, 400)):
        truth = exact_pair(A, X_WA, B, X_WB)
        n0 = truth.nhat_BA_W
        for angle in (1e-3, 1e-2, 0.1, 0.5, 1.5):
            r = rng.normal(size=3)
            r -= (r @ n0) * n0
            n = math.cos(angle) * n0 + math.sin(angle) * r / np.linalg.norm(r)
            distance = _g(A, X_WA, B, X_WB, n)
            if truth.distance - distance < 1e-4:
                continue
            # The certificate passes such an answer (distance = g(n)); the
            # ascent test does not.
            gap = specs.ascent_gap(A, X_WA, B, X_WB, distance, n)
            assert gap > PAIR_CERTIFICATE_TOLERANCE, (k, angle, truth.distance, distance, gap)
            caught += 1
    assert caught > 600


def test_ascent_gap_rejects_degenerate_normals():
    A, B = Box(0.2, 0.2, 0.2), Sphere(0.1)
    for n in (np.zeros(3), np.array([np.nan, 0.0, 1.0])):
        assert specs.ascent_gap(A, np.eye(4), B, _X([0.5, 0.0, 0.0]), 0.0, n) == math.inf


# --- through the dispatcher -------------------------------------------------------------

# A cylinder lying on a box face, 0.1 mm deep: the convex kernel's EPA used
# to stop on a coplanar cap triangulation with a certified but too deep
# answer (-11.5 mm) that only the ascent test caught.
CAP_X_WA = np.array([
    [0.712519965009166, 0.6999056534921587, -0.04947095787480556, 0.15881647831243584],
    [-0.40371671748878973, 0.3512835365906114, -0.8447559937286442, 0.01794673481638846],
    [-0.5738711627912779, 0.6218777638170596, 0.5328601461795391, 0.08300701064784091],
    [0.0, 0.0, 0.0, 1.0]])
CAP_X_WB = np.array([
    [0.712519965009166, 0.04947095787480571, 0.6999056534921587, 0.01890533817935331],
    [-0.40371671748878973, 0.8447559937286443, 0.35128353659061123, -0.05227484414807474],
    [-0.5738711627912779, -0.532860146179539, 0.6218777638170597, -0.04130635433918935],
    [0.0, 0.0, 0.0, 1.0]])


def test_cylinder_cap_on_box_is_not_too_deep():
    A, B = Cylinder(0.1, 0.4), Box(0.6, 0.5, 0.2)
    for kernel in ("convex", "auto"):
        status, w = specs.pair(A, CAP_X_WA, B, CAP_X_WB, kernel)
        assert status == specs.OK, kernel
        assert abs(w.distance - -1e-4) <= DISTANCE_TOL, (kernel, w.distance)
        assert ascent_gap(A, CAP_X_WA, B, CAP_X_WB, w) <= 1e-9
        # The box's face normal (B's z axis), from B into A.
        assert np.linalg.norm(w.nhat_BA_W - CAP_X_WB[:3, 2]) <= NORMAL_TOL
        np.testing.assert_allclose(w.p_WCa - w.p_WCb, w.distance * w.nhat_BA_W, atol=1e-12)


def test_dispatcher_answers_are_certified_and_ascent_free():
    """The dispatcher on random non-exact pairs: every answer passes both tests."""
    rng = np.random.default_rng(22)
    kinds = ("sphere", "box", "cylinder", "capsule", "ellipsoid", "convex")
    pairs = [(a, b) for i, a in enumerate(kinds) for b in kinds[i:]
             if "convex" in (a, b) or "cylinder" in (a, b) or "ellipsoid" in (a, b)]
    searched = 0
    for a, b in pairs:
        for _ in range(10):
            A, B = _shape(a, rng), _shape(b, rng)
            X_WA, X_WB = _pose(rng), _pose(rng)
            status, w = specs.pair(A, X_WA, B, X_WB, "auto")
            assert status in (specs.OK, specs.SEARCHED), (a, b, status)
            searched += status == specs.SEARCHED
            assert certificate_gap(A, X_WA, B, X_WB, w) <= PAIR_CERTIFICATE_TOLERANCE
            assert ascent_gap(A, X_WA, B, X_WB, w) <= PAIR_CERTIFICATE_TOLERANCE
    assert searched <= 0.1 * 10 * len(pairs)


def test_a_failed_certificate_is_replaced_by_the_search_and_counted():
    status, solver = specs.pair(THIN_ELLIPSOID, X_WE, FLAT_HULL, X_WC, "convex")
    assert status == specs.UNCERTIFIED
    assert certificate_gap(THIN_ELLIPSOID, X_WE, FLAT_HULL, X_WC, solver) > \
        PAIR_CERTIFICATE_TOLERANCE
    before = narrowphase.solver_fallbacks.value
    answer = PairSolver((THIN_ELLIPSOID, FLAT_HULL)).signed_distance(0, X_WE, 1, X_WC)
    assert narrowphase.solver_fallbacks.value == before + 1
    reference, n_ref = reference_signed_distance(THIN_ELLIPSOID, X_WE, FLAT_HULL, X_WC)
    assert answer.distance == pytest.approx(reference, abs=DISTANCE_TOL)
    assert certificate_gap(THIN_ELLIPSOID, X_WE, FLAT_HULL, X_WC, answer) < 1e-12
    _check_witness(THIN_ELLIPSOID, X_WE, FLAT_HULL, X_WC, answer, "thin pair")


def _fallback_scene() -> SceneGraph:
    """The thin pair in a scene graph, on two moving frames (poses as above, to the bit)."""
    sg = SceneGraph()
    source = sg.register_source("fallbacks")
    for name, shape, X in (("e", THIN_ELLIPSOID, X_WE), ("c", FLAT_HULL, X_WC)):
        frame = sg.register_frame(source, GeometryFrame(name))
        gid = sg.register_geometry(source, frame, GeometryInstance(RigidTransform(), shape, name))
        sg.assign_role(source, gid, ProximityProperties())
        sg.set_poses(source, {frame: RigidTransform(pose=X)})
    return sg


def test_fallbacks_are_counted_exactly_from_many_threads():
    """Queries on one snapshot from eight threads: no increment of the counter is lost."""
    copies, threads, rounds = 1, 8, 25
    query = _fallback_scene().query_object()
    before = narrowphase.solver_fallbacks.value
    errors = []

    def run():
        try:
            for _ in range(rounds):
                pairs = query.compute_signed_distance_pairwise_closest_points(1.0)
                assert len(pairs) == copies
        except Exception as err:  # reported below, in the main thread
            errors.append(err)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors, errors
    assert narrowphase.solver_fallbacks.value == before + copies * threads * rounds
