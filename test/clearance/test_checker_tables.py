"""The collision checker's filter and padding tables against dense tables made from scratch.

The checker keeps its per-pair tables as a rule plus the pairs set
explicitly; here each robot's tables are also built the plain way, a
(B, B) array per table from the robot's joints and its scene graph's
filters, and every entry, the padding bounds the queries use, and both
after edits, must agree.
"""

import copy
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.scene_files import load_urdf  # noqa: E402

WELDED = """<robot name="welded">
  <link name="world"><collision><geometry><box size="2 2 0.1"/></geometry></collision></link>
  <link name="base"><collision><geometry><box size="0.3 0.3 0.1"/></geometry></collision></link>
  <link name="plate"><collision><geometry><sphere radius="0.1"/></geometry></collision>
    <collision><origin xyz="0 0 0.1"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <link name="arm1"><collision><geometry><box size="0.1 0.1 0.5"/></geometry></collision></link>
  <link name="arm1b"><collision><geometry><box size="0.1 0.1 0.2"/></geometry></collision></link>
  <link name="empty"/>
  <link name="arm2"><collision><geometry><cylinder radius="0.05" length="0.4"/></geometry>
  </collision></link>
  <link name="tool"><collision><geometry><sphere radius="0.04"/></geometry></collision></link>
  <joint name="w" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="p" type="fixed"><parent link="base"/><child link="plate"/></joint>
  <joint name="j1" type="revolute"><parent link="plate"/><child link="arm1"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="f1" type="fixed"><parent link="arm1"/><child link="arm1b"/>
    <origin xyz="0 0 0.5"/></joint>
  <joint name="e" type="fixed"><parent link="arm1b"/><child link="empty"/></joint>
  <joint name="j2" type="continuous"><parent link="arm1b"/><child link="arm2"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/></joint>
  <joint name="j3" type="prismatic"><parent link="arm2"/><child link="tool"/>
    <origin xyz="0 0 0.4"/><limit lower="0" upper="0.1" effort="1" velocity="1"/></joint>
</robot>
"""


def dense_tables(scene, checker, self_padding, environment_padding):
    """(filtered, padding) as (B, B) arrays, from the robot's joints and scene filters."""
    names = checker.body_names
    index = {name: k for k, name in enumerate(names)}
    B = len(names)
    joints = {j.child: j for j in scene.kinematics.joints()}
    links = [n for n in names if n in scene.frames]

    def anchored(link):  # every joint up to a root is fixed
        while link in joints:
            if joints[link].type != "fixed":
                return False
            link = joints[link].parent
        return True

    def weld_root(link):  # the top of its group of links welded by fixed joints
        while link in joints and joints[link].type == "fixed" and joints[link].parent in index:
            link = joints[link].parent
        return link

    robot = np.array([name in scene.frames for name in names])
    still = np.array([not robot[k] or anchored(names[k]) for k in range(B)])
    filtered = np.eye(B, dtype=bool) | np.outer(still, still)
    for a in links:
        for b in links:
            if weld_root(a) == weld_root(b):
                filtered[index[a], index[b]] = True
    for child, joint in joints.items():
        if joint.parent in index and child in index:
            filtered[index[child], index[joint.parent]] = True
            filtered[index[joint.parent], index[child]] = True
    # Two links all of whose geometry pairs the robot's scene graph filters.
    inspector = scene.scene_graph.model_inspector()
    proximity = set(inspector.get_all_geometry_ids(checker_role()))
    of = {link: [g for g in inspector.get_geometries(scene.frames[link]) if g in proximity]
          for link in links}
    for a in links:
        for b in links:
            if a != b and of[a] and of[b] and all(
                    inspector.collision_filtered(g, h) for g in of[a] for h in of[b]):
                filtered[index[a], index[b]] = True
    padding = np.zeros((B, B))
    padding[np.outer(robot, robot)] = self_padding
    padding[np.outer(robot, ~robot) | np.outer(~robot, robot)] = environment_padding
    np.fill_diagonal(padding, 0.0)
    return filtered, padding


def checker_role():
    from geometry_core import Role

    return Role.PROXIMITY


def bounds(filtered, padding):
    live = padding[~filtered]
    return (float(live.min()), float(live.max())) if live.size else (0.0, 0.0)


def build(name, tmp_path):
    if name == "welded":
        path = tmp_path / "welded.urdf"
        path.write_text(WELDED)
        return load_urdf(path, visuals=False), {}
    urdf, srdf, _ = robots.ARMS[name]
    scene = load_urdf(urdf, package_roots=robots.PACKAGE_ROOTS, visuals=False,
                      srdf=srdf if name == "panda" else None)
    return scene, {"environment": robots.environment_scene()}


@pytest.mark.parametrize("name", ["panda", "ur5", "welded"])
def test_tables_agree_with_dense_tables_before_and_after_edits(name, tmp_path):
    scene, extra = build(name, tmp_path)
    checker = CollisionChecker(copy.deepcopy(scene), self_padding=0.01,
                               environment_padding=0.02, **extra)
    filtered, padding = dense_tables(scene, checker, 0.01, 0.02)
    assert np.array_equal(np.asarray(checker._filtered), filtered)
    assert np.array_equal(np.asarray(checker._padding), padding)
    assert checker._padding_bounds() == bounds(filtered, padding)
    B = len(checker.body_names)
    robot = [k for k in range(B) if checker.is_part_of_robot(k)]
    rng = np.random.default_rng(7)
    for step in range(60):
        a = int(rng.choice(robot))
        b = int(rng.integers(B))
        if a == b:
            continue
        if step % 3 == 0:
            value = float(rng.choice([-0.01, 0.0, 0.01, 0.02, 0.05]))
            checker.set_padding_between(a, b, value)
            padding[a, b] = padding[b, a] = value
        else:
            flag = bool(rng.integers(2))
            try:
                checker.set_collision_filtered_between(a, b, flag)
            except ValueError:  # two bodies welded to the world stay filtered
                assert filtered[a, b] and not flag
                continue
            filtered[a, b] = filtered[b, a] = flag
        assert checker.is_collision_filtered_between(a, b) == filtered[a, b]
        assert checker.get_padding_between(a, b) == padding[a, b]
        assert checker._padding_bounds() == bounds(filtered, padding)
    assert np.array_equal(np.asarray(checker._filtered), filtered)
    assert np.array_equal(np.asarray(checker._padding), padding)
    # Index arrays, as the queries read them.
    a, b = rng.integers(B, size=500), rng.integers(B, size=500)
    assert np.array_equal(checker._filtered[a, b], filtered[a, b])
    assert np.array_equal(checker._padding[a, 0], padding[a, 0])
    assert np.array_equal(checker._filtered[3], filtered[3])


def test_the_tables_of_a_long_chain_hold_a_pair_per_joint(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.many_links import chain_urdf

    path = tmp_path / "chain.urdf"
    path.write_text(chain_urdf(3000))
    checker = CollisionChecker.from_urdf(path)
    assert len(checker._filtered.pairs) == 2999 and not checker._padding.pairs
    assert checker.is_collision_filtered_between("l10", "l11")
    assert not checker.is_collision_filtered_between("l10", "l12")
    assert checker._padding_bounds() == (0.0, 0.0)


def test_four_times_the_links_take_less_than_twice_the_checker_memory(tmp_path):
    """Peak traced memory of from_urdf at 1 000 and 4 000 links (dense tables: 3.4 times)."""
    import tracemalloc

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.many_links import chain_urdf

    peak = {}
    for n in (1000, 4000):
        path = tmp_path / f"chain{n}.urdf"
        path.write_text(chain_urdf(n))
        CollisionChecker.from_urdf(path)  # imports and caches out of the count
        tracemalloc.start()
        try:
            CollisionChecker.from_urdf(path)
            peak[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak[4000] < 2 * peak[1000], peak
