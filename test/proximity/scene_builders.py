"""One random scene, built twice: in geometry_core and in pydrake's SceneGraph.

A test utility (not a test module) for the scene-level differential tests and
the accuracy bench. :func:`random_scene_spec` draws a :class:`SceneSpec` from a
seeded numpy generator: frames (some hung on other frames), geometries of
every primitive kind plus convex hulls of random points, anchored geometry
(half spaces and a box), and collision filters (``exclude_within`` and
``exclude_between`` on mixed frame/geometry sets). Positions are drawn in a
cube small enough that roughly half of the dynamic pairs overlap.

:func:`build_ours` realises a spec in a :class:`geometry_core.SceneGraph`;
:func:`build_drake` realises the same spec in a pydrake ``SceneGraph`` whose
source pose port is fixed to a ``FramePoseVector`` in a context. Both register
the geometry instances in the same order, and both number ids from one
increasing counter, so ``id_A < id_B`` means the same pair order on both sides;
:class:`DrakeScene` keeps the id maps ours <-> Drake.

pydrake is imported lazily, inside :func:`build_drake`, so a module that only
builds our side does not need it. pytest runs in importlib mode, which does
not put this folder on ``sys.path``: a test module inserts
``os.path.dirname(__file__)`` there, then ``import scene_builders``.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field

import numpy as np

from geometry_core import (
    Box,
    Capsule,
    CollisionFilterDeclaration,
    Convex,
    Cylinder,
    Ellipsoid,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    HalfSpace,
    ProximityProperties,
    RigidTransform,
    RotationMatrix,
    SceneGraph,
    Sphere,
)
from geometry_core.shapes import Shape

__all__ = [
    "BOUNDED_KINDS",
    "DrakeScene",
    "FilterSpec",
    "FrameSpec",
    "GeometrySpec",
    "OurScene",
    "SceneSpec",
    "build_drake",
    "build_ours",
    "kind_of",
    "our_pose",
    "pair_kind",
    "random_pose",
    "random_rotation",
    "random_scene_spec",
    "random_shape",
    "reference_signed_distance",
    "support_gap",
    "support_value_W",
]

#: Shape kinds with a finite extent, in the order the tables use.
BOUNDED_KINDS = ("sphere", "box", "cylinder", "capsule", "ellipsoid", "convex")


def kind_of(shape: Shape) -> str:
    """Return the lower-case kind name of a shape (``"sphere"``, ``"halfspace"``, ...)."""
    return type(shape).__name__.lower()


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """Return a uniformly random rotation matrix R, shape (3, 3), det +1.

    Parameters
    ----------
    rng : numpy.random.Generator
    """
    q_WG = rng.normal(size=4)
    q_WG /= np.linalg.norm(q_WG)
    w, x, y, z = q_WG
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def random_pose(rng: np.random.Generator, half_side: float) -> np.ndarray:
    """Return a random pose, shape (4, 4): random rotation, position uniform in a cube.

    Parameters
    ----------
    rng : numpy.random.Generator
    half_side : float
        The position is uniform in ``[-half_side, half_side]^3`` (metres).
    """
    X = np.eye(4)
    X[:3, :3] = random_rotation(rng)
    X[:3, 3] = rng.uniform(-half_side, half_side, size=3)
    return X


def random_shape(kind: str, rng: np.random.Generator, size: float = 0.2) -> Shape:
    """Return a random bounded shape of ``kind`` about ``size`` metres across.

    Parameters
    ----------
    kind : str
        One of :data:`BOUNDED_KINDS`.
    rng : numpy.random.Generator
    size : float
        Typical full extent (metres); dimensions are drawn in
        ``[0.5, 1.0] * size``, so no shape is very thin.

    Raises
    ------
    ValueError
        For an unknown kind.
    """
    def draw(n: int = 1):
        values = rng.uniform(0.5 * size, size, size=n)
        return values if n > 1 else float(values[0])

    if kind == "sphere":
        return Sphere(0.5 * draw())
    if kind == "box":
        return Box(*draw(3))
    if kind == "cylinder":
        return Cylinder(0.5 * draw(), draw())
    if kind == "capsule":
        return Capsule(0.4 * draw(), 0.6 * draw())
    if kind == "ellipsoid":
        return Ellipsoid(*(0.5 * draw(3)))
    if kind == "convex":
        # Points on a squashed sphere: every point is a hull vertex with
        # probability ~1, so the hull is well conditioned.
        p_GV = rng.normal(size=(12, 3))
        p_GV /= np.linalg.norm(p_GV, axis=1, keepdims=True)
        return Convex.from_points(p_GV * (0.5 * draw(3)))
    raise ValueError(f"unknown shape kind {kind!r}; expected one of {BOUNDED_KINDS}")


@dataclass
class FrameSpec:
    """A dynamic frame: its name, parent and pose ``X_PF`` (4, 4) in the parent.

    The parent is an index into the spec's frames, or None for the world.
    """

    name: str
    parent: int | None
    X_PF: np.ndarray


@dataclass
class GeometrySpec:
    """A geometry: its name, shape, frame and pose ``X_FG`` in that frame.

    The frame is an index, or None when anchored (then the pose is ``X_WG``).
    """

    name: str
    shape: Shape
    frame: int | None
    X_FG: np.ndarray


@dataclass
class FilterSpec:
    """One collision filter statement.

    ``kind`` is ``"exclude_within"`` (uses ``frames_A``/``geometries_A``) or
    ``"exclude_between"`` (both sets). Entries are indices into the spec.
    """

    kind: str
    frames_A: list[int] = field(default_factory=list)
    geometries_A: list[int] = field(default_factory=list)
    frames_B: list[int] = field(default_factory=list)
    geometries_B: list[int] = field(default_factory=list)


@dataclass
class SceneSpec:
    """Everything needed to build the same scene twice."""

    frames: list[FrameSpec]
    geometries: list[GeometrySpec]
    filters: list[FilterSpec]

    def X_WF(self, frame: int) -> np.ndarray:
        """Return the world pose of frame ``frame``, shape (4, 4)."""
        spec = self.frames[frame]
        if spec.parent is None:
            return spec.X_PF
        return self.X_WF(spec.parent) @ spec.X_PF

    def X_WG(self, geometry: int) -> np.ndarray:
        """Return the world pose of geometry ``geometry``, shape (4, 4)."""
        spec = self.geometries[geometry]
        if spec.frame is None:
            return spec.X_FG
        return self.X_WF(spec.frame) @ spec.X_FG


def random_scene_spec(seed: int, num_geometries: int = 10, halfspaces: bool = True,
                      filters: bool = True, kinds: tuple[str, ...] = BOUNDED_KINDS,
                      half_side: float = 0.22) -> SceneSpec:
    """Draw a random scene from ``seed``.

    Parameters
    ----------
    seed : int
        Seed of the numpy generator; the same seed gives the same scene.
    num_geometries : int
        Number of dynamic geometries (each on a random frame; frames may hold
        two geometries so that same-frame pairs exist).
    halfspaces : bool
        Add an anchored half space (tilted floor) and an anchored box; with
        False the scene has no half space (Drake's pairwise signed distance
        throws for most half-space pairs) but keeps the anchored box.
    filters : bool
        Add one ``exclude_within`` and one ``exclude_between`` statement.
    kinds : tuple of str
        Shape kinds to draw from (cycled, then shuffled).
    half_side : float
        World positions of the geometries are uniform in a cube of this half
        side (metres); 0.22 with 0.2 m shapes makes about half the pairs
        overlap.

    Returns
    -------
    SceneSpec
    """
    rng = np.random.default_rng(seed)
    num_frames = max(2, (2 * num_geometries) // 3)
    frames: list[FrameSpec] = []
    for f in range(num_frames):
        # About a third of the frames hang on an earlier frame.
        parent = int(rng.integers(0, f)) if f > 0 and rng.random() < 0.35 else None
        frames.append(FrameSpec(f"frame_{f}", parent, np.eye(4)))
    spec = SceneSpec(frames, [], [])
    # Choose each frame's world pose first, then express it in its parent, so
    # child frames land in the same cube as everything else.
    X_WF = [random_pose(rng, half_side) for _ in range(num_frames)]
    for f, frame in enumerate(frames):
        if frame.parent is None:
            frame.X_PF = X_WF[f]
        else:
            frame.X_PF = np.linalg.inv(X_WF[frame.parent]) @ X_WF[f]
    drawn = [kinds[k % len(kinds)] for k in range(num_geometries)]
    rng.shuffle(drawn)
    for g, kind in enumerate(drawn):
        f = g if g < num_frames else int(rng.integers(0, num_frames))
        X_FG = random_pose(rng, 0.05)
        spec.geometries.append(GeometrySpec(f"{kind}_{g}", random_shape(kind, rng), f, X_FG))
    X_WB = random_pose(rng, half_side)
    spec.geometries.append(GeometrySpec("anchored_box", random_shape("box", rng), None, X_WB))
    if halfspaces:
        n_W = np.array([0.0, 0.0, 1.0]) + 0.3 * rng.normal(size=3)
        X_WH = np.eye(4)
        X_WH[:3, :3] = _basis_with_z(n_W)
        X_WH[:3, 3] = [0.0, 0.0, -0.5 * half_side]
        spec.geometries.append(GeometrySpec("floor", HalfSpace(), None, X_WH))
    if filters:
        dynamic = list(range(num_geometries))
        a, b, c, d = (int(x) for x in rng.choice(dynamic, size=4, replace=False))
        fa, fb = (int(x) for x in rng.choice(num_frames, size=2, replace=False))
        spec.filters.append(FilterSpec("exclude_within", frames_A=[fa], geometries_A=[a, b]))
        spec.filters.append(FilterSpec("exclude_between", frames_A=[fb], geometries_A=[c],
                                       geometries_B=[d, num_geometries]))
    return spec


def _basis_with_z(n: np.ndarray) -> np.ndarray:
    """Return a rotation whose z column is ``n`` normalised."""
    z = n / np.linalg.norm(n)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


@dataclass
class OurScene:
    """A spec realised in geometry_core.

    Attributes
    ----------
    scene_graph : SceneGraph
    source_id : SourceId
    frame_ids : list of FrameId
        Indexed like ``spec.frames``.
    geometry_ids : list of GeometryId
        Indexed like ``spec.geometries``.
    """

    scene_graph: SceneGraph
    source_id: object
    frame_ids: list
    geometry_ids: list

    def index_of(self, geometry_id: GeometryId) -> int:
        """Return the spec index of one of our geometry ids."""
        return self.geometry_ids.index(geometry_id)


def build_ours(spec: SceneSpec) -> OurScene:
    """Realise ``spec`` in a new geometry_core SceneGraph, posed and filtered.

    Every geometry gets the proximity role; frame poses go in through
    ``set_poses`` as poses in the parent (FramePoseVector semantics).
    """
    sg = SceneGraph()
    src = sg.register_source("spec")
    frame_ids = []
    for frame in spec.frames:
        parent = None if frame.parent is None else frame_ids[frame.parent]
        frame_ids.append(sg.register_frame(src, GeometryFrame(frame.name), parent))
    geometry_ids = []
    for geometry in spec.geometries:
        instance = GeometryInstance(our_pose(geometry.X_FG), geometry.shape, geometry.name)
        if geometry.frame is None:
            gid = sg.register_anchored_geometry(src, instance)
        else:
            gid = sg.register_geometry(src, frame_ids[geometry.frame], instance)
        sg.assign_role(src, gid, ProximityProperties())
        geometry_ids.append(gid)
    declaration = CollisionFilterDeclaration()
    for statement in spec.filters:
        set_A = GeometrySet([frame_ids[f] for f in statement.frames_A]
                            + [geometry_ids[g] for g in statement.geometries_A])
        if statement.kind == "exclude_within":
            declaration.exclude_within(set_A)
        else:
            set_B = GeometrySet([frame_ids[f] for f in statement.frames_B]
                                + [geometry_ids[g] for g in statement.geometries_B])
            declaration.exclude_between(set_A, set_B)
    sg.collision_filter_manager().apply(declaration)
    sg.set_poses(src, {frame_ids[f]: our_pose(frame.X_PF)
                       for f, frame in enumerate(spec.frames)})
    return OurScene(sg, src, frame_ids, geometry_ids)


def our_pose(X: np.ndarray) -> RigidTransform:
    """Return our RigidTransform of a (4, 4) pose matrix."""
    return RigidTransform(RotationMatrix(X[:3, :3]), X[:3, 3])


@dataclass
class DrakeScene:
    """A spec realised in pydrake, with the id maps to our scene.

    Attributes
    ----------
    scene_graph : pydrake.geometry.SceneGraph
    context : the SceneGraph's context, with the pose port fixed
    query_object : pydrake.geometry.QueryObject
        Evaluated from the query output port.
    frame_ids, geometry_ids : list
        Drake ids, indexed like the spec.
    to_drake : dict
        Our GeometryId -> Drake GeometryId (filled by :func:`link`).
    to_ours : dict
        Drake GeometryId -> our GeometryId.
    """

    scene_graph: object
    context: object
    query_object: object
    frame_ids: list
    geometry_ids: list
    directory: tempfile.TemporaryDirectory
    to_drake: dict = field(default_factory=dict)
    to_ours: dict = field(default_factory=dict)

    def link(self, ours: OurScene) -> None:
        """Fill the id maps from a realisation of the same spec."""
        for our_id, drake_id in zip(ours.geometry_ids, self.geometry_ids):
            self.to_drake[our_id] = drake_id
            self.to_ours[drake_id] = our_id


def build_drake(spec: SceneSpec, ours: OurScene | None = None) -> DrakeScene:
    """Realise ``spec`` in a pydrake SceneGraph with a fixed FramePoseVector.

    Parameters
    ----------
    spec : SceneSpec
    ours : OurScene, optional
        When given, the returned scene's id maps link to it.

    Raises
    ------
    pytest.skip.Exception
        When pydrake is not installed.
    """
    import pytest

    geometry = pytest.importorskip("pydrake.geometry")
    drake_math = pytest.importorskip("pydrake.math")
    import drake_oracle

    directory = tempfile.TemporaryDirectory()
    scene_graph = geometry.SceneGraph()
    source_id = scene_graph.RegisterSource("spec")
    frame_ids = []
    for frame in spec.frames:
        geometry_frame = geometry.GeometryFrame(frame.name)
        if frame.parent is None:
            frame_ids.append(scene_graph.RegisterFrame(source_id, geometry_frame))
        else:
            frame_ids.append(scene_graph.RegisterFrame(source_id, frame_ids[frame.parent],
                                                       geometry_frame))
    geometry_ids = []
    for spec_geometry in spec.geometries:
        instance = geometry.GeometryInstance(
            _drake_pose(drake_math, spec_geometry.X_FG),
            drake_oracle.to_drake_shape(spec_geometry.shape, directory.name), spec_geometry.name)
        if spec_geometry.frame is None:
            gid = scene_graph.RegisterAnchoredGeometry(source_id, instance)
        else:
            gid = scene_graph.RegisterGeometry(source_id, frame_ids[spec_geometry.frame], instance)
        scene_graph.AssignRole(source_id, gid, geometry.ProximityProperties())
        geometry_ids.append(gid)
    declaration = geometry.CollisionFilterDeclaration()
    for statement in spec.filters:
        set_A = geometry.GeometrySet([geometry_ids[g] for g in statement.geometries_A],
                                     [frame_ids[f] for f in statement.frames_A])
        if statement.kind == "exclude_within":
            declaration.ExcludeWithin(set_A)
        else:
            set_B = geometry.GeometrySet([geometry_ids[g] for g in statement.geometries_B],
                                         [frame_ids[f] for f in statement.frames_B])
            declaration.ExcludeBetween(set_A, set_B)
    scene_graph.collision_filter_manager().Apply(declaration)
    poses = geometry.FramePoseVector()
    for f, frame in enumerate(spec.frames):
        poses.set_value(frame_ids[f], _drake_pose(drake_math, frame.X_PF))
    context = scene_graph.CreateDefaultContext()
    scene_graph.get_source_pose_port(source_id).FixValue(context, poses)
    query_object = scene_graph.get_query_output_port().Eval(context)
    scene = DrakeScene(scene_graph, context, query_object, frame_ids, geometry_ids, directory)
    if ours is not None:
        scene.link(ours)
    return scene


def _drake_pose(drake_math, X: np.ndarray):
    return drake_math.RigidTransform(drake_math.RotationMatrix(X[:3, :3]), X[:3, 3])


def pair_kind(shape_A: Shape, shape_B: Shape) -> tuple[str, str]:
    """Return the unordered pair kind as a sorted tuple, e.g. ``("box", "sphere")``."""
    return tuple(sorted((kind_of(shape_A), kind_of(shape_B))))


# ---------------------------------------------------------------------------
# An independent reference for the signed distance of two convex shapes.
#
# For convex A and B, phi(A, B) = max over unit n of
#     g(n) = min_{a in A} n.a - max_{b in B} n.b = -h_A(-n) - h_B(n),
# with h the support functions (written here from the shapes' definitions,
# sharing no code with geometry_core.proximity). g(n) <= phi for every n, so
# g at a reported normal certifies how far a reported distance can be from
# the truth: an answer (phi_r, n_r) is exact when g(n_r) = phi_r and no other
# direction gives a larger g.


def support_value_W(shape: Shape, X_WG: np.ndarray, d_W: np.ndarray) -> float:
    """Return h(d) = max over points P of the posed shape of d . p_WP.

    Parameters
    ----------
    shape : Shape
        Any bounded shape of :data:`BOUNDED_KINDS`.
    X_WG : (4, 4) float
        Pose of the shape in W.
    d_W : (3,) float
        A direction in W (any length).

    Raises
    ------
    TypeError
        For a half space or an unknown shape.
    """
    d_G = X_WG[:3, :3].T @ d_W
    offset = float(X_WG[:3, 3] @ d_W)
    if isinstance(shape, Sphere):
        return offset + shape.radius * float(np.linalg.norm(d_G))
    if isinstance(shape, Box):
        half = 0.5 * np.array([shape.width, shape.depth, shape.height])
        return offset + float(np.abs(d_G) @ half)
    if isinstance(shape, Cylinder):
        return offset + shape.radius * float(np.hypot(d_G[0], d_G[1])) \
            + 0.5 * shape.length * abs(float(d_G[2]))
    if isinstance(shape, Capsule):
        return offset + shape.radius * float(np.linalg.norm(d_G)) \
            + 0.5 * shape.length * abs(float(d_G[2]))
    if isinstance(shape, Ellipsoid):
        return offset + float(np.linalg.norm(np.array([shape.a, shape.b, shape.c]) * d_G))
    if isinstance(shape, Convex):
        return offset + float(np.max(shape.hull()[0] @ d_G))
    raise TypeError(f"no support function for {type(shape).__name__}")


def support_gap(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape, X_WB: np.ndarray,
                nhat_BA_W: np.ndarray) -> float:
    """Return g(n) = -h_A(-n) - h_B(n): the gap between A and B along ``n``.

    A lower bound on the signed distance for every unit ``n`` (metres), equal
    to it at the optimal normal. Half spaces (z <= 0 of their frame) are
    accepted as either shape; for them only ``n`` along their normal gives a
    finite gap (-inf otherwise).
    """
    n_W = np.asarray(nhat_BA_W, dtype=float)
    n_W = n_W / np.linalg.norm(n_W)
    if isinstance(shape_B, HalfSpace):
        if isinstance(shape_A, HalfSpace):
            raise TypeError("two half spaces have no signed distance")
        nz_W = X_WB[:3, 2]
        if float(n_W @ nz_W) < 1.0 - 1e-12:
            return -np.inf
        return -support_value_W(shape_A, X_WA, -nz_W) - float(nz_W @ X_WB[:3, 3])
    if isinstance(shape_A, HalfSpace):
        return support_gap(shape_B, X_WB, shape_A, X_WA, -n_W)
    return -support_value_W(shape_A, X_WA, -n_W) - support_value_W(shape_B, X_WB, n_W)


def reference_signed_distance(shape_A: Shape, X_WA: np.ndarray, shape_B: Shape,
                              X_WB: np.ndarray, hints=(), samples: int = 300,
                              seed: int = 0) -> tuple[float, np.ndarray]:
    """Return a converged ``(phi, nhat_BA_W)`` from dense sampling and refinement.

    Samples ``samples`` directions (plus the ``hints``, e.g. the normals two
    implementations reported), keeps the best few and refines each with
    Nelder-Mead on the sphere to ~1e-13 in g. ``phi`` is attained along the
    returned normal, so it is a certified lower bound on the signed distance
    and, for the smooth or polyhedral shapes here, converges to it.

    Parameters
    ----------
    shape_A, shape_B : Shape
    X_WA, X_WB : (4, 4) float
    hints : iterable of (3,) float
        Extra starting directions (nhat_BA_W).
    samples : int
        Random directions tried before refinement.
    seed : int
        Seed for the sampled directions.
    """
    from scipy.optimize import minimize

    if isinstance(shape_A, HalfSpace) or isinstance(shape_B, HalfSpace):
        n_W = X_WB[:3, 2] if isinstance(shape_B, HalfSpace) else -X_WA[:3, 2]
        return support_gap(shape_A, X_WA, shape_B, X_WB, n_W), n_W.copy()

    def gap(n_W: np.ndarray) -> float:
        return support_gap(shape_A, X_WA, shape_B, X_WB, n_W)

    rng = np.random.default_rng(seed)
    starts = rng.normal(size=(samples, 3))
    p_WBoAo = X_WA[:3, 3] - X_WB[:3, 3]
    extra = [np.asarray(h, dtype=float) for h in hints if np.all(np.isfinite(h))]
    if np.linalg.norm(p_WBoAo) > 0:
        extra.append(p_WBoAo)
    if extra:
        starts = np.vstack([np.array(extra), starts])
    starts /= np.linalg.norm(starts, axis=1, keepdims=True)
    values = np.array([gap(n) for n in starts])
    best, best_n = -np.inf, starts[0]
    for k in np.argsort(-values)[:6]:
        result = minimize(lambda x: -gap(x), starts[k], method="Nelder-Mead",
                          options={"xatol": 1e-13, "fatol": 1e-16, "maxiter": 6000})
        if -result.fun > best:
            best, best_n = -result.fun, result.x / np.linalg.norm(result.x)
    return float(best), best_n
