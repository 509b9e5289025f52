"""``geometry-core check SCENE``: penetrations and clearances of a scene file, as a table or JSON.

Loads a YAML scene or a URDF, applies a named pose or joint positions, and
prints every penetrating pair and every pair within ``--max-distance``.
Exit status 0 when nothing penetrates, 1 when something does, 2 on bad
input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from geometry_core.cli.common import (
    EXIT_OK,
    EXIT_PENETRATION,
    BadInput,
    add_scene_arguments,
    load_scene,
    non_negative_float,
    num,
    table_lines,
    without_negative_zero,
)
from geometry_core.scene_graph import GeometryId, Role

__all__ = ["add_parser"]


def add_parser(commands) -> None:
    """Add the ``check`` subcommand to the subparsers ``commands``."""
    check = commands.add_parser(
        "check", help="report penetrations and clearances of a scene file",
        description="Load a YAML scene or a URDF, apply a named pose or joint positions, and "
                    "print every penetrating pair and every pair within --max-distance, "
                    "with witness points in the world frame.",
        epilog="exit status: 0 no penetration; 1 penetrations found; 2 bad input.")
    add_scene_arguments(check, optional_scene=True)
    check.add_argument("--robot", metavar="NAME",
                       help="instead of SCENE: a robot of example-robot-data (when installed) "
                            "with its SRDF, e.g. panda, ur5; 'list' prints the names")
    check.add_argument("--max-distance", type=non_negative_float, default=0.1, metavar="D",
                       help="report clearances up to D metres (default 0.1)")
    check.add_argument("--format", choices=("table", "json"), default="table",
                       help="output format (default table)")
    check.add_argument("--srdf", metavar="SRDF",
                       help="a URDF's MoveIt SRDF: its disabled collision pairs are filtered "
                            "and its group states become --pose names")
    check.set_defaults(handler=_cmd_check)


def _geometry_name(inspector, geometry_id: GeometryId) -> str:
    frame = inspector.get_name(inspector.get_frame_id(geometry_id))
    return f"{frame}::{inspector.get_name(geometry_id)}"


def _vec(v) -> list[float]:
    return [float(x) for x in np.asarray(v, dtype=float)]


def _check_report(scene, max_distance: float) -> dict:
    try:
        return _queries(scene, max_distance)
    except ValueError as err:  # e.g. two unfiltered half spaces: the scene is at fault
        raise BadInput(f"{scene.path}: {err}") from None


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


def _point(v: Sequence[float]) -> str:
    return "(" + ", ".join(num(x, "+.4f") for x in v) + ")"


def _print_checktable_lines(report: dict, args: argparse.Namespace, out: TextIO) -> None:
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
        rows = [(p["geometry_A"], p["geometry_B"], num(p["depth"], ".6f"), _point(p["p_WCa"]),
                 _point(p["p_WCb"]), _point(p["nhat_BA_W"])) for p in pens]
        for line in table_lines(("geometry A", "geometry B", "depth [m]", "p_WCa [m]",
                                 "p_WCb [m]", "nhat_BA_W"), rows, {2}):
            print(line, file=out)
    clear = report["clearances"]
    print(f"\nclearances within {report['max_distance']:g} m: {len(clear)}", file=out)
    if clear:
        rows = [(c["geometry_A"], c["geometry_B"], num(c["distance"], ".6f"), _point(c["p_WCa"]),
                 _point(c["p_WCb"])) for c in clear]
        for line in table_lines(("geometry A", "geometry B", "distance [m]", "p_WCa [m]",
                                 "p_WCb [m]"), rows, {2}):
            print(line, file=out)


def _use_robot(args: argparse.Namespace) -> bool:
    """Point ``args`` at ``--robot``'s URDF, SRDF and package root; True if it only lists."""
    from geometry_core.scene_files import example_robot, example_robot_names

    if (args.scene is None) == (args.robot is None):
        raise BadInput("give a SCENE file or --robot NAME (one of the two)")
    if args.robot is None:
        return False
    try:
        if args.robot == "list":
            print("\n".join(example_robot_names()))
            return True
        robot = example_robot(args.robot)
    except ValueError as err:
        raise BadInput(f"--robot {args.robot}: {err}") from None
    args.scene = str(robot.urdf)
    args.package_root = [*robot.package_roots.items(), *args.package_root]
    if args.srdf is None and robot.srdf is not None:
        args.srdf = str(robot.srdf)
    return False


def _cmd_check(args: argparse.Namespace) -> int:
    if _use_robot(args):
        return EXIT_OK
    scene = load_scene(args)
    report = _check_report(scene, args.max_distance)
    if args.format == "json":
        json.dump(without_negative_zero(report), sys.stdout, indent=2)
        print()
    else:
        _print_checktable_lines(report, args, sys.stdout)
    return EXIT_PENETRATION if report["penetrations"] else EXIT_OK
