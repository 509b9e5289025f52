"""Pure conversions of incoming ROS 2 messages to checked values of the nodes.

A ``tf2_msgs/TFMessage`` as :class:`~geometry_core_nodes.tf_arrays.TfArrays`
and a ``geometry_msgs/PoseStamped`` become :data:`Transform` tuples (parent
name, child name, stamp in nanoseconds, the seven numbers as received), the
form the nodes store at /tf rates (:func:`tf_arrays_to_transforms`,
:func:`pose_stamped_to_transform`); a ``geometry_msgs/Pose`` or
``Transform`` becomes a :class:`~geometry_core.math.RigidTransform`
(:func:`rigid_transform_from_pose`, :func:`rigid_transform_from_transform`).
Quaternion order is converted by :func:`geometry_core.math.quaternion_xyzw_to_wxyz`
only (house rule 7). A NaN/inf number, a zero quaternion, a bad stamp or
name raises :class:`PoseError` (a ``ValueError``) naming the frame and the
field. The messages of MoveIt's planning scene have their own module,
:mod:`geometry_core_nodes.planning_scene`; outgoing messages are
:mod:`geometry_core_nodes.outbound`'s.

Nothing here opens a socket or spins a node. This module imports the
library's math only; it must never import the transport's backends,
cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core_nodes.limits import MAX_FRAME_NAME_LENGTH, MAX_LOGGED_NAME_LENGTH
from geometry_core_nodes.tf_arrays import TfArrays

__all__ = [
    "PoseError",
    "Transform",
    "all_pose_rows_valid",
    "pose_stamped_to_transform",
    "rigid_transform_from_pose",
    "rigid_transform_from_transform",
    "short_name",
    "stamp_to_ns",
    "tf_arrays_to_transforms",
    "valid_pose_rows",
]

_NS_PER_S = 1_000_000_000


def stamp_to_ns(stamp: Any) -> int:
    """Integer nanoseconds of a ``builtin_interfaces/Time``.

    Raises
    ------
    ValueError
        If ``nanosec`` is not below 10^9 (legal on the wire, where it is a
        uint32, but no time: ROS normalises it into ``sec``).
    """
    return _ns(stamp.sec, stamp.nanosec)


def _ns(sec: Any, nanosec: Any) -> int:
    nanosec = int(nanosec)
    if not 0 <= nanosec < _NS_PER_S:
        raise ValueError(f"header.stamp.nanosec must be in 0..999999999, not {nanosec}")
    return int(sec) * _NS_PER_S + nanosec


class PoseError(ValueError):
    """A pose message that cannot be used; ``frame`` names the frame it was for.

    Parameters
    ----------
    frame : str
        The frame (child) the pose was for; ``""`` if the message names none.
    message : str
        What is wrong, naming the frame and the field.
    kind : str
        The kind of drop, for counters and log rate limits: ``bad_pose``
        (a number), ``bad_stamp`` or ``bad_name``.
    """

    def __init__(self, frame: str, message: str, kind: str = "bad_pose") -> None:
        super().__init__(message)
        self.frame = frame
        self.kind = kind


#: ``(parent, child, stamp_ns, values)``: one frame's pose in its parent as
#: received and validated, ``values`` the translation x, y, z and the rotation
#: quaternion x, y, z, w (ROS order, finite, not zero, any length). A plain
#: tuple: the nodes make thousands a second.
Transform = tuple[str, str, int, np.ndarray]


# One message's numbers are checked as Python floats: a few of them, where
# numpy's per-call overhead would be most of the cost (a MoveIt MOVE's pose).

def _finite_triple(frame: str, field: str, msg: Any) -> np.ndarray:
    values = (float(msg.x), float(msg.y), float(msg.z))
    if not all(map(math.isfinite, values)):
        raise PoseError(frame, f"frame {frame!r}: {field} is not finite: {list(values)}")
    return np.array(values)


def _rotation(frame: str, field: str, q: Any) -> np.ndarray:
    x, y, z, w = float(q.x), float(q.y), float(q.z), float(q.w)
    if not all(map(math.isfinite, (x, y, z, w))):
        raise PoseError(frame, f"frame {frame!r}: {field} is not finite: "
                               f"[x, y, z, w] = {[x, y, z, w]}")
    if not (x or y or z or w):
        raise PoseError(frame, f"frame {frame!r}: {field} is the zero quaternion, "
                               "which is no rotation")
    return np.array((w, x, y, z))


def _rigid_transform(frame: str, field: str, q_wxyz: np.ndarray, p: np.ndarray) -> RigidTransform:
    try:
        return RigidTransform(quaternion=q_wxyz, p=p)
    except ValueError as err:  # a quaternion too short to normalise
        raise PoseError(frame, f"frame {frame!r}: {field}: {err}") from None


def rigid_transform_from_transform(transform: Any, frame: str) -> RigidTransform:
    """``geometry_msgs/Transform`` -> RigidTransform.

    Parameters
    ----------
    transform : geometry_msgs/Transform
        ``translation`` (metres) and ``rotation`` (quaternion ``x, y, z, w``,
        any non-zero length: it is normalised).
    frame : str
        The frame this is the pose of, for error messages.

    Raises
    ------
    PoseError
        (a ValueError) If a number is NaN/inf or the quaternion is zero; the message names
        the frame and the field (``transform.translation`` or
        ``transform.rotation``).
    """
    p = _finite_triple(frame, "transform.translation", transform.translation)
    q_wxyz = _rotation(frame, "transform.rotation", transform.rotation)
    return _rigid_transform(frame, "transform.rotation", q_wxyz, p)


def rigid_transform_from_pose(pose: Any, frame: str) -> RigidTransform:
    """``geometry_msgs/Pose`` -> RigidTransform; as :func:`rigid_transform_from_transform`.

    Raises
    ------
    PoseError
        Naming the frame and ``pose.position`` or ``pose.orientation``.
    """
    p = _finite_triple(frame, "pose.position", pose.position)
    q_wxyz = _rotation(frame, "pose.orientation", pose.orientation)
    return _rigid_transform(frame, "pose.orientation", q_wxyz, p)


def _frame_name(value: Any, field: str, frame: str) -> str:
    name = str(value)
    if len(name) > MAX_FRAME_NAME_LENGTH:
        # The name is not stored nor logged whole: it could be megabytes.
        raise PoseError(frame, f"{field} is {len(name)} characters long, more than "
                               f"{MAX_FRAME_NAME_LENGTH}: {short_name(name)!r}", "bad_name")
    return name.lstrip("/")


def _stamp_ns(stamp: Any, frame: str) -> int:
    return _stamp_values_ns(stamp.sec, stamp.nanosec, frame)


def _stamp_values_ns(sec: Any, nanosec: Any, frame: str) -> int:
    try:
        return _ns(sec, nanosec)
    except ValueError as err:
        raise PoseError(frame, f"frame {frame!r}: {err}", "bad_stamp") from None


def short_name(name: str) -> str:
    """``name`` cut to :data:`~geometry_core_nodes.limits.MAX_LOGGED_NAME_LENGTH` for a log line."""
    if len(name) <= MAX_LOGGED_NAME_LENGTH:
        return name
    return name[:MAX_LOGGED_NAME_LENGTH] + f"...({len(name)} characters)"


def _transform_names(frame_id: Any, child_frame_id: Any) -> tuple[str, str]:
    """Checked ``(parent, child)`` of a TransformStamped (see its FramePose conversion)."""
    child = _frame_name(child_frame_id, "child_frame_id", "")
    parent = _frame_name(frame_id, "header.frame_id", child)
    if not child:
        raise PoseError("", f"transform from {parent!r} has an empty child_frame_id")
    if not parent:
        raise PoseError(child, f"frame {child!r}: header.frame_id is empty")
    if parent == child:
        raise PoseError(child, f"frame {child!r}: header.frame_id names the frame itself")
    return parent, child


def _bad_values(frame: str, values: np.ndarray, translation: str, rotation: str) -> PoseError:
    """The error of seven numbers that failed :func:`valid_pose_rows`, worded as the object path."""
    p = values[:3]
    if not np.all(np.isfinite(p)):
        return PoseError(frame, f"frame {frame!r}: {translation} is not finite: {p.tolist()}")
    q_xyzw = values[3:]
    if not np.all(np.isfinite(q_xyzw)):
        return PoseError(frame, f"frame {frame!r}: {rotation} is not finite: "
                                f"[x, y, z, w] = {q_xyzw.tolist()}")
    return PoseError(frame, f"frame {frame!r}: {rotation} is the zero quaternion, "
                            "which is no rotation")


def valid_pose_rows(values: np.ndarray) -> np.ndarray:
    """Rows of ``(N, 7)`` poses (translation, quaternion): finite, quaternion not zero."""
    return np.isfinite(values).all(axis=1) & values[:, 3:].any(axis=1)


def all_pose_rows_valid(values: Sequence[Sequence[float]]) -> bool:
    """Whether every row of seven numbers passes :func:`valid_pose_rows`, in plain Python.

    For the few transforms of a message this costs a fraction of the array
    operations. A NaN or an infinity makes the sum non-finite; so can finite
    numbers near the float64 limit, which are then reported invalid here
    (and judged row by row by :func:`valid_pose_rows`).
    """
    return math.isfinite(sum(map(sum, values))) and all(
        q[3] or q[4] or q[5] or q[6] for q in values)


def tf_arrays_to_transforms(arrays: TfArrays, max_transforms: int | None = None,
                            ) -> tuple[list[Transform], list[PoseError]]:
    """The transforms of a TFMessage (as arrays), checked: the valid ones and one error per other.

    The same checks and messages as :func:`transform_stamped_to_frame_pose`
    (names, then numbers, then stamp), the numbers checked for all
    transforms at once; no RigidTransform is built (the buffer converts the
    ones a query needs, all together).

    Parameters
    ----------
    arrays : TfArrays
    max_transforms : int, optional
        Check only the first this many transforms (all when None).

    Returns
    -------
    transforms : list of Transform
        In message order.
    errors : list of PoseError
    """
    count = len(arrays) if max_transforms is None else min(len(arrays), max_transforms)
    values = np.array(arrays.values[:count], dtype=float).reshape(count, 7)
    valid = valid_pose_rows(values).tolist()
    transforms: list[Transform] = []
    errors: list[PoseError] = []
    for n in range(count):
        try:
            parent, child = _transform_names(arrays.parents[n], arrays.children[n])
            if not valid[n]:
                raise _bad_values(child, values[n], "transform.translation",
                                  "transform.rotation")
            stamp_ns = _stamp_values_ns(arrays.sec[n], arrays.nanosec[n], child)
        except PoseError as err:
            errors.append(err)
            continue
        transforms.append((parent, child, stamp_ns, values[n]))
    return transforms, errors


def pose_stamped_to_transform(msg: Any, frame: str, default_parent: str) -> Transform:
    """``geometry_msgs/PoseStamped`` of ``frame`` -> :data:`Transform`.

    Parameters
    ----------
    msg : geometry_msgs/PoseStamped
        The pose of ``frame`` in ``header.frame_id``.
    frame : str
        The frame the pose is for (a PoseStamped does not name it).
    default_parent : str
        Parent when ``header.frame_id`` is empty (the world frame).

    Raises
    ------
    PoseError
        For a NaN/inf number or a zero quaternion (naming ``pose.position``
        or ``pose.orientation``), a bad stamp, or a header naming ``frame``.
    """
    parent = _frame_name(msg.header.frame_id, "header.frame_id", frame) or default_parent
    if parent == frame:
        raise PoseError(frame, f"frame {frame!r}: header.frame_id names the frame itself")
    p, q = msg.pose.position, msg.pose.orientation
    values = np.array([p.x, p.y, p.z, q.x, q.y, q.z, q.w], dtype=float)
    if not valid_pose_rows(values[np.newaxis])[0]:
        raise _bad_values(frame, values, "pose.position", "pose.orientation")
    return parent, frame, _stamp_ns(msg.header.stamp, frame), values
