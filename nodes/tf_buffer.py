"""The latest transform of every frame heard on /tf, /tf_static and pose topics.

A small stand-in for tf2's buffer, enough for the nodes: it keeps only the
newest transform per child frame (no history, no interpolation) and answers
"pose of frame C in frame P" by composing the chain of parents from C up to
P. Scene frames usually arrive with their scene parent as ``header.frame_id``
(a chain of one); a chain is needed when /tf puts frames the scene does not
have in between (``world -> odom -> base_link``).

Transforms are stored as received (translation and ROS-order quaternion,
seven numbers, see :data:`Transform`), one row per child frame of a table
(:meth:`TfBuffer.store_rows` writes many rows at once), and turned into
poses only when asked, all frames at once (:meth:`TfBuffer.lookup_poses`):
at 1 kHz /tf most stored transforms are replaced before any query reads
them. Which rows a set of frames occupies, and which chain of rows leads
from a frame to a parent, change only when a frame is added, evicted or
re-parented (:attr:`TfBuffer.structure`), so both are worked out once and
reused while the structure stays the same.

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

import numpy as np

from geometry_core.math import (
    matrix4_from_pose_rows,
    quaternion_xyzw_to_wxyz,
    read_pose_records,
)
from geometry_core_nodes.inbound import Transform
from geometry_core_nodes.limits import MAX_FOREIGN_FRAMES

__all__ = ["LIBRARY_ORDER", "NO_DYNAMIC_NS", "ChainPose", "PoseLookup", "TfBuffer"]

#: Longest parent chain followed; a longer one is treated as a cycle. Real
#: tf trees are a few levels deep between a scene frame and its parent.
MAX_CHAIN = 64

#: ``PoseLookup.oldest_dynamic_ns`` of a chain of static transforms only
#: (never stale), and of a pair without a chain.
NO_DYNAMIC_NS = np.iinfo(np.int64).max

#: Where a stored transform (translation, then the quaternion in ROS's x y z
#: w) holds the translation then w x y z, the order the library takes. The
#: reordering is quaternion_xyzw_to_wxyz's, read off once (STYLE rule 7: one
#: conversion of the quaternion order per boundary), so that a lookup does
#: it while the compiled loop reads the rows anyway.
LIBRARY_ORDER = (0, 1, 2, *(3 + int(k) for k in quaternion_xyzw_to_wxyz(np.arange(4.0))))


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


@dataclass(frozen=True)
class PoseLookup:
    """Poses of many frames in their parents (:meth:`TfBuffer.lookup_poses`), pair by pair.

    Attributes
    ----------
    found : list of bool
        Whether the pair has a pose: its child was heard of and its chain
        reaches the parent.
    X_PC_array : (N, 4, 4) float ndarray
        The pose of each pair as a matrix (identity where not found), all
        transforms converted in one compiled call that reads the stored rows
        (``matrix4_from_pose_rows``), no array of their numbers made first.
    newest_ns : list of int
        Newest stamp of each chain; -1 where not found.
    oldest_dynamic_ns : list of int
        Oldest stamp of the chain's dynamic transforms; :data:`NO_DYNAMIC_NS`
        for a static chain or where not found.
    errors : list of (int, LookupError)
        The pairs whose child is known but whose chain does not reach the
        parent, with the reason.
    complete : bool
        Every pair was found, each from one transform.
    """

    found: list[bool]
    X_PC_array: np.ndarray
    newest_ns: list[int]
    oldest_dynamic_ns: list[int]
    errors: list[tuple[int, LookupError]]
    complete: bool


@dataclass(frozen=True)
class _ChainPlan:
    """How to answer one sequence of pairs while the buffer's structure stays the same."""

    structure: int
    pairs: tuple[tuple[str, str], ...]
    found: list[bool]
    found_pairs: list[int]  # indices of the found pairs
    errors: list[tuple[int, LookupError]]
    edge_rows: list[int]  # rows of every chain, child first, chains one after the other
    first_edge: list[int]  # index in edge_rows of each found chain's first edge
    lengths: list[int]  # edges per pair (0 where not found)
    complete: bool  # every pair found, with a chain of one edge
    any_static: bool  # a static transform among the edges


class TfBuffer:
    """Newest transform per child frame, and chains of them.

    Parameters
    ----------
    max_foreign_frames : int
        Frames kept besides the protected ones (see :meth:`protect`).

    Attributes
    ----------
    version : int
        Incremented by every change of a stored transform; lets a caller
        skip work when nothing arrived.
    structure : int
        Incremented when a frame is added, evicted, re-parented or turns
        static or dynamic: rows (:meth:`rows_of`) and chains worked out
        for one structure hold until it changes.
    max_foreign_frames : int
    evicted : int
        Frames forgotten to stay within ``max_foreign_frames``.
    """

    def __init__(self, max_foreign_frames: int = MAX_FOREIGN_FRAMES) -> None:
        # One row per child frame, in plain lists: a message writes a few
        # rows, a query reads a few, and numpy's per-call cost would exceed
        # the work.
        self._row_of: dict[str, int] = {}
        self._parents: list[str | None] = []
        self._values: list[Sequence[float]] = []
        self._stamps: list[int] = []
        self._static: list[bool] = []
        self._free: list[int] = []
        # Frames outside the protected set, least recently updated first:
        # the eviction order.
        self._lru: OrderedDict[str, None] = OrderedDict()
        self._protected: frozenset[str] = frozenset()
        self._plan: _ChainPlan | None = None
        self.max_foreign_frames = max_foreign_frames
        self.version = 0
        self.structure = 0
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, child: str) -> bool:
        return child in self._row_of

    def protect(self, names: Iterable[str]) -> None:
        """Never evict these frames (the scene's); they do not count against the cap."""
        self._protected = frozenset(names)
        self._lru = OrderedDict((name, None) for name in self._lru if name not in self._protected)

    # --------------------------------------------------------------- storing

    def set_transform(self, transform: Transform, static: bool) -> None:
        """Store ``transform`` as the newest transform of its child frame.

        ``transform`` is ``(parent, child, stamp_ns, values)`` as
        :func:`~geometry_core_nodes.outbound.tf_arrays_to_transforms`
        gives it, already validated (finite, non-zero quaternion).

        A transform with an older stamp than the stored dynamic one is kept
        anyway: publishers restart and clocks jump; the newest message wins,
        as tf2 does for static frames. A dynamic transform does not replace
        a static one of the same child with a different parent (tf2 keeps
        one parent per frame; the static tree wins).
        """
        parent, child, stamp_ns, values = transform
        row = self._row_of.get(child)
        if row is None:
            if child not in self._protected:
                self._evict_beyond_cap(len(self._lru) + 1)
                self._lru[child] = None
            row = self._new_row(child)
        else:
            if self._static[row] and not static and self._parents[row] != parent:
                return
            if child in self._lru:
                self._lru.move_to_end(child)
        if self._parents[row] != parent or self._static[row] != static:
            self._parents[row] = parent
            self._static[row] = static
            self.structure += 1
        self._values[row] = values
        self._stamps[row] = stamp_ns
        self.version += 1

    def rows_of(self, parents: Sequence[str], children: Sequence[str],
                static: bool) -> list[int] | None:
        """Rows of transforms ``parents[k] -> children[k]``, if storing them keeps the structure.

        Returns
        -------
        list of int or None
            The rows, valid for :meth:`store_rows` until :attr:`structure`
            changes; None when a child is new, named twice, or stored with
            another parent or static flag (store those with
            :meth:`set_transform`, which updates the structure).
        """
        rows = []
        row_of, stored = self._row_of, self._parents
        for parent, child in zip(parents, children):
            row = row_of.get(child)
            if row is None or stored[row] != parent or self._static[row] != static:
                return None
            rows.append(row)
        if len(set(rows)) != len(rows):
            return None
        return rows

    def store_rows(self, rows: Sequence[int], values: Sequence[Sequence[float]],
                   stamps_ns: Sequence[int], children: Sequence[str] = ()) -> None:
        """Store validated transforms into rows from :meth:`rows_of` (same structure).

        Parameters
        ----------
        rows : sequence of int
        values : sequence of 7 floats each
            Translation, then rotation x y z w, of each transform.
        stamps_ns : sequence of int
        children : sequence of str
            The children among them that are not protected, which become
            the most recently updated.
        """
        table, stamps = self._values, self._stamps
        for row, row_values, stamp_ns in zip(rows, values, stamps_ns):
            table[row] = row_values
            stamps[row] = stamp_ns
        for child in children:
            self._lru.move_to_end(child)
        self.version += 1

    def store_records(self, rows: list[int], data: bytes, stamp_at: tuple[int, ...],
                      values_at: tuple[int, ...], little_endian: bool,
                      children: Sequence[str] = ()) -> bool:
        """:meth:`store_rows` of transforms read from packed bytes, checked, in one call.

        Transform k's stamp (int32 sec, uint32 nanosec) is at
        ``data[stamp_at[k]:]``, its seven numbers (float64, as stored) at
        ``data[values_at[k]:]``
        (:func:`geometry_core.math.read_pose_records`).

        Returns
        -------
        bool
            False, with nothing stored, when a stamp or a number is not
            valid (nanoseconds past a second, a number not finite, a zero
            quaternion): check them one by one and store with
            :meth:`set_transform`.
        """
        if not read_pose_records(data, stamp_at, values_at, little_endian, rows, self._values,
                                 self._stamps):
            return False
        for child in children:
            self._lru.move_to_end(child)
        self.version += 1
        return True

    def is_protected(self, child: str) -> bool:
        """Whether ``child`` is a protected frame (see :meth:`protect`)."""
        return child in self._protected

    def _new_row(self, child: str) -> int:
        if self._free:
            row = self._free.pop()
        else:
            row = len(self._parents)
            self._parents.append(None)
            self._values.append(())
            self._stamps.append(0)
            self._static.append(False)
        self._row_of[child] = row
        self._parents[row] = None  # set by the caller, which counts the structure change
        return row

    def _evict_beyond_cap(self, foreign: int) -> None:
        if foreign <= self.max_foreign_frames or not self._lru:
            return
        name, _ = self._lru.popitem(last=False)
        row = self._row_of.pop(name)
        self._parents[row] = None
        self._free.append(row)
        self.evicted += 1
        self.structure += 1

    # ------------------------------------------------------------- looking up

    def parent_of(self, child: str) -> str | None:
        """The parent of ``child`` in the newest transform, or None if never heard."""
        row = self._row_of.get(child)
        return None if row is None else self._parents[row]

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
        poses = self.lookup_poses(pairs)
        results: list[ChainPose | LookupError | None] = [None] * len(pairs)
        for n, error in poses.errors:
            results[n] = error
        for n, found in enumerate(poses.found):
            if found:
                X_PC = poses.X_PC_array[n]
                oldest = poses.oldest_dynamic_ns[n]
                results[n] = ChainPose(X_PC, poses.newest_ns[n],
                                       None if oldest == NO_DYNAMIC_NS else oldest)
        return results

    def lookup_poses(self, pairs: Sequence[tuple[str, str]]) -> PoseLookup:
        """Pose of each ``(parent, child)`` in one pass, the quaternions converted together.

        Pass the same sequence (say, a tuple the caller keeps) on every call:
        the chains are worked out again only when it or the structure changed.
        """
        plan = self._plan_for(pairs)
        rows = plan.edge_rows
        table = self._values
        stamps, dynamic = self._edge_stamps(plan)
        # Every edge's pose from its stored numbers, in one compiled call.
        X_array = matrix4_from_pose_rows([table[row] for row in rows], LIBRARY_ORDER)
        if plan.complete:
            # Every pair is one transform (the usual case): its stamps are the chain's.
            return PoseLookup(plan.found, X_array, stamps, dynamic, plan.errors, True)
        X_PC_array = np.tile(np.eye(4), (len(plan.pairs), 1, 1))
        for n, k in zip(plan.found_pairs, plan.first_edge):
            X_PC_array[n] = self._compose(X_array, k, plan.lengths[n])
        return PoseLookup(plan.found, X_PC_array, *self._chain_stamps(plan, stamps, dynamic),
                          plan.errors, False)

    def lookup_rows(self, pairs: Sequence[tuple[str, str]],
                    ) -> tuple[list[Sequence[float]], list[int], list[int]] | None:
        """The stored numbers of each pair, when every pair is one stored transform.

        :meth:`lookup_poses` without the poses: for a caller that turns the
        numbers into poses itself (``SceneGraph.set_poses_from_pose_rows``
        with :data:`LIBRARY_ORDER`). Pass the same sequence on every call,
        as there.

        Returns
        -------
        (rows, newest_ns, oldest_dynamic_ns) or None
            Per pair, its transform's seven numbers as stored and
            :meth:`lookup_poses`' stamps; None when some pair is not found
            or takes a chain of several transforms (ask :meth:`lookup_poses`).
        """
        plan = self._plan_for(pairs)
        if not plan.complete:
            return None
        rows = plan.edge_rows
        table = self._values
        stamps, dynamic = self._edge_stamps(plan)
        return [table[row] for row in rows], stamps, dynamic

    def _plan_for(self, pairs: Sequence[tuple[str, str]]):
        """The chains of ``pairs``, worked out again only when they or the structure changed."""
        plan = self._plan
        if plan is None or plan.structure != self.structure or (
                plan.pairs is not pairs and plan.pairs != tuple(pairs)):
            plan = self._plan = self._make_plan(tuple(pairs))
        return plan

    def _edge_stamps(self, plan) -> tuple[list[int], list[int]]:
        """Each edge's stamp, and its stamp as a dynamic one (none for a static edge)."""
        rows, stamp_table = plan.edge_rows, self._stamps
        stamps = [stamp_table[row] for row in rows]
        if not plan.any_static:
            return stamps, stamps
        static = self._static
        return stamps, [NO_DYNAMIC_NS if static[row] else stamp_table[row] for row in rows]

    @staticmethod
    def _compose(X: Sequence, first: int, length: int):
        # The chain runs from the child up: X_PC = X_P..A @ ... @ X_BC.
        X_PC = X[first]
        for k in range(first + 1, first + length):
            X_PC = X[k] @ X_PC
        return X_PC

    @staticmethod
    def _chain_stamps(plan: _ChainPlan, stamps: list[int],
                      dynamic: list[int]) -> tuple[list[int], list[int]]:
        newest = [-1] * len(plan.pairs)
        oldest = [NO_DYNAMIC_NS] * len(plan.pairs)
        for n, k in zip(plan.found_pairs, plan.first_edge):
            end = k + plan.lengths[n]
            newest[n] = max(stamps[k:end])
            oldest[n] = min(dynamic[k:end])
        return newest, oldest

    def _make_plan(self, pairs: tuple[tuple[str, str], ...]) -> _ChainPlan:
        found = [False] * len(pairs)
        errors: list[tuple[int, LookupError]] = []
        edge_rows: list[int] = []
        first_edge: list[int] = []
        lengths = [0] * len(pairs)
        for n, (parent, child) in enumerate(pairs):
            chain = self._chain(parent, child)
            if isinstance(chain, LookupError):
                errors.append((n, chain))
            elif chain is not None:
                found[n] = True
                first_edge.append(len(edge_rows))
                lengths[n] = len(chain)
                edge_rows += chain
        return _ChainPlan(self.structure, pairs, found,
                          [n for n, ok in enumerate(found) if ok], errors, edge_rows,
                          first_edge, lengths, all(length == 1 for length in lengths),
                          any(self._static[row] for row in edge_rows))

    def _chain(self, parent: str, child: str) -> list[int] | LookupError | None:
        """Rows from ``child`` up to (not including) ``parent``; None if ``child`` is unknown."""
        row = self._row_of.get(child)
        if row is None:
            return None
        chain = [row]
        first_parent = frame = self._parents[row]
        while frame != parent:
            above = self._row_of.get(frame)
            if above is None:
                return LookupError(f"frame {child!r} is given in {first_parent!r}, whose chain "
                                   f"of parents stops at {frame!r} without reaching {parent!r}")
            if len(chain) >= MAX_CHAIN:
                return LookupError(f"frame {child!r}: the chain of parents from "
                                   f"{first_parent!r} loops or is longer than {MAX_CHAIN} "
                                   f"without reaching {parent!r}")
            chain.append(above)
            frame = self._parents[above]
        return chain
