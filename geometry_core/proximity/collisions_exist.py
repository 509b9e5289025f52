"""has_collisions: whether any unfiltered pair overlaps, stopping at the first.

One configuration goes through the compiled loop that answers a batch's
``has_collisions`` (``Model.min_distances`` with its stop-early verdict):
broadphase, inner-sphere overlaps, then pair kernels, ending at the first
overlap. Only a scene with a pair the kernels leave to Python (a mesh, two
half spaces) is answered pair by pair here.
"""

from __future__ import annotations

import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.engine import PosedScene

__all__ = ["has_collisions", "has_collisions_pairwise"]


def has_collisions(scene: PosedScene) -> bool:
    """Whether any unfiltered pair of ``scene`` overlaps (distance below zero)."""
    X_WF = np.ascontiguousarray(scene.snapshot.X_WF, dtype=np.float64)
    if X_WF.shape[0] == 0 or scene.model.size < 2:
        return False
    found, python = scene.cache.native.min_distances(
        X_WF[np.newaxis], X_WF.shape[0], 0.0, True, False, 1, True)
    if python:
        return has_collisions_pairwise(scene)
    return bool(np.frombuffer(found, dtype=np.float64)[0] < 0.0)


def has_collisions_pairwise(scene: PosedScene) -> bool:
    """:func:`has_collisions` pair by pair: the kernels' answers, and Python's where they stop."""
    answers = scene.answered_pairs(0.0, 0.0, strict=True, local=False)
    for i, j, status in zip(answers.i, answers.j, answers.status):
        if status == specs.OK or scene.signed_distance(i, j).distance < 0.0:
            return True
    return False
