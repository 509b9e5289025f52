"""Per-pair and per-point answers exchanged between narrowphase kernels and queries.

Narrowphase kernels answer one question about two posed shapes (or one shape
and a point) and return these small records in world-frame terms; the query
callbacks turn them into Drake's public result types (ordering ids, moving
witness points into geometry frames, dropping pairs beyond a threshold).
Keeping one record for both penetration and signed distance means a pair's
answer is computed by one kernel, so the two queries cannot disagree.

Imports numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class PairWitness(NamedTuple):
    """Signed distance between posed shapes A and B, with witnesses.

    Attributes
    ----------
    distance : float
        Signed distance in metres: positive when apart, negative when
        overlapping (then ``-distance`` is the penetration depth).
    p_WCa : (3,) float
        Witness point Ca on A's surface, measured and expressed in W.
    p_WCb : (3,) float
        Witness point Cb on B's surface, measured and expressed in W.
    nhat_BA_W : (3,) float
        Unit vector, expressed in W, along which translating A increases the
        distance fastest (it points from B into A). When apart it equals
        ``(p_WCa - p_WCb) / distance``.
    is_nhat_BA_W_unique : bool
        False where the direction is a choice among many (concentric spheres,
        touching witnesses, ...).
    """

    distance: float
    p_WCa: np.ndarray
    p_WCb: np.ndarray
    nhat_BA_W: np.ndarray
    is_nhat_BA_W_unique: bool = True

    def swapped(self) -> PairWitness:
        """Return the same answer with the roles of A and B exchanged."""
        return PairWitness(self.distance, self.p_WCb, self.p_WCa, -self.nhat_BA_W,
                           self.is_nhat_BA_W_unique)


class PointWitness(NamedTuple):
    """Signed distance from a point Q to a posed shape G.

    Attributes
    ----------
    distance : float
        Signed distance in metres, negative when Q is inside G.
    p_GN : (3,) float
        Nearest point N on G's surface, measured and expressed in G.
    grad_W : (3,) float
        Gradient of the signed distance with respect to Q, expressed in W
        (unit length).
    is_grad_W_unique : bool
        False where the gradient is a convention (Q at a sphere's centre, on a
        box edge, equidistant from several faces).
    """

    distance: float
    p_GN: np.ndarray
    grad_W: np.ndarray
    is_grad_W_unique: bool = True
