"""find_collision_candidates: unfiltered pairs whose bounding boxes overlap.

A superset of the colliding pairs: what the broadphase passes to the
narrowphase. Pairs are ``(id_A, id_B)`` tuples with ``id_A < id_B``, sorted.
"""

from __future__ import annotations

from geometry_core.proximity.engine import PosedScene
from geometry_core.scene_graph.identifiers import GeometryId

__all__ = ["find_collision_candidates"]


def find_collision_candidates(scene: PosedScene) -> list[tuple[GeometryId, GeometryId]]:
    ids = scene.model.geometry_ids
    return [(ids[i], ids[j]) for i, j in zip(*scene.candidates(0.0))]
