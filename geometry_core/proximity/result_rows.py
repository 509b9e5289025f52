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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geometry_core import native
from geometry_core.proximity.results import PenetrationAsPointPair, SignedDistancePair

__all__ = ["PENETRATION_ROW", "SIGNED_DISTANCE_ROW", "penetration_rows",
           "signed_distance_rows"]

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
