/* Witness points from the contact features: gc_feature_witnesses (gc.h).
 *
 * Given a normal n (from B into A) and the signed distance d that g(n) =
 * -h_A(-n) - h_B(n) gives along it, the contact set is where A's support
 * feature along -n and B's support feature along n overlap once both are
 * seen along n. A support feature is a vertex, an edge or a face of a
 * polytope, a cylinder's cap disk, side segment or rim point, a capsule's
 * side segment or a point of a sphere or ellipsoid; it is written as a
 * list of surface points whose convex hull lies on the surface (a cap disk
 * by an inscribed 32-gon). Both lists are projected onto the plane normal
 * to n; the witnesses are the centre of the intersection of their convex
 * hulls (the middle of a face patch, the crossing of two edges, a corner
 * seen inside a face), written in each feature as a convex combination of
 * its own points. So each witness lies on its own shape's surface by
 * construction, and p_WCa - p_WCb = d n up to how far the features stand
 * from their supporting planes (the tolerances below). When the two hulls
 * miss each other (an n that is not optimal), each witness is its hull's
 * point nearest the other hull.
 *
 * Storage is on the stack, no globals: thread safe.
 */
#include "gc.h"
#include "gc_tolerances.h"

#define FEATURE_MAX 256
#define CLIP_MAX (2 * FEATURE_MAX + 8)
/* A cylinder's cap disk, inscribed. */
#define CAP_SIDES 32

typedef struct {
    int n;
    double p[FEATURE_MAX][3]; /* points on the surface, in W */
    double q[FEATURE_MAX][2]; /* their coordinates in the plane normal to n */
    int hull[FEATURE_MAX];    /* indices of the 2D convex hull, counter-clockwise */
    int nh;
} feature_t;

static void tangent_plane(const double n[3], double t1[3], double t2[3]) {
    int k = 0;
    if (fabs(n[1]) < fabs(n[k])) k = 1;
    if (fabs(n[2]) < fabs(n[k])) k = 2;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    gc_cross(n, axis, t1);
    gc_scale(1.0 / gc_norm(t1), t1, t1);
    gc_cross(n, t1, t2);
}

static void add_point(feature_t *f, const double p[3]) {
    if (f->n < FEATURE_MAX) gc_copy(p, f->p[f->n++]);
}

static void add_point_G(feature_t *f, const double X[16], const double p_G[3]) {
    double p_W[3];
    gc_to_world(X, p_G, p_W);
    add_point(f, p_W);
}

/* The support feature of G along u (unit, W): its surface points. `tol`
 * (m) admits polytope vertices that far below the top; `angle` (rad) makes
 * a cylinder's cap or side, a capsule's side, the feature when u is that
 * close to their normal. */
static void support_feature(const gc_shape *G, const double X[16], const double u[3], double tol,
                            double angle, feature_t *f) {
    f->n = 0;
    double u_G[3];
    gc_unrotate(X, u, u_G);
    switch (G->kind) {
    case GC_BOX: {
        double top = fabs(u_G[0]) * G->s[0] + fabs(u_G[1]) * G->s[1] + fabs(u_G[2]) * G->s[2];
        for (int i = 0; i < 8; ++i) {
            double c[3] = {(i & 4 ? 1.0 : -1.0) * G->s[0], (i & 2 ? 1.0 : -1.0) * G->s[1],
                           (i & 1 ? 1.0 : -1.0) * G->s[2]};
            if (gc_dot(c, u_G) >= top - tol) add_point_G(f, X, c);
        }
        return;
    }
    case GC_CONVEX: {
        double top = -INFINITY;
        for (int i = 0; i < G->nv; ++i) {
            double h = gc_dot(G->v + 3 * i, u_G);
            if (h > top) top = h;
        }
        for (int i = 0; i < G->nv; ++i)
            if (gc_dot(G->v + 3 * i, u_G) >= top - tol) add_point_G(f, X, G->v + 3 * i);
        return;
    }
    case GC_CYLINDER: {
        double r = G->s[0], half = G->s[1], rho = hypot(u_G[0], u_G[1]);
        double z = u_G[2] >= 0.0 ? half : -half;
        if (rho <= angle) { /* the cap */
            for (int k = 0; k < CAP_SIDES; ++k) {
                double t = 2.0 * 3.141592653589793 * k / CAP_SIDES;
                double c[3] = {r * cos(t), r * sin(t), z};
                add_point_G(f, X, c);
            }
            return;
        }
        double c[3] = {r * u_G[0] / rho, r * u_G[1] / rho, z};
        add_point_G(f, X, c);
        if (fabs(u_G[2]) <= angle) { /* the side */
            c[2] = -z;
            add_point_G(f, X, c);
        }
        return;
    }
    case GC_CAPSULE: {
        double r = G->s[0], half = G->s[1], norm = gc_norm(u_G);
        double c[3] = {r * u_G[0] / norm, r * u_G[1] / norm, r * u_G[2] / norm};
        double z = c[2];
        c[2] = z + (u_G[2] >= 0.0 ? half : -half);
        add_point_G(f, X, c);
        if (fabs(u_G[2]) <= angle) {
            c[2] = z - (u_G[2] >= 0.0 ? half : -half);
            add_point_G(f, X, c);
        }
        return;
    }
    default: { /* a sphere or an ellipsoid: its support point */
        double s[3];
        gc_support_point_G(G, u_G, s);
        add_point_G(f, X, s);
        return;
    }
    }
}

/* ---------------------------------------------------------------- 2D convex sets */

static double cross2(const double o[2], const double a[2], const double b[2]) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Andrew's monotone chain over f->q: f->hull holds 1 index (a point), 2 (a
 * segment) or >= 3 (a polygon, counter-clockwise). Points closer than
 * `merge` count as one; turns below `flat` (a doubled area) as straight. */
static void hull_2d(feature_t *f, double merge, double flat) {
    int order[FEATURE_MAX], n = f->n;
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = 1; i < n; ++i) { /* insertion sort by (x, y); n is small */
        int k = order[i], j = i - 1;
        while (j >= 0 && (f->q[order[j]][0] > f->q[k][0]
                          || (f->q[order[j]][0] == f->q[k][0] && f->q[order[j]][1] > f->q[k][1]))) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = k;
    }
    int h[2 * FEATURE_MAX + 2], m = 0;
    for (int pass = 0; pass < 2; ++pass) {
        int base = m;
        for (int s = 0; s < n; ++s) {
            int i = pass == 0 ? order[s] : order[n - 1 - s];
            while (m >= base + 2 && cross2(f->q[h[m - 2]], f->q[h[m - 1]], f->q[i]) <= flat) --m;
            h[m++] = i;
        }
        --m; /* the last point starts the other chain */
    }
    if (m < 1) m = 1; /* a single point */
    /* Merge coincident neighbours. */
    int nh = 0;
    for (int i = 0; i < m; ++i) {
        const double *a = f->q[h[i]];
        if (nh > 0) {
            const double *b = f->q[f->hull[nh - 1]];
            if (fabs(a[0] - b[0]) <= merge && fabs(a[1] - b[1]) <= merge) continue;
        }
        f->hull[nh++] = h[i];
    }
    if (nh > 1) {
        const double *a = f->q[f->hull[nh - 1]], *b = f->q[f->hull[0]];
        if (fabs(a[0] - b[0]) <= merge && fabs(a[1] - b[1]) <= merge) --nh;
    }
    if (nh < 1) {
        f->hull[0] = order[0];
        nh = 1;
    }
    f->nh = nh;
}

/* Clip the convex set `poly` (m points: a point, a segment as a 2-gon, or a
 * counter-clockwise polygon) by the half-plane left of a -> b, widened by
 * `slack`. Returns the new count. */
static int clip_half_plane(double (*poly)[2], int m, const double a[2], const double b[2],
                           double slack, double (*out)[2]) {
    double e[2] = {b[0] - a[0], b[1] - a[1]}, len = hypot(e[0], e[1]);
    if (!(len > 0.0)) {
        for (int i = 0; i < m; ++i) {
            out[i][0] = poly[i][0];
            out[i][1] = poly[i][1];
        }
        return m;
    }
    int k = 0;
    for (int i = 0; i < m; ++i) {
        const double *c = poly[i], *d = poly[(i + 1) % m];
        double sc = cross2(a, b, c) / len + slack, sd = cross2(a, b, d) / len + slack;
        if (sc >= 0.0 && k < CLIP_MAX) {
            out[k][0] = c[0];
            out[k][1] = c[1];
            ++k;
        }
        if ((sc >= 0.0) != (sd >= 0.0) && m > 1 && k < CLIP_MAX) {
            double t = sc / (sc - sd);
            out[k][0] = c[0] + t * (d[0] - c[0]);
            out[k][1] = c[1] + t * (d[1] - c[1]);
            ++k;
        }
    }
    return k;
}

/* The point of segment [a, b] nearest to c. */
static void nearest_on_segment(const double a[2], const double b[2], const double c[2],
                               double out[2]) {
    double e[2] = {b[0] - a[0], b[1] - a[1]}, ee = e[0] * e[0] + e[1] * e[1];
    double t = ee > 0.0 ? ((c[0] - a[0]) * e[0] + (c[1] - a[1]) * e[1]) / ee : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    out[0] = a[0] + t * e[0];
    out[1] = a[1] + t * e[1];
}

/* Whether c lies in the hull of f (within slack). */
static int inside_hull(const feature_t *f, const double c[2], double slack) {
    if (f->nh < 3) return 0;
    for (int i = 0; i < f->nh; ++i) {
        const double *a = f->q[f->hull[i]], *b = f->q[f->hull[(i + 1) % f->nh]];
        double len = hypot(b[0] - a[0], b[1] - a[1]);
        if (len > 0.0 && cross2(a, b, c) / len < -slack) return 0;
    }
    return 1;
}

/* The point of f's hull nearest to c. */
static void nearest_in_hull(const feature_t *f, const double c[2], double out[2]) {
    if (inside_hull(f, c, 0.0)) {
        out[0] = c[0];
        out[1] = c[1];
        return;
    }
    double best = INFINITY;
    for (int i = 0; i < f->nh; ++i) {
        double p[2];
        const double *a = f->q[f->hull[i]], *b = f->q[f->hull[(i + 1) % f->nh]];
        nearest_on_segment(a, b, c, p);
        double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]);
        if (d2 < best) {
            best = d2;
            out[0] = p[0];
            out[1] = p[1];
        }
    }
}

/* Points of f's and g's hulls nearest each other (alternating projections
 * from the hull vertices: exact for the small sets met here up to the
 * vertex-edge candidates it tries). */
static void nearest_pair(const feature_t *f, const feature_t *g, double pf[2], double pg[2]) {
    double best = INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        const feature_t *from = pass == 0 ? f : g, *to = pass == 0 ? g : f;
        for (int i = 0; i < from->nh; ++i) {
            const double *c = from->q[from->hull[i]];
            double p[2] = {c[0], c[1]};
            nearest_in_hull(to, c, p);
            double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]);
            if (d2 < best) {
                best = d2;
                double *self = pass == 0 ? pf : pg, *other = pass == 0 ? pg : pf;
                self[0] = c[0];
                self[1] = c[1];
                other[0] = p[0];
                other[1] = p[1];
            }
        }
    }
    /* Two segments that cross: their crossing. */
    if (f->nh == 2 && g->nh == 2) {
        const double *a = f->q[f->hull[0]], *b = f->q[f->hull[1]];
        const double *c = g->q[g->hull[0]], *d = g->q[g->hull[1]];
        double ab_c = cross2(a, b, c), ab_d = cross2(a, b, d);
        double cd_a = cross2(c, d, a), cd_b = cross2(c, d, b);
        if (ab_c * ab_d < 0.0 && cd_a * cd_b < 0.0) {
            double t = cd_a / (cd_a - cd_b);
            pf[0] = pg[0] = a[0] + t * (b[0] - a[0]);
            pf[1] = pg[1] = a[1] + t * (b[1] - a[1]);
        }
    }
}

/* The surface point of f over the plane point c (c in or near f's hull): a
 * convex combination of f's points. */
static void lift(const feature_t *f, const double c[2], double out[3]) {
    if (f->nh == 1) {
        gc_copy(f->p[f->hull[0]], out);
        return;
    }
    if (f->nh == 2) {
        const double *a = f->q[f->hull[0]], *b = f->q[f->hull[1]];
        double e[2] = {b[0] - a[0], b[1] - a[1]}, ee = e[0] * e[0] + e[1] * e[1];
        double t = ee > 0.0 ? ((c[0] - a[0]) * e[0] + (c[1] - a[1]) * e[1]) / ee : 0.0;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        const double *pa = f->p[f->hull[0]], *pb = f->p[f->hull[1]];
        for (int k = 0; k < 3; ++k) out[k] = pa[k] + t * (pb[k] - pa[k]);
        return;
    }
    /* A fan from the first hull point: the triangle whose least barycentric
     * coordinate is largest holds c (or is nearest it); clamp and scale. */
    const double *o = f->q[f->hull[0]];
    double best = -INFINITY, lam[3] = {1.0, 0.0, 0.0};
    int best_i = 1;
    for (int i = 1; i + 1 < f->nh; ++i) {
        const double *a = f->q[f->hull[i]], *b = f->q[f->hull[i + 1]];
        double area = cross2(o, a, b);
        if (!(area > 0.0)) continue;
        double l1 = cross2(c, a, b) / area, l2 = cross2(o, c, b) / area, l3 = cross2(o, a, c) / area;
        double least = fmin(l1, fmin(l2, l3));
        if (least > best) {
            best = least;
            best_i = i;
            lam[0] = l1;
            lam[1] = l2;
            lam[2] = l3;
        }
    }
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) {
        if (lam[k] < 0.0) lam[k] = 0.0;
        sum += lam[k];
    }
    if (!(sum > 0.0)) {
        lam[0] = 1.0;
        sum = 1.0;
    }
    const double *p0 = f->p[f->hull[0]], *p1 = f->p[f->hull[best_i]],
                 *p2 = f->p[f->hull[best_i < f->nh - 1 ? best_i + 1 : best_i]];
    for (int k = 0; k < 3; ++k) out[k] = (lam[0] * p0[k] + lam[1] * p1[k] + lam[2] * p2[k]) / sum;
}

/* The centre of the intersection of f's and g's hulls; 0 when they miss. */
static int intersection_centre(const feature_t *f, const feature_t *g, double slack,
                               double centre[2]) {
    /* Clip a point, a segment or f by the other's polygon. */
    const feature_t *clipped, *by;
    if (g->nh >= 3) {
        clipped = f;
        by = g;
    } else if (f->nh >= 3) {
        clipped = g;
        by = f;
    } else {
        return 0; /* two points or segments: nearest_pair */
    }
    double buf[2][CLIP_MAX][2];
    int m = clipped->nh, src = 0;
    for (int i = 0; i < m; ++i) {
        buf[0][i][0] = clipped->q[clipped->hull[i]][0];
        buf[0][i][1] = clipped->q[clipped->hull[i]][1];
    }
    for (int i = 0; i < by->nh && m > 0; ++i) {
        const double *a = by->q[by->hull[i]], *b = by->q[by->hull[(i + 1) % by->nh]];
        m = clip_half_plane(buf[src], m, a, b, slack, buf[1 - src]);
        src = 1 - src;
    }
    if (m == 0) return 0;
    /* The mean of the distinct vertices. */
    double sum[2] = {0.0, 0.0};
    int count = 0;
    for (int i = 0; i < m; ++i) {
        int seen = 0;
        for (int j = 0; j < i && !seen; ++j)
            seen = fabs(buf[src][i][0] - buf[src][j][0]) <= slack
                   && fabs(buf[src][i][1] - buf[src][j][1]) <= slack;
        if (seen) continue;
        sum[0] += buf[src][i][0];
        sum[1] += buf[src][i][1];
        ++count;
    }
    centre[0] = sum[0] / count;
    centre[1] = sum[1] / count;
    return 1;
}

int gc_feature_witnesses(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                         const double X_WB[16], const double n[3], double tol, double angle,
                         double p_WCa[3], double p_WCb[3]) {
    double m[3] = {-n[0], -n[1], -n[2]}, t1[3], t2[3];
    feature_t fa, fb;
    support_feature(A, X_WA, m, tol, angle, &fa);
    support_feature(B, X_WB, n, tol, angle, &fb);
    tangent_plane(n, t1, t2);
    /* Plane coordinates relative to a common origin (A's first point), so
     * that coordinates near 1e5 m keep their differences. */
    const double *o = fa.p[0];
    feature_t *fs[2] = {&fa, &fb};
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < fs[s]->n; ++i) {
            double r[3];
            gc_sub(fs[s]->p[i], o, r);
            fs[s]->q[i][0] = gc_dot(r, t1);
            fs[s]->q[i][1] = gc_dot(r, t2);
        }
    }
    double size = 0.0;
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < fs[s]->n; ++i)
            size = fmax(size, fmax(fabs(fs[s]->q[i][0]), fabs(fs[s]->q[i][1])));
    double merge = 1e-13 * fmax(size, tol);
    hull_2d(&fa, merge, merge * merge);
    hull_2d(&fb, merge, merge * merge);
    double ca[2], cb[2];
    int overlap = intersection_centre(&fa, &fb, fmax(tol, merge), ca);
    if (overlap) {
        cb[0] = ca[0];
        cb[1] = ca[1];
    } else {
        nearest_pair(&fa, &fb, ca, cb);
        overlap = fabs(ca[0] - cb[0]) <= tol && fabs(ca[1] - cb[1]) <= tol;
    }
    lift(&fa, ca, p_WCa);
    lift(&fb, cb, p_WCb);
    return overlap;
}
