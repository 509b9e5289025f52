"""The collision checker's queries: verdicts, distances, contacts and clearance tables.

:class:`CheckerQueries` is the part of
:class:`~geometry_core.clearance.CollisionChecker` that answers for K
configurations: it poses them inside the scene graph's batched query
(``SceneGraph.query_chain_batch`` through ``BatchQuery.of_chain``), reads
the answers through the checker's tables (body of each geometry, filters,
padding) and adds the point clouds' nearest points. The discrete edge check
lives here; the certified one in ``certified_edge``.

Queries only read the checker and the world they start with; never fcl,
lcm or ROS.
"""

from __future__ import annotations

import math

import numpy as np

from geometry_core.clearance import certified_edge, discrete_edge
from geometry_core.clearance.checker_tables import World
from geometry_core.clearance.robot_clearance import (
    RobotClearance,
    RobotCollisionType,
    RobotContact,
)
from geometry_core.parallelism import num_threads
from geometry_core.proximity.batch_query import BatchQuery, clouds_within
from geometry_core.proximity.results import SignedDistancePair

__all__ = ["CheckerQueries"]

_SELF = RobotCollisionType.SELF_COLLISION
_ENVIRONMENT = RobotCollisionType.ENVIRONMENT_COLLISION
#: A compiled row's type by its self flag.
_TYPES = (_ENVIRONMENT, _SELF)
#: Above this many bodies the clearance table is built from pair records
#: instead of in the compiled loop, which reads dense (B, B) tables.
_DENSE_BODIES_MAX = 1024


class CheckerQueries:
    """Queries of a collision checker (a base of ``CollisionChecker``)."""

    #: (world, pose writes, X_PF, link slots, parent slots) last read for
    #: :meth:`_chain_batch`, replaced whole (threads see one tree or another).
    _pose_tree_of: tuple | None = None
    #: (B,) int32 chain link of each body (-1: not the robot's), made once,
    #: and the filter table as uint8 (a view: the setters write through it).
    #: (table versions, dense tables) of :meth:`_dense_tables`, replaced whole.
    _dense_of: tuple | None = None
    #: ((world, pose tree, filters, padding), their versions, native.Motion or
    #: None) of ``discrete_edge``, replaced whole.
    _motion_of: tuple | None = None

    def _positions(self, qs, name: str, batch: bool) -> np.ndarray:
        try:
            qs = np.array(qs, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be an array of numbers, got {qs!r}") from None
        n = self.num_positions
        if batch:
            if qs.ndim != 2 or qs.shape[1] != n:
                raise ValueError(f"{name} must have shape (K, {n}), got {qs.shape}")
        elif qs.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) (positions of "
                             f"{', '.join(self.position_names)}), got {qs.shape}")
        qs = qs.reshape(-1, n)
        return self._chain.check_positions(qs, name)

    def _chain_batch(self, qs: np.ndarray, world: World | None = None) -> BatchQuery:
        """The batch of K configurations of one world, posed inside the compiled loop.

        Its ``X_WF`` (every frame's world pose) is computed when read.
        """
        world = self._world if world is None else world
        return BatchQuery.of_chain(world.model, world.slot_of, self._chain.arrays,
                                   np.ascontiguousarray(qs, dtype=np.float64),
                                   *self._pose_tree(world)[2:])

    def _pose_tree(self, world: World) -> tuple:
        """(world, pose writes, X_PF, link slots, parent slots) of ``world``, kept while valid.

        Replaced whole when it changes, so its identity names one tree.
        """
        writes = self._sg.pose_writes
        tree = self._pose_tree_of
        if tree is None or tree[0] is not world or tree[1] != writes:
            # The frame tree changes only with the world or a pose write, so
            # a run of single calls reads it once (a third of their cost).
            X_PF, parents, slots = self._sg.pose_tree(self._source, self._frame_ids)
            tree = self._pose_tree_of = (world, writes, np.ascontiguousarray(X_PF), slots,
                                         parents)
        return tree

    def _pairs_within(self, qs: np.ndarray, max_distance: float, parallelize=1):
        """Per configuration: unfiltered pairs as (body_a, body_b, padded distance, pair)."""
        rows, X_WL, _ = self._pairs_in(qs, max_distance, parallelize=parallelize)
        return rows, X_WL

    def _pairs_in(self, qs: np.ndarray, max_distance: float, world: World | None = None,
                  parallelize=1):
        """:meth:`_pairs_within` in ``world`` (the current one when None), and that world."""
        world = self._world if world is None else world
        batch = self._chain_batch(qs, world)
        _, X_WL = self._chain.frame_poses(qs)
        all_pairs = batch.compute_signed_distance_pairwise_closest_points(max_distance,
                                                                          parallelize)
        if world.clouds:
            all_pairs = self._with_cloud_pairs(world, batch.X_WF, max_distance, all_pairs)
        return self._rows_of_pairs(world, all_pairs), X_WL, world

    def _rows_of_pairs(self, world: World, all_pairs: list[list[SignedDistancePair]]) -> list:
        """Per configuration, its unfiltered pairs as (body_a, body_b, padded distance, pair)."""
        out = []
        row_of, body_rows = world.row_of, world.body_rows
        for pairs in all_pairs:
            if not pairs:
                out.append([])
                continue
            a = body_rows[[row_of[pair.id_A] for pair in pairs]]
            b = body_rows[[row_of[pair.id_B] for pair in pairs]]
            distance = np.array([pair.distance for pair in pairs]) - self._padding[a, b]
            keep = np.flatnonzero(~self._filtered[a, b])
            out.append(list(zip(a[keep].tolist(), b[keep].tolist(), distance[keep].tolist(),
                                [pairs[k] for k in keep])))
        return out

    def _with_cloud_pairs(self, world: World, X_WF: np.ndarray, max_distance: float,
                          all_pairs: list[list[SignedDistancePair]]):
        """``all_pairs`` with, per cloud and robot geometry, the nearest point within reach.

        The row of a point is the row of a sphere of the cloud's radius
        there (the cloud's geometry frame is the world), in id order.
        """
        geometries = world.robot_geometries
        ids = world.model.geometry_ids
        out = [list(pairs) for pairs in all_pairs]
        for cloud in world.clouds:
            # The batch query's rule for a sphere at each point: raw distance
            # (to the sphere) at most max_distance.
            thresholds = np.full(len(geometries), max_distance + cloud.radius)
            distance, index, p_GN, grad_W, unique, p_WPs = cloud.nearest(
                world.native, X_WF, geometries, thresholds)
            c, r = cloud.geometry_id, cloud.radius
            for k, m in zip(*np.nonzero(index >= 0)):
                g = ids[geometries[m]]
                p_WP = p_WPs[k, m]
                grad = grad_W[k, m]
                if g.get_value() < c.get_value():
                    pair = SignedDistancePair(g, c, p_GN[k, m].copy(), p_WP - r * grad,
                                              float(distance[k, m] - r), -grad,
                                              bool(unique[k, m]))
                else:
                    pair = SignedDistancePair(c, g, p_WP - r * grad, p_GN[k, m].copy(),
                                              float(distance[k, m] - r), grad.copy(),
                                              bool(unique[k, m]))
                out[k].append(pair)
        for pairs in out:
            pairs.sort(key=lambda pair: (pair.id_A.get_value(), pair.id_B.get_value()))
        return out

    def _cloud_contacts(self, world: World, X_WF: np.ndarray) -> np.ndarray:
        """(K,) bool: some robot geometry's padded distance to a cloud point is <= 0."""
        return clouds_within(world.native, X_WF, *self._cloud_spec(world))

    def _cloud_spec(self, world: World) -> tuple:
        """The clouds as :meth:`BatchQuery.has_contacts` takes them.

        Their natives, the robot's geometries and (C, R) thresholds: each
        cloud's radius plus each geometry's body padding against the world.
        """
        geometries, bodies = world.robot_geometries, world.robot_bodies
        thresholds = np.array([cloud.radius + self._padding[bodies, 0] for cloud in world.clouds],
                              dtype=np.float64).reshape(len(world.clouds), len(geometries))
        return [cloud.native for cloud in world.clouds], geometries, thresholds

    def check_configs_collision_free(self, qs, parallelize=1) -> np.ndarray:
        """Return a (K,) bool array: whether each configuration is collision-free.

        Parameters
        ----------
        qs : (K, num_positions) float
        parallelize : bool, int or Parallelism
            Native threads that share the configurations (``True``: every
            core; :func:`geometry_core.parallelism.num_threads`). The
            answers are the same for any number of threads.

        Raises
        ------
        ValueError
            If ``qs`` has the wrong shape or a position is not finite or is
            outside its joint's limits (the message names the joint), or
            ``parallelize`` is not a thread count.
        """
        return self._collision_free(self._positions(qs, "qs", batch=True), parallelize)

    def calc_min_distances(self, qs, max_distance: float = math.inf,
                           parallelize=1) -> np.ndarray:
        """Return a (K,) array: each configuration's smallest padded distance of any pair.

        Over the unfiltered pairs whose padded distance is at most
        ``max_distance`` (inf where none is); negative where bodies overlap
        by more than their padding. A configuration is collision-free exactly
        when this is above zero. ``parallelize`` as in
        :meth:`check_configs_collision_free`.

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free`, or if ``max_distance``
            is NaN.
        """
        qs = self._positions(qs, "qs", batch=True)
        max_distance = float(max_distance)
        if math.isnan(max_distance):
            raise ValueError("max_distance must be a number, got NaN")
        world = self._world
        if self._padding_bounds() == (0.0, 0.0) and not world.clouds:
            return self._chain_batch(qs, world).compute_min_distance(max_distance, parallelize)
        rows, _, _ = self._pairs_in(qs, max_distance + max(self._max_padding(), 0.0), world,
                                    parallelize)
        return np.array([min((d for _, _, d, _ in config if d <= max_distance),
                             default=math.inf) for config in rows])

    def _collision_free(self, qs: np.ndarray, parallelize=1) -> np.ndarray:
        """check_configs_collision_free of validated (K, n) positions."""
        world = self._world
        if self._padding_bounds() == (0.0, 0.0):
            # No padding anywhere: the compiled test poses and answers every
            # configuration and stops each at its first overlap; a pair that
            # touches (distance 0) is a collision, as with padding.
            batch = self._chain_batch(qs, world)
            if not world.clouds:
                return ~batch.has_contacts(parallelize)
            # The clouds are asked inside the compiled loop, with the poses
            # the pairs used, only for the configurations still free.
            return ~batch.has_contacts(parallelize, clouds=self._cloud_spec(world))
        rows, _, _ = self._pairs_in(qs, self._max_padding(), world, parallelize)
        return np.array([all(d > 0.0 for _, _, d, _ in config) for config in rows], dtype=bool)

    def check_config_collision_free(self, q) -> bool:
        """Report whether configuration ``q`` is collision-free (padded distances > 0).

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free`.
        """
        return bool(self._collision_free(self._positions(q, "q", batch=False))[0])

    def classify_body_collisions(self, q) -> list[RobotCollisionType]:
        """Return, per body index, what the body is in collision with at ``q``.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`.
        """
        q = self._positions(q, "q", batch=False)
        types = [RobotCollisionType.NO_COLLISION] * len(self.body_names)
        (rows,), _, _ = self._pairs_in(q, self._max_padding())
        for a, b, distance, _ in rows:
            if distance > 0.0:
                continue
            if self._is_robot[a] and self._is_robot[b]:
                types[a] = types[a].with_self(True)
                types[b] = types[b].with_self(True)
            else:
                robot = a if self._is_robot[a] else b
                types[robot] = types[robot].with_environment(True)
        return types

    def calc_contacts(self, q) -> list[RobotContact]:
        """Return the contacts of configuration ``q``: the unfiltered pairs at padded distance <= 0.

        One :class:`RobotContact` per pair of geometries (robot with robot,
        environment, added shapes, or a point cloud's nearest point, as a
        sphere of the cloud's radius), in order of the pair's geometry ids,
        with its depth, witness points and normal in the world; empty
        exactly when :meth:`check_config_collision_free` is true.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`.
        """
        q = self._positions(q, "q", batch=False)
        (rows,), X_WL, world = self._pairs_in(q, max(self._max_padding(), 0.0))
        contacts = []
        for a, b, distance, pair in rows:
            if distance > 0.0:
                continue
            p_WC = []
            for body, g, p_GC in ((a, pair.id_A, pair.p_ACa), (b, pair.id_B, pair.p_BCb)):
                # A link's geometry moves with the link; any other body's frame is the world's.
                X_WB = X_WL[0, body - 1] if self._is_robot[body] else np.eye(4)
                X_WG = X_WB @ world.X_BG_rows[world.row_of[g]]
                p_WC.append(X_WG[:3, :3] @ p_GC + X_WG[:3, 3])
            contacts.append(RobotContact(self.body_names[a], self.body_names[b], pair.id_A,
                                         pair.id_B, -float(distance), p_WC[0], p_WC[1],
                                         np.array(pair.nhat_BA_W, dtype=float)))
        return contacts

    def calc_robot_clearance(self, q, influence_distance: float,
                             num_closest_pairs: int | None = None) -> RobotClearance:
        """Return the clearance table of configuration ``q``.

        One row per unfiltered geometry pair (robot and anything) whose
        padded distance is at most ``influence_distance``, in order of the
        pair's geometry ids. The Jacobian row is
        ``nhat_BA_W · (J_v(Ca) - J_v(Cb))``: witness Ca fixed on A's body,
        Cb on B's, ``J_v`` their translational Jacobians with respect to q.

        ``num_closest_pairs`` (not in Drake; the option its users asked
        for): keep only the rows of the k smallest padded distances, in
        order of distance (ties in the table's order), and compute only
        their Jacobians. They equal the first k rows of the whole table
        sorted by distance (all of them where it has fewer).

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`, or if
            ``influence_distance`` is negative or NaN, or
            ``num_closest_pairs`` is not None or a positive integer.
        """
        return self._clearances(self._positions(q, "q", batch=False), influence_distance,
                                num_closest_pairs=num_closest_pairs)[0]

    def calc_robot_clearances(self, qs, influence_distance: float, parallelize=1,
                              num_closest_pairs: int | None = None) -> list[RobotClearance]:
        """Return :meth:`calc_robot_clearance` for K configurations in one call.

        ``parallelize`` (as :meth:`check_configs_collision_free`): native
        threads pose the configurations, find their pairs and compute their
        rows (padding, filters, Jacobians); the table objects are then made
        in Python. The tables are the same for any number of threads.
        ``num_closest_pairs`` as in :meth:`calc_robot_clearance`, for each
        table.

        Raises
        ------
        ValueError
            As :meth:`check_configs_collision_free` and :meth:`calc_robot_clearance`.
        """
        return self._clearances(self._positions(qs, "qs", batch=True), influence_distance,
                                parallelize, num_closest_pairs)

    def _clearances(self, qs: np.ndarray, influence_distance: float, parallelize=1,
                    num_closest_pairs: int | None = None) -> list[RobotClearance]:
        """calc_robot_clearances of validated (K, n) positions."""
        influence_distance = float(influence_distance)
        if not influence_distance >= 0.0:
            raise ValueError(f"influence_distance must be non-negative, got {influence_distance!r}")
        limit = _closest_limit(num_closest_pairs)
        reach = influence_distance + max(self._max_padding(), 0.0)
        world = self._world
        if world.clouds:
            # Cloud points join the compiled pairs as records, in id order.
            rows, X_WL, world = self._pairs_in(qs, reach, world, parallelize)
            return [self._table(world, X_WL[k], *_columns_of_rows(world, config),
                                influence_distance, limit)
                    for k, config in enumerate(rows)]
        dense = self._dense_tables()
        if dense is None:
            # Too many bodies for dense (B, B) tables: the records' path.
            return [self._python_table(qs[k:k + 1], world, reach, influence_distance, limit)
                    for k in range(len(qs))]
        n = self.num_positions
        # Rows, padding, filters, the k closest and Jacobians in the compiled
        # loop, on the native threads.
        answers = self._chain_batch(qs, world).chain_clearance_rows(
            reach, world.index_bodies, *dense, influence_distance, limit or 0, n, parallelize)
        ids = world.model.geometry_ids
        out = []
        for k, answer in enumerate(answers):
            if answer is None:
                out.append(self._python_table(qs[k:k + 1], world, reach, influence_distance,
                                              limit))
                continue
            robot, other, self_rows, i, j, distances, jacobians = answer
            out.append(RobotClearance._from_rows(
                n, robot, other, [_TYPES[row] for row in self_rows],
                np.frombuffer(distances), np.frombuffer(jacobians).reshape(-1, n),
                list(zip(map(ids.__getitem__, i), map(ids.__getitem__, j))), copy=False))
        return out

    def _dense_tables(self) -> tuple | None:
        """(link of each body, filters (B, B) uint8, padding (B, B)) for the compiled table.

        Made from the filter and padding tables at their current versions and
        kept until either changes; None above ``_DENSE_BODIES_MAX`` bodies,
        whose dense tables would cost B² memory.
        """
        B = len(self._is_robot)
        if B > _DENSE_BODIES_MAX:
            return None
        filtered, padding = self._filtered, self._padding
        cached = self._dense_of
        if cached is None or not (cached[0] is filtered and cached[1] == filtered.version
                                  and cached[2] is padding and cached[3] == padding.version):
            link_of_body = np.where(self._is_robot, np.arange(B) - 1, -1).astype(np.int32)
            cached = self._dense_of = (
                filtered, filtered.version, padding, padding.version,
                (link_of_body, np.ascontiguousarray(np.asarray(filtered), dtype=np.uint8),
                 np.ascontiguousarray(np.asarray(padding), dtype=np.float64)))
        return cached[4]

    def _python_table(self, q: np.ndarray, world: World, reach: float,
                      influence_distance: float, limit: int | None) -> RobotClearance:
        """One configuration's table from its pair records (a pair left to Python)."""
        batch = self._chain_batch(q, world)
        (answer,) = batch.chain_pair_answers(reach)
        _, X_WL = self._chain.frame_poses(q)
        return self._table(world, X_WL[0],
                           *_columns_of_pairs(world, batch.pairs_of_answer(0, answer, reach)),
                           influence_distance, limit)

    def _table(self, world: World, X_WL: np.ndarray, row_A: np.ndarray, row_B: np.ndarray,
               distance: np.ndarray, vectors: np.ndarray, id_pairs, influence_distance: float,
               limit: int | None) -> RobotClearance:
        """One configuration's table from its pairs as columns.

        ``row_A``, ``row_B``: each pair's geometry rows; ``distance`` the
        unpadded distances; ``vectors`` (M, 3, 3) the witnesses Ca and Cb in
        their geometries' frames and ``nhat_BA_W``; ``id_pairs(keep)`` the
        geometry id pairs of the pairs ``keep`` (an index array).
        """
        n = self.num_positions
        if not len(distance):
            return RobotClearance(n)
        if (row_A < 0).any() or (row_B < 0).any():
            raise RuntimeError("a pair's geometry is not one of the checker's")
        a, b = world.body_rows[row_A], world.body_rows[row_B]
        distance = distance - self._padding[a, b]
        keep = np.flatnonzero(~self._filtered[a, b] & (distance <= influence_distance))
        if limit is not None and len(keep) > limit:
            keep = keep[np.argsort(distance[keep], kind="stable")[:limit]]
        elif limit is not None:
            keep = keep[np.argsort(distance[keep], kind="stable")]
        if not len(keep):
            return RobotClearance(n)
        a, b = a[keep], b[keep]
        # Both witnesses of every row at once (Ca fixed on A's body, Cb on
        # B's): their world points and Jacobian rows in one compiled pass.
        bodies = np.stack([a, b], axis=1).reshape(-1)
        geometry_rows = np.stack([row_A[keep], row_B[keep]], axis=1).reshape(-1)
        is_robot = self._is_robot
        links = np.where(is_robot[bodies], bodies - 1, -1)
        kept = vectors[keep]
        jacobians = self._chain.distance_jacobians(
            X_WL, links, world.X_BG_rows[geometry_rows], kept[:, :2].reshape(-1, 3),
            kept[:, 2])
        a_is_robot, b_is_robot = is_robot[a], is_robot[b]
        robot = np.where(a_is_robot, a, b).tolist()
        other = np.where(a_is_robot, b, a).tolist()
        types = [_SELF if both else _ENVIRONMENT
                 for both in (a_is_robot & b_is_robot).tolist()]
        return RobotClearance._from_rows(n, robot, other, types, distance[keep], jacobians,
                                         id_pairs(keep))

    # ------------------------------------------------------------------ edges

    def check_edge_collision_free(self, q1, q2, certified: bool = False,
                                  parallelize=1) -> bool:
        """Report whether the straight motion from ``q1`` to ``q2`` is collision-free.

        Discrete (default, Drake's check): ``q2``, then ``q1`` and the
        configurations between them at steps of at most
        :attr:`edge_step_size` (Euclidean in q). It can miss an obstacle
        thinner than what a body sweeps in one step. Its answer is exactly
        that of :meth:`check_configs_collision_free` on those
        configurations (all free: True), found in one compiled call that
        decides them pair by pair: a pair measured clear of its padding at
        one configuration is skipped at those its motion bound cannot close
        the gap at, and only the rest run their kernels
        (``discrete_edge``).

        Certified (``certified=True``): conservative advancement. At a
        configuration on the edge, every unfiltered pair's padded distance d
        and a bound v on how fast its two bodies can approach per unit of
        edge (joint motion times the farthest reach of the geometry beyond
        each joint, :meth:`KinematicChain.motion_rates`) prove ``(d - eps) /
        v`` of the edge free on both sides; the check samples the edge in
        compiled batches until the proven stretches cover it
        (``certified_edge``). It returns True only for an edge it has proven
        free, so it never calls a colliding edge free; it returns False at a
        collision, when a pair comes within ``2 eps`` (2 µm), or after
        ``CERTIFIED_EDGE_MAX_STEPS`` samples.

        ``parallelize`` (as :meth:`check_configs_collision_free`): native
        threads share the configurations of a discrete check (Drake's
        ``CheckEdgeCollisionFreeParallel``), a stretch each, all stopping once
        one finds a collision (the answer is the same for any number); the
        certified check measures its batches on one thread and ignores it.

        Raises
        ------
        ValueError
            As :meth:`check_config_collision_free`, for either end.
        """
        threads = num_threads(parallelize)
        if not certified:
            # Float64 arrays within the limits (a planner's): checked, stepped
            # and answered in one compiled call.
            answer = discrete_edge.edge_free_at_once(self, q1, q2, threads)
            if answer is not None:
                return answer
        q1 = self._positions(q1, "q1", batch=False)[0]
        q2 = self._positions(q2, "q2", batch=False)[0]
        if certified:
            return certified_edge.certified_edge_free(self, q1, q2)
        steps = discrete_edge.edge_steps(q1, q2, self.edge_step_size)
        # Both ends are within the limits, so every point between them is.
        return discrete_edge.discrete_edge_free(self, q1, q2, steps, threads)


def _closest_limit(num_closest_pairs) -> int | None:
    """``num_closest_pairs`` checked: None or a positive int."""
    if num_closest_pairs is None:
        return None
    if isinstance(num_closest_pairs, bool) or not isinstance(num_closest_pairs,
                                                             (int, np.integer)) \
            or num_closest_pairs < 1:
        raise ValueError(f"num_closest_pairs must be None or a positive integer, "
                         f"got {num_closest_pairs!r}")
    return int(num_closest_pairs)


def _columns_of_pairs(world: World, pairs: list[SignedDistancePair]) -> tuple:
    """:meth:`CheckerQueries._table`'s columns of signed distance records."""
    row_of = world.row_of
    vectors = np.array([(pair.p_ACa, pair.p_BCb, pair.nhat_BA_W) for pair in pairs],
                       dtype=float).reshape(-1, 3, 3)
    return (np.array([row_of.get(pair.id_A, -1) for pair in pairs], dtype=np.intp),
            np.array([row_of.get(pair.id_B, -1) for pair in pairs], dtype=np.intp),
            np.array([pair.distance for pair in pairs], dtype=float), vectors,
            lambda keep: [(pairs[m].id_A, pairs[m].id_B) for m in keep.tolist()])


def _columns_of_rows(world: World, config: list) -> tuple:
    """The columns of the records of :meth:`CheckerQueries._pairs_in`'s rows (unpadded)."""
    return _columns_of_pairs(world, [pair for _, _, _, pair in config])
