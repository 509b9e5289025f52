"""The point and exact-pair kernels on every degenerate branch, checked by their contract.

``csrc/point.c`` and ``csrc/exact.c`` answer seeded random shapes, poses and
points, plus inputs built to land on every branch: centres, axes, faces,
edges, corners, mid-planes, ties, medial discs, parallel / crossing /
coincident capsule spines, boxes face to face, edge to edge, touching,
nested, turned by exactly 90 degrees or by a hair. Every answer must keep
the contract, checked with references that share no code with the kernels:

* a point: a unit gradient, ``p_GQ - p_GN = distance * grad``, N on the
  surface (each shape's implicit equation), the sign of the distance that of
  Q's side (the same equation), and the same answer when G and Q move
  together;
* a pair: a unit normal, ``p_WCa - p_WCb = distance * nhat_BA_W``, each
  witness on its shape's supporting plane along the normal, ``distance =
  g(nhat_BA_W)`` with ``g(n) = -h_A(-n) - h_B(n)`` from
  ``reference_support``, and no sampled direction with a larger g (the
  signed distance is the maximum of g); both orders alike.

Which of several equally valid answers a tie gives is not fixed (round-off
picks it, and numpy's BLAS and C round differently); the contract is.
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from geometry_core.proximity import specs
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Sphere,
)

sys.path.insert(0, os.path.dirname(__file__))
from reference_support import support_value_W  # noqa: E402
from shape_strategies import make_pose, sizes  # noqa: E402
from shape_strategies import points as hyp_points  # noqa: E402
from shape_strategies import poses as hyp_poses  # noqa: E402
from shape_strategies import shapes as hyp_shapes  # noqa: E402
from test_convex_reference import fibonacci_directions  # noqa: E402

OK, NOT_HANDLED = 0, 1
I4 = np.eye(4)


# --------------------------------------------------------------------------
# Poses and comparisons
# --------------------------------------------------------------------------


def random_pose(rng: np.random.Generator, spread: float = 0.3) -> np.ndarray:
    return make_pose(Rotation.random(random_state=rng).as_matrix(),
                     rng.uniform(-spread, spread, 3))


def _right_angle_rotations() -> list[np.ndarray]:
    """The 24 proper rotations that permute the axes: entries exactly 0 and ±1."""
    rotations = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((-1.0, 1.0), repeat=3):
            R = np.zeros((3, 3))
            R[range(3), perm] = signs
            if np.linalg.det(R) > 0:
                rotations.append(R)
    return rotations


RIGHT_ANGLES = _right_angle_rotations()


def test_status_constants_match_the_module():
    from geometry_core import native
    assert (native.OK, native.NOT_HANDLED) == (OK, NOT_HANDLED)
    assert len(RIGHT_ANGLES) == 24


def _shape_size(shape) -> float:
    if isinstance(shape, Sphere):
        return shape.radius
    if isinstance(shape, Box):
        return float(np.max(shape.half_extents()))
    if isinstance(shape, Cylinder | Capsule):
        return shape.radius + 0.5 * shape.length
    if isinstance(shape, Ellipsoid):
        return float(np.max(shape.semi_axes()))
    if isinstance(shape, Convex):
        return float(np.max(np.abs(shape.hull()[0])))
    return 1.0


def _is_exact_rotation(X: np.ndarray) -> bool:
    """Rotation entries all 0 or ±1: the world-to-G transform is exact."""
    return bool(np.all(np.isin(X[:3, :3], (-1.0, 0.0, 1.0))))


def _surface_level(shape, p_G: np.ndarray) -> float:
    """Signed distance-like level of p_G: 0 on the surface, < 0 inside (definitions only)."""
    x, y, z = p_G
    if isinstance(shape, Sphere):
        return float(np.linalg.norm(p_G) - shape.radius)
    if isinstance(shape, Box):
        h = shape.half_extents()
        return float(np.max(np.abs(p_G) - h))
    if isinstance(shape, Cylinder):
        return max(math.hypot(x, y) - shape.radius, abs(z) - 0.5 * shape.length)
    if isinstance(shape, Capsule):
        spine_z = min(max(z, -0.5 * shape.length), 0.5 * shape.length)
        return math.hypot(x, y, z - spine_z) - shape.radius
    if isinstance(shape, Ellipsoid):
        e = shape.semi_axes()
        # Scaled to metres near the surface: (|p/e| - 1) times the smallest axis.
        return float((np.linalg.norm(p_G / e) - 1.0) * np.min(e))
    if isinstance(shape, HalfSpace):
        return float(z)
    if isinstance(shape, Convex):
        vertices, faces = shape.hull()
        a, b, c = (vertices[faces[:, k]] for k in range(3))
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        return float(np.max(np.einsum("ij,ij->i", n, p_G - a)))
    raise AssertionError(shape)


def assert_point_contract(shape, X_WG, p_WQ, label=""):
    """Assert the point kernel's contract for one point; returns its answer."""
    status, got = specs.point(shape, X_WG, p_WQ)
    where = f"{label} {shape!r} X_WG={X_WG.tolist()} p_WQ={np.asarray(p_WQ).tolist()}"
    assert status == OK, where
    scale = max(_shape_size(shape), float(np.max(np.abs(p_WQ))), float(np.max(np.abs(X_WG))))
    tol = 1e-12 * (1.0 + scale)
    R_WG = X_WG[:3, :3]
    p_GQ = R_WG.T @ (np.asarray(p_WQ) - X_WG[:3, 3])
    assert abs(np.linalg.norm(got.grad_W) - 1.0) <= 1e-12, where
    np.testing.assert_allclose(p_GQ - got.p_GN, got.distance * (R_WG.T @ got.grad_W), rtol=0,
                               atol=10 * tol, err_msg=where)
    assert abs(_surface_level(shape, got.p_GN)) <= 10 * tol, where
    level = _surface_level(shape, p_GQ)
    if abs(level) > 10 * tol:
        assert (got.distance > 0) == (level > 0), (got.distance, level, where)
    # G and Q moved together: the same distance (a pose-independent answer).
    status, at_origin = specs.point(shape, I4, p_GQ)
    assert abs(at_origin.distance - got.distance) <= 10 * tol, where
    return got


_DIRECTIONS = fibonacci_directions(4000)


def _g(shape_A, X_WA, shape_B, X_WB, n_W) -> np.ndarray:
    return -support_value_W(shape_A, X_WA, -n_W) - support_value_W(shape_B, X_WB, n_W)


def assert_pair_contract(shape_A, X_WA, shape_B, X_WB, label=""):
    """Assert the exact-pair kernel's contract for one pair, both orders; returns its answer."""
    status, got = specs.pair(shape_A, X_WA, shape_B, X_WB, kernel="exact")
    where = f"{label} A={shape_A!r} X_WA={X_WA.tolist()} B={shape_B!r} X_WB={X_WB.tolist()}"
    assert status == OK, where
    scale = max(_shape_size(shape_A), _shape_size(shape_B),
                float(np.max(np.abs(X_WA))), float(np.max(np.abs(X_WB))))
    tol = 1e-10 * (1.0 + scale)
    n = got.nhat_BA_W
    assert abs(np.linalg.norm(n) - 1.0) <= 1e-12, where
    np.testing.assert_allclose(got.p_WCa - got.p_WCb, got.distance * n, rtol=0, atol=tol,
                               err_msg=where)
    assert abs(n @ got.p_WCa + support_value_W(shape_A, X_WA, -n)[0]) <= tol, where
    assert abs(n @ got.p_WCb - support_value_W(shape_B, X_WB, n)[0]) <= tol, where
    assert abs(_g(shape_A, X_WA, shape_B, X_WB, n)[0] - got.distance) <= tol, where
    assert np.max(_g(shape_A, X_WA, shape_B, X_WB, _DIRECTIONS)) <= got.distance + tol, where
    status, back = specs.pair(shape_B, X_WB, shape_A, X_WA, kernel="exact")
    assert status == OK, where
    assert abs(back.distance - got.distance) <= tol, where
    return got


# --------------------------------------------------------------------------
# Shapes and their special points (in G)
# --------------------------------------------------------------------------


def _cube_convex(half: float) -> Convex:
    corners = np.array(list(itertools.product((-half, half), repeat=3)))
    return Convex.from_points(corners)


def _shapes(kind: str, rng: np.random.Generator) -> list:
    """Shapes of one kind: special proportions at three scales, random sizes at 1."""
    out = []
    for scale in (1e-3, 1.0, 40.0):
        special = scale != 1.0
        if kind == "sphere":
            out += [Sphere(scale * 0.3)]
            out += [] if special else [Sphere(rng.uniform(0.05, 0.5))]
        elif kind == "box":
            out += [Box(*(scale * np.array([0.2, 0.4, 0.6]))), Box.make_cube(scale * 0.5)]
            out += [] if special else [Box(*rng.uniform(0.05, 0.5, 3))]
        elif kind == "cylinder":
            out += [Cylinder(scale * 0.2, scale * 0.4),  # radius == half length: ties
                    Cylinder(scale * 0.1, scale * 1.0)]  # the barrel nearest on the axis
            out += [] if special else [Cylinder(*rng.uniform(0.05, 0.5, 2)),
                                       Cylinder(0.3, 0.2)]  # the caps nearer than the barrel
        elif kind == "capsule":
            out += [Capsule(scale * 0.1, scale * 0.4)]
            out += [] if special else [Capsule(*rng.uniform(0.05, 0.5, 2))]
        elif kind == "ellipsoid":
            out += [Ellipsoid(*(scale * np.array([0.3, 0.2, 0.1])))]
            out += [] if special else [
                Ellipsoid(0.1, 0.3, 0.2),  # smallest axis x
                Ellipsoid(0.25, 0.25, 0.25),  # a sphere
                Ellipsoid(0.3, 0.1, 0.1),  # the two smallest axes tie
                Ellipsoid(0.1, 0.1, 0.3),
                Ellipsoid(*rng.uniform(0.05, 0.5, 3))]
        elif kind == "halfspace":
            out += [HalfSpace()]
        elif kind == "convex":
            out += [_cube_convex(scale * 0.25)]
            # A turned cube: its coplanar triangles' normals differ by round-off.
            turned = _cube_convex(0.25).hull()[0] @ Rotation.random(random_state=rng).as_matrix()
            out += [] if special else [Convex.from_points(rng.uniform(-0.3, 0.3, (12, 3))),
                                       Convex.from_points(turned)]
    return out


def _special_points_G(shape, rng: np.random.Generator) -> list[np.ndarray]:
    """Points in G on (and just off) every feature the kernels branch on."""
    points = [np.zeros(3)]
    if isinstance(shape, Sphere):
        r = shape.radius
        for axis, s in itertools.product(range(3), (-1.0, 1.0)):
            for f in (0.5, 1.0, 1.5):
                points.append(np.eye(3)[axis] * s * f * r)
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        points += [u * r, u * 1e-16 * r, u * 1e-13, 2 * u * r]
    elif isinstance(shape, Box):
        h = shape.half_extents()
        levels = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)
        points += [np.array(f) * h for f in itertools.product(levels, repeat=3)]
        m = float(np.min(h))  # equal depth to two faces (ties) in every pair of axes
        for i, j in itertools.combinations(range(3), 2):
            for si, sj in itertools.product((-1.0, 1.0), repeat=2):
                p = np.zeros(3)
                p[i] = si * (h[i] - 0.4 * m)
                p[j] = sj * (h[j] - 0.4 * m)
                points.append(p)
    elif isinstance(shape, Cylinder | Capsule):
        r, hl = shape.radius, 0.5 * shape.length
        extra = r if isinstance(shape, Capsule) else 0.0
        zs = (-hl - 1.5 * extra - 0.5 * hl, -hl - extra, -hl, -0.5 * hl, 0.0, 0.3 * hl,
              hl - 0.6 * r, hl, hl + 0.5 * extra, hl + extra, 1.5 * hl + 2 * extra)
        for radial in (0.0, 1e-17 * r, 0.4 * r, r, 1.5 * r):
            for angle in (0.0, math.pi / 2, math.pi, rng.uniform(0, 2 * math.pi)):
                for z in zs:
                    points.append(np.array([radial * math.cos(angle),
                                            radial * math.sin(angle), z]))
    elif isinstance(shape, Ellipsoid):
        e = shape.semi_axes()
        for axis, s in itertools.product(range(3), (-1.0, 1.0)):
            for f in (1e-3, 0.5, 1.0, 1.5, 3.0):
                points.append(np.eye(3)[axis] * s * f * e[axis])
        k = int(np.argmin(e))
        for _ in range(6):  # on the medial disc (the smallest axis's coordinate 0)
            p = rng.uniform(-0.3, 0.3, 3) * e
            p[k] = 0.0
            points.append(p)
            q = p.copy()
            q[k] = 1e-17 * e[k]  # within round-off of it
            points.append(q)
        for _ in range(6):  # on the surface and just off it
            u = rng.normal(size=3)
            p = u / np.linalg.norm(u / e)
            points += [p, p * (1 + 1e-13), p * (1 - 1e-13)]
        points.append(np.array([1e-95, 0.0, 0.0]))  # below the negligible threshold
    elif isinstance(shape, HalfSpace):
        points += [np.array([0.3, -0.2, z]) for z in (-1.0, -1e-16, 0.0, 1e-16, 0.7)]
    elif isinstance(shape, Convex):
        vertices, faces = shape.hull()
        points += list(vertices)
        points += [0.5 * (vertices[f[i]] + vertices[f[(i + 1) % 3]])
                   for f in faces for i in range(3)]  # edge midpoints
        centroids = [vertices[f].mean(axis=0) for f in faces]
        normals = [np.cross(vertices[f[1]] - vertices[f[0]], vertices[f[2]] - vertices[f[0]])
                   for f in faces]
        for c, n in zip(centroids, normals):
            n = n / np.linalg.norm(n)
            points += [c, c + 0.1 * n * _shape_size(shape), c - 0.05 * n * _shape_size(shape)]
        points += [vertices.mean(axis=0), 2.0 * vertices[0]]
    return points


KINDS = ["sphere", "box", "cylinder", "capsule", "ellipsoid", "halfspace", "convex"]


def _exact_poses(scale: float, turn: int = 5) -> list[np.ndarray]:
    """Identity and right-angle turns: p_GQ is then exact, so inputs land on the features.

    R has entries 0 and ±1 only, so R^T (p_WQ - p_WGo) is exact in any
    summation order: a point built on an edge or a mid-plane stays there.
    """
    offset = scale * np.array([0.5, -0.25, 0.125])
    return [I4, make_pose(RIGHT_ANGLES[turn % 24], offset)]


# --------------------------------------------------------------------------
# Point distance
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_point_special_points(kind):
    rng = np.random.default_rng(KINDS.index(kind) + 100)
    exact, not_unique = 0, 0
    for i, shape in enumerate(_shapes(kind, rng)):
        scale = _shape_size(shape)
        poses = _exact_poses(scale, 7 * i + 5) + [random_pose(rng, 0.3 * scale)]
        for p_GQ in _special_points_G(shape, rng):
            for X_WG in poses:
                p_WQ = X_WG[:3, :3] @ p_GQ + X_WG[:3, 3]
                assert_point_contract(shape, X_WG, p_WQ, f"{kind} special")
                exact += _is_exact_rotation(X_WG)
            not_unique += not specs.point(shape, I4, p_GQ)[1].is_grad_W_unique
    assert exact > 30
    if kind != "halfspace":
        assert not_unique > 0  # the convention branches are reached


@pytest.mark.parametrize("kind", KINDS)
def test_point_random(kind):
    rng = np.random.default_rng(KINDS.index(kind) + 200)
    for shape in _shapes(kind, rng):
        scale = _shape_size(shape)
        for _ in range(40):
            X_WG = random_pose(rng, 0.3 * scale)
            p_WQ = X_WG[:3, 3] + rng.uniform(-1.6, 1.6, 3) * scale
            assert_point_contract(shape, X_WG, p_WQ, f"{kind} random")


def test_point_box_tie_order_and_mid_planes_exactly():
    # Exact inputs: the kernels must pick the same face (+x, -x, +y, -y, +z, -z).
    cube = Box.make_cube(1.0)
    for p_GQ in ([0, 0, 0], [-0.3, 0.3, 0], [0.2, -0.2, 0.2], [0, 0.1, 0], [0.1, 0.1, -0.1]):
        for R in RIGHT_ANGLES:
            assert_point_contract(cube, make_pose(R, [0.5, 1.0, -2.0]),
                                  R @ np.array(p_GQ, float) + [0.5, 1.0, -2.0], "box tie")


def test_point_mesh_is_not_handled(tmp_path):
    path = tmp_path / "tet.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    mesh = Mesh(str(path))
    status, _ = specs.point(mesh, I4, np.zeros(3))
    assert status == NOT_HANDLED


@settings(max_examples=150, deadline=None, derandomize=True)
@given(shape=hyp_shapes, X_WG=hyp_poses, p_WQ=hyp_points)
def test_point_hypothesis(shape, X_WG, p_WQ):
    assert_point_contract(shape, X_WG, p_WQ, "hypothesis")


# --------------------------------------------------------------------------
# Sphere-X pairs, both orders
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_sphere_pairs_both_orders(kind):
    rng = np.random.default_rng(KINDS.index(kind) + 300)
    count = 0
    for shape in _shapes(kind, rng)[:4]:
        scale = _shape_size(shape)
        centres = _special_points_G(shape, rng)[::3]
        centres += [rng.uniform(-1.5, 1.5, 3) * scale for _ in range(15)]
        poses = _exact_poses(scale, 13) + _exact_poses(scale, 22)[1:] + [random_pose(rng, scale)]
        for i, p_BAo in enumerate(centres):
            X_WB = poses[i % len(poses)]
            sphere = Sphere(scale * rng.uniform(0.05, 0.8))
            # A's rotation does not enter sphere-X; an exact one keeps the pair exact.
            X_WA = make_pose(RIGHT_ANGLES[i % 24], X_WB[:3, :3] @ p_BAo + X_WB[:3, 3])
            forward = assert_pair_contract(sphere, X_WA, shape, X_WB, f"sphere-{kind}")
            backward = assert_pair_contract(shape, X_WB, sphere, X_WA, f"{kind}-sphere")
            assert forward is not None and backward is not None
            count += 2
    assert count > 40


def test_concentric_spheres_use_B_x_axis():
    X_WB = make_pose(RIGHT_ANGLES[7], [1.0, 1.0, 1.0])
    expected = assert_pair_contract(Sphere(1.0), make_pose(np.eye(3), [1, 1, 1]), Sphere(0.5),
                                    X_WB)
    assert not expected.is_nhat_BA_W_unique
    np.testing.assert_array_equal(expected.nhat_BA_W, RIGHT_ANGLES[7][:, 0])


# --------------------------------------------------------------------------
# Capsule-capsule
# --------------------------------------------------------------------------


def _axis_pose(direction, centre) -> np.ndarray:
    """A pose whose z axis is ``direction`` (exactly, for axis-aligned ones)."""
    direction = np.asarray(direction, float)
    direction = direction / np.linalg.norm(direction)
    if np.allclose(direction, [0, 0, 1]):
        R = np.eye(3)
    elif np.allclose(direction, [0, 0, -1]):
        R = np.diag([1.0, -1.0, -1.0])
    else:
        R = Rotation.align_vectors([direction], [[0, 0, 1]])[0].as_matrix()
    return make_pose(R, centre)


def _capsule_cases(rng):
    A, B = Capsule(0.1, 2.0), Capsule(0.2, 1.0)
    x, y, z = np.eye(3)
    R_x = np.array([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]])  # exact: z -> x
    yield A, make_pose(np.eye(3), [1, 0, 0]), B, make_pose(np.eye(3), [0, 0, 1])  # parallel
    yield A, make_pose(np.eye(3), [0, 0, 2.5]), A, I4  # collinear, end to end
    yield A, make_pose(np.eye(3), [0, 0, 1.5]), A, I4  # collinear, overlapping
    yield A, I4, A, I4  # coincident spines
    yield A, I4, A, make_pose(np.diag([1.0, -1.0, -1.0]), [0, 0, 0])  # coincident, antiparallel
    yield A, I4, B, I4  # coincident axes, nested spines
    yield A, make_pose(np.eye(3), [0, 0.5, 0]), B, make_pose(R_x, [0, 0, 0])  # crossing, apart
    yield A, make_pose(np.eye(3), [0, 1e-3, 0.3]), B, make_pose(R_x, [0, 1e-3, 0.3])
    yield A, make_pose(np.eye(3), [0, 0, 0.3]), B, make_pose(R_x, [0, 0, 0.3])  # spines meet
    yield A, make_pose(np.eye(3), [0, 0.3, 1.0]), B, make_pose(R_x, [0.5, 0, 1.0])  # end
    yield A, I4, B, make_pose(np.diag([1.0, -1.0, -1.0]), [0.3, 0, 0])  # antiparallel
    for angle in (2e-7, 1e-10, 1e-13):
        R = Rotation.from_euler("x", math.pi - angle).as_matrix()
        yield Capsule(0.5, 0.5), make_pose(np.eye(3), [0, 0.25, 0]), Capsule(0.5, 0.25), \
            make_pose(R, [0, 0.25, 0])
        R = Rotation.from_euler("x", angle).as_matrix()
        yield A, make_pose(np.eye(3), [0.4, 0, 0.3]), B, make_pose(R, [0, 0, 0])
    # Touching: spine gap exactly rA + rB.
    yield A, make_pose(np.eye(3), [0.3, 0, 0]), B, make_pose(R_x, [0, 0, 0])
    for _ in range(150):
        shapes = [Capsule(*rng.uniform(0.02, 0.4, 2)) for _ in range(2)]
        poses = [random_pose(rng, 0.3) for _ in range(2)]
        if rng.uniform() < 0.3:  # parallel spines, random offset
            poses[1][:3, :3] = poses[0][:3, :3]
        yield shapes[0], poses[0], shapes[1], poses[1]
    for d1, d2 in itertools.product((x, y, z, x + y), repeat=2):
        yield A, _axis_pose(d1, rng.uniform(-0.2, 0.2, 3)), B, _axis_pose(d2, [0, 0, 0])


def test_capsule_capsule_both_orders():
    rng = np.random.default_rng(400)
    count = 0
    for A, X_WA, B, X_WB in _capsule_cases(rng):
        assert_pair_contract(A, X_WA, B, X_WB, "capsule")
        assert_pair_contract(B, X_WB, A, X_WA, "capsule swapped")
        count += 1
    assert count > 150


# --------------------------------------------------------------------------
# Box-box
# --------------------------------------------------------------------------


def _box_cases(rng):
    A, B = Box(1.0, 1.0, 1.0), Box(2.0, 2.0, 2.0)
    t = lambda *p: make_pose(np.eye(3), p)  # noqa: E731
    yield A, t(0, 0, 2), B, I4  # face to face, apart
    yield A, t(0, 0, 1.5), B, I4  # face to face, touching exactly
    yield A, t(0.1, 0, 1.25), B, I4  # face to face, overlapping
    yield A, t(0.5, 0.5, 1.5), B, I4  # touching along edges
    yield A, t(1.5, 1.5, 1.5), B, I4  # touching corner to corner
    yield A, t(1.6, 1.6, 1.6), B, I4  # apart corner to corner
    yield A, t(0.1, 0.2, -0.1), B, I4  # nested
    yield A, I4, B, I4  # concentric, nested
    yield A, I4, A, I4  # identical
    yield A, t(0.3, 0, 0), A, I4  # overlap, equal boxes
    yield Box(1, 2, 3), t(0.2, 0.1, 0.0), Box(3, 2, 1), I4
    for R in RIGHT_ANGLES[::3]:  # exactly 90 degrees
        yield Box(0.4, 0.6, 0.8), make_pose(R, [0.1, 0.2, 0.55]), Box(0.5, 0.3, 0.7), I4
        yield Box(0.4, 0.6, 0.8), make_pose(R, [0.0, 0.0, 0.0]), Box(0.5, 0.3, 0.7), I4
        yield Box(0.4, 0.6, 0.8), make_pose(R, [0.9, 0.0, 0.0]), Box(0.5, 0.3, 0.7), I4
    # Vertex into a face.
    R_diag = Rotation.align_vectors([[0, 0, 1]], [[1, 1, 1]])[0].as_matrix()
    yield Box.make_cube(1.0), make_pose(R_diag, [0, 0, 0.5 + math.sqrt(3) / 2 - 0.1]), \
        Box(4.0, 4.0, 1.0), I4
    # Edges crossed at right angles, apart and overlapping.
    R_x45 = Rotation.from_euler("x", 45, degrees=True).as_matrix()
    R_zy = (Rotation.from_euler("z", 45, degrees=True)
            * Rotation.from_euler("y", 45, degrees=True)).as_matrix()
    for gap in (0.1, 0.0, -0.05):
        yield (Box.make_cube(1.0), make_pose(R_x45, [0, 0, math.sqrt(2) / 2 + gap / 2]),
               Box.make_cube(1.0), make_pose(R_zy, [0, 0, -math.sqrt(2) / 2 - gap / 2]))
    # Tilted by a hair: the flat-then-loose witness retry.
    for angle in (1e-13, 5e-11, 1e-10, 2e-9):
        R = Rotation.from_euler("xy", [angle, -angle]).as_matrix()
        yield A, make_pose(R, [0.2, 0.1, 1.4]), B, I4
        yield A, make_pose(R, [0.2, 0.1, 1.5]), B, I4
        yield A, make_pose(R, [1.4, 1.4, 0.1]), B, I4
    for _ in range(150):
        shapes = [Box(*rng.uniform(0.05, 0.5, 3)) for _ in range(2)]
        poses = [random_pose(rng, 0.3) for _ in range(2)]
        if rng.uniform() < 0.25:  # a shared face direction
            poses[1][:3, :3] = poses[0][:3, :3] @ RIGHT_ANGLES[int(rng.integers(0, 24))]
        yield shapes[0], poses[0], shapes[1], poses[1]
    for scale in (1e-3, 30.0):
        for _ in range(10):
            shapes = [Box(*(scale * rng.uniform(0.05, 0.5, 3))) for _ in range(2)]
            X_a, X_b = random_pose(rng, 0.3 * scale), random_pose(rng, 0.3 * scale)
            yield shapes[0], X_a, shapes[1], X_b


def test_box_box_both_orders():
    rng = np.random.default_rng(500)
    count, overlapping, apart, not_unique = 0, 0, 0, 0
    for A, X_WA, B, X_WB in _box_cases(rng):
        expected = assert_pair_contract(A, X_WA, B, X_WB, "box")
        assert_pair_contract(B, X_WB, A, X_WA, "box swapped")
        count += 1
        overlapping += expected.distance < 0
        apart += expected.distance > 0
        not_unique += not expected.is_nhat_BA_W_unique
    # The cases do reach every regime.
    assert count > 200 and overlapping > 20 and apart > 20 and not_unique > 10


# --------------------------------------------------------------------------
# Pairs the exact kernel does not answer, and hypothesis over all pairs
# --------------------------------------------------------------------------


def test_other_pairs_are_not_handled(tmp_path):
    path = tmp_path / "tet.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    mesh = Mesh(str(path))
    rng = np.random.default_rng(600)
    others = [Box(0.2, 0.3, 0.4), Cylinder(0.1, 0.3), Capsule(0.1, 0.2),
              Ellipsoid(0.1, 0.2, 0.3), HalfSpace(), _cube_convex(0.2), mesh]
    pairs = [(a, b) for a, b in itertools.product(others, repeat=2)
             if not (type(a) is type(b) and isinstance(a, Box | Capsule))]
    pairs += [(Sphere(0.1), mesh), (mesh, Sphere(0.1))]
    for a, b in pairs:
        X_WA, X_WB = random_pose(rng), random_pose(rng)
        assert specs.pair(a, X_WA, b, X_WB, kernel="exact")[0] == NOT_HANDLED, (a, b)
    assert len(pairs) > 40


exact_pairs = st.one_of(
    st.tuples(st.builds(Sphere, sizes), hyp_shapes),
    st.tuples(st.builds(Capsule, sizes, sizes), st.builds(Capsule, sizes, sizes)),
    st.tuples(st.builds(Box, sizes, sizes, sizes), st.builds(Box, sizes, sizes, sizes)))


# Boxes turned by pi about z, whose rotation's off-diagonal is 3.9e-81: their
# edges are parallel to 1e-81 rad, so an edge pair's cross product underflows.
# Hypothesis drew these in a whole-suite run; each once gave a NaN normal, an
# infinite distance, or a witness a quarter metre off its box.
_HALF_TURN = np.array([[-1.0, -3.8983197994507968e-81, 0.0, 0.0],
                       [3.8983197994507968e-81, -1.0, 0.0, 0.0],
                       [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize("size_A, X_WA, size_B, X_WB", [
    ((0.5, 0.25, 0.2304290546061452), np.eye(4), (0.25, 0.5, 0.25), _HALF_TURN),
    ((0.5, 0.25, 0.2304290546061452), np.eye(4), (0.25, 0.5, 0.5), _HALF_TURN),
    ((0.5, 0.5, 0.18), _HALF_TURN, (0.5, 0.5, 0.5), np.eye(4)),
    ((0.5, 0.5, 0.5), np.eye(4), (0.5, 0.5, 0.18), _HALF_TURN),
])
def test_boxes_with_edges_parallel_to_underflow_keep_the_contract(size_A, X_WA, size_B, X_WB):
    assert assert_pair_contract(Box(*size_A), X_WA, Box(*size_B), X_WB, "underflow") is not None


@settings(max_examples=150, deadline=None, derandomize=True)
@given(pair=exact_pairs, X_WA=hyp_poses, X_WB=hyp_poses, swap=st.booleans())
def test_pair_hypothesis(pair, X_WA, X_WB, swap):
    shape_A, shape_B = pair
    if swap:
        shape_A, shape_B, X_WA, X_WB = shape_B, shape_A, X_WB, X_WA
    assert assert_pair_contract(shape_A, X_WA, shape_B, X_WB, "hypothesis") is not None
