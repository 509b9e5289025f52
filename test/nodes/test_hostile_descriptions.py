"""The scene graph node against hostile robot descriptions, over the real DDS transport.

Anyone on the ROS graph can publish ``robot_description`` and
``robot_description_semantic`` (latched: a node started later still gets
them). Each test starts a real node process (loopback-only Cyclone, a
domain of its own) and checks what a hostile description must not do: stop
the node (a link named like ``world_frame`` used to crash it, and the
latched sample crash-looped every restart), stall it (10 000 links), make it
read files outside the package roots, or flood its log (an SRDF of 50 000
unknown links logged one line each). After each, the node must answer /tf
with a valid robot: the previous one, or one published afterwards.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from pathlib import Path

import pytest

from geometry_core_nodes.transport import LATCHED

HERE = Path(__file__).parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


scenario = _load("node_scenario")

pytestmark = [pytest.mark.network, pytest.mark.dds]

_DOMAINS = itertools.count((os.getpid() * 13) % 37)
_STAMPS = itertools.count(1)

#: The node's world_frame in these tests: a name a URDF link can take (``world``
#: is the URDF's own world, never a frame).
WORLD = "odom"

#: Two root links whose boxes overlap by 0.05 m when posed as assert_answers says.
ROBOT = """<robot name="two">
  <link name="base"><collision name="base_box"><geometry><box size="0.2 0.2 0.2"/></geometry>
  </collision></link>
  <link name="arm"><collision name="arm_box"><geometry><box size="0.2 0.2 0.2"/></geometry>
  </collision></link>
</robot>"""

CUBE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (0, 1) for y in (0, 1) for z in (0, 1)) + \
    "f 1 2 3\nf 5 6 7\nf 1 5 2\nf 3 7 4\n"


def _domain_id() -> int:
    """A DDS domain per node, away from the other process tests' domains."""
    return 175 + next(_DOMAINS) % 37


class _Harness:
    """A peer that publishes descriptions and /tf and collects the node's results."""

    def __init__(self, tmp: Path, **params) -> None:
        self.domain = _domain_id()
        self.params = scenario.write_params(tmp / "params.yaml", publish_markers=False,
                                            world_frame=WORLD, **params)
        self.peer = scenario.Peer(self.domain)
        self.T = self.peer.message_type
        self.description = self.peer.node.create_publisher("std_msgs/msg/String",
                                                           "robot_description", LATCHED)
        self.semantic = self.peer.node.create_publisher(
            "std_msgs/msg/String", "robot_description_semantic", LATCHED)

    def publish(self, urdf: str) -> None:
        self.description.publish(self.T("std_msgs/msg/String")(data=urdf))

    def publish_srdf(self, srdf: str) -> None:
        self.semantic.publish(self.T("std_msgs/msg/String")(data=srdf))

    def node(self) -> scenario.NodeProcess:
        return scenario.NodeProcess("scene_graph_node", self.params, self.domain)

    def assert_answers(self, node: scenario.NodeProcess, timeout: float = 30.0) -> None:
        """The two-link robot posed on /tf: the node answers with its one overlapping pair."""
        assert node.process.poll() is None, f"the node died:\n{node.output}"
        stamp = scenario.STAMP_NS + next(_STAMPS) * 10**6
        tf = self.T("tf2_msgs/msg/TFMessage")(transforms=[
            self._transform(WORLD, "base", 0.0, stamp),
            self._transform(WORLD, "arm", 0.15, stamp)])
        msg = self.peer.wait_for("penetrations", lambda m: scenario.stamp_ns_of(m) == stamp,
                                 repeat=lambda: self.peer.tf.publish(tf), timeout=timeout)
        pairs = scenario.pairs_as_dicts(msg)
        assert [(p["geometry_a"], p["geometry_b"]) for p in pairs] == [
            ("two::base::base_box", "two::arm::arm_box")], (msg, node.output[-2000:])
        assert pairs[0]["depth"] == pytest.approx(0.05, abs=1e-9)
        assert list(msg.lost_frames) == []

    def _transform(self, parent: str, child: str, z: float, stamp: int):
        from geometry_core import RigidTransform

        return scenario.make_transform(self.T, parent, child, RigidTransform([0.0, 0.0, z]),
                                       stamp)

    def close(self) -> None:
        self.peer.shutdown()


@pytest.fixture()
def harness(tmp_path):
    s = _Harness(tmp_path)
    yield s
    s.close()


def _stopped_cleanly(node: scenario.NodeProcess) -> str:
    returncode = node.stop()
    assert returncode == 0, node.output
    assert "Traceback" not in node.output, node.output
    return node.output


def _chain(n: int) -> str:
    links = "".join(f'<link name="l{i}"><collision><geometry><box size="0.1 0.1 0.1"/>'
                    "</geometry></collision></link>" for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="fixed"><parent link="l{i - 1}"/>'
                     f'<child link="l{i}"/></joint>' for i in range(1, n))
    return f'<robot name="chain">{links}{joints}</robot>'


def _one_mesh(filename: str) -> str:
    return ('<robot name="m"><link name="m"><collision><geometry>'
            f'<mesh filename="{filename}"/></geometry></collision></link></robot>')


def _hostile(name: str, tmp: Path, monkeypatch) -> tuple[str, str, dict]:
    """``(urdf, the refusal's words, node parameters)`` of one hostile description.

    Files the hostile descriptions point at exist and are valid meshes, so a
    node that read them would load the robot.
    """
    (tmp / "secret.obj").write_text(CUBE_OBJ)
    if name == "link_named_world_frame":
        # /tf could not tell the link from the world: the node raised outside
        # its guard and exited 1, and the latched sample killed every restart.
        return (f'<robot name="w"><link name="{WORLD}"/></robot>',
                "has the name of the world_frame parameter", {})
    if name == "ten_thousand_links":
        # Loaded twice, it kept the node from /tf for over 30 s.
        return _chain(10_000), "the robot has 10000 links, over the limit of 1000", {}
    if name == "mesh_by_absolute_path":
        return _one_mesh(str(tmp / "secret.obj")), "not allowed or not found", {}
    if name == "mesh_out_of_its_package":
        (tmp / "share" / "pkg").mkdir(parents=True)
        return (_one_mesh("package://pkg/../../secret.obj"), "leaves package 'pkg'",
                {"package_roots": [f"pkg={tmp / 'share' / 'pkg'}"]})
    if name == "unknown_package_searched_upward":
        # The description is written to a temporary folder; pybullet's habit
        # searched from there up to / for a folder of the package's name.
        (tmp / "tmp").mkdir()
        (tmp / "nopkg").mkdir()
        (tmp / "nopkg" / "m.obj").write_text(CUBE_OBJ)
        monkeypatch.setenv("TMPDIR", str(tmp / "tmp"))
        return _one_mesh("package://nopkg/m.obj"), "not allowed or not found", {}
    if name == "not_xml":
        return "<robot", "XML syntax error", {}
    raise KeyError(name)


HOSTILE = ["link_named_world_frame", "ten_thousand_links", "mesh_by_absolute_path",
           "mesh_out_of_its_package", "unknown_package_searched_upward", "not_xml"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_latched_hostile_description_is_refused_at_every_start(tmp_path, monkeypatch, name):
    urdf, reason, params = _hostile(name, tmp_path, monkeypatch)
    s = _Harness(tmp_path, **params)
    try:
        s.publish(urdf)  # latched: every node that starts gets it first
        for _ in range(2):  # a restart with the same latched sample comes up serving
            with s.node() as node:
                node.wait_for_line("ready on the dds backend")
                node.wait_for_line(reason, timeout=30)
                assert node.process.poll() is None, node.output
                s.publish(ROBOT)
                node.wait_for_line("loaded robot_description: 2 frames")
                s.assert_answers(node)
                s.publish(urdf)
                _stopped_cleanly(node)
    finally:
        s.close()


def test_the_previous_robot_is_served_after_a_refusal(harness):
    harness.publish(ROBOT)
    with harness.node() as node:
        node.wait_for_line("loaded robot_description: 2 frames")
        harness.assert_answers(node)
        harness.publish(f'<robot name="w"><link name="{WORLD}"/></robot>')
        node.wait_for_line("the previous robot is kept")
        harness.assert_answers(node)
        _stopped_cleanly(node)


def test_an_srdf_of_50000_unknown_links_logs_a_bounded_summary(harness):
    # On the node a 13 MB SRDF logged 600 000 lines (71 MB) for one message.
    srdf = "<robot name='two'>" + "".join(
        f"<disable_collisions link1='x{n}' link2='y{n}'/>" for n in range(50_000)) + "</robot>"
    harness.publish(ROBOT)
    with harness.node() as node:
        node.wait_for_line("loaded robot_description: 2 frames")
        harness.publish_srdf(srdf)
        node.wait_for_line("and 49990 more like these", timeout=60)
        harness.assert_answers(node)
        output = _stopped_cleanly(node)
    assert sum("SRDF:" in line for line in output.splitlines()) <= 11, output[-3000:]
    assert len(output) < 20_000


def test_an_srdf_over_the_entry_limit_is_refused_and_the_node_serves(harness):
    srdf = "<robot name='two'>" + "<disable_default_collisions link='arm'/>" * 100_001 \
        + "</robot>"
    harness.publish(ROBOT)
    with harness.node() as node:
        node.wait_for_line("loaded robot_description: 2 frames")
        harness.publish_srdf(srdf)
        node.wait_for_line("over the limit of 100000", timeout=60)
        harness.assert_answers(node)  # the pair is still reported: the SRDF was refused
        _stopped_cleanly(node)


def test_a_robot_at_the_link_limit_loads_and_is_served(harness):
    # 1000 welded links: loaded once (the clearance checker reuses the node's robot).
    harness.publish(_chain(1000))
    with harness.node() as node:
        node.wait_for_line("loaded robot_description: 1000 frames", timeout=60)
        harness.publish(ROBOT)
        node.wait_for_line("loaded robot_description: 2 frames", timeout=60)
        harness.assert_answers(node)
        _stopped_cleanly(node)
