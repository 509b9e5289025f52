"""Quaternions for geometry_core: the one module that knows their element order.

The library's quaternion is a numpy array ``[w, x, y, z]`` (scalar first, the
order of transforms3d, Drake's ``Quaternion.wxyz()`` and LCM's viewer
messages). ROS messages use ``x, y, z, w``; boundaries convert with
:func:`quaternion_xyzw_to_wxyz` and :func:`quaternion_wxyz_to_xyzw` and
nowhere else. Conversions of one quaternion are compiled calls through
``_scalar`` (``csrc/rotation.c``: Drake's trace branch for a matrix to a
quaternion, the product of half-angle quaternions for roll-pitch-yaw), with
no Python copy of those formulas; they are tested against Drake and
transforms3d; the vectorised :func:`quaternions_to_rotation_matrices` is
tested against ``transforms3d.quaternions.quat2mat`` row by row.

A quaternion passed in need not have unit length (it is normalised, scaled
by its largest entry first so that any finite non-zero length works, from
1e-300 to 1e300); a zero quaternion (all four entries zero, Drake's
``ThrowIfAllElementsInQuaternionAreZero``) or one with NaN/inf entries is
refused with ``ValueError``.

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import numpy as np

from geometry_core.math import _checks, _scalar

__all__ = [
    "normalize_quaternion",
    "quaternion_to_rotation_matrix",
    "quaternion_wxyz_to_xyzw",
    "quaternion_xyzw_to_wxyz",
    "quaternions_to_rotation_matrices",
    "roll_pitch_yaw_to_quaternion",
    "rotation_matrix_to_quaternion",
]


def normalize_quaternion(q_wxyz: object, name: str = "quaternion") -> np.ndarray:
    """Return the unit quaternion ``q / |q|``.

    Parameters
    ----------
    q_wxyz : (4,) array_like of float
        Quaternion ``[w, x, y, z]``, any non-zero length.
    name : str
        Argument name used in error messages.

    Returns
    -------
    (4,) ndarray of float64
        Unit quaternion ``[w, x, y, z]`` (the sign is kept, not canonicalised).

    Raises
    ------
    TypeError
        If ``q_wxyz`` is not an array of real numbers.
    ValueError
        If the shape is not (4,), an entry is NaN/inf, or all entries are zero.
    """
    q = _checks.as_float_array(name, q_wxyz, (4,))
    # Squaring first overflows to inf above ~1e154 (and underflows to 0 below
    # ~1e-154): scale by the largest magnitude so the sum of squares is in [1, 4].
    scale = float(np.max(np.abs(q)))
    if scale == 0.0:
        raise ValueError(f"{name} is zero (all four entries are 0) and has no rotation")
    q = q / scale
    return q / float(np.sqrt(q @ q))


def quaternion_to_rotation_matrix(q_wxyz: object, name: str = "quaternion") -> np.ndarray:
    """Rotation matrix R_AB of the quaternion ``q_AB = [w, x, y, z]``.

    Parameters
    ----------
    q_wxyz : (4,) array_like of float
        Quaternion ``[w, x, y, z]``; need not be unit length.
    name : str
        Argument name used in error messages.

    Returns
    -------
    (3, 3) ndarray of float64
        R_AB, orthonormal to round-off.

    Raises
    ------
    TypeError, ValueError
        As :func:`normalize_quaternion`.
    """
    R = _scalar.matrix3_from_quaternion(q_wxyz, 0.0)
    if R is None:
        # Anything unusual (a list, integers, a zero or NaN entry): the full
        # checks raise naming the fault, and the one kernel converts the rest.
        R = _scalar.matrix3_from_quaternion(normalize_quaternion(q_wxyz, name), 0.0)
    return R


def rotation_matrix_to_quaternion(R_AB: np.ndarray) -> np.ndarray:
    """Canonical unit quaternion ``[w, x, y, z]`` (``w >= 0``) of a rotation matrix.

    Parameters
    ----------
    R_AB : (3, 3) ndarray of float64
        A valid rotation matrix (not re-validated here: callers hold a
        ``RotationMatrix`` whose constructor checked it).

    Returns
    -------
    (4,) ndarray of float64
        Unit quaternion with ``w >= 0``; ``q`` and ``-q`` are the same
        rotation, and Drake's ``ToQuaternion`` returns the one with ``w >= 0``.
    """
    return _scalar.quaternion_of(R_AB)


def roll_pitch_yaw_to_quaternion(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Quaternion ``[w, x, y, z]`` of the space-fixed X-Y-Z rotation by roll, pitch, yaw.

    Parameters
    ----------
    roll, pitch, yaw : float
        Angles in radians (see ``RollPitchYaw``).

    Returns
    -------
    (4,) ndarray of float64
        Unit quaternion, not canonicalised: like Drake's
        ``RollPitchYaw.ToQuaternion``, ``w`` may be negative.
    """
    return _scalar.rpy_quaternion(roll, pitch, yaw)


def quaternions_to_rotation_matrices(q_wxyz: object, name: str = "q_wxyz") -> np.ndarray:
    """Vectorised :func:`quaternion_to_rotation_matrix` for N quaternions.

    Parameters
    ----------
    q_wxyz : (N, 4) array_like of float
        Quaternions ``[w, x, y, z]``, one per row; need not be unit length.
    name : str
        Argument name used in error messages.

    Returns
    -------
    (N, 3, 3) ndarray of float64
        Rotation matrices, one per row of ``q_wxyz``.

    Raises
    ------
    TypeError
        If ``q_wxyz`` is not an array of real numbers.
    ValueError
        If the shape is not (N, 4), or a row is zero or has NaN/inf (the
        message names the first such row).
    """
    q = np.ascontiguousarray(_checks.as_float_array_any_shape(name, q_wxyz, copy=False))
    if q.ndim != 2 or q.shape[1] != 4:
        raise ValueError(f"{name} must have shape (N, 4), got {q.shape}")
    R = np.empty((q.shape[0], 3, 3))
    # One compiled loop, the formula of the single-object path (csrc/rotation.c).
    bad = _scalar.quaternion_poses(q, None, R)
    if bad >= 0:
        _refuse_row(name, q, bad)
    return R


def _refuse_row(name: str, q: np.ndarray, row: int) -> None:
    """Raise the error of row ``row`` of ``q``, which the compiled loop refused."""
    if not np.isfinite(q[row]).all():
        raise ValueError(f"{name}[{row}] contains NaN or inf: {q[row].tolist()}")
    raise ValueError(f"{name}[{row}] is a zero quaternion (all four entries are 0)")


def quaternion_xyzw_to_wxyz(q_xyzw: object) -> np.ndarray:
    """Reorder ``[x, y, z, w]`` (ROS) quaternions to the library's ``[w, x, y, z]``.

    Parameters
    ----------
    q_xyzw : (4,) or (N, 4) array_like of float
        Quaternion(s) in ``x, y, z, w`` order. Values are not checked.

    Returns
    -------
    (4,) or (N, 4) ndarray of float64
        The same quaternion(s) in ``w, x, y, z`` order (a new array).

    Raises
    ------
    TypeError
        If ``q_xyzw`` is not an array of real numbers.
    ValueError
        If the last axis does not have length 4 or ndim is not 1 or 2.
    """
    q = _reorderable("q_xyzw", q_xyzw)
    return q[..., [3, 0, 1, 2]]


def quaternion_wxyz_to_xyzw(q_wxyz: object) -> np.ndarray:
    """Reorder the library's ``[w, x, y, z]`` quaternions to ``[x, y, z, w]`` (ROS).

    Parameters
    ----------
    q_wxyz : (4,) or (N, 4) array_like of float
        Quaternion(s) in ``w, x, y, z`` order. Values are not checked.

    Returns
    -------
    (4,) or (N, 4) ndarray of float64
        The same quaternion(s) in ``x, y, z, w`` order (a new array).

    Raises
    ------
    TypeError
        If ``q_wxyz`` is not an array of real numbers.
    ValueError
        If the last axis does not have length 4 or ndim is not 1 or 2.
    """
    q = _reorderable("q_wxyz", q_wxyz)
    return q[..., [1, 2, 3, 0]]


def _reorderable(name: str, value: object) -> np.ndarray:
    q = _checks.as_float_array_any_shape(name, value)
    if q.ndim not in (1, 2) or q.shape[-1] != 4:
        raise ValueError(f"{name} must have shape (4,) or (N, 4), got {q.shape}")
    return q
