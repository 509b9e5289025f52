"""Unit tests of geometry_core.math.rotation_matrix."""

import copy
import math

import numpy as np
import pytest

from geometry_core.math import RollPitchYaw, RotationMatrix
from geometry_core.tolerances import ORTHONORMALITY_TOLERANCE

R_Z90 = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def _rz(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _ry(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rx(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


# --- construction ------------------------------------------------------------


def test_default_is_identity():
    assert RotationMatrix().is_exactly_identity()
    assert RotationMatrix.identity().is_exactly_identity()
    np.testing.assert_array_equal(RotationMatrix().matrix(), np.eye(3))


def test_from_array_keeps_values_and_owns_them():
    M = R_Z90.copy()
    R = RotationMatrix(M)
    M[0, 0] = 5.0
    np.testing.assert_array_equal(R.matrix(), R_Z90)


def test_from_list_of_lists():
    np.testing.assert_array_equal(RotationMatrix(R_Z90.tolist()).matrix(), R_Z90)


def test_from_integer_array():
    R = RotationMatrix(np.eye(3, dtype=int))
    assert R.matrix().dtype == np.float64
    assert R.is_exactly_identity()


def test_copy_constructor_is_independent():
    R = RotationMatrix(R_Z90)
    R_copy = RotationMatrix(R)
    R_copy.set(np.eye(3))
    np.testing.assert_array_equal(R.matrix(), R_Z90)


def test_from_roll_pitch_yaw_is_rz_ry_rx():
    r, p, y = 0.3, -0.7, 2.1
    expected = _rz(y) @ _ry(p) @ _rx(r)
    np.testing.assert_allclose(RotationMatrix(RollPitchYaw(r, p, y)).matrix(), expected,
                               atol=1e-15)
    np.testing.assert_allclose(RotationMatrix(rpy=RollPitchYaw(r, p, y)).matrix(), expected,
                               atol=1e-15)


def test_rpy_keyword_must_be_roll_pitch_yaw():
    with pytest.raises(TypeError, match="rpy must be a RollPitchYaw"):
        RotationMatrix(rpy=np.zeros(3))


def test_from_non_unit_quaternion():
    # 180 degrees about z, quaternion of length 3.
    R = RotationMatrix(quaternion=np.array([0.0, 0.0, 0.0, 3.0]))
    np.testing.assert_allclose(R.matrix(), np.diag([-1.0, -1.0, 1.0]), atol=1e-15)
    half = math.sqrt(0.5)
    R90 = RotationMatrix(quaternion=[2 * half, 0.0, 0.0, 2 * half])
    np.testing.assert_allclose(R90.matrix(), R_Z90, atol=1e-15)


@pytest.mark.parametrize(
    ("q", "message"),
    [
        (np.zeros(4), "quaternion is zero"),
        (np.array([-0.0, 0.0, 0.0, 0.0]), "quaternion is zero"),
        (np.array([1.0, np.nan, 0.0, 0.0]), "quaternion contains NaN"),
        (np.array([1.0, 0.0, np.inf, 0.0]), "quaternion contains inf"),
        (np.array([1.0, 0.0, 0.0]), r"quaternion must have shape \(4,\), got \(3,\)"),
    ],
)
def test_bad_quaternion_is_refused(q, message):
    with pytest.raises(ValueError, match=message):
        RotationMatrix(quaternion=q)


def test_from_angle_axis_with_non_unit_axis():
    R = RotationMatrix(theta_lambda=(math.pi / 2, np.array([0.0, 0.0, 5.0])))
    np.testing.assert_allclose(R.matrix(), R_Z90, atol=1e-15)
    R_x = RotationMatrix(theta_lambda=(0.4, [-2.0, 0.0, 0.0]))
    np.testing.assert_allclose(R_x.matrix(), _rx(-0.4), atol=1e-15)


def test_angle_axis_errors():
    with pytest.raises(ValueError, match="theta_lambda axis is zero"):
        RotationMatrix(theta_lambda=(1.0, np.zeros(3)))
    with pytest.raises(ValueError, match="theta_lambda axis contains NaN"):
        RotationMatrix(theta_lambda=(1.0, [np.nan, 0.0, 1.0]))
    with pytest.raises(ValueError, match="theta_lambda angle must be finite"):
        RotationMatrix(theta_lambda=(np.inf, [0.0, 0.0, 1.0]))
    with pytest.raises(TypeError, match="theta_lambda must be a tuple"):
        RotationMatrix(theta_lambda=[1.0, [0.0, 0.0, 1.0]])


def test_more_than_one_form_is_a_type_error():
    with pytest.raises(TypeError, match="one of R, rpy, quaternion, theta_lambda"):
        RotationMatrix(R_Z90, quaternion=np.array([1.0, 0, 0, 0]))


@pytest.mark.parametrize(
    ("M", "error", "message"),
    [
        (np.eye(3)[:, :2], ValueError, r"R must have shape \(3, 3\), got \(3, 2\)"),
        (np.array([1.0, 0, 0, 0]), ValueError, "quaternion=q"),
        (np.diag([1.0, 1.0, np.nan]), ValueError, "R contains NaN"),
        (np.diag([1.0, np.inf, 1.0]), ValueError, "R contains inf"),
        (np.diag([1.0, 1.0, 1.001]), ValueError,
         r"R is not orthonormal: max \|R Rᵀ - I\| = 0.002 exceeds the tolerance 1e-06"),
        (np.diag([1.0, 1.0, -1.0]), ValueError, r"R is a reflection \(determinant -1\)"),
        ("not a matrix", TypeError, "R must be a numpy array, list or tuple"),
        (np.array([["a"] * 3] * 3), TypeError, "R must hold real numbers"),
        (np.eye(3, dtype=complex), TypeError, "R must hold real numbers"),
    ],
)
def test_bad_matrix_is_refused(M, error, message):
    with pytest.raises(error, match=message):
        RotationMatrix(M)


def test_user_tolerance_accepts_float32_precision_but_is_valid_is_strict():
    R = RotationMatrix(_rz(0.3).astype(np.float32).astype(np.float64))
    assert not R.is_valid()
    assert RotationMatrix(_rz(0.3)).is_valid()


# --- factories ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "reference"),
    [
        (RotationMatrix.make_x_rotation, _rx),
        (RotationMatrix.make_y_rotation, _ry),
        (RotationMatrix.make_z_rotation, _rz),
    ],
)
def test_axis_rotations(factory, reference):
    for theta in (-2.0, 0.0, 0.5, math.pi):
        np.testing.assert_allclose(factory(theta).matrix(), reference(theta), atol=0)


def test_axis_rotation_direction_is_right_handed():
    np.testing.assert_allclose(RotationMatrix.make_z_rotation(math.pi / 2) @ [1.0, 0, 0],
                               [0.0, 1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(RotationMatrix.make_x_rotation(math.pi / 2) @ [0.0, 1.0, 0],
                               [0.0, 0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(RotationMatrix.make_y_rotation(math.pi / 2) @ [0.0, 0, 1.0],
                               [1.0, 0.0, 0.0], atol=1e-15)


def test_axis_rotation_argument_checks():
    with pytest.raises(TypeError, match="theta must be a real number"):
        RotationMatrix.make_x_rotation("1")
    with pytest.raises(ValueError, match="theta must be finite"):
        RotationMatrix.make_z_rotation(float("nan"))


def test_project_to_rotation_matrix_of_noisy_rotation():
    rng = np.random.default_rng(1)
    R = _rz(0.4) @ _rx(1.1)
    M = R + 1e-3 * rng.standard_normal((3, 3))
    projected = RotationMatrix.project_to_rotation_matrix(M)
    assert projected.is_valid()
    assert np.abs(projected.matrix() - R).max() < 5e-3
    np.testing.assert_allclose(
        RotationMatrix.project_to_rotation_matrix(3.0 * R).matrix(), R, atol=1e-15)


def test_project_to_rotation_matrix_fixes_a_reflection():
    # Closest rotation to diag(1, 2, -3): flip the direction of smallest singular value.
    projected = RotationMatrix.project_to_rotation_matrix(np.diag([1.0, 2.0, -3.0]))
    np.testing.assert_allclose(projected.matrix(), np.diag([-1.0, 1.0, -1.0]), atol=1e-15)
    assert projected.is_valid()


@pytest.mark.parametrize(
    ("M", "message"),
    [
        (np.diag([1.0, 1.0, 0.0]), "M is singular"),
        (np.zeros((3, 3)), "M is singular"),
        (np.diag([1.0, 1.0, np.nan]), "M contains NaN"),
        (np.eye(4), r"M must have shape \(3, 3\), got \(4, 4\)"),
    ],
)
def test_project_to_rotation_matrix_errors(M, message):
    with pytest.raises(ValueError, match=message):
        RotationMatrix.project_to_rotation_matrix(M)


# --- accessors ---------------------------------------------------------------


def test_matrix_col_row_are_copies():
    R = RotationMatrix(R_Z90)
    R.matrix()[0, 0] = 7.0
    R.col(0)[0] = 7.0
    R.row(0)[0] = 7.0
    np.testing.assert_array_equal(R.matrix(), R_Z90)


def test_col_and_row_values():
    R = RotationMatrix(R_Z90)
    np.testing.assert_array_equal(R.col(0), [0.0, 1.0, 0.0])  # Bx expressed in A
    np.testing.assert_array_equal(R.row(0), [0.0, -1.0, 0.0])  # Ax expressed in B
    np.testing.assert_array_equal(R.col(np.int64(2)), [0.0, 0.0, 1.0])


def test_col_and_row_index_checks():
    R = RotationMatrix()
    with pytest.raises(ValueError, match=r"index must be in \[0, 2\], got 3"):
        R.col(3)
    with pytest.raises(ValueError, match=r"index must be in \[0, 2\], got -1"):
        R.row(-1)
    with pytest.raises(TypeError, match="index must be an int"):
        R.col(1.0)
    with pytest.raises(TypeError, match="index must be an int"):
        R.row(True)


def test_set_replaces_and_validates_atomically():
    R = RotationMatrix()
    R.set(R_Z90)
    np.testing.assert_array_equal(R.matrix(), R_Z90)
    with pytest.raises(ValueError, match="not orthonormal"):
        R.set(2 * np.eye(3))
    np.testing.assert_array_equal(R.matrix(), R_Z90)


# --- algebra -----------------------------------------------------------------


def test_transpose_and_inverse():
    R = RotationMatrix(_rz(0.3) @ _ry(0.2))
    np.testing.assert_array_equal(R.transpose().matrix(), R.matrix().T)
    np.testing.assert_array_equal(R.inverse().matrix(), R.matrix().T)
    assert (R @ R.inverse()).is_identity_to_internal_tolerance()


def test_multiply_rotation_vector_and_matrix_of_vectors():
    R_AB = RotationMatrix(_rz(0.3))
    R_BC = RotationMatrix(_rx(-0.8))
    np.testing.assert_allclose(R_AB.multiply(R_BC).matrix(), _rz(0.3) @ _rx(-0.8), atol=0)
    np.testing.assert_allclose((R_AB @ R_BC).matrix(), _rz(0.3) @ _rx(-0.8), atol=0)
    v_B = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(R_AB.multiply(v_B), _rz(0.3) @ v_B, atol=0)
    np.testing.assert_allclose(R_AB @ [1.0, 2.0, 3.0], _rz(0.3) @ v_B, atol=0)
    V_B = np.arange(12.0).reshape(3, 4)
    assert (R_AB @ V_B).shape == (3, 4)
    np.testing.assert_allclose(R_AB.multiply(V_B), _rz(0.3) @ V_B, atol=0)
    assert (R_AB @ np.ones((3, 1))).shape == (3, 1)


def test_multiply_errors():
    R = RotationMatrix()
    with pytest.raises(ValueError, match=r"v_B must have shape \(3,\) or \(3, N\), got \(4,\)"):
        R.multiply(np.ones(4))
    with pytest.raises(ValueError, match=r"v_B must have shape \(3,\) or \(3, N\), got \(2, 3\)"):
        R @ np.ones((2, 3))
    with pytest.raises(ValueError, match="v_B contains NaN"):
        R @ np.array([0.0, np.nan, 1.0])
    with pytest.raises(TypeError, match="v_B must be a numpy array"):
        R.multiply("abc")
    with pytest.raises(TypeError):
        R @ 3.0
    with pytest.raises(TypeError):
        np.eye(3) @ R  # numpy must not broadcast over a RotationMatrix


# --- conversions and predicates ----------------------------------------------


def test_to_quaternion_is_canonical():
    half = math.sqrt(0.5)
    np.testing.assert_allclose(RotationMatrix(R_Z90).to_quaternion(), [half, 0, 0, half],
                               atol=1e-15)
    # -90 degrees about z: w >= 0 picks [cos 45, 0, 0, -sin 45], not its negative.
    np.testing.assert_allclose(RotationMatrix(R_Z90.T).to_quaternion(), [half, 0, 0, -half],
                               atol=1e-15)
    # 270 degrees about z is the same rotation, and must give the same quaternion.
    q = RotationMatrix.make_z_rotation(1.5 * math.pi).to_quaternion()
    np.testing.assert_allclose(q, [half, 0, 0, -half], atol=1e-15)


def test_to_roll_pitch_yaw():
    rpy = RotationMatrix(RollPitchYaw(0.1, -0.2, 0.3)).to_roll_pitch_yaw()
    np.testing.assert_allclose(rpy.vector(), [0.1, -0.2, 0.3], atol=1e-15)


def test_is_valid_detects_drift_beyond_drake_tolerance():
    assert RotationMatrix(_rz(1.0)).is_valid()
    drift = 10 * ORTHONORMALITY_TOLERANCE
    assert not RotationMatrix(np.diag([1.0, 1.0, 1.0 + drift])).is_valid()


def test_is_exactly_identity_and_internal_tolerance():
    tiny = RotationMatrix.make_x_rotation(1e-15)
    assert not tiny.is_exactly_identity()
    assert tiny.is_identity_to_internal_tolerance()
    assert not RotationMatrix.make_x_rotation(1e-10).is_identity_to_internal_tolerance()


def test_is_nearby():
    R1 = RotationMatrix.make_z_rotation(0.3)
    R2 = RotationMatrix.make_z_rotation(0.3 + 1e-9)
    assert R1.is_nearby(R2, 1e-8)
    assert not R1.is_nearby(R2, 1e-10)
    with pytest.raises(TypeError, match="other must be a RotationMatrix"):
        R1.is_nearby(R2.matrix(), 1e-8)


def test_no_float_equality_defined():
    assert RotationMatrix.__eq__ is object.__eq__
    R = RotationMatrix()
    assert R != RotationMatrix(R)


def test_copy_and_deepcopy_are_independent():
    R = RotationMatrix(R_Z90)
    for duplicate in (copy.copy(R), copy.deepcopy(R)):
        duplicate.set(np.eye(3))
        np.testing.assert_array_equal(R.matrix(), R_Z90)


def test_repr():
    text = repr(RotationMatrix(R_Z90))
    assert text.startswith("RotationMatrix([")
    assert "[0.0, -1.0, 0.0]" in text
