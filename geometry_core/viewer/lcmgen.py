"""Regenerate the committed Python LCM types from ``lcmtypes/*.lcm``.

The viewer's message classes in ``geometry_core/viewer/lcmtypes/drake/`` are
the output of ``lcm-gen -p`` (shipped by the ``lcm`` PyPI package) run on the
``.lcm`` definitions at the repository root, plus one rewrite: lcm-gen makes
every generated module ``import drake`` to reach its sibling types, which
would resolve to pydrake's own top-level ``drake`` package when pydrake is
installed (and fail when it is not). :func:`postprocess` points that import
at our package instead; it also drops the lcm-gen version from the package
``__init__`` so that a patch release of lcm does not make the committed files
look stale. The wire format and fingerprints are untouched by both edits.

Run ``python -m geometry_core.viewer.lcmgen`` (or
``geometry_core/viewer/regenerate_lcmtypes.sh``) after editing a ``.lcm``
file; ``test/viewer/test_lcmtypes.py`` fails while the committed files differ
from a fresh generation.

This module is a developer tool: it imports neither lcm nor fcl nor ROS.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = [
    "LCM_PACKAGE",
    "default_definitions_dir",
    "default_output_dir",
    "find_lcm_gen",
    "generate",
    "postprocess",
    "regenerate_lcmtypes",
]

#: The LCM package of every definition: Drake's, so fingerprints and type
#: names match pydrake's ``drake.lcmt_*`` classes.
LCM_PACKAGE = "drake"

_IMPORT_LINE = f"import {LCM_PACKAGE}\n"
_OUR_IMPORT_LINE = f"from geometry_core.viewer.lcmtypes import {LCM_PACKAGE}\n"
_VERSION_LINE = re.compile(r"^lcm-gen \S+\n", re.MULTILINE)


def default_definitions_dir() -> Path:
    """Return the repository's ``lcmtypes/`` folder (exists in a source checkout only)."""
    return Path(__file__).resolve().parents[2] / "lcmtypes"


def default_output_dir() -> Path:
    """Return ``geometry_core/viewer/lcmtypes``, the parent of the generated package."""
    return Path(__file__).resolve().parent / "lcmtypes"


def find_lcm_gen() -> str:
    """Return the path of ``lcm-gen``, preferring the one beside this interpreter.

    Raises
    ------
    FileNotFoundError
        If no ``lcm-gen`` is found (``pip install lcm`` provides it).
    """
    beside = Path(sys.executable).parent / "lcm-gen"
    if beside.is_file():
        return str(beside)
    found = shutil.which("lcm-gen")
    if found is None:
        raise FileNotFoundError("lcm-gen not found: `pip install lcm` ships it")
    return found


def postprocess(filename: str, text: str) -> str:
    """Return generated module ``text`` with our package import and no lcm-gen version.

    Only modules whose type nests another type import the package; the others
    are returned as they are.
    """
    if filename == "__init__.py":
        return _VERSION_LINE.sub("", text)
    return text.replace(_IMPORT_LINE, _OUR_IMPORT_LINE, 1)


def generate(definitions_dir: Path | None = None) -> dict[str, str]:
    """Run lcm-gen on every ``*.lcm`` file and return ``{file name: post-processed text}``.

    Raises
    ------
    FileNotFoundError
        If there are no ``.lcm`` files or no ``lcm-gen``.
    subprocess.CalledProcessError
        If lcm-gen rejects a definition.
    """
    definitions_dir = Path(definitions_dir or default_definitions_dir())
    sources = sorted(definitions_dir.glob("*.lcm"))
    if not sources:
        raise FileNotFoundError(f"no .lcm files in {definitions_dir}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([find_lcm_gen(), "--python", "--ppath", tmp, *map(str, sources)],
                       check=True, capture_output=True, text=True)
        package_dir = Path(tmp) / LCM_PACKAGE
        return {path.name: postprocess(path.name, path.read_text())
                for path in sorted(package_dir.glob("*.py"))}


def regenerate_lcmtypes(definitions_dir: Path | None = None,
                        output_dir: Path | None = None) -> list[Path]:
    """Regenerate ``<output_dir>/drake/*.py`` and return the files written.

    Files of the package that lcm-gen no longer produces are removed, so a
    deleted ``.lcm`` definition does not leave a stale module behind.
    """
    generated = generate(definitions_dir)
    package_dir = Path(output_dir or default_output_dir()) / LCM_PACKAGE
    package_dir.mkdir(parents=True, exist_ok=True)
    for stale in package_dir.glob("*.py"):
        if stale.name not in generated:
            stale.unlink()
    written = []
    for name, text in generated.items():
        path = package_dir / name
        path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in regenerate_lcmtypes():
        print(path)
