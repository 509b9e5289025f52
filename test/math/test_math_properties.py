"""Hypothesis property tests of geometry_core.math (inverses, composition, round trips)."""

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from geometry_core.math import (
    RigidTransform,
    RollPitchYaw,
    RotationMatrix,
    compute_basis_from_axis,
    inverse_matrix4,
    quaternion_wxyz_to_xyzw,
    quaternion_xyzw_to_wxyz,
    quaternions_to_rotation_matrices,
    rotation_matrices_from_rpy,
)

settings.register_profile("geometry_core_math", deadline=None)
settings.load_profile("geometry_core_math")

angles = st.floats(-math.pi, math.pi)
wide_angles = st.floats(-10.0, 10.0)
coordinates = st.floats(-100.0, 100.0)
positions = st.tuples(coordinates, coordinates, coordinates).map(np.array)
rpys = st.tuples(wide_angles, wide_angles, wide_angles).map(np.array)


@st.composite
def quaternions(draw):
    q = np.array(draw(st.tuples(*[st.floats(-1.0, 1.0)] * 4)))
    assume(np.linalg.norm(q) > 0.1)
    return q


@st.composite
def transforms(draw):
    return RigidTransform(quaternion=draw(quaternions()), p=draw(positions))


def _translation_scale(*Xs):
    return 1.0 + max(float(np.abs(X.translation()).max()) for X in Xs)


@given(transforms())
def test_transform_times_its_inverse_is_identity(X):
    assert (X @ X.inverse()).is_identity_to_epsilon(1e-14 * _translation_scale(X))
    assert (X.inverse() @ X).is_identity_to_epsilon(1e-14 * _translation_scale(X))


@given(transforms())
def test_inverse_of_inverse(X):
    assert X.inverse().inverse().is_nearby(X, 1e-14 * _translation_scale(X))


@given(transforms(), transforms(), transforms())
def test_composition_is_associative(X_AB, X_BC, X_CD):
    left = (X_AB @ X_BC) @ X_CD
    right = X_AB @ (X_BC @ X_CD)
    assert left.is_nearby(right, 1e-14 * _translation_scale(X_AB, X_BC, X_CD) * 4)


@given(transforms(), transforms(), positions)
def test_composition_acts_on_points_like_sequential_application(X_AB, X_BC, p_CoQ_C):
    scale = _translation_scale(X_AB, X_BC) + float(np.abs(p_CoQ_C).max())
    np.testing.assert_allclose((X_AB @ X_BC) @ p_CoQ_C, X_AB @ (X_BC @ p_CoQ_C),
                               atol=1e-14 * scale * 4)


@given(transforms(), transforms())
def test_inverse_of_product_is_reversed_product_of_inverses(X_AB, X_BC):
    assert (X_AB @ X_BC).inverse().is_nearby(
        X_BC.inverse() @ X_AB.inverse(), 1e-14 * _translation_scale(X_AB, X_BC) * 4)


@given(st.lists(transforms(), min_size=1, max_size=5))
def test_batch_inverse_matches_class_inverse(Xs):
    stack = np.array([X.get_as_matrix4() for X in Xs])
    for X, X_inverse in zip(Xs, inverse_matrix4(stack)):
        # matmul and einsum may round differently (FMA): equal to a few ulps.
        np.testing.assert_allclose(X.inverse().get_as_matrix4(), X_inverse,
                                   atol=1e-15 * _translation_scale(X))


@given(rpys)
def test_rpy_to_rotation_to_rpy_reproduces_the_rotation(rpy_vector):
    R = RollPitchYaw(rpy_vector).to_rotation_matrix()
    recovered = RollPitchYaw(R)
    r, p, y = recovered.vector()
    assert -math.pi <= r <= math.pi
    assert -math.pi / 2 <= p <= math.pi / 2
    assert -math.pi <= y <= math.pi
    assert recovered.to_rotation_matrix().is_nearby(R, 1e-14)


@given(angles, st.floats(-math.pi / 2 + 1e-3, math.pi / 2 - 1e-3), angles)
def test_rpy_round_trip_recovers_canonical_angles(r, p, y):
    recovered = RollPitchYaw(RollPitchYaw(r, p, y).to_rotation_matrix())
    difference = recovered.vector() - np.array([r, p, y])
    # Roll and yaw of ±π are the same angle.
    difference[[0, 2]] = (difference[[0, 2]] + math.pi) % (2 * math.pi) - math.pi
    np.testing.assert_allclose(difference, 0.0, atol=1e-11)


@given(angles, angles, st.floats(-12.0, -4.0), st.sampled_from([1.0, -1.0]))
def test_gimbal_lock_neighbourhood_round_trip(r, y, log10_offset, sign):
    # Pitch within 1e-12 .. 1e-4 of ±π/2: angles may come back different,
    # but the rotation they describe is the same to 1e-12.
    pitch = sign * (math.pi / 2 - 10.0**log10_offset)
    R = RollPitchYaw(r, pitch, y).to_rotation_matrix()
    recovered = RollPitchYaw(R)
    assert recovered.to_rotation_matrix().is_nearby(R, 1e-12)
    assert abs(recovered.pitch_angle() - pitch) < 1e-6


@given(quaternions())
def test_quaternion_to_rotation_to_quaternion(q):
    q_unit = q / np.linalg.norm(q)
    q_back = RotationMatrix(quaternion=q).to_quaternion()
    assert q_back[0] >= 0
    np.testing.assert_allclose(np.linalg.norm(q_back), 1.0, atol=1e-15)
    # q and -q are the same rotation.
    assert min(np.abs(q_back - q_unit).max(), np.abs(q_back + q_unit).max()) < 1e-12


@given(rpys)
def test_rotation_to_quaternion_to_rotation(rpy_vector):
    R = RollPitchYaw(rpy_vector).to_rotation_matrix()
    q = R.to_quaternion()
    assert q[0] >= 0
    assert RotationMatrix(quaternion=q).is_nearby(R, 1e-14)


@given(rpys)
def test_rpy_quaternion_and_rpy_matrix_agree(rpy_vector):
    rpy = RollPitchYaw(rpy_vector)
    assert RotationMatrix(quaternion=rpy.to_quaternion()).is_nearby(rpy.to_rotation_matrix(),
                                                                    1e-14)
    assert RollPitchYaw(quaternion=rpy.to_quaternion()).is_nearly_same_orientation(rpy, 1e-14)


@given(rpys, st.tuples(*[st.floats(-10.0, 10.0)] * 3).map(np.array))
def test_rate_maps_invert_away_from_gimbal_lock(rpy_vector, rpy_dt):
    rpy = RollPitchYaw(rpy_vector)
    assume(abs(math.cos(rpy.pitch_angle())) > 0.1)
    w_AD_A = rpy.calc_angular_velocity_in_parent_from_rpy_dt(rpy_dt)
    w_AD_D = rpy.calc_angular_velocity_in_child_from_rpy_dt(rpy_dt)
    np.testing.assert_allclose(rpy.to_rotation_matrix().matrix().T @ w_AD_A, w_AD_D, atol=1e-12)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_parent(w_AD_A), rpy_dt,
                               atol=1e-12)
    np.testing.assert_allclose(rpy.calc_rpy_dt_from_angular_velocity_in_child(w_AD_D), rpy_dt,
                               atol=1e-12)


@given(st.integers(0, 2), st.tuples(*[st.floats(-1e3, 1e3)] * 3).map(np.array))
def test_basis_from_axis_is_a_rotation_containing_the_axis(axis_index, axis_W):
    assume(np.linalg.norm(axis_W) > 1e-6)
    R_WL = compute_basis_from_axis(axis_index, axis_W)
    assert RotationMatrix(R_WL).is_valid()
    np.testing.assert_allclose(R_WL[:, axis_index], axis_W / np.linalg.norm(axis_W), atol=1e-15)


@given(st.lists(quaternions(), min_size=1, max_size=6))
def test_quaternion_order_round_trip_and_batch_conversion(qs):
    q_wxyz = np.array(qs)
    np.testing.assert_array_equal(quaternion_xyzw_to_wxyz(quaternion_wxyz_to_xyzw(q_wxyz)), q_wxyz)
    for q, R in zip(q_wxyz, quaternions_to_rotation_matrices(q_wxyz)):
        assert RotationMatrix(quaternion=q).is_nearby(RotationMatrix(R), 1e-15)


@given(st.lists(rpys, min_size=1, max_size=6))
def test_batch_rpy_matches_class(rpy_list):
    for rpy_vector, R in zip(rpy_list, rotation_matrices_from_rpy(np.array(rpy_list))):
        # numpy's and libm's sin/cos may differ in the last bit (numpy build, CPU).
        np.testing.assert_allclose(RollPitchYaw(rpy_vector).to_rotation_matrix().matrix(), R,
                                   rtol=0.0, atol=1e-15)
