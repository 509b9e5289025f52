/* geometry_core native kernels: the shared contract of the C files in csrc/.
 *
 * The compiled extension geometry_core._native answers the
 * narrowphase (pair signed distance with witnesses), point distance and the
 * broadphase in C: the one implementation of these algorithms. The tests
 * check them against closed forms, support functions written from each
 * shape's definition (test/proximity/reference_support.py) and Drake.
 *
 * Conventions (as geometry_core/proximity/witness.py):
 *   - a pose X is a row-major 4x4 double matrix: R(i,j) = X[4*i+j],
 *     translation p(i) = X[4*i+3];
 *   - distance > 0 apart, < 0 overlapping;
 *   - nhat_BA_W points from B into A; p_WCa - p_WCb = distance * nhat_BA_W;
 *   - witness points in W.
 *
 * No function here allocates Python objects or touches the GIL.
 */
#ifndef GEOMETRY_CORE_GC_H
#define GEOMETRY_CORE_GC_H

#include <math.h>
#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Shape kinds. */
enum {
    GC_SPHERE = 0,    /* s[0] = radius */
    GC_BOX = 1,       /* s = half extents (x, y, z) */
    GC_CYLINDER = 2,  /* s[0] = radius, s[1] = half length (along Gz) */
    GC_CAPSULE = 3,   /* s[0] = radius, s[1] = half length of the spine (along Gz) */
    GC_ELLIPSOID = 4, /* s = semi-axes (a, b, c) */
    GC_HALFSPACE = 5, /* z <= 0 in G; no sizes */
    GC_CONVEX = 6,    /* hull below */
    GC_MESH = 7       /* not handled natively (FCL in Python) */
};

/* Status codes of the kernels. */
enum {
    GC_OK = 0,            /* answered (exact, or iterative and certified) */
    GC_NOT_HANDLED = 1,   /* no native kernel for this input: ask Python */
    GC_UNCERTIFIED = 2,   /* iterative answer failed its certificate: ask Python */
    GC_ERROR_HALFSPACES = 3, /* both shapes are half spaces: undefined */
    GC_SEARCHED = 4,      /* the solver failed its certificate; the direction search
                             answered (an answer, counted and logged by Python) */
    GC_BEYOND = 5         /* proven farther apart than the caller's bound (gc_pair_within):
                             no answer; never reaches Python */
};

typedef struct gc_shape {
    int kind;
    double s[3];
    /* GC_CONVEX only: the hull in G, outward-wound triangles. */
    int nv;
    const double *v;      /* (nv, 3) vertices */
    int nt;
    const int *tri;       /* (nt, 3) vertex indices */
    const double *tri_n;  /* (nt, 3) outward unit normals */
    const double *tri_d;  /* (nt,) plane offsets: tri_n . p = tri_d on the face */
    double size;          /* max |v| (bounding radius about Go) */
    double bound;         /* gc_hull_bound(): the solver's scale, found once */
    /* The extreme vertices along 14 directions (+-each axis of G, the eight
     * cube diagonals), found once by gc_parse_hull: a
     * walk without a start begins at the best of them, most of the way up. */
    int starts[14];
    /* The vertex graph (edges of the triangles) as CSR: the neighbours of
     * vertex i are adj[adj_start[i] .. adj_start[i + 1]). NULL when the spec
     * has none (a lone triangle, a point set): the support scans. A walk
     * needs the graph of a hull's surface: connected, every vertex in a
     * triangle (native.hull_arrays builds it so). */
    const int *adj_start; /* (nv + 1,) */
    const int *adj;
} gc_shape;

typedef struct gc_pair_result {
    double distance;
    double p_WCa[3];
    double p_WCb[3];
    double nhat_BA_W[3];
    int unique;           /* is_nhat_BA_W_unique */
} gc_pair_result;

typedef struct gc_point_result {
    double distance;
    double p_GN[3];       /* nearest point, in G */
    double grad[3];       /* gradient: in G from gc_point_in_G, in W from gc_point_distance */
    int unique;           /* is_grad_unique */
} gc_point_result;

/* ---------------------------------------------------------------- point.c
 * Signed distance from a point, closed forms with Drake's conventions.
 * GC_NOT_HANDLED for GC_MESH (no inside). */
int gc_point_in_G(const gc_shape *G, const double p_GQ[3], gc_point_result *out);
int gc_point_distance(const gc_shape *G, const double X_WG[16], const double p_WQ[3],
                      gc_point_result *out);

/* ---------------------------------------------------------------- exact.c
 * Exact pairs: sphere-{sphere, box, cylinder, capsule, ellipsoid, convex, half space},
 * capsule-capsule, box-box, either order. GC_NOT_HANDLED for other pairs. */
int gc_exact_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                  const double X_WB[16], gc_pair_result *out);

/* ---------------------------------------------------------------- convex.c
 * Support functions, the half-space kernel, and the support-function solver
 * (GJK, EPA, Newton refinement) with its certificate. */

/* Half space H (A) against a bounded convex shape B. */
int gc_halfspace_pair(const double X_WH[16], const gc_shape *B, const double X_WB[16],
                      gc_pair_result *out);
/* General convex pair by the support-function solver, then certified:
 * GC_UNCERTIFIED when certificate_gap > PAIR_CERTIFICATE_TOLERANCE (out still
 * holds the solver's answer). */
int gc_convex_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], gc_pair_result *out);
/* The same, stopping with GC_BEYOND (out unset) as soon as GJK proves the
 * distance above beyond: a lower bound g(v) = v . (s_A(-v) - s_B(v)) / |v|
 * of the distance, less the margins, exceeds it. */
int gc_convex_pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                          const double X_WB[16], double beyond, gc_pair_result *out);
/* gc_convex_pair_within for a caller that needs only the sign of an
 * overlap: where GJK's simplex holds the origin deeper than round-off, the
 * cores overlap by at least that depth, so out->distance is set to minus
 * that depth less the margins (at least the true distance: a bound, with no
 * normal or witnesses), *proven to 1 and GC_OK returned at once. Else the
 * same as gc_convex_pair_within, *proven 0. */
int gc_convex_pair_verdict(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                           const double X_WB[16], double beyond, int *proven,
                           gc_pair_result *out);
/* Support point of G along d (any length), in G, with deterministic tie
 * conventions (a zero component counts as positive; a cylinder's d without
 * xy part takes the rim point on +Gx; a hull a maximising vertex: the first
 * one when it scans, the walk's when it walks). */
void gc_support_point_G(const gc_shape *G, const double d[3], double s[3]);
/* Index of a hull vertex maximising d_G . v (dot3, fused): a scan of every
 * vertex for small hulls or without adjacency, else an uphill walk of the
 * vertex graph from vertex start (out of range, as -1: from the best of
 * G->starts), exact all the same. */
int gc_hull_support_index(const gc_shape *G, const double d_G[3], int start);
/* Fills G->starts (after G->v and G->nv are set). */
void gc_hull_starts(gc_shape *G);
/* A hull's Shape.bounding_radius(), |(|centre| + half extents)| of its
 * vertices' box in G: the convex solver's scale, computed once per hull by
 * gc_parse_hull (a pass over the vertices per pair cost 5 % of a cycle). */
double gc_hull_bound(const gc_shape *G);
/* The same by scanning every vertex (the first maximiser): the reference
 * the walk is tested against. */
int gc_hull_support_scan(const gc_shape *G, const double d_G[3]);
/* Support value h(d) = max over G of d . p_WP (points measured from Wo),
 * d a unit vector in W; +inf for a half space. */
double gc_support_value_W(const gc_shape *G, const double X_WG[16], const double d_W[3]);
/* The same with a hull's walk starting at vertex *start, which then holds
 * the support vertex: a caller asking along nearby directions (the
 * certificate at the solver's answer, the ascent test's probes about it)
 * walks a step or two instead of from vertex 0. Other shapes ignore it. */
double gc_support_value_W_from(const gc_shape *G, const double X_WG[16], const double d_W[3],
                               int *start);

/* ---------------------------------------------------------------- search.c
 * The ascent test and the direction search. */

/* How far the answer's normal is from a local maximum of
 * g(n) = -h_A(-n) - h_B(n): the largest g(n') - g(n) over a few directions n'
 * tilted slightly away from r->nhat_BA_W (<= round-off at a true maximum). */
double gc_ascent_gap(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                     const double X_WB[16], const gc_pair_result *r);
/* The brute-force direction search (search_signed_distance), seeded with
 * n0_W (may be zero): GC_OK with the answer, or GC_NOT_HANDLED for meshes and
 * half spaces. */
int gc_direction_search(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                        const double X_WB[16], const double n0_W[3], gc_pair_result *out);

/* ---------------------------------------------------------------- polytope.c
 * Exact signed distance of two polytopes (boxes, hulls) by the candidate
 * normals of the Minkowski difference's facets (overlapping or touching) or
 * the closest vertex-face and edge-edge pairs (apart). GC_NOT_HANDLED for
 * other shapes (or when out of memory). */
int gc_polytope_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                     const double X_WB[16], gc_pair_result *out);
/* gc_polytope_pair where the first method could not be trusted (a solver
 * answer that failed its certificate; box-box SAT with edges a hair from
 * parallel): the same, and a GC_OK answer is counted. */
int gc_polytope_rescue(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                       const double X_WB[16], gc_pair_result *out);
/* How many answers gc_polytope_rescue gave since the module was loaded
 * (process-wide, atomic). */
unsigned long long gc_polytope_rescues(void);

/* ---------------------------------------------------------------- contact_feature.c
 * Witness points on the contact features along n (from B into A): each a
 * convex combination of points of its shape's support feature (polytope
 * vertices within tol of the top; a cylinder's cap or side, a capsule's
 * side, when n is within angle rad of their normal), at the centre of the
 * features' overlap seen along n. Any bounded shape. Returns 1 when the
 * features overlap (within tol), 0 when they miss (an n that is not exact
 * for them): the witnesses are then each feature's point nearest the other. */
int gc_feature_witnesses(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                         const double X_WB[16], const double n[3], double tol, double angle,
                         double p_WCa[3], double p_WCb[3]);

/* ---------------------------------------------------------------- dispatch.c
 * Mirrors geometry_core/proximity/narrowphase.py PairSolver.signed_distance:
 * half spaces, then meshes (GC_NOT_HANDLED), exact pairs, the convex solver
 * with its certificate, and the direction search where the certificate fails
 * (GC_SEARCHED). */
int gc_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
            const double X_WB[16], gc_pair_result *out);
/* gc_pair for a caller that drops every pair farther apart than beyond (a
 * query's report_max, the least distance so far): GC_BEYOND where the convex
 * solver proves the pair farther than beyond + PAIR_CERTIFICATE_TOLERANCE
 * early (the tolerance keeps the drop clear of the certified answer's own
 * error), before its refinement, certificate and ascent test. With
 * GC_BEYOND, out->distance holds the lower bound of the distance that proved
 * it (above beyond; nothing else of out is set). */
int gc_pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], double beyond, gc_pair_result *out);
/* gc_pair_within where only the sign of a distance below zero is wanted
 * (yes/no checks): an overlap the convex solver's GJK proves is answered
 * with a bound of its depth (gc_convex_pair_verdict); every other answer is
 * gc_pair_within's. */
int gc_pair_verdict(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                    const double X_WB[16], double beyond, gc_pair_result *out);

/* ---------------------------------------------------------------- small vector helpers */
static inline double gc_dot(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void gc_cross(const double a[3], const double b[3], double out[3]) {
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x; out[1] = y; out[2] = z;
}
static inline void gc_sub(const double a[3], const double b[3], double out[3]) {
    out[0] = a[0] - b[0]; out[1] = a[1] - b[1]; out[2] = a[2] - b[2];
}
static inline void gc_add(const double a[3], const double b[3], double out[3]) {
    out[0] = a[0] + b[0]; out[1] = a[1] + b[1]; out[2] = a[2] + b[2];
}
static inline void gc_scale(double s, const double a[3], double out[3]) {
    out[0] = s * a[0]; out[1] = s * a[1]; out[2] = s * a[2];
}
static inline double gc_norm(const double a[3]) { return sqrt(gc_dot(a, a)); }
static inline void gc_copy(const double a[3], double out[3]) {
    out[0] = a[0]; out[1] = a[1]; out[2] = a[2];
}
/* p_W = R_WG p_G + p_WGo */
static inline void gc_to_world(const double X[16], const double p_G[3], double p_W[3]) {
    double x = X[0] * p_G[0] + X[1] * p_G[1] + X[2] * p_G[2] + X[3];
    double y = X[4] * p_G[0] + X[5] * p_G[1] + X[6] * p_G[2] + X[7];
    double z = X[8] * p_G[0] + X[9] * p_G[1] + X[10] * p_G[2] + X[11];
    p_W[0] = x; p_W[1] = y; p_W[2] = z;
}
/* v_W = R_WG v_G */
static inline void gc_rotate(const double X[16], const double v_G[3], double v_W[3]) {
    double x = X[0] * v_G[0] + X[1] * v_G[1] + X[2] * v_G[2];
    double y = X[4] * v_G[0] + X[5] * v_G[1] + X[6] * v_G[2];
    double z = X[8] * v_G[0] + X[9] * v_G[1] + X[10] * v_G[2];
    v_W[0] = x; v_W[1] = y; v_W[2] = z;
}
/* v_G = R_WG^T v_W */
static inline void gc_unrotate(const double X[16], const double v_W[3], double v_G[3]) {
    double x = X[0] * v_W[0] + X[4] * v_W[1] + X[8] * v_W[2];
    double y = X[1] * v_W[0] + X[5] * v_W[1] + X[9] * v_W[2];
    double z = X[2] * v_W[0] + X[6] * v_W[1] + X[10] * v_W[2];
    v_G[0] = x; v_G[1] = y; v_G[2] = z;
}
/* p_G = R_WG^T (p_W - p_WGo) */
static inline void gc_to_local(const double X[16], const double p_W[3], double p_G[3]) {
    double d[3] = {p_W[0] - X[3], p_W[1] - X[7], p_W[2] - X[11]};
    gc_unrotate(X, d, p_G);
}

/* The same answer with A and B exchanged. */
static inline void gc_swap_result(gc_pair_result *r) {
    for (int k = 0; k < 3; ++k) {
        double t = r->p_WCa[k];
        r->p_WCa[k] = r->p_WCb[k];
        r->p_WCb[k] = t;
        r->nhat_BA_W[k] = -r->nhat_BA_W[k];
    }
}

/* C = A B for rigid 4x4 poses (the last rows are [0 0 0 1]). */
static inline void gc_compose(const double *A, const double *B, double *C) {
#if defined(__SSE2__)
    /* A row of C two columns at a time: the same products and sums in the
     * same order as the loop below (SSE2 is every x86_64's), so the same
     * bits; adding -0.0 beside the translation leaves column 2 as it is. */
    const __m128d b0 = _mm_loadu_pd(B), b1 = _mm_loadu_pd(B + 2);
    const __m128d b4 = _mm_loadu_pd(B + 4), b5 = _mm_loadu_pd(B + 6);
    const __m128d b8 = _mm_loadu_pd(B + 8), b9 = _mm_loadu_pd(B + 10);
    for (int r = 0; r < 3; ++r) {
        const __m128d x = _mm_set1_pd(A[4 * r]), y = _mm_set1_pd(A[4 * r + 1]);
        const __m128d z = _mm_set1_pd(A[4 * r + 2]);
        const __m128d t = _mm_set_pd(A[4 * r + 3], -0.0);
        __m128d lo = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x, b0), _mm_mul_pd(y, b4)),
                                _mm_mul_pd(z, b8));
        __m128d hi = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x, b1), _mm_mul_pd(y, b5)),
                                _mm_mul_pd(z, b9));
        _mm_storeu_pd(C + 4 * r, lo);
        _mm_storeu_pd(C + 4 * r + 2, _mm_add_pd(hi, t));
    }
#else
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c)
            C[4 * r + c] = A[4 * r] * B[c] + A[4 * r + 1] * B[4 + c] + A[4 * r + 2] * B[8 + c];
        C[4 * r + 3] += A[4 * r + 3];
    }
#endif
    C[12] = 0.0; C[13] = 0.0; C[14] = 0.0; C[15] = 1.0;
}

#endif
