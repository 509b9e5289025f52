"""Unit tests of geometry_core.math.kernels (vectorised array kernels)."""

import struct

import numpy as np
import pytest

from geometry_core.math import (
    RigidTransform,
    RollPitchYaw,
    RotationMatrix,
    fill_template,
    inverse_matrix4,
    matches_template,
    matrix4_from_pose_rows,
    matrix4_from_quaternions_and_positions,
    read_pose_records,
    rotation_matrices_from_rpy,
    validate_matrix4s,
    validate_rotation_matrices,
)
from geometry_core.tolerances import USER_ROTATION_TOLERANCE

RNG = np.random.default_rng(3)
RPY = RNG.uniform(-3.0, 3.0, (20, 3))
P = RNG.uniform(-5.0, 5.0, (20, 3))


def _matrix4s():
    X = np.zeros((20, 4, 4))
    X[:, :3, :3] = rotation_matrices_from_rpy(RPY)
    X[:, :3, 3] = P
    X[:, 3, 3] = 1.0
    return X


def test_rotation_matrices_from_rpy_matches_roll_pitch_yaw():
    R = rotation_matrices_from_rpy(RPY)
    assert R.shape == (20, 3, 3)
    # Both run the formula of csrc/rotation.c; the contract is agreement to
    # round-off (a compiler may contract the products differently per loop).
    for rpy, R_row in zip(RPY, R):
        assert RotationMatrix(R_row).is_nearby(RollPitchYaw(rpy).to_rotation_matrix(), 1e-15)


def test_rotation_matrices_from_rpy_errors():
    bad = RPY.copy()
    bad[4, 1] = np.inf
    with pytest.raises(ValueError, match=r"rpy\[4\] contains inf"):
        rotation_matrices_from_rpy(bad)
    with pytest.raises(ValueError, match=r"rpy must have shape \(N, 3\), got \(3,\)"):
        rotation_matrices_from_rpy(np.zeros(3))


def test_validate_rotation_matrices_returns_a_copy():
    R = rotation_matrices_from_rpy(RPY)
    validated = validate_rotation_matrices(R)
    np.testing.assert_array_equal(validated, R)
    validated[0, 0, 0] = 5.0
    assert R[0, 0, 0] != 5.0
    assert validate_rotation_matrices(np.empty((0, 3, 3))).shape == (0, 3, 3)


@pytest.mark.parametrize(
    ("index", "corrupt", "message"),
    [
        (3, lambda R: np.full((3, 3), np.nan), r"R\[3\] contains NaN"),
        (7, lambda R: 1.01 * R, r"R\[7\] is not orthonormal: max \|R Rᵀ - I\| = 0.0201"),
        (5, lambda R: -R, r"R\[5\] is a reflection \(determinant -1\)"),
    ],
)
def test_validate_rotation_matrices_names_first_bad_index(index, corrupt, message):
    R = rotation_matrices_from_rpy(RPY)
    R[index] = corrupt(R[index])
    R[index + 2] = corrupt(R[index + 2])
    with pytest.raises(ValueError, match=message):
        validate_rotation_matrices(R)


def test_batch_and_single_validation_agree_at_the_tolerance():
    # The same matrices just inside and just outside USER_ROTATION_TOLERANCE.
    inside = np.diag([1.0, 1.0, 1.0 + 0.49 * USER_ROTATION_TOLERANCE])
    outside = np.diag([1.0, 1.0, 1.0 + 0.51 * USER_ROTATION_TOLERANCE])
    RotationMatrix(inside)
    validate_rotation_matrices(inside[np.newaxis])
    with pytest.raises(ValueError, match="not orthonormal"):
        RotationMatrix(outside)
    with pytest.raises(ValueError, match="not orthonormal"):
        validate_rotation_matrices(outside[np.newaxis])


def test_validate_matrix4s():
    X = _matrix4s()
    np.testing.assert_array_equal(validate_matrix4s(X), X)
    bad_row = X.copy()
    bad_row[2, 3, 0] = 1e-9
    with pytest.raises(ValueError, match=r"X\[2\]'s last row must be exactly \[0, 0, 0, 1\]"):
        validate_matrix4s(bad_row)
    bad_rotation = X.copy()
    bad_rotation[6, :3, :3] *= 2
    with pytest.raises(ValueError, match=r"X\[:, :3, :3\]\[6\] is not orthonormal"):
        validate_matrix4s(bad_rotation)
    nan = X.copy()
    nan[9, 1, 3] = np.nan
    with pytest.raises(ValueError, match=r"X_WF\[9\] contains NaN"):
        validate_matrix4s(nan, name="X_WF")
    with pytest.raises(ValueError, match=r"X must have shape \(N, 4, 4\), got \(4, 4\)"):
        validate_matrix4s(np.eye(4))
    with pytest.raises(TypeError, match="X must be a numpy array"):
        validate_matrix4s(None)


def test_matrix4_from_quaternions_and_positions_normalises():
    q = np.array([RollPitchYaw(rpy).to_quaternion() for rpy in RPY])
    q *= RNG.uniform(0.5, 3.0, (20, 1))
    X = matrix4_from_quaternions_and_positions(q, P)
    np.testing.assert_allclose(X, _matrix4s(), atol=1e-15)
    np.testing.assert_array_equal(X[:, 3], np.tile([0.0, 0.0, 0.0, 1.0], (20, 1)))


def test_matrix4_from_quaternions_and_positions_errors():
    q = np.tile([1.0, 0.0, 0.0, 0.0], (4, 1))
    q[2] = 0.0
    with pytest.raises(ValueError, match=r"q_wxyz\[2\] is a zero quaternion"):
        matrix4_from_quaternions_and_positions(q, np.zeros((4, 3)))
    q[2] = [np.nan, 0, 0, 1]
    with pytest.raises(ValueError, match=r"q_wxyz\[2\] contains NaN"):
        matrix4_from_quaternions_and_positions(q, np.zeros((4, 3)))
    q[2] = [1.0, 0, 0, 0]
    with pytest.raises(ValueError, match=r"p must have shape \(4, 3\) to match q_wxyz, got"):
        matrix4_from_quaternions_and_positions(q, np.zeros((3, 3)))
    p = np.zeros((4, 3))
    p[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"p\[1\] contains inf"):
        matrix4_from_quaternions_and_positions(q, p)


def test_inverse_matrix4_matches_rigid_transform_inverse():
    X = _matrix4s()
    X_inverse = inverse_matrix4(X)
    for X_row, X_inverse_row in zip(X, X_inverse):
        expected = RigidTransform(pose=X_row).inverse().get_as_matrix4()
        np.testing.assert_allclose(X_inverse_row, expected, atol=1e-15)
    np.testing.assert_allclose(X @ X_inverse, np.tile(np.eye(4), (20, 1, 1)), atol=1e-14)
    with pytest.raises(ValueError, match=r"X_AB must have shape \(N, 4, 4\), got \(3, 4, 3\)"):
        inverse_matrix4(np.zeros((3, 4, 3)))


# ------------------------------------------------------------ pose rows


_ROS_ORDER = (0, 1, 2, 6, 3, 4, 5)  # translation, then a quaternion stored x y z w


def _rows(rng, n: int) -> list[tuple[float, ...]]:
    """Rows of translation and an unnormalised quaternion, magnitudes from 1e-300 to 1e300."""
    scale = 10.0 ** rng.uniform(-300, 300, size=(n, 1))
    values = np.hstack([rng.normal(size=(n, 3)), rng.normal(size=(n, 4)) * scale])
    return [tuple(row) for row in values.tolist()]


@pytest.mark.parametrize("n", [0, 1, 6, 50])
def test_pose_rows_give_the_matrices_of_the_quaternion_batch_to_the_bit(n):
    rng = np.random.default_rng(n)
    rows = _rows(rng, n)
    X = matrix4_from_pose_rows(rows, _ROS_ORDER)
    values = np.array([[row[k] for k in _ROS_ORDER] for row in rows]).reshape(-1, 7)
    expected = matrix4_from_quaternions_and_positions(values[:, 3:], values[:, :3])
    assert X.shape == (n, 4, 4)
    assert X.tobytes() == expected.tobytes()
    # The default order: position then w x y z, as the rows of `values`.
    assert matrix4_from_pose_rows(values.tolist()).tobytes() == expected.tobytes()


@pytest.mark.parametrize("bad, message", [
    ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0), "zero quaternion"),
    ((0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 1.0), "q_wxyz"),
    ((np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), r"p\[2\]"),
])
def test_a_bad_pose_row_is_refused_as_the_quaternion_batch_refuses_it(bad, message):
    rows = _rows(np.random.default_rng(0), 2) + [bad]
    with pytest.raises(ValueError, match=message):
        matrix4_from_pose_rows(rows, _ROS_ORDER)


def test_pose_rows_of_the_wrong_kind_are_refused():
    with pytest.raises(ValueError, match="7 indices"):
        matrix4_from_pose_rows([(0.0,) * 7], (0, 1, 2))
    with pytest.raises((TypeError, ValueError)):
        matrix4_from_pose_rows([(0.0, 0.0, 0.0, 1.0)], _ROS_ORDER)  # a short row
    with pytest.raises((TypeError, ValueError)):
        matrix4_from_pose_rows([("a",) * 7], _ROS_ORDER)


@pytest.mark.parametrize("order", ["<", ">"])
def test_read_pose_records_stores_the_packed_numbers_or_nothing(order):
    """Records at scattered offsets, read as ``struct`` reads them; a bad one stores nothing."""
    rng = np.random.default_rng(4 if order == "<" else 5)
    count = 5
    stamp_at = tuple(int(a) for a in 3 + 80 * np.arange(count))  # unaligned on purpose
    values_at = tuple(a + 13 for a in stamp_at)
    data = bytearray(80 * count + 20)
    expected = []
    for a, b in zip(stamp_at, values_at):
        sec, nanosec = int(rng.integers(-2**31, 2**31)), int(rng.integers(0, 10**9))
        row = tuple(float(x) for x in rng.normal(scale=1e3, size=7))
        struct.pack_into(order + "iI", data, a, sec, nanosec)
        struct.pack_into(order + "7d", data, b, *row)
        expected.append((row, sec * 10**9 + nanosec))
    rows = [4, 0, 2, 6, 1]
    values, stamps = [None] * 7, [None] * 7
    assert read_pose_records(bytes(data), stamp_at, values_at, order == "<", rows, values, stamps)
    for row, (numbers, stamp_ns) in zip(rows, expected):
        assert values[row] == numbers and stamps[row] == stamp_ns
    assert values[3] is None and stamps[5] is None
    kept = (list(values), list(stamps))
    for bad in ("nan", "inf", "zero quaternion", "nanosec", "overflow"):
        broken = bytearray(data)
        if bad == "nanosec":
            struct.pack_into(order + "I", broken, stamp_at[2] + 4, 10**9)
        elif bad == "zero quaternion":
            struct.pack_into(order + "4d", broken, values_at[2] + 24, 0.0, -0.0, 0.0, 0.0)
        elif bad == "overflow":  # finite numbers whose sum is not: refused, as the sum says
            struct.pack_into(order + "2d", broken, values_at[1], 1.7e308, 1.7e308)
        else:
            struct.pack_into(order + "d", broken, values_at[4] + 8, float(bad))
        assert not read_pose_records(bytes(broken), stamp_at, values_at, order == "<", rows,
                                     values, stamps)
        assert (values, stamps) == kept
    with pytest.raises(IndexError):
        read_pose_records(bytes(data[:-30]), stamp_at, values_at, order == "<", rows, values,
                          stamps)
    with pytest.raises(IndexError):
        read_pose_records(bytes(data), stamp_at, values_at, order == "<", [0, 1, 2, 3, 9],
                          values, stamps)


def test_fill_template_writes_patches_and_records_where_bytearray_would():
    """Every byte as slice assignment into a bytearray copy puts it; bad calls raise."""
    rng = np.random.default_rng(6)
    for count in (0, 1, 3, 40):
        size = 17  # odd on purpose: no alignment assumed
        template = bytes(rng.integers(0, 256, 30 + 25 * count, dtype=np.uint8))
        numbers_at = tuple(int(a) for a in 30 + 25 * np.arange(count) + rng.integers(0, 8, count))
        numbers = rng.integers(0, 256, size * count, dtype=np.uint8)
        stamp, extra = struct.pack("<iI", -7, 999), struct.pack("<d", 0.25)
        expected = bytearray(template)
        expected[4:12] = stamp
        expected[20:28] = extra
        for k, at in enumerate(numbers_at):
            expected[at:at + size] = numbers[k * size:(k + 1) * size].tobytes()
        out = fill_template(template, numbers if count else None, size, numbers_at,
                            (4, stamp), (20, extra))
        assert type(out) is bytes and out == bytes(expected)
        assert template == bytes(template)  # the template is copied, never written
        # Any C-contiguous buffer of the records: bytes, a structured array.
        assert fill_template(template, numbers.tobytes(), size, numbers_at, (4, stamp),
                             (20, extra)) == out
    assert fill_template(b"abc", None, 8, ()) == b"abc"
    with pytest.raises(ValueError, match="16 bytes of numbers for 1 pairs of 17 bytes"):
        fill_template(bytes(40), bytes(16), 17, (3,))
    with pytest.raises(IndexError):
        fill_template(bytes(40), bytes(17), 17, (24,))
    with pytest.raises(IndexError):
        fill_template(bytes(40), None, 17, (), (38, b"abc"))
    with pytest.raises(IndexError):
        fill_template(bytes(40), None, 17, (), (-1, b"a"))
    with pytest.raises(TypeError):
        fill_template(bytearray(40), None, 17, ())
    with pytest.raises(TypeError):
        fill_template(bytes(40), None, 17, (), (3, "text"))
    with pytest.raises(TypeError):
        fill_template(bytes(40), bytes(17), 17, (3.0,))


def test_matches_template_compares_every_byte_outside_the_holes():
    """Against slicing: a changed byte counts outside the holes only; bad holes raise."""
    rng = np.random.default_rng(7)
    template = bytes(rng.integers(0, 256, 200, dtype=np.uint8))
    holes = ((0, 3), (8, 16), (16, 16), (40, 96), (190, 200))
    inside = {k for start, end in holes for k in range(start, end)}
    assert matches_template(template, template, holes)
    assert matches_template(bytearray(template), template, ())
    for k in range(len(template)):
        changed = bytearray(template)
        changed[k] ^= 0x5A
        assert matches_template(bytes(changed), template, holes) == (k in inside)
        assert not matches_template(bytes(changed), template, ())
    assert not matches_template(template[:-1], template, holes)
    assert not matches_template(template + b"\0", template, holes)
    for bad in (((8, 16), (0, 3)), ((10, 5),), ((190, 201),), ((-1, 3),)):
        with pytest.raises(ValueError):
            matches_template(template, template, bad)
    with pytest.raises(TypeError):
        matches_template(template, bytearray(template), ())
    with pytest.raises(TypeError):
        matches_template(template, template, ((1, 2, 3),))


class _Shrinking:
    """A number whose conversion empties a list: Python code run in the middle of a read."""

    def __init__(self, value, victim):
        self.value, self.victim = value, victim

    def __float__(self):
        self.victim.clear()
        return self.value


def test_pose_rows_read_from_a_list_that_a_number_empties_midway():
    """The rows and each row are read as they were when the call began, never past their end."""
    identity = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    rows = [list(identity) for _ in range(40)]
    rows[0][0] = _Shrinking(2.0, rows)  # empties the list of rows
    rows[1][0] = _Shrinking(3.0, rows[1])  # empties its own row
    X = matrix4_from_pose_rows(rows)
    assert X.shape == (40, 4, 4) and rows == []
    assert X[0, 0, 3] == 2.0 and X[1, 0, 3] == 3.0 and np.all(X[2:, :3, 3] == 0.0)
    np.testing.assert_array_equal(X[:, :3, :3], np.broadcast_to(np.eye(3), (40, 3, 3)))


class _Emptying:
    """An old list item whose release empties the lists it sat in."""

    def __init__(self, *victims):
        self.victims = victims

    def __del__(self):
        for victim in self.victims:
            victim.clear()


def test_read_pose_records_into_lists_an_old_item_empties_raises():
    data = struct.pack("<iI7d", 1, 2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0) * 2
    values, stamps = [None, None], [None, None]
    values[0] = _Emptying(values, stamps)
    with pytest.raises(IndexError):  # not a result with an error left set (SystemError)
        read_pose_records(data, (0, 64), (8, 72), True, [0, 1], values, stamps)
    assert values == [] and stamps == []


def test_read_pose_records_at_any_offset_and_row_stores_all_or_nothing():
    """Offsets and rows at and past every edge, on any buffer: stored, refused or raised."""
    rng = np.random.default_rng(29)
    outcomes = {"stored": 0, "refused": 0, "raised": 0}
    for _ in range(4000):
        size = int(rng.choice([0, 1, 7, 8, 55, 56, 57, 64, 300]))
        data = rng.bytes(size)
        count = int(rng.integers(0, 5))
        lists = int(rng.integers(0, 5))

        def offset(width, size=size):
            return int(rng.choice([0, size - width, size - width + 1, size - width - 1, -1,
                                   size, int(rng.integers(-3, size + 3))])) \
                if rng.random() < 0.9 else int(rng.choice([-2**63, 2**63 - 1, 2**64]))

        stamp_at = tuple(offset(8) for _ in range(count))
        values_at = tuple(offset(56) for _ in range(count))
        rows = [int(rng.choice([0, lists - 1, lists, -1, int(rng.integers(-2, lists + 2))]))
                for _ in range(count)]
        values = [()] * lists
        stamps = [0] * int(rng.choice([lists, max(lists - 1, 0)]))
        before = (list(values), list(stamps))
        buffer = [data, bytearray(data), memoryview(data)][int(rng.integers(3))]
        little = bool(rng.integers(2))
        try:
            stored = read_pose_records(buffer, stamp_at, values_at, little, rows, values, stamps)
        except (IndexError, OverflowError):
            assert (values, stamps) == before
            outcomes["raised"] += 1
            continue
        if not stored:
            assert (values, stamps) == before
            outcomes["refused"] += 1
            continue
        outcomes["stored"] += 1
        order = "<" if little else ">"
        for k, row in enumerate(rows):
            if row not in rows[k + 1:]:  # the last record of a row is the one kept
                sec, nanosec = struct.unpack_from(order + "iI", data, stamp_at[k])
                assert stamps[row] == sec * 10**9 + nanosec
                assert values[row] == struct.unpack_from(order + "7d", data, values_at[k])
    assert min(outcomes.values()) > 20, outcomes
