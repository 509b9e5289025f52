"""The compiled single-object kernels (csrc/rotation.c) against references that share no code.

``geometry_core.math._scalar`` runs each array-valued operation as one call
into csrc/rotation.c, the only implementation. Here they are checked against
scipy's rotations (roll-pitch-yaw as extrinsic x-y-z, quaternions) and
numpy's linear algebra, to round-off; they must refuse bad input, and accept
arrays in any memory layout (the C reads strided views in place).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geometry_core.math import _scalar
from geometry_core.tolerances import USER_ROTATION_TOLERANCE

ROUND_OFF = 4e-16


def _rotations(rng, n):
    return [_scalar.matrix3_from_rpy(*rng.uniform(-4.0, 4.0, 3).tolist()) for _ in range(n)]


def _poses(rng, n):
    return [_scalar.matrix4_from_rpy(*rng.uniform(-4.0, 4.0, 3).tolist(),
                                     *rng.uniform(-2.0, 2.0, 3).tolist()) for _ in range(n)]


def _scipy_rpy(r, p, y) -> np.ndarray:
    # Drake's RollPitchYaw: R = Rz(y) Ry(p) Rx(r), scipy's extrinsic "xyz".
    return Rotation.from_euler("xyz", [r, p, y]).as_matrix()


def _scipy_quaternion(q: np.ndarray) -> np.ndarray:
    # Scaled first so that scipy's norm cannot overflow; scipy takes x, y, z, w.
    q = q / np.max(np.abs(q))
    return Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()


def _same_quaternion(q_wxyz: np.ndarray, R: np.ndarray, atol: float) -> None:
    """q is R's unit quaternion (w, x, y, z), either sign."""
    x, y, z, w = Rotation.from_matrix(R[:3, :3]).as_quat()
    expected = np.array([w, x, y, z])
    sign = 1.0 if expected @ q_wxyz >= 0.0 else -1.0
    np.testing.assert_allclose(q_wxyz, sign * expected, atol=atol)


def test_constructions_match_scipy():
    rng = np.random.default_rng(0)
    for _ in range(200):
        r, p, y = rng.uniform(-7.0, 7.0, 3).tolist()
        position = rng.uniform(-3.0, 3.0, 3)
        R = _scipy_rpy(r, p, y)
        np.testing.assert_allclose(_scalar.matrix3_from_rpy(r, p, y), R, atol=4 * ROUND_OFF)
        X = _scalar.matrix4_from_rpy(r, p, y, *position.tolist())
        np.testing.assert_allclose(X[:3, :3], R, atol=4 * ROUND_OFF)
        np.testing.assert_array_equal(X[:3, 3], position)
        np.testing.assert_array_equal(X[3], [0.0, 0.0, 0.0, 1.0])
        q = rng.standard_normal(4) * 10.0 ** rng.uniform(-10, 300)
        R_q = _scipy_quaternion(q)
        np.testing.assert_allclose(_scalar.matrix3_from_quaternion(q, 0.0), R_q, atol=4 * ROUND_OFF)
        X_q = _scalar.matrix4_from_quaternion(q, 0.0, position)
        np.testing.assert_allclose(X_q[:3, :3], R_q, atol=4 * ROUND_OFF)
        np.testing.assert_array_equal(X_q[:3, 3], position)


def test_fast_readers_take_only_finite_float64_triples():
    # vector3_or_none and rpy_pose accept a finite float64 (3,) in any layout
    # and answer None for anything else, sending it to the checked path.
    strided = np.arange(9.0)[::3]
    assert _scalar.vector3_or_none(strided) == (0.0, 3.0, 6.0)
    for bad in ([1.0, 2.0, 3.0], np.arange(3), np.zeros((3, 1)), np.zeros(4),
                np.array([0.0, np.nan, 0.0]), np.array([np.inf, 0.0, 0.0]), None, "abc"):
        assert _scalar.vector3_or_none(bad) is None
        assert _scalar.pose_from_rpy((0.1, 0.2, 0.3), bad) is None
    rng = np.random.default_rng(3)
    for _ in range(100):
        r, p, y = rng.uniform(-7.0, 7.0, 3).tolist()
        position = rng.uniform(-3.0, 3.0, 6)[::2]  # strided
        X = _scalar.pose_from_rpy((r, p, y), position)
        np.testing.assert_allclose(X[:3, :3], _scipy_rpy(r, p, y), atol=4 * ROUND_OFF)
        np.testing.assert_array_equal(X[:3, 3], position)
        np.testing.assert_array_equal(X[3], [0.0, 0.0, 0.0, 1.0])


def test_batched_rpy_matrices_match_scipy_and_name_the_bad_row():
    rng = np.random.default_rng(4)
    angles = rng.uniform(-7.0, 7.0, (50, 3))
    R = np.empty((50, 3, 3))
    assert _scalar.rpy_matrices(angles, R) == -1
    np.testing.assert_allclose(R, Rotation.from_euler("xyz", angles).as_matrix(),
                               atol=4 * ROUND_OFF)
    angles[17, 2] = np.nan
    angles[30, 0] = np.inf
    assert _scalar.rpy_matrices(angles, R) == 17
    with pytest.raises(TypeError, match="float64"):
        _scalar.rpy_matrices(angles.astype(np.float32), R)


def test_batched_quaternion_poses_match_scipy_and_name_the_bad_row():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((60, 4)) * 10.0 ** rng.uniform(-100, 100, (60, 1))
    p = rng.uniform(-2.0, 2.0, (60, 3))
    R, X = np.empty((60, 3, 3)), np.empty((60, 4, 4))
    assert _scalar.quaternion_poses(q, None, R) == -1
    assert _scalar.quaternion_poses(q, p, X) == -1
    for k in range(60):
        np.testing.assert_allclose(R[k], _scipy_quaternion(q[k]), atol=4 * ROUND_OFF)
        np.testing.assert_array_equal(X[k, :3, :3], R[k])
        np.testing.assert_array_equal(X[k, :3, 3], p[k])
        np.testing.assert_array_equal(X[k, 3], [0.0, 0.0, 0.0, 1.0])
        # The single-object path is the same formula: equal to the bit.
        np.testing.assert_array_equal(R[k], _scalar.matrix3_from_quaternion(q[k], 0.0))
    q[20], p[12, 1] = 0.0, np.inf
    assert _scalar.quaternion_poses(q, None, R) == 20
    assert _scalar.quaternion_poses(q, p, X) == 12
    with pytest.raises(TypeError, match="float64"):
        _scalar.quaternion_poses(np.ones((60, 4), dtype=np.float32), None, R)


def test_bad_quaternions_and_positions_are_refused():
    zero, nan = np.zeros(4), np.array([1.0, np.nan, 0.0, 0.0])
    for q in (zero, nan):
        assert _scalar.matrix3_from_quaternion(q, 0.0) is None
    bad_p = np.array([0.0, np.inf, 0.0])
    assert _scalar.matrix4_from_quaternion(np.array([1.0, 0, 0, 0]), 0.0, bad_p) is None


def test_conversions_products_inverses_and_checks_match_numpy_and_scipy():
    rng = np.random.default_rng(1)
    for A, B in zip(_rotations(rng, 100) + _poses(rng, 100),
                    _rotations(rng, 100) + _poses(rng, 100)):
        np.testing.assert_allclose(_scalar.multiply(A, B), A @ B, atol=4 * ROUND_OFF)
        np.testing.assert_allclose(_scalar.invert(A), np.linalg.inv(A), atol=8 * ROUND_OFF)
        _same_quaternion(_scalar.quaternion_of(A), A, atol=4 * ROUND_OFF)
        # The roll-pitch-yaw read back gives the rotation again.
        np.testing.assert_allclose(_scalar.matrix3_from_rpy(*_scalar.rpy_of(A)), A[:3, :3],
                                   atol=16 * ROUND_OFF)
        rotation, translation = _scalar.identity_errors(A)
        assert rotation == np.max(np.abs(A[:3, :3] - np.eye(3)))
        assert translation == (np.max(np.abs(A[:3, 3])) if A.shape == (4, 4) else 0.0)
        assert _scalar.max_abs_difference(A, B) == np.max(np.abs(A[:3] - B[:3]))
        assert _scalar.rotation_status(A, USER_ROTATION_TOLERANCE) == 0


@pytest.mark.parametrize("status, M", [
    (1, np.array([[np.nan, 0, 0], [0, 1, 0], [0, 0, 1]])),
    (2, np.diag([1.0, 1.0, 1.1])),
    (3, np.diag([1.0, 1.0, -1.0])),
])
def test_rotation_status_names_the_fault(status, M):
    assert _scalar.rotation_status(M, USER_ROTATION_TOLERANCE) == status


def test_strided_arrays_give_the_same_answer():
    rng = np.random.default_rng(2)
    R, X = _rotations(rng, 1)[0], _poses(rng, 1)[0]
    R_F, X_F = np.asfortranarray(R), np.asfortranarray(X)
    assert not R_F.flags.c_contiguous
    np.testing.assert_allclose(_scalar.multiply(R_F, R_F), R @ R, atol=ROUND_OFF)
    np.testing.assert_allclose(_scalar.invert(X_F), _scalar.invert(X), atol=ROUND_OFF)
    np.testing.assert_allclose(_scalar.quaternion_of(R_F), _scalar.quaternion_of(R),
                               atol=ROUND_OFF)
    assert _scalar.rpy_of(X_F) == pytest.approx(_scalar.rpy_of(X), abs=ROUND_OFF)
    assert _scalar.rotation_status(R_F, USER_ROTATION_TOLERANCE) == 0
    assert _scalar.identity_errors(X_F) == pytest.approx(_scalar.identity_errors(X))
    assert _scalar.max_abs_difference(X_F, X) == pytest.approx(0.0, abs=ROUND_OFF)


def test_assembled_poses_and_rpy_quaternions():
    rng = np.random.default_rng(3)
    for R, X in zip(_rotations(rng, 50), _poses(rng, 50)):
        p = rng.uniform(-2.0, 2.0, 3)
        for rotation, translation in ((R, p), (X, p), (R, X), (X, X)):
            expected = np.eye(4)
            expected[:3, :3] = rotation[:3, :3]
            expected[:3, 3] = translation[:3, 3] if translation.shape == (4, 4) else translation
            np.testing.assert_array_equal(_scalar.assemble(rotation, translation), expected)
        r, pitch, y = rng.uniform(-7.0, 7.0, 3).tolist()
        _same_quaternion(_scalar.rpy_quaternion(r, pitch, y), _scipy_rpy(r, pitch, y),
                         atol=4 * ROUND_OFF)
    bad = np.array([0.0, np.nan, 0.0])
    assert _scalar.assemble(np.eye(3), bad) is None


def test_polar_rotation_is_the_svd_projection_where_it_answers():
    rng = np.random.default_rng(4)
    answered = 0
    for k in range(400):
        M = rng.standard_normal((3, 3)) if k % 2 else (
            _rotations(rng, 1)[0] + 0.05 * rng.standard_normal((3, 3)))
        R = _scalar.polar_rotation(M)
        if R is None:
            assert np.linalg.det(M) <= 0 or np.linalg.cond(M) > 100
            continue
        answered += 1
        U, _, Vt = np.linalg.svd(M)
        np.testing.assert_allclose(R, U @ Vt, atol=1e-14)
    assert answered > 250
    assert _scalar.polar_rotation(np.diag([1.0, 1.0, -1.0])) is None
    assert _scalar.polar_rotation(np.diag([1.0, 1.0, 1e-12])) is None
