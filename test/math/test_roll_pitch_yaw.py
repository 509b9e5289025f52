"""Unit tests of geometry_core.math.roll_pitch_yaw."""

import copy
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geometry_core.math import RollPitchYaw, RotationMatrix
from geometry_core.tolerances import GIMBAL_LOCK_COS_PITCH

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
# csrc/rotation.c (rpy_rates) is the one implementation of the seven rate
# methods. The references here share no code with it: the rotation and the
# angles of a rotation are scipy's (extrinsic "xyz" is Drake's R = Rz Ry Rx),
# and the derivatives are central differences in time. pydrake's RollPitchYaw
# answers the same seven in test_drake_differential.py.

RPY = np.array([0.4, -0.6, 1.3])
RPY_DT = np.array([0.7, -1.1, 0.5])


def _rotation(rpy):
    return Rotation.from_euler("xyz", rpy).as_matrix()


def _exp(rotation_vector):
    return Rotation.from_rotvec(rotation_vector).as_matrix()


def _unskew(S):
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2


def _derivatives(f, h=1e-3):
    # f'(0) and f''(0) by the five-point central stencils: truncation O(h⁴),
    # about 1e-12 here; scipy's angles (round-off near 1e-13) leave errors
    # up to about 1e-9 in the first and 1e-8 in the second, well inside the
    # tolerances below and far from the O(1) error of a wrong formula.
    m2, m1, zero, p1, p2 = (f(k * h) for k in (-2, -1, 0, 1, 2))
    return ((m2 - 8 * m1 + 8 * p1 - p2) / (12 * h),
            (-m2 + 16 * m1 - 30 * zero + 16 * p1 - p2) / (12 * h * h))


def _rpy_path(R_of_t, rpy):
    # The angles of R(t) less those of R(0) = R(rpy), wrapped to (-π, π] so that
    # a path crossing ±π stays continuous.
    return lambda t: np.angle(np.exp(1j * (Rotation.from_matrix(R_of_t(t)).as_euler("xyz")
                                           - rpy)))


def _rate_cases(n=25):
    # Away from gimbal lock (|cos p| >= 0.36), where the inverse maps are well
    # conditioned; the angles in the ranges scipy's as_euler returns. Each
    # case: angles, a first and a second vector (rates, accelerations).
    rng = np.random.default_rng(21)
    return [(rng.uniform(-3.0, 3.0, 3) * np.array([1.0, 0.4, 1.0]),
             rng.uniform(-2.0, 2.0, 3), rng.uniform(-2.0, 2.0, 3)) for _ in range(n)]


RATE_CASES = _rate_cases()


@pytest.mark.parametrize(("rpy", "rpy_dt", "_"), RATE_CASES)
def test_forward_rate_maps_are_finite_differences_of_the_rotation(rpy, rpy_dt, _):
    angles, R_AD = RollPitchYaw(rpy), _rotation(rpy)
    R_AD_dt, _ = _derivatives(lambda t: _rotation(rpy + t * rpy_dt))
    np.testing.assert_allclose(angles.calc_rotation_matrix_dt(rpy_dt), R_AD_dt, atol=1e-9)
    # Ṙ = [w_AD_A]ₓ R = R [w_AD_D]ₓ
    np.testing.assert_allclose(angles.calc_angular_velocity_in_parent_from_rpy_dt(rpy_dt),
                               _unskew(R_AD_dt @ R_AD.T), atol=1e-9)
    np.testing.assert_allclose(angles.calc_angular_velocity_in_child_from_rpy_dt(rpy_dt),
                               _unskew(R_AD.T @ R_AD_dt), atol=1e-9)


@pytest.mark.parametrize(("rpy", "w", "_"), RATE_CASES)
def test_rpy_dt_is_the_angle_rate_of_a_rotation_spun_at_w(rpy, w, _):
    angles, R_AD = RollPitchYaw(rpy), _rotation(rpy)
    # Spun at w expressed in A: R(t) = exp([w]ₓ t) R; expressed in D: R exp([w]ₓ t).
    in_parent, _ = _derivatives(_rpy_path(lambda t: _exp(t * w) @ R_AD, rpy))
    in_child, _ = _derivatives(_rpy_path(lambda t: R_AD @ _exp(t * w), rpy))
    np.testing.assert_allclose(angles.calc_rpy_dt_from_angular_velocity_in_parent(w),
                               in_parent, atol=1e-8)
    np.testing.assert_allclose(angles.calc_rpy_dt_from_angular_velocity_in_child(w),
                               in_child, atol=1e-8)


@pytest.mark.parametrize(("rpy", "w", "alpha"), RATE_CASES)
def test_rpy_ddt_is_the_angle_acceleration_of_a_rotation_with_alpha(rpy, w, alpha):
    angles, R_AD = RollPitchYaw(rpy), _rotation(rpy)
    # R(t) = exp([α]ₓ t²/2) exp([w]ₓ t) R has w_AD_A(t) = α t + exp([α]ₓ t²/2) w,
    # so w_AD_A(0) = w and alpha_AD_A(0) = α; mirrored on the right for D.
    rpy_dt, rpy_ddt = _derivatives(
        _rpy_path(lambda t: _exp(0.5 * t * t * alpha) @ _exp(t * w) @ R_AD, rpy))
    np.testing.assert_allclose(
        angles.calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent(rpy_dt, alpha), rpy_ddt,
        atol=1e-6)
    rpy_dt, rpy_ddt = _derivatives(
        _rpy_path(lambda t: R_AD @ _exp(t * w) @ _exp(0.5 * t * t * alpha), rpy))
    np.testing.assert_allclose(angles.calc_rpy_ddt_from_angular_accel_in_child(rpy_dt, alpha),
                               rpy_ddt, atol=1e-6)


def test_rpy_dt_from_angular_velocity_inverts_the_forward_maps():
    rpy = RollPitchYaw(RPY)
    w_AD_A = rpy.calc_angular_velocity_in_parent_from_rpy_dt(RPY_DT)
    w_AD_D = rpy.calc_angular_velocity_in_child_from_rpy_dt(RPY_DT)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_parent(w_AD_A), RPY_DT,
                               atol=1e-14)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_child(w_AD_D), RPY_DT,
                               atol=1e-14)


SINGULAR_CALLS = [
    ("calc_rpy_dt_from_angular_velocity_in_parent", (np.ones(3),)),
    ("calc_rpy_dt_from_angular_velocity_in_child", (np.ones(3),)),
    ("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent", (np.ones(3), np.ones(3))),
    ("calc_rpy_ddt_from_angular_accel_in_child", (np.ones(3), np.ones(3))),
]


@pytest.mark.parametrize(("method", "args"), SINGULAR_CALLS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("offset", [0.0, 1e-3])
def test_gimbal_lock_is_refused_with_the_pitch(method, args, sign, offset):
    pitch = sign * (math.pi / 2 - offset)
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
