/* The support-function solver's shared types: what csrc/convex_*.c pass each other.
 *
 * The general convex pair (gc_convex_pair, gc.h) is split by algorithm, as
 * coal splits its narrowphase:
 *   convex_support.c  support functions of each shape, posed in W (posed),
 *                     their kinks and curvature;
 *   convex_gjk.c      simplex projection and GJK on the cores (distance when
 *                     apart, the simplex that holds the origin when not);
 *   convex_epa.c      EPA on the cores, from GJK's simplex or 26 support
 *                     points (penetration depth);
 *   convex_flat.c     overlaps whose Minkowski difference is flat (a point,
 *                     a segment, a parallelogram), with a small Jacobi SVD;
 *   convex_newton.c   Newton refinement of the normal on the direction
 *                     sphere, and GJK's duality gap at a normal;
 *   convex_snap.c     snapping a normal onto a kink of a support function,
 *                     kept only if its g certifies it;
 *   convex_pair.c     the half-space kernel and the driver (gc_convex_pair).
 * Shapes are cores (a point, a segment, a box, a cylinder, an ellipsoid, a
 * hull) swelled by a margin radius (spheres and capsules): GJK and EPA run
 * on the cores and the margin is added back in closed form.
 *
 * Included by csrc/convex_*.c only. All storage is on the stack (EPA's pools
 * are sized from GC_CONVEX_EPA_MAX_ITERATIONS; an overflow answers
 * GC_UNCERTIFIED), no globals: thread safe.
 */
#ifndef GEOMETRY_CORE_GC_CONVEX_H
#define GEOMETRY_CORE_GC_CONVEX_H

#include <math.h>

#include "gc.h"
#include "gc_tolerances.h"

/* ================================================================ fused products
 * Dot products of 3-vectors as fused multiply-adds in a fixed order:
 * a0 b0, then fma(a1, b1, .), then fma(a2, b2, .). fma() is exactly rounded
 * on every CPU and -ffp-contract=off forbids the compiler's own fusing, so a
 * discrete choice these decide (which hull vertex is extreme, which end of
 * a segment) is the same on every machine. */
static inline double dot3_fma(double a0, double b0, double a1, double b1, double a2,
                              double b2) {
    return fma(a2, b2, fma(a1, b1, a0 * b0));
}
static inline double dot3(const double a[3], const double b[3]) {
    return dot3_fma(a[0], b[0], a[1], b[1], a[2], b[2]);
}
static inline double dotv3_fma(const double a[3], const double b[3]) {
    return fma(a[2], b[2], fma(a[0], b[0], a[1] * b[1]));
}

/* The build targets no FMA unit, so fma() is a library call (~10
 * instructions); on x86-64 the functions that make a hull pair's fused
 * products (the walk, the scan, a core's support point and value, the kink
 * snap's flood) are also built for FMA and picked at load time. fma() is exactly rounded either way, so both builds give the same
 * bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GC_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define GC_FMA_CLONES
#endif

static inline double sgn_pos(double x) { return x >= 0.0 ? 1.0 : -1.0; }

/* ================================================================ convex_support.c */

/* A shape posed in W, as the solver reads it: its core kind, rotation,
 * origin, margin radius and the core's sizes. */
enum { PK_POINT, PK_SEGMENT, PK_BOX, PK_CYLINDER, PK_ELLIPSOID, PK_POLY };

typedef struct {
    int kind;
    const gc_shape *shape;
    double R[9];   /* R_WG, row-major */
    double p[3];   /* p_WGo */
    double radius; /* margin */
    double prm[3];
    /* A hull's last support vertex, where its next walk starts: the one
     * thing a support query changes, so the solver can pass posed as const
     * and still warm start (warm points at warm_store). */
    int *warm;
    int warm_store;
    /* A hull's extent along the axes of W (the widest of the three), found
     * on first use by cvx_posed_is_smooth; < 0 until then. */
    double *spread;
    double spread_store;
} posed;

static inline int posed_curved(const posed *ps) {
    return ps->kind == PK_CYLINDER || ps->kind == PK_ELLIPSOID;
}

/* Hull vertex i in W: vertices_G @ R_WG.T + p_WGo. */
static inline void poly_vertex_W(const posed *ps, int i, double out[3]) {
    const double *v = ps->shape->v + 3 * i;
    const double *R = ps->R;
    for (int r = 0; r < 3; ++r)
        out[r] = dot3_fma(v[0], R[3 * r], v[1], R[3 * r + 1], v[2], R[3 * r + 2]) + ps->p[r];
}

void cvx_posed_init(posed *ps, const gc_shape *G, const double X[16]);
double cvx_bounding_radius(const gc_shape *G);
void cvx_core_point(const posed *ps, const double d[3], double out[3]);
/* d (W) in a hull's frame G: d @ R_WG, the products as gc_support_value_W's. */
static inline void poly_direction_G(const posed *ps, const double d[3], double g[3]) {
    const double *R = ps->R;
    for (int j = 0; j < 3; ++j) g[j] = dot3_fma(d[0], R[j], d[1], R[3 + j], d[2], R[6 + j]);
}
/* Whether a hull walks its vertex graph (else every vertex is scanned). */
static inline int poly_walks(const posed *ps) {
    return ps->kind == PK_POLY && ps->shape->adj_start != NULL
           && ps->shape->nv > GC_CONVEX_HULL_WALK_MIN_VERTICES;
}
int cvx_kink_face_count(const posed *ps);
int cvx_kink_line_count(const posed *ps);
void cvx_kink_face(const posed *ps, int k, double out[3]);
void cvx_kink_line(const posed *ps, int k, double out[3]);
int cvx_posed_is_smooth(const posed *ps, const double u[3], double tol);
void cvx_core_jacobian_W(const posed *ps, const double u[3], double J[9]);

/* ================================================================ convex_gjk.c */

typedef struct {
    int overlap;
    int nW;        /* with overlap: GJK's simplex W (WA, WB its supports) */
    double W[4][3], WA[4][3], WB[4][3];
    int early;     /* stopped at the loose tolerance: gjk_resume can finish the run */
    int beyond;    /* stopped: the cores proven farther apart than the run's beyond */
    double bound;  /* with beyond: the lower bound of the cores' distance that proved it */
    double v[3], p_A[3], p_B[3];
    double gap;
} gjk_result;

/* GJK's state between iterations, so that a run stopped early at a loose
 * tolerance resumes exactly where it stopped (the resumed run's answer is
 * the one a single run would have given). */
typedef struct {
    double v[3], W[4][3], WA[4][3], WB[4][3], lam[4];
    int nW, iteration;
    double gap;
} gjk_state;

void cvx_gjk_init(const posed *A, const posed *B, gjk_state *st);
void cvx_gjk_run(const posed *A, const posed *B, double scale, gjk_state *st, double early_tol,
                 double beyond, gjk_result *res);

/* ================================================================ convex_epa.c */

/* EPA starts from 26 support points when GJK's simplex cannot serve: the
 * 8 cube diagonals and +-each axis of W, of A's and of B's frames. */
#define NDIR 26
#define EPA_MAX_V (NDIR + GC_CONVEX_EPA_MAX_ITERATIONS + 1)
#define EPA_MAX_F (4 * EPA_MAX_V)
#define EPA_MAX_EDGES (3 * EPA_MAX_F)

/* The polytope of EPA: triangles over the points P with outward unit normals
 * fn, plane offsets fd and neighbours adj[s][k] = 4 g + m: the face g across
 * the edge fv[s][k] -> fv[s][k+1], which is g's edge m. The start polytope
 * (GJK's tetrahedron, or the convex hull of the 26 points) is built with the
 * same machinery as EPA's expansion: a point's visible faces are found by
 * flood fill over adj from one visible face, and the minimum face is kept
 * in a binary heap keyed by (fd, slot) with lazy deletion (dead faces have
 * fd = INFINITY and are dropped when they reach the top). */
typedef struct {
    const posed *A, *B;
    double scale, gap_tol;
    int iterations, overflow;
    int nP;
    double P[EPA_MAX_V][3], PA[EPA_MAX_V][3], PB[EPA_MAX_V][3];
    int count;
    int fv[EPA_MAX_F][3], adj[EPA_MAX_F][3];
    double fn[EPA_MAX_F][3], fd[EPA_MAX_F];
    unsigned char alive[EPA_MAX_F];
    int heap[EPA_MAX_F + 8], nheap;
    double hk[EPA_MAX_F]; /* a face's key in the heap (its fd when pushed) */
    /* scratch stamps of epa_add (a face's visibility test this round, a
     * vertex's place on the horizon) */
    int stamp, fstamp[EPA_MAX_F], vstamp[EPA_MAX_V], pstamp[EPA_MAX_V];
    unsigned char fvis[EPA_MAX_F];
    int start_at[EPA_MAX_V], end_at[EPA_MAX_V];
    int hint; /* a face of the last insertion: where the hull's next search starts */
} epa_t;

typedef struct {
    double n[3], depth, p_A[3], p_B[3], gap;
    int unique;
} epa_answer;

void cvx_initial_points(const posed *A, const posed *B, double pa[NDIR][3], double pb[NDIR][3],
                        double pm[NDIR][3]);
void cvx_epa_expand(epa_t *e, epa_answer *ans);
int cvx_epa_run(epa_t *e, const double pa[NDIR][3], const double pb[NDIR][3],
                const double pm[NDIR][3], double gap_tol, epa_answer *ans);
int cvx_epa_run_simplex(epa_t *e, const double W[4][3], const double WA[4][3], const double WB[4][3],
                        double gap_tol, epa_answer *ans);

/* ================================================================ convex_flat.c */

void cvx_flat_overlap(const posed *A, const posed *B, const double pm[NDIR][3], double n[3],
                      double p_A[3], double p_B[3], int *unique);

/* ================================================================ convex_newton.c */

typedef struct {
    double n[3], g;
    int smooth_A, smooth_B;
} newton_answer;

double cvx_g_and_m(const posed *A, const posed *B, const double n[3], double m[3]);
int cvx_newton(const posed *A, const posed *B, const double n[3], double scale,
               newton_answer *best);
double cvx_duality_gap(const posed *A, const posed *B, const double n[3], double *gap);

/* ================================================================ convex_snap.c */

int cvx_snap_to_kinks(const posed *A, const posed *B, const double n[3], double distance,
                      double p_WCa[3], double p_WCb[3], double slack, double n_out[3],
                      double *g_out);

#endif
