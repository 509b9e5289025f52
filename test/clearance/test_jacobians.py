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


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_point_jacobians_match_central_differences_of_the_link_poses(name):
    # KinematicChain.point_jacobian(s), public but no longer on the checker's
    # path (distance_jacobians is): dp_WQ/dq of a point fixed on a link.
    checker = CollisionChecker.from_urdf(robots.ARMS[name][0],
                                         package_roots=robots.PACKAGE_ROOTS)
    chain = checker._chain
    rng = np.random.default_rng(5)
    q = np.clip(robots.random_configurations(checker, 1, 9)[0],
                chain.lower + 4 * H, chain.upper - 4 * H)
    _, X_WL = chain.frame_poses(q[None])
    links = np.arange(len(chain.links))
    p_LQ = rng.uniform(-0.1, 0.1, (len(links), 3))
    p_WQ = np.einsum("lij,lj->li", X_WL[0, :, :3, :3], p_LQ) + X_WL[0, :, :3, 3]
    J = chain.point_jacobians(X_WL[0], links, p_WQ)
    for j in range(chain.num_positions):
        dq = np.zeros(chain.num_positions)
        dq[j] = H
        ends = []
        for sign in (1.0, -1.0):
            _, X = chain.frame_poses((q + sign * dq)[None])
            ends.append(np.einsum("lij,lj->li", X[0, :, :3, :3], p_LQ) + X[0, :, :3, 3])
        np.testing.assert_allclose(J[:, :, j], (ends[0] - ends[1]) / (2 * H), atol=1e-8)
    for link in links[::3]:
        np.testing.assert_array_equal(chain.point_jacobian(X_WL[0], link, p_WQ[link]), J[link])
    assert np.any(J != 0.0) and not np.any(J[chain.anchored])
