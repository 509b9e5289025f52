"""One rotation or pose at a time: closed forms on floats, and the compiled array calls (private).

The classes for single objects (RotationMatrix, RollPitchYaw,
RigidTransform) take this lean path; stacks of N poses go through the
batched numpy kernels (``kernels.py``), whose per-call overhead (array
checks, reductions, broadcasting) dwarfs the arithmetic of one 3x3. The
formulas are Drake's (``RollPitchYaw::ToRotationMatrix``,
``RollPitchYaw(RotationMatrix)`` from the quaternion's half-angle sums),
written out for floats where a class needs them on floats.

The array-valued operations (``matrix3_from_rpy``, ``multiply``,
``invert``, ...) are one call each into ``csrc/rotation.c`` (it allocates
its result through ``numpy.empty``), the one implementation of them;
``test/math/test_native_math.py`` checks them against scipy's rotations
and numpy's linear algebra.

The ``*_or_none`` readers are fast paths: they accept only the common,
valid input (a float64 ndarray of the right shape with finite entries) and
return None for anything else, so that the caller falls back to the full
checks in ``_checks`` and their error messages.

This module imports the standard library, numpy and
``geometry_core.compiled`` only; it must never import scene_graph,
proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.compiled import native as _native

_ndarray = np.ndarray
_float64 = np.dtype(np.float64)
_isfinite = math.isfinite


def vector3_or_none(value: object) -> list[float] | None:
    """``value`` as three finite floats, if it is a finite float64 (3,) ndarray."""
    if type(value) is not _ndarray or value.shape != (3,) or value.dtype != _float64:
        return None
    v = value.tolist()
    # One isfinite on the sum: NaN or inf anywhere makes it non-finite; a sum
    # that overflows only sends finite input down the (authoritative) slow path.
    return v if _isfinite(v[0] + v[1] + v[2]) else None


def rotation_from_rpy(r: float, p: float, y: float) -> tuple[float, ...]:
    """R = Rz(y) Ry(p) Rx(r) as a row-major 9-tuple (Drake's RollPitchYaw::ToRotationMatrix)."""
    c0, s0 = math.cos(r), math.sin(r)
    c1, s1 = math.cos(p), math.sin(p)
    c2, s2 = math.cos(y), math.sin(y)
    c2_s1, s2_s1 = c2 * s1, s2 * s1
    return (c2 * c1, c2_s1 * s0 - s2 * c0, c2_s1 * c0 + s2 * s0,
            s2 * c1, s2_s1 * s0 + c2 * c0, s2_s1 * c0 - c2 * s0,
            -s1, c1 * s0, c1 * c0)


def rpy_from_quaternion_and_rotation(q: tuple[float, ...] | list[float],
                                     m: list[list[float]]) -> tuple[float, float, float]:
    """Roll-pitch-yaw of the rotation ``m`` (rows) given its unit quaternion ``q`` (either sign).

    Drake's RollPitchYaw(RotationMatrix): pitch from the matrix, roll and yaw
    from the quaternion's half-angle sums and differences.
    """
    (R00, _, _), (R10, _, _), (R20, R21, R22) = m
    pitch = math.atan2(-R20, math.sqrt((R22 * R22 + R21 * R21 + R10 * R10 + R00 * R00) / 2))
    w, x, y, z = q
    sum_y, sum_x = x + z, w - y
    difference_y, difference_x = z - x, w + y
    # Both atan2 arguments zero (to round-off): the half-angle is arbitrary; Drake picks 0.
    half_sum = (0.0 if abs(sum_y) <= _EPSILON and abs(sum_x) <= _EPSILON
                else math.atan2(sum_y, sum_x))
    half_difference = (0.0 if abs(difference_y) <= _EPSILON and abs(difference_x) <= _EPSILON
                       else math.atan2(difference_y, difference_x))
    return (_wrap_to_pi(half_sum - half_difference), pitch,
            _wrap_to_pi(half_sum + half_difference))


_EPSILON = float(np.finfo(np.float64).eps)


def _wrap_to_pi(angle: float) -> float:
    # The half-angles are each in [-π, π], so one shift by 2π is enough.
    if angle > math.pi:
        return angle - 2 * math.pi
    if angle < -math.pi:
        return angle + 2 * math.pi
    return angle


# --- array-valued operations: one compiled call each (csrc/rotation.c) ----------------

# Bound directly: they read arrays of any layout and allocate their results
# with numpy.empty, so no Python frame stands between.
_c = _native.rotation
_c.set_allocator(np.empty)
matrix3_from_rpy = _c.rpy_matrix
matrix4_from_rpy = _c.rpy_matrix
matrix3_from_quaternion = _c.quaternion_matrix
matrix4_from_quaternion = _c.quaternion_matrix
quaternion_of = _c.to_quaternion
rpy_of = _c.rpy_from_rotation
multiply = _c.multiply
invert = _c.invert
rotation_status = _c.rotation_status
identity_errors = _c.identity_errors
max_abs_difference = _c.max_abs_difference
assemble = _c.assemble
rpy_quaternion = _c.rpy_quaternion
polar_rotation = _c.polar_rotation
rpy_rates = _c.rpy_rates
