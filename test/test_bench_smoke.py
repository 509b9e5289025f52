"""The benchmark harness still runs: every system on a tiny scene, and the memory probe.

Nothing here reads a time (benchmarks print numbers, tests assert
behaviour); this only keeps ``python -m bench.run`` from rotting between
the runs that fill docs/benchmarks.md's tables.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / "bench" / "run.py").exists():
    pytest.skip("bench/ is in a checkout, not in the install space", allow_module_level=True)
# bench/ is not installed: import it from the checkout, but only it. The
# library comes first from wherever the run takes it (under colcon test, the
# install space), and the checkout leaves sys.path again, so the modules
# collected after this one (test_packaging.py under pytest 7) import what
# they would have imported without it.
import geometry_core  # noqa: E402, F401

sys.path.insert(0, str(ROOT))
try:
    from bench import cycle_breakdown, live_world, moveit_validity, run
    from bench.scenes import query_points, random_scene
    from bench.systems import (
        QUERIES,
        Coal,
        Drake,
        Ours,
        OursArray,
        PyBullet,
        RawFcl,
        compare_answers,
    )
finally:
    sys.path.remove(str(ROOT))

pytestmark = pytest.mark.drake


def _count(cls, spec, points, query, from_rpy):
    system = cls(spec, points, from_rpy)
    try:
        return system.cycle(1, query)
    finally:
        if hasattr(system, "close"):
            system.close()


@pytest.mark.parametrize("from_rpy", [False, True], ids=["prebuilt", "rpy"])
@pytest.mark.parametrize("query", QUERIES)
def test_every_system_runs_every_query_and_they_agree_on_the_count(query, from_rpy):
    spec = random_scene(10, cycles=2, seed=1)
    points = query_points(3)
    times = run.measure(spec, query, rounds=2, budget_s=0.05, points=points,
                        from_rpy=from_rpy)
    classes = [Drake, Ours, OursArray, RawFcl]
    if query != "points":  # coal and pybullet take penetration and signed distance
        classes += [Coal, PyBullet]
    assert set(times) == {cls.label for cls in classes}
    assert all(len(t) == 2 and min(t) > 0 for t in times.values())
    # The systems answer the same question: the same number of results.
    counts = {cls.label: _count(cls, spec, points, query, from_rpy) for cls in classes}
    assert len(set(counts.values())) == 1 and counts["Drake"] > 0, counts


@pytest.mark.parametrize("query", ["penetration", "signed_distance"])
def test_peers_report_our_pairs_with_depths_and_distances_within_their_tolerance(query):
    spec = random_scene(10, cycles=3, seed=1)
    for cycle in range(3):
        found = compare_answers(spec, query, cycle, run.TOLERANCE)
        assert set(found) == {"Drake", "coal", "pybullet"}
        for label, result in found.items():
            assert result["pairs"] > 0
            assert result["missing"] == result["extra"] == 0, (label, cycle, result)
            assert result["max_error"] <= run.TOLERANCE[label], (label, cycle, result)


def test_memory_line_names_both_systems_at_two_sizes():
    line = run._memory_line(20)
    assert line.count("at N=20") == 2 and line.count("at N=40") == 2
    assert "geometry_core" in line and "Drake" in line


@pytest.mark.parametrize("from_rpy", [False, True], ids=["prebuilt", "rpy"])
def test_cycle_breakdown_times_every_step_and_every_peer(from_rpy):
    rows = dict(cycle_breakdown.breakdown(10, from_rpy, batch=3))
    steps = ["set_poses", "query_object", "penetration", "signed distance"]
    steps += ["build poses"] if from_rpy else []
    assert set(steps) <= set(rows)
    for query in ("penetration", "signed_distance"):
        for label in ("geometry_core", "Drake", "coal", "pybullet"):
            assert rows[f"whole cycle, {query}: {label}"] > 0.0


def test_many_links_reports_each_size_and_its_ratio_to_the_smallest():
    from bench.many_links import measure

    rows = measure([10, 40], repeat=1, checker=True)
    assert [row["links"] for row in rows] == [10, 40]
    assert rows[0]["per_link_ratio"] == 1.0 and rows[1]["per_link_ratio"] > 0
    assert all(row["checker_seconds"] > 0 and row["checker_peak_mb"] > 0 for row in rows)


def test_many_links_times_the_node_path_above_its_bounds_and_puts_them_back():
    from bench.many_links import measure_node
    from geometry_core_nodes import limits

    before = limits.MAX_ROBOT_LINKS
    row = measure_node(1, links=before + 10)
    assert row["bounds_raised"] and row["links"] == before + 10
    assert row["total_seconds"] >= row["load_seconds"] > 0
    assert limits.MAX_ROBOT_LINKS == before


def test_live_world_prints_every_row_and_the_cloud_agrees_with_its_spheres(capsys):
    live_world.main(["--points", "2000", "--configs", "5", "--geometries", "50",
                     "--rounds", "1"])
    out = capsys.readouterr().out
    for row in ("add one sphere, next model", "remove it, next model",
                "move one geometry, next model", "rebuild the whole model",
                "change_point_cloud + has_collisions", "replace the cloud",
                "add a held box + one check", "robot alone", "a dozen primitives",
                "cloud of 1980 points", "cloud and the dozen"):
        assert f"| {row}" in out, row
    assert "(20 non-finite skipped" in out
    assert out.rstrip().endswith("verdicts equal: True")


def test_moveit_validity_times_a_move_here_and_beside_another_interpreter(capsys):
    # Three MOVEs a round; the interpreter beside is this one (as a script).
    assert moveit_validity.main(["--move-cost", "3", "--beside", sys.executable,
                                 "--domain", str(120 + os.getpid() % 20)]) == 0
    rounds = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith("round ")]
    assert len(rounds) == 3
    for line in rounds:
        ours, theirs, ratio = _numbers(line)
        assert ours > 0 and theirs > 0
        assert ratio == pytest.approx(ours / theirs, abs=0.01 + 0.01 * ratio)


def _numbers(line: str) -> tuple[float, float, float]:
    """``round K: this A µs, beside B µs, ratio R`` -> (A, B, R)."""
    parts = line.replace(",", "").split()
    return float(parts[3]), float(parts[6]), float(parts[9])


def test_node_latency_sender_bytes_carry_each_send_stamp_and_the_reader_reads_it_back():
    from bench.node_latency import _ResultStamps, _StampedBytes, _tf_messages
    from geometry_core_nodes.transport import TF, create_node, loopback_config

    node = create_node("bench_smoke", [], backend="dds", domain_id=231,
                       dds_config=loopback_config())
    try:
        T = node.message_type
        publisher = node.create_publisher("tf2_msgs/msg/TFMessage", "/tf", TF)
        messages = _tf_messages(T)[:3]
        stamped = _StampedBytes(publisher, messages)
        for n in range(5):
            data, stamp = stamped.stamped(n)
            decoded = T("tf2_msgs/msg/TFMessage").deserialize(data)
            sec, nanosec = divmod(stamp, 1_000_000_000)
            assert [(t.header.stamp.sec, t.header.stamp.nanosec) for t in decoded.transforms] \
                == [(sec, nanosec)] * len(messages[n % 3].transforms)
            # Everything but the stamps is the message as made.
            for transform in messages[n % 3].transforms:
                transform.header.stamp.sec, transform.header.stamp.nanosec = sec, nanosec
            assert data == publisher.serialize(messages[n % 3])
        result = T("geometry_core_ros/msg/PenetrationPairArray")()
        result.header.stamp.sec, result.header.stamp.nanosec = 1_700_000_123, 456_789
        decode = _ResultStamps().bytes_decoder(None)
        _, stamp = decode(result.serialize())
        assert stamp == 1_700_000_123 * 1_000_000_000 + 456_789
    finally:
        node.shutdown()


def test_node_latency_reads_the_hosts_steal_time_from_the_cpu_line():
    from bench.node_latency import _steal_seconds

    hz = os.sysconf("SC_CLK_TCK")
    # The fields of proc(5): user nice system idle iowait irq softirq steal guest guest_nice.
    assert _steal_seconds(f"cpu  10 20 30 40 50 60 70 {3 * hz} 0 0\n") == 3.0
    assert _steal_seconds() >= 0.0
    for line in ("cpu0 1 2 3 4 5 6 7 8 0 0", "cpu 1 2 3", ""):
        with pytest.raises(ValueError, match="cpu line"):
            _steal_seconds(line)


def test_node_latency_counts_a_processs_sleeps_over_all_its_threads():
    import threading
    import time

    from bench.node_latency import _switches

    before = _switches(os.getpid())
    # A thread of this process that sleeps 20 times, then ends: its sleeps
    # are counted while it lives (each one a voluntary switch).
    done, counted = threading.Event(), []

    def sleeper() -> None:
        for _ in range(20):
            time.sleep(0.001)
        counted.append(_switches(os.getpid()))
        done.wait(10)

    thread = threading.Thread(target=sleeper)
    thread.start()
    while not counted:
        time.sleep(0.01)
    done.set()
    thread.join()
    voluntary, involuntary = counted[0]
    assert voluntary - before[0] >= 20 and involuntary >= before[1] >= 0
    with pytest.raises(FileNotFoundError):
        _switches(2**22 + 1)  # above the kernel's largest pid: no such process


def test_node_latency_every_input_waits_for_the_first_result_as_new_as_it():
    import numpy as np

    from bench.node_latency import _until_covered_ms

    ms = 1_000_000
    sent = [10 * ms, 11 * ms, 12 * ms, 13 * ms, 14 * ms]
    # (stamp, receive time) as received: 10 answered; 11 coalesced into 12;
    # 13's result overtaken by 14's (arriving first); nothing at least as new
    # as 14 is missing, but the last input (14) is answered late.
    results = [(10 * ms, 10 * ms + ms // 2), (12 * ms, 13 * ms), (14 * ms, 16 * ms),
               (13 * ms, 17 * ms)]
    assert np.allclose(_until_covered_ms(sent, results), [0.5, 2.0, 1.0, 3.0, 2.0])
    # An input no result covered is NaN; no results at all: all NaN.
    late = _until_covered_ms(sent + [20 * ms], results)
    assert np.isnan(late[-1]) and not np.isnan(late[:-1]).any()
    assert np.isnan(_until_covered_ms(sent, [])).all()


def test_node_latency_pairs_ratio_each_pair_and_count_only_quiet_ones(capsys):
    from bench.node_latency import QUIET_STEAL, _print_pairs

    def row(pair, node, world, cpu, p99, steal):
        return {"pair": pair, "node": node, "rate": 1000.0, "world": world, "cpu": cpu,
                "p99": p99, "steal": steal, "world_hz": 30.0 if world != "still" else 0.0}

    noisy = 2 * QUIET_STEAL
    rows = [row(0, "this", "still", 0.20, 1.0, 0.0), row(0, "beside", "still", 0.25, 2.0, 0.0),
            row(1, "beside", "still", 0.30, 1.0, noisy), row(1, "this", "still", 0.30, 3.0, 0.0),
            row(0, "this", "moving at 30 Hz (300 changes)", 0.3, 1.0, noisy),
            row(0, "beside", "moving at 30 Hz (301 changes)", 0.3, 1.0, 0.0)]
    _print_pairs(rows, "new", "old")
    out = capsys.readouterr().out
    assert "1 | 1000 | still | 0.80 | 0.50 | 1.00 / 2.00 | 20% / 25%" in out
    assert "2 | 1000 | still | 1.00 | 3.00 | 3.00 / 1.00" in out
    # Medians over both pairs, and over the one where neither run had much steal.
    assert "1000 Hz, still: CPU x0.90, p99 x1.75 over 2 pairs; quiet pairs (1): CPU x0.80, " \
           "p99 x0.50" in out
    # The moving runs of one pair match although their change counts differ.
    assert "1000 Hz, moving at 30 Hz: CPU x1.00, p99 x1.00 over 1 pairs; no quiet pair" in out
