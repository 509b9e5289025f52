/* Snapping onto kinks: a normal within GC_CONVEX_KINK_SNAP of a kink of
 * either support function (a box face normal, a cylinder cap axis, across a
 * side line or an edge) is tried exactly on it, and kept when its g reaches
 * the certified answer: GJK's normal at such contacts is only good to
 * ~sqrt(gap / distance).
 *
 * A walking hull's kinks near its support direction u are found locally.
 * The support function has a kink at a direction d where two vertices (a
 * face: three) are supports together; within the cap of directions at angle
 * <= theta of u, those vertices are the ones whose normal cones meet the
 * cap. That set holds the support vertex s at u and is connected in the
 * vertex graph (the cap is connected and the cones tile the sphere), and
 * each of its vertices w has u . (s - w) <= theta |w - s| (at a direction d
 * of the cap where w is a support, d . (w - s) >= 0 and |u - d| <= theta).
 * So a flood from s over the vertices passing that test reaches every one of
 * them. The candidates are then the faces (triangles of the graph) and edges
 * among the flooded vertices: the faces whose normal is within near of u and
 * the edges whose arc of normals passes within near of it, as a pass over
 * every face and edge finds them, at a cost that does not grow with the
 * hull. Every candidate lies within near of n, inside the cap, so the
 * flooded vertices also hold its support point: g at a candidate is a max
 * over them, the same value as the walk's. theta is twice near, so rounding
 * in the tests cannot drop a vertex. A flood that outgrows
 * GC_CONVEX_HULL_WALK_FLOOD_MAX (a finely tessellated flat or round patch)
 * falls back to a pass over every face and edge, with walked supports.
 */
#include <string.h>

#include "gc_convex.h"

/* ================================================================ snapping onto kinks */

/* A side's flooded vertices (count 0: none, its supports are walked), and
 * the same as a hash set (open addressing, -1 empty) for membership tests. */
#define CAP_SLOTS 256
_Static_assert(2 * GC_CONVEX_HULL_WALK_FLOOD_MAX <= CAP_SLOTS, "the cap's set is too small");
typedef struct {
    const posed *ps;
    int count;
    int idx[GC_CONVEX_HULL_WALK_FLOOD_MAX];
    int slot[CAP_SLOTS];
} cap_t;

static inline unsigned cap_hash(int w) { return ((unsigned)w * 2654435761u) >> 24; }

/* Whether vertex w is flooded; else, with add, its slot takes it. */
static inline int cap_has(cap_t *cap, int w, int add) {
    unsigned h = cap_hash(w);
    while (cap->slot[h] >= 0) {
        if (cap->slot[h] == w) return 1;
        h = (h + 1) & (CAP_SLOTS - 1);
    }
    if (add) cap->slot[h] = w;
    return 0;
}

/* The candidates so far: the best g and its normal (the first of equal g
 * wins), and the first SNAP_SEEN candidates tried. */
#define SNAP_SEEN 32
typedef struct {
    const posed *A, *B;
    const cap_t *cap_A, *cap_B;
    int have;
    double best_g, best_n[3];
    int nseen;
    double seen[SNAP_SEEN][3];
} snap_t;

/* The core's support point along d (W): the best flooded vertex, else the walk's. */
GC_FMA_CLONES static void cap_point(const cap_t *cap, const double d[3], double out[3]) {
    const posed *ps = cap->ps;
    if (cap->count == 0) {
        cvx_core_point(ps, d, out);
        return;
    }
    const double *v = ps->shape->v;
    double g[3];
    poly_direction_G(ps, d, g);
    int best = cap->idx[0];
    double top = dot3(v + 3 * best, g);
    for (int k = 1; k < cap->count; ++k) {
        double h = dot3(v + 3 * cap->idx[k], g);
        if (h > top) {
            top = h;
            best = cap->idx[k];
        }
    }
    poly_vertex_W(ps, best, out);
}

/* Try cand: cvx_g_and_m's g, with the supports read from the caps. A
 * candidate within GC_CONVEX_SNAP_SAME of one already tried is skipped: a
 * flat patch's coplanar triangles and edges all give its normal (or n
 * itself) again, up to rounding, and their g differ by no more than
 * rounding does. */
static void consider(snap_t *sn, const double cand[3]) {
    for (int k = 0; k < sn->nseen; ++k) {
        const double *c = sn->seen[k];
        if (fabs(c[0] - cand[0]) <= GC_CONVEX_SNAP_SAME && fabs(c[1] - cand[1]) <= GC_CONVEX_SNAP_SAME
            && fabs(c[2] - cand[2]) <= GC_CONVEX_SNAP_SAME)
            return;
    }
    if (sn->nseen < SNAP_SEEN) gc_copy(cand, sn->seen[sn->nseen++]);
    double nn[3] = {-cand[0], -cand[1], -cand[2]}, a[3], b[3], m[3];
    cap_point(sn->cap_A, nn, a);
    cap_point(sn->cap_B, cand, b);
    double rs = sn->A->radius + sn->B->radius;
    for (int k = 0; k < 3; ++k) m[k] = (a[k] - b[k]) - rs * cand[k];
    double g = gc_dot(cand, m);
    if (!sn->have || g > sn->best_g) {
        sn->have = 1;
        sn->best_g = g;
        gc_copy(cand, sn->best_n);
    }
}

/* A kink line l (unit, W) as a candidate: n moved onto the plane normal to
 * l, when it lies within near of that plane. */
static void try_line(snap_t *sn, const double l[3], const double n[3], double near) {
    double along = gc_dot(l, n), cand[3];
    if (!(fabs(along) < near)) return;
    for (int r = 0; r < 3; ++r) cand[r] = n[r] - along * l[r];
    double norm = gc_norm(cand);
    for (int r = 0; r < 3; ++r) cand[r] /= norm;
    consider(sn, cand);
}

/* The edge a -> b of a hull (in G, R its rotation into W) as a candidate:
 * n moved onto the plane normal to the edge, when it lies within near of
 * that plane. */
static void try_edge(snap_t *sn, const double R[9], const double a[3], const double b[3],
                     const double nG[3], const double n[3], double near) {
    double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, l[3];
    double en = e[0] * nG[0] + e[1] * nG[1] + e[2] * nG[2];
    double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    /* |l . n| < near with l = e / |e|, without the root; exact test below */
    if (!(en * en < 1.0000001 * near * near * ee)) return;
    double len = sqrt(ee);
    for (int r = 0; r < 3; ++r)
        l[r] = (R[3 * r] * e[0] + R[3 * r + 1] * e[1] + R[3 * r + 2] * e[2]) / len;
    try_line(sn, l, n, near);
}

/* Every kink of a walking hull near u = sign n, read in G (where the flood
 * overflowed): the triangles' unit normals (the spec's) and each edge of the
 * vertex graph once (a closed surface lists every edge in two triangles;
 * both give the same candidate). The same candidates as cvx_kink_face and
 * cvx_kink_line give, up to rounding, at three multiply-adds per face and
 * edge instead of rebuilding each in W. The filters here and below are
 * plain products (no fused dot3: a library call each where the build
 * targets no FMA unit); they decide nothing exact: every candidate is
 * judged by its own g. */
static void hull_candidates_all(snap_t *sn, const posed *ps, double sign, const double n[3],
                                const double u[3], double near) {
    const gc_shape *G = ps->shape;
    const double *R = ps->R;
    double uG[3], nG[3], cand[3];
    poly_direction_G(ps, u, uG);
    poly_direction_G(ps, n, nG);
    double face_cos = 1.0 - 0.5 * near * near;
    for (int t = 0; t < G->nt; ++t) {
        const double *f = G->tri_n + 3 * t;
        double cosine = f[0] * uG[0] + f[1] * uG[1] + f[2] * uG[2];
        if (!(fabs(cosine) > face_cos)) continue;
        double sg = cosine > 0.0 ? 1.0 : -1.0;
        for (int i = 0; i < 3; ++i)
            cand[i] = sign * sg * (R[3 * i] * f[0] + R[3 * i + 1] * f[1] + R[3 * i + 2] * f[2]);
        consider(sn, cand);
    }
    for (int i = 0; i < G->nv; ++i)
        for (int k = G->adj_start[i]; k < G->adj_start[i + 1]; ++k)
            if (G->adj[k] > i) try_edge(sn, R, G->v + 3 * i, G->v + 3 * G->adj[k], nG, n, near);
}

/* Whether the sorted neighbour list of vertex i holds j. */
static inline int adjacent(const gc_shape *G, int i, int j) {
    for (int k = G->adj_start[i]; k < G->adj_start[i + 1]; ++k)
        if (G->adj[k] == j) return 1;
    return 0;
}

/* The flood from the support vertex at u (see the file comment) into cap;
 * 0 when it overflows (cap->count is then 0). */
GC_FMA_CLONES static int flood_cap(const posed *ps, const double u[3], double near, cap_t *cap) {
    const gc_shape *G = ps->shape;
    const double *v = G->v;
    const int *off = G->adj_start, *nb = G->adj;
    double uG[3];
    poly_direction_G(ps, u, uG);
    int s = gc_hull_support_index(G, uG, ps->warm[0]);
    ps->warm[0] = s;
    double theta2 = 4.0 * near * near;
    double slack = GC_CONVEX_HULL_WALK_TIE * G->size * (fabs(uG[0]) + fabs(uG[1]) + fabs(uG[2]));
    const double *vs = v + 3 * s;
    double hs = vs[0] * uG[0] + vs[1] * uG[1] + vs[2] * uG[2];
    int *idx = cap->idx, count = 1;
    memset(cap->slot, 0xff, sizeof(cap->slot));
    idx[0] = s;
    cap_has(cap, s, 1);
    cap->count = 0;
    for (int q = 0; q < count; ++q) {
        for (int k = off[idx[q]]; k < off[idx[q] + 1]; ++k) {
            int w = nb[k];
            if (cap_has(cap, w, 0)) continue;
            const double *vw = v + 3 * w;
            double e[3] = {vw[0] - vs[0], vw[1] - vs[1], vw[2] - vs[2]};
            double drop = hs - (vw[0] * uG[0] + vw[1] * uG[1] + vw[2] * uG[2]) - slack;
            if (drop > 0.0 && drop * drop > theta2 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]))
                continue;
            if (count == GC_CONVEX_HULL_WALK_FLOOD_MAX) return 0;
            idx[count++] = w;
            cap_has(cap, w, 1);
        }
    }
    cap->count = count;
    return 1;
}

/* The faces and edges among a side's flooded vertices as candidates. */
GC_FMA_CLONES static void cap_candidates(snap_t *sn, cap_t *cap, double sign, const double n[3],
                           const double u[3], double near) {
    const posed *ps = cap->ps;
    const gc_shape *G = ps->shape;
    const double *R = ps->R, *v = G->v;
    const int *off = G->adj_start, *nb = G->adj, *idx = cap->idx;
    int count = cap->count;
    double uG[3], nG[3], cand[3];
    poly_direction_G(ps, u, uG);
    poly_direction_G(ps, n, nG);
    double face_cos = 1.0 - 0.5 * near * near;
    for (int q = 0; q < count; ++q) {
        int i = idx[q];
        const double *a = v + 3 * i;
        for (int k = off[i]; k < off[i + 1]; ++k) {
            int j = nb[k];
            if (j <= i || !cap_has(cap, j, 0)) continue;
            for (int m = off[j]; m < off[j + 1]; ++m) {
                int t = nb[m];
                if (t <= j || !cap_has(cap, t, 0) || !adjacent(G, i, t)) continue;
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
                consider(sn, cand);
            }
        }
    }
    for (int q = 0; q < count; ++q) {
        int i = idx[q];
        for (int k = off[i]; k < off[i + 1]; ++k) {
            int j = nb[k];
            if (j > i && cap_has(cap, j, 0)) try_edge(sn, R, v + 3 * i, v + 3 * j, nG, n, near);
        }
    }
}

/* The kinks of a shape that does not walk (box, cylinder, segment, small
 * hull), enumerated in W: faces first, then lines. */
static void shape_candidates(snap_t *sn, const posed *ps, double sign, const double n[3],
                             const double u[3], double near) {
    int nf = cvx_kink_face_count(ps), nl = cvx_kink_line_count(ps);
    for (int k = 0; k < nf + nl; ++k) {
        double cand[3], f[3], l[3];
        if (k >= nf) {
            cvx_kink_line(ps, k - nf, l);
            try_line(sn, l, n, near);
            continue;
        }
        cvx_kink_face(ps, k, f);
        double cosine = gc_dot(f, u);
        if (!(fabs(cosine) > 1.0 - 0.5 * near * near)) continue;
        double sg = cosine > 0.0 ? 1.0 : (cosine < 0.0 ? -1.0 : 0.0);
        for (int i = 0; i < 3; ++i) cand[i] = sign * sg * f[i];
        consider(sn, cand);
    }
}

int cvx_snap_to_kinks(const posed *A, const posed *B, const double n[3], double distance,
                         double p_WCa[3], double p_WCb[3], double slack, double n_out[3],
                         double *g_out) {
    double m[3];
    double g0 = cvx_g_and_m(A, B, n, m);
    double near = GC_CONVEX_KINK_SNAP;
    cap_t caps[2];
    snap_t sn = {A, B, &caps[0], &caps[1], 0, 0.0, {0.0, 0.0, 0.0}, 0, {{0.0}}};
    int flooded[2];
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        double sign = side == 0 ? -1.0 : 1.0;
        double u[3] = {sign * n[0], sign * n[1], sign * n[2]};
        caps[side].ps = ps;
        caps[side].count = 0;
        flooded[side] = poly_walks(ps) && flood_cap(ps, u, near, &caps[side]);
    }
    for (int side = 0; side < 2; ++side) {
        const posed *ps = side == 0 ? A : B;
        double sign = side == 0 ? -1.0 : 1.0;
        double u[3] = {sign * n[0], sign * n[1], sign * n[2]};
        if (flooded[side])
            cap_candidates(&sn, &caps[side], sign, n, u, near);
        else if (poly_walks(ps))
            hull_candidates_all(&sn, ps, sign, n, u, near);
        else
            shape_candidates(&sn, ps, sign, n, u, near);
    }
    double floor_ = distance - slack;
    if (g0 > floor_) floor_ = g0;
    if (!sn.have || sn.best_g < floor_) return 0;
    const double *best_n = sn.best_n;
    double nn[3] = {-best_n[0], -best_n[1], -best_n[2]}, a[3];
    cvx_core_point(A, nn, a);
    double h_A = -(gc_dot(best_n, a) - A->radius);
    double shift = -h_A - gc_dot(best_n, p_WCa);
    for (int i = 0; i < 3; ++i) p_WCa[i] = p_WCa[i] + shift * best_n[i];
    for (int i = 0; i < 3; ++i) p_WCb[i] = p_WCa[i] - sn.best_g * best_n[i];
    gc_copy(best_n, n_out);
    *g_out = sn.best_g;
    return 1;
}
