"""KinematicTree: joint motions, defaults, and construction errors."""

import math

import numpy as np
import pytest

from geometry_core import GeometryFrame, RigidTransform, SceneGraph
from geometry_core.scene_files import JointSpec, KinematicTree


def chain(joints, names=("a", "b", "c")):
    sg = SceneGraph()
    source_id = sg.register_source("s")
    frames = {}
    for name in names:
        frames[name] = sg.register_frame(source_id, GeometryFrame(name))
    return source_id, frames, joints


def joint(name, kind, parent, child, axis=(0, 0, 1), lower=-math.inf, upper=math.inf,
          mimic=None, p=(0, 0, 0)):
    return JointSpec(name, kind, parent, child, RigidTransform(list(p)).get_as_matrix4(),
                     np.asarray(axis, float), lower, upper, mimic)


def test_motions_of_each_joint_type():
    source_id, frames, _ = chain([])
    tree = KinematicTree(source_id, frames, [
        joint("r", "revolute", "a", "b", p=(1, 0, 0), lower=-1, upper=1),
        joint("p", "prismatic", "b", "c", axis=(0, 1, 0), lower=0, upper=2),
    ])
    poses = tree.calc_frame_poses({"r": math.pi / 4, "p": 1.5})
    assert poses[frames["a"]].is_exactly_identity()  # the root, in the world
    np.testing.assert_allclose(poses[frames["b"]].translation(), [1, 0, 0])
    np.testing.assert_allclose(poses[frames["b"]].rotation().to_roll_pitch_yaw().vector(),
                               [0, 0, math.pi / 4], atol=1e-15)
    np.testing.assert_allclose(poses[frames["c"]].translation(), [0, 1.5, 0])


def test_default_position_is_zero_moved_into_the_limits():
    source_id, frames, _ = chain([])
    tree = KinematicTree(source_id, frames, [
        joint("r", "revolute", "a", "b", lower=0.5, upper=1.0),
        joint("c", "continuous", "b", "c")])
    assert tree.default_positions() == {"r": 0.5, "c": 0.0}


@pytest.mark.parametrize("joints, message", [
    ([joint("j", "ball", "a", "b")], r"joint 'j' has type 'ball'; supported types: revolute"),
    ([joint("j", "fixed", "a", "zz")], r"joint 'j' names unknown frame 'zz'"),
    ([joint("j", "fixed", "a", "c"), joint("k", "fixed", "b", "c")],
     r"frame 'c' has two parent joints: 'j' and 'k'"),
    ([joint("j", "fixed", "a", "b"), joint("k", "revolute", "b", "c", mimic=("j", 1, 0))],
     r"joint 'k' mimics 'j', which is not an actuated joint"),
])
def test_construction_errors(joints, message):
    source_id, frames, _ = chain([])
    with pytest.raises(ValueError, match=message):
        KinematicTree(source_id, frames, joints)
