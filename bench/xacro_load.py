"""Load time of xacro robots: xacro expansion, our load of the expansion, Drake's parser.

Usage::

    python -m bench.xacro_load            # rtb-data's Panda, Trossen WX250s and Puma 560

For each robot, in one process and side by side (median of ``--rounds``):
``expand_xacro`` alone (ROS's xacro), ``load_urdf`` of the expanded text
(warm: meshes hulled once per process, as a node loads a robot), and
Drake's ``Parser`` (``AddModelsFromString``, visuals and collision meshes
of the expansion dropped, since Drake hulls only ``.obj``: what it parses
is the same links, joints and primitive shapes). Drake's figure is its
parse alone; ours includes the hulls of the collision meshes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROBOTS = ("qut_frankie_description/robots/panda_arm_hand.urdf.xacro",
          "trossen_descriptions/urdf/wx250s.urdf.xacro",
          "unimation_puma560_description/urdf/puma560_robot.urdf.xacro")


def _median_ms(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def _drake_text(urdf_text: str) -> str:
    from lxml import etree

    root = etree.fromstring(urdf_text.encode())
    for material in root.iter("material"):  # textures name packages Drake has no path for
        for texture in material.findall("texture"):
            material.remove(texture)
            if material.find("color") is None:
                etree.SubElement(material, "color", rgba="0.2 0.2 0.2 1")
    for link in root.findall("link"):
        for element in link.findall("visual") + [c for c in link.findall("collision")
                                                 if c.find("geometry/mesh") is not None]:
            link.remove(element)
    return etree.tostring(root).decode()


def run(rounds: int) -> list[str]:
    import warnings

    import rtbdata
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    from geometry_core.scene_files import load_urdf
    from geometry_core.scene_files.xacro_files import expand_xacro

    warnings.simplefilter("ignore")
    root = Path(rtbdata.__file__).resolve().parent / "xacro"
    lines = ["| robot | xacro expansion ms | ours: load of the expansion ms | ours: Drake's text "
             "ms | Drake parser ms | ours/Drake, same text |", "|---|---:|---:|---:|---:|---:|"]
    for name in ROBOTS:
        xacro_file = root / name
        text = expand_xacro(xacro_file)
        expanded = xacro_file.with_name("bench_expanded.urdf")
        expanded.write_text(text)
        try:
            load_urdf(expanded)  # hulls once per process, as a warm node
            drake_text = _drake_text(text)

            def drake():
                plant = MultibodyPlant(0.0)  # kept alive: the parser holds a reference
                Parser(plant).AddModelsFromString(drake_text, "urdf")

            x = _median_ms(lambda: expand_xacro(xacro_file), rounds)
            o = _median_ms(lambda: load_urdf(expanded), rounds)
            same = expanded.with_name("bench_same.urdf")
            same.write_text(drake_text)
            try:
                s = _median_ms(lambda: load_urdf(same), rounds)
            finally:
                same.unlink()
            d = _median_ms(drake, rounds)
        finally:
            expanded.unlink()
        lines.append(f"| {name.split('/')[-1]} | {x:.1f} | {o:.1f} | {s:.1f} | {d:.1f} "
                     f"| {s / d:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    print("\n".join(run(parser.parse_args().rounds)))


if __name__ == "__main__":
    main()
