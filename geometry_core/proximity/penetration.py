"""compute_point_pair_penetration: every overlapping pair as a point pair.

Reports only pairs that overlap (depth > 0); separated and touching pairs,
filtered pairs, pairs on one frame and anchored–anchored pairs are never
reported. Results are sorted by ``(id_A, id_B)`` with ``id_A < id_B``.
"""

from __future__ import annotations

from geometry_core.proximity import specs
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.results import PenetrationAsPointPair, _penetration

__all__ = ["compute_point_pair_penetration"]


def compute_point_pair_penetration(scene: PosedScene) -> list[PenetrationAsPointPair]:
    return _from_records(scene, scene.answered_pairs(0.0, 0.0, strict=True, local=False))


_FIELDS = ("id_A", "id_B", "p_WCa", "p_WCb", "nhat_BA_W", "depth")


def _from_records(scene: PosedScene, answers: specs.PairAnswers
                  ) -> list[PenetrationAsPointPair]:
    ids = scene.model.geometry_ids
    depth = [-d for d in answers.distance]
    if answers.all_ok:  # every pair answered in C: one C loop makes the records
        id_of = ids.__getitem__
        return specs.build_records(PenetrationAsPointPair, _FIELDS, (
            list(map(id_of, answers.i)), list(map(id_of, answers.j)), answers.pa, answers.pb,
            answers.n, depth))
    results = []
    for k, (i, j, status) in enumerate(zip(answers.i, answers.j, answers.status)):
        if status == specs.OK:
            results.append(_penetration(ids[i], ids[j], answers.pa[k], answers.pb[k],
                                        answers.n[k], depth[k]))
            continue
        # Left to Python by the compiled kernels (meshes through FCL; two
        # half spaces, which raise here).
        witness = scene.signed_distance(i, j)
        if witness.distance < 0.0:
            results.append(PenetrationAsPointPair(ids[i], ids[j], witness.p_WCa, witness.p_WCb,
                                                  witness.nhat_BA_W, -witness.distance))
    return results
