"""num_closest_pairs: the k rows of smallest distance of a clearance table (real arms).

Drake users asked for this option of ``CalcRobotClearance`` because they
read only the closest pair and paid for every row's Jacobian. The k-row
table must be the whole table's rows sorted by distance (ties kept in table
order), cut after k, with the same bodies, types, geometry pairs and
Jacobians; its first distance must be what the compiled minimum-distance
query (another path: no records, no Jacobians) reports.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402


def checker_of(name, self_padding=0.0, environment_padding=0.0, cloud=False):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS,
                                         self_padding=self_padding,
                                         environment_padding=environment_padding)
    if cloud:
        rng = np.random.default_rng(4)
        points = rng.uniform([0.2, -0.3, 0.0], [0.6, 0.3, 0.8], (300, 3))
        checker.add_point_cloud("camera", points, 0.01)
    return checker


def sorted_rows(table, k):
    """The first k rows of ``table`` in order of distance (stable)."""
    return np.argsort(table.distances(), kind="stable")[:k]


def assert_rows_equal(closest, table, order):
    assert closest.size() == len(order)
    assert closest.num_positions() == table.num_positions()
    assert closest.robot_indices() == [table.robot_indices()[m] for m in order]
    assert closest.other_indices() == [table.other_indices()[m] for m in order]
    assert closest.collision_types() == [table.collision_types()[m] for m in order]
    assert closest.geometry_ids() == [table.geometry_ids()[m] for m in order]
    assert np.array_equal(closest.distances(), table.distances()[order])
    # Each row's Jacobian is computed alone: the same bits with or without the others.
    assert np.array_equal(closest.jacobians(), table.jacobians()[order])


@pytest.mark.parametrize("name, self_padding, environment_padding, cloud", [
    ("ur5", 0.0, 0.0, False),
    ("panda", 0.0, 0.0, False),
    ("ur5", 0.01, 0.02, True),
    ("panda", 0.005, -0.01, True),
])
def test_the_k_closest_rows_are_the_whole_tables_rows_sorted_by_distance(
        name, self_padding, environment_padding, cloud):
    checker = checker_of(name, self_padding, environment_padding, cloud)
    qs = robots.random_configurations(checker, 60, 11)
    influence = 0.25
    tables = checker.calc_robot_clearances(qs, influence)
    assert sum(t.size() > 3 for t in tables) > 20
    for k in (1, 2, 5, 1000):
        batch = checker.calc_robot_clearances(qs, influence, num_closest_pairs=k)
        for q, table, closest in zip(qs[:15], tables, batch):
            order = sorted_rows(table, k)
            assert_rows_equal(closest, table, order)
            assert_rows_equal(checker.calc_robot_clearance(q, influence, num_closest_pairs=k),
                              table, order)
        for table, closest in zip(tables[15:], batch[15:]):
            assert_rows_equal(closest, table, sorted_rows(table, k))


@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_the_closest_row_is_the_minimum_distance(name):
    checker = checker_of(name, self_padding=0.005, environment_padding=0.01)
    qs = robots.random_configurations(checker, 200, 12)
    for influence in (0.05, 0.1, 0.25):
        minimum = checker.calc_min_distances(qs, influence)
        tables = checker.calc_robot_clearances(qs, influence, num_closest_pairs=1,
                                               parallelize=2)
        assert np.isfinite(minimum).sum() > 50
        for d, table in zip(minimum, tables):
            if np.isinf(d):
                assert table.size() == 0
            else:
                assert table.size() == 1 and table.distances()[0] == pytest.approx(d, abs=1e-12)
        # The configuration is free exactly when its closest row is.
        free = checker.check_configs_collision_free(qs)
        assert np.array_equal(free, [t.is_collision_free() for t in tables])


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2", np.float64(2.0)])
def test_a_bad_count_is_refused_by_name(value):
    checker = checker_of("ur5")
    q = robots.random_configurations(checker, 1, 1)
    with pytest.raises(ValueError, match="num_closest_pairs"):
        checker.calc_robot_clearance(q[0], 0.1, num_closest_pairs=value)
    with pytest.raises(ValueError, match="num_closest_pairs"):
        checker.calc_robot_clearances(q, 0.1, num_closest_pairs=value)


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_tables_of_robots_too_big_for_dense_tables_come_from_records(name, monkeypatch):
    """Above the dense-table size the table is built from pair records: the same table.

    The compiled table reads (B, B) filter and padding tables; a robot of
    thousands of links would need B² of them, so it takes the records' path
    instead. Forced here on the real arms (with padding and a filter edit),
    both paths give the same rows and Jacobians.
    """
    from geometry_core.clearance import checker_queries

    checker = checker_of(name, self_padding=0.01, environment_padding=0.02)
    checker.set_collision_filtered_between(checker.body_names[2], checker.body_names[4], True)
    qs = robots.random_configurations(checker, 40, 5)
    compiled = checker.calc_robot_clearances(qs, 0.2)
    closest = checker.calc_robot_clearances(qs, 0.2, num_closest_pairs=2)
    monkeypatch.setattr(checker_queries, "_DENSE_BODIES_MAX", 0)
    records = checker.calc_robot_clearances(qs, 0.2)
    records_closest = checker.calc_robot_clearances(qs, 0.2, num_closest_pairs=2)
    assert sum(t.size() for t in compiled) > 40
    for a, b in zip(compiled + closest, records + records_closest):
        assert a.robot_indices() == b.robot_indices()
        assert a.other_indices() == b.other_indices()
        assert a.collision_types() == b.collision_types()
        assert a.geometry_ids() == b.geometry_ids()
        np.testing.assert_allclose(a.distances(), b.distances(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.jacobians(), b.jacobians(), rtol=0, atol=1e-9)


def test_dense_tables_follow_filter_and_padding_edits():
    checker = checker_of("ur5")
    q = robots.random_configurations(checker, 1, 8)[0]
    before = checker.calc_robot_clearance(q, 0.5)
    pair = (before.robot_indices()[0], before.other_indices()[0])
    names = [checker.body_names[b] for b in pair]
    checker.set_padding_between(*names, 0.05)
    padded = checker.calc_robot_clearance(q, 0.5)
    assert padded.distances()[0] == pytest.approx(before.distances()[0] - 0.05, abs=1e-12)
    checker.set_collision_filtered_between(*names, True)
    filtered = checker.calc_robot_clearance(q, 0.5)
    assert pair not in zip(filtered.robot_indices(), filtered.other_indices())
