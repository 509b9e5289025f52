"""xacro robots: expand a ``.xacro`` / ``.urdf.xacro`` file to URDF text with ROS's own xacro.

Most ROS robot packages ship their description as xacro (XML macros). The
PyPI package ``xacro`` is ROS's implementation; here it runs with two
differences from a ROS workspace:

* ``$(find pkg)`` is answered by :func:`find_package` instead of the ament
  index, so it finds a package where a ``package://pkg/...`` mesh is found
  (package roots, ``ROS_PACKAGE_PATH``, ``AMENT_PREFIX_PATH``, then beside
  the file and in its ancestor folders, or by its ``package.xml``). A package found
  nowhere is a :class:`~geometry_core.scene_files.errors.SceneFileError`
  naming the package and the file that asked for it;
* what xacro prints as a warning becomes a
  :class:`~geometry_core.scene_files.errors.SceneFileWarning` naming the file.

The expansion is the text ``xacro FILE`` prints (the same pretty-printed
XML), so a line number in a later URDF error is a line of that output.

This module never imports fcl, lcm or ROS.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path

from geometry_core.scene_files.errors import SceneFileError, issue_warning
from geometry_core.scene_files.package_paths import FileAccess, FileNotAllowed, resolve_package

__all__ = ["XACRO_SUFFIX", "expand_xacro", "find_package", "is_xacro"]

XACRO_SUFFIX = ".xacro"

# xacro keeps its state (file stack, substitution arguments, the $(find) hook) in
# module globals: one expansion at a time.
_LOCK = threading.Lock()
_LOCATION_LINES = ("when processing file:", "included from:", "in file:",
                   "when instantiating macro:", "instantiated from:")
_PACKAGE_NAME = re.compile(rb"<name>\s*([^<\s]+)\s*</name>")


class _PackageNotFound(LookupError):
    def __init__(self, package: str, requester: str) -> None:
        super().__init__(package)
        self.package = package
        self.requester = requester


def is_xacro(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a xacro file (``.xacro``, including ``.urdf.xacro``)."""
    return os.fspath(path).lower().endswith(XACRO_SUFFIX)


def _package_xml_name(folder: Path) -> str | None:
    try:
        head = (folder / "package.xml").read_bytes()[:65536]
    except OSError:
        return None
    match = _PACKAGE_NAME.search(head)
    return match.group(1).decode("utf-8", "replace") if match else None


def find_package(package: str, start: str | os.PathLike,
                 package_roots: Mapping[str, str | os.PathLike] | None = None,
                 environ: Mapping[str, str] | None = None,
                 access: FileAccess | None = None) -> Path | None:
    """The folder of ROS package ``package`` as ``$(find package)`` names it, or None.

    Looked for by :func:`~geometry_core.scene_files.package_paths.resolve_package`,
    where ``package://package/...`` meshes are looked for (package roots,
    ``ROS_PACKAGE_PATH``, ``AMENT_PREFIX_PATH``, then a folder named
    ``package`` beside ``start`` or beside one of its ancestors); then, as
    ROS knows a package by its manifest, ``start`` or an ancestor whose
    ``package.xml`` has ``<name>package</name>``. ``access`` as there (no
    upward search for a restricted description).

    Raises
    ------
    ValueError
        For a package name that is not a plain name.
    """
    access = FileAccess() if access is None else access
    try:
        folder = resolve_package(package, "", package_roots, start, environ, access)
    except (KeyError, FileNotAllowed):
        folder = None
    if folder is not None and folder.is_dir():
        return folder
    if access.search_up:
        here = Path(start).resolve()
        for candidate in (here, *here.parents):
            if _package_xml_name(candidate) == package and access.allows(candidate):
                return candidate
    return None


def expand_xacro(path: str | os.PathLike, *, mappings: Mapping[str, str] | None = None,
                 package_roots: Mapping[str, str | os.PathLike] | None = None,
                 environ: Mapping[str, str] | None = None,
                 access: FileAccess | None = None) -> str:
    """Expand the xacro file ``path`` to URDF text, as ``xacro path name:=value ...`` does.

    Parameters
    ----------
    mappings : mapping of str to str, optional
        xacro arguments (``$(arg name)``), as ``name:=value`` on xacro's
        command line.
    package_roots : mapping of str to path, optional
        ``{package: folder}`` for ``$(find package)`` (and, later, for the
        URDF's ``package://`` meshes).
    environ : mapping, optional
        Where ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH`` are read for
        ``$(find)``; ``os.environ`` by default.
    access : FileAccess, optional
        Where ``$(find)`` may look (:mod:`~geometry_core.scene_files.package_paths`).

    Returns
    -------
    str
        The expanded XML (xacro's pretty-printed output).

    Raises
    ------
    SceneFileError
        When the ``xacro`` package is missing, a ``$(find)`` names a package
        found nowhere (the message names it), an include is missing, an
        argument is undefined, or the XML is malformed; the message names
        the file (and the include chain) where xacro stopped.
    """
    path = os.fspath(path)
    try:
        import xacro
        import xacro.substitution_args as substitution_args
    except ImportError as err:
        raise SceneFileError(path, None, f"expanding a xacro file needs the xacro package "
                                         f"({err}); pip install xacro") from None
    absolute = os.path.abspath(path)
    if not os.path.isfile(absolute):
        raise SceneFileError(path, None, "cannot read the file: no such file")

    def find(package: str) -> str:
        requester = (xacro.filestack[-1] if xacro.filestack and xacro.filestack[-1]
                     else absolute)
        for start in dict.fromkeys((os.path.dirname(requester), os.path.dirname(absolute))):
            folder = find_package(package, start, package_roots, environ, access)
            if folder is not None:
                return str(folder)
        raise _PackageNotFound(package, requester)

    stderr = io.StringIO()
    with _LOCK:
        hook = substitution_args._eval_find
        substitution_args._eval_find = find
        try:
            with contextlib.redirect_stderr(stderr):
                xacro.init_stacks(absolute)
                doc = xacro.process_file(absolute, mappings=dict(mappings or {}))
                text = doc.toprettyxml(indent="  ")
        except Exception as err:  # xacro raises XacroException, ExpatError, NameError...
            raise _expansion_error(path, err, xacro) from None
        finally:
            substitution_args._eval_find = hook
            xacro.init_stacks(None)
            del xacro.all_includes[:]  # xacro's list of every file it included, ever
    messages: list[str] = []
    for line in filter(None, map(str.strip, stderr.getvalue().splitlines())):
        if messages and line.startswith(_LOCATION_LINES):  # where xacro was: same message
            messages[-1] += f" ({line})"
        else:
            messages.append(line)
    for message in messages:
        issue_warning(f"{path}: xacro: {message}", "xacro", stacklevel=3)
    return text


def _expansion_error(path: str, err: Exception, xacro) -> SceneFileError:
    cause = err
    while cause is not None and not isinstance(cause, _PackageNotFound):
        cause = getattr(cause, "exc", None) or cause.__cause__ or cause.__context__
    if isinstance(cause, _PackageNotFound):
        where = "" if os.path.abspath(path) == cause.requester else \
            f" (asked for in {cause.requester})"
        return SceneFileError(
            path, None,
            f"$(find {cause.package}){where}: ROS package {cause.package!r} was not found "
            "(looked in the package roots, ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and beside the "
            f"file); pass --package-root {cause.package}=DIR")
    files = [f for f in (xacro.filestack or []) if f]
    chain = ""
    if len(files) > 1:
        chain = " (in " + ", included from ".join(reversed(files)) + ")"
    elif files and os.path.abspath(path) != files[0]:
        chain = f" (in {files[0]})"
    message = str(err) or repr(err)
    return SceneFileError(path, None, f"xacro could not expand the file: {message}{chain}")
