"""The real-arm benchmark still runs, and its two systems answer alike pair by pair.

Nothing here reads a time. Skipped without example-robot-data or pydrake.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / "bench" / "robots.py").exists():
    pytest.skip("bench/ is in a checkout, not in the install space", allow_module_level=True)
sys.path.insert(0, str(ROOT))

pytestmark = pytest.mark.drake
pytest.importorskip("pydrake")

from bench import robots  # noqa: E402
from bench.robot_files import robots_share  # noqa: E402

SHARE = robots_share()
if SHARE is None:
    pytest.skip("example-robot-data is not installed (pip install example-robot-data==6.0.0)",
                allow_module_level=True)


@pytest.mark.parametrize("arm", sorted(robots.ARMS))
def test_same_pairs_as_drake_and_exact_distances_apart(arm, tmp_path):
    urdf = SHARE / "robots" / robots.ARMS[arm]
    configurations = robots.random_configurations(
        robots.load_urdf(urdf, package_roots=robots.package_roots(SHARE)), 6)
    ours = robots.OursArm(urdf, SHARE, configurations)
    drake = robots.DrakeArm(ours, tmp_path)
    found = robots.compare(ours, drake, 6)
    assert found["near"] > 0 and found["self_pairs"] > 0 and found["env_pairs"] > 0
    assert found["pen_only_ours"] == found["pen_only_drake"] == 0
    assert found["dist_only_drake"] == 0
    assert found["only_ours_exact"] == found["dist_only_ours"]
    # Where the distances of a pair apart differ, ours is proven exact by its own normal
    # (the shapes' support functions, written in the bench from their definitions).
    assert found["apart_ours_exact"] == found["apart_differ"]
    assert found["depth_ours_better"] == found["depth_differ"]
    for query in robots.QUERIES:
        times = robots.measure([drake, ours], query, 6, rounds=2, budget_s=0.05)
        assert all(len(t) == 2 and min(t) > 0 for t in times.values())
