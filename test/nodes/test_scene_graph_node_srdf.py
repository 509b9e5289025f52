"""The scene graph node applies an SRDF's disabled pairs: parameter, text or latched topic.

A real DDS-backend node (loopback-only configuration, a domain of its own);
the SRDF topic's message is handed to the callback by the test.
"""

from __future__ import annotations

import itertools
import os
import types
from pathlib import Path

import pytest

from geometry_core_nodes.scene_graph_node import SceneGraphNode
from geometry_core_nodes.transport import ParameterError, loopback_config

pytestmark = [pytest.mark.network, pytest.mark.dds]

DATA = Path(__file__).resolve().parents[1] / "data"
URDF = DATA / "tiny_arm.urdf"
SRDF = ('<robot name="tiny_arm"><disable_collisions link1="base" link2="tool"/>'
        '<disable_collisions link1="base" link2="nope"/></robot>')
_DOMAINS = itertools.count((os.getpid() * 13) % 37)


@pytest.fixture
def make_node():
    nodes = []

    def make(*params: str) -> SceneGraphNode:
        args = ["--ros-args", "-p", f"scene_file:={URDF}",
                "-p", f"package_roots:=['tiny_arm={DATA}']",
                *[a for p in params for a in ("-p", p)]]
        node = SceneGraphNode(args, backend="dds", domain_id=10 + next(_DOMAINS) % 37,
                              dds_config=loopback_config())
        nodes.append(node)
        return node

    yield make
    for node in nodes:
        node.shutdown()


def filtered(node, a: str, b: str) -> bool:
    inspector = node.inputs.scene_graph.model_inspector()
    ids = {inspector.get_name(inspector.get_frame_id(g)): g
           for g in inspector.get_all_geometry_ids()
           if inspector.get_proximity_properties(g) is not None}
    return inspector.collision_filtered(ids[a], ids[b])


def test_srdf_file_parameter(make_node, tmp_path):
    path = tmp_path / "arm.srdf"
    path.write_text(SRDF)
    node = make_node(f"srdf_file:={path}")
    assert filtered(node, "base", "tool")
    assert not filtered(node, "base", "link3")


def test_srdf_text_parameter_and_latched_topic(make_node):
    node = make_node()
    assert not filtered(node, "base", "tool")
    node._on_srdf(types.SimpleNamespace(data="<robot><oops></robot>"))  # refused, still serving
    assert not filtered(node, "base", "tool")
    node._on_srdf(types.SimpleNamespace(data=SRDF))
    assert filtered(node, "base", "tool")
    text = make_node(f"robot_description_semantic:={SRDF}")
    assert filtered(text, "base", "tool")


def test_both_srdf_parameters_are_refused():
    with pytest.raises(ParameterError, match="set srdf_file or robot_description_semantic, "
                                             "not both"):
        SceneGraphNode(["--ros-args", "-p", f"scene_file:={URDF}", "-p", "srdf_file:=a.srdf",
                        "-p", f"robot_description_semantic:={SRDF}"], backend="dds",
                       domain_id=10 + next(_DOMAINS) % 37, dds_config=loopback_config())
