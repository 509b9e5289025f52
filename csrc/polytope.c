/* Exact signed distance of two polytopes (boxes and hulls): gc_polytope_pair
 * (gc.h).
 *
 * g(n) = -h_A(-n) - h_B(n) is at most the signed distance for every unit n,
 * and equal to it at the optimum. When the polytopes overlap or touch, the
 * optimum is the normal of a facet of the Minkowski difference A - B, and
 * every such facet is a face of A, a face of B or spanned by an edge of A
 * and an edge of B whose Gauss-map arcs cross (Gregorius, "The Separating
 * Axis Test between Convex Polyhedra", GDC 2013). So g's maximum over
 * these candidates is the signed distance, exactly up to round-off: no
 * iteration, no tolerance on convergence. The edge candidates take their
 * normal as e_A x w with w the part of e_B normal to e_A: for edges a hair
 * from parallel, the cross product's round-off would tilt n along the edges
 * (and g by the tilt times their length), while this form tilts it only
 * across the thin facet. Apart, the distance is the least over vertex-face
 * and edge-edge pairs (one of them holds the closest pair of disjoint
 * polytopes).
 *
 * The witnesses come from the contact features (gc_feature_witnesses), or
 * are the closest pair when apart: on the surfaces by construction.
 *
 * The triangle adjacency is built per call (malloc'd, freed before
 * return): the path answers the pairs the iterative solver could not
 * certify, and costs O(E_A E_B) arc tests plus O(V) per candidate.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "gc.h"
#include "gc_tolerances.h"

typedef struct {
    int nv, nt, ne;
    double *v;  /* (nv, 3) in W */
    int *tri;   /* (nt, 3) */
    double *tn; /* (nt, 3) outward unit normals in W */
    int *e;     /* (ne, 2) vertex indices */
    double *en; /* (ne, 6) the two adjacent outward normals */
    int *free_e; /* an edge without a proper twin: tested against every edge */
    void *mem;
} poly_t;

/* A box as 8 corners and 12 outward-wound triangles. */
static const int BOX_TRI[12][3] = {
    {0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5}, /* -x (corners 0-3), +x (4-7) */
    {0, 4, 5}, {0, 5, 1}, {2, 3, 7}, {2, 7, 6}, /* -y, +y */
    {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}  /* -z, +z */
};
static const double BOX_N[12][3] = {{-1, 0, 0}, {-1, 0, 0}, {1, 0, 0},  {1, 0, 0},
                                    {0, -1, 0}, {0, -1, 0}, {0, 1, 0},  {0, 1, 0},
                                    {0, 0, -1}, {0, 0, -1}, {0, 0, 1},  {0, 0, 1}};

typedef struct {
    long long key;
    int t, k;
} half_edge;

static int cmp_half_edge(const void *a, const void *b) {
    const half_edge *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->k - y->k;
}

static void poly_free(poly_t *P) {
    free(P->mem);
    P->mem = NULL;
}

/* P from G posed at X; 0 when out of memory. */
static int poly_init(poly_t *P, const gc_shape *G, const double X[16]) {
    int nv = G->kind == GC_BOX ? 8 : G->nv, nt = G->kind == GC_BOX ? 12 : G->nt;
    int nh = 3 * nt;
    size_t bytes = sizeof(double) * (3 * (size_t)nv + 3 * (size_t)nt + 6 * (size_t)nh)
                   + sizeof(int) * (3 * (size_t)nt + 2 * (size_t)nh + (size_t)nh)
                   + sizeof(half_edge) * (size_t)nh + 64;
    char *mem = malloc(bytes);
    if (!mem) return 0;
    P->mem = mem;
    P->nv = nv;
    P->nt = nt;
    P->v = (double *)mem;
    P->tn = P->v + 3 * nv;
    P->en = P->tn + 3 * nt;
    P->tri = (int *)(P->en + 6 * nh);
    P->e = P->tri + 3 * nt;
    P->free_e = P->e + 2 * nh;
    half_edge *he = (half_edge *)(P->free_e + nh + (nh & 1));
    double R[16];
    for (int i = 0; i < 16; ++i) R[i] = X[i];
    R[3] = R[7] = R[11] = 0.0;
    if (G->kind == GC_BOX) {
        for (int i = 0; i < 8; ++i) {
            double c[3] = {(i & 4 ? 1.0 : -1.0) * G->s[0], (i & 2 ? 1.0 : -1.0) * G->s[1],
                           (i & 1 ? 1.0 : -1.0) * G->s[2]};
            gc_to_world(X, c, P->v + 3 * i);
        }
        for (int t = 0; t < 12; ++t) {
            for (int k = 0; k < 3; ++k) P->tri[3 * t + k] = BOX_TRI[t][k];
            gc_rotate(X, BOX_N[t], P->tn + 3 * t);
        }
    } else {
        for (int i = 0; i < nv; ++i) gc_to_world(X, G->v + 3 * i, P->v + 3 * i);
        for (int t = 0; t < nt; ++t) {
            for (int k = 0; k < 3; ++k) P->tri[3 * t + k] = G->tri[3 * t + k];
            gc_rotate(X, G->tri_n + 3 * t, P->tn + 3 * t);
        }
    }
    for (int t = 0; t < nt; ++t) {
        for (int k = 0; k < 3; ++k) {
            int a = P->tri[3 * t + k], b = P->tri[3 * t + (k + 1) % 3];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            he[3 * t + k].key = (long long)lo * nv + hi;
            he[3 * t + k].t = t;
            he[3 * t + k].k = k;
        }
    }
    qsort(he, (size_t)nh, sizeof(half_edge), cmp_half_edge);
    int ne = 0;
    for (int i = 0; i < nh;) {
        int j = i + 1;
        while (j < nh && he[j].key == he[i].key) ++j;
        int t0 = he[i].t, t1 = j - i == 2 ? he[i + 1].t : t0;
        const double *n0 = P->tn + 3 * t0, *n1 = P->tn + 3 * t1;
        double c[3];
        gc_cross(n0, n1, c);
        /* An edge inside a flat face (coplanar triangles) is no edge. */
        if (j - i != 2 || gc_norm(c) > 1e-12 || gc_dot(n0, n1) < 0.0) {
            int a = P->tri[3 * t0 + he[i].k], b = P->tri[3 * t0 + (he[i].k + 1) % 3];
            P->e[2 * ne] = a;
            P->e[2 * ne + 1] = b;
            gc_copy(n0, P->en + 6 * ne);
            gc_copy(n1, P->en + 6 * ne + 3);
            P->free_e[ne] = j - i != 2;
            ++ne;
        }
        i = j;
    }
    P->ne = ne;
    return 1;
}

/* min over P of n . v, max over P of n . v */
static double poly_min(const poly_t *P, const double n[3]) {
    double m = INFINITY;
    for (int i = 0; i < P->nv; ++i) m = fmin(m, gc_dot(n, P->v + 3 * i));
    return m;
}
static double poly_max(const poly_t *P, const double n[3]) {
    double m = -INFINITY;
    for (int i = 0; i < P->nv; ++i) m = fmax(m, gc_dot(n, P->v + 3 * i));
    return m;
}

static double g_of(const poly_t *A, const poly_t *B, const double n[3]) {
    return poly_min(A, n) - poly_max(B, n);
}

/* The best candidate so far; with `best` set, counts the candidates that
 * tie with it from another direction instead (a second scan). */
typedef struct {
    double g, n[3];
    int have;
    double tie_tol;
    int counting, ties;
} best_dir;

static void consider(const poly_t *A, const poly_t *B, const double n[3], best_dir *b) {
    double g = g_of(A, B, n);
    if (!(g == g)) return;
    if (b->counting) {
        if (g >= b->g - b->tie_tol && gc_dot(n, b->n) < 1.0 - 1e-12) b->ties = 1;
        return;
    }
    if (!b->have || g > b->g) {
        b->g = g;
        gc_copy(n, b->n);
        b->have = 1;
    }
}

/* Whether the Gauss-map arcs of A's edge (normals a, b) and of -B's edge
 * (normals -c, -d) cross; near-degenerate arcs count as crossing (a
 * needless candidate costs time, never accuracy). */
static int minkowski_face(const double a[3], const double b[3], const double c[3],
                          const double d[3]) {
    const double eps = 1e-14;
    double bxa[3], dxc[3], mc[3] = {-c[0], -c[1], -c[2]}, md[3] = {-d[0], -d[1], -d[2]};
    gc_cross(b, a, bxa);
    gc_cross(md, mc, dxc);
    double cba = gc_dot(mc, bxa), dba = gc_dot(md, bxa);
    double adc = gc_dot(a, dxc), bdc = gc_dot(b, dxc);
    return cba * dba <= eps && adc * bdc <= eps && cba * bdc >= -eps;
}

/* ---------------------------------------------------------------- apart */

static void closest_on_triangle(const double p[3], const double a[3], const double b[3],
                                const double c[3], double out[3]) {
    /* Ericson, Real-Time Collision Detection, 5.1.5 (Voronoi regions). */
    double ab[3], ac[3], ap[3];
    gc_sub(b, a, ab);
    gc_sub(c, a, ac);
    gc_sub(p, a, ap);
    double d1 = gc_dot(ab, ap), d2 = gc_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { gc_copy(a, out); return; }
    double bp[3];
    gc_sub(p, b, bp);
    double d3 = gc_dot(ab, bp), d4 = gc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { gc_copy(b, out); return; }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k) out[k] = a[k] + v * ab[k];
        return;
    }
    double cp[3];
    gc_sub(p, c, cp);
    double d5 = gc_dot(ab, cp), d6 = gc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { gc_copy(c, out); return; }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k) out[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k) out[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double denom = 1.0 / (va + vb + vc), v = vb * denom, w = vc * denom;
    for (int k = 0; k < 3; ++k) out[k] = a[k] + v * ab[k] + w * ac[k];
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

/* Closest points of segments p1 + s d1 and p2 + t d2 (Ericson 5.1.9). */
static void closest_segments(const double p1[3], const double q1[3], const double p2[3],
                             const double q2[3], double c1[3], double c2[3]) {
    double d1[3], d2[3], r[3];
    gc_sub(q1, p1, d1);
    gc_sub(q2, p2, d2);
    gc_sub(p1, p2, r);
    double a = gc_dot(d1, d1), e = gc_dot(d2, d2), f = gc_dot(d2, r), s, t;
    if (a <= 0.0 && e <= 0.0) {
        s = t = 0.0;
    } else if (a <= 0.0) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = gc_dot(d1, r);
        if (e <= 0.0) {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = gc_dot(d1, d2), denom = a * e - b * b;
            s = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    for (int k = 0; k < 3; ++k) {
        c1[k] = p1[k] + s * d1[k];
        c2[k] = p2[k] + t * d2[k];
    }
}

typedef struct {
    double d2, pa[3], pb[3];
} closest_t;

static void keep(closest_t *c, const double pa[3], const double pb[3]) {
    double g[3];
    gc_sub(pa, pb, g);
    double d2 = gc_dot(g, g);
    if (d2 < c->d2) {
        c->d2 = d2;
        gc_copy(pa, c->pa);
        gc_copy(pb, c->pb);
    }
}

static void closest_apart(const poly_t *A, const poly_t *B, closest_t *c) {
    c->d2 = INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        const poly_t *P = pass == 0 ? A : B, *Q = pass == 0 ? B : A;
        for (int i = 0; i < P->nv; ++i) {
            const double *p = P->v + 3 * i;
            for (int t = 0; t < Q->nt; ++t) {
                const int *tri = Q->tri + 3 * t;
                double q[3];
                closest_on_triangle(p, Q->v + 3 * tri[0], Q->v + 3 * tri[1], Q->v + 3 * tri[2], q);
                if (pass == 0) keep(c, p, q);
                else keep(c, q, p);
            }
        }
    }
    for (int i = 0; i < A->ne; ++i) {
        for (int j = 0; j < B->ne; ++j) {
            double ca[3], cb[3];
            closest_segments(A->v + 3 * A->e[2 * i], A->v + 3 * A->e[2 * i + 1],
                             B->v + 3 * B->e[2 * j], B->v + 3 * B->e[2 * j + 1], ca, cb);
            keep(c, ca, cb);
        }
    }
}

/* Every candidate normal: A's faces, B's faces, the edge pairs whose arcs
 * cross (both signs). */
static void scan_candidates(const poly_t *A, const poly_t *B, best_dir *best) {
    for (int t = 0; t < A->nt; ++t) {
        double n[3] = {-A->tn[3 * t], -A->tn[3 * t + 1], -A->tn[3 * t + 2]};
        consider(A, B, n, best);
    }
    for (int t = 0; t < B->nt; ++t) consider(A, B, B->tn + 3 * t, best);
    for (int i = 0; i < A->ne; ++i) {
        const double *a0 = A->v + 3 * A->e[2 * i], *a1 = A->v + 3 * A->e[2 * i + 1];
        double u[3];
        gc_sub(a1, a0, u);
        double lu = gc_norm(u);
        if (!(lu > 0.0)) continue;
        gc_scale(1.0 / lu, u, u);
        for (int j = 0; j < B->ne; ++j) {
            if (!A->free_e[i] && !B->free_e[j]
                && !minkowski_face(A->en + 6 * i, A->en + 6 * i + 3, B->en + 6 * j,
                                   B->en + 6 * j + 3))
                continue;
            double w[3];
            gc_sub(B->v + 3 * B->e[2 * j + 1], B->v + 3 * B->e[2 * j], w);
            double lw0 = gc_norm(w);
            double along = gc_dot(w, u);
            for (int k = 0; k < 3; ++k) w[k] -= along * u[k];
            along = gc_dot(w, u); /* once more: the first pass leaves round-off along u */
            for (int k = 0; k < 3; ++k) w[k] -= along * u[k];
            /* Parallel edges span no facet. Edges closer to parallel than
             * 1e-20 rad span a sliver whose normal is ill-defined (its
             * components can underflow) and whose gap differs from the
             * faces' by less than 1e-20 of the edge length: the face normals
             * answer for it. */
            double lw = gc_norm(w);
            if (!(lw > 1e-20 * lw0)) continue;
            double n[3];
            gc_cross(u, w, n);
            double ln = gc_norm(n);
            if (!(ln > 0.0) || !isfinite(ln)) continue;
            gc_scale(1.0 / ln, n, n);
            consider(A, B, n, best);
            gc_scale(-1.0, n, n);
            consider(A, B, n, best);
        }
    }
}

/* ---------------------------------------------------------------- the pair */

static int is_polytope(const gc_shape *G) {
    return G->kind == GC_BOX || (G->kind == GC_CONVEX && G->nv >= 4 && G->nt >= 4);
}

int gc_polytope_pair(const gc_shape *shape_A, const double X_WA[16], const gc_shape *shape_B,
                     const double X_WB[16], gc_pair_result *out) {
    if (!is_polytope(shape_A) || !is_polytope(shape_B)) return GC_NOT_HANDLED;
    poly_t A = {0}, B = {0};
    if (!poly_init(&A, shape_A, X_WA)) return GC_NOT_HANDLED;
    if (!poly_init(&B, shape_B, X_WB)) {
        poly_free(&A);
        return GC_NOT_HANDLED;
    }
    /* Scales: the shapes' extent and the coordinates' size, for round-off. */
    double coord = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY,
                                                                       -INFINITY};
    double size = 0.0;
    const poly_t *both[2] = {&A, &B};
    for (int s = 0; s < 2; ++s) {
        double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < both[s]->nv; ++i)
            for (int k = 0; k < 3; ++k) {
                double x = both[s]->v[3 * i + k];
                coord = fmax(coord, fabs(x));
                l[k] = fmin(l[k], x);
                h[k] = fmax(h[k], x);
                lo[k] = fmin(lo[k], x);
                hi[k] = fmax(hi[k], x);
            }
        for (int k = 0; k < 3; ++k) size = fmax(size, h[k] - l[k]);
    }
    double roundoff = 64.0 * GC_EPS * (coord + size);
    best_dir best = {-INFINITY, {0.0, 0.0, 1.0}, 0, 4.0 * roundoff, 0, 0};
    scan_candidates(&A, &B, &best);
    best.counting = 1;
    scan_candidates(&A, &B, &best);
    int status = GC_OK;
    closest_t c = {INFINITY, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    /* No candidate separates by more than round-off: overlapping or
     * touching (the separating-axis theorem), else the closest pair. */
    if (best.g > -best.tie_tol) closest_apart(&A, &B, &c);
    if (best.g > -best.tie_tol && sqrt(c.d2) > best.tie_tol) {
        double distance = sqrt(c.d2), n[3];
        for (int k = 0; k < 3; ++k) n[k] = (c.pa[k] - c.pb[k]) / distance;
        out->distance = distance;
        gc_copy(c.pa, out->p_WCa);
        gc_copy(c.pb, out->p_WCb);
        gc_copy(n, out->nhat_BA_W);
        out->unique = 1;
    } else {
        out->distance = best.g;
        gc_copy(best.n, out->nhat_BA_W);
        gc_feature_witnesses(shape_A, X_WA, shape_B, X_WB, best.n, best.tie_tol, 0.0,
                             out->p_WCa, out->p_WCb);
        out->unique = !best.ties && fabs(best.g) > best.tie_tol;
    }
    poly_free(&A);
    poly_free(&B);
    return status;
}

/* A count for the queries' reports (gc_polytope_rescues), process-wide:
 * atomic so that threads querying snapshots at once lose no increment. */
static atomic_ullong rescues;

int gc_polytope_rescue(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                       const double X_WB[16], gc_pair_result *out) {
    int status = gc_polytope_pair(A, X_WA, B, X_WB, out);
    if (status == GC_OK) atomic_fetch_add_explicit(&rescues, 1, memory_order_relaxed);
    return status;
}

unsigned long long gc_polytope_rescues(void) {
    return atomic_load_explicit(&rescues, memory_order_relaxed);
}
