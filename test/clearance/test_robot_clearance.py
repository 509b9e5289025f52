"""RobotClearance and RobotCollisionType: Drake's table, its checks and the rate extras."""

import math

import numpy as np
import pytest

from geometry_core.clearance import RobotClearance, RobotCollisionType


def test_empty_table_has_its_columns():
    table = RobotClearance(3)
    assert table.size() == 0 and table.num_positions() == 3
    assert table.robot_indices() == [] and table.other_indices() == []
    assert table.collision_types() == []
    assert table.distances().shape == (0,) and table.jacobians().shape == (0, 3)


def test_append_fills_every_column_in_order():
    table = RobotClearance(2)
    table.reserve(1)
    table.append(1, 0, RobotCollisionType.ENVIRONMENT_COLLISION, 0.5, [1.0, 2.0])
    table.append(2, 1, RobotCollisionType.kSelfCollision, -0.1, np.array([[3.0, 4.0]]))
    table.append(3, 0, RobotCollisionType.ENVIRONMENT_COLLISION, 0.2, [5.0, 6.0], ("a", "b"))
    assert table.size() == 3
    assert table.robot_indices() == [1, 2, 3] and table.other_indices() == [0, 1, 0]
    assert table.collision_types() == [RobotCollisionType.ENVIRONMENT_COLLISION,
                                       RobotCollisionType.SELF_COLLISION,
                                       RobotCollisionType.ENVIRONMENT_COLLISION]
    np.testing.assert_array_equal(table.distances(), [0.5, -0.1, 0.2])
    np.testing.assert_array_equal(table.jacobians(), [[1, 2], [3, 4], [5, 6]])
    assert table.geometry_ids() == [None, None, ("a", "b")]


def test_jacobians_are_read_only_and_mutable_jacobians_write_through():
    table = RobotClearance(2)
    table.append(1, 0, RobotCollisionType.ENVIRONMENT_COLLISION, 0.5, [1.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        table.jacobians()[0, 0] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        table.distances()[0] = 7.0
    table.mutable_jacobians()[0, 1] = 9.0
    np.testing.assert_array_equal(table.jacobians(), [[1.0, 9.0]])


def test_drake_spellings_are_aliases_and_flags_combine():
    assert RobotCollisionType.kNoCollision is RobotCollisionType.NO_COLLISION
    assert RobotCollisionType.kEnvironmentAndSelfCollision is \
        RobotCollisionType.ENVIRONMENT_AND_SELF_COLLISION
    both = RobotCollisionType.NO_COLLISION.with_environment(True).with_self(True)
    assert both is RobotCollisionType.ENVIRONMENT_AND_SELF_COLLISION
    assert both.with_environment(False) is RobotCollisionType.SELF_COLLISION
    assert both.with_self(False) is RobotCollisionType.ENVIRONMENT_COLLISION


@pytest.mark.parametrize("args, match", [
    ((1, 0, RobotCollisionType.SELF_COLLISION, 0.1, [1.0]), r"jacobian must have shape \(2,\)"),
    ((1, 0, RobotCollisionType.NO_COLLISION, 0.1, [1.0, 2.0]), "self or environment"),
    ((1, 0, RobotCollisionType.ENVIRONMENT_AND_SELF_COLLISION, 0.1, [1.0, 2.0]),
     "self or environment"),
    ((1, 0, RobotCollisionType.SELF_COLLISION, math.nan, [1.0, 2.0]), "distance must be"),
])
def test_bad_rows_are_refused(args, match):
    table = RobotClearance(2)
    with pytest.raises(ValueError, match=match):
        table.append(*args)
    assert table.size() == 0


def test_bad_num_positions_is_refused():
    with pytest.raises(ValueError, match="num_positions must be a non-negative integer"):
        RobotClearance(-1)
    with pytest.raises(ValueError, match="size must be non-negative"):
        RobotClearance(1).reserve(-2)


def test_approach_rates_and_times_to_contact():
    table = RobotClearance(2)
    table.append(1, 0, RobotCollisionType.ENVIRONMENT_COLLISION, 0.3, [1.0, 0.0])
    table.append(2, 0, RobotCollisionType.ENVIRONMENT_COLLISION, 0.2, [0.0, 1.0])
    table.append(3, 0, RobotCollisionType.ENVIRONMENT_COLLISION, -0.01, [1.0, 1.0])
    v = np.array([-0.5, 2.0])
    np.testing.assert_allclose(table.approach_rates(v), [-0.5, 2.0, 1.5])
    times = table.times_to_contact(v)
    assert times[0] == pytest.approx(0.6) and times[1] == math.inf and times[2] == math.inf
    assert table.times_to_contact([-1.0, -1.0])[2] == 0.0   # in contact and closing
    with pytest.raises(ValueError, match=r"v must have shape \(2,\)"):
        table.approach_rates([1.0])
    with pytest.raises(ValueError, match="v must be finite"):
        table.times_to_contact([math.nan, 0.0])
