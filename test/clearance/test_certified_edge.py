"""Certified edge checks: a thin obstacle the discrete check steps over, and soundness.

The UR5 swings its pan joint through 1.2 rad with a discrete step of 0.4
rad: the wrist moves about 30 cm between samples. A 4 mm plate stands across
its path between two samples. The discrete check (Drake's) calls the edge
free; the certified check does not, and dense sampling proves the edge
collides.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    RollPitchYaw,
    SceneGraph,
)
from geometry_core.clearance import CollisionChecker  # noqa: E402

Q1 = np.array([-0.6, -0.4, 0.6, 0.0, 0.0, 0.0])
Q2 = np.array([0.6, -0.4, 0.6, 0.0, 0.0, 0.0])
STEP = 0.4


def plate_scene(angle: float) -> SceneGraph:
    """A 4 mm plate across the wrist's arc at pan angle ``angle``."""
    sg = SceneGraph()
    source = sg.register_source("obstacles")
    # At pan 0 the wrist centres sit about 0.77 m out along x, 0.08-0.18 m up.
    R_WP = RollPitchYaw(0.0, 0.0, angle).to_rotation_matrix()
    p_WP = R_WP.matrix() @ np.array([0.76, 0.0, 0.13])
    plate = GeometryInstance(RigidTransform(R_WP, p_WP), Box(0.12, 0.004, 0.12), "plate")
    plate.set_proximity_properties(ProximityProperties())
    sg.register_anchored_geometry(source, plate)
    return sg


def checker_with(scene) -> CollisionChecker:
    return CollisionChecker.from_urdf(robots.ARMS["ur5"][0], srdf=robots.ARMS["ur5"][1],
                                      environment=scene, package_roots=robots.PACKAGE_ROOTS,
                                      edge_step_size=STEP)


def dense_edge(q1, q2, count=2000):
    return q1 + np.linspace(0.0, 1.0, count)[:, None] * (q2 - q1)


def test_thin_plate_between_samples_is_missed_by_the_discrete_check_only():
    # Samples fall at pan -0.6, -0.2, 0.2, 0.6; the swept wrist spans about
    # -0.06 to +0.25 rad around each: the plate at 0.1 is in a gap.
    checker = checker_with(plate_scene(0.1))
    steps = math.ceil(np.linalg.norm(Q2 - Q1) / STEP)
    samples = Q1 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (Q2 - Q1)
    assert np.all(checker.check_configs_collision_free(samples))
    assert checker.check_edge_collision_free(Q1, Q2) is True
    assert not np.all(checker.check_configs_collision_free(dense_edge(Q1, Q2)))
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is False
    assert checker.check_edge_collision_free(Q2, Q1, certified=True) is False


def test_certified_check_proves_a_free_edge_free():
    checker = checker_with(plate_scene(1.5))    # the plate is behind the arm's swing
    assert checker.check_edge_collision_free(Q1, Q2, certified=True) is True
    assert checker.check_edge_collision_free(Q1, Q1, certified=True) is True


@pytest.mark.slow
@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_certified_never_calls_a_colliding_edge_free(name):
    urdf, srdf, _ = robots.ARMS[name]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, 30, 17)
    free = checker.check_configs_collision_free(qs)
    starts = qs[free]
    proven = refuted = 0
    for q1, q2 in zip(starts[:-1], starts[1:]):
        # Short edges, so that some are free and some are not.
        q2 = q1 + 0.3 * (q2 - q1)
        certified = checker.check_edge_collision_free(q1, q2, certified=True)
        dense = bool(np.all(checker.check_configs_collision_free(dense_edge(q1, q2, 400))))
        if certified:
            assert dense, "a certified-free edge has a colliding sample"
            proven += 1
        else:
            refuted += 1
    assert proven >= 3
