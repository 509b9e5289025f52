"""Argument checks shared by the math layer (private).

Every public constructor and function of ``geometry_core.math`` validates its
inputs here, so that the error messages have one wording across the package:
``TypeError`` for a value of the wrong type, ``ValueError`` naming the
argument, the expected shape and what was given (``p must have shape (3,),
got (4,)``), NaN/inf entries, non-orthonormal matrices (with the error size)
and reflections.

This module imports numpy and ``geometry_core.tolerances`` only; it must
never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from geometry_core.math import _scalar

_NUMERIC_KINDS = ("i", "u", "f")
_SMALL = 64


def as_float_array(
    name: str, value: object, shape: tuple[int, ...], copy: bool = True
) -> np.ndarray:
    """Return ``value`` as a float64 array of exactly ``shape``, checked finite.

    With ``copy=False`` the result may share memory with ``value`` (for
    callers that only read it, or copy it into their own storage).

    Raises
    ------
    TypeError
        If ``value`` is not an ndarray, list or tuple of real numbers.
    ValueError
        If the shape differs from ``shape`` or an entry is NaN or infinite.
    """
    a = as_float_array_any_shape(name, value, copy)
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    check_finite(name, a)
    return a


def as_float_array_any_shape(name: str, value: object, copy: bool = True) -> np.ndarray:
    """Return ``value`` as a float64 array (any shape); types checked, values not.

    With ``copy=False`` the result may share memory with ``value``.

    Raises
    ------
    TypeError
        If ``value`` is not an ndarray, list or tuple of real numbers.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(f"{name} must hold real numbers, got an array of dtype {value.dtype}")
        # C order: the single-object kernels (csrc/rotation.c) read rows in place.
        if copy:
            return np.array(value, dtype=np.float64, order="C")
        return np.asarray(value, dtype=np.float64)
    if isinstance(value, (list, tuple)):
        try:
            a = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{name} must be an array of real numbers: {error}") from None
        return a
    raise TypeError(
        f"{name} must be a numpy array, list or tuple of real numbers, "
        f"got {type(value).__name__}"
    )


def check_finite(name: str, a: np.ndarray) -> None:
    """Raise ValueError if ``a`` has a NaN or infinite entry.

    Raises
    ------
    ValueError
        ``"<name> contains NaN"`` or ``"<name> contains inf"``.
    """
    # Plain Python beats numpy's reduction overhead on the small arrays of
    # single poses (0.3 µs against 1.5 µs for a 3-vector).
    finite = (all(map(math.isfinite, a.ravel().tolist())) if a.size <= _SMALL
              else bool(np.isfinite(a).all()))
    if not finite:
        what = "NaN" if np.isnan(a).any() else "inf"
        raise ValueError(f"{name} contains {what}: {a.tolist()}")


def as_real_scalar(name: str, value: object) -> float:
    """Return ``value`` as a finite Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools are refused).
    ValueError
        If ``value`` is NaN or infinite.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def as_index(name: str, value: object, size: int) -> int:
    """Return ``value`` as an int in ``[0, size)``.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (bools are refused).
    ValueError
        If ``value`` is out of range.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    i = int(value)
    if not 0 <= i < size:
        raise ValueError(f"{name} must be in [0, {size - 1}], got {i}")
    return i


def det3(R: np.ndarray) -> float:
    """Determinant of a (3, 3) array, written out (a quarter of np.linalg.det's cost)."""
    return det3_of_rows(R.tolist())


def det3_of_rows(rows: list[list[float]]) -> float:
    """Determinant of a 3x3 given as three rows of floats."""
    (a, b, c), (d, e, f), (g, h, i) = rows
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def orthonormality_error(R: np.ndarray) -> float:
    """Max-norm of ``R Rᵀ - I``: Drake's measure of orthonormality (0 is perfect).

    Written out on the six distinct entries of the symmetric ``R Rᵀ``: for
    one 3x3 this is several times faster than numpy's matmul and reductions.
    """
    return orthonormality_error_of_rows(R.tolist())


def orthonormality_error_of_rows(rows: list[list[float]]) -> float:
    """:func:`orthonormality_error` of a 3x3 given as three rows of floats."""
    (a, b, c), (d, e, f), (g, h, i) = rows
    return max(
        abs(a * a + b * b + c * c - 1.0),
        abs(d * d + e * e + f * f - 1.0),
        abs(g * g + h * h + i * i - 1.0),
        abs(a * d + b * e + c * f),
        abs(a * g + b * h + c * i),
        abs(d * g + e * h + f * i),
    )


def check_rotation(name: str, R: np.ndarray, tolerance: float) -> None:
    """Raise unless the finite (3, 3) array ``R`` is a proper rotation within ``tolerance``.

    Raises
    ------
    ValueError
        If ``R`` contains NaN/inf, if ``max |R Rᵀ - I| > tolerance`` (the
        message gives the error), or if ``det R < 0`` (a reflection).
    """
    if _scalar.rotation_status(R, tolerance) == 0:
        return
    rows = R.tolist()
    # NaN and inf make the sum non-finite; check_finite then names which.
    if not math.isfinite(sum(rows[0]) + sum(rows[1]) + sum(rows[2])):
        check_finite(name, R)
    error = orthonormality_error_of_rows(rows)
    if not error <= tolerance:
        raise ValueError(
            f"{name} is not orthonormal: max |R Rᵀ - I| = {error:.3g} exceeds the "
            f"tolerance {tolerance:.3g}; RotationMatrix.project_to_rotation_matrix(M) "
            "gives the closest rotation"
        )
    det = det3_of_rows(rows)
    if det < 0:
        raise ValueError(
            f"{name} is a reflection (determinant {det:.6g}), not a proper rotation"
        )
