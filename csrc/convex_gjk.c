/* GJK on the cores: the closest point of a simplex to the origin (segment,
 * triangle, tetrahedron; Johnson's sub-simplex regions) and the GJK loop with
 * a certified duality gap. A run may stop early at a loose gap (curved pairs
 * hand over to Newton) and resume where it stopped.
 */
#include <string.h>

#include "gc_convex.h"

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

/* Keep sub, the closest point of a sub-simplex whose vertex m is vertex
 * map[m] of the whole, in *out when it is the first or nearer than *best
 * (squared distance); the strict comparison keeps the first of ties. */
static void keep_closer(const closest_t *sub, const int *map, int *have, double *best,
                        closest_t *out) {
    double dist2 = gc_dot(sub->p, sub->p);
    if (*have && !(dist2 < *best)) return;
    *have = 1;
    *best = dist2;
    gc_copy(sub->p, out->p);
    out->n = sub->n;
    for (int m = 0; m < sub->n; ++m) {
        out->idx[m] = map[sub->idx[m]];
        out->lam[m] = sub->lam[m];
    }
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
        closest_segment(pts[pairs[k][0]], pts[pairs[k][1]], &s);
        keep_closer(&s, pairs[k], &have, &best, out);
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
        keep_closer(&t, face, &have, &best, out);
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


void cvx_gjk_init(const posed *A, const posed *B, gjk_state *st) {
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
 * clearly apart (gap <= 0.1 |v|), before the full tolerance. Stop too
 * (res->beyond and res->bound, that lower bound, nothing else set) once a
 * lower bound of the cores' distance, v . w / |v| with w the supports'
 * difference along v, exceeds beyond. */
void cvx_gjk_run(const posed *A, const posed *B, double scale, gjk_state *st,
                    double early_tol, double beyond, gjk_result *res) {
    double *v = st->v, (*W)[3] = st->W, (*WA)[3] = st->WA, (*WB)[3] = st->WB, *lam = st->lam;
    int nW = st->nW;
    double sc = scale > 1.0 ? scale : 1.0;
    double gap_tol = GC_CONVEX_GJK_GAP * sc;
    double touch = GC_CONVEX_CORE_TOUCH * sc;
    double gap = st->gap;
    res->early = 0;
    res->beyond = 0;
    for (; st->iteration <= GC_CONVEX_GJK_MAX_ITERATIONS; ++st->iteration) {
        double nv[3] = {-v[0], -v[1], -v[2]}, a[3], b[3], w[3];
        cvx_core_point(A, nv, a);
        cvx_core_point(B, v, b);
        gc_sub(a, b, w);
        double vv = gc_dot(v, v);
        double vnorm = sqrt(vv);
        if (gc_dot(v, w) > beyond * vnorm) {
            res->beyond = 1;
            res->bound = gc_dot(v, w) / vnorm;
            return;
        }
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

