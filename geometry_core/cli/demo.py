"""``geometry-core demo``: the built-in arm scene at real time, with a live summary.

Publishes to Drake's viewer over LCM when ``geometry_core.viewer`` and
``lcm`` are available, and ends with a summary table (or JSON). Exit status
0, or 130 when interrupted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from geometry_core.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    ROLES,
    make_visualizer,
    non_negative_float,
    num,
    positive_float,
    table_lines,
    without_negative_zero,
)
from geometry_core.scene_graph import Role

__all__ = ["add_parser"]


def add_parser(commands) -> None:
    """Add the ``demo`` subcommand to the subparsers ``commands``."""
    demo = commands.add_parser(
        "demo", help="run the built-in arm demo at real time",
        description="Run the built-in demo: an arm moving into and out of contact with a "
                    "table, a ball and a shelf. Prints a live summary (frames, pairs in "
                    "penetration, minimum clearance, query time) and a table at the end; "
                    "publishes to Drake's viewer over LCM when available.")
    demo.add_argument("--duration", type=positive_float, default=5.0, metavar="S",
                      help="seconds to run (default 5; the motion repeats every 5 s)")
    demo.add_argument("--rate", type=positive_float, default=30.0, metavar="HZ",
                      help="query and publish rate in Hz (default 30)")
    demo.add_argument("--lcm-url", metavar="URL", default=None,
                      help="LCM URL (default: $LCM_DEFAULT_URL or "
                           "udpm://239.255.76.67:7667?ttl=0)")
    demo.add_argument("--no-lcm", action="store_true", help="do not publish to LCM")
    demo.add_argument("--role", choices=sorted(ROLES), default="illustration",
                      help="role drawn in the viewer (default illustration)")
    demo.add_argument("--max-distance", type=non_negative_float, default=0.25, metavar="D",
                      help="clearances are computed up to D metres (default 0.25)")
    demo.add_argument("--json", action="store_true",
                      help="print only a JSON summary at the end (no live display)")
    demo.set_defaults(handler=_cmd_demo)


@dataclass
class _PairStats:
    first_t: float
    steps: int = 0
    max_depth: float = 0.0


@dataclass
class _DemoStats:
    steps: int = 0
    steps_in_contact: int = 0
    late_steps: int = 0
    query_ms: list[float] = field(default_factory=list)
    min_clearance: float = math.inf
    min_pair: str = "-"
    min_t: float = 0.0
    pairs: dict[str, _PairStats] = field(default_factory=dict)
    #: Demo time of the last step run; whether Ctrl-C ended the run before the end.
    last_t: float = 0.0
    interrupted: bool = False


def _progress_bar(fraction: float, width: int = 20) -> str:
    filled = int(round(fraction * width))
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _meldis_hint() -> str:
    """How to start Meldis with this interpreter, installing Drake first if it is absent."""
    python = shlex.quote(sys.executable)
    start = f"start `{python} -m pydrake.visualization.meldis -w`"
    if importlib.util.find_spec("pydrake") is None:
        return f"`{python} -m pip install drake` (Meldis comes with it), then {start}"
    return start


def _cmd_demo(args: argparse.Namespace) -> int:
    from geometry_core.demo import make_demo_scene

    demo = make_demo_scene()
    sg = demo.scene_graph
    inspector = sg.model_inspector()
    frames = inspector.num_frames() - 1
    live = not args.json
    tty = live and sys.stdout.isatty()
    lcm_status = "off (--no-lcm)"
    visualizer = None
    if not args.no_lcm:
        visualizer, reason = make_visualizer(sg, args.lcm_url, ROLES[args.role])
        if visualizer is None:
            lcm_status = f"off: {reason}"
            if live:
                print(f"LCM publishing off: {reason}; continuing without it", flush=True)
        else:
            lcm_status = (f"published on {visualizer.draw_channel()} "
                          f"(url {args.lcm_url or 'default'})")
            if live:
                print(f"publishing to Drake's viewer on {visualizer.draw_channel()}; "
                      f"to watch, {_meldis_hint()}", flush=True)

    # The first query builds the proximity model; keep it out of the timings.
    sg.query_object().compute_signed_distance_pairwise_closest_points(args.max_distance)
    stats = _DemoStats()
    total = int(math.floor(args.duration * args.rate + 1e-9)) + 1
    next_line = 0.0
    start = time.monotonic()
    interrupted = False
    try:
        for step in range(total):
            t = step / args.rate
            delay = start + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif step and delay < -1.0 / args.rate:
                stats.late_steps += 1
            demo.advance(t)
            stats.last_t = t
            tic = time.perf_counter()
            query = sg.query_object()
            penetrations = query.compute_point_pair_penetration()
            nearest = query.compute_signed_distance_pairwise_closest_points(args.max_distance)
            query_ms = 1e3 * (time.perf_counter() - tic)
            stats.steps += 1
            stats.query_ms.append(query_ms)
            if penetrations:
                stats.steps_in_contact += 1
            for p in penetrations:
                key = f"{demo.name_of(p.id_A)} / {demo.name_of(p.id_B)}"
                pair = stats.pairs.setdefault(key, _PairStats(t))
                pair.steps += 1
                pair.max_depth = max(pair.max_depth, p.depth)
            closest = min(nearest, key=lambda p: p.distance, default=None)
            clearance_text = f"> {args.max_distance:g} m"
            if closest is not None:
                closest_name = f"{demo.name_of(closest.id_A)}/{demo.name_of(closest.id_B)}"
                clearance_text = f"{num(closest.distance, '+.3f')} m {closest_name}"
                if closest.distance < stats.min_clearance:
                    stats.min_clearance = closest.distance
                    stats.min_pair, stats.min_t = closest_name, t
            if visualizer is not None:
                try:
                    visualizer.publish_draw(t)
                    visualizer.publish_contacts(penetrations, t)
                except Exception as err:  # a send can fail (no multicast route): keep going
                    visualizer = None
                    lcm_status = f"off after an error: {type(err).__name__}: {err}"
                    if live:
                        print(f"\nLCM publishing stopped: {err}", flush=True)
            if not live:
                continue
            summary = (f"t {t:5.2f}/{args.duration:g} s | {frames} frames | "
                       f"{len(penetrations)} in penetration | min clearance {clearance_text} | "
                       f"query {query_ms:5.1f} ms")
            if tty:
                width = shutil.get_terminal_size((100, 20)).columns
                text = f"{_progress_bar(t / args.duration)} {summary}"
                print("\r" + text[: width - 1].ljust(width - 1), end="", flush=True)
            elif t >= next_line or step == total - 1:
                print(summary, flush=True)
                next_line += 1.0
    except KeyboardInterrupt:
        interrupted = stats.interrupted = True
    if tty:
        print()
    if args.json:
        json.dump(without_negative_zero(_demo_summary(args, frames, inspector, stats,
                                                      lcm_status)), sys.stdout,
                  indent=2)
        print()
    else:
        _print_demotable_lines(args, frames, inspector, stats, lcm_status)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _demo_summary(args, frames, inspector, stats: _DemoStats, lcm_status: str) -> dict:
    times = np.array(stats.query_ms or [0.0])
    return {
        "duration_s": args.duration, "rate_hz": args.rate, "steps": stats.steps,
        "interrupted": stats.interrupted,
        "ran_until_t_s": stats.last_t,
        "frames": frames,
        "proximity_geometries": inspector.num_geometries_with_role(Role.PROXIMITY),
        "steps_in_penetration": stats.steps_in_contact,
        "late_steps": stats.late_steps,
        "min_clearance_m": None if math.isinf(stats.min_clearance) else stats.min_clearance,
        "min_clearance_pair": stats.min_pair, "min_clearance_t_s": stats.min_t,
        "query_ms_mean": float(times.mean()), "query_ms_max": float(times.max()),
        "lcm": lcm_status,
        "pairs_in_penetration": [
            {"pair": k, "first_t_s": v.first_t, "steps": v.steps, "max_depth_m": v.max_depth}
            for k, v in sorted(stats.pairs.items(), key=lambda kv: kv[1].first_t)],
    }


def _print_demotable_lines(args, frames, inspector, stats: _DemoStats, lcm_status: str) -> None:
    s = _demo_summary(args, frames, inspector, stats, lcm_status)
    share = 100.0 * s["steps_in_penetration"] / max(s["steps"], 1)
    clearance = ("-" if s["min_clearance_m"] is None else
                 f"{num(s['min_clearance_m'], '+.4f')} m ({s['min_clearance_pair']}, "
                 f"t = {s['min_clearance_t_s']:.2f} s)")
    rows = [
        ("run", (f"INTERRUPTED at t = {s['ran_until_t_s']:.2f} s of {s['duration_s']:g} s"
                 if s["interrupted"] else f"{s['duration_s']:g} s")
         + f" at {s['rate_hz']:g} Hz, {s['steps']} steps, {s['late_steps']} late"),
        ("frames", str(frames)),
        ("proximity geometries", str(s["proximity_geometries"])),
        ("steps in penetration", f"{s['steps_in_penetration']} ({share:.0f}%)"),
        ("minimum clearance", clearance),
        ("query time mean / max", f"{s['query_ms_mean']:.2f} / {s['query_ms_max']:.2f} ms"),
        ("LCM", lcm_status),
    ]
    print("\ndemo summary" + (" (interrupted by Ctrl-C: the run did not reach its end)"
                              if s["interrupted"] else ""))
    for line in table_lines(("", ""), rows, set())[1:]:
        print(line)
    pairs = s["pairs_in_penetration"]
    print(f"\npairs that penetrated: {len(pairs)}")
    if pairs:
        table = [(p["pair"], f"{p['first_t_s']:.2f}", str(p["steps"]),
                  num(p["max_depth_m"], ".4f")) for p in pairs]
        for line in table_lines(("pair", "first at [s]", "steps", "max depth [m]"), table,
                                {1, 2, 3}):
            print(line)
