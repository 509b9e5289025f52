"""A world that changes while it runs: the cost of a change, beside the cost of a query.

Usage::

    python -m bench.live_world            # 300 000 cloud points, K = 1000 configurations
    python -m bench.live_world --quick    # 30 000 points, K = 200
    python -m bench.live_world --points 2000 --configs 5 --geometries 50 --rounds 1  # a smoke run

Scene graph, 1000 geometries (anchored spheres, boxes and capsules, and 20
on a moving frame): the time to add one sphere and take the next snapshot's
model (the model edited, not rebuilt), to move one geometry
(``change_pose``) and take it, and to remove one; beside a full rebuild of
the same model and beside one snapshot-and-query (``has_collisions``) of the
unchanged scene.

Two clouds of N points of one cell (a table the robot stands on, a box on
it, a wall): points drawn at random, in random order, 1% NaN rows; and an
organized cloud as a depth camera delivers it, its pixels row by row, NaN
where a ray meets nothing in range or the sensor drops a pixel.

Scene graph point cloud (``register_point_cloud`` in the world, beside the
same 1000 geometries): the time to replace its N points
(``change_point_cloud``) and answer the next ``has_collisions`` (the
grid built on that first query), for either cloud, against the same query
with a dozen primitives in place of the cloud.

Collision checker (the Panda of example-robot-data): the time to replace a
point cloud of N points (non-finite points skipped, grid built, self filter
at the default configuration in the same construction), either cloud,
against one 30 Hz frame (33 ms); ``check_configs_collision_free`` over K
random configurations against the robot alone, against a dozen primitive
obstacles, against the cloud, against the cloud and the dozen, and against
the organized cloud; and a cloud of 1000 points against the
same 1000 points added one by one as spheres (verdicts checked equal).
Medians of rounds in one process, by this thread's CPU time (``--wall``:
wall-clock time); it prints numbers and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "clearance"))

import robots  # noqa: E402

from geometry_core import (  # noqa: E402
    Box,
    Capsule,
    GeometryFrame,
    GeometryInstance,
    ProximityProperties,
    RigidTransform,
    RollPitchYaw,
    SceneGraph,
    Sphere,
)
from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.proximity.engine import ModelCache  # noqa: E402

#: The clock: this thread's CPU time (``--wall`` for wall-clock time). On a
#: machine shared with other work, wall time counts the waits for a core;
#: every call timed here runs on the calling thread alone.
CLOCK = time.thread_time


def timed(fn, rounds: int = 7, setup=None) -> float:
    """Median over rounds of one call of ``fn`` (milliseconds); ``setup`` runs untimed first."""
    samples = []
    for _ in range(rounds):
        if setup is not None:
            setup()
        start = CLOCK()
        fn()
        samples.append((CLOCK() - start) * 1e3)
    return statistics.median(samples)


def proximity(instance: GeometryInstance) -> GeometryInstance:
    instance.set_proximity_properties(ProximityProperties())
    return instance


def scene_of(count: int, rng) -> tuple:
    sg = SceneGraph()
    source = sg.register_source("bench")
    frame = sg.register_frame(source, GeometryFrame("moving"))
    sg.set_poses(source, {frame: RigidTransform([0.0, 0.0, 0.5])})
    ids = []
    for k in range(count):
        shape = (Sphere(0.05), Box(0.1, 0.08, 0.06), Capsule(0.03, 0.1))[k % 3]
        X = RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.uniform(-3, 3, 3))
        instance = proximity(GeometryInstance(X, shape, f"g{k}"))
        if k % 50 == 0:
            ids.append(sg.register_geometry(source, frame, instance))
        else:
            ids.append(sg.register_anchored_geometry(source, instance))
    return sg, source, ids


def bench_scene_graph(rounds: int, count: int = 1000) -> list[tuple[str, float]]:
    rng = np.random.default_rng(1)
    sg, source, ids = scene_of(count, rng)

    def model():
        ModelCache.of(sg.collision_model())

    def query():
        sg.query_object().has_collisions()

    query()
    added = []

    def add():
        added.append(sg.register_anchored_geometry(source, proximity(GeometryInstance(
            RigidTransform(rng.uniform(-3, 3, 3)), Sphere(0.05), f"new{len(added)}"))))
        model()

    def remove():
        sg.remove_geometry(source, added.pop())
        model()

    def move():
        sg.change_pose(source, ids[count // 2], RigidTransform(rng.uniform(-3, 3, 3)))
        model()

    def rebuild():
        sg._cache.clear()
        model()

    return [
        ("add one sphere, next model", timed(add, rounds, setup=query)),
        ("remove it, next model", timed(remove, rounds, setup=lambda: (add(), query()))),
        ("move one geometry, next model", timed(move, rounds, setup=query)),
        ("rebuild the whole model", timed(rebuild, rounds, setup=query)),
        ("snapshot + has_collisions, unchanged", timed(query, rounds)),
    ]


def camera_cloud(count: int, rng) -> np.ndarray:
    """A depth camera's view of a cell: a table top, a box on it, a wall, and 1% NaN rows."""
    table = rng.uniform([0.2, -0.6, 0.0], [0.9, 0.6, 0.0], (count * 6 // 10, 3))
    table[:, 2] = rng.normal(0.0, 0.002, len(table))
    block = rng.uniform([0.45, -0.1, 0.0], [0.6, 0.05, 0.25], (count * 2 // 10, 3))
    wall = rng.uniform([-0.6, -0.8, 0.0], [-0.6, 0.8, 1.2], (count - len(table) - len(block), 3))
    wall[:, 0] += rng.normal(0.0, 0.002, len(wall))
    points = np.vstack([table, block, wall])
    points[rng.choice(len(points), count // 100, replace=False)] = np.nan
    return points


def depth_camera_cloud(count: int, rng) -> np.ndarray:
    """The same cell seen by a depth camera: an organized cloud, pixels row by row.

    A pinhole camera at (1.5, 0, 1.3) m looking at (0.1, 0, 0.2), 70 degrees
    across, rays cast on the table the robot stands on (z = 0, 3.6 by 3 m),
    the box on it and the wall (x = -0.6, 1.5 m high); depth noise growing with the square of the
    range. A pixel is NaN where its ray meets nothing within 4 m and, at
    random, for 1% of pixels (the dropouts of a real sensor), as a camera
    driver's organized cloud keeps its holes.
    """
    width = max(1, round((count * 4 / 3) ** 0.5))
    height = -(-count // width)
    eye = np.array([1.5, 0.0, 1.3])
    forward = np.array([0.1, 0.0, 0.2]) - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    f = width / 2 / np.tan(np.radians(35.0))
    u = (np.arange(width) + 0.5 - width / 2) / f
    v = (np.arange(height) + 0.5 - height / 2) / f
    rays = (forward + u[None, :, None] * right + v[:, None, None] * down).reshape(-1, 3)[:count]
    rays /= np.linalg.norm(rays, axis=1)[:, None]
    t = np.full(count, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        # The table (z = 0) and the wall (x = -0.6), each within its edges.
        for axis, at, edges in ((2, 0.0, ((0, -0.6, 3.0), (1, -1.5, 1.5))),
                                (0, -0.6, ((1, -1.5, 1.5), (2, 0.0, 1.5)))):
            s = (at - eye[axis]) / rays[:, axis]
            hit = s > 0
            for other, low, high in edges:
                c = eye[other] + s * rays[:, other]
                hit &= (c >= low) & (c <= high)
            t = np.where(hit & (s < t), s, t)
        # The box, by slabs.
        low, high = np.array([0.45, -0.1, 0.0]), np.array([0.6, 0.05, 0.25])
        a, b = (low - eye) / rays, (high - eye) / rays
        near = np.minimum(a, b).max(axis=1)
        far = np.maximum(a, b).min(axis=1)
        hit = (near <= far) & (near > 0)
        t = np.where(hit & (near < t), near, t)
    t[t > 4.0] = np.nan
    t += rng.normal(0.0, 1.0, count) * 0.001 * t * t
    t[rng.random(count) < 0.01] = np.nan
    return eye + t[:, None] * rays


#: A scene of 1000 geometries none of which touch (seed 3's do: has_collisions
#: would answer before it reached a cloud).
SCENE_SEED = 4


def bench_scene_cloud(cloud_points: np.ndarray, rounds: int, count: int = 1000) -> dict:
    """Replace a scene graph's cloud and query; the same query with a dozen primitives.

    The scene's geometries touch none of each other (checked), so that
    ``has_collisions`` reaches the cloud (and builds its grid) or the dozen.
    """
    sg, source, _ = scene_of(count, np.random.default_rng(SCENE_SEED))
    if sg.query_object().has_collisions():
        raise RuntimeError(f"the scene of seed {SCENE_SEED} has touching geometries")
    cloud = sg.register_point_cloud(source, sg.world_frame_id(), cloud_points, 0.005)
    dozen_sg, dozen_source, _ = scene_of(count, np.random.default_rng(SCENE_SEED))
    for k, (kind, size, p) in enumerate(robots.OBSTACLES * 2):
        shape = Sphere(*size) if kind == "sphere" else Box(*size)
        dozen_sg.register_anchored_geometry(dozen_source, proximity(GeometryInstance(
            RigidTransform(np.array(p) + [0.0, 0.0, 0.4 * (k >= 6)]), shape, f"dozen{k}")))
    answers = (sg.query_object().has_collisions(), dozen_sg.query_object().has_collisions())

    def replace():
        sg.change_point_cloud(source, cloud, cloud_points)
        sg.query_object().has_collisions()

    return {"replace": timed(replace, rounds),
            "cloud query": timed(lambda: sg.query_object().has_collisions(), rounds),
            "dozen query": timed(lambda: dozen_sg.query_object().has_collisions(), rounds),
            "answers": answers}


def dozen_primitives(checker: CollisionChecker) -> None:
    for k, (kind, size, p) in enumerate(robots.OBSTACLES * 2):
        shape = Sphere(*size) if kind == "sphere" else Box(*size)
        offset = np.array([0.0, 0.0, 0.0]) if k < 6 else np.array([0.0, 0.0, 0.4])
        checker.add_collision_shape_to_body("dozen", "world", shape,
                                            RigidTransform(np.array(p) + offset))


def bench_checker(points: int, K: int, rounds: int) -> tuple[list, dict]:
    rng = np.random.default_rng(2)
    urdf, srdf, _ = robots.ARMS["panda"]

    def checker():
        return CollisionChecker.from_urdf(urdf, srdf=srdf, package_roots=robots.PACKAGE_ROOTS)

    cloud_points = camera_cloud(points, rng)
    organized_points = depth_camera_cloud(points, rng)
    alone, dozen, cloud, both = checker(), checker(), checker(), checker()
    organized = checker()
    dozen_primitives(dozen)
    dozen_primitives(both)
    report = cloud.add_point_cloud("camera", cloud_points, 0.005)
    organized_report = organized.add_point_cloud("camera", organized_points, 0.005)
    both.add_point_cloud("camera", cloud_points, 0.005)
    qs = robots.random_configurations(alone, K, 5)
    replace = timed(lambda: cloud.add_point_cloud("camera", cloud_points, 0.005), rounds)
    replace_organized = timed(
        lambda: organized.add_point_cloud("camera", organized_points, 0.005), rounds)
    held = timed(lambda: (alone.add_collision_shape_to_body(
        "held", "panda_hand", Box(0.04, 0.1, 0.1), RigidTransform([0.0, 0.0, 0.1])),
        alone.check_config_collision_free(qs[0])), rounds,
        setup=lambda: alone.remove_all_added_collision_shapes("held"))
    alone.remove_all_added_collision_shapes("held")
    checks = {}
    for name, c in (("robot alone", alone), ("a dozen primitives", dozen),
                    (f"cloud of {report.kept} points", cloud),
                    ("cloud and the dozen", both),
                    (f"organized cloud of {organized_report.kept} points", organized)):
        checks[name] = timed(lambda c=c: c.check_configs_collision_free(qs), rounds) / K * 1e3
    # The same 1000 points as a cloud and as spheres added one by one.
    few = cloud_points[np.isfinite(cloud_points).all(axis=1)][
        rng.choice(report.kept, min(1000, report.kept), replace=False)]
    small, spheres = checker(), checker()
    small.add_point_cloud("camera", few, 0.005)
    kept = small.get_all_added_point_clouds()["camera"][0]
    for p in kept:
        spheres.add_collision_shape_to_body("spheres", "world", Sphere(0.005), RigidTransform(p))
    same = bool(np.array_equal(small.check_configs_collision_free(qs),
                               spheres.check_configs_collision_free(qs)))
    t_small = timed(lambda: small.check_configs_collision_free(qs), rounds) / K * 1e3
    t_spheres = timed(lambda: spheres.check_configs_collision_free(qs), rounds) / K * 1e3
    info = {"report": report, "replace": replace, "held": held, "checks": checks,
            "organized": (organized_report, replace_organized),
            "small": (len(kept), t_small, t_spheres, same)}
    return [], info


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--wall", action="store_true", help="time by the wall clock")
    parser.add_argument("--points", type=int, help="cloud size (300 000; --quick 30 000)")
    parser.add_argument("--configs", type=int, help="K configurations (1000; --quick 200)")
    parser.add_argument("--rounds", type=int, help="rounds per median (7; --quick 3)")
    parser.add_argument("--geometries", type=int, default=1000,
                        help="geometries of the scene graph (1000)")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.thread_time
    print("clock:", "wall" if args.wall else "this thread's CPU time")
    points, K, rounds = (30_000, 200, 3) if args.quick else (300_000, 1000, 7)
    points = args.points or points
    K = args.configs or K
    rounds = args.rounds or rounds
    count = args.geometries
    rows = bench_scene_graph(rounds, count)
    print(f"Scene graph of {count} geometries (ms, median of", rounds, "rounds)")
    print("| change | ms | / rebuild |")
    print("|---|---:|---:|")
    rebuild = dict(rows)["rebuild the whole model"]
    for name, t in rows:
        print(f"| {name} | {t:.3f} | {t / rebuild:.2f} |")
    scene = bench_scene_cloud(camera_cloud(points, np.random.default_rng(3)), rounds, count)
    organized = bench_scene_cloud(depth_camera_cloud(points, np.random.default_rng(3)), rounds,
                                  count)
    print()
    print(f"Scene graph point cloud of {points} points beside the {count} geometries (ms)")
    print(f"| change_point_cloud + has_collisions | {scene['replace']:.1f} ms | "
          f"{scene['replace'] / 33.3:.2f} of a 30 Hz frame |")
    print(f"| change_point_cloud + has_collisions, organized cloud | "
          f"{organized['replace']:.1f} ms | {organized['replace'] / 33.3:.2f} of a 30 Hz frame |")
    print(f"| snapshot + has_collisions, the cloud | {scene['cloud query']:.3f} ms | "
          f"{scene['cloud query'] / scene['dozen query']:.2f} of the dozen |")
    print(f"| snapshot + has_collisions, a dozen primitives instead | "
          f"{scene['dozen query']:.3f} ms | 1.00 |")
    _, info = bench_checker(points, K, rounds)
    report = info["report"]
    print()
    print(f"Panda: point cloud of {points} points ({report.non_finite} non-finite skipped, "
          f"{report.self_filtered} self-filtered, {report.kept} kept)")
    print(f"| replace the cloud | {info['replace']:.1f} ms | {info['replace'] / 33.3:.2f} "
          "of a 30 Hz frame |")
    organized_report, replace_organized = info["organized"]
    print(f"| replace the cloud, organized ({organized_report.non_finite} non-finite skipped, "
          f"{organized_report.self_filtered} self-filtered, {organized_report.kept} kept) | "
          f"{replace_organized:.1f} ms | {replace_organized / 33.3:.2f} of a 30 Hz frame |")
    print(f"| add a held box + one check | {info['held']:.2f} ms | |")
    print()
    print(f"check_configs_collision_free, K = {K} (µs per configuration)")
    print("| world | µs | / a dozen primitives |")
    print("|---|---:|---:|")
    dozen = info["checks"]["a dozen primitives"]
    for name, t in info["checks"].items():
        print(f"| {name} | {t:.1f} | {t / dozen:.2f} |")
    n, t_cloud, t_spheres, same = info["small"]
    print()
    print(f"{n} points as a cloud: {t_cloud:.1f} µs, as {n} spheres: {t_spheres:.1f} µs per "
          f"configuration (cloud / spheres {t_cloud / t_spheres:.2f}); verdicts equal: {same}")


if __name__ == "__main__":
    main()
