"""MoveIt planning-scene edits applied to a Panda's checker: what changes, what is refused.

Every answer is the checker's own for the same world built by hand with its
live-world calls (``add_collision_shape_to_body``...), and a refused edit
leaves the world exactly as it was.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import geometry_core_nodes.moveit_types  # noqa: F401  (registers the definitions)
from geometry_core.clearance import CollisionChecker
from geometry_core.math import RigidTransform
from geometry_core.shapes import Box
from geometry_core_nodes.planning_scene import (
    MOVE,
    REMOVE,
    PlanningSceneError,
    attached_object_edit,
    collision_object_edit,
    planning_scene_edits,
)
from geometry_core_nodes.planning_scene_world import PlanningSceneWorld, object_group
from geometry_core_nodes.transport import get_message_type as T

_spec = importlib.util.spec_from_file_location(
    "robots", Path(__file__).resolve().parents[1] / "clearance" / "robots.py")
robots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(robots)

#: MoveIt's "ready" pose of the Panda (panda_moveit_config), fingers 4 cm open.
READY = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04])


@pytest.fixture
def checker():
    urdf, srdf, _ = robots.ARMS["panda"]
    return CollisionChecker.from_urdf(urdf, srdf=srdf, package_roots=robots.PACKAGE_ROOTS)


def hand_position(checker, q=READY):
    from geometry_core.clearance.kinematic_chain import KinematicChain  # noqa: F401

    _, X_WL = checker._chain.frame_poses(np.asarray(q, dtype=float)[None])
    return X_WL[0, checker._chain.links.index("panda_hand")][:3, 3]


def box(object_id, p, operation=0, dims=(0.1, 0.1, 0.1), frame="panda_link0"):
    co = T("moveit_msgs/msg/CollisionObject")(id=object_id, operation=operation)
    co.header.frame_id = frame
    co.pose.position.x, co.pose.position.y, co.pose.position.z = (float(v) for v in p)
    co.primitives = [T("shape_msgs/msg/SolidPrimitive")(type=1, dimensions=list(dims))]
    co.primitive_poses = [T("geometry_msgs/msg/Pose")()]
    return co


def test_a_box_where_the_hand_is_then_moved_away(checker):
    world = PlanningSceneWorld(checker, "panda_link0")
    assert checker.check_config_collision_free(READY)
    world.apply_object(collision_object_edit(box("obstacle", hand_position(checker))))
    assert not checker.check_config_collision_free(READY)
    # The same world by hand: one box on the world body.
    reference = CollisionChecker.from_urdf(*robots.ARMS["panda"][:2],
                                           package_roots=robots.PACKAGE_ROOTS)
    reference.add_collision_shape_to_body("b", "world", Box(0.1, 0.1, 0.1),
                                          RigidTransform(hand_position(checker)))
    assert reference.check_config_collision_free(READY) is False
    world.apply_object(collision_object_edit(box("obstacle", (1.5, 0.0, 0.5), operation=MOVE)))
    assert checker.check_config_collision_free(READY)
    (description,) = checker.get_all_added_collision_shapes()[object_group("obstacle")]
    np.testing.assert_allclose(description.pose_in_body.translation(), [1.5, 0.0, 0.5])
    world.apply_object(collision_object_edit(box("obstacle", (0, 0, 0), operation=REMOVE)))
    assert checker.get_all_added_collision_shapes() == {}
    assert world.objects == {}


def test_refused_edits_leave_the_world_as_it_was(checker):
    world = PlanningSceneWorld(checker, "panda_link0")
    world.apply_object(collision_object_edit(box("a", (1.0, 0.0, 0.5))))
    before = {k: [(d.body_name, d.pose_in_body.translation().tolist()) for d in v]
              for k, v in checker.get_all_added_collision_shapes().items()}
    for edit, match in (
            (collision_object_edit(box("ghost", (0, 0, 0), operation=REMOVE)),
             "REMOVE of an unknown object"),
            (collision_object_edit(box("ghost", (0, 0, 0), operation=MOVE)),
             "MOVE of an unknown object"),
            (collision_object_edit(box("b", (0, 0, 0), frame="camera_link")),
             "unknown frame 'camera_link'")):
        with pytest.raises(PlanningSceneError, match=match):
            world.apply_object(edit)
    # A scene whose second object is bad: the first is not applied either.
    scene = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    scene.world.collision_objects = [box("c", hand_position(checker)),
                                     box("ghost", (0, 0, 0), operation=REMOVE)]
    with pytest.raises(PlanningSceneError, match="REMOVE of an unknown object"):
        world.apply(planning_scene_edits(scene))
    aco = T("moveit_msgs/msg/AttachedCollisionObject")(link_name="panda_link42")
    aco.object = box("held", (0, 0, 0.1), frame="panda_link42")
    with pytest.raises(PlanningSceneError, match="'panda_link42' is not a link of the robot"):
        world.apply_attached(attached_object_edit(aco))
    after = {k: [(d.body_name, d.pose_in_body.translation().tolist()) for d in v]
             for k, v in checker.get_all_added_collision_shapes().items()}
    assert after == before and list(world.objects) == ["a"]
    assert checker.check_config_collision_free(READY)


def test_a_box_held_by_the_hand_with_its_touch_links(checker):
    world = PlanningSceneWorld(checker, "panda_link0")
    aco = T("moveit_msgs/msg/AttachedCollisionObject")(
        link_name="panda_hand", touch_links=["panda_leftfinger", "panda_rightfinger"])
    # Between the fingers: it touches both, which the touch links allow.
    aco.object = box("part", (0.0, 0.0, 0.1034), dims=(0.02, 0.1, 0.02), frame="panda_hand")
    world.apply_attached(attached_object_edit(aco))
    (description,) = checker.get_all_added_collision_shapes()[object_group("part")]
    assert description.body_name == "panda_hand"
    assert checker.is_collision_filtered_between("panda_hand", "panda_leftfinger")
    assert checker.check_config_collision_free(READY)
    # It moves with the hand: over configurations around READY, with a
    # table under the hand, the answers are those of the same world built by
    # hand (the part on panda_hand, the touch links filtered).
    table = hand_position(checker) - [0.0, 0.0, 0.16]
    world.apply_object(collision_object_edit(box("table", table, dims=(0.2, 0.2, 0.02))))
    reference = CollisionChecker.from_urdf(*robots.ARMS["panda"][:2],
                                           package_roots=robots.PACKAGE_ROOTS)
    reference.add_collision_shape_to_body("part", "panda_hand", Box(0.02, 0.1, 0.02),
                                          RigidTransform([0.0, 0.0, 0.1034]))
    reference.add_collision_shape_to_body("table", "world", Box(0.2, 0.2, 0.02),
                                          RigidTransform(table))
    for finger in ("panda_leftfinger", "panda_rightfinger"):
        reference.set_collision_filtered_between("panda_hand", finger, True)
    rng = np.random.default_rng(7)
    qs = READY + rng.uniform(-0.25, 0.25, (200, 8)) * [1, 1, 1, 1, 1, 1, 1, 0]
    ours = checker.check_configs_collision_free(qs)
    np.testing.assert_array_equal(ours, reference.check_configs_collision_free(qs))
    assert 0 < ours.sum() < len(qs)  # both answers occur
    # Without the part, some of those configurations are free: the part counts.
    reference.remove_all_added_collision_shapes("part")
    assert (reference.check_configs_collision_free(qs) & ~ours).any()
    detach = T("moveit_msgs/msg/AttachedCollisionObject")(link_name="panda_hand")
    detach.object = box("part", (0, 0, 0), operation=REMOVE)
    world.apply_attached(attached_object_edit(detach))
    assert object_group("part") not in checker.get_all_added_collision_shapes()


def test_planning_scene_diff_with_acm_entry_and_link_padding(checker):
    world = PlanningSceneWorld(checker, "panda_link0")
    scene = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    # A table 20 cm under the hand: free, until the hand is padded by 50 cm.
    p_hand = hand_position(checker)
    scene.world.collision_objects = [box("near", p_hand - [0.0, 0.0, 0.2],
                                         dims=(0.3, 0.3, 0.02))]
    world.apply(planning_scene_edits(scene))
    assert checker.check_config_collision_free(READY)
    padding = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    padding.link_padding = [T("moveit_msgs/msg/LinkPadding")(link_name="panda_hand",
                                                             padding=0.5)]
    world.apply(planning_scene_edits(padding))
    assert checker.get_padding_between("panda_hand", "world") == pytest.approx(0.5)
    assert not checker.check_config_collision_free(READY)
    # An allowed-collision entry between two links sets the filter.
    assert not checker.is_collision_filtered_between("panda_link1", "panda_link5")
    acm = T("moveit_msgs/msg/PlanningScene")(is_diff=True)
    acm.allowed_collision_matrix.entry_names = ["panda_link1", "panda_link5"]
    acm.allowed_collision_matrix.entry_values = [
        T("moveit_msgs/msg/AllowedCollisionEntry")(enabled=[False, True]),
        T("moveit_msgs/msg/AllowedCollisionEntry")(enabled=[True, False])]
    world.apply(planning_scene_edits(acm))
    assert checker.is_collision_filtered_between("panda_link1", "panda_link5")
    # A full scene replaces: no objects, no padding, no entries.
    world.apply(planning_scene_edits(T("moveit_msgs/msg/PlanningScene")(is_diff=False)))
    assert checker.get_all_added_collision_shapes() == {}
    assert checker.get_padding_between("panda_hand", "world") == 0.0
    assert not checker.is_collision_filtered_between("panda_link1", "panda_link5")
    assert checker.check_config_collision_free(READY)
