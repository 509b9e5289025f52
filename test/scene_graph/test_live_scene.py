"""Geometry added, moved, reshaped and removed between snapshots, against a scene built afresh."""

import threading
import time

import numpy as np
import pytest

from geometry_core import (
    Box,
    Capsule,
    GeometryFrame,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
    RigidTransform,
    RollPitchYaw,
    SceneGraph,
    Sphere,
)


def random_shape(rng):
    kind = rng.integers(3)
    if kind == 0:
        return Sphere(rng.uniform(0.05, 0.3))
    if kind == 1:
        return Box(*rng.uniform(0.05, 0.5, 3))
    return Capsule(rng.uniform(0.05, 0.2), rng.uniform(0.1, 0.5))


def random_pose(rng, spread=2.0):
    return RigidTransform(RollPitchYaw(*rng.uniform(-np.pi, np.pi, 3)),
                          rng.uniform(-spread, spread, 3))


class LiveScene:
    """A scene graph edited in place, and the list of what it holds to rebuild it from."""

    def __init__(self, rng, count=150, frames=3):
        self.sg = SceneGraph()
        self.source = self.sg.register_source("live")
        self.frames = [self.sg.register_frame(self.source, GeometryFrame(f"f{k}"))
                       for k in range(frames)]
        self.frame_poses = {f: random_pose(rng, 1.0) for f in self.frames}
        self.sg.set_poses(self.source, self.frame_poses)
        self.live = {}  # geometry id -> [name, frame index or None, shape, X]
        self.count = 0
        for _ in range(count):
            self.add(rng)

    def add(self, rng, instance_id=None):
        frame = None if rng.random() < 0.6 else int(rng.integers(len(self.frames)))
        shape, X = random_shape(rng), random_pose(rng)
        name = f"g{self.count}"
        self.count += 1
        instance = GeometryInstance(X, shape, name)
        instance.set_proximity_properties(ProximityProperties())
        if frame is None:
            g = self.sg.register_anchored_geometry(self.source, instance)
        else:
            g = self.sg.register_geometry(self.source, self.frames[frame], instance)
        self.live[g] = [name, frame, shape, X]
        return g

    def fresh(self):
        """The same world built from nothing, names for ids."""
        sg = SceneGraph()
        source = sg.register_source("live")
        frames = [sg.register_frame(source, GeometryFrame(f"f{k}"))
                  for k in range(len(self.frames))]
        sg.set_poses(source, {new: self.frame_poses[old] for old, new in zip(self.frames, frames)})
        for name, frame, shape, X in self.live.values():
            instance = GeometryInstance(X, shape, name)
            instance.set_proximity_properties(ProximityProperties())
            if frame is None:
                sg.register_anchored_geometry(source, instance)
            else:
                sg.register_geometry(source, frames[frame], instance)
        return sg


def answers(sg):
    """Penetrations and distances within 0.2 m of a snapshot, keyed by name pairs."""
    query = sg.query_object()
    inspector = sg.model_inspector()

    def key(a, b):
        return tuple(sorted((inspector.get_name(a), inspector.get_name(b))))

    penetrations = {key(p.id_A, p.id_B): p.depth for p in query.compute_point_pair_penetration()}
    distances = {key(p.id_A, p.id_B): p.distance
                 for p in query.compute_signed_distance_pairwise_closest_points(0.2)}
    return penetrations, distances, bool(query.has_collisions())


def assert_same(ours, reference):
    assert ours[2] == reference[2]
    for mine, theirs in zip(ours[:2], reference[:2]):
        assert mine.keys() == theirs.keys()
        for k in mine:
            assert mine[k] == pytest.approx(theirs[k], abs=1e-12)


def test_edits_between_snapshots_answer_as_a_scene_built_afresh():
    rng = np.random.default_rng(11)
    scene = LiveScene(rng)
    before = answers(scene.sg)
    old_query = scene.sg.query_object()
    old_penetrations = old_query.compute_point_pair_penetration()
    for step in range(40):
        action = rng.integers(4)
        ids = list(scene.live)
        if action == 0 or len(ids) < 10:
            scene.add(rng)
        elif action == 1:
            g = ids[rng.integers(len(ids))]
            scene.sg.remove_geometry(scene.source, g)
            del scene.live[g]
        elif action == 2:
            g = ids[rng.integers(len(ids))]
            X = random_pose(rng)
            scene.sg.change_pose(scene.source, g, X)
            scene.live[g][3] = X
        else:
            g = ids[rng.integers(len(ids))]
            shape = random_shape(rng)
            scene.sg.change_shape(scene.source, g, shape)
            scene.live[g][2] = shape
        if step % 3 == 0:
            # A snapshot after some edits only: several edits fold into one model.
            model = scene.sg.collision_model()
            assert model.size == len(scene.live)
            assert_same(answers(scene.sg), answers(scene.fresh()))
    # The snapshot taken before the edits still answers the world it froze.
    again = old_query.compute_point_pair_penetration()
    assert [(p.id_A, p.id_B, p.depth) for p in again] == \
        [(p.id_A, p.id_B, p.depth) for p in old_penetrations]
    assert answers(scene.sg) != before


def test_filters_survive_edits_on_either_side_in_id_order():
    rng = np.random.default_rng(5)
    sg = SceneGraph()
    source = sg.register_source("s")
    # Instances made first get the smaller ids: registering them late puts
    # them before geometry already in the model.
    early = [GeometryInstance(RigidTransform([0.0, 0.0, 0.05 * k]), Sphere(0.2), f"early{k}")
             for k in range(5)]
    a = sg.register_anchored_geometry(source, proximity(GeometryInstance(
        RigidTransform(), Sphere(0.2), "a")))
    b = sg.register_anchored_geometry(source, proximity(GeometryInstance(
        RigidTransform([0.1, 0.0, 0.0]), Sphere(0.2), "b")))
    frame = sg.register_frame(source, GeometryFrame("f"))
    sg.set_poses(source, {frame: RigidTransform()})
    c = sg.register_geometry(source, frame, proximity(GeometryInstance(
        RigidTransform([0.0, 0.1, 0.0]), Sphere(0.2), "c")))
    sg.exclude_collisions_between(GeometrySet([a]), GeometrySet([c]))
    sg.query_object()
    for k in rng.permutation(5):
        g = sg.register_anchored_geometry(source, proximity(early[k]))
        assert g.get_value() < a.get_value()
        pairs = {(p.id_A, p.id_B) for p in sg.query_object().compute_point_pair_penetration()}
        assert (b, c) in pairs and (a, c) not in pairs and (g, c) in pairs
    sg.remove_geometry(source, b)
    pairs = {(p.id_A, p.id_B) for p in sg.query_object().compute_point_pair_penetration()}
    assert (a, c) not in pairs and not any(b in pair for pair in pairs)
    assert sg.collision_model().is_filtered(sg.collision_model().index_of(a),
                                            sg.collision_model().index_of(c))


def proximity(instance):
    instance.set_proximity_properties(ProximityProperties())
    return instance


def test_geometry_posed_on_a_moved_geometry_moves_with_it():
    sg = SceneGraph()
    source = sg.register_source("s")
    frame = sg.register_frame(source, GeometryFrame("f"))
    sg.set_poses(source, {frame: RigidTransform([0.0, 0.0, 1.0])})
    parent = sg.register_geometry(source, frame, proximity(GeometryInstance(
        RigidTransform([1.0, 0.0, 0.0]), Box(0.1, 0.1, 0.1), "parent")))
    child = sg.register_geometry(source, parent, proximity(GeometryInstance(
        RigidTransform([0.0, 0.5, 0.0]), Sphere(0.1), "child")))
    sg.change_pose(source, parent, RigidTransform([2.0, 0.0, 0.0]))
    query = sg.query_object()
    assert np.allclose(query.get_pose_in_world(child).translation(), [2.0, 0.5, 1.0])
    with pytest.raises(TypeError, match="X_FG must be a RigidTransform"):
        sg.change_pose(source, parent, np.eye(4))
    with pytest.raises(TypeError, match="shape must be a Shape"):
        sg.change_shape(source, parent, "box")
    other = sg.register_source("other")
    with pytest.raises(ValueError, match="belongs to source 's'"):
        sg.change_pose(other, parent, RigidTransform())
    assert np.allclose(sg.query_object().get_pose_in_world(child).translation(), [2.0, 0.5, 1.0])


def test_snapshots_on_other_threads_see_the_scene_before_or_after_a_change():
    rng = np.random.default_rng(2)
    scene = LiveScene(rng, count=300)
    anchor = scene.sg.register_anchored_geometry(scene.source, proximity(GeometryInstance(
        RigidTransform([10.0, 10.0, 10.0]), Sphere(0.5), "anchor")))
    # The visitor comes on a frame: anchored pairs are never reported.
    far = scene.sg.register_frame(scene.source, GeometryFrame("far"))
    scene.sg.set_poses(scene.source, {far: RigidTransform([10.0, 10.0, 10.3])})
    size = scene.sg.collision_model().size
    stop = threading.Event()
    seen, errors = [], []

    def reader():
        try:
            while not stop.is_set():
                query = scene.sg.query_object()
                n = query._scene.model.size
                touching = any(anchor in (p.id_A, p.id_B)
                               for p in query.compute_point_pair_penetration())
                seen.append((n, touching))
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(40):
            g = scene.sg.register_geometry(scene.source, far, proximity(GeometryInstance(
                RigidTransform(), Sphere(0.5), "visitor")))
            time.sleep(0.002)
            scene.sg.remove_geometry(scene.source, g)
            time.sleep(0.002)
    finally:
        stop.set()
    for thread in threads:
        thread.join()
    assert not errors and seen
    assert all((n, touching) in ((size, False), (size + 1, True)) for n, touching in seen)
    assert {(size, False), (size + 1, True)} <= set(seen)
