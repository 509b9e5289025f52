"""The collision checker's tables: its bodies, their filters and their padding.

:class:`CheckerTables` is the part of :class:`~geometry_core.clearance.CollisionChecker`
that knows which body each geometry belongs to (the world, a robot link, an
environment body), which body pairs are never checked and how much padding
each pair takes, and turns them into the :class:`World` every query reads:
the scene graph's collision model with each geometry's body row, swapped as
one reference when something changes. The checker's queries
(``checker_queries``) and its added shapes and clouds (``added_geometry``)
read and edit these tables; this module reads neither.

Uses the kinematic chain, the scene graph and the scene files; never fcl,
lcm or ROS.
"""

from __future__ import annotations

import copy
import math
from typing import NamedTuple

import numpy as np

from geometry_core.clearance.kinematic_chain import KinematicChain
from geometry_core.proximity.engine import ModelCache
from geometry_core.scene import SceneGraph
from geometry_core.scene_files import LoadedScene
from geometry_core.scene_files.srdf import apply_srdf_filters
from geometry_core.scene_graph import (
    CollisionFilterDeclaration,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
    Role,
)

__all__ = ["Body", "CheckerTables", "World", "check_padding"]

_WORLD = "world"
#: A body given by index or by name.
Body = int | str


class World(NamedTuple):
    """Everything a query reads that a change of added shapes replaces, swapped as one."""

    model: object                 # the scene graph's CollisionModel
    native: object                # its compiled Model (what a cloud query reads)
    slot_of: dict                 # frame id -> slot
    row_of: dict                  # geometry id (clouds too) -> row
    body_rows: np.ndarray         # (rows,) body of each row
    X_BG_rows: np.ndarray         # (rows, 4, 4) pose of each row's geometry on its body
    link_radius: np.ndarray       # (links,) reach of each link's geometry from its frame
    clouds: tuple                 # PointCloud of every group with one
    robot_geometries: np.ndarray  # (R,) int32 model indices of robot geometry a cloud can hit
    robot_bodies: np.ndarray      # (R,) their bodies
    index_rows: np.ndarray        # (G,) row of each model geometry index (-1: none)
    index_bodies: np.ndarray      # (G,) int32 body of each model geometry index (-1: none)


class _PairTable:
    """A symmetric (B, B) table of body pairs: a rule plus the pairs set explicitly.

    Read and written like the dense array it stands for (``t[a, b]`` with
    indices or index arrays, ``t[a]`` a row, ``t[a, b] = v``), in memory
    O(bodies + pairs set): a robot of 10 000 links has 10^8 pairs, of which
    its filters name a few tens of thousands. ``numpy.asarray(t)`` is the
    dense table (for tests and small robots).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.pairs: dict[tuple[int, int], object] = {}  # (low, high) -> value
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None  # keys, values
        #: Counts the writes: a dense copy made at one version is stale at the next.
        self.version = 0

    @property
    def shape(self) -> tuple[int, int]:
        return (self.size, self.size)

    def _rule(self, a, b):  # vectorised; a == b is handled by the subclass
        raise NotImplementedError

    def _scalar_rule(self, a: int, b: int):
        raise NotImplementedError

    def _dtype(self):
        raise NotImplementedError

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            return self[index, np.arange(self.size)]
        a, b = index
        if np.ndim(a) == 0 and np.ndim(b) == 0:
            a, b = int(a), int(b)
            value = self.pairs.get((a, b) if a < b else (b, a))
            return self._dtype()(self._scalar_rule(a, b) if value is None else value)
        a, b = np.broadcast_arrays(np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp))
        out = self._rule(a, b)
        if self.pairs and out.size:
            if self._sorted is None:
                keys = np.array([lo * self.size + hi for lo, hi in self.pairs], dtype=np.int64)
                values = np.array(list(self.pairs.values()), dtype=self._dtype())
                order = np.argsort(keys)
                self._sorted = (keys[order], values[order])
            keys, values = self._sorted
            wanted = np.minimum(a, b).astype(np.int64) * self.size + np.maximum(a, b)
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            hit = (keys[at] == wanted) & (a != b)
            out[hit] = values[at[hit]]
        return out

    def __setitem__(self, index, value) -> None:
        a, b = (int(i) for i in index)
        if a != b:
            self.pairs[(a, b) if a < b else (b, a)] = self._dtype()(value).item()
            self._sorted = None
            self.version += 1

    def __array__(self, dtype=None, copy=None):
        everything = np.arange(self.size)
        dense = self[everything[:, None], everything[None, :]]
        return dense if dtype is None else dense.astype(dtype)

    def copy(self):
        new = copy.copy(self)
        new.pairs = dict(self.pairs)
        return new


class _FilterTable(_PairTable):
    """Filtered body pairs, by a rule and the pairs set explicitly.

    The rule: a body with itself, two anchored bodies, two links welded
    together (one ``group``); the pairs set explicitly win over it.
    """

    def __init__(self, anchored: np.ndarray, group: np.ndarray) -> None:
        super().__init__(len(anchored))
        self.anchored, self.group = anchored, group

    def _dtype(self):
        return np.bool_

    def _scalar_rule(self, a: int, b: int) -> bool:
        return a == b or bool(self.anchored[a] and self.anchored[b]) \
            or bool(self.group[a] == self.group[b])

    def _rule(self, a, b):
        return (a == b) | (self.anchored[a] & self.anchored[b]) | (self.group[a] == self.group[b])


class _PaddingTable(_PairTable):
    """Padding of body pairs, by a rule and the pairs set explicitly.

    The rule: ``self_padding`` between two robot bodies,
    ``environment_padding`` between a robot body and another, 0 otherwise and
    on the diagonal.
    """

    def __init__(self, is_robot: np.ndarray, self_padding: float,
                 environment_padding: float) -> None:
        super().__init__(len(is_robot))
        self.is_robot = is_robot
        self.self_padding, self.environment_padding = self_padding, environment_padding

    def _dtype(self):
        return np.float64

    def _scalar_rule(self, a: int, b: int) -> float:
        if a == b:
            return 0.0
        robots = int(self.is_robot[a]) + int(self.is_robot[b])
        return (0.0, self.environment_padding, self.self_padding)[robots]

    def _rule(self, a, b):
        robots = self.is_robot[a].astype(np.intp) + self.is_robot[b]
        out = np.array([0.0, self.environment_padding, self.self_padding])[robots]
        out[a == b] = 0.0
        return out


class CheckerTables:
    """Bodies, filters and padding of a collision checker (a base of ``CollisionChecker``)."""

    def _build_tables(self, robot: LoadedScene, srdf, srdf_is_text: bool,
                      environment: SceneGraph | LoadedScene | None, self_padding: float,
                      environment_padding: float) -> None:
        """Bodies, filters and padding of ``robot`` (and ``environment``), as Drake sets them up."""
        self._sg = robot.scene_graph
        if srdf is not None:
            # MoveIt's semantics (scene_files.srdf): unknown links are skipped
            # with a warning; the filters land in the scene graph, and
            # _initial_filters reads them back per body pair.
            apply_srdf_filters(self._sg, srdf, text=srdf_is_text)
        self._source = robot.kinematics.source_id
        self._chain = KinematicChain(robot.kinematics, robot.frames)
        self._frame_ids = [robot.frames[link] for link in self._chain.links]
        self.position_names: list[str] = list(self._chain.position_names)
        self.num_positions: int = self._chain.num_positions
        #: URDF mimic joints: they follow a position of q and take none of their own.
        self.mimic_joint_names: list[str] = list(self._chain.mimic_names)
        self.body_names: list[str] = [_WORLD] + list(self._chain.links)
        num_links = len(self._chain.links)
        frame_body = {f: 1 + k for k, f in enumerate(self._frame_ids)}
        inspector = self._sg.model_inspector()
        world = inspector.world_frame_id()
        self._body_of: dict[GeometryId, int] = {}
        self._X_BG: dict[GeometryId, np.ndarray] = {}
        for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
            frame = inspector.get_frame_id(g)
            self._body_of[g] = 0 if frame == world else frame_body[frame]
            self._X_BG[g] = inspector.get_pose_in_frame(g).get_as_matrix4()
        if environment is not None:
            self._copy_environment(environment)
        B = len(self.body_names)
        self._is_robot = np.zeros(B, dtype=bool)
        self._is_robot[1:1 + num_links] = True
        self._geometry_sets = self._body_geometry_sets()
        self._shape_of = {g: inspector.get_shape(g) for g in self._body_of}
        #: ``{geometry: bounding radius + distance from its body's origin}``,
        #: of robot-link geometry (filled by ``_make_world``).
        self._reach_of: dict[GeometryId, float] = {}
        # Both tables are a rule plus the pairs set explicitly: O(bodies + filtered
        # pairs), where dense (B, B) arrays took 10^8 entries for 10 000 links.
        self._filtered = self._initial_filters()
        self._padding = _PaddingTable(self._is_robot, float(self_padding),
                                      float(environment_padding))
        self._padding_range: tuple[float, float] | None = None
        self._apply_initial_filters()

    def _copy_environment(self, environment: SceneGraph | LoadedScene) -> None:
        scene = environment.scene_graph if isinstance(environment, LoadedScene) else environment
        if not isinstance(scene, SceneGraph):
            raise TypeError(f"environment must be a path, a SceneGraph or a LoadedScene, got "
                            f"{type(environment).__name__}")
        inspector = scene.model_inspector()
        query = scene.query_object(frames_without_pose="skip")
        source = self._sg.register_source("environment")
        world = inspector.world_frame_id()
        body_index = {_WORLD: 0}
        for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
            frame = inspector.get_frame_id(g)
            body_name = _WORLD if frame == world else inspector.get_name(frame)
            if body_name not in body_index and body_name in self.body_names:
                # A robot link of the same name: keep names unique, so a body
                # given by name is never ambiguous.
                body_name = f"environment::{body_name}"
            if body_name not in body_index:
                body_index[body_name] = len(self.body_names)
                self.body_names.append(body_name)
            X_WG = query.get_pose_in_world(g)
            instance = GeometryInstance(X_WG, inspector.get_shape(g),
                                        f"environment::{body_name}::{inspector.get_name(g)}")
            instance.set_proximity_properties(ProximityProperties())
            copy = self._sg.register_anchored_geometry(source, instance)
            self._body_of[copy] = body_index[body_name]
            self._X_BG[copy] = X_WG.get_as_matrix4()

    def _body_geometry_sets(self) -> list[GeometrySet | None]:
        ids: list[list] = [[] for _ in self.body_names]
        for g, body in self._body_of.items():
            ids[body].append(g)
        return [GeometrySet(members) if members else None for members in ids]

    def _make_world(self) -> World:
        """The world queries read, built from the current geometries and clouds."""
        num_links = len(self._chain.links)
        link_radius = np.zeros(num_links)
        # A geometry's shape and pose on its body never change while it is
        # registered: its reach is worked out once (a MoveIt MOVE rebuilds
        # the world with every link's geometry unchanged), and forgotten with
        # the geometry (remove_all_added_collision_shapes).
        reach = self._reach_of
        for g, body in self._body_of.items():
            if 1 <= body <= num_links:
                r = reach.get(g)
                if r is None:
                    r = reach[g] = (self._shape_of[g].bounding_radius()
                                    + float(np.linalg.norm(self._X_BG[g][:3, 3])))
                link_radius[body - 1] = max(link_radius[body - 1], r)
        clouds = tuple(self._clouds.values())
        # Every geometry's row (a cloud's too: on the world, at identity) in
        # arrays the queries gather from at once.
        ids = list(self._body_of) + [cloud.geometry_id for cloud in clouds]
        row_of = {g: k for k, g in enumerate(ids)}
        body_rows = np.array(list(self._body_of.values()) + [0] * len(clouds), dtype=np.intp)
        X_BG_rows = np.array([self._X_BG[g] for g in self._body_of] + [np.eye(4)] * len(clouds))
        model = self._sg.collision_model()
        # Robot geometry a cloud (on the world body) can touch: the bodies
        # not filtered against the world.
        touches_world = {body: not self._filtered[body, 0]
                         for body in set(self._body_of.values()) if self._is_robot[body]}
        robot = [(model.index_of(g), body) for g, body in self._body_of.items()
                 if touches_world.get(body, False)]
        robot.sort()
        index_rows = np.array([row_of.get(g, -1) for g in model.geometry_ids], dtype=np.intp)
        index_bodies = np.where(index_rows >= 0, body_rows[index_rows], -1).astype(np.int32)
        return World(model, ModelCache.of(model).native if clouds else None,
                     self._sg.frame_slot_map(), row_of, body_rows, X_BG_rows,
                     link_radius, clouds,
                     np.array([m for m, _ in robot], dtype=np.int32),
                     np.array([b for _, b in robot], dtype=np.intp), index_rows,
                     index_bodies)

    # ---------------------------------------------------------------- filters

    def _link_geometries(self) -> list[list[GeometryId]]:
        members: list[list[GeometryId]] = [[] for _ in self._chain.links]
        for g, body in self._body_of.items():
            if self._is_robot[body]:
                members[body - 1].append(g)
        return members

    def _initial_filters(self) -> _FilterTable:
        chain = self._chain
        B, L = len(self.body_names), len(chain.links)
        # Anchored bodies: the world, the environment, links welded to the world.
        anchored = ~self._is_robot.copy()
        anchored[1:1 + L] = chain.anchored
        # Links welded by fixed joints form one body as far as collisions go; every
        # other body is a group of its own.
        group = np.arange(B) + B
        link_group = np.arange(L)
        for k in range(L):
            p = chain.parent[k]
            if p >= 0 and chain.kind[k] == "fixed":
                link_group[k] = link_group[p]
        group[1:1 + L] = link_group
        table = _FilterTable(anchored, group)
        for k in range(L):
            p = chain.parent[k]
            if p >= 0 and not table._scalar_rule(1 + k, 1 + p):
                table[1 + k, 1 + p] = True    # Drake's parser
        # Pairs of links the scene graph already filters throughout (the
        # loader's, the SRDF's): every geometry pair of the two links is among
        # its explicitly filtered pairs (geometries of two links are on two
        # frames). Counted from those pairs: O(filtered pairs), not O(links^2).
        members = self._link_geometries()
        model = self._sg.collision_model()
        G = model.size
        link_of = np.full(G, -1, dtype=np.intp)
        count = np.zeros(L, dtype=np.int64)
        for a in range(L):
            count[a] = len(members[a])
            for g in members[a]:
                link_of[model.index_of(g)] = a
        keys = np.unique(model.filtered_keys)
        la, lb = link_of[keys // max(G, 1)], link_of[keys % max(G, 1)]
        wanted = (la >= 0) & (lb >= 0) & (la != lb)
        lo, hi = np.minimum(la[wanted], lb[wanted]), np.maximum(la[wanted], lb[wanted])
        pairs, filtered = np.unique(lo.astype(np.int64) * L + hi, return_counts=True)
        lo, hi = pairs // max(L, 1), pairs % max(L, 1)
        whole = filtered == count[lo] * count[hi]
        for a, b in zip(lo[whole].tolist(), hi[whole].tolist()):
            if not table._scalar_rule(1 + a, 1 + b):
                table[1 + a, 1 + b] = True
        return table

    def _apply_initial_filters(self) -> None:
        """Filter in the scene graph every pair the filter table filters.

        One statement per pair set explicitly; the rule's cliques (the
        anchored bodies, each group of welded links) one statement each,
        within the geometries of their bodies (pairs within one body are on
        one frame, never reported anyway).
        """
        table, sets = self._filtered, self._geometry_sets
        declaration = CollisionFilterDeclaration()
        count = 0
        for (a, b), filtered in table.pairs.items():
            if filtered and sets[a] is not None and sets[b] is not None:
                declaration.exclude_between(sets[a], sets[b])
                count += 1
        cliques: dict[int, list[int]] = {}
        for body in range(table.size):
            if sets[body] is not None:
                cliques.setdefault(int(table.group[body]), []).append(body)
        anchored = [body for body in range(table.size)
                    if table.anchored[body] and sets[body] is not None]
        for bodies in [anchored, *cliques.values()]:
            if len(bodies) > 1:
                declaration.exclude_within(GeometrySet(
                    [g for body in bodies for g in sets[body].geometries()]))
                count += 1
        if count:
            self._sg.collision_filter_manager().apply(declaration)
            if hasattr(self, "_world"):
                self._world = self._make_world()

    def _apply_filters(self, pairs, filtered: bool) -> None:
        declaration = CollisionFilterDeclaration()
        count = 0
        for a, b in pairs:
            set_a, set_b = self._geometry_sets[a], self._geometry_sets[b]
            if set_a is None or set_b is None:
                continue
            if filtered:
                declaration.exclude_between(set_a, set_b)
            else:
                declaration.allow_between(set_a, set_b)
            count += 1
        if count:
            self._sg.collision_filter_manager().apply(declaration)
            if hasattr(self, "_world"):
                self._world = self._make_world()

    def body_name(self, index: int) -> str:
        """Return the name of a body index (a URDF link, ``world``, or an environment frame).

        Raises
        ------
        IndexError
            If there is no such body.
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) \
                or not 0 <= index < len(self.body_names):
            raise IndexError(f"body index must be an integer in [0, {len(self.body_names)}), "
                             f"got {index!r}")
        return self.body_names[index]

    def geometry_name(self, geometry_id: GeometryId) -> str:
        """Return the name of a geometry of a clearance row (:meth:`RobotClearance.geometry_ids`).

        Raises
        ------
        KeyError
            If the id is not one of the checker's geometries.
        """
        for cloud in self._world.clouds:
            if cloud.geometry_id == geometry_id:
                return f"{cloud.group}::point_cloud"
        if geometry_id not in self._body_of:
            raise KeyError(f"{geometry_id!r} is not a geometry of this checker")
        return self._sg.model_inspector().get_name(geometry_id)

    def body_index(self, body: Body) -> int:
        """Return the index of a body given by name or index.

        Raises
        ------
        KeyError
            If there is no body of that name (lists the names).
        IndexError
            As :meth:`body_name`.
        """
        if isinstance(body, str):
            try:
                return self.body_names.index(body)
            except ValueError:
                raise KeyError(f"no body named {body!r}; bodies: "
                               f"{', '.join(self.body_names)}") from None
        self.body_name(body)
        return int(body)

    def is_part_of_robot(self, body: Body) -> bool:
        """Report whether a body is one of the robot's links."""
        return bool(self._is_robot[self.body_index(body)])

    def _pair(self, body_a: Body, body_b: Body, what: str) -> tuple[int, int]:
        a, b = self.body_index(body_a), self.body_index(body_b)
        if a == b:
            raise ValueError(f"{what} needs two different bodies, got {self.body_names[a]!r} "
                             "twice")
        if not (self._is_robot[a] or self._is_robot[b]):
            raise ValueError(f"{what}: neither {self.body_names[a]!r} nor "
                             f"{self.body_names[b]!r} is a robot body")
        return a, b

    def is_collision_filtered_between(self, body_a: Body, body_b: Body) -> bool:
        """Report whether collisions between two bodies are ignored.

        Raises
        ------
        KeyError, IndexError
            For an unknown body.
        """
        return bool(self._filtered[self.body_index(body_a), self.body_index(body_b)])

    def set_collision_filtered_between(self, body_a: Body, body_b: Body,
                                       filtered: bool) -> None:
        """Ignore (``filtered=True``) or check collisions between two bodies.

        Raises
        ------
        ValueError
            If the bodies are the same, neither is a robot body, or the pair
            is two anchored bodies (a robot link welded to the world and the
            environment), which can never be checked.
        KeyError, IndexError
            For an unknown body.
        """
        a, b = self._pair(body_a, body_b, "set_collision_filtered_between")
        anchored = [not self._is_robot[i] or self._chain.anchored[i - 1] for i in (a, b)]
        if not filtered and all(anchored):
            raise ValueError(f"{self.body_names[a]!r} and {self.body_names[b]!r} are both "
                             "welded to the world: their collisions cannot be unfiltered")
        self._filtered[a, b] = self._filtered[b, a] = bool(filtered)
        self._padding_range = None
        self._apply_filters([(a, b)], bool(filtered))

    def get_padding_between(self, body_a: Body, body_b: Body) -> float:
        """Return the padding of a body pair (metres).

        Raises
        ------
        KeyError, IndexError
            For an unknown body.
        """
        return float(self._padding[self.body_index(body_a), self.body_index(body_b)])

    def set_padding_between(self, body_a: Body, body_b: Body, padding: float) -> None:
        """Set the padding of one body pair (metres; negative allows that much overlap).

        Raises
        ------
        ValueError
            If ``padding`` is not finite, the bodies are the same, or neither
            is a robot body.
        KeyError, IndexError
            For an unknown body.
        """
        a, b = self._pair(body_a, body_b, "set_padding_between")
        check_padding("padding", padding)
        self._padding[a, b] = self._padding[b, a] = float(padding)
        self._padding_range = None

    def _padding_bounds(self) -> tuple[float, float]:
        """Smallest and largest padding of an unfiltered pair (cached until a setter runs)."""
        if self._padding_range is None:
            values = self._unfiltered_paddings()
            self._padding_range = (min(values), max(values)) if values else (0.0, 0.0)
        return self._padding_range

    def _unfiltered_paddings(self) -> set[float]:
        """The paddings of the unfiltered body pairs, counted without listing the pairs.

        Pairs fall in two kinds, robot-robot and robot-other (two other
        bodies are anchored: always filtered). A kind's padding counts when
        some unfiltered pair of the kind has no padding of its own: its
        pairs, less those the rule filters, corrected for the filters set
        explicitly, less the unfiltered pairs with a padding of their own.
        """
        filtered, padding, robot = self._filtered, self._padding, self._is_robot
        n_robot = int(robot.sum())
        n_other = len(robot) - n_robot
        anchored_robot = filtered.anchored & robot
        n_anchored = int(anchored_robot.sum())
        _, sizes = np.unique(filtered.group[robot], return_counts=True)
        _, anchored_sizes = np.unique(filtered.group[anchored_robot], return_counts=True)
        pairs = [n_robot * (n_robot - 1) // 2, n_robot * n_other]  # robot-robot, robot-other
        ruled = [n_anchored * (n_anchored - 1) // 2
                 + int((sizes * (sizes - 1) // 2).sum())
                 - int((anchored_sizes * (anchored_sizes - 1) // 2).sum()),
                 n_anchored * n_other]
        for (a, b), value in filtered.pairs.items():
            if robot[a] or robot[b]:
                ruled[int(robot[a] and robot[b]) ^ 1] += int(value) - int(
                    filtered._scalar_rule(a, b))
        values = set()
        own = [0, 0]
        for (a, b), value in padding.pairs.items():
            if (robot[a] or robot[b]) and not filtered[a, b]:
                values.add(float(value))
                own[int(robot[a] and robot[b]) ^ 1] += 1
        for kind, base in enumerate((padding.self_padding, padding.environment_padding)):
            if pairs[kind] - ruled[kind] - own[kind] > 0:
                values.add(float(base))
        return values

    def _max_padding(self) -> float:
        return self._padding_bounds()[1]


def check_padding(name: str, value) -> None:
    try:
        ok = math.isfinite(float(value))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a finite number (metres), got {value!r}")
