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
from geometry_core.scene_graph import GeometrySet, Role
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


def test_names_are_still_checked_after_moves(world):
    # A MOVE of an object where it is registered skips the name checks (its
    # names were checked at the ADD). A new object that takes one of its
    # shape names, or a move onto a frame the scene lacks, is still refused.
    pair = sphere("pair", (1.0, 1.0, 1.0))
    pair.primitives = pair.primitives * 2
    pair.primitive_poses = pair.primitive_poses * 2
    world.apply_object(collision_object_edit(pair))
    for z in (1.1, 1.2):
        world.apply_object(collision_object_edit(sphere("pair", (1.0, 1.0, z), MOVE)))
    assert {"pair[0]", "pair[1]"} <= set(names(world))
    held, geometries = dict(world.objects), names(world)
    with pytest.raises(PlanningSceneError, match=r"'pair\[1\]' is used on frame 'world'"):
        world.apply_object(collision_object_edit(sphere("pair[1]", (0.0, 1.0, 1.0))))
    with pytest.raises(PlanningSceneError, match="no_such_frame"):
        world.apply_object(collision_object_edit(
            sphere("pair", (0, 0, 0), MOVE, frame="no_such_frame")))
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


def acm_scene(entries=(), defaults=()):
    """A PlanningScene diff whose matrix has ``entries`` ((a, b, allowed)) and ``defaults``."""
    scene = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    acm = scene.allowed_collision_matrix
    names_ = sorted({n for a, b, _ in entries for n in (a, b)})
    rows = [[False] * len(names_) for _ in names_]
    for a, b, value in entries:
        i, j = names_.index(a), names_.index(b)
        rows[i][j] = rows[j][i] = value
    acm.entry_names = names_
    acm.entry_values = [T("moveit_msgs/msg/AllowedCollisionEntry")(enabled=row) for row in rows]
    acm.default_entry_names = [n for n, _ in defaults]
    acm.default_entry_values = [v for _, v in defaults]
    return planning_scene_edits(scene)


def penetrating(world) -> set:
    inspector = world.sg.model_inspector()
    return {frozenset((inspector.get_name(p.id_A), inspector.get_name(p.id_B)))
            for p in world.sg.query_object().compute_point_pair_penetration()}


def test_allowed_entries_filter_and_unfilter(world):
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    assert frozenset(("probe", "palm")) in penetrating(world)
    world.apply(acm_scene([("probe", "gripper", True)]))
    assert frozenset(("probe", "palm")) not in penetrating(world)
    assert world.scene.acm_pairs and world.changes[-1] is False
    # Set back to not allowed: the pair is reported again, no filter is left.
    world.apply(acm_scene([("probe", "gripper", False)]))
    assert frozenset(("probe", "palm")) in penetrating(world)
    assert world.scene.acm_pairs == set()
    # A default entry of the object allows it with every link.
    world.apply(acm_scene(defaults=[("probe", True)]))
    assert not any("probe" in pair for pair in penetrating(world))
    world.apply(acm_scene(defaults=[("probe", False)]))
    assert frozenset(("probe", "palm")) in penetrating(world)


def test_allowed_entry_for_an_object_to_come_and_one_that_goes(world):
    world.apply(acm_scene([("probe", "gripper", True)]))
    assert world.scene.acm_pairs == set()  # no probe yet
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    probe = names(world)["probe"]
    assert world.sg.model_inspector().collision_filtered(probe, names(world)["palm"])
    world.apply_object(collision_object_edit(sphere("probe", (0, 0, 0), operation=REMOVE)))
    assert world.scene.acm_pairs == set()
    # Back with a new geometry id: filtered again, as the entry still says.
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    assert frozenset(("probe", "palm")) not in penetrating(world)


def test_entries_leave_the_scenes_own_filters_alone(world):
    """A pair the scene filtered before the matrix named it stays filtered when set back."""
    inspector = world.sg.model_inspector()
    frames = {inspector.get_name(f): f for f in inspector.get_all_frame_ids()}
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    probe, grip = names(world)["probe"], names(world)["palm"]
    # The scene's own filter (as an SRDF's would be) between the probe and the gripper.
    world.sg.exclude_collisions_between(GeometrySet([probe]), GeometrySet([frames["gripper"]]))
    world.apply(acm_scene([("probe", "gripper", True), ("probe", "forearm", True)]))
    assert all(grip not in pair for pair in world.scene.acm_pairs)  # not the matrix's
    world.apply(acm_scene([("probe", "gripper", False), ("probe", "forearm", False)]))
    assert inspector.collision_filtered(probe, grip)
    assert world.scene.acm_pairs == set()
    # Touch links' filters stay too when an entry is set back.
    wrist = frames["wrist"]
    X_WW = world.sg.query_object().get_pose_in_world(wrist)
    Attached = T("moveit_msgs/msg/AttachedCollisionObject")
    aco = Attached(link_name="wrist", touch_links=["gripper"])
    world.apply(acm_scene([("part", "gripper", True)]))
    aco.object = sphere("part", X_WW.inverse() @ palm(world), frame="wrist")
    world.apply_attached(attached_object_edit(aco))
    world.apply(acm_scene([("part", "gripper", False)]))
    assert inspector.collision_filtered(names(world)["part"], grip)


def test_cloud_registered_changed_and_left_out_at_radius_0(world):
    from geometry_core_nodes.outbound import GeometryNames

    sg, scene = world.sg, world.scene
    p = palm(world)
    scene.set_cloud([[9.0, 9.0, 9.0], p], 0.02)
    (cloud,) = sg.get_point_cloud_ids()
    assert world.changes[-1] is True
    hits = [r for r in sg.query_object().compute_point_pair_penetration()
            if cloud in (r.id_A, r.id_B)]
    assert hits and {r.point_index for r in hits} == {1}
    record = sg.get_point_cloud(cloud)
    names = GeometryNames(sg.model_inspector(), "world", {cloud: record})
    assert names(cloud, 1) == ("planning_scene::world::point_cloud[1]", "world")
    assert names(cloud) == ("planning_scene::world::point_cloud", "world")
    # An object message leaves the cloud as it is (not registered again).
    world.apply_object(collision_object_edit(sphere("far", (5.0, 5.0, 5.0))))
    assert sg.get_point_cloud(cloud) is record
    # New points: the same cloud, changed in place.
    scene.set_cloud([[9.0, 9.0, 9.0]], 0.02)
    assert sg.get_point_cloud_ids() == [cloud]
    assert all(cloud not in (r.id_A, r.id_B)
               for r in sg.query_object().compute_point_pair_penetration())
    scene.set_cloud([[9.0, 9.0, 9.0]], 0.0)
    assert sg.get_point_cloud_ids() == []
    with pytest.raises(PlanningSceneError, match="shape"):
        scene.check_cloud([[1.0, 2.0]], 0.02)


def test_entries_that_would_filter_too_many_pairs_are_refused(world, monkeypatch):
    import geometry_core_nodes.scene_objects as scene_objects

    monkeypatch.setattr(scene_objects, "MAX_ACM_GEOMETRY_PAIRS", 3)
    world.apply_object(collision_object_edit(sphere("probe", palm(world))))
    co = sphere("many", (1.0, 1.0, 1.0))
    co.primitives = co.primitives * 4
    co.primitive_poses = co.primitive_poses * 4
    world.apply_object(collision_object_edit(co))
    held, allowed = dict(world.objects), dict(world.allowed)
    with pytest.raises(PlanningSceneError, match="4 pairs of geometries"):
        world.apply(acm_scene([("probe", "many", True)]))
    assert world.objects == held and world.allowed == allowed
    assert world.scene.acm_pairs == set()
    world.apply(acm_scene([("probe", "gripper", True)]))  # one pair: applied
    assert frozenset(("probe", "palm")) not in penetrating(world)
    # Entries that reach the scene graph unchecked (kept from before a scene came) and
    # pass the cap apply none, counted.
    world.scene.sync(world.objects, {("probe", "many"): True, ("probe", "gripper"): True})
    assert world.scene.entries_refused == 1 and world.scene.acm_pairs == set()
    assert frozenset(("probe", "palm")) in penetrating(world)
