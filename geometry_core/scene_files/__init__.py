"""Scene files: the YAML scene format and URDF robots, loaded into a SceneGraph.

- :func:`load_scene` reads a YAML scene (format in
  :mod:`geometry_core.scene_files.yaml_scene`);
- :func:`load_urdf` reads a URDF robot (:mod:`geometry_core.scene_files.urdf`),
  or a xacro one (``.xacro``, ``.urdf.xacro``) expanded with ROS's xacro
  (:mod:`geometry_core.scene_files.xacro_files`);
- :func:`load_any` picks by extension;
- :func:`example_robot` finds a robot of example-robot-data by short name
  (:mod:`geometry_core.scene_files.example_robots`);
- :func:`apply_srdf` applies a MoveIt SRDF's collision filters and named
  poses to a URDF robot (:mod:`geometry_core.scene_files.srdf`);
- both return a :class:`LoadedScene`; errors are :class:`SceneFileError`
  (a ValueError) whose message starts with ``file:line:``;
- :class:`LoadLimits` bounds what one file may hold, :class:`FileAccess`
  which files it may name (:func:`resolve_package` finds a ``package://``
  URI or a package folder); see docs/robot-files.md.

This package uses the scene graph, PyYAML, lxml and trimesh; it
never imports fcl, lcm or ROS, nor the viewer or the CLI.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from geometry_core.scene_files.errors import SceneFileError, SceneFileWarning
from geometry_core.scene_files.example_robots import (
    ExampleRobot,
    example_robot,
    example_robot_data_share,
    example_robot_names,
)
from geometry_core.scene_files.kinematics import JointSpec, KinematicTree
from geometry_core.scene_files.limits import DEFAULT_LIMITS, LoadLimits
from geometry_core.scene_files.loaded_scene import LoadedScene
from geometry_core.scene_files.package_paths import FileAccess, resolve_package
from geometry_core.scene_files.yaml_scene import load_scene, load_scene_text

__all__ = ["DEFAULT_LIMITS", "ExampleRobot", "FileAccess", "JointSpec", "KinematicTree",
           "LoadLimits", "LoadedScene", "SceneFileError", "SceneFileWarning", "apply_srdf",
           "example_robot", "example_robot_data_share", "example_robot_names", "load_any",
           "load_scene", "load_scene_text", "load_urdf", "resolve_package"]

_YAML_SUFFIXES = (".yaml", ".yml")


def load_urdf(path: str | os.PathLike, **kwargs) -> LoadedScene:
    """Read a URDF robot; see :func:`geometry_core.scene_files.urdf.load_urdf`."""
    from geometry_core.scene_files.urdf import load_urdf as _load_urdf

    return _load_urdf(path, **kwargs)


def apply_srdf(scene: LoadedScene, srdf, *, text: bool = False, limits=None) -> None:
    """Apply a MoveIt SRDF; see :func:`geometry_core.scene_files.srdf.apply_srdf`."""
    from geometry_core.scene_files.srdf import apply_srdf as _apply_srdf

    _apply_srdf(scene, srdf, text=text, limits=limits)


def load_any(path: str | os.PathLike,
             package_roots: Mapping[str, str | os.PathLike] | None = None,
             srdf: str | os.PathLike | None = None,
             limits: LoadLimits | None = None,
             xacro_args: Mapping[str, str] | None = None) -> LoadedScene:
    """Load a ``.yaml``/``.yml`` scene or a ``.urdf``/``.xacro`` robot, chosen by extension.

    ``srdf`` (a URDF's MoveIt SRDF) adds its collision filters and named poses;
    ``limits`` bounds the file (the library's defaults when None);
    ``xacro_args`` are a ``.xacro`` robot's arguments (``$(arg name)``).

    Raises
    ------
    SceneFileError
        For another extension, an SRDF with a YAML scene, or as the loader
        raises.
    """
    suffix = Path(path).suffix.lower()
    if suffix in _YAML_SUFFIXES:
        if package_roots:
            raise SceneFileError(path, None, "package roots apply to URDF files only")
        if srdf is not None:
            raise SceneFileError(path, None, "an SRDF applies to URDF files only")
        if xacro_args:
            raise SceneFileError(path, None, "xacro arguments apply to .xacro files only")
        return load_scene(path, limits=limits)
    if suffix in (".urdf", ".xml", ".xacro"):
        return load_urdf(path, package_roots=package_roots, srdf=srdf, limits=limits,
                         xacro_args=xacro_args)
    raise SceneFileError(path, None, f"unknown scene file type {suffix or '(none)'!r}; "
                                     "expected .yaml, .yml, .urdf or .xacro")
