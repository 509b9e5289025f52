"""The loader reads a URDF's robot model itself: yourdfpy, which it once used, is the reference.

yourdfpy (PyPI) parses the same file with its own code. For every robot
the loader accepts, the joints (type, parent, child, origin, axis, limits,
mimic) and every geometry (shape, size, pose on its link) must be what
yourdfpy reads; what yourdfpy cannot read (a comma between the numbers of
an origin, a calibration value that is not a number...) the loader
refuses, now with the line. And the work grows linearly with the number of
links: counted in function calls, not seconds.
"""

import math
import pathlib
import sys
import textwrap
import warnings

import numpy as np
import pytest

from geometry_core import Box, Convex, Cylinder, Mesh, Role, Sphere
from geometry_core.scene_files import SceneFileError, load_urdf

yourdfpy = pytest.importorskip("yourdfpy")

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "test" / "data"


def write(tmp_path, body: str, name="robot.urdf") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body).strip() + "\n")
    return path


def random_robot(seed: int, links: int = 40) -> str:
    """A tree of random joints (every type, mimic, limits or none) and shapes, odd names too."""
    rng = np.random.default_rng(seed)

    def numbers(values) -> str:
        return " ".join(repr(float(v)) for v in values)

    parts = ['<robot name="random">']
    for k in range(links):
        items = []
        for kind in ("collision", "visual"):
            for n in range(int(rng.integers(0, 3))):
                shape = rng.choice(["box", "sphere", "cylinder"])
                size = {"box": f'<box size="{numbers(rng.uniform(0.01, 1, 3))}"/>',
                        "sphere": f'<sphere radius="{rng.uniform(0.01, 1)!r}"/>',
                        "cylinder": f'<cylinder radius="{rng.uniform(0.01, 1)!r}" '
                                    f'length="{rng.uniform(0.01, 1)!r}"/>'}[shape]
                origin = "" if rng.random() < 0.3 else (
                    f'<origin xyz="{numbers(rng.uniform(-1, 1, 3))}" '
                    f'rpy="{numbers(rng.uniform(-7, 7, 3))}"/>')
                name = f' name="{kind[0]}{n}"' if rng.random() < 0.5 else ""
                items.append(f"<{kind}{name}>{origin}<geometry>{size}</geometry></{kind}>")
        parts.append(f'<link name="l{k}\u00e9">{"".join(items)}</link>')
    moving = []
    for k in range(1, links):
        parent = int(rng.integers(0, k))
        kind = rng.choice(["revolute", "continuous", "prismatic", "fixed"])
        body = (f'<parent link="l{parent}\u00e9"/><child link="l{k}\u00e9"/>'
                f'<origin xyz="{numbers(rng.uniform(-1, 1, 3))}" '
                f'rpy="{numbers(rng.uniform(-4, 4, 3))}"/>'
                f'<axis xyz="{numbers(rng.uniform(-2, 2, 3))}"/>')
        if kind in ("revolute", "prismatic") and rng.random() < 0.8:
            lower = rng.uniform(-2, 1)
            body += f'<limit lower="{lower!r}" upper="{lower + rng.uniform(0, 2)!r}" ' \
                    'effort="1" velocity="1"/>'
        if kind != "fixed" and moving and rng.random() < 0.2:
            body += (f'<mimic joint="{moving[int(rng.integers(len(moving)))]}" '
                     f'multiplier="{rng.uniform(-2, 2)!r}" offset="{rng.uniform(-1, 1)!r}"/>')
        elif kind != "fixed":
            moving.append(f"j{k}")
        parts.append(f'<joint name="j{k}" type="{kind}">{body}</joint>')
    parts.append("</robot>")
    return "\n".join(parts)


def assert_same_model(scene, path: pathlib.Path) -> None:
    """Joints and collision/visual geometry as yourdfpy reads them."""
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False).robot
    # What the loader skips with a warning (a visual it cannot draw) yourdfpy keeps.
    skipped = {text.split(": ")[1].split(", ")[0].split("'")[1] for text in scene.warnings
               if "this visual is skipped" in text}
    specs = {joint.name: joint for joint in scene.kinematics.joints()}
    assert list(specs) == [j.name for j in robot.joints]
    for joint in robot.joints:
        spec = specs[joint.name]
        assert (spec.type, spec.parent, spec.child) == (joint.type, joint.parent, joint.child)
        origin = np.eye(4) if joint.origin is None else joint.origin
        np.testing.assert_allclose(spec.X_PJ, origin, rtol=0, atol=1e-12)
        if joint.type != "fixed":
            axis = np.asarray(joint.axis, float)
            np.testing.assert_allclose(spec.axis_J, axis / np.linalg.norm(axis), atol=1e-12)
        if joint.type in ("revolute", "prismatic") and joint.limit is not None:
            lower, upper = joint.limit.lower, joint.limit.upper
            expected = (-math.inf if lower is None else lower, math.inf if upper is None else upper)
            if expected[0] > expected[1]:  # bounds nothing: unlimited, with a warning
                expected = (-math.inf, math.inf)
            assert (spec.lower, spec.upper) == expected
        else:
            assert (spec.lower, spec.upper) == (-math.inf, math.inf)
        if joint.mimic is not None:
            assert spec.mimic == (joint.mimic.joint, joint.mimic.multiplier, joint.mimic.offset)
        else:
            assert spec.mimic is None
    inspector = scene.scene_graph.model_inspector()
    for link in robot.links:
        if link.name in skipped:
            continue
        for kind, items, role in (("collision", link.collisions, Role.PROXIMITY),
                                  ("visual", link.visuals, Role.ILLUSTRATION)):
            for k, item in enumerate(items):
                name = item.name or (kind if k == 0 else f"{kind}_{k}")
                g = scene.geometries[f"{link.name}::{name}"]
                assert inspector.get_properties(g, role) is not None
                assert inspector.get_frame_id(g) == (inspector.world_frame_id()
                                                     if link.name == "world"
                                                     else scene.frames[link.name])
                origin = np.eye(4) if item.origin is None else item.origin
                np.testing.assert_allclose(inspector.get_pose_in_frame(g).get_as_matrix4(),
                                           origin, rtol=0, atol=1e-12)
                shape, geometry = inspector.get_shape(g), item.geometry
                if geometry.box is not None:
                    assert isinstance(shape, Box)
                    assert [shape.width, shape.depth, shape.height] == list(geometry.box.size)
                elif geometry.sphere is not None:
                    assert isinstance(shape, Sphere) and shape.radius == geometry.sphere.radius
                elif geometry.cylinder is not None:
                    assert isinstance(shape, Cylinder)
                    assert (shape.radius, shape.length) == (geometry.cylinder.radius,
                                                            geometry.cylinder.length)
                else:
                    assert isinstance(shape, Convex if kind == "collision" else Mesh)
                    scale = 1.0 if geometry.mesh.scale is None else geometry.mesh.scale
                    np.testing.assert_array_equal(shape.scale3,
                                                  np.broadcast_to(np.asarray(scale, float), 3))
                    assert pathlib.Path(shape.filename).name == \
                        pathlib.PurePosixPath(geometry.mesh.filename).name


@pytest.mark.filterwarnings("ignore:.*joint without <limit>")
@pytest.mark.parametrize("seed", range(6))
def test_random_robots_read_as_yourdfpy_reads_them(tmp_path, seed):
    path = write(tmp_path, random_robot(seed))
    scene = load_urdf(path)
    assert len(scene.frames) == 40
    assert_same_model(scene, path)


def test_a_robot_with_a_world_link_and_inline_materials_reads_as_yourdfpy(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <material name="blue"><color rgba="0 0 1 1"/></material>
          <link name="world"><collision><geometry><box size="1 1 0.1"/></geometry></collision>
          </link>
          <link name="a">
            <visual><geometry><sphere radius="0.2"/></geometry><material name="blue"/></visual>
            <collision><origin xyz="0 0 0.1" rpy="0.3 -0.2 1.5"/>
              <geometry><box size="0.1, 0.2, 0.3"/></geometry></collision>
          </link>
          <link name="b"><collision><geometry><cylinder radius="0.1" length="1e-1"/>
            </geometry></collision></link>
          <joint name="w" type="fixed"><parent link="world"/><child link="a"/>
            <origin xyz="1 2 3" rpy="0 0 3.14159"/></joint>
          <joint name="j" type="prismatic"><parent link="a"/><child link="b"/>
            <axis xyz="0 0 -5"/><limit lower="0.5" upper="1" effort="1" velocity="1"/></joint>
        </robot>""")
    scene = load_urdf(path)
    assert_same_model(scene, path)
    box = scene.scene_graph.model_inspector().get_shape(scene.geometries["a::collision"])
    assert (box.width, box.depth, box.height) == (0.1, 0.2, 0.3)  # commas read as blanks


@pytest.mark.parametrize("element, culprit", [
    ('<origin xyz="0,0,1"/>', "<origin> xyz must be numbers separated by blanks, without "
                              "commas, got '0,0,1'"),
    ('<origin rpy="0, 0, 1"/>', "<origin> rpy must be numbers"),
    ('<axis xyz="0,0,1"/>', "<axis> xyz must be numbers"),
    ('<limit lower="-1," upper="1" effort="1" velocity="1"/>',
     "<limit> lower must be a number, without commas, got '-1,'"),
    ('<limit effort="1," velocity="1"/>', "<limit> effort must be a number"),
    ('<mimic joint="k" offset="1,"/>', "<mimic> offset must be a number"),
    ('<calibration rising="up"/>', "<calibration> rising must be a number, got 'up'"),
    ('<safety_controller k_velocity="fast"/>', "<safety_controller> k_velocity must be a"),
])
def test_what_yourdfpy_cannot_read_is_refused_with_its_line(tmp_path, element, culprit):
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="a"/>
          <link name="b"/>
          <joint name="j" type="continuous"><parent link="a"/><child link="b"/>
            {element}
          </joint>
          <link name="c"/>
          <joint name="k" type="continuous"><parent link="b"/><child link="c"/></joint>
        </robot>""")
    with pytest.raises(Exception):  # noqa: B017  (the reference's own exception types)
        yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False)
    with pytest.raises(SceneFileError) as error:
        load_urdf(path)
    assert culprit in str(error.value)
    assert error.value.line == 5


def test_a_visual_yourdfpy_cannot_read_refuses_the_robot_a_malformed_one_is_skipped(tmp_path):
    comma = write(tmp_path, """
        <robot name="r">
          <link name="a"><visual><geometry><sphere radius="0.1"/></geometry>
            <material name="m"><color rgba="1,0,0,1"/></material></visual></link>
        </robot>""", "comma.urdf")
    with pytest.raises(Exception):  # noqa: B017
        yourdfpy.URDF.load(str(comma), build_scene_graph=False, load_meshes=False)
    with pytest.raises(SceneFileError, match=r"comma.urdf:3: <color> rgba must be numbers"):
        load_urdf(comma)
    # Without visuals yourdfpy never read it, and neither do we.
    assert "a" in load_urdf(comma, visuals=False).frames
    malformed = write(tmp_path, """
        <robot name="r">
          <link name="a"><visual><geometry><sphere radius="-0.1"/></geometry>
            <material name="m"><color rgba="1,0,0,1"/></material></visual></link>
        </robot>""", "malformed.urdf")
    with pytest.warns(UserWarning, match=r"malformed.urdf:2: .*this visual is skipped"):
        scene = load_urdf(malformed)
    assert scene.geometries == {}


def test_a_processing_instruction_before_a_shape_is_refused(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <link name="a"><collision><geometry><?note a box?><box size="1 1 1"/></geometry>
          </collision></link>
        </robot>""")
    with pytest.raises(Exception):  # noqa: B017
        yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False)
    with pytest.raises(SceneFileError, match=r"robot.urdf:2: <geometry>: a processing "):
        load_urdf(path)


def test_a_processing_instruction_elsewhere_keeps_lines_and_warnings(tmp_path):
    path = write(tmp_path, """
        <robot name="r">
          <?note the tree is walked as lxml parsed it?>
          <link name="a"><collision><geometry><box size="1 1 1"/></geometry></collision></link>
          <link name="b"/>
          <joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>
        </robot>""")
    with pytest.warns(UserWarning, match=r"robot.urdf:5: joint 'j': a revolute joint without"):
        scene = load_urdf(path)
    assert_same_model(scene, path)


def chain(n: int) -> str:
    sys.path.insert(0, str(ROOT))
    from bench.many_links import chain_urdf

    return chain_urdf(n)


def calls_to_load(path: pathlib.Path) -> int:
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        load_urdf(path)
    finally:
        sys.setprofile(None)
    return count


def test_loading_is_linear_in_the_number_of_links(tmp_path):
    """Function calls (Python and C) per link stay flat from 300 to 1 200 links."""
    counts = {}
    for n in (300, 1200):
        path = tmp_path / f"chain{n}.urdf"
        path.write_text(chain(n))
        calls_to_load(path)  # imports and caches out of the count
        counts[n] = calls_to_load(path)
    per_link = {n: count / n for n, count in counts.items()}
    assert per_link[1200] < 1.05 * per_link[300], per_link


def test_many_links_keep_their_lines_in_messages(tmp_path):
    """Line numbers come from the parser on the fast path too (a bad link far down)."""
    text = chain(3000).replace('<link name="l2900"><collision><geometry><box size="0.1 0.1 0.1"/>',
                               '<link name="l2900"><collision><geometry><box size="0.1 0 0.1"/>')
    path = tmp_path / "chain.urdf"
    path.write_text(text)
    with pytest.raises(SceneFileError) as error:
        load_urdf(path)
    assert error.value.line == 2902
    assert "link 'l2900', collision #1: <box> size must have 3 positive numbers" \
        in str(error.value)


def test_a_file_of_very_many_elements_is_walked_as_lxml_parsed_it(tmp_path, monkeypatch):
    """Past the bound the checks walk lxml's tree: the same warnings, lines and model."""
    from geometry_core.scene_files import urdf

    text = chain(50).replace('<link name="l7">', '<link name="l7" colour="red">')
    path = tmp_path / "chain.urdf"
    path.write_text(text)
    results = []
    for bound in (10**6, 10):
        monkeypatch.setattr(urdf, "_MAX_COPIED_ELEMENTS", bound)
        with pytest.warns(UserWarning, match=r"chain.urdf:9: unknown attribute 'colour' of"):
            scene = load_urdf(path)
        assert_same_model(scene, path)
        results.append((list(scene.frames), list(scene.geometries), scene.warnings[0]))
    assert results[0] == results[1]


@pytest.mark.slow
def test_every_example_robot_data_urdf_reads_as_yourdfpy_reads_it():
    """69 robots of example-robot-data 6.0.0: joints, shapes, scales and poses alike."""
    sys.path.insert(0, str(ROOT))
    from bench.robot_files import all_urdfs, package_roots, robots_share

    share = robots_share()
    if share is None:
        pytest.skip("example-robot-data is not installed (pip install example-robot-data==6.0.0)")
    compared = 0
    for urdf in all_urdfs(share):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scene = load_urdf(urdf, package_roots=package_roots(share))
        except SceneFileError as err:  # the two refusals test_robot_data.py names
            assert "mimics" in str(err) or "has no <link>" in str(err), (urdf, err)
            continue
        assert_same_model(scene, urdf)
        compared += 1
    assert compared == 67


def test_loads_in_threads_share_one_pause_of_the_garbage_collector():
    import gc
    import threading

    from geometry_core.scene_files import urdf

    assert gc.isenabled()
    entered, main_inside, leave = threading.Event(), threading.Event(), threading.Event()

    def first_load():
        with urdf._collector_paused():
            entered.set()
            main_inside.wait(timeout=30)
        leave.set()

    first = threading.Thread(target=first_load)
    first.start()
    entered.wait(timeout=30)
    with urdf._collector_paused():
        main_inside.set()
        leave.wait(timeout=30)  # the first load has ended; this one has not
        assert not gc.isenabled(), "the collector ran again while a load was under way"
    first.join(timeout=30)
    assert gc.isenabled(), "the last load to end turns the collector back on"
