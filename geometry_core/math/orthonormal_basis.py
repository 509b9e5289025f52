"""compute_basis_from_axis: a right-handed orthonormal basis around one given axis.

Drake's ``ComputeBasisFromAxis`` (today ``RotationMatrix::MakeFromOneVector``):
the basis used, for example, to build a contact frame whose z axis is a
contact normal. Deterministic, so results match Drake element by element.

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.math import _checks
from geometry_core.tolerances import ZERO_AXIS_NORM

__all__ = ["compute_basis_from_axis"]


def compute_basis_from_axis(axis_index: int, axis_W: np.ndarray) -> np.ndarray:
    """Return R_WL, a right-handed orthonormal basis L whose ``axis_index`` axis is ``axis_W``.

    Column ``axis_index`` of R_WL is u = axis_W / |axis_W|. With i the index
    of u's smallest-magnitude element (first one on ties) and j, k the next
    indices cyclically, column ``axis_index + 1`` (mod 3) is
    v = eᵢ × u / |eᵢ × u| (so v[i] = 0) and column ``axis_index + 2`` is
    w = u × v; since |eᵢ × u| = sqrt(1 - uᵢ²) >= sqrt(2/3), nothing is
    ill-conditioned.

    Parameters
    ----------
    axis_index : int
        0, 1 or 2: which axis of L (x, y or z) is along ``axis_W``.
    axis_W : (3,) array_like of float
        The axis, expressed in W; need not be unit length.

    Returns
    -------
    (3, 3) ndarray of float64
        R_WL, so that ``v_W = R_WL @ v_L``.

    Raises
    ------
    TypeError
        If ``axis_index`` is not an int or ``axis_W`` not an array of reals.
    ValueError
        If ``axis_index`` is not 0, 1 or 2, ``axis_W`` is not a finite (3,)
        array, or its norm is below ``ZERO_AXIS_NORM`` (1e-10, as Drake).
    """
    axis = _checks.as_index("axis_index", axis_index, 3)
    a = _checks.as_float_array("axis_W", axis_W, (3,))
    norm = float(np.sqrt(a @ a))
    if norm < ZERO_AXIS_NORM:
        raise ValueError(
            f"axis_W has norm {norm:.3g}, below {ZERO_AXIS_NORM:g}: too small to give a direction"
        )
    u = a / norm
    i = int(np.argmin(np.abs(u)))
    j, k = (i + 1) % 3, (i + 2) % 3
    u_list = u.tolist()
    length = math.sqrt(1.0 - u_list[i] * u_list[i])  # |eᵢ × u|
    v = [0.0, 0.0, 0.0]
    v[j] = -u_list[k] / length
    v[k] = u_list[j] / length
    # w = u × v = (eᵢ - uᵢ u) / |eᵢ × u|, written out.
    scale = -u_list[i] / length
    w = [0.0, 0.0, 0.0]
    w[i] = length
    w[j] = scale * u_list[j]
    w[k] = scale * u_list[k]
    R_WL = np.empty((3, 3))
    R_WL[:, axis] = u
    R_WL[:, (axis + 1) % 3] = v
    R_WL[:, (axis + 2) % 3] = w
    return R_WL
