/* Overlaps whose Minkowski difference of the cores is flat: concentric
 * spheres (a point), a sphere on a capsule's spine (a segment), crossing or
 * parallel capsules (a parallelogram). EPA has no volume to grow in; the
 * normal comes from the centre offset and the samples' principal directions
 * (a one-sided Jacobi SVD of the centred support points).
 */
#include <float.h>

#include "gc_convex.h"

/* ================================================================ flat overlap */

/* One-sided Jacobi SVD of the centred (NDIR, 3) matrix: singular values
 * (descending) and right singular vectors as rows of Vt. */
static void svd_n3(double X[NDIR][3], double sv[3], double Vt[3][3]) {
    double V[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < 60; ++sweep) {
        int rotated = 0;
        for (int m = 0; m < 3; ++m) {
            int p = pq[m][0], q = pq[m][1];
            double alpha = 0.0, beta = 0.0, gamma = 0.0;
            for (int k = 0; k < NDIR; ++k) {
                alpha += X[k][p] * X[k][p];
                beta += X[k][q] * X[k][q];
                gamma += X[k][p] * X[k][q];
            }
            if (gamma == 0.0 || fabs(gamma) <= DBL_EPSILON * sqrt(alpha * beta)) continue;
            rotated = 1;
            double zeta = (beta - alpha) / (2.0 * gamma);
            double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + hypot(1.0, zeta));
            double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
            for (int k = 0; k < NDIR; ++k) {
                double xp = X[k][p], xq = X[k][q];
                X[k][p] = c * xp - s * xq;
                X[k][q] = s * xp + c * xq;
            }
            for (int k = 0; k < 3; ++k) {
                double vp = V[k][p], vq = V[k][q];
                V[k][p] = c * vp - s * vq;
                V[k][q] = s * vp + c * vq;
            }
        }
        if (!rotated) break;
    }
    double norms[3];
    int order[3] = {0, 1, 2};
    for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int k = 0; k < NDIR; ++k) s += X[k][j] * X[k][j];
        norms[j] = sqrt(s);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (norms[order[j]] > norms[order[i]]) {
                int t = order[i]; order[i] = order[j]; order[j] = t;
            }
    for (int i = 0; i < 3; ++i) {
        sv[i] = norms[order[i]];
        for (int k = 0; k < 3; ++k) Vt[i][k] = V[k][order[i]];
    }
}

void cvx_flat_overlap(const posed *A, const posed *B, const double pm[NDIR][3],
                         double n[3], double p_A[3], double p_B[3], int *unique) {
    double mean[3] = {0.0, 0.0, 0.0}, X[NDIR][3], sv[3], Vt[3][3];
    for (int k = 0; k < NDIR; ++k) gc_add(mean, pm[k], mean);
    gc_scale(1.0 / NDIR, mean, mean);
    for (int k = 0; k < NDIR; ++k) gc_sub(pm[k], mean, X[k]);
    svd_n3(X, sv, Vt);
    double flat_tol = GC_CONVEX_FLAT_SINGULAR_RATIO * (sv[0] > 1e-300 ? sv[0] : 1e-300);
    double c[3];
    gc_sub(A->p, B->p, c);
    *unique = 1;
    if (sv[0] <= flat_tol) {
        if (gc_dot(c, c) > 0) {
            gc_scale(1.0 / gc_norm(c), c, n);
        } else {
            n[0] = 0.0; n[1] = 0.0; n[2] = 1.0;
        }
        *unique = 0;
    } else if (sv[1] > flat_tol) {
        gc_copy(Vt[2], n);
    } else {
        const double *axis = Vt[0];
        double ca = gc_dot(c, axis);
        for (int k = 0; k < 3; ++k) n[k] = c[k] - ca * axis[k];
        if (gc_dot(n, n) < GC_CONVEX_FLAT_NORMAL_NORM * GC_CONVEX_FLAT_NORMAL_NORM) {
            double ref[3] = {1.0, 0.0, 0.0};
            if (!(fabs(axis[0]) < 0.9)) { ref[0] = 0.0; ref[1] = 1.0; }
            gc_cross(axis, ref, n);
        }
        gc_scale(1.0 / gc_norm(n), n, n);
        *unique = 0;
    }
    if (gc_dot(n, c) < 0.0) gc_scale(-1.0, n, n);
    double nn[3] = {-n[0], -n[1], -n[2]};
    cvx_core_point(A, nn, p_A);
    cvx_core_point(B, n, p_B);
}

