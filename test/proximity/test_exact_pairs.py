"""Unit and property tests of the exact pair kernels (no Drake needed).

Hand-computed configurations per pair, an independent optimiser as reference
for capsule-capsule and box-box, and hypothesis properties: symmetry under
swapping A and B, invariance under a common rigid motion, witnesses on the
surfaces, and ``p_WCa - p_WCb == distance * nhat_BA_W``.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

from geometry_core import (
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    RotationMatrix,
    SceneGraph,
)
from geometry_core.proximity.narrowphase import polytope_rescues
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Sphere,
)

sys.path.insert(0, os.path.dirname(__file__))
from kernel_calls import exact_pair as signed_distance_pair  # noqa: E402
from kernel_calls import point as signed_distance_to_point  # noqa: E402
from polytope_reference import polytope_signed_distance  # noqa: E402
from shape_strategies import (  # noqa: E402
    make_pose,
    points_within,
    rotations,
    shapes,
    sizes,
)

I4 = np.eye(4)


def translation(*p_WGo) -> np.ndarray:
    return make_pose(np.eye(3), p_WGo)


def assert_pair(witness, distance, p_WCa, p_WCb, nhat_BA_W, unique=True, atol=1e-14):
    assert witness.distance == pytest.approx(distance, abs=atol)
    np.testing.assert_allclose(witness.p_WCa, p_WCa, atol=atol)
    np.testing.assert_allclose(witness.p_WCb, p_WCb, atol=atol)
    np.testing.assert_allclose(witness.nhat_BA_W, nhat_BA_W, atol=atol)
    assert witness.is_nhat_BA_W_unique is unique


# --- sphere pairs --------------------------------------------------------------


def test_sphere_sphere_apart_overlapping_and_concentric():
    A, B = Sphere(1.0), Sphere(0.5)
    assert_pair(signed_distance_pair(A, translation(3, 0, 0), B, I4),
                1.5, [2, 0, 0], [0.5, 0, 0], [1, 0, 0])
    # Overlap: Ca is A's point deepest in B, Cb is B's point deepest in A.
    assert_pair(signed_distance_pair(A, translation(0, 1.25, 0), B, I4),
                -0.25, [0, 0.25, 0], [0, 0.5, 0], [0, 1, 0])
    # Concentric: Drake uses B's x axis in W.
    X_WB = make_pose(Rotation.from_euler("z", 90, degrees=True).as_matrix(), [1, 1, 1])
    witness = signed_distance_pair(A, translation(1, 1, 1), B, X_WB)
    assert_pair(witness, -1.5, [1, 0, 1], [1, 1.5, 1], [0, 1, 0], unique=False)


def test_sphere_box_face_edge_corner_inside():
    sphere, box = Sphere(0.5), Box(2.0, 2.0, 2.0)
    assert_pair(signed_distance_pair(sphere, translation(0.2, 0.1, 3), box, I4),
                1.5, [0.2, 0.1, 2.5], [0.2, 0.1, 1], [0, 0, 1])
    s2 = 1 / math.sqrt(2)
    assert_pair(signed_distance_pair(sphere, translation(2, 0.3, 2), box, I4),
                math.sqrt(2) - 0.5, [2 - 0.5 * s2, 0.3, 2 - 0.5 * s2], [1, 0.3, 1], [s2, 0, s2])
    s3 = 1 / math.sqrt(3)
    assert_pair(signed_distance_pair(sphere, translation(-2, -2, -2), box, I4),
                math.sqrt(3) - 0.5, np.full(3, -2 + 0.5 * s3), [-1, -1, -1], np.full(3, -s3))
    # Centre inside, nearest face +y.
    assert_pair(signed_distance_pair(sphere, translation(0, 0.8, 0), box, I4),
                -0.7, [0, 0.3, 0], [0, 1, 0], [0, 1, 0])


def test_box_sphere_is_sphere_box_swapped():
    sphere, box = Sphere(0.5), Box(2.0, 2.0, 2.0)
    forward = signed_distance_pair(sphere, translation(0, 0.8, 0), box, I4)
    backward = signed_distance_pair(box, I4, sphere, translation(0, 0.8, 0))
    assert_pair(backward, forward.distance, forward.p_WCb, forward.p_WCa, -forward.nhat_BA_W)


def test_sphere_halfspace_cylinder_capsule_ellipsoid_convex():
    sphere = Sphere(0.25)
    assert_pair(signed_distance_pair(sphere, translation(1, 2, 0.1), HalfSpace(), I4),
                -0.15, [1, 2, -0.15], [1, 2, 0], [0, 0, 1])
    assert_pair(signed_distance_pair(sphere, translation(0, 2, 0), Cylinder(1.0, 2.0), I4),
                0.75, [0, 1.75, 0], [0, 1, 0], [0, 1, 0])
    assert_pair(signed_distance_pair(sphere, translation(0, 0, 3), Capsule(0.5, 2.0), I4),
                1.25, [0, 0, 2.75], [0, 0, 1.5], [0, 0, 1])
    assert_pair(signed_distance_pair(sphere, translation(0, 0, 1), Ellipsoid(0.3, 0.2, 0.5), I4),
                0.25, [0, 0, 0.75], [0, 0, 0.5], [0, 0, 1])
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    assert_pair(signed_distance_pair(sphere, translation(0.1, 0, 2), Convex.from_points(corners),
                                     I4),
                0.75, [0.1, 0, 1.75], [0.1, 0, 1], [0, 0, 1])


# --- capsule pairs ---------------------------------------------------------------


def test_capsules_parallel_side_by_side():
    A, B = Capsule(0.1, 2.0), Capsule(0.2, 1.0)
    # Parallel, overlapping in z over [0, 0.5] + B shifted: witness at the middle.
    witness = signed_distance_pair(A, translation(1, 0, 0), B, translation(0, 0, 1.0))
    # A's spine z in [-1, 1]; B's spine z in [0.5, 1.5]: overlap [0.5, 1], middle 0.75.
    assert_pair(witness, 0.7, [0.9, 0, 0.75], [0.2, 0, 0.75], [1, 0, 0])
    # Same with A and B exchanged gives the same pair.
    swapped = signed_distance_pair(B, translation(0, 0, 1.0), A, translation(1, 0, 0))
    assert_pair(swapped.swapped(), 0.7, [0.9, 0, 0.75], [0.2, 0, 0.75], [1, 0, 0])


def test_capsules_collinear_end_to_end():
    A, B = Capsule(0.1, 2.0), Capsule(0.1, 2.0)
    assert_pair(signed_distance_pair(A, translation(0, 0, 2.5), B, I4),
                0.3, [0, 0, 1.4], [0, 0, 1.1], [0, 0, 1])


def test_capsules_crossing():
    A, B = Capsule(0.1, 2.0), Capsule(0.2, 2.0)
    R_x = Rotation.from_euler("y", 90, degrees=True).as_matrix()  # B along x
    apart = signed_distance_pair(A, translation(0, 0.5, 0), B, make_pose(R_x, [0, 0, 0]))
    assert_pair(apart, 0.2, [0, 0.4, 0], [0, 0.2, 0], [0, 1, 0], atol=1e-14)
    # Spines intersect: depth rA + rB along the common normal (sign toward A).
    crossing = signed_distance_pair(A, translation(0, 1e-3, 0.3), B,
                                    make_pose(R_x, [0, 1e-3, 0.3]))
    assert crossing.distance == pytest.approx(-0.3, abs=1e-14)
    assert abs(crossing.nhat_BA_W[1]) == pytest.approx(1.0)
    assert not crossing.is_nhat_BA_W_unique
    np.testing.assert_allclose(crossing.p_WCa - crossing.p_WCb,
                               crossing.distance * crossing.nhat_BA_W, atol=1e-15)


def test_capsules_coincident_spines_give_a_unit_normal():
    witness = signed_distance_pair(Capsule(0.1, 1.0), I4, Capsule(0.1, 1.0), I4)
    assert witness.distance == pytest.approx(-0.2)
    assert np.linalg.norm(witness.nhat_BA_W) == pytest.approx(1.0)
    assert abs(witness.nhat_BA_W[2]) < 1e-15
    assert not witness.is_nhat_BA_W_unique


def test_capsules_nearly_parallel_and_crossing_agree_in_both_orders():
    # Spines 2e-7 rad apart crossing at their centres: Ericson's a e - b²
    # cancels here; the answer must be -(rA + rB) either way round.
    angle = 2e-7
    R_WB = Rotation.from_euler("x", math.pi - angle).as_matrix()
    A, B = Capsule(0.5, 0.5), Capsule(0.5, 0.25)
    X_WA, X_WB = translation(0, 0.25, 0), make_pose(R_WB, [0, 0.25, 0])
    forward = signed_distance_pair(A, X_WA, B, X_WB)
    backward = signed_distance_pair(B, X_WB, A, X_WA)
    assert forward.distance == pytest.approx(-1.0, abs=1e-15)
    assert backward.distance == pytest.approx(-1.0, abs=1e-15)


def _segment_reference(p1, d1, p2, d2):
    def gap2(st_):
        return float(np.sum((p1 + st_[0] * d1 - p2 - st_[1] * d2) ** 2))
    # A convex quadratic on a square: one local solve finds the global minimum.
    best = minimize(gap2, [0.5, 0.5], bounds=[(0, 1), (0, 1)], method="L-BFGS-B",
                    options={"ftol": 1e-16, "gtol": 1e-14})
    return math.sqrt(max(best.fun, 0.0))


def _capsule_on_segment(radius: float, p: np.ndarray, d: np.ndarray):
    """A capsule whose spine is the segment p + t d, t in [0, 1], and its pose."""
    length = float(np.linalg.norm(d))
    z = d / length
    x = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    return Capsule(radius, length), make_pose(np.c_[x, np.cross(z, x), z], p + 0.5 * d)


def _segment_cases():
    rng = np.random.default_rng(2)
    for _ in range(150):
        p1, d1, p2, d2 = rng.uniform(-1, 1, (4, 3))
        if rng.uniform() < 0.2:
            d2 = d1 * rng.uniform(-2, 2)  # parallel
        yield p1, d1, p2, d2
    d = np.array([1.0, 0.0, 0.0])
    yield np.zeros(3), d, np.array([0.5, 0.3, 0.0]), d  # parallel, overlapping
    yield np.zeros(3), d, np.array([2.0, 0.3, 0.0]), d  # parallel, disjoint ahead
    yield np.zeros(3), d, np.array([-3.0, 0.3, 0.0]), d  # parallel, disjoint behind
    yield np.zeros(3), d, np.array([0.5, 1e-3, 0.0]), d  # nearly collinear
    yield np.zeros(3), d, np.array([1.5, 0.2, 0.0]), -d  # antiparallel
    yield np.zeros(3), d, np.array([0.2, 0.1, 0.0]), np.array([1.0, 1e-7, 0.0])  # near
    yield np.zeros(3), d, np.array([0.2, 0.1, 0.0]), np.array([1.0, 1e-13, 0.0])
    yield np.zeros(3), d, np.array([0.5, -0.5, 0.0]), np.array([0.0, 1.0, 0.0])  # crossing
    yield np.zeros(3), d, np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])  # touching
    yield np.zeros(3), d, np.array([0.3, 0.2, 0.1]), np.array([1e-6, 0.0, 1e-6])  # short


def test_capsule_pairs_against_segment_optimiser():
    # Capsule-capsule is the spines' segment distance less both radii: the
    # kernel's segment-segment branches (parallel, crossing, ends, short)
    # against a bounded optimiser that shares nothing with it.
    for p1, d1, p2, d2 in _segment_cases():
        A, X_WA = _capsule_on_segment(0.01, p1, d1)
        B, X_WB = _capsule_on_segment(0.02, p2, d2)
        witness = signed_distance_pair(A, X_WA, B, X_WB)
        assert witness.distance == pytest.approx(_segment_reference(p1, d1, p2, d2) - 0.03,
                                                 abs=1e-7)
        np.testing.assert_allclose(witness.p_WCa - witness.p_WCb,
                                   witness.distance * witness.nhat_BA_W, atol=1e-14)
        assert abs(np.linalg.norm(witness.nhat_BA_W) - 1.0) < 1e-14


# --- box-box -----------------------------------------------------------------------


def test_boxes_face_to_face_apart_and_overlapping():
    A, B = Box(1.0, 1.0, 1.0), Box(2.0, 2.0, 2.0)
    apart = signed_distance_pair(A, translation(0, 0, 2), B, I4)
    # Parallel faces apart: any pair across the shared patch is closest.
    assert apart.distance == pytest.approx(0.5, abs=1e-14)
    np.testing.assert_allclose(apart.nhat_BA_W, [0, 0, 1], atol=1e-14)
    assert apart.p_WCa[2] == pytest.approx(1.5) and np.all(np.abs(apart.p_WCa[:2]) <= 0.5)
    np.testing.assert_allclose(apart.p_WCa - apart.p_WCb, [0, 0, 0.5], atol=1e-14)
    # Overlap 0.25 across a face; the witness sits mid-patch, A's face in B.
    overlap = signed_distance_pair(A, translation(0.1, 0, 1.25), B, I4)
    assert_pair(overlap, -0.25, [0.1, 0, 0.75], [0.1, 0, 1.0], [0, 0, 1], atol=1e-14)


def test_boxes_vertex_into_face_and_edge_to_edge():
    A, B = Box.make_cube(1.0), Box(4.0, 4.0, 1.0)
    # A stands on a corner: rotate so its diagonal is along z.
    R_WA = Rotation.align_vectors([[0, 0, 1]], [[1, 1, 1]])[0].as_matrix()
    half_diagonal = math.sqrt(3) / 2
    witness = signed_distance_pair(A, make_pose(R_WA, [0, 0, 0.5 + half_diagonal - 0.1]), B, I4)
    assert witness.distance == pytest.approx(-0.1, abs=1e-14)
    np.testing.assert_allclose(witness.nhat_BA_W, [0, 0, 1], atol=1e-14)
    np.testing.assert_allclose(witness.p_WCa, [0, 0, 0.4], atol=1e-14)
    np.testing.assert_allclose(witness.p_WCb, [0, 0, 0.5], atol=1e-14)
    # Two unit cubes, edges crossed at right angles, 0.1 apart.
    R_z45 = Rotation.from_euler("z", 45, degrees=True).as_matrix()
    R_x45 = Rotation.from_euler("x", 45, degrees=True).as_matrix()
    gap = 0.1
    X_WA = make_pose(R_x45, [0, 0, math.sqrt(2) / 2 + gap / 2])
    X_WB = make_pose(R_z45 @ Rotation.from_euler("y", 45, degrees=True).as_matrix(),
                     [0, 0, -math.sqrt(2) / 2 - gap / 2])
    edge = signed_distance_pair(Box.make_cube(1.0), X_WA, Box.make_cube(1.0), X_WB)
    assert edge.distance == pytest.approx(gap, abs=1e-14)
    np.testing.assert_allclose(edge.nhat_BA_W, [0, 0, 1], atol=1e-14)
    np.testing.assert_allclose(edge.p_WCa, [0, 0, gap / 2], atol=1e-14)


def test_boxes_concentric_normal_is_a_unit_choice():
    witness = signed_distance_pair(Box.make_cube(1.0), I4, Box.make_cube(1.0), I4)
    assert witness.distance == pytest.approx(-1.0)
    assert np.linalg.norm(witness.nhat_BA_W) == pytest.approx(1.0)
    assert not witness.is_nhat_BA_W_unique


def test_box_box_against_optimiser_when_apart():
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 40:
        A, B = Box(*rng.uniform(0.05, 0.5, 3)), Box(*rng.uniform(0.05, 0.5, 3))
        X_WA = make_pose(Rotation.random(random_state=rng).as_matrix(), rng.uniform(-.4, .4, 3))
        X_WB = make_pose(Rotation.random(random_state=rng).as_matrix(), rng.uniform(-.4, .4, 3))
        witness = signed_distance_pair(A, X_WA, B, X_WB)
        if witness.distance <= 1e-3:
            continue
        checked += 1

        # min |a - b| over two boxes, parametrised in their own frames.
        def gap2(v, A=A, B=B, X_WA=X_WA, X_WB=X_WB):
            p_WA = X_WA[:3, :3] @ (v[:3] * A.half_extents()) + X_WA[:3, 3]
            p_WB = X_WB[:3, :3] @ (v[3:] * B.half_extents()) + X_WB[:3, 3]
            return float(np.sum((p_WA - p_WB) ** 2))
        # Convex quadratic over a box of parameters: one local solve is global.
        reference = minimize(gap2, np.zeros(6), bounds=[(-1, 1)] * 6, method="L-BFGS-B",
                             options={"ftol": 1e-16, "gtol": 1e-14}).fun
        assert witness.distance <= math.sqrt(reference) + 1e-12
        assert witness.distance == pytest.approx(math.sqrt(reference), abs=1e-6)


def test_exact_kernel_declines_other_pairs():
    assert signed_distance_pair(Box(1, 1, 1), I4, Cylinder(1, 1), I4) is None
    assert signed_distance_pair(Capsule(1, 1), I4, HalfSpace(), I4) is None
    assert signed_distance_pair(Ellipsoid(1, 1, 1), I4, Ellipsoid(1, 1, 1), I4) is None
    assert signed_distance_pair(HalfSpace(), I4, Sphere(1), I4) is not None
    with pytest.raises(ValueError, match="X_WA must hold 16 values"):
        signed_distance_pair(Sphere(1), np.eye(3), Sphere(1), I4)


# --- properties --------------------------------------------------------------------

poses = st.builds(make_pose, rotations, points_within(0.4))
exact_pairs = st.one_of(
    st.tuples(st.builds(Sphere, sizes), shapes),
    st.tuples(st.builds(Capsule, sizes, sizes), st.builds(Capsule, sizes, sizes)),
    st.tuples(st.builds(Box, sizes, sizes, sizes), st.builds(Box, sizes, sizes, sizes)))


def _nearly_parallel_boxes(shape_A, X_WA, shape_B, X_WB) -> bool:
    if not (isinstance(shape_A, Box) and isinstance(shape_B, Box)):
        return False
    a, b = X_WA[:3, :3].T, X_WB[:3, :3].T  # rows: each box's axes in W
    sin = np.linalg.norm(np.cross(a[:, None, :], b[None, :, :]), axis=2)
    return bool(np.any((sin > 1e-14) & (sin < 1e-6)))


@settings(max_examples=400, deadline=None)
@given(pair=exact_pairs, X_WA=poses, X_WB=poses, X_VW=poses, swap=st.booleans())
def test_pair_properties(pair, X_WA, X_WB, X_VW, swap):
    shape_A, shape_B = pair
    # Boxes turned by a hair (axes between round-off and 1e-6 from parallel)
    # are the known limit of test_touching_boxes_turned_by_1e_9_rad_...: left
    # to that test, so that which examples this one draws cannot decide CI.
    assume(not _nearly_parallel_boxes(shape_A, X_WA, shape_B, X_WB))
    if swap:
        shape_A, shape_B, X_WA, X_WB = shape_B, shape_A, X_WB, X_WA
    witness = signed_distance_pair(shape_A, X_WA, shape_B, X_WB)
    assert witness is not None
    # One identity in every regime; a unit normal always.
    assert np.linalg.norm(witness.nhat_BA_W) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(witness.p_WCa - witness.p_WCb,
                               witness.distance * witness.nhat_BA_W, atol=1e-10)
    # Witnesses lie on the surfaces.
    assert abs(signed_distance_to_point(shape_A, X_WA, witness.p_WCa).distance) < 1e-10
    assert abs(signed_distance_to_point(shape_B, X_WB, witness.p_WCb).distance) < 1e-10
    # The normal's direction is conditioned by the gap between the cores
    # (sphere centres, capsule spines, box surfaces): round-off of 1e-16 over
    # a core gap g tilts it by ~1e-16 / g, so compare it where g is not tiny.
    core_gap = witness.distance + sum(s.radius for s in (shape_A, shape_B)
                                      if isinstance(s, Sphere | Capsule))
    smallest = min(abs(core_gap), abs(witness.distance))
    well_conditioned = witness.is_nhat_BA_W_unique and smallest > 1e-6
    # Swapping A and B gives the same answer, swapped.
    backward = signed_distance_pair(shape_B, X_WB, shape_A, X_WA)
    assert backward.distance == pytest.approx(witness.distance, abs=1e-12)
    if well_conditioned:
        np.testing.assert_allclose(backward.nhat_BA_W, -witness.nhat_BA_W, atol=1e-8)
    # A common rigid motion changes nothing but the frame of the answer.
    moved = signed_distance_pair(shape_A, X_VW @ X_WA, shape_B, X_VW @ X_WB)
    assert moved.distance == pytest.approx(witness.distance, abs=1e-12)
    if well_conditioned:
        np.testing.assert_allclose(moved.nhat_BA_W, X_VW[:3, :3] @ witness.nhat_BA_W,
                                   atol=1e-8)


# Two boxes touching with faces turned by less than 1e-9 rad (found by
# hypothesis in test_pair_properties and a targeted search).
TURNED_BOXES = (
    Box(0.0726844254935798, 0.23193074328546165, 0.3106782025623061),
    np.array([
        [1.0, 8.620306656078677e-10, 7.377852636284798e-11, 0.039472368437673294],
        [-8.62030665537816e-10, 1.0, -9.494868737880454e-10, 0.023573727087451868],
        [-7.377852718133477e-11, 9.49486873724446e-10, 1.0, 0.08147638750645597],
        [0.0, 0.0, 0.0, 1.0]]),
    Box(0.18914421487634503, 0.30129665929945165, 0.3355519462992183),
    np.array([
        [1.0, -9.090994028767574e-12, 9.705268228247895e-12, 0.039472368437673294],
        [9.090994028794347e-12, 1.0, -2.758736078383471e-12, 0.29018742837890854],
        [-9.705268228222815e-12, 2.7587360784717014e-12, 1.0, 0.09469553622364982],
        [0.0, 0.0, 0.0, 1.0]]),
)


def test_touching_boxes_turned_by_1e_9_rad_keep_their_witnesses_on_the_surfaces():
    # Found by hypothesis (test_pair_properties) and a targeted search. SAT
    # leaves out cross-product axes of edges closer to parallel than
    # BOX_PARALLEL_SIN_TOLERANCE (their direction is round-off), so the
    # depth along a face axis could exceed the true one by ~1e-9 x the box
    # size and a witness lay that far off its surface; such pairs now go to
    # the exact polytope path (csrc/polytope.c).
    A, X_WA, B, X_WB = TURNED_BOXES
    witness = signed_distance_pair(A, X_WA, B, X_WB)
    assert abs(signed_distance_to_point(A, X_WA, witness.p_WCa).distance) < 1e-10
    assert abs(signed_distance_to_point(B, X_WB, witness.p_WCb).distance) < 1e-10
    # The value against exact rational arithmetic on the same boxes.
    assert witness.distance == pytest.approx(polytope_signed_distance(A, X_WA, B, X_WB),
                                             abs=1e-13)
    np.testing.assert_allclose(witness.p_WCa - witness.p_WCb,
                               witness.distance * witness.nhat_BA_W, atol=1e-12)


def test_polytope_rescues_are_counted_per_pair_and_per_query():
    """The exact polytope path's answers in place of SAT's are counted, at the query level too."""
    A, X_WA, B, X_WB = TURNED_BOXES
    before = polytope_rescues.value
    signed_distance_pair(A, X_WA, B, X_WB)
    assert polytope_rescues.value == before + 1
    # Boxes turned by whole angles stay with SAT: no count.
    signed_distance_pair(A, I4, B, make_pose(Rotation.from_rotvec([0.1, 0.2, 0.3]).as_matrix(),
                                             [0.05, 0.1, 0.0]))
    assert polytope_rescues.value == before + 1
    sg = SceneGraph()
    source = sg.register_source("rescues")
    for name, shape, X in (("a", A, X_WA), ("b", B, X_WB)):
        frame = sg.register_frame(source, GeometryFrame(name))
        geometry = sg.register_geometry(source, frame, GeometryInstance(RigidTransform(), shape,
                                                                        name))
        sg.assign_role(source, geometry, ProximityProperties())
        sg.set_poses(source, {frame: RigidTransform(RotationMatrix(X[:3, :3]), X[:3, 3])})
    query = sg.query_object()
    before = polytope_rescues.value
    pairs = query.compute_signed_distance_pairwise_closest_points(0.1)
    assert len(pairs) == 1
    assert pairs[0].distance == pytest.approx(polytope_signed_distance(A, X_WA, B, X_WB),
                                              abs=1e-13)
    assert polytope_rescues.value == before + 1
