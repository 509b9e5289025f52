"""Unit tests of geometry_core.math.rigid_transform."""

import copy
import math

import numpy as np
import pytest

from geometry_core.math import RigidTransform, RollPitchYaw, RotationMatrix

RPY = RollPitchYaw(0.3, -0.4, 1.2)
R_AB = RotationMatrix(RPY)
P = np.array([1.0, -2.0, 3.0])


def _matrix4(R, p):
    X = np.eye(4)
    X[:3, :3] = R
    X[:3, 3] = p
    return X


X_EXPECTED = _matrix4(R_AB.matrix(), P)


# --- construction ------------------------------------------------------------


def test_default_and_identity():
    for X in (RigidTransform(), RigidTransform.identity()):
        assert X.is_exactly_identity()
        np.testing.assert_array_equal(X.get_as_matrix4(), np.eye(4))


def test_all_rotation_and_position_forms_agree():
    q = R_AB.to_quaternion()
    theta = 2 * math.acos(q[0])
    axis = q[1:] / math.sin(theta / 2)
    forms = [
        RigidTransform(R_AB, P),
        RigidTransform(R_AB, [1.0, -2.0, 3.0]),
        RigidTransform(R=R_AB, p=P),
        RigidTransform(R_AB, p=P),
        RigidTransform(RPY, P),
        RigidTransform(rpy=RPY, p=P),
        RigidTransform(quaternion=q, p=P),
        RigidTransform(quaternion=-3.0 * q, p=P),
        RigidTransform(theta_lambda=(theta, 4.0 * axis), p=P),
        RigidTransform(X_EXPECTED),
        RigidTransform(pose=X_EXPECTED),
        RigidTransform(pose=X_EXPECTED[:3]),
        RigidTransform(X_EXPECTED.tolist()),
        RigidTransform(RigidTransform(R_AB, P)),
    ]
    for X in forms:
        np.testing.assert_allclose(X.get_as_matrix4(), X_EXPECTED, atol=1e-15)


def test_rotation_only_and_position_only_forms():
    np.testing.assert_array_equal(RigidTransform(R_AB).get_as_matrix4(),
                                  _matrix4(R_AB.matrix(), np.zeros(3)))
    np.testing.assert_array_equal(RigidTransform(R=R_AB).translation(), np.zeros(3))
    np.testing.assert_array_equal(RigidTransform(RPY).rotation().matrix(), R_AB.matrix())
    for X in (RigidTransform(P), RigidTransform(p=P), RigidTransform(pose=P),
              RigidTransform([1.0, -2.0, 3.0])):
        np.testing.assert_array_equal(X.get_as_matrix4(), _matrix4(np.eye(3), P))


def test_constructor_copies_its_inputs():
    p = P.copy()
    X = RigidTransform(R_AB, p)
    p[0] = 100.0
    M = X_EXPECTED.copy()
    Y = RigidTransform(M)
    M[0, 3] = 100.0
    assert X.translation()[0] == 1.0 and Y.translation()[0] == 1.0
    Z = RigidTransform(X)
    Z.set_translation(np.zeros(3))
    np.testing.assert_array_equal(X.translation(), P)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((np.ones(4),), {}, ValueError, r"got \(4,\); a \(4,\) array is ambiguous.*quaternion="),
        ((np.eye(3),), {}, ValueError,
         r"pose must have shape \(3,\), \(3, 4\) or \(4, 4\), got \(3, 3\).*RotationMatrix\(R\)"),
        ((np.ones(5),), {}, ValueError, r"pose must have shape .* got \(5,\)"),
        ((R_AB, np.ones(4)), {}, ValueError, r"p must have shape \(3,\), got \(4,\)"),
        ((R_AB, [0.0, np.nan, 0.0]), {}, ValueError, "p contains NaN"),
        ((R_AB, np.array([np.inf, 0.0, 0.0])), {}, ValueError, "p contains inf"),
        ((), {"p": "abc"}, TypeError, "p must be a numpy array, list or tuple"),
        ((np.eye(3), P), {}, TypeError, "must be a RotationMatrix or RollPitchYaw"),
        ((np.eye(3),), {"p": P}, TypeError, "must be a RotationMatrix or RollPitchYaw"),
        ((), {"R": np.eye(3), "p": P}, TypeError,
         r"R must be a RotationMatrix.*RotationMatrix\(R\)"),
        ((), {"R": R_AB, "rpy": RPY}, TypeError, "give one rotation among"),
        ((R_AB,), {"R": R_AB}, TypeError, "R both positionally and by keyword"),
        ((R_AB, P), {"p": P}, TypeError, "p both positionally and by keyword"),
        ((), {"pose": X_EXPECTED, "p": P}, TypeError, r"pose=...\) takes no other argument"),
        ((RigidTransform(),), {"p": P}, TypeError, "takes no keywords"),
        ((R_AB, P, P), {}, TypeError, "at most 2 positional arguments, got 3"),
        ((), {"quaternion": np.zeros(4)}, ValueError, "quaternion is zero"),
        ((), {"theta_lambda": (1.0, np.zeros(3))}, ValueError, "theta_lambda axis is zero"),
        ((), {"pose": {"a": 1}}, TypeError, "pose must be a numpy array, list or tuple"),
    ],
)
def test_constructor_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        RigidTransform(*args, **kwargs)


@pytest.mark.parametrize(
    ("pose", "message"),
    [
        (_matrix4(np.eye(3), P) + np.diag([0.0, 0.0, 0.0, 1e-12]),
         r"pose's last row must be exactly \[0, 0, 0, 1\], got \[0.0, 0.0, 0.0, 1.000000000001\]"),
        (np.vstack([X_EXPECTED[:3], [1.0, 0.0, 0.0, 1.0]]), "last row must be exactly"),
        (_matrix4(2 * np.eye(3), P),
         r"pose's rotation block is not orthonormal: max \|R Rᵀ - I\| = 3"),
        (_matrix4(np.diag([1.0, -1.0, 1.0]), P), "pose's rotation block is a reflection"),
        (_matrix4(np.eye(3), [0.0, np.nan, 0.0]), "pose contains NaN"),
        (np.hstack([np.diag([1.0, 1.0, 1.1]), P[:, None]]), "rotation block is not orthonormal"),
    ],
)
def test_pose_errors(pose, message):
    with pytest.raises(ValueError, match=message):
        RigidTransform(pose=pose)


# --- access ------------------------------------------------------------------


def test_getters_return_copies():
    X = RigidTransform(R_AB, P)
    X.get_as_matrix4()[0, 3] = 9.0
    X.get_as_matrix34()[0, 3] = 9.0
    X.translation()[0] = 9.0
    X.rotation().set(np.eye(3))
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)
    np.testing.assert_array_equal(X.get_as_matrix34(), X_EXPECTED[:3])
    assert X.get_as_matrix34().shape == (3, 4)


def test_set_identity_returns_self():
    X = RigidTransform(R_AB, P)
    assert X.set_identity() is X
    assert X.is_exactly_identity()


def test_set_and_its_atomicity():
    X = RigidTransform()
    X.set(R_AB, P)
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)
    with pytest.raises(ValueError, match=r"p must have shape \(3,\), got \(2,\)"):
        X.set(RotationMatrix(), [1.0, 2.0])
    with pytest.raises(TypeError, match="R must be a RotationMatrix"):
        X.set(np.eye(3), P)
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)


def test_set_rotation_forms_keep_translation():
    q = R_AB.to_quaternion()
    theta = 2 * math.acos(q[0])
    axis = q[1:] / math.sin(theta / 2)
    for form in ({"R": R_AB}, {"rpy": RPY}, {"quaternion": q}, {"theta_lambda": (theta, axis)}):
        X = RigidTransform(P)
        X.set_rotation(**form)
        np.testing.assert_allclose(X.get_as_matrix4(), X_EXPECTED, atol=1e-15)
    X = RigidTransform(P)
    X.set_rotation(RPY)
    np.testing.assert_allclose(X.get_as_matrix4(), X_EXPECTED, atol=1e-15)


def test_set_rotation_errors_leave_transform_unchanged():
    X = RigidTransform(R_AB, P)
    with pytest.raises(TypeError, match="R must be a RotationMatrix or RollPitchYaw"):
        X.set_rotation(np.eye(3))
    with pytest.raises(TypeError, match="set_rotation needs one of"):
        X.set_rotation()
    with pytest.raises(ValueError, match="quaternion contains NaN"):
        X.set_rotation(quaternion=[np.nan, 0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="give one rotation among"):
        X.set_rotation(R_AB, quaternion=[1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)


def test_set_translation():
    X = RigidTransform(R_AB)
    X.set_translation(P)
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)
    with pytest.raises(ValueError, match="p contains NaN"):
        X.set_translation([np.nan, 0.0, 0.0])
    np.testing.assert_array_equal(X.translation(), P)


# --- algebra -----------------------------------------------------------------


def test_inverse():
    X_AB = RigidTransform(R_AB, P)
    X_BA = X_AB.inverse()
    np.testing.assert_allclose(X_BA.get_as_matrix4(), np.linalg.inv(X_EXPECTED), atol=1e-15)
    assert tuple(X_BA.get_as_matrix4()[3]) == (0.0, 0.0, 0.0, 1.0)
    assert (X_AB @ X_BA).is_identity_to_epsilon(1e-15)


def test_compose_transforms():
    X_AB = RigidTransform(R_AB, P)
    X_BC = RigidTransform(RollPitchYaw(-1.0, 0.5, 0.2), [0.5, 0.0, -1.0])
    expected = X_EXPECTED @ X_BC.get_as_matrix4()
    np.testing.assert_allclose(X_AB.multiply(X_BC).get_as_matrix4(), expected, atol=1e-15)
    X_AC = X_AB @ X_BC
    np.testing.assert_allclose(X_AC.get_as_matrix4(), expected, atol=1e-15)
    assert tuple(X_AC.get_as_matrix4()[3]) == (0.0, 0.0, 0.0, 1.0)


def test_transform_points_keeps_shape():
    X_AB = RigidTransform(R_AB, P)
    p_BoQ_B = np.array([0.1, 0.2, 0.3])
    expected = R_AB.matrix() @ p_BoQ_B + P
    np.testing.assert_allclose(X_AB.multiply(p_BoQ_B), expected, atol=1e-15)
    np.testing.assert_allclose(X_AB @ [0.1, 0.2, 0.3], expected, atol=1e-15)
    points = np.arange(15.0).reshape(3, 5)
    result = X_AB @ points
    assert result.shape == (3, 5)
    np.testing.assert_allclose(result, R_AB.matrix() @ points + P[:, None], atol=1e-14)
    np.testing.assert_allclose(X_AB.multiply(points), result, atol=0)
    assert (X_AB @ np.ones((3, 1))).shape == (3, 1)


def test_multiply_errors():
    X = RigidTransform()
    with pytest.raises(ValueError, match=r"p_BoQ_B must have shape \(3,\) or \(3, N\), got \(4,\)"):
        X @ np.ones(4)
    with pytest.raises(ValueError, match=r"p_BoQ_B must have shape .* got \(5, 3\)"):
        X.multiply(np.ones((5, 3)))
    with pytest.raises(ValueError, match="p_BoQ_B contains NaN"):
        X @ np.array([[np.nan], [0.0], [0.0]])
    with pytest.raises(TypeError):
        X @ RotationMatrix()
    with pytest.raises(TypeError):
        np.eye(4) @ X


# --- predicates and protocol -------------------------------------------------


def test_is_exactly_identity_and_to_epsilon():
    assert not RigidTransform(P).is_exactly_identity()
    near = RigidTransform(RotationMatrix.make_x_rotation(1e-15), [1e-9, 0.0, -1e-9])
    assert not near.is_exactly_identity()
    assert near.is_identity_to_epsilon(1e-8)
    assert not near.is_identity_to_epsilon(1e-10)
    assert not RigidTransform(RotationMatrix.make_x_rotation(1e-9)).is_identity_to_epsilon(1.0)
    with pytest.raises(ValueError, match="translation_tolerance must be finite"):
        near.is_identity_to_epsilon(float("nan"))


def test_is_nearby_uses_rotation_and_translation():
    X = RigidTransform(R_AB, P)
    assert X.is_nearby(RigidTransform(R_AB, P + 1e-9), 1e-8)
    assert not X.is_nearby(RigidTransform(R_AB, P + 1e-7), 1e-8)
    rotated = RigidTransform(R_AB @ RotationMatrix.make_z_rotation(1e-6), P)
    assert not X.is_nearby(rotated, 1e-8)
    assert X.is_nearby(rotated, 1e-5)
    with pytest.raises(TypeError, match="other must be a RigidTransform"):
        X.is_nearby(X_EXPECTED, 1.0)


def test_no_equality_and_no_array_conversion():
    assert RigidTransform.__eq__ is object.__eq__
    assert not hasattr(RigidTransform, "__array__")


def test_copy_and_deepcopy_are_independent():
    X = RigidTransform(R_AB, P)
    for duplicate in (copy.copy(X), copy.deepcopy(X)):
        duplicate.set_translation(np.zeros(3))
        np.testing.assert_array_equal(X.translation(), P)


def test_trusted_fast_path_wraps_without_copy():
    M = X_EXPECTED.copy()
    X = RigidTransform._from_trusted_matrix4(M)
    np.testing.assert_array_equal(X.get_as_matrix4(), X_EXPECTED)
    assert X.get_as_matrix4() is not M


def test_repr():
    text = repr(RigidTransform(P))
    assert text.startswith("RigidTransform(\n  R=RotationMatrix([")
    assert "p=[1.0, -2.0, 3.0]" in text
