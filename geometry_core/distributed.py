"""Collision checks of many configurations over a Dask cluster (``dask.distributed``).

A user who labels millions of configurations (learned collision checkers,
motion-planning data sets) spreads them over machines::

    from dask.distributed import Client, LocalCluster
    from geometry_core import distributed
    from geometry_core.clearance import CollisionChecker

    checker = CollisionChecker.from_urdf("panda.urdf", srdf="panda.srdf",
                                         environment="scene.yaml")
    with Client(LocalCluster(n_workers=4)) as client:   # or Client("tcp://HOST:8786")
        free = distributed.check_configs_collision_free(client, checker, qs, chunk=10000)

The functions cut ``qs`` into chunks, map them over the cluster's workers and
return the answers of the serial call, in order. The checker does not cross
as itself: it crosses as a :class:`CheckerRecipe`, what rebuilds it (the
URDF's text with its mesh files, the SRDF's text, the environment's shapes
and poses, the filters and paddings as they are now), sent once to every
worker (``Client.scatter(..., broadcast=True)``); each worker process builds
the checker on first use and keeps it for every later chunk of that recipe
(:func:`worker_checker`). Workers need geometry_core and dask installed,
not the robot's files.

:func:`chunk_labels` is the whole per-chunk computation (verdicts and
smallest distances of one array of configurations, from a recipe): another
engine (Ray's ``ray.remote``, a multiprocessing pool) can map it just the
same.

Dask is the only engine used here; this module imports it on first call, so
the rest of geometry_core works without it.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from geometry_core.clearance import CollisionChecker, RobotClearance, RobotCollisionType
from geometry_core.math import RigidTransform
from geometry_core.scene import SceneGraph
from geometry_core.scene_files.urdf import resolve_mesh_path
from geometry_core.scene_graph import (
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    Role,
)
from geometry_core.shapes import Convex, Mesh

__all__ = ["CheckerRecipe", "calc_robot_clearances", "check_configs_collision_free",
           "chunk_labels", "label_configurations", "sample_configurations", "worker_checker",
           "worker_builds"]

_ENVIRONMENT_SOURCE = "environment"   # the source CollisionChecker copies obstacles into
_ENVIRONMENT_PREFIX = "environment::"


class CheckerRecipe:
    """What rebuilds a :class:`CollisionChecker` in another process: files as text and bytes.

    Make one with :meth:`of` (from a checker built by
    ``CollisionChecker.from_urdf``) or :meth:`from_urdf`; :meth:`build` makes
    the checker. A recipe holds no path of this machine: the URDF's mesh
    files travel as bytes and are written to a private folder where the
    recipe is built. :attr:`key` names its content (SHA-256), so a worker
    builds each recipe once.

    Raises
    ------
    ValueError
        If a file cannot be read, or the checker was not built from a URDF
        file.
    """

    def __init__(self, urdf_text: str, mesh_files: Mapping[str, bytes],
                 srdf_text: str | None, environment: list[tuple],
                 self_padding: float, environment_padding: float, edge_step_size: float,
                 body_names: list[str] | None = None, filtered: np.ndarray | None = None,
                 padding: np.ndarray | None = None,
                 added: list[tuple] | None = None) -> None:
        self.urdf_text = urdf_text
        self.mesh_files = dict(mesh_files)
        self.srdf_text = srdf_text
        #: ``(body name, geometry name, shape, X_WG (4, 4), mesh file name or None)``.
        self.environment = list(environment)
        self.self_padding = float(self_padding)
        self.environment_padding = float(environment_padding)
        self.edge_step_size = float(edge_step_size)
        self.body_names = body_names
        self.filtered = filtered
        self.padding = padding
        #: Added shapes, in order: ``(group, body name, shape, X_BG (4, 4), mesh file or None)``.
        self.added = list(added or [])
        self.key = hashlib.sha256(pickle.dumps(self._content(), protocol=4)).hexdigest()

    def _content(self) -> tuple:
        return (self.urdf_text, sorted(self.mesh_files.items()), self.srdf_text,
                [(b, g, pickle.dumps(s, protocol=4), np.asarray(X).tobytes(), m)
                 for b, g, s, X, m in self.environment],
                self.self_padding, self.environment_padding, self.edge_step_size,
                self.body_names,
                None if self.filtered is None else self.filtered.tobytes(),
                None if self.padding is None else self.padding.tobytes(),
                [(g, b, pickle.dumps(s, protocol=4), np.asarray(X).tobytes(), m)
                 for g, b, s, X, m in self.added])

    def __repr__(self) -> str:
        return (f"CheckerRecipe(key={self.key[:12]}..., meshes={len(self.mesh_files)}, "
                f"environment geometries={len(self.environment)})")

    # ------------------------------------------------------------ making

    @classmethod
    def from_urdf(cls, urdf: str | os.PathLike, srdf: str | os.PathLike | None = None,
                  environment: SceneGraph | str | os.PathLike | None = None,
                  package_roots: Mapping[str, str | os.PathLike] | None = None,
                  self_padding: float = 0.0, environment_padding: float = 0.0,
                  edge_step_size: float = 0.05, srdf_is_text: bool = False) -> CheckerRecipe:
        """The recipe of ``CollisionChecker.from_urdf`` with these arguments."""
        return cls.of(CollisionChecker.from_urdf(
            urdf, srdf=srdf, environment=environment, package_roots=package_roots,
            self_padding=self_padding, environment_padding=environment_padding,
            edge_step_size=edge_step_size, srdf_is_text=srdf_is_text))

    @classmethod
    def of(cls, checker: CollisionChecker) -> CheckerRecipe:
        """The recipe of a checker as it is now (filters, paddings and added shapes included).

        Raises
        ------
        ValueError
            If the checker was not made by ``CollisionChecker.from_urdf``, or
            holds a point cloud (clouds do not travel in a recipe yet).
        """
        sources = getattr(checker, "_sources", None)
        if sources is None:
            raise ValueError("the checker was not built by CollisionChecker.from_urdf: build a "
                             "CheckerRecipe from the URDF instead")
        urdf = Path(sources["urdf"])
        urdf_text, mesh_files = _portable_urdf(urdf, sources["package_roots"] or {})
        srdf = sources["srdf"]
        srdf_text = None
        if srdf is not None:
            srdf_text = str(srdf) if sources["srdf_is_text"] else _read_text(Path(srdf))
        if checker.get_all_added_point_clouds():
            raise ValueError("the checker holds point clouds, which do not travel in a "
                             "CheckerRecipe yet: remove them, or add them on the workers")
        environment = _environment_of(checker, mesh_files)
        added = []
        for group, shapes in checker.get_all_added_collision_shapes().items():
            for description in shapes:
                shape = description.shape
                added.append((group, description.body_name, shape,
                              description.pose_in_body.get_as_matrix4(),
                              _ship_mesh(shape, "added", mesh_files)))
        return cls(urdf_text, mesh_files, srdf_text, environment,
                   sources["self_padding"], sources["environment_padding"],
                   checker.edge_step_size, list(checker.body_names),
                   np.asarray(checker._filtered), np.asarray(checker._padding), added)

    # ------------------------------------------------------------ building

    def build(self) -> CollisionChecker:
        """Make the checker (the mesh files written to a folder removed at exit).

        Raises
        ------
        ValueError
            If the rebuilt checker's bodies differ from the recorded ones.
        """
        folder = Path(tempfile.mkdtemp(prefix="geometry-core-recipe-"))
        atexit.register(shutil.rmtree, folder, True)
        for name, data in self.mesh_files.items():
            (folder / name).write_bytes(data)
        urdf = folder / "robot.urdf"
        urdf.write_text(self.urdf_text, encoding="utf-8")
        checker = CollisionChecker.from_urdf(
            urdf, srdf=self.srdf_text, srdf_is_text=True,
            environment=self._environment_scene(folder) if self.environment else None,
            self_padding=self.self_padding, environment_padding=self.environment_padding,
            edge_step_size=self.edge_step_size)
        if self.body_names is not None:
            if checker.body_names != self.body_names:
                raise ValueError(f"the rebuilt checker's bodies {checker.body_names} differ "
                                 f"from the recipe's {self.body_names}")
            self._apply_tables(checker)
        for group, body, shape, X_BG, mesh in self.added:
            if mesh is not None:
                shape = type(shape)(str(folder / mesh), shape.scale3)
            checker.add_collision_shape_to_body(group, body, shape,
                                                RigidTransform(np.asarray(X_BG)))
        return checker

    def _environment_scene(self, folder: Path) -> SceneGraph:
        sg = SceneGraph()
        source = sg.register_source("obstacles")
        frames: dict[str, object] = {}
        for body, name, shape, X_WG, mesh in self.environment:
            if mesh is not None:
                shape = type(shape)(str(folder / mesh), shape.scale3)
            instance = GeometryInstance(RigidTransform(np.asarray(X_WG)), shape, name)
            instance.set_proximity_properties(ProximityProperties())
            if body == "world":
                sg.register_anchored_geometry(source, instance)
                continue
            if body not in frames:
                # The frame at the identity: X_WF X_FG = X_WG exactly.
                frames[body] = sg.register_frame(source, GeometryFrame(body))
                sg.set_poses(source, {frames[body]: RigidTransform()})
            sg.register_geometry(source, frames[body], instance)
        return sg

    def _apply_tables(self, checker: CollisionChecker) -> None:
        """Set the filters and paddings that differ from the rebuilt checker's defaults."""
        B = len(self.body_names)
        for a in range(B):
            for b in range(a + 1, B):
                robot = checker._is_robot[a] or checker._is_robot[b]
                if not robot:
                    continue
                if checker._filtered[a, b] != self.filtered[a, b]:
                    checker.set_collision_filtered_between(a, b, bool(self.filtered[a, b]))
                if checker._padding[a, b] != self.padding[a, b]:
                    checker.set_padding_between(a, b, float(self.padding[a, b]))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None


def _portable_urdf(urdf: Path, package_roots: Mapping) -> tuple[str, dict[str, bytes]]:
    """The URDF's text with every mesh renamed to a file that travels with it."""
    text = _read_text(urdf)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise ValueError(f"{urdf}: not XML: {err}") from None
    files: dict[str, bytes] = {}
    names: dict[Path, str] = {}
    for mesh in root.iter("mesh"):
        source = resolve_mesh_path(mesh.get("filename", ""), urdf.parent, package_roots)
        if source not in names:
            names[source] = f"mesh_{len(names)}{source.suffix.lower()}"
            files[names[source]] = _read_bytes(source)
        mesh.set("filename", names[source])
    return ET.tostring(root, encoding="unicode"), files


def _environment_of(checker: CollisionChecker, mesh_files: dict[str, bytes]) -> list[tuple]:
    """The obstacles the checker copied, as (body, name, shape, X_WG, mesh file)."""
    inspector = checker._sg.model_inspector()
    out = []
    for g in inspector.get_all_geometry_ids(Role.PROXIMITY):
        if inspector.get_owning_source_name(g) != _ENVIRONMENT_SOURCE:
            continue
        body = checker.body_names[checker._body_of[g]]
        if body.startswith(_ENVIRONMENT_PREFIX) and \
                body[len(_ENVIRONMENT_PREFIX):] in checker._chain.links:
            body = body[len(_ENVIRONMENT_PREFIX):]   # renamed beside a robot link: undo
        name = inspector.get_name(g)
        prefix = f"{_ENVIRONMENT_PREFIX}{body}::"
        name = name[len(prefix):] if name.startswith(prefix) else name
        shape = inspector.get_shape(g)
        mesh = _ship_mesh(shape, "environment", mesh_files)
        out.append((body, name, shape, checker._X_BG[g].copy(), mesh))
    return out


def _ship_mesh(shape, prefix: str, mesh_files: dict[str, bytes]) -> str | None:
    """The name under which a Mesh's or Convex's file travels (its bytes into mesh_files)."""
    filename = getattr(shape, "filename", None)
    if not (isinstance(shape, (Mesh, Convex)) and filename):
        return None
    source = Path(filename)
    name = f"{prefix}_{len(mesh_files)}{source.suffix.lower()}"
    mesh_files[name] = _read_bytes(source)
    return name


# ---------------------------------------------------------------- on the workers

_built: dict[str, CollisionChecker] = {}
_builds: dict[str, int] = {}
_lock = threading.Lock()


def worker_checker(recipe: CheckerRecipe) -> CollisionChecker:
    """This process's checker of ``recipe``: built on first use, then reused."""
    checker = _built.get(recipe.key)
    if checker is None:
        with _lock:
            checker = _built.get(recipe.key)
            if checker is None:
                checker = _built[recipe.key] = recipe.build()
                _builds[recipe.key] = _builds.get(recipe.key, 0) + 1
    return checker


def worker_builds() -> dict[str, int]:
    """How many times this process built each recipe (by key): 1 each, as designed."""
    return dict(_builds)


def chunk_labels(recipe: CheckerRecipe, qs: np.ndarray, max_distance: float = np.inf,
                 parallelize=1) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts and smallest distances of one chunk: what every engine maps.

    Returns
    -------
    free : (K,) bool
        ``check_configs_collision_free(qs)``.
    min_distance : (K,) float
        ``calc_min_distances(qs, max_distance)`` (inf where no pair is within).
    """
    checker = worker_checker(recipe)
    return (checker.check_configs_collision_free(qs, parallelize=parallelize),
            checker.calc_min_distances(qs, max_distance, parallelize=parallelize))


def _chunk_collision_free(recipe: CheckerRecipe, qs: np.ndarray, parallelize) -> np.ndarray:
    return worker_checker(recipe).check_configs_collision_free(qs, parallelize=parallelize)


def _chunk_clearances(recipe: CheckerRecipe, qs: np.ndarray, influence_distance: float,
                      parallelize) -> list[tuple]:
    """Clearance tables as rows, geometry ids as the checker's row numbers (ids are per process)."""
    checker = worker_checker(recipe)
    row_of = checker._world.row_of
    out = []
    for table in checker.calc_robot_clearances(qs, influence_distance, parallelize=parallelize):
        out.append((table.robot_indices(), table.other_indices(),
                    [int(t) for t in table.collision_types()], table.distances().copy(),
                    table.jacobians().copy(),
                    [(row_of[a], row_of[b]) for a, b in table.geometry_ids()]))
    return out


# ---------------------------------------------------------------- on the client

def _recipe(checker) -> CheckerRecipe:
    if isinstance(checker, CheckerRecipe):
        return checker
    if isinstance(checker, CollisionChecker):
        return CheckerRecipe.of(checker)
    raise TypeError(f"checker must be a CollisionChecker or a CheckerRecipe, got "
                    f"{type(checker).__name__}")


def _chunks(qs: np.ndarray, chunk: int) -> list[np.ndarray]:
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    return [qs[k:k + chunk] for k in range(0, len(qs), int(chunk))]


def _validated(checker: CollisionChecker | None, recipe: CheckerRecipe, qs) -> np.ndarray:
    """qs as a float (K, n) array, checked here so a bad value fails before any work is sent."""
    if checker is None:
        checker = worker_checker(recipe)
    return checker._positions(qs, "qs", batch=True)


def _map(client, function: Callable, recipe: CheckerRecipe, chunks: list[np.ndarray],
         arguments: tuple, progress: Callable[[int, int], None] | None) -> list:
    """function(recipe, chunk, *arguments) for every chunk on the cluster, results in order."""
    from dask.distributed import as_completed

    shared = client.scatter(recipe, broadcast=True, hash=True)
    parts = client.scatter(chunks)
    futures = [client.submit(function, shared, part, *arguments, pure=False)
               for part in parts]
    index = {future.key: k for k, future in enumerate(futures)}
    results: list = [None] * len(futures)
    done = 0
    if progress is not None:
        progress(0, len(futures))
    for future in as_completed(futures):
        results[index[future.key]] = future.result()
        done += 1
        if progress is not None:
            progress(done, len(futures))
    return results


def check_configs_collision_free(client, checker: CollisionChecker | CheckerRecipe, qs,
                                 chunk: int = 10000, parallelize=1,
                                 progress: Callable[[int, int], None] | None = None
                                 ) -> np.ndarray:
    """Answer the checker's batch is-free check in chunks over a Dask cluster.

    Parameters
    ----------
    client : dask.distributed.Client
    checker : CollisionChecker or CheckerRecipe
    qs : (K, num_positions) float
    chunk : int
        Configurations per task.
    parallelize : bool or int
        Native threads per task on the worker (its ``parallelize=``).
    progress : callable, optional
        Called with (chunks done, chunks) as chunks finish.

    Returns
    -------
    (K,) bool, in the order of ``qs``: the serial call's answers.

    Raises
    ------
    ValueError
        As the checker's call (before any work is sent), or for a bad chunk.
    """
    recipe = _recipe(checker)
    qs = _validated(checker if isinstance(checker, CollisionChecker) else None, recipe, qs)
    parts = _chunks(qs, chunk)
    if not parts:
        return np.zeros(0, dtype=bool)
    return np.concatenate(_map(client, _chunk_collision_free, recipe, parts, (parallelize,),
                               progress))


def calc_robot_clearances(client, checker: CollisionChecker, qs, influence_distance: float,
                          chunk: int = 1000, parallelize=1,
                          progress: Callable[[int, int], None] | None = None
                          ) -> list[RobotClearance]:
    """Answer the checker's batch clearance tables in chunks over a Dask cluster.

    The tables are those of the serial call, in order; their geometry ids
    are ``checker``'s (the workers' checkers number their geometries on
    their own; rows travel by the checker's geometry order).

    Raises
    ------
    ValueError
        As the checker's call, or for a bad chunk.
    """
    if not isinstance(checker, CollisionChecker):
        raise TypeError("calc_robot_clearances needs the CollisionChecker whose geometry ids "
                        f"the tables name, got {type(checker).__name__}")
    influence_distance = float(influence_distance)
    if not influence_distance >= 0.0:
        raise ValueError(f"influence_distance must be non-negative, got {influence_distance!r}")
    recipe = CheckerRecipe.of(checker)
    qs = _validated(checker, recipe, qs)
    ids = list(checker._world.row_of)
    out = []
    for rows in _map(client, _chunk_clearances, recipe, _chunks(qs, chunk),
                     (influence_distance, parallelize), progress):
        for robot, other, types, distances, jacobians, pairs in rows:
            out.append(RobotClearance._from_rows(
                checker.num_positions, robot, other, [RobotCollisionType(t) for t in types],
                distances, jacobians, [(ids[a], ids[b]) for a, b in pairs]))
    return out


def label_configurations(client, checker: CollisionChecker | CheckerRecipe, qs,
                         chunk: int = 10000, max_distance: float = np.inf, parallelize=1,
                         progress: Callable[[int, int], None] | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chunk_labels` of every chunk over a Dask cluster: (free, min_distance), in order.

    Raises
    ------
    ValueError
        As the checker's calls, or for a bad chunk.
    """
    recipe = _recipe(checker)
    qs = _validated(checker if isinstance(checker, CollisionChecker) else None, recipe, qs)
    parts = _chunks(qs, chunk)
    if not parts:
        return np.zeros(0, dtype=bool), np.zeros(0)
    results = _map(client, chunk_labels, recipe, parts, (float(max_distance), parallelize),
                   progress)
    return (np.concatenate([free for free, _ in results]),
            np.concatenate([distance for _, distance in results]))


def sample_configurations(checker: CollisionChecker, count: int,
                          random_state: int | None = None) -> np.ndarray:
    """``count`` configurations uniform within the joint limits (±π where a joint has none)."""
    rng = np.random.default_rng(random_state)
    lower = np.maximum(checker._chain.lower, -np.pi)
    upper = np.minimum(checker._chain.upper, np.pi)
    return lower + rng.random((int(count), checker.num_positions)) * (upper - lower)


def text_progress(stream=None, width: int = 30) -> Callable[[int, int], None]:
    """A progress bar on ``stream`` (stderr): ``[#####.....] 3/10 chunks``."""
    stream = stream or sys.stderr

    def show(done: int, total: int) -> None:
        filled = width * done // max(total, 1)
        end = "\n" if done == total else ""
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} chunks{end}")
        stream.flush()

    return show
