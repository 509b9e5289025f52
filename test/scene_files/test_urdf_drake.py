"""Differential test: the same URDF in pydrake's MultibodyPlant and in geometry_core.

At several joint configurations both must report the same set of penetrating
collision-geometry pairs (by link), the same link world poses, and the same
set of collision-filtered link pairs. The arm is welded to the world at its
base link in Drake, which is where geometry_core puts a URDF's root.
"""

import itertools
import pathlib

import numpy as np
import pytest

from geometry_core import Role
from geometry_core.scene_files import load_urdf

pytestmark = pytest.mark.drake
pydrake = pytest.importorskip("pydrake")

from pydrake.multibody.parsing import Parser  # noqa: E402
from pydrake.multibody.plant import AddMultibodyPlantSceneGraph  # noqa: E402
from pydrake.systems.framework import DiagramBuilder  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
URDF = DATA / "tiny_arm.urdf"

CONFIGURATIONS = [
    {},
    {"elbow": 2.9},
    {"elbow": 3.0, "slide": 0.1},
    {"shoulder": 1.0, "elbow": -2.9, "slide": 0.1, "wrist": 1.2},
    {"shoulder": -0.7, "elbow": 2.6, "slide": 0.05, "wrist": -2.0},
    {"elbow": 2.75, "wrist": 3.0},
]


@pytest.fixture(scope="module")
def drake_arm():
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, time_step=0.0)
    parser = Parser(plant)
    parser.package_map().Add("tiny_arm", str(DATA))
    model = parser.AddModels(str(URDF))[0]
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base", model))
    plant.Finalize()
    diagram = builder.Build()
    return plant, scene_graph, model, diagram


@pytest.fixture(scope="module")
def ours():
    return load_urdf(URDF, package_roots={"tiny_arm": DATA})


def drake_query(drake_arm, q):
    plant, scene_graph, model, diagram = drake_arm
    context = diagram.CreateDefaultContext()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    positions = plant.GetPositions(plant_context)
    for name, value in q.items():
        positions[plant.GetJointByName(name, model).position_start()] = value
    plant.SetPositions(plant_context, positions)
    query = scene_graph.get_query_output_port().Eval(
        scene_graph.GetMyContextFromRoot(context))
    return plant, plant_context, query


def drake_link(plant, inspector, geometry_id):
    return plant.GetBodyFromFrameId(inspector.GetFrameId(geometry_id)).name()


def our_link(scene, geometry_id):
    return scene.name_of(geometry_id).split("::")[0]


@pytest.mark.parametrize("q", CONFIGURATIONS, ids=str)
def test_same_penetrating_link_pairs(drake_arm, ours, q):
    plant, _, query = drake_query(drake_arm, q)
    inspector = query.inspector()
    expected = {frozenset((drake_link(plant, inspector, p.id_A),
                           drake_link(plant, inspector, p.id_B)))
                for p in query.ComputePointPairPenetration()}
    ours.set_joint_positions(q)
    got = {frozenset((our_link(ours, p.id_A), our_link(ours, p.id_B)))
           for p in ours.scene_graph.query_object().compute_point_pair_penetration()}
    assert got == expected


@pytest.mark.parametrize("q", CONFIGURATIONS, ids=str)
def test_same_link_world_poses(drake_arm, ours, q):
    plant, plant_context, _ = drake_query(drake_arm, q)
    _, _, model, _ = drake_arm
    ours.set_joint_positions(q)
    snapshot = ours.scene_graph.query_object()
    for link, frame_id in ours.frames.items():
        X_WB = plant.EvalBodyPoseInWorld(plant_context, plant.GetBodyByName(link, model))
        np.testing.assert_allclose(snapshot.get_pose_in_world(frame_id).get_as_matrix4(),
                                   X_WB.GetAsMatrix4(), atol=1e-12)


def test_same_filtered_link_pairs(drake_arm, ours):
    plant, _, query = drake_query(drake_arm, {})
    inspector = query.inspector()
    drake_ids = [g for g in inspector.GetAllGeometryIds()
                 if inspector.GetProximityProperties(g) is not None]
    expected = {frozenset((drake_link(plant, inspector, a), drake_link(plant, inspector, b)))
                for a, b in itertools.combinations(drake_ids, 2)
                if inspector.CollisionFiltered(a, b)}
    ours_inspector = ours.scene_graph.model_inspector()
    ids = ours_inspector.get_all_geometry_ids(Role.PROXIMITY)
    got = {frozenset((our_link(ours, a), our_link(ours, b)))
           for a, b in itertools.combinations(ids, 2)
           if ours_inspector.collision_filtered(a, b)}
    assert got == expected
