/* Exact pairs, in closed form (the only implementation; tested against
 * Drake where Drake is exact and against closed forms and optimisers):
 *
 *   - sphere-{sphere, box, cylinder, capsule, ellipsoid, convex, half space},
 *     either order: the point kernel at the sphere's centre minus the radius;
 *   - capsule-capsule: segment closest points minus both radii;
 *   - box-box: SAT on the 15 axes (exact depth, witnesses by clipping the
 *     support features), and vertex-box / edge-edge features when apart.
 *
 * Every other pair is GC_NOT_HANDLED (the convex solver answers it).
 * No allocation: box clipping uses fixed-size stack arrays.
 */
#include "gc.h"
#include "gc_tolerances.h"

static double feature_tolerance(double size) {
    return GC_DISTANCE_TO_POINT_RELATIVE_TOLERANCE * (size > 1.0 ? size : 1.0);
}

/* Python's builtin max(a, b) / min(a, b): the first argument unless the
 * second is strictly greater (smaller). */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }
/* numpy.clip(x, lo, hi) == minimum(maximum(x, lo), hi). */
static double clip(double x, double lo, double hi) {
    double m = x > lo ? x : lo;
    return m < hi ? m : hi;
}

static void set_pair(gc_pair_result *out, double distance, const double p_WCa[3],
                     const double p_WCb[3], const double nhat[3], int unique) {
    out->distance = distance;
    gc_copy(p_WCa, out->p_WCa);
    gc_copy(p_WCb, out->p_WCb);
    gc_copy(nhat, out->nhat_BA_W);
    out->unique = unique;
}

/* PairWitness.swapped(). */
static void swap_pair(gc_pair_result *r) {
    for (int k = 0; k < 3; ++k) {
        double t = r->p_WCa[k];
        r->p_WCa[k] = r->p_WCb[k];
        r->p_WCb[k] = t;
        r->nhat_BA_W[k] = -r->nhat_BA_W[k];
    }
}

/* Column i of the rotation of pose X: G's i-th axis in W. */
static void pose_axis(const double X[16], int i, double out[3]) {
    out[0] = X[i];
    out[1] = X[4 + i];
    out[2] = X[8 + i];
}

/* ------------------------------------------------------------------ segments */

/* closest_points_between_segments / _segment_closest_floats: closest points of
 * P1 + s d1 and P2 + t d2, s, t in [0, 1]; parallel segments give the middle
 * of their overlap (or the nearest ends). */
static void segment_closest(const double p1[3], const double d1[3], const double p2[3],
                            const double d2[3], double c1[3], double c2[3]) {
    double r[3];
    gc_sub(p1, p2, r);
    double a = gc_dot(d1, d1), e = gc_dot(d2, d2), b = gc_dot(d1, d2);
    double c = gc_dot(d1, r), f = gc_dot(d2, r);
    double n[3];
    gc_cross(d1, d2, n);
    double nn = gc_dot(n, n);
    double s;
    if (nn <= 1e-24 * a * e) {
        double s_lo = -c / a, s_hi = (b - c) / a;
        double lo = py_max(0.0, py_min(s_lo, s_hi));
        double hi = py_min(1.0, py_max(s_lo, s_hi));
        s = lo <= hi ? 0.5 * (lo + hi) : (hi < 0.0 ? 0.0 : 1.0);
    } else {
        double mr[3] = {-r[0], -r[1], -r[2]}, m[3];
        gc_cross(mr, d2, m);
        s = py_min(py_max(gc_dot(m, n) / nn, 0.0), 1.0);
    }
    double t = (b * s + f) / e;
    if (t < 0.0) {
        s = py_min(py_max(-c / a, 0.0), 1.0);
    } else if (t > 1.0) {
        s = py_min(py_max((b - c) / a, 0.0), 1.0);
    }
    t = py_min(py_max(t, 0.0), 1.0);
    for (int i = 0; i < 3; ++i) {
        c1[i] = p1[i] + s * d1[i];
        c2[i] = p2[i] + t * d2[i];
    }
}

/* _any_perpendicular: unit vector normal to the unit vector v, crossing with
 * the world axis least aligned with v (first minimum of |v_i|). */
static void any_perpendicular(const double v[3], double out[3]) {
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(v[i]) < fabs(v[k])) k = i;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    double p[3];
    gc_cross(v, axis, p);
    double norm = sqrt(gc_dot(p, p));
    for (int i = 0; i < 3; ++i) out[i] = p[i] / norm;
}

/* ------------------------------------------------------------------ sphere-X */

static int sphere_shape(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                        const double X_WB[16], gc_pair_result *out) {
    double p_WAo[3] = {X_WA[3], X_WA[7], X_WA[11]};
    gc_point_result point;
    int status = gc_point_distance(B, X_WB, p_WAo, &point);
    if (status != GC_OK) return status;
    double p_WCb[3], p_WCa[3];
    gc_to_world(X_WB, point.p_GN, p_WCb);
    double radius = A->s[0];
    for (int i = 0; i < 3; ++i) p_WCa[i] = p_WAo[i] - radius * point.grad[i];
    set_pair(out, point.distance - radius, p_WCa, p_WCb, point.grad, point.unique);
    return GC_OK;
}

static int is_sphere_partner(int kind) {
    return kind == GC_SPHERE || kind == GC_BOX || kind == GC_CYLINDER || kind == GC_CAPSULE ||
           kind == GC_ELLIPSOID || kind == GC_CONVEX || kind == GC_HALFSPACE;
}

/* ------------------------------------------------------------------ capsule-capsule */

static void capsule_capsule(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                            const double X_WB[16], gc_pair_result *out) {
    double z_WA[3], z_WB[3];
    pose_axis(X_WA, 2, z_WA);
    pose_axis(X_WB, 2, z_WB);
    double p_WAo[3] = {X_WA[3], X_WA[7], X_WA[11]};
    double p_WBo[3] = {X_WB[3], X_WB[7], X_WB[11]};
    /* Python works with the full length; 2 * half is exact. */
    double L_A = 2.0 * A->s[1], L_B = 2.0 * B->s[1];
    double r_A = A->s[0], r_B = B->s[0];
    double p1[3], d1[3], p2[3], d2[3];
    for (int i = 0; i < 3; ++i) {
        p1[i] = p_WAo[i] - 0.5 * L_A * z_WA[i];
        d1[i] = L_A * z_WA[i];
        p2[i] = p_WBo[i] - 0.5 * L_B * z_WB[i];
        d2[i] = L_B * z_WB[i];
    }
    double p_WC1[3], p_WC2[3];
    segment_closest(p1, d1, p2, d2, p_WC1, p_WC2);
    double p_C2C1[3];
    gc_sub(p_WC1, p_WC2, p_C2C1);
    /* Where a closest point is interior to its spine, C1 - C2 is exactly
     * normal to that spine: remove the round-off along it (both interior on
     * non-parallel spines: the common normal). */
    double normal[3];
    gc_cross(z_WA, z_WB, normal);
    double normal_norm = sqrt(gc_dot(normal, normal));
    const double *interior[2];
    int n_interior = 0;
    {
        double g[3];
        gc_sub(p_WC1, p_WAo, g);
        if (fabs(gc_dot(g, z_WA)) < 0.5 * L_A * (1.0 - 1e-12)) interior[n_interior++] = z_WA;
        gc_sub(p_WC2, p_WBo, g);
        if (fabs(gc_dot(g, z_WB)) < 0.5 * L_B * (1.0 - 1e-12)) interior[n_interior++] = z_WB;
    }
    if (n_interior == 2 && normal_norm > GC_BOX_PARALLEL_SIN_TOLERANCE) {
        double nhat[3] = {normal[0] / normal_norm, normal[1] / normal_norm,
                          normal[2] / normal_norm};
        double k = gc_dot(p_C2C1, nhat);
        gc_scale(k, nhat, p_C2C1);
    } else {
        for (int j = 0; j < n_interior; ++j) {
            const double *z = interior[j];
            double k = gc_dot(p_C2C1, z);
            for (int i = 0; i < 3; ++i) p_C2C1[i] = p_C2C1[i] - k * z[i];
        }
    }
    double spine_distance = sqrt(gc_dot(p_C2C1, p_C2C1));
    double size = py_max(L_A + r_A, L_B + r_B);
    int unique = spine_distance > feature_tolerance(size);
    double nhat[3];
    if (unique) {
        for (int i = 0; i < 3; ++i) nhat[i] = p_C2C1[i] / spine_distance;
    } else {
        /* The spines meet: the direction normal to both (or any normal to
         * parallel spines), oriented from B's centre toward A's. */
        if (normal_norm > GC_BOX_PARALLEL_SIN_TOLERANCE) {
            for (int i = 0; i < 3; ++i) nhat[i] = normal[i] / normal_norm;
        } else {
            any_perpendicular(z_WA, nhat);
        }
        double p_BoAo[3];
        gc_sub(p_WAo, p_WBo, p_BoAo);
        if (gc_dot(nhat, p_BoAo) < 0.0) gc_scale(-1.0, nhat, nhat);
    }
    double p_WCa[3], p_WCb[3];
    for (int i = 0; i < 3; ++i) {
        p_WCa[i] = p_WC1[i] - r_A * nhat[i];
        p_WCb[i] = p_WC2[i] + r_B * nhat[i];
    }
    set_pair(out, spine_distance - r_A - r_B, p_WCa, p_WCb, nhat, unique);
}

/* ------------------------------------------------------------------ box-box */

typedef struct {
    const double *half; /* half extents */
    const double *X;    /* pose */
} posed_box;

/* Closest point of the solid box to Q (outside or on it). */
static void box_closest_point_W(const posed_box *box, const double p_WQ[3], double out[3]) {
    double p_BQ[3];
    gc_to_local(box->X, p_WQ, p_BQ);
    for (int i = 0; i < 3; ++i) p_BQ[i] = clip(p_BQ[i], -box->half[i], box->half[i]);
    gc_to_world(box->X, p_BQ, out);
}

/* support_feature_W: vertices (1, 2 or 4, cyclic order) of the face, edge or
 * vertex extreme along u; box axes within `flat` of perpendicular to u count
 * as spanned. Returns the vertex count. */
static int box_support_feature_W(const posed_box *box, const double u_W[3], double flat,
                                 double vertices_W[4][3]) {
    double u_B[3], corner[3];
    gc_unrotate(box->X, u_W, u_B);
    int free_axes[3], n_free = 0;
    for (int i = 0; i < 3; ++i) {
        if (fabs(u_B[i]) <= flat) free_axes[n_free++] = i;
        corner[i] = (u_B[i] < 0.0 ? -1.0 : 1.0) * box->half[i];
    }
    double vertices_B[4][3];
    int count;
    if (n_free == 0) {
        count = 1;
        gc_copy(corner, vertices_B[0]);
    } else if (n_free == 1) {
        count = 2;
        int j = free_axes[0];
        for (int row = 0; row < 2; ++row) gc_copy(corner, vertices_B[row]);
        vertices_B[0][j] = -box->half[j];
        vertices_B[1][j] = box->half[j];
    } else {
        static const double signs[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
        count = 4;
        int j = free_axes[0], k = free_axes[1];
        for (int row = 0; row < 4; ++row) {
            gc_copy(corner, vertices_B[row]);
            vertices_B[row][j] = signs[row][0] * box->half[j];
            vertices_B[row][k] = signs[row][1] * box->half[k];
        }
    }
    for (int row = 0; row < count; ++row) gc_to_world(box->X, vertices_B[row], vertices_W[row]);
    return count;
}

/* Sutherland-Hodgman at most doubles the vertex count per side: 4 -> 64. */
#define GC_CLIP_MAX 64

/* _clip_to_rectangle: clip a point, a segment or a convex polygon (cyclic
 * order) to [-half, half]^2; returns the number of vertices written. */
static int clip_to_rectangle(const double (*points)[2], int n, const double half[2],
                             double (*out)[2]) {
    /* A vertex or edge lying on the rectangle's border counts as inside. */
    double scale = py_max(1.0, py_max(half[0], half[1]));
    double slack[2] = {half[0] + 1e-12 * scale, half[1] + 1e-12 * scale};
    if (n == 1) {
        if (fabs(points[0][0]) <= slack[0] && fabs(points[0][1]) <= slack[1]) {
            out[0][0] = points[0][0];
            out[0][1] = points[0][1];
            return 1;
        }
        return 0;
    }
    if (n == 2) {
        /* Liang-Barsky: the parameter range of the segment inside. */
        const double *start = points[0];
        double delta[2] = {points[1][0] - points[0][0], points[1][1] - points[0][1]};
        double t_lo = 0.0, t_hi = 1.0;
        for (int axis = 0; axis < 2; ++axis) {
            if (delta[axis] == 0.0) {
                if (fabs(start[axis]) > slack[axis]) return 0;
                continue;
            }
            double t_a = (-slack[axis] - start[axis]) / delta[axis];
            double t_b = (slack[axis] - start[axis]) / delta[axis];
            t_lo = py_max(t_lo, py_min(t_a, t_b));
            t_hi = py_min(t_hi, py_max(t_a, t_b));
        }
        if (t_lo > t_hi) return 0;
        for (int i = 0; i < 2; ++i) {
            out[0][i] = start[i] + t_lo * delta[i];
            out[1][i] = start[i] + t_hi * delta[i];
        }
        return 2;
    }
    double buffer[2][GC_CLIP_MAX][2];
    int count = n;
    for (int i = 0; i < n; ++i) {
        buffer[0][i][0] = points[i][0];
        buffer[0][i][1] = points[i][1];
    }
    int src = 0;
    for (int axis = 0; axis < 2; ++axis) {
        for (int side_index = 0; side_index < 2; ++side_index) {
            double side = side_index == 0 ? -1.0 : 1.0;
            double (*polygon)[2] = buffer[src];
            double (*clipped)[2] = buffer[1 - src];
            int m = 0;
            for (int i = 0; i < count; ++i) {
                const double *current = polygon[i];
                const double *following = polygon[(i + 1) % count];
                int inside_c = side * current[axis] <= slack[axis];
                int inside_f = side * following[axis] <= slack[axis];
                if (inside_c && m < GC_CLIP_MAX) {
                    clipped[m][0] = current[0];
                    clipped[m][1] = current[1];
                    ++m;
                }
                if (inside_c != inside_f && m < GC_CLIP_MAX) {
                    double fraction = (side * slack[axis] - current[axis]) /
                                      (following[axis] - current[axis]);
                    clipped[m][0] = current[0] + fraction * (following[0] - current[0]);
                    clipped[m][1] = current[1] + fraction * (following[1] - current[1]);
                    ++m;
                }
            }
            count = m;
            src = 1 - src;
            if (count == 0) return 0;
        }
    }
    for (int i = 0; i < count; ++i) {
        out[i][0] = buffer[src][i][0];
        out[i][1] = buffer[src][i][1];
    }
    return count;
}

/* _distinct_mean: mean of the points no closer (max norm) than `tolerance`
 * to an earlier kept one. */
static void distinct_mean_2d(const double (*points)[2], int n, double tolerance,
                             double mean[2]) {
    int kept[GC_CLIP_MAX], count = 0;
    for (int i = 0; i < n; ++i) {
        int seen = 0;
        for (int j = 0; j < count && !seen; ++j) {
            const double *q = points[kept[j]];
            double dev = py_max(fabs(points[i][0] - q[0]), fabs(points[i][1] - q[1]));
            if (dev <= tolerance) seen = 1;
        }
        if (!seen) kept[count++] = i;
    }
    double sum[2] = {points[kept[0]][0], points[kept[0]][1]};
    for (int j = 1; j < count; ++j) {
        sum[0] += points[kept[j]][0];
        sum[1] += points[kept[j]][1];
    }
    mean[0] = sum[0] / count;
    mean[1] = sum[1] / count;
}

/* _face_witness: the middle of the contact patch on face_box's face with
 * outward normal nhat_out_W (the projection of the other box's feature onto
 * it). Returns 0 when the projections miss and clamp is off (Python's None);
 * with clamp, the feature's centre clamped into the face. */
static int face_witness(const posed_box *face_box, const double nhat_out_W[3],
                        const double (*feature_W)[3], int n_feature, int clamp,
                        double out[3]) {
    double n_B[3];
    gc_unrotate(face_box->X, nhat_out_W, n_B);
    int axis = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(n_B[i]) > fabs(n_B[axis])) axis = i;
    int in_plane[2], m = 0;
    for (int i = 0; i < 3; ++i)
        if (i != axis) in_plane[m++] = i;
    double points[4][2];
    for (int r = 0; r < n_feature; ++r) {
        double p_BF[3];
        gc_to_local(face_box->X, feature_W[r], p_BF);
        points[r][0] = p_BF[in_plane[0]];
        points[r][1] = p_BF[in_plane[1]];
    }
    double half_2d[2] = {face_box->half[in_plane[0]], face_box->half[in_plane[1]]};
    double patch[GC_CLIP_MAX][2];
    int n_patch = clip_to_rectangle((const double (*)[2])points, n_feature, half_2d, patch);
    double centre[2];
    if (n_patch > 0) {
        double tolerance = 1e-12 * py_max(1.0, py_max(half_2d[0], half_2d[1]));
        distinct_mean_2d((const double (*)[2])patch, n_patch, tolerance, centre);
    } else if (clamp) {
        double sum[2] = {points[0][0], points[0][1]};
        for (int r = 1; r < n_feature; ++r) {
            sum[0] += points[r][0];
            sum[1] += points[r][1];
        }
        for (int i = 0; i < 2; ++i) centre[i] = clip(sum[i] / n_feature, -half_2d[i], half_2d[i]);
    } else {
        return 0;
    }
    double p_BC[3];
    p_BC[axis] = copysign(face_box->half[axis], n_B[axis]);
    p_BC[in_plane[0]] = centre[0];
    p_BC[in_plane[1]] = centre[1];
    gc_to_world(face_box->X, p_BC, out);
    return 1;
}

/* _penetration_witnesses: 0 where Python returns None. */
static int penetration_witnesses(const posed_box *A, const posed_box *B, const double nhat[3],
                                 int axis_index, double depth, double flat, int clamp,
                                 double p_WCa[3], double p_WCb[3]) {
    double minus_nhat[3] = {-nhat[0], -nhat[1], -nhat[2]};
    double feature_A[4][3], feature_B[4][3];
    int n_A = box_support_feature_W(A, minus_nhat, flat, feature_A); /* A's part deepest in B */
    int n_B = box_support_feature_W(B, nhat, flat, feature_B);       /* B's part deepest in A */
    if (axis_index < 3 || n_A == 4) {
        if (!face_witness(A, minus_nhat, (const double (*)[3])feature_B, n_B, clamp, p_WCa))
            return 0;
        for (int i = 0; i < 3; ++i) p_WCb[i] = p_WCa[i] + depth * nhat[i];
        return 1;
    }
    if (axis_index < 6 || n_B == 4) {
        if (!face_witness(B, nhat, (const double (*)[3])feature_A, n_A, clamp, p_WCb)) return 0;
        for (int i = 0; i < 3; ++i) p_WCa[i] = p_WCb[i] - depth * nhat[i];
        return 1;
    }
    if (n_A == 2 && n_B == 2) {
        double d_A[3], d_B[3];
        gc_sub(feature_A[1], feature_A[0], d_A);
        gc_sub(feature_B[1], feature_B[0], d_B);
        segment_closest(feature_A[0], d_A, feature_B[0], d_B, p_WCa, p_WCb);
        return 1;
    }
    if (n_A == 1) {
        gc_copy(feature_A[0], p_WCa);
        for (int i = 0; i < 3; ++i) p_WCb[i] = feature_A[0][i] + depth * nhat[i];
        return 1;
    }
    for (int i = 0; i < 3; ++i) p_WCa[i] = feature_B[0][i] - depth * nhat[i];
    gc_copy(feature_B[0], p_WCb);
    return 1;
}

/* The axis, or its opposite, pointing from B's centre toward A's (ties: +). */
static void orient_from_B_to_A(const posed_box *A, const posed_box *B, const double axis[3],
                               double nhat[3]) {
    double p_BoAo[3] = {A->X[3] - B->X[3], A->X[7] - B->X[7], A->X[11] - B->X[11]};
    if (gc_dot(axis, p_BoAo) >= 0.0) {
        gc_copy(axis, nhat);
    } else {
        gc_scale(-1.0, axis, nhat);
    }
}

static void box_box_penetration(const posed_box *A, const posed_box *B, const double axis[3],
                                int axis_index, double depth, int unique,
                                gc_pair_result *out) {
    double nhat[3], p_WCa[3], p_WCb[3];
    orient_from_B_to_A(A, B, axis, nhat);
    /* A hair's tilt offers a vertex where the contact needs its edge or face:
     * the looser flatness then finds the patch (clamping if it must). */
    if (!penetration_witnesses(A, B, nhat, axis_index, depth, GC_BOX_FEATURE_FLAT_TOLERANCE, 0,
                               p_WCa, p_WCb))
        penetration_witnesses(A, B, nhat, axis_index, depth, GC_BOX_PARALLEL_SIN_TOLERANCE, 1,
                              p_WCa, p_WCb);
    set_pair(out, -depth, p_WCa, p_WCb, nhat, unique);
}

/* Corners of [-1, 1]^3 in _CUBE_CORNERS order (x slowest, z fastest). */
static void box_corner_W(const posed_box *box, int index, double out[3]) {
    double p_B[3] = {(index & 4 ? 1.0 : -1.0) * box->half[0],
                     (index & 2 ? 1.0 : -1.0) * box->half[1],
                     (index & 1 ? 1.0 : -1.0) * box->half[2]};
    gc_to_world(box->X, p_B, out);
}

/* Edge `index` of _EDGE_STARTS / _EDGE_AXES: axis index / 4; the start has -1
 * on the axis, u on the next axis and v on the one after, (u, v) in
 * ((-1,-1), (-1,1), (1,-1), (1,1)). */
static void box_edge_W(const posed_box *box, int index, double start[3], double direction[3]) {
    int axis = index / 4, u = index % 4 / 2, v = index % 2;
    double unit[3];
    unit[axis] = -1.0;
    unit[(axis + 1) % 3] = u ? 1.0 : -1.0;
    unit[(axis + 2) % 3] = v ? 1.0 : -1.0;
    double p_B[3] = {unit[0] * box->half[0], unit[1] * box->half[1], unit[2] * box->half[2]};
    gc_to_world(box->X, p_B, start);
    double length = 2.0 * box->half[axis];
    direction[0] = length * box->X[axis];
    direction[1] = length * box->X[4 + axis];
    direction[2] = length * box->X[8 + axis];
}

static void box_box_separated(const posed_box *A, const posed_box *B, const double axis[3],
                              double tolerance, gc_pair_result *out) {
    /* The closest pair of disjoint convex polytopes has a vertex of one on the
     * other, or lies on two edges. Candidates in Python's order: A's corners
     * (on B), B's corners (on A), then edge pairs (A's edge major). */
    double best_A[3] = {0, 0, 0}, best_B[3] = {0, 0, 0}, best_gap2 = 0.0;
    int have = 0;
#define GC_CONSIDER(CA, CB)                                      \
    do {                                                         \
        double g_[3];                                            \
        gc_sub((CA), (CB), g_);                                  \
        double g2_ = gc_dot(g_, g_);                             \
        if (!have || g2_ < best_gap2) {                          \
            have = 1;                                            \
            best_gap2 = g2_;                                     \
            gc_copy((CA), best_A);                               \
            gc_copy((CB), best_B);                               \
        }                                                        \
    } while (0)
    for (int i = 0; i < 8; ++i) {
        double corner[3], on[3];
        box_corner_W(A, i, corner);
        box_closest_point_W(B, corner, on);
        GC_CONSIDER(corner, on);
    }
    for (int i = 0; i < 8; ++i) {
        double corner[3], on[3];
        box_corner_W(B, i, corner);
        box_closest_point_W(A, corner, on);
        GC_CONSIDER(on, corner);
    }
    double starts_B[12][3], directions_B[12][3];
    for (int j = 0; j < 12; ++j) box_edge_W(B, j, starts_B[j], directions_B[j]);
    for (int i = 0; i < 12; ++i) {
        double start_A[3], direction_A[3];
        box_edge_W(A, i, start_A, direction_A);
        for (int j = 0; j < 12; ++j) {
            double c1[3], c2[3];
            segment_closest(start_A, direction_A, starts_B[j], directions_B[j], c1, c2);
            GC_CONSIDER(c1, c2);
        }
    }
#undef GC_CONSIDER
    double distance = sqrt(best_gap2);
    if (distance > tolerance) {
        double nhat[3];
        for (int i = 0; i < 3; ++i) nhat[i] = (best_A[i] - best_B[i]) / distance;
        set_pair(out, distance, best_A, best_B, nhat, 1);
        return;
    }
    /* Touching within round-off: the separating axis is a valid normal. */
    double nhat[3];
    orient_from_B_to_A(A, B, axis, nhat);
    set_pair(out, distance, best_A, best_B, nhat, 0);
}

/* Returns 0 when edges a hair from parallel (their cross product below
 * BOX_PARALLEL_SIN_TOLERANCE, not zero) were left out of an overlap or a
 * touch: the depth along a face axis can then exceed the true one by the
 * angle times the size, and gc_polytope_rescue answers instead. */
static int box_box(const gc_shape *shape_A, const double X_WA[16], const gc_shape *shape_B,
                   const double X_WB[16], gc_pair_result *out) {
    posed_box A = {shape_A->s, X_WA}, B = {shape_B->s, X_WB};
    /* SAT axes: A's faces, B's faces, then the non-degenerate edge crosses
     * (A's axis major); unit vectors in W. */
    double axes[15][3];
    int is_edge[15], n_axes = 0, nearly_parallel = 0;
    double a_axes[3][3], b_axes[3][3];
    for (int i = 0; i < 3; ++i) {
        pose_axis(X_WA, i, a_axes[i]);
        pose_axis(X_WB, i, b_axes[i]);
    }
    for (int i = 0; i < 3; ++i) {
        gc_copy(a_axes[i], axes[n_axes]);
        is_edge[n_axes++] = 0;
    }
    for (int i = 0; i < 3; ++i) {
        gc_copy(b_axes[i], axes[n_axes]);
        is_edge[n_axes++] = 0;
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double c[3];
            gc_cross(a_axes[i], b_axes[j], c);
            double norm = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            /* Edges (nearly) parallel give no new axis. */
            if (!(norm > GC_BOX_PARALLEL_SIN_TOLERANCE)) {
                if (norm > 0.0) nearly_parallel = 1;
                continue;
            }
            for (int k = 0; k < 3; ++k) axes[n_axes][k] = c[k] / norm;
            is_edge[n_axes++] = 1;
        }
    }
    double p_BoAo[3] = {X_WA[3] - X_WB[3], X_WA[7] - X_WB[7], X_WA[11] - X_WB[11]};
    double size = py_max(py_max(py_max(A.half[0], A.half[1]), A.half[2]),
                         py_max(py_max(B.half[0], B.half[1]), B.half[2]));
    double tolerance = feature_tolerance(size);
    double edge_bias = GC_BOX_SAT_EDGE_AXIS_BIAS * (size > 1.0 ? size : 1.0);
    double separation[15], centre_gap[15];
    int best = 0;
    double best_score = 0.0;
    for (int k = 0; k < n_axes; ++k) {
        double radius_A = 0.0, radius_B = 0.0;
        for (int i = 0; i < 3; ++i) {
            radius_A += fabs(gc_dot(axes[k], a_axes[i])) * A.half[i];
            radius_B += fabs(gc_dot(axes[k], b_axes[i])) * B.half[i];
        }
        centre_gap[k] = fabs(gc_dot(axes[k], p_BoAo));
        separation[k] = centre_gap[k] - radius_A - radius_B; /* > 0: separates */
        /* Face axes win near ties: the same contact on a cross-product axis
         * would come from round-off in the cross product. */
        double score = separation[k] - (is_edge[k] ? edge_bias : 0.0);
        if (k == 0 || score > best_score) {
            best_score = score;
            best = k;
        }
    }
    if (separation[best] > tolerance) {
        box_box_separated(&A, &B, axes[best], tolerance, out);
        return 1;
    }
    if (nearly_parallel) return 0;
    double depth = py_max(0.0, -separation[best]);
    /* A tie with a different axis, or a zero centre gap along the axis,
     * leaves the normal a choice. */
    int ties = 0;
    for (int k = 0; k < n_axes; ++k) {
        int other = fabs(gc_dot(axes[k], axes[best])) < 1.0 - 1e-12;
        if (other && separation[k] >= separation[best] - tolerance) ties = 1;
    }
    int unique = !ties && centre_gap[best] > tolerance;
    box_box_penetration(&A, &B, axes[best], best, depth, unique, out);
    return 1;
}

/* ------------------------------------------------------------------ dispatch */

int gc_exact_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                  const double X_WB[16], gc_pair_result *out) {
    if (A->kind == GC_SPHERE && is_sphere_partner(B->kind))
        return sphere_shape(A, X_WA, B, X_WB, out);
    if (B->kind == GC_SPHERE && is_sphere_partner(A->kind)) {
        int status = sphere_shape(B, X_WB, A, X_WA, out);
        if (status == GC_OK) swap_pair(out);
        return status;
    }
    if (A->kind == GC_CAPSULE && B->kind == GC_CAPSULE) {
        capsule_capsule(A, X_WA, B, X_WB, out);
        return GC_OK;
    }
    if (A->kind == GC_BOX && B->kind == GC_BOX) {
        if (box_box(A, X_WA, B, X_WB, out)) return GC_OK;
        return gc_polytope_rescue(A, X_WA, B, X_WB, out);
    }
    return GC_NOT_HANDLED;
}
