"""Public result types of the proximity queries, with Drake's field names.

One frozen record per query (house rule 4): no flag changes what a query
returns. Vectors are numpy arrays of shape (3,), in the frames their
monogram names say.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry_core.scene_graph.identifiers import GeometryId

__all__ = ["PenetrationAsPointPair", "SignedDistancePair", "SignedDistanceToPoint", "Aabb"]


@dataclass(frozen=True, eq=False)
class PenetrationAsPointPair:
    """Two overlapping geometries, characterised by their deepest points.

    Attributes
    ----------
    id_A, id_B : GeometryId
        The pair, with ``id_A < id_B``.
    p_WCa : (3,) float
        The point of A that lies deepest inside B, in W (metres).
    p_WCb : (3,) float
        The point of B that lies deepest inside A, in W (metres).
    nhat_BA_W : (3,) float
        Unit normal from B into A, expressed in W: translating A by
        ``depth * nhat_BA_W`` separates the pair.
    depth : float
        Penetration depth, > 0 (metres); ``p_WCa - p_WCb = -depth * nhat_BA_W``.
    point_index : int or None
        When id_A or id_B is a point cloud (``SceneGraph.register_point_cloud``):
        the row of the point hit in the cloud's ``p_FP``; None otherwise.
    """

    id_A: GeometryId
    id_B: GeometryId
    p_WCa: np.ndarray
    p_WCb: np.ndarray
    nhat_BA_W: np.ndarray
    depth: float
    point_index: int | None = None


@dataclass(frozen=True, eq=False)
class SignedDistancePair:
    """Signed distance between two geometries with witness points.

    Attributes
    ----------
    id_A, id_B : GeometryId
        The pair (``id_A < id_B`` in pairwise results).
    p_ACa : (3,) float
        Witness point Ca on A's surface, measured and expressed in A's
        geometry frame.
    p_BCb : (3,) float
        Witness point Cb on B's surface, measured and expressed in B's
        geometry frame.
    distance : float
        Signed distance (metres), negative when the geometries overlap.
    nhat_BA_W : (3,) float
        Direction of fastest increase of the distance when A moves, in W.
    is_nhat_BA_W_unique : bool
        False when that direction is one choice among several.
    point_index : int or None
        When id_A or id_B is a point cloud: the row of the point in the
        cloud's ``p_FP``, and that side's witness is measured from the
        point's centre, expressed in the cloud's frame (the frame of a
        sphere registered there); None otherwise.
    """

    id_A: GeometryId
    id_B: GeometryId
    p_ACa: np.ndarray
    p_BCb: np.ndarray
    distance: float
    nhat_BA_W: np.ndarray
    is_nhat_BA_W_unique: bool
    point_index: int | None = None


@dataclass(frozen=True, eq=False)
class SignedDistanceToPoint:
    """Signed distance from a query point Q to a geometry G.

    Attributes
    ----------
    id_G : GeometryId
        The geometry.
    p_GN : (3,) float
        Nearest point N on G's surface, in G's frame (metres).
    distance : float
        Signed distance, negative when Q is inside G.
    grad_W : (3,) float
        Gradient of the distance with respect to Q, expressed in W.
    is_grad_W_unique : bool
        False where the gradient is a convention (see the query's docs).
    point_index : int or None
        When id_G is a point cloud: the row of the point in the cloud's
        ``p_FP`` (``p_GN`` measured from its centre, in the cloud's frame);
        None otherwise.
    """

    id_G: GeometryId
    p_GN: np.ndarray
    distance: float
    grad_W: np.ndarray
    is_grad_W_unique: bool
    point_index: int | None = None


@dataclass(frozen=True, eq=False)
class Aabb:
    """An axis-aligned bounding box in the world frame.

    Attributes
    ----------
    center : (3,) float
        Centre of the box in W.
    half_width : (3,) float
        Half side lengths along Wx, Wy, Wz (inf for an unbounded shape).
    """

    center: np.ndarray
    half_width: np.ndarray

    def lower(self) -> np.ndarray:
        return self.center - self.half_width

    def upper(self) -> np.ndarray:
        return self.center + self.half_width

    def contains(self, p_WQ) -> bool:
        """Report whether the point lies in the box (boundary included)."""
        p_WQ = np.asarray(p_WQ, dtype=float)
        return bool(np.all(np.abs(p_WQ - self.center) <= self.half_width))


# Fast constructors for the query loops, which build thousands of records
# from values they have already checked: the same frozen objects as the
# dataclass constructors make, without the per-field frozen __setattr__
# (about half the cost of a record). Not public.
_new = object.__new__
_set = object.__setattr__


def _penetration(id_A, id_B, p_WCa, p_WCb, nhat_BA_W, depth) -> PenetrationAsPointPair:
    record = _new(PenetrationAsPointPair)
    _set(record, "__dict__", {"id_A": id_A, "id_B": id_B, "p_WCa": p_WCa, "p_WCb": p_WCb,
                              "nhat_BA_W": nhat_BA_W, "depth": depth})
    return record


def _signed_distance_pair(id_A, id_B, p_ACa, p_BCb, distance, nhat_BA_W,
                          is_nhat_BA_W_unique) -> SignedDistancePair:
    record = _new(SignedDistancePair)
    _set(record, "__dict__", {"id_A": id_A, "id_B": id_B, "p_ACa": p_ACa, "p_BCb": p_BCb,
                              "distance": distance, "nhat_BA_W": nhat_BA_W,
                              "is_nhat_BA_W_unique": is_nhat_BA_W_unique})
    return record


def _signed_distance_to_point(id_G, p_GN, distance, grad_W,
                              is_grad_W_unique) -> SignedDistanceToPoint:
    record = _new(SignedDistanceToPoint)
    _set(record, "__dict__", {"id_G": id_G, "p_GN": p_GN, "distance": distance,
                              "grad_W": grad_W, "is_grad_W_unique": is_grad_W_unique})
    return record
