"""The one error type of the scene-file loaders: a message that names the file and the place.

Every problem found while reading a YAML scene or a URDF is raised as
:class:`SceneFileError`, a ``ValueError`` whose text starts with
``path:line:`` (the format compilers use, so editors jump to it) or with
``path:`` and the element when no line is known.

This module imports nothing from geometry_core, and never fcl, lcm or ROS.
"""

from __future__ import annotations

import os

__all__ = ["SceneFileError", "SceneFileWarning"]


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
