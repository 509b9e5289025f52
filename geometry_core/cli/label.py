"""``geometry-core label URDF``: verdicts and smallest distances of sampled configurations.

Samples ``--count`` configurations uniformly within the robot's joint limits
(±π where a joint has none), and writes, for each, whether it is
collision-free and its smallest signed distance (padded; inf when no pair is
within ``--max-distance``), computed in chunks on a Dask cluster: a
``LocalCluster`` on this machine by default (loopback only, no dashboard),
or the cluster whose scheduler ``--scheduler tcp://HOST:PORT`` names.
A progress bar counts finished chunks on stderr.

Output: ``.npz`` (arrays ``q``, ``free``, ``min_distance``,
``position_names``) or ``.parquet`` (columns ``free``, ``min_distance`` and
one per joint position; needs pyarrow). Exit status 0 when written, 2 on bad
input (unreadable file, unknown output kind, no dask).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from geometry_core.cli.common import EXIT_OK, BadInput, assignment, non_negative_float

__all__ = ["add_parser"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_parser(commands) -> None:
    """Add the ``label`` subcommand to the subparsers ``commands``."""
    label = commands.add_parser(
        "label", help="label sampled configurations of a URDF robot: free or not, and distance",
        description="Sample configurations of a URDF robot uniformly within its joint limits "
                    "and write whether each is collision-free and its smallest signed "
                    "distance, computed in chunks on a Dask cluster (a LocalCluster by "
                    "default).",
        epilog="exit status: 0 written; 2 bad input.")
    label.add_argument("urdf", metavar="URDF", help="the robot")
    label.add_argument("--srdf", metavar="SRDF",
                       help="MoveIt SRDF: its disabled pairs are filtered")
    label.add_argument("--environment", metavar="SCENE",
                       help="obstacles: a YAML scene or a URDF")
    label.add_argument("--package-root", type=assignment, action="append", default=[],
                       metavar="PKG=DIR",
                       help="folder of ROS package PKG for package:// mesh URIs; repeatable")
    label.add_argument("--count", type=_positive_int, required=True, metavar="N",
                       help="configurations to sample")
    label.add_argument("--out", required=True, metavar="FILE",
                       help="output, FILE.npz or FILE.parquet (needs pyarrow)")
    label.add_argument("--chunk", type=_positive_int, default=10000, metavar="K",
                       help="configurations per task (default 10000)")
    label.add_argument("--max-distance", type=non_negative_float, default=float("inf"),
                       metavar="D", help="distances beyond D metres are written as inf "
                                         "(default: none; smaller is faster)")
    label.add_argument("--padding", type=float, default=0.0, metavar="P",
                       help="padding of every robot pair, self and environment (metres)")
    label.add_argument("--random-state", type=int, default=None, metavar="S",
                       help="state of the random generator, for a repeatable sample")
    label.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="a running Dask scheduler (default: a LocalCluster here)")
    label.add_argument("--workers", type=_positive_int, default=None, metavar="W",
                       help="LocalCluster worker processes (default: one per core)")
    label.add_argument("--threads", type=_positive_int, default=1, metavar="T",
                       help="native threads per task on a worker (default 1)")
    label.add_argument("--quiet", action="store_true", help="no progress bar")
    label.set_defaults(handler=_cmd_label)


def _cmd_label(args: argparse.Namespace) -> int:
    out = Path(args.out)
    kind = out.suffix.lower()
    if kind not in (".npz", ".parquet"):
        raise BadInput(f"--out must end in .npz or .parquet, got {args.out!r}")
    if kind == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise BadInput("writing .parquet needs pyarrow (pip install pyarrow); "
                           "or write .npz") from None
    try:
        from dask.distributed import Client, LocalCluster

        from geometry_core import distributed
    except ImportError as err:
        raise BadInput(f"geometry-core label needs dask.distributed "
                       f"(pip install 'dask[distributed]'): {err}") from None
    from geometry_core.clearance import CollisionChecker

    try:
        checker = CollisionChecker.from_urdf(
            args.urdf, srdf=args.srdf, environment=args.environment,
            package_roots=dict(args.package_root) or None,
            self_padding=args.padding, environment_padding=args.padding)
        recipe = distributed.CheckerRecipe.of(checker)
    except (ValueError, KeyError, OSError) as err:
        raise BadInput(str(err)) from None
    qs = distributed.sample_configurations(checker, args.count, args.random_state)
    progress = None if args.quiet else distributed.text_progress(sys.stderr)
    if args.scheduler:
        cluster = None
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        free, min_distance = distributed.label_configurations(
            client, recipe, qs, chunk=args.chunk, max_distance=args.max_distance,
            parallelize=args.threads, progress=progress)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    _write(out, kind, checker.position_names, qs, free, min_distance)
    print(f"{out}: {len(qs)} configurations, {int(free.sum())} free "
          f"({free.mean():.1%})", file=sys.stderr)
    return EXIT_OK


def _write(out: Path, kind: str, names: list[str], qs: np.ndarray, free: np.ndarray,
           min_distance: np.ndarray) -> None:
    try:
        if kind == ".npz":
            np.savez(out, q=qs, free=free, min_distance=min_distance,
                     position_names=np.array(names))
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {"free": free, "min_distance": min_distance}
        columns.update({name: qs[:, k] for k, name in enumerate(names)})
        pq.write_table(pa.table(columns), out)
    except OSError as err:
        raise BadInput(f"cannot write {out}: {err.strerror or err}") from None
