"""Closed-form formulas for one rotation at a time, on plain Python floats (private).

The classes for single objects (RotationMatrix, RollPitchYaw,
RigidTransform) take this lean path; stacks of N poses go through the
batched numpy kernels (``kernels.py``), whose per-call overhead (array
checks, reductions, broadcasting) dwarfs the arithmetic of one 3x3. These
are the same formulas as Drake's ``RollPitchYaw::ToRotationMatrix``,
``RollPitchYaw::ToQuaternion`` and ``RotationMatrix::ToQuaternion`` (a
branch on the trace), written out for floats. Matrices are row-major
9-tuples ``(R00, R01, R02, R10, ..., R22)``.

The ``*_or_none`` readers are fast paths: they accept only the common,
valid input (a float64 ndarray of the right shape with finite entries) and
return None for anything else, so that the caller falls back to the full
checks in ``_checks`` and their error messages.

This module imports the standard library and numpy only; it must never
import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

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
