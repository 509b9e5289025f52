"""Real arms against Drake: the Franka Panda and the UR5 from example-robot-data.

Usage::

    python -m bench.robots                   # both arms, prints the table
    python -m bench.robots --quick           # fewer configurations and rounds
    python -m bench.robots --write-docs     # also docs/benchmarks.md's table and plot
    python -m bench.robots --profile         # where our cycle's time goes (cProfile)

Each arm is loaded from its URDF (collision meshes hulled, adjacent links
filtered) among anchored obstacles (a table and eight primitives around
it), so a cycle asks about self pairs and environment pairs. The
configurations are random within the joint limits; the link poses come
from ``geometry_core.scene_files.kinematics`` and are made before timing,
for both systems.

Drake gets the same scene in its own SceneGraph: each collision mesh
converted to ``.obj`` with trimesh (the only mesh Drake hulls), each
geometry on a frame at the same pose, the same collision filters (copied
pair by pair from ours). A cycle, in both: set every link's pose, take a
snapshot, ask for penetrations, or for signed distances within 0.1 m. The
systems take turns in alternating rounds (``bench/run.py``'s harness), and
the answers are compared pair by pair on every configuration.

Load time: our ``load_urdf`` with the mesh caches emptied (a first load)
and then warm (the same robot again in the process), against Drake's
``Parser`` into a ``MultibodyPlant`` with a ``SceneGraph`` (on the .obj
copy, finalized); both followed by their first penetration query.
"""

from __future__ import annotations

import datetime
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.robot_files import drake_copy, obj_copy, package_roots, robots_share
from bench.run import _fmt_ratio, _ratio, _time_batch, emit_table, table_parser
from bench.systems import Drake, _primitive
from geometry_core import (
    Box,
    Convex,
    Cylinder,
    GeometryInstance,
    GeometrySet,
    ProximityProperties,
    RigidTransform,
    Sphere,
)
from geometry_core.proximity.narrowphase import polytope_rescues, solver_fallbacks
from geometry_core.scene_files import load_urdf

SECTION = "robots"
MAX_DISTANCE = 0.1
ARMS = {
    "Panda": "panda_description/urdf/panda.urdf",
    "UR5": "ur_description/urdf/ur5_robot.urdf",
}
QUERIES = ("penetration", "signed_distance")


def environment(seed: int = 3) -> list[tuple[str, object, np.ndarray]]:
    """A table under the arm and eight primitives within its reach: (name, shape, X_WG)."""
    rng = np.random.default_rng(seed)
    X_table = np.eye(4)
    X_table[2, 3] = -0.026  # its top 1 mm below the base: near, not touching
    items = [("table", Box(1.6, 1.6, 0.05), X_table)]
    for k in range(8):
        angle, radius, height = rng.uniform(0, 2 * np.pi), rng.uniform(0.35, 0.7), \
            rng.uniform(0.1, 0.9)
        X = np.eye(4)
        X[:3, 3] = [radius * np.cos(angle), radius * np.sin(angle), height]
        kind = k % 3
        shape = (Sphere(rng.uniform(0.04, 0.1)) if kind == 0 else
                 Box(*rng.uniform(0.05, 0.15, 3)) if kind == 1 else
                 Cylinder(rng.uniform(0.03, 0.06), rng.uniform(0.1, 0.3)))
        items.append((f"obstacle_{k}", shape, X))
    return items


def random_configurations(scene, count: int, seed: int = 11) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    joints = [scene.kinematics.joint(n) for n in scene.kinematics.joint_names()]
    bounds = [(max(j.lower, -np.pi), min(j.upper, np.pi)) for j in joints]
    return [{j.name: float(rng.uniform(lo, hi)) for j, (lo, hi) in zip(joints, bounds)}
            for _ in range(count)]


class OursArm:
    """geometry_core: the URDF loaded by load_urdf, plus the anchored environment."""

    label = "geometry_core"

    def __init__(self, urdf: Path, share: Path, configurations) -> None:
        self.scene = load_urdf(urdf, package_roots=package_roots(share))
        sg = self.scene.scene_graph
        self.src = self.scene.kinematics.source_id
        self.names = {g: k for k, g in self.scene.geometries.items()}
        for name, shape, X_WG in environment():
            g = sg.register_anchored_geometry(
                self.src, GeometryInstance(RigidTransform(X_WG), shape, name))
            sg.assign_role(self.src, g, ProximityProperties())
            self.names[g] = f"world::{name}"
        # The root link sits on the table at the world origin: filtered, as a base bolted
        # to its table is in practice (and in Drake's copy alike).
        root = self.scene.frames[self.scene.kinematics.root_frames()[0]] \
            if self.scene.kinematics.root_frames() else None
        if root is not None:
            table = next(g for g, n in self.names.items() if n == "world::table")
            sg.exclude_collisions_between(GeometrySet(root), GeometrySet(table))
        self.poses = [self.scene.kinematics.calc_frame_poses(q) for q in configurations]

    def cycle(self, c: int, query: str) -> int:
        sg = self.scene.scene_graph
        sg.set_poses(self.src, self.poses[c])
        q = sg.query_object()
        if query == "penetration":
            return len(q.compute_point_pair_penetration())
        return len(q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE))

    def answers(self, c: int) -> tuple[dict, dict]:
        """``{(name_A, name_B): (depth or distance, nhat_BA_W)}`` of configuration ``c``."""
        sg = self.scene.scene_graph
        sg.set_poses(self.src, self.poses[c])
        self.snapshot = q = sg.query_object()
        return (_keyed(self.names, q.compute_point_pair_penetration(), "depth"),
                _keyed(self.names, q.compute_signed_distance_pairwise_closest_points(
                    MAX_DISTANCE), "distance"))

    def pair_geometry(self, key) -> tuple[tuple, tuple]:
        """Shapes and world poses of a named pair, in the last answered configuration."""
        inspector = self.scene.scene_graph.model_inspector()
        by_name = {n: g for g, n in self.names.items()}
        ids = [by_name[n] for n in key]
        return (tuple(inspector.get_shape(g) for g in ids),
                tuple(self.snapshot.get_pose_in_world(g).get_as_matrix4() for g in ids))


class DrakeArm(Drake):
    """pydrake's SceneGraph with the same geometries, poses and filters as :class:`OursArm`.

    Its cycle is :class:`bench.systems.Drake`'s: a FramePoseVector fixed on
    the source's pose port, the query object evaluated from the output port.
    """

    label = "Drake"

    def __init__(self, ours: OursArm, mesh_dir: Path) -> None:
        from pydrake import geometry as dg
        from pydrake.math import RigidTransform as DrakeTransform
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        self.sg = builder.AddSystem(dg.SceneGraph())
        src = self.sg.RegisterSource("bench")
        inspector = ours.scene.scene_graph.model_inspector()
        drake_frames = {frame_id: self.sg.RegisterFrame(src, dg.GeometryFrame(link))
                        for link, frame_id in ours.scene.frames.items()}
        self.frames = list(drake_frames.values())
        ids = {}
        for g, name in ours.names.items():
            if inspector.get_proximity_properties(g) is None:
                continue
            shape = _drake_shape(inspector.get_shape(g), mesh_dir)
            instance = dg.GeometryInstance(
                DrakeTransform(inspector.get_pose_in_frame(g).get_as_matrix4()), shape, name)
            frame = inspector.get_frame_id(g)
            if inspector.is_anchored(g):
                ids[g] = self.sg.RegisterAnchoredGeometry(src, instance)
            else:
                ids[g] = self.sg.RegisterGeometry(src, drake_frames[frame], instance)
            self.sg.AssignRole(src, ids[g], dg.ProximityProperties())
        manager = self.sg.collision_filter_manager()
        ours_ids = list(ids)
        for i, a in enumerate(ours_ids):
            for b in ours_ids[i + 1:]:
                if inspector.collision_filtered(a, b):
                    manager.Apply(dg.CollisionFilterDeclaration().ExcludeBetween(
                        dg.GeometrySet(ids[a]), dg.GeometrySet(ids[b])))
        self.names = {ids[g]: ours.names[g] for g in ids}
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.sg_context = self.sg.GetMyContextFromRoot(self.context)
        self.port = self.sg.get_source_pose_port(src)
        self.query_port = self.sg.get_query_output_port()
        # World poses of every link per configuration, from our kinematics (Drake's frames
        # hang off the world): the same poses, made before timing.
        self.poses = []
        for c in range(len(ours.poses)):
            ours.scene.scene_graph.set_poses(ours.src, ours.poses[c])
            snapshot = ours.scene.scene_graph.query_object()
            self.poses.append([DrakeTransform(
                snapshot.get_pose_in_world(frame_id).get_as_matrix4())
                for frame_id in drake_frames])
        self.FramePoseVector = dg.FramePoseVector
        self.from_rpy = False  # poses are prebuilt, as in OursArm

    def answers(self, c: int) -> tuple[dict, dict]:
        q = self.query(c)
        return (_keyed(self.names, q.ComputePointPairPenetration(), "depth"),
                _keyed(self.names, q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE),
                       "distance"))


def _keyed(names: dict, results, field: str) -> dict:
    """Results by ``(name_A, name_B)`` in name order, normal flipped to match the order."""
    keyed = {}
    for r in results:
        a, b = names[r.id_A], names[r.id_B]
        n = np.asarray(r.nhat_BA_W, float).ravel()
        keyed[(a, b) if a < b else (b, a)] = (getattr(r, field), n if a < b else -n)
    return keyed


def _drake_shape(shape, mesh_dir: Path):
    from pydrake import geometry as dg

    if isinstance(shape, Convex):
        return dg.Convex(str(obj_copy(Path(shape.filename), mesh_dir)), shape.scale3)
    return _primitive(dg, shape)


def _support(shape, X_WG: np.ndarray, n_W: np.ndarray) -> float:
    """max over the shape of n_W · p_WP: each shape's support function, from its definition."""
    R, p = X_WG[:3, :3], X_WG[:3, 3]
    n_G = R.T @ n_W
    if isinstance(shape, Box):
        return float(n_W @ p + np.abs(n_G) @ shape.half_extents())
    if isinstance(shape, Sphere):
        return float(n_W @ p + shape.radius * np.linalg.norm(n_W))
    if isinstance(shape, Cylinder):
        radial = np.hypot(n_G[0], n_G[1])
        return float(n_W @ p + shape.radius * radial + 0.5 * shape.length * abs(n_G[2]))
    return float(n_W @ p + np.max(shape.hull()[0] @ n_G))


def _overlap(shapes, X, n_BA_W: np.ndarray) -> float:
    """How far A and B overlap along n_BA_W (negative: the gap between them along it)."""
    (shape_A, shape_B), (X_A, X_B) = shapes, X
    return _support(shape_B, X_B, n_BA_W) + _support(shape_A, X_A, -n_BA_W)


def compare(ours: OursArm, drake: DrakeArm, count: int) -> dict:
    """Pair-by-pair agreement over ``count`` configurations, with a referee.

    Where a distance (pair apart) or a depth differs by more than 1e-6 m,
    each system's normal is checked with the shapes' support functions
    (written here from the shapes' definitions, sharing no code with either
    system): along a unit direction n, the gap ``-overlap(n)`` is a lower
    bound on the distance and ``overlap(n)`` an upper bound on the depth
    (the minimum translation). So a distance is proven exact when its own
    normal's gap equals it; a depth is a valid translation when its normal's
    overlap equals it, and the smaller valid depth is the better one.
    """
    found = {"configs": count, "penetrating": 0, "pen_only_ours": 0, "pen_only_drake": 0,
             "depth": 0.0, "depth_differ": 0, "depth_ours_better": 0, "near": 0,
             "dist_only_ours": 0, "only_ours_exact": 0, "dist_only_drake": 0, "apart": 0.0,
             "apart_differ": 0,
             "apart_ours_exact": 0, "overlap": 0.0, "self_pairs": 0, "env_pairs": 0}
    for c in range(count):
        pen_o, dist_o = ours.answers(c)
        pen_d, dist_d = drake.answers(c)
        found["penetrating"] += len(pen_o)
        found["pen_only_ours"] += len(pen_o.keys() - pen_d.keys())
        found["pen_only_drake"] += len(pen_d.keys() - pen_o.keys())
        for k in pen_o.keys() & pen_d.keys():
            delta = abs(pen_o[k][0] - pen_d[k][0])
            found["depth"] = max(found["depth"], delta)
            if delta > 1e-6:
                found["depth_differ"] += 1
                shapes, X = ours.pair_geometry(k)
                valid = [abs(_overlap(shapes, X, n) - depth) < 1e-9
                         for depth, n in (pen_o[k], pen_d[k])]
                smaller_ours = pen_o[k][0] < pen_d[k][0]
                found["depth_ours_better"] += valid[0] and (smaller_ours or not valid[1])
        found["near"] += len(dist_o)
        for k in dist_o.keys() - dist_d.keys():
            # Reported by us only: proven within MAX_DISTANCE when our normal's gap says so.
            found["dist_only_ours"] += 1
            shapes, X = ours.pair_geometry(k)
            found["only_ours_exact"] += abs(-_overlap(shapes, X, dist_o[k][1])
                                            - dist_o[k][0]) < 1e-9
        found["dist_only_drake"] += len(dist_d.keys() - dist_o.keys())
        for k in dist_o.keys() & dist_d.keys():
            (d_o, n_o), (d_d, _) = dist_o[k], dist_d[k]
            delta = abs(d_o - d_d)
            if min(d_o, d_d) > 0:
                found["apart"] = max(found["apart"], delta)
                if delta > 1e-6:
                    found["apart_differ"] += 1
                    shapes, X = ours.pair_geometry(k)
                    found["apart_ours_exact"] += abs(-_overlap(shapes, X, n_o) - d_o) < 1e-9
            else:
                found["overlap"] = max(found["overlap"], delta)
        for k in dist_o:
            found["env_pairs" if any(n.startswith("world::") for n in k)
                  else "self_pairs"] += 1
    return found


def measure(systems, query: str, cycles: int, rounds: int, budget_s: float) -> dict:
    """Per-round seconds per cycle of each system, alternating the order every round."""
    for system in systems:
        _time_batch(system, query, cycles, 0, 2)
    probe = max(_time_batch(s, query, cycles, 0, 2) for s in systems)
    batch = max(1, min(200, int(budget_s / rounds / max(probe, 1e-6) / len(systems))))
    times = {s.label: [] for s in systems}
    gc.disable()
    try:
        for r in range(rounds):
            for system in (systems if r % 2 == 0 else systems[::-1]):
                times[system.label].append(_time_batch(system, query, cycles, r * batch, batch))
    finally:
        gc.enable()
    return times


def drake_load_seconds(urdf: Path) -> float:
    """Seconds for Drake to parse ``urdf``, finalize, and answer a first penetration query."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    t0 = time.perf_counter()
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    Parser(plant).AddModels(str(urdf))
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    scene_graph.get_query_output_port().Eval(
        scene_graph.GetMyContextFromRoot(context)).ComputePointPairPenetration()
    return time.perf_counter() - t0


def load_times(urdf: Path, share: Path, rounds: int) -> dict[str, list[float]]:
    """Seconds to load and answer a first penetration query, alternating systems."""
    from geometry_core import shapes

    copy = drake_copy(urdf, share, Path(tempfile.mkdtemp(prefix="drake_copy_")))

    def ours(cold: bool) -> float:
        if cold:
            shapes._file_cache.clear()
            shapes._hull_cache.clear()
        t0 = time.perf_counter()
        scene = load_urdf(urdf, package_roots=package_roots(share))
        scene.scene_graph.query_object().compute_point_pair_penetration()
        return time.perf_counter() - t0

    def drake() -> float:
        return drake_load_seconds(copy)

    ours(True), drake()  # imports and first-use costs of both, outside the rounds
    times = {"ours (first load)": [], "ours (warm)": [], "Drake": []}
    for r in range(rounds):
        steps = [("ours (first load)", lambda: ours(True)), ("ours (warm)", lambda: ours(False)),
                 ("Drake", drake)]
        for label, step in (steps if r % 2 == 0 else steps[::-1]):
            times[label].append(step())
    return times


def run(quick: bool) -> str:
    share = robots_share()
    if share is None:
        raise SystemExit("example-robot-data is not installed: "
                         "pip install example-robot-data==6.0.0")
    from importlib.metadata import version

    cycles = 30 if quick else 100
    rounds = 5 if quick else 9
    budget = 1.5 if quick else 6.0
    mesh_dir = Path(tempfile.mkdtemp(prefix="drake_obj_"))
    lines = [
        f"Measured {datetime.date.today()} on {platform.machine()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}, Drake {version('drake')}, one thread, {rounds} "
        f"alternating rounds over {cycles} random configurations within the joint limits; "
        "each arm among a table and 8 primitives. Times are medians per cycle; ratios "
        "per-round median (min–max); < 1 means geometry_core is faster.",
        "",
        "| arm | query | Drake ms | ours ms | ours/Drake | pairs compared | differ |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    loads = []
    fallbacks, rescues = solver_fallbacks.value, polytope_rescues.value
    for arm, rel in ARMS.items():
        urdf = share / "robots" / rel
        configurations = random_configurations(load_urdf(
            urdf, package_roots=package_roots(share)), cycles)
        ours = OursArm(urdf, share, configurations)
        drake = DrakeArm(ours, mesh_dir)
        agreement = compare(ours, drake, cycles)
        for query in QUERIES:
            times = measure([drake, ours], query, cycles, rounds, budget)
            d, o = times["Drake"], times["geometry_core"]
            if query == "penetration":
                pairs = f"{agreement['penetrating']} penetrating"
                differ = (f"{agreement['pen_only_ours']} only ours, "
                          f"{agreement['pen_only_drake']} only Drake; depth differs (> 1e-6 m) "
                          f"on {agreement['depth_differ']} (by ≤ {agreement['depth']:.0e} m), "
                          f"ours the smaller valid translation on "
                          f"{agreement['depth_ours_better']}")
            else:
                pairs = (f"{agreement['near']} within {MAX_DISTANCE} m "
                         f"({agreement['self_pairs']} self, {agreement['env_pairs']} env)")
                differ = (f"{agreement['dist_only_ours']} only ours (proven within "
                          f"{MAX_DISTANCE} m: {agreement['only_ours_exact']}), "
                          f"{agreement['dist_only_drake']} only Drake; apart: "
                          f"{agreement['apart_differ']} differ (by ≤ "
                          f"{agreement['apart']:.0e} m), ours proven exact on "
                          f"{agreement['apart_ours_exact']}; overlapping: Δ ≤ "
                          f"{agreement['overlap']:.0e} m")
            row = (f"| {arm} | {query} | {statistics.median(d) * 1e3:.3f} "
                   f"| {statistics.median(o) * 1e3:.3f} | {_fmt_ratio(_ratio(o, d))} "
                   f"| {pairs} | {differ} |")
            lines.append(row)
            print(row, file=sys.stderr, flush=True)
        t = load_times(urdf, share, rounds)
        first, warm, drk = (statistics.median(t[k]) for k in
                            ("ours (first load)", "ours (warm)", "Drake"))
        loads.append(f"| {arm} | {drk * 1e3:.0f} | {first * 1e3:.0f} | "
                     f"{_fmt_ratio(_ratio(t['ours (first load)'], t['Drake']))} | "
                     f"{warm * 1e3:.0f} | {_fmt_ratio(_ratio(t['ours (warm)'], t['Drake']))} |")
        print(loads[-1], file=sys.stderr, flush=True)
    lines += ["", "Load, then a first penetration query (ms, median of the rounds):", "",
              "| arm | Drake (Parser + Finalize) | ours, first load | ours/Drake "
              "| ours, warm | warm/Drake |",
              "|---|---:|---:|---:|---:|---:|", *loads]
    lines += ["", f"Answers of ours over the whole run (comparison, timed rounds, loads) from "
              f"the direction search (solver_fallbacks): {solver_fallbacks.value - fallbacks}; "
              f"from the exact polytope path in place of an untrusted first answer "
              f"(polytope_rescues): {polytope_rescues.value - rescues}."]
    return "\n".join(lines)


def profile(arm: str = "Panda", query: str = "signed_distance", cycles: int = 100) -> str:
    """cProfile of our cycle on one arm: the functions with the most own time."""
    import cProfile
    import io
    import pstats

    share = robots_share()
    urdf = share / "robots" / ARMS[arm]
    configurations = random_configurations(load_urdf(
        urdf, package_roots=package_roots(share)), cycles)
    ours = OursArm(urdf, share, configurations)
    for c in range(cycles):
        ours.cycle(c, query)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5):
        for c in range(cycles):
            ours.cycle(c, query)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    total = stats.total_tt
    compiled = sum(v[2] for k, v in stats.stats.items() if k[2] == "<method 'pairs' of "
                   "'geometry_core._native.Model' objects>")
    inspector = ours.scene.scene_graph.model_inspector()
    sizes = sorted(len(inspector.get_shape(g).hull()[0]) for g in ours.scene.geometries.values()
                   if isinstance(inspector.get_shape(g), Convex))
    out.write(f"{arm}, {query}: {total / (5 * cycles) * 1e3:.3f} ms a cycle, "
              f"{compiled / total:.0%} of it in the compiled pair loop (Model.pairs); "
              f"hull vertices: {sizes}\n")
    stats.sort_stats("tottime").print_stats(8)
    return out.getvalue()


def main(argv=None) -> int:
    parser = table_parser(__doc__, "fewer configurations and rounds", "robots")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of our Panda cycle instead")
    args = parser.parse_args(argv)
    np.seterr(all="ignore")
    if args.profile:
        for query in QUERIES:
            print(f"## Panda, {query}\n{profile(query=query)}")
        return 0
    return emit_table(run(args.quick), args.write_docs, SECTION)


if __name__ == "__main__":
    sys.exit(main())
