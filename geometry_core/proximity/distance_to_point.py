"""compute_signed_distance_to_point: distance from a point to every geometry.

Every proximity geometry within ``threshold`` of the point is reported
(negative inside), sorted by id. Supported: sphere, box, cylinder, capsule,
ellipsoid, half space and convex (Drake 1.51 skips some of these). A mesh has
no inside, so it has no signed distance: meshes are skipped, and each
skipped mesh is logged once (logger ``geometry_core.proximity``).
"""

from __future__ import annotations

import logging
import math

import numpy as np

from geometry_core.proximity import native
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.point_distance import (
    signed_distance_to_point,
    signed_distances_to_point_batch,
)
from geometry_core.proximity.results import SignedDistanceToPoint, _signed_distance_to_point
from geometry_core.shapes import Mesh

__all__ = ["compute_signed_distance_to_point"]

_log = logging.getLogger("geometry_core.proximity")
_logged_meshes: set = set()


def compute_signed_distance_to_point(scene: PosedScene, p_WQ,
                                     threshold: float = math.inf) -> list[SignedDistanceToPoint]:
    p_WQ = np.asarray(p_WQ, dtype=float)
    if p_WQ.shape == (3, 1):
        p_WQ = p_WQ[:, 0]
    if p_WQ.shape != (3,):
        raise ValueError(f"p_WQ must have shape (3,), got {p_WQ.shape}")
    if not np.all(np.isfinite(p_WQ)):
        raise ValueError(f"p_WQ must be finite, got {p_WQ.tolist()}")
    threshold = float(threshold)
    if math.isnan(threshold):
        raise ValueError("threshold must be a number, got NaN")
    model, X_WG = scene.model, scene.X_WG
    records = scene.answered_points(p_WQ, threshold)
    if records is not None:
        return _from_records(scene, records, p_WQ, threshold)
    center_W, half_W = scene.aabbs
    # A box farther than threshold from Q cannot hold a point within threshold.
    with np.errstate(invalid="ignore"):
        gap = np.linalg.norm(np.maximum(np.abs(p_WQ - center_W) - half_W, 0.0), axis=1)
    is_near = ~(gap > threshold)
    # Primitives with a vectorised kernel answer all at once, per shape type
    # (the same numbers as the scalar kernel: test_point_distance checks it).
    batched: dict[int, tuple] = {}
    for shape_type, idx, params in scene.cache.point_groups():
        keep = is_near[idx]
        if not keep.any():
            continue
        idx = idx[keep]
        batch = signed_distances_to_point_batch(shape_type, params[keep], X_WG[idx], p_WQ)
        for k, g in enumerate(idx.tolist()):
            batched[g] = (batch, k)
    results = []
    for i in np.flatnonzero(is_near).tolist():
        found = batched.get(i)
        if found is not None:
            batch, k = found
            distance = float(batch.distance[k])
            if distance <= threshold:
                results.append(SignedDistanceToPoint(model.geometry_ids[i], batch.p_GN[k],
                                                     distance, batch.grad_W[k],
                                                     bool(batch.is_grad_W_unique[k])))
            continue
        _answer_in_python(scene, i, p_WQ, threshold, results)
    return results


def _answer_in_python(scene: PosedScene, i: int, p_WQ: np.ndarray, threshold: float,
                      results: list) -> None:
    model = scene.model
    shape = model.shapes[i]
    if isinstance(shape, Mesh):
        if model.geometry_ids[i] not in _logged_meshes:
            _logged_meshes.add(model.geometry_ids[i])
            _log.warning("compute_signed_distance_to_point skips mesh %s: a mesh has no "
                         "inside; use Convex for a signed distance", model.names[i])
        return
    witness = signed_distance_to_point(shape, scene.X_WG[i], p_WQ)
    if witness.distance <= threshold:
        results.append(SignedDistanceToPoint(model.geometry_ids[i], witness.p_GN,
                                             float(witness.distance), witness.grad_W,
                                             bool(witness.is_grad_W_unique)))


_FIELDS = ("id_G", "p_GN", "distance", "grad_W", "is_grad_W_unique")


def _from_records(scene: PosedScene, records, p_WQ: np.ndarray,
                  threshold: float) -> list[SignedDistanceToPoint]:
    ids = scene.model.geometry_ids
    p_GN, grad_W = records["p_GN"].copy(), records["grad_W"].copy()
    if (records["status"] == native.OK).all():  # every geometry answered in C: one C loop
        return native.build_records(SignedDistanceToPoint, _FIELDS, (
            list(map(ids.__getitem__, records["g"].tolist())), list(p_GN),
            records["distance"].tolist(), list(grad_W), (records["unique"] != 0).tolist()))
    results = []
    for k, (g, status, distance, unique) in enumerate(zip(
            records["g"].tolist(), records["status"].tolist(), records["distance"].tolist(),
            records["unique"].tolist())):
        if status == 0:
            results.append(_signed_distance_to_point(ids[g], p_GN[k], distance, grad_W[k],
                                                     unique != 0))
        else:
            _answer_in_python(scene, g, p_WQ, threshold, results)
    return results
