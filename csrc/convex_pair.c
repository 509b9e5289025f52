/* The half-space kernel and the convex driver: gc_halfspace_pair and
 * gc_convex_pair (gc.h), and signed_distance_supports, which runs GJK, EPA
 * or the flat case, refines with Newton (resuming GJK or EPA to their tight
 * gaps when Newton declines), snaps onto kinks and certifies the answer:
 * g along the reported normal must reproduce the distance.
 */

#include "gc_convex.h"

/* ================================================================ half space */


int gc_halfspace_pair(const double X_WH[16], const gc_shape *B, const double X_WB[16],
                      gc_pair_result *out) {
    if (B->kind == GC_HALFSPACE) return GC_ERROR_HALFSPACES;
    if (B->kind == GC_MESH) return GC_NOT_HANDLED;
    double Hz[3] = {X_WH[2], X_WH[6], X_WH[10]};
    double hn = sqrt(dot3(Hz, Hz));
    Hz[0] /= hn; Hz[1] /= hn; Hz[2] /= hn;
    posed ps;
    cvx_posed_init(&ps, B, X_WB);
    double d[3] = {-Hz[0], -Hz[1], -Hz[2]}, p[3];
    cvx_core_point(&ps, d, p);
    if (ps.radius > 0.0) {
        double dn = sqrt(dot3(d, d));
        for (int k = 0; k < 3; ++k) p[k] = p[k] + ps.radius * d[k] / dn;
    }
    double rel[3] = {p[0] - X_WH[3], p[1] - X_WH[7], p[2] - X_WH[11]};
    double distance = dot3(Hz, rel);
    out->distance = distance;
    for (int k = 0; k < 3; ++k) {
        out->p_WCb[k] = p[k];
        out->p_WCa[k] = p[k] - distance * Hz[k];
        out->nhat_BA_W[k] = -Hz[k];
    }
    out->unique = 1;
    return GC_OK;
}


/* ================================================================ entry point */

/* An unrefined answer on the cores: the normal n (from B into A), the cores'
 * distance, their witnesses and the certified gap of the method. */
typedef struct {
    double n[3], core_distance, p_A[3], p_B[3], gap;
    int unique;
} core_answer;

static void take_epa(const epa_answer *ea, core_answer *ans) {
    gc_copy(ea->n, ans->n);
    ans->core_distance = -ea->depth;
    gc_copy(ea->p_A, ans->p_A);
    gc_copy(ea->p_B, ans->p_B);
    ans->gap = ea->gap;
    ans->unique = ea->unique;
}

/* GJK's result as an answer: apart, its closest points; overlapping, EPA
 * (from GJK's simplex, else from 26 support points) or the flat case.
 * *have_epa says whether epa holds a polytope that can resume. Returns GC_OK,
 * or GC_UNCERTIFIED when EPA's pools overflowed. */
static int answer_gjk(const posed *A, const posed *B, double scale, double tol0,
                      const gjk_result *gr, epa_t *epa, int *have_epa, core_answer *ans) {
    if (!gr->overlap) {
        double vn = sqrt(dot3(gr->v, gr->v));
        for (int k = 0; k < 3; ++k) ans->n[k] = gr->v[k] / vn;
        gc_copy(gr->p_A, ans->p_A);
        gc_copy(gr->p_B, ans->p_B);
        ans->unique = 1;
        ans->core_distance = vn;
        ans->gap = isfinite(gr->gap) ? gr->gap : 0.0;
        return GC_OK;
    }
    double pa[NDIR][3], pb[NDIR][3], pm[NDIR][3];
    epa->A = A;
    epa->B = B;
    epa->scale = scale;
    epa->iterations = 0;
    epa->overflow = 0;
    epa_answer ea;
    int from_simplex = gr->nW == 4
        && cvx_epa_run_simplex(epa, (const double (*)[3])gr->W, (const double (*)[3])gr->WA,
                               (const double (*)[3])gr->WB, tol0, &ea);
    if (!from_simplex) cvx_initial_points(A, B, pa, pb, pm);
    if (from_simplex || cvx_epa_run(epa, pa, pb, pm, tol0, &ea)) {
        if (epa->overflow) return GC_UNCERTIFIED;
        *have_epa = 1;
        take_epa(&ea, ans);
    } else {
        cvx_flat_overlap(A, B, pm, ans->n, ans->p_A, ans->p_B, &ans->unique);
        ans->core_distance = -0.0;
        ans->gap = 0.0;
    }
    return GC_OK;
}

/* A Newton answer's witnesses: taken from a smooth side's support point, or
 * the old witness moved onto the new supporting plane (a support on a kink
 * is ambiguous). */
static void newton_witnesses(const posed *A, const posed *B, const newton_answer *ref,
                             double p_WCa[3], double p_WCb[3]) {
    const double *n = ref->n;
    double distance = ref->g, nn[3] = {-n[0], -n[1], -n[2]}, s[3];
    if (ref->smooth_A) {
        cvx_core_point(A, nn, s);
        for (int k = 0; k < 3; ++k) p_WCa[k] = s[k] - A->radius * n[k];
        for (int k = 0; k < 3; ++k) p_WCb[k] = p_WCa[k] - distance * n[k];
    } else if (ref->smooth_B) {
        cvx_core_point(B, n, s);
        for (int k = 0; k < 3; ++k) p_WCb[k] = s[k] + B->radius * n[k];
        for (int k = 0; k < 3; ++k) p_WCa[k] = p_WCb[k] + distance * n[k];
    } else {
        cvx_core_point(A, nn, s);
        double h_A = -(gc_dot(n, s) - A->radius);
        double shift = -h_A - gc_dot(n, p_WCa);
        for (int k = 0; k < 3; ++k) p_WCa[k] = p_WCa[k] + shift * n[k];
        for (int k = 0; k < 3; ++k) p_WCb[k] = p_WCa[k] - distance * n[k];
    }
}

/* How deep the origin lies inside GJK's tetrahedron W (its least distance
 * to a face plane), or 0 where it is not clearly inside: each face must have
 * the origin on the side of its opposite vertex. The tetrahedron's corners
 * are points of the cores' Minkowski difference, so a ball of that radius
 * about the origin lies in it: the cores overlap at least that deep. */
static double depth_in_tetrahedron(const double W[4][3]) {
    static const int face[4][4] = {{1, 2, 3, 0}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 1, 2, 3}};
    double depth = INFINITY;
    for (int f = 0; f < 4; ++f) {
        const double *a = W[face[f][0]], *b = W[face[f][1]], *c = W[face[f][2]];
        const double *d = W[face[f][3]];
        double ab[3], ac[3], n[3], ad[3];
        gc_sub(b, a, ab);
        gc_sub(c, a, ac);
        gc_cross(ab, ac, n);
        double norm = gc_norm(n);
        if (!(norm > 0.0)) return 0.0;
        gc_sub(d, a, ad);
        double side_d = gc_dot(n, ad), side_o = -gc_dot(n, a);
        if (!(side_d * side_o > 0.0)) return 0.0;
        double h = fabs(side_o) / norm;
        if (h < depth) depth = h;
    }
    return depth;
}

/* The answer for two posed cores. Returns GC_OK, GC_UNCERTIFIED when
 * EPA's pools overflowed, or GC_BEYOND when GJK proves the distance above
 * beyond (out->distance then the lower bound that proved it, nothing else
 * set). With verdict (gc_convex_pair_verdict), a proven overlap returns
 * GC_OK with only out->distance set, a bound of it, and *proven = 1. */
static int signed_distance_supports(const posed *A, const posed *B, double scale,
                                    double beyond, int verdict, int *proven,
                                    gc_pair_result *out) {
    double r_sum = A->radius + B->radius;
    int curved = posed_curved(A) || posed_curved(B);
    double sc = scale > 1.0 ? scale : 1.0;
    double tight = GC_CONVEX_EPA_GAP * sc;
    /* Curved overlaps: EPA hands over to Newton early and resumes if Newton
     * declines (a kink). */
    double tol0 = curved ? GC_CONVEX_EPA_NEWTON_HANDOFF * sc : tight;
    gjk_result gr;
    gjk_state gs;
    cvx_gjk_init(A, B, &gs);
    /* Curved pairs: Newton finishes what GJK's linear convergence would take
     * many iterations for; its answer is kept only with a duality gap as small
     * as GJK's own tolerance (else GJK resumes; see below). */
    cvx_gjk_run(A, B, scale, &gs, curved ? GC_CONVEX_GJK_NEWTON_HANDOFF * sc : 0.0,
                beyond + r_sum, &gr);
    if (gr.beyond) {
        out->distance = gr.bound - r_sum;
        return GC_BEYOND;
    }
    if (verdict && gr.overlap && gr.nW == 4) {
        /* Deeper than GJK's own tolerances, so the proof is clear of
         * round-off; the depth reported is shrunk by that much, since a
         * face of the tetrahedron can lie on the Minkowski difference's own
         * boundary (then its rounded depth may pass the true one). */
        double depth = depth_in_tetrahedron((const double (*)[3])gr.W);
        double margin = 1e3 * GC_CONVEX_CORE_TOUCH * sc;
        if (depth > 2.0 * margin) {
            memset(out, 0, sizeof(*out));
            out->distance = -(depth - margin) - r_sum;
            *proven = 1;
            return GC_OK;
        }
    }
    int early = gr.early;
    epa_t epa;
    int have_epa = 0;
    core_answer ans;
    double distance, slack, p_WCa[3], p_WCb[3];
    /* At most two passes: the second only after GJK stopped early and Newton
     * did not certify, with GJK run on to its tight gap. */
    for (int refined = 0; !refined;) {
        int status = answer_gjk(A, B, scale, tol0, &gr, &epa, &have_epa, &ans);
        if (status != GC_OK) return status;
        for (;;) {
            distance = ans.core_distance - r_sum;
            slack = (ans.gap > 0.0 ? ans.gap : 0.0) + GC_CONVEX_REFINE_SLACK * sc;
            for (int k = 0; k < 3; ++k) {
                p_WCa[k] = ans.p_A[k] - A->radius * ans.n[k];
                p_WCb[k] = ans.p_B[k] + B->radius * ans.n[k];
            }
            newton_answer ref = {{0.0, 0.0, 0.0}, 0.0, 0, 0};
            double dgap = 0.0;
            if (curved && cvx_newton(A, B, ans.n, scale, &ref) && ref.g >= distance - slack
                && (!early || cvx_duality_gap(A, B, ref.n, &dgap) <= GC_CONVEX_GJK_GAP * sc)) {
                if (early) slack = dgap + GC_CONVEX_REFINE_SLACK * sc;
                gc_copy(ref.n, ans.n);
                distance = ref.g;
                newton_witnesses(A, B, &ref, p_WCa, p_WCb);
                refined = 1;
                break;
            }
            if (early || !have_epa || epa.gap_tol <= tight) break;
            epa_answer ea;
            epa.gap_tol = tight;
            cvx_epa_expand(&epa, &ea);
            if (epa.overflow) return GC_UNCERTIFIED;
            take_epa(&ea, &ans);
        }
        if (!early) break;
        if (!refined) { /* GJK stopped early and Newton did not certify: finish GJK */
            early = 0;
            cvx_gjk_run(A, B, scale, &gs, 0.0, beyond + r_sum, &gr);
            if (gr.beyond) {
                out->distance = gr.bound - r_sum;
                return GC_BEYOND;
            }
        }
    }
    double n_new[3], g_new;
    if (cvx_snap_to_kinks(A, B, ans.n, distance, p_WCa, p_WCb, slack, n_new, &g_new)) {
        gc_copy(n_new, ans.n);
        distance = g_new;
    }
    if (fabs(distance) <= GC_CONVEX_CORE_TOUCH * sc) ans.unique = 0;
    out->distance = distance;
    gc_copy(p_WCa, out->p_WCa);
    gc_copy(p_WCb, out->p_WCb);
    gc_copy(ans.n, out->nhat_BA_W);
    out->unique = ans.unique;
    return GC_OK;
}

int gc_convex_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], gc_pair_result *out) {
    return gc_convex_pair_within(A, X_WA, B, X_WB, INFINITY, out);
}

int gc_convex_pair_within(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                          const double X_WB[16], double beyond, gc_pair_result *out) {
    return gc_convex_pair_verdict(A, X_WA, B, X_WB, beyond, NULL, out);
}

/* proven NULL: gc_convex_pair_within, no verdict shortcut. */
int gc_convex_pair_verdict(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                           const double X_WB[16], double beyond, int *proven,
                           gc_pair_result *out) {
    int verdict = proven != NULL, proven_here = 0;
    if (!verdict) proven = &proven_here;
    *proven = 0;
    if (A->kind == GC_MESH || B->kind == GC_MESH) return GC_NOT_HANDLED;
    if (A->kind == GC_HALFSPACE && B->kind == GC_HALFSPACE) return GC_ERROR_HALFSPACES;
    if (A->kind == GC_HALFSPACE) return gc_halfspace_pair(X_WA, B, X_WB, out);
    if (B->kind == GC_HALFSPACE) {
        int status = gc_halfspace_pair(X_WB, A, X_WA, out);
        gc_swap_result(out);
        return status;
    }
    if (A->kind < GC_SPHERE || A->kind > GC_CONVEX || B->kind < GC_SPHERE
        || B->kind > GC_CONVEX)
        return GC_NOT_HANDLED;
    if ((A->kind == GC_CONVEX && A->nv < 1) || (B->kind == GC_CONVEX && B->nv < 1))
        return GC_NOT_HANDLED;
    posed pa, pb;
    cvx_posed_init(&pa, A, X_WA);
    cvx_posed_init(&pb, B, X_WB);
    double ra = cvx_bounding_radius(A), rb = cvx_bounding_radius(B);
    double scale = ra > rb ? ra : rb;
    int status = signed_distance_supports(&pa, &pb, scale, beyond, verdict, proven, out);
    if (status == GC_BEYOND || *proven) return status;
    if (status != GC_OK) {
        out->distance = NAN;
        return status;
    }
    /* certificate_gap: g(n) = -h_A(-n) - h_B(n) against the answer's distance */
    const double *n = out->nhat_BA_W;
    double nn[3] = {-n[0], -n[1], -n[2]};
    double g = -gc_support_value_W_from(A, X_WA, nn, pa.warm)
               - gc_support_value_W_from(B, X_WB, n, pb.warm);
    double cert = fabs(g - out->distance);
    if (!(cert <= GC_PAIR_CERTIFICATE_TOLERANCE)) return GC_UNCERTIFIED;
    return GC_OK;
}

