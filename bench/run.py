"""Run the benchmark suite: update-and-query cycles, side by side, in one process.

Usage::

    python -m bench.run                     # every scene and query, prints the table
    python -m bench.run --quick             # fewer rounds and N <= 100
    python -m bench.run --write-readme      # also replace the table in README.md

For each scene and query every system is built once and warmed up, then the
systems take turns: each round runs every system for a batch of cycles in
turn, so drifts in machine speed hit all of them alike. A ratio is computed
per round (ours / Drake, ours / raw FCL, both measured in that round) and
reported as min / median / max over the rounds. Nothing here asserts a time:
benchmarks print numbers, tests assert behaviour.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import re
import statistics
import sys
import time

import numpy as np

from bench.scenes import query_points, random_scene, robot_scene
from bench.systems import QUERIES, Drake, Ours, OursArray, RawFcl

README_START = "<!-- bench:start -->"
README_END = "<!-- bench:end -->"


def _time_batch(system, query: str, cycles: int, start: int, count: int) -> float:
    """Seconds per cycle over ``count`` consecutive cycles."""
    t0 = time.perf_counter()
    for k in range(count):
        system.cycle((start + k) % cycles, query)
    return (time.perf_counter() - t0) / count


def measure(spec, query: str, rounds: int, budget_s: float, points) -> dict:
    """Per-round seconds per cycle for each system, alternating systems every round."""
    systems = [cls(spec, points) for cls in (Drake, Ours, OursArray, RawFcl)]
    cycles = spec.X_PF.shape[0]
    for system in systems:  # warm-up: caches, first snapshots, lazy imports
        _time_batch(system, query, cycles, 0, 2)
    # Size the batch so one round of the slowest system takes about budget_s / rounds.
    probe = max(_time_batch(s, query, cycles, 0, 2) for s in systems)
    batch = max(1, min(200, int(budget_s / rounds / max(probe, 1e-6) / len(systems))))
    times = {s.label: [] for s in systems}
    gc.disable()
    try:
        for r in range(rounds):
            order = systems if r % 2 == 0 else systems[::-1]
            for system in order:
                times[system.label].append(_time_batch(system, query, cycles, r * batch, batch))
    finally:
        gc.enable()
    return times


def _ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    r = [x / y for x, y in zip(a, b)]
    return min(r), statistics.median(r), max(r)


def _fmt_ratio(r) -> str:
    return f"{r[1]:.2f} ({r[0]:.2f}–{r[2]:.2f})"


def _resident_bytes() -> int:
    """Current resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _build_and_query(system: str, n: int) -> int:
    """Resident-set growth (bytes) of building an n-geometry scene and querying it once.

    Runs in a fresh process (see :func:`memory_growth`). A 50-geometry
    scene is built first and kept alive: it pays the imports and first-use
    caches, and since it is not freed its pages cannot be reused.
    """
    cls = {"geometry_core": Ours, "Drake": Drake}[system]
    points = query_points(1)
    warm = cls(random_scene(50, cycles=1, seed=7), points)
    warm.cycle(0, "penetration")
    spec = random_scene(n, cycles=1, seed=5)
    gc.collect()
    before = _resident_bytes()
    scene = cls(spec, points)
    scene.cycle(0, "penetration")
    scene.poses = None  # the harness's per-cycle inputs are not the scene's
    gc.collect()
    return _resident_bytes() - before


def memory_growth(n: int = 1000) -> dict[str, tuple[int, int]]:
    """Resident-set growth (bytes) of each system at ``n`` and ``2 n`` geometries.

    Each measurement runs in a fresh process (:func:`_build_and_query`), the
    same way for both systems, so that one measurement's freed pages cannot
    hide the next one's growth. Growth counts whole pages, including what the
    allocators hold but have not handed out, so small figures vary by a few
    hundred KiB between runs. Two sizes show how memory scales.
    """
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def growth(system: str, size: int) -> int:
        code = ("from bench.run import _build_and_query; "
                f"print(_build_and_query({system!r}, {size}))")
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=root)
        return int(run.stdout.split()[-1])

    return {system: (growth(system, n), growth(system, 2 * n))
            for system in ("geometry_core", "Drake")}


def _memory_line(n: int) -> str:
    found = memory_growth(n)
    parts = []
    for system, (at_n, at_2n) in found.items():
        parts.append(f"{system} {at_n / 2**20:.1f} MiB ({at_n / n / 1024:.1f} KiB a geometry) "
                     f"at N={n}, {at_2n / 2**20:.1f} MiB at N={2 * n}")
    return ("Memory (resident-set growth while building the scene and querying it once, "
            "each in a fresh process): " + "; ".join(parts) + ".")


def _drake_version() -> str:
    from importlib.metadata import version

    return version("drake")


def run(quick: bool) -> str:
    scenes = [random_scene(10), random_scene(100), robot_scene()]
    if not quick:
        scenes.insert(2, random_scene(1000))
    rounds = 5 if quick else 9
    budget = 1.5 if quick else 6.0
    points = query_points(100)
    lines = [
        f"Measured {datetime.date.today()} on {platform.machine()} "
        f"({os.cpu_count()} cores), Python {platform.python_version()}, "
        f"Drake {_drake_version()}, "
        f"one thread, {rounds} alternating rounds. Times are medians per cycle; "
        "ratios are per-round median (min–max). Lower is better; ratio < 1 means "
        "geometry_core is faster.",
        "",
        "| scene | query | Drake ms | ours ms | ours/Drake | array API ms | array/Drake "
        "| raw FCL ms | ours/raw FCL |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for spec in scenes:
        for query in QUERIES:
            times = measure(spec, query, rounds, budget, points)
            drake, ours = times["Drake"], times["geometry_core"]
            array, raw = times["geometry_core (array API)"], times["raw python-fcl"]
            row = (f"| {spec.name} | {query} | {statistics.median(drake) * 1e3:.3f} "
                   f"| {statistics.median(ours) * 1e3:.3f} | {_fmt_ratio(_ratio(ours, drake))} "
                   f"| {statistics.median(array) * 1e3:.3f} "
                   f"| {_fmt_ratio(_ratio(array, drake))} "
                   f"| {statistics.median(raw) * 1e3:.3f} | {_fmt_ratio(_ratio(ours, raw))} |")
            lines.append(row)
            print(row, file=sys.stderr, flush=True)
    lines += ["", _memory_line(300 if quick else 1000)]
    return "\n".join(lines)


def write_readme(table: str, path: str = "README.md", start: str = README_START,
                 end: str = README_END) -> None:
    """Replace the text between the ``start`` and ``end`` markers of ``path`` by ``table``."""
    text = open(path).read()
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no {start} ... {end} section")
    text = pattern.sub(lambda _: f"{start}\n{table}\n{end}", text)
    open(path, "w").write(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, N <= 100")
    parser.add_argument("--write-readme", action="store_true",
                        help="replace the table between the bench markers in README.md")
    args = parser.parse_args(argv)
    np.seterr(all="ignore")
    table = run(args.quick)
    print(table)
    if args.write_readme:
        write_readme(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
