"""pip and colcon (ament_cmake_python) install the same packages; metadata lives in setup.cfg.

``nodes/`` is installed as the package ``geometry_core_nodes`` (DESIGN.md
section 5); its DDS backend reads our ``.msg`` definitions from
``share/geometry_core_ros/msg`` at run time.
The node console scripts carry the names ``ros2 run`` knows them by; a colcon
(ament_cmake) build installs the same names from ``scripts/ros/`` instead.
"""

import glob
from pathlib import Path

from setuptools import Extension, find_packages, setup

# Here rather than in setup.cfg (file: README.md): colcon's ament_cmake_python
# copies setup.cfg alone into the build directory, where README.md is missing.
README = Path(__file__).with_name("README.md")

# The native kernels (csrc/, CPython API only), the one implementation of the
# queries: gcc and Python's headers are all they need. -ffp-contract=off keeps
# each operation rounded as written, so the answers are the same on every CPU
# (no fused multiply-add where the compiler alone would choose one).
native = Extension(
    "geometry_core._native",
    sources=sorted(glob.glob("csrc/*.c")),
    depends=sorted(glob.glob("csrc/*.h")),
    include_dirs=["csrc"],
    extra_compile_args=["-O2", "-std=c11", "-ffp-contract=off", "-fno-math-errno",
                        "-Wall", "-Wextra", "-Wno-unused-parameter"],
    # The batch queries' native threads (csrc/parallel.c).
    extra_link_args=["-pthread"],
)

node_packages = ["geometry_core_nodes"] + [
    f"geometry_core_nodes.{name}" for name in find_packages("nodes")]

setup(
    long_description=README.read_text(encoding="utf-8") if README.is_file() else "",
    long_description_content_type="text/markdown",
    ext_modules=[native],
    packages=find_packages(include=["geometry_core", "geometry_core.*"]) + node_packages,
    package_dir={"geometry_core_nodes": "nodes"},
    package_data={"geometry_core": ["py.typed"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/geometry_core_ros"]),
        ("share/geometry_core_ros", ["package.xml"]),
        ("share/geometry_core_ros/msg", sorted(glob.glob("msg/*.msg"))),
        ("share/geometry_core_ros/srv", sorted(glob.glob("srv/*.srv"))),
        ("share/geometry_core_ros/launch", sorted(glob.glob("launch/*.launch.py"))),
        ("share/geometry_core_ros/config", sorted(glob.glob("config/*.yaml"))),
    ],
    entry_points={
        "console_scripts": [
            "geometry-core = geometry_core.cli:main",
            "geometry-core-run = geometry_core_nodes.run:main",
            "scene_graph_node = geometry_core_nodes.scene_graph_node:main",
            "lcm_bridge_node = geometry_core_nodes.lcm_bridge_node:main",
            "demo_motion_node = geometry_core_nodes.demo_motion_node:main",
        ],
        # `geometry-core run` comes from the nodes: the library only discovers it.
        "geometry_core.cli": ["run = geometry_core_nodes.run:add_parser"],
    },
)
