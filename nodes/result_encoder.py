"""Query results straight to the XCDR1 bytes of the scene graph node's result messages.

:func:`~geometry_core_nodes.outbound.penetrations_to_msg` and
:func:`~geometry_core_nodes.outbound.signed_distances_to_msg` build a
message object per pair (and a Point or Vector3 per vector), only for a
serializer to read every field back: at 1 kHz that cost more than the
query. A :class:`ResultEncoder` writes the same bytes from the result
records (``test/nodes/test_result_encoder.py`` compares them with the
message path's, Cyclone's serializer included) through the flat writers of
:mod:`geometry_core_nodes.result_cdr`. The four names of a pair
are encoded once per pair of geometries and kept.

A transport that takes serialized messages publishes these bytes
(``Publisher.publish_serialized``); the message path stays for the others.

This module uses the library's public API and the transport's flat
writers; it never imports cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from geometry_core.math import RigidTransform
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph import GeometryId
from geometry_core_nodes.outbound import GeometryNames, stamp_fields, witness_rows
from geometry_core_nodes.result_cdr import (
    PENETRATION_NUMBERS,
    SIGNED_DISTANCE_NUMBERS,
    pair_names,
    write_penetration_array,
    write_signed_distance_array,
)

__all__ = ["ResultEncoder"]

#: Pairs of geometries whose encoded names are kept; beyond, the cache starts
#: over (a scene of n geometries has at most n(n-1)/2 pairs, most never near).
_MAX_CACHED_PAIRS = 100_000


class ResultEncoder:
    """Encodes one scene's query results as the node's result messages.

    Parameters
    ----------
    names : GeometryNames
        Names of the scene's geometries; ``names.world_frame`` is the
        header's frame.

    Attributes
    ----------
    names : GeometryNames
    """

    def __init__(self, names: GeometryNames) -> None:
        self.names = names
        self._names = names
        self._pair_names: dict[tuple[GeometryId, GeometryId, int | None], bytes] = {}

    def _names_of(self, id_A: GeometryId, id_B: GeometryId,
                  point_index: int | None = None) -> bytes:
        key = (id_A, id_B, point_index)
        encoded = self._pair_names.get(key)
        if encoded is None:
            if len(self._pair_names) >= _MAX_CACHED_PAIRS:
                self._pair_names.clear()
            geometry_a, frame_a = self._names(id_A, point_index)
            geometry_b, frame_b = self._names(id_B, point_index)
            encoded = self._pair_names[key] = pair_names(geometry_a, geometry_b, frame_a,
                                                         frame_b)
        return encoded

    def penetrations(self, penetrations: Sequence[PenetrationAsPointPair], stamp_ns: int,
                     stale_frames: Iterable[str], lost_frames: Iterable[str] = ()) -> bytes:
        """The bytes of ``penetrations_to_msg`` with the same arguments, serialized.

        Raises
        ------
        KeyError
            If a result names a geometry the scene does not have.
        """
        pack = PENETRATION_NUMBERS.pack
        names_of = self._names_of
        pairs = [(names_of(p.id_A, p.id_B, p.point_index),
                  pack(p.depth, *p.p_WCa.tolist(), *p.p_WCb.tolist(), *p.nhat_BA_W.tolist()))
                 for p in penetrations]
        sec, nanosec = stamp_fields(stamp_ns)
        return write_penetration_array(sec, nanosec, self._names.world_frame, pairs,
                                       sorted(stale_frames), sorted(lost_frames))

    def signed_distances(self, distances: Sequence[SignedDistancePair],
                         X_WG: Callable[[GeometryId], RigidTransform], max_distance: float,
                         stamp_ns: int, stale_frames: Iterable[str],
                         lost_frames: Iterable[str] = ()) -> bytes:
        """The bytes of ``signed_distances_to_msg`` with the same arguments, serialized.

        Raises
        ------
        KeyError
            If a result names a geometry the scene or ``X_WG`` does not know.
        """
        pack = SIGNED_DISTANCE_NUMBERS.pack
        names_of = self._names_of
        # Each row: p_ACa, p_BCb, nhat_BA_W (nine floats), then p_WCa, p_WCb.
        pairs = [(names_of(d.id_A, d.id_B, d.point_index),
                  pack(d.distance, *row[:9], bool(d.is_nhat_BA_W_unique), *row[9:]))
                 for d, row in zip(distances, witness_rows(distances, X_WG))]
        sec, nanosec = stamp_fields(stamp_ns)
        return write_signed_distance_array(sec, nanosec, self._names.world_frame,
                                           float(max_distance), pairs, sorted(stale_frames),
                                           sorted(lost_frames))
