"""Unit and property tests of the exact point-distance kernels (no Drake needed).

Analytic answers per shape, Drake's documented gradient conventions, an
independent high-precision reference for the ellipsoid, brute force for the
convex hull, and hypothesis properties that hold for every shape. The
kernels are the compiled ones (csrc/point.c).
"""

from __future__ import annotations

import math
import os
import sys
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import example, given, settings
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
from kernel_calls import point as signed_distance_to_point  # noqa: E402
from shape_strategies import make_pose, points, poses, shapes  # noqa: E402

I4 = np.eye(4)


def random_pose(rng: np.random.Generator, spread: float = 0.3) -> np.ndarray:
    return make_pose(Rotation.random(random_state=rng).as_matrix(),
                     rng.uniform(-spread, spread, 3))


def check(shape, p_GQ, distance, p_GN, grad_G, unique, X_WG=I4):
    """Assert the kernel's answer for Q given in G (posed at X_WG)."""
    p_WQ = X_WG[:3, :3] @ np.asarray(p_GQ, float) + X_WG[:3, 3]
    witness = signed_distance_to_point(shape, X_WG, p_WQ)
    assert witness.distance == pytest.approx(distance, abs=1e-14)
    np.testing.assert_allclose(witness.p_GN, p_GN, atol=1e-14)
    np.testing.assert_allclose(witness.grad_W, X_WG[:3, :3] @ np.asarray(grad_G, float),
                               atol=1e-14)
    assert witness.is_grad_W_unique is unique


# --- sphere ------------------------------------------------------------------


def test_sphere_outside_inside_and_centre():
    sphere = Sphere(0.5)
    check(sphere, [2, 0, 0], 1.5, [0.5, 0, 0], [1, 0, 0], True)
    check(sphere, [0, -0.25, 0], -0.25, [0, -0.5, 0], [0, -1, 0], True)
    # Drake: at the centre the gradient is Gx expressed in W.
    X_WG = make_pose(Rotation.from_euler("z", 90, degrees=True).as_matrix(), [1, 2, 3])
    check(sphere, [0, 0, 0], -0.5, [0.5, 0, 0], [1, 0, 0], False, X_WG)


# --- box ---------------------------------------------------------------------


def test_box_face_edge_corner_outside():
    box = Box(2.0, 4.0, 6.0)  # half extents 1, 2, 3
    check(box, [3, 0, 0], 2.0, [1, 0, 0], [1, 0, 0], True)
    check(box, [2, 3, 0], math.sqrt(2), [1, 2, 0], [1 / math.sqrt(2), 1 / math.sqrt(2), 0], True)
    check(box, [-2, -3, 4], math.sqrt(3), [-1, -2, 3], np.array([-1, -1, 1]) / math.sqrt(3), True)


def test_box_on_edge_and_corner_uses_mean_face_normal():
    box = Box(2.0, 4.0, 6.0)
    check(box, [1, 2, 0.5], 0.0, [1, 2, 0.5], [1 / math.sqrt(2), 1 / math.sqrt(2), 0], False)
    check(box, [1, -2, 3], 0.0, [1, -2, 3], np.array([1, -1, 1]) / math.sqrt(3), False)
    check(box, [0.2, 2, 0.1], 0.0, [0.2, 2, 0.1], [0, 1, 0], True)


def test_box_inside_nearest_face_and_tie_order():
    box = Box(2.0, 4.0, 6.0)
    check(box, [0.5, 0, 0], -0.5, [1, 0, 0], [1, 0, 0], True)
    check(box, [0, 0, -2.9], -0.1, [0, 0, -3], [0, 0, -1], True)
    # At the centre of a cube every face is nearest; Drake's order picks +x.
    check(Box.make_cube(1.0), [0, 0, 0], -0.5, [0.5, 0, 0], [1, 0, 0], False)
    # Equidistant from -x and +y faces: x comes first; Sign(x<0) = -1.
    check(Box.make_cube(1.0), [-0.3, 0.3, 0], -0.2, [-0.5, 0.3, 0], [-1, 0, 0], False)


# --- cylinder ----------------------------------------------------------------


def test_cylinder_barrel_cap_rim_and_axis():
    cylinder = Cylinder(1.0, 4.0)
    check(cylinder, [0, 3, 0], 2.0, [0, 1, 0], [0, 1, 0], True)
    check(cylinder, [0.2, 0, 5], 3.0, [0.2, 0, 2], [0, 0, 1], True)
    check(cylinder, [4, 0, 6], 5.0, [1, 0, 2], [0.6, 0, 0.8], True)
    check(cylinder, [0, 0.5, 0], -0.5, [0, 1, 0], [0, 1, 0], True)
    check(cylinder, [0, 0, -1.5], -0.5, [0, 0, -2], [0, 0, -1], True)
    # On the rim: mean of the barrel and cap normals.
    check(cylinder, [0, 1, 2], 0.0, [0, 1, 2], [0, 1 / math.sqrt(2), 1 / math.sqrt(2)], False)
    # On the axis with the barrel nearest: Drake's convention is the x axis.
    check(cylinder, [0, 0, 0.3], -1.0, [1, 0, 0.3], [1, 0, 0], False)


# --- capsule -----------------------------------------------------------------


def test_capsule_spine_caps_and_spine_point():
    capsule = Capsule(0.5, 2.0)
    check(capsule, [0, 2, 0.5], 1.5, [0, 0.5, 0.5], [0, 1, 0], True)
    check(capsule, [0, 0, 3], 1.5, [0, 0, 1.5], [0, 0, 1], True)
    check(capsule, [0, -0.25, -1], -0.25, [0, -0.5, -1], [0, -1, 0], True)
    check(capsule, [0, 0, 0.7], -0.5, [0.5, 0, 0.7], [1, 0, 0], False)
    check(capsule, [0, 0, 1.0], -0.5, [0.5, 0, 1.0], [1, 0, 0], False)


# --- half space --------------------------------------------------------------


def test_halfspace_above_and_below():
    check(HalfSpace(), [1, 2, 3], 3.0, [1, 2, 0], [0, 0, 1], True)
    check(HalfSpace(), [1, 2, -3], -3.0, [1, 2, 0], [0, 0, 1], True)


# --- ellipsoid ---------------------------------------------------------------


def _ellipsoid_reference(semi_axes, p_GQ, digits: int = 50) -> float:
    """Unsigned distance from Q (all coordinates non-zero) by Decimal bisection on t."""
    getcontext().prec = digits
    e = [Decimal(float(v)) for v in semi_axes]
    y = [abs(Decimal(float(v))) for v in p_GQ]
    inside = sum((yi / ei) ** 2 for yi, ei in zip(y, e, strict=True)) < 1

    def f(t):
        return sum((ei * yi / (t + ei * ei)) ** 2 for ei, yi in zip(e, y, strict=True)) - 1

    e_min = min(e)
    lo = -e_min * e_min + e_min * y[e.index(e_min)] / 2 if inside else Decimal(0)
    lo = max(lo, max(ei * yi - ei * ei for ei, yi in zip(e, y, strict=True)))
    hi = sum((ei * yi) ** 2 for ei, yi in zip(e, y, strict=True)).sqrt()
    for _ in range(400):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    t = (lo + hi) / 2
    x = [ei * ei * yi / (t + ei * ei) for ei, yi in zip(e, y, strict=True)]
    return float(sum((yi - xi) ** 2 for yi, xi in zip(y, x, strict=True)).sqrt())


def test_ellipsoid_against_high_precision_reference():
    rng = np.random.default_rng(7)
    worst = 0.0
    for i in range(300):
        semi_axes = rng.uniform(0.05, 0.5, 3)
        scale = 0.2 if i % 2 else 1.2  # half inside-ish, half outside
        p_GQ = rng.uniform(-1, 1, 3) * semi_axes * scale
        witness = signed_distance_to_point(Ellipsoid(*semi_axes), I4, p_GQ)
        inside = np.sum((p_GQ / semi_axes) ** 2) < 1
        assert (witness.distance < 0) == inside
        reference = _ellipsoid_reference(semi_axes, p_GQ)
        worst = max(worst, abs(abs(witness.distance) - reference))
        # N on the surface, Q - N along the surface normal at N.
        assert np.sum((witness.p_GN / semi_axes) ** 2) == pytest.approx(1.0, abs=1e-13)
        np.testing.assert_allclose(np.cross(p_GQ - witness.p_GN, witness.grad_W), 0, atol=1e-13)
    assert worst < 1e-12


def test_ellipsoid_degenerate_cases():
    ellipsoid = Ellipsoid(0.3, 0.2, 0.1)
    # Centre: the nearest points are ±c on z; we pick +z, not unique.
    check(ellipsoid, [0, 0, 0], -0.1, [0, 0, 0.1], [0, 0, 1], False)
    # On the axes outside: exact.
    check(ellipsoid, [0.5, 0, 0], 0.2, [0.3, 0, 0], [1, 0, 0], True)
    check(ellipsoid, [0, 0, -0.4], 0.3, [0, 0, -0.1], [0, 0, -1], True)
    # On the medial disc (z = 0, inside, near the centre): two mirror points.
    witness = signed_distance_to_point(ellipsoid, I4, np.array([0.01, 0.005, 0.0]))
    assert not witness.is_grad_W_unique
    assert witness.p_GN[2] > 0
    assert np.sum((witness.p_GN / [0.3, 0.2, 0.1]) ** 2) == pytest.approx(1.0, abs=1e-14)
    # A sphere-shaped ellipsoid is a sphere.
    p_GQ = np.array([0.1, -0.2, 0.3])
    sphere_like = signed_distance_to_point(Ellipsoid(0.25, 0.25, 0.25), I4, p_GQ)
    assert sphere_like.distance == pytest.approx(np.linalg.norm(p_GQ) - 0.25, abs=1e-15)


# --- convex ------------------------------------------------------------------


def _cube_convex(half: float = 0.5) -> Convex:
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    return Convex.from_points(corners)


def test_convex_cube_matches_box():
    convex, box = _cube_convex(0.5), Box.make_cube(1.0)
    rng = np.random.default_rng(3)
    for _ in range(200):
        p_GQ = rng.uniform(-1.0, 1.0, 3)
        ours, expected = (signed_distance_to_point(s, I4, p_GQ) for s in (convex, box))
        assert ours.distance == pytest.approx(expected.distance, abs=1e-14)
        np.testing.assert_allclose(ours.grad_W, expected.grad_W, atol=1e-12)
        if expected.is_grad_W_unique:
            np.testing.assert_allclose(ours.p_GN, expected.p_GN, atol=1e-14)


def test_convex_corner_and_edge_gradients():
    convex = _cube_convex(0.5)
    corner = signed_distance_to_point(convex, I4, np.array([0.5, 0.5, 0.5]))
    assert corner.distance == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(corner.grad_W, np.ones(3) / math.sqrt(3), atol=1e-14)
    assert not corner.is_grad_W_unique
    face = signed_distance_to_point(convex, I4, np.array([0.1, 0.2, 0.5]))
    np.testing.assert_allclose(face.grad_W, [0, 0, 1], atol=1e-14)
    assert face.is_grad_W_unique  # two coplanar triangles are one facet


def test_convex_outside_matches_brute_force_on_triangles():
    rng = np.random.default_rng(11)
    convex = Convex.from_points(rng.uniform(-0.2, 0.2, (15, 3)))
    vertices, faces = convex.hull()
    # Dense samples of the boundary bound the exact distance from above.
    weights = rng.dirichlet(np.ones(3), 4000)
    samples = np.concatenate([weights @ vertices[f] for f in faces])
    for _ in range(50):
        p_GQ = rng.uniform(-0.5, 0.5, 3)
        witness = signed_distance_to_point(convex, I4, p_GQ)
        sampled = np.min(np.linalg.norm(samples - p_GQ, axis=1))
        assert abs(witness.distance) <= sampled + 1e-15
        assert abs(witness.distance) > sampled - 5e-3
        expected = pytest.approx(abs(witness.distance), abs=1e-15)
        assert np.linalg.norm(p_GQ - witness.p_GN) == expected


# --- mesh and argument errors -------------------------------------------------


def test_mesh_has_no_signed_distance(tmp_path):
    path = tmp_path / "tet.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    status, _ = specs.point(Mesh(str(path)), I4, np.zeros(3))
    assert status == specs.NOT_HANDLED


def test_bad_arguments():
    with pytest.raises(ValueError, match="p_WQ must hold 3 values"):
        signed_distance_to_point(Sphere(1.0), I4, np.zeros(4))
    with pytest.raises(ValueError, match="X_WG must hold 16 values"):
        signed_distance_to_point(Sphere(1.0), np.eye(3), np.zeros(3))


# --- properties for every shape ----------------------------------------------


def _witness_is_well_conditioned(shape, X_WG, p_WQ, p_GN, step=1e-9, gain=1e3) -> bool:
    """Whether N moves at most ``gain`` times as far as Q, for Q moved ``step`` along each axis."""
    for offset in np.vstack([np.eye(3), -np.eye(3)]) * step:
        nearby = signed_distance_to_point(shape, X_WG, p_WQ + offset)
        if np.linalg.norm(nearby.p_GN - p_GN) > gain * step:
            return False
    return True


def test_witness_conditioning_screens_a_point_at_a_sphere_centre():
    """The case hypothesis found: unique gradient, but 1e-13 m from the centre."""
    sphere = Sphere(0.5)
    near_centre = signed_distance_to_point(sphere, I4, np.array([1e-13, 0.0, 0.0]))
    assert near_centre.is_grad_W_unique
    assert not _witness_is_well_conditioned(sphere, I4, np.array([1e-13, 0.0, 0.0]),
                                            near_centre.p_GN)
    well_inside = signed_distance_to_point(sphere, I4, np.array([0.1, 0.0, 0.0]))
    assert _witness_is_well_conditioned(sphere, I4, np.array([0.1, 0.0, 0.0]),
                                        well_inside.p_GN)


_X_NEAR = make_pose(Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix(), [0.7, -0.3, 0.9])


@settings(max_examples=300, deadline=None)
@given(shape=shapes, X_WG=poses, p_WQ=points, X_VW=poses)
# Q 1e-13 m from the centre: unique but ill-conditioned (N moved 3e-4 m before the screen).
@example(shape=Sphere(0.5), X_WG=_X_NEAR, p_WQ=_X_NEAR[:3, 3] + [1e-13, 0.0, 0.0],
         X_VW=make_pose(Rotation.from_rotvec([-0.9, 0.4, 1.3]).as_matrix(), [1.0, 2.0, -1.0]))
def test_point_distance_properties(shape, X_WG, p_WQ, X_VW):
    witness = signed_distance_to_point(shape, X_WG, p_WQ)
    R_WG, p_WGo = X_WG[:3, :3], X_WG[:3, 3]
    p_WN = R_WG @ witness.p_GN + p_WGo
    # |Q - N| is the distance, and Q - N lies along the gradient.
    assert np.linalg.norm(witness.grad_W) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(p_WQ - p_WN, witness.distance * witness.grad_W, atol=1e-12)
    # N is on the surface.
    assert abs(signed_distance_to_point(shape, X_WG, p_WN).distance) < 1e-12
    # Moving G and Q together (X_VW) changes nothing in G, and rotates grad.
    X_VG = X_VW @ X_WG
    moved = signed_distance_to_point(shape, X_VG, X_VW[:3, :3] @ p_WQ + X_VW[:3, 3])
    assert moved.distance == pytest.approx(witness.distance, abs=1e-12)
    # A unique witness can still be ill-conditioned: Q 1e-13 m from a sphere's
    # centre has one nearest point, but rounding in the move (~1e-15 m) turns
    # it by 1 %. Compare witnesses only where N moves at most 1000x as far as
    # Q does; there the move's rounding shifts N by ~1e-12 m at most.
    if (witness.is_grad_W_unique and abs(witness.distance) > 1e-9
            and _witness_is_well_conditioned(shape, X_WG, p_WQ, witness.p_GN)):
        np.testing.assert_allclose(moved.p_GN, witness.p_GN, atol=1e-10)
        np.testing.assert_allclose(moved.grad_W, X_VW[:3, :3] @ witness.grad_W, atol=1e-9)
