"""geometry_core.distributed and ``geometry-core label`` on a real Dask LocalCluster (loopback).

The cluster has 2 worker processes; every answer that comes back is compared
with the serial call on this process's checker, exactly. A checker crosses as
a :class:`CheckerRecipe` and is built once per worker, however many chunks
that worker answers (``worker_builds`` is read on each worker).
"""

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import robots  # noqa: E402

pytest.importorskip("dask.distributed")

from dask.distributed import Client, LocalCluster  # noqa: E402

from geometry_core import Box, RigidTransform, distributed  # noqa: E402
from geometry_core.clearance import CollisionChecker  # noqa: E402

pytestmark = [pytest.mark.network, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
PACKAGE_ROOT = "example-robot-data=" + robots.PACKAGE_ROOTS["example-robot-data"]


def make_checker(name: str) -> CollisionChecker:
    urdf, srdf, _ = robots.ARMS[name]
    return CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                      package_roots=robots.PACKAGE_ROOTS)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def test_recipe_rebuilds_the_checker_with_its_filters_and_paddings():
    checker = make_checker("panda")
    checker.set_padding_between("panda_hand", "panda_link0", 0.03)
    checker.set_collision_filtered_between("panda_link7", "panda_link3", True)
    checker.add_collision_shape_to_body("shelf", "world", Box(0.6, 0.3, 0.02),
                                        RigidTransform([0.5, 0.0, 0.4]))
    checker.add_collision_shape_to_body("part", "panda_hand", Box(0.03, 0.06, 0.1),
                                        RigidTransform([0.0, 0.0, 0.1]))
    recipe = distributed.CheckerRecipe.of(checker)
    # Nothing of this machine's paths travels: meshes go as bytes.
    assert str(robots.SHARE) not in recipe.urdf_text and len(recipe.mesh_files) > 5
    rebuilt = pickle.loads(pickle.dumps(recipe)).build()
    assert rebuilt.body_names == checker.body_names
    assert np.array_equal(rebuilt._filtered, checker._filtered)
    assert np.array_equal(rebuilt._padding, checker._padding)
    added = {group: [(d.body_name, d.pose_in_body.get_as_matrix4().tolist())
                     for d in shapes]
             for group, shapes in checker.get_all_added_collision_shapes().items()}
    assert added and {group: [(d.body_name, d.pose_in_body.get_as_matrix4().tolist())
                              for d in shapes] for group, shapes in
                      rebuilt.get_all_added_collision_shapes().items()} == added
    qs = robots.random_configurations(checker, 800, 41)
    assert np.array_equal(rebuilt.check_configs_collision_free(qs),
                          checker.check_configs_collision_free(qs))
    assert np.array_equal(rebuilt.calc_min_distances(qs, 0.5), checker.calc_min_distances(qs, 0.5))
    # The padding is live: the padded table differs from an unpadded one.
    plain = make_checker("panda")
    plain.set_collision_filtered_between("panda_link7", "panda_link3", True)
    plain.add_collision_shape_to_body("shelf", "world", Box(0.6, 0.3, 0.02),
                                      RigidTransform([0.5, 0.0, 0.4]))
    plain.add_collision_shape_to_body("part", "panda_hand", Box(0.03, 0.06, 0.1),
                                      RigidTransform([0.0, 0.0, 0.1]))
    assert not np.array_equal(plain.calc_min_distances(qs, 0.5),
                              checker.calc_min_distances(qs, 0.5))


def test_min_distances_agree_with_the_verdicts():
    checker = make_checker("ur5")
    qs = robots.random_configurations(checker, 1000, 43)
    free = checker.check_configs_collision_free(qs)
    assert np.array_equal(checker.calc_min_distances(qs) > 0.0, free)
    near = checker.calc_min_distances(qs, 0.01, parallelize=2)
    assert np.array_equal(near > 0.0, free)
    assert np.all((near <= 0.01) | np.isinf(near)) and np.isinf(near).any()


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_cluster_answers_equal_serial_and_checker_built_once_per_worker(client, name):
    checker = make_checker(name)
    qs = robots.random_configurations(checker, 3000, 47)
    seen = []
    free = distributed.check_configs_collision_free(
        client, checker, qs, chunk=200, progress=lambda done, total: seen.append((done, total)))
    assert np.array_equal(free, checker.check_configs_collision_free(qs))
    assert seen[0] == (0, 15) and seen[-1] == (15, 15)
    # A second call with the same recipe builds nothing more.
    labels, distances = distributed.label_configurations(client, checker, qs, chunk=500,
                                                         max_distance=0.2, parallelize=2)
    assert np.array_equal(labels, free)
    assert np.array_equal(distances, checker.calc_min_distances(qs, 0.2))
    key = distributed.CheckerRecipe.of(checker).key
    builds = client.run(distributed.worker_builds)
    assert len(builds) == 2
    assert [counts.get(key) for counts in builds.values()] == [1, 1]


def test_cluster_clearance_tables_equal_serial(client):
    checker = make_checker("panda")
    qs = robots.random_configurations(checker, 120, 53)
    tables = distributed.calc_robot_clearances(client, checker, qs, 0.1, chunk=16)
    serial = checker.calc_robot_clearances(qs, 0.1)
    assert len(tables) == len(serial) and sum(t.size() for t in serial) > 100
    for mine, theirs in zip(tables, serial):
        assert mine.geometry_ids() == theirs.geometry_ids()
        assert mine.robot_indices() == theirs.robot_indices()
        assert mine.other_indices() == theirs.other_indices()
        assert mine.collision_types() == theirs.collision_types()
        assert np.array_equal(mine.distances(), theirs.distances())
        assert np.array_equal(mine.jacobians(), theirs.jacobians())


def test_bad_input_fails_before_any_work_is_sent(client):
    checker = make_checker("ur5")
    with pytest.raises(ValueError, match="chunk must be a positive integer"):
        distributed.check_configs_collision_free(client, checker, np.zeros((3, 6)), chunk=0)
    with pytest.raises(ValueError, match="shoulder_pan_joint"):
        distributed.check_configs_collision_free(client, checker, np.full((3, 6), 9.0))
    with pytest.raises(TypeError, match="CollisionChecker or a CheckerRecipe"):
        distributed.check_configs_collision_free(client, "panda.urdf", np.zeros((3, 6)))


def label(*args, timeout=300):
    # Safe-path mode: the geometry_core this test imports, not the source tree's.
    return subprocess.run([sys.executable, "-m", "geometry_core.cli", "label", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, "PYTHONSAFEPATH": "1"})


def serial_labels(out_q: np.ndarray, name: str):
    checker = make_checker(name)
    return (checker.check_configs_collision_free(out_q), checker.calc_min_distances(out_q))


def environment_file(folder: Path) -> Path:
    """The obstacles of :func:`robots.environment_scene` as a YAML scene file."""
    lines = ["sources:", "  obstacles:", "    geometries:"]
    for k, (kind, size, p_WG) in enumerate(robots.OBSTACLES):
        shape = f"{{type: sphere, radius: {size[0]}}}" if kind == "sphere" else \
            f"{{type: box, size: [{size[0]}, {size[1]}, {size[2]}]}}"
        lines += [f"      - name: {kind}_{k}", "        frame: world", f"        shape: {shape}",
                  f"        pose: {{xyz: [{p_WG[0]}, {p_WG[1]}, {p_WG[2]}]}}",
                  "        roles: [proximity]"]
    path = folder / "obstacles.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_label_command_on_the_embedded_cluster_writes_npz(tmp_path):
    urdf, srdf, _ = robots.ARMS["ur5"]
    out = tmp_path / "labels.npz"
    result = label(urdf, "--srdf", srdf, "--environment", environment_file(tmp_path),
                   "--package-root", PACKAGE_ROOT,
                   "--count", 1200, "--chunk", 300, "--workers", 2, "--random-state", 3,
                   "--out", out)
    assert result.returncode == 0, result.stderr
    assert "4/4 chunks" in result.stderr and "1200 configurations" in result.stderr
    data = np.load(out)
    assert data["q"].shape == (1200, 6) and list(data["position_names"])[0] == "shoulder_pan_joint"
    free, distance = serial_labels(data["q"], "ur5")
    assert np.array_equal(data["free"], free) and np.array_equal(data["min_distance"], distance)
    assert 0.2 < free.mean() < 0.95


def test_label_command_on_a_running_scheduler_writes_parquet(client, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    urdf, srdf, _ = robots.ARMS["panda"]
    out = tmp_path / "labels.parquet"
    result = label(urdf, "--srdf", srdf, "--environment", environment_file(tmp_path),
                   "--package-root", PACKAGE_ROOT,
                   "--count", 500, "--chunk", 100, "--scheduler", client.scheduler.address,
                   "--max-distance", 0.1, "--quiet", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "chunks" not in result.stderr
    table = pq.read_table(out).to_pydict()
    checker = make_checker("panda")
    qs = np.column_stack([table[name] for name in checker.position_names])
    assert qs.shape == (500, checker.num_positions)
    assert np.array_equal(table["free"], checker.check_configs_collision_free(qs))
    assert np.array_equal(table["min_distance"], checker.calc_min_distances(qs, 0.1))


def test_label_command_bad_input(tmp_path):
    urdf, _, _ = robots.ARMS["ur5"]
    result = label(urdf, "--count", 10, "--out", tmp_path / "labels.csv")
    assert result.returncode == 2 and ".npz or .parquet" in result.stderr
    assert "Traceback" not in result.stderr
    result = label(tmp_path / "missing.urdf", "--count", 10, "--out", tmp_path / "x.npz")
    assert result.returncode == 2 and "missing.urdf" in result.stderr
    assert "Traceback" not in result.stderr
