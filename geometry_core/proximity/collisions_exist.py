"""has_collisions: whether any unfiltered pair overlaps, stopping at the first."""

from __future__ import annotations

from geometry_core.proximity import native
from geometry_core.proximity.engine import PosedScene

__all__ = ["has_collisions"]


def has_collisions(scene: PosedScene) -> bool:
    answers = scene.answered_pairs(0.0, 0.0, strict=True, local=False)
    for i, j, status in zip(answers.i, answers.j, answers.status):
        if status == native.OK or scene.signed_distance(i, j).distance < 0.0:
            return True
    return False
