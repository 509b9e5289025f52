"""``geometry-core view SCENE``: publish a scene file to Drake's viewer (Meldis) over LCM.

A load message, then draw messages at ``--rate`` until Ctrl-C or
``--duration``. Exit status 0, 2 on bad input, 3 when the viewer (lcm) is
unavailable.
"""

from __future__ import annotations

import argparse
import sys
import time

from geometry_core.cli.common import (
    EXIT_NO_VIEWER,
    EXIT_OK,
    ROLES,
    add_scene_arguments,
    load_scene,
    make_visualizer,
    positive_float,
)

__all__ = ["add_parser"]


def add_parser(commands) -> None:
    """Add the ``view`` subcommand to the subparsers ``commands``."""
    view = commands.add_parser(
        "view", help="publish a scene file to Drake's viewer (Meldis)",
        description="Load a scene and publish it over LCM for Meldis or drake_visualizer: a "
                    "load message, then draw messages at --rate, until Ctrl-C or --duration.",
        epilog="exit status: 0 ok; 2 bad input; 3 viewer (lcm) unavailable.")
    add_scene_arguments(view)
    view.add_argument("--duration", type=positive_float, default=None, metavar="S",
                      help="stop after S seconds (default: run until Ctrl-C)")
    view.add_argument("--rate", type=positive_float, default=10.0, metavar="HZ",
                      help="draw messages per second (default 10)")
    view.add_argument("--lcm-url", metavar="URL", default=None, help="LCM URL")
    view.add_argument("--role", choices=sorted(ROLES), default="illustration",
                      help="role drawn (default illustration)")
    view.add_argument("--contacts", action="store_true",
                      help="also publish penetrations to CONTACT_RESULTS")
    view.set_defaults(handler=_cmd_view)


def _cmd_view(args: argparse.Namespace) -> int:
    scene = load_scene(args)
    role = ROLES[args.role]
    visualizer, reason = make_visualizer(scene.scene_graph, args.lcm_url, role)
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
