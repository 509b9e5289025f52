"""The FramePose conversions: a second, simpler path of the inbound checks, for tests.

Each message becomes a :class:`FramePose` record with a RigidTransform, one
object per transform: what :func:`geometry_core_nodes.inbound.tf_arrays_to_transforms`
and :func:`~geometry_core_nodes.inbound.pose_stamped_to_transform` check
without making objects. The tests compare the two paths' verdicts and
messages.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from geometry_core.math import RigidTransform
from geometry_core_nodes.inbound import (
    PoseError,
    _frame_name,
    _stamp_ns,
    _transform_names,
    rigid_transform_from_pose,
    rigid_transform_from_transform,
)


@dataclass(frozen=True)
class FramePose:
    """One frame's pose in its parent, as received.

    Attributes
    ----------
    parent : str
        Name of the parent frame P (``header.frame_id``).
    child : str
        Name of the frame C (``child_frame_id``, or the frame a pose topic is for).
    X_PC : RigidTransform
        Pose of C in P.
    stamp_ns : int
        ``header.stamp`` in nanoseconds.
    """

    parent: str
    child: str
    X_PC: RigidTransform
    stamp_ns: int


def transform_stamped_to_frame_pose(msg: Any) -> FramePose:
    """``geometry_msgs/TransformStamped`` -> FramePose.

    Raises
    ------
    PoseError
        For an empty ``child_frame_id`` or ``header.frame_id``, a frame that
        is its own parent, or as :func:`rigid_transform_from_transform`.
    """
    parent, child = _transform_names(msg.header.frame_id, msg.child_frame_id)
    X_PC = rigid_transform_from_transform(msg.transform, child)
    return FramePose(parent, child, X_PC, _stamp_ns(msg.header.stamp, child))


def tf_message_to_frame_poses(msg: Any, max_transforms: int | None = None,
                              ) -> tuple[list[FramePose], list[PoseError]]:
    """``tf2_msgs/TFMessage`` -> the valid poses and one error per invalid transform.

    A bad transform does not spoil the others in the same message.

    Parameters
    ----------
    msg : tf2_msgs/TFMessage
    max_transforms : int, optional
        Convert only the first this many transforms (all when None).

    Returns
    -------
    poses : list of FramePose
        In message order.
    errors : list of PoseError
        As :func:`transform_stamped_to_frame_pose` raised them.
    """
    poses: list[FramePose] = []
    errors: list[PoseError] = []
    for transform in itertools.islice(msg.transforms, max_transforms):
        try:
            poses.append(transform_stamped_to_frame_pose(transform))
        except PoseError as err:
            errors.append(err)
    return poses, errors


def pose_stamped_to_frame_pose(msg: Any, frame: str, default_parent: str) -> FramePose:
    """``geometry_msgs/PoseStamped`` of ``frame`` -> FramePose.

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
        As :func:`rigid_transform_from_pose`, or if the header names ``frame``.
    """
    parent = _frame_name(msg.header.frame_id, "header.frame_id", frame) or default_parent
    if parent == frame:
        raise PoseError(frame, f"frame {frame!r}: header.frame_id names the frame itself")
    X_PC = rigid_transform_from_pose(msg.pose, frame)
    return FramePose(parent, frame, X_PC, _stamp_ns(msg.header.stamp, frame))
