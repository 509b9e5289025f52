"""Vectorised array kernels for batches of poses (the scene graph's hot paths).

These functions work on stacks of raw arrays — N rotation matrices
``(N, 3, 3)``, N homogeneous transforms ``(N, 4, 4)``, N quaternions
``(N, 4)`` — in numpy or one compiled loop (``rotation_matrices_from_rpy``
runs the roll-pitch-yaw formula of ``csrc/rotation.c``), never a Python loop
over N. They are the array layer
under the ``RotationMatrix``/``RigidTransform`` classes, in the spirit of
spatialmath's ``base`` functions: a vectorised pose setter validates and
converts a whole batch with one call, then wraps rows with
``RigidTransform._from_trusted_matrix4``.

Validation errors name the first offending row (``X[3] contains NaN``), so a
caller can map it back to a frame name.

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geometry_core import native
from geometry_core.math import _checks, _scalar
from geometry_core.math.quaternion import quaternions_to_rotation_matrices
from geometry_core.tolerances import USER_ROTATION_TOLERANCE

__all__ = [
    "inverse_matrix4",
    "matrix4_from_pose_rows",
    "matrix4_from_quaternions_and_positions",
    "rotation_matrices_from_rpy",
    "validate_matrix4s",
    "validate_rotation_matrices",
]

_LAST_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def _stack(name: str, value: object, tail: tuple[int, ...], copy: bool = True) -> np.ndarray:
    a = _checks.as_float_array_any_shape(name, value, copy)
    if a.ndim != 1 + len(tail) or a.shape[1:] != tail:
        expected = "(N, " + ", ".join(str(n) for n in tail) + ")"
        raise ValueError(f"{name} must have shape {expected}, got {a.shape}")
    return a


def _first_non_finite_row(name: str, a: np.ndarray) -> None:
    finite = np.isfinite(a).all(axis=tuple(range(1, a.ndim)))
    if not finite.all():
        row = int(np.argmin(finite))
        what = "NaN" if np.isnan(a[row]).any() else "inf"
        raise ValueError(f"{name}[{row}] contains {what}")


def validate_rotation_matrices(
    R_AB: object, name: str = "R", tolerance: float = USER_ROTATION_TOLERANCE
) -> np.ndarray:
    """Check N rotation matrices at once; raise naming the first bad one.

    Parameters
    ----------
    R_AB : (N, 3, 3) array_like of float
        Alleged rotation matrices.
    name : str
        Argument name used in error messages.
    tolerance : float
        Largest accepted ``max |R Rᵀ - I|``; user input defaults to
        ``USER_ROTATION_TOLERANCE``.

    Returns
    -------
    (N, 3, 3) ndarray of float64
        A validated float64 copy of ``R_AB``.

    Raises
    ------
    TypeError
        If ``R_AB`` is not an array of real numbers.
    ValueError
        If the shape is not (N, 3, 3); or, naming the first bad index i,
        ``R[i]`` contains NaN/inf, is not orthonormal (the error is given) or
        is a reflection (determinant < 0).
    """
    R = _stack(name, R_AB, (3, 3))
    _first_non_finite_row(name, R)
    error = np.abs(R @ R.transpose(0, 2, 1) - np.eye(3)).max(axis=(1, 2))
    bad = error > tolerance
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name}[{i}] is not orthonormal: max |R Rᵀ - I| = {error[i]:.3g} exceeds "
            f"the tolerance {tolerance:.3g}"
        )
    det = np.linalg.det(R)
    reflection = det < 0
    if reflection.any():
        i = int(np.argmax(reflection))
        raise ValueError(
            f"{name}[{i}] is a reflection (determinant {det[i]:.6g}), not a proper rotation"
        )
    return R


def validate_matrix4s(
    X_AB: object, name: str = "X", tolerance: float = USER_ROTATION_TOLERANCE,
    copy: bool = True,
) -> np.ndarray:
    """Check N homogeneous rigid transforms at once; raise naming the first bad one.

    Parameters
    ----------
    X_AB : (N, 4, 4) array_like of float
        Alleged poses ``[[R_AB, p_AoBo_A], [0, 0, 0, 1]]``.
    name : str
        Argument name used in error messages.
    tolerance : float
        Largest accepted ``max |R Rᵀ - I|`` of the rotation blocks.
    copy : bool
        False to check a float64 ``X_AB`` in place (the result may then be
        ``X_AB`` itself).

    Returns
    -------
    (N, 4, 4) ndarray of float64
        ``X_AB`` validated, as float64 (a copy unless ``copy`` is False).

    Raises
    ------
    TypeError
        If ``X_AB`` is not an array of real numbers.
    ValueError
        If the shape is not (N, 4, 4); or, naming the first bad index, a
        matrix has NaN/inf, a last row other than exactly ``[0, 0, 0, 1]``,
        or a rotation block that is not a proper rotation.
    """
    X = _stack(name, X_AB, (4, 4), copy)
    if X.flags.c_contiguous and native.poses_valid(X, tolerance):
        return X  # the compiled check accepts exactly what the checks below accept
    _first_non_finite_row(name, X)
    wrong_last_row = (X[:, 3, :] != _LAST_ROW).any(axis=1)
    if wrong_last_row.any():
        i = int(np.argmax(wrong_last_row))
        raise ValueError(
            f"{name}[{i}]'s last row must be exactly [0, 0, 0, 1], got {X[i, 3].tolist()}"
        )
    validate_rotation_matrices(X[:, :3, :3], name=f"{name}[:, :3, :3]", tolerance=tolerance)
    return X


def matrix4_from_quaternions_and_positions(q_wxyz: object, p: object) -> np.ndarray:
    """Homogeneous transforms X_AB from N quaternions q_AB and positions p_AoBo_A.

    Parameters
    ----------
    q_wxyz : (N, 4) array_like of float
        Quaternions ``[w, x, y, z]`` of R_AB, one per row; normalised here.
    p : (N, 3) array_like of float
        Positions p_AoBo_A, one per row (metres).

    Returns
    -------
    (N, 4, 4) ndarray of float64
        X_AB with last row exactly ``[0, 0, 0, 1]``.

    Raises
    ------
    TypeError
        If an argument is not an array of real numbers.
    ValueError
        If the shapes are not (N, 4) and (N, 3) with the same N, or a row is
        zero or NaN/inf (the message names the row index).
    """
    q = np.ascontiguousarray(_checks.as_float_array_any_shape("q_wxyz", q_wxyz, copy=False))
    if q.ndim != 2 or q.shape[1] != 4:
        raise ValueError(f"q_wxyz must have shape (N, 4), got {q.shape}")
    positions = np.ascontiguousarray(_stack("p", p, (3,), copy=False))
    if positions.shape[0] != q.shape[0]:
        raise ValueError(
            f"p must have shape ({q.shape[0]}, 3) to match q_wxyz, got {positions.shape}"
        )
    X = np.empty((q.shape[0], 4, 4))
    # One compiled loop (csrc/rotation.c, the single-object formula).
    if _scalar.quaternion_poses(q, positions, X) >= 0:
        quaternions_to_rotation_matrices(q, name="q_wxyz")  # raises for a bad quaternion
        _first_non_finite_row("p", positions)
    return X


def read_pose_records(data: bytes, stamp_at: tuple[int, ...], values_at: tuple[int, ...],
                      little_endian: bool, rows: list[int], values: list, stamps: list) -> bool:
    """Read N stamped pose records at byte offsets of a buffer into rows of two lists, checked.

    Record k is an int32 of seconds and a uint32 of nanoseconds at
    ``data[stamp_at[k]:]``, and seven float64 (a pose row: position, then
    quaternion, as :func:`matrix4_from_pose_rows` reads it with order
    ``(0, ..., 6)`` or any other) at ``data[values_at[k]:]``, all in the
    byte order given. In one compiled call, for a caller that receives
    poses as packed numbers (a wire message whose layout it knows).

    Parameters
    ----------
    data : bytes-like
    stamp_at, values_at : tuple of int, length N
        Byte offsets in ``data``.
    little_endian : bool
        The numbers' byte order.
    rows : list of int, length N
        Where each record goes in ``values`` and ``stamps``.
    values, stamps : list
        Get ``values[rows[k]]`` = the seven floats as a tuple, and
        ``stamps[rows[k]]`` = ``sec * 10**9 + nanosec`` (int).

    Returns
    -------
    bool
        True when every record was stored; False, with nothing stored, when
        a record's nanoseconds are 10**9 or more, its numbers are not all
        finite (their sum, added row by row, is not), or its quaternion is
        zero: the caller then reads the records one by one to say which.

    Raises
    ------
    IndexError
        If an offset lies outside ``data`` or a row outside the lists (or
        outside a list that an old item's finaliser shrank while the records
        were stored: those before it are then stored).
    """
    return _scalar.pose_records(data, stamp_at, values_at, little_endian, rows, values,
                                stamps) < 0


#: ``fill_template(template, numbers, size, numbers_at, (at, patch), ...)``: the
#: writer's side of :func:`read_pose_records`, in one compiled call. Returns a
#: copy of the bytes ``template`` with each ``patch`` (bytes) written at byte
#: offset ``at``, then record k of ``numbers`` (a C-contiguous buffer of
#: ``len(numbers_at)`` records of ``size`` bytes, None when there is none)
#: written at ``numbers_at[k]`` (a tuple of int), for a caller that sends
#: records in a byte layout made once (a wire message of known pairs).
#: Raises ValueError when ``numbers`` does not hold exactly that many records,
#: IndexError for a patch or a record outside the template, TypeError for
#: arguments of other types.
fill_template = _scalar.fill_template


#: ``matches_template(data, template, holes)``: the reader's side of
#: :func:`fill_template`, in one compiled call. True when ``data`` (any
#: buffer) has the length of the bytes ``template`` and equals it everywhere
#: outside ``holes``, a tuple of ``(start, end)`` byte ranges in ascending
#: order: whether ``data`` could be the template with other numbers written
#: in the holes (a wire message of a layout seen before). Raises ValueError
#: for holes out of order or outside the template.
matches_template = _scalar.matches_template


def matrix4_from_pose_rows(rows: Sequence[Sequence[float]],
                           order: Sequence[int] = (0, 1, 2, 3, 4, 5, 6)) -> np.ndarray:
    """Homogeneous transforms X_AB from N rows of seven numbers each.

    :func:`matrix4_from_quaternions_and_positions` of the same numbers (the
    same doubles), read from the rows in one compiled loop, without an
    array of them made first: for a caller that keeps poses as rows of
    numbers as they arrived (a /tf buffer).

    Parameters
    ----------
    rows : sequence of sequences of float
        N rows.
    order : sequence of 7 int
        Where each row holds p_AoBo_A's x, y, z, then q_AB's w, x, y, z.

    Returns
    -------
    (N, 4, 4) ndarray of float64

    Raises
    ------
    TypeError, ValueError
        As :func:`matrix4_from_quaternions_and_positions`, for the first
        row whose numbers it refuses.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    order = tuple(int(k) for k in order)
    if len(order) != 7:
        raise ValueError(f"order must hold 7 indices, got {len(order)}")
    X = np.empty((len(rows), 4, 4))
    if _scalar.pose_rows(rows, order, X) < 0:
        return X
    # A row the compiled loop refused: the checked path says what is wrong.
    for n, row in enumerate(rows):
        if len(row) <= max(order):
            raise ValueError(f"rows[{n}] holds {len(row)} numbers; order reads index "
                             f"{max(order)}")
    values = np.array([[row[k] for k in order] for row in rows], dtype=float).reshape(-1, 7)
    return matrix4_from_quaternions_and_positions(values[:, 3:], values[:, :3])


def rotation_matrices_from_rpy(rpy: object) -> np.ndarray:
    """Rotation matrices R_AD of N roll-pitch-yaw triples (space-fixed X-Y-Z).

    ``R_AD = Rz(yaw) @ Ry(pitch) @ Rx(roll)``, as Drake's
    ``RotationMatrix(RollPitchYaw)``.

    Parameters
    ----------
    rpy : (N, 3) array_like of float
        ``[roll, pitch, yaw]`` per row, radians.

    Returns
    -------
    (N, 3, 3) ndarray of float64

    Raises
    ------
    TypeError
        If ``rpy`` is not an array of real numbers.
    ValueError
        If the shape is not (N, 3) or an entry is NaN/inf (naming the row).
    """
    angles = np.ascontiguousarray(_stack("rpy", rpy, (3,), copy=False))
    R = np.empty((angles.shape[0], 3, 3))
    # One compiled loop (csrc/rotation.c, the formula RollPitchYaw uses too).
    if _scalar.rpy_matrices(angles, R) >= 0:
        _first_non_finite_row("rpy", angles)
    return R


def inverse_matrix4(X_AB: object) -> np.ndarray:
    """Inverses X_BA of N rigid transforms X_AB, using ``R_BA = R_ABᵀ``.

    The inputs are trusted to be rigid transforms (validate first with
    :func:`validate_matrix4s` where they come from outside); only the shape
    is checked, which keeps this a pure arithmetic kernel.

    Parameters
    ----------
    X_AB : (N, 4, 4) array_like of float
        Rigid transforms.

    Returns
    -------
    (N, 4, 4) ndarray of float64
        ``X_BA = [[R_ABᵀ, -R_ABᵀ p_AoBo_A], [0, 0, 0, 1]]``.

    Raises
    ------
    TypeError
        If ``X_AB`` is not an array of real numbers.
    ValueError
        If the shape is not (N, 4, 4).
    """
    X = _stack("X_AB", X_AB, (4, 4))
    R_BA = X[:, :3, :3].transpose(0, 2, 1)
    X_BA = np.zeros_like(X)
    X_BA[:, :3, :3] = R_BA
    X_BA[:, :3, 3] = -np.einsum("nij,nj->ni", R_BA, X[:, :3, 3])
    X_BA[:, 3, 3] = 1.0
    return X_BA
