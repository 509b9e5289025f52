"""Queries over K configurations of one scene at once, for planners.

A planner checks many candidate states of the same robot. ``BatchQuery``
takes the world poses of every frame in K configurations (composed for all K
in one batched product per tree depth, validated once) and answers each
question for every configuration, sharing the per-model caches (broadphase
tables, FCL geometry) across all of them. The scene graph's own poses are not
touched.

Each configuration's answer is exactly what a query object would report for
those poses (``test_batch_query.py`` checks it). ``has_collisions`` and
``compute_min_distance`` answer all K configurations in one C call (world
poses, broadphase, kernels), stopping each configuration at its first
overlap where only a yes/no is asked.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.proximity import collisions_exist, penetration, signed_distance
from geometry_core.proximity.engine import ModelCache, PosedScene
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["BatchQuery"]


class BatchQuery:
    """Answers for K configurations; made by :meth:`geometry_core.SceneGraph.query_batch`."""

    def __init__(self, model: CollisionModel, X_WF: np.ndarray, frame_slot_of: dict) -> None:
        X_WF.setflags(write=False)
        self._X_WF = X_WF
        self._model = model
        self._frame_slot_of = frame_slot_of
        # One posed scene per configuration, made when a query needs it: the
        # compiled yes/no and minimum-distance answers need none.
        self._posed: list[PosedScene | None] = [None] * X_WF.shape[0]

    def _scene(self, k: int) -> PosedScene:
        scene = self._posed[k]
        if scene is None:
            scene = self._posed[k] = PosedScene(
                SceneSnapshot(self._model, self._X_WF[k], self._frame_slot_of))
        return scene

    @property
    def _scenes(self) -> list[PosedScene]:
        return [self._scene(k) for k in range(len(self._posed))]

    def __len__(self) -> int:
        return len(self._posed)

    def _min_distances(self, max_distance: float, stop_below_zero: bool,
                       first_contact: bool = False):
        """Answer all K configurations in one compiled call.

        Returns the (K,) smallest distances and the configurations left to
        Python (those with a mesh pair).
        """
        if not self._posed:
            return np.zeros(0), []
        compiled = ModelCache.of(self._model).native
        X_WF = np.ascontiguousarray(self._X_WF, dtype=np.float64)
        found, python = compiled.min_distances(X_WF, X_WF.shape[1], max_distance,
                                               stop_below_zero, first_contact)
        return np.frombuffer(found, dtype=np.float64).copy(), python

    def has_collisions(self) -> np.ndarray:
        """Return a (K,) bool array: whether configuration k has any overlapping pair."""
        found, python = self._min_distances(0.0, True)
        out = found < 0.0
        for k in python:
            out[k] = collisions_exist.has_collisions(self._scene(k))
        return out

    def has_contacts(self) -> np.ndarray:
        """Return a (K,) bool array: whether configuration k has a pair touching or overlapping.

        As :meth:`has_collisions`, but a pair at distance exactly zero counts
        (Drake's collision checkers call a configuration in collision when a
        distance is at or below its padding, here zero).
        """
        found, python = self._min_distances(0.0, True)
        out = found <= 0.0
        for k in python:
            out[k] = self._contact_in_python(k)
        return out

    def _contact_in_python(self, k: int) -> bool:
        """Whether configuration k, which the compiled kernels left to Python, has a contact."""
        return any(pair.distance <= 0.0 for pair in
                   signed_distance.compute_signed_distance_pairwise_closest_points(
                       self._scene(k), 0.0))

    def any_contact(self) -> bool:
        """Whether any configuration has a pair touching or overlapping.

        :meth:`has_contacts` reduced to one answer, which stops at the first
        such configuration (in order): a discrete edge check in one call.
        """
        found, python = self._min_distances(0.0, True, first_contact=True)
        if bool(np.any(found <= 0.0)):  # NaN (not reached) compares False
            return True
        return any(self._contact_in_python(k) for k in python)

    def compute_point_pair_penetration(self) -> list[list[PenetrationAsPointPair]]:
        """Return, for each configuration, what ``compute_point_pair_penetration`` reports."""
        return [penetration.compute_point_pair_penetration(s) for s in self._scenes]

    def compute_signed_distance_pairwise_closest_points(
            self, max_distance: float = math.inf) -> list[list[SignedDistancePair]]:
        """Return, for each configuration, the pairs within ``max_distance``."""
        return [signed_distance.compute_signed_distance_pairwise_closest_points(s, max_distance)
                for s in self._scenes]

    def compute_min_distance(self, max_distance: float = math.inf) -> np.ndarray:
        """Return a (K,) array: the smallest signed distance of any pair (inf if none)."""
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        out, python = self._min_distances(max_distance, False)
        for k in python:
            pairs = signed_distance.compute_signed_distance_pairwise_closest_points(
                self._scene(k), max_distance)
            out[k] = min((p.distance for p in pairs), default=math.inf)
        return out
