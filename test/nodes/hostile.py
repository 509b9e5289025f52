"""A hostile publisher for the attack tests: raw CDR bytes written straight to Cyclone DDS.

Our own message classes cannot build what a hostile writer sends (a string
that is not UTF-8); :class:`RawWriter` serialises a valid message, patches
its bytes and writes them with Cyclone's C layer, as any other DDS
implementation could put them on the wire.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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


def transform(T: Callable[[str], type], parent: str, child: str, xyz=(0.0, 0.0, 0.0),
              xyzw=(0.0, 0.0, 0.0, 1.0), sec: int = 1_700_000_000, nanosec: int = 0) -> Any:
    """A ``TransformStamped`` with any values, valid or not."""
    return T("geometry_msgs/msg/TransformStamped")(
        header=T("std_msgs/msg/Header")(
            stamp=T("builtin_interfaces/msg/Time")(sec=sec, nanosec=nanosec), frame_id=parent),
        child_frame_id=child,
        transform=T("geometry_msgs/msg/Transform")(
            translation=T("geometry_msgs/msg/Vector3")(x=xyz[0], y=xyz[1], z=xyz[2]),
            rotation=T("geometry_msgs/msg/Quaternion")(
                x=xyzw[0], y=xyzw[1], z=xyzw[2], w=xyzw[3])))


def hostile_messages(T: Callable[[str], type]) -> dict[str, Callable[[int], Any]]:
    """``{kind: make(n)}``: the n-th hostile /tf input of each kind (raw bytes or a TFMessage).

    Frame names differ with ``n``, as a publisher inventing names would send
    them; none names a scene frame, so a valid pose's answer is unchanged.
    """
    def tf(*transforms: Any) -> Any:
        return T("tf2_msgs/msg/TFMessage")(transforms=list(transforms))

    nan, inf = math.nan, math.inf
    return {
        "nan_quaternion": lambda n: tf(transform(T, "world", f"nan{n}", xyzw=(nan, 0, 0, 1))),
        "inf_translation": lambda n: tf(transform(T, "world", f"inf{n}", xyz=(inf, 0, 0))),
        "zero_quaternion": lambda n: tf(transform(T, "world", f"zero{n}", xyzw=(0, 0, 0, 0))),
        "huge_quaternion": lambda n: tf(transform(T, "world", f"huge{n}",
                                                  xyzw=(0, 0, 1e300, 1e300))),
        "unknown_frame": lambda n: tf(transform(T, f"nowhere{n}", f"unknown{n}")),
        "cycle": lambda n: tf(transform(T, f"b{n}", f"a{n}"), transform(T, f"a{n}", f"b{n}")),
        "stamp_2038": lambda n: tf(transform(T, "world", f"late{n}", sec=2**31 - 1,
                                             nanosec=2**32 - 1)),
        "stamp_1970": lambda n: tf(transform(T, "world", f"old{n}", sec=0, nanosec=1)),
        "long_name": lambda n: tf(transform(T, "world", f"{n}" + "x" * 1000)),
        "invalid_utf8": lambda n: patch_string(tf(transform(T, "world", PLACEHOLDER))),
    }
