"""URDF robots: links become frames, collisions proximity geometry, visuals illustration.

Reading, in time linear in the size of the robot:

* lxml parses the file strictly (libxml2 refuses the hostile XML of
  docs/robot-files.md) and gives every element its line;
* one pass checks and reads the robot model (links, joints, origins, axes,
  limits, shapes), each number parsed once, so each error names the file,
  the line and the element, e.g. ``arm.urdf:23: link 'forearm', collision
  #1: cylinder radius must be a positive number, got '-0.1'``; it walks an
  ``xml.etree`` copy of lxml's tree, whose elements are plain Python
  objects (see ``_walking_tree``). The model is what yourdfpy (PyPI, the
  reference of the tests) reads, and what yourdfpy could not read is
  refused with its line (see ``_read``);
* frames and geometries are registered in one batch each.

What the scene gets, following Drake's URDF parser:

* one source (the robot's name), one frame per link (frame name = link
  name) under its parent link's frame; root links hang off the world at
  identity (or ``X_WR``); a link named ``world`` is the world frame itself
  and its geometry is anchored;
* ``<collision>`` → proximity role; ``<visual>`` → illustration and
  perception roles, colour from ``<material>`` (inline or by name);
* box, sphere, cylinder and mesh shapes (COLLADA, glTF/GLB, OBJ, STL,
  PLY, any case of the suffix). Mesh file names: ``package://pkg/path``
  as :func:`resolve_mesh_path` says (package roots, ``ROS_PACKAGE_PATH``,
  ``AMENT_PREFIX_PATH``, then beside the URDF and its ancestor folders),
  ``file://`` and relative paths against the URDF's folder. Collision
  meshes become :class:`~geometry_core.shapes.Convex` (Drake uses a mesh's
  convex hull for point contact), hulled once per file; visual meshes
  :class:`~geometry_core.shapes.Mesh`, not read at load;
* what the ROS toolchain accepts although it breaks the format's letter is
  accepted with a :class:`SceneFileWarning` naming file and line (see
  :func:`load_urdf`);
* collisions between links joined by a joint, and within groups of links
  welded by fixed joints, are filtered (Drake's default; pass
  ``filter_adjacent=False`` to keep them);
* joints go into a :class:`KinematicTree` (revolute, continuous, prismatic,
  fixed, with mimic), so ``LoadedScene.set_joint_positions`` poses the robot.

This module never imports fcl, lcm or ROS.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import re
import threading
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple, NoReturn
from urllib.parse import urlparse

import numpy as np

from geometry_core.math import RigidTransform, rotation_matrices_from_rpy
from geometry_core.scene import SceneGraph
from geometry_core.scene_files.errors import SceneFileError, issue_warning, quote, quote_tag
from geometry_core.scene_files.kinematics import JointSpec, KinematicTree
from geometry_core.scene_files.limits import DEFAULT_LIMITS, LoadLimits, read_limited
from geometry_core.scene_files.loaded_scene import LoadedScene
from geometry_core.scene_files.package_paths import FileAccess, resolve_mesh_path
from geometry_core.scene_graph import (
    CollisionFilterDeclaration,
    FrameId,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
)
from geometry_core.shapes import (
    MESH_SUFFIXES,
    Box,
    Convex,
    Cylinder,
    Mesh,
    Shape,
    Sphere,
    check_mesh_file_size,
)

__all__ = ["load_urdf", "resolve_mesh_path"]

_WORLD = "world"
_GEOMETRY_TAGS = ("box", "sphere", "cylinder", "mesh")
_JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")
# An XML declaration with leading blank space, a BOM, or a version or encoding
# lxml refuses: TinyXML (urdfdom) reads past all of these.
_DECLARATION = re.compile(rb"\A(\xef\xbb\xbf)?\s*<\?xml[^>]*\?>")
_SUBSTITUTION = re.compile(r"\$[({]")
_EXPAND = ("expand it with xacro first (xacro FILE > robot.urdf), or load the .xacro file "
           "itself, which is expanded on loading")
#: The URDF elements this loader reads: tag -> (attributes, child elements). Anything
#: else is ignored with one warning per name; these hold other tools' extensions.
_EXTENSIONS = ("transmission", "gazebo", "ros2_control")
_SCHEMA = {
    "robot": ({"name", "version"}, {"link", "joint", "material", *_EXTENSIONS}),
    "link": ({"name", "type"}, {"inertial", "visual", "collision"}),
    "inertial": (set(), {"origin", "mass", "inertia"}),
    "visual": ({"name"}, {"origin", "geometry", "material"}),
    "collision": ({"name"}, {"origin", "geometry"}),
    "geometry": (set(), set(_GEOMETRY_TAGS)),
    "material": ({"name"}, {"color", "texture"}),
    "joint": ({"name", "type"}, {"origin", "parent", "child", "axis", "calibration",
                                 "dynamics", "limit", "safety_controller", "mimic"}),
    "origin": ({"xyz", "rpy"}, set()),
    "mass": ({"value"}, set()),
    "inertia": ({"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}, set()),
    "box": ({"size"}, set()),
    "sphere": ({"radius"}, set()),
    "cylinder": ({"radius", "length"}, set()),
    "mesh": ({"filename", "scale"}, set()),
    "color": ({"rgba"}, set()),
    "texture": ({"filename"}, set()),
    "parent": ({"link"}, set()),
    "child": ({"link"}, set()),
    "axis": ({"xyz"}, set()),
    "calibration": ({"rising", "falling", "reference_position"}, set()),
    "dynamics": ({"damping", "friction"}, set()),
    "limit": ({"lower", "upper", "effort", "velocity"}, set()),
    "safety_controller": ({"soft_lower_limit", "soft_upper_limit", "k_position",
                           "k_velocity"}, set()),
    "mimic": ({"joint", "multiplier", "offset"}, set()),
}
_MAX_UNKNOWN_WARNINGS = 20
_IDENTITY4 = np.eye(4)
_IDENTITY4.setflags(write=False)  # shared by every geometry without an <origin>
#: Elements up to which the checks walk an ElementTree copy (a 10 000-link robot
#: has about 120 000): past it, lxml's own tree, slower but three times smaller.
_MAX_COPIED_ELEMENTS = 1_000_000


def _on_schema(root) -> bool:
    """Report whether every element and attribute name is one ``_SCHEMA`` allows where it is.

    Looser than ``_warn_unknown``'s walk (it looks at every element, and
    flags namespaced names too) and never stricter: when it holds, the walk
    would warn about nothing. Sets of name pairs, built at C speed, make it
    a fraction of the walk's cost on a large robot.
    """
    # One tuple per element (its tag and attribute names, or its tag and its
    # children's tags), few of them distinct, then the pairs of those.
    signatures = {(e.tag, *e.attrib) for e in root.iter()}
    families = {(e.tag, *[c.tag for c in e]) for e in root.iter() if len(e)}
    attributes = {(s[0], a) for s in signatures for a in s[1:]}
    children = {(f[0], c) for f in families for c in f[1:]}
    return all(tag not in _SCHEMA or tag in _EXTENSIONS or a in _SCHEMA[tag][0]
               for tag, a in attributes) \
        and all(parent not in _SCHEMA or parent in _EXTENSIONS or parent == "geometry"
                or tag in _SCHEMA[parent][1] for parent, tag in children)


def load_urdf(path: str | os.PathLike, *,
              package_roots: Mapping[str, str | os.PathLike] | None = None,
              filter_adjacent: bool = True,
              source_name: str | None = None,
              frame_group: int = 0,
              X_WR: RigidTransform | None = None,
              srdf: str | os.PathLike | None = None,
              visuals: bool = True,
              xacro_args: Mapping[str, str] | None = None,
              file_access: FileAccess | None = None,
              limits: LoadLimits | None = None) -> LoadedScene:
    """Read a URDF file (and optionally its SRDF) into a new scene graph.

    Where the ROS toolchain accepts a file that breaks the URDF's letter, so
    does this loader, with a :class:`SceneFileWarning` naming the file and
    line: a material defined inside one visual and used by name in a later
    one, a mirrored mesh scale (the hull is mirrored, its faces rewound), an
    odd XML declaration, a missing robot name (the file's stem is used), a
    visual mesh that cannot be found or read (that visual is skipped), a
    ``<visual>`` that is malformed, empty or of zero size (skipped), content
    after the closing ``</robot>`` (ignored), a joint limit with lower above
    upper or a revolute or prismatic joint without limits (the joint is
    unlimited), unknown elements and attributes (ignored). What would make
    the collision model wrong is refused: a collision mesh that cannot be
    found or read, a joint cycle, a non-finite number, a ``.urdf`` holding
    unexpanded xacro (``$(...)``, ``${...}``, ``xacro:`` elements).

    A ``.xacro`` file (``robot.urdf.xacro``) is first expanded with ROS's
    xacro (:func:`~geometry_core.scene_files.xacro_files.expand_xacro`;
    ``$(find pkg)`` looks where ``package://pkg`` meshes are looked for);
    line numbers in its messages are lines of ``xacro FILE``'s output.

    Parameters
    ----------
    path : str or os.PathLike
        The URDF file.
    package_roots : mapping of str to path, optional
        ``{package_name: folder}`` for ``package://`` mesh URIs.
    filter_adjacent : bool
        Filter collisions between links joined by a joint and within groups
        of welded links (Drake's default). Default True.
    source_name : str, optional
        Source name; default the robot's ``name``.
    frame_group : int
        Frame group of every link frame (Drake's model instance).
    X_WR : RigidTransform, optional
        Pose in the world of the root link(s); identity by default.
    srdf : str or os.PathLike, optional
        A MoveIt SRDF: its ``disable_collisions`` pairs become collision
        filters and its ``group_state`` entries named poses (see
        :func:`geometry_core.scene_files.srdf.apply_srdf`).
    visuals : bool
        Register ``<visual>`` elements (default True). False loads collision
        geometry only (a collision checker needs nothing else), so visual
        mesh files are neither read nor required.
    xacro_args : mapping of str to str, optional
        Arguments of a ``.xacro`` file (``$(arg name)``), as xacro's
        ``name:=value``.
    file_access : FileAccess, optional
        Which mesh files may be read (see
        :mod:`geometry_core.scene_files.package_paths`): any by default;
        ``FileAccess.restricted(package_roots)`` for a description from
        someone else (only under the package roots, "not allowed or not
        found" otherwise).
    limits : LoadLimits, optional
        Bounds on the file (links, joints, geometries, names, file and mesh
        sizes, SRDF entries); :data:`~geometry_core.scene_files.limits.DEFAULT_LIMITS`
        by default.

    Returns
    -------
    LoadedScene
        With ``frames`` by link name, ``geometries`` by ``link::name``
        (unnamed elements are ``collision``/``visual``, then ``_1``, ``_2``...;
        a visual that shares its collision's name is keyed ``link::name::visual``),
        ``kinematics`` and ``warnings`` (the texts of the warnings issued); the
        robot is posed at its default joint positions.

    Raises
    ------
    SceneFileError
        (a ValueError) For unreadable or malformed XML, a missing or invalid
        element or attribute, an unknown link in a joint, a link with two
        parents, a cycle, a collision mesh that cannot be found or read, or
        a file over one of ``limits``. The message names the file, the line
        and the element.
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    data = None
    if _is_xacro(path):
        from geometry_core.scene_files.xacro_files import expand_xacro

        data = expand_xacro(path, mappings=xacro_args, package_roots=package_roots,
                            access=file_access)
        data = data.encode("utf-8")
        if len(data) > limits.max_file_bytes:
            raise SceneFileError(path, None, f"its xacro expansion has {len(data)} bytes, over "
                                             f"the limit of {limits.max_file_bytes} "
                                             "(LoadLimits.max_file_bytes)")
    elif xacro_args:
        raise SceneFileError(path, None, "xacro arguments apply to .xacro files only")
    with _collector_paused():
        scene = _UrdfBuilder(path, package_roots or {}, filter_adjacent, source_name,
                             frame_group, X_WR, visuals, file_access, limits, data).build()
    if srdf is not None:
        from geometry_core.scene_files.srdf import apply_srdf

        apply_srdf(scene, srdf, limits=limits)
    return scene


#: Loads under way that paused the collector, and whether it ran before the first.
_pauses = {"count": 0, "was_enabled": False}
_pauses_lock = threading.Lock()


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector while a robot is built.

    A load makes some twenty objects per link (elements, records, ids) and
    keeps them; the collector, triggered by the allocations, would scan
    them again and again: a third of the time of a 10 000-link robot. The
    collector is process-wide, so loads in several threads share one pause:
    it runs again when the last of them ends (unless it was off before the
    first began).
    """
    with _pauses_lock:
        if _pauses["count"] == 0:
            _pauses["was_enabled"] = gc.isenabled()
            gc.disable()
        _pauses["count"] += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses["count"] -= 1
            if _pauses["count"] == 0 and _pauses["was_enabled"]:
                gc.enable()


def _is_xacro(path) -> bool:
    return os.fspath(path).lower().endswith(".xacro")


def _stem(path: str) -> str:
    """``arm`` for ``arm.urdf``, ``arm.xacro`` and ``arm.urdf.xacro``."""
    name = Path(path).name
    if _is_xacro(name):
        name = name[:-len(".xacro")]
    return Path(name).stem


class _What(NamedTuple):
    """What a message is about (``link 'arm', collision #2``), made text only when needed."""

    kind: str  # "link" or "joint"
    name: str
    part: str = ""  # "inertial", "collision #"...
    number: int | None = None

    def __str__(self) -> str:
        text = f"{self.kind} {quote(self.name)}"
        if self.part:
            text += f", {self.part}" + ("" if self.number is None else str(self.number))
        return text


class _Item(NamedTuple):
    """A ``<collision>`` or ``<visual>``: shape as a tuple (kind, numbers or file...)."""

    name: str | None
    origin: int  # row of _Robot.X_origin; -1 without <origin>
    shape: tuple
    element: object


class _Link(NamedTuple):
    name: str
    element: object
    collisions: list[_Item]
    visuals: list[_Item]


class _Joint(NamedTuple):
    name: str
    type: str
    parent: str
    child: str
    origin: int
    axis: tuple[float, ...]
    lower: float | None  # None: no <limit> or no such attribute
    upper: float | None
    mimic: tuple[str, float, float] | None
    element: object


class _Robot(NamedTuple):
    name: str
    links: list[_Link]
    joints: list[_Joint]
    X_origin: np.ndarray  # (M, 4, 4) every <origin>'s pose


class _UrdfBuilder:
    def __init__(self, path, package_roots, filter_adjacent, source_name, frame_group,
                 X_WR, visuals=True, file_access=None, limits=DEFAULT_LIMITS,
                 data: bytes | None = None) -> None:
        self.file = os.fspath(path)
        # Messages name a xacro file's expansion, whose lines are those `xacro FILE` prints.
        self.path = self.file if data is None else f"{self.file} (expanded by xacro)"
        self.data = data
        self.folder = Path(self.file).resolve().parent
        self.package_roots = dict(package_roots)
        self.filter_adjacent = filter_adjacent
        self.source_name = source_name
        self.frame_group = frame_group
        self.X_WR = X_WR
        self.visuals = visuals
        self.file_access = file_access or FileAccess()
        self.limits = limits
        self.warnings: list[str] = []
        self._lines: dict[int, int] | None = None  # see _line
        self.root = self._xml_root = None

    def fail(self, element, message: str) -> NoReturn:
        raise SceneFileError(self.path, self._line(element), message)

    def warn(self, element, message: str, kind: str = "urdf") -> None:
        line = self._line(element)
        text = f"{self.path}:{line}: {message}" if line else f"{self.path}: {message}"
        self.warnings.append(text)
        issue_warning(text, kind, stacklevel=4)

    # ------------------------------------------------------------------ parse

    def build(self) -> LoadedScene:
        try:
            from lxml import etree
        except ImportError as err:
            raise SceneFileError(self.path, None, f"reading a URDF needs lxml ({err}); "
                                                  "pip install lxml") from None

        data = self.data
        if data is None:
            data = read_limited(self.file, self.limits.max_file_bytes)
        data = self._plain_declaration(data)
        root = self._parse_xml(data, etree)
        if root.tag != "robot":
            self.fail(root, f"the root element must be <robot>, got {quote_tag(root.tag)}")
        self._xml_root = root
        text = etree.tostring(root)  # comments gone, entities expanded
        unexpanded = self.data is None and (b"$" in text or b"xacro" in text)
        over = self._over_limits(root)
        if over is not None:  # refused before any walk, in the order of the checks below
            if unexpanded:
                self._refuse_unexpanded(root)
            self._warn_unnamed(root)
            self.fail(root, over)
        tree = self.root = self._walking_tree(root, text)
        if unexpanded:
            self._refuse_unexpanded(tree)
        return self._register(self._read(tree))

    def _walking_tree(self, root, text: bytes):
        """The tree the checks walk: a plain ElementTree copy when it holds the same elements.

        lxml builds a Python object per element each time one is reached;
        the standard library's elements are Python objects already, which
        makes a pass over a robot of thousands of links several times
        faster. lxml stays the parser (strict, with its refusals of hostile
        XML) and the source of line numbers (:meth:`_line`). A tree with
        processing instructions is walked as it is: the copy would drop them.
        So is a tree of very many elements (whatever its links): the copy's
        Python objects take several times lxml's memory.
        """
        # The serialized text has '<?' only where a processing instruction is, and
        # at least one '<' per element: the walks of the tree only when they may tell.
        if (b"<?" in text and root.xpath("boolean(//processing-instruction())")) \
                or (text.count(b"<") > _MAX_COPIED_ELEMENTS
                    and root.xpath("count(//*)") > _MAX_COPIED_ELEMENTS):
            return root
        try:
            return ElementTree.fromstring(text)
        except ElementTree.ParseError:
            return root

    def _line(self, element) -> int | None:
        """The source line of an element of either tree (an int stands for itself)."""
        if element is None or isinstance(element, int):
            return element
        line = getattr(element, "sourceline", None)
        if line is not None or not isinstance(element, ElementTree.Element):
            return line
        if self._lines is None:
            # Both trees list the same elements in document order (see _walking_tree).
            from lxml import etree

            self._lines = {id(copy): original.sourceline for copy, original in
                           zip(self.root.iter(), self._xml_root.iter(tag=etree.Element))}
        return self._lines.get(id(element))

    def _parse_xml(self, data: bytes, etree):
        """The root element; content after it is ignored with a warning, as urdfdom does."""
        try:
            return etree.fromstring(data, etree.XMLParser(remove_comments=True))
        except etree.XMLSyntaxError as err:
            error = err
        if error.msg.startswith("Extra content at the end of the document") and error.position:
            line, column = error.position
            start = 0
            for _ in range(line - 1):
                start = data.index(b"\n", start) + 1
            end = start + max(column - 1, 0)
            # libxml2 counts the column in characters or bytes: try the next few '>'.
            for cut in [end] + [k + 1 for k in range(max(end - 1, 0), min(end + 64, len(data)))
                                if data[k:k + 1] == b">"][:4]:
                try:
                    root = etree.fromstring(data[:cut], etree.XMLParser(remove_comments=True))
                except etree.XMLSyntaxError:
                    continue
                self.warn(line, f"content after the closing </{root.tag}> is ignored, as "
                                "urdfdom ignores it")
                return root
        raise SceneFileError(self.path, error.lineno, f"XML syntax error: {error.msg}") from None

    def _refuse_unexpanded(self, root) -> None:
        """Refuse a .urdf that still holds xacro: its numbers and names are not there yet."""
        for element in root.iter():
            if not isinstance(element.tag, str):  # a processing instruction
                continue
            tag = element.tag
            if (tag.startswith("{") and "xacro" in tag.partition("}")[0]) \
                    or tag.startswith("xacro:"):
                name = tag.rpartition("}")[2].rpartition(":")[2]
                self.fail(element, f"<xacro:{name}> is a xacro macro, not URDF; {_EXPAND}")
            if tag in _EXTENSIONS:
                continue
            for attribute, value in element.attrib.items():
                if _SUBSTITUTION.search(value):
                    self.fail(element, f"unexpanded xacro substitution {value!r} in "
                                       f"<{tag}> {attribute}; {_EXPAND}")

    def _warn_unknown(self, root) -> None:
        """One warning per unknown element or attribute name (urdfdom ignores them)."""
        if _on_schema(root):
            return  # the walk below would find nothing
        seen: dict[str, list] = {}

        def visit(element, parent: str | None) -> None:
            tag = element.tag
            known = _SCHEMA.get(tag)
            if parent is not None and tag not in _SCHEMA[parent][1]:
                # A shape's tag is checked with its geometry; a namespaced element is
                # another tool's extension (drake:, gazebo's...).
                if parent != "geometry" and ":" not in tag and "}" not in tag:
                    seen.setdefault(f"element <{tag}> in <{parent}>", []).append(element)
                return
            if known is None or tag in _EXTENSIONS:
                return
            for attribute in element.attrib:
                if attribute not in known[0] and ":" not in attribute and "}" not in attribute:
                    seen.setdefault(f"attribute {attribute!r} of <{tag}>", []).append(element)
            for child in element:
                if isinstance(child.tag, str):  # not a processing instruction
                    visit(child, tag)

        visit(root, None)
        for k, (what, elements) in enumerate(seen.items()):
            if k == _MAX_UNKNOWN_WARNINGS:
                self.warn(elements[0], f"{len(seen) - k} more unknown element or attribute "
                                       "names are ignored")
                break
            times = f" ({len(elements)} times)" if len(elements) > 1 else ""
            self.warn(elements[0], f"unknown {what} ignored{times}, as urdfdom ignores it")

    def _plain_declaration(self, data: bytes) -> bytes:
        """Blank out an XML declaration lxml would refuse, keeping every line number.

        Odd but seen in the wild: blank lines before the declaration, a
        version other than 1.0, an encoding Python does not know.
        """
        match = _DECLARATION.match(data)
        if match is None:
            return data
        body = match.group(0)[len(match.group(1) or b""):]
        text = body.strip().decode("ascii", "replace")
        version = re.search(r"version\s*=\s*[\"']([^\"']*)", text)
        encoding = re.search(r"encoding\s*=\s*[\"']([^\"']*)", text)
        odd = not body.startswith(b"<?xml") or (version is not None
                                                and version.group(1) != "1.0")
        if encoding is not None and not odd:
            import codecs

            try:
                codecs.lookup(encoding.group(1))
            except LookupError:
                odd = True
        if not odd:
            return data
        line = 1 + body[:body.index(b"<?xml")].count(b"\n")
        self.warn(line, f"odd XML declaration {quote(text)} ignored; the file is read as UTF-8 "
                        "XML 1.0, as urdfdom reads it")
        blank = bytes(b if b in b"\r\n" else 32 for b in match.group(0))
        return blank + data[match.end():]

    # ------------------------------------------------------------------- read

    def _read(self, root) -> _Robot:
        """Check and read the robot model (links, joints, origins, shapes) in one pass.

        Two kinds of refusal, each naming the file, the line and the
        element. What is malformed (a missing attribute, a wrong count of
        numbers, a size that is not positive...) is refused at once, in the
        order of the file's links, materials and joints. What yourdfpy, the
        reference of the tests, could not read although the checks accept
        it (a comma between the numbers of an ``<origin>``, an ``<axis>``,
        a colour or inside a single number; a calibration or
        safety-controller value that is not a number; a processing
        instruction before a shape) is noted, and once nothing malformed was
        found the first of these in yourdfpy's order of reading is refused
        (``_note``). A malformed visual is skipped with a warning, and
        nothing it holds is refused. Origins are collected as rows and
        turned into poses in one pass at the end.
        """
        self.unlimited: set[str] = set()  # joints whose limits bound nothing
        self._strict: list[tuple[tuple, object, str]] = []  # see _note
        self._xyz: list[list[float]] = []  # rows of the origins
        self._rpy: list[list[float]] = []
        self._warn_unnamed(root)
        self._warn_unknown(root)
        links: dict[str, object] = {}
        robot_links = []
        for k, link in enumerate(root.findall("link")):
            name = self._declare(link, "link", links)
            # Keys of what is noted: (phase, links 0, link, part, item); yourdfpy
            # reads a link's inertial (part 0), visuals (1), then collisions (2).
            inertial = link.find("inertial")
            if inertial is not None:
                self._read_inertial(inertial, _What("link", name, "inertial"), (0, 0, k, 0, 0))
            collisions = [self._read_item(element, _What("link", name, "collision #", i + 1),
                                          (0, 0, k, 2, i))
                          for i, element in enumerate(link.findall("collision"))]
            visuals = []
            for i, element in enumerate(link.findall("visual")):
                item = self._read_visual(element, _What("link", name, "visual #", i + 1),
                                         (0, 0, k, 1, i))
                if item is not None:
                    visuals.append(item)
            robot_links.append(_Link(name, link, collisions, visuals))
        for m, material in enumerate(root.findall("material")):
            self._check_material(material, f"material {quote(material.get('name'))}",
                                 (0, 2, m, 0, 0), 0)
        joints: dict[str, object] = {}
        robot_joints = []
        for j, joint in enumerate(root.findall("joint")):
            name = self._declare(joint, "joint", joints)
            robot_joints.append(self._read_joint(joint, _What("joint", name), links,
                                                 (0, 1, j, 0, 0)))
        if not links:
            hint = (" (a xacro file that only defines macros: load the file that uses them)"
                    if self.data is not None else "")
            self.fail(root, f"the robot has no <link>, as urdfdom refuses too{hint}")
        if self._strict:
            _, element, message = min(self._strict, key=lambda noted: noted[0])
            self.fail(element, message)
        return _Robot(root.get("name") or _stem(self.file), robot_links, robot_joints,
                      self._origin_poses())

    def _note(self, key: tuple, element, attribute: str | None, plural: bool = False,
              message: str | None = None) -> None:
        """Note a value yourdfpy could not read, refused if nothing malformed is found.

        ``key`` orders the notes as yourdfpy reads: (0, links 0 / joints 1 /
        materials 2, index, part, item, attribute), and origins after all
        else (phase 1), as yourdfpy's origins were read last.
        """
        if message is None:
            value = element.get(attribute)
            wanted = "numbers separated by blanks" if plural else "a number"
            commas = ", without commas" if "," in value else ""
            message = f"<{element.tag}> {attribute} must be {wanted}{commas}, got {quote(value)}"
        self._strict.append((key, element, message))

    def _read_visual(self, element, what: object, key: tuple) -> _Item | None:
        """A visual that is malformed, empty or of zero size is skipped: only the look is lost."""
        if not self.visuals:
            return None  # neither read nor registered
        noted, rows = len(self._strict), len(self._xyz)
        try:
            return self._read_item(element, what, key)
        except SceneFileError as err:
            del self._strict[noted:]
            del self._xyz[rows:], self._rpy[rows:]
            self.warn(err.line or element, f"{err.message}; this visual is skipped, as RViz "
                                           "draws the robot without it")
        return None

    def _read_item(self, element, what: object, key: tuple) -> _Item:
        """A ``<collision>`` or ``<visual>``: its origin row, its shape and (visual) colour."""
        origin = self._read_origin(element, what, key)
        geometry = element.find("geometry")
        if geometry is None:
            self.fail(element, f"{what}: <{element.tag}> needs a <geometry>")
        shapes = list(geometry) if len(geometry) == 1 else None
        if shapes is None or not isinstance(shapes[0].tag, str):
            shapes = [child for child in geometry if isinstance(child.tag, str)]
        if len(shapes) != 1:
            self.fail(geometry, f"{what}: <geometry> needs exactly one of "
                                f"{', '.join(_GEOMETRY_TAGS)}, got "
                                f"{', '.join(c.tag for c in shapes) or 'none'}")
        shape = shapes[0]
        tag = shape.tag
        if tag == "box":
            read = ("box", tuple(self._numbers(shape, "size", what, 3, positive=True)))
        elif tag == "sphere":
            read = ("sphere", self._numbers(shape, "radius", what, 1, positive=True,
                                            key=key, sub=1)[0])
        elif tag == "cylinder":
            read = ("cylinder",
                    self._numbers(shape, "radius", what, 1, positive=True, key=key, sub=1)[0],
                    self._numbers(shape, "length", what, 1, positive=True, key=key, sub=2)[0])
        elif tag == "mesh":
            if not shape.get("filename"):
                self.fail(shape, f"{what}: <mesh> needs a 'filename' attribute")
            scale = None
            if shape.get("scale") is not None:
                scale = self._numbers(shape, "scale", what, (1, 3))
                if not all(scale):
                    self.fail(shape, f"{what}: <mesh> scale must not be zero, got "
                                     f"{quote(shape.get('scale'))}")
                scale = scale[0] if len(scale) == 1 else scale
            read = ("mesh", shape.get("filename"), scale)
        else:
            self.fail(shape, f"{what}: unsupported shape <{tag}>; URDF shapes are "
                             f"{', '.join(_GEOMETRY_TAGS)}")
        if not isinstance(geometry[0].tag, str):
            # A processing instruction before the shape: yourdfpy reads the first node.
            self._note(key + (0,), geometry, None,
                       message="<geometry>: a processing instruction comes before its shape")
        if element.tag == "visual":
            material = element.find("material")
            if material is not None:
                self._check_material(material, what, key, 3)
        return _Item(element.get("name"), origin, read, element)

    def _read_inertial(self, inertial, what: object, key: tuple) -> None:
        # Not used by the scene, but yourdfpy, the reference, converts it: a bad number
        # is refused, with its line.
        origin = inertial.find("origin")
        if origin is not None:
            self._numbers(origin, "xyz", what, 3, default="0 0 0", key=(1,) + key[1:], sub=0)
            self._numbers(origin, "rpy", what, 3, default="0 0 0", key=(1,) + key[1:], sub=1)
        mass = inertial.find("mass")
        if mass is not None:
            self._numbers(mass, "value", what, 1, key=key, sub=0)
        inertia = inertial.find("inertia")
        if inertia is not None:
            for n, attribute in enumerate(("ixx", "ixy", "ixz", "iyy", "iyz", "izz")):
                self._numbers(inertia, attribute, what, 1, default="0", key=key, sub=1 + n)

    def _declare(self, element, kind: str, seen: dict) -> str:
        """The name of a ``<link>`` or ``<joint>``, checked and entered in ``seen``.

        Raises
        ------
        SceneFileError
            When the name is missing, not a valid name, or declared before.
        """
        name = element.get("name")
        if not name:
            self.fail(element, f"<{kind}> needs a 'name' attribute")
        self._check_name(element, kind, name)
        if name in seen:
            self.fail(element, f"{kind} {quote(name)} is declared twice (first on line "
                               f"{self._line(seen[name])})")
        seen[name] = element
        return name

    def _read_origin(self, element, what: object, key: tuple) -> int:
        """The row of the element's ``<origin>`` among the poses; -1 when it has none."""
        origin = element.find("origin")
        if origin is None:
            return -1
        # _numbers' first test, inline: an origin is two of a robot's commonest values.
        rows = []
        for attribute in ("xyz", "rpy"):
            try:
                values = list(map(float, origin.get(attribute, "0 0 0").split()))
            except ValueError:
                values = None
            if values is None or len(values) != 3 or not math.isfinite(sum(values)):
                # yourdfpy's origins were read after everything else: phase 1.
                values = self._numbers(origin, attribute, what, 3, default="0 0 0",
                                       key=(1,) + key[1:], sub=len(rows))
            rows.append(values)
        self._xyz.append(rows[0])
        self._rpy.append(rows[1])
        return len(self._xyz) - 1

    def _origin_poses(self) -> np.ndarray:
        """``[R(rpy) | xyz]`` of every origin, (M, 4, 4)."""
        if not self._xyz:
            return np.zeros((0, 4, 4))
        X = np.zeros((len(self._xyz), 4, 4))
        X[:, :3, :3] = rotation_matrices_from_rpy(np.array(self._rpy, dtype=float))
        X[:, :3, 3] = self._xyz
        X[:, 3, 3] = 1.0
        return X

    def _numbers(self, element, attribute: str, what: object, count: int | tuple[int, ...],
                 default: str | None = None, positive: bool = False, key: tuple | None = None,
                 sub: int = 0) -> list[float]:
        """The finite numbers of an attribute, ``count`` of them, or a refusal naming it.

        Commas are read as blanks; with a ``key`` a comma is noted (see
        :meth:`_note`), as yourdfpy could not read it.
        """
        text = element.get(attribute, default)
        if text is None:
            self.fail(element, f"{what}: <{element.tag}> needs the attribute {attribute!r}")
        # Plain Python: a robot has tens of thousands of these small checks. Numbers
        # without commas first; a sum that is not finite (an infinity, a NaN or an
        # overflow) is looked at below, number by number.
        try:
            values = list(map(float, text.split()))
        except ValueError:
            pass
        else:
            if (len(values) == count if type(count) is int else len(values) in count) \
                    and math.isfinite(sum(values)) and not (positive and min(values) <= 0):
                return values
        try:
            values = [float(v) for v in text.replace(",", " ").split()]
        except ValueError:
            values = None
        if values is not None and (len(values) == count if type(count) is int
                                   else len(values) in count) \
                and all(map(math.isfinite, values)) \
                and not (positive and any(v <= 0 for v in values)):
            if key is not None and "," in text:
                self._note(key + (sub,), element, attribute, plural=count != 1)
            return values
        counts = (count,) if isinstance(count, int) else count
        wanted = " or ".join(str(c) for c in counts)
        kind = "positive numbers" if positive else "finite numbers"
        self.fail(element, f"{what}: <{element.tag}> {attribute} must have {wanted} {kind}, "
                           f"got {quote(text)}")

    def _warn_unnamed(self, root) -> None:
        if not root.get("name"):
            self.warn(root, f"<robot> has no 'name' attribute; the robot is named "
                            f"{_stem(self.file)!r} after its file")

    def _over_limits(self, root) -> str | None:
        """What makes the robot over the limits, or None; counted by libxml2, no walk."""
        limits = self.limits
        counted = {kind: int(root.xpath(f"count(/robot/{path})")) for kind, path in
                   (("link", "link"), ("joint", "joint"),
                    ("geometry", "link/*[self::collision or self::visual]"))}
        for kind, limit in (("link", limits.max_links), ("joint", limits.max_joints),
                            ("geometry", limits.max_geometries)):
            if counted[kind] > limit:
                plural = "geometries" if kind == "geometry" else f"{kind}s"
                return (f"the robot has {counted[kind]} {plural}, over the limit of {limit} "
                        f"(LoadLimits.max_{plural})")
        return None

    def _check_name(self, element, kind: str, name: str) -> None:
        if len(name) > self.limits.max_name_length:
            self.fail(element, f"{kind} name {quote(name)} is over the limit of "
                               f"{self.limits.max_name_length} characters")

    def _check_material(self, material, what: object, key: tuple, sub: int) -> None:
        color = material.find("color")
        if color is not None:
            rgba = self._numbers(color, "rgba", what, 4, key=key, sub=sub)
            if any(v < 0 or v > 1 for v in rgba):
                self.fail(color, f"{what}: <color> rgba must be in [0, 1], got "
                                 f"{quote(color.get('rgba'))}")

    def _check_limits(self, joint, limit, what: object, kind: str, lower, upper) -> None:
        """Limits that bound nothing leave the joint unlimited (sampled over all angles)."""
        if limit is None:
            self.warn(joint, f"{what}: a {kind} joint without <limit>; it is unlimited")
            return
        missing = [a for a, v in (("lower", lower), ("upper", upper)) if v is None]
        if missing:
            self.warn(limit, f"{what}: <limit> has no {' and no '.join(missing)}; that side "
                             "is unlimited")
            return
        if lower > upper:
            self.unlimited.add(joint.get("name"))
            self.warn(limit, f"{what}: <limit> lower {lower:g} is above upper {upper:g}; the "
                             "joint is unlimited")

    def _read_joint(self, joint, what: object, links: dict, key: tuple) -> _Joint:
        kind = joint.get("type")
        if kind not in _JOINT_TYPES:
            extra = (" (floating and planar joints are not supported)"
                     if kind in ("floating", "planar") else "")
            self.fail(joint, f"{what}: type must be one of {', '.join(_JOINT_TYPES)}, "
                             f"got {quote(kind)}{extra}")
        ends = []
        for end in ("parent", "child"):
            element = joint.find(end)
            if element is None or not element.get("link"):
                self.fail(joint if element is None else element,
                          f"{what}: needs <{end} link=\"...\"/>")
            link = element.get("link")
            if link not in links and not (end == "parent" and link == _WORLD):
                self.fail(element, f"{what}: {end} link {quote(link)} is not a link of the robot")
            ends.append(link)
        origin = self._read_origin(joint, what, key)
        # yourdfpy reads the axis (sub 0), limit (1-4), mimic (5, 6), calibration (7, 8),
        # safety controller (9-12).
        axis = joint.find("axis")
        if axis is None:
            vector = (1.0, 0.0, 0.0)
        else:
            vector = tuple(self._numbers(axis, "xyz", what, 3, default="1 0 0", key=key))
            if kind != "fixed" and not any(vector):
                self.fail(axis, f"{what}: <axis> xyz must not be zero")
        limit = joint.find("limit")
        bounds = {}
        if limit is not None:
            for attribute, sub in (("lower", 3), ("upper", 4), ("effort", 1), ("velocity", 2)):
                text = limit.get(attribute)
                if text is None:
                    continue
                # _numbers' first test for one number, inline (four per joint).
                try:
                    value = float(text)
                except ValueError:
                    value = math.nan
                if not math.isfinite(value):
                    value = self._numbers(limit, attribute, what, 1, key=key, sub=sub)[0]
                bounds[attribute] = value
        lower, upper = bounds.get("lower"), bounds.get("upper")
        if kind in ("revolute", "prismatic"):
            self._check_limits(joint, limit, what, kind, lower, upper)
        mimic = joint.find("mimic")
        if mimic is not None:
            if not mimic.get("joint"):
                self.fail(mimic, f"{what}: <mimic> needs a 'joint' attribute")
            factors = [1.0, 0.0]
            for n, attribute in enumerate(("multiplier", "offset")):
                if mimic.get(attribute) is not None:
                    factors[n] = self._numbers(mimic, attribute, what, 1, key=key,
                                               sub=5 + n)[0]
            mimic = (mimic.get("joint"), *factors)
        for tag, attributes, first in (("calibration", ("rising", "falling"), 7),
                                       ("safety_controller", ("soft_lower_limit",
                                                              "soft_upper_limit", "k_position",
                                                              "k_velocity"), 9)):
            extra = joint.find(tag)
            if extra is not None:
                for n, attribute in enumerate(attributes):
                    text = extra.get(attribute)
                    if text is not None:
                        try:
                            float(text)
                        except ValueError:
                            self._note(key + (first + n,), extra, attribute)
        return _Joint(joint.get("name"), kind, ends[0], ends[1], origin, vector, lower, upper,
                      mimic, joint)

    # --------------------------------------------------------------- register

    def _register(self, robot: _Robot) -> LoadedScene:
        sg = SceneGraph()
        scene = LoadedScene(sg, Path(self.file))
        name = self.source_name or robot.name
        source_id = sg.register_source(name)
        scene.source_ids[name] = source_id

        parent_of: dict[str, str] = {}
        for joint in robot.joints:
            if joint.child in parent_of:
                self.fail(joint.element,
                          f"joint {quote(joint.name)}: link {quote(joint.child)} already has "
                          f"parent joint {quote(parent_of[joint.child])}; a URDF is a tree")
            if joint.child == _WORLD:
                self.fail(joint.element,
                          f"joint {quote(joint.name)}: the world cannot be a child link")
            parent_of[joint.child] = joint.name
        joint_by_name = {j.name: j for j in robot.joints}
        order = self._topological_links(robot, parent_of)

        # One registration call for every frame and one for every geometry:
        # a robot of 10 000 links loads in a fraction of a second.
        frames, parents = [], []
        new_id: dict[str, FrameId] = {}
        for link in order:
            parent_joint = parent_of.get(link)
            parent_link = None if parent_joint is None else joint_by_name[parent_joint].parent
            frame = GeometryFrame(link, self.frame_group)
            new_id[link] = frame.id()
            frames.append(frame)
            parents.append(None if parent_link in (None, _WORLD) else new_id[parent_link])
        frame_ids = dict(zip(order, sg.register_frames(source_id, frames, parents)))
        scene.frames.update(frame_ids)

        joints = self._joint_specs(robot, joint_by_name)
        roots = {link: self.X_WR for link in order if link not in parent_of and self.X_WR}
        tree = KinematicTree(source_id, frame_ids, joints, roots,
                             world_frame=_WORLD)
        scene.kinematics = tree
        sg.set_poses_array(source_id, *tree.calc_frame_pose_array())

        self._top_materials = {m.get("name"): m for m in self.root.findall("material")
                               if m.get("name")}
        self._inline_materials: dict[str, object] = {}
        # (key, anchored id or None, element, what) in the order of the file
        self._keys: list[tuple[str, GeometryId | None, object, str]] = []
        self._taken: set[str] = set()
        on_frames: tuple[list, list] = ([], [])  # frame ids, instances
        for link in robot.links:
            self._link_geometry(scene, source_id, link, robot.X_origin, on_frames)
        frame_list, instances = on_frames
        try:
            geometry_ids = iter(sg.register_geometries(source_id, frame_list, instances))
        except ValueError:
            # Name the element: registered one at a time, the culprit fails as it did alone.
            pending = [key for key in self._keys if key[1] is None]
            for frame_id, instance, (_, _, element, what) in zip(frame_list, instances, pending):
                try:
                    sg.register_geometry(source_id, frame_id, instance)
                except ValueError as err:
                    self.fail(element, f"{what}: {err}")
            raise
        for key, anchored_id, _, _ in self._keys:
            scene.geometries[key] = next(geometry_ids) if anchored_id is None else anchored_id
        if self.filter_adjacent:
            self._filter_adjacent(scene, robot)
        scene.warnings = self.warnings
        return scene

    def _topological_links(self, robot: _Robot, parent_of) -> list[str]:
        children: dict[str, list[str]] = {}
        for joint in robot.joints:
            children.setdefault(joint.parent, []).append(joint.child)
        links = [link.name for link in robot.links if link.name != _WORLD]
        order = [link for link in links if link not in parent_of]
        order += children.get(_WORLD, [])
        for link in order:
            order.extend(children.get(link, []))
        placed = set(order)
        missing = [link for link in links if link not in placed]
        if missing:
            joint = robot.joints[0]
            for joint in robot.joints:
                if joint.name == parent_of[missing[0]]:
                    break
            self.fail(joint.element, f"links {', '.join(missing)} form a cycle of joints (a URDF "
                                     "is a tree)")
        return order

    def _joint_specs(self, robot: _Robot, joint_by_name) -> list[JointSpec]:
        """Every joint's spec; the axes of moving joints normalised in one pass."""
        joints = robot.joints
        axes = np.array([j.axis if len(j.axis) == 3 else (1.0, 0.0, 0.0) for j in joints],
                        dtype=float).reshape(-1, 3)
        moving = np.array([j.type != "fixed" for j in joints], dtype=bool)
        # Scaled first: the norm of (1e308, 0, 0) overflows to infinity.
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = axes / np.max(np.abs(axes), axis=1, keepdims=True)
            unit = scaled / np.linalg.norm(scaled, axis=1, keepdims=True)
        axes[moving] = unit[moving]
        specs = []
        for k, joint in enumerate(joints):
            X_PJ = np.eye(4) if joint.origin < 0 else robot.X_origin[joint.origin].copy()
            lower, upper = -math.inf, math.inf
            if joint.type in ("revolute", "prismatic") and joint.name not in self.unlimited:
                if joint.lower is not None:
                    lower = joint.lower
                if joint.upper is not None:
                    upper = joint.upper
            mimic = joint.mimic
            if mimic is not None:
                leader = joint_by_name.get(mimic[0])
                if leader is None or leader.type == "fixed":
                    self.fail(joint.element.find("mimic"),
                              f"joint {quote(joint.name)}: mimics {quote(mimic[0])}, which is "
                              "not a moving joint of the robot")
            specs.append(JointSpec(joint.name, joint.type, joint.parent, joint.child, X_PJ,
                                   axes[k].copy(), lower, upper, mimic))
        return specs

    def _link_geometry(self, scene: LoadedScene, source_id, link: _Link, X_origin,
                       on_frames: tuple[list, list]) -> None:
        """Register a link's geometry: anchored now, on a frame later in one call."""
        sg = scene.scene_graph
        anchored = link.name == _WORLD
        frame_id = None if anchored else scene.frames[link.name]
        kinds = [("collision", link.collisions)]
        if self.visuals:
            kinds.append(("visual", link.visuals))
        for kind, items in kinds:
            for k, item in enumerate(items):
                what = _What("link", link.name, f"{kind} #", k + 1)
                name = item.name or (kind if k == 0 else f"{kind}_{k}")
                shape = self._shape(item, what, kind)
                if shape is None:
                    continue
                # An origin's pose comes from checked finite numbers through the
                # rotation formula: a rigid transform by construction, not re-checked
                # (the scene graph copies it at registration).
                X_FG = RigidTransform._from_trusted_matrix4(
                    _IDENTITY4 if item.origin < 0 else X_origin[item.origin])
                if kind == "collision" and name.strip() == name and name:
                    instance = GeometryInstance._of_trusted(X_FG, shape, name,
                                                            ProximityProperties())
                elif kind == "collision":
                    instance = GeometryInstance(X_FG, shape, name)
                    instance.set_proximity_properties(ProximityProperties())
                else:
                    instance = GeometryInstance(X_FG, shape, name)
                    illustration, perception = IllustrationProperties(), PerceptionProperties()
                    rgba = self._color(item.element, what)
                    if rgba is not None:
                        illustration.add_property("phong", "diffuse", rgba)
                        perception.add_property("phong", "diffuse", rgba)
                    instance.set_illustration_properties(illustration)
                    instance.set_perception_properties(perception)
                key = f"{link.name}::{name}"
                if key in self._taken:
                    key = f"{key}::{kind}"
                self._taken.add(key)
                anchored_id = None
                if anchored:
                    try:
                        anchored_id = sg.register_anchored_geometry(source_id, instance)
                    except ValueError as err:
                        self.fail(item.element, f"{what}: {err}")
                else:
                    on_frames[0].append(frame_id)
                    on_frames[1].append(instance)
                self._keys.append((key, anchored_id, item.element, what))

    def _color(self, element, what: object) -> Rgba | None:
        """The visual's colour: inline, by name at robot level, or by name defined earlier.

        urdfdom remembers a named material defined inside a visual and lets
        later visuals use it by name; so do we, with a warning.
        """
        material = element.find("material")
        if material is None:
            return None
        name = material.get("name")
        color = material.find("color")
        if color is not None:
            if name and name not in self._top_materials:
                self._inline_materials.setdefault(name, material)
        elif name:
            defined = self._top_materials.get(name)
            if defined is None:
                defined = self._inline_materials.get(name)
                if defined is None:
                    # Drake's parser and RViz draw it uncoloured; only the look is lost.
                    self.warn(material, f"{what}: material {quote(name)} is not defined in the "
                                        "robot; the visual gets no colour")
                    return None
                self.warn(material, f"{what}: material {quote(name)} is defined inside a visual "
                                    f"(line {self._line(defined)}), not at robot level; used "
                                    "by name here as urdfdom does")
            color = defined.find("color")
        if color is None:
            return None
        return Rgba(*(float(v) for v in color.get("rgba").replace(",", " ").split()))

    def _shape(self, item: _Item, what: object, kind: str) -> Shape | None:
        shape = item.shape
        if shape[0] == "box":
            return Box(*shape[1])
        if shape[0] == "sphere":
            return Sphere(shape[1])
        if shape[0] == "cylinder":
            return Cylinder(shape[1], shape[2])
        mesh_element = item.element.find("geometry/mesh")
        filename = shape[1]
        problem = None
        try:
            resolved = resolve_mesh_path(filename, self.folder, self.package_roots,
                                         access=self.file_access)
        except (KeyError, ValueError) as err:
            problem = f"mesh {quote(filename)}: {err.args[0]}"
        else:
            if not resolved.is_file():
                problem = f"mesh file {quote(filename)} not found (looked for {resolved})"
            elif resolved.suffix.lower() not in MESH_SUFFIXES:
                problem = (f"mesh file {quote(filename)}: unsupported format "
                           f"{quote(resolved.suffix)}; readable formats are "
                           f"{', '.join(MESH_SUFFIXES)}")
        if problem is not None:
            if kind == "collision":
                self.fail(mesh_element, f"{what}: {problem}")
            # RViz and robot_state_publisher show the robot without that visual.
            self.warn(mesh_element, f"{what}: {problem}; this visual is skipped",
                      kind="visual_skipped")
            return None
        if not urlparse(filename).netloc and filename.startswith("package:"):
            self.warn(mesh_element, f"{what}: {quote(filename)} names no package; found "
                                    f"{resolved} by searching beside the URDF")
        scale = np.ones(3) if shape[2] is None else shape[2]
        scale = np.broadcast_to(np.asarray(scale, float), (3,))
        if np.prod(scale) < 0.0:
            part = "hull is" if kind == "collision" else "faces are"
            self.warn(mesh_element, f"{what}: mesh scale {quote(mesh_element.get('scale'))} "
                                    f"mirrors the mesh; its {part} mirrored and rewound to face "
                                    "outward")
        if kind != "collision":
            # Visual meshes are drawn by the viewer from their file; reading them here
            # would cost most of a robot's load time for nothing the scene computes.
            return Mesh(str(resolved), scale)
        try:
            check_mesh_file_size("Convex", str(resolved), self.limits.max_mesh_file_bytes)
            shape = Convex(str(resolved), scale)
            shape.local_aabb()  # hull it now, so a bad file is reported with its element
        except ValueError as err:
            self.fail(mesh_element, f"{what}: {err}")
        return shape

    def _filter_adjacent(self, scene: LoadedScene, robot: _Robot) -> None:
        """Filter joined links, except to the world, and groups welded by fixed joints."""
        group_of: dict[str, str] = {}  # links joined by fixed joints only: most are alone

        def find(link: str) -> str:
            while group_of.setdefault(link, link) != link:
                group_of[link] = link = group_of[group_of[link]]  # path halving
            return link

        # One declaration, applied at once: a statement per joint costs its own pairs.
        declaration = CollisionFilterDeclaration()
        sets: dict[str, GeometrySet] = {}  # a link is the parent of its children's joints
        frames = scene.frames
        has_world = any(link.name == _WORLD for link in robot.links)
        for joint in robot.joints:
            parent, child = joint.parent, joint.child
            if parent != _WORLD:
                set_parent = sets.get(parent)
                if set_parent is None:
                    set_parent = sets[parent] = GeometrySet(frames[parent])
                set_child = sets.get(child)
                if set_child is None:
                    set_child = sets[child] = GeometrySet(frames[child])
                declaration.exclude_between(set_parent, set_child)
            if joint.type == "fixed" and (parent in frames or (parent == _WORLD and has_world)):
                group_of[find(child)] = find(parent)
        groups: dict[str, list] = {}
        for link in group_of:
            groups.setdefault(find(link), []).append(link)
        if has_world and _WORLD not in groups:
            groups[_WORLD] = [_WORLD]
        for root, members in groups.items():
            ids = [frames[m] for m in members if m != _WORLD]
            if root == _WORLD:
                ids += [scene.geometries[key] for key in scene.geometries
                        if key.startswith(f"{_WORLD}::")]
            if len(ids) > 1:
                declaration.exclude_within(GeometrySet(ids))
        scene.scene_graph.collision_filter_manager().apply(declaration)
