"""Broadphase: world bounding boxes and candidate pairs, vectorised in numpy.

Per cycle the cost is a handful of array operations over the geometries plus
work proportional to the candidate pairs; no Python runs per non-candidate
pair (house rule 6). Static data (local boxes, per-kind index lists, the
filtered all-pairs table of small scenes) is computed once per collision
model and cached in :class:`BroadphaseModel`.

World boxes are tight for every primitive: the rotated box, ellipsoid,
cylinder and capsule all have closed forms; convex hulls and meshes use the
rotated local box (conservative). Half spaces are unbounded and are paired
with every bounded geometry whose box reaches within the margin of the plane.

Imports numpy and the scene graph's model types only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry_core.scene_graph.collision_model import CollisionModel
from geometry_core.shapes import Capsule, Cylinder, Ellipsoid, HalfSpace, Sphere

__all__ = ["BroadphaseModel", "world_aabbs", "candidate_pairs", "ALL_PAIRS_MAX"]

#: Scenes with at most this many bounded geometries test every pair with one
#: vectorised comparison (a precomputed, pre-filtered pair table); larger
#: ones sort and sweep. 64 geometries give 2016 pairs, which the table tests
#: faster than a sort; beyond that the table grows quadratically.
ALL_PAIRS_MAX = 64


@dataclass(eq=False)
class BroadphaseModel:
    """Static broadphase data of one collision model.

    Per geometry: its kind code, local box, and the sizes the closed forms
    need (radius, half length; an ellipsoid's semi-axes are its local box).
    The per-kind index arrays are derived from ``kind`` once, at build.
    """

    # Shape kind codes of ``kind``: world boxes and the prefilter key on them.
    BOXLIKE, SPHERE, ELLIPSOID, CYLINDER, CAPSULE, HALFSPACE = range(6)

    model: CollisionModel
    center_G: np.ndarray  # (G, 3) local box centres (0 for half spaces)
    half_G: np.ndarray  # (G, 3) local box half extents (0 for half spaces)
    kind: np.ndarray  # (G,) kind code per geometry
    radius: np.ndarray  # (G,) sphere / cylinder / capsule radius, else 0
    half_length: np.ndarray  # (G,) cylinder / capsule half length, else 0
    pair_i: np.ndarray | None  # all-pairs table (small scenes), unfiltered only
    pair_j: np.ndarray | None

    def __post_init__(self) -> None:
        self.spheres = np.flatnonzero(self.kind == self.SPHERE)
        self.ellipsoids = np.flatnonzero(self.kind == self.ELLIPSOID)
        self.round_axial = np.flatnonzero((self.kind == self.CYLINDER)
                                          | (self.kind == self.CAPSULE))
        self.round_is_capsule = self.kind[self.round_axial] == self.CAPSULE
        self.halfspaces = np.flatnonzero(self.kind == self.HALFSPACE)
        self.bounded = np.flatnonzero(self.kind != self.HALFSPACE)

    @classmethod
    def build(cls, model: CollisionModel) -> BroadphaseModel:
        size = model.size
        center_G = np.zeros((size, 3))
        half_G = np.zeros((size, 3))
        kind = np.full(size, cls.BOXLIKE, dtype=np.int8)
        radius, half_length = np.zeros(size), np.zeros(size)
        for i, shape in enumerate(model.shapes):
            if isinstance(shape, HalfSpace):
                kind[i] = cls.HALFSPACE
                continue
            center_G[i], half_G[i] = shape.local_aabb()
            if isinstance(shape, Sphere):
                kind[i], radius[i] = cls.SPHERE, shape.radius
            elif isinstance(shape, Ellipsoid):
                kind[i] = cls.ELLIPSOID
            elif isinstance(shape, (Cylinder, Capsule)):
                kind[i] = cls.CAPSULE if isinstance(shape, Capsule) else cls.CYLINDER
                radius[i], half_length[i] = shape.radius, 0.5 * shape.length
        bounded = np.flatnonzero(kind != cls.HALFSPACE)
        pair_i = pair_j = None
        if len(bounded) <= ALL_PAIRS_MAX:
            a, b = np.triu_indices(len(bounded), k=1)
            pair_i, pair_j = bounded[a], bounded[b]
            keep = model.unfiltered(pair_i, pair_j)
            pair_i, pair_j = pair_i[keep], pair_j[keep]
        return cls(model, center_G, half_G, kind, radius, half_length, pair_i, pair_j)


def world_aabbs(bp: BroadphaseModel, X_WG: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(center_W, half_W)`` of every geometry's world box, each (G, 3).

    Half spaces get ``inf`` half widths.
    """
    R_WG = X_WG[:, :3, :3]
    center_W = np.einsum("gij,gj->gi", R_WG, bp.center_G) + X_WG[:, :3, 3]
    half_W = np.einsum("gij,gj->gi", np.abs(R_WG), bp.half_G)
    if bp.spheres.size:
        half_W[bp.spheres] = bp.radius[bp.spheres, None]
    if bp.ellipsoids.size:
        R = R_WG[bp.ellipsoids]
        half_W[bp.ellipsoids] = np.sqrt(np.einsum("gij,gj->gi", R * R,
                                                  bp.half_G[bp.ellipsoids] ** 2))
    if bp.round_axial.size:
        u_W = R_WG[bp.round_axial, :, 2]  # axis Gz in W
        r = bp.radius[bp.round_axial, None]
        h = bp.half_length[bp.round_axial, None]
        disc = np.sqrt(np.clip(1.0 - u_W * u_W, 0.0, None))
        half_W[bp.round_axial] = np.where(bp.round_is_capsule[:, None],
                                          r + h * np.abs(u_W), r * disc + h * np.abs(u_W))
    if bp.halfspaces.size:
        half_W[bp.halfspaces] = np.inf
    return center_W, half_W


def candidate_pairs(bp: BroadphaseModel, X_WG: np.ndarray, center_W: np.ndarray,
                    half_W: np.ndarray, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Return unfiltered index pairs ``(i, j)``, ``i < j``, whose boxes are within ``margin``.

    The pairs come back sorted by ``(i, j)``, which is ascending id order.
    ``margin`` is a distance in metres (``inf`` pairs everything unfiltered).
    """
    model = bp.model
    lo = center_W - half_W - 0.5 * margin
    hi = center_W + half_W + 0.5 * margin
    if bp.pair_i is not None:
        i, j = bp.pair_i, bp.pair_j
        if np.isfinite(margin):
            overlap = np.all((lo[i] <= hi[j]) & (lo[j] <= hi[i]), axis=1)
            i, j = i[overlap], j[overlap]
    else:
        i, j = _sweep(bp.bounded, lo, hi)
        keep = model.unfiltered(i, j)
        i, j = i[keep], j[keep]
    if bp.halfspaces.size:
        hi_, hj_ = _halfspace_pairs(bp, X_WG, center_W, half_W, margin)
        i, j = np.concatenate([i, hi_]), np.concatenate([j, hj_])
    order = np.lexsort((j, i))
    return i[order], j[order]


def _sweep(bounded: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort-and-sweep on x, then test y and z; all in numpy."""
    order = bounded[np.argsort(lo[bounded, 0], kind="stable")]
    lo_x = lo[order, 0]
    end = np.searchsorted(lo_x, hi[order, 0], side="right")
    start = np.arange(1, len(order) + 1)
    counts = np.maximum(end - start, 0)
    total = int(counts.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    a = np.repeat(np.arange(len(order)), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    b = a + 1 + offsets
    gi, gj = order[a], order[b]
    overlap = np.all((lo[gi, 1:] <= hi[gj, 1:]) & (lo[gj, 1:] <= hi[gi, 1:]), axis=1)
    gi, gj = gi[overlap], gj[overlap]
    return np.minimum(gi, gj), np.maximum(gi, gj)


def _halfspace_pairs(bp: BroadphaseModel, X_WG, center_W, half_W, margin):
    """Pairs of each half space with every geometry whose box dips below its plane + margin."""
    model = bp.model
    others = np.arange(model.size)
    firsts, seconds = [], []
    for h in bp.halfspaces:
        n_W = X_WG[h, :3, 2]
        p_WHo = X_WG[h, :3, 3]
        candidates = others[others != h]
        bounded = np.isfinite(half_W[candidates, 0])
        # Lowest point of each box along n_W, relative to the plane.
        with np.errstate(invalid="ignore"):
            low = (center_W[candidates] - p_WHo) @ n_W - half_W[candidates] @ np.abs(n_W)
        hit = np.where(bounded, low <= margin, True)
        partner = candidates[hit]
        i, j = np.minimum(partner, h), np.maximum(partner, h)
        keep = model.unfiltered(i, j)
        firsts.append(i[keep])
        seconds.append(j[keep])
    i, j = np.concatenate(firsts), np.concatenate(seconds)
    # A pair of two half spaces appears once per half space: keep one copy.
    key = np.unique(i.astype(np.int64) * model.size + j)
    return (key // model.size).astype(np.intp), (key % model.size).astype(np.intp)
