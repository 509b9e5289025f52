"""The bounded fast path of the yes/no checks gives the exact path's answers.

``has_contacts``, ``has_collisions`` and ``any_contact`` only need the sign
of each configuration's smallest distance. Before any pair kernel runs they
look for a candidate pair whose inner spheres overlap (a sphere inside each
shape, shrunk against rounding, ``csrc/model.c`` ``inner_sphere``): that pair
proves the configuration in collision. ``compute_min_distance`` never takes
that shortcut, so its sign is the plain exact answer to compare with, on
100 000 configurations of each arm.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_bounded_verdicts_equal_exact_on_100000_configurations(name):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 100_000, 59)
    batch = checker._chain_batch(qs)
    exact = batch.compute_min_distance(0.0, parallelize=True)
    bounded, python, _ = batch._min_distances(0.0, True, parallelize=True, verdict_only=True)
    assert python == []
    assert np.array_equal(batch.has_contacts(parallelize=True), exact <= 0.0)
    assert np.array_equal(batch.has_collisions(parallelize=True), exact < 0.0)
    assert np.array_equal(checker.check_configs_collision_free(qs), exact > 0.0)
    # The bounds decided a good share of the colliding configurations: there
    # the answer is the inner spheres' overlap, never deeper than the truth.
    by_bounds = (bounded < 0.0) & (bounded != exact)
    assert by_bounds.sum() > 0.3 * (exact < 0.0).sum()
    assert np.all(bounded[by_bounds] >= exact[by_bounds])
    assert 0.2 < (exact > 0.0).mean() < 0.95


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_bounded_edges_equal_exact_edges(name):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 201, 61)
    verdicts = []
    for q1, q2 in zip(qs[:-1], qs[1:]):
        steps = max(1, int(np.ceil(np.linalg.norm(q2 - q1) / checker.edge_step_size)))
        path = np.vstack([q2[None], q1 + (np.arange(steps) / steps)[:, None] * (q2 - q1)])
        exact = bool(np.all(checker._chain_batch(path).compute_min_distance(0.0) > 0.0))
        assert checker.check_edge_collision_free(q1, q2) == exact
        verdicts.append(exact)
    assert 0 < sum(verdicts) < len(verdicts)


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_smallest_distance_skips_only_pairs_that_cannot_be_nearest(name):
    """Outer spheres skip only pairs farther apart than the least distance so far.

    The minimum is that of every pair's distance, to the bit.
    """
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 300, 67)
    batch = checker._chain_batch(qs)
    every_pair = batch.compute_signed_distance_pairwise_closest_points(np.inf)
    expected = np.array([min(p.distance for p in pairs) for pairs in every_pair])
    assert np.array_equal(batch.compute_min_distance(np.inf), expected)
    assert np.array_equal(batch.compute_min_distance(np.inf, parallelize=2), expected)
    near = batch.compute_min_distance(0.05)
    assert np.array_equal(near, np.where(expected <= 0.05, expected, np.inf))


@pytest.mark.parametrize("link", ["link0", "link4", "hand"])
def test_sphere_hull_bound_never_skips_a_pair_within_reach(link):
    """A sphere beside a hull is skipped only when the unbounded kernel finds it farther.

    The batch kernels skip a sphere-hull pair whose highest face plane (less
    the radius) is beyond the caller's bound; ``specs.pair`` runs the exact
    kernel with no bound, so it is the reference for each of 4000 random
    placements and several bounds.
    """
    from geometry_core import Convex, Sphere
    from geometry_core.proximity import specs

    hull = Convex(robots.ROBOTS / "panda_description" / "meshes" / "collision" / f"{link}.stl")
    rng = np.random.default_rng(7)
    shapes = [hull, Sphere(0.05)]
    model = specs.build_model(shapes, np.array([1, 2], dtype=np.int32),
                              np.tile(np.eye(4), (2, 1, 1)), np.zeros(0, dtype=np.int64))
    K = 4000
    X_WF = np.tile(np.eye(4), (K, 3, 1, 1))
    X_WF[:, 2, :3, 3] = rng.uniform(-0.25, 0.25, (K, 3))
    exact = np.array([specs.pair(hull, np.eye(4), shapes[1], X_WF[k, 2])[1].distance
                      for k in range(K)])
    assert (exact < 0).any() and (exact > 0.1).any()
    for beyond in (0.0, 0.01, 0.05):
        found, python = model.min_distances(np.ascontiguousarray(X_WF), 3, beyond, False)
        found = np.frombuffer(found, dtype=np.float64)
        assert python == []
        within = exact <= beyond
        assert within.any() and (~within).any()
        assert np.array_equal(found[within], exact[within])
        assert np.all(np.isinf(found[exact > beyond + 1e-7]))


@pytest.mark.parametrize("links", [("link4", "hand"), ("link0", "link6")])
def test_overlaps_proven_by_gjk_keep_the_sign_and_bound_the_depth(links):
    """Yes/no checks end a hull pair where GJK's simplex holds the origin deep inside.

    That answer is a bound of the depth (the tetrahedron lies in the
    Minkowski difference), never deeper than the exact kernel's, and its sign
    is the exact one, on 4000 random placements of two Panda hulls.
    """
    from geometry_core import Convex
    from geometry_core.proximity import specs

    folder = robots.ROBOTS / "panda_description" / "meshes" / "collision"
    hulls = [Convex(folder / f"{name}.stl") for name in links]
    rng = np.random.default_rng(11)
    model = specs.build_model(hulls, np.array([1, 2], dtype=np.int32),
                              np.tile(np.eye(4), (2, 1, 1)), np.zeros(0, dtype=np.int64))
    K = 4000
    X_WF = np.tile(np.eye(4), (K, 3, 1, 1))
    axes = rng.normal(size=(K, 3))
    angles = rng.uniform(0, np.pi, K)
    for k in range(K):
        from transforms3d.axangles import axangle2mat
        X_WF[k, 2, :3, :3] = axangle2mat(axes[k], angles[k])
    X_WF[:, 2, :3, 3] = rng.uniform(-0.2, 0.2, (K, 3))
    exact = np.array([specs.pair(hulls[0], np.eye(4), hulls[1], X_WF[k, 2])[1].distance
                      for k in range(K)])
    found, python = model.min_distances(np.ascontiguousarray(X_WF), 3, 0.0, True, False, 1, True)
    found = np.frombuffer(found, dtype=np.float64)
    assert python == []
    assert (exact < -0.01).sum() > 100 and (exact > 0.0).sum() > 100
    assert np.array_equal(found <= 0.0, exact <= 0.0)
    assert np.array_equal(found < 0.0, exact < 0.0)
    below = found < 0.0
    assert np.all(found[below] >= exact[below])
    # The proof answered a good share of the overlaps without the exact kernel.
    assert (found[below] > exact[below]).mean() > 0.3
