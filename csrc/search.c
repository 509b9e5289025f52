/* The certificate's ascent test and the brute-force direction search that
 * replaces an answer failing its certificate (csrc/dispatch.c).
 *
 * g(n) = -h_A(-n) - h_B(n) = min over c in A - B of n . c, concave and
 * positively homogeneous; the signed distance is its maximum over unit n.
 *
 * gc_ascent_gap probes g at sixteen unit directions n' (eight azimuths about
 * the normal at tilts t of 1e-3 and 1e-6 rad) and returns
 * max(g(n') - cos(t) g(n)). Why cos(t) g(n): at the true answer c* = phi n*
 * lies in A - B, so g(n') <= n' . c* = phi cos t for every unit n', whatever
 * the curvature and at kinks too: the statistic is <= round-off at a true
 * maximum, where comparing with g(n) alone would have to allow the curvature
 * term |phi| t^2 / 2 (5e-7 m at t = 1e-3 for a 1 m overlap). What it
 * catches: a normal theta from n* with g(n) = phi - e rises by about t e /
 * theta at tilt t <= theta: for e >= 0.1 mm and theta <= pi/2, t = 1e-3
 * rises >= 6e-8 > PAIR_CERTIFICATE_TOLERANCE; near misses (theta < 1e-3)
 * are caught at t = 1e-6 unless the slope e / theta exceeds 100 m/rad.
 *
 * gc_direction_search: the seed
 * direction (if any) and a 4000-direction Fibonacci sphere, the best of
 * them, then rounds of 96 random directions in a cone about the best one,
 * moving to the best of a round if it improves (and widening the cone by
 * 1/0.6, up to 0.1 rad) and otherwise shrinking it by 0.6, until the cone
 * is below 1e-13 rad or after 2000 rounds; every
 * round also tries the kinks of g near the best direction (ridges and peaks
 * of the support functions: kink_candidates, _kink_candidates). The
 * witnesses come from the contact features along n
 * (gc_feature_witnesses): on the surfaces, where a bare support point of a
 * face would be an arbitrary corner of it. Details:
 *   - randomness: splitmix64 seeded with a constant, so every call is
 *     deterministic and the state lives on the stack (thread safe). A
 *     uniform direction in the tangent plane is Box-Muller's angle in its
 *     polar (Marsaglia) form: a point uniform in the unit disk by rejection,
 *     normalised; the radius is angle * U[0, 1). The search converges to
 *     ~1e-12 m in distance at smooth maxima and kinks;
 *   - g inside the search uses the closed forms of the support functions
 *     (|d_G| e for a box, r |d_xy| + |d_z| L/2 for a cylinder, ...), equal to
 *     d . s(d) up to round-off, instead of the support point's dot product.
 * Storage is on the stack, no globals: thread safe.
 */
#include "gc.h"
#include "gc_tolerances.h"

/* The search's schedule: enough sphere directions (spacing ~0.06 rad) that
 * the best lies in the global maximum's basin for shapes of similar size,
 * cones that shrink geometrically to round-off. */
#define SEARCH_SPHERE_DIRECTIONS 4000
#define SEARCH_CONE_DIRECTIONS 96
#define SEARCH_CONE_START 0.1
#define SEARCH_CONE_SHRINK 0.6
#define SEARCH_CONE_STOP 1e-13
#define SEARCH_CONE_MAX_ROUNDS 2000
#define SEARCH_KINK_WINDOW 0.1
/* The witnesses' features: polytope vertices within this (times the size)
 * of the top, cylinder caps and sides within this angle of n: the search's
 * own precision, with room. */
#define SEARCH_FEATURE_TOLERANCE 1e-10
#define SEARCH_FEATURE_ANGLE 1e-9

/* The ascent test's probes (see the file comment). */
#define ASCENT_DIRECTIONS 8
/* cos and sin of the tilts 1e-3 and 1e-6 rad, and of the azimuths
 * 2 pi k / 8 (k = 0..7, 2 pi k / 8 rounded as a double first), as libm
 * gives them: a table, since 36 libm calls were a tenth of the test. */
static const double ascent_tilt[2][2] = {{0.9999995000000417, 0.0009999998333333417},
                                         {0.9999999999995, 9.999999999998333e-07}};
static const double ascent_azimuth[ASCENT_DIRECTIONS][2] = {
    {1.0, 0.0},
    {0.7071067811865476, 0.7071067811865475},
    {6.123233995736766e-17, 1.0},
    {-0.7071067811865475, 0.7071067811865476},
    {-1.0, 1.2246467991473532e-16},
    {-0.7071067811865477, -0.7071067811865475},
    {-1.8369701987210297e-16, -1.0},
    {0.7071067811865474, -0.7071067811865477}};

static const double GC_PI = 3.141592653589793;

/* ================================================================ posed shapes */

typedef struct {
    const gc_shape *G;
    double R[9]; /* R_WG, row-major */
    double p[3]; /* p_WGo */
} posed_s;

static void posed_s_init(posed_s *ps, const gc_shape *G, const double X[16]) {
    ps->G = G;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) ps->R[3 * i + j] = X[4 * i + j];
        ps->p[i] = X[4 * i + 3];
    }
}

static inline void unrotate(const double R[9], const double d[3], double out[3]) {
    out[0] = R[0] * d[0] + R[3] * d[1] + R[6] * d[2];
    out[1] = R[1] * d[0] + R[4] * d[1] + R[7] * d[2];
    out[2] = R[2] * d[0] + R[5] * d[1] + R[8] * d[2];
}

/* h_G(d) for a bounded shape in G (d need not be unit): closed forms. */
static inline double support_value_G(const gc_shape *G, const double d[3]) {
    switch (G->kind) {
    case GC_SPHERE:
        return G->s[0] * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    case GC_CAPSULE:
        return G->s[0] * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + fabs(d[2]) * G->s[1];
    case GC_BOX:
        return fabs(d[0]) * G->s[0] + fabs(d[1]) * G->s[1] + fabs(d[2]) * G->s[2];
    case GC_CYLINDER:
        return G->s[0] * sqrt(d[0] * d[0] + d[1] * d[1]) + fabs(d[2]) * G->s[1];
    case GC_ELLIPSOID: {
        double x = d[0] * G->s[0], y = d[1] * G->s[1], z = d[2] * G->s[2];
        return sqrt(x * x + y * y + z * z);
    }
    default: { /* GC_CONVEX */
        const double *v = G->v;
        double top = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
        for (int i = 1; i < G->nv; ++i) {
            v += 3;
            double h = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
            if (h > top) top = h;
        }
        return top;
    }
    }
}

/* g(d) = -h_A(-d) - h_B(d) = min over a in A, b in B of d . (a - b), from d
 * in each shape's frame (dA = R_A^T d, dB = R_B^T d) and d's products with
 * the shapes' origins (tA = d . p_A, tB = d . p_B): h_A(-d) = h_GA(-dA) - tA.
 * The shapes other than hulls are symmetric about Go: h_G(-d) = h_G(d). */
static inline double g_parts(const posed_s *A, const double dA[3], double tA, const posed_s *B,
                             const double dB[3], double tB) {
    double hA;
    if (A->G->kind == GC_CONVEX) {
        double m[3] = {-dA[0], -dA[1], -dA[2]};
        hA = support_value_G(A->G, m);
    } else {
        hA = support_value_G(A->G, dA);
    }
    return (tA - hA) - (support_value_G(B->G, dB) + tB);
}

static inline double g_value(const posed_s *A, const posed_s *B, const double n[3]) {
    double dA[3], dB[3];
    unrotate(A->R, n, dA);
    unrotate(B->R, n, dB);
    return g_parts(A, dA, gc_dot(n, A->p), B, dB, gc_dot(n, B->p));
}

/* The largest extent of G about Go. */
static double bounding_size(const gc_shape *G) {
    switch (G->kind) {
    case GC_SPHERE: return G->s[0];
    case GC_CAPSULE: return G->s[0] + G->s[1];
    case GC_CYLINDER: return hypot(G->s[0], G->s[1]);
    case GC_BOX:
    case GC_ELLIPSOID: return gc_norm(G->s);
    default: return G->size;
    }
}

static int bounded(const gc_shape *G) {
    return G->kind == GC_SPHERE || G->kind == GC_BOX || G->kind == GC_CYLINDER ||
           G->kind == GC_CAPSULE || G->kind == GC_ELLIPSOID ||
           (G->kind == GC_CONVEX && G->nv > 0);
}

/* Unit u, v with (u, v, n) right handed: u = n x e_k / |.| for the world
 * axis e_k least aligned with n (the first on ties, as np.argmin). */
static void tangent_basis(const double n[3], double u[3], double v[3]) {
    int k = 0;
    if (fabs(n[1]) < fabs(n[k])) k = 1;
    if (fabs(n[2]) < fabs(n[k])) k = 2;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    gc_cross(n, axis, u);
    gc_scale(1.0 / gc_norm(u), u, u);
    gc_cross(n, u, v);
}

/* ================================================================ the ascent test */

/* g(n) as the certificate computes it; hull walks start at *ia, *ib, which
 * then hold the supports (the probes turn n by 1e-3 rad at most, so each walk
 * is a step or two from the last). */
static double g_exported(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                         const double X_WB[16], const double n[3], int *ia, int *ib) {
    double m[3] = {-n[0], -n[1], -n[2]};
    return -gc_support_value_W_from(A, X_WA, m, ia) - gc_support_value_W_from(B, X_WB, n, ib);
}

double gc_ascent_gap(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                     const double X_WB[16], const gc_pair_result *r) {
    if (!bounded(A) || !bounded(B)) return 0.0; /* half spaces: exact kernels only */
    double norm = gc_norm(r->nhat_BA_W);
    if (!(norm > 0.0) || !isfinite(norm)) return INFINITY;
    double n[3], u[3], v[3];
    gc_scale(1.0 / norm, r->nhat_BA_W, n);
    tangent_basis(n, u, v);
    int ia = -1, ib = -1;
    double g0 = g_exported(A, X_WA, B, X_WB, n, &ia, &ib);
    double gap = -INFINITY;
    for (int t = 0; t < 2; ++t) {
        double ct = ascent_tilt[t][0], st = ascent_tilt[t][1];
        for (int k = 0; k < ASCENT_DIRECTIONS; ++k) {
            double ca = ascent_azimuth[k][0], sa = ascent_azimuth[k][1], probe[3];
            for (int i = 0; i < 3; ++i) probe[i] = ct * n[i] + st * (ca * u[i] + sa * v[i]);
            double rise = g_exported(A, X_WA, B, X_WB, probe, &ia, &ib) - ct * g0;
            if (rise > gap || isnan(rise)) gap = isnan(rise) ? INFINITY : rise;
        }
    }
    return gap;
}

/* ================================================================ kinks of g
 * A shape's line directions e (g has a ridge
 * on the great circle n . e = 0: box edges, cylinder and capsule sides, hull
 * edges) and face normals f (a peak at n = +-f: box faces, cylinder caps,
 * hull faces), in W, in this order: a box's three axes (both), a
 * cylinder's axis (both), a capsule's axis (lines), a hull's triangle
 * normals (faces) and its edges b - a of every triangle, then c - b, then
 * a - c (lines); spheres and ellipsoids have none. */

static int kink_line_count(const gc_shape *G) {
    switch (G->kind) {
    case GC_BOX: return 3;
    case GC_CYLINDER:
    case GC_CAPSULE: return 1;
    case GC_CONVEX: return 3 * G->nt;
    default: return 0;
    }
}

static int kink_face_count(const gc_shape *G) {
    switch (G->kind) {
    case GC_BOX: return 3;
    case GC_CYLINDER: return 1;
    case GC_CONVEX: return G->nt;
    default: return 0;
    }
}

static void rotate_R(const double R[9], const double v[3], double out[3]) {
    for (int r = 0; r < 3; ++r) out[r] = R[3 * r] * v[0] + R[3 * r + 1] * v[1] + R[3 * r + 2] * v[2];
}

/* Line k in G, not normalised (a hull edge) or unit (an axis). */
static void kink_line_G(const gc_shape *G, int k, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    if (G->kind == GC_BOX) {
        out[k] = 1.0;
        return;
    }
    if (G->kind != GC_CONVEX) {
        out[2] = 1.0;
        return;
    }
    int t = k % G->nt, edge = k / G->nt; /* 0: b - a, 1: c - b, 2: a - c */
    const int *tri = G->tri + 3 * t;
    gc_sub(G->v + 3 * tri[(edge + 1) % 3], G->v + 3 * tri[edge], out);
}

/* Face normal k in G, unit. */
static void kink_face_G(const gc_shape *G, int k, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    if (G->kind == GC_BOX) {
        out[k] = 1.0;
        return;
    }
    if (G->kind != GC_CONVEX) {
        out[2] = 1.0;
        return;
    }
    gc_copy(G->tri_n + 3 * k, out);
}

typedef struct {
    double value;
    double n[3];
} best_t;

static inline void consider(const posed_s *A, const posed_s *B, const double d[3], best_t *b) {
    double value = g_value(A, B, d);
    if (value > b->value) {
        b->value = value;
        gc_copy(d, b->n);
    }
}

/* _kink_candidates: for every line e with |n . e| <= SEARCH_KINK_WINDOW, n
 * snapped onto its ridge (p = n - (n . e) e, normalised), then p turned
 * about e by a random angle in [-angle, angle], twice; then
 * every face normal within SEARCH_KINK_WINDOW of n, with the sign towards n. */
static void kink_candidates(const posed_s *A, const posed_s *B, const double n[3], double angle,
                            unsigned long long *state, best_t *best);

/* ================================================================ the direction search */

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, full period. */
static inline unsigned long long splitmix64(unsigned long long *state) {
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static inline double uniform01(unsigned long long *state) {
    return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

/* A uniform direction (c, s) on the unit circle: the polar form of
 * Box-Muller draws a point uniform in the unit disk; its direction is the
 * Gaussian pair's. One 64-bit draw gives both coordinates, 32 bits each:
 * these are trial directions, and the search keeps whichever one it
 * evaluated, so their granularity does not limit its precision. */
static inline void circle_direction(unsigned long long *state, double *c, double *s) {
    for (;;) {
        unsigned long long bits = splitmix64(state);
        double x = (double)(bits >> 32) * 0x1.0p-31 - 1.0;
        double y = (double)(bits & 0xFFFFFFFFULL) * 0x1.0p-31 - 1.0;
        double q = x * x + y * y;
        if (q > 0.0 && q <= 1.0) {
            double inv = 1.0 / sqrt(q);
            *c = x * inv;
            *s = y * inv;
            return;
        }
    }
}

static void kink_candidates(const posed_s *A, const posed_s *B, const double n[3], double angle,
                            unsigned long long *state, best_t *best) {
    /* One pass per shape: n is taken into G once and each line tested there
     * (a hull has 3 nt of them), the near ones brought to W; the order only
     * matters for exact ties of g. */
    const posed_s *shapes[2] = {A, B};
    const double window2 = SEARCH_KINK_WINDOW * SEARCH_KINK_WINDOW;
    const double face_window = cos(SEARCH_KINK_WINDOW);
    for (int s = 0; s < 2; ++s) {
        const gc_shape *G = shapes[s]->G;
        double n_G[3];
        unrotate(shapes[s]->R, n, n_G);
        int count = kink_line_count(G);
        for (int k = 0; k < count; ++k) {
            double e_G[3], e[3], p[3];
            kink_line_G(G, k, e_G);
            double ee = gc_dot(e_G, e_G), c = gc_dot(n_G, e_G);
            if (!(c * c <= window2 * ee) || !(ee > 0.0)) continue;
            double inv = 1.0 / sqrt(ee);
            rotate_R(shapes[s]->R, e_G, e);
            gc_scale(inv, e, e);
            c *= inv;
            for (int i = 0; i < 3; ++i) p[i] = n[i] - c * e[i];
            gc_scale(1.0 / gc_norm(p), p, p);
            consider(A, B, p, best);
            double q[3];
            gc_cross(e, p, q);
            for (int turn = 0; turn < 2; ++turn) {
                double t = angle * (2.0 * uniform01(state) - 1.0), ct = cos(t), st = sin(t), r[3];
                for (int i = 0; i < 3; ++i) r[i] = ct * p[i] + st * q[i];
                consider(A, B, r, best);
            }
        }
    }
    for (int s = 0; s < 2; ++s) {
        const gc_shape *G = shapes[s]->G;
        double n_G[3];
        unrotate(shapes[s]->R, n, n_G);
        int count = kink_face_count(G);
        for (int k = 0; k < count; ++k) {
            double f_G[3], f[3];
            kink_face_G(G, k, f_G);
            double c = gc_dot(n_G, f_G);
            if (!(fabs(c) >= face_window)) continue;
            rotate_R(shapes[s]->R, f_G, f);
            if (c < 0.0) gc_scale(-1.0, f, f);
            consider(A, B, f, best);
        }
    }
}

int gc_direction_search(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                        const double X_WB[16], const double n0_W[3], gc_pair_result *out) {
    if (!bounded(A) || !bounded(B)) return GC_NOT_HANDLED;
    posed_s pa, pb;
    posed_s_init(&pa, A, X_WA);
    posed_s_init(&pb, B, X_WB);

    /* The seed first (np.argmax keeps the first of equal values), then the
     * Fibonacci sphere: z_k = 1 - 2 (k + 1/2) / N, theta_k = pi (1 + sqrt 5) (k + 1/2). */
    double n[3] = {0.0, 0.0, 1.0}, g_best = -INFINITY;
    int have = 0;
    double seed_norm = n0_W ? gc_norm(n0_W) : 0.0;
    if (seed_norm > 0.0 && isfinite(seed_norm)) {
        gc_scale(1.0 / seed_norm, n0_W, n);
        g_best = g_value(&pa, &pb, n);
        have = 1;
    }
    /* cos and sin of theta_k by turning (c, s) by theta_1 - theta_0 each step,
     * recomputed every 64 steps: the directions then differ from the exact
     * ones by ~1e-14 rad, a tenth of the per-direction cost. */
    const double golden = GC_PI * (1.0 + sqrt(5.0));
    const double cg = cos(golden), sg = sin(golden);
    double fc = 1.0, fs = 0.0;
    for (int k = 0; k < SEARCH_SPHERE_DIRECTIONS; ++k) {
        double kk = k + 0.5;
        if (k % 64 == 0) {
            fc = cos(golden * kk);
            fs = sin(golden * kk);
        } else {
            double c1 = fc * cg - fs * sg;
            fs = fs * cg + fc * sg;
            fc = c1;
        }
        double z = 1.0 - 2.0 * kk / SEARCH_SPHERE_DIRECTIONS;
        double rho = sqrt(1.0 - z * z);
        double d[3] = {rho * fc, rho * fs, z};
        double value = g_value(&pa, &pb, d);
        if (value > g_best || !have) {
            g_best = value;
            gc_copy(d, n);
            have = 1;
        }
    }

    unsigned long long state = 0x5EA2C4D15EA2C4D1ULL;
    double angle = SEARCH_CONE_START;
    for (int round = 0; round < SEARCH_CONE_MAX_ROUNDS && angle >= SEARCH_CONE_STOP; ++round) {
        /* Candidates d = n + a e1 + b e2 (e1, e2 an orthonormal basis of the
         * tangent plane): g is positively homogeneous, so g(d / |d|) is
         * g(d) / sqrt(1 + a^2 + b^2), and g(d) is linear in (a, b) up to the
         * support functions: rotate n, e1, e2 into each frame once a round. */
        double e1[3], e2[3], nA[3], e1A[3], e2A[3], nB[3], e1B[3], e2B[3];
        tangent_basis(n, e1, e2);
        unrotate(pa.R, n, nA);
        unrotate(pa.R, e1, e1A);
        unrotate(pa.R, e2, e2A);
        unrotate(pb.R, n, nB);
        unrotate(pb.R, e1, e1B);
        unrotate(pb.R, e2, e2B);
        const double tnA = gc_dot(n, pa.p), t1A = gc_dot(e1, pa.p), t2A = gc_dot(e2, pa.p);
        const double tnB = gc_dot(n, pb.p), t1B = gc_dot(e1, pb.p), t2B = gc_dot(e2, pb.p);
        double best_a = 0.0, best_b = 0.0, best_value = -INFINITY;
        for (int i = 0; i < SEARCH_CONE_DIRECTIONS; ++i) {
            double c, s;
            circle_direction(&state, &c, &s);
            double radius = angle * uniform01(&state);
            double a = radius * c, b = radius * s, dA[3], dB[3];
            for (int k = 0; k < 3; ++k) {
                dA[k] = nA[k] + a * e1A[k] + b * e2A[k];
                dB[k] = nB[k] + a * e1B[k] + b * e2B[k];
            }
            double value = g_parts(&pa, dA, tnA + a * t1A + b * t2A, &pb, dB,
                                   tnB + a * t1B + b * t2B) / sqrt(1.0 + radius * radius);
            if (value > best_value) {
                best_value = value;
                best_a = a;
                best_b = b;
            }
        }
        best_t best = {best_value, {0.0, 0.0, 0.0}};
        for (int k = 0; k < 3; ++k) best.n[k] = n[k] + best_a * e1[k] + best_b * e2[k];
        gc_scale(1.0 / gc_norm(best.n), best.n, best.n);
        kink_candidates(&pa, &pb, n, angle, &state, &best);
        if (best.value > g_best) {
            gc_copy(best.n, n);
            g_best = best.value;
            angle = fmin(angle / SEARCH_CONE_SHRINK, SEARCH_CONE_START);
        } else {
            angle *= SEARCH_CONE_SHRINK;
        }
    }

    /* Witnesses on the contact features along n (a support point alone is an
     * arbitrary corner of a face in contact), with the search's own
     * precision as the features' tolerance. */
    double size = fmax(bounding_size(A), bounding_size(B));
    gc_feature_witnesses(A, X_WA, B, X_WB, n, SEARCH_FEATURE_TOLERANCE * fmax(size, 1.0),
                         SEARCH_FEATURE_ANGLE, out->p_WCa, out->p_WCb);
    /* Where the features miss each other by the search's own imprecision
     * (two smooth points), split what is left across n between them so
     * that p_WCa - p_WCb = distance n; on overlapping features it is zero. */
    double across[3];
    for (int k = 0; k < 3; ++k) across[k] = (out->p_WCa[k] - out->p_WCb[k]) - g_best * n[k];
    for (int k = 0; k < 3; ++k) {
        out->p_WCa[k] -= 0.5 * across[k];
        out->p_WCb[k] += 0.5 * across[k];
    }
    out->distance = g_best;
    gc_copy(n, out->nhat_BA_W);
    /* Touching shapes have no unique normal. */
    out->unique = fabs(g_best) > SEARCH_FEATURE_TOLERANCE * fmax(size, 1.0);
    return GC_OK;
}
