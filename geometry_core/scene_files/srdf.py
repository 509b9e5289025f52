"""MoveIt SRDF: a robot's disabled collision pairs and named joint configurations.

An SRDF (Semantic Robot Description Format) sits beside a URDF. Two of its
elements change what a collision checker reports, and are applied here to a
scene loaded from that URDF:

* ``<disable_collisions link1="a" link2="b"/>``: every geometry of link a is
  collision-filtered against every geometry of link b (MoveIt's allowed
  collision matrix); ``<disable_default_collisions link="a"/>`` filters link
  a against every link;
* ``<group_state name="home" group="arm"><joint name="j" value="0.3"/>``:
  the named pose ``home`` (``LoadedScene.apply_named_pose``), the joints it
  does not name at their default positions.

Groups, end effectors, virtual and passive joints carry no geometry and
are not read. As in MoveIt, an element naming a link or joint the robot
does not have is skipped with a :class:`SceneFileWarning` (file and line);
malformed XML, a missing attribute or a non-finite value is a
:class:`SceneFileError`.

This module uses lxml and the scene graph; never fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import os

from geometry_core.scene_files.errors import SceneFileError, issue_warning, quote, quote_tag
from geometry_core.scene_files.limits import DEFAULT_LIMITS, LoadLimits, read_limited
from geometry_core.scene_files.loaded_scene import LoadedScene
from geometry_core.scene_graph import GeometrySet

__all__ = ["apply_srdf", "apply_srdf_filters"]


_ENTRIES = ("disable_collisions", "disable_default_collisions", "group_state")


def apply_srdf(scene: LoadedScene, srdf: str | os.PathLike, *, text: bool = False,
               limits: LoadLimits | None = None) -> None:
    """Apply an SRDF's collision filters and named poses to a URDF scene.

    Parameters
    ----------
    scene : LoadedScene
        A scene from :func:`~geometry_core.scene_files.load_urdf` (it needs
        ``kinematics``).
    srdf : str or os.PathLike
        The SRDF file, or its text when ``text`` is true (MoveIt's
        ``robot_description_semantic`` parameter holds the text).
    text : bool
        Whether ``srdf`` is the document itself.
    limits : LoadLimits, optional
        Bounds on the document's size, its entries (``max_srdf_entries``)
        and names; the library's defaults when None.

    Raises
    ------
    SceneFileError
        (a ValueError) For an unreadable file, malformed XML, a root other
        than ``<robot>``, a missing attribute, a value that is not a finite
        number, a document over ``limits``, or a scene without joints. The
        message names the file (or ``<srdf>`` for text) and the line.
    """
    if scene.kinematics is None:
        raise SceneFileError("<srdf>" if text else srdf, None,
                             f"an SRDF applies to a URDF robot; {scene.path} has no joints")
    where, root = _parse(srdf, text, limits or DEFAULT_LIMITS)
    _Applier(scene.scene_graph, scene.frames, where, scene.warnings, scene).apply(root)


def apply_srdf_filters(scene_graph, srdf: str | os.PathLike, *, text: bool = False,
                       limits: LoadLimits | None = None) -> list[str]:
    """Apply only an SRDF's collision filters to a scene graph whose frames are link names.

    For a scene graph without its loader's names (a ROS node's, built from
    ``robot_description``): links are found by frame name; group states,
    which need the joints, are not read.

    Returns
    -------
    list of str
        The warnings' texts (also issued as :class:`SceneFileWarning`).

    Raises
    ------
    SceneFileError
        As :func:`apply_srdf`.
    """
    inspector = scene_graph.model_inspector()
    frames = {inspector.get_name(f): f for f in inspector.get_all_frame_ids()
              if f != inspector.world_frame_id()}
    where, root = _parse(srdf, text, limits or DEFAULT_LIMITS)
    issued: list[str] = []
    _Applier(scene_graph, frames, where, issued, None).apply(root)
    return issued


def _parse(srdf, text: bool, limits: LoadLimits):
    from lxml import etree

    where = "<srdf>" if text else os.fspath(srdf)
    if text:
        data = srdf.encode() if isinstance(srdf, str) else bytes(srdf)
        if len(data) > limits.max_file_bytes:
            raise SceneFileError(where, None, f"the SRDF is {len(data)} bytes, over the limit "
                                              f"of {limits.max_file_bytes} bytes")
    else:
        data = read_limited(srdf, limits.max_file_bytes)
    try:
        root = etree.fromstring(data, etree.XMLParser(remove_comments=True))
    except etree.XMLSyntaxError as err:
        raise SceneFileError(where, err.lineno, f"XML syntax error: {err.msg}") from None
    if root.tag != "robot":
        raise SceneFileError(where, root.sourceline,
                             f"the root element must be <robot>, got {quote_tag(root.tag)}")
    entries = sum(1 for element in root if element.tag in _ENTRIES)
    if entries > limits.max_srdf_entries:
        raise SceneFileError(where, root.sourceline,
                             f"the SRDF has {entries} disable_collisions, "
                             "disable_default_collisions and group_state entries, over the "
                             f"limit of {limits.max_srdf_entries} "
                             "(LoadLimits.max_srdf_entries)")
    return where, root


class _Applier:
    def __init__(self, scene_graph, frames, where: str, issued: list[str],
                 scene: LoadedScene | None) -> None:
        self.scene_graph = scene_graph
        self.frames = frames
        self.where = where
        self.issued = issued
        self.scene = scene  # None: filters only

    def warn(self, element, message: str) -> None:
        text = f"{self.where}:{element.sourceline}: {message}"
        self.issued.append(text)
        issue_warning(text, "srdf", stacklevel=4)

    def attribute(self, element, name: str) -> str:
        value = element.get(name)
        if not value:
            raise SceneFileError(self.where, element.sourceline,
                                 f"<{element.tag}> needs the attribute {name!r}")
        return value

    def apply(self, root) -> None:
        for element in root:
            if element.tag == "disable_collisions":
                self.disable(element, self.attribute(element, "link1"),
                             self.attribute(element, "link2"))
            elif element.tag == "disable_default_collisions":
                self.disable(element, self.attribute(element, "link"), None)
            elif element.tag == "group_state" and self.scene is not None:
                self.group_state(element)

    def disable(self, element, link_a: str, link_b: str | None) -> None:
        frames = self.frames
        missing = [link for link in (link_a, link_b) if link is not None and link not in frames]
        if missing:
            self.warn(element, f"<{element.tag}> names link {quote(missing[0])}, which the robot "
                               "does not have; skipped")
            return
        sg = self.scene_graph
        others = (GeometrySet(frames[link_b]) if link_b is not None
                  else GeometrySet(list(frames.values())))
        sg.exclude_collisions_between(GeometrySet(frames[link_a]), others)

    def group_state(self, element) -> None:
        name = self.attribute(element, "name")
        kinematics = self.scene.kinematics
        actuated = set(kinematics.joint_names())
        q: dict[str, float] = {}
        for joint in element.findall("joint"):
            joint_name = self.attribute(joint, "name")
            text = self.attribute(joint, "value")
            try:
                values = [float(v) for v in text.split()]
            except ValueError:
                values = []
            if len(values) < 1 or not all(math.isfinite(v) for v in values):
                raise SceneFileError(self.where, joint.sourceline,
                                     f"group_state {quote(name)}: joint {quote(joint_name)} value "
                                     f"must be a finite number, got {quote(text)}")
            if joint_name not in actuated or len(values) != 1:
                # MoveIt's virtual (multi-value) joints and mimic joints take no position here.
                self.warn(joint, f"group_state {quote(name)}: joint {quote(joint_name)} is not a "
                                 "one-value actuated joint of the robot; skipped")
                continue
            q[joint_name] = values[0]
        if name in self.scene.named_poses:
            self.warn(element, f"group_state {quote(name)} is defined again (group "
                               f"{quote(element.get('group'))}); the first one is kept")
            return
        for joint_name, value in q.items():
            spec = kinematics.joint(joint_name)
            if not spec.lower <= value <= spec.upper:
                # MoveIt sets a named state as written; so do we, and say so.
                self.warn(element, f"group_state {quote(name)}: position {value:g} of joint "
                                   f"{quote(joint_name)} is outside its limits [{spec.lower:g}, "
                                   f"{spec.upper:g}]; applied as written")
        poses = kinematics.calc_frame_poses(q, within_limits=False)
        self.scene.named_poses[name] = {kinematics.source_id: poses}
