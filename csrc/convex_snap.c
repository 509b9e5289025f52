/* Snapping onto kinks: a normal within GC_CONVEX_KINK_SNAP of a kink of
 * either support function (a box face normal, a cylinder cap axis, across a
 * side line or an edge) is tried exactly on it, and kept when its g reaches
 * the certified answer: GJK's normal at such contacts is only good to
 * ~sqrt(gap / distance).
 */
#include "gc_convex.h"

/* ================================================================ snapping onto kinks */

/* Try cand: keep it when its g is the best so far (the first of equal g wins). */
static void consider(const posed *A, const posed *B, const double cand[3], int *have,
                     double *best_g, double best_n[3]) {
    double m[3];
    double g = cvx_g_and_m(A, B, cand, m);
    if (!*have || g > *best_g) {
        *have = 1;
        *best_g = g;
        gc_copy(cand, best_n);
    }
}

/* A walking hull's kinks near u = sign n, read in G: the triangles' unit
 * normals (the spec's) and each edge of the vertex graph once (a closed
 * surface lists every edge in two triangles; both give the same candidate).
 * The same candidates as cvx_kink_face and cvx_kink_line give, up to
 * rounding, at three multiply-adds per face and edge instead of rebuilding
 * each in W. */
static void hull_candidates(const posed *A, const posed *B, const posed *ps, double sign,
                            const double n[3], const double u[3], double near, int *have,
                            double *best_g, double best_n[3]) {
    const gc_shape *G = ps->shape;
    const double *R = ps->R;
    double uG[3], nG[3], cand[3];
    poly_direction_G(ps, u, uG);
    poly_direction_G(ps, n, nG);
    double face_cos = 1.0 - 0.5 * near * near;
    /* The filters below are plain products (no fused dot3: a library call
     * each where the build targets no FMA unit); they decide nothing exact,
     * and a passing face or edge is tested again as the W enumeration would. */
    for (int t = 0; t < G->nt; ++t) {
        const double *f = G->tri_n + 3 * t;
        double cosine = f[0] * uG[0] + f[1] * uG[1] + f[2] * uG[2];
        if (!(fabs(cosine) > face_cos)) continue;
        double sg = cosine > 0.0 ? 1.0 : -1.0;
        for (int i = 0; i < 3; ++i)
            cand[i] = sign * sg * (R[3 * i] * f[0] + R[3 * i + 1] * f[1] + R[3 * i + 2] * f[2]);
        consider(A, B, cand, have, best_g, best_n);
    }
    double near2 = near * near;
    for (int i = 0; i < G->nv; ++i) {
        const double *a = G->v + 3 * i;
        for (int k = G->adj_start[i]; k < G->adj_start[i + 1]; ++k) {
            int j = G->adj[k];
            if (j <= i) continue;
            const double *b = G->v + 3 * j;
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            double en = e[0] * nG[0] + e[1] * nG[1] + e[2] * nG[2];
            double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            /* |l . n| < near with l = e / |e|, without the root; exact test below */
            if (!(en * en < 1.0000001 * near2 * ee)) continue;
            double len = sqrt(ee), l[3];
            for (int r = 0; r < 3; ++r)
                l[r] = (R[3 * r] * e[0] + R[3 * r + 1] * e[1] + R[3 * r + 2] * e[2]) / len;
            double along = gc_dot(l, n);
            if (!(fabs(along) < near)) continue;
            for (int r = 0; r < 3; ++r) cand[r] = n[r] - along * l[r];
            double norm = gc_norm(cand);
            for (int r = 0; r < 3; ++r) cand[r] /= norm;
            consider(A, B, cand, have, best_g, best_n);
        }
    }
}

int cvx_snap_to_kinks(const posed *A, const posed *B, const double n[3], double distance,
                         double p_WCa[3], double p_WCb[3], double slack, double n_out[3],
                         double *g_out) {
    double m[3];
    double g0 = cvx_g_and_m(A, B, n, m);
    int have = 0;
    double best_g = 0.0, best_n[3] = {0.0, 0.0, 0.0};
    double near = GC_CONVEX_KINK_SNAP;
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        double sign = side == 0 ? -1.0 : 1.0;
        double u[3] = {sign * n[0], sign * n[1], sign * n[2]};
        if (poly_walks(ps)) {
            hull_candidates(A, B, ps, sign, n, u, near, &have, &best_g, best_n);
            continue;
        }
        /* candidates: faces first, then lines (the first of equal g wins) */
        int nf = cvx_kink_face_count(ps), nl = cvx_kink_line_count(ps);
        for (int k = 0; k < nf + nl; ++k) {
            double cand[3];
            if (k < nf) {
                double f[3];
                cvx_kink_face(ps, k, f);
                double cosine = gc_dot(f, u);
                if (!(fabs(cosine) > 1.0 - 0.5 * near * near)) continue;
                double sg = cosine > 0.0 ? 1.0 : (cosine < 0.0 ? -1.0 : 0.0);
                for (int i = 0; i < 3; ++i) cand[i] = sign * sg * f[i];
            } else {
                double l[3];
                cvx_kink_line(ps, k - nf, l);
                double along = gc_dot(l, n);
                if (!(fabs(along) < near)) continue;
                for (int i = 0; i < 3; ++i) cand[i] = n[i] - along * l[i];
                double norm = gc_norm(cand);
                for (int i = 0; i < 3; ++i) cand[i] /= norm;
            }
            double g = cvx_g_and_m(A, B, cand, m);
            if (!have || g > best_g) {
                have = 1;
                best_g = g;
                gc_copy(cand, best_n);
            }
        }
    }
    double floor_ = distance - slack;
    if (g0 > floor_) floor_ = g0;
    if (!have || best_g < floor_) return 0;
    double nn[3] = {-best_n[0], -best_n[1], -best_n[2]}, a[3];
    cvx_core_point(A, nn, a);
    double h_A = -(gc_dot(best_n, a) - A->radius);
    double shift = -h_A - gc_dot(best_n, p_WCa);
    for (int i = 0; i < 3; ++i) p_WCa[i] = p_WCa[i] + shift * best_n[i];
    for (int i = 0; i < 3; ++i) p_WCb[i] = p_WCa[i] - best_g * best_n[i];
    gc_copy(best_n, n_out);
    *g_out = best_g;
    return 1;
}

