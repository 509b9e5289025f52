/* Newton refinement of the normal: maximise g(n) = -h_A(-n) - h_B(n) on the
 * unit sphere from GJK's or EPA's normal, with the support Jacobians as
 * curvature, optionally along a kink line shared by both shapes. Converges
 * quadratically where the support functions are smooth; declines at kinks.
 * Also GJK's duality gap at a given normal (the certificate of an early stop).
 */
#include "gc_convex.h"

/* ================================================================ Newton refinement */

double cvx_g_and_m(const posed *A, const posed *B, const double n[3], double m[3]) {
    double nn[3] = {-n[0], -n[1], -n[2]}, a[3], b[3];
    cvx_core_point(A, nn, a);
    cvx_core_point(B, n, b);
    double rs = A->radius + B->radius;
    for (int k = 0; k < 3; ++k) m[k] = (a[k] - b[k]) - rs * n[k];
    return gc_dot(n, m);
}

static int any_face_near(const posed *ps, const double u[3], double near) {
    int nf = cvx_kink_face_count(ps);
    for (int k = 0; k < nf; ++k) {
        double f[3];
        cvx_kink_face(ps, k, f);
        if (fabs(gc_dot(f, u)) > 1.0 - 0.5 * near * near) return 1;
    }
    return 0;
}

/* _line_constraints: variants[0..count) each either free (has_e 0) or along e. */
static int line_constraints(const posed *A, const posed *B, const double n[3],
                            int has_e[2], double e_out[2][3]) {
    double near = GC_CONVEX_KINK_SNAP;
    int count = 0;
    double nn[3] = {-n[0], -n[1], -n[2]};
    if (cvx_posed_is_smooth(A, nn, GC_CONVEX_NEWTON_START)
        && cvx_posed_is_smooth(B, n, GC_CONVEX_NEWTON_START)) {
        has_e[count++] = 0;
    }
    int have_constraint = 0;
    double constraint[3] = {0.0, 0.0, 0.0};
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        const double *u = side == 0 ? nn : n;
        if (cvx_posed_is_smooth(ps, u, near)) continue;
        /* A hull's edges are each two triangles' (a flat hull's, both
         * windings'), so its kink lines come in pairs and never make the one
         * line a constraint needs: every path below returns count, without
         * enumerating its faces and edges. */
        if (ps->kind == PK_POLY) return count;
        if (any_face_near(ps, u, near)) return count;
        int nl = cvx_kink_line_count(ps), hits = 0;
        double e[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < nl; ++k) {
            double l[3];
            cvx_kink_line(ps, k, l);
            if (fabs(gc_dot(l, n)) < near) {
                if (hits == 0) gc_copy(l, e);
                ++hits;
            }
        }
        if (hits != 1) return count;
        if (have_constraint && fabs(fabs(gc_dot(constraint, e)) - 1.0) > GC_CONVEX_KINK_PARALLEL)
            return count;
        have_constraint = 1;
        gc_copy(e, constraint);
    }
    if (have_constraint) {
        has_e[count] = 1;
        gc_copy(constraint, e_out[count]);
        ++count;
    }
    return count;
}


/* Newton converges quadratically (2-4 iterations from GJK's or EPA's normal
 * in the scenes); one not converged after 10 is cycling on a kink, and the
 * rest of GC_CONVEX_NEWTON_MAX_ITERATIONS (30) only costs time: the caller
 * then keeps or refines the GJK/EPA answer as for any Newton failure. */
#define NEWTON_ITERATIONS (GC_CONVEX_NEWTON_MAX_ITERATIONS < 10 ? GC_CONVEX_NEWTON_MAX_ITERATIONS : 10)

static int newton_one(const posed *A, const posed *B, const double n0[3], double scale,
                      const double *e, newton_answer *out) {
    double n[3], m[3];
    gc_copy(n0, n);
    if (e) {
        double ne = gc_dot(n, e);
        for (int k = 0; k < 3; ++k) n[k] = n[k] - ne * e[k];
        double norm = gc_norm(n);
        for (int k = 0; k < 3; ++k) n[k] = n[k] / norm;
    }
    double g = cvx_g_and_m(A, B, n, m);
    double g0 = g;
    double grad_tol = GC_CONVEX_NEWTON_GRADIENT * (scale > 1.0 ? scale : 1.0);
    double rs = A->radius + B->radius;
    int converged = 0;
    for (int it = 0; it < NEWTON_ITERATIONS; ++it) {
        double T[2][3];
        int nc;
        if (!e) {
            double ref[3] = {1.0, 0.0, 0.0};
            if (!(fabs(n[0]) < 0.9)) { ref[0] = 0.0; ref[1] = 1.0; }
            gc_cross(n, ref, T[0]);
            double l = gc_norm(T[0]);
            for (int k = 0; k < 3; ++k) T[0][k] /= l;
            gc_cross(n, T[0], T[1]);
            nc = 2;
        } else {
            gc_cross(e, n, T[0]);
            double l = gc_norm(T[0]);
            for (int k = 0; k < 3; ++k) T[0][k] /= l;
            nc = 1;
        }
        double grad[2] = {0.0, 0.0};
        for (int i = 0; i < nc; ++i) grad[i] = gc_dot(T[i], m);
        if (sqrt(grad[0] * grad[0] + grad[1] * grad[1]) <= grad_tol) {
            converged = 1;
            break;
        }
        double JA[9], JB[9], M[9], u[3] = {-n[0], -n[1], -n[2]};
        cvx_core_jacobian_W(A, u, JA);
        cvx_core_jacobian_W(B, n, JB);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double P = (i == j ? 1.0 : 0.0) - n[i] * n[j];
                M[3 * i + j] = (JA[3 * i + j] + JB[3 * i + j]) + rs * P + (i == j ? g : 0.0);
            }
        double H[2][2];
        for (int a = 0; a < nc; ++a)
            for (int b = 0; b < nc; ++b) {
                double s = 0.0;
                for (int i = 0; i < 3; ++i) {
                    double Mt = M[3 * i] * T[b][0] + M[3 * i + 1] * T[b][1] + M[3 * i + 2] * T[b][2];
                    s += T[a][i] * Mt;
                }
                H[a][b] = s;
            }
        double delta[2] = {0.0, 0.0};
        if (nc == 1) {
            if (!isfinite(H[0][0]) || !(H[0][0] > 0.0)) return 0;
            delta[0] = grad[0] / H[0][0];
        } else {
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b)
                    if (!isfinite(H[a][b])) return 0;
            /* eigvalsh reads the lower triangle */
            double h00 = H[0][0], h11 = H[1][1], h10 = H[1][0];
            double mean = 0.5 * (h00 + h11), half = 0.5 * (h00 - h11);
            double lo = mean - hypot(half, h10);
            if (!(lo > 0.0)) return 0;
            /* LU with partial pivoting (LAPACK dgesv) */
            int pr = fabs(H[1][0]) > fabs(H[0][0]) ? 1 : 0, orow = 1 - pr;
            double l = H[orow][0] * (1.0 / H[pr][0]);
            double u11 = H[orow][1] - l * H[pr][1];
            double y0 = grad[pr], y1 = grad[orow] - l * y0;
            delta[1] = y1 / u11;
            delta[0] = (y0 - H[pr][1] * delta[1]) / H[pr][0];
        }
        double step[3];
        for (int k = 0; k < 3; ++k) {
            step[k] = T[0][k] * delta[0];
            if (nc == 2) step[k] += T[1][k] * delta[1];
        }
        for (int k = 0; k < 3; ++k) n[k] = n[k] + step[k];
        if (e) {
            double ne = gc_dot(n, e);
            for (int k = 0; k < 3; ++k) n[k] = n[k] - ne * e[k];
        }
        double norm = gc_norm(n);
        for (int k = 0; k < 3; ++k) n[k] = n[k] / norm;
        g = cvx_g_and_m(A, B, n, m);
    }
    if (!converged) return 0;
    if (g < g0 - grad_tol) return 0;
    double nn[3] = {-n[0], -n[1], -n[2]};
    out->smooth_A = cvx_posed_is_smooth(A, nn, GC_CONVEX_NEWTON_START);
    out->smooth_B = cvx_posed_is_smooth(B, n, GC_CONVEX_NEWTON_START);
    gc_copy(n, out->n);
    out->g = g;
    return 1;
}

int cvx_newton(const posed *A, const posed *B, const double n[3], double scale,
                  newton_answer *best) {
    int has_e[2];
    double e[2][3];
    int count = line_constraints(A, B, n, has_e, e);
    int found = 0;
    for (int k = 0; k < count; ++k) {
        newton_answer r;
        if (newton_one(A, B, n, scale, has_e[k] ? e[k] : NULL, &r) && (!found || r.g > best->g)) {
            *best = r;
            found = 1;
        }
    }
    return found;
}

/* A point of the core near p (W): p moved into the core along simple paths
 * (clamped box coordinates, a cylinder's radius and length, a segment's
 * span, an ellipsoid's scaling). 0 for a polytope (no point). */
static int core_clamp(const posed *ps, const double p[3], double out[3]) {
    const double *R = ps->R;
    if (ps->kind == PK_POINT) {
        gc_copy(ps->p, out);
        return 1;
    }
    if (ps->kind == PK_POLY) return 0;
    double d[3] = {p[0] - ps->p[0], p[1] - ps->p[1], p[2] - ps->p[2]}, q[3];
    for (int j = 0; j < 3; ++j) q[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
    if (ps->kind == PK_SEGMENT) {
        q[0] = q[1] = 0.0;
        q[2] = fmin(fmax(q[2], -ps->prm[0]), ps->prm[0]);
    } else if (ps->kind == PK_BOX) {
        for (int j = 0; j < 3; ++j) q[j] = fmin(fmax(q[j], -ps->prm[j]), ps->prm[j]);
    } else if (ps->kind == PK_CYLINDER) {
        double rho = hypot(q[0], q[1]), r = ps->prm[0];
        if (rho > r) {
            q[0] *= r / rho;
            q[1] *= r / rho;
        }
        q[2] = fmin(fmax(q[2], -ps->prm[1]), ps->prm[1]);
    } else {
        double u = q[0] / ps->prm[0], v = q[1] / ps->prm[1], w = q[2] / ps->prm[2];
        double k = u * u + v * v + w * w;
        if (k > 1.0) {
            double f = 1.0 / sqrt(k);
            q[0] *= f; q[1] *= f; q[2] *= f;
        }
    }
    for (int i = 0; i < 3; ++i)
        out[i] = ps->p[i] + R[3 * i] * q[0] + R[3 * i + 1] * q[1] + R[3 * i + 2] * q[2];
    return 1;
}

/* For separated cores and a unit n, a duality gap: the supports a = s_A(-n),
 * b = s_B(n) give the lower bound n.(a - b) <= D of the cores' distance, and
 * any pair of core points an upper bound (a, b themselves, or a with the
 * point of B's core nearest a - L n, or b with A's nearest b + L n: those
 * close the gap on a face or line of one side). Their difference bounds the
 * error of the answer g(n). */
double cvx_duality_gap(const posed *A, const posed *B, const double n[3], double *gap) {
    double nn[3] = {-n[0], -n[1], -n[2]}, a[3], b[3], d[3], q[3], c[3];
    cvx_core_point(A, nn, a);
    cvx_core_point(B, n, b);
    gc_sub(a, b, d);
    double lower = gc_dot(n, d);
    *gap = INFINITY;
    if (!(lower > 0.0)) return *gap;
    double upper = gc_norm(d);
    for (int k = 0; k < 3; ++k) q[k] = a[k] - lower * n[k];
    if (core_clamp(B, q, c)) {
        gc_sub(a, c, d);
        upper = fmin(upper, gc_norm(d));
    }
    for (int k = 0; k < 3; ++k) q[k] = b[k] + lower * n[k];
    if (core_clamp(A, q, c)) {
        gc_sub(c, b, d);
        upper = fmin(upper, gc_norm(d));
    }
    *gap = upper - lower;
    return *gap;
}

