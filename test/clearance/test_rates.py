"""Approach rates and times to contact from a clearance table (moveit2#409's request)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402


def test_rates_are_the_time_derivative_of_the_distances_along_v():
    checker = CollisionChecker.from_urdf(robots.ARMS["panda"][0],
                                         environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    rng = np.random.default_rng(4)
    seen_closing = seen_opening = 0
    for q in robots.random_configurations(checker, 5, 8):
        q = np.clip(q, checker._chain.lower + 0.01, checker._chain.upper - 0.01)
        v = rng.normal(size=checker.num_positions)
        v[-1] = 0.0   # the finger: keep within its 4 cm travel
        table = checker.calc_robot_clearance(q, 0.2)
        ids = table.geometry_ids()
        if not ids:
            continue
        smooth, _ = robots.smooth_rows(checker, q, ids)
        dt = 1e-6
        rate_fd = (robots.pair_distances(checker, q + dt * v, ids)
                   - robots.pair_distances(checker, q - dt * v, ids)) / (2 * dt)
        rates = table.approach_rates(v)
        np.testing.assert_allclose(rates[smooth], rate_fd[smooth], atol=1e-5)
        times = table.times_to_contact(v)
        closing = rates < 0
        np.testing.assert_allclose(times[closing],
                                   np.maximum(table.distances()[closing], 0) / -rates[closing])
        assert np.all(np.isinf(times[~closing]))
        seen_closing += int(closing.sum())
        seen_opening += int((~closing).sum())
    assert seen_closing and seen_opening
