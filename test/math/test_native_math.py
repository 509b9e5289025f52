"""The compiled single-object kernels (csrc/rotation.c) against their Python twins.

``geometry_core.math._scalar`` runs each array-valued operation in C when
the extension is built and in Python otherwise; both must give the same
answers to round-off, refuse the same inputs, and accept arrays in any
memory layout (the C reads strided views in place).
"""

from __future__ import annotations

import numpy as np
import pytest

from geometry_core.compiled import native
from geometry_core.math import _scalar
from geometry_core.tolerances import USER_ROTATION_TOLERANCE

pytestmark = pytest.mark.skipif(native is None, reason="compiled kernels not built")

ROUND_OFF = 4e-16


def _rotations(rng, n):
    return [_scalar.matrix3_from_rpy(*rng.uniform(-4.0, 4.0, 3).tolist()) for _ in range(n)]


def _poses(rng, n):
    return [_scalar.matrix4_from_rpy(*rng.uniform(-4.0, 4.0, 3).tolist(),
                                     *rng.uniform(-2.0, 2.0, 3).tolist()) for _ in range(n)]


def test_constructions_match_the_python_formulas():
    rng = np.random.default_rng(0)
    for _ in range(200):
        r, p, y = rng.uniform(-7.0, 7.0, 3).tolist()
        position = rng.uniform(-3.0, 3.0, 3)
        np.testing.assert_allclose(_scalar.matrix3_from_rpy(r, p, y),
                                   _scalar._py_matrix3_from_rpy(r, p, y), atol=ROUND_OFF)
        np.testing.assert_allclose(_scalar.matrix4_from_rpy(r, p, y, *position.tolist()),
                                   _scalar._py_matrix4_from_rpy(r, p, y, *position.tolist()),
                                   atol=ROUND_OFF)
        q = rng.standard_normal(4) * 10.0 ** rng.uniform(-10, 300)
        np.testing.assert_allclose(
            _scalar.matrix3_from_quaternion(q, 0.0),
            _scalar._py_matrix3_from_quaternion(q, 0.0), atol=ROUND_OFF)
        np.testing.assert_allclose(
            _scalar.matrix4_from_quaternion(q, 0.0, position),
            _scalar._py_matrix4_from_quaternion(q, 0.0, position),
            atol=4 * ROUND_OFF)


def test_both_refuse_what_the_python_checks_must_name():
    zero, nan = np.zeros(4), np.array([1.0, np.nan, 0.0, 0.0])
    for q in (zero, nan):
        assert _scalar.matrix3_from_quaternion(q, 0.0) is None
        assert _scalar._py_matrix3_from_quaternion(q, 0.0) is None
    bad_p = np.array([0.0, np.inf, 0.0])
    assert _scalar.matrix4_from_quaternion(np.array([1.0, 0, 0, 0]), 0.0,
                                           bad_p) is None
    assert _scalar._py_matrix4_from_quaternion(np.array([1.0, 0, 0, 0]), 0.0,
                                               bad_p) is None


def test_conversions_products_inverses_and_checks_match():
    rng = np.random.default_rng(1)
    for A, B in zip(_rotations(rng, 100) + _poses(rng, 100),
                    _rotations(rng, 100) + _poses(rng, 100)):
        np.testing.assert_allclose(_scalar.multiply(A, B), _scalar._py_multiply(A, B),
                                   atol=4 * ROUND_OFF)
        np.testing.assert_allclose(_scalar.invert(A), _scalar._py_invert(A), atol=4 * ROUND_OFF)
        np.testing.assert_allclose(_scalar.quaternion_of(A), _scalar._py_quaternion_of(A),
                                   atol=ROUND_OFF)
        np.testing.assert_allclose(_scalar.rpy_of(A), _scalar._py_rpy_of(A), atol=4 * ROUND_OFF)
        assert _scalar.identity_errors(A) == pytest.approx(_scalar._py_identity_errors(A),
                                                           abs=ROUND_OFF)
        assert _scalar.max_abs_difference(A, B) == pytest.approx(
            _scalar._py_max_abs_difference(A, B), abs=ROUND_OFF)
        assert _scalar.rotation_status(A, USER_ROTATION_TOLERANCE) == 0


@pytest.mark.parametrize("status, M", [
    (1, np.array([[np.nan, 0, 0], [0, 1, 0], [0, 0, 1]])),
    (2, np.diag([1.0, 1.0, 1.1])),
    (3, np.diag([1.0, 1.0, -1.0])),
])
def test_rotation_status_names_the_same_fault(status, M):
    assert _scalar.rotation_status(M, USER_ROTATION_TOLERANCE) == status
    assert _scalar._py_rotation_status(M, USER_ROTATION_TOLERANCE) == status


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


def test_assembled_poses_and_rpy_quaternions_match():
    rng = np.random.default_rng(3)
    for R, X in zip(_rotations(rng, 50), _poses(rng, 50)):
        p = rng.uniform(-2.0, 2.0, 3)
        for rotation, translation in ((R, p), (X, p), (R, X), (X, X)):
            np.testing.assert_array_equal(_scalar.assemble(rotation, translation),
                                          _scalar._py_assemble(rotation, translation))
        r, pitch, y = rng.uniform(-7.0, 7.0, 3).tolist()
        np.testing.assert_allclose(_scalar.rpy_quaternion(r, pitch, y),
                                   _scalar._py_rpy_quaternion(r, pitch, y), atol=ROUND_OFF)
    bad = np.array([0.0, np.nan, 0.0])
    assert _scalar.assemble(np.eye(3), bad) is None
    assert _scalar._py_assemble(np.eye(3), bad) is None


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


RATE_METHODS = [
    ("calc_angular_velocity_in_parent_from_rpy_dt", 1),
    ("calc_angular_velocity_in_child_from_rpy_dt", 1),
    ("calc_rpy_dt_from_angular_velocity_in_parent", 1),
    ("calc_rpy_dt_from_angular_velocity_in_child", 1),
    ("calc_rotation_matrix_dt", 1),
    ("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent", 2),
    ("calc_rpy_ddt_from_angular_accel_in_child", 2),
]


@pytest.mark.parametrize("method, arguments", RATE_METHODS)
def test_compiled_rate_methods_match_their_python(method, arguments, monkeypatch):
    from geometry_core.math import RollPitchYaw, roll_pitch_yaw

    rng = np.random.default_rng(5)
    cases = []
    for _ in range(100):
        rpy = RollPitchYaw(*rng.uniform(-3.0, 3.0, 3).tolist())
        cases.append((rpy, [rng.uniform(-2.0, 2.0, 3) for _ in range(arguments)]))
    compiled = [getattr(rpy, method)(*args) for rpy, args in cases]
    monkeypatch.setattr(roll_pitch_yaw, "_rates", None)
    for (rpy, args), found in zip(cases, compiled):
        np.testing.assert_allclose(found, getattr(rpy, method)(*args), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method, arguments",
                         [m for m in RATE_METHODS if m[0].startswith("calc_rpy_d")])
def test_compiled_rate_methods_leave_gimbal_lock_to_python(method, arguments):
    from geometry_core.math import RollPitchYaw

    at_lock = RollPitchYaw(0.1, np.pi / 2, 0.2)
    with pytest.raises(ValueError, match="gimbal lock"):
        getattr(at_lock, method)(*[np.ones(3)] * arguments)
