"""Point clouds on the scene graph answer every query as the same points registered as spheres."""

import numpy as np
import pytest

from geometry_core import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    ProximityProperties,
    RigidTransform,
    RollPitchYaw,
    SceneGraph,
    Sphere,
)

RADIUS = 0.02


def random_shape(rng):
    kind = rng.integers(5)
    if kind == 0:
        return Sphere(rng.uniform(0.05, 0.2))
    if kind == 1:
        return Box(*rng.uniform(0.05, 0.4, 3))
    if kind == 2:
        return Capsule(rng.uniform(0.03, 0.15), rng.uniform(0.1, 0.4))
    if kind == 3:
        return Cylinder(rng.uniform(0.03, 0.15), rng.uniform(0.1, 0.4))
    return Ellipsoid(*rng.uniform(0.05, 0.2, 3))


def random_pose(rng, spread=0.5):
    return RigidTransform(RollPitchYaw(*rng.uniform(-np.pi, np.pi, 3)),
                          rng.uniform(-spread, spread, 3))


def random_points(rng, count=600):
    points = rng.uniform(-0.7, 0.7, (count, 3))
    points[rng.choice(count, 5, replace=False), rng.integers(3)] = np.nan
    points[rng.integers(count)] = [np.inf, 0.0, 0.0]
    return points


def scene(seed, points, on_frame, as_spheres):
    """A random scene of 4 frames and 14 geometries; the points as a cloud or as spheres.

    The points are registered after the first 10 geometries, so ids rank the
    same way in both scenes. Returns the scene graph, its source, the cloud's
    frame, and a map from each geometry id to a name ((cloud, row) for points).
    """
    rng = np.random.default_rng(seed)
    sg = SceneGraph()
    src = sg.register_source("s")
    frames = [sg.register_frame(src, GeometryFrame(f"f{k}")) for k in range(4)]
    sg.set_poses(src, {f: random_pose(rng) for f in frames})
    names = {}

    def add(k):
        shape = random_shape(rng) if k != 3 else HalfSpace()
        instance = GeometryInstance(random_pose(rng) if k != 3 else
                                    RigidTransform([0.0, 0.0, -0.6]), shape, f"g{k}")
        where = int(rng.integers(-1, 4)) if k != 3 else 0
        if where < 0:
            g = sg.register_anchored_geometry(src, instance)
        else:
            g = sg.register_geometry(src, frames[where], instance)
        sg.assign_role(src, g, ProximityProperties())
        names[g] = f"g{k}"

    for k in range(10):
        add(k)
    cloud_frame = frames[1] if on_frame else sg.world_frame_id()
    if as_spheres:
        for row, p in enumerate(points):
            if not np.all(np.isfinite(p)):
                continue
            instance = GeometryInstance(RigidTransform(p), Sphere(RADIUS), f"p{row}")
            if on_frame:
                g = sg.register_geometry(src, cloud_frame, instance)
            else:
                g = sg.register_anchored_geometry(src, instance)
            sg.assign_role(src, g, ProximityProperties())
            names[g] = ("cloud", row)
    else:
        cloud = sg.register_point_cloud(src, cloud_frame, points, RADIUS, "camera")
        names[cloud] = "cloud"
    for k in range(10, 14):
        add(k)
    return sg, src, names


def named(names, gid, index):
    name = names[gid]
    return ("cloud", index) if name == "cloud" else name


def penetrations(query, names):
    return [(named(names, r.id_A, r.point_index), named(names, r.id_B, r.point_index),
             r.p_WCa, r.p_WCb, r.nhat_BA_W, r.depth)
            for r in query.compute_point_pair_penetration()]


def distances(query, names, max_distance):
    return [(named(names, r.id_A, r.point_index), named(names, r.id_B, r.point_index),
             r.p_ACa, r.p_BCb, r.nhat_BA_W, r.distance, r.is_nhat_BA_W_unique)
            for r in query.compute_signed_distance_pairwise_closest_points(max_distance)]


def to_point(query, names, p_WQ, threshold):
    return [(named(names, r.id_G, r.point_index), r.p_GN, r.grad_W, r.distance,
             r.is_grad_W_unique)
            for r in query.compute_signed_distance_to_point(p_WQ, threshold)]


def assert_same(got, want, exact, keys=2):
    assert [row[:keys] for row in got] == [row[:keys] for row in want]
    for a, b in zip(got, want):
        for x, y in zip(a[keys:], b[keys:]):
            if exact:
                np.testing.assert_array_equal(x, y)
            else:
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)


@pytest.mark.parametrize("on_frame", [False, True], ids=["world", "frame"])
@pytest.mark.parametrize("seed", range(1, 5))
def test_cloud_answers_as_spheres(seed, on_frame):
    points = random_points(np.random.default_rng(100 + seed))
    cloud_sg, _, cloud_names = scene(seed, points, on_frame, as_spheres=False)
    sphere_sg, _, sphere_names = scene(seed, points, on_frame, as_spheres=True)
    cloud_q, sphere_q = cloud_sg.query_object(), sphere_sg.query_object()
    # In the world the sphere's pose is the point itself: answers agree to
    # the bit. On a frame the pose is composed once more (round-off).
    exact = not on_frame
    want = penetrations(sphere_q, sphere_names)
    assert sum(isinstance(row[0], tuple) or isinstance(row[1], tuple) for row in want) > 3
    assert_same(penetrations(cloud_q, cloud_names), want, exact)
    assert cloud_q.has_collisions() == sphere_q.has_collisions()
    for max_distance in (0.0, 0.05):
        assert_same(distances(cloud_q, cloud_names, max_distance),
                    distances(sphere_q, sphere_names, max_distance), exact)
    rng = np.random.default_rng(seed)
    for p_WQ in rng.uniform(-0.7, 0.7, (5, 3)):
        assert_same(to_point(cloud_q, cloud_names, p_WQ, 0.1),
                    to_point(sphere_q, sphere_names, p_WQ, 0.1), exact, keys=1)


def test_has_collisions_sees_only_the_cloud():
    sg = SceneGraph()
    src = sg.register_source("s")
    f = sg.register_frame(src, GeometryFrame("f"))
    g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), Box(0.2, 0.2, 0.2), "b"))
    sg.assign_role(src, g, ProximityProperties())
    sg.set_poses(src, {f: RigidTransform([0.0, 0.0, 0.0])})
    cloud = sg.register_point_cloud(src, sg.world_frame_id(), [[1.0, 1.0, 1.0]], 0.05)
    assert not sg.query_object().has_collisions()
    sg.change_point_cloud(src, cloud, [[2.0, 0.0, 0.0], [0.12, 0.0, 0.0]])
    query = sg.query_object()
    assert query.has_collisions()
    (hit,) = query.compute_point_pair_penetration()
    assert (hit.id_A, hit.id_B, hit.point_index) == (g, cloud, 1)
    assert hit.depth == pytest.approx(0.03)
    # On the box's own frame the cloud is not checked against the box.
    sg.remove_geometry(src, cloud)
    sg.register_point_cloud(src, f, [[0.0, 0.0, 0.0]], 0.05)
    assert not sg.query_object().has_collisions()


def test_replacing_points_leaves_earlier_snapshots_as_they_were():
    points = random_points(np.random.default_rng(7))
    sg, src, names = scene(1, points, False, as_spheres=False)
    (cloud,) = sg.get_point_cloud_ids()
    before = sg.query_object()
    answer = penetrations(before, names)
    moved = points + [0.05, 0.0, 0.0]
    sg.change_point_cloud(src, cloud, moved)
    after = sg.query_object()
    assert_same(penetrations(before, names), answer, exact=True)
    sphere_sg, _, sphere_names = scene(1, moved, False, as_spheres=True)
    assert_same(penetrations(after, names),
                penetrations(sphere_sg.query_object(), sphere_names), exact=True)
    record = sg.get_point_cloud(cloud)
    assert record.non_finite == 6 and record.radius == RADIUS
    np.testing.assert_array_equal(record.p_FP, moved)
    sg.remove_geometry(src, cloud)
    assert sg.get_point_cloud_ids() == []
    assert all(r.point_index is None for r in sg.query_object().compute_point_pair_penetration())


def test_bad_clouds_change_nothing():
    sg = SceneGraph()
    src = sg.register_source("s")
    other = sg.register_source("other")
    f = sg.register_frame(src, GeometryFrame("f"))
    sg.set_poses(src, {f: RigidTransform()})
    world = sg.world_frame_id()
    cloud = sg.register_point_cloud(src, world, [[0.0, 0.0, 0.0]], 0.1)
    version = sg.geometry_version()
    bad = [
        ((src, world, [[0.0, 0.0]], 0.1), ValueError, "shape"),
        ((src, world, [["a", 0.0, 0.0]], 0.1), ValueError, "numbers"),
        ((src, world, np.zeros((2, 3, 1)), 0.1), ValueError, "shape"),
        ((src, world, [[0.0, 0.0, 0.0]], -0.1), ValueError, "radius"),
        ((src, world, [[0.0, 0.0, 0.0]], 0.0), ValueError, "radius"),
        ((src, world, [[0.0, 0.0, 0.0]], float("nan")), ValueError, "radius"),
        ((src, world, [[0.0, 0.0, 0.0]], "0.1"), ValueError, "radius"),
        ((src, GeometryFrame("nowhere").id(), [[0.0, 0.0, 0.0]], 0.1), KeyError, "frame"),
        ((other, f, [[0.0, 0.0, 0.0]], 0.1), ValueError, "frame 'f'"),
        ((src, "f", [[0.0, 0.0, 0.0]], 0.1), TypeError, "frame_id"),
    ]
    for args, error, words in bad:
        with pytest.raises(error, match=words):
            sg.register_point_cloud(*args)
    with pytest.raises(ValueError, match="shape"):
        sg.change_point_cloud(src, cloud, [[1.0, 2.0]])
    with pytest.raises(ValueError, match="radius"):
        sg.change_point_cloud(src, cloud, [[1.0, 2.0, 3.0]], radius=-1.0)
    with pytest.raises(ValueError, match="point cloud"):
        sg.change_point_cloud(other, cloud, [[1.0, 2.0, 3.0]])
    with pytest.raises(KeyError, match="not a registered point cloud"):
        sg.change_point_cloud(src, GeometryInstance(RigidTransform(), Sphere(1.0), "x").id(),
                              [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="point cloud"):
        sg.remove_geometry(other, cloud)
    assert sg.get_point_cloud_ids() == [cloud]
    np.testing.assert_array_equal(sg.get_point_cloud(cloud).p_FP, [[0.0, 0.0, 0.0]])
    assert sg.get_point_cloud(cloud).radius == 0.1
    assert sg.geometry_version() == version


def test_finite_rows_marks_a_row_with_any_non_finite_value():
    from geometry_core.scene_graph.point_clouds import finite_rows

    rng = np.random.default_rng(7)
    points = rng.uniform(-1e300, 1e300, (600, 3))
    bad = rng.choice(600, 90, replace=False)
    points[bad, rng.integers(0, 3, 90)] = rng.choice([np.nan, np.inf, -np.inf], 90)
    expected = np.array([all(np.isfinite(v) for v in row) for row in points.tolist()])
    assert np.array_equal(finite_rows(points), expected)
    assert not finite_rows(points).all() and finite_rows(points).any()


def _one_geometry_scene(shape, X_WG, points, as_spheres):
    """One geometry in the world on a frame, and the points as a cloud or as spheres."""
    sg = SceneGraph()
    src = sg.register_source("s")
    f = sg.register_frame(src, GeometryFrame("f"))
    sg.set_poses(src, {f: X_WG})
    g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), shape, "g"))
    sg.assign_role(src, g, ProximityProperties())
    if as_spheres:
        for k, p in enumerate(points):
            s = sg.register_anchored_geometry(
                src, GeometryInstance(RigidTransform(p), Sphere(RADIUS), f"p{k}"))
            sg.assign_role(src, s, ProximityProperties())
    else:
        sg.register_point_cloud(src, sg.world_frame_id(), points, RADIUS)
    return sg


@pytest.mark.parametrize("seed", range(6))
def test_has_collisions_at_the_touch_as_spheres(seed):
    """A point a hair inside and a hair outside touching: the cloud answers as a sphere.

    The touching distance along a random ray from the geometry's centre is
    found by bisection on the sphere's answer; the cloud (its compiled
    yes/no screen, then its pairs) must agree on both sides, and among far
    points (many, none near).
    """
    rng = np.random.default_rng(50 + seed)
    shape, X_WG = random_shape(rng), random_pose(rng, 0.2)
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    centre = X_WG.translation()

    def sphere_hits(t):
        return _one_geometry_scene(shape, X_WG, [centre + t * u], True) \
            .query_object().has_collisions()

    low, high = 0.0, 2.0
    assert sphere_hits(low) and not sphere_hits(high)
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if sphere_hits(mid) else (low, mid)
    far = centre + rng.uniform(1.0, 2.0, (200, 3)) * rng.choice([-1, 1], (200, 3))
    for t in (low - 1e-7, low, high, high + 1e-7):
        points = np.vstack([far, centre + t * u])
        want = _one_geometry_scene(shape, X_WG, points, True).query_object().has_collisions()
        got = _one_geometry_scene(shape, X_WG, points, False).query_object().has_collisions()
        assert got == want, (t, low)
    assert not _one_geometry_scene(shape, X_WG, far, False).query_object().has_collisions()
