"""SceneGraph: the scene model plus the ability to take query snapshots.

``SceneGraph`` is :class:`~geometry_core.scene_graph.GeometryState` (all
registration, roles, filters and poses) with :meth:`SceneGraph.query_object`
and :meth:`SceneGraph.model_inspector` on top. It sits above both the model
and the query engine so that neither imports the other (DESIGN.md section 1).
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.proximity.batch_query import BatchQuery
from geometry_core.proximity.engine import ModelCache
from geometry_core.proximity.query_object import QueryObject
from geometry_core.proximity.result_rows import ProximityRows
from geometry_core.scene_graph import FrameId, GeometryState, SceneGraphInspector, SourceId
from geometry_core.scene_graph.snapshot import SceneSnapshot

__all__ = ["SceneGraph"]


class SceneGraph(GeometryState):
    """A world of frames and geometries that answers proximity queries.

    Examples
    --------
    >>> from geometry_core import SceneGraph, GeometryFrame, GeometryInstance, Sphere
    >>> from geometry_core import RigidTransform, ProximityProperties
    >>> sg = SceneGraph()
    >>> src = sg.register_source("robot")
    >>> f = sg.register_frame(src, GeometryFrame("link"))
    >>> g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), Sphere(0.1), "ball"))
    >>> sg.assign_role(src, g, ProximityProperties())
    >>> sg.set_poses(src, {f: RigidTransform([0.0, 0.0, 1.0])})
    >>> sg.query_object().get_pose_in_world(g).translation().tolist()
    [0.0, 0.0, 1.0]
    """

    def query_object(self, frames_without_pose: str = "raise") -> QueryObject:
        """Return a snapshot of the current poses that answers queries.

        Parameters
        ----------
        frames_without_pose : {"raise", "skip"}
            ``"skip"`` leaves geometry on frames that have no pose yet (or
            hang below one) out of this snapshot instead of raising.

        Raises
        ------
        ValueError
            With ``"raise"``, if a registered frame has never been given a
            pose (names them).
        """
        return QueryObject(self, self.snapshot(frames_without_pose))

    def compute_proximity_rows(self, max_distance: float = math.inf,
                               penetrations: bool = True,
                               distances: bool = True) -> ProximityRows:
        """Both pairwise queries of the current poses as rows, in one call.

        ``query_object().compute_proximity_rows(...)``: the same rows to the
        bit and the same errors. The snapshot is taken and both queries
        answered by one compiled call, without a query object, when every
        frame has a pose and the scene holds no point cloud (else through
        :meth:`query_object`, which says what is wrong).
        """
        max_distance = float(max_distance)
        if max_distance != max_distance:
            raise ValueError("max_distance must be a number, got NaN")
        model = None
        with self._lock:
            if not self._clouds and self._poses.all_posed():
                model = self.collision_model()
                X_WF = self._poses.world_poses()
        if model is None:
            return self.query_object().compute_proximity_rows(max_distance, penetrations,
                                                              distances)
        pen, pen_ij, dist, dist_ij, left = ModelCache.of(model).native.pair_rows(
            X_WF, max_distance, penetrations, distances, True)
        if not left:
            return ProximityRows(model.geometry_ids, pen, pen_ij, dist, dist_ij)
        # A pair left to Python: the query object of the same poses answers.
        return QueryObject(self, SceneSnapshot(model, X_WF, self.frame_slot_map())
                           ).compute_proximity_rows(max_distance, penetrations, distances)

    def query_batch(self, source_id: SourceId, frame_ids: list[FrameId],
                    X_PF: np.ndarray) -> BatchQuery:
        """Return answers for K configurations of ``frame_ids`` (poses in parents).

        The scene's own poses are unchanged; frames not in ``frame_ids`` keep
        their current poses in every configuration.

        Parameters
        ----------
        X_PF : (K, N, 4, 4) float
            Pose of ``frame_ids[n]`` in its parent in configuration k.

        Raises
        ------
        KeyError, ValueError
            As ``set_poses_array``.
        """
        X_WF = self.compute_world_poses_batch(source_id, frame_ids, X_PF)
        return BatchQuery(self.collision_model(), X_WF, self.frame_slot_map())

    def query_chain_batch(self, source_id: SourceId, frame_ids: list[FrameId],
                          chain: tuple, qs: np.ndarray) -> BatchQuery:
        """Return answers for K configurations of a kinematic chain that poses ``frame_ids``.

        As :meth:`query_batch` with ``X_PF[k, n]`` the pose of link n of
        ``chain`` at ``qs[k]`` (the same numbers, to the bit), but the
        compiled answers (``has_contacts``, ``any_contact``,
        ``compute_min_distance``) pose each configuration inside their loop,
        on native threads when asked, without building the world poses of
        all K configurations first.

        Parameters
        ----------
        chain : tuple of 7 arrays
            The chain as ``csrc/kinematics.c`` reads it
            (:attr:`geometry_core.clearance.KinematicChain.arrays`); link n
            poses ``frame_ids[n]``.
        qs : (K, n) float
            Joint positions, already checked by the caller.

        Raises
        ------
        KeyError, ValueError
            As :meth:`query_batch`.
        """
        X_PF, parents, slots = self.pose_tree(source_id, frame_ids)
        return BatchQuery.of_chain(self.collision_model(), self.frame_slot_map(),
                                   chain, np.ascontiguousarray(qs, dtype=np.float64),
                                   X_PF, slots, parents)

    def model_inspector(self) -> SceneGraphInspector:
        """Return an inspector of the current topology."""
        return SceneGraphInspector(self)
