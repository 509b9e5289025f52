"""Per-pair accuracy of geometry_core's signed distance and penetration.

Compared against Drake and against an independent reference; writes
``docs/accuracy.md``.

For every unordered pair of {sphere, box, cylinder, capsule, ellipsoid,
convex, halfspace} it draws K random configurations (about half overlapping)
and records, over those configurations:

* against Drake's ``ComputeSignedDistancePairClosestPoints`` (where Drake
  supports the pair): max |Δ distance|, max |Δ witness| (in W), max
  1 − cos(angle) between the normals;
* against Drake's ``ComputePointPairPenetration`` (overlapping
  configurations): the same for depth, witnesses and normal;
* against a reference that shares no code with geometry_core (support
  functions written from the shapes' definitions, 300 sampled directions,
  Nelder–Mead refinement; closed form for half spaces): our error and
  Drake's. The reference value is the best certified lower bound anyone
  found, max(reference, g(n_ours), g(n_Drake)), where g(n) is the gap of
  the two shapes along n (g(n) ≤ signed distance for every n).

Usage: ``python bench/accuracy_table.py [K] [--out docs/accuracy.md]``.
``test/proximity/test_accuracy_table.py`` runs the same code with a small K
and asserts the bounds. Needs the test extra (pydrake).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import itertools
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
sys.path.insert(0, os.path.join(_ROOT, "test", "proximity"))

import drake_oracle  # noqa: E402
import scene_builders as sb  # noqa: E402

from geometry_core import (  # noqa: E402
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    ProximityProperties,
    RigidTransform,
    SceneGraph,
)
from geometry_core.proximity.narrowphase import polytope_rescues, solver_fallbacks  # noqa: E402

KINDS = ("sphere", "box", "cylinder", "capsule", "ellipsoid", "convex", "halfspace")

#: Pairs Drake 1.51 answers in closed form, per query (its characterization
#: tables, confirmed by test_scene_differential.py). Box-box penetration is
#: not here: Drake's ODE-derived box-box prefers face axes by 5%.
DRAKE_EXACT_DISTANCE = {
    ("sphere", "sphere"), ("box", "sphere"), ("capsule", "sphere"), ("cylinder", "sphere"),
    ("halfspace", "sphere"),
}
#: Polytope pairs whose distance Drake computes with FCL's GJK: iterative, not
#: closed form. On these random configurations it agrees with the reference
#: to round-off, but not everywhere: on the Panda's finger boxes it is up to
#: 2e-2 m long (``python -m bench.robots``, which proves ours exact there).
DRAKE_GJK_DISTANCE = {("box", "box"), ("box", "convex"), ("convex", "convex")}
DRAKE_EXACT_PENETRATION = {
    ("sphere", "sphere"), ("box", "sphere"), ("capsule", "sphere"), ("cylinder", "sphere"),
    ("halfspace", "sphere"), ("box", "halfspace"), ("capsule", "halfspace"),
    ("cylinder", "halfspace"),
}
#: Drake's depth and normal are exact here, its witness is not the deepest point.
DRAKE_EXACT_PENETRATION_DEPTH = {("ellipsoid", "halfspace")}


@dataclass
class PairRow:
    """Accuracy figures of one pair kind (maxima over its configurations, metres)."""

    kind: tuple[str, str]
    configurations: int = 0
    overlapping: int = 0
    drake_distance: str = "yes"
    drake_penetration: str = "yes"
    distance: float = 0.0
    distance_witness: float = 0.0
    distance_normal: float = 0.0
    depth: float = 0.0
    depth_witness: float = 0.0
    depth_normal: float = 0.0
    ours_vs_reference: float = 0.0
    drake_vs_reference: float = 0.0
    notes: list[str] = field(default_factory=list)


def _configuration(kind_A: str, kind_B: str, rng: np.random.Generator):
    """Two posed shapes of the given kinds, overlapping about half the time."""
    def shape(kind):
        return HalfSpace() if kind == "halfspace" else sb.random_shape(kind, rng)

    shape_A, shape_B = shape(kind_A), shape(kind_B)
    X_WA = sb.random_pose(rng, 0.0)
    X_WB = sb.random_pose(rng, 0.0)
    if isinstance(shape_A, HalfSpace) or isinstance(shape_B, HalfSpace):
        # The plane passes through Wo with normal Hz; the bounded shape's
        # centre sits at a random height along that normal.
        X_WH, X_WS, bounded = ((X_WA, X_WB, shape_B) if isinstance(shape_A, HalfSpace)
                               else (X_WB, X_WA, shape_A))
        r = bounded.bounding_radius()
        X_WS[:3, 3] = X_WH[:3, 2] * rng.uniform(-0.5 * r, 1.2 * r)
        return shape_A, X_WA, shape_B, X_WB
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    reach = shape_A.bounding_radius() + shape_B.bounding_radius()
    X_WB[:3, 3] = u * reach * rng.uniform(0.25, 0.9)
    return shape_A, X_WA, shape_B, X_WB


def ours_signed_distance(shape_A, X_WA, shape_B, X_WB):
    """Our answer through the public API: (distance, p_WCa, p_WCb, nhat_BA_W)."""
    sg = SceneGraph()
    src = sg.register_source("pair")
    ids = []
    for name, shape, X in (("a", shape_A, X_WA), ("b", shape_B, X_WB)):
        instance = GeometryInstance(sb.our_pose(X), shape, name)
        if isinstance(shape, HalfSpace):
            g = sg.register_anchored_geometry(src, instance)
        else:
            f = sg.register_frame(src, GeometryFrame(name))
            g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), shape, name))
            sg.set_poses(src, {f: sb.our_pose(X)})
        sg.assign_role(src, g, ProximityProperties())
        ids.append(g)
    result = sg.query_object().compute_signed_distance_pair_closest_points(*ids)
    p_WCa = X_WA[:3, :3] @ result.p_ACa + X_WA[:3, 3]
    p_WCb = X_WB[:3, :3] @ result.p_BCb + X_WB[:3, 3]
    return result.distance, p_WCa, p_WCb, np.asarray(result.nhat_BA_W)


def _one_minus_cos(n1, n2) -> float:
    if not (np.all(np.isfinite(n1)) and np.all(np.isfinite(n2))):
        return math.nan
    return max(0.0, 1.0 - float(np.dot(n1, n2)))


def measure(configurations: int = 20, seed: int = 0) -> list[PairRow]:
    """Measure every pair kind over ``configurations`` random configurations.

    Parameters
    ----------
    configurations : int
        K, configurations per pair kind.
    seed : int
        Seed of the numpy generator of each pair kind (offset by the kind).

    Returns
    -------
    list of PairRow
        One row per unordered pair kind, in table order.
    """
    rows = []
    for n, (kind_A, kind_B) in enumerate(itertools.combinations_with_replacement(KINDS, 2)):
        row = PairRow(tuple(sorted((kind_A, kind_B))))
        rows.append(row)
        if kind_A == kind_B == "halfspace":
            row.drake_distance = row.drake_penetration = "throws"
            row.notes.append("undefined: both libraries refuse the pair")
            continue
        rng = np.random.default_rng(1000 * seed + n)
        for _ in range(configurations):
            shape_A, X_WA, shape_B, X_WB = _configuration(kind_A, kind_B, rng)
            _measure_one(row, shape_A, X_WA, shape_B, X_WB)
    return rows


def _measure_one(row: PairRow, shape_A, X_WA, shape_B, X_WB) -> None:
    row.configurations += 1
    distance, p_WCa, p_WCb, nhat_BA_W = ours_signed_distance(shape_A, X_WA, shape_B, X_WB)
    hints = [nhat_BA_W]
    drake_distance = None
    try:
        theirs = drake_oracle.drake_signed_distance_pair(shape_A, X_WA, shape_B, X_WB)
    except drake_oracle.DrakeUnsupportedError:
        row.drake_distance = "throws"
    else:
        drake_distance = theirs.distance
        hints.append(theirs.nhat_BA_W)
        row.distance = max(row.distance, abs(distance - theirs.distance))
        row.distance_witness = max(row.distance_witness,
                                   float(np.linalg.norm(p_WCa - theirs.p_WCa)),
                                   float(np.linalg.norm(p_WCb - theirs.p_WCb)))
        row.distance_normal = np.nanmax([row.distance_normal,
                                         _one_minus_cos(nhat_BA_W, theirs.nhat_BA_W)])
    if distance < 0:
        row.overlapping += 1
        try:
            pen = drake_oracle.drake_penetration(shape_A, X_WA, shape_B, X_WB)
        except drake_oracle.DrakeUnsupportedError:
            row.drake_penetration = "throws"
            pen = None
        if pen is not None:
            if drake_distance is None:
                drake_distance = pen.distance
            hints.append(pen.nhat_BA_W)
            row.depth = max(row.depth, abs(distance - pen.distance))
            row.depth_witness = max(row.depth_witness,
                                    float(np.linalg.norm(p_WCa - pen.p_WCa)),
                                    float(np.linalg.norm(p_WCb - pen.p_WCb)))
            row.depth_normal = max(row.depth_normal, _one_minus_cos(nhat_BA_W, pen.nhat_BA_W))
    phi_ref, _ = sb.reference_signed_distance(shape_A, X_WA, shape_B, X_WB, hints=hints)
    best = max([phi_ref] + [sb.support_gap(shape_A, X_WA, shape_B, X_WB, h)
                            for h in hints if np.all(np.isfinite(h))])
    g_ours = sb.support_gap(shape_A, X_WA, shape_B, X_WB, nhat_BA_W)
    row.ours_vs_reference = max(row.ours_vs_reference, abs(distance - best),
                                abs(distance - g_ours))
    if drake_distance is not None:
        row.drake_vs_reference = max(row.drake_vs_reference, abs(drake_distance - best))


def _figure(value: float, supported: bool = True) -> str:
    if not supported:
        return "—"
    if math.isnan(value):
        return "NaN"
    return "0" if value == 0.0 else f"{value:.0e}"


# The outside corpus, described under the table: the cases live in
# test/proximity/outside_cases.py and are checked by test_outside_corpus.py.
CORPUS_SECTION = """## Hard cases from other libraries

`test/proximity/outside_cases.py` holds 50 pairs that users and developers of
other collision libraries reported as hard, each with the shapes, sizes and
poses its source states and the source (repository, tracker entry or test
file):

- FCL: flexible-collision-library/fcl#128 (a skewed box touching and
  overlapping a box), flexible-collision-library/fcl#375 (a thin cylinder
  resting on a box; also RobotLocomotion/drake#10578),
  flexible-collision-library/fcl#493 and #495 (kissing rotated cubes),
  flexible-collision-library/fcl#503 (cubes as convex meshes touching by a
  face), flexible-collision-library/fcl#545 (a small cube on a big cube's
  diagonal, box and hull), flexible-collision-library/fcl#628 (a box inside
  a box sharing faces); BerkeleyAutomation/python-fcl#68 (crossed cylinders).
- coal / hpp-fcl: coal-library/coal#144 (equal cubes overlapping by 1e-4 m
  across a face).
- MuJoCo (`google-deepmind/mujoco`, `test/engine/engine_collision_gjk_test.cc`):
  box-box depth, touching and multi-contact cases (plates turned by 1e-17 to
  3e-3 rad, a cube on its side, small cubes turned by 1e-16 rad), meshes
  (pentaprism, long box) on boxes, edge-on-face and edge-edge boxes,
  capsules apart; google-deepmind/mujoco_warp#657 (a cylinder standing on a
  box).
- Drake: RobotLocomotion/drake#7656 (a cube resting on its corner 1 mm into
  a hull's face) and the shapes and poses of
  `geometry/proximity/test/mujoco_ccd_penetration_test.cc` (hulls of the
  cube [-1, 1]^3 1 mm deep: corner, edge and offset face into a face, faces
  turned 45 deg about the normal or tilted 2e-4 rad; two turned boxes).
- Derived: four of those moved to coordinates near 1e5 m or scaled to a size
  ratio of 1e4 (each names the case it derives from).

`test/proximity/test_outside_corpus.py` answers every case in both orders
and checks, against references that share no code with the kernels (exact
rational arithmetic over the Minkowski difference's facet candidates for
boxes and hulls, `test/proximity/polytope_reference.py`; a closed form for
capsules; dense support sampling for cylinders): the distance or depth
within 1e-9 m, both witnesses on their surfaces within 1e-9 m,
`p_WCa - p_WCb = distance * nhat_BA_W`, the normal's certificate
(`g(n)` equals the distance) and that no answer came from the direction
search. It prints how often the iterative solver alone failed its
certificate (those pairs are answered by the exact polytope path,
`csrc/polytope.c`), how often the search ran, and how often the polytope
path answered in place of an untrusted first answer (the kernels' own
count): on the current corpus, 0, 0 and 10 (five box-box cases, both
orders, whose SAT met edges a hair from parallel).

Both counts are readable at run time, for every query path:
`geometry_core.proximity.narrowphase.solver_fallbacks.value` (answers from
the direction search; each is also logged) and
`geometry_core.proximity.narrowphase.polytope_rescues.value` (answers of
the exact polytope path where the convex solver's failed its certificate or
box-box SAT skipped edges a hair from parallel). This table's run and
`python -m bench.robots` print both.

Witnesses of overlapping or touching pairs come from the contact features
along the normal (`csrc/contact_feature.c`): the centre of the overlap of a
face patch, the crossing of two edges, a corner seen inside a face, written
as a convex combination of each feature's own surface points, so they lie
on the surfaces. The direction search, the last resort for answers that fail
their certificate without an exact path, builds its witnesses the same way.
"""


def markdown(rows: list[PairRow], configurations: int, fallbacks: int | None = None,
             rescues: int | None = None) -> str:
    """Return the table as a Markdown document (title, provenance, table, notes).

    ``fallbacks``: how many answers of the run came from the direction search
    (a solver answer that failed its certificate and had no exact path);
    ``rescues``: how many the exact polytope path gave in place of an
    untrusted first answer.
    """
    version = importlib.metadata.version("drake")
    today = datetime.date.today().isoformat()
    lines = [
        "# Accuracy of signed distance and penetration, per shape pair",
        "",
        f"Produced by `python bench/accuracy_table.py {configurations}` on {today}, "
        f"against Drake {version} (pydrake). {configurations} random configurations per "
        "pair, shapes 0.1–0.2 m across, about half overlapping. All figures are maxima "
        "in metres, except normals (1 − cos of the angle). `—`: Drake throws for the pair "
        "or no configuration overlapped.",
        "",
        "*vs Drake* columns compare with Drake's signed-distance pair query (distance, "
        "witnesses in W, normal) and with its penetration query on the overlapping "
        "configurations (depth, witnesses, normal). *vs reference* compares each "
        "library's signed distance with a reference that shares no code with "
        "geometry_core (support functions from the shapes' definitions, dense direction "
        "sampling and Nelder–Mead refinement, closed form for half spaces). Pairs marked "
        "**exact** are closed-form in Drake; elsewhere Drake is iterative, or (box–box "
        "penetration, ellipsoid–half-space witness) not exact, and the reference decides. "
        "*agrees here, GJK*: Drake's polytope distances are FCL's GJK, which matched "
        "the reference to round-off on these configurations but is up to 2e-2 m long "
        "on the Panda's finger boxes (`python -m bench.robots`).",
        "",
        "![largest distance error against the reference, per pair](img/accuracy.png)",
        "",
        "| pair | configs (overlap) | Drake distance: Δ dist | Δ witness | normal | "
        "Drake penetration: Δ depth | Δ witness | normal | ours vs reference | "
        "Drake vs reference |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        name = "–".join(row.kind)
        marks = []
        if row.kind in DRAKE_EXACT_DISTANCE:
            marks.append("distance **exact**")
        elif row.kind in DRAKE_GJK_DISTANCE:
            marks.append("distance agrees here, GJK")
        if row.kind in DRAKE_EXACT_PENETRATION:
            marks.append("penetration **exact**")
        elif row.kind in DRAKE_EXACT_PENETRATION_DEPTH:
            marks.append("penetration depth **exact**")
        if marks:
            name += f" ({', '.join(marks)})"
        sd = row.drake_distance == "yes" and row.configurations > 0
        pen = row.drake_penetration == "yes" and row.overlapping > 0
        lines.append(
            f"| {name} | {row.configurations} ({row.overlapping}) | "
            f"{_figure(row.distance, sd)} | {_figure(row.distance_witness, sd)} | "
            f"{_figure(row.distance_normal, sd)} | {_figure(row.depth, pen)} | "
            f"{_figure(row.depth_witness, pen)} | {_figure(row.depth_normal, pen)} | "
            f"{_figure(row.ours_vs_reference, row.configurations > 0)} | "
            f"{_figure(row.drake_vs_reference, sd or pen)} |")
    if fallbacks is not None:
        lines += ["", f"Direction-search fallbacks during this run: {fallbacks}."]
    if rescues is not None:
        lines += ["", f"Answers of the exact polytope path in place of an untrusted first "
                  f"answer (box/hull pairs) during this run: {rescues}."]
    notes = [f"- {'–'.join(row.kind)}: {note}" for row in rows for note in row.notes]
    if notes:
        lines += ["", "Notes:", ""] + notes
    lines += ["", CORPUS_SECTION.rstrip("\n")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table and write it to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configurations", nargs="?", type=int, default=20,
                        help="random configurations per pair kind (K)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=os.path.join(_ROOT, "docs", "accuracy.md"))
    args = parser.parse_args(argv)
    before, rescued = solver_fallbacks.value, polytope_rescues.value
    rows = measure(args.configurations, args.seed)
    text = markdown(rows, args.configurations, solver_fallbacks.value - before,
                    polytope_rescues.value - rescued)
    print(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        out.write(text)
    try:
        from bench.plots import plot_accuracy
    except ImportError:  # run as a file: bench/ is not a package on the path
        sys.path.insert(0, _ROOT)
        from bench.plots import plot_accuracy
    try:
        image = os.path.join(os.path.dirname(os.path.abspath(args.out)), "img", "accuracy.png")
        print(f"wrote {plot_accuracy(text, Path(image))}", file=sys.stderr)
    except ImportError as err:  # matplotlib is in the bench extra
        print(f"plot not drawn: {err}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
