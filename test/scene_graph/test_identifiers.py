"""Typed ids: unique, typed, invalid by default, thread safe."""

import pickle
import threading

import pytest

from geometry_core import FrameId, GeometryId, SourceId


def test_new_ids_are_unique_and_valid():
    ids = [GeometryId.get_new_id() for _ in range(100)]
    assert len(set(ids)) == 100
    assert all(i.is_valid() for i in ids)
    assert len({i.get_value() for i in ids}) == 100


def test_default_id_is_invalid():
    invalid = FrameId()
    assert not invalid.is_valid()
    with pytest.raises(ValueError, match="FrameId is invalid"):
        invalid.get_value()


def test_ids_of_different_types_never_compare_equal():
    frame, geometry = FrameId.get_new_id(), GeometryId.get_new_id()
    forged = GeometryId.get_new_id()
    assert frame != geometry
    assert frame != pickle.loads(pickle.dumps(forged))
    with pytest.raises(TypeError):
        frame < geometry  # noqa: B015


def test_ids_order_and_pickle_round_trip():
    a, b = SourceId.get_new_id(), SourceId.get_new_id()
    assert a < b and b > a and a <= a and b >= a
    assert pickle.loads(pickle.dumps(a)) == a
    assert hash(pickle.loads(pickle.dumps(a))) == hash(a)
    assert "SourceId" in repr(a)


def test_get_new_id_is_thread_safe():
    made = []

    def make():
        made.extend(GeometryId.get_new_id() for _ in range(500))

    threads = [threading.Thread(target=make) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(made)) == 2000
