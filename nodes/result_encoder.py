"""Query results straight to the XCDR1 bytes of the scene graph node's result messages.

:func:`~geometry_core_nodes.outbound.penetrations_to_msg` and
:func:`~geometry_core_nodes.outbound.signed_distances_to_msg` build a
message object per pair (and a Point or Vector3 per vector), only for a
serializer to read every field back: at 1 kHz that cost more than the
query. A :class:`ResultEncoder` writes the same bytes from the result
records (``test/nodes/test_result_encoder.py`` compares them with the
message path's, Cyclone's serializer included).

Consecutive queries of a moving robot report the same pairs with new
numbers, so a message is made in two steps. The names, lengths and padding
of a sequence of pairs are laid out once by the flat writers of
:mod:`geometry_core_nodes.result_cdr` and kept (a
:class:`~geometry_core_nodes.result_cdr.SampleLayout`). Each query's
numbers come from the library's compiled record reader
(:mod:`geometry_core.proximity.result_rows`), whose rows are the pair's
numbers as CDR lays them out (little endian, a float64 8-aligned, the
boolean one byte then zero padding), the clearance pairs' world witness
points computed there with the operations of
:func:`~geometry_core_nodes.outbound.witness_rows`, in the same order; the
layout takes them in one copy.

A transport that takes serialized messages publishes these bytes
(``Publisher.publish_serialized``); the message path stays for the others.

This module uses the library's public API and the transport's flat
writers; it never imports cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.proximity.result_rows import (
    PENETRATION_ROW,
    SIGNED_DISTANCE_ROW,
    ProximityRows,
    penetration_rows,
    signed_distance_rows,
)
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair
from geometry_core.scene_graph import GeometryId
from geometry_core_nodes.limits import MAX_STAMP_SEC, MIN_STAMP_SEC
from geometry_core_nodes.outbound import GeometryNames, stamp_fields
from geometry_core_nodes.result_cdr import (
    PENETRATION_NUMBERS,
    SIGNED_DISTANCE_NUMBERS,
    SampleLayout,
    pair_names,
    penetration_array_layout,
    signed_distance_array_layout,
)

__all__ = ["ResultEncoder"]

# The library's rows are the CDR numbers of a pair, field for field (the
# boolean at byte 80, as SIGNED_DISTANCE_NUMBERS packs it).
if (PENETRATION_ROW.itemsize != PENETRATION_NUMBERS.size
        or SIGNED_DISTANCE_ROW.itemsize != SIGNED_DISTANCE_NUMBERS.size
        or SIGNED_DISTANCE_ROW.fields["is_nhat_BA_W_unique"][1] != 80):
    raise ImportError("the library's result rows no longer match the result messages' "
                      "CDR layout")

#: Pairs of geometries whose encoded names are kept; beyond, the cache starts
#: over (a scene of n geometries has at most n(n-1)/2 pairs, most never near).
_MAX_CACHED_PAIRS = 100_000
#: Layouts (a sequence of pairs with its stale and lost frames) kept per
#: message type; beyond, the cache starts over. A moving arm goes through a
#: few tens (the demo's whole motion: 15 of penetrations, 27 of clearance).
_MAX_LAYOUTS = 64
#: Longest sequence of pairs whose layout is kept: a longer one (a point
#: cloud's many points) is laid out for its message alone. With the above,
#: the layouts kept hold at most about 5 MB per message type.
_MAX_KEPT_PAIRS = 64

_Key = tuple  # (id_A, id_B, point_index) of a result


def _little_endian(rows: np.ndarray) -> np.ndarray:
    return rows if np.little_endian else rows.astype(rows.dtype.newbyteorder("<"))


_LITTLE = np.little_endian
_NS_PER_S = 1_000_000_000
#: Sequences whose emptiness is their truth value.
_EMPTY_TYPES = (list, tuple)


def _little_endian_bytes(rows: bytes, dtype: np.dtype) -> bytes:
    # Rows in the machine's byte order, as CDR little endian lays them out.
    if np.little_endian:
        return rows
    return np.frombuffer(rows, dtype=dtype).astype(dtype.newbyteorder("<")).tobytes()


class _Layout:
    """A sample layout, and where each pair's two poses are among its geometries."""

    __slots__ = ("sample", "ids", "poses_of_pairs")

    def __init__(self, sample: SampleLayout, keys: Sequence[_Key]) -> None:
        self.sample = sample
        row: dict[GeometryId, int] = {}
        #: Per pair, the rows of A's and B's pose in the poses of ``ids``.
        self.poses_of_pairs = np.array(
            [row.setdefault(g, len(row)) for key in keys for g in key[:2]], dtype=np.intp)
        #: The distinct geometries of the pairs.
        self.ids = list(row)


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
        self._pair_names: dict[_Key, bytes] = {}
        self._penetration_layouts: dict[tuple, _Layout] = {}
        self._distance_layouts: dict[tuple, _Layout] = {}
        #: The last layout of each message type and its key.
        self._last: dict[int, tuple[tuple, _Layout]] = {}
        #: Per message type, the layouts of the rows of a query by the bytes of
        #: their pairs and the frames, with the geometry ids they index.
        self._rows_layouts: dict[int, tuple[tuple, dict[tuple, _Layout]]] = {}

    def _names_of(self, key: _Key) -> bytes:
        encoded = self._pair_names.get(key)
        if encoded is None:
            if len(self._pair_names) >= _MAX_CACHED_PAIRS:
                self._pair_names.clear()
            id_A, id_B, point_index = key
            geometry_a, frame_a = self.names(id_A, point_index)
            geometry_b, frame_b = self.names(id_B, point_index)
            encoded = self._pair_names[key] = pair_names(geometry_a, geometry_b, frame_a,
                                                         frame_b)
        return encoded

    def _layout(self, kept: dict[tuple, _Layout],
                make: Callable[[str, list[bytes], list[str], list[str]], SampleLayout],
                keys: list[_Key], stale_frames: Iterable[str],
                lost_frames: Iterable[str]) -> _Layout:
        stale, lost = sorted(stale_frames), sorted(lost_frames)
        cache_key = (tuple(keys), tuple(stale), tuple(lost))
        # Most often the pairs of the previous query: the records hold the
        # same id objects, which compare by identity, without hashing.
        last = self._last.get(id(kept))
        if last is not None and last[0] == cache_key:
            return last[1]
        layout = kept.get(cache_key)
        if layout is None:
            layout = _Layout(make(self.names.world_frame, [self._names_of(k) for k in keys],
                                  stale, lost), keys)
            if len(keys) <= _MAX_KEPT_PAIRS:
                if len(kept) >= _MAX_LAYOUTS:
                    kept.clear()
                kept[cache_key] = layout
        self._last[id(kept)] = (cache_key, layout)
        return layout

    def penetrations(self, penetrations: Sequence[PenetrationAsPointPair], stamp_ns: int,
                     stale_frames: Iterable[str], lost_frames: Iterable[str] = ()) -> bytes:
        """The bytes of ``penetrations_to_msg`` with the same arguments, serialized.

        Raises
        ------
        KeyError
            If a result names a geometry the scene does not have.
        """
        keys = [(p.id_A, p.id_B, p.point_index) for p in penetrations]
        layout = self._layout(self._penetration_layouts, penetration_array_layout, keys,
                              stale_frames, lost_frames)
        sec, nanosec = stamp_fields(stamp_ns)
        if not keys:
            return layout.sample.write(sec, nanosec)
        return layout.sample.write(sec, nanosec, _little_endian(penetration_rows(penetrations)))

    def signed_distances(self, distances: Sequence[SignedDistancePair],
                         X_WG: Callable[[GeometryId], RigidTransform], max_distance: float,
                         stamp_ns: int, stale_frames: Iterable[str],
                         lost_frames: Iterable[str] = ()) -> bytes:
        """The bytes of ``signed_distances_to_msg`` with the same arguments, serialized.

        ``X_WG`` gives a geometry's pose in W; one with a ``matrices``
        method (:class:`~geometry_core_nodes.outbound.WorldPoses`) is asked
        for all of them at once.

        Raises
        ------
        KeyError
            If a result names a geometry the scene or ``X_WG`` does not know.
        """
        keys = [(d.id_A, d.id_B, d.point_index) for d in distances]
        layout = self._layout(self._distance_layouts, signed_distance_array_layout, keys,
                              stale_frames, lost_frames)
        sec, nanosec = stamp_fields(stamp_ns)
        max_distance = float(max_distance)
        if not keys:
            return layout.sample.write(sec, nanosec, None, max_distance)
        many = getattr(X_WG, "matrices", None)
        poses = (many(layout.ids) if many is not None else
                 np.array([X_WG(g).get_as_matrix4() for g in layout.ids], dtype=float))
        rows = signed_distance_rows(distances, poses[layout.poses_of_pairs])
        return layout.sample.write(sec, nanosec, _little_endian(rows), max_distance)

    # From the rows of QueryObject.compute_proximity_rows: no record per pair.

    def _rows_layout(self, kept: dict[tuple, _Layout],
                     make: Callable[[str, list[bytes], list[str], list[str]], SampleLayout],
                     ids: tuple, pairs: bytes, stale: tuple, lost: tuple) -> _Layout:
        # The layouts by the bytes of the pairs, for the geometry ids of one
        # model: no GeometryId hashed while the model stays.
        by_bytes = self._rows_layouts.get(id(kept))
        if by_bytes is None or by_bytes[0] is not ids:
            # A new model: its layouts hold while its geometries are the same
            # (an object moved), else they start over.
            kept_by_bytes = by_bytes[1] if by_bytes is not None and by_bytes[0] == ids else {}
            by_bytes = self._rows_layouts[id(kept)] = (ids, kept_by_bytes)
        key = (pairs, stale, lost)
        layout = by_bytes[1].get(key)
        if layout is None:
            keys = [(ids[i], ids[j], None)
                    for i, j in np.frombuffer(pairs, dtype=np.int32).reshape(-1, 2).tolist()]
            layout = self._layout(kept, make, keys, stale, lost)
            if len(keys) <= _MAX_KEPT_PAIRS:
                if len(by_bytes[1]) >= _MAX_LAYOUTS:
                    by_bytes[1].clear()
                by_bytes[1][key] = layout
        return layout

    def encode_rows(self, rows: ProximityRows, max_distance: float, stamp_ns: int,
                    stale_frames: Iterable[str], lost_frames: Iterable[str] = (),
                    penetrations: bool = True, distances: bool = True
                    ) -> tuple[bytes | None, bytes | None]:
        """Both messages of ``rows``: :meth:`penetration_rows` and :meth:`signed_distance_rows`.

        The one asked not for is None.

        Raises
        ------
        KeyError
            If a pair names a geometry the scene does not have.
        """
        # No frame stale nor lost (the usual case): nothing to sort.
        stale = () if type(stale_frames) in _EMPTY_TYPES and not stale_frames else \
            tuple(sorted(stale_frames))
        lost = () if type(lost_frames) in _EMPTY_TYPES and not lost_frames else \
            tuple(sorted(lost_frames))
        sec, nanosec = divmod(stamp_ns, _NS_PER_S)
        if type(sec) is not int or not MIN_STAMP_SEC <= sec <= MAX_STAMP_SEC:
            sec, nanosec = stamp_fields(stamp_ns)  # clamped, as the header can hold it
        ids = rows.geometry_ids
        penetration_bytes = distance_bytes = None
        if penetrations:
            layout = self._rows_layout(self._penetration_layouts, penetration_array_layout,
                                       ids, rows.penetration_pair_bytes, stale, lost)
            numbers = rows.penetration_bytes
            penetration_bytes = layout.sample.write(sec, nanosec, numbers if _LITTLE else
                                                    _little_endian_bytes(numbers,
                                                                         PENETRATION_ROW))
        if distances:
            layout = self._rows_layout(self._distance_layouts, signed_distance_array_layout,
                                       ids, rows.distance_pair_bytes, stale, lost)
            numbers = rows.distance_bytes
            distance_bytes = layout.sample.write(sec, nanosec, numbers if _LITTLE else
                                                 _little_endian_bytes(numbers,
                                                                      SIGNED_DISTANCE_ROW),
                                                 float(max_distance))
        return penetration_bytes, distance_bytes

    def penetration_rows(self, rows: ProximityRows, stamp_ns: int,
                         stale_frames: Iterable[str], lost_frames: Iterable[str] = ()) -> bytes:
        """:meth:`penetrations` of the penetrations in ``rows``: the same bytes.

        Raises
        ------
        KeyError
            If a pair names a geometry the scene does not have.
        """
        return self.encode_rows(rows, 0.0, stamp_ns, stale_frames, lost_frames,
                                distances=False)[0]

    def signed_distance_rows(self, rows: ProximityRows, max_distance: float, stamp_ns: int,
                             stale_frames: Iterable[str],
                             lost_frames: Iterable[str] = ()) -> bytes:
        """:meth:`signed_distances` of the pairs in ``rows``: the same bytes.

        The rows' world witness points are those :meth:`signed_distances`
        computes from the geometries' poses in W.

        Raises
        ------
        KeyError
            If a pair names a geometry the scene does not have.
        """
        return self.encode_rows(rows, max_distance, stamp_ns, stale_frames, lost_frames,
                                penetrations=False)[1]
