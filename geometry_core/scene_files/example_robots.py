"""The robots of example-robot-data by short name: URDF, MoveIt SRDF and package root.

``example_robot("panda")`` finds ``panda_description/urdf/panda.urdf``, its
SRDF ``panda_description/srdf/panda.srdf`` and the folder that
``package://example-robot-data/...`` mesh URIs resolve against, wherever the
package is installed: the pip wheel's ``cmeel.prefix/share`` (``pip install
example-robot-data``) or a ROS 2 prefix's ``share`` (``AMENT_PREFIX_PATH``).

A robot's name is its URDF's file name without ``.urdf``, or without
``_robot.urdf`` too (``ur5`` for ``ur5_robot.urdf``). Its SRDF is the file
of the same description folder whose name is the robot's (or the URDF's)
name; robots without one have none, and so no named poses.

This module reads folder listings only; it imports no robot library.
"""

from __future__ import annotations

import difflib
import os
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ExampleRobot", "example_robot", "example_robot_data_share", "example_robot_names"]

_PACKAGE = "example-robot-data"


@dataclass(frozen=True)
class ExampleRobot:
    """Where one robot of example-robot-data lives.

    Attributes
    ----------
    name : str
        The short name (``panda``, ``ur5``).
    urdf : Path
    srdf : Path or None
        Its MoveIt SRDF, if the package ships one.
    package_roots : dict of str to str
        ``{"example-robot-data": share folder}``, for ``package://`` URIs.
    """

    name: str
    urdf: Path
    srdf: Path | None
    package_roots: dict[str, str] = field(default_factory=dict)


def _candidate_shares() -> Iterable[Path]:
    yield Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / _PACKAGE
    for prefix in filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
        yield Path(prefix) / "share" / _PACKAGE


def example_robot_data_share() -> Path | None:
    """The installed package's share folder (holding ``robots/``), or None."""
    for share in _candidate_shares():
        if (share / "robots").is_dir():
            return share
    return None


def _short_names(urdf: Path) -> list[str]:
    stem = urdf.stem
    return [stem, stem[:-len("_robot")]] if stem.endswith("_robot") else [stem]


def _catalog(share: Path) -> dict[str, list[Path]]:
    """``{name: [URDF, ...]}``: more than one URDF when descriptions share a file name."""
    names: dict[str, list[Path]] = {}
    for urdf in sorted((share / "robots").glob("*/*/*.urdf")):
        for name in _short_names(urdf):
            names.setdefault(name, []).append(urdf)
    return names


def _not_installed() -> ValueError:
    where = ", ".join(str(s) for s in _candidate_shares())
    return ValueError(f"{_PACKAGE} is not installed (pip install {_PACKAGE}); "
                      f"looked for its robots in {where}")


def example_robot_names() -> list[str]:
    """Every short name, sorted.

    Raises
    ------
    ValueError
        If example-robot-data is not installed.
    """
    share = example_robot_data_share()
    if share is None:
        raise _not_installed()
    return sorted(_catalog(share))


def _srdf_of(urdf: Path, name: str) -> Path | None:
    folder = urdf.parent.parent / "srdf"
    for stem in dict.fromkeys([name, urdf.stem]):
        candidate = folder / f"{stem}.srdf"
        if candidate.is_file():
            return candidate
    return None


def example_robot(name: str) -> ExampleRobot:
    """The robot ``name`` of the installed example-robot-data.

    Raises
    ------
    ValueError
        If the package is not installed, if no robot has that name (the
        message lists the nearest names), or if several descriptions ship a
        URDF of that name (the message lists them).
    """
    share = example_robot_data_share()
    if share is None:
        raise _not_installed()
    catalog = _catalog(share)
    urdfs = catalog.get(name)
    if not urdfs:
        near = difflib.get_close_matches(name, catalog, n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise ValueError(f"{_PACKAGE} has no robot named {name!r}{hint} "
                         f"({len(catalog)} names: geometry-core check --robot list)")
    if len(urdfs) > 1:
        raise ValueError(f"{_PACKAGE} has several robots named {name!r}: "
                         + ", ".join(str(u.relative_to(share)) for u in urdfs))
    return ExampleRobot(name, urdfs[0], _srdf_of(urdfs[0], name), {_PACKAGE: str(share)})
