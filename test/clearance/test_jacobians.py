"""Clearance Jacobians against central finite differences of the distances (real arms).

For every row whose witness is unique, each column of the Jacobian must
equal ``(d(q + h e_j) - d(q - h e_j)) / 2h`` of the same geometry pair to
1e-6. Uniqueness is judged from the distances themselves: where two step
sizes give central differences that disagree, the distance is not smooth
there (parallel faces, a kink) and the row is skipped; the test asserts that
most rows are checked.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402

H = 1e-5


@pytest.mark.parametrize("name, seed", [("panda", 1), ("panda", 2), ("ur5", 1), ("ur5", 2)])
def test_jacobians_match_central_differences(name, seed):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS,
                                         self_padding=0.005)
    checked = total = 0
    lower, upper = checker._chain.lower, checker._chain.upper
    for q in robots.random_configurations(checker, 4, seed):
        q = np.clip(q, lower + 4 * H, upper - 4 * H)
        table = checker.calc_robot_clearance(q, 0.15)
        ids = table.geometry_ids()
        if not ids:
            continue
        smooth, fd = robots.smooth_rows(checker, q, ids, H)
        total += len(ids)
        checked += int(smooth.sum())
        np.testing.assert_allclose(table.jacobians()[smooth], fd[smooth], atol=1e-6, rtol=0)
    assert total > 0 and checked >= 0.6 * total
