"""The ``geometry-core`` command: run the demo, check a scene file, show a scene in Meldis.

Subcommands (each has ``--help``):

``geometry-core demo``
    Runs the built-in arm scene at real time with a live one-line summary,
    publishes it to Drake's viewer over LCM when ``geometry_core.viewer``
    and ``lcm`` are available, and ends with a summary table.
``geometry-core check SCENE``
    Loads a YAML scene or a URDF, applies a named pose or joint positions,
    and prints penetrations and clearances as a table or JSON.
``geometry-core view SCENE``
    Publishes a scene to the viewer (load, then periodic draws) until Ctrl-C
    or ``--duration``.
``geometry-core run PARAMS.yaml [--ros-args ...]``
    Starts the ROS 2 nodes the parameter file configures, as child processes
    on the DDS backend, until Ctrl-C.

Exit status: 0 success (``check``: no penetration); 1 ``check`` found
penetrations; 2 bad input (unreadable or invalid file, unknown pose or
joint, bad option), with the message on stderr and no traceback; 3 the
viewer is unavailable (``view``); 130 interrupted (``demo``).

Imports the library only; the viewer (and so ``lcm``) is imported lazily, so
``check`` and ``demo --no-lcm`` work without it. Never imports fcl or ROS
directly.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from geometry_core.scene_graph import GeometryId, Role

__all__ = ["main", "build_parser"]

EXIT_OK = 0
EXIT_PENETRATION = 1
EXIT_BAD_INPUT = 2
EXIT_NO_VIEWER = 3
EXIT_INTERRUPTED = 130

_ROLES = {"illustration": Role.ILLUSTRATION, "proximity": Role.PROXIMITY,
          "perception": Role.PERCEPTION}


class _BadInput(Exception):
    """A user error: printed as one line on stderr, exit status 2."""


# ----------------------------------------------------------------- parsing


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _assignment(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``geometry-core`` command."""
    from geometry_core import __version__

    parser = argparse.ArgumentParser(
        prog="geometry-core",
        description="Drake-style scene graph tools: a live demo, scene checks, and a bridge "
                    "to Drake's viewer (Meldis) over LCM.",
        epilog="exit status: 0 ok; 1 check found penetrations; 2 bad input (message on "
               "stderr); 3 viewer unavailable; 130 interrupted.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo", help="run the built-in arm demo at real time",
        description="Run the built-in demo: an arm moving into and out of contact with a "
                    "table, a ball and a shelf. Prints a live summary (frames, pairs in "
                    "penetration, minimum clearance, query time) and a table at the end; "
                    "publishes to Drake's viewer over LCM when available.")
    demo.add_argument("--duration", type=_positive_float, default=5.0, metavar="S",
                      help="seconds to run (default 5; the motion repeats every 5 s)")
    demo.add_argument("--rate", type=_positive_float, default=30.0, metavar="HZ",
                      help="query and publish rate in Hz (default 30)")
    demo.add_argument("--lcm-url", metavar="URL", default=None,
                      help="LCM URL (default: $LCM_DEFAULT_URL or "
                           "udpm://239.255.76.67:7667?ttl=0)")
    demo.add_argument("--no-lcm", action="store_true", help="do not publish to LCM")
    demo.add_argument("--role", choices=sorted(_ROLES), default="illustration",
                      help="role drawn in the viewer (default illustration)")
    demo.add_argument("--max-distance", type=_non_negative_float, default=0.25, metavar="D",
                      help="clearances are computed up to D metres (default 0.25)")
    demo.add_argument("--json", action="store_true",
                      help="print only a JSON summary at the end (no live display)")

    check = commands.add_parser(
        "check", help="report penetrations and clearances of a scene file",
        description="Load a YAML scene or a URDF, apply a named pose or joint positions, and "
                    "print every penetrating pair and every pair within --max-distance, "
                    "with witness points in the world frame.",
        epilog="exit status: 0 no penetration; 1 penetrations found; 2 bad input.")
    _add_scene_arguments(check)
    check.add_argument("--max-distance", type=_non_negative_float, default=0.1, metavar="D",
                       help="report clearances up to D metres (default 0.1)")
    check.add_argument("--format", choices=("table", "json"), default="table",
                       help="output format (default table)")

    view = commands.add_parser(
        "view", help="publish a scene file to Drake's viewer (Meldis)",
        description="Load a scene and publish it over LCM for Meldis or drake_visualizer: a "
                    "load message, then draw messages at --rate, until Ctrl-C or --duration.",
        epilog="exit status: 0 ok; 2 bad input; 3 viewer (lcm) unavailable.")
    _add_scene_arguments(view)
    view.add_argument("--duration", type=_positive_float, default=None, metavar="S",
                      help="stop after S seconds (default: run until Ctrl-C)")
    view.add_argument("--rate", type=_positive_float, default=10.0, metavar="HZ",
                      help="draw messages per second (default 10)")
    view.add_argument("--lcm-url", metavar="URL", default=None, help="LCM URL")
    view.add_argument("--role", choices=sorted(_ROLES), default="illustration",
                      help="role drawn (default illustration)")
    view.add_argument("--contacts", action="store_true",
                      help="also publish penetrations to CONTACT_RESULTS")
    _add_run_parser(commands)
    return parser


def _add_scene_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scene", metavar="SCENE", help="a .yaml/.yml scene or a .urdf robot")
    parser.add_argument("--pose", metavar="NAME", help="apply a named pose of a YAML scene")
    parser.add_argument("--joint", type=_assignment, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="URDF joint position (radians or metres); repeatable")
    parser.add_argument("--package-root", type=_assignment, action="append", default=[],
                        metavar="PKG=DIR",
                        help="folder of ROS package PKG for package:// mesh URIs; repeatable")


# ------------------------------------------------------------------ scenes


def _load(args: argparse.Namespace):
    """Load and pose the scene; every failure is the user's input, so it becomes _BadInput."""
    from geometry_core.scene_files import load_any

    q = {}
    for name, text in args.joint:
        try:
            q[name] = float(text)
        except ValueError:
            raise _BadInput(f"--joint {name}={text}: the value must be a number") from None
    try:
        scene = load_any(args.scene, package_roots=dict(args.package_root) or None)
        if args.pose is not None:
            scene.apply_named_pose(args.pose)
        if q:
            scene.set_joint_positions(q)
    except (ValueError, KeyError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        raise _BadInput(message) from None
    return scene


def _geometry_name(inspector, geometry_id: GeometryId) -> str:
    frame = inspector.get_name(inspector.get_frame_id(geometry_id))
    return f"{frame}::{inspector.get_name(geometry_id)}"


def _vec(v) -> list[float]:
    return [float(x) for x in np.asarray(v, dtype=float)]


def _check_report(scene, max_distance: float) -> dict:
    try:
        return _queries(scene, max_distance)
    except ValueError as err:  # e.g. two unfiltered half spaces: the scene is at fault
        raise _BadInput(f"{scene.path}: {err}") from None


def _queries(scene, max_distance: float) -> dict:
    query = scene.scene_graph.query_object()
    inspector = scene.scene_graph.model_inspector()
    name = lambda g: _geometry_name(inspector, g)  # noqa: E731
    penetrations = [{
        "geometry_A": name(p.id_A), "geometry_B": name(p.id_B),
        "depth": float(p.depth), "p_WCa": _vec(p.p_WCa), "p_WCb": _vec(p.p_WCb),
        "nhat_BA_W": _vec(p.nhat_BA_W)}
        for p in query.compute_point_pair_penetration()]
    clearances = []
    for pair in sorted(query.compute_signed_distance_pairwise_closest_points(max_distance),
                       key=lambda p: p.distance):
        X_WA, X_WB = query.get_pose_in_world(pair.id_A), query.get_pose_in_world(pair.id_B)
        clearances.append({
            "geometry_A": name(pair.id_A), "geometry_B": name(pair.id_B),
            "distance": float(pair.distance),
            "p_WCa": _vec(X_WA @ pair.p_ACa), "p_WCb": _vec(X_WB @ pair.p_BCb),
            "p_ACa": _vec(pair.p_ACa), "p_BCb": _vec(pair.p_BCb),
            "nhat_BA_W": _vec(pair.nhat_BA_W)})
    return {
        "scene": os.fspath(scene.path),
        "frames": inspector.num_frames() - 1,
        "geometries": inspector.num_geometries(),
        "proximity_geometries": inspector.num_geometries_with_role(Role.PROXIMITY),
        "max_distance": max_distance,
        "penetrations": penetrations,
        "clearances": clearances,
    }


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int],
           indent: str = "  ") -> list[str]:
    """Aligned columns; the indices in ``right`` are right-aligned (numbers)."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells):
        return indent + "  ".join(c.rjust(w) if i in right else c.ljust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def _num(x: float, spec: str) -> str:
    """``format(x, spec)``, never a negative zero: ``-0.0000`` shows a sign that is not there."""
    text = format(x, spec)
    if "-" in text and set(text.strip()) <= set("-0."):
        text = format(0.0, spec)
    return text


def _without_negative_zero(value: object) -> object:
    """``value`` (JSON-ready data) with every -0.0 made 0.0, for the JSON outputs."""
    if isinstance(value, float):
        return value + 0.0  # -0.0 + 0.0 is +0.0
    if isinstance(value, dict):
        return {k: _without_negative_zero(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_negative_zero(v) for v in value]
    return value


def _point(v: Sequence[float]) -> str:
    return "(" + ", ".join(_num(x, "+.4f") for x in v) + ")"


def _print_check_table(report: dict, args: argparse.Namespace, out: TextIO) -> None:
    setup = []
    if args.pose:
        setup.append(f"pose {args.pose!r}")
    if args.joint:
        setup.append("joints " + ", ".join(f"{n}={v}" for n, v in args.joint))
    print(f"scene {report['scene']}: {report['frames']} frames, {report['geometries']} "
          f"geometries ({report['proximity_geometries']} with proximity)"
          + (f"; {'; '.join(setup)}" if setup else ""), file=out)
    pens = report["penetrations"]
    print(f"\npenetrations: {len(pens)}", file=out)
    if pens:
        rows = [(p["geometry_A"], p["geometry_B"], _num(p['depth'], ".6f"), _point(p["p_WCa"]),
                 _point(p["p_WCb"]), _point(p["nhat_BA_W"])) for p in pens]
        for line in _table(("geometry A", "geometry B", "depth [m]", "p_WCa [m]",
                            "p_WCb [m]", "nhat_BA_W"), rows, {2}):
            print(line, file=out)
    clear = report["clearances"]
    print(f"\nclearances within {report['max_distance']:g} m: {len(clear)}", file=out)
    if clear:
        rows = [(c["geometry_A"], c["geometry_B"], _num(c['distance'], ".6f"), _point(c["p_WCa"]),
                 _point(c["p_WCb"])) for c in clear]
        for line in _table(("geometry A", "geometry B", "distance [m]", "p_WCa [m]",
                            "p_WCb [m]"), rows, {2}):
            print(line, file=out)


def _cmd_check(args: argparse.Namespace) -> int:
    scene = _load(args)
    report = _check_report(scene, args.max_distance)
    if args.format == "json":
        json.dump(_without_negative_zero(report), sys.stdout, indent=2)
        print()
    else:
        _print_check_table(report, args, sys.stdout)
    return EXIT_PENETRATION if report["penetrations"] else EXIT_OK


# ------------------------------------------------------------------ viewer


def _make_visualizer(scene_graph, lcm_url: str | None, role: Role):
    """Return ``(visualizer, None)`` or ``(None, reason)`` when LCM publishing is impossible."""
    try:
        from geometry_core.viewer import DrakeVisualizer
    except ImportError as err:
        return None, f"geometry_core.viewer is unavailable ({err}); pip install lcm"
    try:
        visualizer = DrakeVisualizer(scene_graph, lcm_url=lcm_url, role=role)
        visualizer.dispatch_load_message()
    except Exception as err:  # LCM reports a bad URL or a missing route in several types
        return None, f"LCM could not publish ({type(err).__name__}: {err})"
    return visualizer, None


def _cmd_view(args: argparse.Namespace) -> int:
    scene = _load(args)
    role = _ROLES[args.role]
    visualizer, reason = _make_visualizer(scene.scene_graph, args.lcm_url, role)
    if visualizer is None:
        print(f"geometry-core view: {reason}", file=sys.stderr)
        return EXIT_NO_VIEWER
    count = scene.scene_graph.model_inspector().num_geometries_with_role(role)
    until = "until Ctrl-C" if args.duration is None else f"for {args.duration:g} s"
    print(f"publishing {count} {args.role} geometries of {scene.path} on "
          f"{visualizer.load_channel()} / {visualizer.draw_channel()} at {args.rate:g} Hz "
          f"{until}", flush=True)
    start = time.monotonic()
    step = 0
    try:
        while True:
            t = step / args.rate
            if args.duration is not None and t > args.duration:
                break
            visualizer.publish_draw(t, force=True)
            if args.contacts:
                penetrations = scene.scene_graph.query_object().compute_point_pair_penetration()
                visualizer.publish_contacts(penetrations, t)
            step += 1
            time.sleep(max(0.0, start + step / args.rate - time.monotonic()))
    except KeyboardInterrupt:
        pass
    print(f"sent {step} draw messages", flush=True)
    return EXIT_OK


# -------------------------------------------------------------------- demo


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
        visualizer, reason = _make_visualizer(sg, args.lcm_url, _ROLES[args.role])
        if visualizer is None:
            lcm_status = f"off: {reason}"
            if live:
                print(f"LCM publishing off: {reason}; continuing without it", flush=True)
        else:
            lcm_status = (f"published on {visualizer.draw_channel()} "
                          f"(url {args.lcm_url or 'default'})")
            if live:
                print(f"publishing to Drake's viewer on {visualizer.draw_channel()}; "
                      "start `python -m pydrake.visualization.meldis` to watch", flush=True)

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
                clearance_text = f"{_num(closest.distance, '+.3f')} m {closest_name}"
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
        json.dump(_without_negative_zero(_demo_summary(args, frames, inspector, stats,
                                                       lcm_status)), sys.stdout, indent=2)
        print()
    else:
        _print_demo_table(args, frames, inspector, stats, lcm_status)
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


def _print_demo_table(args, frames, inspector, stats: _DemoStats, lcm_status: str) -> None:
    s = _demo_summary(args, frames, inspector, stats, lcm_status)
    share = 100.0 * s["steps_in_penetration"] / max(s["steps"], 1)
    clearance = ("-" if s["min_clearance_m"] is None else
                 f"{_num(s['min_clearance_m'], '+.4f')} m ({s['min_clearance_pair']}, "
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
    for line in _table(("", ""), rows, set())[1:]:
        print(line)
    pairs = s["pairs_in_penetration"]
    print(f"\npairs that penetrated: {len(pairs)}")
    if pairs:
        table = [(p["pair"], f"{p['first_t_s']:.2f}", str(p["steps"]),
                  _num(p['max_depth_m'], ".4f")) for p in pairs]
        for line in _table(("pair", "first at [s]", "steps", "max depth [m]"), table,
                           {1, 2, 3}):
            print(line)


# --------------------------------------------------------------------- run
# The ROS 2 nodes run as child processes (``python -m geometry_core_nodes.<node>``):
# the library never imports geometry_core_nodes, so layering holds.

#: Nodes ``run`` can start, by the name their parameter-file section uses.
_RUN_NODES = ("scene_graph_node", "lcm_bridge_node")
_RUN_STOP_TIMEOUT_S = 10.0


def _add_run_parser(commands) -> None:
    run = commands.add_parser(
        "run", help="run the ROS 2 nodes with a parameter file (Cyclone DDS backend)",
        description="Start the geometry_core ROS 2 nodes with a ROS 2 parameter file, on the "
                    "built-in Cyclone DDS backend (no ROS installation needed): every node "
                    f"with a section in the file ({', '.join(_RUN_NODES)}), or "
                    "scene_graph_node when none has one. Ctrl-C stops them.",
        epilog="exit status: 0 stopped by Ctrl-C; 2 bad input; else the status of the node "
               "that failed.")
    run.add_argument("params", metavar="PARAMS.yaml", help="ROS 2 parameter file")
    run.add_argument("ros_args", nargs=argparse.REMAINDER, metavar="--ros-args ...",
                     help="more ROS arguments for every node (-p name:=value, -r from:=to)")


def _cmd_run(args: argparse.Namespace) -> int:
    import signal
    import subprocess

    import yaml

    try:
        with open(args.params, encoding="utf-8") as file:
            sections = yaml.safe_load(file)
    except (OSError, yaml.YAMLError) as err:
        raise _BadInput(f"cannot read {args.params}: {err}") from None
    if not isinstance(sections, dict):
        raise _BadInput(f"{args.params} is not a ROS 2 parameter file (a mapping of node names)")
    if args.ros_args and args.ros_args[0] != "--ros-args":
        raise _BadInput(f"unexpected argument {args.ros_args[0]!r}; extra arguments start "
                        "with --ros-args")
    names = [n for n in _RUN_NODES if n in sections or f"/{n}" in sections] or [_RUN_NODES[0]]
    extra = args.ros_args[1:]
    env = dict(os.environ, GEOMETRY_CORE_TRANSPORT="dds")
    # Own process groups: a terminal's Ctrl-C reaches only us, and we forward one SIGINT.
    children = {name: subprocess.Popen(
        [sys.executable, "-m", f"geometry_core_nodes.{name}", "--ros-args",
         "--params-file", os.path.abspath(args.params), *extra],
        env=env, start_new_session=True) for name in names}
    print(f"running {', '.join(names)} (pids "
          f"{', '.join(str(c.pid) for c in children.values())}); Ctrl-C stops", flush=True)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    status = EXIT_OK
    try:
        while all(c.poll() is None for c in children.values()):
            time.sleep(0.1)
        failed = [(n, c.returncode) for n, c in children.items() if c.returncode not in (None, 0)]
        if failed:
            print(f"geometry-core run: {failed[0][0]} exited with status {failed[0][1]}",
                  file=sys.stderr)
            status = failed[0][1]
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGINT)
        deadline = time.monotonic() + _RUN_STOP_TIMEOUT_S
        for child in children.values():
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return status


# -------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``geometry-core`` command; return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = {"demo": _cmd_demo, "check": _cmd_check, "view": _cmd_view,
               "run": _cmd_run}[args.command]
    try:
        return handler(args)
    except _BadInput as err:
        print(f"geometry-core {args.command}: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
