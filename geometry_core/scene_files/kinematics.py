"""Joint trees: joint positions in, frame poses (in their parent frames) out.

A :class:`KinematicTree` holds the joints of one source (a URDF robot, the
demo arm). Each joint J connects a parent frame P to a child frame C; its
fixed origin ``X_PJ`` is C's pose in P at zero position, and its motion
turns C about (revolute, continuous) or slides C along (prismatic) the unit
axis ``a_J``:

``X_PC(q) = X_PJ @ [R(a_J, q) | 0]`` or ``X_PJ @ [I | q a_J]``.

The scene graph composes the world poses, so the tree only produces the
``X_PC`` of every child frame, plus ``X_WR`` for each root frame R: a
dictionary ready for ``SceneGraph.set_poses``.

This module imports numpy and the scene-graph model only; never fcl, lcm or
ROS.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.scene_graph import FrameId, SourceId

__all__ = ["JointSpec", "KinematicTree", "JOINT_TYPES"]

#: Joint types the tree moves. URDF's floating and planar joints are not among them.
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")


@dataclass(frozen=True, eq=False)
class JointSpec:
    """One joint: how a child frame moves relative to its parent frame.

    Attributes
    ----------
    name : str
        Unique joint name.
    type : str
        One of :data:`JOINT_TYPES`.
    parent, child : str
        Frame names (URDF link names).
    X_PJ : (4, 4) float
        Child pose in the parent at zero position (URDF ``<origin>``).
    axis_J : (3,) float
        Unit axis in the joint frame (ignored for fixed joints).
    lower, upper : float
        Position limits (radians or metres); ``-inf``/``inf`` when unlimited.
    mimic : tuple of (str, float, float) or None
        ``(joint, multiplier, offset)``: this joint follows
        ``multiplier * q_joint + offset`` and takes no position of its own.
    """

    name: str
    type: str
    parent: str
    child: str
    X_PJ: np.ndarray
    axis_J: np.ndarray
    lower: float = -math.inf
    upper: float = math.inf
    mimic: tuple[str, float, float] | None = None

    def is_actuated(self) -> bool:
        """Report whether the joint takes a position (moves and is not a mimic)."""
        return self.type != "fixed" and self.mimic is None

    def motion(self, q: float) -> np.ndarray:
        """Return ``X_JC(q)``, the joint's motion, shape (4, 4)."""
        X_JC = np.eye(4)
        if self.type in ("revolute", "continuous"):
            X_JC[:3, :3] = _axis_angle(self.axis_J, q)
        elif self.type == "prismatic":
            X_JC[:3, 3] = q * self.axis_J
        return X_JC


def _axis_angle(a: np.ndarray, theta: float) -> np.ndarray:
    """Rodrigues' formula for a unit axis ``a``."""
    c, s = math.cos(theta), math.sin(theta)
    x, y, z = a
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


class KinematicTree:
    """The joints of one source and the frames they move.

    Parameters
    ----------
    source_id : SourceId
        The source that owns every frame.
    frame_ids : mapping of str to FrameId
        Every frame of the tree by name (links without a parent joint are roots).
    joints : sequence of JointSpec
        Parent frames must be in ``frame_ids``; each child has one parent
        joint. Joints may come in any order.
    X_WR : mapping of str to RigidTransform, optional
        Root frame poses in the world (identity when absent).
    world_frame : str, optional
        A parent name that stands for the world frame (URDF's ``world``
        link): its child frames hang off the world at the joint's pose.

    Raises
    ------
    ValueError
        If a joint names an unknown frame, a frame has two parent joints, a
        mimic names an unknown or non-actuated joint, or a joint has an
        unknown type.
    """

    def __init__(self, source_id: SourceId, frame_ids: Mapping[str, FrameId],
                 joints: Sequence[JointSpec],
                 X_WR: Mapping[str, RigidTransform] | None = None,
                 world_frame: str | None = None) -> None:
        self.source_id = source_id
        self._frame_ids = dict(frame_ids)
        self._joints = {j.name: j for j in joints}
        children = {}
        for joint in joints:
            if joint.type not in JOINT_TYPES:
                raise ValueError(f"joint {joint.name!r} has type {joint.type!r}; "
                                 f"supported types: {', '.join(JOINT_TYPES)}")
            for end in (joint.parent, joint.child):
                if end not in self._frame_ids and not (end == joint.parent == world_frame):
                    raise ValueError(f"joint {joint.name!r} names unknown frame {end!r}")
            if joint.child in children:
                raise ValueError(f"frame {joint.child!r} has two parent joints: "
                                 f"{children[joint.child]!r} and {joint.name!r}")
            children[joint.child] = joint.name
        for joint in joints:
            if joint.mimic is not None:
                leader = self._joints.get(joint.mimic[0])
                if leader is None or not leader.is_actuated():
                    raise ValueError(f"joint {joint.name!r} mimics {joint.mimic[0]!r}, which is "
                                     "not an actuated joint of this tree")
        self._roots = [name for name in self._frame_ids if name not in children]
        self._X_WR = {name: RigidTransform(X) for name, X in (X_WR or {}).items()}

    def joint_names(self) -> list[str]:
        """Return the names of the joints that take a position, in declaration order."""
        return [name for name, j in self._joints.items() if j.is_actuated()]

    def joint(self, name: str) -> JointSpec:
        """Return a joint by name.

        Raises
        ------
        KeyError
            If there is no such joint (lists the joints).
        """
        try:
            return self._joints[name]
        except KeyError:
            raise KeyError(f"no joint named {name!r}; joints: "
                           f"{', '.join(self._joints) or '(none)'}") from None

    def joints(self) -> list[JointSpec]:
        """Return every joint, in declaration order."""
        return list(self._joints.values())

    def root_frames(self) -> list[str]:
        """Return the frames no joint moves."""
        return list(self._roots)

    def default_positions(self) -> dict[str, float]:
        """Return zero for each actuated joint, moved into its limits when zero is outside."""
        joints = self._joints
        return {name: float(min(max(0.0, joints[name].lower), joints[name].upper))
                for name in self.joint_names()}

    def calc_frame_poses(self, q: Mapping[str, float] | None = None, *,
                         within_limits: bool = True) -> dict[FrameId, RigidTransform]:
        """Return ``X_PF`` for every frame of the tree at joint positions ``q``.

        Parameters
        ----------
        q : mapping of str to float, optional
            Positions of actuated joints (radians, metres); joints not given
            take :meth:`default_positions`.
        within_limits : bool
            Refuse positions outside the joints' limits (default). False
            applies them, as MoveIt applies an SRDF's named states.

        Returns
        -------
        dict of FrameId to RigidTransform
            Pose of each child frame in its parent frame, and of each root
            frame in the world: ready for ``SceneGraph.set_poses``.

        Raises
        ------
        KeyError
            If ``q`` names an unknown joint.
        ValueError
            If a position is not finite, is outside its joint's limits, or is
            given for a fixed or mimic joint.
        """
        positions = self.default_positions()
        for name, value in (q or {}).items():
            joint = self.joint(name)
            if joint.type == "fixed":
                raise ValueError(f"joint {name!r} is fixed: it takes no position")
            if joint.mimic is not None:
                raise ValueError(f"joint {name!r} mimics {joint.mimic[0]!r}: set that joint "
                                 "instead")
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"position of joint {name!r} must be a number, "
                                 f"got {value!r}") from None
            if not math.isfinite(value):
                raise ValueError(f"position of joint {name!r} must be finite, got {value!r}")
            if within_limits and not joint.lower <= value <= joint.upper:
                raise ValueError(f"position {value:g} of joint {name!r} is outside its limits "
                                 f"[{joint.lower:g}, {joint.upper:g}]")
            positions[name] = value
        poses = {self._frame_ids[root]: RigidTransform(self._X_WR.get(root, RigidTransform()))
                 for root in self._roots}
        for joint in self._joints.values():
            if joint.mimic is not None:
                leader, multiplier, offset = joint.mimic
                value = multiplier * positions[leader] + offset
            else:
                value = positions.get(joint.name, 0.0)
            X_PC = joint.X_PJ @ joint.motion(value)
            poses[self._frame_ids[joint.child]] = RigidTransform(X_PC)
        return poses

    def calc_frame_pose_array(self) -> tuple[list[FrameId], np.ndarray]:
        """Return :meth:`calc_frame_poses` at the default positions as arrays.

        Returns
        -------
        frame_ids : list of FrameId
            The root frames, then the child frame of each joint.
        X_PF : (N, 4, 4) float
            Their poses, in one pass: ready for ``SceneGraph.set_poses_array``.
        """
        positions = self.default_positions()
        frame_ids = [self._frame_ids[root] for root in self._roots]
        X_PF = [self._X_WR[root].get_as_matrix4() if root in self._X_WR else np.eye(4)
                for root in self._roots]
        joints = list(self._joints.values())
        values = np.zeros(len(joints))
        for k, joint in enumerate(joints):
            frame_ids.append(self._frame_ids[joint.child])
            if joint.mimic is not None:
                leader, multiplier, offset = joint.mimic
                values[k] = multiplier * positions[leader] + offset
            elif joint.type != "fixed":
                values[k] = positions[joint.name]
        X_PJ = np.array([joint.X_PJ for joint in joints], dtype=float).reshape(-1, 4, 4)
        # At zero a joint's motion is the identity: only the others are multiplied.
        for k in np.flatnonzero(values):
            X_PJ[k] = joints[k].X_PJ @ joints[k].motion(values[k])
        return frame_ids, np.concatenate([np.array(X_PF, dtype=float).reshape(-1, 4, 4), X_PJ])
