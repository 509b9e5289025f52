"""Roles and their property sets: proximity, illustration, perception.

A geometry takes part in a kind of work only once it has the matching role:
proximity queries see only geometries with the proximity role, the viewer
draws the illustration role. Properties are grouped ``(group, name) -> value``
as in Drake's GeometryProperties; illustration colour lives at
``("phong", "diffuse")`` as an :class:`Rgba`.

Imports nothing from geometry_core but the shapes-free basics.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from typing import Any

__all__ = [
    "Role",
    "RoleAssign",
    "Rgba",
    "GeometryProperties",
    "ProximityProperties",
    "IllustrationProperties",
    "PerceptionProperties",
    "make_phong_illustration_properties",
]


class Role(enum.Enum):
    """What a geometry is used for (Drake's ``Role``)."""

    UNASSIGNED = 0
    PROXIMITY = 1
    ILLUSTRATION = 2
    PERCEPTION = 4

    # Drake's spelling, for readers coming from pydrake.
    kUnassigned = 0
    kProximity = 1
    kIllustration = 2
    kPerception = 4


class RoleAssign(enum.Enum):
    """Whether ``assign_role`` adds a new role or replaces existing properties."""

    NEW = 0
    REPLACE = 1

    kNew = 0
    kReplace = 1


class Rgba:
    """A colour: red, green, blue, alpha, each in [0, 1].

    Raises
    ------
    ValueError
        If a channel is outside [0, 1] or not finite.
    """

    __slots__ = ("_rgba",)

    def __init__(self, r: float, g: float, b: float, a: float = 1.0) -> None:
        self._rgba = self._checked(r, g, b, a)

    @staticmethod
    def _checked(r, g, b, a) -> tuple[float, float, float, float]:
        values = tuple(float(v) for v in (r, g, b, a))
        for name, value in zip("rgba", values):
            if not math.isfinite(value) or not 0.0 <= value <= 1.0:
                raise ValueError(f"Rgba channel {name} must be in [0, 1], got {value!r}")
        return values  # type: ignore[return-value]

    def r(self) -> float:
        return self._rgba[0]

    def g(self) -> float:
        return self._rgba[1]

    def b(self) -> float:
        return self._rgba[2]

    def a(self) -> float:
        return self._rgba[3]

    def rgba(self) -> tuple[float, float, float, float]:
        """Return ``(r, g, b, a)``."""
        return self._rgba

    def set(self, r: float, g: float, b: float, a: float = 1.0) -> None:
        """Set all channels (validated)."""
        self._rgba = self._checked(r, g, b, a)

    def scale_rgb(self, scale: float) -> Rgba:
        """Return a copy with r, g, b multiplied by ``scale`` (clamped to 1)."""
        r, g, b, a = self._rgba
        return Rgba(min(r * scale, 1.0), min(g * scale, 1.0), min(b * scale, 1.0), a)

    def __mul__(self, other: Rgba) -> Rgba:
        """Channel-wise product: how a branch colour tints its children."""
        if not isinstance(other, Rgba):
            return NotImplemented
        return Rgba(*(x * y for x, y in zip(self._rgba, other._rgba)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rgba) and other._rgba == self._rgba

    def __hash__(self) -> int:
        return hash(self._rgba)

    def __repr__(self) -> str:
        return "Rgba(r={}, g={}, b={}, a={})".format(*self._rgba)


class GeometryProperties:
    """Grouped properties ``(group, name) -> value``; base of the role property sets."""

    #: The role a property set of this class assigns.
    role: Role = Role.UNASSIGNED
    default_group_name = "__default__"

    def __init__(self) -> None:
        if type(self) is GeometryProperties:
            raise TypeError("use ProximityProperties, IllustrationProperties or "
                            "PerceptionProperties")
        self._groups: dict[str, dict[str, Any]] = {self.default_group_name: {}}

    def has_group(self, group_name: str) -> bool:
        return group_name in self._groups

    def num_groups(self) -> int:
        return len(self._groups)

    def get_group_names(self) -> set[str]:
        return set(self._groups)

    def get_properties_in_group(self, group_name: str) -> dict[str, Any]:
        """Return a copy of the named group's properties.

        Raises
        ------
        KeyError
            If the group does not exist.
        """
        if group_name not in self._groups:
            raise KeyError(f"property group {group_name!r} does not exist")
        return dict(self._groups[group_name])

    def add_property(self, group_name: str, name: str, value: Any) -> None:
        """Add a new property.

        Raises
        ------
        ValueError
            If ``(group_name, name)`` already exists.
        """
        group = self._groups.setdefault(group_name, {})
        if name in group:
            raise ValueError(f"property ({group_name!r}, {name!r}) already exists")
        group[name] = value

    def update_property(self, group_name: str, name: str, value: Any) -> None:
        """Add or replace a property."""
        self._groups.setdefault(group_name, {})[name] = value

    def has_property(self, group_name: str, name: str) -> bool:
        return name in self._groups.get(group_name, {})

    def get_property(self, group_name: str, name: str) -> Any:
        """Return a property's value.

        Raises
        ------
        KeyError
            If the property does not exist.
        """
        try:
            return self._groups[group_name][name]
        except KeyError:
            raise KeyError(f"property ({group_name!r}, {name!r}) does not exist") from None

    def get_property_or_default(self, group_name: str, name: str, default: Any) -> Any:
        return self._groups.get(group_name, {}).get(name, default)

    def remove_property(self, group_name: str, name: str) -> bool:
        """Remove a property; return whether it existed."""
        return self._groups.get(group_name, {}).pop(name, None) is not None

    def copy(self):
        new = type(self).__new__(type(self))
        new._groups = {group: dict(values) for group, values in self._groups.items()}
        return new

    def __iter__(self) -> Iterator[tuple[str, str, Any]]:
        for group, values in self._groups.items():
            for name, value in values.items():
                yield group, name, value

    def __repr__(self) -> str:
        items = ", ".join(f"({g!r}, {n!r}): {v!r}" for g, n, v in self)
        return f"{type(self).__name__}({{{items}}})"


class ProximityProperties(GeometryProperties):
    """Properties of the proximity role (contact parameters may be stored here)."""

    role = Role.PROXIMITY


class IllustrationProperties(GeometryProperties):
    """Properties of the illustration role; colour at ``("phong", "diffuse")``."""

    role = Role.ILLUSTRATION


class PerceptionProperties(GeometryProperties):
    """Properties of the perception role."""

    role = Role.PERCEPTION


def make_phong_illustration_properties(diffuse: Rgba | tuple | list) -> IllustrationProperties:
    """Return illustration properties with ``("phong", "diffuse")`` set to ``diffuse``."""
    if not isinstance(diffuse, Rgba):
        diffuse = Rgba(*diffuse)
    props = IllustrationProperties()
    props.add_property("phong", "diffuse", diffuse)
    return props
