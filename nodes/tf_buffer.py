"""The latest transform of every frame heard on /tf, /tf_static and pose topics.

A small stand-in for tf2's buffer, enough for the nodes: it keeps only the
newest transform per child frame (no history, no interpolation) and answers
"pose of frame C in frame P" by composing the chain of parents from C up to
P. Scene frames usually arrive with their scene parent as ``header.frame_id``
(a chain of one); a chain is needed when /tf puts frames the scene does not
have in between (``world -> odom -> base_link``).

Transforms are stored as received (translation and ROS-order quaternion,
seven numbers, see :data:`Transform`) and turned into matrices only when
asked, all frames at once (:meth:`TfBuffer.lookup_all`): at 1 kHz /tf most
stored transforms are replaced before any query reads them.

Static transforms (/tf_static) never go stale; a chain's age is that of its
oldest dynamic transform.

Memory is bounded: besides the protected frames (the scene's), at most
``max_foreign_frames`` frames are kept; a new one beyond that evicts the
frame updated least recently (:attr:`TfBuffer.evicted` counts them).

This module is pure (no transport, no node); it uses the library's math only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from geometry_core.math import (
    RigidTransform,
    matrix4_from_quaternions_and_positions,
    quaternion_xyzw_to_wxyz,
)
from geometry_core_nodes.conversions import Transform
from geometry_core_nodes.limits import MAX_FOREIGN_FRAMES

__all__ = ["ChainPose", "TfBuffer"]

#: Longest parent chain followed; a longer one is treated as a cycle. Real
#: tf trees are a few levels deep between a scene frame and its parent.
MAX_CHAIN = 64

#: From this many transforms on, a lookup converts them with the batched
#: kernel; below, one RigidTransform each (its compiled scalar path): for the
#: six frames of an arm that is 18 µs against 55 µs of numpy's per-call
#: overhead, while the batch wins for hundreds of frames.
_BATCH_FROM = 32


class _Edge(NamedTuple):
    parent: str
    values: np.ndarray  # (7,): translation x y z, rotation x y z w (ROS order)
    stamp_ns: int
    static: bool


@dataclass(frozen=True)
class ChainPose:
    """Pose of a frame C in a frame P, composed from the buffer.

    Attributes
    ----------
    X_PC : (4, 4) float
        The pose, a homogeneous matrix.
    newest_ns : int
        Newest stamp among the transforms composed.
    oldest_dynamic_ns : int or None
        Oldest stamp among the non-static transforms composed; None if all
        were static (a static chain is never stale).
    """

    X_PC: np.ndarray
    newest_ns: int
    oldest_dynamic_ns: int | None


class TfBuffer:
    """Newest transform per child frame, and chains of them.

    Parameters
    ----------
    max_foreign_frames : int
        Frames kept besides the protected ones (see :meth:`protect`).

    Attributes
    ----------
    version : int
        Incremented by every :meth:`set_transform`; lets a caller skip work
        when nothing arrived.
    max_foreign_frames : int
    evicted : int
        Frames forgotten to stay within ``max_foreign_frames``.
    """

    def __init__(self, max_foreign_frames: int = MAX_FOREIGN_FRAMES) -> None:
        # Least recently updated first: the eviction order.
        self._edges: OrderedDict[str, _Edge] = OrderedDict()
        self._protected: frozenset[str] = frozenset()
        self.max_foreign_frames = max_foreign_frames
        self._foreign = 0
        self.version = 0
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._edges)

    def __contains__(self, child: str) -> bool:
        return child in self._edges

    def protect(self, names: Iterable[str]) -> None:
        """Never evict these frames (the scene's); they do not count against the cap."""
        self._protected = frozenset(names)
        self._foreign = sum(name not in self._protected for name in self._edges)

    def set_transform(self, transform: Transform, static: bool) -> None:
        """Store ``transform`` as the newest transform of its child frame.

        ``transform`` is ``(parent, child, stamp_ns, values)`` as
        :func:`~geometry_core_nodes.conversions.tf_arrays_to_transforms`
        gives it, already validated (finite, non-zero quaternion).

        A transform with an older stamp than the stored dynamic one is kept
        anyway: publishers restart and clocks jump; the newest message wins,
        as tf2 does for static frames. A dynamic transform does not replace
        a static one of the same child with a different parent (tf2 keeps
        one parent per frame; the static tree wins).
        """
        parent, child, stamp_ns, values = transform
        existing = self._edges.get(child)
        if existing is not None and existing.static and not static \
                and existing.parent != parent:
            return
        if existing is None and child not in self._protected:
            self._foreign += 1
            self._evict_beyond_cap()
        self._edges[child] = _Edge(parent, values, stamp_ns, static)
        self._edges.move_to_end(child)
        self.version += 1

    def _evict_beyond_cap(self) -> None:
        if self._foreign <= self.max_foreign_frames:
            return
        for name in self._edges:
            if name not in self._protected:
                del self._edges[name]
                self._foreign -= 1
                self.evicted += 1
                return

    def parent_of(self, child: str) -> str | None:
        """The parent of ``child`` in the newest transform, or None if never heard."""
        edge = self._edges.get(child)
        return None if edge is None else edge.parent

    def lookup(self, parent: str, child: str) -> ChainPose | None:
        """Pose of ``child`` in ``parent`` through the chain of stored transforms.

        Returns
        -------
        ChainPose or None
            None when ``child`` has never been heard of.

        Raises
        ------
        LookupError
            If ``child`` is known but its chain of parents does not reach
            ``parent`` (the message names where it stops).
        """
        (result,) = self.lookup_all([(parent, child)])
        if isinstance(result, LookupError):
            raise result
        return result

    def lookup_all(self, pairs: Sequence[tuple[str, str]],
                   ) -> list[ChainPose | LookupError | None]:
        """:meth:`lookup` of every ``(parent, child)``, the quaternions converted in one batch.

        Returns
        -------
        list
            Per pair, in order: its ChainPose, None when the child has never
            been heard of, or the LookupError :meth:`lookup` would raise.
        """
        chains: list[list[_Edge] | LookupError | None] = [
            self._chain(parent, child) for parent, child in pairs]
        edges = [edge for chain in chains if isinstance(chain, list) for edge in chain]
        if not edges:
            return list(chains)  # type: ignore[arg-type]
        values = np.array([edge.values for edge in edges])
        q_wxyz = quaternion_xyzw_to_wxyz(values[:, 3:])
        p = values[:, :3]
        if len(edges) < _BATCH_FROM:
            X = [RigidTransform(quaternion=q_wxyz[k], p=p[k]).get_as_matrix4()
                 for k in range(len(edges))]
        else:
            X = matrix4_from_quaternions_and_positions(q_wxyz, p)
        results: list[ChainPose | LookupError | None] = []
        k = 0
        for chain in chains:
            if not isinstance(chain, list):
                results.append(chain)
                continue
            # The chain runs from the child up: X_PC = X_P..A @ ... @ X_BC.
            X_PC = X[k]
            newest = chain[0].stamp_ns
            dynamic = [edge.stamp_ns for edge in chain if not edge.static]
            for n, edge in enumerate(chain[1:], start=k + 1):
                X_PC = X[n] @ X_PC
                newest = max(newest, edge.stamp_ns)
            k += len(chain)
            results.append(ChainPose(X_PC, newest, min(dynamic) if dynamic else None))
        return results

    def _chain(self, parent: str, child: str) -> list[_Edge] | LookupError | None:
        edge = self._edges.get(child)
        if edge is None:
            return None
        chain = [edge]
        frame = edge.parent
        while frame != parent:
            above = self._edges.get(frame)
            if above is None:
                return LookupError(f"frame {child!r} is given in {edge.parent!r}, whose chain "
                                   f"of parents stops at {frame!r} without reaching {parent!r}")
            if len(chain) >= MAX_CHAIN:
                return LookupError(f"frame {child!r}: the chain of parents from "
                                   f"{edge.parent!r} loops or is longer than {MAX_CHAIN} "
                                   f"without reaching {parent!r}")
            chain.append(above)
            frame = above.parent
        return chain
