"""SRDF (MoveIt's semantic robot description): the collision pairs it disables.

Only ``<disable_collisions link1="..." link2="..."/>`` is read; groups,
states and end effectors are a planner's business. Errors name the file and
line, as the URDF loader's do.

This module imports lxml only; never fcl, lcm or ROS.
"""

from __future__ import annotations

import os
from pathlib import Path

from geometry_core.scene_files.errors import SceneFileError

__all__ = ["read_disabled_collisions"]


def read_disabled_collisions(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Return the ``(link1, link2)`` pairs an SRDF file disables, in file order.

    Raises
    ------
    SceneFileError
        (a ValueError) If the file cannot be read, is not XML with a
        ``<robot>`` root, or a ``<disable_collisions>`` lacks a link name.
    """
    from lxml import etree

    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise SceneFileError(path, None, f"cannot read the SRDF: {err}") from None
    try:
        root = etree.fromstring(data, etree.XMLParser(remove_comments=True))
    except etree.XMLSyntaxError as err:
        raise SceneFileError(path, err.lineno, f"XML syntax error: {err.msg}") from None
    if root.tag != "robot":
        raise SceneFileError(path, root.sourceline,
                             f"the root element of an SRDF must be <robot>, got <{root.tag}>")
    pairs = []
    for element in root.iter("disable_collisions"):
        link1, link2 = element.get("link1"), element.get("link2")
        if not link1 or not link2:
            raise SceneFileError(path, element.sourceline,
                                 "<disable_collisions> needs 'link1' and 'link2' attributes")
        pairs.append((link1, link2))
    return pairs
