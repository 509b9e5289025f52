"""Real arms with their SRDF, against Drake with the same filters; refusals shared with Drake.

The arms of example-robot-data that ship an SRDF (panda, ur5, kinova, z1)
are loaded with it; Drake gets a copy whose collision meshes are converted
to .obj (the only mesh it hulls) and the SRDF's disabled pairs as filters.
At each named pose (and the default configuration) both must report the
same penetrating link pairs, so no self-penetration is reported where Drake
reports none.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if not (ROOT / "bench" / "robot_files.py").exists():
    pytest.skip("bench/ is in a checkout, not in the install space", allow_module_level=True)
sys.path.insert(0, str(ROOT))

from bench.robot_files import (  # noqa: E402
    ARMS_WITH_SRDF,
    DrakeRobot,
    drake_copy,
    package_roots,
    robots_share,
    srdf_disabled_pairs,
)
from geometry_core.scene_files import load_urdf  # noqa: E402

pytestmark = pytest.mark.drake
pytest.importorskip("pydrake")
SHARE = robots_share()
if SHARE is None:
    pytest.skip("example-robot-data is not installed (pip install example-robot-data==6.0.0)",
                allow_module_level=True)


def full_positions(scene, q):
    """Every moving joint's position, mimic joints included (Drake sets them separately)."""
    kinematics = scene.kinematics
    positions = {**kinematics.default_positions(), **q}
    for joint in kinematics.joints():
        if joint.mimic is not None:
            leader, multiplier, offset = joint.mimic
            positions[joint.name] = multiplier * positions[leader] + offset
    return positions


# The kinova's arm_up state sets a joint outside its URDF limits: applied, with a warning.
@pytest.mark.filterwarnings("ignore:.*outside its limits.*applied as written")
@pytest.mark.parametrize("arm", sorted(ARMS_WITH_SRDF))
def test_named_poses_penetrate_as_in_drake(arm, tmp_path):
    urdf, srdf = (SHARE / "robots" / p for p in ARMS_WITH_SRDF[arm])
    ours = load_urdf(urdf, package_roots=package_roots(SHARE), srdf=srdf)
    roots = ours.kinematics.root_frames()
    drake = DrakeRobot(drake_copy(urdf, SHARE, tmp_path), roots[0] if roots else None,
                       srdf_disabled_pairs(srdf))
    poses = {"(default)": {}}
    for name in ours.named_poses:
        poses[name] = name
    assert arm == "ur5" or len(poses) > 1  # the UR5's SRDF names no pose
    for name, pose in poses.items():
        if pose == {}:
            ours.set_joint_positions({})
            q = {}
        else:
            ours.apply_named_pose(pose)
            q = _named_q(srdf, name)
        drake.set_joint_positions(full_positions(ours, q))
        query = drake.query()
        inspector = query.inspector()
        expected = {frozenset((drake.link_of(inspector, p.id_A), drake.link_of(inspector, p.id_B)))
                    for p in query.ComputePointPairPenetration()}
        got = {frozenset(ours.name_of(i).split("::")[0] for i in (p.id_A, p.id_B))
               for p in ours.scene_graph.query_object().compute_point_pair_penetration()}
        assert got == expected, (arm, name)


def _named_q(srdf, name):
    from bench.robot_files import srdf_group_states

    return srdf_group_states(srdf)[name]


def test_drake_refuses_what_we_refuse():
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    urdf = SHARE / "robots" / "alex_description/urdf/alex_psyonic_hands.urdf"
    plant = MultibodyPlant(0.0)  # kept alive: the parser holds only a reference
    parser = Parser(plant)
    parser.package_map().Add("example-robot-data", str(SHARE))
    with pytest.raises(RuntimeError, match=r"alex_psyonic_hands.urdf:1037: error: Joint "
                                           r"'Left_index_q2' mimic element specifies joint "
                                           r"'index_q1' which does not exist"):
        parser.AddModels(str(urdf))
