"""Shapes and point clouds added to a CollisionChecker while it runs (Panda and UR5 as shipped)."""

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import Box, Convex, HalfSpace, Mesh, RigidTransform, Sphere, native  # noqa: E402
from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.clearance.live_world import BodyShapeDescription  # noqa: E402

HAND = robots.HAND
make = robots.arm_checker


def link_pose(checker, q, body):
    """X_WL of a robot body at configuration q, (4, 4)."""
    _, X_WL = checker._chain.frame_poses(np.asarray(q, dtype=float)[None])
    return X_WL[0, checker.body_index(body) - 1]


def free_configuration(checker, seed=3):
    qs = robots.random_configurations(checker, 200, seed)
    return qs[checker.check_configs_collision_free(qs)][0]


@pytest.fixture(params=["panda", "ur5"])
def arm(request):
    return request.param, make(request.param)


def test_an_obstacle_added_moved_and_removed_changes_the_answers(arm):
    name, checker = arm
    qs = robots.random_configurations(checker, 120, 5)
    before = checker.check_configs_collision_free(qs)
    q = free_configuration(checker)
    p_WH = link_pose(checker, q, HAND[name])[:3, 3]
    # Far away first: nothing changes.
    g = checker.add_collision_shape_to_body("box", "world", Sphere(0.03),
                                            RigidTransform(p_WH + [0.0, 0.0, 5.0]))
    assert checker.check_config_collision_free(q)
    assert np.array_equal(checker.check_configs_collision_free(qs), before)
    # Moved onto the hand: q collides, and the row names the obstacle on the world body.
    checker.remove_all_added_collision_shapes("box")
    g = checker.add_collision_shape_to_body("box", "world", Sphere(0.03), RigidTransform(p_WH))
    assert not checker.check_config_collision_free(q)
    table = checker.calc_robot_clearance(q, 0.05)
    rows = [k for k, ids in enumerate(table.geometry_ids()) if g in ids]
    assert rows and all(table.other_indices()[k] == 0 for k in rows)
    assert min(table.distances()[k] for k in rows) < 0.0
    assert checker.geometry_name(g).startswith("added::box::")
    assert [d.geometry_id for d in checker.get_all_added_collision_shapes()["box"]] == [g]
    # Removed: the answers are the ones before, to the bit.
    checker.remove_all_added_collision_shapes("box")
    assert checker.get_all_added_collision_shapes() == {}
    assert checker.check_config_collision_free(q)
    assert np.array_equal(checker.check_configs_collision_free(qs), before)
    assert not any(g in ids for ids in checker.calc_robot_clearance(q, 1.0).geometry_ids())
    with pytest.raises(KeyError):
        checker.geometry_name(g)


def test_a_held_object_moves_with_its_body_keeps_its_filters_and_padding(arm):
    name, checker = arm
    hand = checker.body_index(HAND[name])
    q1 = free_configuration(checker)
    # A sphere held 5 cm out from the hand's frame origin, and an obstacle
    # sphere on the world placed 0.3 m from where the held one is at q1.
    X_HG = RigidTransform([0.0, 0.0, 0.05])
    held = checker.add_collision_shape_to_body("held", hand, Sphere(0.02), X_HG)
    p_WG1 = (link_pose(checker, q1, hand) @ X_HG.get_as_matrix4())[:3, 3]
    p_WO = p_WG1 + [0.3, 0.0, 0.0]
    obstacle = checker.add_collision_shape_to_body("obstacle", "world", Sphere(0.05),
                                                   RigidTransform(p_WO))
    qs = robots.random_configurations(checker, 30, 8)
    for q in np.vstack([q1[None], qs]):
        table = checker.calc_robot_clearance(q, 2.0)
        p_WG = (link_pose(checker, q, hand) @ X_HG.get_as_matrix4())[:3, 3]
        found = [k for k, ids in enumerate(table.geometry_ids()) if set(ids) == {held, obstacle}]
        assert len(found) == 1
        k = found[0]
        # Sphere-sphere: exact, so the row is the held sphere where its body took it.
        assert table.distances()[k] == pytest.approx(np.linalg.norm(p_WG - p_WO) - 0.07,
                                                     abs=1e-12)
        assert table.robot_indices()[k] == hand and table.other_indices()[k] == 0
        # The held sphere keeps the hand's filters: no row with a body filtered against it.
        for k, ids in enumerate(table.geometry_ids()):
            if held in ids:
                a, b = table.robot_indices()[k], table.other_indices()[k]
                assert hand in (a, b) and not checker.is_collision_filtered_between(a, b)
    # Padding of (hand, world) applies to the held object's rows.
    d0 = checker.calc_robot_clearance(q1, 1.0)
    checker.set_padding_between(hand, "world", 0.1)
    d1 = checker.calc_robot_clearance(q1, 1.0)
    row = {ids: d for ids, d in zip(d0.geometry_ids(), d0.distances())}
    row1 = {ids: d for ids, d in zip(d1.geometry_ids(), d1.distances())}
    key = tuple(sorted((held, obstacle), key=lambda g: g.get_value()))
    assert row1[key] == pytest.approx(row[key] - 0.1, abs=1e-12)
    # And so does a filter set later between the hand and the world.
    checker.set_collision_filtered_between(hand, "world", True)
    assert key not in checker.calc_robot_clearance(q1, 1.0).geometry_ids()
    checker.set_collision_filtered_between(hand, "world", False)
    assert key in checker.calc_robot_clearance(q1, 1.0).geometry_ids()
    # Detached: the held sphere is gone, the obstacle stays.
    checker.remove_all_added_collision_shapes("held")
    assert list(checker.get_all_added_collision_shapes()) == ["obstacle"]
    ids = checker.calc_robot_clearance(q1, 1.0).geometry_ids()
    assert not any(held in pair for pair in ids) and any(obstacle in pair for pair in ids)


def test_a_links_reach_follows_what_it_holds(arm):
    # The bound the edge checks use (each link's reach from its frame origin)
    # grows with a shape the link holds far out, and is the checker's own
    # again once the shape is gone, however often the world was rebuilt.
    name, checker = arm
    link = checker.body_index(HAND[name]) - 1
    before = checker._world.link_radius.copy()
    reach = Sphere(0.1).bounding_radius()  # of the box about it: sqrt(3) * 0.1
    for z in (1.0, 0.5, 0.2):  # moved as MoveIt moves it: removed and added again
        checker.remove_all_added_collision_shapes("held")
        checker.add_collision_shape_to_body("held", HAND[name], Sphere(0.1),
                                            RigidTransform([0.0, 0.0, z]))
        assert checker._world.link_radius[link] == pytest.approx(max(before[link], z + reach))
    expected = before.copy()
    expected[link] = max(before[link], 0.2 + reach)
    np.testing.assert_allclose(checker._world.link_radius, expected, rtol=0, atol=1e-12)
    checker.remove_all_added_collision_shapes("held")
    np.testing.assert_array_equal(checker._world.link_radius, before)
    assert set(checker._reach_of) <= set(checker._body_of)  # removed shapes forgotten
    np.testing.assert_array_equal(make(name)._world.link_radius, before)


def test_a_held_box_between_the_fingers_touches_neither_hand_nor_fingers():
    checker = make("panda", environment=False)
    q = free_configuration(checker)
    # Across the whole gap between the fingers, overlapping both and the hand.
    checker.add_collision_shape_to_body("part", "panda_hand", Box(0.03, 0.2, 0.12),
                                        RigidTransform([0.0, 0.0, 0.08]))
    assert checker.check_config_collision_free(q)
    # The same box held by a link that the hand's and fingers' filters do
    # not cover overlaps them, and collides.
    other = next(b for b in checker.body_names[1:] if checker.is_part_of_robot(b) and not any(
        checker.is_collision_filtered_between(b, f)
        for f in ("panda_hand", "panda_leftfinger", "panda_rightfinger")))
    X_WB = link_pose(checker, q, other)
    X_WH = link_pose(checker, q, "panda_hand")
    X_BG = np.linalg.inv(X_WB) @ X_WH @ RigidTransform([0.0, 0.0, 0.08]).get_as_matrix4()
    checker.add_collision_shape_to_body("wrong", other, Box(0.03, 0.2, 0.12),
                                        RigidTransform(X_BG))
    assert not checker.check_config_collision_free(q)


def test_drake_agrees_on_a_held_box_and_an_added_obstacle(tmp_path):
    pytest.importorskip("pydrake")
    import drake_checker
    from pydrake.geometry import Box as DrakeBox
    from pydrake.geometry import Sphere as DrakeSphere
    from pydrake.math import RigidTransform as DrakeTransform

    urdf = robots.obj_urdf("panda", tmp_path)
    ours = CollisionChecker.from_urdf(urdf, srdf=robots.ARMS["panda"][1],
                                      environment=robots.environment_scene())
    drake = drake_checker.DrakeArm("panda", urdf, ours)
    hand = drake.plant.GetBodyByName("panda_hand")
    X = [0.0, 0.0, 0.1]
    ours.add_collision_shape_to_body("held", "panda_hand", Box(0.04, 0.2, 0.2), RigidTransform(X))
    drake.checker.AddCollisionShapeToBody("held", hand, DrakeBox(0.04, 0.2, 0.2),
                                          DrakeTransform(X))
    ours.add_collision_shape_to_body("wall", "world", Sphere(0.15),
                                     RigidTransform([0.3, 0.3, 0.6]))
    drake.checker.AddCollisionShapeToBody("wall", drake.plant.world_body(), DrakeSphere(0.15),
                                          DrakeTransform([0.3, 0.3, 0.6]))
    qs = robots.random_configurations(ours, 80, 41)
    verdicts = ours.check_configs_collision_free(qs)
    compared = 0
    for q, verdict in zip(qs, verdicts):
        near = ours.calc_robot_clearance(q, 1e-4)
        if near.size() and np.min(np.abs(near.distances())) < 1e-4:
            continue
        assert verdict == drake.checker.CheckConfigCollisionFree(drake.q(q))
        compared += 1
    assert compared >= 70 and 0 < verdicts.sum() < len(qs)
    ours.remove_all_added_collision_shapes()
    drake.checker.RemoveAllAddedCollisionShapes()
    for q in qs[:20]:
        assert ours.check_config_collision_free(q) == \
            drake.checker.CheckConfigCollisionFree(drake.q(q))


def test_bad_additions_leave_the_checker_as_it_was(arm, tmp_path):
    name, checker = arm
    checker.add_collision_shape_to_body("keep", "world", Sphere(0.1),
                                        RigidTransform([0.4, 0.0, 0.4]))
    qs = robots.random_configurations(checker, 40, 9)
    before = checker.check_configs_collision_free(qs)
    shapes = checker.get_all_added_collision_shapes()
    model_size = checker._sg.collision_model().size
    empty = tmp_path / "empty.obj"
    empty.write_text("# nothing\n")
    nan = tmp_path / "nan.obj"
    nan.write_text("v 0 0 0\nv 1 0 0\nv 0 nan 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    bad = [
        (KeyError, "no body named 'nope'", lambda: checker.add_collision_shape_to_body(
            "g", "nope", Sphere(0.1))),
        (IndexError, "body index", lambda: checker.add_collision_shape_to_body(
            "g", 999, Sphere(0.1))),
        (TypeError, "shape must be a Shape", lambda: checker.add_collision_shape_to_body(
            "g", "world", "sphere")),
        (TypeError, "X_BG must be a RigidTransform", lambda: checker.add_collision_shape_to_body(
            "g", "world", Sphere(0.1), np.eye(4))),
        (ValueError, "group_name", lambda: checker.add_collision_shape_to_body(
            "", "world", Sphere(0.1))),
        (ValueError, "radius must be positive", lambda: Sphere(-0.1)),
        (ValueError, "must be positive and finite", lambda: Box(0.1, float("nan"), 0.1)),
        (ValueError, "holds no triangles", lambda: checker.add_collision_shape_to_body(
            "g", "world", Mesh(str(empty)))),
        (ValueError, "NaN or infinite", lambda: checker.add_collision_shape_to_body(
            "g", "world", Mesh(str(nan)))),
        (ValueError, "cannot be held", lambda: checker.add_collision_shape_to_body(
            "g", HAND[name], HalfSpace())),
        (ValueError, "shape \\(N, 3\\)", lambda: checker.add_point_cloud(
            "c", np.zeros((5, 2)), 0.01)),
        (ValueError, "array of numbers", lambda: checker.add_point_cloud(
            "c", [["a", "b", "c"]], 0.01)),
        (ValueError, "radius must be finite", lambda: checker.add_point_cloud(
            "c", np.zeros((5, 3)), -0.01)),
        (ValueError, "radius must be finite", lambda: checker.add_point_cloud(
            "c", np.zeros((5, 3)), float("nan"))),
        (ValueError, "q must have shape", lambda: checker.add_point_cloud(
            "c", np.zeros((5, 3)), 0.01, q=[0.0])),
    ]
    for error, message, call in bad:
        with pytest.raises(error, match=message):
            call()
        assert checker.get_all_added_collision_shapes() == shapes
        assert checker.get_all_added_point_clouds() == {}
        assert checker._sg.collision_model().size == model_size
    assert np.array_equal(checker.check_configs_collision_free(qs), before)
    # A Convex of the same broken file fails the same way.
    with pytest.raises(ValueError):
        checker.add_collision_shape_to_body("g", HAND[name], Convex(str(empty)))
    assert checker.get_all_added_collision_shapes() == shapes


def test_a_description_adds_the_same_shape_again(arm):
    name, checker = arm
    checker.add_collision_shape_to_frame("a", HAND[name], Sphere(0.02),
                                         RigidTransform([0.0, 0.0, 0.04]))
    (description,) = checker.get_all_added_collision_shapes()["a"]
    assert isinstance(description, BodyShapeDescription)
    assert description.body_name == HAND[name]
    g = checker.add_collision_shape("b", description)
    (copy,) = checker.get_all_added_collision_shapes()["b"]
    assert copy.geometry_id == g != description.geometry_id
    assert np.array_equal(copy.pose_in_body.get_as_matrix4(),
                          description.pose_in_body.get_as_matrix4())
    checker.remove_all_added_collision_shapes()
    assert checker.get_all_added_collision_shapes() == {}
    checker.remove_all_added_collision_shapes("never added")


def _read_while_writing(read, threads: int, write) -> list:
    """What ``read()`` returned, called over and over on ``threads`` threads while ``write()`` ran.

    Fails the test if a reader raised.
    """
    stop = threading.Event()
    seen, errors = [], []

    def reader():
        try:
            while not stop.is_set():
                seen.append(read())
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    workers = [threading.Thread(target=reader) for _ in range(threads)]
    for worker in workers:
        worker.start()
    try:
        write()
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert not errors, errors
    return seen


def test_queries_on_other_threads_see_the_old_world_or_the_new_one():
    checker = make("ur5")
    qs = robots.random_configurations(checker, 40, 13)
    old = checker.check_configs_collision_free(qs)
    wall = (Box(0.1, 2.0, 2.0), RigidTransform([0.35, 0.0, 0.5]))
    checker.add_collision_shape_to_body("wall", "world", *wall)
    new = checker.check_configs_collision_free(qs)
    rows_new = checker.calc_robot_clearance(qs[0], 0.3).size()
    checker.remove_all_added_collision_shapes()
    rows_old = checker.calc_robot_clearance(qs[0], 0.3).size()
    assert not np.array_equal(old, new) and rows_old != rows_new

    def read():
        verdicts = checker.check_configs_collision_free(qs)
        rows = checker.calc_robot_clearance(qs[0], 0.3).size()
        return np.array_equal(verdicts, old), np.array_equal(verdicts, new), rows

    def write():
        for _ in range(15):
            checker.add_collision_shape_to_body("wall", "world", *wall)
            # A cloud far from the arm: the verdicts stay those of the wall.
            checker.add_point_cloud(
                "cloud", np.random.default_rng(1).random((2000, 3)) * 0.1 + 5.0, 0.01)
            checker.remove_all_added_collision_shapes()

    seen = _read_while_writing(read, 3, write)
    assert seen and all((is_old or is_new) and rows in (rows_old, rows_new)
                        for is_old, is_new, rows in seen)
    # The readers ran through changes: they saw both worlds.
    assert any(is_old for is_old, _, _ in seen) and any(is_new for _, is_new, _ in seen)


def test_a_batched_move_answers_as_the_calls_one_by_one_and_is_one_change():
    # batched_changes: an obstacle removed and added again at a new pose is one
    # new world: queries on other threads never see the world without it.
    checker, reference = make("ur5"), make("ur5")
    qs = robots.random_configurations(checker, 40, 13)
    box = Box(0.1, 2.0, 2.0)
    X_A, X_B = RigidTransform([0.35, 0.0, 0.5]), RigidTransform([-0.35, 0.0, 0.5])
    empty = checker.check_configs_collision_free(qs)
    for c in (checker, reference):
        c.add_collision_shape_to_body("wall", "world", box, X_A)
    at_a = checker.check_configs_collision_free(qs)
    reference.remove_all_added_collision_shapes("wall")
    reference.add_collision_shape_to_body("wall", "world", box, X_B)
    at_b = reference.check_configs_collision_free(qs)
    assert not np.array_equal(at_a, at_b) and not np.array_equal(at_a, empty)
    assert not np.array_equal(at_b, empty)

    def read():
        verdicts = checker.check_configs_collision_free(qs)
        return np.array_equal(verdicts, at_a), np.array_equal(verdicts, at_b)

    def write():
        for k in range(20):
            with checker.batched_changes():
                checker.remove_all_added_collision_shapes("wall")
                if k % 2 == 0:
                    # The world of the queries is still the one before the block.
                    assert np.array_equal(checker.check_configs_collision_free(qs), at_a)
                checker.add_collision_shape_to_body("wall", "world", box,
                                                    X_B if k % 2 == 0 else X_A)

    seen = _read_while_writing(read, 2, write)
    assert seen and all(is_a or is_b for is_a, is_b in seen)
    # Nested blocks and a block that raises swap in the world of the tables.
    with pytest.raises(RuntimeError):
        with checker.batched_changes():
            with checker.batched_changes():
                checker.remove_all_added_collision_shapes("wall")
            assert np.array_equal(checker.check_configs_collision_free(qs), at_a)
            raise RuntimeError("a failure half way")
    assert checker.get_all_added_collision_shapes() == {}
    assert np.array_equal(checker.check_configs_collision_free(qs), empty)
    with checker.batched_changes():
        checker.add_collision_shape_to_body("wall", "world", box, X_B)
    assert np.array_equal(checker.check_configs_collision_free(qs), at_b)
    table, expected = checker.calc_robot_clearance(qs[0], 0.3), reference.calc_robot_clearance(
        qs[0], 0.3)
    assert np.array_equal(table.distances(), expected.distances())


# ------------------------------------------------------------------ point clouds

def workspace_points(count, seed):
    """Points around both arms' workspaces (a slab above the floor and a column)."""
    rng = np.random.default_rng(seed)
    slab = rng.uniform([-0.7, -0.7, 0.05], [0.7, 0.7, 0.35], (count // 2, 3))
    column = rng.uniform([0.25, -0.15, 0.0], [0.45, 0.15, 1.0], (count - count // 2, 3))
    return np.vstack([slab, column])


def add_as_spheres(checker, points, radius):
    """The cloud's reference: each point a sphere of ``radius`` in the world, group "spheres"."""
    for p_WP in points:
        checker.add_collision_shape_to_body("spheres", "world", Sphere(radius),
                                            RigidTransform(p_WP))


@pytest.mark.parametrize("name, padding", [("panda", 0.0), ("ur5", 0.01)])
def test_a_cloud_answers_as_its_points_added_as_spheres(name, padding):
    radius = 0.015
    cloud = make(name, environment=False, environment_padding=padding)
    spheres = make(name, environment=False, environment_padding=padding)
    report = cloud.add_point_cloud("camera", workspace_points(400, 2), radius)
    kept, r, same = cloud.get_all_added_point_clouds()["camera"]
    assert r == radius and same == report and report.kept == len(kept) > 300
    add_as_spheres(spheres, kept, radius)
    qs = robots.random_configurations(cloud, 1000, 17)
    verdicts = cloud.check_configs_collision_free(qs)
    assert np.array_equal(verdicts, spheres.check_configs_collision_free(qs))
    assert 100 < verdicts.sum() < 900
    for q in qs[:5]:
        assert cloud.check_edge_collision_free(q, qs[-1]) == \
            spheres.check_edge_collision_free(q, qs[-1])
    cloud_id = next(iter(cloud._world.clouds)).geometry_id
    sphere_ids = {d.geometry_id for d in spheres.get_all_added_collision_shapes()["spheres"]}
    # The robot's geometries, matched across the two checkers by load order.
    sphere_order = {g: k for k, g in enumerate(spheres._body_of)}
    cloud_order = {g: k for k, g in enumerate(cloud._body_of)}
    influence = 0.05
    compared = 0
    for table, reference in zip(cloud.calc_robot_clearances(qs, influence),
                                spheres.calc_robot_clearances(qs, influence)):
        # Per robot geometry: the cloud's row is the nearest sphere's row.
        nearest = {}
        for k, ids in enumerate(reference.geometry_ids()):
            if not set(ids) & sphere_ids:
                continue  # a self-collision row
            (robot_g,) = set(ids) - sphere_ids
            robot_g = sphere_order[robot_g]
            if nearest.get(robot_g, (np.inf,))[0] > reference.distances()[k]:
                nearest[robot_g] = (reference.distances()[k], k)
        rows = {}
        for k, ids in enumerate(table.geometry_ids()):
            if cloud_id not in ids:
                continue
            assert table.other_indices()[k] == 0
            rows[cloud_order[ids[0] if ids[1] == cloud_id else ids[1]]] = k
        assert rows.keys() == nearest.keys()
        compared += len(rows)
        for g, k in rows.items():
            d, j = nearest[g]
            assert table.distances()[k] == pytest.approx(d, abs=1e-12)
            assert table.robot_indices()[k] == reference.robot_indices()[j]
            others = sorted(reference.distances()[i]
                            for i, ids in enumerate(reference.geometry_ids())
                            if set(ids) & sphere_ids
                            and g in [sphere_order[h] for h in set(ids) - sphere_ids])
            if len(others) == 1 or others[1] - others[0] > 1e-9:
                # A unique nearest sphere: the same Jacobian row.
                assert np.allclose(table.jacobians()[k], reference.jacobians()[j], atol=1e-12)
    assert compared > 500


def test_the_cloud_row_jacobian_matches_central_differences():
    checker = make("ur5", environment=False)
    checker.add_point_cloud("camera", workspace_points(300, 4), 0.01)
    qs = robots.random_configurations(checker, 20, 23)
    checked = 0
    for q in qs:
        table = checker.calc_robot_clearance(q, 0.1)
        if not table.size():
            continue
        ids = table.geometry_ids()
        smooth, fd = robots.smooth_rows(checker, q, ids)
        for k in np.flatnonzero(smooth):
            assert np.allclose(table.jacobians()[k], fd[k], atol=2e-6)
            checked += 1
    assert checked >= 5


def test_self_filter_and_non_finite_points_are_counted():
    checker = make("panda", environment=False, environment_padding=0.005)
    q = checker.default_positions
    rng = np.random.default_rng(6)
    points = rng.uniform([-0.3, -0.3, 0.0], [0.3, 0.3, 1.1], (3000, 3))
    bad = np.array([[np.nan, 0, 0], [0, np.inf, 0], [0, 0, -np.inf]])
    radius = 0.01
    report = checker.add_point_cloud("camera", np.vstack([points[:1000], bad, points[1000:]]),
                                     radius)
    assert report.non_finite == 3
    assert report.kept + report.self_filtered == len(points)
    # The reference: each point against every robot geometry through the scene
    # graph's own distance-to-point query, at q.
    sg = checker._sg
    X_PF, _ = checker._chain.frame_poses(q[None])
    sg.set_poses_array(checker._source, checker._frame_ids, X_PF[0])
    query = sg.query_object()
    robot = {g for g, body in checker._body_of.items() if checker.is_part_of_robot(body)}
    covered = np.array([any(row.id_G in robot and row.distance <= radius + 0.005
                            for row in query.compute_signed_distance_to_point(p, 0.05))
                        for p in points])
    assert report.self_filtered == covered.sum() > 20
    kept, _, _ = checker.get_all_added_point_clouds()["camera"]
    assert np.array_equal(kept, points[~covered])
    assert checker.check_config_collision_free(q)
    # Replacing the cloud replaces the report; removing it frees the checker.
    again = checker.add_point_cloud("camera", points[:10] + 5.0, radius)
    assert again.kept == 10 and again.self_filtered == 0 and again.non_finite == 0
    checker.remove_all_added_collision_shapes("camera")
    assert checker.get_all_added_point_clouds() == {}
    checker.add_point_cloud("empty", np.zeros((0, 3)), radius)
    assert checker.check_config_collision_free(q)


# A far outlier widens the grid's box past what the dense count of cells
# covers: the occupied cells are counted in a table instead. The answers must
# be the same.
FAR = np.array([[400.0, 0.0, 0.0]])


def cloud_rows_minimum(tables, ids):
    """Per configuration, the least distance of the rows naming one of ``ids``."""
    return [min((d for d, pair in zip(t.distances(), t.geometry_ids()) if set(pair) & ids),
                default=np.inf) for t in tables]


def test_a_cloud_with_a_far_outlier_answers_as_its_points_added_as_spheres():
    radius = 0.015
    cloud = make("panda", environment=False)
    spheres = make("panda", environment=False)
    points = workspace_points(400, 2)
    cloud.add_point_cloud("camera", np.vstack([points[:200], FAR, points[200:]]), radius)
    assert not cloud._clouds["camera"].native.dense
    kept, _, _ = cloud.get_all_added_point_clouds()["camera"]
    assert any(np.array_equal(p, FAR[0]) for p in kept)
    add_as_spheres(spheres, kept, radius)
    qs = robots.random_configurations(cloud, 500, 19)
    verdicts = cloud.check_configs_collision_free(qs)
    assert np.array_equal(verdicts, spheres.check_configs_collision_free(qs))
    assert 50 < verdicts.sum() < 450
    cloud_ids = {next(iter(cloud._world.clouds)).geometry_id}
    sphere_ids = {d.geometry_id for d in spheres.get_all_added_collision_shapes()["spheres"]}
    near = cloud_rows_minimum(cloud.calc_robot_clearances(qs[:100], 0.05), cloud_ids)
    reference = cloud_rows_minimum(spheres.calc_robot_clearances(qs[:100], 0.05), sphere_ids)
    assert np.isfinite(near).sum() > 50
    assert np.allclose(near, reference, rtol=0.0, atol=1e-12)


def test_the_self_filter_is_the_same_with_a_far_outlier():
    rng = np.random.default_rng(6)
    points = rng.uniform([-0.3, -0.3, 0.0], [0.3, 0.3, 1.1], (3000, 3))
    plain = make("panda", environment=False, environment_padding=0.005)
    far = make("panda", environment=False, environment_padding=0.005)
    a = plain.add_point_cloud("camera", points, 0.01)
    b = far.add_point_cloud("camera", np.vstack([points, FAR]), 0.01)
    assert plain._clouds["camera"].native.dense and not far._clouds["camera"].native.dense
    assert b.self_filtered == a.self_filtered > 20 and b.kept == a.kept + 1
    kept_a = plain.get_all_added_point_clouds()["camera"][0]
    kept_b = far.get_all_added_point_clouds()["camera"][0]
    assert np.array_equal(kept_b, np.vstack([kept_a, FAR]))
    qs = robots.random_configurations(plain, 300, 29)
    assert np.array_equal(plain.check_configs_collision_free(qs),
                          far.check_configs_collision_free(qs))
    ids_a = {next(iter(plain._world.clouds)).geometry_id}
    ids_b = {next(iter(far._world.clouds)).geometry_id}
    assert cloud_rows_minimum(plain.calc_robot_clearances(qs[:50], 0.05), ids_a) == \
        cloud_rows_minimum(far.calc_robot_clearances(qs[:50], 0.05), ids_b)


def test_clouds_replaced_again_and_again_answer_as_a_fresh_checker():
    # Large enough that a replaced cloud's buffers are kept for the next one.
    rng = np.random.default_rng(8)
    checker = make("ur5", environment=False)
    qs = robots.random_configurations(checker, 200, 31)
    for count in (40_000, 25_000, 60_000, 30_000):
        points = rng.uniform([-0.8, -0.8, 0.0], [0.8, 0.8, 0.6], (count, 3))
        points[rng.choice(count, count // 50, replace=False), rng.integers(0, 3)] = np.nan
        report = checker.add_point_cloud("camera", points, 0.004)
        fresh = make("ur5", environment=False)
        assert fresh.add_point_cloud("camera", points, 0.004) == report
        assert report.non_finite == count // 50 and report.self_filtered > 0
        kept = checker.get_all_added_point_clouds()["camera"][0]
        assert np.array_equal(kept, fresh.get_all_added_point_clouds()["camera"][0])
        assert np.array_equal(checker.check_configs_collision_free(qs),
                              fresh.check_configs_collision_free(qs))
    ids = {next(iter(checker._world.clouds)).geometry_id}
    ids_fresh = {next(iter(fresh._world.clouds)).geometry_id}
    assert cloud_rows_minimum(checker.calc_robot_clearances(qs[:30], 0.05), ids) == \
        cloud_rows_minimum(fresh.calc_robot_clearances(qs[:30], 0.05), ids_fresh)


# The yes/no query drops blocks and cells of points whole (their bounds against
# the geometry's boxes and a hull's face planes) before any point meets the
# point kernel. These place points where such a shortcut would go wrong.

def cloud_and_spheres(name, points, radius, padding=0.0):
    """A checker with ``points`` as a cloud, and one with its kept points as spheres."""
    cloud = make(name, environment=False, environment_padding=padding)
    spheres = make(name, environment=False, environment_padding=padding)
    cloud.add_point_cloud("camera", points, radius)
    kept, _, _ = cloud.get_all_added_point_clouds()["camera"]
    add_as_spheres(spheres, kept, radius)
    return cloud, spheres


def test_points_on_cell_and_block_borders_answer_as_spheres():
    radius = 0.015
    base = workspace_points(400, 2)
    grid = native.Cloud(base, radius)
    h, (lo, hi) = grid.cell, np.array(grid.bounds)
    # Keep the extreme points (the same box and count, so the same cells);
    # move the others onto the borders of blocks (4 cells) and of cells.
    extreme = np.unique(np.concatenate([base.argmin(axis=0), base.argmax(axis=0)]))
    movable = np.setdiff1d(np.arange(len(base)), extreme)
    rng = np.random.default_rng(5)
    steps = np.floor((hi - lo) / h).astype(int)
    points = base.copy()
    for k, row in enumerate(movable):
        cell = rng.integers(0, steps + 1)
        if k % 2 == 0:
            cell = cell // 4 * 4   # a block's corner
        on = lo + cell * h
        # One, two or three coordinates exactly on a border, the others inside.
        axes = rng.random(3) < 0.6
        points[row] = np.where(axes, np.minimum(on, hi), base[row])
    again = native.Cloud(points, radius)
    assert again.cell == h and again.bounds == grid.bounds and again.block_directory
    cloud, spheres = cloud_and_spheres("panda", points, radius)
    qs = robots.random_configurations(cloud, 1000, 37)
    verdicts = cloud.check_configs_collision_free(qs)
    assert np.array_equal(verdicts, spheres.check_configs_collision_free(qs))
    assert 50 < verdicts.sum() < 950


def test_a_cloud_of_far_corners_without_a_block_directory_answers_as_spheres():
    radius = 0.015
    far = np.array([[4000.0, 0.0, 0.0], [0.0, 4000.0, 0.0], [0.0, 0.0, 4000.0]])
    points = np.vstack([workspace_points(300, 3), far])
    grid = native.Cloud(points, radius)
    assert not grid.block_directory and not grid.dense
    cloud, spheres = cloud_and_spheres("ur5", points, radius, padding=0.01)
    qs = robots.random_configurations(cloud, 500, 41)
    verdicts = cloud.check_configs_collision_free(qs)
    assert np.array_equal(verdicts, spheres.check_configs_collision_free(qs))
    assert 50 < verdicts.sum() < 450


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_a_cloud_of_one_point_and_of_one_cell_answer_as_spheres(name):
    radius = 0.02
    rng = np.random.default_rng(43)
    qs = None
    for points in (np.array([[0.4, 0.1, 0.4]]),
                   np.array([0.35, -0.05, 0.45]) + rng.uniform(0.0, 0.01, (30, 3))):
        cloud, spheres = cloud_and_spheres(name, points, radius)
        if qs is None:
            qs = robots.random_configurations(cloud, 1000, 47)
        verdicts = cloud.check_configs_collision_free(qs)
        assert np.array_equal(verdicts, spheres.check_configs_collision_free(qs))
        assert 0 < (~verdicts).sum() < 1000


@pytest.mark.parametrize("padding", [0.0, 0.004])
def test_points_a_micrometre_beyond_reach_are_free_and_within_collide(padding):
    # Without padding the compiled loop asks the clouds yes or no; with it,
    # the nearest point within reach answers. Points over the middle of hull
    # faces, along their normals: there a face plane's height is the distance,
    # so a plane or cell bound a hair too eager would drop the point within.
    # And points off the extreme vertex of each geometry along an axis of G
    # and of W: there the gap to the geometry's box in G, or to its world box
    # (tight for a box), is the distance.
    radius, eps = 0.01, 1e-6
    checker = make("panda", environment=False, environment_padding=padding)
    reach = radius + padding
    q = free_configuration(checker)
    sg = checker._sg
    X_PF, _ = checker._chain.frame_poses(q[None])
    sg.set_poses_array(checker._source, checker._frame_ids, X_PF[0])
    query = sg.query_object()
    robot = {g for g, body in checker._body_of.items() if checker.is_part_of_robot(body)}

    def nearest(p):
        rows = [row for row in query.compute_signed_distance_to_point(p, 0.5)
                if row.id_G in robot]
        return min(rows, key=lambda row: row.distance)

    model = checker._world.model
    rng = np.random.default_rng(53)
    beyond, within = [], []
    for g in checker._world.robot_geometries:
        shape = model.shapes[g]
        X_WG = query.get_pose_in_world(model.geometry_ids[g]).get_as_matrix4()
        R_WG, p_WGo = X_WG[:3, :3], X_WG[:3, 3]
        starts = []   # (a point of the geometry in G, a direction in G it is nearest along)
        if isinstance(shape, Convex):
            vertices, faces = shape.hull()
            for face in rng.choice(len(faces), 10, replace=False):
                a, b, c = vertices[faces[face]]
                normal = np.cross(b - a, c - a)
                starts.append(((a + b + c) / 3, normal / np.linalg.norm(normal)))
        else:
            vertices = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1)
                                 for z in (-1, 1)]) * shape.size() / 2
        for d in np.vstack([np.eye(3), -np.eye(3), R_WG.T, -R_WG.T]):
            starts.append((vertices[np.argmax(vertices @ d)], d))
        for start, d in starts:
            for target, out in ((reach + eps, beyond), (reach - eps, within)):
                p = R_WG @ (start + target * d) + p_WGo
                if abs(nearest(p).distance - target) < 1e-9:
                    out.append(p)
    assert len(beyond) > 100 and len(within) > 100
    report = checker.add_point_cloud("camera", np.array(beyond), radius)
    assert report.kept > 20
    assert checker.check_config_collision_free(q)
    assert checker.check_configs_collision_free(np.array([q] * 3), parallelize=2).all()
    checked = 0
    for k, p in enumerate(within):
        # Alone, the point's cell is the point: a bound of the cell is the
        # bound of the point. Among the others, found amid them.
        for points in (p[None], np.vstack([beyond, p]))[:1 + (k < 5)]:
            checker.add_point_cloud("camera", points, radius)
            kept = checker.get_all_added_point_clouds()["camera"][0]
            if not any(np.array_equal(row, p) for row in kept):
                break  # the self filter took it (within reach at the default positions)
            assert not checker.check_config_collision_free(q)
            checked += 1
    assert checked > 60


def test_cloud_verdicts_are_the_same_on_native_threads():
    rng = np.random.default_rng(59)
    # A table top in front of the arm, a box on it and a wall behind it.
    points = np.vstack([rng.uniform([0.25, -0.6, 0.0], [0.9, 0.6, 0.004], (20_000, 3)),
                        rng.uniform([0.45, -0.1, 0.0], [0.6, 0.05, 0.25], (5_000, 3)),
                        rng.uniform([-0.6, -0.8, 0.0], [-0.58, 0.8, 1.2], (10_000, 3))])
    checker = make("panda", environment=False)
    checker.add_point_cloud("camera", points, 0.005)
    checker.add_point_cloud("second", points[:50] + [0.0, 0.0, 0.3], 0.02)
    qs = robots.random_configurations(checker, 2000, 61)
    serial = checker.check_configs_collision_free(qs)
    assert np.array_equal(checker.check_configs_collision_free(qs, parallelize=2), serial)
    assert np.array_equal(checker.check_configs_collision_free(qs, parallelize=3), serial)
    assert 100 < serial.sum() < 1900
    # The same verdicts one configuration at a time.
    assert [checker.check_config_collision_free(q) for q in qs[:200]] == serial[:200].tolist()


def test_batch_contacts_with_clouds_agree_posed_in_the_loop_or_given_poses():
    from geometry_core.proximity.batch_query import BatchQuery

    checker = make("panda", environment=False)
    checker.add_point_cloud("camera", workspace_points(400, 2), 0.015)
    world = checker._world
    qs = robots.random_configurations(checker, 300, 67)
    chain = checker._chain_batch(qs, world)
    given = BatchQuery(world.model, np.array(chain.X_WF), world.slot_of)
    spec = checker._cloud_spec(world)
    in_loop = chain.has_contacts(clouds=spec)
    assert np.array_equal(in_loop, given.has_contacts(clouds=spec))
    assert np.array_equal(~in_loop, checker.check_configs_collision_free(qs))
    # The clouds add contacts to the pairs' own.
    assert (in_loop & ~given.has_contacts()).sum() > 20
