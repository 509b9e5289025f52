"""Unit tests of geometry_core.math.quaternion."""

import math

import numpy as np
import pytest
from transforms3d import quaternions as t3d

from geometry_core.math import (
    RollPitchYaw,
    RotationMatrix,
    normalize_quaternion,
    quaternion_to_rotation_matrix,
    quaternion_wxyz_to_xyzw,
    quaternion_xyzw_to_wxyz,
    quaternions_to_rotation_matrices,
    roll_pitch_yaw_to_quaternion,
    rotation_matrix_to_quaternion,
)

HALF = math.sqrt(0.5)


def test_normalize_quaternion_keeps_sign():
    np.testing.assert_allclose(normalize_quaternion([0.0, 0.0, -3.0, 4.0]),
                               [0.0, 0.0, -0.6, 0.8], atol=1e-16)


@pytest.mark.parametrize(
    ("q", "error", "message"),
    [
        (np.zeros(4), ValueError, r"q is zero \(all four entries are 0\)"),
        ([1.0, 0.0, np.nan, 0.0], ValueError, "q contains NaN"),
        (np.ones(3), ValueError, r"q must have shape \(4,\), got \(3,\)"),
        ("wxyz", TypeError, "q must be a numpy array"),
    ],
)
def test_normalize_quaternion_errors(q, error, message):
    with pytest.raises(error, match=message):
        normalize_quaternion(q, name="q")


@pytest.mark.parametrize("norm", [1e-300, 1e-160, 1e-13, 1.0, 1e160, 1e300])
def test_any_finite_nonzero_length_normalises(norm):
    # Squaring before scaling overflowed above ~1e154 (norm inf, q became 0)
    # and underflowed below ~1e-154: the scale must come first.
    u = np.array([0.5, -0.5, 0.5, 0.5])
    np.testing.assert_allclose(normalize_quaternion(u * norm), u, rtol=1e-15, atol=1e-16)
    R = quaternions_to_rotation_matrices(np.array([u * norm, [norm, 0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(R[0], quaternion_to_rotation_matrix(u), atol=1e-15)
    np.testing.assert_allclose(R[1], np.eye(3), atol=1e-15)
    np.testing.assert_allclose(RotationMatrix(quaternion=u * norm).matrix(),
                               t3d.quat2mat(u), atol=1e-15)


def test_largest_finite_entries_normalise():
    big = np.finfo(float).max
    np.testing.assert_allclose(normalize_quaternion([big, big, -big, big]),
                               [0.5, 0.5, -0.5, 0.5], atol=1e-16)
    tiny = np.finfo(float).smallest_subnormal
    np.testing.assert_allclose(normalize_quaternion([0.0, tiny, 0.0, 0.0]),
                               [0.0, 1.0, 0.0, 0.0], atol=0)


def test_quaternion_to_rotation_matrix():
    np.testing.assert_allclose(quaternion_to_rotation_matrix([HALF, 0.0, 0.0, HALF]),
                               [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], atol=1e-15)
    np.testing.assert_allclose(quaternion_to_rotation_matrix([0.0, 5.0, 0.0, 0.0]),
                               np.diag([1.0, -1.0, -1.0]), atol=1e-15)


def test_rotation_matrix_to_quaternion_is_canonical_and_unit():
    R = RotationMatrix.make_y_rotation(-2.5).matrix()  # w = cos(-1.25) > 0
    q = rotation_matrix_to_quaternion(R)
    np.testing.assert_allclose(q, [math.cos(1.25), 0.0, -math.sin(1.25), 0.0], atol=1e-15)
    R_far = RotationMatrix.make_y_rotation(4.0).matrix()  # cos(2) < 0: the sign flips
    q_far = rotation_matrix_to_quaternion(R_far)
    assert q_far[0] >= 0
    np.testing.assert_allclose(q_far, [-math.cos(2.0), 0.0, -math.sin(2.0), 0.0], atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(q_far), 1.0, atol=1e-15)


def test_roll_pitch_yaw_to_quaternion_is_half_angle_product():
    r, p, y = 0.3, -0.5, 2.0
    qx = np.array([math.cos(r / 2), math.sin(r / 2), 0.0, 0.0])
    qy = np.array([math.cos(p / 2), 0.0, math.sin(p / 2), 0.0])
    qz = np.array([math.cos(y / 2), 0.0, 0.0, math.sin(y / 2)])
    expected = t3d.qmult(qz, t3d.qmult(qy, qx))
    np.testing.assert_allclose(roll_pitch_yaw_to_quaternion(r, p, y), expected, atol=1e-16)
    np.testing.assert_allclose(RollPitchYaw(r, p, y).to_quaternion(), expected, atol=1e-16)


def test_batch_matches_transforms3d_row_by_row():
    rng = np.random.default_rng(7)
    q = rng.standard_normal((50, 4)) * rng.uniform(0.1, 10.0, (50, 1))
    R = quaternions_to_rotation_matrices(q)
    assert R.shape == (50, 3, 3)
    for q_row, R_row in zip(q, R):
        np.testing.assert_allclose(R_row, t3d.quat2mat(q_row), atol=1e-15)
    assert quaternions_to_rotation_matrices(np.empty((0, 4))).shape == (0, 3, 3)


@pytest.mark.parametrize(
    ("q", "message"),
    [
        (np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0], [0.0, 0, 0, 0]]),
         r"q_wxyz\[2\] is a zero quaternion"),
        (np.array([[1.0, 0, 0, 0], [np.nan, 0, 0, 0]]), r"q_wxyz\[1\] contains NaN or inf"),
        (np.ones((3, 3)), r"q_wxyz must have shape \(N, 4\), got \(3, 3\)"),
        (np.ones(4), r"q_wxyz must have shape \(N, 4\), got \(4,\)"),
    ],
)
def test_batch_errors_name_the_row(q, message):
    with pytest.raises(ValueError, match=message):
        quaternions_to_rotation_matrices(q)


def test_order_conversions():
    q_wxyz = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(quaternion_wxyz_to_xyzw(q_wxyz), [2.0, 3.0, 4.0, 1.0])
    np.testing.assert_array_equal(quaternion_xyzw_to_wxyz([2.0, 3.0, 4.0, 1.0]), q_wxyz)
    batch = np.arange(8.0).reshape(2, 4)
    np.testing.assert_array_equal(quaternion_xyzw_to_wxyz(quaternion_wxyz_to_xyzw(batch)), batch)
    np.testing.assert_array_equal(quaternion_wxyz_to_xyzw(batch)[1], [5.0, 6.0, 7.0, 4.0])


def test_order_conversions_return_new_arrays_and_check_shape():
    q = np.array([1.0, 2.0, 3.0, 4.0])
    quaternion_wxyz_to_xyzw(q)[0] = 9.0
    assert q[0] == 1.0
    with pytest.raises(ValueError, match=r"q_xyzw must have shape \(4,\) or \(N, 4\), got \(3,\)"):
        quaternion_xyzw_to_wxyz([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"q_wxyz must have shape .* got \(2, 2, 4\)"):
        quaternion_wxyz_to_xyzw(np.ones((2, 2, 4)))
