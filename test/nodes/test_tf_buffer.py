"""The nodes' latest-transform buffer: direct frames, chains, static frames, errors."""

from __future__ import annotations

import numpy as np
import pytest

from geometry_core.math import (
    RigidTransform,
    RollPitchYaw,
    matrix4_from_pose_rows,
    quaternion_wxyz_to_xyzw,
)
from geometry_core_nodes.tf_buffer import LIBRARY_ORDER, MAX_CHAIN, NO_DYNAMIC_NS, TfBuffer


def _pose(parent, child, xyz=(0, 0, 0), yaw=0.0, stamp=0):
    """A stored transform: translation, then the quaternion in ROS order (x, y, z, w)."""
    q_xyzw = quaternion_wxyz_to_xyzw(RollPitchYaw(0, 0, yaw).to_quaternion())
    return parent, child, stamp, np.concatenate([np.asarray(xyz, dtype=float), q_xyzw])


def test_unknown_frame_is_none_and_direct_parent_is_one_step():
    buffer = TfBuffer()
    assert buffer.lookup("world", "base") is None
    buffer.set_transform(_pose("world", "base", (1, 2, 3), stamp=5), static=False)
    chain = buffer.lookup("world", "base")
    np.testing.assert_array_equal(chain.X_PC[:3, 3], [1, 2, 3])
    assert (chain.newest_ns, chain.oldest_dynamic_ns) == (5, 5)
    assert buffer.version == 1 and len(buffer) == 1 and "base" in buffer


def test_chain_through_frames_outside_the_scene_composes_poses_and_stamps():
    buffer = TfBuffer()
    buffer.set_transform(_pose("world", "odom", (1, 0, 0), yaw=np.pi / 2, stamp=1), static=True)
    buffer.set_transform(_pose("odom", "base", (0, 2, 0), stamp=30), static=False)
    buffer.set_transform(_pose("base", "tool", (0, 0, 1), stamp=20), static=False)
    chain = buffer.lookup("world", "tool")
    X_WT = (RigidTransform(RollPitchYaw(0, 0, np.pi / 2), [1, 0, 0])
            @ RigidTransform([0, 2, 0]) @ RigidTransform([0, 0, 1]))
    np.testing.assert_allclose(chain.X_PC, X_WT.get_as_matrix4(), atol=1e-15)
    assert (chain.newest_ns, chain.oldest_dynamic_ns) == (30, 20)
    assert buffer.lookup("world", "odom").oldest_dynamic_ns is None  # static: never stale


def test_chain_that_misses_the_parent_or_loops_raises():
    buffer = TfBuffer()
    buffer.set_transform(_pose("odom", "base"), static=False)
    with pytest.raises(LookupError, match="chain of parents stops at 'odom' without reaching "
                                          "'world'"):
        buffer.lookup("world", "base")
    buffer.set_transform(_pose("base", "odom"), static=False)
    with pytest.raises(LookupError, match=f"loops or is longer than {MAX_CHAIN}"):
        buffer.lookup("world", "base")


def test_newest_message_wins_but_a_static_parent_is_kept():
    buffer = TfBuffer()
    buffer.set_transform(_pose("world", "base", (1, 0, 0), stamp=10), static=False)
    buffer.set_transform(_pose("world", "base", (2, 0, 0), stamp=5), static=False)
    assert buffer.lookup("world", "base").X_PC[0, 3] == 2
    buffer.set_transform(_pose("world", "fixed", (3, 0, 0)), static=True)
    buffer.set_transform(_pose("elsewhere", "fixed", (4, 0, 0)), static=False)
    assert buffer.parent_of("fixed") == "world"
    assert buffer.lookup("world", "fixed").X_PC[0, 3] == 3


def test_frames_beyond_the_cap_evict_the_least_recently_updated_never_protected_ones():
    buffer = TfBuffer(max_foreign_frames=3)
    buffer.protect(["base"])
    buffer.set_transform(_pose("world", "base"), static=True)
    for name in ("a", "b", "c"):
        buffer.set_transform(_pose("world", name), static=False)
    buffer.set_transform(_pose("world", "a"), static=False)  # a is now the newest
    buffer.set_transform(_pose("world", "d"), static=False)
    assert buffer.evicted == 1 and "b" not in buffer
    assert all(name in buffer for name in ("base", "a", "c", "d"))
    for n in range(1000):
        buffer.set_transform(_pose("world", f"spam{n}"), static=False)
    assert len(buffer) == 4 and "base" in buffer and buffer.evicted == 1001


def test_many_frames_at_once_give_the_poses_one_lookup_gives():
    # 40 frames take the batched conversion; a single lookup takes the scalar one.
    buffer = TfBuffer()
    for n in range(40):
        buffer.set_transform(_pose("world", f"f{n}", (n, -1, 2), yaw=0.1 * n, stamp=n),
                             static=n % 2 == 0)
    chains = buffer.lookup_all([("world", f"f{n}") for n in range(40)] + [("world", "none")])
    assert chains[-1] is None
    for n, chain in enumerate(chains[:-1]):
        X_WF = RigidTransform(RollPitchYaw(0, 0, 0.1 * n), [n, -1, 2]).get_as_matrix4()
        np.testing.assert_allclose(chain.X_PC, X_WF, atol=1e-14)
        np.testing.assert_allclose(buffer.lookup("world", f"f{n}").X_PC, X_WF, atol=1e-14)
        assert (chain.newest_ns, chain.oldest_dynamic_ns) == (n, None if n % 2 == 0 else n)


def test_rows_of_only_for_transforms_that_change_no_structure():
    buffer = TfBuffer()
    for name in ("a", "b"):
        buffer.set_transform(_pose("world", name, stamp=1), static=False)
    structure = buffer.structure
    rows = buffer.rows_of(["world", "world"], ["b", "a"], static=False)
    assert rows is not None and len(set(rows)) == 2
    assert buffer.rows_of(["world"], ["new"], static=False) is None
    assert buffer.rows_of(["odom"], ["a"], static=False) is None  # another parent
    assert buffer.rows_of(["world"], ["a"], static=True) is None  # static would change
    assert buffer.rows_of(["world", "world"], ["a", "a"], static=False) is None  # twice
    values = np.array([_pose("world", "b", (5, 6, 7))[3], _pose("world", "a", (1, 2, 3))[3]])
    version = buffer.version
    buffer.store_rows(rows, values, [20, 10])
    assert buffer.version > version and buffer.structure == structure
    np.testing.assert_array_equal(buffer.lookup("world", "a").X_PC[:3, 3], [1, 2, 3])
    assert buffer.lookup("world", "b").newest_ns == 20
    buffer.set_transform(_pose("odom", "a"), static=False)  # re-parented
    assert buffer.structure > structure
    assert buffer.rows_of(["world", "world"], ["b", "a"], static=False) is None


def test_lookup_poses_marks_missing_and_broken_chains_and_follows_new_structure():
    buffer = TfBuffer()
    buffer.set_transform(_pose("world", "base", (1, 0, 0), stamp=4), static=True)
    buffer.set_transform(_pose("base", "arm", (0, 1, 0), stamp=9), static=False)
    buffer.set_transform(_pose("nowhere", "lost", stamp=2), static=False)
    pairs = (("world", "base"), ("world", "arm"), ("world", "lost"), ("world", "unknown"))
    poses = buffer.lookup_poses(pairs)
    assert poses.found == [True, True, False, False] and not poses.complete
    assert [n for n, _ in poses.errors] == [2]
    assert "stops at 'nowhere'" in str(poses.errors[0][1])
    np.testing.assert_allclose(poses.X_PC_array[1][:3, 3], [1, 1, 0])
    assert poses.newest_ns[:2] == [4, 9]
    assert poses.oldest_dynamic_ns[0] == NO_DYNAMIC_NS and poses.oldest_dynamic_ns[1] == 9
    buffer.set_transform(_pose("world", "lost", (0, 0, 3), stamp=11), static=False)
    poses = buffer.lookup_poses(pairs)  # the same pairs, a new structure: chains again
    assert poses.found == [True, True, True, False] and not poses.errors
    np.testing.assert_allclose(poses.X_PC_array[2][:3, 3], [0, 0, 3])


def test_lookup_rows_gives_the_numbers_of_lookup_poses_only_for_pairs_of_one_transform():
    buffer = TfBuffer()
    buffer.set_transform(_pose("world", "base", (1, 2, 3), yaw=0.3, stamp=7), static=True)
    buffer.set_transform(_pose("base", "arm", (0, 1, 0), yaw=-1.0, stamp=9), static=False)
    pairs = (("world", "base"), ("base", "arm"))
    rows, newest, oldest = buffer.lookup_rows(pairs)
    poses = buffer.lookup_poses(pairs)
    assert (newest, oldest) == (poses.newest_ns, poses.oldest_dynamic_ns) == (
        [7, 9], [NO_DYNAMIC_NS, 9])
    assert matrix4_from_pose_rows(rows, LIBRARY_ORDER).tobytes() == poses.X_PC_array.tobytes()
    # A chain of two transforms, or a frame never heard of: the poses must be composed.
    assert buffer.lookup_rows((("world", "arm"),)) is None
    assert buffer.lookup_rows((("world", "base"), ("base", "hand"))) is None
