"""Every URDF of example-robot-data 6.0.0 loads through ``geometry-core check``.

The two refusals are files Drake's parser refuses too (docs/robot-descriptions.md
lists them); ``test_robot_data_drake.py`` checks that Drake refuses it.
Skipped when the package (a test extra) is not installed.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if not (ROOT / "bench" / "robot_files.py").exists():
    pytest.skip("bench/ is in a checkout, not in the install space", allow_module_level=True)
sys.path.insert(0, str(ROOT))

from bench.robot_files import all_urdfs, robots_share  # noqa: E402
from geometry_core.cli import main  # noqa: E402

SHARE = robots_share()
if SHARE is None:
    pytest.skip("example-robot-data is not installed (pip install example-robot-data==6.0.0)",
                allow_module_level=True)

#: URDF (under robots/) -> the reason it is refused, which Drake's parser shares.
REFUSED = {
    "alex_description/urdf/alex_psyonic_hands.urdf":
        "joint 'Left_index_q2': mimics 'index_q1', which is not a moving joint of the robot",
    # A robot without links (nor name): urdfdom's check_urdf and Drake refuse it too.
    "ur_description/urdf/ur3.urdf": "the robot has no <link>, as urdfdom refuses too",
}


@pytest.mark.slow
def test_every_robot_loads_or_is_refused_for_a_known_reason(capsys):
    urdfs = all_urdfs(SHARE)
    assert len(urdfs) == 69
    outcomes = {}
    for urdf in urdfs:
        key = urdf.relative_to(SHARE / "robots").as_posix()
        status = main(["check", str(urdf), "--package-root", f"example-robot-data={SHARE}",
                       "--max-distance", "0", "--format", "json"])
        captured = capsys.readouterr()
        outcomes[key] = status
        if key in REFUSED:
            assert status == 2 and REFUSED[key] in captured.err, (key, captured.err)
        else:
            assert status in (0, 1), (key, captured.err)
            assert '"geometries"' in captured.out
    assert sum(s != 2 for s in outcomes.values()) == 67
