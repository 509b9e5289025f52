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

from geometry_core import native
from geometry_core.parallelism import num_threads
from geometry_core.proximity import collisions_exist, penetration, signed_distance, specs
from geometry_core.proximity.engine import ModelCache, PosedScene, settle_searched
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["BatchQuery", "clouds_within"]

_kinematics = native.kinematics


class BatchQuery:
    """Answers for K configurations; made by :meth:`geometry_core.SceneGraph.query_batch`."""

    def __init__(self, model: CollisionModel, X_WF: np.ndarray, frame_slot_of: dict) -> None:
        X_WF.setflags(write=False)
        self._X_WF: np.ndarray | None = X_WF
        self._model = model
        self._frame_slot_of = frame_slot_of
        self._chain: tuple | None = None
        # One posed scene per configuration, made when a query needs it: the
        # compiled yes/no and minimum-distance answers need none.
        self._posed: list[PosedScene | None] = [None] * X_WF.shape[0]

    @classmethod
    def of_chain(cls, model: CollisionModel, frame_slot_of: dict, chain: tuple,
                 qs: np.ndarray, X_PF: np.ndarray, link_slot: np.ndarray,
                 parent_slot: np.ndarray) -> BatchQuery:
        """K configurations of a kinematic chain (``SceneGraph.query_chain_batch``).

        The frames' world poses are what ``csrc/kinematics.c`` composes from
        ``X_PF`` (F, 4, 4) with the rows ``link_slot`` set to the chain's
        link poses at ``qs`` (K, n); they are computed for all K only when a
        query needs them in Python.
        """
        batch = cls.__new__(cls)
        batch._X_WF = None
        batch._model = model
        batch._frame_slot_of = frame_slot_of
        batch._chain = (tuple(chain), qs, np.ascontiguousarray(X_PF, dtype=np.float64),
                        np.ascontiguousarray(link_slot, dtype=np.int32),
                        np.ascontiguousarray(parent_slot, dtype=np.int32))
        batch._posed = [None] * qs.shape[0]
        return batch

    def _world_poses(self, k: int) -> np.ndarray:
        """(F, 4, 4) world poses of configuration k, computed alone for a chain batch."""
        if self._X_WF is not None:
            return self._X_WF[k]
        chain, qs, X_PF, link_slot, parent_slot = self._chain
        X_WF = np.empty((1,) + X_PF.shape)
        _kinematics.world_poses(*chain, qs[k:k + 1], X_PF, link_slot, parent_slot, X_WF)
        X_WF.setflags(write=False)
        return X_WF[0]

    @property
    def X_WF(self) -> np.ndarray:
        """(K, F, 4, 4) world pose of every frame slot in each configuration (read only)."""
        if self._X_WF is None:
            chain, qs, X_PF, link_slot, parent_slot = self._chain
            X_WF = np.empty((qs.shape[0],) + X_PF.shape)
            _kinematics.world_poses(*chain, qs, X_PF, link_slot, parent_slot, X_WF)
            X_WF.setflags(write=False)
            self._X_WF = X_WF
        return self._X_WF

    def _scene(self, k: int) -> PosedScene:
        scene = self._posed[k]
        if scene is None:
            scene = self._posed[k] = PosedScene(
                SceneSnapshot(self._model, self._world_poses(k), self._frame_slot_of))
        return scene

    @property
    def _scenes(self) -> list[PosedScene]:
        return [self._scene(k) for k in range(len(self._posed))]

    def __len__(self) -> int:
        return len(self._posed)

    def _min_distances(self, max_distance: float, stop_below_zero: bool,
                       first_contact: bool = False, parallelize=1, verdict_only: bool = False,
                       clouds: tuple | None = None):
        """Answer all K configurations in one compiled call, on native threads.

        Returns the (K,) smallest distances and the configurations left to
        Python (those with a mesh pair). With ``verdict_only`` (and
        ``stop_below_zero``) only the sign of a distance below zero is
        exact: a configuration in which two geometries' inner spheres
        overlap (a sphere inside each, fixed per shape) is answered with the
        depth of that overlap, a lower bound of the true one, and no pair
        kernel runs.

        The third answer: with ``clouds`` (see :meth:`has_contacts`) and a
        chain batch, the (K,) uint8 cloud verdicts of the compiled loop; None
        otherwise.
        """
        threads = num_threads(parallelize)
        if not self._posed:
            return np.zeros(0), [], None
        compiled = self._model_native()
        hits = None
        if self._chain is not None and self._X_WF is None:
            chain, qs, X_PF, link_slot, parent_slot = self._chain
            if clouds is not None:
                found, python, hits = compiled.chain_min_distances(
                    chain, qs, X_PF, link_slot, parent_slot, max_distance, stop_below_zero,
                    first_contact, threads, verdict_only, clouds)
                hits = np.frombuffer(hits, dtype=np.uint8)
            else:
                found, python = compiled.chain_min_distances(
                    chain, qs, X_PF, link_slot, parent_slot, max_distance, stop_below_zero,
                    first_contact, threads, verdict_only)
        else:
            X_WF = np.ascontiguousarray(self.X_WF, dtype=np.float64)
            found, python = compiled.min_distances(X_WF, X_WF.shape[1], max_distance,
                                                   stop_below_zero, first_contact, threads,
                                                   verdict_only)
        return np.frombuffer(found, dtype=np.float64).copy(), python, hits

    def has_collisions(self, parallelize=1) -> np.ndarray:
        """Return a (K,) bool array: whether configuration k has any overlapping pair.

        ``parallelize`` (an int, or True for every core: :func:`num_threads`)
        native threads share the configurations; the answers are the same
        for any number of threads.
        """
        found, python, _ = self._min_distances(0.0, True, parallelize=parallelize,
                                               verdict_only=True)
        out = found < 0.0
        for k in python:
            out[k] = collisions_exist.has_collisions_pairwise(self._scene(k))
        return out

    def has_contacts(self, parallelize=1, clouds: tuple | None = None) -> np.ndarray:
        """Return a (K,) bool array: whether configuration k has a pair touching or overlapping.

        As :meth:`has_collisions`, but a pair at distance exactly zero counts
        (Drake's collision checkers call a configuration in collision when a
        distance is at or below its padding, here zero).

        ``clouds``: ``(natives, geometries, thresholds)``, compiled point
        clouds (``native.Cloud``), int32 geometry indices (R,) and float64
        thresholds (C, R): a configuration also counts when some cloud c has
        a point within ``thresholds[c, r]`` of geometry ``geometries[r]``
        (:func:`clouds_within`). A chain batch asks the clouds inside its
        compiled loop, on the same threads, only for the configurations the
        pairs leave free.
        """
        if clouds is None:
            found, python, hits = self._min_distances(0.0, True, parallelize=parallelize,
                                                      verdict_only=True)
        else:
            natives, geometries, thresholds = clouds
            geometries = np.ascontiguousarray(geometries, dtype=np.int32)
            thresholds = np.ascontiguousarray(thresholds, dtype=np.float64).reshape(
                len(natives), len(geometries))
            found, python, hits = self._min_distances(
                0.0, True, parallelize=parallelize, verdict_only=True,
                clouds=(list(natives), geometries, thresholds))
        out = found <= 0.0
        for k in python:
            out[k] = self._contact_in_python(k)
        if clouds is None:
            return out
        if hits is not None:
            out |= hits == 1
            # Left to Python: configurations the pairs left to Python, and
            # those with a shape the point kernel does not handle.
            rest = np.array(sorted(set(python) | set(np.flatnonzero(hits == 2).tolist())),
                            dtype=np.intp)
        else:
            rest = np.arange(len(out))
        rest = rest[~out[rest]]
        if len(rest):
            out[rest] |= clouds_within(self._model_native(), self.X_WF[rest], natives,
                                       geometries, thresholds)
        return out

    def _model_native(self):
        """The compiled model the clouds' queries read."""
        return ModelCache.of(self._model).native

    def _contact_in_python(self, k: int) -> bool:
        """Whether configuration k, which the compiled kernels left to Python, has a contact."""
        return any(pair.distance <= 0.0 for pair in
                   signed_distance.compute_signed_distance_pairwise_closest_points(
                       self._scene(k), 0.0))

    def any_contact(self, parallelize=1) -> bool:
        """Whether any configuration has a pair touching or overlapping.

        :meth:`has_contacts` reduced to one answer, which stops at the first
        such configuration (in order): a discrete edge check in one call.
        """
        found, python, _ = self._min_distances(0.0, True, first_contact=True,
                                               parallelize=parallelize, verdict_only=True)
        if bool(np.any(found <= 0.0)):  # NaN (not reached) compares False
            return True
        return any(self._contact_in_python(k) for k in python)

    def compute_point_pair_penetration(self) -> list[list[PenetrationAsPointPair]]:
        """Return, for each configuration, what ``compute_point_pair_penetration`` reports."""
        return [penetration.compute_point_pair_penetration(s) for s in self._scenes]

    def compute_signed_distance_pairwise_closest_points(
            self, max_distance: float = math.inf,
            parallelize=1) -> list[list[SignedDistancePair]]:
        """Return, for each configuration, the pairs within ``max_distance``.

        For a chain batch (``SceneGraph.query_chain_batch``) one compiled call
        poses and answers every configuration, on ``parallelize`` native
        threads; the pairs are the same for any number of threads.
        """
        num_threads(parallelize)  # checked even where no thread runs
        if self._chain is None:
            return [signed_distance.compute_signed_distance_pairwise_closest_points(
                s, max_distance) for s in self._scenes]
        max_distance = float(max_distance)
        answers = self.chain_pair_answers(max_distance, parallelize)
        return [self.pairs_of_answer(k, answer, max_distance)
                for k, answer in enumerate(answers)]

    def chain_pair_answers(self, max_distance: float, parallelize=1) -> list[tuple]:
        """The compiled answers of a chain batch's pairs within ``max_distance``, as columns.

        One tuple per configuration, in candidate order (by geometry
        index): ``(vectors, i, j, status, distance, unique, not_ok,
        searched)``, ``vectors`` holding per pair the witnesses in each
        geometry's frame and ``nhat_BA_W`` (9 floats). Where ``not_ok`` or
        ``searched`` is non-zero, :meth:`pairs_of_answer` completes it.
        """
        if self._chain is None:
            raise ValueError("chain_pair_answers needs a chain batch (of_chain)")
        threads = num_threads(parallelize)
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        chain, qs, X_PF, link_slot, parent_slot = self._chain
        return ModelCache.of(self._model).native.chain_pairs(
            chain, qs, X_PF, link_slot, parent_slot, max(max_distance, 0.0), max_distance,
            False, True, threads)

    def chain_clearance_rows(self, max_distance: float, body_of: np.ndarray,
                             link_of: np.ndarray, filtered: np.ndarray, padding: np.ndarray,
                             influence: float, limit: int, positions: int,
                             parallelize=1) -> list[tuple | None]:
        """Clearance-table rows of a chain batch, made in the compiled loop.

        The pairs within ``max_distance`` (witnesses in the world) grouped
        into bodies: geometry g on body ``body_of[g]`` (int32; -1: none),
        body b on chain link ``link_of[b]`` (int32; -1: not the robot's).
        A pair of bodies a, b is dropped where ``filtered[a, b]`` (uint8)
        and its distance less ``padding[a, b]`` is its row's distance, kept
        up to ``influence``; ``limit`` > 0 keeps the rows of that many
        smallest distances, in order of distance (ties in pair order).
        Per configuration ``(pairs, bodies, distances, jacobians)`` as bytes
        (int32 (R, 2) geometry indices and bodies, float64 (R,) and (R,
        ``positions``) rows ``nhat_BA_W . (J(Ca) - J(Cb))``), or None where
        a pair was left to Python (:meth:`chain_pair_answers` answers it).
        """
        if self._chain is None:
            raise ValueError("chain_clearance_rows needs a chain batch (of_chain)")
        threads = num_threads(parallelize)
        chain, qs, X_PF, link_slot, parent_slot = self._chain
        return ModelCache.of(self._model).native.chain_clearance(
            chain, qs, X_PF, link_slot, parent_slot, max(max_distance, 0.0), max_distance,
            threads, body_of, link_of, filtered, padding, influence, limit, positions)

    def pairs_of_answer(self, k: int, answer: tuple,
                        max_distance: float) -> list[SignedDistancePair]:
        """Configuration k's pairs from its :meth:`chain_pair_answers` tuple."""
        return signed_distance.pairs_from_answers(
            self._model, settle_searched(self._model, specs.PairAnswers(answer)),
            max_distance, lambda: self._scene(k))

    def compute_pair_distances(self, max_distance: float, parallelize=1,
                               pair_margin: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """Every pair within ``max_distance`` of every configuration, as four columns.

        ``(config, i, j, distance)``: the configuration, the two geometries'
        model indices and the pair's signed distance, for exactly the pairs
        :meth:`compute_signed_distance_pairwise_closest_points` reports, but
        without witnesses or result records (what a caller that reads only
        distances needs). For a chain batch one compiled call answers every
        configuration; pairs it leaves to Python (meshes) are answered there.

        ``pair_margin`` (G, G), by model index, each at most ``max_distance``
        or ``-inf``: pair (i, j) is then reported where its distance is at
        most ``pair_margin[i, j]`` (never at ``-inf``), and the compiled
        kernels stop on a pair as soon as they prove it farther apart (the
        broadphase's prefilter often does, without the pair's kernel).
        """
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        if pair_margin is not None:
            G = len(self._model.geometry_ids)
            pair_margin = np.ascontiguousarray(pair_margin, dtype=np.float64)
            if pair_margin.shape != (G, G):
                raise ValueError(f"pair_margin must have shape ({G}, {G}), "
                                 f"got {pair_margin.shape}")
            if not (pair_margin <= max_distance).all():      # NaN fails too
                raise ValueError("pair_margin must hold numbers or -inf, none above "
                                 "max_distance")
        config: list[int] = []
        first: list[int] = []
        second: list[int] = []
        distance: list[float] = []
        if self._chain is None:
            index_of = self._model.index_of
            for k, scene in enumerate(self._scenes):
                for pair in signed_distance.compute_signed_distance_pairwise_closest_points(
                        scene, max_distance):
                    i, j = index_of(pair.id_A), index_of(pair.id_B)
                    if pair_margin is not None and not pair.distance <= pair_margin[i, j]:
                        continue
                    config.append(k)
                    first.append(i)
                    second.append(j)
                    distance.append(pair.distance)
        else:
            chain, qs, X_PF, link_slot, parent_slot = self._chain
            answers = ModelCache.of(self._model).native.chain_pairs(
                chain, qs, X_PF, link_slot, parent_slot, max(max_distance, 0.0), max_distance,
                False, False, num_threads(parallelize), pair_margin)
            for k, answer in enumerate(answers):
                _, i, j, status, d, _, not_ok, searched = answer
                if searched:
                    settle_searched(self._model, specs.PairAnswers(answer))
                if not not_ok:
                    config.extend([k] * len(d))
                    first.extend(i)
                    second.extend(j)
                    distance.extend(d)
                    continue
                for a, b, s, value in zip(i, j, status, d):
                    if s not in (specs.OK, specs.SEARCHED):
                        # Left to Python (meshes through FCL; two half
                        # spaces, which raise), as the pairwise query does.
                        value = self._scene(k).signed_distance(a, b).distance
                        bound = max_distance if pair_margin is None else pair_margin[a, b]
                        if not value <= bound:
                            continue
                    config.append(k)
                    first.append(a)
                    second.append(b)
                    distance.append(value)
        return (np.array(config, dtype=np.intp), np.array(first, dtype=np.intp),
                np.array(second, dtype=np.intp), np.array(distance, dtype=np.float64))

    def compute_min_distance(self, max_distance: float = math.inf,
                             parallelize=1) -> np.ndarray:
        """Return a (K,) array: the smallest signed distance of any pair (inf if none)."""
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        out, python, _ = self._min_distances(max_distance, False, parallelize=parallelize)
        for k in python:
            pairs = signed_distance.compute_signed_distance_pairwise_closest_points(
                self._scene(k), max_distance)
            out[k] = min((p.distance for p in pairs), default=math.inf)
        return out


def clouds_within(model_native, X_WF: np.ndarray, natives, geometries: np.ndarray,
                  thresholds: np.ndarray) -> np.ndarray:
    """(K,) bool: some cloud c has a point within ``thresholds[c, r]`` of ``geometries[r]``.

    ``Cloud.any_within`` of each compiled cloud in ``natives`` over the K
    configurations' frame poses ``X_WF`` (K, F, 4, 4) in the compiled model
    ``model_native``; ``geometries`` int32 (R,), ``thresholds`` float64 (C, R).
    """
    X_WF = np.ascontiguousarray(X_WF, dtype=np.float64)
    hit = np.zeros(X_WF.shape[0], dtype=bool)
    for native_cloud, row in zip(natives, thresholds):
        hit |= np.frombuffer(native_cloud.any_within(
            model_native, X_WF, X_WF.shape[1], geometries,
            np.ascontiguousarray(row, dtype=np.float64)), dtype=np.uint8).astype(bool)
    return hit
