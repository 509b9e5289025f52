"""Differential tests: the C convex solver (csrc/convex.c) against its Python twin.

The compiled ``gc_support_value_W``, ``gc_halfspace_pair`` and
``gc_convex_pair`` port support.py, convex_solver.py and the certificate of
direction_search.py line by line, so on every pair they must give the
Python's answer: the same certificate verdict (GC_OK where
``certificate_gap <= PAIR_CERTIFICATE_TOLERANCE``, GC_UNCERTIFIED where not),
the same distance to 1e-9 m (the solver's convergence; we see ~1e-15), the
same normal to 1e-6 in (1 - cos) and witnesses with
``p_WCa - p_WCb = distance * nhat_BA_W``.

One documented exception. EPA's start polytope is a convex hull of 26 support
points; where four or more of them are coplanar (a cylinder's cap rim) the
Python takes Qhull's triangulation of that polygon and the C its own. EPA on
cylinders is fragile there: a new support point on the cap plane can see a
far cap triangle by round-off, ``_add`` rejects the expansion and EPA returns
an unconverged face, which the certificate then catches. Which pairs hit
that depends on the triangulation, so on such overlapping cylinder pairs one
side may fail its certificate where the other passes. The tests allow it only
there and only rarely, and check that whichever side claims a certified
answer has the true distance (by ``search_signed_distance``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geometry_core.proximity import native
from geometry_core.proximity.convex_solver import (
    signed_distance_convex,
    signed_distance_halfspace,
)
from geometry_core.proximity.direction_search import certificate_gap, search_signed_distance
from geometry_core.proximity.point_distance import signed_distance_to_point
from geometry_core.proximity.support import support_value_W
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Sphere,
)
from geometry_core.tolerances import PAIR_CERTIFICATE_TOLERANCE

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason=f"compiled kernels unavailable: {native.REASON}")

KINDS = ("sphere", "box", "cylinder", "capsule", "ellipsoid", "convex")
PAIRS = [(a, b) for i, a in enumerate(KINDS) for b in KINDS[i:]]
OK = 0
UNCERTIFIED = 2

DISTANCE_TOL = 1e-9
NORMAL_TOL = 1e-6
WITNESS_TOL = 1e-9


def _X(p=(0.0, 0.0, 0.0), R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def _shape(kind: str, rng):
    def u():
        return rng.uniform(0.05, 0.3)

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
    return Convex.from_points(rng.normal(size=(int(rng.integers(6, 20)), 3)) * 0.15)


def _random_pose(rng, spread=0.3) -> np.ndarray:
    return _X(rng.uniform(-spread, spread, 3), Rotation.random(random_state=rng).as_matrix())


def _python(A, X_WA, B, X_WB):
    """The dispatcher's view of the Python solver: (answer, certified)."""
    w = signed_distance_convex(A, X_WA, B, X_WB)
    return w, certificate_gap(A, X_WA, B, X_WB, w) <= PAIR_CERTIFICATE_TOLERANCE


class Tally:
    """Collects the comparisons of one test; the documented exception is counted."""

    def __init__(self) -> None:
        self.pairs = 0
        self.fragile = []  # (A, X_WA, B, X_WB, native status, python certified)
        self.off_shape = 0  # native witness off its shape where the Python's is on it
        self.tied = 0  # a different normal of a tied optimum (both attain the distance)
        self.python_worse = 0  # the Python on a lower local maximum, the C on the truth

    def compare(self, A, X_WA, B, X_WB, label=""):
        self.pairs += 1
        w, certified = _python(A, X_WA, B, X_WB)
        status, nw = native.pair(A, X_WA, B, X_WB, "convex")
        assert status in (OK, UNCERTIFIED), (label, status)
        # The native answer is always self-consistent and unit.
        assert abs(np.linalg.norm(nw.nhat_BA_W) - 1.0) < 1e-12, label
        np.testing.assert_allclose(nw.p_WCa - nw.p_WCb, nw.distance * nw.nhat_BA_W,
                                   atol=WITNESS_TOL, err_msg=label)
        native_gap = certificate_gap(A, X_WA, B, X_WB, nw)
        assert (status == OK) == (native_gap <= PAIR_CERTIFICATE_TOLERANCE), (label, native_gap)
        if (status == OK) != certified:
            assert _cylinder_epa(A, B, w, nw), (
                label, status, certified, w.distance, nw.distance)
            self.fragile.append((A, X_WA, B, X_WB, status, certified))
            return w, nw
        if status == OK and nw.distance > w.distance + DISTANCE_TOL:
            # The signed distance is the maximum of g over normals, so a
            # certified larger value is the closer one: the Python's EPA
            # (another start hull) stopped on a lower local maximum. The truth
            # is then the direction search seeded with the better normal.
            truth = search_signed_distance(A, X_WA, B, X_WB, seed=nw.nhat_BA_W).distance
            assert abs(nw.distance - truth) <= DISTANCE_TOL, (label, w.distance, nw.distance, truth)
            self.python_worse += 1
            return w, nw
        assert abs(nw.distance - w.distance) <= DISTANCE_TOL, (label, w.distance, nw.distance)
        # Where the Python marks its normal as one choice among many (ties of
        # EPA faces, a flat overlap's sign), the choice may differ; the native
        # one is then checked by its own certificate above.
        # The C's EPA takes its own path (start hull built by insertion,
        # heap order), so where the optimum normal is not unique although the
        # Python's EPA face says so (a point core at a cylinder's centre: a
        # whole circle of normals), it may pick another optimal one. That is
        # accepted only when the Python's normal attains the same distance too
        # (a tie of g's maximum); the native one is certified above.
        if status == OK and w.is_nhat_BA_W_unique:
            if 1.0 - nw.nhat_BA_W @ w.nhat_BA_W > NORMAL_TOL:
                tied = nw._replace(nhat_BA_W=w.nhat_BA_W)
                assert certificate_gap(A, X_WA, B, X_WB, tied) <= PAIR_CERTIFICATE_TOLERANCE, (
                    label, w.nhat_BA_W, nw.nhat_BA_W)
                self.tied += 1
            if abs(w.distance) > 1e-12:  # the flag flips at CONVEX_CORE_TOUCH
                assert nw.is_nhat_BA_W_unique, label
        if status == OK:
            self._check_witnesses(A, X_WA, B, X_WB, w, nw, label)
        return w, nw

    def _check_witnesses(self, A, X_WA, B, X_WB, w, nw, label):
        """Witnesses on their supporting planes; on their shapes wherever the Python's are.

        On a face or line contact the witness is a free choice along the
        contact set, and the Python's EPA/snap construction can leave it on
        the supporting plane but off the shape; which pairs that hits depends
        on EPA's triangulation, so it is counted like the certificate cases.
        """
        n = nw.nhat_BA_W
        # To the certificate's tolerance: curved-kinked pairs converge to ~1e-9.
        assert abs(n @ nw.p_WCa + support_value_W(A, X_WA, -n)) < PAIR_CERTIFICATE_TOLERANCE, label
        assert abs(n @ nw.p_WCb - support_value_W(B, X_WB, n)) < PAIR_CERTIFICATE_TOLERANCE, label
        for shape, X, p_py, p_c in ((A, X_WA, w.p_WCa, nw.p_WCa), (B, X_WB, w.p_WCb, nw.p_WCb)):
            if abs(signed_distance_to_point(shape, X, p_py).distance) > WITNESS_TOL:
                continue
            if abs(signed_distance_to_point(shape, X, p_c).distance) > WITNESS_TOL:
                assert _epa_pair(A, B, w, nw), (label, p_py, p_c)
                self.off_shape += 1

    def check_fragile(self, max_fraction: float, max_off_shape: float | None = None) -> None:
        """Few exceptions, and the side that claims a certificate is right."""
        assert len(self.fragile) <= max_fraction * self.pairs, (len(self.fragile), self.pairs)
        off_limit = max_fraction if max_off_shape is None else max_off_shape
        assert self.off_shape <= off_limit * self.pairs, (self.off_shape, self.pairs)
        for A, X_WA, B, X_WB, status, _certified in self.fragile:
            truth = search_signed_distance(A, X_WA, B, X_WB).distance
            claimed = (native.pair(A, X_WA, B, X_WB, "convex")[1] if status == OK
                       else signed_distance_convex(A, X_WA, B, X_WB))
            # The search converges from below (a lower bound, to ~1e-6 at kinks).
            assert -1e-9 <= claimed.distance - truth < 1e-6, (claimed.distance, truth)


def _epa_pair(A, B, w, nw) -> bool:
    """Touching or overlapping: EPA (and its start triangulation) answered."""
    return min(w.distance, nw.distance) < 1e-9


def _cylinder_epa(A, B, w, nw) -> bool:
    return (isinstance(A, Cylinder) or isinstance(B, Cylinder)) and _epa_pair(A, B, w, nw)


def _moved(X_WB, offset) -> np.ndarray:
    X = X_WB.copy()
    X[:3, 3] += offset
    return X


# --- support values and the half space ------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_support_values_match_python(kind):
    rng = np.random.default_rng(list(KINDS).index(kind))
    for _ in range(20):
        shape = _shape(kind, rng)
        X = _random_pose(rng, 1.0)
        for d in rng.normal(size=(10, 3)):
            d /= np.linalg.norm(d)
            expected = support_value_W(shape, X, d)
            assert abs(native.support_value(shape, X, d) - expected) <= 1e-14, (kind, d)
    # Axis directions hit the documented tie choices (zero component counts as +).
    shape = _shape(kind, rng)
    for d in np.vstack([np.eye(3), -np.eye(3)]):
        assert abs(native.support_value(shape, np.eye(4), d)
                   - support_value_W(shape, np.eye(4), d)) <= 1e-14


def test_support_value_of_a_half_space_is_infinite():
    assert native.support_value(HalfSpace(), np.eye(4), np.array([0.0, 0.0, 1.0])) == np.inf


@pytest.mark.parametrize("kind", KINDS)
def test_half_space_pairs_match_python(kind):
    rng = np.random.default_rng(100 + list(KINDS).index(kind))
    for k in range(30):
        shape = _shape(kind, rng)
        X_WH = _random_pose(rng, 0.2)
        X_WB = _random_pose(rng, 0.4)
        if k % 5 == 0:  # axis-aligned: B's lowest point is a tie (face, cap, edge)
            X_WB[:3, :3] = X_WH[:3, :3]
        w = signed_distance_halfspace(X_WH, shape, X_WB)
        status, nw = native.pair(HalfSpace(), X_WH, shape, X_WB, "halfspace")
        assert status == OK
        assert abs(nw.distance - w.distance) <= 1e-14
        for name in ("p_WCa", "p_WCb", "nhat_BA_W"):
            np.testing.assert_allclose(getattr(nw, name), getattr(w, name), atol=1e-14)
        assert nw.is_nhat_BA_W_unique
        # The convex entry point hands half spaces over, either order.
        status, swapped = native.pair(shape, X_WB, HalfSpace(), X_WH, "convex")
        assert status == OK and abs(swapped.distance - w.distance) <= 1e-14
        np.testing.assert_allclose(swapped.nhat_BA_W, -w.nhat_BA_W, atol=1e-14)
        np.testing.assert_allclose(swapped.p_WCa, w.p_WCb, atol=1e-14)


def test_statuses_for_unsupported_inputs(tmp_path):
    obj = tmp_path / "tet.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    mesh, box = Mesh(str(obj)), Box(1, 1, 1)
    assert native.pair(mesh, np.eye(4), box, np.eye(4), "convex")[0] == 1  # NOT_HANDLED
    assert native.pair(box, np.eye(4), mesh, np.eye(4), "convex")[0] == 1
    assert native.pair(HalfSpace(), np.eye(4), HalfSpace(), np.eye(4), "convex")[0] == 3


# --- random pairs of every kind -------------------------------------------------------


@pytest.mark.parametrize("kinds", PAIRS, ids=lambda k: "-".join(k))
def test_random_pairs_match_python(kinds):
    """Separated, touching, and shallow and deep overlaps of every bounded pair."""
    rng = np.random.default_rng(PAIRS.index(kinds))
    tally = Tally()
    for seed in range(14):
        A, B = _shape(kinds[0], rng), _shape(kinds[1], rng)
        X_WA, X_WB = _random_pose(rng), _random_pose(rng)
        w, _ = tally.compare(A, X_WA, B, X_WB, f"{kinds} {seed} random")
        # Slide B along the answer's normal to touching, 0.1 mm and 2 cm deep.
        n, d = w.nhat_BA_W, w.distance
        for target in (0.0, -1e-4, 3e-4, -2e-2):
            if abs(d) > 1.0:
                continue
            tally.compare(A, X_WA, B, _moved(X_WB, (d - target) * n), f"{kinds} {seed} {target}")
    tally.check_fragile(0.1)


# --- degenerate configurations --------------------------------------------------------


def _rot(axis, angle) -> np.ndarray:
    return Rotation.from_rotvec(np.asarray(axis, dtype=float) * angle).as_matrix()


def test_coincident_centres():
    rng = np.random.default_rng(7)
    tally = Tally()
    for kinds in PAIRS:
        A, B = _shape(kinds[0], rng), _shape(kinds[1], rng)
        X = _random_pose(rng)
        tally.compare(A, X, B, X, f"{kinds} same pose")
        X_WB = X.copy()
        X_WB[:3, :3] = X[:3, :3] @ _rot([1.0, 0.0, 0.0], np.pi / 2)
        tally.compare(A, X, B, X_WB, f"{kinds} same centre, quarter turn")
    tally.check_fragile(0.1)


def test_flat_core_overlaps():
    """Cores whose Minkowski difference is flat: EPA declines, _flat_overlap answers."""
    tally = Tally()
    # Concentric spheres (a point), a sphere on a capsule's axis (a segment),
    # crossing capsules (a parallelogram), parallel overlapping capsules.
    cases = [
        (Sphere(0.2), _X(), Sphere(0.1), _X([0.0, 0.0, 0.05])),
        (Sphere(0.2), _X([0.01, 0.02, 0.0]), Sphere(0.1), _X()),
        (Capsule(0.1, 0.6), _X(), Sphere(0.1), _X([0.0, 0.0, 0.1])),
        (Capsule(0.1, 0.6), _X([0.02, 0.0, 0.0]), Capsule(0.05, 0.4),
         _X([0.0, 0.01, 0.0], _rot([1.0, 0.0, 0.0], np.pi / 2))),
        (Capsule(0.1, 0.6), _X([0.0, 0.05, 0.0]), Capsule(0.05, 0.4), _X()),
    ]
    for i, (A, X_WA, B, X_WB) in enumerate(cases):
        for seed in range(3):  # also in a rotated world frame
            R = Rotation.random(random_state=seed).as_matrix() if seed else np.eye(3)
            X_WF = _X([0.3, -0.2, 0.1], R)
            tally.compare(A, X_WF @ X_WA, B, X_WF @ X_WB, f"flat {i} {seed}")
    assert not tally.fragile
    # With coincident centres the flat normal's sign is LAPACK's choice in the
    # Python; only the distance and the normal's line are comparable.
    A, B = Capsule(0.1, 0.6), Capsule(0.05, 0.4)
    X_WB = _X(R=_rot([1.0, 0.0, 0.0], np.pi / 2))
    w = signed_distance_convex(A, np.eye(4), B, X_WB)
    status, nw = native.pair(A, np.eye(4), B, X_WB, "convex")
    assert status == OK and abs(nw.distance - w.distance) < 1e-12
    assert abs(abs(nw.nhat_BA_W @ w.nhat_BA_W) - 1.0) < 1e-12


# -1e-4 (cylinder cap 0.1 mm into a box face, seed 0, rotated frame) was an
# xfail while the C's EPA started from its own 26-point hull: it stopped early
# on a coplanar cap triangulation with a certified but too deep answer
# (-11.5 mm, truth -0.1 mm). The hull built by EPA's insertion finds the truth.
@pytest.mark.parametrize("gap", [0.05, 1e-6, 0.0, -1e-4, -0.03])
def test_parallel_axes_and_faces(gap):
    """Parallel sides, caps on faces, face to face: kinks, snapping, line-constrained Newton."""
    tally = Tally()
    cube = Convex.from_points(np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.1, 0.1)
                                        for z in (-0.1, 0.1)]))
    for seed in range(3):
        R = Rotation.random(random_state=10 + seed).as_matrix()
        X_WF = _X(np.random.default_rng(seed).normal(size=3) * 0.1, R)
        cases = [
            # parallel cylinders side by side
            (Cylinder(0.1, 0.4), _X(), Cylinder(0.15, 0.3), _X([0.25 + gap, 0.03, 0.02])),
            # coaxial cylinders end to end
            (Cylinder(0.1, 0.4), _X(), Cylinder(0.15, 0.3), _X([0.01, 0.0, 0.35 + gap])),
            # cylinder cap on a box face
            (Cylinder(0.1, 0.4), _X([0.02, 0.01, 0.3 + gap]), Box(0.6, 0.5, 0.2), _X()),
            # cylinder lying on a box face (side line on a face)
            (Cylinder(0.1, 0.4), _X([0.0, 0.0, 0.2 + gap], _rot([1.0, 0.0, 0.0], np.pi / 2)),
             Box(0.6, 0.5, 0.2), _X()),
            # capsule parallel to a box face
            (Capsule(0.05, 0.3), _X([0.03, 0.0, 0.15 + gap], _rot([0.0, 1.0, 0.0], np.pi / 2)),
             Box(0.6, 0.5, 0.2), _X()),
            # convex cube face to face with a box, and with itself
            (cube, _X([0.05, 0.02, 0.2 + gap]), Box(0.6, 0.5, 0.2), _X()),
            (cube, _X([0.03, 0.04, 0.2 + gap]), cube, _X()),
            # ellipsoid on a box face, capsule side on a cylinder side
            (Ellipsoid(0.1, 0.2, 0.05), _X([0.0, 0.0, 0.15 + gap]), Box(0.6, 0.5, 0.2), _X()),
            (Capsule(0.05, 0.3), _X([0.15 + gap, 0.0, 0.02]), Cylinder(0.1, 0.4), _X()),
        ]
        for i, (A, X_WA, B, X_WB) in enumerate(cases):
            tally.compare(A, X_WF @ X_WA, B, X_WF @ X_WB, f"case {i} gap {gap} seed {seed}")
    # Face and line contacts are where witnesses are a free choice: allow more.
    tally.check_fragile(0.1, max_off_shape=0.25)


def test_known_cylinder_failure_is_fixed():
    """test_direction_search's pair: the Python's EPA start hull misses the origin and stops.

    The Python answers +6.4 mm (truth -0.886 mm) and fails its certificate.
    The C used to reproduce that; its EPA now starts from GJK's terminating
    tetrahedron (which holds the origin) and finds the truth, certified.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_direction_search import CYLINDER_A, CYLINDER_B, REFERENCE, X_WA, X_WB

    w, certified = _python(CYLINDER_A, X_WA, CYLINDER_B, X_WB)
    status, nw = native.pair(CYLINDER_A, X_WA, CYLINDER_B, X_WB, "convex")
    assert not certified
    assert status == OK
    assert abs(nw.distance - REFERENCE) < 1e-9
    truth = search_signed_distance(CYLINDER_A, X_WA, CYLINDER_B, X_WB, seed=nw.nhat_BA_W)
    assert abs(nw.distance - truth.distance) < 1e-9
