/* Which kernel answers a pair: mirrors PairSolver.signed_distance in
 * geometry_core/proximity/narrowphase.py (half spaces first, then meshes,
 * exact pairs, the certified convex solver, the exact polytope path or the
 * direction search where the certificate fails). */
#include "gc.h"
#include "gc_tolerances.h"

/* A cylinder's cap or side is the contact feature when the normal is this
 * close (rad) to its normal. */
#define DISPATCH_FEATURE_ANGLE 1e-9

/* Shapes whose contact can be a face, an edge or a patch. */
static int has_features(const gc_shape *G) {
    return G->kind == GC_BOX || G->kind == GC_CONVEX || G->kind == GC_CYLINDER
           || G->kind == GC_CAPSULE;
}


/* Whether a sphere A and a hull B are proven farther apart than `beyond`:
 * the distance from A's centre to B is at least its height above any of B's
 * face planes, so the highest plane, less A's radius, is a lower bound of the
 * pair's distance. A margin of round-off keeps the proof (a pair at the
 * bound goes to the exact kernel); that bound less the margin into *bound.
 * Far cheaper than that kernel, which finds the nearest point on every
 * triangle. */
static int sphere_hull_beyond(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                              const double X_WB[16], double beyond, double *bound) {
    if (B->nt <= 0) return 0;
    double p_WAo[3] = {X_WA[3], X_WA[7], X_WA[11]}, p[3];
    gc_to_local(X_WB, p_WAo, p);
    double h_max = -INFINITY;
    for (int t = 0; t < B->nt; ++t) {
        double h = gc_dot(B->tri_n + 3 * t, p) - B->tri_d[t];
        if (h > h_max) h_max = h;
    }
    double slack = GC_PAIR_CERTIFICATE_TOLERANCE + 64.0 * GC_EPS * (gc_norm(p) + B->size);
    *bound = h_max - A->s[0] - slack;
    return h_max - A->s[0] > beyond + slack;
}

int gc_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
            const double X_WB[16], gc_pair_result *out) {
    return gc_pair_within(A, X_WA, B, X_WB, INFINITY, out);
}

static int pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                       const double X_WB[16], double beyond, int verdict,
                       gc_pair_result *out);

int gc_pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], double beyond, gc_pair_result *out) {
    return pair_within(A, X_WA, B, X_WB, beyond, 0, out);
}

int gc_pair_verdict(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                    const double X_WB[16], double beyond, gc_pair_result *out) {
    return pair_within(A, X_WA, B, X_WB, beyond, 1, out);
}

static int pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                       const double X_WB[16], double beyond, int verdict,
                       gc_pair_result *out) {
    if (A->kind == GC_HALFSPACE || B->kind == GC_HALFSPACE) {
        if (A->kind == GC_HALFSPACE && B->kind == GC_HALFSPACE) return GC_ERROR_HALFSPACES;
        if (A->kind == GC_HALFSPACE) return gc_halfspace_pair(X_WA, B, X_WB, out);
        int status = gc_halfspace_pair(X_WB, A, X_WA, out);
        gc_swap_result(out);
        return status;
    }
    if (A->kind == GC_MESH || B->kind == GC_MESH) return GC_NOT_HANDLED;
    if (beyond < INFINITY) {
        if (A->kind == GC_SPHERE && B->kind == GC_CONVEX &&
            sphere_hull_beyond(A, X_WA, B, X_WB, beyond, &out->distance))
            return GC_BEYOND;
        if (B->kind == GC_SPHERE && A->kind == GC_CONVEX &&
            sphere_hull_beyond(B, X_WB, A, X_WA, beyond, &out->distance))
            return GC_BEYOND;
    }
    int status = gc_exact_pair(A, X_WA, B, X_WB, out);
    if (status != GC_NOT_HANDLED) return status;
    int proven = 0;
    status = gc_convex_pair_verdict(A, X_WA, B, X_WB, beyond + GC_PAIR_CERTIFICATE_TOLERANCE,
                                    verdict ? &proven : NULL, out);
    /* A proven overlap carries no normal or witnesses: its distance is a
     * bound, and the checks below are for answers. */
    if (proven) return status;
    /* The certificate proves g(n) equals the answer; the ascent test that n
     * is a local maximum of g (an answer too deep passes the first alone). */
    if (status == GC_OK && gc_ascent_gap(A, X_WA, B, X_WB, out) > GC_PAIR_CERTIFICATE_TOLERANCE)
        status = GC_UNCERTIFIED;
    if (status == GC_OK && out->distance <= 0.0 && (has_features(A) || has_features(B))) {
        /* Overlapping or touching: EPA's witnesses are barycentric mixes of
         * support points, which on a face contact can leave the faces; take
         * them from the contact features along the certified normal, where
         * the features overlap along it (a normal a hair off an edge's
         * perpendicular sees a corner instead: EPA's then stand). */
        double size = A->kind == GC_CONVEX ? A->size : gc_norm(A->s);
        double size_B = B->kind == GC_CONVEX ? B->size : gc_norm(B->s);
        if (size_B > size) size = size_B;
        double p_WCa[3], p_WCb[3];
        if (gc_feature_witnesses(A, X_WA, B, X_WB, out->nhat_BA_W, 256.0 * GC_EPS * size,
                                 DISPATCH_FEATURE_ANGLE, p_WCa, p_WCb)) {
            gc_copy(p_WCa, out->p_WCa);
            gc_copy(p_WCb, out->p_WCb);
        }
    }
    if (status != GC_UNCERTIFIED) return status;
    /* Polytopes have an exact answer: the facets of their Minkowski
     * difference. */
    if (gc_polytope_rescue(A, X_WA, B, X_WB, out) == GC_OK) return GC_OK;
    double n0[3];
    gc_copy(out->nhat_BA_W, n0);
    if (gc_direction_search(A, X_WA, B, X_WB, n0, out) == GC_OK) return GC_SEARCHED;
    return GC_UNCERTIFIED;
}
