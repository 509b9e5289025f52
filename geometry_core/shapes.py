"""Shape specifications: what a geometry looks like in its own frame G.

A shape is an immutable value with no pose and no identity, so one instance
may be shared by many geometries (as in the Robotics Toolbox's scene graph:
one plate, many plates on the table). Each shape is defined in its canonical
frame exactly as Drake defines it: boxes and ellipsoids centred on the
origin with axes along G's axes, cylinders and capsules centred with their
length along Gz, the half space
bounded by the plane z = 0 with its outward normal +Gz (points with z <= 0
are inside).

Sizes are in metres and are validated at construction: zero, negative, NaN
or infinite sizes raise ``ValueError`` naming the shape and the size.

This module knows nothing about poses, scenes, FCL, LCM or ROS; conversions
to those live with their consumers (``proximity/`` for FCL, ``viewer/`` for
LCM). Meshes are read with trimesh (binary STL directly), lazily, the first
time their vertices are needed; each file is read and hulled once per
process, shared by every scale and every shape that names it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

__all__ = [
    "Shape",
    "Sphere",
    "Box",
    "Cylinder",
    "Capsule",
    "Ellipsoid",
    "HalfSpace",
    "Mesh",
    "Convex",
]


def _positive(shape: str, name: str, value: float) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{shape} {name} must be a number, got {value!r}") from None
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{shape} {name} must be positive and finite, got {value!r}")
    return value


class Shape:
    """Base of every shape. Not instantiable on its own.

    Every shape reports ``local_aabb()``: the centre and half extents of an
    axis-aligned box, in G, that contains it (``None`` for the unbounded half
    space). The scene graph's broadphase uses it.
    """

    #: Short lower-case name used in messages, files and tables.
    type_name: ClassVar[str] = "shape"

    def __init__(self) -> None:
        raise TypeError("Shape is abstract: use Sphere, Box, Cylinder, ...")

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Return ``(p_GoC_G, half_extents)`` of a box bounding the shape in G."""
        raise NotImplementedError

    def bounding_radius(self) -> float:
        """Return the radius of a sphere about Go that contains the shape."""
        box = self.local_aabb()
        if box is None:
            return math.inf
        center, half = box
        return float(np.linalg.norm(np.abs(center) + half))


@dataclass(frozen=True, eq=False)
class Sphere(Shape):
    """A sphere of ``radius`` centred on Go."""

    radius: float
    type_name: ClassVar[str] = "sphere"

    def __post_init__(self) -> None:
        if type(self.radius) is not float or not 0.0 < self.radius < math.inf:
            object.__setattr__(self, "radius", _positive("Sphere", "radius", self.radius))

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(3), np.full(3, self.radius)


@dataclass(frozen=True, eq=False)
class Box(Shape):
    """A box of full side lengths ``width`` (x), ``depth`` (y), ``height`` (z)."""

    width: float
    depth: float
    height: float
    type_name: ClassVar[str] = "box"

    def __post_init__(self) -> None:
        w, d, h = self.width, self.depth, self.height
        if type(w) is float and type(d) is float and type(h) is float \
                and 0.0 < w < math.inf and 0.0 < d < math.inf and 0.0 < h < math.inf:
            return  # already positive finite floats (a loader's thousands of boxes)
        for name in ("width", "depth", "height"):
            object.__setattr__(self, name, _positive("Box", name, getattr(self, name)))

    @classmethod
    def make_cube(cls, edge_size: float) -> Box:
        """Return a cube with all sides ``edge_size``."""
        return cls(edge_size, edge_size, edge_size)

    def size(self) -> np.ndarray:
        """Return the full side lengths ``[width, depth, height]``, shape (3,)."""
        return np.array([self.width, self.depth, self.height])

    def half_extents(self) -> np.ndarray:
        """Return half the side lengths, shape (3,)."""
        return 0.5 * self.size()

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(3), self.half_extents()


@dataclass(frozen=True, eq=False)
class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` along Gz, centred on Go."""

    radius: float
    length: float
    type_name: ClassVar[str] = "cylinder"

    def __post_init__(self) -> None:
        r, length = self.radius, self.length
        if type(r) is float and type(length) is float \
                and 0.0 < r < math.inf and 0.0 < length < math.inf:
            return
        object.__setattr__(self, "radius", _positive("Cylinder", "radius", self.radius))
        object.__setattr__(self, "length", _positive("Cylinder", "length", self.length))

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(3), np.array([self.radius, self.radius, 0.5 * self.length])


@dataclass(frozen=True, eq=False)
class Capsule(Shape):
    """A capsule: the points within ``radius`` of a segment of ``length`` on Gz.

    Its total extent along Gz is ``length + 2 radius``, as in Drake.
    """

    radius: float
    length: float
    type_name: ClassVar[str] = "capsule"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive("Capsule", "radius", self.radius))
        object.__setattr__(self, "length", _positive("Capsule", "length", self.length))

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        r = self.radius
        return np.zeros(3), np.array([r, r, 0.5 * self.length + r])


@dataclass(frozen=True, eq=False)
class Ellipsoid(Shape):
    """An ellipsoid with semi-axes ``a`` (x), ``b`` (y), ``c`` (z)."""

    a: float
    b: float
    c: float
    type_name: ClassVar[str] = "ellipsoid"

    def __post_init__(self) -> None:
        for name in ("a", "b", "c"):
            object.__setattr__(self, name, _positive("Ellipsoid", name, getattr(self, name)))

    def semi_axes(self) -> np.ndarray:
        """Return ``[a, b, c]``, shape (3,)."""
        return np.array([self.a, self.b, self.c])

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(3), self.semi_axes()


@dataclass(frozen=True, eq=False)
class HalfSpace(Shape):
    """The half space z <= 0 of G; its boundary normal is +Gz."""

    type_name: ClassVar[str] = "halfspace"

    def local_aabb(self) -> None:
        return None

    @staticmethod
    def make_pose(Hz_dir_F: np.ndarray, p_FB: np.ndarray):
        """Return X_FC for a half space with outward normal ``Hz_dir_F`` through ``p_FB``.

        Mirrors Drake's ``HalfSpace::MakePose``: the normal need not be unit;
        a zero normal raises ``ValueError``.
        """
        from geometry_core.math import RigidTransform, RotationMatrix, compute_basis_from_axis

        R_FC = compute_basis_from_axis(2, np.asarray(Hz_dir_F, dtype=float))
        return RigidTransform(RotationMatrix(R_FC), np.asarray(p_FB, dtype=float))


@dataclass(frozen=True, eq=False)
class _MeshData:
    vertices: np.ndarray  # (V, 3) in G, scale applied
    faces: np.ndarray  # (T, 3) vertex indices


#: File formats trimesh reads (COLLADA through pycollada), compared in lower case
#: because robot packages ship ``.DAE`` and ``.STL`` as often as ``.dae``.
MESH_SUFFIXES = (".obj", ".stl", ".ply", ".off", ".glb", ".gltf", ".dae", ".vtk")

# Robots share meshes between links and between loads (the two Panda fingers,
# a left and a mirrored right arm, a node reloading its robot): read a file and
# hull it once. Keys carry the file's size and modification time, so an edited
# file is read again. Bounded, oldest first out, so a long-lived process that
# loads many robots does not grow without end.
_CACHE_SIZE = 512

#: Largest mesh file read (bytes), checked with ``os.stat`` before a byte is
#: read: the largest meshes robot packages ship are tens of megabytes, and
#: a sparse file of gigabytes must not be read whole. A loader may pass a
#: smaller bound (the ROS nodes do, see ``geometry_core_nodes.limits``).
MAX_MESH_FILE_BYTES = 256 * 1024 * 1024

#: Most triangles taken from one mesh file (binary STL: read from its header
#: before the triangles). Ten million triangles are 500 MB of STL.
MAX_MESH_TRIANGLES = 10_000_000
_file_cache: dict[tuple, _MeshData] = {}
_hull_cache: dict[tuple, _MeshData] = {}


def _cache_put(cache: dict, key: tuple, value: _MeshData) -> _MeshData:
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value


def _file_key(kind: str, filename: str) -> tuple:
    try:
        stat = os.stat(filename)
    except OSError:
        raise ValueError(f"{kind} file not found: {filename!r}") from None
    return (os.path.abspath(filename), stat.st_size, stat.st_mtime_ns)


def _scale3(kind: str, scale) -> np.ndarray:
    s = np.asarray(scale, dtype=float)
    if s.shape == ():
        s = np.full(3, float(s))
    if s.shape != (3,):
        raise ValueError(f"{kind} scale must be a number or shape (3,), got shape {s.shape}")
    if not np.all(np.isfinite(s)) or np.any(s == 0.0):
        raise ValueError(f"{kind} scale must be finite and non-zero, got {s.tolist()}")
    return s


def check_mesh_file_size(kind: str, filename: str, max_bytes: int | None = None) -> int:
    """The file's size in bytes, from ``os.stat``; ValueError when over ``max_bytes``.

    ``max_bytes`` defaults to :data:`MAX_MESH_FILE_BYTES`; the file is not opened.
    """
    limit = MAX_MESH_FILE_BYTES if max_bytes is None else max_bytes
    size = _file_key(kind, filename)[1]
    if size > limit:
        raise ValueError(f"{kind} file {filename!r} is {size} bytes, over the limit of "
                         f"{limit} bytes; it is not read")
    return size


def _read_mesh_file(kind: str, filename: str) -> _MeshData:
    """The file's vertices (unscaled) and triangles, read once per file version."""
    key = _file_key(kind, filename)
    cached = _file_cache.get(key)
    if cached is not None:
        return cached
    check_mesh_file_size(kind, filename)
    try:
        binary_stl = _read_binary_stl(kind, filename, key[1])
        if binary_stl is not None:
            vertices, faces = binary_stl
        else:
            vertices, faces = _read_with_trimesh(kind, filename)
    except MemoryError:
        raise ValueError(f"{kind} file {filename!r} could not be read: out of memory "
                         f"reading {key[1]} bytes") from None
    if len(vertices) == 0 or len(faces) == 0:
        raise ValueError(f"{kind} file {filename!r} holds no triangles")
    if len(faces) > MAX_MESH_TRIANGLES:
        raise ValueError(f"{kind} file {filename!r} holds {len(faces)} triangles, over the "
                         f"limit of {MAX_MESH_TRIANGLES}")
    if not np.all(np.isfinite(vertices)):
        raise ValueError(f"{kind} file {filename!r} has vertex coordinates that are NaN or "
                         "infinite")
    vertices.flags.writeable = False
    faces.flags.writeable = False
    return _cache_put(_file_cache, key, _MeshData(vertices, faces))


_STL_TRIANGLE = np.dtype([("normal", "<f4", 3), ("corners", "<f4", (3, 3)), ("attr", "<u2")])


def _read_with_trimesh(kind: str, filename: str) -> tuple[np.ndarray, np.ndarray]:
    import trimesh

    try:
        loaded = trimesh.load(filename, force="mesh", process=False)
    except MemoryError:
        raise
    except Exception as err:  # trimesh raises many types for bad files
        reason = str(err) or type(err).__name__
        raise ValueError(f"{kind} file {filename!r} could not be read: {reason}") from err
    return (np.asarray(loaded.vertices, dtype=float),
            np.asarray(loaded.faces, dtype=np.int64))


def _read_binary_stl(kind: str, filename: str,
                     size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A binary STL's corners and triangles, or None when the file is not one.

    Binary STL is most robots' collision format, and its layout is fixed: an
    80-byte header, a triangle count, 50 bytes a triangle. Read directly, a
    file takes a fraction of trimesh's time (which builds a scene and
    normals first). Corners are not merged: hulls and BVHs need no merging.
    """
    if not filename.lower().endswith(".stl") or size < 84:
        return None
    with open(filename, "rb") as stream:
        head = stream.read(84)
        count = int(np.frombuffer(head, "<u4", 1, 80)[0])
        if 84 + 50 * count != size or head[:5].lower() == b"solid" and count == 0:
            return None  # an ASCII STL (or a broken one): trimesh reads it or says why
        if count > MAX_MESH_TRIANGLES:
            raise ValueError(f"{kind} file {filename!r} holds {count} triangles, over the "
                             f"limit of {MAX_MESH_TRIANGLES}")
        triangles = np.fromfile(stream, _STL_TRIANGLE, count)
    vertices = triangles["corners"].reshape(-1, 3).astype(float)
    return vertices, np.arange(len(vertices), dtype=np.int64).reshape(-1, 3)


def _scaled(data: _MeshData, scale: np.ndarray) -> _MeshData:
    """Apply a (possibly mirroring) scale; a mirror reverses the triangles' winding."""
    faces = data.faces[:, ::-1] if np.prod(scale) < 0.0 else data.faces
    return _MeshData(data.vertices * scale, np.ascontiguousarray(faces))


def _load_mesh_file(kind: str, filename: str, scale: np.ndarray) -> _MeshData:
    return _scaled(_read_mesh_file(kind, filename), scale)


def _hull_of(label: str, points: np.ndarray) -> _MeshData:
    """Convex hull of ``points`` with every triangle wound outward."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        qhull = ConvexHull(points)
    except QhullError as err:
        raise ValueError(f"{label}: points are degenerate (coplanar or collinear), "
                         "no 3-D convex hull exists") from err
    used = np.unique(qhull.simplices)
    remap = -np.ones(len(points), dtype=np.int64)
    remap[used] = np.arange(len(used))
    faces = remap[qhull.simplices]
    vertices = points[used]
    # Qhull does not orient simplices: flip those whose normal points inward.
    centroid = vertices.mean(axis=0)
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    inward = np.einsum("ij,ij->i", normals, a - centroid) < 0
    faces[inward] = faces[inward][:, ::-1]
    vertices.flags.writeable = False
    faces.flags.writeable = False
    return _MeshData(vertices, faces)


class _MeshLike(Shape):
    """Shared behaviour of Mesh and Convex: a file (or points) with a scale."""

    filename: str | None
    scale: float

    def _init_common(self, filename: str | None, scale) -> None:
        kind = type(self).__name__
        if filename is not None:
            filename = os.fspath(filename)
            ext = os.path.splitext(filename)[1].lower()
            if ext not in MESH_SUFFIXES:
                raise ValueError(f"{kind} file must be one of {', '.join(MESH_SUFFIXES)} (any "
                                 f"case), got {filename!r}")
        self.filename = filename
        self.scale3 = _scale3(kind, scale)
        self.scale = float(self.scale3[0]) if np.all(self.scale3 == self.scale3[0]) else None
        self._data: _MeshData | None = None

    def _mesh_data(self) -> _MeshData:
        if self._data is None:
            self._data = _load_mesh_file(type(self).__name__, self.filename, self.scale3)
        return self._data

    def vertices(self) -> np.ndarray:
        """Return the scaled vertices in G, shape (V, 3)."""
        return self._mesh_data().vertices

    def faces(self) -> np.ndarray:
        """Return triangle vertex indices, shape (T, 3)."""
        return self._mesh_data().faces

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        v = self.vertices()
        lo, hi = v.min(axis=0), v.max(axis=0)
        return 0.5 * (lo + hi), 0.5 * (hi - lo)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(filename={self.filename!r}, scale={self.scale3.tolist()})"


class Mesh(_MeshLike):
    """A triangle mesh read from a file (OBJ, STL, ...) with a scale.

    In proximity queries the mesh is used as its triangles (FCL's BVH model):
    see the README for which queries support meshes. ``scale`` is a number or
    three numbers applied to the file's vertices.
    """

    type_name: ClassVar[str] = "mesh"

    def __init__(self, filename: str, scale=1.0) -> None:
        self._init_common(filename, scale)


class Convex(_MeshLike):
    """A convex shape: the convex hull of a mesh file's vertices, or of points.

    ``Convex(filename, scale)`` reads a file; ``Convex.from_points(p_GV)``
    takes vertices directly, shape (N, 3) with N >= 4 not all coplanar.
    """

    type_name: ClassVar[str] = "convex"

    def __init__(self, filename: str, scale=1.0) -> None:
        self._init_common(filename, scale)
        self._hull: _MeshData | None = None

    @classmethod
    def from_points(cls, p_GV, scale=1.0) -> Convex:
        """Return the convex hull of points ``p_GV`` (shape (N, 3)) as a Convex."""
        points = np.asarray(p_GV, dtype=float)
        if points.ndim != 2 or points.shape[1] != 3:
            raise ValueError(f"Convex points must have shape (N, 3), got {points.shape}")
        if len(points) < 4:
            raise ValueError(f"Convex needs at least 4 points, got {len(points)}")
        if not np.all(np.isfinite(points)):
            raise ValueError("Convex points contain NaN or infinity")
        self = cls.__new__(cls)
        self._init_common(None, scale)
        self._data = _MeshData(points * self.scale3, np.zeros((0, 3), dtype=np.int64))
        self._hull = None
        return self

    def hull(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(vertices, faces)`` of the convex hull in G, outward-wound."""
        if self._hull is None:
            if self.filename is None:
                self._hull = _hull_of(repr(self), self._mesh_data().vertices)
            else:
                # The hull of the scaled points is the scaled hull of the file's points,
                # so one hull per file serves every scale; a mirror flips the winding.
                key = _file_key("Convex", self.filename)
                unit = _hull_cache.get(key)
                if unit is None:
                    raw = _read_mesh_file("Convex", self.filename)
                    unit = _cache_put(_hull_cache, key,
                                      _hull_of(f"Convex(filename={self.filename!r})",
                                               raw.vertices))
                self._hull = _scaled(unit, self.scale3)
        return self._hull.vertices, self._hull.faces

    def local_aabb(self) -> tuple[np.ndarray, np.ndarray]:
        v = self.hull()[0]
        lo, hi = v.min(axis=0), v.max(axis=0)
        return 0.5 * (lo + hi), 0.5 * (hi - lo)
