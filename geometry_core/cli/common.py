"""What the ``geometry-core`` subcommands share: exit codes, argument types, scene loading.

Imports the library only; the viewer (and so ``lcm``) is imported lazily.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Sequence

from geometry_core.scene_graph import Role

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERRUPTED", "EXIT_NO_VIEWER", "EXIT_OK",
           "EXIT_PENETRATION", "ROLES", "BadInput", "add_scene_arguments", "assignment",
           "load_scene", "make_visualizer", "non_negative_float", "positive_float", "table_lines"]

EXIT_OK = 0
EXIT_PENETRATION = 1
EXIT_BAD_INPUT = 2
EXIT_NO_VIEWER = 3
EXIT_INTERRUPTED = 130

ROLES = {"illustration": Role.ILLUSTRATION, "proximity": Role.PROXIMITY,
         "perception": Role.PERCEPTION}


class BadInput(Exception):
    """A user error: printed as one line on stderr, exit status 2."""


# ----------------------------------------------------------------- parsing


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def assignment(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def xacro_argument(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME:=VALUE, got {text!r}")
    return name.strip(), value


def add_scene_arguments(parser: argparse.ArgumentParser, optional_scene: bool = False) -> None:
    parser.add_argument("scene", metavar="SCENE", nargs="?" if optional_scene else None,
                        help="a .yaml/.yml scene, a .urdf robot or a .xacro (.urdf.xacro) one")
    parser.add_argument("--pose", metavar="NAME",
                        help="apply a named pose of a YAML scene (or of check's --srdf)")
    parser.add_argument("--joint", type=assignment, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="URDF joint position (radians or metres); repeatable")
    parser.add_argument("--package-root", type=assignment, action="append", default=[],
                        metavar="PKG=DIR",
                        help="folder of ROS package PKG for package:// mesh URIs and "
                             "$(find PKG); repeatable")
    parser.add_argument("--xacro-arg", type=xacro_argument, action="append", default=[],
                        metavar="NAME:=VALUE",
                        help="argument of a .xacro robot, as xacro's NAME:=VALUE; repeatable")


# ------------------------------------------------------------------ scenes

#: Warnings about one scene file printed in full; the rest are counted in one line.
MAX_WARNING_LINES = 20


def load_scene(args: argparse.Namespace):
    """Load and pose the scene; every failure is the user's input, so it becomes BadInput."""
    from geometry_core.scene_files import SceneFileWarning, load_any

    q = {}
    for name, text in args.joint:
        try:
            q[name] = float(text)
        except ValueError:
            raise BadInput(f"--joint {name}={text}: the value must be a number") from None
    try:
        with warnings.catch_warnings(record=True) as accepted:
            warnings.simplefilter("always", SceneFileWarning)
            scene = load_any(args.scene, package_roots=dict(args.package_root) or None,
                             srdf=getattr(args, "srdf", None),
                             xacro_args=dict(getattr(args, "xacro_arg", None) or []) or None)
        shown = 0
        for w in accepted:  # a file the ROS toolchain accepts too: say what was done
            if not issubclass(w.category, SceneFileWarning):
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
            elif shown < MAX_WARNING_LINES:
                print(f"geometry-core {args.command}: warning: {w.message}", file=sys.stderr)
                shown += 1
        more = sum(issubclass(w.category, SceneFileWarning) for w in accepted) - shown
        if more:
            print(f"geometry-core {args.command}: warning: and {more} more warnings like "
                  "these", file=sys.stderr)
        if args.pose is not None:
            scene.apply_named_pose(args.pose)
        if q:
            scene.set_joint_positions(q)
    except (ValueError, KeyError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        raise BadInput(message) from None
    except RecursionError:  # the loaders catch their own; a last guard for one line, exit 2
        raise BadInput(f"{args.scene}: the file nests too deeply to be read") from None
    except MemoryError:
        raise BadInput(f"{args.scene}: out of memory reading the file") from None
    return scene


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int],
                indent: str = "  ") -> list[str]:
    """Aligned columns; the indices in ``right`` are right-aligned (numbers)."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells):
        return indent + "  ".join(c.rjust(w) if i in right else c.ljust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def make_visualizer(scene_graph, lcm_url: str | None, role: Role):
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


def num(x: float, spec: str) -> str:
    """``format(x, spec)``, never a negative zero: ``-0.0000`` shows a sign that is not there."""
    text = format(x, spec)
    if "-" in text and set(text.strip()) <= set("-0."):
        text = format(0.0, spec)
    return text


def without_negative_zero(value: object) -> object:
    """``value`` (JSON-ready data) with every -0.0 made 0.0, for the JSON outputs."""
    if isinstance(value, float):
        return value + 0.0  # -0.0 + 0.0 is +0.0
    if isinstance(value, dict):
        return {k: without_negative_zero(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_negative_zero(v) for v in value]
    return value
