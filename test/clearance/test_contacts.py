"""CollisionChecker.calc_contacts: the contacts of one configuration, checked three ways.

Against the checker's own verdicts (the contact list is empty exactly when
the configuration is collision-free; its pairs are the clearance table's
rows at distance <= 0, with the same distances), against geometry (a
witness point on a sphere obstacle lies on its surface; the witness points
are ``depth`` apart along the normal), and against padding (a pair padded
closer becomes a contact with the padding added to its depth).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker, RobotContact  # noqa: E402


@pytest.fixture(scope="module", params=["panda", "ur5"])
def arm(request):
    urdf, srdf, _ = robots.ARMS[request.param]
    return CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                      package_roots=robots.PACKAGE_ROOTS)


def _configurations(checker, count=150, seed=3):
    rng = np.random.default_rng(seed)
    lower, upper = checker._chain.lower, checker._chain.upper
    return rng.uniform(lower, upper, (count, checker.num_positions))


def test_contacts_agree_with_the_verdict_and_the_clearance_table(arm):
    with_contacts = 0
    for q in _configurations(arm):
        contacts = arm.calc_contacts(q)
        assert (contacts == []) == arm.check_config_collision_free(q)
        table = arm.calc_robot_clearance(q, 0.0)
        rows = sorted((min(arm.body_name(r), arm.body_name(o)),
                       max(arm.body_name(r), arm.body_name(o)), round(-d, 9))
                      for r, o, d in zip(table.robot_indices(), table.other_indices(),
                                         table.distances()) if d <= 0.0)
        ours = sorted((min(c.body_A, c.body_B), max(c.body_A, c.body_B), round(c.depth, 9))
                      for c in contacts)
        assert ours == rows
        for c in contacts:
            assert isinstance(c, RobotContact) and c.depth >= 0.0
            assert abs(np.linalg.norm(c.nhat_BA_W) - 1.0) < 1e-9
            # Unpadded, the witness points are depth apart: Ca sits depth
            # along -nhat_BA_W from Cb (A's deepest point inside B).
            np.testing.assert_allclose(c.p_WCa, c.p_WCb - c.depth * c.nhat_BA_W, atol=1e-6)
        with_contacts += bool(contacts)
    assert with_contacts > 10


def test_a_witness_point_on_a_sphere_obstacle_is_on_its_surface(arm):
    spheres = {f"sphere_{k}": (np.array(p), size[0])
               for k, (kind, size, p) in enumerate(robots.OBSTACLES) if kind == "sphere"}
    names = {g: arm.geometry_name(g) for g in arm._body_of}
    seen = 0
    for q in _configurations(arm, 300, seed=11):
        for c in arm.calc_contacts(q):
            for g, p_WC in ((c.geometry_id_A, c.p_WCa), (c.geometry_id_B, c.p_WCb)):
                sphere = spheres.get(names[g].rsplit("::", 1)[-1])
                if sphere is not None:
                    center, radius = sphere
                    assert abs(np.linalg.norm(p_WC - center) - radius) < 1e-9
                    seen += 1
    assert seen > 0


def test_padding_adds_to_the_depth():
    urdf, srdf, _ = robots.ARMS["panda"]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    q = next(q for q in _configurations(checker) if checker.check_config_collision_free(q))
    table = checker.calc_robot_clearance(q, 0.2)
    k = int(np.argmin(table.distances()))
    robot, other = table.robot_indices()[k], table.other_indices()[k]
    gap = table.distances()[k]
    checker.set_padding_between(robot, other, gap + 0.01)
    (contact,) = [c for c in checker.calc_contacts(q)
                  if {c.body_A, c.body_B} == {checker.body_name(robot), checker.body_name(other)}]
    assert contact.depth == pytest.approx(0.01, abs=1e-9)
    # The witness points are the unpadded ones: gap apart.
    assert np.linalg.norm(contact.p_WCa - contact.p_WCb) == pytest.approx(gap, abs=1e-9)


def test_contacts_with_added_shapes_and_a_point_cloud():
    from geometry_core import Box, RigidTransform

    urdf, srdf, _ = robots.ARMS["panda"]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, package_roots=robots.PACKAGE_ROOTS)
    q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04])
    _, X_WL = checker._chain.frame_poses(q[None])
    p_hand = X_WL[0, checker._chain.links.index("panda_hand")][:3, 3]
    box = checker.add_collision_shape_to_body("box", "world", Box(0.1, 0.1, 0.1),
                                              RigidTransform(p_hand))
    point = p_hand + [0.0, 0.0, 0.01]  # inside the hand
    checker.add_point_cloud("cloud", point[None, :], 0.02, q=checker.default_positions)
    contacts = checker.calc_contacts(q)
    assert not checker.check_config_collision_free(q)
    with_box = [c for c in contacts if box in (c.geometry_id_A, c.geometry_id_B)]
    assert with_box and all("world" in (c.body_A, c.body_B) for c in with_box)
    clouds = [c for c in contacts if "point_cloud" in checker.geometry_name(c.geometry_id_A)
              + checker.geometry_name(c.geometry_id_B)]
    assert clouds
    for c in clouds:
        on_cloud = c.p_WCa if "point_cloud" in checker.geometry_name(c.geometry_id_A) \
            else c.p_WCb
        assert abs(np.linalg.norm(on_cloud - point) - 0.02) < 1e-9
    checker.remove_all_added_collision_shapes()
    assert checker.calc_contacts(q) == []
