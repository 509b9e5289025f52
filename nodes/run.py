"""Start the ROS 2 nodes that a parameter file configures, as child processes on the DDS backend.

Three spellings of one command: ``python -m geometry_core_nodes.run
PARAMS.yaml [--ros-args ...]``, the console script ``geometry-core-run``, and
``geometry-core run``, which this module adds to the library's command
through the ``geometry_core.cli`` entry-point group (setup.py), so that the
library neither imports the nodes nor starts processes (DESIGN.md section 1).

Every node with a section in the file (or ``scene_graph_node`` when none has
one) runs as ``python -m geometry_core_nodes.<node>`` with
``GEOMETRY_CORE_TRANSPORT=dds`` until Ctrl-C, which is forwarded to each.
Exit status: 0 stopped by Ctrl-C; 2 bad input; else the status of the node
that failed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

import yaml

from geometry_core.cli.common import EXIT_BAD_INPUT, EXIT_OK, BadInput

__all__ = ["NODES", "add_parser", "main", "run_nodes"]

#: Nodes ``run`` can start, by the name their parameter-file section uses.
NODES = ("scene_graph_node", "lcm_bridge_node")
_STOP_TIMEOUT_S = 10.0
_DESCRIPTION = ("Start the geometry_core ROS 2 nodes with a ROS 2 parameter file, on the "
                "built-in Cyclone DDS backend (no ROS installation needed): every node "
                f"with a section in the file ({', '.join(NODES)}), or "
                "scene_graph_node when none has one. Ctrl-C stops them.")
_EPILOG = ("exit status: 0 stopped by Ctrl-C; 2 bad input; else the status of the node "
           "that failed.")


def _add_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("params", metavar="PARAMS.yaml", help="ROS 2 parameter file")
    run.add_argument("ros_args", nargs=argparse.REMAINDER, metavar="--ros-args ...",
                     help="more ROS arguments for every node (-p name:=value, -r from:=to)")


def add_parser(commands) -> None:
    """Add ``run`` to the subparsers of the ``geometry-core`` command (its entry point)."""
    run = commands.add_parser(
        "run", help="run the ROS 2 nodes with a parameter file (Cyclone DDS backend)",
        description=_DESCRIPTION, epilog=_EPILOG)
    _add_arguments(run)
    run.set_defaults(handler=run_nodes)


def run_nodes(args: argparse.Namespace) -> int:
    """Run the nodes of ``args.params`` with ``args.ros_args`` until Ctrl-C; return the status.

    Raises
    ------
    BadInput
        If the file is unreadable or not a parameter file, or the extra
        arguments do not start with ``--ros-args``.
    """
    try:
        with open(args.params, encoding="utf-8") as file:
            sections = yaml.safe_load(file)
    except (OSError, yaml.YAMLError) as err:
        raise BadInput(f"cannot read {args.params}: {err}") from None
    if not isinstance(sections, dict):
        raise BadInput(f"{args.params} is not a ROS 2 parameter file (a mapping of node names)")
    if args.ros_args and args.ros_args[0] != "--ros-args":
        raise BadInput(f"unexpected argument {args.ros_args[0]!r}; extra arguments start "
                       "with --ros-args")
    names = [n for n in NODES if n in sections or f"/{n}" in sections] or [NODES[0]]
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
        deadline = time.monotonic() + _STOP_TIMEOUT_S
        for child in children.values():
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``geometry-core-run`` command; return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(prog="geometry-core-run", description=_DESCRIPTION,
                                     epilog=_EPILOG)
    _add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_nodes(args)
    except BadInput as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
