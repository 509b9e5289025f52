"""Load time of a URDF chain of many links: registration must stay linear.

Usage::

    python -m bench.many_links                  # 1 000, 10 000 and 20 000 links

Each size is a serial chain of revolute joints, one box per link, written
to a temporary file and loaded with ``load_urdf`` (best of ``--repeat``
runs, in this process, imports done first). Printed: seconds per load,
microseconds per link, and the ratio of each size's time per link to the
smallest size's (1.0 is linear; registration that scans every frame for a
duplicate name made it grow with the size: 10 000 links took about 28 s).
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def chain_urdf(n: int) -> str:
    """A serial chain of ``n`` links, one box each, revolute joints."""
    links = "".join(f'<link name="l{i}"><collision><geometry><box size="0.1 0.1 0.1"/>'
                    '</geometry></collision></link>\n' for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                     f'<child link="l{i}"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>'
                     '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
                     for i in range(1, n))
    return f'<robot name="chain">\n{links}{joints}</robot>\n'


def measure(sizes: list[int], repeat: int) -> list[dict]:
    import trimesh  # noqa: F401  (imports out of the timing)
    import yourdfpy  # noqa: F401

    from geometry_core.scene_files import load_urdf

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = os.path.join(folder, f"chain{n}.urdf")
            with open(path, "w") as file:
                file.write(chain_urdf(n))
            best = min(_timed(load_urdf, path) for _ in range(repeat))
            rows.append({"links": n, "seconds": round(best, 3),
                         "us_per_link": round(1e6 * best / n, 1)})
    base = rows[0]["us_per_link"]
    for row in rows:
        row["per_link_ratio"] = round(row["us_per_link"] / base, 2)
    return rows


def _timed(load, path: str) -> float:
    start = time.perf_counter()
    load(path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 20_000])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.sizes, args.repeat), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
