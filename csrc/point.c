/* Signed distance from a point to a shape, in closed form (an ellipsoid by
 * safeguarded Newton on its Lagrange parameter), with Drake's conventions:
 * Sign(0) = +1, the box tie order +x, -x, +y, -y, +z, -z, the x axis on a
 * centre or an axis, the mean of the incident face normals on an edge or a
 * corner (DistanceToPoint in Drake's geometry/proximity).
 *
 * Every kernel works in G and returns (distance, p_GN, grad_G, unique).
 */
#include <stdlib.h>

#include "gc.h"
#include "gc_tolerances.h"

/* Drake's DistanceToPointRelativeTolerance(size). */
static double feature_tolerance(double size) {
    return GC_DISTANCE_TO_POINT_RELATIVE_TOLERANCE * (size > 1.0 ? size : 1.0);
}

static void set_result(gc_point_result *out, double distance, const double p_GN[3],
                       const double grad_G[3], int unique) {
    out->distance = distance;
    gc_copy(p_GN, out->p_GN);
    gc_copy(grad_G, out->grad);
    out->unique = unique;
}

/* ------------------------------------------------------------------ sphere */

static void sphere_in_G(double radius, const double p[3], gc_point_result *out) {
    double dist_GoQ = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    int unique = dist_GoQ > feature_tolerance(radius);
    double grad[3], p_GN[3], p_NQ[3];
    if (unique) {
        grad[0] = p[0] / dist_GoQ;
        grad[1] = p[1] / dist_GoQ;
        grad[2] = p[2] / dist_GoQ;
    } else {
        grad[0] = 1.0; grad[1] = 0.0; grad[2] = 0.0;
    }
    gc_scale(radius, grad, p_GN);
    /* Projecting on grad (not |p| - r) keeps the distance consistent with the
     * chosen gradient at the centre, as Drake does. */
    gc_sub(p, p_GN, p_NQ);
    set_result(out, gc_dot(p_NQ, grad), p_GN, grad, unique);
}

/* ------------------------------------------------------------------ box (2-D or 3-D) */

/* Signed distance to the axis-aligned box [-h, h] in n = 2 or 3 dimensions. */
static void box_in_G_n(int n, const double *h, const double *p, double *distance,
                       double *p_GN, double *grad, int *unique) {
    double tol[3], abs_p[3], sign[3];
    int outside[3], boundary[3], any_outside = 0, n_boundary = 0;
    for (int i = 0; i < n; ++i) {
        tol[i] = GC_DISTANCE_TO_POINT_RELATIVE_TOLERANCE * (h[i] > 1.0 ? h[i] : 1.0);
        abs_p[i] = fabs(p[i]);
        sign[i] = p[i] < 0.0 ? -1.0 : 1.0; /* Drake's Sign(0) == +1 */
        outside[i] = abs_p[i] > h[i] + tol[i];
        boundary[i] = !outside[i] && abs_p[i] >= h[i] - tol[i];
        p_GN[i] = (outside[i] || boundary[i]) ? sign[i] * h[i] : p[i];
        any_outside |= outside[i];
        n_boundary += boundary[i];
    }
    if (any_outside) {
        double p_NQ[3], dd = 0.0;
        for (int i = 0; i < n; ++i) {
            p_NQ[i] = p[i] - p_GN[i];
            dd += p_NQ[i] * p_NQ[i];
        }
        double d = sqrt(dd);
        for (int i = 0; i < n; ++i) grad[i] = p_NQ[i] / d;
        *distance = d;
        *unique = 1;
        return;
    }
    if (n_boundary > 0) {
        double gg = 0.0, d = 0.0;
        for (int i = 0; i < n; ++i) {
            grad[i] = boundary[i] ? sign[i] : 0.0;
            gg += grad[i] * grad[i];
        }
        double norm = sqrt(gg);
        for (int i = 0; i < n; ++i) {
            grad[i] = grad[i] / norm;
            d += grad[i] * (p[i] - p_GN[i]);
        }
        *distance = d;
        *unique = n_boundary == 1;
        return;
    }
    /* Strictly inside: the nearest face wins; the first minimum keeps Drake's
     * tie order (+x, -x, +y, -y, +z, -z). */
    double depth[3];
    int axis = 0;
    for (int i = 0; i < n; ++i) {
        depth[i] = h[i] - abs_p[i];
        if (depth[i] < depth[axis]) axis = i;
    }
    double d = 0.0;
    for (int i = 0; i < n; ++i) {
        p_GN[i] = p[i];
        grad[i] = 0.0;
    }
    p_GN[axis] = sign[axis] * h[axis];
    grad[axis] = sign[axis];
    for (int i = 0; i < n; ++i) d += grad[i] * (p[i] - p_GN[i]);
    int ties = 0;
    for (int i = 0; i < n; ++i) ties += depth[i] <= depth[axis] + tol[axis];
    /* On the mid-plane of the chosen axis its two opposite faces tie as well. */
    int mirrored = abs_p[axis] <= tol[axis];
    *distance = d;
    *unique = ties == 1 && !mirrored;
}

static void box_in_G(const double h[3], const double p[3], gc_point_result *out) {
    box_in_G_n(3, h, p, &out->distance, out->p_GN, out->grad, &out->unique);
}

/* ------------------------------------------------------------------ cylinder */

static void cylinder_in_G(double radius, double half_length, const double p[3],
                          gc_point_result *out) {
    /* Drake maps the cylinder to the 2-D box of its cross section through Q
     * and the axis, in (r, z); on the axis the section is G's x-z plane. */
    double r_Q = hypot(p[0], p[1]);
    int near_axis = r_Q < feature_tolerance(radius);
    double v0 = 1.0, v1 = 0.0;
    if (!near_axis) {
        v0 = p[0] / r_Q;
        v1 = p[1] / r_Q;
    }
    double h[2] = {radius, half_length}, q[2] = {r_Q, p[2]};
    double p_BN[2], grad_B[2], unused;
    int unique;
    box_in_G_n(2, h, q, &unused, p_BN, grad_B, &unique);
    double p_GN[3] = {p_BN[0] * v0, p_BN[0] * v1, p_BN[1]};
    double grad[3] = {grad_B[0] * v0, grad_B[0] * v1, grad_B[1]};
    double p_NQ[3];
    gc_sub(p, p_GN, p_NQ);
    /* Every radial direction is equally near on the axis: x is a convention. */
    if (near_axis && grad_B[0] != 0.0) unique = 0;
    set_result(out, gc_dot(grad, p_NQ), p_GN, grad, unique);
}

/* ------------------------------------------------------------------ capsule */

static void capsule_in_G(double radius, double half_length, const double p[3],
                         gc_point_result *out) {
    double z = p[2];
    if (z >= half_length || z <= -half_length) {
        /* Beyond the spine's ends: the end cap's sphere (Drake's split). */
        double p_GS[3] = {0.0, 0.0, z >= half_length ? half_length : -half_length};
        double p_SQ[3];
        gc_sub(p, p_GS, p_SQ);
        sphere_in_G(radius, p_SQ, out);
        gc_add(p_GS, out->p_GN, out->p_GN);
        return;
    }
    /* Beside the spine: a sphere in the x-y plane through Q's height. */
    double p_GR[3] = {p[0], p[1], 0.0};
    sphere_in_G(radius, p_GR, out);
    out->p_GN[2] = z;
}

/* ------------------------------------------------------------------ half space */

static void halfspace_in_G(const double p[3], gc_point_result *out) {
    double p_GN[3] = {p[0], p[1], 0.0}, grad[3] = {0.0, 0.0, 1.0};
    set_result(out, p[2], p_GN, grad, 1);
}

/* ------------------------------------------------------------------ ellipsoid */

/* Σ over the active axes of (ey_i / (u + c_i))², summed in index order. */
static double ellipsoid_f_plus_one(double u, const double ey[3], const double c[3],
                                   const int active[3]) {
    double sum = 0.0;
    for (int i = 0; i < 3; ++i) {
        if (!active[i]) continue;
        double t = ey[i] / (u + c[i]);
        sum += t * t;
    }
    return sum;
}

/* Eberly's 1-D root find on u = t + e_k², as _ellipsoid_in_G (same bracket,
 * the same safeguarded Newton step on (F + 1)^(-1/2), the same stopping rules;
 * powers through pow() as Python's ** does). */
static void ellipsoid_in_G(const double semi_axes[3], const double p[3],
                           gc_point_result *out) {
    double e[3] = {semi_axes[0], semi_axes[1], semi_axes[2]};
    double sign[3], y[3], c[3], ey[3], x[3];
    int active[3], n_active = 0;
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (e[i] < e[k]) k = i;
    double e_max = e[0];
    for (int i = 1; i < 3; ++i)
        if (e[i] > e_max) e_max = e[i];
    /* Coordinates below 1e-90 of the size count as zero. */
    double negligible = 1e-90 * e_max;
    for (int i = 0; i < 3; ++i) {
        sign[i] = p[i] < 0.0 ? -1.0 : 1.0;
        y[i] = fabs(p[i]);
        c[i] = (e[i] - e[k]) * (e[i] + e[k]);
        ey[i] = e[i] * y[i];
        active[i] = y[i] > negligible;
        n_active += active[i];
    }
    int unique = 1;
    int pole_at_zero = 0;
    for (int i = 0; i < 3; ++i)
        if (active[i] && c[i] == 0.0) pole_at_zero = 1;
    if (pole_at_zero || (n_active > 0 && ellipsoid_f_plus_one(0.0, ey, c, active) > 1.0)) {
        double u_lo = 0.0;
        int first = 1;
        double best = 0.0;
        for (int i = 0; i < 3; ++i) {
            if (!active[i]) continue;
            double v = ey[i] - c[i];
            if (first || v > best) best = v;
            first = 0;
        }
        if (best > u_lo) u_lo = best;
        double u_hi = sqrt(ey[0] * ey[0] + ey[1] * ey[1] + ey[2] * ey[2]);
        double u = u_lo;
        for (int it = 0; it < GC_ELLIPSOID_ROOT_MAX_ITERATIONS; ++it) {
            double q = ellipsoid_f_plus_one(u, ey, c, active);
            if (q > 1.0) {
                u_lo = u;
            } else if (q < 1.0) {
                u_hi = u;
            } else {
                break;
            }
            double dq = 0.0; /* -dq/du / 2 */
            for (int i = 0; i < 3; ++i) {
                if (!active[i]) continue;
                dq += ey[i] * ey[i] / pow(u + c[i], 3.0);
            }
            double u_next = u - (pow(q, -0.5) - 1.0) / (pow(q, -1.5) * dq);
            if (!(u_lo < u_next && u_next < u_hi)) u_next = 0.5 * (u_lo + u_hi);
            if (u_next == u || u_hi - u_lo <= 2.0 * GC_EPS * u_hi) break;
            u = u_next;
        }
        for (int i = 0; i < 3; ++i) x[i] = active[i] ? e[i] * ey[i] / (u + c[i]) : 0.0;
    } else {
        double sum = 0.0;
        for (int i = 0; i < 3; ++i) x[i] = active[i] ? e[i] * ey[i] / c[i] : 0.0;
        for (int i = 0; i < 3; ++i) {
            if (!active[i]) continue;
            double t = x[i] / e[i];
            sum += t * t;
        }
        double rest = 1.0 - sum;
        x[k] = e[k] * sqrt(rest > 0.0 ? rest : 0.0);
        unique = 0;
    }
    /* Within round-off of the medial disc the side of Q decides between two
     * mirror nearest points: the gradient is a coin toss there. */
    double tol = feature_tolerance(e_max);
    int on_disc = 1;
    double disc = 0.0;
    for (int i = 0; i < 3; ++i) {
        if (c[i] == 0.0) {
            if (!(y[i] <= tol)) on_disc = 0;
        } else if (c[i] > 0.0) {
            double t = ey[i] / c[i];
            disc += t * t;
        }
    }
    if (on_disc && disc <= 1.0) unique = 0;
    double p_GN[3], normal[3], grad[3], p_NQ[3];
    for (int i = 0; i < 3; ++i) {
        p_GN[i] = sign[i] * x[i];
        normal[i] = p_GN[i] / (e[i] * e[i]);
    }
    double nn = sqrt(gc_dot(normal, normal));
    for (int i = 0; i < 3; ++i) grad[i] = normal[i] / nn;
    gc_sub(p, p_GN, p_NQ);
    double distance = sqrt(gc_dot(p_NQ, p_NQ));
    /* The sign comes from the side of the tangent plane Q is on. */
    if (gc_dot(p_NQ, grad) < 0.0) distance = -distance;
    set_result(out, distance, p_GN, grad, unique);
}

/* ------------------------------------------------------------------ convex hull */

/* Ericson's closest point on triangle (a, b, c) to q (Real-Time Collision
 * Detection 5.1.5), with the formulas of closest_points_on_triangles. */
static void closest_point_on_triangle(const double q[3], const double a[3], const double b[3],
                                      const double c[3], double out[3]) {
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    gc_sub(b, a, ab);
    gc_sub(c, a, ac);
    gc_sub(q, a, ap);
    gc_sub(q, b, bp);
    gc_sub(q, c, cp);
    double d1 = gc_dot(ab, ap), d2 = gc_dot(ac, ap);
    double d3 = gc_dot(ab, bp), d4 = gc_dot(ac, bp);
    double d5 = gc_dot(ab, cp), d6 = gc_dot(ac, cp);
    double va = d3 * d6 - d5 * d4;
    double vb = d5 * d2 - d1 * d6;
    double vc = d1 * d4 - d3 * d2;
    if (d1 <= 0 && d2 <= 0) {
        gc_copy(a, out);
    } else if (d3 >= 0 && d4 <= d3) {
        gc_copy(b, out);
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double w = d1 / (d1 - d3);
        for (int i = 0; i < 3; ++i) out[i] = a[i] + ab[i] * w;
    } else if (d6 >= 0 && d5 <= d6) {
        gc_copy(c, out);
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int i = 0; i < 3; ++i) out[i] = a[i] + ac[i] * w;
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; ++i) out[i] = b[i] + (c[i] - b[i]) * w;
    } else {
        double denom = va + vb + vc;
        double v = vb / denom, w = vc / denom;
        for (int i = 0; i < 3; ++i) out[i] = a[i] + ab[i] * v + ac[i] * w;
    }
}

/* Normalised sum of the distinct directions among the incident facets' unit
 * normals (coplanar triangles of one facet share a normal up to round-off),
 * in triangle order; *single says whether there was only one. */
#define GC_DISTINCT_STACK 64
static int distinct_mean_normal(const gc_shape *G, const double p[3], double threshold,
                                double mean[3], int *single) {
    int stack[GC_DISTINCT_STACK];
    int *kept = stack, capacity = GC_DISTINCT_STACK, count = 0;
    for (int t = 0; t < G->nt; ++t) {
        const double *n = G->tri_n + 3 * t;
        /* Recomputed as in convex_in_G (same operations, same value). */
        if (!(gc_dot(n, p) - G->tri_d[t] >= threshold)) continue;
        int seen = 0;
        for (int j = 0; j < count && !seen; ++j)
            if (gc_dot(n, G->tri_n + 3 * kept[j]) > 1.0 - 1e-9) seen = 1;
        if (seen) continue;
        if (count == capacity) { /* a vertex shared by very many facets: rare */
            int *grown = malloc(sizeof(int) * (size_t)capacity * 2);
            if (grown == NULL) {
                if (kept != stack) free(kept);
                return -1;
            }
            for (int j = 0; j < count; ++j) grown[j] = kept[j];
            if (kept != stack) free(kept);
            kept = grown;
            capacity *= 2;
        }
        kept[count++] = t;
    }
    double sum[3] = {0.0, 0.0, 0.0};
    for (int j = 0; j < count; ++j) {
        const double *n = G->tri_n + 3 * kept[j];
        if (j == 0) {
            gc_copy(n, sum);
        } else {
            gc_add(sum, n, sum);
        }
    }
    double norm = sqrt(gc_dot(sum, sum));
    for (int i = 0; i < 3; ++i) mean[i] = sum[i] / norm;
    *single = count == 1;
    if (kept != stack) free(kept);
    return 0;
}

static int convex_in_G(const gc_shape *G, const double p[3], gc_point_result *out) {
    if (G->nt <= 0) return GC_NOT_HANDLED;
    double tol = feature_tolerance(G->size);
    /* Signed height of Q above each face plane; the first maximum wins. */
    int top = 0;
    double h_max = 0.0;
    for (int t = 0; t < G->nt; ++t) {
        double height = gc_dot(G->tri_n + 3 * t, p) - G->tri_d[t];
        if (t == 0 || height > h_max) {
            h_max = height;
            top = t;
        }
    }
    int status = GC_OK;
    if (h_max > tol) {
        /* Outside: the nearest point of a convex body is on its boundary, on
         * a facet Q is above (Q - N lies in the normal cone at N, so one
         * facet through N has Q on its outer side); facets Q is clearly
         * below are skipped, the others searched in order. */
        double best_N[3] = {0.0, 0.0, 0.0}, best_d2 = INFINITY;
        double below = -(tol + 1024.0 * GC_EPS * (gc_norm(p) + G->size));
        for (int t = 0; t < G->nt; ++t) {
            if (gc_dot(G->tri_n + 3 * t, p) - G->tri_d[t] < below) continue;
            const int *f = G->tri + 3 * t;
            double N[3], NQ[3];
            closest_point_on_triangle(p, G->v + 3 * f[0], G->v + 3 * f[1], G->v + 3 * f[2], N);
            gc_sub(p, N, NQ);
            double d2 = gc_dot(NQ, NQ);
            if (d2 < best_d2) {
                best_d2 = d2;
                gc_copy(N, best_N);
            }
        }
        double distance = sqrt(best_d2), grad[3];
        for (int i = 0; i < 3; ++i) grad[i] = (p[i] - best_N[i]) / distance;
        set_result(out, distance, best_N, grad, 1);
    } else {
        /* Inside or on the boundary: Q's projection on the nearest face plane.
         * On the boundary the gradient is the mean of the incident facets'
         * normals, like Drake's box edges and corners. */
        const double *n_top = G->tri_n + 3 * top;
        double p_GN[3], mean[3];
        for (int i = 0; i < 3; ++i) p_GN[i] = p[i] - h_max * n_top[i];
        int single;
        if (distinct_mean_normal(G, p, h_max - tol, mean, &single) < 0) {
            status = GC_NOT_HANDLED;
        } else if (h_max >= -tol) {
            set_result(out, h_max, p_GN, mean, single);
        } else {
            set_result(out, h_max, p_GN, n_top, single);
        }
    }
    return status;
}

/* ------------------------------------------------------------------ entry points */

int gc_point_in_G(const gc_shape *G, const double p_GQ[3], gc_point_result *out) {
    switch (G->kind) {
    case GC_SPHERE:
        sphere_in_G(G->s[0], p_GQ, out);
        return GC_OK;
    case GC_BOX:
        box_in_G(G->s, p_GQ, out);
        return GC_OK;
    case GC_CYLINDER:
        cylinder_in_G(G->s[0], G->s[1], p_GQ, out);
        return GC_OK;
    case GC_CAPSULE:
        capsule_in_G(G->s[0], G->s[1], p_GQ, out);
        return GC_OK;
    case GC_ELLIPSOID:
        ellipsoid_in_G(G->s, p_GQ, out);
        return GC_OK;
    case GC_HALFSPACE:
        halfspace_in_G(p_GQ, out);
        return GC_OK;
    case GC_CONVEX:
        return convex_in_G(G, p_GQ, out);
    default: /* GC_MESH has no inside: the signed distance is undefined */
        return GC_NOT_HANDLED;
    }
}

int gc_point_distance(const gc_shape *G, const double X_WG[16], const double p_WQ[3],
                      gc_point_result *out) {
    double p_GQ[3];
    gc_to_local(X_WG, p_WQ, p_GQ);
    int status = gc_point_in_G(G, p_GQ, out);
    if (status == GC_OK) {
        double g[3];
        gc_rotate(X_WG, out->grad, g);
        gc_copy(g, out->grad);
    }
    return status;
}
