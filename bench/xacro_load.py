"""Load time of xacro robots against Drake's parser, with the xacro expansion apart.

Usage::

    python -m bench.xacro_load              # rtb-data's Panda, Trossen WX250s and Puma 560
    python -m bench.xacro_load --rounds 5

For each robot, side by side in one process, the systems alternating in
each round (medians):

* xacro: ``expand_xacro`` alone (ROS's xacro, our ``$(find)``);
* ours: ``load_urdf`` of the expanded URDF, warm (collision meshes hulled
  once per process, as a node that loads a robot again), then a first
  penetration query: the figure ``bench/robots.py`` reports for
  example-robot-data;
* ours, collision geometry only: ``load_urdf(..., visuals=False)``, what
  ``CollisionChecker.from_urdf`` loads (Drake's copy has no visuals either);
* Drake: ``Parser`` into a ``MultibodyPlant`` with a ``SceneGraph`` on its
  copy of the expansion (collision meshes as ``.obj``, visuals and textures
  dropped: what it can read), finalized, then a first penetration query,
  as in ``bench/robots.py``.

The expansion is written beside the xacro file for the run (so the mesh
URIs resolve as they do from the xacro) and removed afterwards.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

ROBOTS = ("qut_frankie_description/robots/panda_arm_hand.urdf.xacro",
          "trossen_descriptions/urdf/wx250s.urdf.xacro",
          "unimation_puma560_description/urdf/puma560_robot.urdf.xacro")


def _drake_copy(expanded: Path, out_dir: Path) -> Path:
    from lxml import etree

    from bench.robot_files import drake_copy

    copy = drake_copy(expanded, out_dir / "no-share", out_dir)
    root = etree.parse(str(copy)).getroot()
    for material in root.iter("material"):  # textures name packages Drake has no path for
        for texture in material.findall("texture"):
            material.remove(texture)
            if material.find("color") is None:
                etree.SubElement(material, "color", rgba="0.2 0.2 0.2 1")
    copy.write_bytes(etree.tostring(root))
    return copy


def times(xacro_file: Path, rounds: int) -> dict[str, float]:
    from bench.robots import drake_load_seconds
    from geometry_core.scene_files import load_urdf
    from geometry_core.scene_files.xacro_files import expand_xacro

    expanded = xacro_file.with_name(f".bench_{xacro_file.name}.urdf")
    expanded.write_text(expand_xacro(xacro_file))
    try:
        copy = _drake_copy(expanded, Path(tempfile.mkdtemp(prefix="drake_copy_")))

        def xacro() -> float:
            t0 = time.perf_counter()
            expand_xacro(xacro_file)
            return time.perf_counter() - t0

        def ours() -> float:
            t0 = time.perf_counter()
            scene = load_urdf(expanded)
            scene.scene_graph.query_object().compute_point_pair_penetration()
            return time.perf_counter() - t0

        def collision_only() -> float:  # as CollisionChecker.from_urdf loads a robot
            t0 = time.perf_counter()
            scene = load_urdf(expanded, visuals=False)
            scene.scene_graph.query_object().compute_point_pair_penetration()
            return time.perf_counter() - t0

        def drake() -> float:
            return drake_load_seconds(copy)

        steps = [("xacro", xacro), ("ours", ours), ("collision only", collision_only),
                 ("Drake", drake)]
        for _, step in steps:  # imports, first use, hulls: outside the rounds
            step()
        measured: dict[str, list[float]] = {label: [] for label, _ in steps}
        for r in range(rounds):
            for label, step in (steps if r % 2 == 0 else steps[::-1]):
                measured[label].append(step())
    finally:
        expanded.unlink()
    return {label: 1e3 * statistics.median(v) for label, v in measured.items()}


def run(rounds: int) -> list[str]:
    import logging

    import rtbdata

    warnings.simplefilter("ignore")
    logging.getLogger("drake").setLevel(logging.ERROR)  # its notes on unsupported tags
    root = Path(rtbdata.__file__).resolve().parent / "xacro"
    lines = ["| robot (rtb-data) | xacro expansion ms | ours: load + first query ms | "
             "ours, collision geometry only ms | Drake: parse + finalize + first query ms | "
             "ours/Drake | collision only/Drake |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name in ROBOTS:
        t = times(root / name, rounds)
        lines.append(f"| {name.split('/')[-1]} | {t['xacro']:.1f} | {t['ours']:.1f} | "
                     f"{t['collision only']:.1f} | {t['Drake']:.1f} | "
                     f"{t['ours'] / t['Drake']:.2f} | {t['collision only'] / t['Drake']:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    print("\n".join(run(parser.parse_args().rounds)))


if __name__ == "__main__":
    main()
