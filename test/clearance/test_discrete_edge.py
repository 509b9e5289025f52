"""The discrete edge check answers exactly what checking every configuration answers.

``check_edge_collision_free`` (discrete) decides an edge's configurations
pair by pair in one compiled call (``csrc/motion.c``,
``geometry_core/clearance/discrete_edge.py``): a pair measured clear of its
padding at one configuration is skipped at the others its motion bound
cannot close the gap at. The reference shares none of that: the batch check
``check_configs_collision_free`` on the same configurations, all free. Both
arms, edges long and short (a planner's), coarse and fine steps, among the
obstacles of the clearance tests, with padding, a point cloud and a held
object, on one thread and on two; and an obstacle placed so that exactly one
configuration in the middle of an edge touches it.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import Box, RigidTransform, Sphere  # noqa: E402
from geometry_core.clearance.discrete_edge import edge_configurations  # noqa: E402

HAND = robots.HAND
make = robots.arm_checker


def every_configuration_free(checker, q1, q2) -> bool:
    """The reference: the batch check of the edge's configurations, all free."""
    dq = q2 - q1
    steps = max(1, math.ceil(float(np.linalg.norm(dq)) / checker.edge_step_size))
    return bool(checker.check_configs_collision_free(edge_configurations(q1, q2, steps)).all())


def edges(checker, count, seed):
    """(q1, q2) pairs: random pairs of free configurations, then planners' extensions.

    An extension goes at most 0.5 rad from a free configuration; its end may
    collide.
    """
    rng = np.random.default_rng(seed)
    qs = robots.random_configurations(checker, 40 * count, seed)
    free = qs[checker.check_configs_collision_free(qs)][:2 * count + 1]
    assert len(free) == 2 * count + 1
    out = list(zip(free[:count], free[1:count + 1]))
    q1 = free[count + 1:2 * count + 1]
    direction = rng.normal(size=q1.shape)
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    q2 = np.clip(q1 + direction * rng.uniform(0.0, 0.5, (len(q1), 1)), checker._chain.lower,
                 checker._chain.upper)
    return out + list(zip(q1, q2))


def workspace_points(count, seed):
    """Points where both arms reach: a slab above the table and a column beside it."""
    rng = np.random.default_rng(seed)
    slab = rng.uniform([-0.7, -0.7, 0.05], [0.7, 0.7, 0.35], (count // 2, 3))
    column = rng.uniform([0.25, -0.15, 0.0], [0.45, 0.15, 1.0], (count - count // 2, 3))
    return np.vstack([slab, column])


def dressed(name, setup):
    """A checker among the obstacles, with what ``setup`` adds."""
    padding = {"environment_padding": 0.02, "self_padding": 0.005}
    checker = make(name, **(padding if setup in ("padding", "everything") else {}))
    if setup in ("cloud", "everything"):
        checker.add_point_cloud("camera", workspace_points(60, 5), 0.01)
    if setup in ("held", "everything"):
        checker.add_collision_shape_to_body("held", HAND[name], Box(0.04, 0.04, 0.25),
                                            RigidTransform([0.0, 0.0, 0.12]))
    return checker


@pytest.mark.parametrize("name", ["panda", "ur5"])
@pytest.mark.parametrize("setup", ["plain", "padding", "cloud", "held", "everything"])
def test_edges_equal_checking_every_configuration(name, setup):
    checker = dressed(name, setup)
    pairs = edges(checker, 60, 11)
    verdicts = []
    for step in (0.3, 0.05):
        checker.edge_step_size = step
        for q1, q2 in pairs:
            expected = every_configuration_free(checker, q1, q2)
            assert checker.check_edge_collision_free(q1, q2) is expected, (step, q1, q2)
            verdicts.append(expected)
    # The compiled edge check ran (no fallback to the batch path).
    assert checker._motion_of is not None and checker._motion_of[2] is not None
    assert 0.1 < np.mean(verdicts) < 0.9


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_edges_on_two_threads_answer_as_on_one(name):
    checker = dressed(name, "held")
    checker.edge_step_size = 0.02
    answers = [(checker.check_edge_collision_free(q1, q2),
                checker.check_edge_collision_free(q1, q2, parallelize=2),
                checker.check_edge_collision_free(q1, q2, parallelize=7))
               for q1, q2 in edges(checker, 25, 13)]
    assert all(a == b == c for a, b, c in answers)
    assert 0 < sum(a for a, _, _ in answers) < len(answers)


def touching_radii(checker, qs, centre):
    """Per configuration, the radius from which a sphere at ``centre`` is in contact.

    A tiny probe's padded clearance rows: the padded distance to a sphere
    of radius r there is the row's distance plus the probe's radius, less r.
    """
    tiny = 1e-4
    probe = checker.add_collision_shape_to_body("probe", "world", Sphere(tiny),
                                                RigidTransform(centre))
    tables = checker.calc_robot_clearances(qs, 1.0)
    checker.remove_all_added_collision_shapes("probe")
    return np.array([min(d for d, ids in zip(table.distances(), table.geometry_ids())
                         if probe in ids) + tiny for table in tables])


@pytest.mark.parametrize("name", ["panda", "ur5"])
@pytest.mark.parametrize("padding", [0.0, 0.01])
def test_an_obstacle_that_one_middle_configuration_touches_is_found(name, padding):
    """A sphere that one configuration alone touches collides; a hair smaller, none does.

    The sphere stands beside the hand's path, sized so that only the
    configuration nearest it touches it (by the batch check). A bound that
    skipped one configuration too many would miss it.
    """
    checker = make(name, environment=False, environment_padding=padding)
    q1 = robots.random_configurations(checker, 50, 23)
    q1 = q1[checker.check_configs_collision_free(q1)][0]
    direction = np.random.default_rng(29).normal(size=q1.shape)
    q2 = np.clip(q1 + 0.4 * direction / np.linalg.norm(direction), checker._chain.lower,
                 checker._chain.upper)
    checker.edge_step_size = 0.02
    steps = math.ceil(float(np.linalg.norm(q2 - q1)) / checker.edge_step_size)
    qs = edge_configurations(q1, q2, steps)
    assert checker.check_configs_collision_free(qs).all()
    centre, radii = beside_the_hand(checker, qs, steps // 2, name, (0.12,))
    nearest, second = np.argsort(radii)[:2]
    assert nearest not in (0, 1)     # an interior configuration
    assert radii[second] - radii[nearest] > 1e-5
    touch_one_configuration(checker, q1, q2, qs, centre, radii)


@pytest.mark.parametrize("name", ["panda", "ur5"])
@pytest.mark.parametrize("at", [31, 32, 47, 66])
def test_a_long_edge_finds_the_one_configuration_touching_wherever_it_is(name, at):
    """The same on a long edge of 81 configurations, checked in stretches of 16.

    Each stretch's last configuration is checked first, then each
    stretch's others in order: the touching configuration is put at (or
    next to) a stretch's end (31), the next one's start (32), one's inside
    (47) and the last one (66), on the first free edge of 1.6 rad where a
    sphere beside the hand there touches one configuration alone.
    """
    checker = make(name, environment=False)
    checker.edge_step_size = 0.02
    starts = robots.random_configurations(checker, 1500, 31)
    starts = starts[checker.check_configs_collision_free(starts)]
    rng = np.random.default_rng(37)
    for q1 in starts:
        direction = rng.normal(size=q1.shape)
        q2 = q1 + 1.6 * direction / np.linalg.norm(direction)
        if not np.all((checker._chain.lower <= q2) & (q2 <= checker._chain.upper)):
            continue
        qs = edge_configurations(q1, q2, 80)
        if not checker.check_configs_collision_free(qs).all():
            continue
        centre, radii = beside_the_hand(checker, qs, at, name, (0.12, 0.14, 0.10, 0.16, 0.08))
        nearest, second = np.argsort(radii)[:2]
        if radii[nearest] > 0.0 and radii[second] - radii[nearest] > 1e-5 \
                and abs(nearest - (1 + at)) <= 1:
            break
    else:
        pytest.fail("no edge among the samples to place the sphere on")
    assert math.ceil(float(np.linalg.norm(q2 - q1)) / checker.edge_step_size) == 80
    touch_one_configuration(checker, q1, q2, qs, centre, radii)


def beside_the_hand(checker, qs, at, name, offsets):
    """A centre beside the hand at configuration ``at`` of the edge ``qs``, off its motion.

    The first of ``offsets`` (m) at which two configurations do not come
    within 10 µm of touching a sphere there alike; and every
    configuration's touching radius (:func:`touching_radii`).
    """
    _, X_WL = checker._chain.frame_poses(qs)
    hand = checker.body_index(HAND[name]) - 1
    middle = 1 + at                  # rows 0 and 1 are q2 and q1
    path = X_WL[:, hand, :3, 3]
    motion = path[middle + 1] - path[middle - 1]
    aside = np.cross(motion, [0.0, 0.0, 1.0])
    for offset in offsets:
        centre = path[middle] + offset * aside / np.linalg.norm(aside)
        radii = touching_radii(checker, qs, centre)
        nearest, second = np.sort(radii)[:2]
        if second - nearest > 1e-5:
            break
    return centre, radii


def touch_one_configuration(checker, q1, q2, qs, centre, radii):
    """A sphere at ``centre`` touching the nearest configuration alone, then a hair smaller.

    The batch check finds exactly that configuration in contact, then none;
    the edge check must answer the same, on one thread and on two.
    """
    nearest, second = np.argsort(radii)[:2]
    for radius, touched in ((0.5 * (radii[nearest] + radii[second]), 1),
                            (radii[nearest] - 1e-5, 0)):
        checker.add_collision_shape_to_body("obstacle", "world", Sphere(radius),
                                            RigidTransform(centre))
        free = checker.check_configs_collision_free(qs)
        assert np.flatnonzero(~free).tolist() == ([int(nearest)] if touched else [])
        assert checker.check_edge_collision_free(q1, q2) is (not touched)
        assert checker.check_edge_collision_free(q1, q2, parallelize=2) is (not touched)
        checker.remove_all_added_collision_shapes("obstacle")


@pytest.mark.parametrize("name", ["panda", "ur5"])
@pytest.mark.parametrize("spheres", [1, 2, 5, 16])
def test_edges_among_many_small_spheres(name, spheres):
    # The sphere pass bounds two pairs at a time and one alone when their
    # count is odd: obstacles added one to sixteen make the count of pairs
    # a configuration leaves undecided both odd and even, with many pairs
    # that the spheres prove and many they do not.
    checker = make(name)
    rng = np.random.default_rng(spheres)
    for k, (centre, radius) in enumerate(zip(workspace_points(spheres, spheres),
                                             rng.uniform(0.01, 0.06, spheres))):
        checker.add_collision_shape_to_body(f"ball{k}", "world", Sphere(float(radius)),
                                            RigidTransform(centre))
    verdicts = []
    for step in (0.4, 0.04):
        checker.edge_step_size = step
        for q1, q2 in edges(checker, 25, 17 + spheres):
            expected = every_configuration_free(checker, q1, q2)
            assert checker.check_edge_collision_free(q1, q2) is expected, (step, q1, q2)
            verdicts.append(expected)
    assert checker._motion_of is not None and checker._motion_of[2] is not None
    assert 0 < np.mean(verdicts) < 1
