"""Joint positions q to link poses, point Jacobians and motion bounds, batched over K.

Built on a :class:`~geometry_core.scene_files.KinematicTree` (the URDF's
joints). Positions are the tree's actuated joints in declaration order; a
mimic joint follows ``multiplier * q_leader + offset`` and adds its motion to
its leader's column.

* :meth:`KinematicChain.frame_poses` gives ``X_PF`` of every link frame in
  its parent, for K configurations at once (what the scene graph's batched
  pose setter takes), and ``X_WL`` of every link.
* :meth:`KinematicChain.point_jacobian` gives the geometric Jacobian
  ``dp_WQ/dq`` (3 x n) of a point Q fixed on a link: for a revolute joint J
  with world axis ``a_W`` through ``p_WJo`` the column is
  ``a_W x (p_WQ - p_WJo)``, for a prismatic joint ``a_W``.
* :meth:`KinematicChain.motion_rates` bounds how fast any point of a link's
  geometry can move per unit of joint motion, for certified edge checks.

The link poses and the Jacobians are computed by ``csrc/kinematics.c``
(one compiled pass for all K configurations or all points; this class
describes the chain to it as arrays). This module imports numpy, the
compiled kernels and the scene files' kinematics only; never fcl, lcm or
ROS.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Mapping

import numpy as np

from geometry_core import native
from geometry_core.scene_files.kinematics import KinematicTree
from geometry_core.scene_graph import FrameId
from geometry_core.tolerances import JOINT_LIMIT_SLACK

_INF = float("inf")

__all__ = ["KinematicChain"]

_WORLD = "world"
_KIND_CODE = {"": 0, "fixed": 0, "revolute": 1, "prismatic": 2}  # csrc/kinematics.c
_kernels = native.kinematics


class KinematicChain:
    """The links and joints of one robot, ordered from the roots outwards.

    Parameters
    ----------
    tree : KinematicTree
        The robot's joints.
    frame_ids : mapping of str to FrameId
        The robot's link frames by link name (the URDF ``world`` link, which
        is the world frame, is not among them).

    Raises
    ------
    ValueError
        If a joint moves a frame that is not among ``frame_ids``.
    """

    def __init__(self, tree: KinematicTree, frame_ids: Mapping[str, FrameId]) -> None:
        root_poses = tree.calc_frame_poses()
        self.position_names = tree.joint_names()
        #: Joints that follow another (URDF mimic): they take no position of their own.
        self.mimic_names = [j.name for j in tree.joints() if j.mimic is not None]
        column = {name: k for k, name in enumerate(self.position_names)}
        children: dict[str, list] = {}
        joint_of: dict[str, object] = {}
        for joint in tree.joints():
            children.setdefault(joint.parent, []).append(joint)
            joint_of[joint.child] = joint
        unknown = [j.child for j in tree.joints() if j.child not in frame_ids]
        if unknown:
            raise ValueError(f"joints move frames that are not links: {unknown}")
        # Roots, and links joined to the URDF ``world`` link, hang off the world.
        order = [link for link in frame_ids if link not in joint_of]
        order += [j.child for j in children.get(_WORLD, [])]
        for link in order:
            order.extend(j.child for j in children.get(link, []))
        self.links = order
        self.link_index = {name: k for k, name in enumerate(order)}
        self.parent = np.full(len(order), -1, dtype=np.intp)
        self.X_PJ = np.tile(np.eye(4), (len(order), 1, 1))
        self.axis = np.zeros((len(order), 3))
        self.kind = [""] * len(order)        # "", "fixed", "revolute", "prismatic"
        self.column = np.full(len(order), -1, dtype=np.intp)
        self.multiplier = np.ones(len(order))
        self.offset = np.zeros(len(order))
        self.lower = np.array([tree.joint(n).lower for n in self.position_names])
        self.upper = np.array([tree.joint(n).upper for n in self.position_names])
        self._lowest = self.lower - JOINT_LIMIT_SLACK   # what check_positions accepts
        self._highest = self.upper + JOINT_LIMIT_SLACK
        self._lowest_list = self._lowest.tolist()
        self._highest_list = self._highest.tolist()
        for k, link in enumerate(order):
            joint = joint_of.get(link)
            if joint is None:
                self.X_PJ[k] = root_poses[frame_ids[link]].get_as_matrix4()
                self.kind[k] = "fixed"
                continue
            self.parent[k] = self.link_index.get(joint.parent, -1)
            self.X_PJ[k] = joint.X_PJ
            self.axis[k] = joint.axis_J
            if joint.type == "fixed":
                self.kind[k] = "fixed"
                continue
            self.kind[k] = "prismatic" if joint.type == "prismatic" else "revolute"
            if joint.mimic is not None:
                leader, self.multiplier[k], self.offset[k] = joint.mimic
                self.column[k] = column[leader]
            else:
                self.column[k] = column[joint.name]
        self.num_positions = len(self.position_names)
        # The chain as csrc/kinematics.c reads it (contiguous, int32 indices).
        self._arrays = (
            np.ascontiguousarray(self.X_PJ), np.ascontiguousarray(self.axis),
            np.array([_KIND_CODE[kind] for kind in self.kind], dtype=np.int32),
            self.parent.astype(np.int32), self.column.astype(np.int32),
            np.ascontiguousarray(self.multiplier), np.ascontiguousarray(self.offset))
        #: Links no joint moves relative to the world (welded to it). Parents come
        #: first in ``order``, so one pass settles each link from its parent.
        anchored = np.zeros(len(order), dtype=bool)
        for k in range(len(order)):
            p = self.parent[k]
            anchored[k] = self.column[k] < 0 and (p < 0 or anchored[p])
        self.anchored = anchored

    @functools.cached_property
    def ancestors(self) -> list[np.ndarray]:
        """The moving joints between each link and the world, as link indices.

        Computed on first use: a serial chain of n links has n(n-1)/2 of them.
        """
        ancestors = []
        for k in range(len(self.links)):
            chain, i = [], k
            while i >= 0:
                if self.column[i] >= 0:
                    chain.append(i)
                i = self.parent[i]
            ancestors.append(np.array(chain, dtype=np.intp))
        return ancestors

    @property
    def arrays(self) -> tuple:
        """The chain as ``csrc/kinematics.c`` reads it (seven contiguous arrays).

        X_PJ, axis, kind, parent, column, multiplier and offset; indices int32.
        """
        return self._arrays

    # -------------------------------------------------------------- positions

    def joint_values(self, qs: np.ndarray) -> np.ndarray:
        """Each link's parent-joint value for K configurations, shape (K, L)."""
        values = np.zeros((qs.shape[0], len(self.links)))
        moving = self.column >= 0
        values[:, moving] = qs[:, self.column[moving]] * self.multiplier[moving] \
            + self.offset[moving]
        return values

    def frame_poses(self, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(X_PF, X_WL)`` for K configurations, each (K, L, 4, 4).

        ``X_PF[k, l]`` is link l's pose in its parent link (in the world for
        roots); ``X_WL[k, l]`` its pose in the world. ``qs`` is (K, n),
        already validated.
        """
        shape = (qs.shape[0], len(self.links), 4, 4)
        X_PF, X_WL = np.empty(shape), np.empty(shape)
        _kernels.frame_poses(*self._arrays, np.ascontiguousarray(qs, dtype=np.float64),
                             X_PF, X_WL)
        return X_PF, X_WL

    # -------------------------------------------------------------- Jacobians

    def point_jacobian(self, X_WL: np.ndarray, link: int, p_WQ: np.ndarray) -> np.ndarray:
        """Return ``dp_WQ/dq``, shape (3, n), for a point Q fixed on ``link``.

        ``X_WL`` is one configuration's (L, 4, 4) link poses. An anchored
        link's Jacobian is zero.
        """
        return self.point_jacobians(X_WL, np.array([link]), np.reshape(p_WQ, (1, 3)))[0]

    def point_jacobians(self, X_WL: np.ndarray, links: np.ndarray,
                        p_WQ: np.ndarray) -> np.ndarray:
        """Return ``dp_WQ/dq`` of M points at once, shape (M, 3, n).

        Point m is fixed on link ``links[m]`` (-1: not on the robot, a zero
        Jacobian) at ``p_WQ[m]``; ``X_WL`` is one configuration's (L, 4, 4)
        link poses. The child frame of each joint sits on its axis (URDF: the
        motion is applied after the joint origin), so ``X_WL`` gives both.
        """
        links = np.ascontiguousarray(links, dtype=np.int32)
        J = np.empty((len(links), 3, self.num_positions))
        _kernels.point_jacobians(*self._arrays, np.ascontiguousarray(X_WL, dtype=np.float64),
                                 links, np.ascontiguousarray(p_WQ, dtype=np.float64), J)
        return J

    def distance_jacobians(self, X_WL: np.ndarray, links: np.ndarray, X_BG: np.ndarray,
                           p_GQ: np.ndarray, nhat_BA_W: np.ndarray) -> np.ndarray:
        """Return the rows ``nhat_BA_W[m] . (J(Ca_m) - J(Cb_m))``, shape (M, n).

        Points ``2m`` and ``2m + 1`` are row m's witnesses Ca and Cb, each at
        ``p_GQ`` in its geometry G, which sits at ``X_BG`` on its body: link
        ``links[k]`` (moving with ``X_WL``, one configuration's (L, 4, 4)) or,
        for -1, a body welded to the world (no Jacobian).
        """
        M = len(nhat_BA_W)
        out = np.empty((M, self.num_positions))
        _kernels.distance_jacobians(
            *self._arrays, np.ascontiguousarray(X_WL, dtype=np.float64),
            np.ascontiguousarray(links, dtype=np.int32),
            np.ascontiguousarray(X_BG, dtype=np.float64),
            np.ascontiguousarray(p_GQ, dtype=np.float64),
            np.ascontiguousarray(nhat_BA_W, dtype=np.float64), out)
        return out

    def motion_rates(self, link_radius: np.ndarray, q1: np.ndarray,
                     q2: np.ndarray) -> np.ndarray:
        """Return R (L, L): a point of link l moves at most ``R[l, i] |dq_i|`` for joint i's motion.

        Joint i is the parent joint of link i (zero columns for links that
        no position moves, and where i is not an ancestor of l); ``dq_i`` is
        the change of its position's column, times its mimic multiplier.
        Valid everywhere on the segment from ``q1`` to ``q2``.
        ``link_radius[l]`` bounds the distance from link l's frame origin to
        any point of its geometry. For a revolute joint i,
        ``|a x (p - p_Io)| <= |p - p_Io|``, and by the triangle inequality
        that distance is at most the joint origins' offsets on the way from
        i down to l plus l's radius; a prismatic joint on the way adds its
        largest extension on the segment, and a prismatic joint i itself
        moves every point at rate 1.
        """
        offsets = self._origin_offset_list
        if self._prismatic_links:
            # A prismatic joint's offset grows by its largest extension on
            # the segment (its value is linear in q, so an end's).
            offsets = list(offsets)
            ends = q1.tolist(), q2.tolist()
            for k, column, multiplier, offset in self._prismatic_links:
                offsets[k] += max(abs(q[column] * multiplier + offset) for q in ends)
        # above[l]: the offsets of l and every joint above it, summed from
        # the root down (parents come first), so that the reach from joint
        # i down to l is above[l] - above[i] (never negative: adding
        # non-negative terms never decreases a float sum).
        above = [0.0] * len(offsets)
        for k, (p, o) in enumerate(zip(self._parent_list, offsets)):
            above[k] = o + above[p] if p >= 0 else o
        above = np.array(above)
        revolute, weight = self._reach_tables
        reach = link_radius[:, None] + (above[:, None] - above[None, :])
        return np.where(revolute, reach, 1.0) * weight

    @functools.cached_property
    def _prismatic_links(self) -> list[tuple[int, int, float, float]]:
        """(link, column, multiplier, offset) of each prismatic joint that a position moves."""
        return [(k, int(self.column[k]), float(self.multiplier[k]), float(self.offset[k]))
                for k, kind in enumerate(self.kind) if kind == "prismatic" and self.column[k] >= 0]

    @functools.cached_property
    def _origin_offset_list(self) -> list[float]:
        return np.linalg.norm(self.X_PJ[:, :3, 3], axis=1).tolist()

    @functools.cached_property
    def _parent_list(self) -> list[int]:
        return self.parent.tolist()

    @functools.cached_property
    def _reach_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """``revolute`` (1, L); ``weight`` (L, L): ``|multiplier_i|`` where joint i moves l."""
        revolute = np.array([[kind == "revolute" for kind in self.kind]])
        weight = np.where(self.ancestor_mask(), np.abs(self.multiplier)[None, :], 0.0)
        return revolute, weight

    @functools.cached_property
    def joint_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(columns, moving, A^T)`` of the links, read only.

        Per link, its joint's position column (0 where no position moves
        it), 1.0 where one does, and :meth:`ancestor_mask` transposed as
        floats (what a speed bound multiplies by).
        """
        moving = self.column >= 0
        tables = (np.where(moving, self.column, 0), moving.astype(float),
                  self.ancestor_mask().T.astype(float))
        for table in tables:
            table.setflags(write=False)
        return tables

    def ancestor_mask(self) -> np.ndarray:
        """Return A (L, L) bool: ``A[l, i]`` when joint i (link i's parent joint) moves link l.

        Computed once; read only.
        """
        return self._ancestor_mask

    @functools.cached_property
    def _ancestor_mask(self) -> np.ndarray:
        A = np.zeros((len(self.links), len(self.links)), dtype=bool)
        for link, chain in enumerate(self.ancestors):
            A[link, chain] = True
        A.setflags(write=False)
        return A

    def check_positions(self, qs: np.ndarray, name: str = "q") -> np.ndarray:
        """Validate K configurations (K, n): finite and within the joint limits.

        Raises
        ------
        ValueError
            Naming the first bad entry's joint and value.
        """
        if qs.shape[0] == 1:
            # One configuration (a planner's single call): plain floats cost
            # a fifth of numpy's per-call overhead, and loops in C (map) a
            # third of a generator's. NaN fails a comparison.
            values = qs[0].tolist()
            if all(map(operator.le, self._lowest_list, values)) \
                    and all(map(operator.le, values, self._highest_list)) \
                    and all(map(math.isfinite, values)):
                return qs
        elif ((qs >= self._lowest) & (qs <= self._highest)).all() and np.isfinite(qs).all():
            return qs
        bad = ~np.isfinite(qs)
        if bad.any():
            k, j = np.argwhere(bad)[0]
            where = f"{name}[{k}]" if qs.shape[0] > 1 else name
            raise ValueError(f"{where}[{j}] ({self.position_names[j]}) must be finite, "
                             f"got {qs[k, j]!r}")
        outside = (qs < self.lower - JOINT_LIMIT_SLACK) | (qs > self.upper + JOINT_LIMIT_SLACK)
        if outside.any():
            k, j = np.argwhere(outside)[0]
            where = f"{name}[{k}]" if qs.shape[0] > 1 else name
            raise ValueError(f"{where}[{j}] = {qs[k, j]:g} is outside the limits of joint "
                             f"{self.position_names[j]!r} [{self.lower[j]:g}, "
                             f"{self.upper[j]:g}]")
        return qs
