"""Planning-scene objects mirrored into a scene graph: what is registered, moved, refused.

No ROS here: the edits come from real ``moveit_msgs`` messages (the DDS
backend's classes) through :mod:`geometry_core_nodes.planning_scene`, and go
into the demo arm's scene graph as the scene graph node does it (a
:class:`PlanningSceneWorld` without a robot checker, and
:class:`SceneObjects`).
"""

from __future__ import annotations

import pytest

import geometry_core_nodes.moveit_types  # noqa: F401  (registers the definitions)
from geometry_core.demo import make_demo_scene
from geometry_core.scene_graph import Role
from geometry_core_nodes.planning_scene import (
    MOVE,
    REMOVE,
    PlanningSceneError,
    attached_object_edit,
    collision_object_edit,
    planning_scene_edits,
)
from geometry_core_nodes.planning_scene_world import PlanningSceneWorld
from geometry_core_nodes.scene_objects import SceneObjects
from geometry_core_nodes.transport import get_message_type as T


def sphere(object_id, p, operation=0, frame="world", radius=0.03):
    co = T("moveit_msgs/msg/CollisionObject")(id=object_id, operation=operation)
    co.header.frame_id = frame
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    co.primitives = [T("shape_msgs/msg/SolidPrimitive")(type=2, dimensions=[radius])]
    co.primitive_poses = [T("geometry_msgs/msg/Pose")()]
    return co


@pytest.fixture
def world():
    demo = make_demo_scene()
    demo.advance(1.8)
    sg = demo.scene_graph
    inspector = sg.model_inspector()
    sources = inspector.get_all_source_ids()
    frames = {inspector.get_name(f): (f, next(s for s in sources
                                              if inspector.belongs_to_source(f, s)))
              for f in inspector.get_all_frame_ids() if f != inspector.world_frame_id()}
    changes = []
    scene = SceneObjects(lambda: sg, lambda: frames, "world", changes.append)
    world = PlanningSceneWorld(None, "world", scene)
    world.sg, world.changes = sg, changes
    return world


def names(world) -> dict:
    inspector = world.sg.model_inspector()
    return {inspector.get_name(g): g for g in inspector.get_all_geometry_ids(Role.PROXIMITY)}


def palm(world):
    return world.sg.query_object().get_pose_in_world(names(world)["palm"]).translation()


def test_add_move_remove(world):
    before = names(world)
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    added = names(world)
    assert set(added) - set(before) == {"probe"} and world.changes == [True]
    query = world.sg.query_object()
    hits = {frozenset((a.id_A, a.id_B)) for a in query.compute_point_pair_penetration()}
    assert frozenset((added["probe"], added["palm"])) in hits
    # A MOVE moves the same geometry (no new id), and only says "moved".
    world.apply_object(collision_object_edit(sphere("probe", (2.0, 0.0, 1.0), operation=MOVE)))
    assert names(world) == added and world.changes == [True, False]
    query = world.sg.query_object()
    assert query.get_pose_in_world(added["probe"]).translation().tolist() == [2.0, 0.0, 1.0]
    assert not any(added["probe"] in (p.id_A, p.id_B)
                   for p in query.compute_point_pair_penetration())
    world.apply_object(collision_object_edit(sphere("probe", (0, 0, 0), operation=REMOVE)))
    assert names(world) == before and world.changes[-1] is True


def test_refused_messages_change_nothing(world):
    world.apply_object(collision_object_edit(sphere("kept", (1.0, 1.0, 1.0))))
    held, geometries = dict(world.objects), names(world)
    bad = [
        collision_object_edit(sphere("x", (0, 0, 0), frame="no_such_frame")),
        # A name the gripper's own geometry has.
        collision_object_edit(sphere("palm", (0, 0, 0), frame="gripper")),
    ]
    aco = T("moveit_msgs/msg/AttachedCollisionObject")(link_name="not_a_link")
    aco.object = sphere("held", (0, 0, 0), frame="not_a_link")
    for edit in bad:
        with pytest.raises(PlanningSceneError, match="no_such_frame|'palm' is used"):
            world.apply_object(edit)
    with pytest.raises(PlanningSceneError, match="not_a_link"):
        world.apply_attached(attached_object_edit(aco))
    assert world.objects == held and names(world) == geometries


def test_touch_links_and_full_scene(world):
    inspector = world.sg.model_inspector()
    wrist = next(f for f in inspector.get_all_frame_ids() if inspector.get_name(f) == "wrist")
    X_WW = world.sg.query_object().get_pose_in_world(wrist)
    aco = T("moveit_msgs/msg/AttachedCollisionObject")(link_name="wrist")
    aco.object = sphere("part", X_WW.inverse() @ palm(world), frame="wrist")
    world.apply_attached(attached_object_edit(aco))
    part, grip = names(world)["part"], names(world)["palm"]
    assert inspector.get_frame_id(part) == wrist
    assert not inspector.collision_filtered(part, grip)
    aco.touch_links = ["gripper"]
    world.apply_attached(attached_object_edit(aco))
    part = names(world)["part"]
    assert inspector.collision_filtered(part, names(world)["palm"])
    # A full scene replaces the world and the held objects.
    full = T("moveit_msgs/msg/PlanningScene")(is_diff=False)
    full.world.collision_objects = [sphere("fresh", (1.0, 0.0, 1.0))]
    world.apply(planning_scene_edits(full))
    assert "part" not in names(world) and "fresh" in names(world)
    assert set(world.objects) == {"fresh"}
