"""Signed distance between geometries, with witness points in each geometry's frame.

``compute_signed_distance_pairwise_closest_points`` reports every unfiltered
pair whose signed distance is at most ``max_distance`` (overlapping pairs
included, with negative distance); ``compute_signed_distance_pair_closest_points``
answers one named pair. Unlike Drake, half spaces are supported (their
distance is exact); a pair of half spaces is an error.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.results import SignedDistancePair, _signed_distance_pair
from geometry_core.proximity.witness import PairWitness
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.identifiers import GeometryId

__all__ = ["compute_signed_distance_pairwise_closest_points",
           "compute_signed_distance_pair_closest_points"]


def _in_frame(X_WG: np.ndarray, p_WQ: np.ndarray) -> np.ndarray:
    """p_GQ = X_GW * p_WQ for a rigid X_WG."""
    return X_WG[:3, :3].T @ (p_WQ - X_WG[:3, 3])


def _pair(scene: PosedScene, i: int, j: int, witness: PairWitness) -> SignedDistancePair:
    ids, X_WG = scene.model.geometry_ids, scene.X_WG
    return SignedDistancePair(ids[i], ids[j], _in_frame(X_WG[i], witness.p_WCa),
                              _in_frame(X_WG[j], witness.p_WCb), float(witness.distance),
                              witness.nhat_BA_W, bool(witness.is_nhat_BA_W_unique))


def compute_signed_distance_pairwise_closest_points(
        scene: PosedScene, max_distance: float = math.inf) -> list[SignedDistancePair]:
    max_distance = float(max_distance)
    if math.isnan(max_distance):
        raise ValueError("max_distance must be a number, got NaN")
    records = scene.answered_pairs(max(max_distance, 0.0), max_distance, strict=False,
                                   local=True)
    return pairs_from_answers(scene.model, records, max_distance, lambda: scene)


_FIELDS = ("id_A", "id_B", "p_ACa", "p_BCb", "distance", "nhat_BA_W", "is_nhat_BA_W_unique")


def pairs_from_answers(model: CollisionModel, answers: specs.PairAnswers, max_distance: float,
                       scene_of: Callable[[], PosedScene]) -> list[SignedDistancePair]:
    """The pairs of one configuration from the compiled kernels' answers (local witnesses).

    ``scene_of()`` gives the configuration's posed scene, asked for only
    when a pair was left to Python.
    """
    ids = model.geometry_ids
    if answers.all_ok:  # every pair answered in C: one C loop makes the records
        id_of = ids.__getitem__
        return specs.build_records(SignedDistancePair, _FIELDS, (
            list(map(id_of, answers.i)), list(map(id_of, answers.j)), answers.pa, answers.pb,
            answers.distance, answers.n, answers.unique))
    results = []
    for k, (i, j, status) in enumerate(zip(answers.i, answers.j, answers.status)):
        if status == specs.OK:
            results.append(_signed_distance_pair(ids[i], ids[j], answers.pa[k], answers.pb[k],
                                                 answers.distance[k], answers.n[k],
                                                 answers.unique[k]))
            continue
        # Left to Python by the compiled kernels (meshes through FCL; two
        # half spaces, which raise here).
        scene = scene_of()
        witness = scene.signed_distance(i, j)
        if witness.distance <= max_distance:
            results.append(_pair(scene, i, j, witness))
    return results


def compute_signed_distance_pair_closest_points(scene: PosedScene, geometry_id_A: GeometryId,
                                                geometry_id_B: GeometryId) -> SignedDistancePair:
    model = scene.model
    for name, gid in (("geometry_id_A", geometry_id_A), ("geometry_id_B", geometry_id_B)):
        if not isinstance(gid, GeometryId):
            raise TypeError(f"{name} must be a GeometryId, got {gid!r}")
    i, j = model.index_of(geometry_id_A), model.index_of(geometry_id_B)
    if model.is_filtered(i, j):
        raise ValueError(f"the pair ({model.names[i]}, {model.names[j]}) is filtered "
                         "(same frame, both anchored, or excluded): no distance is reported")
    return _pair(scene, i, j, scene.signed_distance(i, j))
