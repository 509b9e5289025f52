"""Point clouds in the queries of a snapshot: each point answered as a sphere would be.

A cloud's points are binned once per registered record in the compiled
grid (``geometry_core.native.Cloud``, built on first use and kept while
the record lives). A query asks the grid, per proximity geometry whose
world box comes within reach of the cloud's box, which points may lie
within reach (a superset: the reach is padded by a nanometre), then
answers each such point with the same pair or point kernel as a sphere of
the cloud's radius registered at that point, and keeps it by the same
rule. Results name the cloud's GeometryId and the point's row
(``point_index``), and sort as the spheres would (a point ranks at its
cloud's id, then by row).

Geometry on the cloud's frame, anchored geometry for a cloud in the world,
and meshes (which have no compiled kernel; counted in
:data:`skipped_meshes` and logged once each) are not checked against a
cloud.
"""

from __future__ import annotations

import logging
import threading
import weakref

import numpy as np

from geometry_core import native
from geometry_core.proximity import specs
from geometry_core.proximity.narrowphase import solver_fallbacks
from geometry_core.proximity.results import (
    PenetrationAsPointPair,
    SignedDistancePair,
    SignedDistanceToPoint,
)
from geometry_core.scene_graph.point_clouds import PointCloudRecord, finite_rows
from geometry_core.shapes import Mesh, Sphere

__all__ = ["penetrations", "signed_distances", "has_collision", "distances_to_point",
           "merged", "skipped_meshes"]

_log = logging.getLogger("geometry_core.proximity")
_grids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_grids_lock = threading.Lock()
_SLACK = 1e-9
#: (cloud id, mesh geometry id) pairs a query left out, each logged once.
skipped_meshes: set = set()


class _Grid:
    """A record's compiled grid, the kept points' box in F, and (on first use) their rows."""

    __slots__ = ("p_FP", "non_finite", "native", "low", "high", "_rows")

    def __init__(self, record: PointCloudRecord) -> None:
        # Not the record itself: it is the key this grid is kept under.
        self.p_FP, self.non_finite = record.p_FP, record.non_finite
        self.native = native.Cloud(record.p_FP, record.radius)
        bounds = self.native.bounds
        self.low, self.high = (None, None) if bounds is None else map(np.array, bounds)
        self._rows = None

    @property
    def rows(self) -> np.ndarray:
        """The row in ``p_FP`` of each kept point, by the grid's index."""
        if self._rows is None:
            p_FP = self.p_FP
            self._rows = (np.flatnonzero(finite_rows(p_FP)) if self.non_finite
                          else np.arange(len(p_FP)))
        return self._rows


def _grid(record: PointCloudRecord) -> _Grid:
    grid = _grids.get(record)
    if grid is None:
        with _grids_lock:
            grid = _grids.get(record)
            if grid is None:
                grid = _grids[record] = _Grid(record)
    return grid


_eligible_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _eligible(model, record: PointCloudRecord) -> np.ndarray:
    """Model indices a cloud on ``record.frame_slot`` is checked against (kept per model)."""
    by_slot = _eligible_of.get(model)
    if by_slot is None:
        with _grids_lock:
            by_slot = _eligible_of.setdefault(model, {})
    geometries = by_slot.get(record.frame_slot)
    if geometries is not None:
        return geometries
    slots = model.frame_slot
    eligible = slots != record.frame_slot
    if record.frame_slot == 0:
        eligible &= slots != 0
    for g in np.flatnonzero(eligible):
        if isinstance(model.shapes[g], Mesh):
            eligible[g] = False
            key = (record.id, model.geometry_ids[g])
            if key not in skipped_meshes:
                skipped_meshes.add(key)
                _log.warning("point cloud %s is not checked against mesh %s: a mesh has no "
                             "compiled kernel; use Convex", record.name, model.names[g])
    geometries = by_slot[record.frame_slot] = np.flatnonzero(eligible)
    return geometries


class _Posed:
    """One cloud in one snapshot: its pose, grid and the geometries it is checked against."""

    def __init__(self, scene, record: PointCloudRecord) -> None:
        self.record = record
        self.grid = _grid(record)
        X_WF = scene.snapshot.X_WF
        self.X_WC = X_WF[record.frame_slot]
        if record.frame_slot == 0:
            self.X_CF = np.ascontiguousarray(X_WF, dtype=np.float64)
        else:
            R, p = self.X_WC[:3, :3], self.X_WC[:3, 3]
            X_CW = np.eye(4)
            X_CW[:3, :3] = R.T
            X_CW[:3, 3] = -(R.T @ p)
            self.X_CF = np.ascontiguousarray(np.einsum("ij,fjk->fik", X_CW, X_WF))
        self.geometries = _eligible(scene.model, record)
        self.sphere = Sphere(record.radius)

    def near(self, scene, reach: float) -> np.ndarray:
        """Geometries whose world box comes within ``reach`` of the cloud's world box."""
        grid = self.grid
        if grid.low is None or not len(self.geometries):
            return self.geometries[:0]
        center_C, half_C = (grid.low + grid.high) / 2, (grid.high - grid.low) / 2
        R, p = self.X_WC[:3, :3], self.X_WC[:3, 3]
        center_W, half_W = R @ center_C + p, np.abs(R) @ half_C
        box_center, box_half = scene.aabbs
        g = self.geometries
        with np.errstate(invalid="ignore"):
            gap = np.abs(box_center[g] - center_W) - box_half[g] - half_W
        return g[~np.any(gap > reach + _SLACK, axis=1)]

    def may_touch(self, scene, geometries: np.ndarray) -> bool:
        """False when no point comes within the radius (and a hair) of any of ``geometries``.

        The grid's compiled yes/no query over all of them at once; a shape
        its point kernel does not take (a Mesh) answers True, leaving the
        pairs to decide.
        """
        if self.grid.low is None:
            return False
        reach = self.record.radius + _SLACK * (1.0 + abs(self.record.radius))
        geometries = np.ascontiguousarray(geometries, dtype=np.int32)
        try:
            hit = self.grid.native.any_within(
                scene.cache.native, self.X_CF, self.X_CF.shape[0], geometries,
                np.full(len(geometries), reach))
        except ValueError:
            return True
        return bool(hit[0])

    def points_near(self, scene, g: int, reach: float) -> np.ndarray:
        """Rows of the points whose centre may lie within ``reach`` of geometry ``g``."""
        mask = self.grid.native.within(
            scene.cache.native, self.X_CF, self.X_CF.shape[0], np.array([g], dtype=np.int32),
            np.array([reach + _SLACK * (1.0 + abs(reach))]))
        hits = np.flatnonzero(np.frombuffer(mask, dtype=np.uint8))
        return self.grid.rows[hits] if len(hits) else hits

    def X_WS(self, row: int) -> np.ndarray:
        """World pose of the sphere at ``row``, as the model composes X_WF X_FG."""
        X_FS = np.eye(4)
        X_FS[:3, 3] = self.record.p_FP[row]
        if self.record.frame_slot == 0:
            return X_FS
        return self.X_WC @ X_FS

    def pair(self, scene, g: int, row: int) -> tuple[bool, object, np.ndarray]:
        """``(cloud is A, witness, X_WS)`` of geometry ``g`` and the point at ``row``."""
        X_WS = self.X_WS(row)
        shape, X_WG = scene.model.shapes[g], scene.X_WG[g]
        cloud_first = self.record.id.get_value() < scene.model.geometry_ids[g].get_value()
        sphere = self.sphere
        if cloud_first:
            status, witness = specs.pair(sphere, X_WS, shape, X_WG)
        else:
            status, witness = specs.pair(shape, X_WG, sphere, X_WS)
        if status == specs.SEARCHED:
            solver_fallbacks.count(*((sphere, shape) if cloud_first else (shape, sphere)))
        elif status != specs.OK:
            raise RuntimeError(f"point cloud {self.record.name}: the pair kernel answered "
                               f"{shape.type_name} {scene.model.names[g]} with status {status}")
        return cloud_first, witness, X_WS


def _posed(scene) -> list[_Posed]:
    return [_Posed(scene, record) for record in scene.snapshot.point_clouds]


def _in_frame(X: np.ndarray, p_W: np.ndarray) -> np.ndarray:
    return X[:3, :3].T @ (p_W - X[:3, 3])


def merged(scene, results: list, cloud_results: list) -> list:
    """Both lists in one, ranked as spheres would be: id_A, A's row, id_B, B's row."""
    if not cloud_results:
        return results
    clouds = {record.id for record in scene.snapshot.point_clouds}

    def key(record) -> tuple:
        index = record.point_index
        a, b = record.id_A.get_value(), record.id_B.get_value()
        if index is None:
            return a, -1, b, -1
        return (a, index, b, -1) if record.id_A in clouds else (a, -1, b, index)

    return sorted(results + cloud_results, key=key)


def penetrations(scene) -> list[PenetrationAsPointPair]:
    """Every point of every cloud that overlaps an eligible geometry, as a sphere would."""
    results = []
    for cloud in _posed(scene):
        cid = cloud.record.id
        for g in cloud.near(scene, cloud.record.radius):
            gid = scene.model.geometry_ids[g]
            for row in cloud.points_near(scene, g, cloud.record.radius):
                first, w, _ = cloud.pair(scene, g, int(row))
                if w.distance < 0.0:
                    ids = (cid, gid) if first else (gid, cid)
                    results.append(PenetrationAsPointPair(*ids, w.p_WCa, w.p_WCb,
                                                          w.nhat_BA_W, -w.distance, int(row)))
    return results


def has_collision(scene) -> bool:
    """Whether some point of some cloud overlaps an eligible geometry.

    One compiled call first asks whether any point comes within the radius
    (and a hair) of any eligible geometry; only when one may, the
    pairs are decided one by one as spheres would be, so the compiled call
    proves the common answer (none) and never decides a touch.
    """
    for cloud in _posed(scene):
        if not len(cloud.geometries) or not cloud.may_touch(scene, cloud.geometries):
            continue
        for g in cloud.near(scene, cloud.record.radius):
            for row in cloud.points_near(scene, g, cloud.record.radius):
                if cloud.pair(scene, g, int(row))[1].distance < 0.0:
                    return True
    return False


def signed_distances(scene, max_distance: float) -> list[SignedDistancePair]:
    """Every (geometry, point) pair within ``max_distance``, as a sphere's pair would be."""
    results = []
    for cloud in _posed(scene):
        cid, reach = cloud.record.id, cloud.record.radius + max(max_distance, 0.0)
        for g in cloud.near(scene, reach):
            gid, X_WG = scene.model.geometry_ids[g], scene.X_WG[g]
            for row in cloud.points_near(scene, g, reach):
                first, w, X_WS = cloud.pair(scene, g, int(row))
                if not w.distance <= max_distance:
                    continue
                if first:
                    record = SignedDistancePair(
                        cid, gid, _in_frame(X_WS, w.p_WCa), _in_frame(X_WG, w.p_WCb),
                        float(w.distance), w.nhat_BA_W, bool(w.is_nhat_BA_W_unique), int(row))
                else:
                    record = SignedDistancePair(
                        gid, cid, _in_frame(X_WG, w.p_WCa), _in_frame(X_WS, w.p_WCb),
                        float(w.distance), w.nhat_BA_W, bool(w.is_nhat_BA_W_unique), int(row))
                results.append(record)
    return results


def distances_to_point(scene, p_WQ: np.ndarray, threshold: float
                       ) -> list[SignedDistanceToPoint]:
    """Every point of every cloud whose sphere lies within ``threshold`` of Q."""
    results = []
    for record in scene.snapshot.point_clouds:
        cloud = _Posed(scene, record)
        rows = cloud.grid.rows
        if not len(rows):
            continue
        R, p = cloud.X_WC[:3, :3], cloud.X_WC[:3, 3]
        p_CQ = R.T @ (p_WQ - p)
        reach = threshold + record.radius
        gap = np.sqrt(((record.p_FP[rows] - p_CQ) ** 2).sum(axis=1))
        sphere = cloud.sphere
        for row in rows[gap <= reach + _SLACK * (1.0 + abs(reach))]:
            status, w = specs.point(sphere, cloud.X_WS(int(row)), p_WQ)
            if status == specs.OK and w.distance <= threshold:
                results.append(SignedDistanceToPoint(record.id, w.p_GN, float(w.distance),
                                                     w.grad_W, bool(w.is_grad_W_unique),
                                                     int(row)))
    return results
