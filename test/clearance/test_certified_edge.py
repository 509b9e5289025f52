"""Certified edge checks: a thin obstacle the discrete check steps over, and soundness.

The UR5 swings its pan joint through 1.2 rad with a discrete step of 0.4
rad: the wrist moves about 30 cm between samples. A 4 mm plate stands across
its path between two samples. The discrete check (Drake's) calls the edge
free; the certified check does not, and dense sampling proves the edge
collides.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    RollPitchYaw,
    SceneGraph,
)
from geometry_core.clearance import CollisionChecker  # noqa: E402

Q1 = np.array([-0.6, -0.4, 0.6, 0.0, 0.0, 0.0])
Q2 = np.array([0.6, -0.4, 0.6, 0.0, 0.0, 0.0])
STEP = 0.4


def plate_scene(angle: float) -> SceneGraph:
    """A 4 mm plate across the wrist's arc at pan angle ``angle``."""
    sg = SceneGraph()
    source = sg.register_source("obstacles")
    # At pan 0 the wrist centres sit about 0.77 m out along x, 0.08-0.18 m up.
    R_WP = RollPitchYaw(0.0, 0.0, angle).to_rotation_matrix()
    p_WP = R_WP.matrix() @ np.array([0.76, 0.0, 0.13])
    plate = GeometryInstance(RigidTransform(R_WP, p_WP), Box(0.12, 0.004, 0.12), "plate")
    plate.set_proximity_properties(ProximityProperties())
    sg.register_anchored_geometry(source, plate)
    return sg


def checker_with(scene) -> CollisionChecker:
    return CollisionChecker.from_urdf(robots.ARMS["ur5"][0], srdf=robots.ARMS["ur5"][1],
                                      environment=scene, package_roots=robots.PACKAGE_ROOTS,
                                      edge_step_size=STEP)


def dense_edge(q1, q2, count=2000):
    return q1 + np.linspace(0.0, 1.0, count)[:, None] * (q2 - q1)


def test_thin_plate_between_samples_is_missed_by_the_discrete_check_only():
    # Samples fall at pan -0.6, -0.2, 0.2, 0.6; the swept wrist spans about
    # -0.06 to +0.25 rad around each: the plate at 0.1 is in a gap.
    checker = checker_with(plate_scene(0.1))
    steps = math.ceil(np.linalg.norm(Q2 - Q1) / STEP)
    samples = Q1 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (Q2 - Q1)
    assert np.all(checker.check_configs_collision_free(samples))
    assert checker.check_edge_collision_free(Q1, Q2) is True
    assert not np.all(checker.check_configs_collision_free(dense_edge(Q1, Q2)))
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is False
    assert checker.check_edge_collision_free(Q2, Q1, certified=True) is False


def test_certified_check_proves_a_free_edge_free():
    checker = checker_with(plate_scene(1.5))    # the plate is behind the arm's swing
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is True
    assert checker.check_edge_collision_free(Q1, Q1, certified=True) is True


@pytest.mark.slow
@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_certified_never_calls_a_colliding_edge_free(name):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 30, 17)
    free = checker.check_configs_collision_free(qs)
    starts = qs[free]
    proven = refuted = 0
    for q1, q2 in zip(starts[:-1], starts[1:]):
        # Short edges, so that some are free and some are not.
        q2 = q1 + 0.3 * (q2 - q1)
        certified = checker.check_edge_collision_free(q1, q2, certified=True)
        dense = bool(np.all(checker.check_configs_collision_free(dense_edge(q1, q2, 400))))
        if certified:
            assert dense, "a certified-free edge has a colliding sample"
            proven += 1
        else:
            refuted += 1
    assert proven >= 3


# --------------------------------------------------------------- batched proof

def arm_checker(name, **kwargs) -> CollisionChecker:
    urdf, srdf, _ = robots.ARMS[name]
    return CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                      package_roots=robots.PACKAGE_ROOTS, **kwargs)


def random_edges(checker, count, seed):
    """``count`` edges from collision-free starts to random ends, a third of the way there.

    Short enough that many are free; long enough that many are not.
    """
    qs = robots.random_configurations(checker, 4 * count, seed)
    starts = qs[checker.check_configs_collision_free(qs)][:count]
    ends = robots.random_configurations(checker, len(starts), seed + 1)
    return starts, starts + 0.35 * (ends - starts)


class PairDistanceSpy:
    """Records each call of ``BatchQuery.compute_pair_distances``: its margins and its pairs."""

    def __init__(self, monkeypatch):
        from geometry_core.proximity.batch_query import BatchQuery

        self.calls = []
        real = BatchQuery.compute_pair_distances

        def spy(batch, max_distance, parallelize=1, pair_margin=None):
            answer = real(batch, max_distance, parallelize, pair_margin)
            self.calls.append((None if pair_margin is None else pair_margin.copy(), answer))
            return answer

        monkeypatch.setattr(BatchQuery, "compute_pair_distances", spy)


def geometry_pairs(checker, link_a, link_b):
    """Model indices (i, j) of every geometry pair of two links."""
    model = checker._world.model
    bodies = [checker.body_index(link_a), checker.body_index(link_b)]
    of_body = [[model.index_of(g) for g, body in checker._body_of.items() if body == b]
               for b in bodies]
    return [(i, j) for i in of_body[0] for j in of_body[1]]


def test_a_rigid_pair_is_measured_in_the_first_batch_only(monkeypatch):
    from geometry_core.clearance import certified_edge

    # Only the pan joint moves: every pair of links above it is rigid,
    # among them wrist_2/ee_link, about 2 cm apart at every configuration.
    checker = checker_with(plate_scene(0.1 + math.pi))
    # One sample at each end with a wide reach: the first batch proves
    # little, and more batches follow.
    monkeypatch.setattr(certified_edge, "FIRST_HORIZON", 10.0)
    spy = PairDistanceSpy(monkeypatch)
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is True
    assert len(spy.calls) >= 2
    rigid = geometry_pairs(checker, "wrist_2_link", "ee_link")
    moving = geometry_pairs(checker, "upper_arm_link", "world")
    # Measured in the first batch (within padding + 2 eps it would be
    # reported there: test_pair_distances_as_columns_match_the_pairwise_query) ...
    (first, _), later = spy.calls[0], spy.calls[1:]
    assert all(np.isfinite(first[a, b]) for a, b in rigid)
    for margin, (_, i, j, _) in later:
        reported = set(zip(i.tolist(), j.tolist())) | set(zip(j.tolist(), i.tolist()))
        for a, b in rigid:                        # ... and never again
            assert margin[a, b] == -np.inf and (a, b) not in reported
        assert all(np.isfinite(margin[a, b]) for a, b in moving)


def test_a_rigid_pair_within_its_padding_fails_the_edge():
    checker = checker_with(plate_scene(0.1 + math.pi))
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is True
    # The pair never moves along the edge; padded beyond its distance it
    # collides everywhere on it, which the first batch sees.
    checker.set_padding_between("wrist_2_link", "ee_link", 0.05)
    assert not checker.check_config_collision_free(Q1)
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_certified_free_edges_are_free_at_10000_points(name):
    checker = arm_checker(name)
    starts, ends = random_edges(checker, 40, 5)
    proven = colliding = 0
    for q1, q2 in zip(starts, ends):
        certified = checker.check_edge_collision_free(q1, q2, certified=True)
        dense = bool(np.all(checker.check_configs_collision_free(dense_edge(q1, q2, 10_000))))
        # Edges with a collision are never certified free.
        assert dense or not certified, "a certified-free edge has a colliding sample"
        proven += certified
        colliding += not dense
    assert proven >= 10 and colliding >= 5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_certified_agrees_with_a_fine_discrete_check(name):
    # The proof is complete as well as sound: it fails a free edge only
    # where a pair comes within a hair of contact somewhere on it.
    checker = arm_checker(name)
    fine = arm_checker(name, edge_step_size=0.002)
    starts, ends = random_edges(checker, 150, 11)
    agree = 0
    for q1, q2 in zip(starts, ends):
        certified = checker.check_edge_collision_free(q1, q2, certified=True)
        discrete = fine.check_edge_collision_free(q1, q2)
        if certified == discrete:
            agree += 1
            continue
        assert discrete and not certified
        closest = checker.calc_min_distances(dense_edge(q1, q2, 4000)).min()
        assert closest < 1e-3, f"a free edge {closest:.3g} m from contact was not proven"
    assert agree >= 0.97 * len(starts)


def test_pair_distances_as_columns_match_the_pairwise_query():
    checker = arm_checker("ur5")
    qs = robots.random_configurations(checker, 20, 23)
    batch = checker._chain_batch(qs)
    model = checker._world.model
    config, i, j, distance = batch.compute_pair_distances(0.2)
    pairs = batch.compute_signed_distance_pairwise_closest_points(0.2)
    expected = sorted((k, model.index_of(p.id_A), model.index_of(p.id_B), p.distance)
                      for k, config_pairs in enumerate(pairs) for p in config_pairs)
    assert len(expected) > 20
    assert sorted(zip(config.tolist(), i.tolist(), j.tolist(), distance.tolist())) == expected
    # The same from world poses (a batch without a chain, answered per scene).
    from geometry_core.proximity.batch_query import BatchQuery

    posed = BatchQuery(model, np.array(batch.X_WF), checker._world.slot_of)
    rows = sorted(zip(*(column.tolist() for column in posed.compute_pair_distances(0.2))))
    assert [row[:3] for row in rows] == [row[:3] for row in expected]
    assert np.allclose([row[3] for row in rows], [row[3] for row in expected], rtol=0,
                       atol=1e-9)
    # A margin per pair: -inf leaves a pair out, and a pair is there
    # exactly when within its own margin.
    G = len(model.geometry_ids)
    margin = np.full((G, G), 0.03)
    left_out = (expected[0][1], expected[0][2])
    margin[left_out] = margin[left_out[::-1]] = -np.inf
    config, i, j, distance = batch.compute_pair_distances(0.2, pair_margin=margin)
    got = set(zip(config.tolist(), i.tolist(), j.tolist()))
    assert not any((a, b) == left_out for _, a, b in got)
    assert got == {(k, a, b) for k, a, b, d in expected if (a, b) != left_out and d <= 0.03}
    columns = posed.compute_pair_distances(0.2, pair_margin=margin)
    assert set(zip(*(column.tolist() for column in columns[:3]))) == got
    assert 0 < len(got) < len(expected)
    with pytest.raises(ValueError, match="pair_margin must have shape"):
        batch.compute_pair_distances(0.2, pair_margin=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="none above max_distance"):
        batch.compute_pair_distances(0.2, pair_margin=np.full((G, G), 0.3))
    with pytest.raises(ValueError, match="numbers or -inf"):
        batch.compute_pair_distances(0.2, pair_margin=np.full((G, G), np.nan))


def test_certified_check_follows_filter_changes():
    checker = checker_with(plate_scene(0.1))
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is False
    links = [name for name in checker.body_names[1:]
             if checker.is_part_of_robot(name) and not checker.is_collision_filtered_between(
                 name, "world")]
    for link in links:
        checker.set_collision_filtered_between(link, "world", True)
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is True
    for link in links:
        checker.set_collision_filtered_between(link, "world", False)
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is False
