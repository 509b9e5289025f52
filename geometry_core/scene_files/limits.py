"""How much a robot or scene file may hold: the loaders' bounds, with their defaults.

A file from the internet (or a ``robot_description`` from anyone on a ROS
graph) must not make a loader run or allocate without bound. Every loader
takes a :class:`LoadLimits` (``limits=``); :data:`DEFAULT_LIMITS` is generous
enough for any real robot (the largest in example-robot-data and rtb-data
have under 200 links, a few thousand SRDF pairs and meshes of a few MB)
and stops hostile files early. A file over a limit is refused with a
:class:`~geometry_core.scene_files.SceneFileError` naming the limit; nothing
is cut silently. The ROS nodes pass tighter ones
(``geometry_core_nodes.limits``).

This module imports only ``geometry_core.shapes`` (for the mesh defaults).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from geometry_core.scene_files.errors import SceneFileError
from geometry_core.shapes import MAX_MESH_FILE_BYTES

__all__ = ["DEFAULT_LIMITS", "LoadLimits", "read_limited"]


@dataclass(frozen=True)
class LoadLimits:
    """Bounds on one file a loader reads. Each is a count, characters or bytes.

    Attributes
    ----------
    max_file_bytes : int
        Size of the URDF, SRDF or YAML file itself (checked before reading).
    max_links : int
        Links of a URDF (frames of a YAML scene).
    max_joints : int
        Joints of a URDF.
    max_geometries : int
        Collision plus visual elements of a URDF (geometries of a YAML scene).
    max_srdf_entries : int
        ``disable_collisions``, ``disable_default_collisions`` and
        ``group_state`` elements of an SRDF (a real one has up to a few
        thousand: n links make at most n(n-1)/2 pairs).
    max_name_length : int
        Characters of a link, joint, geometry or frame name.
    max_mesh_file_bytes : int
        Size of one mesh file, from ``os.stat``, before it is opened.
    """

    max_file_bytes: int = 64 * 1024 * 1024
    max_links: int = 50_000
    max_joints: int = 50_000
    max_geometries: int = 200_000
    max_srdf_entries: int = 500_000
    max_name_length: int = 1024
    max_mesh_file_bytes: int = MAX_MESH_FILE_BYTES


#: The library's defaults.
DEFAULT_LIMITS = LoadLimits()


def read_limited(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of ``path``; SceneFileError when unreadable or over ``max_bytes``.

    Reads at most ``max_bytes + 1`` bytes whatever ``os.stat`` says (a FIFO
    or a device has no size), so a huge or endless file costs no more.
    """
    try:
        with open(path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError as err:
        raise SceneFileError(path, None, f"cannot read the file: {err}") from None
    if len(data) > max_bytes:
        raise SceneFileError(path, None, f"the file is over the limit of {max_bytes} bytes; "
                                         "it is not read further")
    return data
