/* Snapping onto kinks: a normal within GC_CONVEX_KINK_SNAP of a kink of
 * either support function (a box face normal, a cylinder cap axis, across a
 * side line or an edge) is tried exactly on it, and kept when its g reaches
 * the certified answer: GJK's normal at such contacts is only good to
 * ~sqrt(gap / distance).
 */
#include "gc_convex.h"

/* ================================================================ snapping onto kinks */

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

