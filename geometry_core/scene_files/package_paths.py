"""Where a robot file's ``package://`` URIs and file names point, and which files may be read.

One function, :func:`resolve_package`, finds ``package://pkg/rel`` (and,
with an empty ``rel``, the package folder itself: xacro's ``$(find pkg)``)
from the package roots; :func:`resolve_mesh_path` adds ``file://`` URIs and
plain paths. Both follow a :class:`FileAccess`:

* the default, for files a library user loads: package roots given, then
  ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH``, then (as pybullet does) the
  file's own folder and its ancestors; absolute paths and the user's own
  symlinks are followed;
* :meth:`FileAccess.restricted`, for a description that came from someone
  else (a ROS topic): no search upward, and a file is read only when its real
  path (``..`` and symlinks resolved) lies under an allowed root: a package
  root, a ``ROS_PACKAGE_PATH`` folder, an ``AMENT_PREFIX_PATH`` share folder,
  or a folder named in ``extra_roots`` (absolute paths and ``file://`` URIs
  are only readable there). A refusal reads "not allowed or not found",
  so the sender learns nothing about which paths exist.

Everywhere, a ``package://pkg/...`` URI stays inside its package:
``package://pkg/../other/x.stl`` is refused, for library users too.

This module imports only the standard library.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = ["FileAccess", "FileNotAllowed", "resolve_mesh_path", "resolve_package"]

#: The one message of a restricted refusal: it must not tell "outside the
#: roots" from "does not exist".
NOT_ALLOWED = "not allowed or not found"


class FileNotAllowed(ValueError):
    """A file name a restricted description may not read (or that does not exist).

    The message never says which of the two: see :data:`NOT_ALLOWED`.
    """


@dataclass(frozen=True)
class FileAccess:
    """Which files a robot description may read.

    Attributes
    ----------
    roots : tuple of str or None
        None: any file (the library's default). Else the real paths of the
        folders outside of which nothing is read (package roots and the ROS
        path variables are added by :meth:`restricted`).
    search_up : bool
        Whether a package found nowhere else is searched for beside the file
        and in its ancestor folders (pybullet's habit). Never for a
        description written to a temporary folder.
    """

    roots: tuple[str, ...] | None = None
    search_up: bool = True

    @property
    def is_restricted(self) -> bool:
        """Whether reads are limited to the roots; a refusal then says only NOT_ALLOWED."""
        return self.roots is not None

    @classmethod
    def restricted(cls, package_roots: Mapping[str, str | os.PathLike] | None = None,
                   extra_roots: tuple[str | os.PathLike, ...] | list = (),
                   environ: Mapping[str, str] | None = None) -> FileAccess:
        """Access for a description from elsewhere: only under the package roots.

        Parameters
        ----------
        package_roots : mapping of str to path, optional
            ``{package: folder}``; each folder becomes an allowed root.
        extra_roots : sequence of path
            More allowed folders, where absolute paths and ``file://`` URIs
            may point.
        environ : mapping, optional
            Where ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH`` are read
            (their folders are allowed roots too); ``os.environ`` by default.
        """
        environ = os.environ if environ is None else environ
        folders = [*(package_roots or {}).values(), *extra_roots]
        folders += [f for f in environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if f]
        folders += [os.path.join(p, "share")
                    for p in environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
        roots = []
        for folder in folders:
            try:
                roots.append(os.path.realpath(os.fspath(folder)))
            except (OSError, ValueError):
                continue
        return cls(tuple(dict.fromkeys(roots)), search_up=False)

    def allows(self, path: Path) -> bool:
        """Whether ``path`` (after resolving ``..`` and symlinks) is under an allowed root."""
        if self.roots is None:
            return True
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        for root in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                return True
        return False


_OPEN = FileAccess()


def resolve_package(package: str, relative: str,
                    package_roots: Mapping[str, str | os.PathLike] | None,
                    base_dir: str | os.PathLike | None = None,
                    environ: Mapping[str, str] | None = None,
                    access: FileAccess | None = None) -> Path:
    """Return the path of ``package://package/relative`` (the package folder for ``""``).

    Looked for, in this order: ``package_roots[package] / relative``;
    ``D/package/relative`` (or ``D/relative`` when D is named ``package``)
    for each D on ``ROS_PACKAGE_PATH``; ``P/share/package/relative`` for each
    P on ``AMENT_PREFIX_PATH``; then, when ``access.search_up``,
    ``D/package/relative`` and ``D/relative`` for D ``base_dir`` and each of
    its ancestors. The first that exists wins (a file, or a folder when
    ``relative`` is empty); when none does, the ``package_roots`` candidate
    is returned, so the caller's "not found" names it.

    Parameters
    ----------
    package : str
        The package name (``package://`` URI host; ``$(find package)``).
    relative : str
        The path inside the package, ``/``-separated; ``""`` for the package.
    package_roots : mapping of str to path, optional
        ``{package: folder}``.
    base_dir : path, optional
        The folder of the file that names the URI (for the upward search).
    environ : mapping, optional
        Where ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH`` are read;
        ``os.environ`` by default.
    access : FileAccess, optional
        What may be read; the library's open default when None.

    Raises
    ------
    ValueError
        For a ``relative`` that climbs out of the package (``../x``) or is
        absolute, or a package name that is not a plain name.
    FileNotAllowed
        (a ValueError) Under restricted access, for anything not found under
        an allowed root.
    KeyError
        Under open access, for a package found nowhere (the message lists
        the package roots).
    """
    access = _OPEN if access is None else access
    package_roots = package_roots or {}
    relative = _inside_package(package, relative)
    environ = os.environ if environ is None else environ
    given = (Path(package_roots[package]) / relative if package in package_roots
             else None)
    want_dir = relative == ""
    for candidate in _candidates(package, relative, base_dir, given, environ, access):
        try:
            found = candidate.is_dir() if want_dir else candidate.is_file()
        except (OSError, ValueError):
            found = False
        if found and access.allows(candidate):
            return candidate
    if access.is_restricted:
        raise FileNotAllowed(f"package {package!r}: {relative or '(package folder)'!r} "
                             f"{NOT_ALLOWED}")
    if given is not None:
        return given
    known = ", ".join(sorted(package_roots)) or "none given"
    raise KeyError(f"package {package!r} has no root (package roots: {known}) and "
                   f"{relative!r} was not found on ROS_PACKAGE_PATH, AMENT_PREFIX_PATH or "
                   f"beside the file; pass --package-root {package or 'PKG'}=DIR")


def resolve_mesh_path(filename: str, urdf_dir: str | os.PathLike,
                      package_roots: Mapping[str, str | os.PathLike] | None,
                      environ: Mapping[str, str] | None = None,
                      access: FileAccess | None = None) -> Path:
    """Return the file a URDF mesh ``filename`` refers to.

    ``package://pkg/rel`` as :func:`resolve_package` says; ``file:///abs``
    resolves to ``/abs``; a relative path (or ``file://rel``) to
    ``urdf_dir / rel``. Under restricted access the result must also exist
    under an allowed root.

    Raises
    ------
    KeyError
        For a package found nowhere (open access; the message lists the
        package roots).
    FileNotAllowed
        (a ValueError) Under restricted access, for a file outside the
        allowed roots or not there.
    ValueError
        For another URI scheme, or a ``package://`` URI that leaves its package.
    """
    access = _OPEN if access is None else access
    urdf_dir = Path(urdf_dir)
    parsed = urlparse(filename)
    if parsed.scheme == "package":
        return resolve_package(parsed.netloc, unquote(parsed.path).lstrip("/"), package_roots,
                               urdf_dir, environ, access)
    if parsed.scheme == "file":
        rest = unquote(parsed.netloc + parsed.path)
        path = Path(rest) if os.path.isabs(rest) else urdf_dir / rest
    elif parsed.scheme and len(parsed.scheme) > 1:  # one letter: a Windows drive
        raise ValueError(f"unsupported URI scheme {parsed.scheme!r}; use package://, file:// "
                         "or a path")
    else:
        path = Path(filename) if os.path.isabs(filename) else urdf_dir / filename
    if access.is_restricted:
        try:
            exists = path.is_file()
        except (OSError, ValueError):
            exists = False
        if not (exists and access.allows(path)):
            raise FileNotAllowed(NOT_ALLOWED)
    return path


def _inside_package(package: str, relative: str) -> str:
    """``relative`` normalised; ValueError when it leaves the package or the name is odd."""
    if package in (".", "..") or "/" in package or "\\" in package or "\0" in package:
        raise ValueError(f"package name {package!r} is not a plain name")
    if "\0" in relative:
        raise ValueError("the path contains a NUL character")
    if not relative:
        return ""
    if relative.startswith("/"):
        raise ValueError("the path inside the package must be relative")
    normal = posixpath.normpath(relative)
    if normal == ".." or normal.startswith("../"):
        raise ValueError(f"the path leaves package {package!r} ('..' climbs above its "
                         "folder); a package:// URI stays inside its package")
    return "" if normal == "." else normal


def _candidates(package: str, relative: str, base_dir, given: Path | None,
                environ: Mapping[str, str], access: FileAccess) -> Iterator[Path]:
    """Where ``package://package/relative`` may be, in the order of resolve_package.

    A generator: a robot has hundreds of meshes, and the first candidate is
    nearly always the one.
    """
    if given is not None:
        yield given
    if package:
        for folder in filter(None, environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep)):
            folder = Path(folder)
            yield (folder if folder.name == package else folder / package) / relative
        for prefix in filter(None, environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
            yield Path(prefix) / "share" / package / relative
    if not access.search_up or base_dir is None:
        return
    here = Path(base_dir).resolve()
    for folder in (here, *here.parents):
        if package:
            yield folder / package / relative
        if relative:
            yield folder / relative
