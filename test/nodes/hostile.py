"""A hostile publisher for the attack tests: raw CDR bytes written straight to Cyclone DDS.

Our own message classes cannot build what a hostile writer sends (a string
that is not UTF-8); :class:`RawWriter` serialises a valid message, patches
its bytes and writes them with Cyclone's C layer, as any other DDS
implementation could put them on the wire.
"""

from __future__ import annotations

from typing import Any

from cyclonedds._clayer import ddspy_write
from cyclonedds.core import Entity
from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic

from geometry_core_nodes.transport import QoSProfile, get_message_type
from geometry_core_nodes.transport.dds import _configure_domain, dds_qos

#: Placeholder written into a string field, then replaced by invalid UTF-8.
PLACEHOLDER = "@@@@"
INVALID_UTF8 = b"\xff\xfe\xff\xfe"


def patch_string(msg: Any, replacement: bytes = INVALID_UTF8) -> bytes:
    """XCDR1 bytes of ``msg`` with every ``PLACEHOLDER`` string content replaced.

    The replacement has the placeholder's length, so lengths and alignment
    stay valid: only the string's bytes are wrong.
    """
    data = msg.serialize(use_version_2=False)
    assert len(replacement) == len(PLACEHOLDER)
    patched = data.replace(PLACEHOLDER.encode() + b"\0", replacement + b"\0")
    assert patched != data, "no placeholder string in the message"
    return patched


class RawWriter:
    """A participant of its own writing raw bytes on ``rt<topic>``."""

    def __init__(self, domain_id: int, topic: str, ros_type: str, qos: QoSProfile,
                 dds_config: str | None = None) -> None:
        if dds_config is not None:
            _configure_domain(domain_id, dds_config)
        self.msg_type = get_message_type(ros_type)
        self._participant = DomainParticipant(domain_id)
        self._topic = Topic(self._participant, "rt" + topic, self.msg_type)
        self._writer = DataWriter(self._participant, self._topic, qos=dds_qos(qos))

    def matched(self) -> int:
        return self._writer.get_publication_matched_status().current_count

    def write(self, data: bytes) -> None:
        padded = data.ljust((len(data) + 3) & ~3, b"\0")
        ret = ddspy_write(self._writer._ref, padded)
        assert ret >= 0, f"write failed: {ret}"

    def close(self) -> None:
        # Cyclone's Python entities live in a class registry: delete explicitly.
        Entity.__del__(self._participant)
