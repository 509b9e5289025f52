"""urdfdom as the reference: what ROS's own URDF parser accepts, we load.

urdfdom's ``check_urdf`` (Debian's ``liburdfdom-tools``, installed by CI)
and ``geometry-core check`` read every URDF of example-robot-data 6.0.0 and
rtb-data 2.0.0, and every top-level xacro robot of rtb-data (expanded by
the ``xacro`` command for urdfdom, loaded as the .xacro by us):

* every file urdfdom parses, we load (exit 0 or 1), warnings naming file
  and line for what we skip;
* every file we refuse, urdfdom refuses too, or it is listed in REFUSED
  with the reason (docs/robot-descriptions.md says why; Drake refuses it
  too, see test_robot_data_drake.py);
* a top-level xacro naming a ROS package rtb-data does not ship is refused
  with exit 2 and a message naming that package.

Also the leniencies' own inputs go through check_urdf: each file the
loader accepts with a warning is one urdfdom accepts.
"""

import contextlib
import io
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if not (ROOT / "bench" / "robot_files.py").exists():
    pytest.skip("bench/ is in a checkout, not in the install space", allow_module_level=True)
sys.path.insert(0, str(ROOT))

from bench.robot_files import all_urdfs, robots_share  # noqa: E402
from geometry_core.cli import main  # noqa: E402

CHECK_URDF = shutil.which("check_urdf")
XACRO = shutil.which("xacro", path=str(Path(sys.executable).parent)) or shutil.which("xacro")
needs_urdfdom = pytest.mark.skipif(
    CHECK_URDF is None, reason="urdfdom's check_urdf is missing: apt-get install liburdfdom-tools "
                               "(.ci/run installs it)")

#: Files we refuse although urdfdom parses them -> the reason in our message.
REFUSED = {
    "ur_description/urdf/ur3.urdf": "the robot has no <link>",
    "alex_description/urdf/alex_psyonic_hands.urdf":
        "joint 'Left_index_q2': mimics 'index_q1', which is not a moving joint of the robot",
}

#: Top-level xacro robots of rtb-data that name a ROS package it does not ship.
MISSING_PACKAGE = {
    "abb_irb140_description/urdf/irb140.xacro": "abb_irb140",
    "kuka_description/kuka_kr10/urdf/kr10r1100sixx.xacro": "kuka_kr10_support",
    "kuka_description/kuka_kr120/urdf/kr120r2500pro.xacro": "kuka_kr120_support",
    "kuka_description/kuka_kr150/urdf/kr150_2.xacro": "kuka_kr150_support",
    "kuka_description/kuka_kr16/urdf/kr16_2.xacro": "kuka_kr16_support",
    "kuka_description/kuka_kr210/urdf/kr210l150.xacro": "kuka_kr210_support",
    "kuka_description/kuka_kr3/urdf/kr3r540.xacro": "kuka_kr3_support",
    "kuka_description/kuka_kr5/urdf/kr5_arc.xacro": "kuka_kr5_support",
    "kuka_description/kuka_kr6/urdf/kr6r700sixx.xacro": "kuka_kr6_support",
    "kuka_description/kuka_kr6/urdf/kr6r900sixx.xacro": "kuka_kr6_support",
    "kuka_description/kuka_lbr_iiwa/urdf/lbr_iiwa_14_r820.xacro": "kuka_lbr_iiwa_support",
}


def rtb_root() -> Path | None:
    try:
        import rtbdata
    except ImportError:
        return None
    return Path(rtbdata.__file__).resolve().parent


def urdfdom_accepts(path: Path) -> bool:
    done = subprocess.run([CHECK_URDF, str(path)], capture_output=True, text=True, timeout=120)
    return done.returncode == 0 and "Successfully Parsed XML" in done.stdout


def ours(path: Path, *extra: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["check", str(path), *extra, "--max-distance", "0", "--format", "json"])
    return status, err.getvalue()


def top_level_xacros(root: Path) -> list[Path]:
    """The xacro files of the corpus that no other file includes: the robots."""
    files = sorted(root.rglob("*.xacro"))
    included = set()
    for f in files:
        text = re.sub(r"<!--.*?-->", "", f.read_text(), flags=re.S)
        for name in re.findall(r'<xacro:include\s+filename="([^"]+)"', text):
            included.add(Path(name).name)
    # ridgeback's accessories are included through a name built from an argument.
    return [f for f in files if f.name not in included and f.parent.name != "accessories"]


def expand_for_urdfdom(xacro_file: Path, out: Path, root: Path) -> Path | None:
    """``xacro FILE`` in its own process, ``$(find PKG)`` written out as rtb-data's folder.

    The xacro command's ``$(find)`` needs ROS's ament index, so every
    ``$(find PKG)`` whose folder rtb-data has is replaced in copies of the
    files beforehand; None when a package is missing (we must refuse those).
    """
    folders = {p.name: p for p in root.rglob("*") if p.is_dir()}
    folders.update({"ridgeback_description": root / "xacro" / "clearpath_ridgeback_description"})
    copy_root = out.parent / "copy"
    if not copy_root.exists():
        shutil.copytree(root / "xacro", copy_root / "xacro",
                        ignore=shutil.ignore_patterns("*.stl", "*.STL", "*.dae", "*.obj",
                                                      "*.ply", "*.glb"))
    for f in copy_root.rglob("*.xacro"):
        text = f.read_text()
        for package in set(re.findall(r"\$\(find ([^)]+)\)", text)):
            if package in folders:
                text = text.replace(f"$(find {package})", str(folders[package]).replace(
                    str(root / "xacro"), str(copy_root / "xacro")))
        f.write_text(text)
    source = copy_root / xacro_file.relative_to(root)
    done = subprocess.run([XACRO, str(source), "-o", str(out)], capture_output=True, text=True,
                          timeout=120)
    return out if done.returncode == 0 else None


@needs_urdfdom
@pytest.mark.slow
def test_example_robot_data_and_rtb_data_urdfs_as_urdfdom(capsys):
    share, rtb = robots_share(), rtb_root()
    if share is None or rtb is None:
        pytest.fail("the test extra (example-robot-data, rtb-data) is not installed")
    cases = [(u, u.relative_to(share / "robots").as_posix(),
              ["--package-root", f"example-robot-data={share}"]) for u in all_urdfs(share)]
    cases += [(u, u.relative_to(rtb).as_posix(), []) for u in sorted(rtb.rglob("*.urdf"))]
    assert len(cases) == 69 + 9
    loaded = refused_by_both = 0
    for path, key, extra in cases:
        reference = urdfdom_accepts(path)
        status, err = ours(path, *extra)
        if key in REFUSED:
            assert status == 2 and REFUSED[key] in err, (key, err)
            refused_by_both += not reference
        elif reference:
            assert status in (0, 1), (key, err)
            for line in err.splitlines():  # every warning names the file (and the line)
                assert line.startswith(f"geometry-core check: warning: {path}") or \
                    re.fullmatch(r"geometry-core check: warning: and \d+ more warnings like "
                                 r"these", line), (key, line)
            loaded += 1
        else:
            assert status in (0, 1, 2), (key, err)
            refused_by_both += status == 2
    # urdfdom refuses ur3.urdf (no links) and rtb-data's test.urdf (not XML), as we do.
    assert (loaded, refused_by_both) == (75, 2)


@needs_urdfdom
@pytest.mark.slow
def test_rtb_data_xacro_robots_expand_and_load(tmp_path):
    rtb = rtb_root()
    if rtb is None or XACRO is None:
        pytest.fail("the test extra (rtb-data) or xacro is not installed")
    robots = top_level_xacros(rtb)
    keys = {f.relative_to(rtb / "xacro").as_posix() if f.is_relative_to(rtb / "xacro")
            else f.relative_to(rtb).as_posix(): f for f in robots}
    assert len(robots) == 37, sorted(keys)
    assert set(MISSING_PACKAGE) <= set(keys)
    results = {}
    for n, (key, path) in enumerate(sorted(keys.items())):
        status, err = ours(path)
        if key in MISSING_PACKAGE:
            package = MISSING_PACKAGE[key]
            assert status == 2, (key, err)
            assert f"ROS package {package!r} was not found" in err, (key, err)
            results[key] = "missing " + package
            continue
        assert status in (0, 1), (key, err)
        results[key] = "loads"
        if path.is_relative_to(rtb / "xacro"):
            expanded = expand_for_urdfdom(path, tmp_path / f"robot_{n}.urdf", rtb)
            assert expanded is not None and urdfdom_accepts(expanded), key
    assert sum(r == "loads" for r in results.values()) == 26


LENIENT = {
    "content after the root": '<robot name="r"><link name="a"/></robot>\n<extra/>\ntext\n',
    "visual with two shapes": '<robot name="r"><link name="a"><visual><geometry><mesh '
                              'filename="m.stl"/><box size="1 1 1"/></geometry></visual></link>'
                              '</robot>',
    "visual sphere of radius 0": '<robot name="r"><link name="a"><visual><geometry><sphere '
                                 'radius="0"/></geometry></visual></link></robot>',
    "inverted limits": '<robot name="r"><link name="a"/><link name="b"/><joint name="j" '
                       'type="revolute"><parent link="a"/><child link="b"/><limit lower="1" '
                       'upper="-1" effort="1" velocity="1"/></joint></robot>',
    "unknown elements and attributes": '<robot name="r" colour="blue"><link name="a" mass="3">'
                                       '<collision><geometry><box size="1 1 1"/></geometry>'
                                       '<friction/></collision></link><klampt/></robot>',
}


@needs_urdfdom
@pytest.mark.parametrize("name", sorted(LENIENT))
def test_each_leniency_is_a_file_urdfdom_accepts(tmp_path, name):
    path = tmp_path / "robot.urdf"
    path.write_text(textwrap.dedent(LENIENT[name]))
    assert urdfdom_accepts(path)
    status, err = ours(path)
    assert status == 0, err
    assert f"geometry-core check: warning: {path}:" in err


@pytest.mark.slow
@pytest.mark.parametrize("robot, package", [
    ("unimation_puma560_description/urdf/puma560_robot.urdf.xacro",
     "unimation_puma560_description"),
    ("trossen_descriptions/urdf/wx250s.urdf.xacro", "trossen_descriptions"),
])
def test_check_report_of_an_rtb_xacro_equals_that_of_its_expansion(
        tmp_path, capsys, robot, package):
    """``geometry-core check`` on the .urdf.xacro and on what the xacro command writes for it."""
    rtb = rtb_root()
    if rtb is None or XACRO is None:
        pytest.fail("the test extra (rtb-data) or xacro is not installed")
    xacro_file = rtb / "xacro" / robot
    expanded = expand_for_urdfdom(xacro_file, tmp_path / "robot.urdf", rtb)
    assert expanded is not None
    common = ["--package-root", f"{package}={rtb / 'xacro' / package}", "--max-distance", "0.05"]
    assert main(["check", str(expanded), *common]) in (0, 1)
    from_urdf = capsys.readouterr()
    assert main(["check", str(xacro_file), *common]) in (0, 1)
    from_xacro = capsys.readouterr()
    assert "clearances within 0.05 m: " in from_urdf.out
    assert from_xacro.out == from_urdf.out.replace(str(expanded), str(xacro_file))
