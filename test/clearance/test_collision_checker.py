"""CollisionChecker on the Panda and UR5 as shipped (STL collision meshes, COLLADA visuals)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
    Sphere,
)
from geometry_core.clearance import CollisionChecker, RobotCollisionType  # noqa: E402


@pytest.fixture(scope="module", params=["panda", "ur5"])
def arm(request):
    urdf, srdf, base = robots.ARMS[request.param]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    return request.param, checker


def test_loads_the_arms_as_shipped_with_their_joint_names():
    panda = CollisionChecker.from_urdf(robots.ARMS["panda"][0],
                                       package_roots=robots.PACKAGE_ROOTS)
    assert panda.position_names[:7] == [f"panda_joint{k}" for k in range(1, 8)]
    # panda_finger_joint2 mimics joint1: it takes no position of its own.
    assert panda.position_names[7:] == ["panda_finger_joint1"] and panda.num_positions == 8
    ur5 = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], package_roots=robots.PACKAGE_ROOTS)
    assert ur5.num_positions == 6 and ur5.position_names[0] == "shoulder_pan_joint"
    assert ur5.body_name(0) == "world"
    assert {"base_link", "ee_link", "tool0"} <= set(ur5.body_names)


def test_body_names_and_indices(arm):
    _, checker = arm
    for k, name in enumerate(checker.body_names):
        assert checker.body_name(k) == name and checker.body_index(name) == k
    with pytest.raises(IndexError, match="body index must be an integer"):
        checker.body_name(len(checker.body_names))
    with pytest.raises(KeyError, match="no body named 'nope'"):
        checker.body_index("nope")


def test_filters_adjacent_welded_anchored_and_srdf_pairs(arm):
    name, checker = arm
    urdf, srdf, base = robots.ARMS[name]
    chain = checker._chain
    for k, link in enumerate(chain.links):
        if chain.parent[k] >= 0:
            assert checker.is_collision_filtered_between(link, chain.links[chain.parent[k]])
    # The base is welded to the world: never checked against the environment.
    assert checker.is_collision_filtered_between(base, "world")
    for a, b in robots.srdf_pairs(srdf):
        assert checker.is_collision_filtered_between(a, b)
    last = chain.links[-1]
    assert not checker.is_collision_filtered_between(last, "world")


def test_set_collision_filtered_between_changes_the_answers():
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0],
                                         package_roots=robots.PACKAGE_ROOTS)
    q = np.array([0.0, -1.0, 2.6, 0.0, 0.0, 0.0])
    table = checker.calc_robot_clearance(q, 0.5)
    pairs = {(checker.body_name(a), checker.body_name(b))
             for a, b in zip(table.robot_indices(), table.other_indices())}
    a, b = sorted(pairs)[0]
    checker.set_collision_filtered_between(a, b, True)
    assert checker.is_collision_filtered_between(b, a)
    after = checker.calc_robot_clearance(q, 0.5)
    assert (a, b) not in {(checker.body_name(i), checker.body_name(j))
                          for i, j in zip(after.robot_indices(), after.other_indices())}
    checker.set_collision_filtered_between(a, b, False)
    assert checker.calc_robot_clearance(q, 0.5).size() == table.size()
    with pytest.raises(ValueError, match="both welded to the world"):
        checker.set_collision_filtered_between("base_link", "world", False)
    with pytest.raises(ValueError, match="two different bodies"):
        checker.set_collision_filtered_between(a, a, True)


def test_padding_is_per_pair_and_separate_for_self_and_environment():
    def checker_with(**padding):
        return CollisionChecker.from_urdf(robots.ARMS["panda"][0],
                                          environment=robots.environment_scene(),
                                          package_roots=robots.PACKAGE_ROOTS, **padding)

    padded = checker_with(self_padding=0.01, environment_padding=0.02)
    plain = checker_with()
    assert padded.get_padding_between("panda_link3", "panda_link7") == 0.01
    assert padded.get_padding_between("panda_link7", "world") == 0.02
    q = robots.random_configurations(padded, 1, 3)[0]

    def rows(checker, influence):
        table = checker.calc_robot_clearance(q, influence)
        return [(checker.body_name(r), checker.body_name(o), kind, d) for r, o, kind, d in
                zip(table.robot_indices(), table.other_indices(), table.collision_types(),
                    table.distances())]

    bare = rows(plain, 0.35)
    with_padding = rows(padded, 0.3)
    assert with_padding
    for r, o, kind, d in with_padding:
        padding = 0.01 if kind == RobotCollisionType.SELF_COLLISION else 0.02
        assert any((r, o) == (r2, o2) and abs(d + padding - d2) < 1e-12
                   for r2, o2, _, d2 in bare)
    # One pair's padding changes that pair only.
    padded.set_padding_between("panda_link7", "world", 0.05)
    assert padded.get_padding_between("world", "panda_link7") == 0.05
    changed = rows(padded, 0.3)
    for before, after in zip(with_padding, [row for row in changed]):
        if before[:2] == ("panda_link7", "world"):
            assert after[3] == pytest.approx(before[3] - 0.03, abs=1e-12)
    with pytest.raises(ValueError, match="padding must be a finite number"):
        padded.set_padding_between("panda_link7", "world", math.inf)
    with pytest.raises(ValueError, match="two different bodies"):
        padded.set_padding_between("world", "world", 0.1)
    with pytest.raises(ValueError, match="self_padding must be a finite number"):
        checker_with(self_padding=math.nan)


_SPHERE_ARM = """<?xml version="1.0"?>
<robot name="sphere_arm">
  <link name="base"/>
  <link name="arm">
    <collision><origin xyz="0.5 0 0"/><geometry><sphere radius="0.25"/></geometry></collision>
  </link>
  <joint name="swing" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""


@pytest.mark.parametrize("padding", [0.0, 0.125])
def test_touching_is_a_collision_with_or_without_padding(tmp_path, padding):
    # Drake calls a configuration in collision when a distance is at or below
    # the pair's padding: with no padding a touching pair (distance exactly
    # 0: spheres of radius 0.25 with centres 0.5 apart, all exact in binary)
    # is a collision too, on the fast path as on the padded one.
    urdf = tmp_path / "sphere_arm.urdf"
    urdf.write_text(_SPHERE_ARM)
    sg = SceneGraph()
    source = sg.register_source("obstacles")
    ball = GeometryInstance(RigidTransform([1.0, 0.0, 0.0]), Sphere(0.25 - padding), "ball")
    ball.set_proximity_properties(ProximityProperties())
    sg.register_anchored_geometry(source, ball)
    checker = CollisionChecker.from_urdf(urdf, environment=sg, environment_padding=padding)
    touching, apart = np.zeros(1), np.array([0.5])
    (distance,) = checker.calc_robot_clearance(touching, 0.1).distances()
    assert distance == 0.0
    assert not checker.check_config_collision_free(touching)
    assert not checker.calc_robot_clearance(touching, 0.0).is_collision_free()
    assert checker.calc_robot_clearance(apart, 0.0).is_collision_free()
    assert checker.check_config_collision_free(apart)
    assert checker.check_configs_collision_free(np.stack([touching, apart])).tolist() == [
        False, True]
    types = checker.classify_body_collisions(touching)
    assert types[checker.body_index("arm")] == RobotCollisionType.ENVIRONMENT_COLLISION


def test_pairs_of_environment_bodies_take_no_padding_or_filter():
    sg = robots.environment_scene()
    source = sg.register_source("posts")
    frame = sg.register_frame(source, GeometryFrame("post"))
    post = GeometryInstance(RigidTransform(), Sphere(0.02), "post")
    post.set_proximity_properties(ProximityProperties())
    sg.register_geometry(source, frame, post)
    sg.set_poses(source, {frame: RigidTransform([1.0, 1.0, 0.0])})
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], environment=sg,
                                         package_roots=robots.PACKAGE_ROOTS)
    assert "post" in checker.body_names and not checker.is_part_of_robot("post")
    assert checker.is_collision_filtered_between("post", "world")
    with pytest.raises(ValueError, match="neither 'world' nor 'post' is a robot body"):
        checker.set_padding_between("world", "post", 0.1)
    with pytest.raises(ValueError, match="neither 'post' nor 'world' is a robot body"):
        checker.set_collision_filtered_between("post", "world", False)


@pytest.mark.parametrize("q, match", [
    (np.zeros(3), r"q must have shape \(6,\)"),
    ([0.0, math.nan, 0, 0, 0, 0], r"q\[1\] \(shoulder_lift_joint\) must be finite"),
    ([0.0, 0, 0, 0, 0, 7.0], r"q\[5\] = 7 is outside the limits of joint 'wrist_3_joint'"),
    ("abc", "q must be an array of numbers"),
])
def test_bad_q_is_refused_with_the_joint_named(q, match):
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0],
                                         package_roots=robots.PACKAGE_ROOTS)
    with pytest.raises(ValueError, match=match):
        checker.check_config_collision_free(q)
    with pytest.raises(ValueError, match=match.replace("q", "q1", 1) if "shape" in match
                       else "q1"):
        checker.check_edge_collision_free(q, np.zeros(6))


def test_bad_batch_and_influence_are_refused(arm):
    _, checker = arm
    n = checker.num_positions
    with pytest.raises(ValueError, match=rf"qs must have shape \(K, {n}\)"):
        checker.check_configs_collision_free(np.zeros(n))
    with pytest.raises(ValueError, match="influence_distance must be non-negative"):
        checker.calc_robot_clearance(np.clip(np.zeros(n), checker._chain.lower,
                                             checker._chain.upper), -1.0)


def test_rows_verdicts_and_classification_agree(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 40, 7)
    free = checker.check_configs_collision_free(qs)
    assert 0 < free.sum() < len(qs)      # the sample has both verdicts
    tables = checker.calc_robot_clearances(qs, 0.05)
    for q, verdict, table in zip(qs, free, tables):
        assert checker.check_config_collision_free(q) == verdict
        assert verdict == (table.size() == 0 or table.distances().min() > 0.0)
        assert table.is_collision_free() == verdict
        single = checker.calc_robot_clearance(q, 0.05)
        np.testing.assert_allclose(single.distances(), table.distances(), atol=1e-12)
        types = checker.classify_body_collisions(q)
        assert len(types) == len(checker.body_names)
        colliding = {RobotCollisionType.NO_COLLISION} != set(types)
        assert colliding == (not verdict)
        for r, o, kind, d in zip(table.robot_indices(), table.other_indices(),
                                 table.collision_types(), table.distances()):
            assert checker.is_part_of_robot(r)
            assert (kind == RobotCollisionType.SELF_COLLISION) == checker.is_part_of_robot(o)
            assert not checker.is_collision_filtered_between(r, o)
            if d <= 0.0:
                flag = 2 if kind == RobotCollisionType.SELF_COLLISION else 1
                assert types[r] & flag


def test_queries_from_several_threads_match_one_thread(arm):
    # Queries only read the checker (the compiled pair loop runs without the
    # GIL, with its warm starts on the stack): threads sharing one checker
    # must get exactly the serial answers.
    from concurrent.futures import ThreadPoolExecutor

    _, checker = arm
    qs = robots.random_configurations(checker, 24, 11)
    serial_free = checker.check_configs_collision_free(qs)
    serial = [checker.calc_robot_clearance(q, 0.05) for q in qs]

    def work(k):
        q = qs[k]
        table = checker.calc_robot_clearance(q, 0.05)
        return (checker.check_config_collision_free(q), table.distances().copy(),
                table.jacobians().copy(), checker.check_edge_collision_free(q, qs[(k + 1) % 24]))

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(work, [k % 24 for k in range(96)]))
    for k, (free, distances, jacobians, _) in enumerate(results):
        assert free == serial_free[k % 24]
        np.testing.assert_array_equal(distances, serial[k % 24].distances())
        np.testing.assert_array_equal(jacobians, serial[k % 24].jacobians())
    for k in range(24):
        edges = {results[k + 24 * r][3] for r in range(4)}
        assert len(edges) == 1


def test_anchored_links_have_no_environment_rows():
    # An obstacle overlapping the UR5 base link: filtered, as in Drake.
    sg = SceneGraph()
    source = sg.register_source("obstacles")
    instance = GeometryInstance(RigidTransform([0.0, 0.0, 0.05]), Box(0.3, 0.3, 0.02), "slab")
    instance.set_proximity_properties(ProximityProperties())
    sg.register_anchored_geometry(source, instance)
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], environment=sg,
                                         package_roots=robots.PACKAGE_ROOTS)
    table = checker.calc_robot_clearance(np.array([0.0, -1.5, 0.0, -1.5, 0.0, 0.0]), 0.2)
    env_rows = {checker.body_name(r) for r, kind in zip(table.robot_indices(),
                                                        table.collision_types())
                if kind == RobotCollisionType.ENVIRONMENT_COLLISION}
    assert env_rows and "base_link" not in env_rows
    assert checker.is_collision_filtered_between("base_link", "world")


def test_environment_from_a_yaml_scene(tmp_path):
    scene = tmp_path / "obstacles.yaml"
    scene.write_text(
        "sources:\n  obstacles:\n    frames:\n      - name: table\n"
        "        pose: {xyz: [0.5, 0.0, 0.2]}\n    geometries:\n      - name: ball\n"
        "        frame: table\n        shape: {type: sphere, radius: 0.1}\n"
        "        roles: [proximity]\n")
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], environment=scene,
                                         package_roots=robots.PACKAGE_ROOTS)
    assert "table" in checker.body_names
    q = np.array([0.0, -0.6, 0.9, 0.0, 0.0, 0.0])
    table = checker.calc_robot_clearance(q, 1.0)
    others = {checker.body_name(o) for o in table.other_indices()}
    assert "table" in others


def test_discrete_edge_check_matches_its_samples(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 12, 11)
    for q1, q2 in zip(qs[::2], qs[1::2]):
        steps = max(1, math.ceil(np.linalg.norm(q2 - q1) / checker.edge_step_size))
        samples = q1 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (q2 - q1)
        expected = bool(np.all(checker.check_configs_collision_free(samples)))
        assert checker.check_edge_collision_free(q1, q2) == expected


def test_sphere_rows_match_trimesh_distances_to_the_hulls():
    # A ball near the UR5: each environment row is the distance from the
    # ball's centre to the link's convex hull, less the radius. trimesh's
    # closest point on the hull's surface (no code shared with ours) is the
    # reference; inside the hull it measures to the surface, so only
    # separated rows are compared.
    import trimesh

    sg = SceneGraph()
    source = sg.register_source("obstacles")
    p_WS = np.array([0.45, 0.1, 0.35])
    ball = GeometryInstance(RigidTransform(p_WS), Sphere(0.05), "ball")
    ball.set_proximity_properties(ProximityProperties())
    sg.register_anchored_geometry(source, ball)
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], environment=sg,
                                         package_roots=robots.PACKAGE_ROOTS)
    inspector = checker._sg.model_inspector()
    checked = 0
    for q in robots.random_configurations(checker, 6, 5):
        table = checker.calc_robot_clearance(q, math.inf)
        _, X_WL = checker._chain.frame_poses(q[None])
        for r, kind, d, ids in zip(table.robot_indices(), table.collision_types(),
                                   table.distances(), table.geometry_ids()):
            if kind != RobotCollisionType.ENVIRONMENT_COLLISION or d <= 0.0:
                continue
            robot_id = next(g for g in ids if checker._body_of[g] == r)
            shape = inspector.get_shape(robot_id)
            if not hasattr(shape, "vertices"):
                continue
            X_WG = X_WL[0, r - 1] @ checker._X_BG[robot_id]
            p_WV = shape.vertices() @ X_WG[:3, :3].T + X_WG[:3, 3]
            hull = trimesh.convex.convex_hull(p_WV)
            _, distance, _ = trimesh.proximity.closest_point(hull, [p_WS])
            assert d == pytest.approx(distance[0] - 0.05, abs=1e-9)
            checked += 1
    assert checked >= 10


def test_environment_from_a_urdf_keeps_its_link_names():
    tiny = Path(__file__).resolve().parents[1] / "data" / "tiny_arm.urdf"
    roots = {**robots.PACKAGE_ROOTS, "tiny_arm": str(tiny.parent)}
    checker = CollisionChecker.from_urdf(robots.ARMS["ur5"][0], environment=tiny,
                                         package_roots=roots)
    # The UR5 has a link named "base" too: the obstacle's is renamed.
    assert {"environment::base", "link1", "link3"} <= set(checker.body_names)
    assert checker.is_part_of_robot("base")
    for name in ("environment::base", "link1", "link3"):
        assert not checker.is_part_of_robot(name)
        assert checker.is_collision_filtered_between(name, "world")   # both anchored
    # The tiny arm stands at the UR5's base: its links are within reach.
    table = checker.calc_robot_clearance(np.array([0.0, -1.0, 1.0, 0.0, 0.0, 0.0]), 2.0)
    kinds = zip(table.other_indices(), table.collision_types())
    others = {checker.body_name(o) for o, kind in kinds
              if kind == RobotCollisionType.ENVIRONMENT_COLLISION}
    assert {"environment::base", "link1"} <= others


def test_single_and_batch_positions_are_checked_alike(tmp_path):
    """One configuration is validated by a plain-float path, a batch by numpy: same verdicts."""
    urdf = tmp_path / "wheel.urdf"
    urdf.write_text("""<robot name="wheel">
  <link name="base"/>
  <link name="spoke"><collision><geometry><box size="0.1 0.02 0.02"/></geometry></collision></link>
  <link name="arm"><collision><geometry><sphere radius="0.01"/></geometry></collision></link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="spoke"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="lift" type="revolute"><parent link="spoke"/><child link="arm"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>""")
    checker = CollisionChecker.from_urdf(urdf)
    for q in ([math.inf, 0.0], [-math.inf, 0.0], [0.0, math.nan], [math.nan, math.nan]):
        with pytest.raises(ValueError, match=r"q\[\d\] \(\w+\) must be finite"):
            checker.check_config_collision_free(q)
        with pytest.raises(ValueError, match=r"qs\[0\]\[\d\] \(\w+\) must be finite"):
            checker.check_configs_collision_free([q, [0.0, 0.0]])
    slack = checker._chain._highest[1] - 1.0
    assert slack >= 0.0
    for lift in (1.0, 1.0 + slack, -1.0 - slack, 1e6 * 2.0 ** -20):
        assert checker.check_config_collision_free([1e9, lift]) == \
            bool(checker.check_configs_collision_free([[1e9, lift], [0.0, 0.0]])[0])
    beyond = np.nextafter(1.0 + slack, 2.0)
    with pytest.raises(ValueError, match=r"q\[1\] = 1 is outside the limits of joint 'lift'"):
        checker.check_config_collision_free([0.0, beyond])
    with pytest.raises(ValueError, match=r"qs\[0\]\[1\] = 1 is outside"):
        checker.check_configs_collision_free([[0.0, beyond], [0.0, 0.0]])
