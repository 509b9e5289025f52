"""The inputs both geometry nodes share: a scene, and frame poses from /tf and pose topics.

:class:`SceneInputs` declares the shared parameters, loads the scene
(``scene_file``, ``robot_description`` parameter or topic), subscribes to
``/tf``, ``/tf_static`` and the PoseStamped ``pose_topics``, and on
:meth:`SceneInputs.apply` sets the scene graph's frame poses from what it
heard. Callbacks only check and store (the seven numbers of each
transform as received, the newest per frame: no per-transform objects on
the way in, see :mod:`geometry_core_nodes.tf_arrays`); converting
quaternions, composing transforms and setting poses happen in :meth:`apply`,
all frames at once, which the node calls before a query. Messages whose
poses a newer message replaced before any :meth:`apply` read them are
counted (:attr:`SceneInputs.coalesced`): every input is either used by a
query or counted.

Matching (DESIGN.md section 5): a transform whose ``child_frame_id`` names a
scene frame gives that frame's pose when its ``header.frame_id`` is the
frame's scene parent (``world_frame`` for a frame on the world), or when the
chain of /tf parents through frames the scene does not have reaches that
parent. A transform that names another scene frame (or the world) as parent
is refused as a wrong parent. Frames without a usable pose (none yet, or
their /tf chain no longer reaches the scene parent: a cycle, a parent gone)
are reported once, left out of the results (:meth:`PoseState.keep`) and
listed in the results' ``lost_frames``.

Bad input (NaN, zero quaternion, empty or over-long frame names, a stamp
with nanosec beyond 10^9, unknown frame on a pose topic, wrong parent,
transforms beyond ``MAX_TRANSFORMS_PER_MESSAGE`` in one message) is dropped,
counted in :attr:`SceneInputs.counters` and logged: the first time per kind,
then at most once per ``LOG_PERIOD_S`` per kind, whatever the frame names
(:mod:`geometry_core_nodes.limits`).

This module uses the library's public API and the transport interface; it
never imports cyclonedds, rclpy, fcl or lcm.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from geometry_core.scene import SceneGraph
from geometry_core.scene_graph import FrameId, GeometryId, Role, SourceId
from geometry_core_nodes import limits
from geometry_core_nodes.inbound import (
    PoseError,
    Transform,
    all_pose_rows_valid,
    pose_stamped_to_transform,
    short_name,
    tf_arrays_to_transforms,
)
from geometry_core_nodes.limits import LOG_PERIOD_S, MAX_TRANSFORMS_PER_MESSAGE
from geometry_core_nodes.outbound import GeometryNames
from geometry_core_nodes.tf_arrays import TF_CODEC, TfArrays, tf_arrays_from_message
from geometry_core_nodes.tf_buffer import LIBRARY_ORDER, PoseLookup, TfBuffer
from geometry_core_nodes.transport import (
    LATCHED,
    SENSOR_DATA,
    TF,
    TF_STATIC_LISTENER,
    ParameterError,
    TransportNode,
    at_least,
)

__all__ = ["BUILTIN_DEMO", "InputParameters", "LogBudget", "PoseState", "SceneInputs",
           "load_robot_description", "load_scene_graph", "node_load_limits"]

#: ``scene_file`` value that loads the built-in demo arm (geometry_core.demo).
BUILTIN_DEMO = "builtin:demo"

_NS_PER_S = 1_000_000_000
#: Message layouts remembered at once (see ``SceneInputs._store_known``).
_MAX_LAYOUTS = 16


@dataclass(frozen=True)
class InputParameters:
    """The shared parameters, as declared (see :meth:`SceneInputs.declare`)."""

    scene_file: str
    robot_description: str
    package_roots: dict[str, str]
    world_frame: str
    stale_after_s: float
    pose_topics: list[str]
    allowed_file_roots: tuple[str, ...] = ()


@dataclass(frozen=True)
class PoseState:
    """What :meth:`SceneInputs.apply` set: which frames are usable, how fresh.

    Attributes
    ----------
    stamp_ns : int
        Newest stamp of the poses in use (the results' header stamp).
    stale_frames : list of str
        Usable frames whose pose is older than ``stale_after_s`` relative
        to ``stamp_ns`` (sorted).
    missing_frames : list of str
        Scene frames without a usable pose (no pose yet, a /tf chain that
        no longer reaches the scene parent, or a parent without a usable
        pose): published as ``lost_frames``; their geometry is in no result.
    usable_geometries : frozenset of GeometryId or None
        Proximity geometries whose frame is usable; None when all are.
    """

    stamp_ns: int
    stale_frames: list[str]
    missing_frames: list[str]
    usable_geometries: frozenset[GeometryId] | None = None

    def keep(self, pairs: Sequence[Any]) -> list[Any]:
        """Results among usable geometries only (``id_A`` and ``id_B`` both usable).

        A pair result depends on the poses of its two geometries alone, so
        filtering a full query this way gives exactly the answer among the
        posed frames; geometry on unposed frames still sits at the scene
        file's default pose in the scene graph, but no result mentions it.
        """
        usable = self.usable_geometries
        if usable is None:
            return list(pairs)
        return [p for p in pairs if p.id_A in usable and p.id_B in usable]


@dataclass
class _SceneFrame:
    id: FrameId
    name: str
    source_id: SourceId
    parent_name: str
    parent_index: int | None  # index in the frame table; None for a frame on the world


@dataclass(frozen=True)
class _Layout:
    """The buffer rows of a /tf message layout (parents, children), for one buffer structure."""

    structure: int
    rows: np.ndarray
    foreign: list[str]  # children outside the scene, moved to the end of the eviction order


@dataclass
class _Log:
    counters: Counter = field(default_factory=Counter)
    reported: set = field(default_factory=set)  # scene frames reported without a pose
    logged_at: dict = field(default_factory=dict)  # kind -> monotonic time of its last line


def node_load_limits():
    """The library's LoadLimits with the node's bounds (:mod:`geometry_core_nodes.limits`)."""
    from geometry_core.scene_files.limits import LoadLimits

    return LoadLimits(max_file_bytes=limits.MAX_DESCRIPTION_BYTES,
                      max_links=limits.MAX_ROBOT_LINKS, max_joints=limits.MAX_ROBOT_JOINTS,
                      max_geometries=limits.MAX_ROBOT_GEOMETRIES,
                      max_srdf_entries=limits.MAX_SRDF_ENTRIES,
                      max_name_length=limits.MAX_ROBOT_NAME_LENGTH,
                      max_mesh_file_bytes=limits.MAX_ROBOT_MESH_FILE_BYTES)


def load_robot_description(text: str, package_roots: dict[str, str],
                           access: Any = None) -> Any:
    """Load URDF text into a LoadedScene with the node's limits; warnings are not issued.

    The text is written to a temporary folder for the loader; ``access`` (a
    :class:`~geometry_core.scene_files.package_paths.FileAccess`) says which
    mesh files it may name. By default none is searched for upward from that
    folder. The loader's warnings are in the scene's ``warnings`` (the caller
    logs them, bounded): issuing them would print each distinct text.

    Raises
    ------
    ValueError
        For a description the loader refuses or one over the node's limits.
    """
    from geometry_core.scene_files import SceneFileWarning, load_urdf
    from geometry_core.scene_files.package_paths import FileAccess

    if len(text) > limits.MAX_DESCRIPTION_BYTES:
        raise ValueError(f"the URDF text is {len(text)} characters, over the limit of "
                         f"{limits.MAX_DESCRIPTION_BYTES}")
    access = FileAccess(search_up=False) if access is None else access
    with tempfile.TemporaryDirectory(prefix="robot_description_") as folder:
        path = os.path.join(folder, "robot_description.urdf")
        with open(path, "w", encoding="utf-8", errors="replace") as file:
            file.write(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SceneFileWarning)
            return load_urdf(path, package_roots=package_roots or None, file_access=access,
                             limits=node_load_limits())


def load_scene_graph(scene_file: str, robot_description: str,
                     package_roots: dict[str, str]) -> SceneGraph | None:
    """Build the scene graph from the parameters; None when neither is set.

    Parameters
    ----------
    scene_file : str
        A ``.yaml``/``.yml`` scene, a ``.urdf`` or ``.xacro`` robot, or
        ``builtin:demo``.
    robot_description : str
        URDF text (as robot_state_publisher's parameter); used when
        ``scene_file`` is empty. Mesh files must be ``package://`` URIs
        (resolved with ``package_roots``, ``ROS_PACKAGE_PATH`` and
        ``AMENT_PREFIX_PATH``, never searched for upward) or absolute paths.
    package_roots : dict of str to str
        ``{package: folder}`` for ``package://`` URIs.

    Raises
    ------
    ValueError
        For both parameters set, or a file the loaders refuse (their
        ``SceneFileError`` names the file and line).
    """
    from geometry_core.scene_files import load_any

    if scene_file and robot_description:
        raise ValueError("set scene_file or robot_description, not both")
    if scene_file == BUILTIN_DEMO:
        from geometry_core.demo import make_demo_scene

        return make_demo_scene().scene_graph
    if scene_file:
        return load_any(scene_file, package_roots=package_roots or None).scene_graph
    if robot_description:
        return load_robot_description(robot_description, package_roots).scene_graph
    return None


class LogBudget:
    """Bounded logging of many lines caused by one input (a description's warnings, say).

    :meth:`lines` logs at most ``MAX_LOG_LINES_PER_MESSAGE`` lines of one
    batch, then one line "and N more"; a batch of a kind within
    ``LOG_PERIOD_S`` of the last logged one of that kind is counted in
    ``counters["unlogged_lines"]``, not logged.
    """

    def __init__(self, log: Callable[[str], None], counters: Counter) -> None:
        self._log = log
        self._counters = counters
        self._logged_at: dict[str, float] = {}

    def lines(self, kind: str, texts: Sequence[str], prefix: str = "") -> None:
        """Log (a bounded part of) ``texts``; their number is always counted."""
        if not texts:
            return
        now = time.monotonic()
        last = self._logged_at.get(kind)
        if last is not None and now - last < LOG_PERIOD_S:
            self._counters["unlogged_lines"] += len(texts)
            return
        self._logged_at[kind] = now
        shown = texts[:limits.MAX_LOG_LINES_PER_MESSAGE]
        for text in shown:
            self._log(f"{prefix}{short_text(text)}")
        if len(texts) > len(shown):
            self._log(f"{prefix}and {len(texts) - len(shown)} more like these")
            self._counters["unlogged_lines"] += len(texts) - len(shown)


def short_text(text: str, limit: int = 400) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def _as_slice(indices: list[int]) -> list[int] | slice:
    """``indices`` as a slice when they are consecutive and ascending, else as they are."""
    if indices and indices == list(range(indices[0], indices[0] + len(indices))):
        return slice(indices[0], indices[0] + len(indices))
    return indices


def _newest_per_child(arrays: TfArrays) -> TfArrays | None:
    """The last transform of each child frame, in message order; None past the cap."""
    last: dict[str, int] = {}
    for n, child in enumerate(arrays.children):
        last[child] = n
        if len(last) > MAX_TRANSFORMS_PER_MESSAGE:
            return None
    keep = sorted(last.values())
    return TfArrays(parents=[arrays.parents[n] for n in keep],
                    children=[arrays.children[n] for n in keep],
                    sec=[arrays.sec[n] for n in keep],
                    nanosec=[arrays.nanosec[n] for n in keep],
                    values=[arrays.values[n] for n in keep])


def _reason(err: BaseException) -> str:
    """An exception as one line: its message, or its type when it has none."""
    text = str(err) if not isinstance(err, KeyError) or not err.args else str(err.args[0])
    return text or type(err).__name__


def _parse_package_roots(entries: Sequence[str]) -> dict[str, str]:
    roots = {}
    for entry in entries:
        name, sep, folder = entry.partition("=")
        if not sep or not name or not folder:
            raise ParameterError(f"parameter 'package_roots': expected 'package=/folder' "
                                 f"entries, got {entry!r}")
        roots[name] = folder
    return roots


class SceneInputs:
    """Scene and frame poses for a node (see the module docstring).

    Parameters
    ----------
    node : TransportNode
        The node to declare parameters and subscribe on.
    on_scene : callable, optional
        Called with no argument after a new scene was loaded (from the
        ``robot_description`` topic, say), so the node can rebuild what
        depends on it.

    Attributes
    ----------
    params : InputParameters
    scene_graph : SceneGraph or None
        None until a scene is loaded.
    buffer : TfBuffer
    counters : collections.Counter
        Dropped inputs by kind: ``bad_pose``, ``bad_stamp``, ``bad_name``,
        ``unknown_frame``,
        ``wrong_parent``, ``disconnected``, ``bad_scene``,
        ``too_many_transforms``, ``evicted_frame``.
    taken : collections.Counter
        Messages taken by input: ``tf``, ``tf_static``, ``pose``.
    coalesced : int
        Pose messages (/tf, pose topics) taken after the last :meth:`apply`
        and before the newest one: a query after a burst answers its
        newest message, the others are counted here.

    Raises
    ------
    ParameterError
        For malformed parameter values.
    ValueError
        If the scene cannot be loaded (the loaders' message).
    """

    def __init__(self, node: TransportNode, on_scene: Callable[[], None] | None = None) -> None:
        self._node = node
        self._logger = node.get_logger()
        self.params = self.declare(node, on_stale_after_s=self._set_stale_after_s)
        self._on_scene = on_scene
        self.buffer = TfBuffer()
        self._log = _Log()
        self.counters = self._log.counters
        self.taken: Counter = Counter()
        #: When the last /tf message was taken (``time.monotonic()``), on any thread.
        self.tf_taken_s = -math.inf
        self.coalesced = 0
        self._pending = 0  # pose messages taken since the last apply
        self.scene_graph: SceneGraph | None = None
        #: The URDF text of the scene when it came from the robot_description topic.
        self.robot_description_text = ""
        #: The loaded URDF robot (LoadedScene) when the scene is one, for the
        #: clearance checker: one load per robot.
        self.robot = None
        self.log_budget = LogBudget(self._logger.warn, self._log.counters)
        self.names: GeometryNames | None = None
        self._frames: list[_SceneFrame] = []
        self._frame_index: dict[str, int] = {}
        self._applied_version = -1
        self._state: PoseState | None = None
        self._lookup_pairs: tuple[tuple[str, str], ...] = ()
        # Per source: its frames' ids, their rows in the lookup, those rows to take.
        self._by_source: list[tuple[SourceId, tuple[FrameId, ...], list[int],
                                    list[int] | slice]] = []
        self._layouts: dict[tuple, _Layout] = {}

        if self.params.robot_description and not self.params.scene_file:
            robot = load_robot_description(self.params.robot_description,
                                           self.params.package_roots)
            self._log_warnings("robot_description", robot.warnings)
            self._index_scene(robot.scene_graph)
            self.robot = robot
        else:
            scene_graph = load_scene_graph(self.params.scene_file,
                                           self.params.robot_description,
                                           self.params.package_roots)
            if scene_graph is not None:
                self._index_scene(scene_graph)

        #: The /tf subscription (the node may have it delivered on the receive thread).
        self.tf_subscription = node.create_subscription(
            "tf2_msgs/msg/TFMessage", "/tf", self._on_tf, TF, codec=TF_CODEC)
        node.create_subscription("tf2_msgs/msg/TFMessage", "/tf_static", self._on_tf_static,
                                 TF_STATIC_LISTENER, codec=TF_CODEC)
        for topic in self.params.pose_topics:
            frame = topic.rstrip("/").rsplit("/", 1)[-1]
            node.create_subscription("geometry_msgs/msg/PoseStamped", topic,
                                     self._pose_callback(frame), SENSOR_DATA)
        if not self.params.scene_file:
            # robot_state_publisher latches the URDF: a late subscriber still gets it.
            node.create_subscription("std_msgs/msg/String", "robot_description",
                                     self._on_robot_description, LATCHED)
            if self.scene_graph is None:
                self._logger.info("no scene_file or robot_description parameter: waiting for "
                                  f"the {node.resolve_topic('robot_description')} topic")

    def report_dropped(self) -> None:
        """Log how many messages were taken, and how many inputs of each kind were dropped."""
        if self.taken:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(self.taken.items()))
            self._logger.info(f"messages taken: {counts}; coalesced (superseded before a "
                              f"query used them): {self.coalesced}")
        if self.counters:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counters.items()))
            self._logger.info(f"dropped inputs: {counts}")

    # ------------------------------------------------------------ parameters

    @staticmethod
    def declare(node: TransportNode,
                on_stale_after_s: Callable[[object], None] | None = None) -> InputParameters:
        """Declare the shared parameters on ``node`` and return their values.

        Only ``stale_after_s`` can change while the node runs (applied by
        ``on_stale_after_s``; read-only without it): the others decide what
        the node loaded and subscribed to.
        """
        scene_file = node.declare_parameter(
            "scene_file", "",
            f"YAML scene (.yaml/.yml), URDF (.urdf) or xacro (.xacro, expanded with its "
            f"default arguments) file to load, or '{BUILTIN_DEMO}' for the built-in demo arm. "
            "Exclusive with robot_description.")
        robot_description = node.declare_parameter(
            "robot_description", "",
            "URDF text of the robot. When both this and scene_file are empty, the node waits "
            "for the latched robot_description topic (std_msgs/String).")
        package_roots = node.declare_parameter(
            "package_roots", [],
            "Folders of ROS packages for package:// mesh URIs, as 'package=/folder' entries. "
            "A robot_description from the topic reads mesh files only under these, "
            "ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and allowed_file_roots.")
        allowed_file_roots = node.declare_parameter(
            "allowed_file_roots", [],
            "Folders under which a robot_description from the topic may name mesh files by "
            "absolute path or file:// URI (empty: only package:// URIs into package roots).")
        world_frame = node.declare_parameter(
            "world_frame", "world",
            "Name on /tf of the scene's world frame: parent of the scene's root frames, and "
            "header.frame_id of every output.")
        stale_after_s = node.declare_parameter(
            "stale_after_s", 0.5,
            "A frame whose pose is older than this (seconds) relative to the newest pose is "
            "listed in stale_frames of the results; 0 disables the check. Settable at run time.",
            check=at_least("stale_after_s", 0.0), on_set=on_stale_after_s)
        pose_topics = node.declare_parameter(
            "pose_topics", [],
            "geometry_msgs/PoseStamped topics (best effort, sensor-data QoS), one per frame: the "
            "frame is the topic's last name token, its parent header.frame_id (empty: "
            "world_frame).")
        if not world_frame:
            raise ParameterError("parameter 'world_frame' must not be empty")
        for name, values in (("package_roots", package_roots), ("pose_topics", pose_topics),
                             ("allowed_file_roots", allowed_file_roots)):
            if not all(isinstance(v, str) for v in values):
                raise ParameterError(f"parameter {name!r} must be a list of strings, "
                                     f"not {values!r}")
        return InputParameters(
            scene_file=scene_file, robot_description=robot_description,
            package_roots=_parse_package_roots(package_roots),
            world_frame=world_frame, stale_after_s=float(stale_after_s),
            pose_topics=list(pose_topics), allowed_file_roots=tuple(allowed_file_roots))

    def _set_stale_after_s(self, value: object) -> None:
        self.params = replace(self.params, stale_after_s=float(value))  # type: ignore[arg-type]
        self.invalidate()

    def invalidate(self) -> None:
        """Make :attr:`changed` true, so the poses heard are applied and queried again."""
        self._applied_version = -1

    def scene_frames(self) -> dict[str, tuple[FrameId, SourceId]]:
        """``{name: (FrameId, owning SourceId)}`` of the scene's frames (not the world)."""
        return {frame.name: (frame.id, frame.source_id) for frame in self._frames}

    def geometry_changed(self, structural: bool = True) -> None:
        """The scene graph's geometry changed at run time: query again from the next cycle.

        With ``structural`` (geometry added or removed) the geometry names
        and the geometry-to-frame map are rebuilt (a removed geometry's name
        is forgotten, so names stay bounded by the geometry the scene holds).
        """
        if structural and self.scene_graph is not None:
            self._index_geometry(self.scene_graph)
        self.invalidate()

    def _index_geometry(self, scene_graph: SceneGraph) -> None:
        """The geometry-to-frame map and the names, point clouds included."""
        inspector = scene_graph.model_inspector()
        clouds = {c: scene_graph.get_point_cloud(c) for c in scene_graph.get_point_cloud_ids()}
        self._geometry_frame = {g: inspector.get_frame_id(g)
                                for g in inspector.get_all_geometry_ids(Role.PROXIMITY)}
        self._geometry_frame.update((c, record.frame_id) for c, record in clouds.items())
        self.names = GeometryNames(inspector, self.params.world_frame, clouds)

    # ----------------------------------------------------------------- scene

    def _index_scene(self, scene_graph: SceneGraph) -> None:
        """Index ``scene_graph``'s frames and make it the scene; ValueError leaves all as it was.

        Everything that can refuse the scene (a frame named like
        ``world_frame``, a name used by two sources) is checked before
        anything of the previous scene is replaced.
        """
        inspector = scene_graph.model_inspector()
        world_id = inspector.world_frame_id()
        frames: list[_SceneFrame] = []
        index: dict[str, int] = {}
        sources: dict[str, str] = {}
        # Registration order puts parents before children.
        for frame_id in inspector.get_all_frame_ids():
            if frame_id == world_id:
                continue
            name = inspector.get_name(frame_id)
            source = inspector.get_owning_source_name(frame_id)
            if name in index:
                raise ValueError(f"frame name {name!r} is used by sources {sources[name]!r} and "
                                 f"{source!r}; /tf matches frames by name, so names must be "
                                 "unique")
            if name == self.params.world_frame:
                raise ValueError(f"scene frame {short_name(name)!r} has the name of the "
                                 "world_frame parameter; /tf could not tell them apart")
            parent_id = inspector.get_parent_frame(frame_id)
            on_world = parent_id == world_id
            parent_name = self.params.world_frame if on_world else inspector.get_name(parent_id)
            source_id = next(s for s in inspector.get_all_source_ids()
                             if inspector.belongs_to_source(frame_id, s))
            index[name] = len(frames)
            sources[name] = source
            frames.append(_SceneFrame(frame_id, name, source_id, parent_name,
                                      None if on_world else index[parent_name]))
        self.scene_graph = scene_graph
        self._frames = frames
        self._frame_index = index
        self._lookup_pairs = tuple((frame.parent_name, frame.name) for frame in frames)
        by_source: dict[SourceId, tuple[list[FrameId], list[int]]] = {}
        for n, frame in enumerate(frames):
            ids, indices = by_source.setdefault(frame.source_id, ([], []))
            ids.append(frame.id)
            indices.append(n)
        # A source's frames one after the other (the usual case) take their
        # poses as a slice: a view, where a list of indices copies.
        self._by_source = [(source_id, tuple(ids), indices, _as_slice(indices))
                           for source_id, (ids, indices) in by_source.items()]
        self._layouts.clear()  # the parent checks depend on the scene
        self.buffer.protect([*index, self.params.world_frame])
        self._index_geometry(scene_graph)
        self._applied_version = -1
        self._state = None
        self._log.reported = {key for key in self._log.reported if key[0] != "missing"}

    def _topic_access(self):
        """What a description from the topic may read: only under the allowed roots."""
        from geometry_core.scene_files.package_paths import FileAccess

        return FileAccess.restricted(self.params.package_roots,
                                     self.params.allowed_file_roots)

    def _log_warnings(self, what: str, texts: Sequence[str]) -> None:
        self.log_budget.lines(f"{what}_warnings", texts, prefix=f"{what}: ")

    def _on_robot_description(self, msg: Any) -> None:
        """A robot from the latched topic: every step guarded, the previous robot kept on error.

        Whatever the sender wrote (a file the loader refuses, a robot over
        the limits, a frame named like ``world_frame``, even an error of ours)
        is refused with a rate-limited line and counted as ``bad_scene``; a
        node restarted with the same latched sample comes up serving.
        """
        try:
            text = str(msg.data)
            robot = load_robot_description(text, self.params.package_roots,
                                           self._topic_access())
            self._index_scene(robot.scene_graph)
        except Exception as err:  # noqa: BLE001 - nothing a sender writes may stop the node
            kept = ("; the previous robot is kept" if self.scene_graph is not None else "")
            self._drop("bad_scene", f"robot_description refused: "
                                    f"{short_text(_reason(err))}{kept}")
            return
        self.robot = robot
        self.robot_description_text = text
        self._logger.info(f"loaded robot_description: {len(self._frames)} frames")
        self._log_warnings("robot_description", robot.warnings)
        if self._on_scene is not None:
            try:
                self._on_scene()
            except Exception as err:  # noqa: BLE001 - the scene is served; what depends on it says
                self._drop("bad_scene", "after a new robot_description: "
                                        f"{short_text(_reason(err))}")

    # ------------------------------------------------------------- callbacks

    def _on_tf(self, msg: TfArrays | Any) -> None:
        """A /tf message, as arrays (``TF_CODEC``) or a TFMessage object."""
        self.taken["tf"] += 1
        self.tf_taken_s = time.monotonic()
        self._pending += 1
        self._store_tf(msg, static=False)

    def _on_tf_static(self, msg: TfArrays | Any) -> None:
        self.taken["tf_static"] += 1
        self._store_tf(msg, static=True)

    def _store_tf(self, msg: TfArrays | Any, static: bool) -> None:
        arrays = msg if isinstance(msg, TfArrays) else tf_arrays_from_message(msg)
        if self._store_known(arrays, static):
            return
        extra = len(arrays) - MAX_TRANSFORMS_PER_MESSAGE
        if extra > 0:
            # Each transform costs a few µs to check and store: a huge message
            # must not stall a cycle. A transform of a frame the same message
            # gives again later is replaced by the sender: only the newest of
            # each frame can be used, and when those are still too many the
            # message is refused whole (never an old pose as if it were new).
            newest = _newest_per_child(arrays)
            if newest is None:
                self._drop("too_many_transforms",
                           f"a TFMessage of {len(arrays)} transforms of more than "
                           f"{MAX_TRANSFORMS_PER_MESSAGE} frames: refused whole", len(arrays))
                return
            self._drop("too_many_transforms",
                       f"a TFMessage of {len(arrays)} transforms of {len(newest)} frames: "
                       f"the newest of each frame is used, the {len(arrays) - len(newest)} "
                       "it replaced are dropped", len(arrays) - len(newest))
            arrays = newest
        transforms, errors = tf_arrays_to_transforms(arrays, MAX_TRANSFORMS_PER_MESSAGE)
        for err in errors:
            self._drop(err.kind, f"dropped a transform: {err}")
        stored = [self._store(transform, static) for transform in transforms]
        if not errors and extra <= 0 and all(stored):
            self._remember_layout(arrays, static)

    # A publisher sends the same frames with the same parents in every
    # message: what the names decide (their checks, the parent checks, the
    # buffer rows) is worked out for the first message of such a layout and
    # reused for the next ones, which then cost a few array operations.

    def _remember_layout(self, arrays: TfArrays, static: bool) -> None:
        """Keep the buffer rows of a message whose every transform was stored as it came."""
        rows = self.buffer.rows_of(arrays.parents, arrays.children, static)
        if rows is None or not len(rows):
            return
        if len(self._layouts) >= _MAX_LAYOUTS:
            self._layouts.clear()  # many publishers, or one that renames: start over
        foreign = [c for c in arrays.children if not self.buffer.is_protected(c)]
        self._layouts[self._layout_key(arrays, static)] = _Layout(
            self.buffer.structure, rows, foreign)

    @staticmethod
    def _layout_key(arrays: TfArrays, static: bool) -> tuple:
        # A decoder's layout stands for its names; else the names themselves.
        if arrays.layout is not None:
            return arrays.layout, static
        return tuple(arrays.parents), tuple(arrays.children), static

    def _store_known(self, arrays: TfArrays, static: bool) -> bool:
        """Store a message of a remembered layout whose numbers and stamps are all valid.

        Returns False (nothing stored) for any other message: the general
        path checks it transform by transform and says what is wrong.
        """
        layout = self._layouts.get((arrays.layout, static) if arrays.layout is not None
                                   else self._layout_key(arrays, static))
        if layout is None or layout.structure != self.buffer.structure:
            return False
        where = arrays.layout
        if arrays.data is not None and where is not None:
            # The bytes as they came: read, checked and stored in one call.
            return self.buffer.store_records(layout.rows, arrays.data, where.stamp_at,
                                             where.values_at, where.little_endian,
                                             layout.foreign)
        nanosec = arrays.nanosec
        if not (0 <= min(nanosec) and max(nanosec) < _NS_PER_S
                and all_pose_rows_valid(arrays.values)):
            return False
        self.buffer.store_rows(layout.rows, arrays.values,
                               [s * _NS_PER_S + n for s, n in zip(arrays.sec, nanosec)],
                               layout.foreign)
        return True

    def _pose_callback(self, frame: str) -> Callable[[Any], None]:
        def on_pose(msg: Any) -> None:
            self.taken["pose"] += 1
            self._pending += 1
            if self.scene_graph is not None and frame not in self._frame_index:
                self._drop("unknown_frame",
                           f"pose topic for frame {frame!r}, which the scene does not have")
                return
            try:
                pose = pose_stamped_to_transform(msg, frame, self.params.world_frame)
            except PoseError as err:
                self._drop(err.kind, f"dropped a pose: {err}")
                return
            self._store(pose, static=False)
        return on_pose

    def _store(self, transform: Transform, static: bool) -> bool:
        """Check ``transform``'s parent and store it; False when it was dropped."""
        parent, child = transform[0], transform[1]
        if child == self.params.world_frame:
            self._drop("wrong_parent",
                       f"transform gives world_frame {child!r} a parent ({parent!r}); "
                       "the scene's world has none")
            return False
        index = self._frame_index.get(child)
        if index is not None:
            expected = self._frames[index].parent_name
            if parent != expected and (parent in self._frame_index
                                       or parent == self.params.world_frame):
                self._drop("wrong_parent",
                           f"frame {child!r} is given in {short_name(parent)!r}, "
                           f"but its parent in the scene is {expected!r}")
                return False
        evicted = self.buffer.evicted
        self.buffer.set_transform(transform, static)
        if self.buffer.evicted != evicted:
            self._drop("evicted_frame", f"more than {self.buffer.max_foreign_frames} frames "
                       "outside the scene on /tf: forgot the one updated least recently")
        return True

    def _drop(self, kind: str, message: str, count: int = 1) -> None:
        self.counters[kind] += count
        now = time.monotonic()
        last = self._log.logged_at.get(kind)
        if last is None or now - last >= LOG_PERIOD_S:
            self._log.logged_at[kind] = now
            self._logger.warn(f"{message} [{kind} #{self.counters[kind]}]")

    # ----------------------------------------------------------------- apply

    @property
    def changed(self) -> bool:
        """Whether poses arrived since the last :meth:`apply`."""
        return self.scene_graph is not None and self.buffer.version != self._applied_version

    def apply(self) -> PoseState | None:
        """Set the scene graph's poses from the buffer; return what is usable.

        Returns the previous state when nothing arrived since the last call,
        and None while there is no scene or no scene frame has a pose.
        """
        if self.scene_graph is None:
            return None
        if self.buffer.version == self._applied_version:
            return self._state
        self._applied_version = self.buffer.version
        # A query now answers the newest of the messages taken since the last one.
        self.coalesced += max(0, self._pending - 1)
        self._pending = 0
        frames = self._frames
        found = self.buffer.lookup_rows(self._lookup_pairs)
        if found is not None:
            # Every scene frame has a pose of one transform (the usual case):
            # its stored numbers go into the scene graph in one call a source.
            rows, newest_ns, oldest_dynamic_ns = found
            scene_graph = self.scene_graph
            for source_id, ids, indices, take in self._by_source:
                scene_graph.set_poses_from_pose_rows(
                    source_id, ids, rows[take] if type(take) is slice else
                    [rows[n] for n in indices], LIBRARY_ORDER)
            stamp_ns = max(newest_ns)
            stale = self._stale(stamp_ns, oldest_dynamic_ns, range(len(frames)))
            self._state = PoseState(stamp_ns, stale, [])
            return self._state
        poses = self.buffer.lookup_poses(self._lookup_pairs)
        for _, error in poses.errors:
            self._drop("disconnected", str(error))
        if poses.complete:
            # Every scene frame has a pose: no masks, plain Python on a few numbers.
            for source_id, ids, _, take in self._by_source:
                self._set_poses(source_id, ids, take, poses)
            stamp_ns = max(poses.newest_ns)
            stale = self._stale(stamp_ns, poses.oldest_dynamic_ns, range(len(frames)))
            self._state = PoseState(stamp_ns, stale, [])
            return self._state
        found = np.array(poses.found, dtype=bool)
        # A frame is usable when its own pose and its scene parent's are.
        usable = found.copy()
        for n, frame in enumerate(frames):
            if frame.parent_index is not None and not usable[frame.parent_index]:
                usable[n] = False
        for source_id, ids, indices, _ in self._by_source:
            kept = [k for k, n in enumerate(indices) if found[n]]
            if kept:
                self._set_poses(source_id, [ids[k] for k in kept], [indices[k] for k in kept],
                                poses)
        self._report_missing(usable)
        if not usable.any():
            self._state = None
            return None
        in_use = np.flatnonzero(usable).tolist()
        stamp_ns = max(poses.newest_ns[n] for n in in_use)
        stale = self._stale(stamp_ns, [poses.oldest_dynamic_ns[n] for n in in_use], in_use)
        missing = sorted(frames[n].name for n in np.flatnonzero(~usable))
        kept = None
        if missing:
            usable_ids = {frames[n].id for n in in_use}
            usable_ids.add(self.scene_graph.world_frame_id())
            kept = frozenset(g for g, f in self._geometry_frame.items() if f in usable_ids)
        self._state = PoseState(stamp_ns, stale, missing, kept)
        return self._state

    def _set_poses(self, source_id: SourceId, ids: Sequence[FrameId],
                   indices: list[int] | slice, poses: PoseLookup) -> None:
        self.scene_graph.set_poses_array(source_id, ids, poses.X_PC_array[indices])

    def _stale(self, stamp_ns: int, oldest_dynamic_ns: Sequence[int],
               indices: Sequence[int]) -> list[str]:
        """Names of the frames ``indices`` whose oldest dynamic stamp is too old (sorted)."""
        limit_ns = round(self.params.stale_after_s * _NS_PER_S)
        # Static chains carry NO_DYNAMIC_NS: never stale.
        if limit_ns <= 0 or min(oldest_dynamic_ns) >= stamp_ns - limit_ns:
            return []
        return sorted(self._frames[n].name for n, oldest in zip(indices, oldest_dynamic_ns)
                      if oldest < stamp_ns - limit_ns)

    def _report_missing(self, usable: np.ndarray) -> None:
        new = [f.name for f, ok in zip(self._frames, usable)
               if not ok and ("missing", f.name) not in self._log.reported]
        if new:
            self._log.reported.update(("missing", name) for name in new)
            self._logger.info(f"no pose yet for frame(s) {', '.join(new)}: their geometry is left "
                              "out of the results until /tf (or a pose topic) gives one")
