"""RollPitchYaw: space-fixed X-Y-Z angles [r, p, y] relating frames A and D (Drake's RollPitchYaw).

The rotation is ``R_AD = Rz(y) @ Ry(p) @ Rx(r)``: frame D is rolled by r
about Ax, pitched by p about Ay, then yawed by y about Az (equivalently a
body-fixed Z-Y-X rotation by y, p, r). Angles are radians.

Conversion from a rotation matrix or quaternion uses the algorithm of
Drake's ``RollPitchYaw(RotationMatrix)`` (P. Mitiguy), which stays accurate
within 1e-6 of pitch = ±π/2: pitch is taken from an atan2 of the rotation
matrix's elements, roll and yaw from half-angle sums and differences read
off the quaternion (``rpy_from_rotation`` in ``csrc/rotation.c``).

The rate methods are one call each into ``rpy_rates`` of
``csrc/rotation.c``, the only implementation of their formulas. Those that
divide by cos(pitch) raise ``ValueError`` near gimbal lock, with Drake's
test ``|cos(pitch)| < GIMBAL_LOCK_COS_PITCH``: the kernel makes the test and
returns None, and Python only words the error.

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.math import _checks, _scalar
from geometry_core.math.quaternion import (
    quaternion_to_rotation_matrix,
    roll_pitch_yaw_to_quaternion,
)
from geometry_core.math.rotation_matrix import RotationMatrix, _validated_matrix
from geometry_core.tolerances import GIMBAL_LOCK_COS_PITCH

__all__ = ["RollPitchYaw"]

#: Distance of pitch from ±π/2 at which |cos(pitch)| = GIMBAL_LOCK_COS_PITCH, in degrees.
_GIMBAL_LOCK_DEGREES = math.degrees(math.asin(GIMBAL_LOCK_COS_PITCH))


class RollPitchYaw:
    """Roll-pitch-yaw angles ``[r, p, y]`` (radians) of the rotation R_AD.

    Forms (exactly one):

    - ``RollPitchYaw(roll, pitch, yaw)`` — three angles in radians;
    - ``RollPitchYaw(rpy)`` or ``RollPitchYaw(rpy=rpy)`` — a (3,) array;
    - ``RollPitchYaw(other)`` — a copy of another RollPitchYaw;
    - ``RollPitchYaw(R)`` or ``RollPitchYaw(R=R)`` — from a RotationMatrix;
    - ``RollPitchYaw(quaternion=q)`` — from ``[w, x, y, z]`` (normalised);
    - ``RollPitchYaw(matrix=M)`` — from a (3, 3) rotation matrix (validated
      as ``RotationMatrix(M)``).

    Angles from a rotation are in ``-π <= r <= π``, ``-π/2 <= p <= π/2``,
    ``-π <= y <= π``; given angles are kept as given.

    Raises
    ------
    TypeError
        For a wrong type, a wrong number of arguments or more than one form.
    ValueError
        For a wrong shape, NaN/inf angles, a zero/NaN quaternion, or an
        invalid rotation matrix.
    """

    # The three angles as a tuple of Python floats: single objects take the
    # scalar path (see ``_scalar``), with no numpy call per method.
    __slots__ = ("_rpy",)

    def __init__(
        self,
        *args: object,
        rpy: np.ndarray | None = None,
        R: RotationMatrix | None = None,
        quaternion: np.ndarray | None = None,
        matrix: np.ndarray | None = None,
    ) -> None:
        if rpy is None and R is None and quaternion is None and matrix is None:
            # The common forms, finite floats or a finite float64 (3,) array; the
            # rest (and every error) below.
            if len(args) == 3:
                if (type(args[0]) is float and type(args[1]) is float
                        and type(args[2]) is float and math.isfinite(args[0] + args[1] + args[2])):
                    self._rpy = args
                    return
            elif len(args) == 1:
                angles = _vector3_or_none(args[0])
                if angles is not None:
                    self._rpy = angles
                    return
        keywords = [k for k, v in (("rpy", rpy), ("R", R), ("quaternion", quaternion),
                                   ("matrix", matrix)) if v is not None]
        if len(keywords) + (1 if args else 0) != 1:
            raise TypeError(
                "RollPitchYaw takes exactly one of (roll, pitch, yaw), rpy, other, R, "
                f"quaternion=, matrix=; got {len(args)} positional and keywords {keywords}"
            )
        if len(args) == 3:
            self._rpy = tuple(_checks.as_real_scalar(name, value)
                              for name, value in zip(("roll", "pitch", "yaw"), args))
        elif len(args) == 1:
            self._rpy = _angles_from_positional(args[0])
        elif args:
            raise TypeError(f"RollPitchYaw takes 1 or 3 positional arguments, got {len(args)}")
        elif rpy is not None:
            self._rpy = tuple(_checks.as_float_array("rpy", rpy, (3,)).tolist())
        elif R is not None:
            if not isinstance(R, RotationMatrix):
                raise TypeError(f"R must be a RotationMatrix, got {type(R).__name__}")
            self._rpy = _rpy_from_rotation(R)
        elif quaternion is not None:
            # The compiled rotation of q (normalised, or refused with the error
            # naming the fault), then the compiled roll-pitch-yaw of it.
            self._rpy = _scalar.rpy_of(quaternion_to_rotation_matrix(quaternion))
        else:
            self._rpy = _rpy_from_rotation(
                RotationMatrix._from_trusted_matrix3(_validated_matrix("matrix", matrix))
            )

    @classmethod
    def _from_trusted_angles(cls, rpy: tuple[float, float, float]) -> RollPitchYaw:
        # Internal: three finite Python floats the caller computed.
        angles = object.__new__(cls)
        angles._rpy = rpy
        return angles

    # --- accessors ---------------------------------------------------------

    def vector(self) -> np.ndarray:
        """Return a copy of ``[roll, pitch, yaw]`` (radians), shape (3,)."""
        return np.array(self._rpy)

    def roll_angle(self) -> float:
        """Return the roll angle r (radians), about Ax."""
        return self._rpy[0]

    def pitch_angle(self) -> float:
        """Return the pitch angle p (radians), about Ay."""
        return self._rpy[1]

    def yaw_angle(self) -> float:
        """Return the yaw angle y (radians), about Az."""
        return self._rpy[2]

    # --- conversions -------------------------------------------------------

    def to_rotation_matrix(self) -> RotationMatrix:
        """Return R_AD = Rz(y) Ry(p) Rx(r)."""
        return RotationMatrix._from_trusted_matrix3(_scalar.matrix3_from_rpy(*self._rpy))

    def to_quaternion(self) -> np.ndarray:
        """Return the unit quaternion ``[w, x, y, z]`` of R_AD.

        As Drake's ``RollPitchYaw.ToQuaternion``, it is the product of the
        three half-angle quaternions and is not canonicalised (``w`` may be
        negative); ``RotationMatrix.to_quaternion`` returns ``w >= 0``.
        """
        return roll_pitch_yaw_to_quaternion(*self._rpy)

    # --- comparisons -------------------------------------------------------

    def is_nearby(self, other: RollPitchYaw, tolerance: float) -> bool:
        """True if each angle differs from ``other``'s by at most ``tolerance`` radians.

        This compares angles (Drake's ``IsNearlyEqualTo``); two triples for
        the same orientation can differ by 2π or near gimbal lock — use
        :meth:`is_nearly_same_orientation` to compare orientations.

        Raises
        ------
        TypeError
            If ``other`` is not a RollPitchYaw or ``tolerance`` not a real.
        """
        other = _require_rpy(other)
        tol = _checks.as_real_scalar("tolerance", tolerance)
        return max(abs(a - b) for a, b in zip(self._rpy, other._rpy)) <= tol

    def is_nearly_same_orientation(self, other: RollPitchYaw, tolerance: float) -> bool:
        """True if the rotation matrices of ``self`` and ``other`` differ by at most ``tolerance``.

        Raises
        ------
        TypeError
            If ``other`` is not a RollPitchYaw or ``tolerance`` not a real.
        """
        other = _require_rpy(other)
        return self.to_rotation_matrix().is_nearby(other.to_rotation_matrix(), tolerance)

    # --- angular velocity and acceleration ----------------------------------

    def calc_angular_velocity_in_parent_from_rpy_dt(self, rpyDt: np.ndarray) -> np.ndarray:
        """Angular velocity w_AD_A of D in A, expressed in A, from ``[ṙ, ṗ, ẏ]``.

        Parameters
        ----------
        rpyDt : (3,) array_like of float
            Time derivative of ``[r, p, y]`` (rad/s).

        Returns
        -------
        (3,) ndarray of float64
            w_AD_A (rad/s).

        Raises
        ------
        TypeError, ValueError
            If ``rpyDt`` is not a finite (3,) array of reals.
        """
        return _rates(0, GIMBAL_LOCK_COS_PITCH, *self._rpy, *_vector3("rpyDt", rpyDt))

    def calc_angular_velocity_in_child_from_rpy_dt(self, rpyDt: np.ndarray) -> np.ndarray:
        """Angular velocity w_AD_D of D in A, expressed in D, from ``[ṙ, ṗ, ẏ]``.

        Parameters
        ----------
        rpyDt : (3,) array_like of float
            Time derivative of ``[r, p, y]`` (rad/s).

        Returns
        -------
        (3,) ndarray of float64
            w_AD_D (rad/s).

        Raises
        ------
        TypeError, ValueError
            If ``rpyDt`` is not a finite (3,) array of reals.
        """
        return _rates(1, GIMBAL_LOCK_COS_PITCH, *self._rpy, *_vector3("rpyDt", rpyDt))

    def calc_rpy_dt_from_angular_velocity_in_parent(self, w_AD_A: np.ndarray) -> np.ndarray:
        """``[ṙ, ṗ, ẏ]`` from the angular velocity w_AD_A of D in A, expressed in A.

        Parameters
        ----------
        w_AD_A : (3,) array_like of float
            Angular velocity (rad/s).

        Returns
        -------
        (3,) ndarray of float64
            Time derivative of ``[r, p, y]`` (rad/s).

        Raises
        ------
        TypeError, ValueError
            If ``w_AD_A`` is not a finite (3,) array of reals.
        ValueError
            Near gimbal lock (``|cos p| < GIMBAL_LOCK_COS_PITCH``), where the
            map divides by cos(p).
        """
        found = _rates(2, GIMBAL_LOCK_COS_PITCH, *self._rpy, *_vector3("w_AD_A", w_AD_A))
        if found is None:
            raise self._gimbal_lock_error("calc_rpy_dt_from_angular_velocity_in_parent")
        return found

    def calc_rpy_dt_from_angular_velocity_in_child(self, w_AD_D: np.ndarray) -> np.ndarray:
        """``[ṙ, ṗ, ẏ]`` from the angular velocity w_AD_D of D in A, expressed in D.

        Parameters
        ----------
        w_AD_D : (3,) array_like of float
            Angular velocity (rad/s).

        Returns
        -------
        (3,) ndarray of float64
            Time derivative of ``[r, p, y]`` (rad/s).

        Raises
        ------
        TypeError, ValueError
            If ``w_AD_D`` is not a finite (3,) array of reals.
        ValueError
            Near gimbal lock (``|cos p| < GIMBAL_LOCK_COS_PITCH``).
        """
        found = _rates(3, GIMBAL_LOCK_COS_PITCH, *self._rpy, *_vector3("w_AD_D", w_AD_D))
        if found is None:
            raise self._gimbal_lock_error("calc_rpy_dt_from_angular_velocity_in_child")
        return found

    def calc_rotation_matrix_dt(self, rpyDt: np.ndarray) -> np.ndarray:
        """Ṙ_AD, the time derivative of R_AD, from ``[ṙ, ṗ, ẏ]``.

        Uses ``Ṙ_AD = [w_AD_A]ₓ R_AD`` (w_AD_A from
        :meth:`calc_angular_velocity_in_parent_from_rpy_dt`), which equals
        ``∂R/∂r ṙ + ∂R/∂p ṗ + ∂R/∂y ẏ``.

        Parameters
        ----------
        rpyDt : (3,) array_like of float
            Time derivative of ``[r, p, y]`` (rad/s).

        Returns
        -------
        (3, 3) ndarray of float64
            Ṙ_AD (1/s).

        Raises
        ------
        TypeError, ValueError
            If ``rpyDt`` is not a finite (3,) array of reals.
        """
        return _rates(4, GIMBAL_LOCK_COS_PITCH, *self._rpy, *_vector3("rpyDt", rpyDt))

    def calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent(
        self, rpyDt: np.ndarray, alpha_AD_A: np.ndarray
    ) -> np.ndarray:
        """``[r̈, p̈, ÿ]`` from ``[ṙ, ṗ, ẏ]`` and D's angular acceleration in A, expressed in A.

        With w_AD_A = M(p, y) rpyDt, differentiating gives
        ``rpyDDt = M⁻¹ (alpha_AD_A - Ṁ rpyDt)``.

        Parameters
        ----------
        rpyDt : (3,) array_like of float
            Time derivative of ``[r, p, y]`` (rad/s).
        alpha_AD_A : (3,) array_like of float
            Angular acceleration of D in A, expressed in A (rad/s²).

        Returns
        -------
        (3,) ndarray of float64
            Second time derivative of ``[r, p, y]`` (rad/s²).

        Raises
        ------
        TypeError, ValueError
            If an argument is not a finite (3,) array of reals.
        ValueError
            Near gimbal lock (``|cos p| < GIMBAL_LOCK_COS_PITCH``).
        """
        rpy_dt = _vector3("rpyDt", rpyDt)
        alpha = _vector3("alpha_AD_A", alpha_AD_A)
        found = _rates(5, GIMBAL_LOCK_COS_PITCH, *self._rpy, *rpy_dt, *alpha)
        if found is None:
            raise self._gimbal_lock_error("calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent")
        return found

    def calc_rpy_ddt_from_angular_accel_in_child(
        self, rpyDt: np.ndarray, alpha_AD_D: np.ndarray
    ) -> np.ndarray:
        """``[r̈, p̈, ÿ]`` from ``[ṙ, ṗ, ẏ]`` and D's angular acceleration in A, expressed in D.

        With w_AD_D = N(r, p) rpyDt, and alpha_AD_D the derivative of w_AD_D
        (a vector's derivative is the same in A and D when it is D's own
        angular velocity), ``rpyDDt = N⁻¹ (alpha_AD_D - Ṅ rpyDt)``.

        Parameters
        ----------
        rpyDt : (3,) array_like of float
            Time derivative of ``[r, p, y]`` (rad/s).
        alpha_AD_D : (3,) array_like of float
            Angular acceleration of D in A, expressed in D (rad/s²).

        Returns
        -------
        (3,) ndarray of float64
            Second time derivative of ``[r, p, y]`` (rad/s²).

        Raises
        ------
        TypeError, ValueError
            If an argument is not a finite (3,) array of reals.
        ValueError
            Near gimbal lock (``|cos p| < GIMBAL_LOCK_COS_PITCH``).
        """
        rpy_dt = _vector3("rpyDt", rpyDt)
        alpha = _vector3("alpha_AD_D", alpha_AD_D)
        found = _rates(6, GIMBAL_LOCK_COS_PITCH, *self._rpy, *rpy_dt, *alpha)
        if found is None:
            raise self._gimbal_lock_error("calc_rpy_ddt_from_angular_accel_in_child")
        return found

    # --- gimbal lock -------------------------------------------------------

    def _gimbal_lock_error(self, method: str) -> ValueError:
        # Only the words: rpy_rates made the test (|cos(pitch)| <
        # GIMBAL_LOCK_COS_PITCH) and returned None.
        pitch = self._rpy[1]
        return ValueError(
            f"RollPitchYaw.{method}(): gimbal lock: pitch = {pitch:.9g} rad "
            f"({math.degrees(pitch):.6g} degrees) is within {_GIMBAL_LOCK_DEGREES:.6g} "
            "degrees of ±90 degrees (|cos(pitch)| < "
            f"{GIMBAL_LOCK_COS_PITCH:g}), where roll-pitch-yaw rates divide by "
            "cos(pitch); use a quaternion or angular velocity there"
        )

    # --- python protocol ---------------------------------------------------

    def __copy__(self) -> RollPitchYaw:
        return RollPitchYaw(*self._rpy)

    def __deepcopy__(self, memo: dict) -> RollPitchYaw:
        return self.__copy__()

    def __repr__(self) -> str:
        r, p, y = self._rpy
        return f"RollPitchYaw(roll={r!r}, pitch={p!r}, yaw={y!r})"


def _vector3(name: str, value: object) -> list[float]:
    return _vector3_or_none(value) or _checks.as_float_array(name, value, (3,)).tolist()


_vector3_or_none = _scalar.vector3_or_none
# The rate methods' one implementation (csrc/rotation.c); it returns None where
# a method would divide by a cos(pitch) under GIMBAL_LOCK_COS_PITCH.
_rates = _scalar.rpy_rates


def _require_rpy(other: object) -> RollPitchYaw:
    if not isinstance(other, RollPitchYaw):
        raise TypeError(f"other must be a RollPitchYaw, got {type(other).__name__}")
    return other


def _angles_from_positional(value: object) -> np.ndarray:
    if isinstance(value, RollPitchYaw):
        return value._rpy
    if isinstance(value, RotationMatrix):
        return _rpy_from_rotation(value)
    angles = _checks.as_float_array_any_shape("rpy", value)
    if angles.shape == (3, 3):
        raise ValueError(
            "rpy must have shape (3,), got (3, 3); for a rotation matrix use "
            "RollPitchYaw(matrix=M)"
        )
    if angles.shape == (4,):
        raise ValueError(
            "rpy must have shape (3,), got (4,); for a quaternion [w, x, y, z] use "
            "RollPitchYaw(quaternion=q)"
        )
    if angles.shape != (3,):
        raise ValueError(f"rpy must have shape (3,), got {angles.shape}")
    _checks.check_finite("rpy", angles)
    return tuple(angles.tolist())


def _rpy_from_rotation(R: RotationMatrix) -> tuple[float, float, float]:
    return _scalar.rpy_of(R._R)
