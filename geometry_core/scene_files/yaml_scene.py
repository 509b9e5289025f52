"""YAML scene files: sources, frames, geometries with roles, filters and named poses.

The format, by example (every key is listed in the module constants below;
any other key is an error that lists the allowed ones)::

    description: two links over a table      # optional, free text
    sources:
      robot:                                  # source name
        frames:                               # parents before children
          - name: base
            pose: {xyz: [0, 0, 0.1]}          # pose in the parent (default identity)
            group: 1                          # frame group (Drake's model instance)
          - name: link1
            parent: base                      # default: world
            pose: {xyz: [0, 0, 0.2], rpy: {deg: [0, 0, 90]}}
        geometries:
          - name: link1_box
            frame: link1                      # or `world`: anchored
            shape: {type: box, size: [0.1, 0.2, 0.3]}
            pose: {xyz: [0, 0, 0.15], wxyz: [1, 0, 0, 0]}
            roles:                            # default: [proximity, illustration]
              proximity: {}
              illustration: {rgba: [0.8, 0.2, 0.2, 1]}
          - name: tool
            relative_to: link1_box            # posed in link1_box's frame, fixed to link1
            shape: {type: mesh, file: meshes/tool.obj, scale: 0.5}
      world_stuff:
        geometries:
          - {name: floor, frame: world, shape: {type: halfspace}, roles: [proximity]}
    filters:                                  # applied in order
      - exclude_within: [base, link1]         # frame or geometry names
      - exclude_between: [[link1], [floor]]
    poses:                                    # named configurations
      home:
        link1: {xyz: [0, 0, 0.2], rpy: [0, 0, 0]}

Shapes: ``box`` (``size``: 3 full side lengths), ``sphere`` (``radius``),
``cylinder`` and ``capsule`` (``radius``, ``length``), ``ellipsoid`` (``a``,
``b``, ``c``), ``halfspace`` (no size: the half space z <= 0 of its pose),
``mesh`` and ``convex`` (``file`` relative to the YAML file, ``scale``: a
number or three). Poses: ``xyz`` (metres) and at most one of ``rpy``
(radians, or ``{deg: [...]}``) and ``wxyz`` (a quaternion, w first).
Lengths are metres; colours ``rgba`` in [0, 1] (alpha may be omitted).

Names of frames and geometries share one namespace per file, so a filter or a
``relative_to`` can name either without ambiguity; ``world`` is reserved.

Every error names the file and the line of the offending node, e.g.
``scene.yaml:12: box size must have 3 positive numbers, got [1, -2]``.

This module reads YAML with PyYAML's safe loader only, and never imports
fcl, lcm or ROS.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import NoReturn

import numpy as np
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from geometry_core.math import RigidTransform, RollPitchYaw
from geometry_core.scene import SceneGraph
from geometry_core.scene_files.errors import MAX_QUOTED_LENGTH, SceneFileError, quote, quote_names
from geometry_core.scene_files.limits import DEFAULT_LIMITS, LoadLimits, read_limited
from geometry_core.scene_files.loaded_scene import LoadedScene
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
    SourceId,
)
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)

__all__ = ["load_scene", "load_scene_text", "SHAPE_KEYS"]

TOP_KEYS = ("description", "sources", "filters", "poses")
SOURCE_KEYS = ("frames", "geometries")
FRAME_KEYS = ("name", "parent", "pose", "group")
GEOMETRY_KEYS = ("name", "frame", "relative_to", "shape", "pose", "roles")
POSE_KEYS = ("xyz", "rpy", "wxyz")
ROLE_KEYS = {"proximity": (), "illustration": ("rgba",), "perception": ("rgba",)}
FILTER_KEYS = ("exclude_within", "exclude_between", "allow_within", "allow_between")
#: Allowed keys of each shape type (besides ``type``).
SHAPE_KEYS = {
    "box": ("size",),
    "sphere": ("radius",),
    "cylinder": ("radius", "length"),
    "capsule": ("radius", "length"),
    "ellipsoid": ("a", "b", "c"),
    "halfspace": (),
    "mesh": ("file", "scale"),
    "convex": ("file", "scale"),
}
_WORLD = "world"


def load_scene(path: str | os.PathLike, *, limits: LoadLimits | None = None) -> LoadedScene:
    """Read a YAML scene file and build its scene graph.

    Parameters
    ----------
    path : str or os.PathLike
        The YAML file; mesh paths in it are relative to its folder.
    limits : LoadLimits, optional
        Bounds on the file's size, its frames, geometries and names; the
        library's defaults when None.

    Returns
    -------
    LoadedScene
        The scene graph (every frame posed: its ``pose`` or identity), the
        source ids, frame and geometry ids by name, and the named poses.

    Raises
    ------
    SceneFileError
        (a ValueError) If the file cannot be read, is not valid YAML (PyYAML's
        own errors, a ``!!python/...`` tag, nesting deeper than Python's
        recursion limit), breaks the format or is over ``limits``; the
        message starts with ``path:line:``.
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    data = read_limited(path, limits.max_file_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SceneFileError(path, None, f"cannot read the file: {err}") from None
    return load_scene_text(text, path, limits=limits)


def load_scene_text(text: str, path: str | os.PathLike = "<string>", *,
                    limits: LoadLimits | None = None) -> LoadedScene:
    """Build a scene from YAML text; ``path`` names it in errors and anchors mesh paths.

    Raises
    ------
    SceneFileError
        As :func:`load_scene`.
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    if len(text) > limits.max_file_bytes:
        raise SceneFileError(path, None, f"the text is {len(text)} characters, over the limit "
                                         f"of {limits.max_file_bytes}")
    return _Builder(_Reader(text, path), limits).build()


class _Full(Exception):
    pass


def _show(value, limit: int = MAX_QUOTED_LENGTH) -> str:
    """A value as the user wrote it (YAML flow style), for messages: at most ~``limit`` chars.

    Rendered piece by piece and cut once past ``limit``: a value built of
    aliases can stand for a hundred megabytes that must never be written out.
    """
    if isinstance(value, str):
        return quote(value, limit)
    parts: list[str] = []
    size = 0

    def put(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)
        if size > limit:
            raise _Full

    def walk(item, depth: int) -> None:
        if depth > 20:
            put("...")
        elif isinstance(item, str):
            put(quote(item, limit))
        elif isinstance(item, list):
            put("[")
            for k, element in enumerate(item):
                if k:
                    put(", ")
                walk(element, depth + 1)
            put("]")
        elif isinstance(item, dict):
            put("{")
            for k, (key, element) in enumerate(item.items()):
                if k:
                    put(", ")
                walk(key, depth + 1)
                put(": ")
                walk(element, depth + 1)
            put("}")
        else:
            put(yaml.safe_dump(item, default_flow_style=True).strip().removesuffix(
                "\n...").removesuffix(" ..."))

    try:
        walk(value, 0)
    except _Full:
        return "".join(parts)[:limit] + "... (cut)"
    return "".join(parts)


class _Reader:
    """Typed access to a composed YAML document, failing with file and line."""

    def __init__(self, text: str, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        self.folder = Path(self.path).parent
        self._loader = yaml.SafeLoader(text)
        try:
            root = self._loader.get_single_node()
        except RecursionError:
            raise SceneFileError(self.path, None, "YAML error: the document nests too deeply "
                                                  "to be read") from None
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            line = None if mark is None else mark.line + 1
            problem = err.problem or err.context or "invalid YAML"
            if err.context and err.context_mark is not None and err.problem:
                problem += f" ({err.context} started on line {err.context_mark.line + 1})"
            raise SceneFileError(self.path, line, f"YAML syntax error: {problem}") from None
        except yaml.YAMLError as err:
            raise SceneFileError(self.path, None, f"YAML error: {err}") from None
        if root is None:
            raise SceneFileError(self.path, 1, "the file is empty; a scene needs 'sources'")
        self.root = root

    def fail(self, node: Node, message: str) -> NoReturn:
        raise SceneFileError(self.path, node.start_mark.line + 1, message)

    def value(self, node: Node):
        """The plain Python value of a node (scalars, lists, dicts).

        PyYAML's safe constructor refuses ``!!python/...`` and unknown tags
        (no code runs); that refusal, and nesting too deep to construct, are
        reported as SceneFileError with the node's line.
        """
        try:
            return self._loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or node.start_mark
            problem = err.problem or "cannot be read"
            if len(problem) > 200:
                problem = f"{problem[:200]}... (cut)"
            raise SceneFileError(self.path, mark.line + 1, f"YAML error: {problem}") from None
        except RecursionError:
            self.fail(node, "YAML error: the value nests too deeply to be read")

    def mapping(self, node: Node, what: str, allowed, required=()) -> dict[str, Node]:
        """Keys to value nodes; unknown, duplicate or missing keys fail."""
        if not isinstance(node, MappingNode):
            self.fail(node, f"{what} must be a mapping, got {_show(self.value(node))}")
        explicit = sum(1 for key_node, _ in node.value if key_node.tag != "tag:yaml.org,2002:merge")
        self._loader.flatten_mapping(node)
        merged = len(node.value) - explicit  # merged (<<) pairs come first; explicit keys win
        found: dict[str, Node] = {}
        lines: dict[str, int] = {}
        for n, (key_node, value_node) in enumerate(node.value):
            key = self.value(key_node)
            if not isinstance(key, str):
                self.fail(key_node, f"keys of {what} must be strings, got {_show(key)}")
            if key in found and n >= merged and lines[key] > 0:
                self.fail(key_node, f"duplicate key {quote(key)} in {what} (first on line "
                                    f"{lines[key]})")
            if allowed is not None and key not in allowed:
                allowed_text = ", ".join(allowed) if allowed else "(none)"
                self.fail(key_node, f"unknown key {quote(key)} in {what}; allowed keys: "
                                    f"{allowed_text}")
            found[key] = value_node
            lines[key] = key_node.start_mark.line + 1 if n >= merged else 0
        for key in required:
            if key not in found:
                self.fail(node, f"{what} needs the key {key!r}")
        return found

    def sequence(self, node: Node, what: str) -> list[Node]:
        if not isinstance(node, SequenceNode):
            self.fail(node, f"{what} must be a list, got {_show(self.value(node))}")
        return list(node.value)

    def string(self, node: Node, what: str) -> str:
        value = self.value(node) if isinstance(node, ScalarNode) else None
        if not isinstance(value, str) or not value.strip():
            shown = _show(self.value(node))
            self.fail(node, f"{what} must be a non-empty string, got {shown}")
        return value.strip()

    def number(self, node: Node, what: str) -> float:
        value = self.value(node) if isinstance(node, ScalarNode) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            self.fail(node, f"{what} must be a finite number, got {_show(self.value(node))}")
        return float(value)

    def numbers(self, node: Node, what: str, count: int | tuple[int, ...]) -> np.ndarray:
        counts = (count,) if isinstance(count, int) else count
        value = self.value(node)
        ok = (isinstance(value, list) and len(value) in counts
              and all(not isinstance(v, bool) and isinstance(v, (int, float))
                      and math.isfinite(v) for v in value))
        if not ok:
            wanted = " or ".join(str(c) for c in counts)
            self.fail(node, f"{what} must have {wanted} finite numbers, got {_show(value)}")
        return np.array(value, dtype=float)

    def positive(self, node: Node, what: str) -> float:
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value <= 0:
            self.fail(node, f"{what} must be a positive number, got {_show(value)}")
        return float(value)


class _Builder:
    """Reads the document top-down and registers as it goes."""

    def __init__(self, reader: _Reader, limits: LoadLimits = DEFAULT_LIMITS) -> None:
        self.r = reader
        self.limits = limits
        self.sg = SceneGraph()
        self.scene = LoadedScene(self.sg, Path(reader.path))
        self.lines: dict[str, int] = {}  # name -> line of its declaration
        self.owner: dict[str, SourceId] = {}  # frame or geometry name -> source

    def build(self) -> LoadedScene:
        top = self.r.mapping(self.r.root, "the scene", TOP_KEYS, required=("sources",))
        if "description" in top:
            self.r.string(top["description"], "description")
        sources = self.r.mapping(top["sources"], "sources", None)
        if not sources:
            self.r.fail(top["sources"], "sources must name at least one source")
        for name, node in sources.items():
            self._source(name, node)
        if "filters" in top:
            self._filters(top["filters"])
        if "poses" in top:
            self._poses(top["poses"])
        return self.scene

    # ----------------------------------------------------------------- sources

    def _source(self, name: str, node: Node) -> None:
        spec = self.r.mapping(node, f"source {quote(name)}", SOURCE_KEYS)
        source_id = self.sg.register_source(name)
        self.scene.source_ids[name] = source_id
        initial: dict[FrameId, RigidTransform] = {}
        for frame_node in self.r.sequence(spec["frames"], f"frames of source {quote(name)}") \
                if "frames" in spec else ():
            frame_id, X_PF = self._frame(source_id, name, frame_node)
            initial[frame_id] = X_PF
        if initial:
            self.sg.set_poses(source_id, initial)
        for geometry_node in self.r.sequence(spec["geometries"],
                                             f"geometries of source {quote(name)}") \
                if "geometries" in spec else ():
            self._geometry(source_id, name, geometry_node)

    def _claim(self, node: Node, name: str, source_id: SourceId) -> None:
        if len(name) > self.limits.max_name_length:
            self.r.fail(node, f"the name {quote(name)} is over the limit of "
                              f"{self.limits.max_name_length} characters")
        if len(self.lines) >= self.limits.max_geometries:
            self.r.fail(node, f"more than {self.limits.max_geometries} frames and geometries, "
                              "over the limit (LoadLimits.max_geometries)")
        if name == _WORLD:
            self.r.fail(node, "the name 'world' is reserved for the world frame")
        if name in self.lines:
            self.r.fail(node, f"the name {quote(name)} is already used on line {self.lines[name]}; "
                              "frame and geometry names must be unique in the file")
        self.lines[name] = node.start_mark.line + 1
        self.owner[name] = source_id

    def _frame(self, source_id: SourceId, source: str,
               node: Node) -> tuple[FrameId, RigidTransform]:
        spec = self.r.mapping(node, f"a frame of source {quote(source)}", FRAME_KEYS,
                              required=("name",))
        name = self.r.string(spec["name"], "frame name")
        what = f"frame {quote(name)}"
        self._claim(spec["name"], name, source_id)
        parent_id = None
        if "parent" in spec:
            parent = self.r.string(spec["parent"], f"parent of {what}")
            if parent != _WORLD:
                parent_id = self._own_frame(spec["parent"], parent, source_id, what)
        group = 0
        if "group" in spec:
            group = self.r.value(spec["group"])
            if isinstance(group, bool) or not isinstance(group, int) or group < 0:
                self.r.fail(spec["group"], f"group of {what} must be a non-negative integer, "
                                           f"got {_show(group)}")
        X_PF = self._pose(spec["pose"], what) if "pose" in spec else RigidTransform()
        frame_id = self.sg.register_frame(source_id, GeometryFrame(name, group), parent_id)
        self.scene.frames[name] = frame_id
        return frame_id, X_PF

    def _own_frame(self, node: Node, name: str, source_id: SourceId, what: str) -> FrameId:
        if name not in self.scene.frames:
            later = " (frames must be declared after their parent)" if name in \
                self._all_frame_names() else ""
            self.r.fail(node, f"{what} names unknown frame {quote(name)}{later}; frames so far: "
                              f"{quote_names(self.scene.frames)}")
        if self.owner[name] != source_id:
            self.r.fail(node, f"{what} names frame {quote(name)} of another source; a source's "
                              "frames and geometries hang only off its own frames")
        return self.scene.frames[name]

    def _all_frame_names(self) -> set[str]:
        names = set()
        for source in self.r.mapping(self.r.mapping(self.r.root, "the scene", None)["sources"],
                                     "sources", None).values():
            frames = self.r.mapping(source, "source", None).get("frames")
            if isinstance(frames, SequenceNode):
                for item in frames.value:
                    if isinstance(item, MappingNode):
                        for key, value in item.value:
                            if self.r.value(key) == "name":
                                names.add(self.r.value(value))
        return names

    # -------------------------------------------------------------- geometries

    def _geometry(self, source_id: SourceId, source: str, node: Node) -> None:
        spec = self.r.mapping(node, f"a geometry of source {quote(source)}", GEOMETRY_KEYS,
                              required=("name", "shape"))
        name = self.r.string(spec["name"], "geometry name")
        what = f"geometry {quote(name)}"
        if ("frame" in spec) == ("relative_to" in spec):
            self.r.fail(node, f"{what} needs exactly one of 'frame' (a frame name, or world for "
                              "anchored geometry) and 'relative_to' (a geometry name)")
        self._claim(spec["name"], name, source_id)
        shape = self._shape(spec["shape"], what)
        X_PG = self._pose(spec["pose"], what) if "pose" in spec else RigidTransform()
        instance = GeometryInstance(X_PG, shape, name)
        roles = self._roles(spec.get("roles"), what)
        for props in roles:
            if isinstance(props, ProximityProperties):
                instance.set_proximity_properties(props)
            elif isinstance(props, IllustrationProperties):
                instance.set_illustration_properties(props)
            else:
                instance.set_perception_properties(props)
        try:
            if "relative_to" in spec:
                parent = self.r.string(spec["relative_to"], f"relative_to of {what}")
                if parent not in self.scene.geometries:
                    self.r.fail(spec["relative_to"],
                                f"{what} is relative_to unknown geometry {quote(parent)}; "
                                f"geometries so far: {quote_names(self.scene.geometries)}")
                if self.owner[parent] != source_id:
                    self.r.fail(spec["relative_to"], f"{what} is relative_to geometry "
                                                     f"{quote(parent)} of another source")
                geometry_id = self.sg.register_geometry(source_id, self.scene.geometries[parent],
                                                        instance)
            else:
                frame = self.r.string(spec["frame"], f"frame of {what}")
                if frame == _WORLD:
                    geometry_id = self.sg.register_anchored_geometry(source_id, instance)
                else:
                    frame_id = self._own_frame(spec["frame"], frame, source_id, what)
                    geometry_id = self.sg.register_geometry(source_id, frame_id, instance)
        except (ValueError, KeyError) as err:
            if isinstance(err, SceneFileError):
                raise
            self.r.fail(node, f"{what}: {err}")
        self.scene.geometries[name] = geometry_id

    def _shape(self, node: Node, what: str) -> Shape:
        spec = self.r.mapping(node, f"shape of {what}", None, required=("type",))
        kind = self.r.string(spec["type"], f"shape type of {what}").lower()
        if kind not in SHAPE_KEYS:
            self.r.fail(spec["type"], f"unknown shape type {quote(kind)} of {what}; shape types: "
                                      f"{', '.join(SHAPE_KEYS)}")
        allowed = ("type",) + SHAPE_KEYS[kind]
        spec = self.r.mapping(node, f"{kind} shape of {what}", allowed,
                              required=tuple(k for k in SHAPE_KEYS[kind] if k != "scale"))
        r = self.r
        if kind == "box":
            size = r.value(spec["size"])
            if not (isinstance(size, list) and len(size) == 3
                    and all(not isinstance(v, bool) and isinstance(v, (int, float))
                            and math.isfinite(v) and v > 0 for v in size)):
                r.fail(spec["size"], f"box size must have 3 positive numbers, got {_show(size)}")
            return Box(*size)
        if kind == "sphere":
            return Sphere(r.positive(spec["radius"], "sphere radius"))
        if kind in ("cylinder", "capsule"):
            cls = Cylinder if kind == "cylinder" else Capsule
            return cls(r.positive(spec["radius"], f"{kind} radius"),
                       r.positive(spec["length"], f"{kind} length"))
        if kind == "ellipsoid":
            return Ellipsoid(*(r.positive(spec[k], f"ellipsoid {k}") for k in "abc"))
        if kind == "halfspace":
            return HalfSpace()
        return self._mesh(kind, spec, what)

    def _mesh(self, kind: str, spec: dict[str, Node], what: str) -> Shape:
        file = self.r.string(spec["file"], f"{kind} file of {what}")
        scale = 1.0
        if "scale" in spec:
            value = self.r.value(spec["scale"])
            if isinstance(value, list):
                scale = self.r.numbers(spec["scale"], f"{kind} scale", 3)
                bad = np.any(scale <= 0)
            else:
                scale = self.r.number(spec["scale"], f"{kind} scale")
                bad = scale <= 0
            if bad:
                self.r.fail(spec["scale"], f"{kind} scale must be positive, got {_show(value)}")
        resolved = Path(file) if Path(file).is_absolute() else self.r.folder / file
        if not resolved.is_file():
            self.r.fail(spec["file"], f"{kind} file {quote(file)} of {what} not found "
                                      f"(looked for {resolved})")
        try:
            shape = (Mesh if kind == "mesh" else Convex)(str(resolved), scale)
            shape.local_aabb()  # read the file now, so a bad one is reported with its line
        except ValueError as err:
            self.r.fail(spec["file"], f"{what}: {err}")
        return shape

    def _roles(self, node: Node | None, what: str) -> list:
        if node is None:
            return [ProximityProperties(), IllustrationProperties()]
        if isinstance(node, SequenceNode):
            entries = {}
            for item in node.value:
                role = self.r.string(item, f"a role of {what}")
                if role not in ROLE_KEYS:
                    self.r.fail(item, f"unknown role {quote(role)} of {what}; roles: "
                                      f"{', '.join(ROLE_KEYS)}")
                if role in entries:
                    self.r.fail(item, f"role {quote(role)} of {what} is listed twice")
                entries[role] = None
        else:
            entries = self.r.mapping(node, f"roles of {what}", tuple(ROLE_KEYS))
        result = []
        for role, value in entries.items():
            props = {"proximity": ProximityProperties, "illustration": IllustrationProperties,
                     "perception": PerceptionProperties}[role]()
            if value is not None and not (isinstance(value, ScalarNode)
                                          and self.r.value(value) is None):
                spec = self.r.mapping(value, f"{role} role of {what}", ROLE_KEYS[role])
                if "rgba" in spec:
                    rgba = self.r.numbers(spec["rgba"], f"rgba of {what}", (3, 4))
                    if np.any((rgba < 0) | (rgba > 1)):
                        self.r.fail(spec["rgba"], f"rgba of {what} must be in [0, 1], got "
                                                  f"{_show(self.r.value(spec['rgba']))}")
                    props.add_property("phong", "diffuse", Rgba(*rgba))
            result.append(props)
        return result

    # ------------------------------------------------------------------- poses

    def _pose(self, node: Node, what: str) -> RigidTransform:
        spec = self.r.mapping(node, f"pose of {what}", POSE_KEYS)
        p = self.r.numbers(spec["xyz"], f"xyz of {what}", 3) if "xyz" in spec else np.zeros(3)
        if "rpy" in spec and "wxyz" in spec:
            self.r.fail(node, f"pose of {what} has both rpy and wxyz; give one rotation")
        if "rpy" in spec:
            rpy_node = spec["rpy"]
            if isinstance(rpy_node, MappingNode):
                degrees = self.r.mapping(rpy_node, f"rpy of {what}", ("deg",),
                                         required=("deg",))["deg"]
                angles = np.radians(self.r.numbers(degrees, f"rpy deg of {what}", 3))
            else:
                angles = self.r.numbers(rpy_node, f"rpy of {what} (radians; or {{deg: [...]}})",
                                        3)
            return RigidTransform(RollPitchYaw(angles), p)
        if "wxyz" in spec:
            q = self.r.numbers(spec["wxyz"], f"wxyz quaternion of {what}", 4)
            if not np.any(q):
                self.r.fail(spec["wxyz"], f"wxyz quaternion of {what} is zero")
            return RigidTransform(quaternion=q, p=p)
        return RigidTransform(p)

    # ----------------------------------------------------------------- filters

    def _resolve(self, node: Node, what: str) -> GeometrySet:
        names = [self.r.string(item, f"a name in {what}")
                 for item in self.r.sequence(node, what)]
        ids: list[FrameId | GeometryId] = []
        for item, name in zip(node.value, names):
            if name in self.scene.geometries:
                ids.append(self.scene.geometries[name])
            elif name in self.scene.frames:
                ids.append(self.scene.frames[name])
            else:
                self.r.fail(item, f"{what} names unknown frame or geometry {quote(name)}")
        return GeometrySet(ids)

    def _filters(self, node: Node) -> None:
        declaration = CollisionFilterDeclaration()
        for item in self.r.sequence(node, "filters"):
            spec = self.r.mapping(item, "a filter", FILTER_KEYS)
            if len(spec) != 1:
                self.r.fail(item, "each filter has exactly one of "
                                  f"{', '.join(FILTER_KEYS)}; got {', '.join(spec) or 'none'}")
            (kind, value), = spec.items()
            if kind.endswith("_within"):
                getattr(declaration, kind)(self._resolve(value, kind))
            else:
                pair = self.r.sequence(value, kind)
                if len(pair) != 2:
                    self.r.fail(value, f"{kind} needs two lists of names, [[a, ...], [b, ...]], "
                                       f"got {_show(self.r.value(value))}")
                getattr(declaration, kind)(self._resolve(pair[0], kind),
                                           self._resolve(pair[1], kind))
        self.sg.collision_filter_manager().apply(declaration)

    def _poses(self, node: Node) -> None:
        for pose_name, pose_node in self.r.mapping(node, "poses", None).items():
            frames = self.r.mapping(pose_node, f"pose {quote(pose_name)}", None)
            named: dict = {}
            for frame, frame_node in frames.items():
                if frame not in self.scene.frames:
                    key_line = next(k for k, v in pose_node.value if v is frame_node)
                    self.r.fail(key_line, f"pose {quote(pose_name)} names unknown frame "
                                          f"{quote(frame)}; frames: "
                                          f"{quote_names(self.scene.frames)}")
                X_PF = self._pose(frame_node, f"frame {quote(frame)} in pose {quote(pose_name)}")
                named.setdefault(self.owner[frame], {})[self.scene.frames[frame]] = X_PF
            self.scene.named_poses[pose_name] = named
