"""One rotation or pose at a time: closed forms on floats, and their compiled twins (private).

The classes for single objects (RotationMatrix, RollPitchYaw,
RigidTransform) take this lean path; stacks of N poses go through the
batched numpy kernels (``kernels.py``), whose per-call overhead (array
checks, reductions, broadcasting) dwarfs the arithmetic of one 3x3. The
formulas are Drake's (``RollPitchYaw::ToRotationMatrix``,
``RollPitchYaw::ToQuaternion``, ``RotationMatrix::ToQuaternion`` as a branch
on the trace, ``RollPitchYaw(RotationMatrix)``), written out for floats.

The array-valued operations (``matrix3_from_rpy``, ``multiply``,
``invert``, ...) run in ``csrc/rotation.c`` when the extension is built, one
C call each (it allocates its result through ``numpy.empty``). Without the
extension (or with ``GEOMETRY_CORE_NATIVE=0``) the same functions run the
Python formulas below, the reference that ``test/math/test_native_math.py``
holds the C to.

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


def quaternion4_or_none(value: object) -> list[float] | None:
    """``value`` as four finite floats, if it is a finite float64 (4,) ndarray."""
    if type(value) is not _ndarray or value.shape != (4,) or value.dtype != _float64:
        return None
    q = value.tolist()
    return q if _isfinite(q[0] + q[1] + q[2] + q[3]) else None


def unit_quaternion(w: float, x: float, y: float, z: float,
                    zero_norm: float) -> tuple[float, float, float, float] | None:
    """``q / |q|`` for finite components, or None when ``|q| < zero_norm``.

    The norm is taken after scaling by the largest magnitude, so that
    quaternions of norm 1e300 or 1e-300 neither overflow nor underflow
    when squared.
    """
    scale = max(abs(w), abs(x), abs(y), abs(z))
    if scale == 0.0:
        return None
    w, x, y, z = w / scale, x / scale, y / scale, z / scale
    norm = math.sqrt(w * w + x * x + y * y + z * z)
    if norm * scale < zero_norm:
        return None
    return w / norm, x / norm, y / norm, z / norm


def rotation_from_rpy(r: float, p: float, y: float) -> tuple[float, ...]:
    """R = Rz(y) Ry(p) Rx(r) as a row-major 9-tuple (Drake's RollPitchYaw::ToRotationMatrix)."""
    c0, s0 = math.cos(r), math.sin(r)
    c1, s1 = math.cos(p), math.sin(p)
    c2, s2 = math.cos(y), math.sin(y)
    c2_s1, s2_s1 = c2 * s1, s2 * s1
    return (c2 * c1, c2_s1 * s0 - s2 * c0, c2_s1 * c0 + s2 * s0,
            s2 * c1, s2_s1 * s0 + c2 * c0, s2_s1 * c0 - c2 * s0,
            -s1, c1 * s0, c1 * c0)


def quaternion_from_rpy(r: float, p: float, y: float) -> tuple[float, float, float, float]:
    """Quaternion ``(w, x, y, z)`` of Rz(y) Ry(p) Rx(r): the product of the half-angle ones.

    Not canonicalised (``w`` may be negative), as Drake's RollPitchYaw::ToQuaternion.
    """
    c0, s0 = math.cos(0.5 * r), math.sin(0.5 * r)
    c1, s1 = math.cos(0.5 * p), math.sin(0.5 * p)
    c2, s2 = math.cos(0.5 * y), math.sin(0.5 * y)
    c1_c2, s1_s2, s1_c2, c1_s2 = c1 * c2, s1 * s2, s1 * c2, c1 * s2
    return (c0 * c1_c2 + s0 * s1_s2, s0 * c1_c2 - c0 * s1_s2,
            c0 * s1_c2 + s0 * c1_s2, c0 * c1_s2 - s0 * s1_c2)


def rotation_from_unit_quaternion(w: float, x: float, y: float, z: float) -> tuple[float, ...]:
    """Row-major 9-tuple of the rotation of a unit quaternion (transforms3d's quat2mat algebra)."""
    s = 2.0 / (w * w + x * x + y * y + z * z)
    X, Y, Z = x * s, y * s, z * s
    wX, wY, wZ = w * X, w * Y, w * Z
    xX, xY, xZ = x * X, x * Y, x * Z
    yY, yZ, zZ = y * Y, y * Z, z * Z
    return (1.0 - (yY + zZ), xY - wZ, xZ + wY,
            xY + wZ, 1.0 - (xX + zZ), yZ - wX,
            xZ - wY, yZ + wX, 1.0 - (xX + yY))


def quaternion_from_rotation(m: list[list[float]]) -> tuple[float, float, float, float]:
    """Canonical unit quaternion ``(w, x, y, z)``, ``w >= 0``, of rotation rows ``m``.

    Drake's RotationMatrix::ToQuaternion: branch on whichever of the trace
    and the three diagonal elements is largest, so that the component
    computed from ``1 + ...`` is the largest one and nothing cancels.
    """
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = m
    trace = m00 + m11 + m22
    if trace >= m00 and trace >= m11 and trace >= m22:
        w, x, y, z = 1.0 + trace, m21 - m12, m02 - m20, m10 - m01
    elif m00 >= m11 and m00 >= m22:
        w, x, y, z = m21 - m12, 1.0 - (trace - 2.0 * m00), m01 + m10, m02 + m20
    elif m11 >= m22:
        w, x, y, z = m02 - m20, m01 + m10, 1.0 - (trace - 2.0 * m11), m12 + m21
    else:
        w, x, y, z = m10 - m01, m02 + m20, m12 + m21, 1.0 - (trace - 2.0 * m22)
    scale = 1.0 / math.sqrt(w * w + x * x + y * y + z * z)
    if w < 0.0:
        scale = -scale
    return w * scale, x * scale, y * scale, z * scale


def rpy_from_rotation(m: list[list[float]]) -> tuple[float, float, float]:
    """Roll-pitch-yaw of rotation rows ``m`` (Drake's algorithm, by P. Mitiguy).

    Write a, b, c for half of roll, pitch, yaw. Multiplying out the three
    half-angle quaternions gives

        x + z = (cos b - sin b) sin(a + c),   w - y = (cos b - sin b) cos(a + c),
        z - x = (cos b + sin b) sin(c - a),   w + y = (cos b + sin b) cos(c - a),

    so atan2 recovers a + c and c - a; for |pitch| < π/2 both scale factors
    are positive. Near pitch = +π/2 the first pair vanishes and a + c is
    poorly determined, but R then depends on yaw - roll alone, which the
    second (well-scaled) pair fixes; symmetrically near -π/2. The pitch
    comes from R, where ``-R[2, 0] = sin p`` and the four elements R00, R10,
    R21, R22 give ``|cos p| = sqrt((R00² + R10² + R21² + R22²) / 2)``
    without cancellation, so atan2 is accurate up to ±π/2.
    """
    return rpy_from_quaternion_and_rotation(quaternion_from_rotation(m), m)


def rpy_from_quaternion_and_rotation(q: tuple[float, ...] | list[float],
                                     m: list[list[float]]) -> tuple[float, float, float]:
    """:func:`rpy_from_rotation` given the unit quaternion ``q`` of ``m`` too (either sign)."""
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


def _rows(a: np.ndarray) -> list[list[float]]:
    # The rotation rows of a (3, 3) or (4, 4) array as floats.
    rows = a.tolist()
    return rows if len(rows) == 3 else [row[:3] for row in rows[:3]]


# --- array-valued operations: compiled when built, else the formulas above ---------

_empty = np.empty
_SHAPE3, _SHAPE4 = (3, 3), (4, 4)


def _py_matrix3_from_rpy(r: float, p: float, y: float) -> np.ndarray:
    return np.array(rotation_from_rpy(r, p, y)).reshape(3, 3)


def _py_matrix4(R: tuple[float, ...], p: list[float] | tuple[float, ...]) -> np.ndarray:
    return np.array((R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1], R[6], R[7], R[8], p[2],
                     0.0, 0.0, 0.0, 1.0)).reshape(4, 4)


def _py_matrix4_from_rpy(r: float, p: float, y: float, px: float, py: float,
                         pz: float) -> np.ndarray:
    return _py_matrix4(rotation_from_rpy(r, p, y), (px, py, pz))


def _py_matrix3_from_quaternion(q: np.ndarray, zero_norm: float) -> np.ndarray | None:
    values = quaternion4_or_none(q)
    unit = None if values is None else unit_quaternion(*values, zero_norm)
    return None if unit is None else np.array(rotation_from_unit_quaternion(*unit)).reshape(3, 3)


def _py_matrix4_from_quaternion(q: np.ndarray, zero_norm: float,
                                p: np.ndarray) -> np.ndarray | None:
    values, position = quaternion4_or_none(q), vector3_or_none(p)
    unit = None if values is None else unit_quaternion(*values, zero_norm)
    if unit is None or position is None:
        return None
    return _py_matrix4(rotation_from_unit_quaternion(*unit), position)


def _py_quaternion_of(R: np.ndarray) -> np.ndarray:
    return np.array(quaternion_from_rotation(_rows(R)))


def _py_rpy_of(R: np.ndarray) -> tuple[float, float, float]:
    return rpy_from_rotation(_rows(R))


def _py_assemble(R: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    position = p[:3, 3] if p.shape == _SHAPE4 else p
    if not np.isfinite(position).all():
        return None
    X = _empty(_SHAPE4)
    X[:3, :3] = R[:3, :3]
    X[:3, 3] = position
    X[3] = (0.0, 0.0, 0.0, 1.0)
    return X


def _py_rpy_quaternion(r: float, p: float, y: float) -> np.ndarray:
    return np.array(quaternion_from_rpy(r, p, y))


def _py_polar_rotation(M: object) -> None:
    # Without the extension the SVD in project_to_rotation_matrix answers alone.
    return None


def _py_multiply(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A @ B


def _py_invert(A: np.ndarray) -> np.ndarray:
    if A.shape == _SHAPE3:
        return A.T.copy()
    (a, b, c, x), (d, e, f, y), (g, h, i, z), _ = A.tolist()
    return np.array((a, d, g, -(a * x + d * y + g * z),
                     b, e, h, -(b * x + e * y + h * z),
                     c, f, i, -(c * x + f * y + i * z),
                     0.0, 0.0, 0.0, 1.0)).reshape(4, 4)


def _py_rotation_status(R: np.ndarray, tolerance: float) -> int:
    m = _rows(R)
    if not all(map(math.isfinite, m[0] + m[1] + m[2])):
        return 1
    (a, b, c), (d, e, f), (g, h, i) = m
    error = max(abs(a * a + b * b + c * c - 1.0), abs(d * d + e * e + f * f - 1.0),
                abs(g * g + h * h + i * i - 1.0), abs(a * d + b * e + c * f),
                abs(a * g + b * h + c * i), abs(d * g + e * h + f * i))
    if not error <= tolerance:
        return 2
    return 3 if a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) < 0 else 0


def _py_identity_errors(A: np.ndarray) -> tuple[float, float]:
    rows = A.tolist()
    rotation = max(abs(rows[i][j] - (1.0 if i == j else 0.0)) for i in range(3) for j in range(3))
    translation = max(abs(rows[i][3]) for i in range(3)) if len(rows) == 4 else 0.0
    return rotation, translation


def _py_max_abs_difference(A: np.ndarray, B: np.ndarray) -> float:
    a, b = A.tolist()[:3], B.tolist()[:3]
    return max(abs(u - v) for row_a, row_b in zip(a, b) for u, v in zip(row_a, row_b))


if _native is None:
    assemble = _py_assemble
    rpy_quaternion = _py_rpy_quaternion
    polar_rotation = _py_polar_rotation
    #: RollPitchYaw's rate methods run their own Python without the extension.
    rpy_rates = None
    matrix3_from_rpy = _py_matrix3_from_rpy
    matrix4_from_rpy = _py_matrix4_from_rpy
    matrix3_from_quaternion = _py_matrix3_from_quaternion
    matrix4_from_quaternion = _py_matrix4_from_quaternion
    quaternion_of = _py_quaternion_of
    rpy_of = _py_rpy_of
    multiply = _py_multiply
    invert = _py_invert
    rotation_status = _py_rotation_status
    identity_errors = _py_identity_errors
    max_abs_difference = _py_max_abs_difference
else:
    # The compiled twins, bound directly: they read arrays of any layout and
    # allocate their results with numpy.empty, so no Python frame stands between.
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
