"""The DDS backend's ``ros_discovery_info``: how ROS 2 tools learn a participant's nodes.

rmw_cyclonedds (like every rmw on rmw_dds_common) publishes, per
participant, an ``rmw_dds_common/msg/ParticipantEntitiesInfo`` on the DDS
topic ``ros_discovery_info`` (no ``rt/`` prefix; reliable, transient local,
keep last 1): the participant's GID and, for each of its nodes, the name,
namespace and the GIDs of the node's readers and writers. ``ros2 node
list``, ``ros2 node info`` and rclpy's graph queries read that topic; DDS
discovery alone shows topics but no nodes. :class:`DiscoveryAnnouncer`
publishes the same for a :class:`~.dds.DdsNode`, so the node shows up next
to rclpy ones.

A GID is the entity's 16-byte DDS GUID followed by 8 zero bytes, as
rmw_cyclonedds fills its 24-byte ``rmw_gid_t``.

This module must never import rclpy or ``geometry_core``.
"""

# No "from __future__ import annotations": Cyclone reads the field types at class creation.

from dataclasses import dataclass, field

from cyclonedds.core import Entity, Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl import types as idl_types
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic

__all__ = ["DISCOVERY_TOPIC", "DiscoveryAnnouncer", "Gid", "NodeEntitiesInfo",
           "ParticipantEntitiesInfo", "gid_of"]

#: The DDS topic name rmw_dds_common uses (outside the ROS ``rt/`` namespace).
DISCOVERY_TOPIC = "ros_discovery_info"
_GID_SIZE = 24


@dataclass
class Gid(IdlStruct, typename="rmw_dds_common::msg::dds_::Gid_"):
    """``rmw_dds_common/msg/Gid``: ``uint8[24] data``."""

    data: idl_types.array[idl_types.uint8, _GID_SIZE] = field(
        default_factory=lambda: [0] * _GID_SIZE)


@dataclass
class NodeEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::NodeEntitiesInfo_"):
    """``rmw_dds_common/msg/NodeEntitiesInfo``: a node and its readers and writers."""

    node_namespace: idl_types.bounded_str[256]
    node_name: idl_types.bounded_str[256]
    reader_gid_seq: idl_types.sequence[Gid]
    writer_gid_seq: idl_types.sequence[Gid]


@dataclass
class ParticipantEntitiesInfo(
        IdlStruct, typename="rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"):
    """``rmw_dds_common/msg/ParticipantEntitiesInfo``: a participant's GID and nodes."""

    gid: Gid
    node_entities_info_seq: idl_types.sequence[NodeEntitiesInfo]


def gid_of(entity: Entity) -> Gid:
    """The rmw GID of a DDS entity: its GUID, zero-padded to 24 bytes."""
    guid = entity.guid.bytes
    return Gid(data=list(guid) + [0] * (_GID_SIZE - len(guid)))


class DiscoveryAnnouncer:
    """Publishes one participant's nodes on ``ros_discovery_info``, as rmw does.

    Parameters
    ----------
    participant : DomainParticipant
        The node's participant (the DDS backend has one per node).
    namespace, name : str
        The node's namespace (absolute) and name.

    The message is sent again after every :meth:`add_reader` and
    :meth:`add_writer`; being transient local with depth 1, a tool that
    starts later gets the latest one.
    """

    QOS = Qos(
        Policy.Reliability.Reliable(0),
        Policy.Durability.TransientLocal,
        Policy.History.KeepLast(1),
    )

    def __init__(self, participant: DomainParticipant, namespace: str, name: str) -> None:
        self._participant_gid = gid_of(participant)
        self._namespace = namespace
        self._name = name
        self._readers: list[Gid] = []
        self._writers: list[Gid] = []
        self._topic = Topic(participant, DISCOVERY_TOPIC, ParticipantEntitiesInfo)
        self._writer = DataWriter(participant, self._topic, qos=self.QOS)
        self.announce()

    def add_reader(self, reader: Entity) -> None:
        """Announce one more reader (a subscription) of the node."""
        self._readers.append(gid_of(reader))
        self.announce()

    def add_writer(self, writer: Entity) -> None:
        """Announce one more writer (a publisher) of the node."""
        self._writers.append(gid_of(writer))
        self.announce()

    def message(self) -> ParticipantEntitiesInfo:
        """What :meth:`announce` publishes."""
        node = NodeEntitiesInfo(node_namespace=self._namespace, node_name=self._name,
                                reader_gid_seq=list(self._readers),
                                writer_gid_seq=list(self._writers))
        return ParticipantEntitiesInfo(gid=self._participant_gid, node_entities_info_seq=[node])

    def announce(self) -> None:
        """Publish the participant's current entities."""
        self._writer.write(self.message())

    def entities(self) -> list[Entity]:
        """The writer and topic, children first, for the node to delete before its participant."""
        return [self._writer, self._topic]
