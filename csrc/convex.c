/* Support functions and the general convex solver: mirrors
 * geometry_core/proximity/support.py (PosedSupport and the support
 * functions), convex_solver.py (signed_distance_halfspace,
 * signed_distance_convex / signed_distance_supports) and the certificate of
 * direction_search.py (certificate_gap).
 *
 * The port is line by line: the same algorithms, tolerances, tie-breaking
 * (first maximiser, first nearest face), degenerate-case choices and, where
 * it matters, the same order of floating-point operations. Where the Python
 * leans on a library the C has its own equivalent:
 *   - EPA's initial hull (scipy's Qhull) is an incremental hull of the same
 *     26 support points; its triangulation and face order may differ from
 *     Qhull's, so EPA's intermediate polytopes (not its certified answer)
 *     may differ;
 *   - the flat-overlap SVD (LAPACK) is a one-sided Jacobi SVD; singular
 *     vectors are defined up to sign, which the Python fixes by the
 *     centre-to-centre direction unless that is perpendicular;
 *   - Newton's 2x2 eigvalsh/solve are closed form / partial pivoting.
 *
 * All storage is on the stack (EPA's pools are sized from
 * GC_CONVEX_EPA_MAX_ITERATIONS; an overflow answers GC_UNCERTIFIED), no
 * globals: thread safe.
 */
#include <float.h>
#include <string.h>

#include "gc.h"
#include "gc_tolerances.h"

/* ================================================================ numpy's products
 * Where numpy arithmetic decides a discrete choice (which hull vertex is
 * extreme, which end of a segment, which rim point of a cylinder along its
 * own axis), the C reproduces its rounding: numpy's matmul of 3-vectors goes
 * through OpenBLAS, whose dgemm accumulates a0 b0, a1 b1, a2 b2 with fused
 * multiply-adds in that order, and whose dgemv (an (N, 3) array times a
 * 3-vector) as fma(a2, b2, fma(a0, b0, a1 b1)). Explicit fma() calls are
 * exactly rounded everywhere (-ffp-contract=off only forbids implicit ones). */
static inline double np_gemm3(double a0, double b0, double a1, double b1, double a2,
                              double b2) {
    return fma(a2, b2, fma(a1, b1, a0 * b0));
}
/* numpy's dot of two 3-vectors (BLAS ddot; np.linalg.norm is its sqrt). */
static inline double np_dot3(const double a[3], const double b[3]) {
    return np_gemm3(a[0], b[0], a[1], b[1], a[2], b[2]);
}
static inline double np_gemv3(const double a[3], const double b[3]) {
    return fma(a[2], b[2], fma(a[0], b[0], a[1] * b[1]));
}

/* ================================================================ support functions in G */

static double sgn_pos(double x) { return x >= 0.0 ? 1.0 : -1.0; }

/* The full shape's support point in G (support.py _full_support). */
void gc_support_point_G(const gc_shape *G, const double d[3], double s[3]) {
    switch (G->kind) {
    case GC_SPHERE:
    case GC_CAPSULE: {
        double norm = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double u[3];
        if (norm > 0.0) {
            u[0] = d[0] / norm; u[1] = d[1] / norm; u[2] = d[2] / norm;
        } else {
            u[0] = 0.0; u[1] = 0.0; u[2] = 1.0;
        }
        double r = G->s[0];
        s[0] = r * u[0]; s[1] = r * u[1]; s[2] = r * u[2];
        if (G->kind == GC_CAPSULE) s[2] += sgn_pos(d[2]) * G->s[1];
        return;
    }
    case GC_BOX:
        s[0] = sgn_pos(d[0]) * G->s[0];
        s[1] = sgn_pos(d[1]) * G->s[1];
        s[2] = sgn_pos(d[2]) * G->s[2];
        return;
    case GC_CYLINDER: {
        double r = G->s[0];
        double rho = hypot(d[0], d[1]);
        if (rho > 0.0) {
            s[0] = r * d[0] / rho;
            s[1] = r * d[1] / rho;
        } else {
            s[0] = r;
            s[1] = 0.0;
        }
        s[2] = sgn_pos(d[2]) * G->s[1];
        return;
    }
    case GC_ELLIPSOID: {
        double Dd[3] = {d[0] * G->s[0], d[1] * G->s[1], d[2] * G->s[2]};
        double norm = sqrt(Dd[0] * Dd[0] + Dd[1] * Dd[1] + Dd[2] * Dd[2]);
        if (norm > 0.0) {
            s[0] = (Dd[0] * G->s[0]) / norm;
            s[1] = (Dd[1] * G->s[1]) / norm;
            s[2] = (Dd[2] * G->s[2]) / norm;
        } else {
            s[0] = 0.0; s[1] = 0.0; s[2] = G->s[2];
        }
        return;
    }
    case GC_CONVEX: {
        int best = 0;
        double top = -INFINITY;
        for (int i = 0; i < G->nv; ++i) {
            const double *v = G->v + 3 * i;
            double h = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
            if (h > top || i == 0) {
                top = h;
                best = i;
            }
        }
        gc_copy(G->v + 3 * best, s);
        return;
    }
    default:
        s[0] = s[1] = s[2] = NAN;
        return;
    }
}

double gc_support_value_W(const gc_shape *G, const double X_WG[16], const double d_W[3]) {
    if (G->kind == GC_HALFSPACE) return INFINITY;
    if (G->kind == GC_MESH) return NAN;
    double d_G[3], s[3];
    /* d_W @ R_WG */
    for (int j = 0; j < 3; ++j)
        d_G[j] = np_gemm3(d_W[0], X_WG[j], d_W[1], X_WG[4 + j], d_W[2], X_WG[8 + j]);
    gc_support_point_G(G, d_G, s);
    double h_G = d_G[0] * s[0] + d_G[1] * s[1] + d_G[2] * s[2];
    double p[3] = {X_WG[3], X_WG[7], X_WG[11]};
    return h_G + np_dot3(d_W, p);
}

/* ================================================================ PosedSupport */

enum { PK_POINT, PK_SEGMENT, PK_BOX, PK_CYLINDER, PK_ELLIPSOID, PK_POLY };

typedef struct {
    int kind;
    const gc_shape *shape;
    double R[9];   /* R_WG, row-major */
    double p[3];   /* p_WGo */
    double radius; /* margin */
    double prm[3];
} posed;

static void posed_init(posed *ps, const gc_shape *G, const double X[16]) {
    ps->shape = G;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) ps->R[3 * i + j] = X[4 * i + j];
        ps->p[i] = X[4 * i + 3];
    }
    ps->radius = 0.0;
    ps->prm[0] = ps->prm[1] = ps->prm[2] = 0.0;
    switch (G->kind) {
    case GC_SPHERE:
        ps->kind = PK_POINT;
        ps->radius = G->s[0];
        break;
    case GC_CAPSULE:
        ps->kind = PK_SEGMENT;
        ps->radius = G->s[0];
        ps->prm[0] = G->s[1];
        break;
    case GC_BOX:
        ps->kind = PK_BOX;
        memcpy(ps->prm, G->s, sizeof(ps->prm));
        break;
    case GC_CYLINDER:
        ps->kind = PK_CYLINDER;
        ps->prm[0] = G->s[0];
        ps->prm[1] = G->s[1];
        break;
    case GC_ELLIPSOID:
        ps->kind = PK_ELLIPSOID;
        memcpy(ps->prm, G->s, sizeof(ps->prm));
        break;
    default:
        ps->kind = PK_POLY;
        break;
    }
}

/* Shape.bounding_radius(): |(|centre| + half extents)| of the local AABB. */
static double bounding_radius(const gc_shape *G) {
    double h[3];
    switch (G->kind) {
    case GC_SPHERE: h[0] = h[1] = h[2] = G->s[0]; break;
    case GC_BOX:
    case GC_ELLIPSOID: h[0] = G->s[0]; h[1] = G->s[1]; h[2] = G->s[2]; break;
    case GC_CYLINDER: h[0] = h[1] = G->s[0]; h[2] = G->s[1]; break;
    case GC_CAPSULE: h[0] = h[1] = G->s[0]; h[2] = G->s[1] + G->s[0]; break;
    default: {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < G->nv; ++i)
            for (int k = 0; k < 3; ++k) {
                double x = G->v[3 * i + k];
                if (x < lo[k]) lo[k] = x;
                if (x > hi[k]) hi[k] = x;
            }
        for (int k = 0; k < 3; ++k) h[k] = fabs(0.5 * (lo[k] + hi[k])) + 0.5 * (hi[k] - lo[k]);
        break;
    }
    }
    return sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
}

static inline int posed_curved(const posed *ps) {
    return ps->kind == PK_CYLINDER || ps->kind == PK_ELLIPSOID;
}

/* Hull vertex i in W: vertices_G @ R_WG.T + p_WGo. */
static inline void poly_vertex_W(const posed *ps, int i, double out[3]) {
    const double *v = ps->shape->v + 3 * i;
    const double *R = ps->R;
    for (int r = 0; r < 3; ++r)
        out[r] = np_gemm3(v[0], R[3 * r], v[1], R[3 * r + 1], v[2], R[3 * r + 2]) + ps->p[r];
}

/* PosedSupport.core_point: the core's support point in W along d (W). */
static void core_point(const posed *ps, const double d[3], double out[3]) {
    const double *R = ps->R, *p = ps->p;
    if (ps->kind == PK_POINT) {
        gc_copy(p, out);
        return;
    }
    if (ps->kind == PK_POLY) {
        int best = 0;
        double top = -INFINITY, vb[3] = {0.0, 0.0, 0.0};
        for (int i = 0; i < ps->shape->nv; ++i) {
            double v[3];
            poly_vertex_W(ps, i, v);
            double h = np_gemv3(v, d);
            if (h > top || i == 0) {
                top = h;
                best = i;
                gc_copy(v, vb);
            }
        }
        (void)best;
        gc_copy(vb, out);
        return;
    }
    /* g_j = (column j of R) . d */
    double g0 = R[0] * d[0] + R[3] * d[1] + R[6] * d[2];
    double g1 = R[1] * d[0] + R[4] * d[1] + R[7] * d[2];
    double g2 = R[2] * d[0] + R[5] * d[1] + R[8] * d[2];
    double s0, s1, s2;
    if (ps->kind == PK_SEGMENT) {
        s2 = g2 >= 0.0 ? ps->prm[0] : -ps->prm[0];
        out[0] = p[0] + s2 * R[2];
        out[1] = p[1] + s2 * R[5];
        out[2] = p[2] + s2 * R[8];
        return;
    }
    if (ps->kind == PK_BOX) {
        s0 = g0 >= 0.0 ? ps->prm[0] : -ps->prm[0];
        s1 = g1 >= 0.0 ? ps->prm[1] : -ps->prm[1];
        s2 = g2 >= 0.0 ? ps->prm[2] : -ps->prm[2];
    } else if (ps->kind == PK_CYLINDER) {
        double r = ps->prm[0], half = ps->prm[1];
        double rho = hypot(g0, g1);
        if (rho > 0.0) {
            s0 = r * g0 / rho;
            s1 = r * g1 / rho;
        } else {
            s0 = r;
            s1 = 0.0;
        }
        s2 = g2 >= 0.0 ? half : -half;
    } else {
        double a = ps->prm[0], b = ps->prm[1], c = ps->prm[2];
        double q0 = a * a * g0, q1 = b * b * g1, q2 = c * c * g2;
        double norm = sqrt(q0 * g0 + q1 * g1 + q2 * g2);
        if (norm > 0.0) {
            s0 = q0 / norm; s1 = q1 / norm; s2 = q2 / norm;
        } else {
            s0 = 0.0; s1 = 0.0; s2 = c;
        }
    }
    out[0] = p[0] + s0 * R[0] + s1 * R[1] + s2 * R[2];
    out[1] = p[1] + s0 * R[3] + s1 * R[4] + s2 * R[5];
    out[2] = p[2] + s0 * R[6] + s1 * R[7] + s2 * R[8];
}

/* Kink directions (PosedSupport.kink_directions_W), enumerated one at a time. */
static int kink_face_count(const posed *ps) {
    switch (ps->kind) {
    case PK_BOX: return 3;
    case PK_CYLINDER: return 1;
    case PK_POLY: return ps->shape->nt;
    default: return 0;
    }
}
static int kink_line_count(const posed *ps) {
    switch (ps->kind) {
    case PK_BOX: return 3;
    case PK_CYLINDER:
    case PK_SEGMENT: return 1;
    case PK_POLY: return 3 * ps->shape->nt;
    default: return 0;
    }
}
static void tri_vertices_W(const posed *ps, int t, double a[3], double b[3], double c[3]) {
    const int *f = ps->shape->tri + 3 * t;
    poly_vertex_W(ps, f[0], a);
    poly_vertex_W(ps, f[1], b);
    poly_vertex_W(ps, f[2], c);
}
static inline void normalize_by_norm(double v[3]) {
    double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= norm; v[1] /= norm; v[2] /= norm;
}
static void kink_face(const posed *ps, int k, double out[3]) {
    if (ps->kind == PK_POLY) {
        double a[3], b[3], c[3], e1[3], e2[3];
        tri_vertices_W(ps, k, a, b, c);
        gc_sub(b, a, e1);
        gc_sub(c, a, e2);
        gc_cross(e1, e2, out);
        normalize_by_norm(out);
        return;
    }
    int j = ps->kind == PK_BOX ? k : 2; /* column j of R: G's axis j in W */
    out[0] = ps->R[j]; out[1] = ps->R[3 + j]; out[2] = ps->R[6 + j];
}
static void kink_line(const posed *ps, int k, double out[3]) {
    if (ps->kind == PK_POLY) {
        int nt = ps->shape->nt, block = k / nt, t = k % nt;
        double a[3], b[3], c[3];
        tri_vertices_W(ps, t, a, b, c);
        if (block == 0) gc_sub(b, a, out);
        else if (block == 1) gc_sub(c, b, out);
        else gc_sub(a, c, out);
        normalize_by_norm(out);
        return;
    }
    kink_face(ps, k, out);
}

/* PosedSupport.is_smooth at unit u (W). */
static int posed_is_smooth(const posed *ps, const double u[3], double tol) {
    if (ps->kind == PK_POINT) return 1;
    if (ps->kind == PK_POLY) {
        int nv = ps->shape->nv;
        if (nv < 2) return 1;
        double top0 = -INFINITY, top1 = -INFINITY; /* second largest, largest */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < nv; ++i) {
            double v[3];
            poly_vertex_W(ps, i, v);
            double h = np_gemv3(v, u);
            if (h > top1) {
                top0 = top1;
                top1 = h;
            } else if (h > top0) {
                top0 = h;
            }
            for (int k = 0; k < 3; ++k) {
                if (v[k] < lo[k]) lo[k] = v[k];
                if (v[k] > hi[k]) hi[k] = v[k];
            }
        }
        double spread = hi[0] - lo[0];
        if (hi[1] - lo[1] > spread) spread = hi[1] - lo[1];
        if (hi[2] - lo[2] > spread) spread = hi[2] - lo[2];
        return fabs(top1 - top0) > tol * spread;
    }
    if (ps->kind == PK_ELLIPSOID) return 1;
    const double *R = ps->R;
    double g[3];
    g[0] = u[0] * R[0] + u[1] * R[3] + u[2] * R[6];
    g[1] = u[0] * R[1] + u[1] * R[4] + u[2] * R[7];
    g[2] = u[0] * R[2] + u[1] * R[5] + u[2] * R[8];
    if (ps->kind == PK_SEGMENT) return fabs(g[2]) > tol;
    if (ps->kind == PK_BOX) return fabs(g[0]) > tol && fabs(g[1]) > tol && fabs(g[2]) > tol;
    /* cylinder */
    return fabs(g[2]) > tol && hypot(g[0], g[1]) > tol;
}

/* PosedSupport.core_jacobian_W at unit u (W): R J_G(R^T u) R^T. */
static void core_jacobian_W(const posed *ps, const double u[3], double J[9]) {
    for (int k = 0; k < 9; ++k) J[k] = 0.0;
    if (!posed_curved(ps)) return;
    const double *R = ps->R;
    double g[3], JG[9];
    g[0] = u[0] * R[0] + u[1] * R[3] + u[2] * R[6];
    g[1] = u[0] * R[1] + u[1] * R[4] + u[2] * R[7];
    g[2] = u[0] * R[2] + u[1] * R[5] + u[2] * R[8];
    if (ps->kind == PK_ELLIPSOID) {
        double D2[3] = {ps->prm[0] * ps->prm[0], ps->prm[1] * ps->prm[1],
                        ps->prm[2] * ps->prm[2]};
        double q[3] = {D2[0] * g[0], D2[1] * g[1], D2[2] * g[2]};
        double norm = sqrt(g[0] * q[0] + g[1] * q[1] + g[2] * q[2]);
        double norm3 = norm * norm * norm;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                JG[3 * i + j] = (i == j ? D2[i] : 0.0) / norm - (q[i] * q[j]) / norm3;
    } else {
        double rho = hypot(g[0], g[1]);
        double w[3] = {g[0] / rho, g[1] / rho, 0.0};
        double f = ps->prm[0] / rho;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                JG[3 * i + j] = f * ((i == j && i < 2 ? 1.0 : 0.0) - w[i] * w[j]);
    }
    double T[9]; /* R @ JG */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = R[3 * i] * JG[j] + R[3 * i + 1] * JG[3 + j] + R[3 * i + 2] * JG[6 + j];
    for (int i = 0; i < 3; ++i) /* (R JG) @ R^T */
        for (int j = 0; j < 3; ++j)
            J[3 * i + j] = T[3 * i] * R[3 * j] + T[3 * i + 1] * R[3 * j + 1]
                           + T[3 * i + 2] * R[3 * j + 2];
}

/* ================================================================ half space */


int gc_halfspace_pair(const double X_WH[16], const gc_shape *B, const double X_WB[16],
                      gc_pair_result *out) {
    if (B->kind == GC_HALFSPACE) return GC_ERROR_HALFSPACES;
    if (B->kind == GC_MESH) return GC_NOT_HANDLED;
    double Hz[3] = {X_WH[2], X_WH[6], X_WH[10]};
    double hn = sqrt(np_dot3(Hz, Hz));
    Hz[0] /= hn; Hz[1] /= hn; Hz[2] /= hn;
    posed ps;
    posed_init(&ps, B, X_WB);
    double d[3] = {-Hz[0], -Hz[1], -Hz[2]}, p[3];
    core_point(&ps, d, p);
    if (ps.radius > 0.0) {
        double dn = sqrt(np_dot3(d, d));
        for (int k = 0; k < 3; ++k) p[k] = p[k] + ps.radius * d[k] / dn;
    }
    double rel[3] = {p[0] - X_WH[3], p[1] - X_WH[7], p[2] - X_WH[11]};
    double distance = np_dot3(Hz, rel);
    out->distance = distance;
    for (int k = 0; k < 3; ++k) {
        out->p_WCb[k] = p[k];
        out->p_WCa[k] = p[k] - distance * Hz[k];
        out->nhat_BA_W[k] = -Hz[k];
    }
    out->unique = 1;
    return GC_OK;
}

/* ================================================================ GJK on cores */

typedef struct {
    double p[3];
    int n;
    int idx[4];
    double lam[4];
} closest_t;

static void closest_segment(const double a[3], const double b[3], closest_t *c) {
    double ab[3];
    gc_sub(b, a, ab);
    double denom = gc_dot(ab, ab);
    double t = denom > 0.0 ? -gc_dot(a, ab) / denom : 0.0;
    if (t <= 0.0) {
        gc_copy(a, c->p);
        c->n = 1; c->idx[0] = 0; c->lam[0] = 1.0;
        return;
    }
    if (t >= 1.0) {
        gc_copy(b, c->p);
        c->n = 1; c->idx[0] = 1; c->lam[0] = 1.0;
        return;
    }
    c->p[0] = a[0] + t * ab[0];
    c->p[1] = a[1] + t * ab[1];
    c->p[2] = a[2] + t * ab[2];
    c->n = 2; c->idx[0] = 0; c->idx[1] = 1; c->lam[0] = 1.0 - t; c->lam[1] = t;
}

static void closest_triangle(const double a[3], const double b[3], const double c[3],
                             closest_t *out) {
    double e1[3], e2[3], n[3];
    gc_sub(b, a, e1);
    gc_sub(c, a, e2);
    gc_cross(e1, e2, n);
    double nn = gc_dot(n, n);
    if (nn > 0.0) {
        double s = gc_dot(a, n) / nn;
        double p0[3] = {n[0] * s, n[1] * s, n[2] * s};
        double u[3], v[3], x[3];
        gc_sub(b, p0, u); gc_sub(c, p0, v); gc_cross(u, v, x);
        double la = gc_dot(x, n) / nn;
        gc_sub(c, p0, u); gc_sub(a, p0, v); gc_cross(u, v, x);
        double lb = gc_dot(x, n) / nn;
        double lc = 1.0 - la - lb;
        if (la > 0.0 && lb > 0.0 && lc > 0.0) {
            gc_copy(p0, out->p);
            out->n = 3;
            out->idx[0] = 0; out->idx[1] = 1; out->idx[2] = 2;
            out->lam[0] = la; out->lam[1] = lb; out->lam[2] = lc;
            return;
        }
    }
    const double *pts[3] = {a, b, c};
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    double best = INFINITY;
    int have = 0;
    for (int k = 0; k < 3; ++k) {
        closest_t s;
        int i = pairs[k][0], j = pairs[k][1];
        closest_segment(pts[i], pts[j], &s);
        double dist2 = gc_dot(s.p, s.p);
        if (!have || dist2 < best) {
            have = 1;
            best = dist2;
            gc_copy(s.p, out->p);
            out->n = s.n;
            for (int m = 0; m < s.n; ++m) {
                out->idx[m] = s.idx[m] == 0 ? i : j;
                out->lam[m] = s.lam[m];
            }
        }
    }
}

static void closest_tetrahedron(const double pts[4][3], closest_t *out) {
    const double *a = pts[0], *b = pts[1], *c = pts[2], *d = pts[3];
    double ab[3], ac[3], ad[3], ao[3] = {-a[0], -a[1], -a[2]}, x[3];
    gc_sub(b, a, ab); gc_sub(c, a, ac); gc_sub(d, a, ad);
    gc_cross(ac, ad, x);
    double volume = gc_dot(ab, x);
    int candidates[4], nc = 0;
    if (volume != 0.0) {
        double x0 = gc_dot(ao, x) / volume;
        gc_cross(ao, ad, x);
        double x1 = gc_dot(ab, x) / volume;
        gc_cross(ac, ao, x);
        double x2 = gc_dot(ab, x) / volume;
        double lam[4] = {1.0 - x0 - x1 - x2, x0, x1, x2};
        double mn = fmin(fmin(lam[0], lam[1]), fmin(lam[2], lam[3]));
        if (mn > 0.0) {
            out->p[0] = out->p[1] = out->p[2] = 0.0;
            out->n = 4;
            for (int k = 0; k < 4; ++k) {
                out->idx[k] = k;
                out->lam[k] = lam[k];
            }
            return;
        }
        for (int k = 0; k < 4; ++k)
            if (lam[k] <= 0.0) candidates[nc++] = k;
    } else {
        for (int k = 0; k < 4; ++k) candidates[nc++] = k;
    }
    double best = INFINITY;
    int have = 0;
    for (int m = 0; m < nc; ++m) {
        int k = candidates[m], face[3], nf = 0;
        for (int i = 0; i < 4; ++i)
            if (i != k) face[nf++] = i;
        closest_t t;
        closest_triangle(pts[face[0]], pts[face[1]], pts[face[2]], &t);
        double dist2 = gc_dot(t.p, t.p);
        if (!have || dist2 < best) {
            have = 1;
            best = dist2;
            gc_copy(t.p, out->p);
            out->n = t.n;
            for (int q = 0; q < t.n; ++q) {
                out->idx[q] = face[t.idx[q]];
                out->lam[q] = t.lam[q];
            }
        }
    }
}

static void closest_on_simplex(const double W[4][3], int n, closest_t *c) {
    if (n == 1) {
        gc_copy(W[0], c->p);
        c->n = 1; c->idx[0] = 0; c->lam[0] = 1.0;
    } else if (n == 2) {
        closest_segment(W[0], W[1], c);
    } else if (n == 3) {
        closest_triangle(W[0], W[1], W[2], c);
    } else {
        closest_tetrahedron(W, c);
    }
}

typedef struct {
    int overlap;
    int nW;        /* with overlap: GJK's simplex W (WA, WB its supports) */
    double W[4][3], WA[4][3], WB[4][3];
    int early;     /* stopped at the loose tolerance: gjk_resume can finish the run */
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

static void gjk_init(const posed *A, const posed *B, gjk_state *st) {
    gc_sub(A->p, B->p, st->v);
    if (gc_dot(st->v, st->v) == 0.0) {
        st->v[0] = 1.0; st->v[1] = 0.0; st->v[2] = 0.0;
    }
    st->lam[0] = 1.0; st->lam[1] = st->lam[2] = st->lam[3] = 0.0;
    st->nW = 0;
    st->iteration = 1;
    st->gap = INFINITY;
}

/* early_tol > 0: also stop (res->early) once gap <= early_tol with the cores
 * clearly apart (gap <= 0.1 |v|), before the full tolerance. */
static void gjk_run(const posed *A, const posed *B, double scale, gjk_state *st,
                    double early_tol, gjk_result *res) {
    double *v = st->v, (*W)[3] = st->W, (*WA)[3] = st->WA, (*WB)[3] = st->WB, *lam = st->lam;
    int nW = st->nW;
    double sc = scale > 1.0 ? scale : 1.0;
    double gap_tol = GC_CONVEX_GJK_GAP * sc;
    double touch = GC_CONVEX_CORE_TOUCH * sc;
    double gap = st->gap;
    res->early = 0;
    for (; st->iteration <= GC_CONVEX_GJK_MAX_ITERATIONS; ++st->iteration) {
        double nv[3] = {-v[0], -v[1], -v[2]}, a[3], b[3], w[3];
        core_point(A, nv, a);
        core_point(B, v, b);
        gc_sub(a, b, w);
        double vv = gc_dot(v, v);
        double vnorm = sqrt(vv);
        if (nW) {
            gap = vnorm - gc_dot(v, w) / vnorm;
            int seen = 0;
            for (int k = 0; k < nW; ++k)
                if (W[k][0] == w[0] && W[k][1] == w[1] && W[k][2] == w[2]) seen = 1;
            if (gap <= gap_tol || seen) break;
            if (gap <= early_tol && gap <= 0.1 * vnorm) {
                res->early = 1;
                break;
            }
        }
        gc_copy(w, W[nW]);
        gc_copy(a, WA[nW]);
        gc_copy(b, WB[nW]);
        ++nW;
        closest_t c;
        closest_on_simplex((const double (*)[3])W, nW, &c);
        double pp = gc_dot(c.p, c.p);
        if (c.n == 4 || pp <= touch * touch) {
            res->overlap = 1;
            res->nW = nW;
            memcpy(res->W, W, sizeof(res->W));
            memcpy(res->WA, WA, sizeof(res->WA));
            memcpy(res->WB, WB, sizeof(res->WB));
            gc_copy(c.p, res->v);
            res->gap = 0.0;
            st->nW = nW;
            return;
        }
        if (nW > 1 && pp >= vv) {
            --nW; /* no progress: keep the previous simplex and v */
            break;
        }
        double W2[4][3], WA2[4][3], WB2[4][3];
        for (int k = 0; k < c.n; ++k) {
            gc_copy(W[c.idx[k]], W2[k]);
            gc_copy(WA[c.idx[k]], WA2[k]);
            gc_copy(WB[c.idx[k]], WB2[k]);
        }
        nW = c.n;
        for (int k = 0; k < nW; ++k) {
            gc_copy(W2[k], W[k]);
            gc_copy(WA2[k], WA[k]);
            gc_copy(WB2[k], WB[k]);
            lam[k] = c.lam[k];
        }
        gc_copy(c.p, v);
    }
    st->nW = nW;
    st->gap = gap;
    double pA[3] = {0.0, 0.0, 0.0}, pB[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < nW; ++k)
        for (int i = 0; i < 3; ++i) {
            pA[i] += lam[k] * WA[k][i];
            pB[i] += lam[k] * WB[k][i];
        }
    res->overlap = 0;
    gc_copy(pA, res->p_A);
    gc_copy(pB, res->p_B);
    gc_sub(pA, pB, res->v);
    res->gap = gap;
}

/* ================================================================ EPA on cores */

#define NDIR 26
#define EPA_MAX_V (NDIR + GC_CONVEX_EPA_MAX_ITERATIONS + 1)
#define EPA_MAX_F (4 * EPA_MAX_V)
#define EPA_MAX_EDGES (3 * EPA_MAX_F)

/* PosedSupport.core_points_W (the vectorised twin of core_point, with
 * numpy's matmul rounding): d_W @ R_WG, the core's support in G, then
 * p_G @ R_WG.T + p_WGo; a polytope takes argmax(d_W @ vertices_W.T). */
static void core_points_W(const posed *ps, const double d[3], double out[3]) {
    const double *R = ps->R;
    if (ps->kind == PK_POINT) {
        gc_copy(ps->p, out);
        return;
    }
    if (ps->kind == PK_POLY) {
        double top = -INFINITY, v[3];
        for (int i = 0; i < ps->shape->nv; ++i) {
            poly_vertex_W(ps, i, v);
            double h = np_gemm3(d[0], v[0], d[1], v[1], d[2], v[2]);
            if (h > top || i == 0) {
                top = h;
                gc_copy(v, out);
            }
        }
        return;
    }
    double g[3], s[3];
    for (int j = 0; j < 3; ++j) g[j] = np_gemm3(d[0], R[j], d[1], R[3 + j], d[2], R[6 + j]);
    if (ps->kind == PK_SEGMENT) {
        s[0] = 0.0;
        s[1] = 0.0;
        s[2] = sgn_pos(g[2]) * ps->prm[0];
    } else {
        gc_support_point_G(ps->shape, g, s);
    }
    for (int i = 0; i < 3; ++i)
        out[i] = np_gemm3(s[0], R[3 * i], s[1], R[3 * i + 1], s[2], R[3 * i + 2]) + ps->p[i];
}

/* The 26 directions of _initial_directions and the cores' support points. */
static void initial_points(const posed *A, const posed *B, double pa[NDIR][3],
                           double pb[NDIR][3], double pm[NDIR][3]) {
    double dirs[NDIR][3];
    double s3 = 1.0 / sqrt(3.0);
    int k = 0;
    for (int sx = 0; sx < 2; ++sx)
        for (int sy = 0; sy < 2; ++sy)
            for (int sz = 0; sz < 2; ++sz) {
                dirs[k][0] = (sx ? -1.0 : 1.0) * s3;
                dirs[k][1] = (sy ? -1.0 : 1.0) * s3;
                dirs[k][2] = (sz ? -1.0 : 1.0) * s3;
                ++k;
            }
    for (int m = 0; m < 3; ++m) {
        const double *R = m == 0 ? NULL : (m == 1 ? A->R : B->R);
        for (int sign = 0; sign < 2; ++sign)
            for (int row = 0; row < 3; ++row) {
                for (int col = 0; col < 3; ++col) {
                    /* rows of R^T are the columns of R */
                    double x = R == NULL ? (row == col ? 1.0 : 0.0) : R[3 * col + row];
                    dirs[k][col] = sign ? -x : x;
                }
                ++k;
            }
    }
    for (k = 0; k < NDIR; ++k) {
        double nd[3] = {-dirs[k][0], -dirs[k][1], -dirs[k][2]};
        core_points_W(A, dirs[k], pa[k]);
        core_points_W(B, nd, pb[k]);
        gc_sub(pa[k], pb[k], pm[k]);
    }
}

/* The polytope of EPA: triangles over the points P with outward unit normals
 * fn, plane offsets fd and neighbours adj[s][k] = 4 g + m: the face g across
 * the edge fv[s][k] -> fv[s][k+1], which is g's edge m. The start polytope is the convex hull of the 26
 * points (Qhull's job in the Python), built incrementally with the same
 * machinery as EPA's expansion: a point's visible faces are found by flood
 * fill over adj from one visible face, and the minimum face is kept in a
 * binary heap keyed by (fd, slot) with lazy deletion (dead faces have fd =
 * INFINITY and are dropped when they reach the top). The Python scans every
 * face for both; the answers differ only in triangulations of coplanar
 * points and ties of equal distance. */
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

static inline int heap_less(const epa_t *e, int a, int b) {
    return e->hk[a] < e->hk[b] || (e->hk[a] == e->hk[b] && a < b);
}

static void heap_push(epa_t *e, int s) {
    e->hk[s] = e->fd[s];
    int i = e->nheap++;
    while (i > 0) {
        int p = (i - 1) >> 1;
        if (!heap_less(e, s, e->heap[p])) break;
        e->heap[i] = e->heap[p];
        i = p;
    }
    e->heap[i] = s;
}

static void heap_pop(epa_t *e) {
    int s = e->heap[--e->nheap], n = e->nheap, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && heap_less(e, e->heap[c + 1], e->heap[c])) ++c;
        if (!heap_less(e, e->heap[c], s)) break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    if (n > 0) e->heap[i] = s;
}

static void heap_rebuild(epa_t *e) {
    e->nheap = 0;
    for (int s = 0; s < e->count; ++s)
        if (e->alive[s]) heap_push(e, s);
}

/* The alive face of least distance (lowest slot among ties), -1 if none. */
static int heap_top(epa_t *e) {
    while (e->nheap > 0 && !e->alive[e->heap[0]]) heap_pop(e);
    return e->nheap > 0 ? e->heap[0] : -1;
}

/* Drop dead slots, keeping the alive faces in order; neighbours and the heap
 * follow. */
static void epa_compact(epa_t *e) {
    static const int unset = -1;
    int remap[EPA_MAX_F], kept = 0;
    for (int s = 0; s < e->count; ++s) remap[s] = e->alive[s] ? kept++ : unset;
    for (int s = 0; s < e->count; ++s) {
        if (!e->alive[s]) continue;
        int t = remap[s];
        memcpy(e->fv[t], e->fv[s], 3 * sizeof(int));
        for (int k = 0; k < 3; ++k) e->adj[t][k] = 4 * remap[e->adj[s][k] >> 2] + (e->adj[s][k] & 3);
        e->fstamp[t] = 0;
        gc_copy(e->fn[s], e->fn[t]);
        e->fd[t] = e->fd[s];
        e->alive[t] = 1;
    }
    e->count = kept;
    e->hint = -1;
    heap_rebuild(e);
}

static inline double face_height(const epa_t *e, int s, const double w[3]) {
    const double *n = e->fn[s], *p = e->P[e->fv[s][0]];
    return n[0] * (w[0] - p[0]) + n[1] * (w[1] - p[1]) + n[2] * (w[2] - p[2]);
}

/* _Epa._add: returns 1 if w joined the polytope. start: a face to begin the
 * flood fill from (-1: the most visible face). floor: whether the new faces
 * may not come closer to the origin than the ones they replace (EPA; the
 * hull's construction has no such rule). */
static int epa_add(epa_t *e, const double w[3], const double a[3], const double b[3],
                   int start, double eps, int floor_check) {
    if (e->count > EPA_MAX_F - EPA_MAX_V) epa_compact(e), start = -1;
    if (e->nP >= EPA_MAX_V) {
        e->overflow = 1;
        return 0;
    }
    int st = ++e->stamp;
    if (start < 0 && e->hint >= 0 && e->alive[e->hint]) {
        /* the hull: climb over neighbours towards w from the last insertion */
        int s = e->hint;
        double h = face_height(e, s, w);
        while (!(h > eps)) {
            int next = -1;
            double top_h = h;
            for (int k = 0; k < 3; ++k) {
                int g = e->adj[s][k] >> 2;
                double hg = face_height(e, g, w);
                if (hg > top_h) { top_h = hg; next = g; }
            }
            if (next < 0) break;
            s = next;
            h = top_h;
        }
        if (h > eps) start = s;
    }
    if (start < 0 || !e->alive[start] || !(face_height(e, start, w) > eps)) {
        double top_h = eps;
        start = -1;
        for (int s = 0; s < e->count; ++s) {
            if (!e->alive[s]) continue;
            double h = face_height(e, s, w);
            if (h > top_h) { top_h = h; start = s; }
        }
        if (start < 0) return 0;
    }
    /* Flood fill: visible faces, and the horizon edges (i, j) with the face
     * beyond each. */
    int visible[EPA_MAX_F], nvis = 0, stack[EPA_MAX_F], ns = 0;
    int edges[EPA_MAX_EDGES][3], ne = 0;
    e->fstamp[start] = st;
    e->fvis[start] = 1;
    stack[ns++] = start;
    while (ns) {
        int f = stack[--ns];
        visible[nvis++] = f;
        for (int k = 0; k < 3; ++k) {
            int gm = e->adj[f][k], g = gm >> 2;
            if (e->fstamp[g] != st) {
                e->fstamp[g] = st;
                e->fvis[g] = face_height(e, g, w) > eps;
                if (e->fvis[g]) {
                    stack[ns++] = g;
                    continue;
                }
            } else if (e->fvis[g]) {
                continue;
            }
            edges[ne][0] = e->fv[f][k];
            edges[ne][1] = e->fv[f][(k + 1) % 3];
            edges[ne][2] = gm;
            ++ne;
        }
    }
    /* The horizon must be one simple loop: each vertex starts one edge and
     * ends one. */
    for (int q = 0; q < ne; ++q) {
        int i = edges[q][0];
        if (e->vstamp[i] == st) return 0;
        e->vstamp[i] = st;
        e->start_at[i] = q;
    }
    for (int q = 0; q < ne; ++q) {
        int j = edges[q][1];
        if (e->vstamp[j] != st) return 0;
        e->end_at[j] = q;
    }
    /* Euler: the visible patch must be a disk (V - E + F = 1 with E =
     * (3 nvis + ne) / 2), so that the polytope stays a closed surface of
     * genus 0 (the Python's check F = 2 V - 4 over the used points, here
     * on the patch alone). */
    int vp = 0;
    double floor_ = INFINITY;
    for (int m = 0; m < nvis; ++m) {
        const int *f = e->fv[visible[m]];
        for (int k = 0; k < 3; ++k)
            if (e->pstamp[f[k]] != st) {
                e->pstamp[f[k]] = st;
                ++vp;
            }
        if (e->fd[visible[m]] < floor_) floor_ = e->fd[visible[m]];
    }
    if (2 * vp - ne - 2 != nvis) return 0;
    floor_ -= eps;
    int index = e->nP;
    if (e->count + ne > EPA_MAX_F) {
        e->overflow = 1;
        return 0;
    }
    /* New faces (a fan over the horizon); computed first, stored if all pass. */
    int base = e->count;
    double min_fd = INFINITY;
    for (int q = 0; q < ne; ++q) {
        const double *p = e->P[edges[q][0]], *qq = e->P[edges[q][1]];
        double u[3], v[3], n[3];
        gc_sub(qq, p, u);
        gc_sub(w, p, v);
        gc_cross(u, v, n);
        double norm = sqrt(gc_dot(n, n));
        if (norm == 0.0) return 0;
        n[0] /= norm; n[1] /= norm; n[2] /= norm;
        double d = gc_dot(n, p);
        if (d < min_fd) min_fd = d;
        int s = base + q;
        e->fv[s][0] = edges[q][0];
        e->fv[s][1] = edges[q][1];
        e->fv[s][2] = index;
        gc_copy(n, e->fn[s]);
        e->fd[s] = d;
    }
    if (ne == 0 || (floor_check && !(min_fd >= floor_))) return 0;
    for (int m = 0; m < nvis; ++m) e->alive[visible[m]] = 0;
    for (int q = 0; q < ne; ++q) e->alive[base + q] = 1;
    e->count = base + ne;
    for (int q = 0; q < ne; ++q) {
        int s = base + q, i = edges[q][0], j = edges[q][1], gm = edges[q][2];
        e->adj[s][0] = gm;
        e->adj[s][1] = 4 * (base + e->start_at[j]) + 2;
        e->adj[s][2] = 4 * (base + e->end_at[i]) + 1;
        e->adj[gm >> 2][gm & 3] = 4 * s;
        e->fstamp[s] = 0;
        if (floor_check) heap_push(e, s);
    }
    e->hint = base;
    e->vstamp[index] = 0;
    e->pstamp[index] = 0;
    gc_copy(w, e->P[index]);
    gc_copy(a, e->PA[index]);
    gc_copy(b, e->PB[index]);
    ++e->nP;
    return 1;
}

static void epa_witness(const epa_t *e, const int f[3], const double u[3], double depth,
                        double gap, epa_answer *ans) {
    const double *a = e->P[f[0]], *b = e->P[f[1]], *c = e->P[f[2]];
    double p[3] = {depth * u[0], depth * u[1], depth * u[2]};
    double x[3], y[3], z[3];
    gc_sub(b, a, x); gc_sub(c, a, y); gc_cross(x, y, z);
    double area = gc_dot(z, u);
    gc_sub(b, p, x); gc_sub(c, p, y); gc_cross(x, y, z);
    double la = gc_dot(z, u) / area;
    gc_sub(c, p, x); gc_sub(a, p, y); gc_cross(x, y, z);
    double lb = gc_dot(z, u) / area;
    double lam[3] = {la, lb, 1.0 - la - lb};
    double pA[3] = {0.0, 0.0, 0.0}, pB[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) {
            pA[i] += lam[k] * e->PA[f[k]][i];
            pB[i] += lam[k] * e->PB[f[k]][i];
        }
    double sc = e->scale > 1.0 ? e->scale : 1.0;
    double tie = GC_CONVEX_NORMAL_TIE * sc;
    int unique = 1;
    for (int s = 0; s < e->count; ++s) {
        const double *n = e->fn[s];
        double cosine = n[0] * u[0] + n[1] * u[1] + n[2] * u[2];
        if (e->alive[s] && e->fd[s] - depth <= tie && cosine < 1.0 - GC_CONVEX_EPA_DISTINCT_NORMAL) unique = 0;
    }
    ans->n[0] = -u[0]; ans->n[1] = -u[1]; ans->n[2] = -u[2];
    ans->depth = depth;
    gc_copy(pA, ans->p_A);
    gc_copy(pB, ans->p_B);
    ans->gap = gap;
    ans->unique = unique;
}

static void epa_expand(epa_t *e, epa_answer *ans) {
    double sc = e->scale > 1.0 ? e->scale : 1.0;
    double eps = GC_CONVEX_EPA_VISIBLE * sc;
    for (;;) {
        e->iterations += 1;
        int slot = heap_top(e);
        int f[3];
        double u[3], dist = e->fd[slot];
        memcpy(f, e->fv[slot], sizeof(f));
        gc_copy(e->fn[slot], u);
        double nu[3] = {-u[0], -u[1], -u[2]}, a[3], b[3], w[3];
        core_point(e->A, u, a);
        core_point(e->B, nu, b);
        gc_sub(a, b, w);
        double gap = gc_dot(u, w) - dist;
        int stop = gap <= e->gap_tol || e->iterations >= GC_CONVEX_EPA_MAX_ITERATIONS;
        if (stop || !epa_add(e, w, a, b, slot, eps, 1)) {
            epa_witness(e, f, u, dist, gap, ans);
            return;
        }
    }
}

/* A face over P[i], P[j], P[k] with its normal; its neighbours are set by the caller. */
static int epa_face(epa_t *e, int i, int j, int k) {
    int s = e->count++;
    double u[3], v[3], n[3];
    gc_sub(e->P[j], e->P[i], u);
    gc_sub(e->P[k], e->P[i], v);
    gc_cross(u, v, n);
    double norm = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (norm == 0.0) return -1;
    n[0] /= norm; n[1] /= norm; n[2] /= norm;
    e->fv[s][0] = i; e->fv[s][1] = j; e->fv[s][2] = k;
    gc_copy(n, e->fn[s]);
    e->fd[s] = gc_dot(n, e->P[i]);
    e->alive[s] = 1;
    e->fstamp[s] = 0;
    return s;
}

/* The polytope of four points (oriented, with neighbours); 0 if flat. */
static int epa_tetrahedron(epa_t *e, const double T[4][3], const double TA[4][3],
                           const double TB[4][3]) {
    for (int k = 0; k < 4; ++k) {
        gc_copy(T[k], e->P[k]);
        gc_copy(TA[k], e->PA[k]);
        gc_copy(TB[k], e->PB[k]);
    }
    e->nP = 4;
    for (int k = 0; k < 4; ++k) e->vstamp[k] = e->pstamp[k] = 0;
    e->hint = 0;
    /* Orient the tetrahedron: 0,1,2 with the normal away from 3. */
    int v1 = 1, v2 = 2;
    {
        double u[3], v[3], n[3];
        gc_sub(e->P[1], e->P[0], u);
        gc_sub(e->P[2], e->P[0], v);
        gc_cross(u, v, n);
        gc_sub(e->P[3], e->P[0], u);
        if (gc_dot(n, u) > 0.0) { v1 = 2; v2 = 1; }
    }
    /* faces: (0,v1,v2), (v1,0,3), (v2,v1,3), (0,v2,3): outward, consistent */
    int F[4][3] = {{0, v1, v2}, {v1, 0, 3}, {v2, v1, 3}, {0, v2, 3}};
    for (int f = 0; f < 4; ++f)
        if (epa_face(e, F[f][0], F[f][1], F[f][2]) < 0) return 0;
    /* neighbours by shared directed edges */
    for (int f = 0; f < 4; ++f)
        for (int k = 0; k < 3; ++k) {
            int i = e->fv[f][k], j = e->fv[f][(k + 1) % 3];
            for (int g = 0; g < 4; ++g)
                for (int m = 0; m < 3; ++m)
                    if (e->fv[g][m] == j && e->fv[g][(m + 1) % 3] == i) e->adj[f][k] = 4 * g + m;
        }
    return 1;
}

/* The start polytope: the convex hull of the 26 points, from the
 * tetrahedron of two far points, the farthest from their line and the
 * farthest from their plane. Returns 0 if the points are flat. */
static int epa_start(epa_t *e, const double pa[NDIR][3], const double pb[NDIR][3],
                     const double pm[NDIR][3]) {
    double maxabs = 0.0;
    for (int i = 0; i < NDIR; ++i)
        for (int k = 0; k < 3; ++k)
            if (fabs(pm[i][k]) > maxabs) maxabs = fabs(pm[i][k]);
    double eps = GC_CONVEX_EPA_START_SPREAD * (maxabs > 0.0 ? maxabs : 1.0);
    int i0 = 0, i1 = -1, i2 = -1, i3 = -1;
    double best = 0.0, d[3], x[3];
    for (int i = 0; i < NDIR; ++i) {
        gc_sub(pm[i], pm[i0], d);
        double q = gc_norm(d);
        if (q > best) { best = q; i1 = i; }
    }
    if (i1 < 0 || best <= eps) return 0;
    double e1[3];
    gc_sub(pm[i1], pm[i0], e1);
    double l1 = gc_norm(e1);
    best = 0.0;
    for (int i = 0; i < NDIR; ++i) {
        gc_sub(pm[i], pm[i0], d);
        gc_cross(e1, d, x);
        double q = gc_norm(x) / l1;
        if (q > best) { best = q; i2 = i; }
    }
    if (i2 < 0 || best <= eps) return 0;
    double e2[3], nrm[3];
    gc_sub(pm[i2], pm[i0], e2);
    gc_cross(e1, e2, nrm);
    double ln = gc_norm(nrm);
    gc_scale(1.0 / ln, nrm, nrm);
    best = 0.0;
    for (int i = 0; i < NDIR; ++i) {
        gc_sub(pm[i], pm[i0], d);
        double q = fabs(gc_dot(nrm, d));
        if (q > best) { best = q; i3 = i; }
    }
    if (i3 < 0 || best <= eps) return 0;
    int tet[4] = {i0, i1, i2, i3};
    double T[4][3], TA[4][3], TB[4][3];
    for (int k = 0; k < 4; ++k) {
        gc_copy(pm[tet[k]], T[k]);
        gc_copy(pa[tet[k]], TA[k]);
        gc_copy(pb[tet[k]], TB[k]);
    }
    if (!epa_tetrahedron(e, T, TA, TB)) return 0;
    for (int p = 0; p < NDIR; ++p) {
        if (p == i0 || p == i1 || p == i2 || p == i3) continue;
        epa_add(e, pm[p], pa[p], pb[p], -1, eps, 0);
        if (e->overflow) return 0;
    }
    /* Volume about the centroid of the used points. */
    double c[3] = {0.0, 0.0, 0.0};
    int nu = 0;
    unsigned char used[EPA_MAX_V] = {0};
    for (int f = 0; f < e->count; ++f)
        if (e->alive[f])
            for (int k = 0; k < 3; ++k) used[e->fv[f][k]] = 1;
    for (int i = 0; i < e->nP; ++i)
        if (used[i]) {
            gc_add(c, e->P[i], c);
            ++nu;
        }
    gc_scale(1.0 / nu, c, c);
    double vol = 0.0;
    for (int f = 0; f < e->count; ++f) {
        if (!e->alive[f]) continue;
        double a[3], b[3], cc[3];
        gc_sub(e->P[e->fv[f][0]], c, a);
        gc_sub(e->P[e->fv[f][1]], c, b);
        gc_sub(e->P[e->fv[f][2]], c, cc);
        gc_cross(b, cc, x);
        vol += gc_dot(a, x);
    }
    vol /= 6.0;
    double s = e->scale > 1e-300 ? e->scale : 1e-300;
    if (vol <= GC_CONVEX_EPA_MIN_VOLUME * s * s * s) return 0;
    return 1;
}

/* _Epa.run: 1 with an answer, 0 when M is flat (the caller's flat case). */
static int epa_run(epa_t *e, const double pa[NDIR][3], const double pb[NDIR][3],
                   const double pm[NDIR][3], double gap_tol, epa_answer *ans) {
    e->gap_tol = gap_tol;
    e->stamp = 0;
    e->count = 0;
    e->overflow = 0;
    e->nheap = 0;
    e->iterations = 0;
    if (!epa_start(e, pa, pb, pm)) {
        e->overflow = 0;
        return 0;
    }
    heap_rebuild(e);
    epa_expand(e, ans);
    return 1;
}

/* EPA from GJK's terminating tetrahedron (which holds the origin): 1 with
 * an answer converged to gap_tol, 0 (the caller then runs from the 26-point
 * hull) when the tetrahedron is flat, does not hold the origin, or EPA stops
 * short of gap_tol (a rejected expansion, the iteration limit, an overflow). */
static int epa_run_simplex(epa_t *e, const double W[4][3], const double WA[4][3],
                           const double WB[4][3], double gap_tol, epa_answer *ans) {
    e->gap_tol = gap_tol;
    e->stamp = 0;
    e->count = 0;
    e->overflow = 0;
    e->nheap = 0;
    e->iterations = 0;
    if (!epa_tetrahedron(e, W, WA, WB)) return 0;
    double x[3], y[3], z[3];
    gc_sub(W[1], W[0], x);
    gc_sub(W[2], W[0], y);
    gc_sub(W[3], W[0], z);
    double cr[3];
    gc_cross(y, z, cr);
    double vol = fabs(gc_dot(x, cr)) / 6.0;
    double s = e->scale > 1e-300 ? e->scale : 1e-300;
    if (!(vol > GC_CONVEX_EPA_MIN_VOLUME * s * s * s)) return 0;
    for (int f = 0; f < 4; ++f)
        if (!(e->fd[f] >= 0.0)) return 0;
    heap_rebuild(e);
    epa_expand(e, ans);
    if (e->overflow || !(ans->gap <= gap_tol)) return 0;
    return 1;
}

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

static void flat_overlap(const posed *A, const posed *B, const double pm[NDIR][3],
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
    core_point(A, nn, p_A);
    core_point(B, n, p_B);
}

/* ================================================================ Newton refinement */

static double g_and_m(const posed *A, const posed *B, const double n[3], double m[3]) {
    double nn[3] = {-n[0], -n[1], -n[2]}, a[3], b[3];
    core_point(A, nn, a);
    core_point(B, n, b);
    double rs = A->radius + B->radius;
    for (int k = 0; k < 3; ++k) m[k] = (a[k] - b[k]) - rs * n[k];
    return gc_dot(n, m);
}

static int any_face_near(const posed *ps, const double u[3], double near) {
    int nf = kink_face_count(ps);
    for (int k = 0; k < nf; ++k) {
        double f[3];
        kink_face(ps, k, f);
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
    if (posed_is_smooth(A, nn, GC_CONVEX_NEWTON_START)
        && posed_is_smooth(B, n, GC_CONVEX_NEWTON_START)) {
        has_e[count++] = 0;
    }
    int have_constraint = 0;
    double constraint[3] = {0.0, 0.0, 0.0};
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        const double *u = side == 0 ? nn : n;
        if (posed_is_smooth(ps, u, near)) continue;
        if (any_face_near(ps, u, near)) return count;
        int nl = kink_line_count(ps), hits = 0;
        double e[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < nl; ++k) {
            double l[3];
            kink_line(ps, k, l);
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

typedef struct {
    double n[3], g;
    int smooth_A, smooth_B;
} newton_answer;

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
    double g = g_and_m(A, B, n, m);
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
        core_jacobian_W(A, u, JA);
        core_jacobian_W(B, n, JB);
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
        g = g_and_m(A, B, n, m);
    }
    if (!converged) return 0;
    if (g < g0 - grad_tol) return 0;
    double nn[3] = {-n[0], -n[1], -n[2]};
    out->smooth_A = posed_is_smooth(A, nn, GC_CONVEX_NEWTON_START);
    out->smooth_B = posed_is_smooth(B, n, GC_CONVEX_NEWTON_START);
    gc_copy(n, out->n);
    out->g = g;
    return 1;
}

static int newton(const posed *A, const posed *B, const double n[3], double scale,
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
static double duality_gap(const posed *A, const posed *B, const double n[3], double *gap) {
    double nn[3] = {-n[0], -n[1], -n[2]}, a[3], b[3], d[3], q[3], c[3];
    core_point(A, nn, a);
    core_point(B, n, b);
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

/* ================================================================ snapping onto kinks */

static int snap_to_kinks(const posed *A, const posed *B, const double n[3], double distance,
                         double p_WCa[3], double p_WCb[3], double slack, double n_out[3],
                         double *g_out) {
    double m[3];
    double g0 = g_and_m(A, B, n, m);
    int have = 0;
    double best_g = 0.0, best_n[3] = {0.0, 0.0, 0.0};
    double near = GC_CONVEX_KINK_SNAP;
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        double sign = side == 0 ? -1.0 : 1.0;
        double u[3] = {sign * n[0], sign * n[1], sign * n[2]};
        /* candidates in the Python's order: faces, then lines */
        int nf = kink_face_count(ps), nl = kink_line_count(ps);
        for (int k = 0; k < nf + nl; ++k) {
            double cand[3];
            if (k < nf) {
                double f[3];
                kink_face(ps, k, f);
                double cosine = gc_dot(f, u);
                if (!(fabs(cosine) > 1.0 - 0.5 * near * near)) continue;
                double sg = cosine > 0.0 ? 1.0 : (cosine < 0.0 ? -1.0 : 0.0);
                for (int i = 0; i < 3; ++i) cand[i] = sign * sg * f[i];
            } else {
                double l[3];
                kink_line(ps, k - nf, l);
                double along = gc_dot(l, n);
                if (!(fabs(along) < near)) continue;
                for (int i = 0; i < 3; ++i) cand[i] = n[i] - along * l[i];
                double norm = gc_norm(cand);
                for (int i = 0; i < 3; ++i) cand[i] /= norm;
            }
            double g = g_and_m(A, B, cand, m);
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
    core_point(A, nn, a);
    double h_A = -(gc_dot(best_n, a) - A->radius);
    double shift = -h_A - gc_dot(best_n, p_WCa);
    for (int i = 0; i < 3; ++i) p_WCa[i] = p_WCa[i] + shift * best_n[i];
    for (int i = 0; i < 3; ++i) p_WCb[i] = p_WCa[i] - best_g * best_n[i];
    gc_copy(best_n, n_out);
    *g_out = best_g;
    return 1;
}

/* ================================================================ entry point */

/* signed_distance_supports. Returns GC_OK, or GC_UNCERTIFIED when EPA's pools overflowed. */
static int signed_distance_supports(const posed *A, const posed *B, double scale,
                                    gc_pair_result *out) {
    double r_sum = A->radius + B->radius;
    int curved = posed_curved(A) || posed_curved(B);
    double sc = scale > 1.0 ? scale : 1.0;
    double tight = GC_CONVEX_EPA_GAP * sc;
    gjk_result gr;
    gjk_state gs;
    gjk_init(A, B, &gs);
    /* Curved pairs: Newton finishes what GJK's linear convergence would take
     * many iterations for; its answer is kept only with a duality gap as small
     * as GJK's own tolerance (else GJK resumes; see below). */
    gjk_run(A, B, scale, &gs, curved ? GC_CONVEX_GJK_NEWTON_HANDOFF * sc : 0.0, &gr);
    int early = gr.early;
    epa_t epa;
    int have_epa = 0;
    double n[3], core_distance, p_A[3], p_B[3], gap;
    int unique;
gjk_answer:
    if (!gr.overlap) {
        double vn = sqrt(np_dot3(gr.v, gr.v));
        for (int k = 0; k < 3; ++k) n[k] = gr.v[k] / vn;
        gc_copy(gr.p_A, p_A);
        gc_copy(gr.p_B, p_B);
        unique = 1;
        core_distance = vn;
        gap = isfinite(gr.gap) ? gr.gap : 0.0;
    } else {
        double pa[NDIR][3], pb[NDIR][3], pm[NDIR][3];
        epa.A = A;
        epa.B = B;
        epa.scale = scale;
        epa.iterations = 0;
        epa.overflow = 0;
        epa_answer ea;
        double tol0 = curved ? GC_CONVEX_EPA_NEWTON_HANDOFF * sc : tight;
        int from_simplex = gr.nW == 4
            && epa_run_simplex(&epa, (const double (*)[3])gr.W, (const double (*)[3])gr.WA,
                               (const double (*)[3])gr.WB, tol0, &ea);
        if (!from_simplex) initial_points(A, B, pa, pb, pm);
        if (from_simplex || epa_run(&epa, pa, pb, pm, tol0, &ea)) {
            if (epa.overflow) return GC_UNCERTIFIED;
            have_epa = 1;
            gc_copy(ea.n, n);
            core_distance = -ea.depth;
            gc_copy(ea.p_A, p_A);
            gc_copy(ea.p_B, p_B);
            gap = ea.gap;
            unique = ea.unique;
        } else {
            flat_overlap(A, B, pm, n, p_A, p_B, &unique);
            core_distance = -0.0;
            gap = 0.0;
        }
    }
    double distance, slack, p_WCa[3], p_WCb[3];
    for (;;) {
        distance = core_distance - r_sum;
        slack = (gap > 0.0 ? gap : 0.0) + GC_CONVEX_REFINE_SLACK * sc;
        for (int k = 0; k < 3; ++k) {
            p_WCa[k] = p_A[k] - A->radius * n[k];
            p_WCb[k] = p_B[k] + B->radius * n[k];
        }
        newton_answer ref = {{0.0, 0.0, 0.0}, 0.0, 0, 0};
        double dgap = 0.0;
        if (curved && newton(A, B, n, scale, &ref) && ref.g >= distance - slack
            && (!early || duality_gap(A, B, ref.n, &dgap) <= GC_CONVEX_GJK_GAP * sc)) {
            if (early) slack = dgap + GC_CONVEX_REFINE_SLACK * sc;
            gc_copy(ref.n, n);
            distance = ref.g;
            double nn[3] = {-n[0], -n[1], -n[2]}, s[3];
            if (ref.smooth_A) {
                core_point(A, nn, s);
                for (int k = 0; k < 3; ++k) p_WCa[k] = s[k] - A->radius * n[k];
                for (int k = 0; k < 3; ++k) p_WCb[k] = p_WCa[k] - distance * n[k];
            } else if (ref.smooth_B) {
                core_point(B, n, s);
                for (int k = 0; k < 3; ++k) p_WCb[k] = s[k] + B->radius * n[k];
                for (int k = 0; k < 3; ++k) p_WCa[k] = p_WCb[k] + distance * n[k];
            } else {
                core_point(A, nn, s);
                double h_A = -(gc_dot(n, s) - A->radius);
                double shift = -h_A - gc_dot(n, p_WCa);
                for (int k = 0; k < 3; ++k) p_WCa[k] = p_WCa[k] + shift * n[k];
                for (int k = 0; k < 3; ++k) p_WCb[k] = p_WCa[k] - distance * n[k];
            }
            break;
        }
        if (early) { /* GJK stopped early and Newton did not certify: finish GJK */
            early = 0;
            gjk_run(A, B, scale, &gs, 0.0, &gr);
            goto gjk_answer;
        }
        if (!have_epa || epa.gap_tol <= tight) break;
        epa_answer ea;
        epa.gap_tol = tight;
        epa_expand(&epa, &ea);
        if (epa.overflow) return GC_UNCERTIFIED;
        gc_copy(ea.n, n);
        core_distance = -ea.depth;
        gc_copy(ea.p_A, p_A);
        gc_copy(ea.p_B, p_B);
        gap = ea.gap;
        unique = ea.unique;
    }
    double n_new[3], g_new;
    if (snap_to_kinks(A, B, n, distance, p_WCa, p_WCb, slack, n_new, &g_new)) {
        gc_copy(n_new, n);
        distance = g_new;
    }
    if (fabs(distance) <= GC_CONVEX_CORE_TOUCH * sc) unique = 0;
    out->distance = distance;
    gc_copy(p_WCa, out->p_WCa);
    gc_copy(p_WCb, out->p_WCb);
    gc_copy(n, out->nhat_BA_W);
    out->unique = unique;
    return GC_OK;
}

int gc_convex_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], gc_pair_result *out) {
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
    posed_init(&pa, A, X_WA);
    posed_init(&pb, B, X_WB);
    double ra = bounding_radius(A), rb = bounding_radius(B);
    double scale = ra > rb ? ra : rb;
    int status = signed_distance_supports(&pa, &pb, scale, out);
    if (status != GC_OK) {
        out->distance = NAN;
        return status;
    }
    /* certificate_gap: g(n) = -h_A(-n) - h_B(n) against the answer's distance */
    const double *n = out->nhat_BA_W;
    double nn[3] = {-n[0], -n[1], -n[2]};
    double g = -gc_support_value_W(A, X_WA, nn) - gc_support_value_W(B, X_WB, n);
    double cert = fabs(g - out->distance);
    if (!(cert <= GC_PAIR_CERTIFICATE_TOLERANCE)) return GC_UNCERTIFIED;
    return GC_OK;
}
