/* EPA on the cores: the penetration depth of overlapping cores as the
 * nearest face of a polytope grown inside the Minkowski difference. It starts
 * from GJK's terminating tetrahedron (which holds the origin), or from the
 * hull of 26 support points, built with the same insertion machinery as the
 * expansion; the witness is the nearest face's barycentric combination.
 */
#include <string.h>

#include "gc_convex.h"

/* ================================================================ EPA on cores */


/* The core's support point along d for EPA's start points (core_point in
 * another order of operations, kept for EPA's start hull): d_W @ R_WG, the core's support in G, then
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
            double h = dot3_fma(d[0], v[0], d[1], v[1], d[2], v[2]);
            if (h > top || i == 0) {
                top = h;
                gc_copy(v, out);
            }
        }
        return;
    }
    double g[3], s[3];
    for (int j = 0; j < 3; ++j) g[j] = dot3_fma(d[0], R[j], d[1], R[3 + j], d[2], R[6 + j]);
    if (ps->kind == PK_SEGMENT) {
        s[0] = 0.0;
        s[1] = 0.0;
        s[2] = sgn_pos(g[2]) * ps->prm[0];
    } else {
        gc_support_point_G(ps->shape, g, s);
    }
    for (int i = 0; i < 3; ++i)
        out[i] = dot3_fma(s[0], R[3 * i], s[1], R[3 * i + 1], s[2], R[3 * i + 2]) + ps->p[i];
}

/* The 26 directions of _initial_directions and the cores' support points. */
void cvx_initial_points(const posed *A, const posed *B, double pa[NDIR][3],
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

/* Adds w to the polytope: returns 1 if w joined the polytope. start: a face to begin the
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
     * genus 0 (F = 2 V - 4 over the whole polytope, checked here on the
     * patch alone). */
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

void cvx_epa_expand(epa_t *e, epa_answer *ans) {
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
        cvx_core_point(e->A, u, a);
        cvx_core_point(e->B, nu, b);
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

/* An empty polytope and heap, converging to gap_tol. */
static void epa_reset(epa_t *e, double gap_tol) {
    e->gap_tol = gap_tol;
    e->stamp = 0;
    e->count = 0;
    e->overflow = 0;
    e->nheap = 0;
    e->iterations = 0;
}

/* EPA from the hull of the 26 start points: 1 with an answer, 0 when M is flat (the caller's flat case). */
int cvx_epa_run(epa_t *e, const double pa[NDIR][3], const double pb[NDIR][3],
                   const double pm[NDIR][3], double gap_tol, epa_answer *ans) {
    epa_reset(e, gap_tol);
    if (!epa_start(e, pa, pb, pm)) {
        e->overflow = 0;
        return 0;
    }
    heap_rebuild(e);
    cvx_epa_expand(e, ans);
    return 1;
}

/* EPA from GJK's terminating tetrahedron (which holds the origin): 1 with
 * an answer converged to gap_tol, 0 (the caller then runs from the 26-point
 * hull) when the tetrahedron is flat, does not hold the origin, or EPA stops
 * short of gap_tol (a rejected expansion, the iteration limit, an overflow). */
int cvx_epa_run_simplex(epa_t *e, const double W[4][3], const double WA[4][3],
                           const double WB[4][3], double gap_tol, epa_answer *ans) {
    epa_reset(e, gap_tol);
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
    cvx_epa_expand(e, ans);
    if (e->overflow || !(ans->gap <= gap_tol)) return 0;
    return 1;
}

