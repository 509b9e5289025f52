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

/* The edge a -> b of a hull (in G, R its rotation into W) as a candidate:
 * n moved onto the plane normal to the edge, when it lies within near of
 * that plane. */
static void try_edge(const posed *A, const posed *B, const double R[9], const double a[3],
                     const double b[3], const double nG[3], const double n[3], double near,
                     int *have, double *best_g, double best_n[3]) {
    double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, l[3], cand[3];
    double en = e[0] * nG[0] + e[1] * nG[1] + e[2] * nG[2];
    double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    /* |l . n| < near with l = e / |e|, without the root; exact test below */
    if (!(en * en < 1.0000001 * near * near * ee)) return;
    double len = sqrt(ee);
    for (int r = 0; r < 3; ++r)
        l[r] = (R[3 * r] * e[0] + R[3 * r + 1] * e[1] + R[3 * r + 2] * e[2]) / len;
    double along = gc_dot(l, n);
    if (!(fabs(along) < near)) return;
    for (int r = 0; r < 3; ++r) cand[r] = n[r] - along * l[r];
    double norm = gc_norm(cand);
    for (int r = 0; r < 3; ++r) cand[r] /= norm;
    consider(A, B, cand, have, best_g, best_n);
}

/* Every kink of a walking hull near u = sign n, read in G (where the local
 * flood of hull_candidates overflows): the triangles' unit
 * normals (the spec's) and each edge of the vertex graph once (a closed
 * surface lists every edge in two triangles; both give the same candidate).
 * The same candidates as cvx_kink_face and cvx_kink_line give, up to
 * rounding, at three multiply-adds per face and edge instead of rebuilding
 * each in W. */
static void hull_candidates_all(const posed *A, const posed *B, const posed *ps, double sign,
                                const double n[3], const double u[3], double near,
                                int *have, double *best_g, double best_n[3]) {
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
    for (int i = 0; i < G->nv; ++i) {
        const double *a = G->v + 3 * i;
        for (int k = G->adj_start[i]; k < G->adj_start[i + 1]; ++k) {
            int j = G->adj[k];
            if (j <= i) continue;
            try_edge(A, B, R, a, G->v + 3 * j, nG, n, near, have, best_g, best_n);
        }
    }
}

/* Whether vertex w is in the list cap[0..count). */
static inline int in_cap(const int *cap, int count, int w) {
    for (int k = 0; k < count; ++k)
        if (cap[k] == w) return 1;
    return 0;
}

/* Whether the sorted neighbour list of vertex i holds j. */
static inline int adjacent(const gc_shape *G, int i, int j) {
    for (int k = G->adj_start[i]; k < G->adj_start[i + 1]; ++k)
        if (G->adj[k] == j) return 1;
    return 0;
}

/* A walking hull's kinks near u = sign n, found locally. The support function
 * has a kink at direction d where two vertices (a face: three) are supports
 * together; within the cap of directions at angle <= theta of u, those
 * vertices are the ones whose normal cones meet the cap. That set holds the
 * support vertex s at u and is connected in the vertex graph (the cap is
 * connected and the cones tile the sphere), and each of its vertices w has
 * u . (s - w) <= theta |w - s| (at a direction d of the cap where w is a
 * support, d . (w - s) >= 0 and |u - d| <= theta). So a flood from s over
 * the vertices passing that test reaches every one of them, and the
 * candidates are the faces (triangles of the graph) and edges among the
 * flooded vertices: the faces whose normal is within near of u and the edges
 * whose arc of normals passes within near of it, as a pass over every face
 * and edge finds them, at a cost that does not grow with the hull. theta is
 * twice near, so rounding in the tests cannot drop a vertex. Returns 0 when
 * the flood outgrows GC_CONVEX_HULL_WALK_FLOOD_MAX (a finely tessellated
 * flat or round patch): the caller then runs hull_candidates_all. */
static int hull_candidates(const posed *A, const posed *B, const posed *ps, double sign,
                           const double n[3], const double u[3], double near, int *have,
                           double *best_g, double best_n[3]) {
    const gc_shape *G = ps->shape;
    const double *R = ps->R, *v = G->v;
    const int *off = G->adj_start, *nb = G->adj;
    double uG[3], nG[3], cand[3];
    poly_direction_G(ps, u, uG);
    poly_direction_G(ps, n, nG);
    int s = gc_hull_support_index(G, uG, ps->warm[0]);
    ps->warm[0] = s;
    double theta2 = 4.0 * near * near;
    double slack = GC_CONVEX_HULL_WALK_TIE * G->size * (fabs(uG[0]) + fabs(uG[1]) + fabs(uG[2]));
    const double *vs = v + 3 * s;
    double hs = vs[0] * uG[0] + vs[1] * uG[1] + vs[2] * uG[2];
    int cap[GC_CONVEX_HULL_WALK_FLOOD_MAX], ncap = 1;
    cap[0] = s;
    for (int q = 0; q < ncap; ++q) {
        for (int k = off[cap[q]]; k < off[cap[q] + 1]; ++k) {
            int w = nb[k];
            if (in_cap(cap, ncap, w)) continue;
            const double *vw = v + 3 * w;
            double e[3] = {vw[0] - vs[0], vw[1] - vs[1], vw[2] - vs[2]};
            double drop = hs - (vw[0] * uG[0] + vw[1] * uG[1] + vw[2] * uG[2]) - slack;
            if (drop > 0.0 && drop * drop > theta2 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]))
                continue;
            if (ncap == GC_CONVEX_HULL_WALK_FLOOD_MAX) return 0;
            cap[ncap++] = w;
        }
    }
    /* The filters below are plain products (no fused dot3: a library call
     * each where the build targets no FMA unit); they decide nothing exact:
     * every candidate is judged by its own g. */
    double face_cos = 1.0 - 0.5 * near * near;
    for (int q = 0; q < ncap; ++q) {
        int i = cap[q];
        const double *a = v + 3 * i;
        for (int k = off[i]; k < off[i + 1]; ++k) {
            int j = nb[k];
            if (j <= i || !in_cap(cap, ncap, j)) continue;
            for (int m = off[j]; m < off[j + 1]; ++m) {
                int t = nb[m];
                if (t <= j || !in_cap(cap, ncap, t) || !adjacent(G, i, t)) continue;
                const double *b = v + 3 * j, *c = v + 3 * t;
                double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
                double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, f[3];
                gc_cross(e1, e2, f);
                double norm = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
                if (!(norm > 0.0)) continue;
                double cosine = (f[0] * uG[0] + f[1] * uG[1] + f[2] * uG[2]) / norm;
                if (!(fabs(cosine) > face_cos)) continue;
                double sg = cosine > 0.0 ? 1.0 : -1.0;
                for (int r = 0; r < 3; ++r)
                    cand[r] = sign * sg * (R[3 * r] * f[0] + R[3 * r + 1] * f[1]
                                           + R[3 * r + 2] * f[2]) / norm;
                consider(A, B, cand, have, best_g, best_n);
            }
        }
    }
    for (int q = 0; q < ncap; ++q) {
        int i = cap[q];
        const double *a = v + 3 * i;
        for (int k = off[i]; k < off[i + 1]; ++k) {
            int j = nb[k];
            if (j <= i || !in_cap(cap, ncap, j)) continue;
            try_edge(A, B, R, a, v + 3 * j, nG, n, near, have, best_g, best_n);
        }
    }
    return 1;
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
            if (!hull_candidates(A, B, ps, sign, n, u, near, &have, &best_g, best_n))
                hull_candidates_all(A, B, ps, sign, n, u, near, &have, &best_g, best_n);
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

