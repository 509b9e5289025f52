"""Hostile robot and scene files: no hang, no crash, no unbounded memory, no file read outside.

Each probe is a file a hostile user could hand the loaders (a URDF, an
SRDF, a YAML scene, a mesh). Probes that could hang or exhaust memory run
in a process of their own with a time and an address-space cap
(:func:`_probe`), so a regression fails the test instead of the suite.

What was wrong before, one test each: registering frames was O(n^2) (10 000
links took about 28 s); warning texts carrying a per-load path grew the
warnings registry with every load; a 2 GB sparse STL was read whole and a
MemoryError lost its reason; a YAML string-alias bomb's error re-dumped a
value of 100 MB; PyYAML's ConstructorError and RecursionError escaped the
loader and the CLI printed a traceback with exit status 1; a
``package://pkg/..`` URI climbed out of its package; values were quoted
whole in messages; an infinite mesh vertex was called "degenerate"; an
axis of 1e308 overflowed to zero.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from geometry_core.scene_files import SceneFileError, load_scene, load_urdf
from geometry_core.scene_files.limits import LoadLimits
from geometry_core.scene_files.package_paths import (
    FileAccess,
    FileNotAllowed,
    resolve_mesh_path,
    resolve_package,
)

GiB = 1024**3


def _cap(memory: int):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return limit


def _probe(code: str, *args: str, timeout: float = 60.0,
           memory: int = 2 * GiB) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter capped at ``timeout`` s and ``memory`` bytes.

    A probe that hangs fails with TimeoutExpired; one that exhausts its
    address space fails with its MemoryError's traceback.
    """
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                            capture_output=True, text=True, timeout=timeout,
                            preexec_fn=_cap(memory))
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _chain_urdf(n: int) -> str:
    """A serial chain of ``n`` links with one box each."""
    links = "".join(f'<link name="l{i}"><collision><geometry><box size="0.1 0.1 0.1"/>'
                    '</geometry></collision></link>\n' for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                     f'<child link="l{i}"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>'
                     '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
                     for i in range(1, n))
    return f'<robot name="chain">\n{links}{joints}</robot>\n'


# --------------------------------------------------------------- many links


def test_a_robot_of_20000_links_loads_within_the_cap(tmp_path):
    # O(n^2) registration took about 28 s for 10 000 links and four times
    # that for 20 000: the cap (generous for a loaded CI machine) catches it.
    path = tmp_path / "chain.urdf"
    path.write_text(_chain_urdf(20_000))
    result = _probe("""
        import sys
        from geometry_core.scene_files import load_urdf
        scene = load_urdf(sys.argv[1])
        print(len(scene.frames))
    """, str(path), timeout=90)
    assert result.stdout.split() == ["20000"]


def test_a_robot_over_the_link_limit_is_refused_before_any_work(tmp_path):
    path = tmp_path / "chain.urdf"
    path.write_text(_chain_urdf(1001))
    with pytest.raises(SceneFileError, match=r"the robot has 1001 links, over the limit of "
                                             r"1000 \(LoadLimits.max_links\)"):
        load_urdf(path, limits=LoadLimits(max_links=1000))


def test_100000_links_are_refused_by_default_within_the_caps(tmp_path):
    path = tmp_path / "chain.urdf"
    path.write_text(_chain_urdf(100_000))
    result = _probe("""
        import sys
        from geometry_core.scene_files import SceneFileError, load_urdf
        try:
            load_urdf(sys.argv[1])
        except SceneFileError as err:
            print(err.message)
    """, str(path), timeout=60)
    assert "over the limit of 50000" in result.stdout


def test_registering_a_duplicate_frame_name_is_still_refused():
    from geometry_core import GeometryFrame, SceneGraph

    sg = SceneGraph()
    source = sg.register_source("s")
    for n in range(100):
        sg.register_frame(source, GeometryFrame(f"f{n}"))
    with pytest.raises(ValueError, match="already has a frame named 'f42'"):
        sg.register_frame(source, GeometryFrame("f42"))
    other = sg.register_source("t")
    sg.register_frame(other, GeometryFrame("f42"))  # another source may reuse it


# ------------------------------------------------------------------ warnings


def test_repeated_loads_from_new_folders_do_not_grow_the_warnings_registry(tmp_path):
    # Each load of a description written to a new temporary folder has new
    # warning texts (they carry the path): 300 loads of 200 missing visual
    # meshes used to leave 60 000 entries in warnings' registries.
    visuals = "".join(f'<link name="l{i}"><visual><geometry><mesh filename="missing{i}.stl"/>'
                      '</geometry></visual></link>' for i in range(200))
    (tmp_path / "robot.txt").write_text(f'<robot name="r">{visuals}</robot>')
    result = _probe("""
        import os, sys, tempfile
        from geometry_core.scene_files import load_urdf
        text = open(sys.argv[1]).read()

        def registered():
            total = 0
            for module in list(sys.modules.values()):
                total += len(getattr(module, "__warningregistry__", None) or ())
            from geometry_core.scene_files import errors
            return total + sum(len(r) for r in getattr(errors, "_registries", {}).values())

        sys.stderr = open(os.devnull, "w")  # the default filter prints each new text
        for n in range(300):
            if n == 20:
                before = registered()
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "robot_description.urdf")
                open(path, "w").write(text)
                load_urdf(path)
        print(before, registered())
    """, str(tmp_path / "robot.txt"), timeout=120)
    before, after = map(int, result.stdout.split())
    assert after - before <= 100, (before, after)


# --------------------------------------------------------------------- meshes


def _mesh_urdf(tmp_path: Path, mesh: str) -> Path:
    path = tmp_path / "robot.urdf"
    path.write_text(f'<robot name="r"><link name="a"><collision><geometry>'
                    f'<mesh filename="{mesh}"/></geometry></collision></link></robot>')
    return path


def test_a_2_gb_sparse_stl_is_refused_by_its_size_without_reading_it(tmp_path):
    mesh = tmp_path / "huge.stl"
    with open(mesh, "wb") as stream:
        stream.truncate(2 * GiB)
    path = _mesh_urdf(tmp_path, "huge.stl")
    result = _probe("""
        import sys
        from geometry_core.scene_files import SceneFileError, load_urdf
        try:
            load_urdf(sys.argv[1])
        except SceneFileError as err:
            print(err)
    """, str(path), timeout=30, memory=1 * GiB)
    assert f"is {2 * GiB} bytes, over the limit of" in result.stdout
    assert "it is not read" in result.stdout


def test_the_mesh_size_limit_is_the_loaders_to_set(tmp_path):
    (tmp_path / "m.stl").write_bytes(b"\0" * 80 + np.uint32(0).tobytes() + b"\0" * 1000)
    path = _mesh_urdf(tmp_path, "m.stl")
    with pytest.raises(SceneFileError, match=r"robot.urdf:1: link 'a', collision #1: Convex "
                                             r"file .* is 1084 bytes, over the limit of 1000"):
        load_urdf(path, limits=LoadLimits(max_mesh_file_bytes=1000))


def test_out_of_memory_while_reading_a_mesh_says_so(tmp_path, monkeypatch):
    import trimesh

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(trimesh, "load", exhausted)
    (tmp_path / "m.obj").write_text("v 0 0 0\n")
    path = _mesh_urdf(tmp_path, "m.obj")
    with pytest.raises(SceneFileError, match=r"could not be read: out of memory reading 8 "
                                             r"bytes"):
        load_urdf(path)


def test_an_infinite_vertex_is_named_as_such_not_degenerate(tmp_path):
    (tmp_path / "inf.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 inf\n"
                                      "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    path = _mesh_urdf(tmp_path, "inf.obj")
    with pytest.raises(SceneFileError, match="vertex coordinates that are NaN or infinite"):
        load_urdf(path)


# ----------------------------------------------------------------------- YAML


def test_a_yaml_string_alias_bomb_is_refused_quickly_with_a_short_message(tmp_path):
    # 104 kB: a 100 kB string and 1000 aliases of it where a mapping belongs.
    # The error message used to dump the list: 100 MB of text.
    path = tmp_path / "bomb.yaml"
    path.write_text("description: &a " + "x" * 100_000 + "\nsources: ["
                    + ", ".join(["*a"] * 1000)
                    + "]\n")
    result = _probe("""
        import sys
        from geometry_core.scene_files import SceneFileError, load_scene
        try:
            load_scene(sys.argv[1])
        except SceneFileError as err:
            print(len(str(err)))
            print(err.message)
    """, str(path), timeout=30, memory=1 * GiB)
    length, message = result.stdout.split("\n", 1)
    assert int(length) < 400, message
    assert "(cut)" in message


@pytest.mark.parametrize("body, message", [
    ("sources: !!python/object/apply:os.system ['touch {marker}']\n",
     r"bomb.yaml:1: YAML error: could not determine a constructor for the tag "
     r"'tag:yaml.org,2002:python/object/apply:os.system'"),
    ("sources: " + "[" * 100_000 + "]" * 100_000 + "\n",
     r"bomb.yaml(:1)?: YAML error: the (document|value) nests too deeply to be read"),
])
def test_yaml_that_pyyaml_refuses_is_a_scene_file_error(tmp_path, body, message):
    marker = tmp_path / "ran"
    path = tmp_path / "bomb.yaml"
    path.write_text(body.format(marker=marker))
    with pytest.raises(SceneFileError, match=message):
        load_scene(path)
    assert not marker.exists()


@pytest.mark.parametrize("body", [
    "sources: !!python/object/apply:os.system ['true']\n",
    "sources: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "description: &a " + "x" * 100_000 + "\nsources: [" + ", ".join(["*a"] * 1000) + "]\n",
])
def test_the_cli_exits_2_with_one_line_never_a_traceback(tmp_path, body):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    result = subprocess.run([sys.executable, "-m", "geometry_core.cli", "check", str(path)],
                            capture_output=True, text=True, timeout=60,
                            preexec_fn=_cap(2 * GiB))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert len(result.stderr) < 500


def test_a_10_mb_yaml_scalar_is_quoted_short(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("sources:\n  s:\n    geometries:\n      - name: g\n        frame: world\n"
                    "        shape: {type: sphere, radius: '" + "9" * 10_000_000 + "'}\n")
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    assert len(str(info.value)) < 400
    assert "10000000 characters" in str(info.value)


# ---------------------------------------------------------------- echoed values


def test_a_5_mb_number_in_a_urdf_is_quoted_short(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text('<robot name="r"><link name="a"><collision><geometry><box size="'
                    + "1" * 5_000_000 + 'x 1 1"/></geometry></collision></link></robot>')
    with pytest.raises(SceneFileError, match=r"<box> size must have 3 positive numbers, got "
                                             r"'1{40}'\.\.\.'1{35}x 1 1' \(5000005 "
                                             r"characters\)$"):
        load_urdf(path)


def test_a_9_mb_link_name_is_refused_and_quoted_short(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(f'<robot name="r"><link name="{"n" * 9_000_000}"/></robot>')
    with pytest.raises(SceneFileError) as info:
        load_urdf(path)
    assert "over the limit of 1024 characters" in str(info.value)
    assert len(str(info.value)) < 400


# ----------------------------------------------------------------- SRDF


def test_an_srdf_over_the_entry_limit_is_refused_before_it_is_applied(tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(_chain_urdf(3))
    srdf = tmp_path / "r.srdf"
    srdf.write_text("<robot name='r'>" + "<disable_collisions link1='l0' link2='l1'/>" * 1001
                    + "</robot>")
    scene = load_urdf(urdf)
    from geometry_core.scene_files import apply_srdf

    with pytest.raises(SceneFileError, match=r"r.srdf:1: the SRDF has 1001 .* over the limit "
                                             r"of 1000 \(LoadLimits.max_srdf_entries\)"):
        apply_srdf(scene, srdf, limits=LoadLimits(max_srdf_entries=1000))


def test_a_million_srdf_entries_are_refused_within_the_caps(tmp_path):
    # Applied, they cost 9.6 s and 1.3 GB.
    urdf = tmp_path / "r.urdf"
    urdf.write_text(_chain_urdf(3))
    srdf = tmp_path / "r.srdf"
    srdf.write_text("<robot name='r'>\n" + "<disable_collisions link1='l0' link2='l1'/>\n"
                    * 1_000_000 + "</robot>\n")
    result = _probe("""
        import sys
        from geometry_core.scene_files import SceneFileError, load_urdf
        try:
            load_urdf(sys.argv[1], srdf=sys.argv[2])
        except SceneFileError as err:
            print(err.message)
    """, str(urdf), str(srdf), timeout=60, memory=2 * GiB)
    assert "over the limit of 500000" in result.stdout


# ----------------------------------------------------------------- joint axes


def test_an_axis_of_1e308_is_the_unit_axis_not_zero(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text('<robot name="r"><link name="a"/><link name="b"/>'
                    '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                    '<axis xyz="1e308 0 1e308"/><limit lower="-2" upper="2" effort="1" '
                    'velocity="1"/></joint></robot>')
    scene = load_urdf(path)
    axis = scene.kinematics.joint("j").axis_J
    np.testing.assert_allclose(axis, [2**-0.5, 0.0, 2**-0.5], rtol=1e-15)


# ------------------------------------------------------------ files anywhere


@pytest.fixture()
def packages(tmp_path):
    """A package ``pkg`` with a mesh, a file outside it, and a symlink out of it."""
    root = tmp_path / "share" / "pkg"
    (root / "meshes").mkdir(parents=True)
    cube = _cube_obj()
    (root / "meshes" / "m.obj").write_text(cube)
    (tmp_path / "secret.obj").write_text(cube)
    (root / "meshes" / "link.obj").symlink_to(tmp_path / "secret.obj")
    return root


def _cube_obj() -> str:
    corners = "".join(f"v {x} {y} {z}\n" for x in (0, 1) for y in (0, 1) for z in (0, 1))
    return corners + "f 1 2 3\nf 5 6 7\nf 1 5 2\nf 3 7 4\n"


@pytest.mark.parametrize("restricted", [False, True])
def test_a_package_uri_never_leaves_its_package(packages, tmp_path, restricted):
    roots = {"pkg": packages}
    access = FileAccess.restricted(roots, environ={}) if restricted else FileAccess()
    with pytest.raises(ValueError, match="leaves package 'pkg'"):
        resolve_mesh_path("package://pkg/../../secret.obj", tmp_path, roots, {}, access)
    with pytest.raises(ValueError, match="leaves package 'pkg'"):
        resolve_package("pkg", "meshes/../../x", roots, tmp_path, {}, access)
    with pytest.raises(ValueError, match="not a plain name"):
        resolve_mesh_path("package://../etc/passwd", tmp_path, roots, {}, access)
    # Inside the package, '..' is only a way of writing a path.
    assert resolve_mesh_path("package://pkg/meshes/../meshes/m.obj", tmp_path, roots, {},
                             access) == packages / "meshes" / "m.obj"


def test_restricted_access_reads_only_under_the_roots_and_says_one_thing(packages, tmp_path):
    roots = {"pkg": packages}
    access = FileAccess.restricted(roots, environ={})
    assert resolve_mesh_path("package://pkg/meshes/m.obj", tmp_path, roots, {}, access) == \
        packages / "meshes" / "m.obj"
    messages = set()
    for filename in (str(tmp_path / "secret.obj"), f"file://{tmp_path / 'secret.obj'}",
                     "/no/such/file.obj", "package://pkg/meshes/link.obj",
                     "package://pkg/meshes/none.obj", "package://other/m.obj", "../secret.obj"):
        with pytest.raises(FileNotAllowed) as info:
            resolve_mesh_path(filename, packages / "meshes", roots, {}, access)
        messages.add(str(info.value).replace(repr("meshes/link.obj"), "X")
                     .replace(repr("meshes/none.obj"), "X").replace(repr("m.obj"), "X")
                     .replace("'other'", "'pkg'"))
    # An existing file outside the roots and a missing one read the same.
    assert messages == {"not allowed or not found", "package 'pkg': X not allowed or not found"}


def test_library_users_keep_absolute_paths_and_their_own_symlinks(packages, tmp_path):
    roots = {"pkg": packages}
    assert resolve_mesh_path(str(tmp_path / "secret.obj"), tmp_path, roots) == \
        tmp_path / "secret.obj"
    assert resolve_mesh_path("package://pkg/meshes/link.obj", tmp_path, roots).is_file()


def test_restricted_access_never_searches_up_from_the_files_folder(packages, tmp_path):
    folder = packages / "urdf" / "tmp"
    folder.mkdir(parents=True)
    # The pybullet habit finds share/pkg/meshes/m.obj from a folder below it.
    assert resolve_mesh_path("package://pkg/meshes/m.obj", folder, {}, {}) == \
        packages / "meshes" / "m.obj"
    with pytest.raises(FileNotAllowed, match="not allowed or not found"):
        resolve_mesh_path("package://pkg/meshes/m.obj", folder, {}, {},
                          FileAccess.restricted({}, environ={}))


def test_the_ros_path_variables_are_allowed_roots(packages, tmp_path):
    environ = {"AMENT_PREFIX_PATH": str(tmp_path)}
    access = FileAccess.restricted({}, environ=environ)
    assert resolve_mesh_path("package://pkg/meshes/m.obj", tmp_path, {}, environ, access) == \
        packages / "meshes" / "m.obj"


def test_find_pkg_resolves_to_the_package_folder(packages, tmp_path):
    assert resolve_package("pkg", "", {"pkg": packages}) == packages
    environ = {"ROS_PACKAGE_PATH": str(packages.parent)}
    assert resolve_package("pkg", "", {}, None, environ,
                           FileAccess.restricted({}, environ=environ)) == packages


def test_a_urdf_under_restricted_access_refuses_an_absolute_mesh(packages, tmp_path):
    path = _mesh_urdf(tmp_path, str(tmp_path / "secret.obj"))
    assert load_urdf(path).geometries  # a library user's own file: read
    with pytest.raises(SceneFileError, match=r"collision #1: mesh '.*secret.obj': not allowed "
                                             r"or not found$"):
        load_urdf(path, file_access=FileAccess.restricted({"pkg": packages}, environ={}))


def test_fifos_and_devices_are_read_no_further_than_the_limit(tmp_path):
    result = _probe("""
        from geometry_core.scene_files import SceneFileError, load_urdf
        from geometry_core.scene_files.limits import LoadLimits
        try:
            load_urdf("/dev/zero", limits=LoadLimits(max_file_bytes=1 << 20))
        except SceneFileError as err:
            print(err)
    """, timeout=30, memory=1 * GiB)
    assert "over the limit of 1048576 bytes" in result.stdout


def test_a_copy_of_a_loaded_robot_is_independent_of_it(tmp_path):
    # The node gives its clearance checker a copy of the robot it loaded
    # (one parse per robot): the checker's filters must not reach the node.
    import copy

    from geometry_core import GeometrySet

    path = tmp_path / "chain.urdf"
    path.write_text(_chain_urdf(3))
    robot = load_urdf(path, filter_adjacent=False)
    twin = copy.deepcopy(robot)
    frames = [twin.frames[name] for name in ("l0", "l2")]
    twin.scene_graph.exclude_collisions_between(GeometrySet(frames[0]), GeometrySet(frames[1]))
    g0, g2 = robot.geometries["l0::collision"], robot.geometries["l2::collision"]
    assert twin.scene_graph.model_inspector().collision_filtered(g0, g2)
    assert not robot.scene_graph.model_inspector().collision_filtered(g0, g2)
