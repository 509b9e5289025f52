"""Unit tests of geometry_core.math.roll_pitch_yaw."""

import copy
import math

import numpy as np
import pytest

from geometry_core.math import RollPitchYaw, RotationMatrix
from geometry_core.tolerances import GIMBAL_LOCK_COS_PITCH


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _unskew(S):
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2


def _matrix(rpy_vector):
    return RollPitchYaw(rpy_vector).to_rotation_matrix().matrix()


# --- construction ------------------------------------------------------------


def test_constructor_forms_agree():
    angles = np.array([0.1, -0.2, 0.3])
    R = RotationMatrix(RollPitchYaw(*angles))
    q = R.to_quaternion()
    forms = [
        RollPitchYaw(0.1, -0.2, 0.3),
        RollPitchYaw(angles),
        RollPitchYaw([0.1, -0.2, 0.3]),
        RollPitchYaw(rpy=angles),
        RollPitchYaw(RollPitchYaw(angles)),
        RollPitchYaw(R),
        RollPitchYaw(R=R),
        RollPitchYaw(quaternion=q),
        RollPitchYaw(quaternion=-2.5 * q),
        RollPitchYaw(matrix=R.matrix()),
    ]
    for rpy in forms:
        np.testing.assert_allclose(rpy.vector(), angles, atol=2e-15)


def test_vector_is_a_copy_of_the_input():
    angles = np.array([0.1, 0.2, 0.3])
    rpy = RollPitchYaw(angles)
    angles[0] = 9.0
    rpy.vector()[1] = 9.0
    np.testing.assert_array_equal(rpy.vector(), [0.1, 0.2, 0.3])


def test_accessors():
    rpy = RollPitchYaw(0.1, 0.2, 0.3)
    assert (rpy.roll_angle(), rpy.pitch_angle(), rpy.yaw_angle()) == (0.1, 0.2, 0.3)
    assert isinstance(rpy.roll_angle(), float)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((), {}, TypeError, "exactly one of"),
        ((0.1, 0.2), {}, TypeError, "1 or 3 positional arguments, got 2"),
        ((np.zeros(3),), {"R": RotationMatrix()}, TypeError, "exactly one of"),
        ((np.eye(3),), {}, ValueError, r"rpy must have shape \(3,\), got \(3, 3\).*matrix=M"),
        ((np.ones(4),), {}, ValueError, r"rpy must have shape \(3,\), got \(4,\).*quaternion="),
        ((np.ones(2),), {}, ValueError, r"rpy must have shape \(3,\), got \(2,\)"),
        ((np.array([0.0, np.nan, 0.0]),), {}, ValueError, "rpy contains NaN"),
        ((0.0, float("inf"), 0.0), {}, ValueError, "pitch must be finite"),
        ((True, 0.0, 0.0), {}, TypeError, "roll must be a real number"),
        ((), {"R": np.eye(3)}, TypeError, "R must be a RotationMatrix"),
        ((), {"quaternion": np.zeros(4)}, ValueError, "quaternion is zero"),
        ((), {"matrix": 2 * np.eye(3)}, ValueError, "matrix is not orthonormal"),
        ((), {"rpy": [1.0, 2.0]}, ValueError, r"rpy must have shape \(3,\), got \(2,\)"),
    ],
)
def test_constructor_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        RollPitchYaw(*args, **kwargs)


# --- conversions -------------------------------------------------------------


def test_to_rotation_matrix_is_space_xyz():
    r, p, y = 0.4, -1.1, 2.9
    expected = (RotationMatrix.make_z_rotation(y) @ RotationMatrix.make_y_rotation(p)
                @ RotationMatrix.make_x_rotation(r))
    assert RollPitchYaw(r, p, y).to_rotation_matrix().is_nearby(expected, 1e-15)


def test_to_quaternion():
    theta = 0.8
    np.testing.assert_allclose(RollPitchYaw(0.0, 0.0, theta).to_quaternion(),
                               [math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2)], atol=1e-16)
    rpy = RollPitchYaw(0.3, 1.2, -2.5)
    R_from_q = RotationMatrix(quaternion=rpy.to_quaternion())
    assert R_from_q.is_nearby(rpy.to_rotation_matrix(), 1e-15)
    np.testing.assert_allclose(np.linalg.norm(rpy.to_quaternion()), 1.0, atol=1e-15)


def test_from_rotation_returns_canonical_ranges():
    # Pitch beyond π/2 and roll beyond π come back in range, same orientation.
    original = RollPitchYaw(3.5, 2.0, -3.9)
    recovered = RollPitchYaw(original.to_rotation_matrix())
    r, p, y = recovered.vector()
    assert -math.pi <= r <= math.pi and -math.pi / 2 <= p <= math.pi / 2
    assert -math.pi <= y <= math.pi
    assert recovered.is_nearly_same_orientation(original, 1e-14)
    assert not recovered.is_nearby(original, 0.1)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_from_rotation_exactly_at_gimbal_lock(sign):
    original = RollPitchYaw(0.3, sign * math.pi / 2, -0.2)
    recovered = RollPitchYaw(original.to_rotation_matrix())
    assert abs(recovered.pitch_angle() - sign * math.pi / 2) < 1e-8
    assert recovered.to_rotation_matrix().is_nearby(original.to_rotation_matrix(), 1e-15)


def test_from_identity_is_zero():
    np.testing.assert_array_equal(RollPitchYaw(RotationMatrix()).vector(), [0.0, 0.0, 0.0])


def test_is_nearby_compares_angles_and_orientation_compares_matrices():
    a = RollPitchYaw(math.pi, 0.0, 0.0)
    b = RollPitchYaw(-math.pi, 0.0, 0.0)
    assert not a.is_nearby(b, 1e-6)
    assert a.is_nearly_same_orientation(b, 1e-15)
    assert a.is_nearby(RollPitchYaw(math.pi - 1e-9, 0.0, 0.0), 1e-8)
    with pytest.raises(TypeError, match="other must be a RollPitchYaw"):
        a.is_nearby(np.zeros(3), 1.0)
    with pytest.raises(TypeError, match="other must be a RollPitchYaw"):
        a.is_nearly_same_orientation(RotationMatrix(), 1.0)


# --- rates -------------------------------------------------------------------

RPY = np.array([0.4, -0.6, 1.3])
RPY_DT = np.array([0.7, -1.1, 0.5])
RPY_DDT = np.array([-0.3, 0.9, 1.7])


def _numeric_w_AD_A(rpy, rpy_dt, h=1e-6):
    R_dot = (_matrix(rpy + h * rpy_dt) - _matrix(rpy - h * rpy_dt)) / (2 * h)
    return _unskew(R_dot @ _matrix(rpy).T)


def test_angular_velocity_in_parent_matches_finite_difference():
    w_AD_A = RollPitchYaw(RPY).calc_angular_velocity_in_parent_from_rpy_dt(RPY_DT)
    np.testing.assert_allclose(w_AD_A, _numeric_w_AD_A(RPY, RPY_DT), atol=1e-9)


def test_angular_velocity_in_child_is_parent_re_expressed():
    rpy = RollPitchYaw(RPY)
    w_AD_D = rpy.calc_angular_velocity_in_child_from_rpy_dt(RPY_DT)
    np.testing.assert_allclose(w_AD_D, _matrix(RPY).T @ _numeric_w_AD_A(RPY, RPY_DT), atol=1e-9)


def test_rotation_matrix_dt_matches_finite_difference():
    h = 1e-6
    numeric = (_matrix(RPY + h * RPY_DT) - _matrix(RPY - h * RPY_DT)) / (2 * h)
    np.testing.assert_allclose(RollPitchYaw(RPY).calc_rotation_matrix_dt(RPY_DT), numeric,
                               atol=1e-9)


def test_rpy_dt_from_angular_velocity_inverts_the_forward_maps():
    rpy = RollPitchYaw(RPY)
    w_AD_A = rpy.calc_angular_velocity_in_parent_from_rpy_dt(RPY_DT)
    w_AD_D = rpy.calc_angular_velocity_in_child_from_rpy_dt(RPY_DT)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_parent(w_AD_A), RPY_DT,
                               atol=1e-14)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_child(w_AD_D), RPY_DT,
                               atol=1e-14)


def _numeric_alpha(expressed_in_child, h=1e-5):
    # Angular acceleration along rpy(t) = RPY + t RPY_DT + t²/2 RPY_DDT at t = 0.
    def w(t):
        rpy = RollPitchYaw(RPY + t * RPY_DT + 0.5 * t * t * RPY_DDT)
        rpy_dt = RPY_DT + t * RPY_DDT
        if expressed_in_child:
            return rpy.calc_angular_velocity_in_child_from_rpy_dt(rpy_dt)
        return rpy.calc_angular_velocity_in_parent_from_rpy_dt(rpy_dt)

    return (w(h) - w(-h)) / (2 * h)


def test_rpy_ddt_from_angular_accel_in_parent():
    alpha_AD_A = _numeric_alpha(expressed_in_child=False)
    rpy_ddt = RollPitchYaw(RPY).calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent(
        RPY_DT, alpha_AD_A)
    np.testing.assert_allclose(rpy_ddt, RPY_DDT, atol=1e-8)


def test_rpy_ddt_from_angular_accel_in_child():
    alpha_AD_D = _numeric_alpha(expressed_in_child=True)
    rpy_ddt = RollPitchYaw(RPY).calc_rpy_ddt_from_angular_accel_in_child(RPY_DT, alpha_AD_D)
    np.testing.assert_allclose(rpy_ddt, RPY_DDT, atol=1e-8)


SINGULAR_CALLS = [
    ("calc_rpy_dt_from_angular_velocity_in_parent", (np.ones(3),)),
    ("calc_rpy_dt_from_angular_velocity_in_child", (np.ones(3),)),
    ("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent", (np.ones(3), np.ones(3))),
    ("calc_rpy_ddt_from_angular_accel_in_child", (np.ones(3), np.ones(3))),
]


@pytest.mark.parametrize(("method", "args"), SINGULAR_CALLS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gimbal_lock_is_refused_with_the_pitch(method, args, sign):
    pitch = sign * (math.pi / 2 - 1e-3)
    rpy = RollPitchYaw(0.2, pitch, 0.1)
    with pytest.raises(ValueError, match=rf"{method}\(\): gimbal lock: pitch = {pitch:.9g} rad"):
        getattr(rpy, method)(*args)


@pytest.mark.parametrize(("method", "args"), SINGULAR_CALLS)
def test_gimbal_lock_threshold_is_cos_pitch(method, args):
    just_outside = RollPitchYaw(0.2, math.acos(1.001 * GIMBAL_LOCK_COS_PITCH), 0.1)
    assert np.isfinite(getattr(just_outside, method)(*args)).all()
    just_inside = RollPitchYaw(0.2, math.acos(0.999 * GIMBAL_LOCK_COS_PITCH), 0.1)
    with pytest.raises(ValueError, match="gimbal lock"):
        getattr(just_inside, method)(*args)


def test_non_singular_rate_methods_work_at_gimbal_lock():
    rpy = RollPitchYaw(0.2, math.pi / 2, 0.1)
    assert np.isfinite(rpy.calc_angular_velocity_in_parent_from_rpy_dt(RPY_DT)).all()
    assert np.isfinite(rpy.calc_angular_velocity_in_child_from_rpy_dt(RPY_DT)).all()
    assert np.isfinite(rpy.calc_rotation_matrix_dt(RPY_DT)).all()


def test_rate_argument_checks():
    rpy = RollPitchYaw(RPY)
    with pytest.raises(ValueError, match=r"rpyDt must have shape \(3,\), got \(4,\)"):
        rpy.calc_angular_velocity_in_parent_from_rpy_dt(np.ones(4))
    with pytest.raises(ValueError, match="w_AD_A contains NaN"):
        rpy.calc_rpy_dt_from_angular_velocity_in_parent([0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match=r"alpha_AD_D must have shape \(3,\)"):
        rpy.calc_rpy_ddt_from_angular_accel_in_child(np.ones(3), np.ones(2))
    with pytest.raises(TypeError, match="w_AD_D must be a numpy array"):
        rpy.calc_rpy_dt_from_angular_velocity_in_child(1.0)


# --- protocol ----------------------------------------------------------------


def test_copy_and_repr():
    rpy = RollPitchYaw(0.1, 0.2, 0.3)
    duplicate = copy.deepcopy(rpy)
    assert duplicate is not rpy and duplicate.is_nearby(rpy, 0.0)
    assert repr(rpy) == "RollPitchYaw(roll=0.1, pitch=0.2, yaw=0.3)"
