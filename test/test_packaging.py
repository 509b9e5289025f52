"""What pip's wheel and colcon's install space contain, and package.xml against setup.cfg.

The wheel and the sdist are built offline from a copy of the checkout (``pip
wheel --no-deps --no-build-isolation --no-index``, ``setup.py sdist``); both
builds must carry the compiled kernels (csrc/), and so must colcon's install
space. The install-space tests run under
``colcon test``, where CMakeLists.txt sets ``GEOMETRY_CORE_INSTALL_PREFIX``;
plain pytest skips them.
"""

from __future__ import annotations

import ast
import configparser
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "geometry_core_ros"
NODES = ("scene_graph_node", "lcm_bridge_node", "demo_motion_node")
CONSOLE_SCRIPTS = {
    "geometry-core": "geometry_core.cli:main",
    "geometry-core-run": "geometry_core_nodes.run:main",
    "scene_graph_node": "geometry_core_nodes.scene_graph_node:main",
    "lcm_bridge_node": "geometry_core_nodes.lcm_bridge_node:main",
    "demo_motion_node": "geometry_core_nodes.demo_motion_node:main",
}
#: What the nodes and launch files use at run time (DESIGN.md section 5).
EXEC_DEPENDS = {"rclpy", "launch", "launch_ros", "std_msgs", "geometry_msgs", "tf2_msgs",
                "visualization_msgs", "builtin_interfaces", "rosidl_default_runtime"}
INSTALL_PREFIX = os.environ.get("GEOMETRY_CORE_INSTALL_PREFIX")
#: setup.py's compile flags that decide the kernels' floating-point results.
NUMERIC_FLAGS = ("-O2", "-std=c11", "-ffp-contract=off", "-fno-math-errno")


def _setup_cfg() -> configparser.ConfigParser:
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "setup.cfg")
    return config


def _sources(folder: str, pattern: str) -> set[str]:
    """Files under a source folder, relative to it, without caches."""
    base = ROOT / folder
    return {p.relative_to(base).as_posix() for p in base.rglob(pattern)
            if "__pycache__" not in p.parts}


# package.xml


def test_package_xml_agrees_with_setup_cfg():
    """Format 3, same version and license as setup.cfg, the run-time dependencies."""
    root = ET.parse(ROOT / "package.xml").getroot()
    metadata = _setup_cfg()["metadata"]
    assert root.get("format") == "3"
    assert root.findtext("name") == PACKAGE
    assert root.findtext("version") == metadata["version"]
    assert root.findtext("license") == metadata["license"]
    depends = {e.text for e in root if e.tag in ("depend", "exec_depend")}
    assert EXEC_DEPENDS <= depends, f"missing exec_depend {EXEC_DEPENDS - depends}"
    assert root.findtext("export/build_type") == "ament_cmake"
    assert (ROOT / "resource" / PACKAGE).is_file()
    # Python's headers for the compiled kernels (rosdep key python3-dev).
    assert "python3-dev" in {e.text for e in root if e.tag in ("depend", "build_depend")}


def _python_with_catkin_pkg() -> str | None:
    if importlib.util.find_spec("catkin_pkg") is not None:
        return sys.executable
    # Debian's python3-catkin-pkg, which colcon and ament use on these machines.
    system = Path("/usr/bin/python3")
    if system.exists() and subprocess.run(
            [system, "-c", "import catkin_pkg"], capture_output=True).returncode == 0:
        return str(system)
    return None


def test_package_xml_parses_with_catkin_pkg():
    """catkin_pkg, which colcon uses, accepts package.xml (it rejects, e.g., odd e-mails)."""
    python = _python_with_catkin_pkg()
    if python is None:
        pytest.skip("catkin_pkg is not installed (pip install catkin_pkg; "
                    "Debian: python3-catkin-pkg)")
    script = (
        "import json, sys\n"
        "from catkin_pkg.package import parse_package\n"
        "p = parse_package(sys.argv[1])\n"
        "p.validate()\n"
        "print(json.dumps({'name': p.name, 'version': p.version, 'format': p.package_format,\n"
        "    'exec_depends': [d.name for d in p.exec_depends],\n"
        "    'maintainers': [m.email for m in p.maintainers]}))\n")
    result = subprocess.run([python, "-c", script, str(ROOT / "package.xml")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    package = json.loads(result.stdout)
    assert package["name"] == PACKAGE
    assert package["version"] == _setup_cfg()["metadata"]["version"]
    assert package["format"] == 3
    assert EXEC_DEPENDS <= set(package["exec_depends"])
    assert package["maintainers"]


# pip: the wheel


def _can_build_wheels_offline() -> bool:
    if importlib.util.find_spec("setuptools") is None:
        return False
    if importlib.util.find_spec("wheel") is not None:
        return True
    # setuptools 70.1 took bdist_wheel over from the wheel package.
    return importlib.util.find_spec("setuptools.command.bdist_wheel") is not None


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory) -> Path:
    """A copy of the checkout without build products (no compiled module either)."""
    source = tmp_path_factory.mktemp("source") / "geometry_core"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "install", "log", "*.egg-info", "__pycache__", "*.so"))
    return source


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, source_copy) -> zipfile.ZipFile:
    """The wheel pip builds from a copy of the checkout (the checkout stays clean)."""
    if not _can_build_wheels_offline():
        pytest.skip("building a wheel offline needs setuptools with bdist_wheel "
                    "(setuptools >= 70.1, or the wheel package)")
    tmp = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source_copy), "--no-deps",
         "--no-build-isolation", "--no-index", "--quiet", "-w", str(tmp / "dist")],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = (tmp / "dist").glob("*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


def _wheel_files(wheel: zipfile.ZipFile, prefix: str) -> set[str]:
    return {name[len(prefix):] for name in wheel.namelist() if name.startswith(prefix)}


def test_wheel_has_every_library_module(wheel):
    library = _wheel_files(wheel, "geometry_core/")
    assert _sources("geometry_core", "*.py") <= library
    assert "py.typed" in library
    assert "viewer/lcmtypes/drake/lcmt_viewer_load_robot.py" in library


def test_wheel_has_the_nodes(wheel):
    nodes = _wheel_files(wheel, "geometry_core_nodes/")
    assert _sources("nodes", "*.py") <= nodes
    assert "run.py" in nodes


def test_wheel_data_has_messages_launch_files_and_config(wheel):
    version = _setup_cfg()["metadata"]["version"]
    data = _wheel_files(wheel, f"geometry_core-{version}.data/data/")
    share = f"share/{PACKAGE}"
    expected = {f"{share}/package.xml",
                f"share/ament_index/resource_index/packages/{PACKAGE}"}
    expected |= {f"{share}/msg/{name}" for name in _sources("msg", "*.msg")}
    expected |= {f"{share}/srv/{name}" for name in _sources("srv", "*.srv")}
    expected |= {f"{share}/launch/{name}" for name in _sources("launch", "*.launch.py")}
    expected |= {f"{share}/config/{name}" for name in _sources("config", "*.yaml")}
    assert len(expected) >= 9
    assert expected <= data, f"missing {sorted(expected - data)}"


def test_wheel_console_scripts(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    config = configparser.ConfigParser()
    config.read_string(wheel.read(entry_points).decode())
    assert dict(config["console_scripts"]) == CONSOLE_SCRIPTS
    # The nodes add `geometry-core run` to the library's command; the library never names them.
    assert dict(config["geometry_core.cli"]) == {"run": "geometry_core_nodes.run:add_parser"}


def test_wheel_has_the_compiled_kernels(wheel):
    """pip compiles csrc/ into geometry_core._native (the copy had no .so)."""
    compiled = [name for name in _wheel_files(wheel, "geometry_core/")
                if name.startswith("_native") and name.endswith(".so")]
    assert len(compiled) == 1, compiled


def test_sdist_has_the_c_sources(source_copy, tmp_path):
    """The sdist carries csrc/ (headers too, through MANIFEST.in): pip can build from it."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("building an sdist needs setuptools")
    result = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "--formats=gztar", "-d", str(tmp_path)],
        cwd=source_copy, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(path) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    sources = {f"csrc/{name}" for name in _sources("csrc", "*.[ch]")}
    assert {"csrc/gc.h", "csrc/module.c"} <= sources
    assert sources <= members, f"missing {sorted(sources - members)}"
    shutil.rmtree(source_copy / "geometry_core.egg-info", ignore_errors=True)


# colcon: the node scripts and the install space


def _check_node_script(script: Path, node: str) -> None:
    """The script runs the node's main: a malformed command line exits 2 naming the node.

    Nothing opens a socket: the command line is parsed before any DDS
    participant exists, and the environment confines Cyclone to loopback anyway.
    """
    pytest.importorskip("cyclonedds", reason="the DDS backend needs cyclonedds")
    from geometry_core_nodes.transport.cyclone_config import loopback_environment

    assert script.read_text().startswith("#!/usr/bin/env python3\n")
    assert os.access(script, os.X_OK)
    result = subprocess.run([sys.executable, str(script), "--ros-args", "-p"],
                            env=loopback_environment(0), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"{node}: error: "), result.stderr


@pytest.mark.parametrize("node", NODES)
def test_ros_node_scripts_in_the_checkout(node):
    _check_node_script(ROOT / "scripts" / "ros" / node, node)


needs_install = pytest.mark.skipif(
    INSTALL_PREFIX is None, reason="checks colcon's install space; run by colcon test")


@needs_install
@pytest.mark.parametrize("node", NODES)
def test_install_has_ros_node_scripts(node):
    _check_node_script(Path(INSTALL_PREFIX) / "lib" / PACKAGE / node, node)


@needs_install
def test_install_share_has_package_xml_messages_launch_files_and_config():
    prefix = Path(INSTALL_PREFIX)
    share = prefix / "share" / PACKAGE
    assert (prefix / "share/ament_index/resource_index/packages" / PACKAGE).is_file()
    for name in ("package.xml", "LICENSE"):
        assert (share / name).is_file()
    for folder, pattern in (("msg", "*.msg"), ("srv", "*.srv"), ("launch", "*.launch.py"),
                            ("config", "*.yaml")):
        installed = {p.name for p in (share / folder).glob(pattern)}
        assert installed == _sources(folder, pattern), folder


@needs_install
def test_tests_import_the_installed_packages():
    """colcon test runs the suite against the install space, not the checkout."""
    import geometry_core
    import geometry_core_nodes
    from geometry_core_nodes.transport.msg_types import default_registry

    prefix = Path(INSTALL_PREFIX).resolve()
    for module in (geometry_core, geometry_core_nodes):
        assert Path(module.__file__).resolve().is_relative_to(prefix)
    # The DDS backend finds our messages in share/, through AMENT_PREFIX_PATH.
    for name in _sources("msg", "*.msg"):
        found = default_registry().find_file(f"{PACKAGE}/msg/{Path(name).stem}")
        assert found.resolve() == prefix / "share" / PACKAGE / "msg" / name
    lcmtypes = Path(geometry_core.__file__).parent / "viewer/lcmtypes/drake"
    assert (lcmtypes / "lcmt_viewer_load_robot.py").is_file()


@needs_install
def test_install_has_the_compiled_kernels():
    """colcon built _native for this Python and installed it beside the pure-Python package.

    Exactly one module, the one CMake built (not a copy of one that
    ``pip install -e .`` left in the source tree), and it imports. A machine
    without a C compiler or Python's headers cannot build the package at all
    (CMake stops and says what to install).
    """
    prefix = Path(INSTALL_PREFIX)
    installed = sorted(prefix.glob("lib/python3*/*-packages/geometry_core/_native*.so"))
    assert len(installed) == 1, (
        f"expected one compiled module in the install space, found {installed}; "
        "did the build of geometry_core._native fail?")
    (path,) = installed
    assert path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), (
        f"{path.name} was built for another Python than {sys.executable}")
    # The very file the build produced (CMakeLists.txt builds into native/ of
    # the build directory, the working directory of colcon test).
    built = Path.cwd() / "native" / "geometry_core" / path.name
    if built.is_file():
        assert path.resolve().read_bytes() == built.read_bytes()
    import geometry_core._native as compiled

    assert Path(compiled.__file__).resolve() == path.resolve()
    assert compiled.tolerances()


def _setup_py_native_extension() -> dict[str, object]:
    """The keyword arguments of setup.py's ``Extension(...)``, as literals where they are."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    (call,) = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
               and getattr(node.func, "id", None) == "Extension"]
    assert ast.literal_eval(call.args[0]) == "geometry_core._native"
    return {kw.arg: ast.dump(kw.value) if kw.arg in ("sources", "depends")
            else ast.literal_eval(kw.value) for kw in call.keywords}


def test_cmake_compiles_the_kernels_as_setup_py_does():
    """colcon's build of _native uses setup.py's compile flags and sources."""
    extension = _setup_py_native_extension()
    setup_flags = extension["extra_compile_args"]
    assert set(NUMERIC_FLAGS) <= set(setup_flags)
    cmake = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"set\(GEOMETRY_CORE_NATIVE_COMPILE_OPTIONS\s+([^)]*)\)", cmake)
    assert match, "CMakeLists.txt sets no GEOMETRY_CORE_NATIVE_COMPILE_OPTIONS"
    assert match[1].split() == setup_flags
    assert "${GEOMETRY_CORE_NATIVE_COMPILE_OPTIONS}" in cmake
    # The same sources: every csrc/*.c.
    assert extension["include_dirs"] == ["csrc"]
    assert "'csrc/*.c'" in extension["sources"]
    assert re.search(r'file\(GLOB _native_sources [^)]*/csrc/\*\.c"\)', cmake)
    assert re.search(r"Python3_add_library\(\w+ MODULE WITH_SOABI", cmake)
    assert "find_package(Python3 COMPONENTS Interpreter Development.Module)" in cmake


def test_cmake_installs_what_setup_py_installs():
    """CMakeLists.txt and setup.py name the same share/ folders and node scripts."""
    cmake = (ROOT / "CMakeLists.txt").read_text()
    setup = (ROOT / "setup.py").read_text()
    for folder in ("launch", "config", "msg", "srv"):
        assert f'"share/{PACKAGE}/{folder}"' in setup
        assert re.search(rf"install\(DIRECTORY [^)]*\b{folder}\b[^)]*DESTINATION share", cmake)
    for node in NODES:
        assert f"scripts/ros/{node}" in cmake
        assert f'"{node} = {CONSOLE_SCRIPTS[node]}"' in setup


def test_ros_requirements_follow_setup_cfg():
    # The README's ROS 2 recipe installs requirements-ros.txt into a virtual
    # environment that keeps the distribution's numpy: setup.cfg's
    # install_requires and test extra, less what that environment leaves out.
    import configparser

    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    left_out = ("numpy", "drake", "coal", "pybullet", "matplotlib", "dask", "pyarrow", "rtb-data")
    expected = [r for r in setup["options"]["install_requires"].split()
                + setup["options.extras_require"]["test"].split()
                if not r.startswith(left_out)]
    listed = [line.strip() for line in (ROOT / "requirements-ros.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert listed == expected, "requirements-ros.txt should list:\n" + "\n".join(expected)
