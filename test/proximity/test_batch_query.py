"""query_batch answers each configuration exactly as a query object would."""

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


@pytest.fixture
def arm():
    """A 3-link chain of capsules and boxes over a table and a ball."""
    sg = SceneGraph()
    src = sg.register_source("arm")
    frames, parent = [], None
    for k in range(3):
        parent = sg.register_frame(src, GeometryFrame(f"link{k}"), parent)
        frames.append(parent)
        for shape, name in ((Capsule(0.04, 0.2), "capsule"), (Box(0.06, 0.06, 0.06), "box")):
            g = sg.register_geometry(src, parent, GeometryInstance(
                RigidTransform([0.0, 0.0, 0.15]), shape, f"{name}{k}"))
            sg.assign_role(src, g, ProximityProperties())
    for a, b in zip(frames, frames[1:]):  # neighbours touch at the joint, as on a robot
        sg.exclude_collisions_between(GeometrySet(a), GeometrySet(b))
    world = sg.register_source("world")
    for shape, X, name in ((Box(0.4, 1.0, 0.1), RigidTransform([0.6, 0, 0.3]), "table"),
                           (Sphere(0.1), RigidTransform([0.0, 0.3, 0.5]), "ball")):
        g = sg.register_anchored_geometry(world, GeometryInstance(X, shape, name))
        sg.assign_role(world, g, ProximityProperties())
    sg.set_poses(src, {f: RigidTransform() for f in frames})
    return sg, src, frames


def configurations(count, seed=0):
    rng = np.random.default_rng(seed)
    X = np.tile(np.eye(4), (count, 3, 1, 1))
    for k in range(count):
        for link in range(3):
            X[k, link] = RigidTransform(RollPitchYaw(*rng.uniform(-1.5, 1.5, 3)),
                                        [0.0, 0.0, 0.0 if link == 0 else 0.3]).get_as_matrix4()
    return X


def test_batch_equals_one_query_per_configuration(arm):
    sg, src, frames = arm
    X_PF = configurations(12)
    batch = sg.query_batch(src, frames, X_PF)
    collisions = batch.has_collisions()
    penetrations = batch.compute_point_pair_penetration()
    distances = batch.compute_signed_distance_pairwise_closest_points(0.2)
    minimum = batch.compute_min_distance(0.2)
    assert len(batch) == 12
    assert collisions.any() and not collisions.all(), "want a mix of free and colliding states"
    for k in range(12):
        sg.set_poses_array(src, frames, X_PF[k])
        q = sg.query_object()
        assert collisions[k] == q.has_collisions()
        expected = q.compute_point_pair_penetration()
        assert [(p.id_A, p.id_B) for p in penetrations[k]] == [(p.id_A, p.id_B) for p in expected]
        assert np.allclose([p.depth for p in penetrations[k]], [p.depth for p in expected])
        expected = q.compute_signed_distance_pairwise_closest_points(0.2)
        assert np.allclose([d.distance for d in distances[k]], [d.distance for d in expected])
        assert minimum[k] == (min(d.distance for d in expected) if expected else np.inf)


def test_batch_leaves_the_scene_poses_alone(arm):
    sg, src, frames = arm
    before = sg.compute_world_poses()
    sg.query_batch(src, frames, configurations(3)).has_collisions()
    assert np.array_equal(sg.compute_world_poses(), before)


def test_batch_validates_every_row(arm):
    sg, src, frames = arm
    X_PF = configurations(4)
    X_PF[2, 1, 0, 0] = np.nan
    with pytest.raises(ValueError, match="link1"):
        sg.query_batch(src, frames, X_PF)
    with pytest.raises(ValueError, match=r"shape \(K, 3, 4, 4\)"):
        sg.query_batch(src, frames, X_PF[:, :2])


def test_batch_with_a_mesh_matches_single_queries_config_by_config(arm, tmp_path):
    """A configuration with a mesh pair goes to Python; every answer equals a single query's."""
    from geometry_core import Mesh

    sg, src, frames = arm
    obj = tmp_path / "tetra.obj"
    obj.write_text("v 0 0 0\nv 0.12 0 0\nv 0 0.12 0\nv 0 0 0.12\n"
                   "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    world = sg.register_source("meshes")
    g = sg.register_anchored_geometry(world, GeometryInstance(
        RigidTransform([0.15, -0.1, 0.45]), Mesh(str(obj)), "tetra"))
    sg.assign_role(world, g, ProximityProperties())
    X_PF = configurations(40, seed=3)
    batch = sg.query_batch(src, frames, X_PF)
    collisions = batch.has_collisions()
    minimum = batch.compute_min_distance(0.15)
    assert collisions.any() and not collisions.all()
    for k in range(len(X_PF)):
        sg.set_poses_array(src, frames, X_PF[k])
        q = sg.query_object()
        assert collisions[k] == q.has_collisions(), k
        pairs = q.compute_signed_distance_pairwise_closest_points(0.15)
        assert minimum[k] == min((p.distance for p in pairs), default=np.inf), k


def test_contacts_count_touching_and_any_contact_stops_at_the_first(arm):
    sg, src, frames = arm
    X_PF = configurations(40, seed=3)
    contacts = sg.query_batch(src, frames, X_PF).has_contacts()
    collisions = sg.query_batch(src, frames, X_PF).has_collisions()
    assert 0 < contacts.sum() < len(contacts)
    assert np.array_equal(contacts, collisions)  # no pair touches exactly in this sample
    free = X_PF[~contacts]
    assert not sg.query_batch(src, frames, free).any_contact()
    for k in np.flatnonzero(contacts)[:5]:
        mixed = np.concatenate([free[:7], X_PF[k:k + 1], free[7:]])
        assert sg.query_batch(src, frames, mixed).any_contact()
    # The compiled loop stops after the first configuration in contact: the
    # rest are not evaluated (NaN), the ones before are.
    first = int(np.flatnonzero(contacts)[0])
    batch = sg.query_batch(src, frames, np.concatenate([free[:3], X_PF[first:first + 1],
                                                        free[3:6]]))
    found, python, _ = batch._min_distances(0.0, True, first_contact=True)
    assert not python and np.all(found[:3] > 0.0) and found[3] <= 0.0
    assert np.all(np.isnan(found[4:]))
