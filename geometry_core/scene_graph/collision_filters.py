"""Collision filters: the declaration users write, the manager that applies it, the pair set.

A :class:`CollisionFilterDeclaration` is a list of statements (exclude or
allow, within one :class:`GeometrySet` or between two), applied at once by a
:class:`CollisionFilterManager`. :class:`FilteredPairs` holds the result: the
explicitly filtered pairs of geometry id values, which the scene turns into
the sorted keys of its :class:`CollisionModel`. Same-frame and
anchored–anchored pairs are never stored here: the model excludes them by
comparing arrays.

Imports the scene graph's sets only; never the query engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geometry_core.scene_graph.instances import GeometrySet

if TYPE_CHECKING:  # the state imports this module: no cycle at run time
    from geometry_core.scene_graph.geometry_state import GeometryState

__all__ = ["CollisionFilterDeclaration", "CollisionFilterManager", "FilteredPairs"]


class CollisionFilterDeclaration:
    """A list of filter statements to apply at once (Drake's declaration).

    Each method returns ``self`` so statements chain.
    """

    def __init__(self) -> None:
        self.statements: list[tuple[str, GeometrySet, GeometrySet | None]] = []

    def exclude_within(self, geometry_set: GeometrySet) -> CollisionFilterDeclaration:
        """Never report pairs with both geometries in the set."""
        self.statements.append(("exclude_within", _as_set(geometry_set), None))
        return self

    def exclude_between(self, set_A: GeometrySet, set_B: GeometrySet) -> CollisionFilterDeclaration:
        """Never report pairs with one geometry in each set."""
        self.statements.append(("exclude_between", _as_set(set_A), _as_set(set_B)))
        return self

    def allow_within(self, geometry_set: GeometrySet) -> CollisionFilterDeclaration:
        """Undo exclusions within the set (same-frame and anchored pairs stay excluded)."""
        self.statements.append(("allow_within", _as_set(geometry_set), None))
        return self

    def allow_between(self, set_A: GeometrySet, set_B: GeometrySet) -> CollisionFilterDeclaration:
        """Undo exclusions between the sets (same-frame and anchored pairs stay excluded)."""
        self.statements.append(("allow_between", _as_set(set_A), _as_set(set_B)))
        return self


def _as_set(geometry_set) -> GeometrySet:
    if not isinstance(geometry_set, GeometrySet):
        raise TypeError(f"expected a GeometrySet, got {type(geometry_set).__name__}")
    return geometry_set


class CollisionFilterManager:
    """Applies collision filter declarations to a scene (Drake's manager)."""

    def __init__(self, state: GeometryState) -> None:
        self._state = state

    def apply(self, declaration: CollisionFilterDeclaration) -> None:
        """Apply every statement; on an unknown id nothing is applied.

        Raises
        ------
        KeyError
            If a set names an unknown frame or geometry.
        """
        self._state._apply_filter_declaration(declaration)


class FilteredPairs:
    """Explicitly filtered pairs ``(a, b)`` of geometry id values, ``a < b``."""

    def __init__(self) -> None:
        self._pairs: set[tuple[int, int]] = set()

    def apply(self, statements: list[tuple[str, set[int], set[int] | None]]) -> None:
        """Apply expanded statements (kind, ids of set A, ids of set B or None) in order.

        In place: a statement costs its own pairs, not the pairs already
        filtered (a robot's loader applies one statement per joint).
        """
        pairs = self._pairs
        for kind, a, b in statements:
            if b is not None and len(a) == 1 and len(b) == 1:
                # One geometry each side (a joint between two links of one
                # geometry each): the common statement of a large robot.
                (x,), (y,) = a, b
                if x != y:
                    pair = (x, y) if x < y else (y, x)
                    if kind.startswith("exclude"):
                        pairs.add(pair)
                    else:
                        pairs.discard(pair)
                continue
            if b is None:
                ordered = sorted(a)
                statement = {(x, y) for n, x in enumerate(ordered) for y in ordered[n + 1:]}
            else:
                statement = {(min(x, y), max(x, y)) for x in a for y in b if x != y}
            if kind.startswith("exclude"):
                pairs |= statement
            else:
                pairs -= statement

    def forget(self, removed: set[int]) -> None:
        """Drop every pair with a geometry of ``removed`` (id values of removed geometry)."""
        self._pairs = {pair for pair in self._pairs
                       if pair[0] not in removed and pair[1] not in removed}

    def keys(self, index: dict[int, int]) -> list[int]:
        """Keys ``i * G + j`` (``i < j``) of the filtered pairs among the indexed geometries.

        ``index`` maps an id value to its position among the G geometries of
        a collision model; pairs with a geometry outside it are left out.
        """
        size = len(index)
        keys = []
        for a, b in self._pairs:
            if a in index and b in index:
                i, j = sorted((index[a], index[b]))
                keys.append(i * size + j)
        return keys
