"""Our load message against Drake's own, for the same scene built in pydrake.

pydrake's ``DrakeVisualizer.DispatchLoadMessage`` publishes on an in-process
``memq://`` DrakeLcm; we decode its bytes with our class and compare every
link and geometry field with what :func:`make_load_message` builds.
"""

from __future__ import annotations

import numpy as np
import pytest

from geometry_core import (
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
from geometry_core.viewer import conversions as conv
from geometry_core.viewer.lcmtypes.drake import lcmt_viewer_load_robot

pydrake_geometry = pytest.importorskip("pydrake.geometry")
pydrake_lcm = pytest.importorskip("pydrake.lcm")
pydrake_math = pytest.importorskip("pydrake.math")

pytestmark = pytest.mark.drake

CUBE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)) + (
    "f 1 2 4\nf 1 4 3\nf 5 7 8\nf 5 8 6\nf 1 5 6\nf 1 6 2\n"
    "f 3 4 8\nf 3 8 7\nf 1 3 7\nf 1 7 5\nf 2 6 8\nf 2 8 4\n")
GREY = Rgba(0.3, 0.3, 0.3, 1.0)


def _shapes(mesh_path):
    return [
        ("box", Box(0.1, 0.2, 0.3)), ("sphere", Sphere(0.25)), ("cyl", Cylinder(0.1, 0.7)),
        ("capsule", Capsule(0.05, 0.4)), ("ellipsoid", Ellipsoid(0.1, 0.2, 0.3)),
        ("mesh", Mesh(mesh_path, scale=0.5)), ("convex", Convex(mesh_path, scale=2.0)),
    ]


def _drake_shape(shape):
    g = pydrake_geometry
    if isinstance(shape, Box):
        return g.Box(shape.width, shape.depth, shape.height)
    if isinstance(shape, Sphere):
        return g.Sphere(shape.radius)
    if isinstance(shape, Cylinder):
        return g.Cylinder(shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return g.Capsule(shape.radius, shape.length)
    if isinstance(shape, Ellipsoid):
        return g.Ellipsoid(shape.a, shape.b, shape.c)
    if isinstance(shape, HalfSpace):
        return g.HalfSpace()
    if isinstance(shape, Mesh):
        return g.Mesh(shape.filename, shape.scale)
    if isinstance(shape, Convex):
        return g.Convex(shape.filename, shape.scale)
    raise AssertionError(shape)


def _both_scenes(mesh_path):
    """The same scene in geometry_core and in pydrake, every shape, two frame groups."""
    ours = SceneGraph()
    theirs = pydrake_geometry.SceneGraph()
    our_src = ours.register_source("robot")
    their_src = theirs.RegisterSource("robot")
    rng = np.random.default_rng(11)
    colors = {}
    for k, (name, shape) in enumerate(_shapes(mesh_path)):
        group = k % 2
        our_f = ours.register_frame(our_src, GeometryFrame(f"link_{name}", group))
        their_f = theirs.RegisterFrame(their_src,
                                       pydrake_geometry.GeometryFrame(f"link_{name}", group))
        rpy, p = rng.uniform(-2, 2, size=3), rng.uniform(-1, 1, size=3)
        rgba = Rgba(*rng.uniform(0, 1, size=3), 1.0)
        colors[name] = rgba
        our_g = ours.register_geometry(
            our_src, our_f, GeometryInstance(RigidTransform(RollPitchYaw(*rpy), p), shape, name))
        ours.assign_role(our_src, our_g, make_phong_illustration_properties(rgba))
        ours.assign_role(our_src, our_g, ProximityProperties())
        X_FG = pydrake_math.RigidTransform(pydrake_math.RollPitchYaw(*rpy), p)
        their_g = theirs.RegisterGeometry(
            their_src, their_f, pydrake_geometry.GeometryInstance(X_FG, _drake_shape(shape), name))
        theirs.AssignRole(their_src, their_g,
                          pydrake_geometry.MakePhongIllustrationProperties(list(rgba.rgba())))
        theirs.AssignRole(their_src, their_g, pydrake_geometry.ProximityProperties())
    rpy = [0.1, -0.2, 0.3]
    floor = ours.register_anchored_geometry(our_src, GeometryInstance(
        RigidTransform(RollPitchYaw(*rpy), [0, 0, -1]), HalfSpace(), "floor"))
    ours.assign_role(our_src, floor, make_phong_illustration_properties(GREY))
    ours.assign_role(our_src, floor, ProximityProperties())
    their_floor = theirs.RegisterAnchoredGeometry(their_src, pydrake_geometry.GeometryInstance(
        pydrake_math.RigidTransform(pydrake_math.RollPitchYaw(rpy), [0, 0, -1]),
        pydrake_geometry.HalfSpace(), "floor"))
    theirs.AssignRole(their_src, their_floor,
                      pydrake_geometry.MakePhongIllustrationProperties(list(GREY.rgba())))
    theirs.AssignRole(their_src, their_floor, pydrake_geometry.ProximityProperties())
    return ours, theirs


def _hull_summary(float_data):
    """Inline MESH data as (corner set, area, signed volume).

    Two triangulations of one polytope may split its faces along different
    diagonals, so triangles are not compared one by one: the corners, the
    surface area and the signed volume (positive when every triangle is wound
    outward) are.
    """
    data = np.asarray(float_data, dtype=float)
    V, T = int(data[0]), int(data[1])
    tris = data[2:2 + 3 * V].reshape(V, 3)[data[2 + 3 * V:].reshape(T, 3).astype(int)]
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0
    corners = {tuple(row) for row in np.round(tris.reshape(-1, 3), 5)}
    return corners, round(area, 4), round(volume, 4)


def _drake_load_message(scene_graph, role, default_color):
    lcm = pydrake_lcm.DrakeLcm("memq://")
    received = []
    lcm.Subscribe("DRAKE_VIEWER_LOAD_ROBOT", received.append)
    params = pydrake_geometry.DrakeVisualizerParams(
        role=role, default_color=pydrake_geometry.Rgba(*default_color.rgba()))
    pydrake_geometry.DrakeVisualizer.DispatchLoadMessage(scene_graph, lcm, params)
    lcm.HandleSubscriptions(0)
    assert len(received) == 1
    return lcmt_viewer_load_robot.decode(received[0])


@pytest.mark.parametrize("role, drake_role", [
    (Role.ILLUSTRATION, "kIllustration"), (Role.PROXIMITY, "kProximity")])
def test_load_message_equals_drakes(tmp_path, role, drake_role):
    mesh_path = tmp_path / "cube.obj"
    mesh_path.write_text(CUBE_OBJ)
    ours, theirs = _both_scenes(str(mesh_path))
    expected = _drake_load_message(theirs, getattr(pydrake_geometry.Role, drake_role), GREY)
    actual = lcmt_viewer_load_robot.decode(
        conv.make_load_message(ours.model_inspector(), role, default_color=GREY).encode())
    assert [(link.name, link.robot_num, link.num_geom) for link in actual.link] == [
        (link.name, link.robot_num, link.num_geom) for link in expected.link]
    for our_link, their_link in zip(actual.link, expected.link):
        for ours_g, theirs_g in zip(our_link.geom, their_link.geom):
            where = f"{our_link.name}: type {theirs_g.type}"
            assert ours_g.type == theirs_g.type, where
            np.testing.assert_allclose(ours_g.position, theirs_g.position, atol=1e-6,
                                       err_msg=where)
            np.testing.assert_allclose(ours_g.quaternion, theirs_g.quaternion, atol=1e-6,
                                       err_msg=where)
            np.testing.assert_allclose(ours_g.color, theirs_g.color, atol=1e-7, err_msg=where)
            if role == Role.PROXIMITY and our_link.name == "robot::link_mesh":
                # Drake's point contact uses a Mesh's convex hull, and it draws
                # that; our proximity queries use the mesh's own triangles, so
                # we draw the mesh file. Only the shape data differ.
                assert theirs_g.string_data == "" and ours_g.string_data
                assert _hull_summary(theirs_g.float_data)[2] > 0
                continue
            assert ours_g.string_data == theirs_g.string_data, where
            assert ours_g.num_float_data == theirs_g.num_float_data, where
            if ours_g.type == ours_g.MESH and not ours_g.string_data:
                # An inline hull: the same polytope, outward-wound, any triangulation.
                ours_hull = _hull_summary(ours_g.float_data)
                assert ours_hull == _hull_summary(theirs_g.float_data), where
                assert ours_hull[2] > 0, where
            else:
                np.testing.assert_allclose(ours_g.float_data, theirs_g.float_data, rtol=1e-7,
                                           err_msg=where)
