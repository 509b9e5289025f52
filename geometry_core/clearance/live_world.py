"""What a :class:`CollisionChecker` adds to its world while it runs: shapes and point clouds.

- :class:`BodyShapeDescription` (Drake's name): one added shape, the body it
  is fixed to and its pose there; :meth:`CollisionChecker.get_all_added_collision_shapes`
  returns them by group.
- :class:`PointCloudReport`: what :meth:`CollisionChecker.add_point_cloud`
  kept, skipped and filtered.
- :class:`PointCloud`: an added cloud, its points binned in the compiled
  grid (``geometry_core.native.Cloud``), answering exact queries of the
  robot's geometries.
- The caps that bound what an outsider can make the checker hold.

Imports numpy, the shapes, the math and the compiled kernels; never fcl,
lcm or ROS.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry_core import native
from geometry_core.math import RigidTransform
from geometry_core.scene_graph import GeometryId
from geometry_core.shapes import Shape

__all__ = ["BodyShapeDescription", "PointCloudReport", "PointCloud", "MAX_ADDED_SHAPES",
           "MAX_ADDED_TRIANGLES", "MAX_CLOUD_POINTS", "MAX_CLOUD_GROUPS"]

#: Most shapes added at once (all groups together).
MAX_ADDED_SHAPES = 10_000
#: Most triangles of the Mesh and Convex shapes added at once (all groups together).
MAX_ADDED_TRIANGLES = 2_000_000
#: Most points of one cloud, counted before the non-finite ones are skipped.
MAX_CLOUD_POINTS = 5_000_000
#: Most groups holding a point cloud at once.
MAX_CLOUD_GROUPS = 64


@dataclass(frozen=True, eq=False)
class BodyShapeDescription:
    """One added shape: ``shape`` at ``pose_in_body`` (X_BG) on body ``body_name``.

    ``geometry_id`` names it in clearance rows
    (:meth:`RobotClearance.geometry_ids`) and in
    :meth:`CollisionChecker.geometry_name`.
    """

    shape: Shape
    pose_in_body: RigidTransform
    body_name: str
    geometry_id: GeometryId


@dataclass(frozen=True)
class PointCloudReport:
    """What :meth:`CollisionChecker.add_point_cloud` did with the points it was given.

    ``kept + non_finite + self_filtered`` is the number of points given.
    """

    kept: int
    non_finite: int
    self_filtered: int


class PointCloud:
    """An added cloud: finite points (N, 3) in the world frame, each a sphere of ``radius``.

    The points live in the compiled grid (``native``); :attr:`points`
    copies them out, in the order given, on first use.
    """

    __slots__ = ("group", "radius", "geometry_id", "native", "report", "_points")

    def __init__(self, group: str, grid, radius: float, geometry_id: GeometryId,
                 report: PointCloudReport) -> None:
        self.group = group
        self.native = grid
        self.radius = radius
        self.geometry_id = geometry_id
        self.report = report
        self._points: np.ndarray | None = None

    @classmethod
    def build(cls, group: str, p_WP: np.ndarray, radius: float, geometry_id: GeometryId,
              self_filter: tuple | None = None) -> PointCloud:
        """Bin ``p_WP`` (N, 3) float64, C order; rows with a NaN or infinity are skipped.

        ``self_filter``: ``(model, X_WF (1, F, 4, 4), geometries, thresholds)``
        of the compiled model; the points some listed geometry comes within
        its threshold of are left out in the same construction (no second
        grid), and counted in the report.
        """
        if self_filter is None:
            grid = native.Cloud(p_WP, radius)
        else:
            model, X_WF, geometries, thresholds = self_filter
            grid = native.Cloud(p_WP, radius, model, X_WF, X_WF.shape[1], geometries,
                                thresholds)
        return cls(group, grid, radius, geometry_id,
                   PointCloudReport(grid.size, grid.non_finite, grid.self_filtered))

    @property
    def points(self) -> np.ndarray:
        """The points kept, (N, 3), read only."""
        if self._points is None:
            points = np.frombuffer(self.native.points()).reshape(-1, 3)
            self._points = points
        return self._points

    def nearest(self, model, X_WF: np.ndarray, geometries: np.ndarray,
                thresholds: np.ndarray) -> tuple:
        """Per configuration and geometry the nearest point within the threshold.

        Returns ``(distance (K, R), index (K, R), p_GN (K, R, 3), grad_W (K, R, 3),
        unique (K, R), p_WP (K, R, 3))``: the signed distance from the
        geometry to the point's centre (index -1 and distance inf where none
        is within), the nearest point of the geometry in its frame, the
        distance's gradient and the point.
        """
        X_WF = np.ascontiguousarray(X_WF, dtype=np.float64)
        K, R = X_WF.shape[0], len(geometries)
        d, i, p, g, u, w = self.native.nearest(model, X_WF, X_WF.shape[1], geometries,
                                               thresholds)
        return (np.frombuffer(d).reshape(K, R), np.frombuffer(i, dtype=np.int64).reshape(K, R),
                np.frombuffer(p).reshape(K, R, 3), np.frombuffer(g).reshape(K, R, 3),
                np.frombuffer(u, dtype=np.uint8).reshape(K, R).astype(bool),
                np.frombuffer(w).reshape(K, R, 3))


def checked_points(p_WP, group_name: str) -> np.ndarray:
    """``p_WP`` as an (N, 3) float64 array in C order (non-finite rows are the grid's to skip).

    Raises
    ------
    ValueError
        If ``p_WP`` is not an (N, 3) array of numbers or holds more than
        :data:`MAX_CLOUD_POINTS` points.
    """
    try:
        points = np.ascontiguousarray(p_WP, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"point cloud {group_name!r}: p_WP must be an (N, 3) array of "
                         "numbers") from None
    if points.ndim != 2 or points.shape[1] != 3:
        raise ValueError(f"point cloud {group_name!r}: p_WP must have shape (N, 3), "
                         f"got {points.shape}")
    if len(points) > MAX_CLOUD_POINTS:
        raise ValueError(f"point cloud {group_name!r}: {len(points)} points exceed the cap of "
                         f"{MAX_CLOUD_POINTS}")
    return points
