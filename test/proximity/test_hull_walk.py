"""The hull support walk (csrc/convex_support.c) against a scan of every vertex.

Large hulls find their support point by walking the vertex graph uphill
from the last answer; the walk must find the scan's maximum for every
direction, flat faces and exact ties included (a box's faces seen head on,
a cylinder hull's caps, a flat polygon), whatever vertex it starts from.
``native.hull_support`` runs either over a sequence of directions, each
walk starting at the previous answer as a pair query's support calls do.
The second half checks that the robots' answers (hull-heavy scenes) are the
same with the walk as with the scan.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from geometry_core import native, tolerances
from geometry_core.proximity import specs
from geometry_core.shapes import Convex

RNG_SEED = 20261124
EPS = np.finfo(float).eps


def _spec(vertices: np.ndarray, triangles: np.ndarray) -> tuple:
    """A convex spec from vertices and outward triangles, with its vertex graph."""
    return specs.CONVEX, (0.0, 0.0, 0.0), specs.hull_arrays(vertices, triangles)


def _sphere_hull(n: int, rng) -> tuple:
    p = rng.normal(size=(n, 3))
    return specs.shape_spec(Convex.from_points(p / np.linalg.norm(p, axis=1, keepdims=True)))


def _cylinder_hull(rim: int) -> tuple:
    """A cylinder as a hull: two caps of ``rim`` coplanar points each."""
    t = np.linspace(0.0, 2.0 * np.pi, rim, endpoint=False)
    ring = np.c_[0.3 * np.cos(t), 0.3 * np.sin(t)]
    points = np.vstack([np.c_[ring, np.full(rim, -0.5)], np.c_[ring, np.full(rim, 0.5)]])
    return specs.shape_spec(Convex.from_points(points))


def _grid_box(cells: int) -> tuple:
    """A box whose faces are grids of coplanar vertices, triangulated.

    Unlike a hull from qhull (which keeps only the corners), its faces hold
    vertices inside them: a walk that stops where every neighbour is level
    would stop there with the face seen from behind.
    """
    import trimesh

    mesh = trimesh.creation.box(extents=(0.4, 0.7, 1.1))
    for _ in range(cells):
        mesh = mesh.subdivide()
    mesh.merge_vertices()
    return _spec(mesh.vertices, mesh.faces)


def _flat_polygon(rim: int) -> tuple:
    """A degenerate (flat) hull: a convex polygon, both sides fanned from a centre."""
    t = np.linspace(0.0, 2.0 * np.pi, rim, endpoint=False)
    vertices = np.vstack([[0.0, 0.0, 0.0], np.c_[np.cos(t), 0.5 * np.sin(t), np.zeros(rim)]])
    ring = np.arange(1, rim + 1)
    up = np.c_[np.zeros(rim, dtype=int), ring, np.roll(ring, -1)]
    return _spec(vertices, np.vstack([up, up[:, ::-1]]))


def _directions(spec: tuple, rng) -> np.ndarray:
    """Random, slowly turning, axis and exactly face-normal directions, each sign."""
    normals = spec[2][2]
    random = rng.normal(size=(600, 3))
    turning = 1.0 + np.cumsum(rng.normal(scale=0.03, size=(600, 3)), axis=0)
    axes = np.vstack([np.eye(3), np.eye(3) * 1e-3])
    exact = np.vstack([axes, normals[: 200]])
    d = np.vstack([random, turning, exact, -exact, rng.permutation(np.vstack([exact, -exact]))])
    return np.ascontiguousarray(d)


CASES = {
    "sphere hull 20": lambda rng: _sphere_hull(20, rng),
    "sphere hull 128": lambda rng: _sphere_hull(128, rng),
    "sphere hull 600": lambda rng: _sphere_hull(600, rng),
    "cylinder hull 24": lambda rng: _cylinder_hull(24),
    "cylinder hull 80": lambda rng: _cylinder_hull(80),
    "grid box": lambda rng: _grid_box(2),
    "flat polygon 40": lambda rng: _flat_polygon(40),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_walk_finds_the_scans_maximum(case):
    rng = np.random.default_rng(RNG_SEED)
    spec = CASES[case](rng)
    vertices = spec[2][0]
    assert len(vertices) > tolerances.CONVEX_HULL_WALK_MIN_VERTICES  # the walk, not the scan
    d = _directions(spec, rng)
    walked = native.hull_support(spec, d, True)
    scanned = native.hull_support(spec, d, False)
    h_walk = np.einsum("ij,ij->i", vertices[walked], d)
    h_scan = np.einsum("ij,ij->i", vertices[scanned], d)
    # The kernels compare one fused dot product for both; numpy's unfused one
    # may round two tied vertices an ulp apart, so equal up to that rounding.
    ulp = 4.0 * EPS * np.max(np.linalg.norm(vertices, axis=1)) * np.linalg.norm(d, axis=1)
    worst = int(np.argmax(h_scan - h_walk))
    assert np.all(h_walk >= h_scan - ulp), (case, d[worst], walked[worst], scanned[worst])
    assert np.all(h_walk <= h_scan + ulp)
    # Where the maximiser is unique, the walk lands on the scan's vertex.
    every = d @ vertices.T
    second = np.sort(every, axis=1)[:, -2]
    unique = h_scan - second > 1e3 * ulp
    assert np.all(np.asarray(walked)[unique] == np.asarray(scanned)[unique])


@pytest.mark.parametrize("case", ["sphere hull 600", "cylinder hull 80", "grid box"])
def test_walk_from_any_start(case):
    # A cold walk from any vertex, even the scan's minimiser, still ends on top.
    rng = np.random.default_rng(RNG_SEED)
    spec = CASES[case](rng)
    vertices = spec[2][0]
    directions = np.vstack([rng.normal(size=(20, 3)), np.eye(3), -np.eye(3)])
    for d in directions:
        row = np.ascontiguousarray([d])
        top = np.max(vertices @ d)
        for start in (0, len(vertices) - 1, int(np.argmin(vertices @ d))):
            walked = native.hull_support(spec, row, True, start)[0]
            assert vertices[walked] @ d == pytest.approx(top, abs=1e-14), (d, start)


def test_small_hulls_and_hulls_without_a_graph_scan():
    # At or under CONVEX_HULL_WALK_MIN_VERTICES, and without adjacency (a lone
    # triangle, a point set), the first maximiser is the answer, as the scan's.
    box = specs.shape_spec(Convex.from_points(np.array(
        [[x, y, z] for x in (-1, 1) for y in (-2, 2) for z in (-3, 3)], dtype=float)))
    d = np.ascontiguousarray(np.vstack([np.eye(3), -np.eye(3), [[1.0, 1.0, 1.0]]]))
    assert native.hull_support(box, d, True) == native.hull_support(box, d, False)
    points = specs.vertices_spec(np.random.default_rng(RNG_SEED).normal(size=(40, 3)))
    assert (native.hull_support(points, d, True)
            == native.hull_support(points, d, False))


def test_adjacency_is_checked():
    spec = _sphere_hull(40, np.random.default_rng(RNG_SEED))
    vertices, triangles, normals, offsets, size, start, neighbours = spec[2]
    d = np.ascontiguousarray(np.eye(3))
    bad = neighbours.copy()
    bad[3] = len(vertices)
    with pytest.raises(ValueError, match="hull adjacency is not CSR"):
        native.hull_support(
            (spec[0], spec[1], (vertices, triangles, normals, offsets, size, start, bad)), d, True)
    with pytest.raises(ValueError, match="needs both its offsets and its indices"):
        native.hull_support(
            (spec[0], spec[1], (vertices, triangles, normals, offsets, size, start)), d, True)


def test_vertex_adjacency_is_the_triangles_edges():
    triangles = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])
    offsets, neighbours = specs.vertex_adjacency(triangles, 4)
    assert offsets.tolist() == [0, 3, 6, 9, 12]
    for i in range(4):
        assert sorted(neighbours[offsets[i]:offsets[i + 1]]) == [j for j in range(4) if j != i]


def _robot_answers(urdf, share, configurations) -> tuple[dict, dict]:
    """Penetrations and signed distances within 0.1 m, by geometry names, per configuration."""
    from geometry_core.scene_files import load_urdf

    scene = load_urdf(urdf, package_roots={"example-robot-data": share})
    names = {g: k for k, g in scene.geometries.items()}
    sg = scene.scene_graph
    depths, distances = {}, {}
    for c, q in enumerate(configurations):
        sg.set_poses(scene.kinematics.source_id, scene.kinematics.calc_frame_poses(q))
        query = sg.query_object()
        for r in query.compute_point_pair_penetration():
            depths[(c, *sorted((names[r.id_A], names[r.id_B])))] = r.depth
        for r in query.compute_signed_distance_pairwise_closest_points(0.1):
            distances[(c, *sorted((names[r.id_A], names[r.id_B])))] = r.distance
    return depths, distances


@pytest.mark.parametrize("arm", ["panda_description/urdf/panda.urdf",
                                 "ur_description/urdf/ur5_robot.urdf"])
def test_robot_answers_are_the_scans(arm, monkeypatch):
    # The arms' collision hulls (72-220 vertices) walk; with their adjacency
    # stripped from the specs the kernels scan. Same pairs, same depths and
    # distances to the solver's accuracy (ties may pick another vertex, so
    # not bit for bit).
    import sys

    from geometry_core.scene_files import load_urdf

    share = next((Path(p) / "cmeel.prefix" / "share" / "example-robot-data" for p in sys.path
                  if (Path(p) / "cmeel.prefix" / "share" / "example-robot-data" / "robots")
                  .is_dir()), None)
    if share is None:
        pytest.skip("example-robot-data is not installed (pip install example-robot-data==6.0.0)")
    urdf = share / "robots" / arm
    scene = load_urdf(urdf, package_roots={"example-robot-data": share})
    hulls = [s for s in (scene.scene_graph.model_inspector().get_shape(g)
                         for g in scene.geometries.values()) if isinstance(s, Convex)]
    assert max(len(h.hull()[0]) for h in hulls) > tolerances.CONVEX_HULL_WALK_MIN_VERTICES
    rng = np.random.default_rng(RNG_SEED)
    joints = [scene.kinematics.joint(n) for n in scene.kinematics.joint_names()]
    configurations = [{j.name: float(rng.uniform(max(j.lower, -np.pi), min(j.upper, np.pi)))
                       for j in joints} for _ in range(12)]
    walked = _robot_answers(urdf, share, configurations)
    hull_spec, stripped = specs.hull_spec, []

    def scan_only(convex):
        stripped.append(convex)
        return hull_spec(convex)[:5]

    monkeypatch.setattr(specs, "hull_spec", scan_only)
    scanned = _robot_answers(urdf, share, configurations)
    assert len(stripped) >= len(hulls)
    assert walked[1]  # pairs within 0.1 m: the configurations ask something
    for ours, theirs in zip(walked, scanned):
        assert ours.keys() == theirs.keys()
        worst = max(abs(ours[k] - theirs[k]) for k in ours)
        assert worst <= tolerances.PAIR_CERTIFICATE_TOLERANCE
