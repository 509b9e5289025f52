"""RotationMatrix: a checked 3x3 rotation R_AB between two frames (Drake's RotationMatrix).

``R_AB`` relates right-handed orthonormal unit vectors Ax, Ay, Az fixed in
frame A to Bx, By, Bz fixed in frame B: ``v_A = R_AB @ v_B``. Column i of
R_AB is B's i-th unit vector expressed in A.

Construction validates once (type, shape, NaN/inf, orthonormality within
``USER_ROTATION_TOLERANCE``, no reflection) and keeps the matrix as given;
``is_valid()`` applies Drake's strict ``ORTHONORMALITY_TOLERANCE``. Results of
operations on valid rotations (products, transposes, conversions) are built
through a private trusted path without re-validation.

Deliberately absent: ``__eq__`` (float equality is not a rotation
comparison; use :meth:`RotationMatrix.is_nearby`) and ``__array__`` (use
:meth:`RotationMatrix.matrix`).

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from transforms3d import axangles as _t3d_axangles

from geometry_core.math import _checks, _scalar
from geometry_core.math.quaternion import (
    quaternion_to_rotation_matrix,
    rotation_matrix_to_quaternion,
)
from geometry_core.tolerances import (
    ORTHONORMALITY_TOLERANCE,
    PROJECTION_SINGULAR_VALUE_RATIO,
    USER_ROTATION_TOLERANCE,
    ZERO_AXIS_NORM,
)

if TYPE_CHECKING:
    from geometry_core.math.roll_pitch_yaw import RollPitchYaw

__all__ = ["RotationMatrix"]

_IDENTITY3 = np.eye(3)
_IDENTITY3.flags.writeable = False
_new = object.__new__
_rotation_copy = _scalar.rotation_copy


class RotationMatrix:
    """Rotation matrix R_AB relating frames A and B (``v_A = R_AB @ v_B``).

    Parameters
    ----------
    R : RotationMatrix, RollPitchYaw or (3, 3) array_like of float, optional
        Copy of another RotationMatrix; the rotation of a RollPitchYaw; or
        an allegedly valid rotation matrix (kept as given, not projected).
        Omitted (and no keyword): the identity.
    rpy : RollPitchYaw, optional
        Keyword form of the roll-pitch-yaw constructor.
    quaternion : (4,) array_like of float, optional
        ``[w, x, y, z]``, need not be unit length; zero or NaN refused.
    theta_lambda : tuple (float, (3,) array_like of float), optional
        Angle-axis ``(theta, lambda)``: right-handed rotation by ``theta``
        radians about ``lambda`` (need not be unit; zero refused).

    Raises
    ------
    TypeError
        If an argument has the wrong type, or more than one form is given.
    ValueError
        If a matrix has the wrong shape, NaN/inf entries, is not orthonormal
        within ``USER_ROTATION_TOLERANCE`` (the error is given) or is a
        reflection; if a quaternion is zero/NaN; if an axis is zero/NaN.

    Examples
    --------
    >>> R_AB = RotationMatrix.make_z_rotation(0.5)
    >>> v_A = R_AB @ np.array([1.0, 0.0, 0.0])
    """

    __slots__ = ("_R",)
    # Stop numpy from broadcasting over a RotationMatrix in ``array @ R``.
    __array_ufunc__ = None

    def __init__(
        self,
        R: RotationMatrix | RollPitchYaw | np.ndarray | None = None,
        *,
        rpy: RollPitchYaw | None = None,
        quaternion: np.ndarray | None = None,
        theta_lambda: tuple[float, np.ndarray] | None = None,
    ) -> None:
        if rpy is None and quaternion is None and theta_lambda is None:
            if R is None:
                self._R = _IDENTITY3.copy()
                return
            if type(R) is RotationMatrix:
                self._R = R._R.copy()
                return
            if type(R) is np.ndarray:
                # A float64 (3, 3) proper rotation in one compiled call; the
                # rest (and every error) takes the checked path below.
                matrix = _rotation_copy(R, USER_ROTATION_TOLERANCE)
                if matrix is not None:
                    self._R = matrix
                    return
        given = [k for k, v in (("R", R), ("rpy", rpy), ("quaternion", quaternion),
                                ("theta_lambda", theta_lambda)) if v is not None]
        if len(given) > 1:
            raise TypeError(
                f"RotationMatrix takes one of R, rpy, quaternion, theta_lambda; got {given}"
            )
        if R is not None:
            self._R = _matrix_from_positional(R)
        elif rpy is not None:
            self._R = _matrix_from_rpy(rpy)
        elif quaternion is not None:
            self._R = quaternion_to_rotation_matrix(quaternion)
        elif theta_lambda is not None:
            self._R = _matrix_from_angle_axis(theta_lambda)
        else:
            self._R = _IDENTITY3.copy()

    @classmethod
    def _from_trusted_matrix3(cls, R_AB: np.ndarray) -> RotationMatrix:
        # Internal fast path: R_AB is a float64 (3, 3) rotation the caller owns;
        # no copy, no validation.
        rotation = object.__new__(cls)
        rotation._R = R_AB
        return rotation

    # --- factories ---------------------------------------------------------

    @staticmethod
    def identity() -> RotationMatrix:
        """Return the identity rotation (frames A and B aligned)."""
        rotation = _new(RotationMatrix)
        rotation._R = _IDENTITY3.copy()
        return rotation

    @staticmethod
    def make_x_rotation(theta: float) -> RotationMatrix:
        """Return R_AB for a right-handed rotation of B about Ax = Bx by ``theta``.

        Parameters
        ----------
        theta : float
            Angle in radians.

        Returns
        -------
        RotationMatrix
            ``[[1, 0, 0], [0, c, -s], [0, s, c]]``.

        Raises
        ------
        TypeError
            If ``theta`` is not a real number.
        ValueError
            If ``theta`` is NaN or infinite.
        """
        t = theta if type(theta) is float and math.isfinite(theta) else _angle("theta", theta)
        rotation = _new(RotationMatrix)
        rotation._R = _scalar.matrix3_from_rpy(t, 0.0, 0.0)
        return rotation

    @staticmethod
    def make_y_rotation(theta: float) -> RotationMatrix:
        """Return R_AB for a right-handed rotation of B about Ay = By by ``theta``.

        Parameters
        ----------
        theta : float
            Angle in radians.

        Returns
        -------
        RotationMatrix
            ``[[c, 0, s], [0, 1, 0], [-s, 0, c]]``.

        Raises
        ------
        TypeError
            If ``theta`` is not a real number.
        ValueError
            If ``theta`` is NaN or infinite.
        """
        t = theta if type(theta) is float and math.isfinite(theta) else _angle("theta", theta)
        rotation = _new(RotationMatrix)
        rotation._R = _scalar.matrix3_from_rpy(0.0, t, 0.0)
        return rotation

    @staticmethod
    def make_z_rotation(theta: float) -> RotationMatrix:
        """Return R_AB for a right-handed rotation of B about Az = Bz by ``theta``.

        Parameters
        ----------
        theta : float
            Angle in radians.

        Returns
        -------
        RotationMatrix
            ``[[c, -s, 0], [s, c, 0], [0, 0, 1]]``.

        Raises
        ------
        TypeError
            If ``theta`` is not a real number.
        ValueError
            If ``theta`` is NaN or infinite.
        """
        t = theta if type(theta) is float and math.isfinite(theta) else _angle("theta", theta)
        rotation = _new(RotationMatrix)
        rotation._R = _scalar.matrix3_from_rpy(0.0, 0.0, t)
        return rotation

    @staticmethod
    def project_to_rotation_matrix(M: np.ndarray) -> RotationMatrix:
        """Return the rotation closest to ``M`` (Frobenius and 2-norm), via SVD.

        With ``M = U diag(s) Vᵀ``, the closest proper rotation is
        ``U diag(1, 1, d) Vᵀ`` with ``d = sign(det(U Vᵀ))``. For ``det M > 0``
        this is Drake's ``ProjectToRotationMatrix``; for ``det M < 0`` Drake
        throws, while this returns the closest *proper* rotation.

        Parameters
        ----------
        M : (3, 3) array_like of float
            Approximate rotation matrix.

        Returns
        -------
        RotationMatrix

        Raises
        ------
        TypeError
            If ``M`` is not an array of real numbers.
        ValueError
            If the shape is not (3, 3), ``M`` has NaN/inf, or ``M`` is
            singular (smallest/largest singular value at most
            ``PROJECTION_SINGULAR_VALUE_RATIO``; the closest rotation is then
            not unique).
        """
        # The compiled polar iteration answers well-conditioned M with det M > 0
        # (the common case, a rotation gone slightly off); the SVD the rest.
        R = _scalar.polar_rotation(M)
        if R is not None:
            return RotationMatrix._from_trusted_matrix3(R)
        A = _checks.as_float_array("M", M, (3, 3))
        U, s, Vt = np.linalg.svd(A)
        if s[2] <= s[0] * PROJECTION_SINGULAR_VALUE_RATIO:
            raise ValueError(
                f"M is singular (singular values {s.tolist()}); it has no unique closest "
                "rotation"
            )
        if _checks.det3(U @ Vt) < 0:
            U[:, 2] = -U[:, 2]
        return RotationMatrix._from_trusted_matrix3(U @ Vt)

    # --- accessors ---------------------------------------------------------

    def matrix(self) -> np.ndarray:
        """Return a copy of the (3, 3) matrix R_AB."""
        return self._R.copy()

    def col(self, index: int) -> np.ndarray:
        """Return column ``index`` of R_AB: B's unit vector Bx, By or Bz expressed in A.

        Parameters
        ----------
        index : int
            0, 1 or 2.

        Returns
        -------
        (3,) ndarray of float64

        Raises
        ------
        TypeError
            If ``index`` is not an int.
        ValueError
            If ``index`` is not in [0, 2].
        """
        i = index if type(index) is int and 0 <= index <= 2 else _checks.as_index("index", index, 3)
        return self._R[:, i].copy()

    def row(self, index: int) -> np.ndarray:
        """Return row ``index`` of R_AB: A's unit vector Ax, Ay or Az expressed in B.

        Parameters
        ----------
        index : int
            0, 1 or 2.

        Returns
        -------
        (3,) ndarray of float64

        Raises
        ------
        TypeError
            If ``index`` is not an int.
        ValueError
            If ``index`` is not in [0, 2].
        """
        i = index if type(index) is int and 0 <= index <= 2 else _checks.as_index("index", index, 3)
        return self._R[i].copy()

    def set(self, R: np.ndarray) -> None:
        """Replace this rotation by the allegedly valid (3, 3) matrix ``R``.

        Raises
        ------
        TypeError, ValueError
            As the constructor; on error this rotation is unchanged.
        """
        self._R = _validated_matrix("R", R)

    # --- algebra -----------------------------------------------------------

    def transpose(self) -> RotationMatrix:
        """Return R_BA = R_ABᵀ."""
        return RotationMatrix._from_trusted_matrix3(_scalar.invert(self._R))

    def inverse(self) -> RotationMatrix:
        """Return R_BA = R_AB⁻¹ (= R_ABᵀ)."""
        return RotationMatrix._from_trusted_matrix3(_scalar.invert(self._R))

    def multiply(self, other: RotationMatrix | np.ndarray) -> RotationMatrix | np.ndarray:
        """Compose with a rotation or rotate vectors.

        Parameters
        ----------
        other : RotationMatrix or (3,) or (3, N) array_like of float
            R_BC, or vector(s) v_B expressed in B.

        Returns
        -------
        RotationMatrix or ndarray
            R_AC = R_AB R_BC; or v_A = R_AB v_B with the shape of ``other``.

        Raises
        ------
        TypeError
            If ``other`` is neither a RotationMatrix nor an array of reals.
        ValueError
            If a vector argument's shape is not (3,) or (3, N), or it has
            NaN/inf entries.
        """
        if isinstance(other, RotationMatrix):
            return RotationMatrix._from_trusted_matrix3(_scalar.multiply(self._R, other._R))
        return self._R @ _vectors("v_B", other)

    def __matmul__(self, other: RotationMatrix | np.ndarray) -> RotationMatrix | np.ndarray:
        if isinstance(other, RotationMatrix):
            return RotationMatrix._from_trusted_matrix3(_scalar.multiply(self._R, other._R))
        if isinstance(other, (np.ndarray, list, tuple)):
            return self._R @ _vectors("v_B", other)
        return NotImplemented

    # --- conversions -------------------------------------------------------

    def to_quaternion(self) -> np.ndarray:
        """Return the canonical unit quaternion ``[w, x, y, z]`` of R_AB, with ``w >= 0``."""
        return rotation_matrix_to_quaternion(self._R)

    def to_roll_pitch_yaw(self) -> RollPitchYaw:
        """Return the RollPitchYaw of this rotation (see ``RollPitchYaw(R)``)."""
        return _roll_pitch_yaw_class()._from_trusted_angles(_scalar.rpy_of(self._R))

    # --- predicates --------------------------------------------------------

    def is_valid(self) -> bool:
        """True if R_AB is orthonormal within ``ORTHONORMALITY_TOLERANCE`` and det > 0.

        This is Drake's strict test (128 machine epsilons); a matrix accepted
        at construction with the looser ``USER_ROTATION_TOLERANCE`` may fail it.
        """
        return _scalar.rotation_status(self._R, ORTHONORMALITY_TOLERANCE) == 0

    def is_exactly_identity(self) -> bool:
        """True if R_AB is exactly the identity matrix."""
        return _scalar.identity_errors(self._R)[0] == 0.0

    def is_identity_to_internal_tolerance(self) -> bool:
        """True if every element of R_AB is within ``ORTHONORMALITY_TOLERANCE`` of identity."""
        return _scalar.identity_errors(self._R)[0] <= ORTHONORMALITY_TOLERANCE

    def is_nearby(self, other: RotationMatrix, tolerance: float) -> bool:
        """True if no element of R_AB differs from ``other``'s by more than ``tolerance``.

        Parameters
        ----------
        other : RotationMatrix
        tolerance : float
            Largest accepted absolute element difference (dimensionless).

        Raises
        ------
        TypeError
            If ``other`` is not a RotationMatrix or ``tolerance`` not a real.
        """
        if not isinstance(other, RotationMatrix):
            raise TypeError(f"other must be a RotationMatrix, got {type(other).__name__}")
        tol = _checks.as_real_scalar("tolerance", tolerance)
        return _scalar.max_abs_difference(self._R, other._R) <= tol

    # --- python protocol ---------------------------------------------------

    def __copy__(self) -> RotationMatrix:
        return RotationMatrix._from_trusted_matrix3(self._R.copy())

    def __deepcopy__(self, memo: dict) -> RotationMatrix:
        return self.__copy__()

    def __repr__(self) -> str:
        rows = ",\n".join(f"  {row}" for row in self._R.tolist())
        return f"RotationMatrix([\n{rows},\n])"


def _roll_pitch_yaw_class() -> type:
    # roll_pitch_yaw imports this module; import it once, at first use.
    global _RollPitchYaw
    if _RollPitchYaw is None:
        from geometry_core.math.roll_pitch_yaw import RollPitchYaw

        _RollPitchYaw = RollPitchYaw
    return _RollPitchYaw


_RollPitchYaw = None


def _angle(name: str, theta: object) -> float:
    if type(theta) is float and math.isfinite(theta):
        return theta
    return _checks.as_real_scalar(name, theta)


def _validated_matrix(name: str, R: object) -> np.ndarray:
    matrix = _checks.as_float_array_any_shape(name, R)
    if matrix.shape != (3, 3):
        raise ValueError(f"{name} must have shape (3, 3), got {matrix.shape}")
    _checks.check_rotation(name, matrix, USER_ROTATION_TOLERANCE)
    return matrix


def _matrix_from_positional(R: object) -> np.ndarray:
    from geometry_core.math.roll_pitch_yaw import RollPitchYaw

    if isinstance(R, RotationMatrix):
        return R._R.copy()
    if isinstance(R, RollPitchYaw):
        return _matrix_from_rpy(R)
    if isinstance(R, np.ndarray) and R.shape == (4,):
        raise ValueError(
            "R must have shape (3, 3), got (4,); for a quaternion [w, x, y, z] use "
            "RotationMatrix(quaternion=q)"
        )
    return _validated_matrix("R", R)


def _matrix_from_rpy(rpy: object) -> np.ndarray:
    from geometry_core.math.roll_pitch_yaw import RollPitchYaw

    if not isinstance(rpy, RollPitchYaw):
        raise TypeError(f"rpy must be a RollPitchYaw, got {type(rpy).__name__}")
    return _scalar.matrix3_from_rpy(*rpy._rpy)


def _matrix_from_angle_axis(theta_lambda: object) -> np.ndarray:
    R = _angle_axis_or_none(theta_lambda)
    if R is not None:
        return R
    if not isinstance(theta_lambda, tuple) or len(theta_lambda) != 2:
        raise TypeError(
            "theta_lambda must be a tuple (theta, axis) of an angle in radians and a "
            f"3-vector, got {type(theta_lambda).__name__}"
        )
    theta = _checks.as_real_scalar("theta_lambda angle", theta_lambda[0])
    axis = _checks.as_float_array("theta_lambda axis", theta_lambda[1], (3,))
    norm = float(np.sqrt(axis @ axis))
    if norm < ZERO_AXIS_NORM:
        raise ValueError(
            f"theta_lambda axis is zero (norm {norm:.3g} < {ZERO_AXIS_NORM:g}) and has "
            "no direction"
        )
    return _t3d_axangles.axangle2mat(axis / norm, theta, is_normalized=True)


def _angle_axis_or_none(theta_lambda: object) -> np.ndarray | None:
    # A float angle and a finite float64 (3,) axis that is not zero: through the
    # unit quaternion (cos θ/2, sin θ/2 λ/|λ|); anything else (and every error)
    # takes the checked path.
    if type(theta_lambda) is not tuple or len(theta_lambda) != 2:
        return None
    theta, axis = theta_lambda
    v = _scalar.vector3_or_none(axis)
    if type(theta) is not float or not math.isfinite(theta) or v is None:
        return None
    x, y, z = v
    norm = math.sqrt(x * x + y * y + z * z)
    if not norm >= ZERO_AXIS_NORM:
        return None
    s = math.sin(0.5 * theta) / norm
    return _scalar.matrix3_from_quaternion(np.array((math.cos(0.5 * theta), s * x, s * y, s * z)),
                                           0.0)


def _vectors(name: str, v: object) -> np.ndarray:
    a = _checks.as_float_array_any_shape(name, v, copy=False)
    if a.ndim == 0 or a.ndim > 2 or a.shape[0] != 3:
        raise ValueError(f"{name} must have shape (3,) or (3, N), got {a.shape}")
    _checks.check_finite(name, a)
    return a
