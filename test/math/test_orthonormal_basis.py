"""Unit tests of geometry_core.math.orthonormal_basis."""

import numpy as np
import pytest

from geometry_core.math import RotationMatrix, compute_basis_from_axis


@pytest.mark.parametrize("axis_index", [0, 1, 2])
def test_basis_is_a_rotation_with_the_given_axis(axis_index):
    axis_W = np.array([0.3, -2.0, 0.7])
    R_WL = compute_basis_from_axis(axis_index, axis_W)
    np.testing.assert_allclose(R_WL[:, axis_index], axis_W / np.linalg.norm(axis_W), atol=1e-16)
    assert RotationMatrix(R_WL).is_valid()


def test_known_basis_for_the_z_axis():
    # u = z; the smallest |u| element is x (first of the tied zeros), so v = x̂ × u / |x̂ × u|.
    R_WL = compute_basis_from_axis(2, [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(R_WL, [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def test_perpendicular_column_has_a_zero_where_the_axis_is_smallest():
    R_WL = compute_basis_from_axis(0, [1.0, 5.0, -0.01])
    assert R_WL[2, 1] == 0.0


@pytest.mark.parametrize(
    ("axis_index", "axis_W", "error", "message"),
    [
        (3, [1.0, 0.0, 0.0], ValueError, r"axis_index must be in \[0, 2\], got 3"),
        (-1, [1.0, 0.0, 0.0], ValueError, r"axis_index must be in \[0, 2\], got -1"),
        (1.0, [1.0, 0.0, 0.0], TypeError, "axis_index must be an int"),
        (0, [1e-11, 0.0, 0.0], ValueError, "axis_W has norm 1e-11, below 1e-10"),
        (0, [np.nan, 0.0, 1.0], ValueError, "axis_W contains NaN"),
        (0, [1.0, 0.0], ValueError, r"axis_W must have shape \(3,\), got \(2,\)"),
    ],
)
def test_errors(axis_index, axis_W, error, message):
    with pytest.raises(error, match=message):
        compute_basis_from_axis(axis_index, axis_W)


def test_small_but_valid_axis_is_accepted():
    R_WL = compute_basis_from_axis(1, [0.0, 2e-10, 0.0])
    np.testing.assert_array_equal(R_WL[:, 1], [0.0, 1.0, 0.0])
