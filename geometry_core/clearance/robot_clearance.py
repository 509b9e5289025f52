"""RobotClearance: the table of distances between robot bodies and everything else.

Drake's ``drake::planning::RobotClearance`` in snake_case: one row
per geometry pair within the influence distance, with the robot body R, the
other body O, the kind of O, the padded signed distance and its Jacobian with
respect to the robot's positions. Two planner extras, not in Drake:
:meth:`RobotClearance.approach_rates` (``J v``) and
:meth:`RobotClearance.times_to_contact`.

This module imports numpy only; never fcl, lcm or ROS.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["RobotClearance", "RobotCollisionType", "RobotContact"]


@dataclass(frozen=True, eq=False)
class RobotContact:
    """One contact of a configuration (:meth:`CollisionChecker.calc_contacts`).

    Two geometries whose padded signed distance is at most zero: ``depth``
    is minus that distance (metres, >= 0), ``p_WCa`` and ``p_WCb`` are the
    witness points on A and B (world frame, padding not applied), and
    ``nhat_BA_W`` the unit normal from B into A. ``body_A`` and ``body_B``
    name the bodies holding the geometries (a link, ``world``, an
    environment frame; an added shape's body).
    """

    body_A: str
    body_B: str
    geometry_id_A: object
    geometry_id_B: object
    depth: float
    p_WCa: np.ndarray
    p_WCb: np.ndarray
    nhat_BA_W: np.ndarray


class RobotCollisionType(enum.IntEnum):
    """What a robot body is in collision with (Drake's ``RobotCollisionType``).

    ``NO_COLLISION``
        Neither the environment nor another robot body.
    ``ENVIRONMENT_COLLISION``
        An environment body (the other body of a clearance row is not the robot's).
    ``SELF_COLLISION``
        Another robot body.
    ``ENVIRONMENT_AND_SELF_COLLISION``
        Both (only :meth:`CollisionChecker.classify_body_collisions` reports it;
        a clearance row never has it).

    Drake's spellings (``kNoCollision``...) are aliases of the same members.
    """

    NO_COLLISION = 0
    ENVIRONMENT_COLLISION = 1
    SELF_COLLISION = 2
    ENVIRONMENT_AND_SELF_COLLISION = 3
    kNoCollision = 0
    kEnvironmentCollision = 1
    kSelfCollision = 2
    kEnvironmentAndSelfCollision = 3

    def with_environment(self, in_collision: bool) -> RobotCollisionType:
        """Return this type with the environment flag set or cleared (SetInEnvironmentCollision)."""
        return RobotCollisionType((self & ~1) | int(bool(in_collision)))

    def with_self(self, in_collision: bool) -> RobotCollisionType:
        """Return this type with the self flag set or cleared (Drake's SetInSelfCollision)."""
        return RobotCollisionType((self & ~2) | (2 * int(bool(in_collision))))


class RobotClearance:
    """A table of distance measurements between robot bodies and other bodies.

    Row i holds ``robot_indices()[i]``, ``other_indices()[i]``,
    ``collision_types()[i]``, ``distances()[i]`` (padded signed distance,
    metres) and ``jacobians()[i]`` (its derivative with respect to the robot
    positions, one column per position).

    Parameters
    ----------
    num_positions : int
        Number of columns of :meth:`jacobians`.

    Raises
    ------
    ValueError
        If ``num_positions`` is negative or not an integer.
    """

    def __init__(self, num_positions: int) -> None:
        if isinstance(num_positions, bool) or not isinstance(num_positions, (int, np.integer)) \
                or num_positions < 0:
            raise ValueError(f"num_positions must be a non-negative integer, got {num_positions!r}")
        self._num_positions = int(num_positions)
        self._size = 0
        self._robot: list[int] = []
        self._other: list[int] = []
        self._types: list[RobotCollisionType] = []
        self._geometry_ids: list[tuple | None] = []
        self._distances = np.zeros(0)
        self._jacobians = np.zeros((0, self._num_positions))

    def __repr__(self) -> str:
        return f"RobotClearance(num_positions={self._num_positions}, size={self._size})"

    def size(self) -> int:
        """Return the number of rows."""
        return self._size

    def num_positions(self) -> int:
        """Return the number of columns of :meth:`jacobians`."""
        return self._num_positions

    def robot_indices(self) -> list[int]:
        """Return the robot body index R of each row."""
        return list(self._robot)

    def other_indices(self) -> list[int]:
        """Return the other body index O of each row."""
        return list(self._other)

    def collision_types(self) -> list[RobotCollisionType]:
        """Return the kind of body O of each row (self or environment)."""
        return list(self._types)

    def geometry_ids(self) -> list[tuple | None]:
        """Return each row's geometry pair ``(id_A, id_B)`` (None where not given).

        Not in Drake: its rows name bodies only. The collision checker fills
        it, so a row can be traced to the two geometries it measures.
        """
        return list(self._geometry_ids)

    def distances(self) -> np.ndarray:
        """Return the padded signed distances, shape (size(),), read-only (metres)."""
        view = self._distances[:self._size]
        view.flags.writeable = False
        return view

    def is_collision_free(self) -> bool:
        """Return whether no row's padded distance is at or below zero.

        Not in Drake. A table from ``CollisionChecker.calc_robot_clearance(q,
        influence_distance)`` holds every unfiltered pair at padded distance
        up to ``influence_distance >= 0``, so every pair in collision: this
        is then ``check_config_collision_free(q)``, without posing q again.
        """
        return bool(np.all(self._distances[:self._size] > 0.0))

    def jacobians(self) -> np.ndarray:
        """Return the distance Jacobians, shape (size(), num_positions()), read-only."""
        view = self._jacobians[:self._size]
        view.flags.writeable = False
        return view

    def mutable_jacobians(self) -> np.ndarray:
        """Return the distance Jacobians as a writable view (Drake's advanced accessor)."""
        return self._jacobians[:self._size]

    def reserve(self, size: int) -> None:
        """Ensure storage for at least ``size`` rows.

        Raises
        ------
        ValueError
            If ``size`` is negative.
        """
        if size < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        if size > self._distances.shape[0]:
            distances = np.zeros(size)
            jacobians = np.zeros((size, self._num_positions))
            distances[:self._size] = self._distances[:self._size]
            jacobians[:self._size] = self._jacobians[:self._size]
            self._distances, self._jacobians = distances, jacobians

    def append(self, robot_index: int, other_index: int, collision_type: RobotCollisionType,
               distance: float, jacobian, geometry_ids: tuple | None = None) -> None:
        """Append one measurement (a row) to the table.

        ``geometry_ids`` (not in Drake) optionally names the geometry pair
        the row measures.

        Raises
        ------
        ValueError
            If ``jacobian`` does not have ``num_positions()`` entries, the
            distance is NaN, or the type is not self or environment collision.
        """
        jacobian = np.asarray(jacobian, dtype=float).reshape(-1)
        if jacobian.shape != (self._num_positions,):
            raise ValueError(f"jacobian must have shape ({self._num_positions},), "
                             f"got {jacobian.shape}")
        collision_type = RobotCollisionType(collision_type)
        if collision_type not in (RobotCollisionType.SELF_COLLISION,
                                  RobotCollisionType.ENVIRONMENT_COLLISION):
            raise ValueError(f"a clearance row is a self or environment collision, got "
                             f"{collision_type.name}")
        distance = float(distance)
        if math.isnan(distance):
            raise ValueError("distance must be a number, got NaN")
        if self._size == self._distances.shape[0]:
            self.reserve(max(8, 2 * self._size))
        self._robot.append(int(robot_index))
        self._other.append(int(other_index))
        self._types.append(collision_type)
        self._geometry_ids.append(geometry_ids)
        self._distances[self._size] = distance
        self._jacobians[self._size] = jacobian
        self._size += 1

    @classmethod
    def _from_rows(cls, num_positions: int, robot: list[int], other: list[int],
                   types: list[RobotCollisionType], distances: np.ndarray,
                   jacobians: np.ndarray, geometry_ids: list[tuple],
                   copy: bool = True) -> RobotClearance:
        """A table of rows the checker computed (checked types, finite values), in one step.

        ``copy=False`` takes ``distances`` and ``jacobians`` as they are
        (float64 arrays the table then owns, writable).
        """
        table = cls.__new__(cls)   # the checks and empty arrays of __init__ are not needed
        table._num_positions = num_positions
        table._robot, table._other, table._types = robot, other, types
        table._geometry_ids = geometry_ids
        if copy:
            distances = np.array(distances, dtype=float)
            jacobians = np.array(jacobians, dtype=float).reshape(-1, num_positions)
        table._distances, table._jacobians = distances, jacobians
        table._size = len(robot)
        return table

    def approach_rates(self, v) -> np.ndarray:
        """Return each row's rate of change of distance ``J v`` (m/s) at joint velocities ``v``.

        Negative: the bodies approach each other; positive: they separate.

        Raises
        ------
        ValueError
            If ``v`` does not have ``num_positions()`` finite entries.
        """
        v = np.asarray(v, dtype=float)
        if v.shape != (self._num_positions,):
            raise ValueError(f"v must have shape ({self._num_positions},), got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"v must be finite, got {v.tolist()}")
        return self.jacobians() @ v

    def times_to_contact(self, v) -> np.ndarray:
        """Return ``distance / -rate`` where the rate is negative, else ``inf`` (seconds).

        A first-order estimate: the time until the padded surfaces touch if
        the rate stayed constant. Rows already in contact (distance <= 0)
        that still approach report 0.

        Raises
        ------
        ValueError
            As :meth:`approach_rates`.
        """
        rate = self.approach_rates(v)
        out = np.full(self._size, math.inf)
        closing = rate < 0.0
        out[closing] = np.maximum(self.distances()[closing], 0.0) / -rate[closing]
        return out
