"""Is q free? Ours against the configuration checkers of other libraries, side by side.

Usage::

    python -m bench.peers                  # K = 1000 configurations per arm, prints the table
    python -m bench.peers --write-docs     # also docs/benchmarks.md's table
    python -m bench.peers --count 200
    python -m bench.peers --edges 0        # without the edges table (bench.edges)

For the Panda and the UR5 of example-robot-data with their SRDFs among the
primitive obstacles of the clearance tests (a table, a wall and four
spheres), each peer that can run here checks the same K random
configurations:

* ours: ``check_configs_collision_free`` with one thread and with every
  core (``parallelize=True``), and K calls of ``check_config_collision_free``;
* Drake: ``SceneGraphCollisionChecker`` (``CheckConfigsCollisionFree`` with
  one thread and with every core, ``CheckConfigCollisionFree``);
* Pinocchio + coal: the URDF's collision meshes as convex hulls (qhull),
  ``computeCollisions`` stopping at the first collision, the SRDF's pairs
  and the pairs of links joined by a joint removed (what our checker and
  Drake's filter);
* vamp: its own sphere models of the two arms (``vamp.panda``,
  ``vamp.ur5``), K calls of ``validate`` against the same obstacles as
  spheres and cuboids, placed where they stand relative to vamp's robot
  (its UR5 stands 0.9144 m up, turned 1.57 rad about z; its Panda at the
  origin with the fingers fixed open, so ours are opened to their limit
  for the verdict count). Its model is not ours (spheres, and a gripper on
  its UR5), so its verdicts are counted, not required to agree.
* mplib: runs where it is installed; otherwise the table says why not
  (mplib 0.2.1 needs numpy < 2). Whether vamp imports is probed in a child
  process first (a wheel built for CPU features this machine lacks stops
  with an illegal instruction), so the bench survives it.

Every peer's verdict is compared with ours on every configuration before
timing and the table gives the count that agree. Times are medians of
alternating rounds (µs a configuration). It asserts nothing about time.

Then ``bench.edges`` (``--edges N`` edges of each kind per arm, 0 skips
it): our discrete edge check against vamp's ``validate_motion`` on the
same edges at the same configurations, in states a second.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "clearance"))

import robots  # noqa: E402

from geometry_core.clearance import CollisionChecker  # noqa: E402
from geometry_core.parallelism import available_cores  # noqa: E402


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


# ---------------------------------------------------------------- peers


class Ours:
    name = "ours"

    def __init__(self, arm: str, checker: CollisionChecker) -> None:
        self.checker = checker

    def batch(self, qs, threads: int) -> np.ndarray:
        return self.checker.check_configs_collision_free(qs, parallelize=threads)

    def single(self, qs) -> np.ndarray:
        return np.array([self.checker.check_config_collision_free(q) for q in qs])


class Drake:
    name = "Drake"

    def __init__(self, arm: str, checker: CollisionChecker, folder: Path) -> None:
        import drake_checker
        from pydrake.common import Parallelism

        self.arm = drake_checker.DrakeArm(arm, robots.obj_urdf(arm, folder), checker)
        self.parallelism = Parallelism

    def convert(self, qs) -> list:
        return [self.arm.q(q) for q in qs]

    def batch(self, qd, threads: int) -> np.ndarray:
        return np.array(self.arm.checker.CheckConfigsCollisionFree(
            qd, self.parallelism(threads)), dtype=bool)

    def single(self, qd) -> np.ndarray:
        return np.array([self.arm.checker.CheckConfigCollisionFree(q) for q in qd])


class PinocchioCoal:
    name = "Pinocchio + coal (hulls)"

    def __init__(self, arm: str, checker: CollisionChecker) -> None:
        import coal
        import pinocchio as pin

        urdf, srdf, _ = robots.ARMS[arm]
        self.pin = pin
        model = pin.buildModelFromUrdf(str(urdf))
        geometry = pin.buildGeomFromUrdf(model, str(urdf), pin.GeometryType.COLLISION,
                                         package_dirs=[str(robots.SHARE)])
        for g in geometry.geometryObjects:
            if isinstance(g.geometry, coal.BVHModelBase):
                # buildConvexHull runs qhull. Not buildConvexRepresentation: that one
                # takes the mesh's vertices as they are and assumes the mesh is convex
                # (the Panda's are, the UR5's are not: interior vertices then give
                # GJK's support search wrong answers, distances off by decimetres).
                g.geometry.buildConvexHull(False, "Qt")
                g.geometry = g.geometry.convex
                g.geometry.computeLocalAABB()
        robot = geometry.ngeoms
        for k, (kind, size, p_WG) in enumerate(robots.OBSTACLES):
            shape = coal.Sphere(size[0]) if kind == "sphere" else coal.Box(*size)
            geometry.addGeometryObject(pin.GeometryObject(
                f"{kind}_{k}", 0, pin.SE3(np.eye(3), np.array(p_WG, dtype=float)), shape))
        geometry.addAllCollisionPairs()
        pin.removeCollisionPairs(model, geometry, str(srdf))
        # Links joined by a joint: filtered by our parser and Drake's. The
        # obstacles hang on the universe joint too, but they are not a link:
        # against them only what is welded to the world is filtered.
        parents = model.parents
        keep = []
        for pair in geometry.collisionPairs:
            a = geometry.geometryObjects[pair.first].parentJoint
            b = geometry.geometryObjects[pair.second].parentJoint
            if pair.first >= robot or pair.second >= robot:
                if a != 0 or b != 0:
                    keep.append(pair)
            elif parents[a] != b and parents[b] != a:
                keep.append(pair)
        geometry.removeAllCollisionPairs()
        for pair in keep:
            geometry.addCollisionPair(pair)
        self.model, self.geometry = model, geometry
        self.data = model.createData()
        self.geometry_data = pin.GeometryData(geometry)
        # Our q -> Pinocchio's q, through each joint's child link.
        child = {j.get("name"): j.find("child").get("link")
                 for j in ET.parse(str(urdf)).getroot().findall("joint")}
        self.columns = []
        for j in range(1, model.njoints):
            if model.nqs[j] == 1:
                link = checker._chain.link_index[child[model.names[j]]]
                self.columns.append((model.idx_qs[j], link))
        self.chain = checker._chain

    def convert(self, qs) -> np.ndarray:
        values = self.chain.joint_values(qs)
        out = np.zeros((len(qs), self.model.nq))
        for index, link in self.columns:
            out[:, index] = values[:, link]
        return out

    def _one(self, q) -> bool:
        return not self.pin.computeCollisions(self.model, self.data, self.geometry,
                                              self.geometry_data, q, True)

    def batch(self, qp, threads: int) -> np.ndarray:
        """A loop of single calls (Pinocchio has no batch call of its own)."""
        return np.array([self._one(q) for q in qp])


class Vamp:
    name = "vamp (spheres)"
    #: Where vamp's world sees our world's origin: a turn about z (rad) and a
    #: translation. vamp's spherized UR5 hangs on ``offset_joint`` (z 0.9144 m,
    #: yaw 1.57); its Panda's ``panda_link0`` is its world.
    MOUNTS = {"panda": (0.0, (0.0, 0.0, 0.0)), "ur5": (1.57, (0.0, 0.0, 0.9144))}

    def __init__(self, arm: str, checker: CollisionChecker) -> None:
        import vamp

        self.robot = getattr(vamp, arm)
        yaw, offset = self.MOUNTS[arm]
        c, s = np.cos(yaw), np.sin(yaw)
        R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        self.environment = vamp.Environment()
        for kind, size, p_WG in robots.OBSTACLES:
            centre = [float(x) for x in R @ np.asarray(p_WG, dtype=float) + offset]
            if kind == "sphere":
                self.environment.add_sphere(vamp.Sphere(centre, float(size[0])))
            else:
                half = [float(x) / 2 for x in size]
                self.environment.add_cuboid(vamp.Cuboid(centre, [0.0, 0.0, yaw], half))
        names = checker._chain.position_names
        missing = [n for n in self.robot.joint_names() if n not in names]
        if missing:
            raise ValueError(f"vamp's {arm} has joints ours lacks: {missing}")
        # Our columns in vamp's joint order (vamp's arms have no finger joints).
        self.columns = [names.index(n) for n in self.robot.joint_names()]
        #: Our configurations as vamp compares them: fingers opened to their limit.
        self.fingers = [k for k, n in enumerate(names) if "finger" in n]
        self.finger_open = checker._chain.upper[self.fingers]

    def opened(self, qs) -> np.ndarray:
        out = np.array(qs, dtype=float)
        out[:, self.fingers] = self.finger_open
        return out

    def convert(self, qs) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(qs)[:, self.columns], dtype=np.float32)

    def single(self, qv) -> np.ndarray:
        validate, env = self.robot.validate, self.environment
        return np.array([validate(q, env) for q in qv])

    batch = None


def _probe(module: str) -> str | None:
    """None when ``module`` imports in a child process, else why not (one line)."""
    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                            text=True, timeout=120)
    if result.returncode == 0:
        return None
    if result.returncode < 0 or result.returncode == 132:
        return (f"stops with signal {-result.returncode if result.returncode < 0 else 4} "
                "(illegal instruction: built for CPU features this machine lacks)")
    last = (result.stderr.strip().splitlines() or ["import failed"])[-1]
    return last[:160]


# ---------------------------------------------------------------- timing


def timed(fn, count: int) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / count * 1e6


def bench_arm(arm: str, K: int, rounds: int, folder: Path) -> tuple[list, list]:
    urdf, srdf, _ = robots.ARMS[arm]
    checker = CollisionChecker.from_urdf(urdf, srdf=srdf, environment=robots.environment_scene(),
                                         package_roots=robots.PACKAGE_ROOTS)
    qs = robots.random_configurations(checker, K, 3)
    ours = Ours(arm, checker)
    mine = ours.batch(qs, 1)
    cores = available_cores()
    peers, notes = [], []
    for make in (lambda: Drake(arm, checker, folder), lambda: PinocchioCoal(arm, checker)):
        try:
            peer = make()
        except ImportError as err:
            notes.append(f"{arm}: a peer is not installed ({err})")
            continue
        peers.append((peer, peer.convert(qs)))
    why = _probe("mplib")
    notes.append(f"mplib: not run here: {why} (mplib 0.2.1 needs numpy < 2; here numpy "
                 f"{np.__version__})" if why else
                 "mplib: importable, but this bench does not drive it yet")
    agree = {peer.name: int(np.sum(peer.batch(q, 1) == mine)) for peer, q in peers}
    why = _probe("vamp")
    if why:
        notes.append(f"vamp: not run here: {why} (vamp-planner 0.6.4)")
    else:
        vamp = Vamp(arm, checker)
        qv = vamp.convert(qs)
        theirs = vamp.single(qv)
        opened = ours.batch(vamp.opened(qs), 1)
        agree[vamp.name] = int(np.sum(theirs == opened))
        notes.append(f"vamp, {arm}: {agree[vamp.name]} of {K} verdicts equal to ours"
                     f"{' (fingers open)' if vamp.fingers else ''}; "
                     f"{int(np.sum(~theirs & opened))} it calls colliding "
                     f"that ours finds free, {int(np.sum(theirs & ~opened))} free that ours "
                     f"finds colliding; {int(np.sum(~theirs))} colliding by vamp, "
                     f"{int(np.sum(~opened))} by ours")
        peers.append((vamp, qv))
    rows = []
    samples: dict[tuple, list[float]] = {}
    runs = [("ours", "batch 1", lambda: ours.batch(qs, 1)),
            ("ours", "batch all", lambda: ours.batch(qs, cores)),
            ("ours", "single", lambda: ours.single(qs))]
    for peer, q in peers:
        if isinstance(peer, Vamp):     # no batch call: K calls of validate
            runs.append((peer.name, "single", lambda p=peer, q=q: p.single(q)))
            continue
        runs.append((peer.name, "batch 1", lambda p=peer, q=q: p.batch(q, 1)))
        if isinstance(peer, Drake):
            runs.append((peer.name, "batch all", lambda p=peer, q=q: p.batch(q, cores)))
        if not isinstance(peer, PinocchioCoal):   # its batch is a loop of single calls
            runs.append((peer.name, "single", lambda p=peer, q=q: p.single(q)))
    for _ in range(rounds):
        for name, kind, run in runs:
            samples.setdefault((name, kind), []).append(timed(run, K))
    for name in ["ours"] + [peer.name for peer, _ in peers]:
        med = {kind: statistics.median(samples[(name, kind)]) if (name, kind) in samples
               else None for kind in ("batch 1", "batch all", "single")}
        rows.append((arm, name, med, K if name == "ours" else agree[name], K))
    return rows, notes


def table(rows: list, cores: int) -> list[str]:
    def cell(v):
        return "–" if v is None else f"{v:.1f}"

    out = [f"| arm | checker | batch, 1 thread µs | batch, {cores} threads µs | one call µs "
           "| verdicts equal to ours |", "|---|---|---:|---:|---:|---:|"]
    for arm, name, med, agree, K in rows:
        out.append(f"| {arm} | {name} | {cell(med['batch 1'])} | {cell(med['batch all'])} | "
                   f"{cell(med['single'])} | {agree}/{K} |")
    return out


def main(argv: list[str] | None = None) -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--edges", type=int, default=1000,
                        help="edges of each kind per arm for bench.edges (0: skip it)")
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the peers table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    load_before = _load()
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as folder:
        for arm in ("panda", "ur5"):
            arm_rows, arm_notes = bench_arm(arm, args.count, args.rounds, Path(folder))
            rows += arm_rows
            notes += [n for n in arm_notes if n not in notes]
    cores = available_cores()
    header = (f"Measured {datetime.date.today()} on {platform.machine()} ({cores} cores), "
              f"Python {platform.python_version()}, numpy {np.__version__}; K = {args.count} "
              f"random configurations per arm, {args.rounds} alternating rounds, medians "
              f"(µs a configuration); load average {load_before} before, {_load()} after.")
    lines = table(rows, cores)
    text = "\n".join([header, "", *lines, "", *[f"- {n}" for n in notes]])
    print(text)
    edges = None
    if args.edges > 0:
        from bench.edges import report

        edges = report(args.edges, args.rounds)
        if edges is not None:
            print()
            print(edges)
    if args.write_docs:
        from bench.run import write_docs

        write_docs(text, "peers")
        if edges is not None:
            write_docs(edges, "edges")


if __name__ == "__main__":
    main()
