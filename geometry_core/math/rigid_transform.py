"""RigidTransform: the pose X_AB of frame B in frame A (Drake's RigidTransform).

``X_AB`` holds the rotation R_AB and the position p_AoBo_A of B's origin
from A's origin, expressed in A. It acts on points as
``p_AoQ_A = X_AB @ p_BoQ_B = p_AoBo_A + R_AB @ p_BoQ_B`` and composes as
``X_AC = X_AB @ X_BC`` (``X_AB @ X_CB`` reads wrong, and is).

Performance contract (poses are built per frame per cycle in hot loops):

- The state is one C-contiguous (4, 4) float64 array ``[[R, p], [0, 0, 0, 1]]``,
  so composition is a single 4x4 matmul and ``get_as_matrix4`` a copy.
- Inputs are validated once, at the public constructor and setters (type,
  shape, NaN/inf, rotation within ``USER_ROTATION_TOLERANCE``, exact last
  row of a 4x4). Given a ``RotationMatrix``, only ``p`` is checked, since the
  rotation was checked when it was built.
- Results of operations on valid transforms (``@``, ``inverse``,
  ``identity``) skip validation through the private classmethod
  ``RigidTransform._from_trusted_matrix4(X)``, which wraps a float64 (4, 4)
  array **without copying or checking it** and takes ownership of it.
  Library code that already holds validated data — e.g. a row of
  ``kernels.validate_matrix4s`` or ``kernels.matrix4_from_quaternions_and_positions``
  — may use it; user-facing code must not.

Deliberately absent: ``__eq__`` (use :meth:`RigidTransform.is_nearby`) and
``__array__`` (use :meth:`RigidTransform.get_as_matrix4`).

This module must never import scene_graph, proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.math import _checks, _scalar
from geometry_core.math.roll_pitch_yaw import RollPitchYaw
from geometry_core.math.rotation_matrix import RotationMatrix, _angle_axis_or_none, _vectors
from geometry_core.tolerances import (
    ORTHONORMALITY_TOLERANCE,
    USER_ROTATION_TOLERANCE,
)

__all__ = ["RigidTransform"]

_IDENTITY4 = np.eye(4)
_IDENTITY4.flags.writeable = False
_LAST_ROW = (0.0, 0.0, 0.0, 1.0)
_new = object.__new__
_pose_from_rpy = _scalar.pose_from_rpy
_invert = _scalar.invert
_rotation_of = _scalar.rotation_of
_vector3_or_none = _scalar.vector3_or_none
_ZERO3 = np.zeros(3)
_ZERO3.flags.writeable = False


class RigidTransform:
    """Pose X_AB: rotation R_AB and position p_AoBo_A of frame B in frame A.

    Forms (keywords as Drake's Python bindings):

    - ``RigidTransform()`` — identity;
    - ``RigidTransform(other)`` — copy;
    - ``RigidTransform(R, p)`` / ``RigidTransform(R=R, p=p)`` — RotationMatrix R_AB
      and (3,) p_AoBo_A (metres); ``p`` may be omitted (zero);
    - ``RigidTransform(rpy, p)`` / ``RigidTransform(rpy=rpy, p=p)`` — RollPitchYaw;
    - ``RigidTransform(quaternion=q, p=p)`` — ``[w, x, y, z]``, need not be unit;
    - ``RigidTransform(theta_lambda=(theta, axis), p=p)`` — angle-axis;
    - ``RigidTransform(p)`` / ``RigidTransform(p=p)`` — identity rotation;
    - ``RigidTransform(pose)`` / ``RigidTransform(pose=pose)`` — a (4, 4)
      matrix with last row exactly ``[0, 0, 0, 1]``, a (3, 4) matrix
      ``[R | p]`` or a (3,) position.

    A bare (4,) array is refused rather than guessed at: pass
    ``quaternion=q`` for a quaternion.

    Raises
    ------
    TypeError
        For a wrong type, too many arguments, or more than one rotation form.
    ValueError
        For a wrong shape (``p must have shape (3,), got (4,)``), NaN/inf
        entries, a rotation that is not orthonormal within
        ``USER_ROTATION_TOLERANCE`` or is a reflection, a zero quaternion or
        axis, or a 4x4 whose last row is not exactly ``[0, 0, 0, 1]``.
    """

    __slots__ = ("_X",)
    # Stop numpy from broadcasting over a RigidTransform in ``array @ X``.
    __array_ufunc__ = None

    def __init__(
        self,
        *args: object,
        R: RotationMatrix | None = None,
        p: np.ndarray | None = None,
        rpy: RollPitchYaw | None = None,
        quaternion: np.ndarray | None = None,
        theta_lambda: tuple[float, np.ndarray] | None = None,
        pose: np.ndarray | None = None,
    ) -> None:
        no_keywords = (R is None and p is None and rpy is None and quaternion is None
                       and theta_lambda is None and pose is None)
        if no_keywords:
            count = len(args)
            if count == 2:
                # RigidTransform(RollPitchYaw, p), the pose a loop builds from
                # angles, in one compiled call (None sends anything unusual on).
                if type(args[0]) is RollPitchYaw:
                    X = _pose_from_rpy(args[0]._rpy, args[1])
                    if X is not None:
                        self._X = X
                        return
                elif _fast_pair(self, args[0], args[1]):
                    return
            elif count == 0:
                self._X = _IDENTITY4.copy()
                return
            elif count == 1 and type(args[0]) is RigidTransform:
                self._X = args[0]._X.copy()
                return
            elif count == 1 and type(args[0]) is RotationMatrix:
                self._X = _scalar.assemble(args[0]._R, _ZERO3)
                return
        if (quaternion is not None and not args and R is None and rpy is None
                and theta_lambda is None and pose is None
                and _fast_quaternion(self, quaternion, p)):
            return
        if (theta_lambda is not None and not args and R is None and rpy is None
                and quaternion is None and pose is None and (p is None or _is_vector3(p))):
            R_AB = _angle_axis_or_none(theta_lambda)
            X = None if R_AB is None else _scalar.assemble(R_AB, _ZERO3 if p is None else p)
            if X is not None:
                self._X = X
                return
        if len(args) > 2:
            raise TypeError(f"RigidTransform takes at most 2 positional arguments, got {len(args)}")
        if len(args) == 1 and isinstance(args[0], RigidTransform):
            if any(v is not None for v in (R, p, rpy, quaternion, theta_lambda, pose)):
                raise TypeError("RigidTransform(other) copies a transform; it takes no keywords")
            self._X = args[0]._X.copy()
            return
        rotation_arg = None
        if len(args) == 2:
            rotation_arg, p = args[0], _no_duplicate("p", p, args[1])
        elif len(args) == 1:
            if isinstance(args[0], (RotationMatrix, RollPitchYaw)) or p is not None:
                rotation_arg = args[0]
            else:
                pose = _no_duplicate("pose", pose, args[0])
        if rotation_arg is not None:
            if isinstance(rotation_arg, RotationMatrix):
                R = _no_duplicate("R", R, rotation_arg)
            elif isinstance(rotation_arg, RollPitchYaw):
                rpy = _no_duplicate("rpy", rpy, rotation_arg)
            else:
                raise TypeError(
                    "the rotation argument of RigidTransform(R, p) must be a RotationMatrix or "
                    f"RollPitchYaw, got {type(rotation_arg).__name__}; wrap a (3, 3) array as "
                    "RotationMatrix(R) or pass quaternion= / theta_lambda="
                )
        if pose is not None:
            if any(v is not None for v in (R, p, rpy, quaternion, theta_lambda)):
                raise TypeError("RigidTransform(pose=...) takes no other argument")
            self._X = _matrix4_from_pose(pose)
            return
        X = _IDENTITY4.copy()
        if R is not None or rpy is not None or quaternion is not None or theta_lambda is not None:
            X[:3, :3] = _rotation_block(
                R=R, rpy=rpy, quaternion=quaternion, theta_lambda=theta_lambda
            )
        if p is not None:
            X[:3, 3] = _checks.as_float_array("p", p, (3,), copy=False)
        self._X = X

    @classmethod
    def _from_trusted_matrix4(cls, X_AB: np.ndarray) -> RigidTransform:
        # Hot-path constructor: X_AB must be a float64 (4, 4) rigid transform
        # the caller hands over (no copy, no checks). See the module docstring.
        transform = object.__new__(cls)
        transform._X = X_AB
        return transform

    # --- factories and whole-pose access -----------------------------------

    @staticmethod
    def identity() -> RigidTransform:
        """Return the identity transform (coincident frames)."""
        transform = _new(RigidTransform)
        transform._X = _IDENTITY4.copy()
        return transform

    def set_identity(self) -> RigidTransform:
        """Make this the identity transform and return ``self``."""
        self._X = _IDENTITY4.copy()
        return self

    def get_as_matrix4(self) -> np.ndarray:
        """Return a copy of X_AB as a (4, 4) array ``[[R_AB, p_AoBo_A], [0, 0, 0, 1]]``."""
        return self._X.copy()

    def get_as_matrix34(self) -> np.ndarray:
        """Return a copy of X_AB as a (3, 4) array ``[R_AB | p_AoBo_A]``."""
        return self._X[:3].copy()

    # --- parts -------------------------------------------------------------

    def rotation(self) -> RotationMatrix:
        """Return R_AB (a copy)."""
        rotation = _new(RotationMatrix)
        rotation._R = _rotation_of(self._X)
        return rotation

    def translation(self) -> np.ndarray:
        """Return p_AoBo_A, shape (3,) (a copy), metres."""
        return self._X[:3, 3].copy()

    def set(self, R: RotationMatrix, p: np.ndarray) -> None:
        """Set R_AB and p_AoBo_A together.

        Parameters
        ----------
        R : RotationMatrix
            R_AB.
        p : (3,) array_like of float
            p_AoBo_A, metres.

        Raises
        ------
        TypeError
            If ``R`` is not a RotationMatrix or ``p`` not an array of reals.
        ValueError
            If ``p`` is not a finite (3,) array; this transform is then unchanged.
        """
        if not isinstance(R, RotationMatrix):
            raise TypeError(f"R must be a RotationMatrix, got {type(R).__name__}")
        X = _scalar.assemble(R._R, p) if _is_vector3(p) else None
        if X is not None:
            self._X = X
            return
        position = _checks.as_float_array("p", p, (3,), copy=False)
        X = _IDENTITY4.copy()
        X[:3, :3] = R._R
        X[:3, 3] = position
        self._X = X

    def set_rotation(
        self,
        R: RotationMatrix | RollPitchYaw | None = None,
        *,
        rpy: RollPitchYaw | None = None,
        quaternion: np.ndarray | None = None,
        theta_lambda: tuple[float, np.ndarray] | None = None,
    ) -> None:
        """Replace R_AB, keeping p_AoBo_A.

        Parameters
        ----------
        R : RotationMatrix or RollPitchYaw, optional
            The new rotation (positional).
        rpy : RollPitchYaw, optional
        quaternion : (4,) array_like of float, optional
            ``[w, x, y, z]``, need not be unit.
        theta_lambda : tuple (float, (3,) array_like of float), optional
            Angle (radians) and axis (need not be unit).

        Raises
        ------
        TypeError
            If not exactly one form is given, or it has the wrong type.
        ValueError
            For a zero/NaN quaternion or axis; this transform is then unchanged.
        """
        if (type(R) is RotationMatrix and rpy is None and quaternion is None
                and theta_lambda is None):
            self._X = _scalar.assemble(R._R, self._X)
            return
        if isinstance(R, RollPitchYaw):
            R, rpy = None, _no_duplicate("rpy", rpy, R)
        elif R is not None and not isinstance(R, RotationMatrix):
            raise TypeError(
                f"R must be a RotationMatrix or RollPitchYaw, got {type(R).__name__}"
            )
        if all(v is None for v in (R, rpy, quaternion, theta_lambda)):
            raise TypeError("set_rotation needs one of R, rpy, quaternion, theta_lambda")
        block = _rotation_block(R=R, rpy=rpy, quaternion=quaternion, theta_lambda=theta_lambda)
        X = self._X.copy()
        X[:3, :3] = block
        self._X = X

    def set_translation(self, p: np.ndarray) -> None:
        """Replace p_AoBo_A (metres), keeping R_AB.

        Raises
        ------
        TypeError, ValueError
            If ``p`` is not a finite (3,) array of reals; this transform is
            then unchanged.
        """
        X = _scalar.assemble(self._X, p) if _is_vector3(p) else None
        if X is not None:
            self._X = X
            return
        position = _checks.as_float_array("p", p, (3,), copy=False)
        X = self._X.copy()
        X[:3, 3] = position
        self._X = X

    # --- algebra -----------------------------------------------------------

    def inverse(self) -> RigidTransform:
        """Return X_BA = X_AB⁻¹: ``R_BA = R_ABᵀ``, ``p_BoAo_B = -R_ABᵀ p_AoBo_A``."""
        inverse = _new(RigidTransform)
        inverse._X = _invert(self._X)
        return inverse

    def multiply(self, other: RigidTransform | np.ndarray) -> RigidTransform | np.ndarray:
        """Compose with a transform, or transform points.

        Parameters
        ----------
        other : RigidTransform or (3,) or (3, N) array_like of float
            X_BC; or positions p_BoQ_B of points Q (one per column), metres.

        Returns
        -------
        RigidTransform or ndarray
            X_AC = X_AB X_BC; or p_AoQ_A = p_AoBo_A + R_AB p_BoQ_B with the
            shape of ``other``.

        Raises
        ------
        TypeError
            If ``other`` is neither a RigidTransform nor an array of reals.
        ValueError
            If a point array's shape is not (3,) or (3, N), or it has NaN/inf.
        """
        if isinstance(other, RigidTransform):
            return RigidTransform._from_trusted_matrix4(_scalar.multiply(self._X, other._X))
        return self._transform_points(_vectors("p_BoQ_B", other))

    def __matmul__(self, other: RigidTransform | np.ndarray) -> RigidTransform | np.ndarray:
        if isinstance(other, RigidTransform):
            return RigidTransform._from_trusted_matrix4(_scalar.multiply(self._X, other._X))
        if isinstance(other, (np.ndarray, list, tuple)):
            return self._transform_points(_vectors("p_BoQ_B", other))
        return NotImplemented

    def _transform_points(self, p_BoQ_B: np.ndarray) -> np.ndarray:
        X = self._X
        if p_BoQ_B.ndim == 1:
            return X[:3, :3] @ p_BoQ_B + X[:3, 3]
        return X[:3, :3] @ p_BoQ_B + X[:3, 3:4]

    # --- predicates --------------------------------------------------------

    def is_exactly_identity(self) -> bool:
        """True if R_AB is exactly I and p_AoBo_A exactly zero."""
        return _scalar.identity_errors(self._X) == (0.0, 0.0)

    def is_identity_to_epsilon(self, translation_tolerance: float) -> bool:
        """True if R_AB is identity within ``ORTHONORMALITY_TOLERANCE`` and |p|∞ <= tolerance.

        Parameters
        ----------
        translation_tolerance : float
            Largest accepted absolute element of p_AoBo_A, metres.

        Raises
        ------
        TypeError, ValueError
            If ``translation_tolerance`` is not a finite real.
        """
        tol = (translation_tolerance if type(translation_tolerance) is float
               and math.isfinite(translation_tolerance)
               else _checks.as_real_scalar("translation_tolerance", translation_tolerance))
        rotation_error, translation_error = _scalar.identity_errors(self._X)
        return rotation_error <= ORTHONORMALITY_TOLERANCE and translation_error <= tol

    def is_nearby(self, other: RigidTransform, tolerance: float) -> bool:
        """True if no element of [R_AB | p_AoBo_A] differs from ``other``'s by over ``tolerance``.

        As Drake's ``IsNearlyEqualTo``: one tolerance for the dimensionless
        rotation elements and the translation (metres).

        Raises
        ------
        TypeError
            If ``other`` is not a RigidTransform or ``tolerance`` not a real.
        """
        if not isinstance(other, RigidTransform):
            raise TypeError(f"other must be a RigidTransform, got {type(other).__name__}")
        tol = (tolerance if type(tolerance) is float and math.isfinite(tolerance)
               else _checks.as_real_scalar("tolerance", tolerance))
        return _scalar.max_abs_difference(self._X, other._X) <= tol

    # --- python protocol ---------------------------------------------------

    def __copy__(self) -> RigidTransform:
        return RigidTransform._from_trusted_matrix4(self._X.copy())

    def __deepcopy__(self, memo: dict) -> RigidTransform:
        return self.__copy__()

    def __repr__(self) -> str:
        rows = ",\n".join(f"    {row}" for row in self._X[:3, :3].tolist())
        return (
            f"RigidTransform(\n  R=RotationMatrix([\n{rows},\n  ]),\n"
            f"  p={self._X[:3, 3].tolist()},\n)"
        )


def _fast_pair(transform: RigidTransform, R: object, p: object) -> bool:
    # The common RigidTransform(R, p) with a RotationMatrix and a finite
    # float64 (3,) array, in about half the general path's time; anything else (including
    # every error) falls through to the general path and its messages.
    if type(R) is not RotationMatrix or _vector3_or_none(p) is None:
        return False
    X = _scalar.assemble(R._R, p)
    if X is None:
        return False
    transform._X = X
    return True


def _is_vector3(p: object) -> bool:
    return type(p) is np.ndarray and p.shape == (3,) and p.dtype == np.float64


def _fast_quaternion(transform: RigidTransform, quaternion: object, p: object) -> bool:
    # RigidTransform(quaternion=q, p=p) with a float64 (4,) q and (3,) p (or no
    # p), finite and q not zero; anything else takes the general path.
    X = _scalar.matrix4_from_quaternion(quaternion, 0.0,
                                        _ZERO3 if p is None else p)
    if X is None:
        return False
    transform._X = X
    return True


def _no_duplicate(name: str, keyword_value: object, positional_value: object) -> object:
    if keyword_value is not None:
        raise TypeError(f"RigidTransform got {name} both positionally and by keyword")
    return positional_value


def _rotation_block(
    *,
    R: RotationMatrix | None,
    rpy: RollPitchYaw | None,
    quaternion: np.ndarray | None,
    theta_lambda: tuple[float, np.ndarray] | None,
) -> np.ndarray:
    given = [k for k, v in (("R", R), ("rpy", rpy), ("quaternion", quaternion),
                            ("theta_lambda", theta_lambda)) if v is not None]
    if len(given) > 1:
        raise TypeError(f"give one rotation among R, rpy, quaternion, theta_lambda; got {given}")
    if R is not None:
        if not isinstance(R, RotationMatrix):
            raise TypeError(
                f"R must be a RotationMatrix, got {type(R).__name__}; wrap a (3, 3) array "
                "as RotationMatrix(R)"
            )
        return R._R
    return RotationMatrix(rpy=rpy, quaternion=quaternion, theta_lambda=theta_lambda)._R


def _matrix4_from_pose(pose: object) -> np.ndarray:
    X = _pose_or_none(pose)
    if X is not None:
        return X
    a = _checks.as_float_array_any_shape("pose", pose, copy=False)
    if a.shape == (4,):
        raise ValueError(
            "pose must have shape (3,), (3, 4) or (4, 4), got (4,); a (4,) array is "
            "ambiguous: for a quaternion [w, x, y, z] pass quaternion=q"
        )
    if a.shape not in ((3,), (3, 4), (4, 4)):
        hint = "; for a rotation matrix pass RotationMatrix(R)" if a.shape == (3, 3) else ""
        raise ValueError(f"pose must have shape (3,), (3, 4) or (4, 4), got {a.shape}{hint}")
    _checks.check_finite("pose", a)
    X = _IDENTITY4.copy()
    if a.shape == (3,):
        X[:3, 3] = a
        return X
    if a.shape == (4, 4) and tuple(a[3].tolist()) != _LAST_ROW:
        raise ValueError(f"pose's last row must be exactly [0, 0, 0, 1], got {a[3].tolist()}")
    _checks.check_rotation("pose's rotation block", a[:3, :3], USER_ROTATION_TOLERANCE)
    X[:3] = a[:3]
    return X


def _pose_or_none(pose: object) -> np.ndarray | None:
    # A float64 (4, 4) with last row exactly [0, 0, 0, 1], or a (3, 4), whose
    # rotation passes and whose translation is finite; else None, and the
    # checked path names what is wrong.
    if type(pose) is not np.ndarray or pose.dtype != np.float64:
        return None
    if pose.shape == (4, 4):
        if pose[3].tolist() != [0.0, 0.0, 0.0, 1.0]:
            return None
        X = pose.copy()
    elif pose.shape == (3, 4):
        X = np.empty((4, 4))
        X[:3] = pose
        X[3] = _LAST_ROW
    else:
        return None
    x, y, z = X[:3, 3].tolist()
    if not math.isfinite(x + y + z) or _scalar.rotation_status(X, USER_ROTATION_TOLERANCE):
        return None
    return X
