"""Run the benchmark suite: update-and-query cycles, side by side, in one process.

Usage::

    python -m bench.run                     # every scene and query, prints the table
    python -m bench.run --quick             # fewer rounds and N <= 100
    python -m bench.run --write-docs        # also docs/benchmarks.md's table and plot

For each scene and query every system is built once and warmed up, then the
systems take turns: each round runs every system for a batch of cycles in
turn, so drifts in machine speed hit all of them alike. A ratio is computed
per round (ours / Drake, ours / the best peer of that round among Drake,
coal and pybullet, ours / raw FCL) and reported as min / median / max over
the rounds. Rows marked "rpy" build every pose inside the cycle from a
roll-pitch-yaw and a translation (see ``bench.systems``); the others hand
each system its own prebuilt pose objects. Before timing, the peers'
answers are compared with ours (pair sets, depths and distances), and the
table says how far apart they are. Nothing here asserts a time: benchmarks
print numbers, tests assert behaviour.
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
from pathlib import Path

import numpy as np

from bench.scenes import query_points, random_scene, robot_scene
from bench.systems import (
    QUERIES,
    Coal,
    Drake,
    Ours,
    OursArray,
    PyBullet,
    RawFcl,
    compare_answers,
    peers_apply,
)

SECTION = "bench"
DOCS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def _time_batch(system, query: str, cycles: int, start: int, count: int) -> float:
    """Seconds per cycle over ``count`` consecutive cycles."""
    t0 = time.perf_counter()
    for k in range(count):
        system.cycle((start + k) % cycles, query)
    return (time.perf_counter() - t0) / count


PEERS = ("Drake", "coal", "pybullet")
#: How far a peer's depth or distance may be from ours before a pair counts
#: as missing or extra (metres): Drake's penetration depths on curved pairs
#: are libccd's, off by up to 3e-2 m (see the accuracy table); coal's EPA is
#: converged; pybullet's ellipsoids are hulls of 128 points.
TOLERANCE = {"Drake": 5e-2, "coal": 1e-3, "pybullet": 5e-2}


def measure(spec, query: str, rounds: int, budget_s: float, points,
            from_rpy: bool = False) -> dict:
    """Per-round seconds per cycle for each system, alternating systems every round."""
    classes = [Drake, Ours, OursArray, RawFcl]
    if peers_apply(spec, query):
        classes += [Coal, PyBullet]
    systems = [cls(spec, points, from_rpy) for cls in classes]
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
        for system in systems:
            if hasattr(system, "close"):
                system.close()
    return times


def _ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    r = [x / y for x, y in zip(a, b)]
    return min(r), statistics.median(r), max(r)


def _best_peer(times: dict) -> list[float]:
    """Per round, the fastest of Drake, coal and pybullet that took part."""
    return [min(t) for t in zip(*(times[label] for label in PEERS if label in times))]


def _fmt_ratio(r) -> str:
    return f"{r[1]:.2f} ({r[0]:.2f}–{r[2]:.2f})"


def _ms(times: dict, label: str) -> str:
    return f"{statistics.median(times[label]) * 1e3:.3f}" if label in times else "—"


def answers_line(specs, cycles: int = 3) -> str:
    """How the peers' answers compare with ours on the first ``cycles`` cycles of ``specs``."""
    worst: dict[tuple[str, str], list] = {}
    for spec in specs:
        for query in ("penetration", "signed_distance"):
            for c in range(cycles):
                for label, found in compare_answers(spec, query, c, TOLERANCE).items():
                    entry = worst.setdefault((label, query), [0, 0, 0.0])
                    entry[0] += found["pairs"]
                    entry[1] += found["missing"] + found["extra"]
                    entry[2] = max(entry[2], found["max_error"])
    names = ", ".join(spec.name for spec in specs)
    parts = [f"{label} {query.replace('_', ' ')}: {differ} of {pairs} pairs differ, "
             f"max |Δ| {error:.0e} m" for (label, query), (pairs, differ, error) in worst.items()]
    return (f"Answers against ours ({names}; first {cycles} cycles; a pair differs when one "
            "side reports it and the other does not, beyond the peer's tolerance "
            f"{TOLERANCE}): " + "; ".join(parts) + ".")


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


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


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
        f"Drake {_version('drake')}, coal {_version('coal')}, pybullet "
        f"{_version('pybullet')}, "
        f"one thread, {rounds} alternating rounds. Times are medians per cycle; "
        "ratios are per-round median (min–max). Lower is better; ratio < 1 means "
        "geometry_core is faster. Best peer: the fastest of Drake, coal and pybullet "
        "in each round (coal and pybullet: penetration and signed distance on the "
        "random scenes). Poses: prebuilt objects, or built in the cycle from "
        "roll-pitch-yaw and translation (rpy).",
        "",
        "| scene | poses | query | Drake ms | coal ms | pybullet ms | ours ms | ours/Drake "
        "| ours/best peer | array API ms | array/best peer | raw FCL ms | ours/raw FCL |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    cases = [(spec, query, False) for spec in scenes for query in QUERIES]
    cases += [(spec, query, True) for spec in scenes if (spec.parent_of < 0).all()
              for query in QUERIES if query != "points"]
    for spec, query, from_rpy in cases:
        times = measure(spec, query, rounds, budget, points, from_rpy)
        ours, array = times["geometry_core"], times["geometry_core (array API)"]
        best = _best_peer(times)
        row = (f"| {spec.name} | {'rpy' if from_rpy else 'prebuilt'} | {query} "
               f"| {_ms(times, 'Drake')} | {_ms(times, 'coal')} | {_ms(times, 'pybullet')} "
               f"| {_ms(times, 'geometry_core')} "
               f"| {_fmt_ratio(_ratio(ours, times['Drake']))} "
               f"| {_fmt_ratio(_ratio(ours, best))} "
               f"| {_ms(times, 'geometry_core (array API)')} "
               f"| {_fmt_ratio(_ratio(array, best))} "
               f"| {_ms(times, 'raw python-fcl')} "
               f"| {_fmt_ratio(_ratio(ours, times['raw python-fcl']))} |")
        lines.append(row)
        print(row, file=sys.stderr, flush=True)
    lines += ["", answers_line([s for s in scenes if (s.parent_of < 0).all()
                                and s.num_frames <= 100]),
              "", _memory_line(300 if quick else 1000)]
    return "\n".join(lines)


def write_docs(table: str, section: str, path: Path = DOCS_PAGE) -> None:
    """Replace the ``<!-- section:start/end -->`` table of ``path`` and redraw its plot."""
    from bench.plots import PLOTS

    start, end = f"<!-- {section}:start -->", f"<!-- {section}:end -->"
    text = path.read_text()
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no {start} ... {end} section")
    path.write_text(pattern.sub(lambda _: f"{start}\n{table}\n{end}", text))
    if section in PLOTS:
        print(f"wrote {PLOTS[section](table)}", file=sys.stderr)


def table_parser(doc: str, quick_help: str, section: str) -> argparse.ArgumentParser:
    """The command line every table-writing bench shares: ``--quick`` and ``--write-docs``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--write-docs", action="store_true",
                        help=f"replace the {section} table in docs/benchmarks.md and redraw "
                             "its plot in docs/img/ (needs matplotlib)")
    return parser


def emit_table(table: str, write: bool, section: str = SECTION) -> int:
    """Print ``table`` and, when asked, write it (and its plot) into docs/."""
    print(table)
    if write:
        write_docs(table, section)
    return 0


def main(argv=None) -> int:
    args = table_parser(__doc__, "fewer rounds, N <= 100", "bench").parse_args(argv)
    np.seterr(all="ignore")
    return emit_table(run(args.quick), args.write_docs)


if __name__ == "__main__":
    sys.exit(main())
