"""``parallelize=``: native threads in the compiled batch loop give the one-thread answers.

Every comparison is exact (``np.array_equal``), the distances included: each
configuration is posed and answered by one thread from its own scratch, so
the number of threads must not change a bit. The one-thread answers are in
turn compared with the scene graph's batch built from frame poses that the
Python kinematics composed (``SceneGraph.query_batch``), the path the
checker took before it posed configurations inside the compiled loop.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import (  # noqa: E402
    GeometryInstance,
    Mesh,
    ProximityProperties,
    RigidTransform,
)
from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.parallelism import available_cores, num_threads  # noqa: E402

MESHES = Path(__file__).resolve().parents[1] / "data" / "meshes"


@pytest.fixture(scope="module", params=["panda", "ur5"])
def arm(request):
    urdf, srdf, _ = robots.ARMS[request.param]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    return request.param, checker


def frame_pose_batch(checker, qs):
    """The batch from frame poses composed outside the compiled loop (the earlier path)."""
    X_PF, _ = checker._chain.frame_poses(qs)
    return checker._sg.query_batch(checker._source, checker._frame_ids, X_PF)


def test_num_threads_reads_drakes_parallelism_arguments():
    assert num_threads(False) == 1 and num_threads(1) == 1 and num_threads(3) == 3
    assert num_threads(True) == available_cores() >= 1
    assert num_threads(np.int64(2)) == 2
    for bad in (0, -2, 2.5, "2", None, [2]):
        with pytest.raises(ValueError, match="parallelize must be"):
            num_threads(bad)


@pytest.mark.drake
def test_accepts_a_drake_parallelism():
    common = pytest.importorskip("pydrake.common")
    assert num_threads(common.Parallelism(3)) == 3
    assert num_threads(common.Parallelism.Max()) == common.Parallelism.Max().num_threads()


@pytest.mark.parametrize("threads", [2, 3, 7, True])
def test_configs_answers_equal_one_thread(arm, threads):
    name, checker = arm
    qs = robots.random_configurations(checker, 3000, 11)
    serial = checker.check_configs_collision_free(qs)
    assert 0.2 < serial.mean() < 0.95      # both answers are well represented
    assert np.array_equal(checker.check_configs_collision_free(qs, parallelize=threads), serial)
    # The distances behind the verdicts, to the bit.
    batch = checker._chain_batch(qs)
    one = batch.compute_min_distance(0.3)
    assert np.array_equal(batch.compute_min_distance(0.3, parallelize=threads), one)
    contacts = batch.has_contacts(parallelize=threads)
    assert np.array_equal(contacts, ~serial)


def test_one_thread_equals_the_frame_pose_batch(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 1500, 5)
    posed_inside = checker._chain_batch(qs)
    posed_outside = frame_pose_batch(checker, qs)
    assert np.array_equal(posed_inside.X_WF, posed_outside.X_WF)
    assert np.array_equal(posed_inside.compute_min_distance(0.2),
                          posed_outside.compute_min_distance(0.2))
    assert np.array_equal(posed_inside.has_collisions(), posed_outside.has_collisions())
    assert np.array_equal(posed_inside.has_contacts(parallelize=2), posed_outside.has_contacts())


def test_edges_answers_equal_one_thread(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 81, 17)
    verdicts = []
    for q1, q2 in zip(qs[:-1], qs[1:]):
        serial = checker.check_edge_collision_free(q1, q2)
        verdicts.append(serial)
        for threads in (2, 5):
            assert checker.check_edge_collision_free(q1, q2, parallelize=threads) == serial
    assert 0 < sum(verdicts) < len(verdicts)


def test_first_contact_cut_is_the_serial_cut(arm):
    """A discrete edge stops at its first configuration in contact, whatever the threads."""
    _, checker = arm
    qs = robots.random_configurations(checker, 400, 23)
    batch = checker._chain_batch(qs)
    serial, python, _ = batch._min_distances(0.0, True, first_contact=True)
    first = int(np.flatnonzero(serial <= 0.0)[0])
    assert first < 100 and np.all(np.isnan(serial[first + 1:])) and python == []
    assert not np.isnan(serial[:first + 1]).any()
    for threads in (2, 4, 16):
        found, flagged, _ = batch._min_distances(0.0, True, first_contact=True,
                                                 parallelize=threads)
        assert np.array_equal(found, serial, equal_nan=True) and flagged == []
    assert batch.any_contact(parallelize=3)


def test_configurations_left_to_python_are_answered_there():
    """A mesh obstacle: the kernels leave its pairs to Python; the verdicts still agree."""
    env = robots.environment_scene()
    source = env.register_source("mesh")
    instance = GeometryInstance(RigidTransform([0.35, 0.35, 0.3]),
                                Mesh(str(MESHES / "knob.obj"), 2.0), "knob")
    instance.set_proximity_properties(ProximityProperties())
    env.register_anchored_geometry(source, instance)
    urdf, srdf, _ = robots.ARMS["ur5"]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=env,
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 300, 29)
    batch = checker._chain_batch(qs)
    _, python, _ = batch._min_distances(0.0, True)
    assert len(python) > 0
    serial = checker.check_configs_collision_free(qs)
    assert np.array_equal(serial, ~frame_pose_batch(checker, qs).has_contacts())
    assert np.array_equal(checker.check_configs_collision_free(qs, parallelize=2), serial)


def test_small_and_empty_batches(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 3, 1)
    assert np.array_equal(checker.check_configs_collision_free(qs, parallelize=8),
                          checker.check_configs_collision_free(qs))
    empty = checker.check_configs_collision_free(np.zeros((0, checker.num_positions)),
                                                 parallelize=2)
    assert empty.shape == (0,) and empty.dtype == bool
    with pytest.raises(ValueError, match="parallelize must be"):
        checker.check_configs_collision_free(qs, parallelize=0)
    with pytest.raises(ValueError, match="parallelize must be"):
        checker.check_edge_collision_free(qs[0], qs[1], parallelize=-1)


def test_clearance_tables_equal_one_thread_and_the_frame_pose_batch(arm):
    _, checker = arm
    qs = robots.random_configurations(checker, 200, 31)
    serial = checker.calc_robot_clearances(qs, 0.15)
    assert sum(t.size() for t in serial) > 200
    for threads in (2, 3):
        for mine, theirs in zip(checker.calc_robot_clearances(qs, 0.15, parallelize=threads),
                                serial):
            assert mine.geometry_ids() == theirs.geometry_ids()
            assert np.array_equal(mine.distances(), theirs.distances())
            assert np.array_equal(mine.jacobians(), theirs.jacobians())
            assert mine.robot_indices() == theirs.robot_indices()
            assert mine.collision_types() == theirs.collision_types()
    # The pairs behind the tables: to the bit as the frame-pose batch reports them.
    posed_inside = checker._chain_batch(qs).compute_signed_distance_pairwise_closest_points(
        0.15, parallelize=2)
    posed_outside = frame_pose_batch(checker, qs).compute_signed_distance_pairwise_closest_points(
        0.15)
    assert len(posed_inside) == len(posed_outside)
    for mine, theirs in zip(posed_inside, posed_outside):
        assert [(p.id_A, p.id_B) for p in mine] == [(p.id_A, p.id_B) for p in theirs]
        for field in ("distance", "p_ACa", "p_BCb", "nhat_BA_W", "is_nhat_BA_W_unique"):
            assert np.array_equal([getattr(p, field) for p in mine],
                                  [getattr(p, field) for p in theirs]), field


def test_padded_configs_answers_equal_one_thread(arm):
    _, checker = arm
    urdf, srdf, _ = robots.ARMS[arm[0]]
    padded = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                        package_roots=robots.PACKAGE_ROOTS,
                                        environment_padding=0.02)
    qs = robots.random_configurations(padded, 600, 37)
    serial = padded.check_configs_collision_free(qs)
    assert np.array_equal(padded.check_configs_collision_free(qs, parallelize=2), serial)
    # Padding only removes free configurations.
    plain = checker.check_configs_collision_free(qs)
    assert not np.any(serial & ~plain) and np.any(plain & ~serial)
