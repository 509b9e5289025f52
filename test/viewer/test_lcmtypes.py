"""Our generated LCM classes: up to date, and byte-compatible with pydrake's.

Compatibility is checked in both directions with pydrake's own ``drake.lcmt_*``
classes (pydrake ships them as the top-level ``drake`` package): same
fingerprints, and a fully populated message encoded by one side decodes on
the other with every field equal.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

from geometry_core.viewer import lcmgen
from geometry_core.viewer.lcmtypes import drake as ours

TYPE_NAMES = [
    "lcmt_viewer_load_robot",
    "lcmt_viewer_link_data",
    "lcmt_viewer_geometry_data",
    "lcmt_viewer_draw",
    "lcmt_contact_results_for_viz",
    "lcmt_point_pair_contact_info_for_viz",
    "lcmt_hydroelastic_contact_surface_for_viz",
    "lcmt_hydroelastic_quadrature_per_point_data_for_viz",
    "lcmt_point",
]


def _have_lcm_gen() -> bool:
    return (Path(sys.executable).parent / "lcm-gen").is_file() or bool(shutil.which("lcm-gen"))


# The .lcm sources live in the checkout's lcmtypes/; an installed package
# (colcon test runs against the install space) has only the generated classes.
needs_sources = pytest.mark.skipif(not lcmgen.default_definitions_dir().is_dir(),
                                   reason="the lcmtypes/*.lcm sources are not installed; "
                                          "they are checked in a checkout")


@needs_sources
def test_every_definition_has_a_committed_class():
    definitions = sorted(p.stem for p in lcmgen.default_definitions_dir().glob("*.lcm"))
    assert definitions == sorted(TYPE_NAMES)
    for name in TYPE_NAMES:
        assert getattr(ours, name).__name__ == name


@needs_sources
@pytest.mark.skipif(not _have_lcm_gen(), reason="lcm-gen not installed (pip install lcm)")
def test_committed_files_match_a_fresh_generation():
    fresh = lcmgen.generate()
    package_dir = lcmgen.default_output_dir() / lcmgen.LCM_PACKAGE
    committed = {p.name: p.read_text() for p in sorted(package_dir.glob("*.py"))}
    assert sorted(committed) == sorted(fresh), "run geometry_core/viewer/regenerate_lcmtypes.sh"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale generated files {stale}: run regenerate_lcmtypes.sh"


def test_generated_modules_import_our_package_not_pydrakes():
    package_dir = lcmgen.default_output_dir() / lcmgen.LCM_PACKAGE
    for path in package_dir.glob("lcmt_*.py"):
        text = path.read_text()
        assert "\nimport drake\n" not in text, path.name
    module = importlib.import_module("geometry_core.viewer.lcmtypes.drake.lcmt_viewer_link_data")
    assert vars(module)["drake"] is ours


def test_postprocess_rewrites_only_the_package_import():
    text = "import struct\n\nimport drake\n\nx = drake.lcmt_point\n"
    assert lcmgen.postprocess("lcmt_x.py", text) == (
        "import struct\n\nfrom geometry_core.viewer.lcmtypes import drake\n\n"
        "x = drake.lcmt_point\n")
    assert lcmgen.postprocess("__init__.py", '"""doc\nlcm-gen 1.5.3\n"""\n') == '"""doc\n"""\n'


# ------------------------------------------------------------ sample messages


def _fill(package, name):
    """Return a message of type ``name`` from ``package`` with every field set."""
    cls = getattr(package, name)
    if name == "lcmt_point":
        msg = cls()
        msg.x, msg.y, msg.z = 1.5, -2.25, 3.0
        return msg
    if name == "lcmt_viewer_geometry_data":
        msg = cls()
        msg.type = cls.MESH
        msg.position = [0.5, -1.0, 2.0]
        msg.quaternion = [0.5, 0.5, -0.5, 0.5]
        msg.color = [0.25, 0.5, 0.75, 1.0]
        msg.string_data = "meshes/mesh.obj"
        msg.float_data = [1.0, 2.0, 0.5]
        msg.num_float_data = 3
        return msg
    if name == "lcmt_viewer_link_data":
        msg = cls()
        msg.name = "robot::link1"
        msg.robot_num = 7
        msg.geom = [_fill(package, "lcmt_viewer_geometry_data") for _ in range(2)]
        msg.num_geom = 2
        return msg
    if name == "lcmt_viewer_load_robot":
        msg = cls()
        msg.link = [_fill(package, "lcmt_viewer_link_data") for _ in range(3)]
        msg.num_links = 3
        return msg
    if name == "lcmt_viewer_draw":
        msg = cls()
        msg.timestamp = 1234
        msg.num_links = 2
        msg.link_name = ["a::b", "world"]
        msg.robot_num = [3, 0]
        msg.position = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
        msg.quaternion = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
        return msg
    if name == "lcmt_point_pair_contact_info_for_viz":
        msg = cls()
        msg.timestamp = 987654321
        msg.body1_name = "a::b::box"
        msg.body2_name = "c::d::ball"
        msg.contact_point = [0.1, 0.2, 0.3]
        msg.contact_force = [0.0, 0.0, -4.5]
        msg.normal = [0.0, 0.0, 1.0]
        return msg
    if name == "lcmt_hydroelastic_quadrature_per_point_data_for_viz":
        msg = cls()
        msg.p_WQ = [1.0, 2.0, 3.0]
        msg.vt_BqAq_W = [0.1, 0.0, -0.1]
        msg.traction_Aq_W = [5.0, 6.0, 7.0]
        return msg
    if name == "lcmt_hydroelastic_contact_surface_for_viz":
        msg = cls()
        msg.geometry1_name, msg.body1_name, msg.model1_name = "g1", "b1", "m1"
        msg.body1_unique, msg.collision_count1 = True, 2
        msg.geometry2_name, msg.body2_name, msg.model2_name = "g2", "b2", "m2"
        msg.body2_unique, msg.collision_count2 = False, 1
        msg.centroid_W = [0.0, 1.0, 2.0]
        msg.force_C_W = [3.0, 4.0, 5.0]
        msg.moment_C_W = [6.0, 7.0, 8.0]
        msg.quadrature_point_data = [
            _fill(package, "lcmt_hydroelastic_quadrature_per_point_data_for_viz")]
        msg.num_quadrature_points = 1
        msg.p_WV = [_fill(package, "lcmt_point") for _ in range(3)]
        msg.pressure = [1.0, 2.0, 3.0]
        msg.num_vertices = 3
        msg.poly_data = [3, 0, 1, 2]
        msg.poly_data_int_count = 4
        return msg
    if name == "lcmt_contact_results_for_viz":
        msg = cls()
        msg.timestamp = 42
        msg.point_pair_contact_info = [
            _fill(package, "lcmt_point_pair_contact_info_for_viz") for _ in range(2)]
        msg.num_point_pair_contacts = 2
        msg.hydroelastic_contacts = [_fill(package, "lcmt_hydroelastic_contact_surface_for_viz")]
        msg.num_hydroelastic_contacts = 1
        return msg
    raise AssertionError(name)


def _as_plain(msg):
    """Return a message as nested lists and scalars, for field-by-field comparison."""
    if hasattr(msg, "__slots__") and hasattr(msg, "_get_packed_fingerprint"):
        return {slot: _as_plain(getattr(msg, slot)) for slot in msg.__slots__}
    if isinstance(msg, (list, tuple)):
        return [_as_plain(item) for item in msg]
    return msg


@pytest.fixture(scope="module")
def theirs():
    pytest.importorskip("pydrake")
    return importlib.import_module("drake")


@pytest.mark.drake
@pytest.mark.parametrize("name", TYPE_NAMES)
def test_fingerprint_equals_pydrakes(theirs, name):
    assert (getattr(ours, name)._get_packed_fingerprint()
            == getattr(theirs, name)._get_packed_fingerprint())


@pytest.mark.drake
@pytest.mark.parametrize("name", TYPE_NAMES)
def test_ours_encode_pydrake_decodes(theirs, name):
    data = _fill(ours, name).encode()
    decoded = getattr(theirs, name).decode(data)
    assert _as_plain(decoded) == _as_plain(getattr(ours, name).decode(data))
    assert decoded.encode() == data


@pytest.mark.drake
@pytest.mark.parametrize("name", TYPE_NAMES)
def test_pydrake_encodes_ours_decode(theirs, name):
    data = _fill(theirs, name).encode()
    decoded = getattr(ours, name).decode(data)
    assert _as_plain(decoded) == _as_plain(getattr(theirs, name).decode(data))
    assert decoded.encode() == data
