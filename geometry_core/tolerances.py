"""Every tuned tolerance of geometry_core, each with the reason for its value.

One place for these numbers (house rule 11): a reviewer who wonders why a
check accepts 1e-12 and not 1e-9 finds the answer here, and a change of a
tolerance is one edit. The compiled kernels read the same values from
``csrc/gc_tolerances.h``, which ``scripts/gen_tolerances_header`` generates
from this module (``test_native_build.py`` fails when the committed header
and this module disagree). This module imports nothing.
"""

# --- math -------------------------------------------------------------------

#: Largest |R Rᵀ - I| entry (max norm) for a matrix to count as a rotation.
#: Drake's RotationMatrix uses 128 machine epsilons (about 2.8e-14) as its
#: internal tolerance for orthonormality; we keep the same figure so a matrix
#: Drake accepts we accept and the reverse.
ORTHONORMALITY_TOLERANCE = 128 * 2.220446049250313e-16

#: Tolerance for rotations that arrive from outside (users, files, messages),
#: where six or seven significant digits are common (YAML, float32 messages).
#: Validation of user input uses this looser figure; ``is_valid`` keeps
#: Drake's strict one.
USER_ROTATION_TOLERANCE = 1e-6

#: |cos(pitch)| below which the roll-pitch-yaw rate methods refuse to divide
#: (gimbal lock). Drake's RollPitchYaw uses 0.008 radians of distance from
#: ±π/2, which is the same test written on the cosine.
GIMBAL_LOCK_COS_PITCH = 0.008

#: Norm below which an axis (ComputeBasisFromAxis, angle-axis) is zero.
#: Drake's ComputeBasisFromAxis documents 1e-10.
ZERO_AXIS_NORM = 1e-10

# --- proximity: exact narrowphase kernels -----------------------------------

#: Relative tolerance (scaled by max(1, size) in metres) within which a query
#: point counts as on a feature (a sphere's centre, a box face, edge or corner,
#: a cylinder's axis). Drake's DistanceToPointRelativeTolerance is exactly
#: 1e-14 * max(1, size): sharing it makes our "which gradient convention
#: applies" decision the same as Drake's for the same input.
DISTANCE_TO_POINT_RELATIVE_TOLERANCE = 1e-14

#: Newton/bisection on the ellipsoid's Lagrange parameter stops after this many
#: iterations. Safeguarded Newton from a lower bound converges monotonically and
#: quadratically; 200 is far more than the ~60 a pure bisection of a double
#: interval needs, so hitting it means a bug, not a hard input.
ELLIPSOID_ROOT_MAX_ITERATIONS = 200

#: |cos| above which two box axes (or a box axis and a direction) are treated
#: as parallel when choosing support features and skipping degenerate SAT
#: cross-product axes. Cross products of nearly parallel unit edges have norm
#: ~ sin(angle); below 1e-9 their direction is dominated by round-off of the
#: rotation matrices (entries carry ~1e-16 error), so such axes cannot give a
#: meaningful separating direction and the face axes already cover them.
BOX_PARALLEL_SIN_TOLERANCE = 1e-9

#: SAT picks a cross-product (edge-edge) axis only when its overlap is smaller
#: than the best face axis by this relative margin. Face axes and edge axes
#: coincide for degenerate (parallel-edge) configurations; preferring faces on
#: near ties gives a stable face contact and witness patch instead of a
#: round-off-chosen edge pair (the same bias ODE's dBoxBox uses, 1.05 there on
#: the absolute scale; we only need to beat round-off).
BOX_SAT_EDGE_AXIS_BIAS = 1e-12

# --- convex narrowphase (csrc/convex_*.c) -------------------------------------

#: GJK stops when its certified duality gap |v| - v̂·s(-v) (an upper minus a
#: lower bound on the core distance) falls below this, in metres per metre of
#: shape size. 1e-13 sits a few hundred ulps above double round-off for
#: metre-scale shapes, so the loop stops on accuracy, not on noise, and the
#: 1e-9 m accuracy asked of the solver keeps four orders of margin.
CONVEX_GJK_GAP = 1e-13

#: Iteration cap for GJK. Polytope cores terminate in < 20; curved cores
#: converge linearly and reach CONVEX_GJK_GAP in well under 200 in our
#: random tests; the cap only bounds pathological inputs.
CONVEX_GJK_MAX_ITERATIONS = 300

#: Core distance (metres per metre of size) below which GJK treats the cores
#: as touching/overlapping and hands over to EPA: below it, v's direction is
#: round-off and cannot serve as a normal.
CONVEX_CORE_TOUCH = 1e-13

#: EPA stops when the certified gap between the nearest face of its polytope
#: and the support function along that face's normal is below this (metres
#: per metre of size). Looser than GJK's: near 1e-13 EPA's new faces become
#: slivers whose normals are round-off (measured on cylinder pairs), and
#: 1e-12 still leaves three orders of margin on the 1e-9 m target.
CONVEX_EPA_GAP = 1e-12

#: Iteration cap for EPA; each iteration adds one vertex. Curved shapes with
#: a kink at the answer (cylinder cap on a box) need the most, ~100-300.
CONVEX_EPA_MAX_ITERATIONS = 400

#: Two EPA faces whose depths differ by less than this (metres per metre)
#: with clearly different normals make the penetration normal non-unique
#: (symmetric overlaps such as coaxial cylinders).
CONVEX_NORMAL_TIE = 1e-10

#: Radians: a support map counts as smooth at n when the nearest kink (box
#: face/edge direction, cylinder cap/side, polytope vertex tie) is farther
#: than this; only then is Newton's curvature model valid.
CONVEX_NEWTON_START = 1e-7

#: Newton on the direction sphere stops when the tangential gradient
#: |m - (n·m) n| is below this (metres per metre): with quadratic
#: convergence the distance error is then ~gradient² / curvature radius,
#: far below 1e-12 m.
CONVEX_NEWTON_GRADIENT = 1e-13

#: Newton iteration cap; quadratic convergence needs 3-6 from GJK/EPA's start.
CONVEX_NEWTON_MAX_ITERATIONS = 30

#: Metres per metre: on curved pairs GJK stops at this duality gap and hands
#: its normal to Newton. GJK converges only linearly on curved cores (most of
#: its iterations go to the last digits); at a 1e-6 gap its normal is within
#: ~1e-3 rad, inside Newton's quadratic basin, and Newton's answer is still
#: certified. If Newton declines (a kink), GJK resumes to CONVEX_GJK_GAP.
CONVEX_GJK_NEWTON_HANDOFF = 1e-6

#: 1 - cos of the angle between two EPA faces' normals above which, at equal
#: depth (CONVEX_NORMAL_TIE), they are different normals and the answer's is
#: not unique. 1e-6 is ~1.4e-3 rad: faces of one smooth patch differ by less
#: near a converged answer, the two sides of a symmetric overlap by far more.
CONVEX_EPA_DISTINCT_NORMAL = 1e-6

#: Metres per metre of size: a new support point sees an EPA face when it
#: lies above the face's plane by more than this. A few dozen ulps above the
#: round-off of a plane offset at metre scale, so coplanar points (a
#: cylinder's cap rim) never split a face on noise.
CONVEX_EPA_VISIBLE = 1e-14

#: Metres per metre of the largest coordinate: the start simplex of EPA needs
#: support points spread beyond this along a line, then off it; otherwise
#: the Minkowski difference is flat at round-off (a point, a segment, a
#: parallelogram) and the flat-overlap case answers instead.
CONVEX_EPA_START_SPREAD = 1e-13

#: Volume (per cubic metre of size) below which EPA's start tetrahedron or
#: hull counts as flat: a sliver that thin has face normals made of
#: round-off. 1e-12 of size³ is a tetrahedron 1e-4 of the size high on a
#: face of the size's area, still far above a true overlap's volume.
CONVEX_EPA_MIN_VOLUME = 1e-12

#: Ratio of the largest singular value of the centred Minkowski samples to
#: the scale below which a flat overlap is a point (concentric spheres),
#: rather than a segment or a plane: the samples then differ by round-off.
CONVEX_FLAT_SINGULAR_RATIO = 1e-9

#: Norm (metres) below which the flat-overlap normal built from the centre
#: offset is zero (centres on the segment's line) and a perpendicular of the
#: segment is taken instead: 1e-12 m is round-off at metre scale.
CONVEX_FLAT_NORMAL_NORM = 1e-12

#: |1 - |cos|| above which two kink lines of a pair (a box edge, a cylinder
#: side) constraining Newton are not the same line: one constraint direction
#: is kept only when both shapes' kinks agree to round-off.
CONVEX_KINK_PARALLEL = 1e-12

#: Metres per metre: the slack by which a refined answer (Newton, a kink
#: snap) may fall below the certified one and still replace it, on top of
#: the certified gap: a few ulps of g at metre scale.
CONVEX_REFINE_SLACK = 1e-15

#: Hull vertices: a hull with more vertices than this finds its support point
#: by walking its vertex graph uphill from the last answer; smaller hulls scan
#: every vertex. A walk step reads a vertex's ~6 neighbours and a warm start
#: is usually 0-2 steps from the answer, but it pays a branchy loop and an
#: adjacency lookup per step: at 8-16 vertices (boxes, small hulls) a straight
#: scan of 3 multiply-adds per vertex is as fast. An int: a count.
CONVEX_HULL_WALK_MIN_VERTICES = 16

#: Metres per metre of (hull size x |d|): after the uphill walk stops, the
#: vertices within this of the top are flooded from the stop, so that flat
#: faces (a box's, a cylinder hull's caps, ties in the maximum) and dot
#: products that round differently on two neighbours cannot stop the walk on a
#: plateau below the maximum. Rounding of one dot product is ~3e-16 of
#: size x |d|; 1e-12 covers it with room and still admits only true ties.
CONVEX_HULL_WALK_TIE = 1e-12

#: Vertices the tie flood may visit (a fixed buffer on the stack, no per-hull
#: scratch, so the kernels stay thread safe); a larger plateau (a cylinder
#: hull's cap of 100 rim points, seen head on) falls back to the full scan,
#: which is always exact. An int: a count.
CONVEX_HULL_WALK_FLOOD_MAX = 64

# --- math (continued) -------------------------------------------------------

#: Least/greatest singular value ratio at or below which
#: RotationMatrix.project_to_rotation_matrix refuses M as singular (no unique
#: closest rotation). Three machine epsilons: numpy.linalg.matrix_rank's
#: default rank threshold for a 3x3 (max(M, N) * eps), below which the
#: smallest singular value is indistinguishable from round-off.
PROJECTION_SINGULAR_VALUE_RATIO = 3 * 2.220446049250313e-16

#: |component| of a unit direction along a box axis (in the box frame) below
#: which the box's extreme feature in that direction is taken to span that
#: axis (a face or an edge instead of a vertex). Treating a face tilted by
#: this sine as flat moves a penetration witness off the surface by at most
#: this times the box size, so it must sit near round-off: 1e-12 keeps
#: witnesses within ~1e-12 m of the surface for metre-sized boxes, while
#: still recognising faces that are parallel up to rotation round-off (~1e-16).
BOX_FEATURE_FLAT_TOLERANCE = 1e-12

#: Radians: a convex-solver normal this close to a kink of a support map (a
#: box face normal, a cylinder cap axis, perpendicular to a side line or an
#: edge) is tried snapped exactly onto it, and Newton may run along the kink.
#: GJK's normal at such contacts is only good to ~sqrt(gap / distance), up
#: to 2e-5 rad measured for nearly touching parallel cylinders. A wide radius
#: is safe: a snapped normal is kept only if its g (a lower bound on the
#: signed distance) matches the certified answer to round-off.
CONVEX_KINK_SNAP = 1e-3

#: Unit-vector components: a kink-snap candidate this close to one already
#: tried is not tried again. A flat patch of a hull (a link's tessellated end
#: face) gives its normal once per coplanar triangle, and n itself once per
#: edge in its plane, equal up to rounding (~1e-16); their g differ by about
#: this times the shapes' size, far below the solver's gaps (1e-13 m and up).
CONVEX_SNAP_SAME = 4e-16

#: Metres per metre: for overlapping curved pairs EPA stops at this certified
#: gap and hands its normal to Newton, which converges quadratically; if
#: Newton declines (a kink), EPA resumes to CONVEX_EPA_GAP. Newton's answer
#: is a local maximum of g within this gap of EPA's certified value, so 1e-9
#: bounds the worst case at that 1e-9 m accuracy while saving about a third of
#: EPA's iterations (measured on ellipsoid and cylinder pairs).
CONVEX_EPA_NEWTON_HANDOFF = 1e-9

# --- broadphase (csrc/model.c) ----------------------------------------------------

#: Scenes with at most this many bounded geometries test every pair (a
#: precomputed, pre-filtered table); larger ones sort and sweep. 64
#: geometries give 2016 pairs, which the table tests faster than a sort;
#: beyond that the table grows quadratically. An int: a count, not a length.
BROADPHASE_ALL_PAIRS_MAX = 64

# --- narrowphase dispatch -----------------------------------------------------

#: Largest |g(nhat_BA_W) - distance| (metres) accepted from the iterative
#: convex solver, g being the support-function gap along the reported normal.
#: A correct answer satisfies it to the solver's accuracy (~1e-9 m or better,
#: docs/accuracy.md); a breakdown of GJK/EPA shows up as millimetres. Ten
#: times the accuracy target separates the two without false alarms.
PAIR_CERTIFICATE_TOLERANCE = 1e-8

# --- clearance ----------------------------------------------------------------

#: Joint positions this far (radians or metres) outside a joint's limits are
#: accepted by the collision checker: interpolation and float32 joint states
#: land a few ulps past a limit, and refusing them helps nobody.
JOINT_LIMIT_SLACK = 1e-9

#: Clearance (metres) that a certified edge check keeps: conservative
#: advancement proves (clearance - this) / speed bound of edge around a
#: sample, so every proven configuration keeps at least this much, and the
#: check stops (edge not proven free) when a pair comes within twice this.
#: 1 µm is far below any robot's geometric accuracy; the samples needed to
#: approach a contact grow only with log(clearance / this).
CERTIFIED_EDGE_CLEARANCE = 1e-6

#: Clearance (metres) by which a discrete edge check's bounds must clear a
#: pair's padding before they decide a configuration without its kernels: a
#: lower bound of the distance above padding + this proves the pair free there
#: and at the configurations its motion bound cannot close the gap at; an
#: upper bound below padding - this proves it in contact. Between the two,
#: the configuration's own kernels decide the pair, so the edge's answer is
#: that of checking every configuration. 1 µm is a hundred times the pair
#: kernels' certified accuracy (PAIR_CERTIFICATE_TOLERANCE).
MOTION_PROOF_MARGIN = 1e-6

#: Sample cap of a certified edge check: an edge that needs more samples
#: than this (it grazes an obstacle over a long stretch) is reported as not
#: proven free rather than looping on.
CERTIFIED_EDGE_MAX_STEPS = 100_000
