"""The flat writers of the node's result messages give Cyclone's own bytes, and read back equal."""

from __future__ import annotations

import pytest

from geometry_core.demo import make_demo_scene
from geometry_core_nodes.outbound import (
    GeometryNames,
    penetrations_to_msg,
    signed_distances_to_msg,
)
from geometry_core_nodes.result_cdr import (
    sample_message,
    serialize_penetrations,
    serialize_signed_distances,
    serializer_for,
)
from geometry_core_nodes.transport import get_message_type as T

PENETRATIONS = "geometry_core_ros/msg/PenetrationPairArray"
DISTANCES = "geometry_core_ros/msg/SignedDistancePairArray"
WRITERS = {PENETRATIONS: serialize_penetrations, DISTANCES: serialize_signed_distances}


def _cyclone(msg) -> bytes:
    """What DataWriter.write sends: XCDR1, padded to a multiple of 4."""
    data = msg.serialize(use_version_2=False)
    return data.ljust((len(data) + 3) & ~3, b"\0")


def _demo_results():
    """Real results of the demo arm in and out of contact, with stale and lost frames."""
    demo = make_demo_scene()
    names = GeometryNames(demo.scene_graph.model_inspector(), "world")
    for t in (0.0, 1.8, 2.7):
        demo.advance(t)
        query = demo.scene_graph.query_object()
        penetrations = query.compute_point_pair_penetration()
        distances = query.compute_signed_distance_pairwise_closest_points(0.1)
        yield penetrations_to_msg(penetrations, names, 1_700_000_000_123_456_789, ["upper_arm"],
                                  T, ["ünïcødé"])
        yield signed_distances_to_msg(distances, names, query.get_pose_in_world, 0.1, -5,
                                      [], T, ["gripper", "wrist"])


@pytest.mark.parametrize("ros_type", [PENETRATIONS, DISTANCES])
def test_sample_and_empty_messages_give_cyclones_bytes(ros_type):
    for msg in (sample_message(ros_type, T), T(ros_type)()):
        assert WRITERS[ros_type](msg) == _cyclone(msg)


def test_real_results_give_cyclones_bytes_and_decode_to_the_same_message():
    kinds = set()
    for msg in _demo_results():
        ros_type = PENETRATIONS if "Penetration" in type(msg).__name__ else DISTANCES
        data = WRITERS[ros_type](msg)
        assert data == _cyclone(msg)
        assert type(msg).deserialize(data) == msg
        kinds.add((ros_type, len(msg.pairs) > 0))
    assert kinds == {(PENETRATIONS, True), (PENETRATIONS, False), (DISTANCES, True)}


def test_serializer_for_refuses_a_writer_that_differs():
    assert serializer_for(PENETRATIONS, T, _cyclone) is serialize_penetrations
    assert serializer_for(DISTANCES, T, _cyclone) is serialize_signed_distances
    # XCDR2 aligns float64 to 4: the flat XCDR1 writer must not be used for it.
    assert serializer_for(DISTANCES, T, lambda m: m.serialize(use_version_2=True)) is None
    assert serializer_for("std_msgs/msg/String", T, _cyclone) is None


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 16, 17, 40])
def test_a_layout_writes_what_the_writer_writes_for_any_numbers(count):
    # A few pairs are joined from the template's pieces, many written into a
    # copy of it: both must give the writer's bytes for the same pairs.
    import numpy as np

    from geometry_core_nodes.result_cdr import (
        PENETRATION_NUMBERS,
        SIGNED_DISTANCE_NUMBERS,
        pair_names,
        penetration_array_layout,
        signed_distance_array_layout,
        write_penetration_array,
        write_signed_distance_array,
    )

    rng = np.random.default_rng(count)
    names = [pair_names("g" * (k % 5 + 1), f"b{k}", "ünï" if k % 3 else "f", "w" * (k % 7))
             for k in range(count)]
    stale, lost = ["upper_arm"] if count % 2 else [], ["gripper"] * (count % 3)
    for frame in ("world", "w", "base_link_x"):
        for layout_of, writer, numbers in (
                (penetration_array_layout, write_penetration_array, PENETRATION_NUMBERS),
                (signed_distance_array_layout, write_signed_distance_array,
                 SIGNED_DISTANCE_NUMBERS)):
            layout = layout_of(frame, names, stale, lost)
            values = rng.normal(size=numbers.size // 8 * count) * 10.0 ** rng.integers(
                -300, 300, numbers.size // 8 * count)
            packed = values.tobytes()
            pairs = [(n, packed[k * numbers.size:(k + 1) * numbers.size])
                     for k, n in enumerate(names)]
            sec, nanosec = int(rng.integers(-2**31, 2**31)), int(rng.integers(0, 2**32))
            if writer is write_penetration_array:
                expected = writer(sec, nanosec, frame, pairs, stale, lost)
                got = layout.write(sec, nanosec, packed)
            else:
                expected = writer(sec, nanosec, frame, 0.25, pairs, stale, lost)
                got = layout.write(sec, nanosec, packed, 0.25)
            assert got == expected, (frame, writer.__name__)
