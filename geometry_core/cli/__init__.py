"""The ``geometry-core`` command: run the demo, check a scene file, show a scene in Meldis.

Subcommands (each has ``--help``), one module each:

``geometry-core demo`` (``demo.py``)
    Runs the built-in arm scene at real time with a live one-line summary,
    publishes it to Drake's viewer over LCM when ``geometry_core.viewer``
    and ``lcm`` are available, and ends with a summary table.
``geometry-core check SCENE`` (``check.py``)
    Loads a YAML scene or a URDF, applies a named pose or joint positions,
    and prints penetrations and clearances as a table or JSON.
``geometry-core view SCENE`` (``view.py``)
    Publishes a scene to the viewer (load, then periodic draws) until Ctrl-C
    or ``--duration``.
``geometry-core label URDF`` (``label.py``)
    Samples configurations of a URDF robot and writes their collision
    verdicts and smallest distances (``.npz`` or ``.parquet``), computed on
    a Dask cluster (a ``LocalCluster`` by default).

Installed packages may add subcommands through the entry-point group
``geometry_core.cli``: each entry names a function that adds its subparser
to the subparsers it is given and sets the parser default ``handler``.
The ROS 2 nodes package adds ``geometry-core run`` this way
(``geometry_core_nodes.run``): the library itself never starts nodes and
never imports them (DESIGN.md section 1).

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
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from geometry_core.cli import check, demo, label, view
from geometry_core.cli.common import EXIT_BAD_INPUT, EXIT_OK, BadInput

__all__ = ["ENTRY_POINT_GROUP", "BadInput", "build_parser", "main"]

#: Entry-point group of subcommands that other installed packages add.
ENTRY_POINT_GROUP = "geometry_core.cli"


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
    for module in (demo, check, view, label):
        module.add_parser(commands)
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        entry.load()(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``geometry-core`` command; return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except BadInput as err:
        print(f"geometry-core {args.command}: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
