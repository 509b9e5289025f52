"""Per-model caches and per-snapshot world data shared by every query.

:class:`ModelCache` holds what depends only on the topology (broadphase
tables, FCL geometry); it is built once per collision model and reused by
every snapshot of that model. :class:`PosedScene` holds what depends on the
poses of one snapshot (``X_WG`` of every geometry, world boxes), computed
lazily once and then shared by all queries on that snapshot.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from geometry_core.proximity import narrowphase, native
from geometry_core.proximity.broadphase import BroadphaseModel, candidate_pairs, world_aabbs
from geometry_core.proximity.narrowphase import PairSolver
from geometry_core.proximity.prefilter import provably_apart
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["ModelCache", "PosedScene"]

_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


class ModelCache:
    """Topology-only data of one collision model."""

    def __init__(self, model: CollisionModel) -> None:
        self.model = model
        self.broadphase = BroadphaseModel.build(model)
        self.solver = PairSolver(model.shapes)
        self._point_groups: list | None = None
        #: The compiled kernels' copy of the model (None when they are not built).
        self.native = native.build_model(model.shapes, model.frame_slot, model.X_FG,
                                         model.filtered_keys)

    def point_groups(self) -> list[tuple[type, np.ndarray, np.ndarray]]:
        """``(shape_type, indices, params)`` per shape type with a batch point kernel.

        Geometries of other types (ellipsoid, convex, mesh) are in no group.
        """
        if self._point_groups is None:
            from geometry_core.proximity.point_distance import (
                batch_point_types,
                stack_shape_params,
            )

            groups = []
            for shape_type in batch_point_types():
                idx = np.array([g for g, shape in enumerate(self.model.shapes)
                                if type(shape) is shape_type], dtype=np.intp)
                if idx.size:
                    _, params = stack_shape_params([self.model.shapes[g] for g in idx])
                    groups.append((shape_type, idx, params))
            self._point_groups = groups
        return self._point_groups

    @classmethod
    def of(cls, model: CollisionModel) -> ModelCache:
        """Return the cache of ``model``, building it on first use."""
        cache = _caches.get(model)
        if cache is None:
            with _caches_lock:
                cache = _caches.get(model)
                if cache is None:
                    cache = _caches[model] = cls(model)
        return cache


class PosedScene:
    """One snapshot's poses, with world geometry poses and boxes computed on demand."""

    def __init__(self, snapshot: SceneSnapshot) -> None:
        self.snapshot = snapshot
        self.model = snapshot.collision_model
        self.cache = ModelCache.of(self.model)
        self._X_WG: np.ndarray | None = None
        self._aabbs: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def X_WG(self) -> np.ndarray:
        """World pose of every proximity geometry, shape (G, 4, 4)."""
        if self._X_WG is None:
            compiled = self.cache.native
            if compiled is not None:
                X_WF = np.ascontiguousarray(self.snapshot.X_WF, dtype=np.float64)
                X_WG = np.frombuffer(compiled.world_poses(X_WF)).reshape(-1, 4, 4)
            else:
                X_WG = self.snapshot.X_WF[self.model.frame_slot] @ self.model.X_FG
                X_WG.setflags(write=False)
            self._X_WG = X_WG
        return self._X_WG

    @property
    def aabbs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(center_W, half_W)`` of every proximity geometry, each (G, 3)."""
        if self._aabbs is None:
            self._aabbs = world_aabbs(self.cache.broadphase, self.X_WG)
        return self._aabbs

    def candidates(self, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Unfiltered index pairs that may come within ``margin`` metres, sorted.

        The broadphase's box test, then the separating-axis prefilter: every
        pair dropped here is provably farther apart than ``margin``.
        """
        compiled = self.cache.native
        if compiled is not None:
            keys = np.frombuffer(compiled.candidates(self.X_WG, float(margin)), dtype=np.int64)
            size = max(self.model.size, 1)
            return (keys // size).astype(np.intp), (keys % size).astype(np.intp)
        center_W, half_W = self.aabbs
        i, j = candidate_pairs(self.cache.broadphase, self.X_WG, center_W, half_W, margin)
        if i.size and np.isfinite(margin):
            near = ~provably_apart(self.cache.broadphase, self.X_WG, i, j, margin)
            i, j = i[near], j[near]
        return i, j

    def answered_pairs(self, margin: float, report_max: float, strict: bool,
                       local: bool) -> native.PairAnswers | None:
        """Every candidate pair within ``margin``, answered by the compiled kernels.

        Pairs come sorted by ``(i, j)``: those with status ``OK`` whose
        distance is below ``report_max`` (``<`` when ``strict``, else ``<=``),
        with witnesses in W or, when ``local``, in each geometry's frame; and
        every pair the kernels left to Python (meshes, uncertified iterative
        answers, two half spaces), which the caller answers with
        :meth:`signed_distance`. None when the kernels are not built.
        """
        compiled = self.cache.native
        if compiled is None:
            return None
        answers = native.PairAnswers(compiled.pairs(self.X_WG, float(margin), float(report_max),
                                                    strict, local))
        if answers.searched:
            # Answers the direction search gave after the solver failed its
            # certificate: counted and logged as the Python dispatcher does.
            shapes = self.model.shapes
            for k, status in enumerate(answers.status):
                if status == native.SEARCHED:
                    narrowphase.count_fallback(shapes[answers.i[k]], shapes[answers.j[k]])
                    answers.status[k] = native.OK
            answers.all_ok = all(status == native.OK for status in answers.status)
        return answers

    def signed_distance(self, i: int, j: int):
        """PairWitness of geometry indices ``i`` (A) and ``j`` (B)."""
        X_WG = self.X_WG
        return self.cache.solver.signed_distance(i, X_WG[i], j, X_WG[j])
