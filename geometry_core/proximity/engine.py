"""Per-model caches and per-snapshot world data shared by every query.

:class:`ModelCache` holds what depends only on the topology (the compiled
kernels' model, FCL geometry); it is built once per collision model and
reused by every snapshot of that model. :class:`PosedScene` holds what
depends on the poses of one snapshot (``X_WG`` of every geometry, world
boxes), computed lazily once and then shared by all queries on that snapshot.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from geometry_core.proximity import specs
from geometry_core.proximity.narrowphase import PairSolver, solver_fallbacks
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["ModelCache", "PosedScene", "settle_searched"]

_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()
# The cache returned last, checked by identity before the weak dictionary.
# It keeps its model alive until another model's cache is asked for.
_last: list[ModelCache | None] = [None]


class ModelCache:
    """Topology-only data of one collision model.

    A model derived from another by a few edits (``CollisionModel.derived_from``:
    geometry added, removed or changed between two snapshots) gets its
    compiled model from the other's arrays, edited the same way: the cost
    of the edited geometries and an array copy, not of every geometry.
    """

    def __init__(self, model: CollisionModel, base: ModelCache | None = None,
                 steps: tuple = ()) -> None:
        self.model = model
        self.solver = PairSolver(model.shapes)
        if base is None:
            self.rows = specs.model_rows(model.shapes)
        else:
            self.rows = specs.edit_model_rows(base.rows, model.shapes, steps)
        #: The compiled kernels' copy of the model.
        self.native = specs.model_of_rows(self.rows, model.frame_slot, model.X_FG,
                                          model.filtered_keys)

    @classmethod
    def of(cls, model: CollisionModel) -> ModelCache:
        """Return the cache of ``model``, building it on first use."""
        last = _last[0]
        if last is not None and last.model is model:  # most often the model asked for last
            return last
        cache = _caches.get(model)
        if cache is None:
            with _caches_lock:
                cache = _caches.get(model)
                if cache is None:
                    base, steps = None, ()
                    if model.derived_from is not None:
                        base, steps = _caches.get(model.derived_from[0]), \
                            model.derived_from[1]
                    cache = _caches[model] = cls(model, base, steps if base else ())
                    # Its caches exist now: later edits derive from this model.
                    object.__setattr__(model, "derived_from", None)
        _last[0] = cache
        return cache


def settle_searched(model: CollisionModel, answers: specs.PairAnswers) -> specs.PairAnswers:
    """Count and log the answers the direction search gave, then treat them as answered.

    The direction search answers a pair after the solver failed its
    certificate; each such pair counts in ``solver_fallbacks``.
    """
    if answers.searched:
        shapes = model.shapes
        for k, status in enumerate(answers.status):
            if status == specs.SEARCHED:
                solver_fallbacks.count(shapes[answers.i[k]], shapes[answers.j[k]])
                answers.status[k] = specs.OK
        answers.all_ok = all(status == specs.OK for status in answers.status)
    return answers


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
            X_WF = np.ascontiguousarray(self.snapshot.X_WF, dtype=np.float64)
            self._X_WG = np.frombuffer(self.cache.native.world_poses(X_WF)).reshape(-1, 4, 4)
        return self._X_WG

    @property
    def aabbs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(center_W, half_W)`` of every proximity geometry, each (G, 3).

        Tight for every primitive, the rotated local box for hulls and
        meshes, infinite half widths for half spaces (the broadphase's boxes).
        """
        if self._aabbs is None:
            boxes = np.frombuffer(self.cache.native.world_boxes(self.X_WG)).reshape(2, -1, 3)
            self._aabbs = boxes[0], boxes[1]
        return self._aabbs

    def candidates(self, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Unfiltered index pairs that may come within ``margin`` metres, sorted.

        The broadphase's box test, then the separating-axis prefilter: every
        pair dropped here is provably farther apart than ``margin``.
        """
        keys = np.frombuffer(self.cache.native.candidates(self.X_WG, float(margin)),
                             dtype=np.int64)
        size = max(self.model.size, 1)
        return (keys // size).astype(np.intp), (keys % size).astype(np.intp)

    def answered_pairs(self, margin: float, report_max: float, strict: bool,
                       local: bool) -> specs.PairAnswers:
        """Every candidate pair within ``margin``, answered by the compiled kernels.

        Pairs come sorted by ``(i, j)``: those with status ``OK`` whose
        distance is below ``report_max`` (``<`` when ``strict``, else ``<=``),
        with witnesses in W or, when ``local``, in each geometry's frame; and
        every pair the kernels left to Python (meshes, two half spaces),
        which the caller answers with :meth:`signed_distance`.
        """
        return settle_searched(self.model, specs.PairAnswers(self.cache.native.pairs(
            self.X_WG, float(margin), float(report_max), strict, local)))

    def pair_rows(self, max_distance: float, penetrations: bool, distances: bool) -> tuple:
        """``native.Model.pair_rows`` of this snapshot (see :mod:`.result_rows`).

        Before anything asked for :attr:`X_WG`, the compiled call poses the
        geometries itself from the frames' poses, as :attr:`X_WG` would.
        """
        if self._X_WG is None:
            X_WF = self.snapshot.X_WF
            if X_WF.dtype == np.float64 and X_WF.flags.c_contiguous:
                return self.cache.native.pair_rows(X_WF, max_distance, penetrations, distances,
                                                   True)
        return self.cache.native.pair_rows(self.X_WG, max_distance, penetrations, distances)

    def signed_distance(self, i: int, j: int):
        """PairWitness of geometry indices ``i`` (A) and ``j`` (B)."""
        X_WG = self.X_WG
        return self.cache.solver.signed_distance(i, X_WG[i], j, X_WG[j])
