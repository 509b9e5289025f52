"""fcl_adapter: conversions, and one test per FCL trap that fails without its guard.

Each trap test first shows raw python-fcl misbehaving (so the test documents
the trap and notices if a future python-fcl fixes it), then shows the
wrapper answering correctly. The raw demonstrations that hang or abort the
interpreter run in a subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import fcl
import numpy as np
import pytest
import trimesh

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_calls import convex_pair as signed_distance_convex  # noqa: E402
from test_convex_reference import reference_signed_distance  # noqa: E402

from geometry_core.proximity import fcl_adapter  # noqa: E402
from geometry_core.proximity.fcl_adapter import (  # noqa: E402
    COLLISION_SOLVER,
    fcl_colliding_pairs,
    fcl_geometry,
    fcl_penetration,
    fcl_signed_distance,
    fcl_transform,
)
from geometry_core.shapes import (  # noqa: E402
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Sphere,
)


def _X(p=(0.0, 0.0, 0.0), R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def _obj(geom, X):
    return fcl.CollisionObject(geom, fcl_transform(X))


@pytest.fixture(scope="module")
def icosphere_mesh(tmp_path_factory) -> Mesh:
    path = tmp_path_factory.mktemp("mesh") / "ico.obj"
    trimesh.creation.icosphere(subdivisions=2, radius=0.5).export(path)
    return Mesh(str(path))


# --- conversions -------------------------------------------------------------------


def test_fcl_geometry_conversions_keep_sizes_and_source():
    cases = [
        (Sphere(0.3), fcl.Sphere, lambda g: g.radius == 0.3),
        (Box(0.1, 0.2, 0.3), fcl.Box, lambda g: np.allclose(g.side, [0.1, 0.2, 0.3])),
        (Cylinder(0.2, 0.5), fcl.Cylinder, lambda g: (g.radius, g.lz) == (0.2, 0.5)),
        (Capsule(0.1, 0.4), fcl.Capsule, lambda g: (g.radius, g.lz) == (0.1, 0.4)),
        (Ellipsoid(0.1, 0.2, 0.3), fcl.Ellipsoid, lambda g: np.allclose(g.radii, [0.1, 0.2, 0.3])),
        (HalfSpace(), fcl.Halfspace, lambda g: np.allclose(g.n, [0, 0, 1]) and g.d == 0.0),
    ]
    for shape, cls, check in cases:
        geom = fcl_geometry(shape)
        assert isinstance(geom, cls)
        assert check(geom)
        assert geom.source_shape is shape


def test_convex_becomes_fcl_convex_of_its_hull():
    rng = np.random.default_rng(0)
    convex = Convex.from_points(rng.normal(size=(30, 3)) * 0.2)
    geom = fcl_geometry(convex)
    assert isinstance(geom, fcl.Convex)
    assert geom.num_faces == len(convex.hull()[1])
    # The count-prefixed face list is read correctly iff FCL's distances agree
    # with ours (a mangled face list gives wrong supports and distances).
    for _ in range(5):
        X_WS = _X(rng.normal(size=3) * 2.0 + [3.0, 0, 0])
        raw = fcl.distance(_obj(geom, _X()), _obj(fcl.Sphere(0.1), X_WS),
                           fcl.DistanceRequest(enable_nearest_points=True))
        ours = signed_distance_convex(convex, _X(), Sphere(0.1), X_WS).distance
        assert abs(raw - ours) < 1e-5


def test_mesh_becomes_bvh_of_its_triangles(icosphere_mesh):
    geom = fcl_geometry(icosphere_mesh)
    assert isinstance(geom, fcl.BVHModel)
    assert geom.num_tries_() == len(icosphere_mesh.faces())


def test_geometries_not_made_here_are_refused():
    with pytest.raises(ValueError, match="geom_A was not made by fcl_geometry"):
        fcl_signed_distance(fcl.Sphere(1.0), _X(), fcl_geometry(Sphere(1.0)), _X([3, 0, 0]))
    with pytest.raises(ValueError, match="geom_B must be an fcl.CollisionGeometry"):
        fcl_penetration(fcl_geometry(Sphere(1.0)), _X(), Sphere(1.0), _X())


# --- trap: signed distance is off by default ---------------------------------------


def test_trap_signed_distance_off_by_default(icosphere_mesh):
    A, B = Sphere(0.3), Box(0.4, 0.4, 0.4)
    X_WA = _X([0.3, 0.05, 0.0])
    raw = fcl.distance(_obj(fcl_geometry(A), X_WA), _obj(fcl_geometry(B), _X()),
                       fcl.DistanceRequest(), fcl.DistanceResult())
    assert raw == -1.0  # FCL's "overlapping, depth unknown"
    ours = fcl_signed_distance(fcl_geometry(A), X_WA, fcl_geometry(B), _X())
    assert abs(ours.distance - (0.3 - 0.2 - 0.3)) < 1e-12
    # A Mesh: FCL's distance for an overlapping BVH pair is not even -1 but garbage.
    X_WS = _X([0.55, 0.0, 0.0])
    raw_mesh = fcl.distance(_obj(fcl.Sphere(0.1), X_WS), _obj(fcl_geometry(icosphere_mesh), _X()),
                            fcl.DistanceRequest(enable_nearest_points=True,
                                                enable_signed_distance=True))
    assert 0.0 <= raw_mesh < 1e-300
    ours = fcl_signed_distance(fcl_geometry(Sphere(0.1)), X_WS, fcl_geometry(icosphere_mesh),
                               _X())
    # The sphere dips 0.05 past the icosphere vertex at x = 0.5 (into its triangles).
    assert -0.06 < ours.distance < -0.04
    np.testing.assert_allclose(ours.nhat_BA_W, [1, 0, 0], atol=1e-6)


# --- trap: solver choice ---------------------------------------------------------


def test_trap_gjk_solver_choice():
    assert COLLISION_SOLVER == fcl.GJKSolverType.GST_LIBCCD
    A = B = Cylinder(0.5, 2.0)
    X_WA = _X([0.9, 0.0, 0.0])
    request = fcl.CollisionRequest(num_max_contacts=10, enable_contact=True,
                                   gjk_solver_type=fcl.GJKSolverType.GST_INDEP)
    result = fcl.CollisionResult()
    fcl.collide(_obj(fcl_geometry(A), X_WA), _obj(fcl_geometry(B), _X()), request, result)
    assert result.contacts[0].penetration_depth < 0.0  # GST_INDEP: wrong sign
    ours = fcl_penetration(fcl_geometry(A), X_WA, fcl_geometry(B), _X())
    assert abs(ours.distance + 0.1) < 1e-6


# --- trap: libccd failures (hangs and process aborts) ------------------------------

_NEARLY_COINCIDENT_POSE = [
    [-0.9042521614781597, 0.24343553644991303, -0.35080930440257624, 3.392369005536672e-11],
    [0.3807133089016038, 0.08761828295559515, -0.9205326788969012, -4.609080343821537e-11],
    [-0.19335305761034222, -0.9659514356763782, -0.17190817033368522, 2.504890639795849e-10],
    [0.0, 0.0, 0.0, 1.0],
]


def _raw_fcl_signed_distance_in_subprocess(geometry: str) -> subprocess.CompletedProcess | None:
    code = textwrap.dedent(f"""
        import fcl, numpy as np
        X = np.array({_NEARLY_COINCIDENT_POSE!r})
        g = {geometry}
        a = fcl.CollisionObject(g, fcl.Transform(X[:3, :3], X[:3, 3]))
        b = fcl.CollisionObject({geometry}, fcl.Transform())
        print(fcl.distance(a, b, fcl.DistanceRequest(True, True), fcl.DistanceResult()))
    """)
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=5)
    except subprocess.TimeoutExpired:
        return None


def test_trap_libccd_signed_distance_hangs_or_aborts():
    # Raw FCL: nearly concentric spheres loop forever; nearly coincident boxes
    # throw a C++ logic_error that python-fcl cannot catch: the process dies.
    assert _raw_fcl_signed_distance_in_subprocess("fcl.Sphere(0.1)") is None
    aborted = _raw_fcl_signed_distance_in_subprocess("fcl.Box(0.2, 0.2, 0.2)")
    assert aborted is not None and aborted.returncode != 0
    assert b"logic_error" in aborted.stderr
    # The wrapper never hands an overlapping convex pair to FCL's EPA.
    X_WA = np.array(_NEARLY_COINCIDENT_POSE)
    for shape in (Sphere(0.1), Box(0.2, 0.2, 0.2)):
        ours = fcl_signed_distance(fcl_geometry(shape), X_WA, fcl_geometry(shape), _X())
        reference, _ = reference_signed_distance(shape, X_WA, shape, _X())
        assert ours.distance < -0.19
        assert abs(ours.distance - reference) < 1e-9


def test_fcl_exceptions_become_runtime_errors(monkeypatch, icosphere_mesh):
    def broken(*args):
        raise ValueError("ccd failure")

    monkeypatch.setattr(fcl_adapter.fcl, "collide", broken)
    with pytest.raises(RuntimeError, match="FCL collide failed: ccd failure"):
        fcl_signed_distance(fcl_geometry(Sphere(0.1)), _X([2, 0, 0]),
                            fcl_geometry(icosphere_mesh), _X())


# --- trap: normal direction --------------------------------------------------------


def test_trap_contact_normal_points_from_a_into_b():
    A, B = Sphere(1.0), Sphere(1.0)
    X_WA = _X([1.5, 0.0, 0.0])  # A to the +x side of B
    request = fcl.CollisionRequest(num_max_contacts=1, enable_contact=True)
    result = fcl.CollisionResult()
    fcl.collide(_obj(fcl_geometry(A), X_WA), _obj(fcl_geometry(B), _X()), request, result)
    np.testing.assert_allclose(result.contacts[0].normal, [-1, 0, 0])  # FCL: A -> B
    ours = fcl_penetration(fcl_geometry(A), X_WA, fcl_geometry(B), _X())
    np.testing.assert_allclose(ours.nhat_BA_W, [1, 0, 0])  # ours: B -> A
    assert abs(ours.distance + 0.5) < 1e-12
    # Witnesses: A's point deepest in B, B's point deepest in A.
    np.testing.assert_allclose(ours.p_WCa, [0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(ours.p_WCb, [1.0, 0, 0], atol=1e-12)
    # Signed distance agrees in sign and direction.
    sd = fcl_signed_distance(fcl_geometry(A), X_WA, fcl_geometry(B), _X())
    np.testing.assert_allclose(sd.nhat_BA_W, [1, 0, 0], atol=1e-12)


def test_penetration_with_a_half_space_and_none_when_apart():
    ours = fcl_penetration(fcl_geometry(Sphere(0.1)), _X([0, 0, 0.05]),
                           fcl_geometry(HalfSpace()), _X())
    assert abs(ours.distance + 0.05) < 1e-9
    np.testing.assert_allclose(ours.nhat_BA_W, [0, 0, 1], atol=1e-9)
    assert fcl_penetration(fcl_geometry(Sphere(0.1)), _X([0, 0, 0.5]),
                           fcl_geometry(HalfSpace()), _X()) is None


# --- trap: stale result objects ----------------------------------------------------


def test_trap_reused_results_are_stale():
    geom = fcl_geometry(Box(1.0, 1.0, 1.0))
    near, far = _X([0.9, 0, 0]), _X([5.0, 0, 0])
    request = fcl.CollisionRequest(num_max_contacts=10, enable_contact=True)
    reused = fcl.CollisionResult()
    fcl.collide(_obj(geom, near), _obj(geom, _X()), request, reused)
    first = len(reused.contacts)
    fcl.collide(_obj(geom, far), _obj(geom, _X()), request, reused)
    assert reused.is_collision and len(reused.contacts) == first  # a far pair "collides"
    fcl.collide(_obj(geom, near), _obj(geom, _X()), request, reused)
    assert len(reused.contacts) == 2 * first  # contacts accumulate
    distance_result = fcl.DistanceResult()
    fcl.distance(_obj(geom, _X([1.5, 0, 0])), _obj(geom, _X()), fcl.DistanceRequest(True),
                 distance_result)
    fcl.distance(_obj(geom, far), _obj(geom, _X()), fcl.DistanceRequest(True), distance_result)
    assert distance_result.min_distance == pytest.approx(0.5)  # the stale, smaller one
    # The wrapper builds fresh objects: each call answers only its own pair.
    assert fcl_penetration(geom, near, geom, _X()) is not None
    assert fcl_penetration(geom, far, geom, _X()) is None
    assert fcl_signed_distance(geom, _X([1.5, 0, 0]), geom, _X()).distance == pytest.approx(0.5)
    assert fcl_signed_distance(geom, far, geom, _X()).distance == pytest.approx(4.0)


# --- trap: the default callback's global contact cap -------------------------------


def test_trap_default_callback_caps_contacts_globally():
    geoms = [fcl_geometry(Sphere(0.3)) for _ in range(5)]
    poses = [_X([0.1 * i, 0, 0]) for i in range(5)]  # every pair overlaps: 10 pairs
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects([_obj(g, X) for g, X in zip(geoms, poses)])
    manager.setup()
    data = fcl.CollisionData(request=fcl.CollisionRequest(enable_contact=True))
    manager.collide(data, fcl.defaultCollisionCallback)
    assert len(data.result.contacts) < 10  # stops after num_max_contacts (1)
    pairs = fcl_colliding_pairs(geoms, poses)
    assert pairs == [(i, j) for i in range(5) for j in range(i + 1, 5)]


def test_colliding_pairs_skips_separated_and_checks_lengths():
    geoms = [fcl_geometry(Sphere(0.3)), fcl_geometry(Sphere(0.3)), fcl_geometry(Box(1, 1, 1))]
    poses = [_X([0, 0, 0]), _X([5, 0, 0]), _X([5.6, 0, 0])]
    assert fcl_colliding_pairs(geoms, poses) == [(1, 2)]
    with pytest.raises(ValueError, match="got 3 geometries but 2 poses"):
        fcl_colliding_pairs(geoms, poses[:2])


# --- trap: BVH witnesses in local frames and swapped order -------------------------


def test_trap_bvh_nearest_points_are_local_and_swapped(icosphere_mesh):
    X_WM = _X([0.0, 0.0, 1.0])
    X_WS = _X([0.8, 0.0, 1.0])
    sphere, mesh = fcl_geometry(Sphere(0.1)), fcl_geometry(icosphere_mesh)
    result = fcl.DistanceResult()
    fcl.distance(_obj(sphere, X_WS), _obj(mesh, X_WM),
                 fcl.DistanceRequest(enable_nearest_points=True), result)
    # Raw: o1 (the sphere) gets the mesh's local point, o2 the sphere's local one.
    np.testing.assert_allclose(result.nearest_points[0], [0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(result.nearest_points[1], [-0.1, 0, 0], atol=1e-12)
    ours = fcl_signed_distance(sphere, X_WS, mesh, X_WM)
    assert abs(ours.distance - 0.2) < 1e-12
    np.testing.assert_allclose(ours.p_WCa, [0.7, 0, 1.0], atol=1e-12)
    np.testing.assert_allclose(ours.p_WCb, [0.5, 0, 1.0], atol=1e-12)
    np.testing.assert_allclose(ours.nhat_BA_W, [1, 0, 0], atol=1e-12)
    swapped = fcl_signed_distance(mesh, X_WM, sphere, X_WS)
    np.testing.assert_allclose(swapped.p_WCa, [0.5, 0, 1.0], atol=1e-12)
    np.testing.assert_allclose(swapped.nhat_BA_W, [-1, 0, 0], atol=1e-12)


def test_bvh_contacts_have_negative_depth_raw_and_a_mesh_is_a_surface(icosphere_mesh):
    sphere, mesh = fcl_geometry(Sphere(0.1)), fcl_geometry(icosphere_mesh)
    result = fcl.CollisionResult()
    fcl.collide(_obj(sphere, _X([0.55, 0, 0])), _obj(mesh, _X()),
                fcl.CollisionRequest(num_max_contacts=100, enable_contact=True), result)
    assert all(c.penetration_depth < 0 for c in result.contacts)  # raw: negative depths
    ours = fcl_penetration(sphere, _X([0.55, 0, 0]), mesh, _X())
    assert -0.06 < ours.distance < -0.04
    np.testing.assert_allclose(ours.nhat_BA_W, [1, 0, 0], atol=1e-6)
    # Fully inside the closed mesh without touching a triangle: no contact.
    assert fcl_penetration(sphere, _X(), mesh, _X()) is None
    inside = fcl_signed_distance(sphere, _X(), mesh, _X())
    assert inside.distance > 0.3  # distance to the nearest triangle


def test_mesh_distance_matches_brute_force_over_triangles(icosphere_mesh):
    """FCL picks the nearest triangle: the answer is the smallest over all triangles."""
    from geometry_core.proximity import specs

    rng = np.random.default_rng(4)
    mesh = fcl_geometry(icosphere_mesh)
    triangles = icosphere_mesh.vertices()[icosphere_mesh.faces()]
    for _ in range(5):
        X_WB = _X(rng.normal(size=3) * 0.3 + [1.2, 0, 0])
        shape = Capsule(0.1, 0.3)
        ours = fcl_signed_distance(fcl_geometry(shape), X_WB, mesh, _X())
        brute = min(specs.pair_of_specs(specs.shape_spec(shape), X_WB,
                                        *specs.triangle_spec(t))[1].distance
                    for t in triangles)
        assert abs(ours.distance - brute) < 1e-6
