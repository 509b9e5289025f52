"""Query results as rows of one structured array, packed by one compiled loop.

A caller that writes many results at once (a message per query at 1 kHz, a
log file) reads every field of every record; in Python that costs more
than the query. :func:`penetration_rows` and :func:`signed_distance_rows`
read them in C (``native.record_rows``) into an array of
:data:`PENETRATION_ROW` or :data:`SIGNED_DISTANCE_ROW` records, laid out as
a C struct of the fields (a bool is one byte, then zero padding up to the
next float64).

:func:`signed_distance_rows` also gives each pair's witness points in W,
``p_WCa = X_WA p_ACa`` and ``p_WCb = X_WB p_BCb``, each coordinate summed as
written, ``((r0 a0 + r1 a1) + r2 a2) + t``, with no fused multiply-add: the
same doubles as those operations on Python floats.

:func:`proximity_rows` gives both queries' rows of one snapshot without
records at all: one pass of the compiled kernels over the candidate pairs
writes the rows of the penetrations and of the pairs within
``max_distance`` (``native.Model.pair_rows``), the same numbers as the two
queries' records read by the functions above (``test/test_result_rows.py``
compares them bit for bit).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geometry_core import native
from geometry_core.proximity import penetration, signed_distance
from geometry_core.proximity.engine import PosedScene
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair

__all__ = ["PENETRATION_ROW", "SIGNED_DISTANCE_ROW", "ProximityRows", "penetration_rows",
           "proximity_rows", "signed_distance_rows"]

# Native byte order: the compiled loop writes the machine's doubles.
_VECTOR = ("f8", (3,))
_FLOAT = "f8"

#: One PenetrationAsPointPair: depth, p_WCa, p_WCb, nhat_BA_W (80 bytes).
PENETRATION_ROW = np.dtype([("depth", _FLOAT), ("p_WCa", _VECTOR), ("p_WCb", _VECTOR),
                            ("nhat_BA_W", _VECTOR)], align=True)
#: One SignedDistancePair with its witness points in W: distance, p_ACa,
#: p_BCb, nhat_BA_W, is_nhat_BA_W_unique (one byte, seven of padding),
#: p_WCa, p_WCb (136 bytes).
SIGNED_DISTANCE_ROW = np.dtype([("distance", _FLOAT), ("p_ACa", _VECTOR), ("p_BCb", _VECTOR),
                                ("nhat_BA_W", _VECTOR), ("is_nhat_BA_W_unique", "?"),
                                ("p_WCa", _VECTOR), ("p_WCb", _VECTOR)], align=True)

_PENETRATION_FIELDS = ("depth", "p_WCa", "p_WCb", "nhat_BA_W")
_SIGNED_DISTANCE_FIELDS = ("distance", "p_ACa", "p_BCb", "nhat_BA_W", "is_nhat_BA_W_unique")


def penetration_rows(penetrations: Sequence[PenetrationAsPointPair]) -> np.ndarray:
    """The penetrations as a ``(K,)`` array of :data:`PENETRATION_ROW`.

    Raises
    ------
    TypeError
        If a record's field is not a number or a float64 3-vector.
    """
    return np.frombuffer(native.record_rows(list(penetrations), _PENETRATION_FIELDS, "d333"),
                         dtype=PENETRATION_ROW)


def signed_distance_rows(distances: Sequence[SignedDistancePair],
                         X_WA_WB: np.ndarray) -> np.ndarray:
    """The pairs as a ``(K,)`` array of :data:`SIGNED_DISTANCE_ROW`, witnesses in W too.

    Parameters
    ----------
    distances : sequence of SignedDistancePair
    X_WA_WB : (2K, 4, 4) float
        ``X_WA`` then ``X_WB`` of each pair, pair after pair: the poses of
        the frames its witness points ``p_ACa`` and ``p_BCb`` are in.

    Raises
    ------
    TypeError
        If a record's field is not a number, a bool or a float64 3-vector.
    ValueError
        If ``X_WA_WB`` does not hold two poses per pair.
    """
    X = np.ascontiguousarray(X_WA_WB, dtype=np.float64)
    return np.frombuffer(native.record_rows(list(distances), _SIGNED_DISTANCE_FIELDS, "d333?", X),
                         dtype=SIGNED_DISTANCE_ROW)


class ProximityRows:
    """Penetrations and signed distances of one snapshot as rows, pairs as geometry indices.

    The arrays are numpy views of the bytes the compiled pass wrote, made
    when first read; a caller that copies rows elsewhere whole (a message)
    can take those bytes as they are.

    Attributes
    ----------
    geometry_ids : tuple of GeometryId
        The snapshot's proximity geometries; the pairs index into it.
    penetration_pairs : (K, 2) int32 ndarray
        ``(index of id_A, index of id_B)`` of each penetration, in the
        order of ``compute_point_pair_penetration``.
    penetrations : (K,) ndarray of :data:`PENETRATION_ROW`
    distance_pairs : (M, 2) int32 ndarray
        The same for ``compute_signed_distance_pairwise_closest_points``.
    distances : (M,) ndarray of :data:`SIGNED_DISTANCE_ROW`
        With the witness points in W, as :func:`signed_distance_rows` gives
        them for the geometries' poses in W.
    penetration_bytes, penetration_pair_bytes, distance_bytes, distance_pair_bytes : bytes
        The same rows and pairs as bytes, in the machine's byte order.
    """

    __slots__ = ("geometry_ids", "penetration_bytes", "penetration_pair_bytes",
                 "distance_bytes", "distance_pair_bytes", "_arrays")

    def __init__(self, geometry_ids: tuple, penetration_bytes: bytes,
                 penetration_pair_bytes: bytes, distance_bytes: bytes,
                 distance_pair_bytes: bytes) -> None:
        self.geometry_ids = geometry_ids
        self.penetration_bytes = penetration_bytes
        self.penetration_pair_bytes = penetration_pair_bytes
        self.distance_bytes = distance_bytes
        self.distance_pair_bytes = distance_pair_bytes
        self._arrays: dict[str, np.ndarray] = {}

    def _array(self, name: str, data: bytes, dtype) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None:
            array = np.frombuffer(data, dtype=dtype)
            if dtype is np.int32:
                array = array.reshape(-1, 2)
            self._arrays[name] = array
        return array

    @property
    def penetration_pairs(self) -> np.ndarray:
        return self._array("penetration_pairs", self.penetration_pair_bytes, np.int32)

    @property
    def penetrations(self) -> np.ndarray:
        return self._array("penetrations", self.penetration_bytes, PENETRATION_ROW)

    @property
    def distance_pairs(self) -> np.ndarray:
        return self._array("distance_pairs", self.distance_pair_bytes, np.int32)

    @property
    def distances(self) -> np.ndarray:
        return self._array("distances", self.distance_bytes, SIGNED_DISTANCE_ROW)


def proximity_rows(scene: PosedScene, max_distance: float, penetrations: bool = True,
                   distances: bool = True) -> ProximityRows:
    """Both pair queries of a posed scene (its point clouds aside) as :class:`ProximityRows`.

    The rows of ``compute_point_pair_penetration`` (when ``penetrations``)
    and of ``compute_signed_distance_pairwise_closest_points(max_distance)``
    (when ``distances``) over the scene's geometries, to the bit; the query
    not asked for has no rows. When the kernels leave a pair to Python (a
    mesh, two half spaces, a direction-search answer), the two queries run
    as such and their records are read.

    Raises
    ------
    ValueError
        As the queries (a NaN ``max_distance``, two half spaces).
    """
    max_distance = float(max_distance)
    if max_distance != max_distance:
        raise ValueError("max_distance must be a number, got NaN")
    model = scene.model
    pen, pen_ij, dist, dist_ij, left = scene.pair_rows(max_distance, penetrations, distances)
    if not left:
        return ProximityRows(model.geometry_ids, pen, pen_ij, dist, dist_ij)
    pen, pen_ij, dist, dist_ij = b"", b"", b"", b""
    if penetrations:
        records = penetration.compute_point_pair_penetration(scene)
        pen_ij = _indices(model, records).tobytes()
        pen = penetration_rows(records).tobytes()
    if distances:
        records = signed_distance.compute_signed_distance_pairwise_closest_points(
            scene, max_distance)
        indices = _indices(model, records)
        dist_ij = indices.tobytes()
        dist = signed_distance_rows(records, scene.X_WG[indices.reshape(-1)]).tobytes()
    return ProximityRows(model.geometry_ids, pen, pen_ij, dist, dist_ij)


def _indices(model, records: Sequence) -> np.ndarray:
    ids = [g for r in records for g in (r.id_A, r.id_B)]
    return np.array(model.find_indices(ids), dtype=np.int32).reshape(-1, 2)
