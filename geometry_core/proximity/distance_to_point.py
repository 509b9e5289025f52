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

from geometry_core.proximity import specs
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.results import SignedDistanceToPoint, _signed_distance_to_point
from geometry_core.shapes import Mesh

__all__ = ["compute_signed_distance_to_point"]

_log = logging.getLogger("geometry_core.proximity")
_logged_meshes: set = set()


def compute_signed_distance_to_point(scene: PosedScene, p_WQ,
                                     threshold: float = math.inf) -> list[SignedDistanceToPoint]:
    if type(p_WQ) is not np.ndarray or p_WQ.shape != (3,) or p_WQ.dtype != np.float64:
        p_WQ = np.asarray(p_WQ, dtype=float)
        if p_WQ.shape == (3, 1):
            p_WQ = p_WQ[:, 0]
        if p_WQ.shape != (3,):
            raise ValueError(f"p_WQ must have shape (3,), got {p_WQ.shape}")
    x, y, z = xyz = p_WQ.tolist()
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        raise ValueError(f"p_WQ must be finite, got {xyz}")
    threshold = float(threshold)
    if math.isnan(threshold):
        raise ValueError("threshold must be a number, got NaN")
    vectors, g, status, distance, unique, not_ok = scene.cache.native.points(
        scene.X_WG, (x, y, z), threshold)
    rows = list(np.frombuffer(vectors, dtype=np.float64).reshape(-1, 3))
    if not_ok == 0:  # every geometry answered in C: one C loop makes the records
        ids = scene.model.geometry_ids
        return specs.build_records(SignedDistanceToPoint, _FIELDS, (
            [ids[k] for k in g], rows[0::2], distance, rows[1::2], unique))
    return _from_columns(scene, g, status, distance, unique, rows)


def _skip_mesh(scene: PosedScene, i: int) -> None:
    model = scene.model
    if model.geometry_ids[i] not in _logged_meshes:
        _logged_meshes.add(model.geometry_ids[i])
        _log.warning("compute_signed_distance_to_point skips mesh %s: a mesh has no "
                     "inside; use Convex for a signed distance", model.names[i])


_FIELDS = ("id_G", "p_GN", "distance", "grad_W", "is_grad_W_unique")


def _from_columns(scene: PosedScene, g: list, status: list, distance: list, unique: list,
                  rows: list) -> list[SignedDistanceToPoint]:
    """Records from ``Model.points``'s columns, meshes (left by C) skipped and logged."""
    ids, shapes = scene.model.geometry_ids, scene.model.shapes
    results = []
    for k, i in enumerate(g):
        if status[k] == specs.OK:
            results.append(_signed_distance_to_point(ids[i], rows[2 * k], distance[k],
                                                     rows[2 * k + 1], unique[k]))
        elif isinstance(shapes[i], Mesh):
            _skip_mesh(scene, i)
        else:
            raise RuntimeError(f"the compiled point kernel answered {shapes[i].type_name} "
                               f"{scene.model.names[i]} with status {status[k]}")
    return results
