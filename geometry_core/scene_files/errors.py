"""The one error type of the scene-file loaders: a message that names the file and the place.

Every problem found while reading a YAML scene or a URDF is raised as
:class:`SceneFileError`, a ``ValueError`` whose text starts with
``path:line:`` (the format compilers use, so editors jump to it) or with
``path:`` and the element when no line is known.

This module imports nothing from geometry_core, and never fcl, lcm or ROS.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["SceneFileError", "SceneFileWarning", "issue_warning", "quote", "quote_names",
           "quote_tag"]

#: Characters of a file's value quoted in a message; the rest is elided, so
#: a 5 MB number or name costs one short line.
MAX_QUOTED_LENGTH = 80

#: Texts remembered per kind of warning by Python's "once per location"
#: filter (see :func:`issue_warning`); past this the kind's memory is cleared.
MAX_REMEMBERED_WARNINGS = 64

_registries: dict[str, dict] = {}


class SceneFileError(ValueError):
    """A scene file is unreadable or invalid.

    Parameters
    ----------
    path : str or os.PathLike
        The file, as the user named it.
    line : int or None
        1-based line number of the offending node, when known.
    message : str
        What is wrong, naming the offending value and what was expected.

    Attributes
    ----------
    path, line, message
        As given, so callers (the CLI, tests) can use the parts.
    """

    def __init__(self, path: str | os.PathLike, line: int | None, message: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}")


class SceneFileWarning(UserWarning):
    """A scene file was accepted although it breaks the format's letter.

    Issued (``warnings.warn``) where the ROS toolchain (urdfdom, RViz,
    Drake's parser, pybullet) accepts a file too; the text starts with
    ``path:line:`` like :class:`SceneFileError` and says what was done
    instead.
    """


def quote(value: object, limit: int = MAX_QUOTED_LENGTH) -> str:
    """``repr(value)`` of at most about ``limit`` characters, with the length when cut.

    For echoing what a file holds in a message: a huge value is elided in
    the middle, e.g. ``'1111...1111' (5000000 characters)``.
    """
    if value is None:
        return "None"
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    half = max(1, limit // 2)
    return f"{text[:half]!r}...{text[-half:]!r} ({len(text)} characters)"


def quote_names(names, limit: int = 10) -> str:
    """The first ``limit`` of ``names``, comma-separated, and how many more (``(none)`` if none)."""
    shown, more = [], 0
    for k, name in enumerate(names):
        if k < limit:
            shown.append(name if len(name) <= MAX_QUOTED_LENGTH else quote(name))
        else:
            more += 1
    if not shown:
        return "(none)"
    return ", ".join(shown) + (f" and {more} more" if more else "")


def quote_tag(tag: object) -> str:
    """An XML element name as ``<name>``, cut as :func:`quote` cuts when it is long."""
    text = str(tag)
    return f"<{text}>" if len(text) <= MAX_QUOTED_LENGTH else f"<{quote(text)}>"


def issue_warning(text: str, kind: str, stacklevel: int = 2) -> None:
    """Issue ``text`` as a :class:`SceneFileWarning`, remembered by ``kind``.

    ``warnings.warn`` remembers every distinct text it has shown in the
    calling module's registry, forever: texts that carry a temporary file's
    path (a description written to a new folder per load) would grow it by
    one entry per load. Here each kind of warning has its own small registry,
    cleared past :data:`MAX_REMEMBERED_WARNINGS` texts, so repeated loads
    add nothing. The warning is attributed to the caller ``stacklevel``
    frames up, as ``warnings.warn`` would.
    """
    try:
        frame = sys._getframe(stacklevel)
    except ValueError:
        frame = sys._getframe(1)
    registry = _registries.setdefault(kind, {})
    if len(registry) > MAX_REMEMBERED_WARNINGS:
        registry.clear()
    # No module_globals: with them Python reads the caller's source file for
    # every warning, even one that is filtered out (20 000 SRDF entries: 3 s).
    warnings.warn_explicit(text, SceneFileWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=frame.f_globals.get("__name__"), registry=registry)
