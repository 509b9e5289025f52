"""End to end: our LCM messages, over real UDP multicast, drawn by Drake's Meldis.

Each test runs in a private network namespace (see ``netns.py``): only a
loopback exists there, so ``udpm://`` traffic cannot leave the machine.
Meldis runs in-process; we pump its LCM queue and read back what it put in
its Meshcat (``HasPath`` and the packed ``set_object`` / ``set_transform``
messages, decoded with msgpack), then compare with the scene: one Meshcat
path per link at the link's world pose, one child per geometry at its pose in
the link, of the right three.js type and size.

Meldis is reached through ``pydrake.visualization._meldis.Meldis`` and its
``_lcm`` / ``_invoke_subscriptions`` members, and Meshcat through its
underscore ``_GetPacked*`` test hooks: pydrake 1.51's names, read from its
source. Meldis's Meshcat serves on localhost only.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import netns  # noqa: E402  (a test helper beside this file)

from geometry_core import (  # noqa: E402
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    Mesh,
    ProximityProperties,
    Rgba,
    RigidTransform,
    Role,
    RollPitchYaw,
    SceneGraph,
    Sphere,
    make_phong_illustration_properties,
)
from geometry_core.viewer import DrakeVisualizer  # noqa: E402
from geometry_core.viewer.conversions import contact_body_name  # noqa: E402

msgpack = pytest.importorskip("msgpack")
_meldis = pytest.importorskip("pydrake.visualization._meldis")

pytestmark = [pytest.mark.network, pytest.mark.drake, pytest.mark.slow]

#: LCM's default group and port, safe here: the namespace has only a loopback.
URL = "udpm://239.255.76.67:7667?ttl=0"

CUBE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)) + (
    "f 1 2 4\nf 1 4 3\nf 5 7 8\nf 5 8 6\nf 1 5 6\nf 1 6 2\n"
    "f 3 4 8\nf 3 8 7\nf 1 3 7\nf 1 7 5\nf 2 6 8\nf 2 8 4\n")


# ------------------------------------------------------------------- helpers


def inside_netns(request, monkeypatch) -> bool:
    """True: go on, we are in a private namespace. False: the test ran (and passed) in one."""
    inside = netns.run_here_or_in_netns(request)
    if inside:
        # Meldis opens DrakeLcm() with LCM's default URL: make that ours.
        monkeypatch.setenv("LCM_DEFAULT_URL", URL)
    return inside


def start_meldis():
    return _meldis.Meldis(meshcat_host="localhost")


def pump(meldis, seconds=0.4, publish=None):
    """Hand every LCM message that arrives within ``seconds`` to Meldis's handlers.

    ``publish()``, when given, is called between polls (a running publisher).
    Meldis's own loop does the same at 40 Hz; we skip its rate limit.
    """
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if publish is not None:
            publish()
        meldis._lcm.HandleSubscriptions(timeout_millis=10)
        meldis._invoke_subscriptions()
        meldis._invoke_poll()


def packed(meshcat, kind, path):
    data = {"object": meshcat._GetPackedObject,
            "transform": meshcat._GetPackedTransform}[kind](path)
    assert data, f"meshcat has no {kind} at {path}"
    return msgpack.unpackb(data, strict_map_key=False)


def transform_at(meshcat, path) -> np.ndarray:
    """The 4x4 pose Meshcat holds for ``path`` (three.js stores it column-major)."""
    return np.array(packed(meshcat, "transform", path)["matrix"]).reshape(4, 4).T


def count_children(meshcat, link_path) -> int:
    n = 0
    while meshcat.HasPath(f"{link_path}/{n}"):
        n += 1
    return n


def link_path(root, robot_num, link_name):
    return f"{root}/{robot_num}/{link_name.replace('::', '/')}"


def build_scene(tmp_path):
    """Every shape type, on two frames (one nested, two frame groups) and the world."""
    mesh_file = tmp_path / "cube.obj"
    mesh_file.write_text(CUBE_OBJ)
    sg = SceneGraph()
    src = sg.register_source("robot")
    base = sg.register_frame(src, GeometryFrame("base", 3))
    arm = sg.register_frame(src, GeometryFrame("arm", 7), parent_id=base)
    shapes = {
        base: [Box(0.1, 0.2, 0.3), Sphere(0.2), Cylinder(0.1, 0.5), Capsule(0.1, 0.4)],
        arm: [Ellipsoid(0.1, 0.2, 0.3), Mesh(str(mesh_file), scale=0.5),
              Convex(str(mesh_file), scale=[1.0, 2.0, 0.5]),
              Convex.from_points(np.random.default_rng(5).normal(size=(30, 3)))],
    }
    rng = np.random.default_rng(8)
    for frame, frame_shapes in shapes.items():
        for k, shape in enumerate(frame_shapes):
            X_FG = RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.uniform(-1, 1, 3))
            g = sg.register_geometry(src, frame, GeometryInstance(X_FG, shape, f"g{k}"))
            sg.assign_role(src, g, make_phong_illustration_properties(
                Rgba(*rng.uniform(0.2, 1.0, 3), 1.0)))
            sg.assign_role(src, g, ProximityProperties())
    floor = sg.register_anchored_geometry(src, GeometryInstance(
        RigidTransform(RollPitchYaw(0.1, 0.2, 0.0), [0, 0, -0.5]), HalfSpace(), "floor"))
    sg.assign_role(src, floor, make_phong_illustration_properties(Rgba(0.5, 0.5, 0.5, 1.0)))
    sg.set_poses(src, {base: RigidTransform(RollPitchYaw(0.0, 0.0, 0.7), [1.0, 2.0, 0.5]),
                       arm: RigidTransform(RollPitchYaw(0.4, 0.0, 0.0), [0.0, 0.0, 0.6])})
    return sg, src, base, arm, floor


THREE_TYPES = {Box: "BoxGeometry", Sphere: "SphereGeometry", Cylinder: "CylinderGeometry",
               Capsule: "CapsuleGeometry", Ellipsoid: "SphereGeometry",
               Mesh: "_meshfile_geometry", Convex: "BufferGeometry", HalfSpace: "BoxGeometry"}


def check_geometry(meshcat, path, shape, X_FG):
    """Assert Meshcat's object at ``path`` draws ``shape`` at ``X_FG``."""
    obj = packed(meshcat, "object", path)["object"]
    geometry = obj["geometries"][0]
    assert geometry["type"] == THREE_TYPES[type(shape)], path
    scale = np.diag(np.array(obj["object"]["matrix"]).reshape(4, 4).T)[:3]
    if isinstance(shape, Box):
        sizes = [geometry["width"], geometry["height"], geometry["depth"]]
        np.testing.assert_allclose(sizes, shape.size(), rtol=1e-6)
    elif isinstance(shape, HalfSpace):
        sizes = [geometry["width"], geometry["height"], geometry["depth"]]
        np.testing.assert_allclose(sizes, [50.0, 50.0, 1.0])
        X_FG = X_FG @ RigidTransform([0.0, 0.0, -0.5])
    elif isinstance(shape, Sphere):
        assert geometry["radius"] == pytest.approx(shape.radius, rel=1e-6)
    elif isinstance(shape, (Cylinder, Capsule)):
        radius = geometry.get("radius", geometry.get("radiusTop"))
        assert (radius, geometry["height"]) == pytest.approx((shape.radius, shape.length),
                                                             rel=1e-6)
    elif isinstance(shape, Ellipsoid):  # a unit sphere scaled to a, b, c
        assert geometry["radius"] == 1.0
        np.testing.assert_allclose(scale, shape.semi_axes(), rtol=1e-6)
    elif isinstance(shape, Mesh):
        assert geometry["format"] == "obj" and geometry["data"] == CUBE_OBJ
        np.testing.assert_allclose(scale, shape.scale3, rtol=1e-6)
    elif isinstance(shape, Convex):  # inline faceted hull: 3 corners per triangle
        array = geometry["data"]["attributes"]["position"]["array"]
        corners = np.frombuffer(array.data, dtype="<f4").reshape(-1, 3)
        vertices, faces = shape.hull()
        assert len(corners) == 3 * len(faces)
        np.testing.assert_allclose(corners.min(axis=0), vertices.min(axis=0), atol=1e-6)
        np.testing.assert_allclose(corners.max(axis=0), vertices.max(axis=0), atol=1e-6)
    np.testing.assert_allclose(transform_at(meshcat, path), X_FG.get_as_matrix4(), atol=1e-6,
                               err_msg=path)


def check_scene(meshcat, sg, root="/DRAKE_VIEWER", role=Role.ILLUSTRATION):
    """Assert every link and geometry of ``role`` is in Meshcat, posed as in ``sg``."""
    inspector = sg.model_inspector()
    query = sg.query_object()
    world = inspector.world_frame_id()
    for frame_id in inspector.get_all_frame_ids():
        geometry_ids = inspector.get_geometries(frame_id, role)
        if not geometry_ids:
            continue
        if frame_id == world:
            path = link_path(root, 0, "world")
        else:
            name = f"{inspector.get_owning_source_name(frame_id)}::{inspector.get_name(frame_id)}"
            path = link_path(root, inspector.get_frame_group(frame_id), name)
            np.testing.assert_allclose(
                transform_at(meshcat, path),
                query.get_pose_in_world(frame_id).get_as_matrix4(), atol=1e-6, err_msg=path)
        assert count_children(meshcat, path) == len(geometry_ids), path
        for j, g in enumerate(geometry_ids):
            check_geometry(meshcat, f"{path}/{j}", inspector.get_shape(g),
                           inspector.get_pose_in_frame(g))


# --------------------------------------------------------------------- tests


def test_meldis_draws_every_shape_at_its_pose(request, monkeypatch, tmp_path):
    if not inside_netns(request, monkeypatch):
        return
    sg, src, base, arm, _ = build_scene(tmp_path)
    meldis = start_meldis()
    viz = DrakeVisualizer(sg, lcm_url=URL)
    assert viz.publish_draw(0.0)
    pump(meldis)
    check_scene(meldis.meshcat, sg)
    # The colour travels too (Meshcat packs it as 0xRRGGBB, truncating r * 255).
    inspector = sg.model_inspector()
    g0 = inspector.get_geometries(base, Role.ILLUSTRATION)[0]
    r, g, b, _ = inspector.get_illustration_color(g0).rgba()
    material = packed(meldis.meshcat, "object", "/DRAKE_VIEWER/3/robot/base/0")["object"][
        "materials"][0]
    assert material["color"] == (int(r * 255) << 16) + (int(g * 255) << 8) + int(b * 255)
    # Move the robot: the next draw moves the links, and nothing is rebuilt.
    sg.set_poses(src, {base: RigidTransform([-1.0, 0.0, 0.2]),
                       arm: RigidTransform(RollPitchYaw(0.0, 1.2, 0.0), [0.1, 0.0, 0.3])})
    assert viz.publish_draw(1.0)
    pump(meldis)
    check_scene(meldis.meshcat, sg)


def test_meldis_shows_proximity_geometry_as_collision_geometry(request, monkeypatch, tmp_path):
    if not inside_netns(request, monkeypatch):
        return
    sg, *_ = build_scene(tmp_path)
    meldis = start_meldis()
    viz = DrakeVisualizer(sg, lcm_url=URL, role=Role.PROXIMITY)
    assert viz.load_channel() == "DRAKE_VIEWER_LOAD_ROBOT_PROXIMITY"
    viz.publish_draw(0.0)
    pump(meldis)
    check_scene(meldis.meshcat, sg, root="/Collision Geometry", role=Role.PROXIMITY)
    assert not meldis.meshcat.HasPath("/DRAKE_VIEWER/3")


@pytest.mark.parametrize("reload_period, expect_scene", [(0.25, True), (math.inf, False)])
def test_meldis_started_late_gets_the_scene_from_the_periodic_reload(
        request, monkeypatch, tmp_path, reload_period, expect_scene):
    if not inside_netns(request, monkeypatch):
        return
    sg, *_ = build_scene(tmp_path)
    viz = DrakeVisualizer(sg, lcm_url=URL, reload_period=reload_period)
    viz.dispatch_load_message()
    assert viz.publish_draw(0.0)  # nobody listens yet: load and draw are lost
    meldis = start_meldis()
    start = time.monotonic()
    pump(meldis, seconds=1.0, publish=lambda: viz.publish_draw(time.monotonic() - start))
    assert meldis.meshcat.HasPath("/DRAKE_VIEWER/3/robot/base/0") == expect_scene
    if expect_scene:
        check_scene(meldis.meshcat, sg)


def test_meldis_draws_penetrations_as_contact_arrows(request, monkeypatch):
    if not inside_netns(request, monkeypatch):
        return
    sg = SceneGraph()
    src = sg.register_source("robot")
    frames = [sg.register_frame(src, GeometryFrame(f"ball{k}")) for k in range(3)]
    for frame in frames:
        g = sg.register_geometry(src, frame, GeometryInstance(RigidTransform(), Sphere(0.1), "s"))
        sg.assign_role(src, g, ProximityProperties())
    sg.set_poses(src, {frames[0]: RigidTransform([0.0, 0.0, 0.0]),
                       frames[1]: RigidTransform([0.15, 0.0, 0.0]),
                       frames[2]: RigidTransform([0.15, 0.18, 0.0])})
    penetrations = sg.query_object().compute_point_pair_penetration()
    assert len(penetrations) == 2
    meldis = start_meldis()
    DrakeVisualizer(sg, lcm_url=URL).publish_contacts(penetrations, 0.0)
    pump(meldis)
    for pair in penetrations:
        inspector = sg.model_inspector()
        name_A = contact_body_name(inspector, pair.id_A)
        name_B = contact_body_name(inspector, pair.id_B)
        path = f"/CONTACT_RESULTS/point/{name_A}+{name_B}"
        assert meldis.meshcat.HasPath(path), path
        # Meldis draws a double arrow centred on the contact point, along the
        # force, each half |f| / (10 N/m) long: 100 N/m * depth / 10 = 10 depth.
        X_WC = transform_at(meldis.meshcat, path)
        np.testing.assert_allclose(X_WC[:3, 3], 0.5 * (pair.p_WCa + pair.p_WCb), atol=1e-9)
        np.testing.assert_allclose(X_WC[:3, 2], -pair.nhat_BA_W, atol=1e-9)
        scale = msgpack.unpackb(meldis.meshcat._GetPackedProperty(f"{path}/cylinder", "scale"))
        np.testing.assert_allclose(scale["value"], [1.0, 1.0, 10.0 * pair.depth], rtol=1e-9)
        visible = msgpack.unpackb(meldis.meshcat._GetPackedProperty(path, "visible"))
        assert visible["value"] is True
