"""Benchmark scenes, described once and built in geometry_core, Drake and raw python-fcl.

A :class:`SceneSpec` is plain data: shapes, which frame each sits on (or
anchored), fixed poses, and a sequence of fresh frame poses, one set per
cycle. Every system under test builds the same scene from it, so the
comparison is like for like.

* ``random_scene(n)``: n mixed primitives (sphere, box, cylinder, capsule,
  ellipsoid), each on its own moving frame, spread in a cube whose size
  grows with n so that each geometry overlaps about one other on average —
  a realistic density for a cluttered workcell, neither empty nor a pile.
* ``robot_scene()``: a 7-link arm (3 geometries a link: capsule, box,
  sphere) on a chain of frames, among 50 anchored obstacles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry_core import Box, Capsule, Cylinder, Ellipsoid, Sphere
from geometry_core.math.kernels import rotation_matrices_from_rpy


@dataclass
class SceneSpec:
    """Plain description of a benchmark scene.

    Attributes
    ----------
    name : str
    shapes : list of Shape
    frame_of : (G,) int
        Frame index of each geometry, -1 for anchored geometry.
    X_FG : (G, 4, 4) float
        Fixed pose of each geometry in its frame (in W when anchored).
    parent_of : (F,) int
        Parent frame index of each frame, -1 for the world.
    X_PF : (cycles, F, 4, 4) float
        Fresh poses of every frame in its parent, one set per cycle.
    """

    name: str
    shapes: list
    frame_of: np.ndarray
    X_FG: np.ndarray
    parent_of: np.ndarray
    X_PF: np.ndarray

    @property
    def num_frames(self) -> int:
        return len(self.parent_of)


def _poses(rng: np.random.Generator, count: int, extent: float) -> np.ndarray:
    X = np.tile(np.eye(4), (count, 1, 1))
    X[:, :3, :3] = rotation_matrices_from_rpy(rng.uniform(-np.pi, np.pi, (count, 3)))
    X[:, :3, 3] = rng.uniform(-extent, extent, (count, 3))
    return X


def _random_shape(rng: np.random.Generator):
    kind = rng.integers(5)
    size = rng.uniform(0.05, 0.15, 3)
    if kind == 0:
        return Sphere(size[0])
    if kind == 1:
        return Box(*(2 * size))
    if kind == 2:
        return Cylinder(size[0], 2 * size[1])
    if kind == 3:
        return Capsule(size[0], 2 * size[1])
    return Ellipsoid(*size)


def random_scene(n: int, cycles: int = 20, seed: int = 0) -> SceneSpec:
    """n mixed primitives on n moving frames, about one overlap per geometry."""
    rng = np.random.default_rng(seed)
    shapes = [_random_shape(rng) for _ in range(n)]
    # Mean bounding radius ~0.13 m; a cube of side s holding n such bodies has
    # about one neighbour within touching distance when s^3 ~ n * (4/3)π(2r)^3.
    extent = 0.5 * (n * 4.0 / 3.0 * np.pi * 0.26 ** 3) ** (1.0 / 3.0)
    X_PF = np.stack([_poses(rng, n, extent) for _ in range(cycles)])
    return SceneSpec(f"random N={n}", shapes, np.arange(n), np.tile(np.eye(4), (n, 1, 1)),
                     -np.ones(n, dtype=int), X_PF)


def robot_scene(cycles: int = 20, seed: int = 0) -> SceneSpec:
    """A 7-link arm, 3 geometries a link, among 50 anchored obstacles."""
    rng = np.random.default_rng(seed)
    shapes, frame_of, X_FG = [], [], []
    link_length = 0.25
    for link in range(7):
        for shape, z in ((Capsule(0.05, link_length * 0.8), 0.5 * link_length),
                         (Box(0.08, 0.08, 0.06), 0.9 * link_length),
                         (Sphere(0.055), 0.0)):
            X = np.eye(4)
            X[2, 3] = z
            shapes.append(shape)
            frame_of.append(link)
            X_FG.append(X)
    obstacles = _poses(rng, 50, 0.9)
    for k in range(50):
        shapes.append(_random_shape(rng))
        frame_of.append(-1)
        X_FG.append(obstacles[k])
    parent_of = np.array([-1, 0, 1, 2, 3, 4, 5])
    X_PF = np.tile(np.eye(4), (cycles, 7, 1, 1))
    for c in range(cycles):
        q = rng.uniform(-2.0, 2.0, 7)
        for link in range(7):
            axis = (2, 1, 1, 2, 1, 2, 1)[link]
            rpy = np.zeros(3)
            rpy[axis] = q[link]
            X_PF[c, link, :3, :3] = rotation_matrices_from_rpy(rpy[None])[0]
            X_PF[c, link, 2, 3] = 0.0 if link == 0 else link_length
    return SceneSpec("robot arm + 50 obstacles", shapes, np.array(frame_of), np.array(X_FG),
                     parent_of, X_PF)


def query_points(count: int = 100, extent: float = 1.0, seed: int = 1) -> np.ndarray:
    """Points for the distance-to-point query, shape (count, 3)."""
    return np.random.default_rng(seed).uniform(-extent, extent, (count, 3))
