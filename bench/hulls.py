"""Two hulls against Drake, by vertex count: what a hull's support function costs.

Usage::

    python -m bench.hulls                   # 8, 128 and 512 vertices, prints the table
    python -m bench.hulls --quick           # fewer configurations and rounds
    python -m bench.hulls --write-docs     # also docs/benchmarks.md's table and plot

Each hull is the convex hull of points spread evenly on a sphere of radius
0.1 m, written once as an .obj with trimesh; both systems hull that same
file (our ``Convex(filename)``, Drake's ``Convex``). Two such hulls hang on
two frames; a configuration is a random relative pose, apart by up to 5 cm
for signed distance (so every pair is within the 0.1 m query) or
overlapping by up to 5 cm for penetration. A cycle, in both: set both
frames' poses, take a snapshot, ask the query. The systems take turns in
alternating rounds (``bench.robots.measure``), and before timing the
answers are compared configuration by configuration.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench.robots import measure
from bench.run import _fmt_ratio, _ratio, emit_table, table_parser
from geometry_core import (
    Convex,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
)

SECTION = "hulls"
VERTICES = (8, 128, 512)
RADIUS = 0.1
MAX_DISTANCE = 0.1
QUERIES = ("penetration", "signed_distance")


def sphere_obj(count: int, out_dir: Path) -> Path:
    """An .obj of the hull of ``count`` evenly spread points on a sphere (all are vertices)."""
    import trimesh

    i = np.arange(count) + 0.5
    phi = np.arccos(1.0 - 2.0 * i / count)
    theta = np.pi * (1.0 + 5.0**0.5) * i
    points = RADIUS * np.c_[np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi),
                            np.cos(phi)]
    hull = trimesh.Trimesh(points).convex_hull
    path = out_dir / f"sphere_{count}.obj"
    path.write_text(trimesh.exchange.obj.export_obj(
        hull, include_normals=False, include_color=False, include_texture=False))
    return path


def configurations(query: str, count: int, seed: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(X_WA, X_WB)`` pairs: B's centre along a random direction from A's, both turned."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    poses = []
    for _ in range(count):
        gap = rng.uniform(0.005, 0.05) * (1.0 if query == "signed_distance" else -1.0)
        u = rng.normal(size=3)
        X_WA, X_WB = np.eye(4), np.eye(4)
        X_WA[:3, :3], X_WB[:3, :3] = Rotation.random(2, random_state=rng).as_matrix()
        X_WB[:3, 3] = (2.0 * RADIUS + gap) * u / np.linalg.norm(u)
        poses.append((X_WA, X_WB))
    return poses


class OursPair:
    """geometry_core: two Convex geometries on two frames."""

    label = "geometry_core"

    def __init__(self, obj: Path, poses) -> None:
        self.sg = SceneGraph()
        self.src = self.sg.register_source("hulls")
        self.frames = [self.sg.register_frame(self.src, GeometryFrame(f"f{k}")) for k in (0, 1)]
        for k, frame in enumerate(self.frames):
            g = self.sg.register_geometry(
                self.src, frame, GeometryInstance(RigidTransform(), Convex(str(obj)), f"g{k}"))
            self.sg.assign_role(self.src, g, ProximityProperties())
        self.poses = [dict(zip(self.frames, (RigidTransform(X) for X in pair)))
                      for pair in poses]

    def _query(self, c: int):
        self.sg.set_poses(self.src, self.poses[c])
        return self.sg.query_object()

    def cycle(self, c: int, query: str) -> int:
        q = self._query(c)
        if query == "penetration":
            return len(q.compute_point_pair_penetration())
        return len(q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE))

    def answer(self, c: int, query: str) -> float:
        q = self._query(c)
        if query == "penetration":
            found = q.compute_point_pair_penetration()
            return found[0].depth if found else float("nan")
        found = q.compute_signed_distance_pairwise_closest_points(MAX_DISTANCE)
        return found[0].distance if found else float("nan")


class DrakePair:
    """pydrake's SceneGraph with the same .obj on two frames and the same poses."""

    label = "Drake"

    def __init__(self, obj: Path, poses) -> None:
        from pydrake import geometry as dg
        from pydrake.math import RigidTransform as DrakeTransform
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        self.sg = builder.AddSystem(dg.SceneGraph())
        src = self.sg.RegisterSource("hulls")
        self.frames = [self.sg.RegisterFrame(src, dg.GeometryFrame(f"f{k}")) for k in (0, 1)]
        for k, frame in enumerate(self.frames):
            g = self.sg.RegisterGeometry(src, frame, dg.GeometryInstance(
                DrakeTransform(), dg.Convex(str(obj)), f"g{k}"))
            self.sg.AssignRole(src, g, dg.ProximityProperties())
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.sg_context = self.sg.GetMyContextFromRoot(self.context)
        self.port = self.sg.get_source_pose_port(src)
        self.query_port = self.sg.get_query_output_port()
        self.FramePoseVector = dg.FramePoseVector
        self.poses = [[DrakeTransform(X) for X in pair] for pair in poses]

    def _query(self, c: int):
        poses = self.FramePoseVector()
        for frame, X in zip(self.frames, self.poses[c]):
            poses.set_value(frame, X)
        self.port.FixValue(self.sg_context, poses)
        return self.query_port.Eval(self.sg_context)

    def cycle(self, c: int, query: str) -> int:
        q = self._query(c)
        if query == "penetration":
            return len(q.ComputePointPairPenetration())
        return len(q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE))

    def answer(self, c: int, query: str) -> float:
        q = self._query(c)
        if query == "penetration":
            found = q.ComputePointPairPenetration()
            return found[0].depth if found else float("nan")
        found = q.ComputeSignedDistancePairwiseClosestPoints(MAX_DISTANCE)
        return found[0].distance if found else float("nan")


def run(quick: bool) -> str:
    from importlib.metadata import version

    cycles = 30 if quick else 100
    rounds = 5 if quick else 9
    budget = 1.0 if quick else 4.0
    out_dir = Path(tempfile.mkdtemp(prefix="bench_hulls_"))
    lines = [
        f"Measured {datetime.date.today()} on {platform.machine()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}, Drake {version('drake')}, one thread, {rounds} "
        f"alternating rounds over {cycles} random poses of two hulls of points on a "
        f"{RADIUS} m sphere (centres 0.2 m apart plus 0.5–5 cm, or minus as much). Times are "
        "medians per cycle; ratios per-round median (min–max); < 1 means geometry_core is faster; "
        "a pose is answered when its pair penetrates (or lies within 0.1 m); Δ is the "
        "largest |ours − Drake| over the poses both answer.",
        "",
        "| vertices | query | Drake µs | ours µs | ours/Drake | poses answered (ours/Drake) "
        "| Δ (m) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for count in VERTICES:
        obj = sphere_obj(count, out_dir)
        for query in QUERIES:
            poses = configurations(query, cycles)
            ours, drake = OursPair(obj, poses), DrakePair(obj, poses)
            ours_values = np.array([ours.answer(c, query) for c in range(cycles)])
            drake_values = np.array([drake.answer(c, query) for c in range(cycles)])
            both = ~np.isnan(ours_values) & ~np.isnan(drake_values)
            delta = float(np.max(np.abs(ours_values - drake_values)[both], initial=0.0))
            found = f"{int(np.sum(~np.isnan(ours_values)))}/{int(np.sum(~np.isnan(drake_values)))}"
            times = measure([drake, ours], query, cycles, rounds, budget)
            d, o = times["Drake"], times["geometry_core"]
            row = (f"| {count} | {query} | {statistics.median(d) * 1e6:.1f} "
                   f"| {statistics.median(o) * 1e6:.1f} | {_fmt_ratio(_ratio(o, d))} "
                   f"| {found} | {delta:.0e} |")
            lines.append(row)
            print(row, file=sys.stderr, flush=True)
    return "\n".join(lines)


def main(argv=None) -> int:
    args = table_parser(__doc__, "fewer configurations and rounds", "hulls").parse_args(argv)
    np.seterr(all="ignore")
    return emit_table(run(args.quick), args.write_docs, SECTION)


if __name__ == "__main__":
    sys.exit(main())
