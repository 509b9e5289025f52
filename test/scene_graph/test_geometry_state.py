"""Registration, roles, filters and poses of the scene model.

The model is exercised through SceneGraph (its public face); nothing here
needs a proximity query.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geometry_core import (
    Box,
    FrameId,
    FramePoseVector,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    RigidTransform,
    Role,
    RoleAssign,
    RollPitchYaw,
    SceneGraph,
    SourceId,
    Sphere,
    make_phong_illustration_properties,
)


def instance(name, shape=None, X_PG=None):
    return GeometryInstance(X_PG or RigidTransform(), shape or Sphere(0.1), name)


def _base_arm_hand():
    """A scene graph with one source and the chain world <- base <- arm <- hand."""
    sg = SceneGraph()
    src = sg.register_source("robot")
    base = sg.register_frame(src, GeometryFrame("base"))
    arm = sg.register_frame(src, GeometryFrame("arm"), base)
    hand = sg.register_frame(src, GeometryFrame("hand"), arm)
    return sg, src, base, arm, hand


@pytest.fixture
def scene():
    return _base_arm_hand()


# ------------------------------------------------------------------- sources

def test_source_names_are_unique():
    sg = SceneGraph()
    sg.register_source("robot")
    with pytest.raises(ValueError, match="a source named 'robot' is already registered"):
        sg.register_source("robot")


def test_empty_source_name_gets_a_default():
    sg = SceneGraph()
    src = sg.register_source()
    assert sg.model_inspector().get_name(src).startswith("source_")


def test_unknown_source_is_a_key_error():
    sg = SceneGraph()
    with pytest.raises(KeyError, match="is not a registered source"):
        sg.register_frame(SourceId.get_new_id(), GeometryFrame("f"))
    with pytest.raises(TypeError, match="expected a SourceId"):
        sg.register_frame("robot", GeometryFrame("f"))


# -------------------------------------------------------------------- frames

def test_frames_form_a_tree(scene):
    sg, src, base, arm, hand = scene
    inspector = sg.model_inspector()
    assert inspector.get_parent_frame(hand) == arm
    assert inspector.get_parent_frame(base) == sg.world_frame_id()
    assert inspector.get_parent_frame(sg.world_frame_id()) == sg.world_frame_id()
    assert inspector.get_subtree_frames(base) == [base, arm, hand]
    assert inspector.num_frames() == 4  # world included, as in Drake
    assert inspector.frames_for_source(src) == [base, arm, hand]
    assert inspector.get_name(hand) == "hand"


def test_frame_errors(scene):
    sg, src, base, *_ = scene
    with pytest.raises(ValueError, match="already has a frame named 'base'"):
        sg.register_frame(src, GeometryFrame("base"))
    with pytest.raises(KeyError, match="is not a registered frame"):
        sg.register_frame(src, GeometryFrame("x"), FrameId.get_new_id())
    other = sg.register_source("other")
    with pytest.raises(ValueError, match="parent frame 'base' belongs to source 'robot'"):
        sg.register_frame(other, GeometryFrame("x"), base)
    with pytest.raises(ValueError, match="must not be empty"):
        GeometryFrame("  ")
    frame = GeometryFrame("twice")
    sg.register_frame(src, frame)
    with pytest.raises(ValueError, match="already registered"):
        sg.register_frame(other, frame)


# ---------------------------------------------------------------- geometries

def test_geometry_registration_and_inspector(scene):
    sg, src, base, arm, _ = scene
    X_FG = RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [0.1, 0.0, 0.0])
    g = sg.register_geometry(src, arm, instance("box", Box(0.1, 0.2, 0.3), X_FG))
    a = sg.register_anchored_geometry(src, instance("floor_ball"))
    inspector = sg.model_inspector()
    assert inspector.get_frame_id(g) == arm
    assert inspector.get_frame_id(a) == sg.world_frame_id()
    assert inspector.is_anchored(a) and not inspector.is_anchored(g)
    assert np.allclose(inspector.get_pose_in_frame(g).get_as_matrix4(), X_FG.get_as_matrix4())
    assert isinstance(inspector.get_shape(g), Box)
    assert inspector.num_geometries() == 2
    assert inspector.num_anchored_geometries() == 1
    assert inspector.num_dynamic_geometries() == 1
    assert inspector.num_geometries_for_frame(arm) == 1
    assert inspector.get_owning_source_name(g) == "robot"
    assert inspector.belongs_to_source(g, src)
    assert inspector.get_all_geometry_ids() == sorted([g, a])


def test_geometry_posed_relative_to_geometry(scene):
    sg, src, base, *_ = scene
    X_FP = RigidTransform(RollPitchYaw(0.0, 0.0, math.pi / 2), [1.0, 0.0, 0.0])
    parent = sg.register_geometry(src, base, instance("parent", X_PG=X_FP))
    X_PC = RigidTransform([0.0, 2.0, 0.0])
    child = sg.register_geometry(src, parent, instance("child", X_PG=X_PC))
    inspector = sg.model_inspector()
    assert inspector.get_frame_id(child) == base
    assert inspector.get_parent_geometry(child) == parent
    expected = (X_FP @ X_PC).get_as_matrix4()
    assert np.allclose(inspector.get_pose_in_frame(child).get_as_matrix4(), expected)
    assert np.allclose(inspector.get_pose_in_parent(child).get_as_matrix4(),
                       X_PC.get_as_matrix4())
    # Removing the parent removes the geometry hung on it.
    sg.remove_geometry(src, parent)
    assert inspector.num_geometries() == 0
    with pytest.raises(KeyError, match="is not a registered geometry"):
        inspector.get_shape(child)


def test_geometry_errors(scene):
    sg, src, base, *_ = scene
    other = sg.register_source("other")
    g = sg.register_geometry(src, base, instance("g"))
    with pytest.raises(ValueError, match="frame 'base' belongs to source 'robot'"):
        sg.register_geometry(other, base, instance("g2"))
    with pytest.raises(ValueError, match="geometry 'g' belongs to source 'robot'"):
        sg.register_geometry(other, g, instance("g3"))
    with pytest.raises(ValueError, match="geometry 'g' belongs to source 'robot'"):
        sg.remove_geometry(other, g)
    with pytest.raises(ValueError, match="use register_anchored_geometry"):
        sg.register_geometry(src, sg.world_frame_id(), instance("w"))
    with pytest.raises(TypeError, match="parent_id must be a FrameId or GeometryId"):
        sg.register_geometry(src, "base", instance("x"))
    with pytest.raises(TypeError, match="X_PG must be a RigidTransform"):
        GeometryInstance(np.eye(4), Sphere(1.0), "bad")
    with pytest.raises(TypeError, match="shape must be a Shape"):
        GeometryInstance(RigidTransform(), "sphere", "bad")
    with pytest.raises(KeyError):
        sg.remove_geometry(src, GeometryId.get_new_id())


# --------------------------------------------------------------------- roles

def test_roles(scene):
    sg, src, base, *_ = scene
    g = sg.register_geometry(src, base, instance("g"))
    inspector = sg.model_inspector()
    assert inspector.num_geometries_with_role(Role.UNASSIGNED) == 1
    sg.assign_role(src, g, ProximityProperties())
    sg.assign_role(src, g, make_phong_illustration_properties(Rgba(1, 0, 0)))
    sg.assign_role(src, g, PerceptionProperties())
    assert inspector.get_roles(g) == {Role.PROXIMITY, Role.ILLUSTRATION, Role.PERCEPTION}
    assert inspector.num_geometries_with_role(Role.PROXIMITY) == 1
    assert inspector.get_geometries(base, Role.PROXIMITY) == [g]
    assert inspector.get_geometry_id_by_name(base, Role.PROXIMITY, "g") == g
    with pytest.raises(ValueError, match="already has the proximity role"):
        sg.assign_role(src, g, ProximityProperties())
    replacement = ProximityProperties()
    replacement.add_property("material", "mu", 0.3)
    sg.assign_role(src, g, replacement, RoleAssign.REPLACE)
    assert inspector.get_proximity_properties(g).get_property("material", "mu") == 0.3
    assert sg.remove_role(src, g, Role.PERCEPTION) == 1
    assert inspector.get_perception_properties(g) is None
    assert sg.remove_role(src, base, Role.ILLUSTRATION) == 1
    assert not inspector.has_role(g, Role.ILLUSTRATION)
    with pytest.raises(ValueError, match="no illustration role to replace"):
        sg.assign_role(src, g, IllustrationProperties(), RoleAssign.REPLACE)
    with pytest.raises(TypeError, match="properties must be"):
        sg.assign_role(src, g, {"mu": 1})


def test_names_are_unique_per_frame_and_role(scene):
    sg, src, base, arm, _ = scene
    a = sg.register_geometry(src, base, instance("same"))
    b = sg.register_geometry(src, base, instance("same"))
    sg.assign_role(src, a, ProximityProperties())
    sg.assign_role(src, b, IllustrationProperties())  # other role: fine
    with pytest.raises(ValueError, match="already has a geometry named 'same' with the "
                                         "proximity role"):
        sg.assign_role(src, b, ProximityProperties())
    c = sg.register_geometry(src, arm, instance("same"))
    sg.assign_role(src, c, ProximityProperties())  # other frame: fine


def test_branch_color_multiplies_down_the_tree(scene):
    sg, src, base, arm, hand = scene
    g = sg.register_geometry(src, hand, instance("g"))
    sg.assign_role(src, g, make_phong_illustration_properties(Rgba(0.8, 0.8, 0.8, 1.0)))
    inspector = sg.model_inspector()
    assert inspector.get_illustration_color(g) == Rgba(0.8, 0.8, 0.8, 1.0)
    sg.set_branch_color(src, base, Rgba(1.0, 1.0, 1.0, 0.5))
    sg.set_branch_color(src, arm, Rgba(0.5, 1.0, 1.0, 1.0))
    assert inspector.get_illustration_color(g).rgba() == pytest.approx((0.4, 0.8, 0.8, 0.5))
    assert inspector.get_branch_color(arm) == Rgba(0.5, 1.0, 1.0, 1.0)
    sg.set_branch_color(src, arm, None)
    assert inspector.get_illustration_color(g).rgba() == pytest.approx((0.8, 0.8, 0.8, 0.5))
    with pytest.raises(ValueError, match="world frame cannot be tinted"):
        sg.set_branch_color(src, sg.world_frame_id(), Rgba(1, 1, 1))


# ------------------------------------------------------------------- filters

def test_collision_filters(scene):
    sg, src, base, arm, hand = scene
    ids = {}
    for frame, name in ((base, "b"), (arm, "a"), (hand, "h")):
        ids[name] = sg.register_geometry(src, frame, instance(name))
        sg.assign_role(src, ids[name], ProximityProperties())
    ids["b2"] = sg.register_geometry(src, base, instance("b2"))
    sg.assign_role(src, ids["b2"], ProximityProperties())
    inspector = sg.model_inspector()
    assert inspector.collision_filtered(ids["b"], ids["b2"])  # same frame
    assert not inspector.collision_filtered(ids["b"], ids["a"])
    sg.exclude_collisions_within(GeometrySet([base, arm]))
    assert inspector.collision_filtered(ids["b"], ids["a"])
    assert inspector.collision_filtered(ids["b2"], ids["a"])
    assert not inspector.collision_filtered(ids["a"], ids["h"])
    sg.exclude_collisions_between(GeometrySet(ids["h"]), GeometrySet([ids["a"]]))
    assert inspector.collision_filtered(ids["a"], ids["h"])
    from geometry_core import CollisionFilterDeclaration

    sg.collision_filter_manager().apply(
        CollisionFilterDeclaration().allow_between(GeometrySet(base), GeometrySet(arm)))
    assert not inspector.collision_filtered(ids["b"], ids["a"])
    assert inspector.collision_filtered(ids["b"], ids["b2"])  # same frame stays
    with pytest.raises(KeyError):
        sg.exclude_collisions_within(GeometrySet(GeometryId.get_new_id()))


def test_anchored_pairs_are_always_filtered():
    sg = SceneGraph()
    src = sg.register_source("world_stuff")
    a = sg.register_anchored_geometry(src, instance("a"))
    b = sg.register_anchored_geometry(src, instance("b"))
    for g in (a, b):
        sg.assign_role(src, g, ProximityProperties())
    assert sg.model_inspector().collision_filtered(a, b)


# --------------------------------------------------------------------- poses

def test_world_poses_compose_down_the_tree(scene):
    sg, src, base, arm, hand = scene
    X_WB = RigidTransform(RollPitchYaw(0.1, -0.2, 0.3), [1.0, 2.0, 3.0])
    X_BA = RigidTransform(RollPitchYaw(0.4, 0.5, -0.6), [0.0, 0.5, 0.0])
    X_AH = RigidTransform(RollPitchYaw(-0.7, 0.8, 0.9), [0.2, 0.0, 0.1])
    sg.set_poses(src, {base: X_WB, arm: X_BA, hand: X_AH})
    q = sg.query_object()
    expected = (X_WB @ X_BA @ X_AH).get_as_matrix4()
    assert np.allclose(q.get_pose_in_world(hand).get_as_matrix4(), expected, atol=1e-14)
    assert np.allclose(q.get_pose_in_parent(hand).get_as_matrix4(), X_AH.get_as_matrix4())


def test_missing_pose_is_named(scene):
    sg, src, base, arm, hand = scene
    sg.set_poses(src, {base: RigidTransform()})
    with pytest.raises(ValueError, match="no pose has been set for frame.*robot::arm.*robot::hand"):
        sg.query_object()
    assert sg.frames_without_poses() == [arm, hand]


def test_set_poses_rejects_bad_input_and_changes_nothing(scene):
    sg, src, base, arm, hand = scene
    good = {base: RigidTransform([1.0, 0, 0]), arm: RigidTransform(), hand: RigidTransform()}
    sg.set_poses(src, good)
    before = sg.compute_world_poses()
    other = sg.register_source("other")
    foreign = sg.register_frame(other, GeometryFrame("foreign"))
    sg.set_poses(other, {foreign: RigidTransform()})
    bad_updates = [
        ({base: RigidTransform([9.0, 0, 0]), arm: np.eye(4)}, TypeError,
         "pose of frame 'arm' must be a RigidTransform"),
        ({base: RigidTransform([9.0, 0, 0]), FrameId.get_new_id(): RigidTransform()}, KeyError,
         "is not a registered frame"),
        ({base: RigidTransform([9.0, 0, 0]), foreign: RigidTransform()}, ValueError,
         "frame 'foreign' belongs to source 'other', not 'robot'"),
        ({base: RigidTransform([9.0, 0, 0]), "arm": RigidTransform()}, TypeError,
         "pose keys must be FrameId"),
    ]
    for update, error, message in bad_updates:
        with pytest.raises(error, match=message):
            sg.set_poses(src, update)
        assert np.array_equal(sg.compute_world_poses()[: len(before)], before)


def test_set_poses_takes_every_mapping_and_frames_registered_later(scene):
    # A dict of RigidTransforms goes through one compiled call; other
    # mappings, subclasses and frames registered after it must still work.
    from types import MappingProxyType

    class Tagged(RigidTransform):
        pass

    sg, src, base, arm, hand = scene
    sg.set_poses(src, {base: RigidTransform([1.0, 0, 0]), arm: RigidTransform(),
                       hand: RigidTransform()})
    tool = sg.register_frame(src, GeometryFrame("tool"), hand)
    with pytest.raises(ValueError, match="no pose has been set for frame.*robot::tool"):
        sg.query_object()
    sg.set_poses(src, {tool: RigidTransform([0, 0, 2.0])})
    assert np.allclose(sg.query_object().get_pose_in_world(tool).translation(), [1, 0, 2])
    sg.set_poses(src, MappingProxyType({arm: RigidTransform([0, 3.0, 0])}))
    sg.set_poses(src, {hand: Tagged([0, 0, 4.0])})
    assert np.allclose(sg.query_object().get_pose_in_world(tool).translation(), [1, 3, 6])
    with pytest.raises(ValueError, match="the world frame's pose cannot be set"):
        sg.set_poses(src, {base: RigidTransform(), sg.world_frame_id(): RigidTransform()})
    with pytest.raises(TypeError, match="expected a SourceId"):
        sg.set_poses([src], {base: RigidTransform()})


def test_frame_pose_vector(scene):
    sg, src, base, arm, hand = scene
    poses = FramePoseVector({base: RigidTransform([0, 0, 1.0])})
    poses.set_value(arm, RigidTransform())
    poses.set_value(hand, RigidTransform([0, 1.0, 0]))
    assert poses.size() == 3 and poses.has_id(arm)
    assert set(poses.frame_ids()) == {base, arm, hand}
    sg.set_poses(src, poses)
    assert np.allclose(sg.query_object().get_pose_in_world(hand).translation(), [0, 1, 1])
    with pytest.raises(TypeError, match="must be a RigidTransform"):
        poses.set_value(base, np.eye(4))
    with pytest.raises(KeyError, match="is not in this FramePoseVector"):
        FramePoseVector().value(base)
    poses.clear()
    assert poses.size() == 0


def test_vectorised_setter_matches_dict_setter(scene):
    sg, src, base, arm, hand = scene
    rng = np.random.default_rng(0)
    transforms = [RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.normal(size=3))
                  for _ in range(3)]
    frames = [base, arm, hand]
    sg.set_poses(src, dict(zip(frames, transforms)))
    by_dict = sg.compute_world_poses()
    sg.set_poses_array(src, frames, np.zeros((3, 4, 4)) + np.eye(4))
    sg.set_poses_array(src, frames, np.array([X.get_as_matrix4() for X in transforms]))
    assert np.array_equal(sg.compute_world_poses(), by_dict)


def test_vectorised_setter_takes_the_same_tuple_again_and_other_orders_between(scene):
    sg, src, base, arm, hand = scene
    order = (hand, base, arm)
    shifted = np.tile(np.eye(4), (3, 1, 1))
    shifted[:, 0, 3] = [3.0, 1.0, 2.0]
    sg.set_poses_array(src, order, shifted)
    sg.set_poses_array(src, [base, arm, hand], np.tile(np.eye(4), (3, 1, 1)))
    sg.set_poses_array(src, order, shifted)  # the tuple cached first: its slots, not the list's
    X_WF = sg.compute_world_poses()
    slot = sg.frame_slot_map()
    # base at x=1; arm on base, hand on arm (the scene fixture's chain): 1, 3, 6.
    assert [X_WF[slot[f], 0, 3] for f in (base, arm, hand)] == [1.0, 3.0, 6.0]
    other = SceneGraph()
    with pytest.raises(KeyError):
        other.set_poses_array(src, order, shifted)


@pytest.mark.parametrize("corrupt, message", [
    (lambda X: X.__setitem__((1, 0, 3), np.nan), "NaN|finite"),
    (lambda X: X.__setitem__((1, 0, 3), np.inf), "inf|finite"),
    (lambda X: X.__setitem__((1, 3, 0), 0.5), r"last row must be exactly \[0, 0, 0, 1\]"),
    (lambda X: X.__setitem__((1, 0, 0), 2.0), "not orthonormal"),
    (lambda X: X.__setitem__((1, 2, 2), -1.0), "reflection"),
])
def test_vectorised_setter_rejects_bad_rows_and_names_the_frame(scene, corrupt, message):
    sg, src, base, arm, hand = scene
    X = np.tile(np.eye(4), (3, 1, 1))
    sg.set_poses_array(src, [base, arm, hand], X)
    bad = X.copy()
    corrupt(bad)
    bad[0, 0, 3] = 5.0
    with pytest.raises(ValueError, match=message) as info:
        sg.set_poses_array(src, [base, arm, hand], bad)
    assert "'arm'" in str(info.value)
    assert sg.compute_world_poses()[1, 0, 3] == 0.0  # nothing applied


def test_vectorised_setter_shape_and_ownership(scene):
    sg, src, base, arm, hand = scene
    with pytest.raises(ValueError, match=r"X_PF must have shape \(2, 4, 4\), got \(3, 4, 4\)"):
        sg.set_poses_array(src, [base, arm], np.tile(np.eye(4), (3, 1, 1)))
    with pytest.raises(ValueError, match="world frame's pose cannot be set"):
        sg.set_poses_array(src, [sg.world_frame_id()], np.eye(4)[None])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-1.5, 1.5), st.floats(-3, 3),
                          st.floats(-2, 2), st.floats(-2, 2), st.floats(-2, 2)),
                min_size=1, max_size=6))
def test_chain_composition_property(chain):
    """A chain of frames composes to the product of its poses, at any depth."""
    sg = SceneGraph()
    src = sg.register_source("chain")
    parent, poses, expected = None, {}, RigidTransform()
    for k, (r, p, y, x, yy, z) in enumerate(chain):
        frame = sg.register_frame(src, GeometryFrame(f"f{k}"), parent)
        X_PF = RigidTransform(RollPitchYaw(r, p, y), [x, yy, z])
        poses[frame] = X_PF
        expected = expected @ X_PF
        parent = frame
    sg.set_poses(src, poses)
    X_WF = sg.query_object().get_pose_in_world(parent).get_as_matrix4()
    assert np.allclose(X_WF, expected.get_as_matrix4(), atol=1e-12)


def test_geometry_version_changes_with_topology_only(scene):
    sg, src, base, *_ = scene
    version = sg.geometry_version()
    sg.set_poses(src, {base: RigidTransform()})
    assert sg.geometry_version() == version
    g = sg.register_geometry(src, base, instance("g"))
    assert sg.geometry_version() > version
    version = sg.geometry_version()
    sg.assign_role(src, g, ProximityProperties())
    assert sg.geometry_version() > version


def test_snapshot_can_skip_frames_without_poses(scene):
    sg, src, base, arm, hand = scene
    other = sg.register_source("other")
    free = sg.register_frame(other, GeometryFrame("free"))
    ids = {}
    for frame, name in ((base, "b"), (arm, "a"), (hand, "h"), (free, "f")):
        ids[name] = sg.register_geometry(src if frame != free else other, frame,
                                         instance(name, Sphere(0.3)))
        sg.assign_role(src if frame != free else other, ids[name], ProximityProperties())
    sg.exclude_collisions_within(GeometrySet([ids["b"], ids["f"], ids["h"]]))
    sg.set_poses(src, {base: RigidTransform(), hand: RigidTransform()})  # arm has no pose
    sg.set_poses(other, {free: RigidTransform([0.1, 0, 0])})
    with pytest.raises(ValueError, match="robot::arm"):
        sg.query_object()
    q = sg.query_object(frames_without_pose="skip")
    # arm and hand (below arm) are left out; base and free remain, and their
    # exclusion from the declaration above still holds.
    assert q._scene.model.geometry_ids == (ids["b"], ids["f"])
    assert q.compute_point_pair_penetration() == []
    # While the same frames lack poses, snapshots share one partial model (and
    # with it the per-model caches), whatever the posed frames do.
    sg.set_poses(other, {free: RigidTransform([0.2, 0, 0])})
    again = sg.query_object(frames_without_pose="skip")
    assert again._scene.model is q._scene.model
    assert again.get_pose_in_world(ids["f"]).translation()[0] == pytest.approx(0.2)
    extra = sg.register_geometry(src, base, instance("extra", Sphere(0.1)))  # new topology
    sg.assign_role(src, extra, ProximityProperties())
    grown = sg.query_object(frames_without_pose="skip")
    assert grown._scene.model.geometry_ids == (ids["b"], ids["f"], extra)
    sg.remove_geometry(src, extra)
    sg.exclude_collisions_within(GeometrySet([]))
    sg.set_poses(src, {arm: RigidTransform()})
    full = sg.query_object(frames_without_pose="skip")
    assert len(full._scene.model.geometry_ids) == 4
    assert full._scene.model is sg.query_object()._scene.model
    with pytest.raises(ValueError, match="must be 'raise' or 'skip'"):
        sg.query_object(frames_without_pose="ignore")


def test_skipped_snapshot_still_reports_the_posed_pairs(scene):
    sg, src, base, arm, hand = scene
    b = sg.register_geometry(src, base, instance("b", Sphere(0.3)))
    h = sg.register_geometry(src, hand, instance("h", Sphere(0.3)))
    a = sg.register_geometry(src, arm, instance("a", Sphere(0.3)))
    for g in (b, h, a):
        sg.assign_role(src, g, ProximityProperties())
    sg.set_poses(src, {base: RigidTransform([0.5, 0, 0])})
    other = sg.register_source("other")
    free = sg.register_frame(other, GeometryFrame("free"))
    f = sg.register_geometry(other, free, instance("f", Sphere(0.3)))
    sg.assign_role(other, f, ProximityProperties())
    sg.set_poses(other, {free: RigidTransform([0.9, 0, 0])})
    pairs = sg.query_object(frames_without_pose="skip").compute_point_pair_penetration()
    assert [(p.id_A, p.id_B) for p in pairs] == [(b, f)]
    assert pairs[0].depth == pytest.approx(0.2)


def test_inspector_counts_and_lookups(scene):
    sg, src, base, arm, hand = scene
    other = sg.register_source("other")
    g = sg.register_geometry(src, arm, instance("g"))
    sg.assign_role(src, g, ProximityProperties())
    h = sg.register_geometry(src, arm, instance("h"))
    inspector = sg.model_inspector()
    assert set(inspector.get_all_source_ids()) == {src, other}
    assert inspector.num_sources() == 2
    assert inspector.source_is_registered(other)
    assert not inspector.source_is_registered(SourceId.get_new_id())
    assert inspector.get_child_frames(base) == [arm]
    assert inspector.get_child_frames(hand) == []
    assert inspector.num_frames_for_source(src) == 3
    assert inspector.num_frames_for_source(other) == 0
    assert inspector.num_geometries_for_frame_with_role(arm, Role.PROXIMITY) == 1
    assert inspector.num_geometries_for_frame_with_role(arm, Role.UNASSIGNED) == 1
    assert inspector.get_geometry_ids(GeometrySet(arm)) == {g, h}
    assert inspector.get_geometry_ids(GeometrySet(arm), Role.PROXIMITY) == {g}
    assert isinstance(inspector.get_properties(g, Role.PROXIMITY), ProximityProperties)
    assert inspector.get_properties(h, Role.PROXIMITY) is None


def test_collision_model_index_lookups(scene):
    sg, src, base, arm, hand = scene
    ids = [sg.register_geometry(src, frame, instance(name, Sphere(0.1)))
           for frame, name in ((hand, "h"), (base, "b"))]
    sg.assign_role(src, ids[1], ProximityProperties())  # only b has the proximity role
    sg.set_poses(src, {base: RigidTransform(), arm: RigidTransform(), hand: RigidTransform()})
    model = sg.query_object()._scene.model
    assert model.geometry_ids == (ids[1],)
    assert model.index_of(ids[1]) == model.find_index(ids[1]) == 0
    assert model.find_index(ids[0]) is None
    with pytest.raises(KeyError, match="not a geometry with the proximity role"):
        model.index_of(ids[0])


# ----------------------------------------------------------- batch registration


def _box(name: str, role=ProximityProperties) -> GeometryInstance:
    instance = GeometryInstance(RigidTransform(p=[0.0, 0.0, 0.1]), Box(0.1, 0.2, 0.3), name)
    if role is ProximityProperties:
        instance.set_proximity_properties(ProximityProperties())
    else:
        instance.set_illustration_properties(IllustrationProperties())
    return instance


def test_register_frames_is_register_frame_for_each_and_parents_may_be_new():
    batch, single = SceneGraph(), SceneGraph()
    ids = []
    for sg in (batch, single):
        source = sg.register_source("robot")
        frames = [GeometryFrame(f"l{k}", 2) for k in range(5)]
        parents = [None, frames[0].id(), frames[1].id(), frames[0].id(), None]
        if sg is batch:
            ids.append(sg.register_frames(source, frames, parents))
        else:
            ids.append([sg.register_frame(source, f, p) for f, p in zip(frames, parents)])
        sg.set_poses_array(source, ids[-1], np.tile(np.eye(4), (5, 1, 1)))
    for sg, frame_ids in zip((batch, single), ids):
        inspector = sg.model_inspector()
        assert [inspector.get_name(f) for f in frame_ids] == [f"l{k}" for k in range(5)]
        parents = [inspector.get_parent_frame(f) for f in frame_ids]
        assert parents == [inspector.world_frame_id(), frame_ids[0], frame_ids[1],
                           frame_ids[0], inspector.world_frame_id()]
        assert [inspector.get_frame_group(f) for f in frame_ids] == [2] * 5
        assert sg.frames_without_poses() == []


@pytest.mark.parametrize("case, error, match", [
    ("duplicate in batch", ValueError, "already has a frame named 'a'"),
    ("duplicate of registered", ValueError, "already has a frame named 'old'"),
    ("parent later in batch", KeyError, "is not a registered frame"),
    ("parent of another source", ValueError, "belongs to source 'other'"),
    ("lengths differ", ValueError, "2 frames but 1 parent ids"),
])
def test_register_frames_refuses_as_register_frame_and_registers_none(case, error, match):
    sg = SceneGraph()
    source, other = sg.register_source("robot"), sg.register_source("other")
    sg.register_frame(source, GeometryFrame("old"))
    foreign = sg.register_frame(other, GeometryFrame("x"))
    a, b = GeometryFrame("a"), GeometryFrame("b")
    frames, parents = {
        "duplicate in batch": ([a, GeometryFrame("a")], [None, None]),
        "duplicate of registered": ([a, GeometryFrame("old")], [None, None]),
        "parent later in batch": ([a, b], [b.id(), None]),
        "parent of another source": ([a, b], [None, foreign]),
        "lengths differ": ([a, b], [None]),
    }[case]
    version = sg.geometry_version()
    with pytest.raises(error, match=match):
        sg.register_frames(source, frames, parents)
    assert sg.model_inspector().num_frames_for_source(source) == 1
    assert sg.geometry_version() == version


def test_register_geometries_is_register_geometry_for_each():
    sg = SceneGraph()
    source = sg.register_source("robot")
    f1, f2 = (sg.register_frame(source, GeometryFrame(n)) for n in ("f1", "f2"))
    instances = [_box("a"), _box("b"), _box("a"), _box("a", IllustrationProperties)]
    ids = sg.register_geometries(source, [f1, f1, f2, f1], instances)
    assert ids == [g.id() for g in instances]
    inspector = sg.model_inspector()
    assert [inspector.get_frame_id(g) for g in ids] == [f1, f1, f2, f1]
    assert inspector.num_geometries_for_frame_with_role(f1, Role.PROXIMITY) == 2
    np.testing.assert_array_equal(inspector.get_pose_in_frame(ids[0]).translation(),
                                  [0.0, 0.0, 0.1])
    # The model sees them: a snapshot's collision model has the three proximity boxes.
    sg.set_poses(source, {f1: RigidTransform(), f2: RigidTransform(p=[5.0, 0.0, 0.0])})
    assert len(sg.query_object().compute_point_pair_penetration()) == 0
    assert inspector.num_geometries_with_role(Role.PROXIMITY) == 3


@pytest.mark.parametrize("case, match", [
    ("same name and role on one frame", "already has a geometry named 'a' with the proximity"),
    ("name taken by a registered geometry", "already has a geometry named 'old'"),
    ("world frame", "use register_anchored_geometry"),
    ("lengths differ", "1 frame ids but 2 geometries"),
])
def test_register_geometries_refuses_as_register_geometry_and_registers_none(case, match):
    sg = SceneGraph()
    source = sg.register_source("robot")
    frame = sg.register_frame(source, GeometryFrame("f"))
    sg.register_geometry(source, frame, _box("old"))
    world = sg.model_inspector().world_frame_id()
    frames, instances = {
        "same name and role on one frame": ([frame, frame], [_box("a"), _box("a")]),
        "name taken by a registered geometry": ([frame, frame], [_box("b"), _box("old")]),
        "world frame": ([frame, world], [_box("b"), _box("c")]),
        "lengths differ": ([frame], [_box("b"), _box("c")]),
    }[case]
    with pytest.raises(ValueError, match=match):
        sg.register_geometries(source, frames, instances)
    assert sg.model_inspector().num_geometries() == 1


def _arm_of_three():
    sg, src, *frames = _base_arm_hand()
    return sg, src, tuple(frames)


def test_pose_rows_setter_gives_set_poses_array_of_matrix4_from_pose_rows_to_the_bit():
    from geometry_core.math import matrix4_from_pose_rows

    rng = np.random.default_rng(5)
    order = (4, 5, 6, 0, 1, 2, 3)  # w x y z first, then the position, as a /tf buffer may
    for trial in range(40):
        rows = [tuple(rng.normal(scale=rng.choice([1e-3, 1.0, 1e3]), size=7).tolist())
                for _ in range(3)]
        if trial % 4 == 0:  # lists, a numpy row, an unnormalised quaternion
            rows = [list(rows[0]), np.array(rows[1]), tuple(5.0 * v for v in rows[2])]
        by_rows, src, frames = _arm_of_three()
        by_array, src_b, frames_b = _arm_of_three()
        by_rows.set_poses_from_pose_rows(src, frames, rows, order)
        by_array.set_poses_array(src_b, frames_b, matrix4_from_pose_rows(rows, order))
        assert by_rows.compute_world_poses().tobytes() == by_array.compute_world_poses().tobytes()


@pytest.mark.parametrize("bad, match", [
    ((0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.0), "rows\\[1\\]|quaternion"),
    ((0.1, math.nan, 0.3, 1.0, 0.0, 0.0, 0.0), "rows\\[1\\]|finite|NaN"),
    ((0.1, 0.2, 0.3, 1.0, 0.0, math.inf, 0.0), "rows\\[1\\]|finite|inf"),
    ((0.1, 0.2), "rows\\[1\\]"),
    (("x", 0.2, 0.3, 1.0, 0.0, 0.0, 0.0), None),
])
def test_pose_rows_setter_refuses_a_bad_row_and_changes_nothing(bad, match):
    sg, src, frames = _arm_of_three()
    good = (0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)
    sg.set_poses_from_pose_rows(src, frames, [good] * 3)
    before = sg.compute_world_poses().copy()
    writes = sg.pose_writes
    moved = (5.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    with pytest.raises((ValueError, TypeError), match=match):
        sg.set_poses_from_pose_rows(src, frames, [moved, bad, moved])
    np.testing.assert_array_equal(sg.compute_world_poses(), before)
    assert sg.pose_writes == writes


def test_pose_rows_setter_checks_frames_and_lengths_as_set_poses_array():
    sg, src, frames = _arm_of_three()
    other = sg.register_source("other")
    row = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="shape"):
        sg.set_poses_from_pose_rows(src, frames, [row] * 2)
    with pytest.raises((KeyError, ValueError)):
        sg.set_poses_from_pose_rows(other, frames, [row] * 3)
    with pytest.raises(ValueError, match="order"):
        sg.set_poses_from_pose_rows(src, frames, [row] * 3, order=(0, 1, 2))


def test_pose_rows_setter_reads_rows_a_number_empties_midway_as_they_were():
    class Shrinking:
        def __float__(self):
            rows.clear()
            return 0.5

    sg, src, frames = _arm_of_three()
    by_array, src_b, frames_b = _arm_of_three()
    rows = [(Shrinking(), 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)] + \
        [(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)] * 2
    expected = [(0.5,) + rows[0][1:]] + rows[1:]
    sg.set_poses_from_pose_rows(src, frames, rows)
    assert rows == []
    by_array.set_poses_from_pose_rows(src_b, frames_b, expected)
    assert sg.compute_world_poses().tobytes() == by_array.compute_world_poses().tobytes()
