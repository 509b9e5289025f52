"""QueryObject: the only way to ask a scene questions that depend on poses.

A query object is a snapshot ("baked", in Drake's words): it holds the poses
and proximity model of the moment it was made, so later ``set_poses`` calls,
registrations or filter changes do not change its answers, and it can be
queried from another thread. Each question lives in its own module
(``penetration``, ``signed_distance``, ``distance_to_point``,
``collisions_exist``, ``collision_candidates``); this class validates
arguments and delegates.

Only geometries with the proximity role take part in proximity queries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.proximity import (
    clouds,
    collision_candidates,
    collisions_exist,
    distance_to_point,
    penetration,
    signed_distance,
)
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.result_rows import ProximityRows, proximity_rows
from geometry_core.proximity.results import (
    Aabb,
    PenetrationAsPointPair,
    SignedDistancePair,
    SignedDistanceToPoint,
)
from geometry_core.scene_graph.geometry_state import GeometryState
from geometry_core.scene_graph.identifiers import FrameId, GeometryId
from geometry_core.scene_graph.inspector import SceneGraphInspector
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["QueryObject"]


class QueryObject:
    """A frozen snapshot of a scene's poses that answers proximity queries.

    Made by :meth:`geometry_core.SceneGraph.query_object`; not constructed
    directly.
    """

    def __init__(self, state: GeometryState, snapshot: SceneSnapshot) -> None:
        self._state = state
        self._snapshot = snapshot
        self._scene = PosedScene(snapshot)

    def inspector(self) -> SceneGraphInspector:
        """Return an inspector of the scene's topology (live, not frozen)."""
        return SceneGraphInspector(self._state)

    # ------------------------------------------------------------------ poses

    def get_pose_in_world(self, id: FrameId | GeometryId) -> RigidTransform:
        """Return ``X_WF`` of a frame or ``X_WG`` of a geometry at snapshot time.

        Raises
        ------
        KeyError
            If the id is unknown (or the frame was registered after the snapshot).
        """
        return RigidTransform._from_trusted_matrix4(self._X_W(id))

    def get_poses_in_world(self, ids: Sequence[FrameId | GeometryId]) -> np.ndarray:
        """Return :meth:`get_pose_in_world` of each id as one ``(N, 4, 4)`` array of matrices.

        The same matrices to the bit, without a RigidTransform per id: for a
        caller that needs the poses of every geometry a result names.

        Raises
        ------
        KeyError, TypeError
            As :meth:`get_pose_in_world`, for the first id it refuses.
        """
        ids = list(ids)
        # Only a GeometryId equals a key of the model's index: a FrameId finds None.
        indices = self._scene.model.find_indices(ids)
        if None not in indices:  # proximity geometries only: one gather
            return self._scene.X_WG[indices]
        return np.array([self._X_W(i) for i in ids], dtype=float).reshape(len(ids), 4, 4)

    def get_pose_in_parent(self, frame_id: FrameId) -> RigidTransform:
        """Return ``X_PF``, the frame's pose in its parent frame, at snapshot time."""
        frame = self._state._frame(frame_id)
        X_WF = self._X_W(frame_id)
        if frame.parent_id is None:
            return RigidTransform._from_trusted_matrix4(X_WF)
        X_WP = self._X_W(frame.parent_id)
        R_WP, p_WP = X_WP[:3, :3], X_WP[:3, 3]
        X_PF = np.eye(4)
        X_PF[:3, :3] = R_WP.T @ X_WF[:3, :3]
        X_PF[:3, 3] = R_WP.T @ (X_WF[:3, 3] - p_WP)
        return RigidTransform._from_trusted_matrix4(X_PF)

    def _X_W(self, id: FrameId | GeometryId) -> np.ndarray:
        if isinstance(id, FrameId):
            slot = self._snapshot.frame_slot_of.get(id)
            if slot is None:
                raise KeyError(f"{id!r} is not a frame of this snapshot")
            return self._snapshot.X_WF[slot]
        if isinstance(id, GeometryId):
            # A proximity geometry's pose is the one its queries used, to the bit.
            index = self._scene.model.find_index(id)
            if index is not None:
                return self._scene.X_WG[index].copy()
            record = self._state._geometry(id)
            return self._X_W(record.frame_id) @ record.X_FG
        raise TypeError(f"expected a FrameId or GeometryId, got {id!r}")

    # ----------------------------------------------------------------- queries

    def compute_point_pair_penetration(self) -> list[PenetrationAsPointPair]:
        """Return every overlapping unfiltered pair, sorted by ``(id_A, id_B)``.

        Separated and touching pairs are not reported; neither are filtered
        pairs, pairs on one frame, or pairs of anchored geometry.
        """
        results = penetration.compute_point_pair_penetration(self._scene)
        if self._snapshot.point_clouds:
            return clouds.merged(self._scene, results, clouds.penetrations(self._scene))
        return results

    def compute_signed_distance_pairwise_closest_points(
            self, max_distance: float = math.inf) -> list[SignedDistancePair]:
        """Return the signed distance of every unfiltered pair within ``max_distance``.

        Parameters
        ----------
        max_distance : float
            Pairs farther apart than this (metres) are not reported.

        Returns
        -------
        list of SignedDistancePair
            Sorted by ``(id_A, id_B)``, ``id_A < id_B``; witnesses in each
            geometry's frame.

        Raises
        ------
        ValueError
            If ``max_distance`` is NaN, or an unfiltered pair is two half spaces.
        """
        results = signed_distance.compute_signed_distance_pairwise_closest_points(
            self._scene, max_distance)
        if self._snapshot.point_clouds:
            return clouds.merged(self._scene, results,
                                 clouds.signed_distances(self._scene, float(max_distance)))
        return results

    def compute_proximity_rows(self, max_distance: float = math.inf,
                               penetrations: bool = True,
                               distances: bool = True) -> ProximityRows:
        """Both pairwise queries at once, as rows of numbers instead of records.

        The same pairs and numbers, to the bit, as
        :meth:`compute_point_pair_penetration` and
        :meth:`compute_signed_distance_pairwise_closest_points` with
        ``max_distance``, from one pass of the compiled kernels, without a
        record per pair: for a caller that writes every field of every
        result (a message per query). Set ``penetrations`` or ``distances``
        to False to leave that query out (its rows are then empty).

        Returns
        -------
        ProximityRows
            See :class:`geometry_core.proximity.result_rows.ProximityRows`.

        Raises
        ------
        ValueError
            If the snapshot holds point clouds (their results carry a point
            index: use the record queries), or as the two queries.
        """
        if self._snapshot.point_clouds:
            raise ValueError("compute_proximity_rows does not answer point clouds; the "
                             "snapshot holds "
                             f"{len(self._snapshot.point_clouds)}: use the record queries")
        return proximity_rows(self._scene, max_distance, penetrations, distances)

    def compute_signed_distance_pair_closest_points(
            self, geometry_id_A: GeometryId, geometry_id_B: GeometryId) -> SignedDistancePair:
        """Return the signed distance of one pair, in the order given.

        Raises
        ------
        KeyError
            If an id is unknown or lacks the proximity role.
        ValueError
            If the pair is filtered.
        """
        return signed_distance.compute_signed_distance_pair_closest_points(
            self._scene, geometry_id_A, geometry_id_B)

    def compute_signed_distance_to_point(self, p_WQ,
                                         threshold: float = math.inf
                                         ) -> list[SignedDistanceToPoint]:
        """Return the signed distance from point Q to each geometry within ``threshold``.

        Parameters
        ----------
        p_WQ : (3,) float
            The query point in W (metres).
        threshold : float
            Geometries farther than this are not reported.

        Raises
        ------
        ValueError
            If ``p_WQ`` is not a finite 3-vector or ``threshold`` is NaN.
        """
        results = distance_to_point.compute_signed_distance_to_point(self._scene, p_WQ,
                                                                     threshold)
        if self._snapshot.point_clouds:
            extra = clouds.distances_to_point(self._scene, np.asarray(p_WQ, dtype=float)
                                              .reshape(3), float(threshold))
            if extra:
                results = sorted(results + extra, key=lambda r: (
                    r.id_G.get_value(), -1 if r.point_index is None else r.point_index))
        return results

    def has_collisions(self) -> bool:
        """Report whether any unfiltered pair overlaps (a point of a cloud included)."""
        return collisions_exist.has_collisions(self._scene) or bool(
            self._snapshot.point_clouds and clouds.has_collision(self._scene))

    def find_collision_candidates(self) -> list[tuple[GeometryId, GeometryId]]:
        """Return unfiltered pairs whose world bounding boxes overlap, sorted."""
        return collision_candidates.find_collision_candidates(self._scene)

    def compute_aabb_in_world(self, geometry_id: GeometryId) -> Aabb:
        """Return the world axis-aligned box of a proximity geometry.

        Tight for every primitive; conservative for meshes and convex hulls;
        unbounded (infinite half widths) for a half space. Drake answers this
        only for deformable geometry: we answer it for all.

        Raises
        ------
        KeyError
            If the geometry is unknown or lacks the proximity role.
        """
        i = self._scene.model.index_of(geometry_id)
        center_W, half_W = self._scene.aabbs
        return Aabb(center_W[i].copy(), half_W[i].copy())

    # ---------------------------------------------------------------- branches

    def _branch(self, frame_id: FrameId) -> np.ndarray:
        if frame_id not in self._snapshot.frame_slot_of:
            raise KeyError(f"{frame_id!r} is not a frame of this snapshot")
        # Frames registered after the snapshot are not part of it.
        known = self._snapshot.frame_slot_of
        slots = [known[f] for f in SceneGraphInspector(self._state).get_subtree_frames(frame_id)
                 if f in known]
        return np.flatnonzero(np.isin(self._scene.model.frame_slot, slots))

    def _branch_pairs(self, frame_id_A: FrameId, frame_id_B: FrameId):
        a, b = self._branch(frame_id_A), self._branch(frame_id_B)
        if np.intersect1d(a, b).size:
            raise ValueError("the two branches share geometry (one frame is an ancestor of "
                             "the other): branch queries need disjoint subtrees")
        i, j = np.meshgrid(a, b, indexing="ij")
        i, j = i.ravel(), j.ravel()
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        keep = self._scene.model.unfiltered(lo, hi)
        return i[keep], j[keep]

    def has_collisions_between_branches(self, frame_id_A: FrameId, frame_id_B: FrameId) -> bool:
        """Report whether any geometry below frame A overlaps any geometry below frame B.

        Each branch is the frame and every frame beneath it; filtered pairs
        are ignored.

        Raises
        ------
        ValueError
            If the branches share a frame.
        """
        i, j = self._branch_pairs(frame_id_A, frame_id_B)
        center_W, half_W = self._scene.aabbs
        overlap = np.all(np.abs(center_W[i] - center_W[j]) <= half_W[i] + half_W[j], axis=1)
        for a, b in zip(i[overlap], j[overlap]):
            if self._scene.signed_distance(int(a), int(b)).distance < 0.0:
                return True
        return False

    def compute_min_distance_between_branches(self, frame_id_A: FrameId,
                                              frame_id_B: FrameId) -> SignedDistancePair | None:
        """Return the closest pair between the two branches (A's geometry as id_A).

        Pairs are visited in order of their bounding-box gap, and the search
        stops once no remaining pair's box gap (a lower bound of its distance
        when positive) can beat the best distance found, so most pairs are
        never computed. Returns None when no unfiltered pair
        exists.

        Raises
        ------
        ValueError
            If the branches share a frame.
        """
        i, j = self._branch_pairs(frame_id_A, frame_id_B)
        if i.size == 0:
            return None
        center_W, half_W = self._scene.aabbs
        with np.errstate(invalid="ignore"):
            gap = np.linalg.norm(np.maximum(np.abs(center_W[i] - center_W[j])
                                            - half_W[i] - half_W[j], 0.0), axis=1)
        gap = np.nan_to_num(gap, nan=0.0)
        best, best_pair = math.inf, None
        for k in np.argsort(gap, kind="stable"):
            # A positive box gap bounds the pair's distance from below; a zero
            # gap bounds nothing (the bodies may overlap), so those pairs,
            # which sort first, are always computed.
            if gap[k] > max(best, 0.0):
                break
            a, b = int(i[k]), int(j[k])
            witness = self._scene.signed_distance(a, b)
            if witness.distance < best:
                best, best_pair = witness.distance, (a, b, witness)
        a, b, witness = best_pair
        return signed_distance._pair(self._scene, a, b, witness)
