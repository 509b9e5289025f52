"""Differential tests of geometry_core.math against pydrake.math for random inputs.

Every case draws seeded random inputs, runs the same operation in both
libraries and compares results element by element.
"""

import math

import numpy as np
import pytest

from geometry_core.math import (
    RigidTransform,
    RollPitchYaw,
    RotationMatrix,
    compute_basis_from_axis,
)

dm = pytest.importorskip(
    "pydrake.math", reason="pydrake (the drake test extra) is needed for differential tests"
)
eigen_geometry = pytest.importorskip("pydrake.common.eigen_geometry")

pytestmark = pytest.mark.drake

N = 200


def _rng(seed):
    return np.random.default_rng(seed)


def _random_rpys(seed, n=N):
    return _rng(seed).uniform(-math.pi, math.pi, (n, 3)) * np.array([1.0, 0.5, 1.0])


def _random_quaternions(seed, n=N):
    q = _rng(seed).standard_normal((n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _near_gimbal_lock_rpys(seed, n=N):
    rng = _rng(seed)
    offsets = 10.0 ** rng.uniform(-15.0, -3.0, n)
    offsets[:5] = 0.0  # exactly at gimbal lock too
    signs = rng.choice([1.0, -1.0], n)
    roll_yaw = rng.uniform(-math.pi, math.pi, (n, 2))
    return np.column_stack([roll_yaw[:, 0], signs * (math.pi / 2 - offsets), roll_yaw[:, 1]])


def _drake_quaternion(q_wxyz):
    return eigen_geometry.Quaternion(q_wxyz / np.linalg.norm(q_wxyz))


# --- RotationMatrix ------------------------------------------------------------


def test_rotation_from_rpy():
    for rpy in _random_rpys(1):
        ours = RotationMatrix(RollPitchYaw(rpy)).matrix()
        drake = dm.RotationMatrix(dm.RollPitchYaw(rpy)).matrix()
        np.testing.assert_allclose(ours, drake, atol=1e-15)


def test_rotation_from_quaternion():
    scales = _rng(2).uniform(0.1, 10.0, N)
    for q, scale in zip(_random_quaternions(3), scales):
        ours = RotationMatrix(quaternion=scale * q).matrix()
        drake = dm.RotationMatrix(_drake_quaternion(q)).matrix()
        np.testing.assert_allclose(ours, drake, atol=2e-15)


def test_rotation_from_angle_axis():
    rng = _rng(4)
    for theta, axis in zip(rng.uniform(-7.0, 7.0, N), rng.standard_normal((N, 3))):
        ours = RotationMatrix(theta_lambda=(theta, 3.0 * axis)).matrix()
        drake_axis = axis / np.linalg.norm(axis)
        drake = dm.RotationMatrix(eigen_geometry.AngleAxis(theta, drake_axis)).matrix()
        np.testing.assert_allclose(ours, drake, atol=2e-15)


def test_axis_rotations():
    for theta in _rng(5).uniform(-7.0, 7.0, 20):
        for ours, drake in (
            (RotationMatrix.make_x_rotation, dm.RotationMatrix.MakeXRotation),
            (RotationMatrix.make_y_rotation, dm.RotationMatrix.MakeYRotation),
            (RotationMatrix.make_z_rotation, dm.RotationMatrix.MakeZRotation),
        ):
            np.testing.assert_allclose(ours(theta).matrix(), drake(theta).matrix(), atol=1e-16)


def test_to_quaternion():
    for q in _random_quaternions(6):
        R = dm.RotationMatrix(_drake_quaternion(q))
        ours = RotationMatrix(R.matrix()).to_quaternion()
        drake = R.ToQuaternion().wxyz()
        assert ours[0] >= 0 and drake[0] >= 0
        np.testing.assert_allclose(ours, drake, atol=2e-15)


def test_project_to_rotation_matrix():
    rng = _rng(7)
    near_rotations = [dm.RotationMatrix(_drake_quaternion(q)).matrix()
                      + 0.05 * rng.standard_normal((3, 3)) for q in _random_quaternions(8, 100)]
    general = [M for M in rng.standard_normal((200, 3, 3)) if np.linalg.det(M) > 1e-3][:100]
    for M in near_rotations + general:
        ours = RotationMatrix.project_to_rotation_matrix(M).matrix()
        drake = dm.RotationMatrix.ProjectToRotationMatrix(M).matrix()
        np.testing.assert_allclose(ours, drake, atol=1e-13)


def test_compute_basis_from_axis_full_basis():
    rng = _rng(9)
    axes = rng.standard_normal((N, 3)) * 10.0 ** rng.uniform(-9.0, 3.0, (N, 1))
    axes[:6] = [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0, 0, -2.0], [1.0, 1.0, 0], [1.0, 1, 1]]
    for axis in axes:
        for axis_index in range(3):
            ours = compute_basis_from_axis(axis_index, axis)
            drake = dm.RotationMatrix.MakeFromOneVector(axis, axis_index).matrix()
            np.testing.assert_allclose(ours, drake, atol=1e-15)


# --- RollPitchYaw --------------------------------------------------------------


def test_rpy_from_random_rotations():
    for q in _random_quaternions(10):
        R = dm.RotationMatrix(_drake_quaternion(q)).matrix()
        ours = RollPitchYaw(RotationMatrix(R))
        drake = dm.RollPitchYaw(dm.RotationMatrix(R))
        np.testing.assert_allclose(ours.vector(), drake.vector(), atol=1e-13)
        np.testing.assert_allclose(ours.to_rotation_matrix().matrix(),
                                   drake.ToRotationMatrix().matrix(), atol=1e-15)


def test_rpy_from_quaternion_and_raw_matrix():
    for q in _random_quaternions(11):
        drake = dm.RollPitchYaw(_drake_quaternion(q))
        np.testing.assert_allclose(RollPitchYaw(quaternion=q).vector(), drake.vector(),
                                   atol=1e-13)
        M = dm.RotationMatrix(_drake_quaternion(q)).matrix()
        np.testing.assert_allclose(RollPitchYaw(matrix=M).vector(),
                                   dm.RollPitchYaw(matrix=M).vector(), atol=1e-13)


def test_rpy_from_near_gimbal_lock_rotations():
    for rpy in _near_gimbal_lock_rpys(12):
        R = dm.RotationMatrix(dm.RollPitchYaw(rpy)).matrix()
        ours = RollPitchYaw(RotationMatrix(R))
        drake = dm.RollPitchYaw(dm.RotationMatrix(R))
        # The matrices the angles describe agree to round-off ...
        np.testing.assert_allclose(ours.to_rotation_matrix().matrix(),
                                   drake.ToRotationMatrix().matrix(), atol=2e-15)
        np.testing.assert_allclose(ours.to_rotation_matrix().matrix(), R, atol=2e-15)
        # ... and so does the pitch; roll and yaw are individually ill-defined
        # there (only their sum or difference is), so they are not compared.
        assert abs(ours.pitch_angle() - drake.pitch_angle()) < 1e-15


def test_rpy_to_quaternion():
    for rpy in _random_rpys(13) * 2.0:
        np.testing.assert_allclose(RollPitchYaw(rpy).to_quaternion(),
                                   dm.RollPitchYaw(rpy).ToQuaternion().wxyz(), atol=1e-15)


def _rates_case(seed):
    rng = _rng(seed)
    rpys = rng.uniform(-math.pi, math.pi, (N, 3)) * np.array([1.0, 0.49, 1.0])
    return rpys, rng.uniform(-5.0, 5.0, (N, 3)), rng.uniform(-5.0, 5.0, (N, 3))


@pytest.mark.parametrize(
    ("ours", "drake", "arguments"),
    [
        ("calc_angular_velocity_in_parent_from_rpy_dt",
         "CalcAngularVelocityInParentFromRpyDt", 1),
        ("calc_angular_velocity_in_child_from_rpy_dt", "CalcAngularVelocityInChildFromRpyDt", 1),
        ("calc_rpy_dt_from_angular_velocity_in_parent",
         "CalcRpyDtFromAngularVelocityInParent", 1),
        ("calc_rpy_dt_from_angular_velocity_in_child", "CalcRpyDtFromAngularVelocityInChild", 1),
        ("calc_rotation_matrix_dt", "CalcRotationMatrixDt", 1),
        ("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent",
         "CalcRpyDDtFromRpyDtAndAngularAccelInParent", 2),
        ("calc_rpy_ddt_from_angular_accel_in_child", "CalcRpyDDtFromAngularAccelInChild", 2),
    ],
)
def test_rate_methods(ours, drake, arguments):
    rpys, first, second = _rates_case(14)
    for rpy, a, b in zip(rpys, first, second):
        args = (a, b)[:arguments]
        expected = getattr(dm.RollPitchYaw(rpy), drake)(*args)
        result = getattr(RollPitchYaw(rpy), ours)(*args)
        scale = 1.0 + np.abs(expected).max()
        np.testing.assert_allclose(result, expected, atol=1e-13 * scale)


@pytest.mark.parametrize(
    ("ours", "drake", "arguments"),
    [
        ("calc_rpy_dt_from_angular_velocity_in_parent",
         "CalcRpyDtFromAngularVelocityInParent", 1),
        ("calc_rpy_dt_from_angular_velocity_in_child", "CalcRpyDtFromAngularVelocityInChild", 1),
        ("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent",
         "CalcRpyDDtFromRpyDtAndAngularAccelInParent", 2),
        ("calc_rpy_ddt_from_angular_accel_in_child", "CalcRpyDDtFromAngularAccelInChild", 2),
    ],
)
def test_gimbal_lock_threshold_matches_drake(ours, drake, arguments):
    args = (np.ones(3), np.ones(3))[:arguments]
    for cos_pitch in (0.00799, 0.008, 0.00801, 0.0079999999, 0.0080000001):
        for pitch in (math.acos(cos_pitch), -math.acos(cos_pitch)):
            try:
                getattr(dm.RollPitchYaw(0.1, pitch, 0.2), drake)(*args)
                drake_refuses = False
            except RuntimeError:
                drake_refuses = True
            try:
                getattr(RollPitchYaw(0.1, pitch, 0.2), ours)(*args)
                we_refuse = False
            except ValueError as error:
                assert "gimbal lock" in str(error)
                we_refuse = True
            assert we_refuse == drake_refuses, (cos_pitch, pitch)


# --- RigidTransform ------------------------------------------------------------


def _transform_pairs(seed):
    rng = _rng(seed)
    for q, p in zip(_random_quaternions(seed), rng.uniform(-10.0, 10.0, (N, 3))):
        yield RigidTransform(quaternion=q, p=p), dm.RigidTransform(_drake_quaternion(q), p)


def test_rigid_transform_construction_and_inverse():
    for ours, drake in _transform_pairs(15):
        np.testing.assert_allclose(ours.get_as_matrix4(), drake.GetAsMatrix4(), atol=2e-15)
        np.testing.assert_allclose(ours.inverse().get_as_matrix4(),
                                   drake.inverse().GetAsMatrix4(), atol=1e-14)


def test_rigid_transform_multiply():
    rng = _rng(16)
    for (X_AB, dX_AB), (X_BC, dX_BC) in zip(_transform_pairs(17), _transform_pairs(18)):
        np.testing.assert_allclose((X_AB @ X_BC).get_as_matrix4(),
                                   dX_AB.multiply(dX_BC).GetAsMatrix4(), atol=1e-13)
        p_BoQ_B = rng.uniform(-10.0, 10.0, 3)
        np.testing.assert_allclose(X_AB @ p_BoQ_B, dX_AB.multiply(p_BoQ_B), atol=1e-13)
        points = rng.uniform(-10.0, 10.0, (3, 7))
        np.testing.assert_allclose(X_AB.multiply(points), dX_AB.multiply(points), atol=1e-13)


def test_rigid_transform_from_pose_and_rpy():
    rng = _rng(19)
    for rpy, p in zip(_random_rpys(20), rng.uniform(-10.0, 10.0, (N, 3))):
        drake = dm.RigidTransform(dm.RollPitchYaw(rpy), p)
        np.testing.assert_allclose(RigidTransform(RollPitchYaw(rpy), p).get_as_matrix34(),
                                   drake.GetAsMatrix34(), atol=1e-15)
        np.testing.assert_allclose(RigidTransform(pose=drake.GetAsMatrix4()).get_as_matrix4(),
                                   dm.RigidTransform(pose=drake.GetAsMatrix4()).GetAsMatrix4(),
                                   atol=0)
