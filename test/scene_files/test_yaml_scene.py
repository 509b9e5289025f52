"""YAML scene files: what test/data/scene.yaml builds, and every error naming file and line."""

import math
import pathlib
import textwrap

import numpy as np
import pytest

from geometry_core import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Rgba,
    Role,
    Sphere,
)
from geometry_core.scene_files import SceneFileError, load_any, load_scene, load_scene_text

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
SCENE = DATA / "scene.yaml"


@pytest.fixture()
def scene():
    return load_scene(SCENE)


def load_text(text: str, path="inline.yaml"):
    return load_scene_text(textwrap.dedent(text), path)


def world(scene, name):
    return scene.scene_graph.query_object().get_pose_in_world(scene.names[name])


# ------------------------------------------------------------- the good file


def test_sources_frames_and_geometries_by_name(scene):
    assert set(scene.source_ids) == {"robot", "environment"}
    assert set(scene.frames) == {"base", "link1", "link2"}
    assert set(scene.geometries) == {"base_box", "arm", "joint_ball", "hand", "knob",
                                     "knob_hull", "floor", "post", "crate"}
    assert scene.names["link1"] == scene.frames["link1"]
    assert scene.name_of(scene.geometries["post"]) == "post"
    assert scene.kinematics is None


def test_every_shape_with_its_sizes(scene):
    inspector = scene.scene_graph.model_inspector()
    shape = {name: inspector.get_shape(g) for name, g in scene.geometries.items()}
    assert isinstance(shape["base_box"], Box)
    assert shape["base_box"].size().tolist() == [0.2, 0.2, 0.1]
    assert isinstance(shape["arm"], Capsule) and (shape["arm"].radius, shape["arm"].length) \
        == (0.03, 0.25)
    assert isinstance(shape["joint_ball"], Sphere) and shape["joint_ball"].radius == 0.04
    assert isinstance(shape["hand"], Ellipsoid)
    assert shape["hand"].semi_axes().tolist() == [0.05, 0.03, 0.02]
    assert isinstance(shape["knob"], Mesh) and shape["knob"].scale == 0.8
    assert isinstance(shape["knob_hull"], Convex)
    assert shape["knob_hull"].scale3.tolist() == [0.8, 0.8, 0.8]
    assert isinstance(shape["floor"], HalfSpace)
    assert isinstance(shape["post"], Cylinder)
    # Mesh paths are relative to the YAML file, not to the working directory.
    assert pathlib.Path(shape["knob"].filename) == DATA / "meshes" / "knob.obj"


def test_roles_and_colours(scene):
    inspector = scene.scene_graph.model_inspector()
    roles = {name: inspector.get_roles(g) for name, g in scene.geometries.items()}
    assert roles["base_box"] == {Role.PROXIMITY, Role.ILLUSTRATION, Role.PERCEPTION}
    assert roles["arm"] == {Role.PROXIMITY, Role.ILLUSTRATION}  # the default
    assert roles["knob"] == {Role.ILLUSTRATION}
    assert roles["knob_hull"] == {Role.PROXIMITY}
    assert roles["floor"] == {Role.PROXIMITY}
    base_box = scene.geometries["base_box"]
    assert inspector.get_illustration_properties(base_box).get_property("phong", "diffuse") \
        == Rgba(0.2, 0.2, 0.8, 1.0)
    assert inspector.get_perception_properties(base_box).get_property("phong", "diffuse") \
        == Rgba(0.2, 0.2, 0.8, 1.0)


def test_frame_tree_groups_and_poses(scene):
    inspector = scene.scene_graph.model_inspector()
    assert inspector.get_parent_frame(scene.frames["link1"]) == scene.frames["base"]
    assert inspector.get_parent_frame(scene.frames["base"]) == inspector.world_frame_id()
    assert inspector.get_frame_group(scene.frames["base"]) == 1
    assert inspector.get_frame_group(scene.frames["link2"]) == 0
    # base at z 0.1; link1 0.2 above it, turned 90 degrees about z; link2 0.2 along link1's x.
    np.testing.assert_allclose(world(scene, "link1").translation(), [0, 0, 0.3], atol=1e-15)
    np.testing.assert_allclose(world(scene, "link2").translation(), [0, 0.2, 0.3], atol=1e-15)
    np.testing.assert_allclose(world(scene, "link1").rotation().matrix(),
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_relative_to_composes_with_the_parent_geometry_pose(scene):
    inspector = scene.scene_graph.model_inspector()
    ball, arm = scene.geometries["joint_ball"], scene.geometries["arm"]
    assert inspector.get_frame_id(ball) == scene.frames["link1"]
    assert inspector.get_parent_geometry(ball) == arm
    # arm is pitched 90 degrees at x 0.15: its +z is link1's +x, so the ball is at x 0.3.
    np.testing.assert_allclose(inspector.get_pose_in_frame(ball).translation(), [0.3, 0, 0],
                               atol=1e-12)


def test_anchored_geometry_is_on_the_world_frame(scene):
    inspector = scene.scene_graph.model_inspector()
    assert inspector.is_anchored(scene.geometries["post"])
    np.testing.assert_allclose(world(scene, "post").translation(), [0, 0.4, 0.3])


def test_filters(scene):
    inspector = scene.scene_graph.model_inspector()
    g = scene.geometries
    assert inspector.collision_filtered(g["base_box"], g["arm"])  # exclude_within frames
    assert inspector.collision_filtered(g["arm"], g["hand"])
    assert inspector.collision_filtered(g["base_box"], g["floor"])  # exclude_between
    assert not inspector.collision_filtered(g["arm"], g["floor"])
    assert not inspector.collision_filtered(g["hand"], g["post"])


def test_named_poses_are_grouped_by_source_and_apply(scene):
    assert set(scene.named_poses) == {"home", "reach_post"}
    robot = scene.source_ids["robot"]
    assert set(scene.named_poses["reach_post"]) == {robot}
    assert set(scene.named_poses["reach_post"][robot]) == {scene.frames["link1"],
                                                           scene.frames["link2"]}
    assert scene.scene_graph.query_object().compute_point_pair_penetration() == []
    scene.apply_named_pose("reach_post")
    np.testing.assert_allclose(world(scene, "link2").translation(), [0, 0.35, 0.3],
                               atol=1e-15)
    pairs = {frozenset((scene.name_of(p.id_A), scene.name_of(p.id_B)))
             for p in scene.scene_graph.query_object().compute_point_pair_penetration()}
    assert pairs == {frozenset(("hand", "post")), frozenset(("knob_hull", "post"))}
    # Frames a pose leaves out keep theirs; set_poses could be called directly too.
    for source_id, poses in scene.named_poses["home"].items():
        scene.scene_graph.set_poses(source_id, poses)
    np.testing.assert_allclose(world(scene, "link2").translation(), [0, 0.35, 0.3],
                               atol=1e-15)


def test_unknown_named_pose_lists_the_names(scene):
    with pytest.raises(KeyError, match="no pose named 'nope'; poses: home, reach_post"):
        scene.apply_named_pose("nope")


def test_joint_positions_need_a_urdf(scene):
    with pytest.raises(ValueError, match="has no joints"):
        scene.set_joint_positions({"j": 0.0})


def test_pose_forms():
    scene = load_text("""
        sources:
          s:
            frames:
              - {name: a, pose: {rpy: {deg: [90, 0, 0]}}}
              - {name: b, pose: {rpy: [1.5707963267948966, 0, 0]}}
              - {name: c, pose: {wxyz: [2, 2, 0, 0], xyz: [1, 2, 3]}}
              - {name: d}
        """)
    R = {name: world(scene, name).rotation().matrix() for name in "abcd"}
    np.testing.assert_allclose(R["a"], R["b"], atol=1e-15)
    np.testing.assert_allclose(R["a"], R["c"], atol=1e-15)  # quaternions are normalised
    np.testing.assert_allclose(world(scene, "c").translation(), [1, 2, 3])
    np.testing.assert_allclose(R["d"], np.eye(3))


def test_load_any_picks_by_extension(tmp_path):
    assert load_any(SCENE).frames.keys() == {"base", "link1", "link2"}
    other = tmp_path / "scene.txt"
    other.write_text("sources: {}")
    with pytest.raises(SceneFileError, match=r"scene.txt: unknown scene file type '\.txt'"):
        load_any(other)
    with pytest.raises(SceneFileError, match="package roots apply to URDF files only"):
        load_any(SCENE, package_roots={"p": "."})


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize("name, message", [
    ("bad_syntax.yaml", r"bad_syntax.yaml:6: YAML syntax error: expected ',' or '\}'.*"
                        r"flow mapping started on line 5"),
    ("unknown_key.yaml", r"unknown_key.yaml:10: unknown key 'colour' in illustration role of "
                         r"geometry 'body'; allowed keys: rgba"),
    ("negative_size.yaml", r"negative_size.yaml:10: box size must have 3 positive numbers, "
                           r"got \[1, -2\]"),
    ("missing_mesh.yaml", r"missing_mesh.yaml:8: mesh file '../meshes/no_such_mesh.obj' of "
                          r"geometry 'body' not found"),
])
def test_broken_files_name_file_and_line(name, message):
    with pytest.raises(SceneFileError, match=message) as info:
        load_scene(DATA / "broken" / name)
    assert info.value.path.endswith(name)
    assert isinstance(info.value, ValueError)


def test_error_parts_are_attributes():
    with pytest.raises(SceneFileError) as info:
        load_scene(DATA / "broken" / "negative_size.yaml")
    assert info.value.line == 10
    assert info.value.message == "box size must have 3 positive numbers, got [1, -2]"


def test_unreadable_file():
    with pytest.raises(SceneFileError, match="no_such.yaml: cannot read the file"):
        load_scene(DATA / "no_such.yaml")


SOURCE = """
sources:
  s:
    frames:
      - name: f
    geometries:
      - name: g
        frame: f
"""


@pytest.mark.parametrize("text, message", [
    ("", r"inline.yaml:1: the file is empty"),
    ("[1, 2]", r"inline.yaml:1: the scene must be a mapping, got \[1, 2\]"),
    ("source: {}", r"inline.yaml:1: unknown key 'source' in the scene; allowed keys: "
                   r"description, sources, filters, poses"),
    ("sources: {}", r"inline.yaml:1: sources must name at least one source"),
    ("sources: {s: {}}\nsources: {t: {}}", r"inline.yaml:2: duplicate key 'sources' in the "
                                           r"scene \(first on line 1\)"),
    (SOURCE + "        shape: {type: cube, size: 1}",
     r"inline.yaml:9: unknown shape type 'cube' of geometry 'g'; shape types: box, sphere"),
    (SOURCE + "        shape: {type: sphere, radius: -1}",
     r"inline.yaml:9: sphere radius must be a positive number, got -1"),
    (SOURCE + "        shape: {type: sphere, radius: .inf}",
     r"inline.yaml:9: sphere radius must be a positive number, got \.inf"),
    (SOURCE + "        shape: {type: sphere}",
     r"inline.yaml:9: sphere shape of geometry 'g' needs the key 'radius'"),
    (SOURCE + "        shape: {type: halfspace, size: 1}",
     r"inline.yaml:9: unknown key 'size' in halfspace shape of geometry 'g'; allowed keys: "
     r"type$"),
    (SOURCE + "        shape: {type: capsule, radius: 1, length: true}",
     r"inline.yaml:9: capsule length must be a positive number, got true"),
    (SOURCE + "        shape: {type: mesh, file: meshes/x.obj, scale: [1, 2]}",
     r"inline.yaml:9: mesh scale must have 3 finite numbers, got \[1, 2\]"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        pose: {rpy: [0, 0]}",
     r"inline.yaml:10: rpy of geometry 'g' \(radians; or \{deg: \[...\]\}\) must have 3 "
     r"finite numbers, got \[0, 0\]"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n"
              "        pose: {rpy: [0, 0, 0], wxyz: [1, 0, 0, 0]}",
     r"inline.yaml:10: pose of geometry 'g' has both rpy and wxyz"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        pose: {wxyz: [0, 0, 0, 0]}",
     r"inline.yaml:10: wxyz quaternion of geometry 'g' is zero"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        pose: {rpy: {degrees: [1]}}",
     r"inline.yaml:10: unknown key 'degrees' in rpy of geometry 'g'; allowed keys: deg"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        pose: {xyz: [0, 0, .nan]}",
     r"inline.yaml:10: xyz of geometry 'g' must have 3 finite numbers"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        roles: [proximity, touch]",
     r"inline.yaml:10: unknown role 'touch' of geometry 'g'; roles: proximity, illustration, "
     r"perception"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n"
              "        roles: {illustration: {rgba: [1, 2, 0]}}",
     r"inline.yaml:10: rgba of geometry 'g' must be in \[0, 1\], got \[1, 2, 0\]"),
    (SOURCE + "        shape: {type: sphere, radius: 1}\n        relative_to: f",
     r"inline.yaml:7: geometry 'g' needs exactly one of 'frame'"),
    (SOURCE.replace("frame: f", "frame: nope") + "        shape: {type: sphere, radius: 1}",
     r"inline.yaml:8: geometry 'g' names unknown frame 'nope'; frames so far: f"),
    (SOURCE.replace("- name: g", "- name: f") + "        shape: {type: sphere, radius: 1}",
     r"inline.yaml:7: the name 'f' is already used on line 5"),
    (SOURCE.replace("- name: f", "- name: world"),
     r"inline.yaml:5: the name 'world' is reserved"),
    ("sources:\n  s:\n    frames:\n      - {name: a, parent: b}\n      - {name: b}",
     r"inline.yaml:4: frame 'a' names unknown frame 'b' \(frames must be declared after "
     r"their parent\)"),
    ("sources:\n  s:\n    frames: [{name: a}]\n  t:\n    frames: [{name: b, parent: a}]",
     r"inline.yaml:5: frame 'b' names frame 'a' of another source"),
    ("sources:\n  s:\n    frames: [{name: a, group: -1}]",
     r"inline.yaml:3: group of frame 'a' must be a non-negative integer, got -1"),
    ("sources:\n  s:\n    frames: [{name: a}]\nfilters:\n  - exclude_within: [a, zz]",
     r"inline.yaml:5: exclude_within names unknown frame or geometry 'zz'"),
    ("sources:\n  s:\n    frames: [{name: a}]\nfilters:\n  - exclude_between: [[a]]",
     r"inline.yaml:5: exclude_between needs two lists of names"),
    ("sources:\n  s:\n    frames: [{name: a}]\nfilters:\n  - {exclude_within: [a], "
     "allow_within: [a]}",
     r"inline.yaml:5: each filter has exactly one of"),
    ("sources:\n  s:\n    frames: [{name: a}]\nposes:\n  home:\n    b: {xyz: [0, 0, 0]}",
     r"inline.yaml:6: pose 'home' names unknown frame 'b'; frames: a"),
    ("sources:\n  s:\n    frames: [{name: a}]\nposes:\n  home:\n    a: {xyz: [0, 0]}",
     r"inline.yaml:6: xyz of frame 'a' in pose 'home' must have 3 finite numbers"),
])
def test_errors_name_file_and_line(text, message):
    with pytest.raises(SceneFileError, match=message):
        load_text(text)


def test_merge_keys_and_anchors_are_read():
    scene = load_text("""
        sources:
          s:
            frames: [{name: f}]
            geometries:
              - &ball {name: a, frame: f, shape: {type: sphere, radius: 0.1}}
              - {<<: *ball, name: b, pose: {xyz: [1, 0, 0]}}
        """)
    assert set(scene.geometries) == {"a", "b"}


def test_frames_without_pose_are_at_identity():
    scene = load_text("sources: {s: {frames: [{name: f}]}}")
    assert world(scene, "f").is_exactly_identity()
    assert math.isclose(len(scene.scene_graph.frames_without_poses()), 0)
