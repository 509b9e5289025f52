"""compute_point_pair_penetration: every overlapping pair as a point pair.

Reports only pairs that overlap (depth > 0); separated and touching pairs,
filtered pairs, pairs on one frame and anchored–anchored pairs are never
reported. Results are sorted by ``(id_A, id_B)`` with ``id_A < id_B``.
"""

from __future__ import annotations

from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.results import PenetrationAsPointPair

__all__ = ["compute_point_pair_penetration"]


def compute_point_pair_penetration(scene: PosedScene) -> list[PenetrationAsPointPair]:
    ids = scene.model.geometry_ids
    results = []
    for i, j in zip(*scene.candidates(0.0)):
        witness = scene.signed_distance(int(i), int(j))
        if witness.distance < 0.0:
            results.append(PenetrationAsPointPair(ids[i], ids[j], witness.p_WCa, witness.p_WCb,
                                                  witness.nhat_BA_W, -witness.distance))
    return results
