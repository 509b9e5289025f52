/* Support functions of every shape, in G and posed in W, with their kinks.
 *
 * h_S(d) = max over s in S of d . s and a maximiser s_S(d), for a sphere,
 * box, cylinder, capsule, ellipsoid and hull, with deterministic ties (a zero
 * component counts as positive, a cylinder's d without xy part takes the rim
 * point on +Gx, a hull a maximising vertex). posed keeps a shape's
 * core (the shape less its margin radius) in W; the kinks (box faces and
 * edges, cylinder caps and sides, hull faces and edges) and the curvature
 * (support Jacobian) serve Newton and the kink snap.
 */
#include <string.h>

#include "gc_convex.h"

/* ================================================================ hull vertices
 * A hull's support point is a vertex maximising d_G . v. Large hulls walk
 * their vertex graph (the triangles' edges) uphill, as FCL, libccd and coal
 * do: on a convex polytope a vertex with no better neighbour is a global
 * maximum (if v were not, the edges at v span the cone of feasible
 * directions, so one of them would rise along d). Rounding can make two
 * neighbours on a flat face (or an exact tie) look level, so the walk ends
 * with a flood over the vertices within GC_CONVEX_HULL_WALK_TIE of the top:
 * the vertices at or above any level form a connected subgraph, so the
 * flood reaches the scan's maximiser. Every value is the same dot3 as the
 * scan's, so the walk's maximum is the scan's maximum bit for bit. */

static inline double hull_h(const double *v, int i, const double g[3]) {
    return dot3(v + 3 * i, g);
}

GC_FMA_CLONES int gc_hull_support_scan(const gc_shape *G, const double g[3]) {
    int best = 0;
    double top = -INFINITY;
    for (int i = 0; i < G->nv; ++i) {
        double h = hull_h(G->v, i, g);
        if (h > top || i == 0) {
            top = h;
            best = i;
        }
    }
    return best;
}

GC_FMA_CLONES int gc_hull_support_index(const gc_shape *G, const double g[3], int start) {
    int nv = G->nv;
    if (G->adj_start == NULL || nv <= GC_CONVEX_HULL_WALK_MIN_VERTICES)
        return gc_hull_support_scan(G, g);
    if (!(g[0] == g[0] && g[1] == g[1] && g[2] == g[2])) return 0; /* NaN: the scan's 0 */
    const double *v = G->v;
    const int *off = G->adj_start, *nb = G->adj;
    int best = start;
    double top;
    if (start >= 0 && start < nv) {
        top = hull_h(v, best, g);
    } else {
        best = G->starts[0];
        top = hull_h(v, best, g);
        for (int k = 1; k < 14; ++k) {
            double h = hull_h(v, G->starts[k], g);
            if (h > top) {
                top = h;
                best = G->starts[k];
            }
        }
    }
    double tol = GC_CONVEX_HULL_WALK_TIE * G->size * (fabs(g[0]) + fabs(g[1]) + fabs(g[2]));
    int level; /* a neighbour of the stop within tol of the top: a flood is due */
    for (;;) {
        int next = -1;
        double rise = top;
        level = 0;
        for (int k = off[best]; k < off[best + 1]; ++k) {
            double h = hull_h(v, nb[k], g);
            if (h > rise) {
                rise = h;
                next = nb[k];
            }
            if (h >= top - tol) level = 1;
        }
        if (next < 0) break; /* strict rises only: the walk ends */
        best = next;
        top = rise;
    }
    if (!level) return best;
    /* Flood the plateau breadth first; seen is the queue and the visited set. */
    int seen[GC_CONVEX_HULL_WALK_FLOOD_MAX];
    int ns = 1, q = 0;
    seen[0] = best;
    while (q < ns) {
        int u = seen[q++];
        for (int k = off[u]; k < off[u + 1]; ++k) {
            int w = nb[k];
            int known = 0;
            for (int j = 0; j < ns && !known; ++j) known = seen[j] == w;
            if (known) continue;
            double h = hull_h(v, w, g);
            if (h < top - tol) continue;
            if (ns == GC_CONVEX_HULL_WALK_FLOOD_MAX) return gc_hull_support_scan(G, g);
            seen[ns++] = w;
            if (h > top) {
                top = h;
                best = w;
            }
        }
    }
    return best;
}

void gc_hull_starts(gc_shape *G) {
    for (int k = 0; k < 14; ++k) {
        double d[3] = {0.0, 0.0, 0.0};
        if (k < 6) {
            d[k / 2] = k % 2 ? -1.0 : 1.0;
        } else {
            d[0] = (k - 6) & 1 ? -1.0 : 1.0;
            d[1] = (k - 6) & 2 ? -1.0 : 1.0;
            d[2] = (k - 6) & 4 ? -1.0 : 1.0;
        }
        G->starts[k] = G->nv > 0 ? gc_hull_support_scan(G, d) : 0;
    }
}

/* ================================================================ support functions in G */


/* The full shape's support point in G (core plus margin). */
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
    case GC_CONVEX:
        gc_copy(G->v + 3 * gc_hull_support_index(G, d, -1), s);
        return;
    default:
        s[0] = s[1] = s[2] = NAN;
        return;
    }
}

double gc_support_value_W(const gc_shape *G, const double X_WG[16], const double d_W[3]) {
    int start = -1;
    return gc_support_value_W_from(G, X_WG, d_W, &start);
}

GC_FMA_CLONES double gc_support_value_W_from(const gc_shape *G, const double X_WG[16],
                                             const double d_W[3], int *start) {
    if (G->kind == GC_HALFSPACE) return INFINITY;
    if (G->kind == GC_MESH) return NAN;
    double d_G[3], s[3];
    /* d_W @ R_WG */
    for (int j = 0; j < 3; ++j)
        d_G[j] = dot3_fma(d_W[0], X_WG[j], d_W[1], X_WG[4 + j], d_W[2], X_WG[8 + j]);
    if (G->kind == GC_CONVEX) {
        *start = gc_hull_support_index(G, d_G, *start);
        gc_copy(G->v + 3 * *start, s);
    } else {
        gc_support_point_G(G, d_G, s);
    }
    double h_G = d_G[0] * s[0] + d_G[1] * s[1] + d_G[2] * s[2];
    double p[3] = {X_WG[3], X_WG[7], X_WG[11]};
    return h_G + dot3(d_W, p);
}

/* ================================================================ posed shapes */


void cvx_posed_init(posed *ps, const gc_shape *G, const double X[16]) {
    ps->shape = G;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) ps->R[3 * i + j] = X[4 * i + j];
        ps->p[i] = X[4 * i + 3];
    }
    ps->radius = 0.0;
    ps->prm[0] = ps->prm[1] = ps->prm[2] = 0.0;
    ps->warm = &ps->warm_store;
    ps->warm_store = -1;
    ps->spread = &ps->spread_store;
    ps->spread_store = -1.0;
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
double cvx_bounding_radius(const gc_shape *G) {
    double h[3];
    switch (G->kind) {
    case GC_SPHERE: h[0] = h[1] = h[2] = G->s[0]; break;
    case GC_BOX:
    case GC_ELLIPSOID: h[0] = G->s[0]; h[1] = G->s[1]; h[2] = G->s[2]; break;
    case GC_CYLINDER: h[0] = h[1] = G->s[0]; h[2] = G->s[1]; break;
    case GC_CAPSULE: h[0] = h[1] = G->s[0]; h[2] = G->s[1] + G->s[0]; break;
    default: return G->bound;
    }
    return sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
}

double gc_hull_bound(const gc_shape *G) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, h[3];
    for (int i = 0; i < G->nv; ++i)
        for (int k = 0; k < 3; ++k) {
            double x = G->v[3 * i + k];
            if (x < lo[k]) lo[k] = x;
            if (x > hi[k]) hi[k] = x;
        }
    for (int k = 0; k < 3; ++k) h[k] = fabs(0.5 * (lo[k] + hi[k])) + 0.5 * (hi[k] - lo[k]);
    return sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
}



/* The core's support point in W along d (W). */
GC_FMA_CLONES void cvx_core_point(const posed *ps, const double d[3], double out[3]) {
    const double *R = ps->R, *p = ps->p;
    if (ps->kind == PK_POINT) {
        gc_copy(p, out);
        return;
    }
    if (ps->kind == PK_POLY) {
        /* d in G (d @ R_WG), then the vertex; the walk starts where this
         * hull's last support point in this pair query was: GJK, EPA and
         * Newton turn the direction a little at a time. */
        double g[3];
        poly_direction_G(ps, d, g);
        int best = gc_hull_support_index(ps->shape, g, ps->warm[0]);
        ps->warm[0] = best;
        poly_vertex_W(ps, best, out);
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

/* Kink directions (box face normals and edges, cylinder caps and sides, hull
 * faces and edges), in W, enumerated one at a time. */
int cvx_kink_face_count(const posed *ps) {
    switch (ps->kind) {
    case PK_BOX: return 3;
    case PK_CYLINDER: return 1;
    case PK_POLY: return ps->shape->nt;
    default: return 0;
    }
}
int cvx_kink_line_count(const posed *ps) {
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
void cvx_kink_face(const posed *ps, int k, double out[3]) {
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
void cvx_kink_line(const posed *ps, int k, double out[3]) {
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
    cvx_kink_face(ps, k, out);
}

/* Whether the support map is smooth at unit u (W): no kink within tol. */
int cvx_posed_is_smooth(const posed *ps, const double u[3], double tol) {
    if (ps->kind == PK_POINT) return 1;
    if (poly_walks(ps)) {
        /* The largest value is the walk's; the second largest is a
         * neighbour's of the top vertex (a vertex below the top has an edge
         * that rises, and only the top is above the second), or the top's
         * own value again where the maximum is a tie (a face or an edge). */
        const gc_shape *G = ps->shape;
        double g[3];
        poly_direction_G(ps, u, g);
        int b = gc_hull_support_index(G, g, ps->warm[0]);
        ps->warm[0] = b;
        double top1 = dot3(G->v + 3 * b, g), top0 = -INFINITY;
        for (int k = G->adj_start[b]; k < G->adj_start[b + 1]; ++k) {
            double h = dot3(G->v + 3 * G->adj[k], g);
            if (h > top0) top0 = h;
        }
        if (ps->spread[0] < 0.0) {
            /* The widest extent of the vertices along an axis of W: h(e_k) +
             * h(-e_k), e_k in G being row k of R_WG. */
            double spread = 0.0;
            for (int k = 0; k < 3; ++k) {
                double e[3] = {ps->R[3 * k], ps->R[3 * k + 1], ps->R[3 * k + 2]};
                double m[3] = {-e[0], -e[1], -e[2]};
                double hi = dot3(G->v + 3 * gc_hull_support_index(G, e, b), e);
                double lo = dot3(G->v + 3 * gc_hull_support_index(G, m, b), m);
                if (hi + lo > spread) spread = hi + lo;
            }
            ps->spread[0] = spread;
        }
        return fabs(top1 - top0) > tol * ps->spread[0];
    }
    if (ps->kind == PK_POLY) {
        int nv = ps->shape->nv;
        if (nv < 2) return 1;
        double top0 = -INFINITY, top1 = -INFINITY; /* second largest, largest */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < nv; ++i) {
            double v[3];
            poly_vertex_W(ps, i, v);
            double h = dotv3_fma(v, u);
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

/* The core support's Jacobian at unit u (W): R J_G(R^T u) R^T. */
void cvx_core_jacobian_W(const posed *ps, const double u[3], double J[9]) {
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

