"""Load time of a URDF chain of many links: linear, and under a second for 10 000 links.

Usage::

    python -m bench.many_links                  # 1 000, 10 000 and 20 000 links
    python -m bench.many_links --sizes 1000 10000 --checker --node --node-links 1000 10000

Each size is a serial chain of revolute joints, one box per link, written
to a temporary file and loaded with ``load_urdf`` (``--repeat`` runs, in
this process, imports done first). Printed per size: the median and the
best wall seconds per load, the median CPU seconds, microseconds per link
(median), the ratio of each size's time per link to the smallest size's
(1.0 is linear), and, when pydrake imports, the seconds Drake's own parser
takes for the same file (``Parser`` plus ``Finalize``, measured
alternately with ours) and our time over Drake's, for sizes up to
``--drake-max-links`` (1 000: Drake's time grows with the square of the
links here, 12 s and 0.9 GB at 2 000).
``--checker`` adds ``CollisionChecker.from_urdf`` (median seconds, and the
peak of the memory it allocates, traced in one more, untimed run).
``--node`` times the ROS node's path for a robot description: one load
(``load_robot_description``), the copy the clearance checker gets, the
checker; for each of ``--node-links`` (default 1 000, the node's bound in
``nodes/limits.py``; a larger size is timed with the node's link, joint and
geometry bounds raised to it for the run).
The machine's load average is printed with the figures: on a shared
machine the times are only comparable within one run. Nothing here
asserts a time.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc


def chain_urdf(n: int) -> str:
    """A serial chain of ``n`` links, one box each, revolute joints."""
    links = "".join(f'<link name="l{i}"><collision><geometry><box size="0.1 0.1 0.1"/>'
                    '</geometry></collision></link>\n' for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                     f'<child link="l{i}"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>'
                     '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
                     for i in range(1, n))
    return f'<robot name="chain">\n{links}{joints}</robot>\n'


def drake_parse_seconds(path: str) -> float:
    """Seconds for Drake's parser to add the URDF to a plant and finalize it."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    start = time.perf_counter()
    plant, _ = AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.0)
    Parser(plant).AddModels(path)
    plant.Finalize()
    return time.perf_counter() - start


def _has_drake() -> bool:
    try:
        import pydrake.multibody.parsing  # noqa: F401
    except ImportError:
        return False
    return True


def measure(sizes: list[int], repeat: int, drake_max_links: int = 0,
            checker: bool = False) -> list[dict]:
    import trimesh  # noqa: F401  (imports out of the timing)

    from geometry_core.clearance import CollisionChecker
    from geometry_core.scene_files import load_urdf

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = os.path.join(folder, f"chain{n}.urdf")
            with open(path, "w") as file:
                file.write(chain_urdf(n))
            ours, drakes = [], []
            drake = n <= drake_max_links
            for _ in range(repeat):  # alternately, so both see the same machine
                ours.append(_timed(load_urdf, path))
                if drake:
                    drakes.append(drake_parse_seconds(path))
            wall = statistics.median(w for w, _ in ours)
            row = {"links": n, "seconds": round(wall, 3),
                   "best_seconds": round(min(w for w, _ in ours), 3),
                   "cpu_seconds": round(statistics.median(c for _, c in ours), 3),
                   "us_per_link": round(1e6 * wall / n, 1)}
            if drake:
                row["drake_seconds"] = round(statistics.median(drakes), 3)
                row["ours_over_drake"] = round(wall / statistics.median(drakes), 2)
            if checker:
                row["checker_seconds"] = round(statistics.median(
                    _timed(CollisionChecker.from_urdf, path)[0] for _ in range(repeat)), 3)
                row["checker_peak_mb"] = round(_peak_bytes(CollisionChecker.from_urdf, path)
                                               / 2**20, 1)
            rows.append(row)
    base = rows[0]["us_per_link"]
    for row in rows:
        row["per_link_ratio"] = round(row["us_per_link"] / base, 2)
    return rows


def measure_node(repeat: int, links: int = 1000) -> dict:
    """The node's path for a new robot_description: load, the checker's copy, the checker.

    Above the node's bounds (``nodes/limits.py``) they are raised to ``links``
    for the run, and put back.
    """
    from geometry_core.clearance import CollisionChecker
    from geometry_core_nodes import limits
    from geometry_core_nodes.scene_inputs import load_robot_description

    text = chain_urdf(links)
    bounds = ("MAX_ROBOT_LINKS", "MAX_ROBOT_JOINTS", "MAX_ROBOT_GEOMETRIES")
    saved = {name: getattr(limits, name) for name in bounds}
    times: dict[str, list[float]] = {}
    try:
        for name in bounds:
            setattr(limits, name, max(saved[name], links))
        for _ in range(repeat):
            start = time.perf_counter()
            robot = load_robot_description(text, {})
            loaded = time.perf_counter()
            shared = copy.deepcopy(robot)
            copied = time.perf_counter()
            CollisionChecker(shared)
            done = time.perf_counter()
            for key, value in (("load", loaded - start), ("copy", copied - loaded),
                               ("checker", done - copied), ("total", done - start)):
                times.setdefault(key, []).append(value)
    finally:
        for name, value in saved.items():
            setattr(limits, name, value)
    return {"links": links, "bounds_raised": links > saved["MAX_ROBOT_LINKS"],
            **{f"{key}_seconds": round(statistics.median(v), 3) for key, v in times.items()}}


def _peak_bytes(load, path: str) -> int:
    """Peak of the memory traced while ``load(path)`` runs (numpy's arrays included)."""
    tracemalloc.start()
    try:
        load(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _timed(load, path: str) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    load(path)
    return time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 20_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--drake-max-links", type=int, default=1000,
                        help="time Drake's parser up to this size (0: never)")
    parser.add_argument("--checker", action="store_true",
                        help="also time CollisionChecker.from_urdf and trace its peak memory")
    parser.add_argument("--node", action="store_true",
                        help="also time the ROS node's robot_description path")
    parser.add_argument("--node-links", type=int, nargs="+", default=[1000],
                        help="sizes of the node's path (above 1 000 the node's bounds are "
                             "raised for the run)")
    args = parser.parse_args(argv)
    before = os.getloadavg()
    result = {"rows": measure(args.sizes, args.repeat,
                              args.drake_max_links if _has_drake() else 0, args.checker)}
    if args.node:
        result["node"] = [measure_node(args.repeat, n) for n in args.node_links]
    result["load_average"] = {"before": [round(v, 2) for v in before],
                              "after": [round(v, 2) for v in os.getloadavg()],
                              "cpus": os.cpu_count()}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
