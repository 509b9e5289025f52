"""CollisionChecker against Drake's SceneGraphCollisionChecker on the UR5 and the Panda.

Same URDF (collision meshes converted to OBJ, which Drake reads), same SRDF
pairs, same obstacles (spheres and boxes), same configurations:

* collision-free verdicts equal ``CheckConfigCollisionFree``'s (away from
  contact, where Drake's hull distances are off by up to 5e-5 m);
* clearance rows equal ``CalcRobotClearance``'s: the same body pairs and
  types (away from the influence threshold);
* where Drake is exact (pairs of primitives: a sphere or box obstacle
  against a finger or flange box), distances to 1e-6 m and Jacobians to
  1e-5;
* elsewhere (a hull in the pair) distances to 1e-6 m of an independent
  converged reference (``test_convex_reference``), with Drake's error
  against the same reference shown beside ours, and Jacobians against
  central differences of the reference distance.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "proximity"))
import drake_checker  # noqa: E402
import robots  # noqa: E402
from test_convex_reference import reference_signed_distance  # noqa: E402

from geometry_core.clearance import CollisionChecker, RobotCollisionType  # noqa: E402
from geometry_core.shapes import Convex, Sphere  # noqa: E402

pytestmark = pytest.mark.drake
pytest.importorskip("pydrake")

INFLUENCE = 0.1
#: Rows this close to the influence distance may be in one table and not the
#: other: Drake's hull distances run up to 5e-5 m long.
THRESHOLD_BAND = 1e-3


@pytest.fixture(scope="module", params=["ur5", "panda"])
def arms(request, tmp_path_factory):
    name = request.param
    urdf = robots.obj_urdf(name, tmp_path_factory.mktemp(name))
    ours = CollisionChecker.from_urdf(urdf, srdf=robots.ARMS[name][1],
                                      environment=robots.environment_scene())
    return name, ours, drake_checker.DrakeArm(name, urdf, ours)


def test_the_arms_have_six_and_seven_arm_joints(arms):
    name, ours, drake = arms
    arm_joints = [n for n in ours.position_names if "finger" not in n]
    assert len(arm_joints) == {"ur5": 6, "panda": 7}[name]
    assert any(isinstance(ours._sg.model_inspector().get_shape(g), Convex)
               for g in ours._body_of)


def test_verdicts_match_check_config_collision_free(arms):
    _, ours, drake = arms
    qs = robots.random_configurations(ours, 60, 21)
    verdicts = ours.check_configs_collision_free(qs)
    compared = 0
    for q, verdict in zip(qs, verdicts):
        near = ours.calc_robot_clearance(q, 1e-4)
        if near.size() and np.min(np.abs(near.distances())) < 1e-4:
            continue
        assert verdict == drake.checker.CheckConfigCollisionFree(drake.q(q))
        compared += 1
    assert compared >= 50 and 0 < verdicts.sum() < len(qs)


def matched_rows(ours, drake, q):
    """Our rows and Drake's, matched by body pair and type, then by distance."""
    mine = ours.calc_robot_clearance(q, INFLUENCE)
    theirs = drake.checker.CalcRobotClearance(drake.q(q), INFLUENCE)
    groups: dict = {}
    for k, (r, o, kind, d) in enumerate(zip(mine.robot_indices(), mine.other_indices(),
                                            mine.collision_types(), mine.distances())):
        key = (frozenset((ours.body_name(r), ours.body_name(o))), int(kind))
        groups.setdefault(key, ([], []))[0].append((d, k))
    J_theirs = drake.jacobian(theirs.jacobians())
    for k, (r, o, kind, d) in enumerate(zip(theirs.robot_indices(), theirs.other_indices(),
                                            theirs.collision_types(), theirs.distances())):
        key = (frozenset((drake.body_name(r), drake.body_name(o))),
               int(RobotCollisionType[kind.name]))
        groups.setdefault(key, ([], []))[1].append((d, k))
    pairs, twins = [], {}
    for key, (a, b) in groups.items():
        a = sorted(x for x in a if x[0] < INFLUENCE - THRESHOLD_BAND)
        b = sorted(x for x in b if x[0] < INFLUENCE - THRESHOLD_BAND)
        assert len(a) == len(b), f"rows of {set(key[0])}: ours {a}, Drake's {b}"
        pairs += [(i, j) for (_, i), (_, j) in zip(a, b)]
        # Rows of one body pair at the same distance (a finger's boxes level
        # with the floor) cannot be told apart by distance: any of them may
        # be Drake's row.
        for d, i in a:
            twins[i] = [i2 for d2, i2 in a if abs(d2 - d) < 1e-6]
    return mine, theirs, J_theirs, pairs, twins


def is_exact_in_drake(ours, ids):
    """A sphere with a primitive: Drake's distance and witnesses are exact there."""
    shapes = [ours._sg.model_inspector().get_shape(g) for g in ids]
    return any(isinstance(s, Sphere) for s in shapes) and \
        not any(isinstance(s, Convex) for s in shapes)


def test_rows_types_and_exact_pairs_match_calc_robot_clearance(arms):
    _, ours, drake = arms
    exact = jacobians = 0
    for q in robots.random_configurations(ours, 80, 5):
        mine, theirs, J_theirs, pairs, twins = matched_rows(ours, drake, q)
        exact_rows = sorted({i2 for i, _ in pairs for i2 in twins[i]
                             if is_exact_in_drake(ours, mine.geometry_ids()[i2])})
        if exact_rows:
            # Where the witness is not unique (two boxes face to face) the
            # Jacobian depends on which witness is chosen: compare it only
            # where the distance is differentiable.
            smooth, _ = robots.smooth_rows(ours, q, [mine.geometry_ids()[i]
                                                     for i in exact_rows])
            unique = {i for i, ok in zip(exact_rows, smooth) if ok}
        for i, j in pairs:
            kind = RobotCollisionType[theirs.collision_types()[j].name]
            assert mine.collision_types()[i] is kind
            # Matched on the body pair; the distances must be close even for hulls.
            assert abs(mine.distances()[i] - theirs.distances()[j]) < 5e-3
            if is_exact_in_drake(ours, mine.geometry_ids()[i]):
                assert mine.distances()[i] == pytest.approx(theirs.distances()[j], abs=1e-6)
                exact += 1
                if all(i2 in unique for i2 in twins[i]):
                    error = min(np.max(np.abs(mine.jacobians()[i2] - J_theirs[j]))
                                for i2 in twins[i])
                    assert error < 1e-5, (mine.jacobians()[twins[i]], J_theirs[j])
                    jacobians += 1
    assert exact >= 3 and jacobians >= 3, f"{exact} primitive rows, {jacobians} Jacobians"


def pair_world_shapes(ours, q, ids):
    inspector = ours._sg.model_inspector()
    _, X_WL = ours._chain.frame_poses(q[None])
    out = []
    for g in ids:
        body = ours._body_of[g]
        X_WG = ours._X_BG[g] if not ours.is_part_of_robot(body) \
            else X_WL[0, body - 1] @ ours._X_BG[g]
        out += [inspector.get_shape(g), X_WG]
    return out


def reference_jacobian(ours, q, ids, h=1e-5):
    """Central differences of the reference distance of one geometry pair."""
    fd = np.zeros(ours.num_positions)
    for j in range(ours.num_positions):
        e = np.zeros(ours.num_positions)
        e[j] = h
        plus, _ = reference_signed_distance(*pair_world_shapes(ours, q + e, ids))
        minus, _ = reference_signed_distance(*pair_world_shapes(ours, q - e, ids))
        fd[j] = (plus - minus) / (2 * h)
    return fd


@pytest.mark.slow
def test_other_rows_against_an_exact_reference(arms):
    """Rows with a hull, or two boxes: distances and Jacobians against the reference.

    Drake's distance here comes from an iterative solver (hulls) and its
    Jacobian from witness points that need not be exact (box-box); the
    reference shares no code with either.
    """
    name, ours, drake = arms
    distance_rows, jacobian_rows = [], []
    for q in robots.random_configurations(ours, 10, 9):
        mine, theirs, J_theirs, pairs, twins = matched_rows(ours, drake, q)
        candidates = [(i, j) for i, j in pairs if len(twins[i]) == 1
                      and not is_exact_in_drake(ours, mine.geometry_ids()[i])
                      and mine.distances()[i] > 1e-3]
        if not candidates:
            continue
        smooth, _ = robots.smooth_rows(ours, q, [mine.geometry_ids()[i] for i, _ in candidates])
        for (i, j), ok in zip(candidates, smooth):
            ids = mine.geometry_ids()[i]
            if len(distance_rows) < 6:
                reference, _ = reference_signed_distance(*pair_world_shapes(ours, q, ids))
                distance_rows.append((abs(mine.distances()[i] - reference),
                                      abs(theirs.distances()[j] - reference)))
            J_error = np.max(np.abs(mine.jacobians()[i] - J_theirs[j]))
            if ok and len(jacobian_rows) < 2 and (J_error > 1e-5 or not jacobian_rows):
                J_reference = reference_jacobian(ours, q, ids)
                jacobian_rows.append((np.max(np.abs(mine.jacobians()[i] - J_reference)),
                                      np.max(np.abs(J_theirs[j] - J_reference))))
    ours_d, drake_d = np.max(distance_rows, axis=0)
    ours_J, drake_J = np.max(jacobian_rows, axis=0)
    print(f"\n{name}: against the reference, distance error ours {ours_d:.1e} m, Drake "
          f"{drake_d:.1e} m; Jacobian error ours {ours_J:.1e}, Drake {drake_J:.1e}")
    assert len(distance_rows) >= 3 and jacobian_rows
    assert ours_d < 1e-6 and ours_J < 1e-5
    # Where Drake differs from us, the reference sides with us.
    for mine_error, drake_error in distance_rows + jacobian_rows:
        assert mine_error <= drake_error + 1e-6
