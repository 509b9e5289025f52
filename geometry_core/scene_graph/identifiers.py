"""Typed identifiers: SourceId, FrameId, GeometryId.

Each id type draws from its own counter, so an id is unique among ids of its
type for the life of the process, and ids of different types never compare
equal (a FrameId is not a GeometryId even when their values match). A
default-constructed id is invalid, as in Drake.

Imports nothing from geometry_core.
"""

from __future__ import annotations

import itertools
import threading
from typing import ClassVar

__all__ = ["Identifier", "SourceId", "FrameId", "GeometryId"]

_INVALID = -1


class Identifier:
    """Base of the typed ids. Hashable, ordered by value within one type."""

    # The hash is computed once: ids key the dicts that every pose update and
    # query reads, so hashing is on the hot path.
    __slots__ = ("_value", "_hash")
    _counter: ClassVar[itertools.count]
    _lock: ClassVar[threading.Lock]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls._counter = itertools.count(1)
        cls._lock = threading.Lock()

    def __init__(self) -> None:
        self._value = _INVALID
        self._hash = hash((type(self).__name__, _INVALID))

    @classmethod
    def get_new_id(cls):
        """Return a new id, different from every id of this type made before (thread safe)."""
        with cls._lock:
            value = next(cls._counter)
        return _rebuild(cls, value)

    def get_value(self) -> int:
        """Return the underlying integer.

        Raises
        ------
        ValueError
            If the id is invalid (default constructed).
        """
        if self._value == _INVALID:
            raise ValueError(f"{type(self).__name__} is invalid: it has no value")
        return self._value

    def is_valid(self) -> bool:
        """Report whether the id is valid (not default constructed)."""
        return self._value != _INVALID

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._value == self._value

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Identifier) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value < other._value

    def __le__(self, other: Identifier) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value <= other._value

    def __gt__(self, other: Identifier) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value > other._value

    def __ge__(self, other: Identifier) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value >= other._value

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self._value == _INVALID:
            return f"<{type(self).__name__} invalid>"
        return f"<{type(self).__name__} {self._value}>"

    def __reduce__(self):
        return (_rebuild, (type(self), self._value))


def _rebuild(cls, value: int):
    new = cls.__new__(cls)
    new._value = value
    new._hash = hash((cls.__name__, value))
    return new


class SourceId(Identifier):
    """Identifies a geometry source (a producer of frames and geometries)."""

    __slots__ = ()


class FrameId(Identifier):
    """Identifies a frame registered with a SceneGraph."""

    __slots__ = ()


class GeometryId(Identifier):
    """Identifies a geometry registered with a SceneGraph."""

    __slots__ = ()
