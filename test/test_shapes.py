"""Shapes: sizes validated, local boxes right, meshes and hulls read from real files."""

import math

import numpy as np
import pytest
import trimesh

from geometry_core import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere
from geometry_core.shapes import Shape


@pytest.mark.parametrize("make, message", [
    (lambda: Sphere(0.0), "Sphere radius must be positive"),
    (lambda: Sphere(-1.0), "Sphere radius must be positive"),
    (lambda: Sphere(math.nan), "Sphere radius must be positive and finite"),
    (lambda: Box(1.0, -2.0, 3.0), "Box depth must be positive"),
    (lambda: Box(1.0, 2.0, math.inf), "Box height must be positive and finite"),
    (lambda: Cylinder(0.1, 0.0), "Cylinder length must be positive"),
    (lambda: Capsule(-0.1, 1.0), "Capsule radius must be positive"),
    (lambda: Ellipsoid(1.0, 2.0, 0.0), "Ellipsoid c must be positive"),
])
def test_bad_sizes_name_the_shape_and_size(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_non_number_size_is_a_type_error():
    with pytest.raises(TypeError, match="Sphere radius must be a number"):
        Sphere("big")


def test_shape_base_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        Shape()


def test_local_boxes():
    assert np.allclose(Box(1, 2, 3).local_aabb()[1], [0.5, 1.0, 1.5])
    assert np.allclose(Sphere(0.2).local_aabb()[1], [0.2, 0.2, 0.2])
    assert np.allclose(Cylinder(0.1, 1.0).local_aabb()[1], [0.1, 0.1, 0.5])
    assert np.allclose(Capsule(0.1, 1.0).local_aabb()[1], [0.1, 0.1, 0.6])
    assert np.allclose(Ellipsoid(1, 2, 3).local_aabb()[1], [1, 2, 3])
    assert HalfSpace().local_aabb() is None
    assert HalfSpace().bounding_radius() == math.inf
    assert Box(2, 2, 2).bounding_radius() == pytest.approx(math.sqrt(3))


def test_box_cube_and_size():
    cube = Box.make_cube(0.5)
    assert np.allclose(cube.size(), 0.5)
    assert np.allclose(Box(1, 2, 3).half_extents(), [0.5, 1, 1.5])


def test_one_shape_instance_is_shareable_and_immutable():
    ball = Sphere(0.1)
    with pytest.raises(AttributeError):
        ball.radius = 2.0


@pytest.fixture
def cube_obj(tmp_path):
    path = tmp_path / "cube.obj"
    trimesh.creation.box(extents=(1.0, 2.0, 3.0)).export(path)
    return str(path)


def test_mesh_reads_file_with_scale(cube_obj):
    mesh = Mesh(cube_obj, scale=2.0)
    assert mesh.vertices().shape[1] == 3
    assert np.allclose(mesh.local_aabb()[1], [1.0, 2.0, 3.0])
    assert mesh.faces().shape[1] == 3
    scaled = Mesh(cube_obj, scale=[1.0, 1.0, 0.5])
    assert np.allclose(scaled.local_aabb()[1], [0.5, 1.0, 0.75])


def test_mesh_errors(tmp_path, cube_obj):
    with pytest.raises(ValueError, match="file not found"):
        Mesh(str(tmp_path / "missing.obj")).vertices()
    with pytest.raises(ValueError, match=r"must be one of .obj, .stl, .ply, .off, .glb"):
        Mesh(str(tmp_path / "robot.urdf"))
    with pytest.raises(ValueError, match="scale must be finite and non-zero"):
        Mesh(cube_obj, scale=0.0)
    with pytest.raises(ValueError, match=r"scale must be a number or shape \(3,\)"):
        Mesh(cube_obj, scale=[1, 2])
    empty = tmp_path / "empty.obj"
    empty.write_text("# nothing here\n")
    with pytest.raises(ValueError, match="no triangles|could not be read"):
        Mesh(str(empty)).vertices()


def test_convex_hull_of_points_is_outward_wound():
    rng = np.random.default_rng(3)
    points = rng.normal(size=(40, 3))
    convex = Convex.from_points(points)
    vertices, faces = convex.hull()
    centroid = vertices.mean(axis=0)
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    assert np.all(np.einsum("ij,ij->i", normals, a - centroid) > 0)
    # Every input point lies inside or on the hull.
    offsets = np.einsum("ij,kj->ki", normals / np.linalg.norm(normals, axis=1)[:, None],
                        points) - np.einsum("ij,ij->i", normals / np.linalg.norm(
                            normals, axis=1)[:, None], a)
    assert offsets.max() < 1e-9


def test_convex_from_file_matches_box(cube_obj):
    convex = Convex(cube_obj)
    assert np.allclose(convex.local_aabb()[1], [0.5, 1.0, 1.5])
    assert len(convex.hull()[0]) == 8


def test_convex_bad_points():
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        Convex.from_points(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="at least 4 points"):
        Convex.from_points(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN or infinity"):
        Convex.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, np.nan]])
    with pytest.raises(ValueError, match="degenerate"):
        Convex.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]).hull()


def test_halfspace_make_pose():
    X_FC = HalfSpace.make_pose([0.0, 0.0, 2.0], [1.0, 2.0, 3.0])
    assert np.allclose(X_FC.rotation().matrix()[:, 2], [0, 0, 1])
    assert np.allclose(X_FC.translation(), [1, 2, 3])
    with pytest.raises(ValueError):
        HalfSpace.make_pose([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_binary_and_ascii_stl_give_the_same_hull(tmp_path):
    import trimesh

    mesh = trimesh.creation.icosphere(subdivisions=2, radius=0.1)
    binary, ascii_ = tmp_path / "b.stl", tmp_path / "a.STL"
    binary.write_bytes(mesh.export(file_type="stl"))
    ascii_.write_text(mesh.export(file_type="stl_ascii"))
    hulls = [Convex(str(p), [1.0, 2.0, -1.0]).hull() for p in (binary, ascii_)]
    for vertices, faces in hulls:
        assert len(faces) == len(mesh.faces)  # every corner of a sphere is on its hull
        np.testing.assert_allclose(np.sort(np.abs(vertices).max(axis=0)), [0.1, 0.1, 0.2],
                                   atol=1e-6)
    a, b = (np.unique(np.round(v, 6), axis=0) for v, _ in hulls)
    np.testing.assert_allclose(a, b, atol=1e-6)
    # The binary reader does not merge corners: Mesh keeps one triangle per face all the same.
    assert len(Mesh(str(binary)).faces()) == len(mesh.faces)


def test_a_file_is_read_once_and_reread_when_it_changes(tmp_path):
    import os

    import trimesh

    from geometry_core import shapes

    path = tmp_path / "m.stl"
    path.write_bytes(trimesh.creation.box(extents=(1, 1, 1)).export(file_type="stl"))
    shapes._file_cache.clear()  # the cache is bounded: a full one would evict instead of grow
    first, second = Convex(str(path)), Convex(str(path), [2.0, -2.0, 2.0])
    np.testing.assert_allclose(second.local_aabb()[1], 2.0 * first.local_aabb()[1])
    assert len(shapes._file_cache) == 1  # one read, one hull, two scales
    path.write_bytes(trimesh.creation.box(extents=(3, 1, 1)).export(file_type="stl"))
    os.utime(path, ns=(1, 1))  # same size: the modification time tells the change
    _, half = Convex(str(path)).local_aabb()
    np.testing.assert_allclose(half, [1.5, 0.5, 0.5])
