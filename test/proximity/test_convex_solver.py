"""Accuracy evidence for the convex kernels (csrc/): exact formulas and a converged reference.

(a) Analytic cases with exact answers (parallel and coaxial cylinders,
    a cylinder lying on a box, an ellipsoid on a half space, a capsule over
    a box face, known penetrations).
(b) Random configurations of every iterative pair against the independent
    reference of test_convex_reference.py: distance within 1e-6 m (we see
    ~1e-11), normals within 1e-6 in (1 - cos), and witnesses that are the
    extreme points of each shape along the normal.
The differential tests against Drake and raw FCL live in
test_convex_solver_drake.py.

Run with ``-s`` to see the per-pair error table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_calls import convex_pair as signed_distance_convex  # noqa: E402
from kernel_calls import halfspace_pair as signed_distance_halfspace  # noqa: E402
from reference_support import support_value_W  # noqa: E402
from test_convex_reference import reference_signed_distance  # noqa: E402

from geometry_core.proximity.narrowphase import PairSolver  # noqa: E402
from geometry_core.shapes import (  # noqa: E402
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Sphere,
)

EXACT = 1e-12  # metres: analytic cases are answered to round-off


def _X(p=(0.0, 0.0, 0.0), R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def _rot_y(angle: float) -> np.ndarray:
    return Rotation.from_rotvec([0.0, angle, 0.0]).as_matrix()


def _check_witness(w, shape_A, X_WA, shape_B, X_WB, tol=1e-9):
    """Witnesses: p_Ca - p_Cb = d n, and each is its shape's extreme point along n."""
    n = w.nhat_BA_W
    assert abs(np.linalg.norm(n) - 1.0) < 1e-12
    np.testing.assert_allclose(w.p_WCa - w.p_WCb, w.distance * n, atol=tol)
    assert abs(n @ w.p_WCa + support_value_W(shape_A, X_WA, -n)[0]) < tol
    assert abs(n @ w.p_WCb - support_value_W(shape_B, X_WB, n)[0]) < tol


def _in_common_frame(X_WA, X_WB, seed):
    """The same pair moved by one random rigid motion: the answer must not change."""
    rng = np.random.default_rng(seed)
    X_WF = _X(rng.normal(size=3), Rotation.random(random_state=rng).as_matrix())
    return X_WF @ X_WA, X_WF @ X_WB, X_WF[:3, :3]


# --- (a) analytic cases ------------------------------------------------------------


@pytest.mark.parametrize("gap", [0.3, 1e-6, -0.05, -0.2])
@pytest.mark.parametrize("seed", [0, 1])
def test_parallel_cylinders_side_by_side(gap, seed):
    A, B = Cylinder(0.2, 1.0), Cylinder(0.3, 0.8)
    X_WA, X_WB, R = _in_common_frame(_X([0.5 + gap, 0.0, 0.05]), _X(), seed)
    w = signed_distance_convex(A, X_WA, B, X_WB)
    assert abs(w.distance - gap) < EXACT
    assert 1.0 - w.nhat_BA_W @ R[:, 0] < 1e-12
    _check_witness(w, A, X_WA, B, X_WB)


@pytest.mark.parametrize("gap", [0.25, 1e-7, -0.01, -0.04])
def test_cylinder_lying_on_a_box(gap):
    # Cylinder axis along Wx (rotated about y), resting on the box's top face.
    A, B = Cylinder(0.1, 0.6), Box(1.0, 1.0, 0.4)
    X_WA, X_WB, R = _in_common_frame(_X([0.05, -0.1, 0.2 + 0.1 + gap], _rot_y(np.pi / 2)), _X(),
                                     3)
    w = signed_distance_convex(A, X_WA, B, X_WB)
    assert abs(w.distance - gap) < EXACT
    assert 1.0 - w.nhat_BA_W @ R[:, 2] < 1e-12
    _check_witness(w, A, X_WA, B, X_WB)


def _last_bits_changed(X: np.ndarray, rng, count: int = 3) -> np.ndarray:
    """X with ``count`` entries of its top three rows moved by one ulp."""
    Y = X.copy()
    for _ in range(count):
        i, j = rng.integers(3), rng.integers(4)
        Y[i, j] = np.nextafter(Y[i, j], np.inf if rng.uniform() < 0.5 else -np.inf)
    return Y


@pytest.mark.parametrize("gap", [0.3, 1e-6, -0.05, -0.2])
def test_answers_do_not_depend_on_the_last_bit_of_the_poses(gap):
    """Parallel sides (a ridge of both support functions), one ulp of pose apart.

    A pose composed with another BLAS (reference BLAS rounds without fused
    multiply-adds, OpenBLAS's kernels with them, each CPU in its own order)
    differs in its last bits. Debian's numpy 1.24 with reference BLAS once
    made the pure-Python solver's EPA, started from a Qhull hull of 26
    support points computed through numpy, triangulate the coplanar cap rim
    differently and stop after one step at -0.0471 m for this -0.05 m pair.
    The compiled kernels take no numpy product on the way and start EPA from
    GJK's simplex; every perturbation must give the exact answer.
    """
    rng = np.random.default_rng(31)
    cases = [(Cylinder(0.2, 1.0), _X([0.5 + gap, 0.0, 0.05]), Cylinder(0.3, 0.8), _X(), 0),
             (Cylinder(0.1, 0.6), _X([0.05, -0.1, 0.3 + gap], _rot_y(np.pi / 2)),
              Box(1.0, 1.0, 0.4), _X(), 2)]
    for A, X_WA, B, X_WB, axis in cases:
        for seed in range(4):
            X_WA_moved, X_WB_moved, R = _in_common_frame(X_WA, X_WB, seed)
            for _ in range(20):
                a, b = _last_bits_changed(X_WA_moved, rng), _last_bits_changed(X_WB_moved, rng)
                w = signed_distance_convex(A, a, B, b)
                assert abs(w.distance - gap) < EXACT, (seed, w.distance)
                assert 1.0 - w.nhat_BA_W @ R[:, axis] < 1e-12


@pytest.mark.parametrize("height", [0.9, 0.2, -0.1])
def test_ellipsoid_on_a_half_space_is_exact(height):
    rng = np.random.default_rng(11)
    R_WE = Rotation.random(random_state=rng).as_matrix()
    E = Ellipsoid(0.1, 0.3, 0.5)
    X_WH = HalfSpace.make_pose([0, 0, 1], [0, 0, 0]).get_as_matrix4()
    X_WE = _X([0.3, -0.2, height], R_WE)
    # Lowest point: h_E(-z) = |D R_WEᵀ z|.
    exact = height - np.linalg.norm(E.semi_axes() * (R_WE.T @ [0, 0, 1]))
    w = signed_distance_halfspace(X_WH, E, X_WE)
    assert abs(w.distance - exact) < EXACT
    np.testing.assert_allclose(w.nhat_BA_W, [0, 0, -1], atol=1e-15)
    assert abs(w.p_WCa[2]) < EXACT and abs(w.p_WCb[2] - (height - abs(exact - height))) < EXACT
    # Through the generic entry point and with the half space second.
    w2 = signed_distance_convex(E, X_WE, HalfSpace(), X_WH)
    assert abs(w2.distance - exact) < EXACT
    np.testing.assert_allclose(w2.nhat_BA_W, [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(w2.p_WCa, w.p_WCb, atol=1e-15)


def test_half_space_with_every_shape_and_a_tilted_plane():
    rng = np.random.default_rng(5)
    X_WH = _X([0.1, 0.2, 0.3], Rotation.random(random_state=rng).as_matrix())
    n_W = X_WH[:3, 2]
    for shape in (Sphere(0.2), Box(0.1, 0.2, 0.3), Cylinder(0.1, 0.4), Capsule(0.1, 0.3),
                  Ellipsoid(0.1, 0.2, 0.3), Convex.from_points(rng.normal(size=(10, 3)))):
        X_WB = _X(rng.normal(size=3) * 0.3, Rotation.random(random_state=rng).as_matrix())
        w = signed_distance_halfspace(X_WH, shape, X_WB)
        exact = -support_value_W(shape, X_WB, -n_W)[0] - n_W @ X_WH[:3, 3]
        assert abs(w.distance - exact) < EXACT
        np.testing.assert_allclose(w.nhat_BA_W, -n_W, atol=1e-15)
        assert abs(n_W @ (w.p_WCa - X_WH[:3, 3])) < EXACT


def test_half_space_with_a_mesh_uses_its_lowest_vertex(tmp_path):
    import trimesh

    path = tmp_path / "torus.obj"
    trimesh.creation.torus(0.3, 0.1).export(path)
    mesh = Mesh(str(path))
    X_WB = _X([0, 0, 0.05], Rotation.from_rotvec([0.3, 0.2, 0.0]).as_matrix())
    w = PairSolver((HalfSpace(), mesh)).signed_distance(0, _X(), 1, X_WB)
    lowest = np.min((mesh.vertices() @ X_WB[:3, :3].T + X_WB[:3, 3])[:, 2])
    assert abs(w.distance - lowest) < EXACT


@pytest.mark.parametrize("angle", [0.0, 0.4, np.pi / 2])
@pytest.mark.parametrize("clearance", [0.2, -0.03])
def test_capsule_over_a_box_face(angle, clearance):
    A, B = Capsule(0.05, 0.3), Box(2.0, 2.0, 0.5)
    lowest_core = 0.15 * abs(np.cos(angle))
    X_WA, X_WB, R = _in_common_frame(
        _X([0.1, 0.2, 0.25 + 0.05 + lowest_core + clearance], _rot_y(angle)), _X(), 8)
    w = signed_distance_convex(A, X_WA, B, X_WB)
    assert abs(w.distance - clearance) < EXACT
    assert 1.0 - w.nhat_BA_W @ R[:, 2] < 1e-12
    _check_witness(w, A, X_WA, B, X_WB)


@pytest.mark.parametrize("gap", [0.1, -0.02])
def test_coaxial_cylinders_end_to_end(gap):
    A, B = Cylinder(0.3, 0.4), Cylinder(0.2, 0.6)
    X_WA, X_WB, R = _in_common_frame(_X([0, 0, 0.2 + 0.3 + gap]), _X(), 4)
    w = signed_distance_convex(A, X_WA, B, X_WB)
    assert abs(w.distance - gap) < EXACT
    assert 1.0 - w.nhat_BA_W @ R[:, 2] < 1e-12
    _check_witness(w, A, X_WA, B, X_WB)


def test_known_penetrations():
    # Box-box face overlap.
    w = signed_distance_convex(Box(1, 1, 1), _X([0.8, 0.1, 0]), Box(1, 1, 1), _X())
    assert abs(w.distance + 0.2) < EXACT
    np.testing.assert_allclose(w.nhat_BA_W, [1, 0, 0], atol=1e-15)
    # A sphere inside a box, nearest the +y face.
    w = signed_distance_convex(Sphere(0.1), _X([0.05, 0.4, 0]), Box(1, 1, 1), _X())
    assert abs(w.distance - (0.4 - 0.5 - 0.1)) < EXACT
    np.testing.assert_allclose(w.nhat_BA_W, [0, 1, 0], atol=1e-15)
    # Equal ellipsoids offset along their long axis: the shallowest direction
    # is oblique, with c = cos(angle) = sqrt(100/224) (see test_convex_reference).
    c = np.sqrt(100.0 / 224.0)
    w = signed_distance_convex(Ellipsoid(1, 2, 3), _X([0, 0, 5]), Ellipsoid(1, 2, 3), _X())
    assert abs(w.distance + (-5.0 * c + np.sqrt(4.0 + 32.0 * c * c))) < 1e-11
    assert abs(abs(w.nhat_BA_W[2]) - c) < 1e-9
    assert not w.is_nhat_BA_W_unique  # ±x give the same depth
    # Coincident cylinders: the shallower of radial (2r) and axial (L) exits.
    w = signed_distance_convex(Cylinder(0.2, 0.3), _X(), Cylinder(0.2, 0.3), _X())
    assert abs(w.distance + 0.3) < EXACT


def test_degenerate_core_overlaps():
    # Concentric spheres: depth r1 + r2, any direction, flagged not unique.
    w = signed_distance_convex(Sphere(0.3), _X([1, 2, 3]), Sphere(0.2), _X([1, 2, 3]))
    assert abs(w.distance + 0.5) < EXACT
    assert not w.is_nhat_BA_W_unique
    _check_witness(w, Sphere(0.3), _X([1, 2, 3]), Sphere(0.2), _X([1, 2, 3]))
    # Crossing capsule axes: depth r1 + r2 along the common perpendicular.
    A, B = Capsule(0.1, 1.0), Capsule(0.2, 1.0)
    X_WA = _X([0, 0, 0], Rotation.from_rotvec([np.pi / 2, 0, 0]).as_matrix())  # axis along y
    X_WB = _X([0, 0, 0], _rot_y(np.pi / 2))  # axis along x
    w = signed_distance_convex(A, X_WA, B, X_WB)
    assert abs(w.distance + 0.3) < EXACT
    assert abs(abs(w.nhat_BA_W[2]) - 1.0) < 1e-12


def test_convex_hull_of_a_cube_matches_the_box():
    cube = Convex.from_points([[x, y, z] for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)])
    rng = np.random.default_rng(2)
    for _ in range(10):
        X_WA = _X(rng.normal(size=3) * 0.8, Rotation.random(random_state=rng).as_matrix())
        hull = signed_distance_convex(cube, X_WA, Box(0.4, 0.6, 0.8), _X())
        box = signed_distance_convex(Box(1, 1, 1), X_WA, Box(0.4, 0.6, 0.8), _X())
        assert abs(hull.distance - box.distance) < EXACT


def test_swapping_arguments_swaps_the_answer():
    R_WA = Rotation.from_rotvec([0.3, 0.5, 0]).as_matrix()
    A, X_WA = Cylinder(0.2, 0.5), _X([0.3, 0.1, 0.2], R_WA)
    B, X_WB = Ellipsoid(0.1, 0.2, 0.3), _X()
    ab = signed_distance_convex(A, X_WA, B, X_WB)
    ba = signed_distance_convex(B, X_WB, A, X_WA)
    assert abs(ab.distance - ba.distance) < 1e-12
    np.testing.assert_allclose(ab.nhat_BA_W, -ba.nhat_BA_W, atol=1e-9)


def test_errors_name_the_culprit(tmp_path):
    import trimesh

    path = tmp_path / "box.obj"
    trimesh.creation.box().export(path)
    with pytest.raises(ValueError, match="mesh pairs go through FCL"):
        signed_distance_convex(Sphere(1), _X(), Mesh(str(path)), _X())
    with pytest.raises(ValueError, match="between two half spaces is undefined"):
        signed_distance_convex(HalfSpace(), _X(), HalfSpace(), _X())
    with pytest.raises(ValueError, match="X_WB must hold 16 values"):
        signed_distance_convex(Sphere(1), _X(), Sphere(1), np.eye(3))


# --- (b) random configurations against the converged reference -------------------


def _random_shape(kind: str, rng) -> object:
    def u():
        return rng.uniform(0.05, 0.3)

    return {
        "sphere": lambda: Sphere(u()),
        "box": lambda: Box(2 * u(), 2 * u(), 2 * u()),
        "cylinder": lambda: Cylinder(u(), 2 * u()),
        "capsule": lambda: Capsule(u(), 2 * u()),
        "ellipsoid": lambda: Ellipsoid(u(), u(), u()),
        "convex": lambda: Convex.from_points(rng.normal(size=(12, 3)) * 0.2),
    }[kind]()


def random_scene(kind_A: str, kind_B: str, seed: int):
    """A random pair; centres within 0.3 m so about half the pairs overlap."""
    rng = np.random.default_rng(seed)
    A, B = _random_shape(kind_A, rng), _random_shape(kind_B, rng)
    X_WA = _X(rng.uniform(-0.3, 0.3, 3), Rotation.random(random_state=rng).as_matrix())
    X_WB = _X(rng.uniform(-0.3, 0.3, 3), Rotation.random(random_state=rng).as_matrix())
    return A, X_WA, B, X_WB


ITERATIVE_PAIRS = [
    ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "capsule"),
    ("ellipsoid", "ellipsoid"), ("ellipsoid", "box"), ("ellipsoid", "cylinder"),
    ("ellipsoid", "capsule"), ("ellipsoid", "sphere"), ("capsule", "box"),
    ("convex", "cylinder"), ("convex", "ellipsoid"), ("convex", "convex"), ("convex", "box"),
]

CASES_PER_PAIR = 8


@pytest.mark.parametrize("kinds", ITERATIVE_PAIRS, ids=lambda k: "-".join(k))
def test_random_pairs_against_converged_reference(kinds):
    worst_distance = worst_normal = 0.0
    overlapping = 0
    for seed in range(CASES_PER_PAIR):
        A, X_WA, B, X_WB = random_scene(*kinds, seed)
        w = signed_distance_convex(A, X_WA, B, X_WB)
        ref_distance, ref_n = reference_signed_distance(A, X_WA, B, X_WB)
        error = abs(w.distance - ref_distance)
        assert error < 1e-6, (kinds, seed, w.distance, ref_distance)
        worst_distance = max(worst_distance, error)
        if w.is_nhat_BA_W_unique:
            normal_error = 1.0 - w.nhat_BA_W @ ref_n
            assert normal_error < 1e-6, (kinds, seed, w.nhat_BA_W, ref_n)
            worst_normal = max(worst_normal, normal_error)
        _check_witness(w, A, X_WA, B, X_WB)
        overlapping += w.distance < 0
    print(f"\n{'-'.join(kinds):22s} max |d - ref| = {worst_distance:.1e} m, "
          f"max (1 - cos) = {worst_normal:.1e}, {overlapping}/{CASES_PER_PAIR} overlapping")
