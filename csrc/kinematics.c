/* Kinematics of a chain of links for the configuration-space layer:
 * geometry_core._native.kinematics.
 *
 * geometry_core/clearance/kinematic_chain.py describes a robot as arrays
 * (links ordered from the roots outwards, so a parent always comes before
 * its child) and calls these for K configurations at once. Per configuration
 * a planner's single check used to spend more time in numpy's fixed costs
 * (a few calls per joint) than in the query itself; here each is one pass.
 *
 * The formulas are the ones the Python docstrings state, in the same
 * operation order where it matters for rounding: a revolute joint's
 * rotation is Rodrigues' I + sin(t) K + (1 - cos(t)) K^2 of its unit axis,
 * applied after the joint origin (R_PF = R_PJ R(axis, t)); a prismatic
 * joint moves its child along R_PJ axis; world poses compose parent first.
 * test/clearance checks them against finite differences and Drake.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include "gc.h"
#include "gc_buffers.h"
#include "gc_kinematics.h"

typedef gc_chain chain;


void gc_chain_release(chain *c) {
    for (int k = 0; k < c->nviews; ++k) PyBuffer_Release(&c->views[k]);
    c->nviews = 0;
    PyMem_Free(c->K2);
    c->K2 = NULL;
}

/* K^2 for the unit axis a (K its cross-product matrix), as Rodrigues'
 * formula needs it: once per link, not once per configuration. */
static void axis_square(const double a[3], double K2[9]) {
    const double K[9] = {0.0, -a[2], a[1], a[2], 0.0, -a[0], -a[1], a[0], 0.0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            K2[3 * i + j] = K[3 * i] * K[j] + K[3 * i + 1] * K[3 + j] + K[3 * i + 2] * K[6 + j];
}

/* Reads the seven arrays of a chain: X_PJ, axis, kind, parent, column,
 * multiplier, offset. Checks the shapes agree and that parents come first. */
int gc_chain_parse(PyObject *const *args, chain *c) {
    static const char formats[7] = {'d', 'd', 'i', 'i', 'i', 'd', 'd'};
    static const char *names[7] = {"X_PJ", "axis", "kind", "parent", "column", "multiplier",
                                   "offset"};
    c->nviews = 0;
    c->K2 = NULL;
    for (int k = 0; k < 7; ++k) {
        if (gc_get_buffer(args[k], &c->views[k], formats[k], -1, names[k]) < 0) {
            gc_chain_release(c);
            return -1;
        }
        c->nviews = k + 1;
    }
    Py_ssize_t L = c->views[2].len / 4;
    static const Py_ssize_t per_link[7] = {16, 3, 1, 1, 1, 1, 1};
    for (int k = 0; k < 7; ++k) {
        if (c->views[k].len / c->views[k].itemsize != per_link[k] * L) {
            PyErr_Format(PyExc_ValueError, "%s must hold %zd values for %zd links", names[k],
                         per_link[k] * L, L);
            gc_chain_release(c);
            return -1;
        }
    }
    c->L = L;
    c->X_PJ = c->views[0].buf;
    c->axis = c->views[1].buf;
    c->kind = c->views[2].buf;
    c->parent = c->views[3].buf;
    c->column = c->views[4].buf;
    c->multiplier = c->views[5].buf;
    c->offset = c->views[6].buf;
    for (Py_ssize_t l = 0; l < L; ++l) {
        if (c->parent[l] >= l || c->parent[l] < -1) {
            PyErr_Format(PyExc_ValueError, "parent[%zd] = %d does not come before it", l,
                         c->parent[l]);
            gc_chain_release(c);
            return -1;
        }
    }
    c->K2 = PyMem_Malloc((size_t)(9 * L + 1) * sizeof(double));
    if (c->K2 == NULL) {
        gc_chain_release(c);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t l = 0; l < L; ++l) axis_square(c->axis + 3 * l, c->K2 + 9 * l);
    return 0;
}

/* R = I + s K + (1 - c) K^2 for the unit axis a (K its cross-product matrix,
 * K2 its square: axis_square). */
static void rodrigues(const double a[3], const double K2[9], double theta, double R[9]) {
    const double K[9] = {0.0, -a[2], a[1], a[2], 0.0, -a[0], -a[1], a[0], 0.0};
    double s = sin(theta), v = 1.0 - cos(theta);
    for (int k = 0; k < 9; ++k) R[k] = ((k % 4 == 0) ? 1.0 : 0.0) + s * K[k] + v * K2[k];
}

/* X_PF of every link of one configuration q (n positions): link l's into
 * X_PF[slot[l]] (4,4), or X_PF[l] when slot is NULL. */
static void link_poses(const chain *c, const double *q, const int *slot, double *X_PF) {
    for (Py_ssize_t l = 0; l < c->L; ++l) {
        const double *X_PJ = c->X_PJ + 16 * l;
        double *X = X_PF + 16 * (slot != NULL ? (Py_ssize_t)slot[l] : l);
        memcpy(X, X_PJ, 16 * sizeof(double));
        if (c->column[l] < 0 || c->kind[l] == JOINT_FIXED) continue;
        double t = q[c->column[l]] * c->multiplier[l] + c->offset[l];
        const double *a = c->axis + 3 * l;
        if (c->kind[l] == JOINT_REVOLUTE) {
            double R[9];
            rodrigues(a, c->K2 + 9 * l, t, R);
#if defined(__SSE2__)
            /* Columns 0 and 1 of a row at once (gc_compose's way: the same
             * products and sums in the same order), column 2 alone. */
            const __m128d r0 = _mm_loadu_pd(R), r3 = _mm_loadu_pd(R + 3);
            const __m128d r6 = _mm_loadu_pd(R + 6);
            for (int i = 0; i < 3; ++i) {
                const double x = X_PJ[4 * i], y = X_PJ[4 * i + 1], z = X_PJ[4 * i + 2];
                _mm_storeu_pd(X + 4 * i,
                              _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(x), r0),
                                                    _mm_mul_pd(_mm_set1_pd(y), r3)),
                                         _mm_mul_pd(_mm_set1_pd(z), r6)));
                X[4 * i + 2] = x * R[2] + y * R[5] + z * R[8];
            }
#else
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    X[4 * i + j] = X_PJ[4 * i] * R[j] + X_PJ[4 * i + 1] * R[3 + j] +
                                   X_PJ[4 * i + 2] * R[6 + j];
#endif
        } else {
            for (int i = 0; i < 3; ++i)
                X[4 * i + 3] += (t * a[0]) * X_PJ[4 * i] + (t * a[1]) * X_PJ[4 * i + 1] +
                                (t * a[2]) * X_PJ[4 * i + 2];
        }
    }
}

int gc_chain_max_column(const chain *c) {
    int max_column = -1;
    for (Py_ssize_t l = 0; l < c->L; ++l)
        if (c->column[l] > max_column) max_column = c->column[l];
    return max_column;
}

void gc_chain_pose_frames(const chain *c, const double *q, const int *link_slot,
                          const int *parent_slot, Py_ssize_t F, double *X_PF, double *X_WF) {
    link_poses(c, q, link_slot, X_PF);
    /* A slot under the world is its X_PF; the others are composed, every
     * value written, so only the former are copied. */
    for (Py_ssize_t s = 0; s < F; ++s) {
        if (s == 0 || parent_slot[s] == 0)
            memcpy(X_WF + 16 * s, X_PF + 16 * s, 16 * sizeof(double));
        else
            gc_compose(X_WF + 16 * parent_slot[s], X_PF + 16 * s, X_WF + 16 * s);
    }
}

/* Checks link_slot (L,) and parent_slot (F,) for gc_chain_pose_frames: every
 * link on a slot of its own in [1, F), parents before children. */
int gc_chain_check_slots(const chain *c, const Py_buffer *links, const Py_buffer *parents,
                         Py_ssize_t F) {
    const int *ls = links->buf, *ps = parents->buf;
    if (links->len != 4 * c->L || parents->len != 4 * F || F < 1) {
        PyErr_Format(PyExc_ValueError, "link_slot must hold %zd slots and parent_slot %zd",
                     c->L, F);
        return -1;
    }
    for (Py_ssize_t s = 1; s < F; ++s) {
        if (ps[s] < 0 || ps[s] >= s) {
            PyErr_Format(PyExc_ValueError, "parent_slot[%zd] = %d does not come before it", s,
                         ps[s]);
            return -1;
        }
    }
    for (Py_ssize_t l = 0; l < c->L; ++l) {
        if (ls[l] < 1 || ls[l] >= F) {
            PyErr_Format(PyExc_ValueError, "link_slot[%zd] = %d is not a frame slot in [1, %zd)",
                         l, ls[l], F);
            return -1;
        }
        for (Py_ssize_t m = 0; m < l; ++m) {
            if (ls[m] == ls[l]) {
                PyErr_Format(PyExc_ValueError, "links %zd and %zd share slot %d", m, l, ls[l]);
                return -1;
            }
        }
    }
    return 0;
}

/* world_poses(X_PJ, axis, kind, parent, column, multiplier, offset, qs (K, n),
 * X_PF (F, 4, 4), link_slot int32 (L,), parent_slot int32 (F,), X_WF out
 * (K, F, 4, 4)): the world pose of every frame slot in K configurations,
 * X_PF's rows link_slot[l] replaced by link l's pose (gc_chain_pose_frames). */
static PyObject *py_world_poses(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 12) {
        PyErr_SetString(PyExc_TypeError, "world_poses(X_PJ, axis, kind, parent, column, "
                                         "multiplier, offset, qs, X_PF, link_slot, "
                                         "parent_slot, X_WF)");
        return NULL;
    }
    chain c;
    if (gc_chain_parse(args, &c) < 0) return NULL;
    Py_buffer views[5];
    static const char formats[4] = {'d', 'd', 'i', 'i'};
    static const char *names[4] = {"qs", "X_PF", "link_slot", "parent_slot"};
    int got = 0, failed = 1;
    for (; got < 4; ++got)
        if (gc_get_buffer(args[7 + got], &views[got], formats[got], -1, names[got]) < 0) goto done;
    if (PyObject_GetBuffer(args[11], &views[4], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto done;
    ++got;
    Py_ssize_t F = views[1].len / (16 * 8);
    if (views[1].len != F * 16 * 8 || gc_chain_check_slots(&c, &views[2], &views[3], F) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "X_PF must be (F, 4, 4)");
        goto done;
    }
    Py_ssize_t bytes = F * 16 * 8, K = views[4].len / bytes;
    Py_ssize_t positions = K > 0 ? (views[0].len / 8) / K : 0;
    if (views[4].len != K * bytes || views[0].len != K * positions * 8 ||
        gc_chain_max_column(&c) >= (K > 0 ? positions : 0x7fffffff)) {
        PyErr_SetString(PyExc_ValueError, "world_poses: qs (K, n) and X_WF (K, F, 4, 4) do "
                                          "not agree");
        goto done;
    }
    double *X_PF = PyMem_Malloc((size_t)bytes);
    if (X_PF == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(X_PF, views[1].buf, (size_t)bytes);
    for (Py_ssize_t k = 0; k < K; ++k)
        gc_chain_pose_frames(&c, (const double *)views[0].buf + positions * k, views[2].buf,
                             views[3].buf, F, X_PF, (double *)views[4].buf + 16 * F * k);
    PyMem_Free(X_PF);
    failed = 0;
done:
    for (int v = 0; v < got; ++v) PyBuffer_Release(&views[v]);
    gc_chain_release(&c);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

/* frame_poses(X_PJ, axis, kind, parent, column, multiplier, offset, qs (K, n),
 * X_PF out (K, L, 4, 4), X_WL out (K, L, 4, 4)): every link's pose in its
 * parent and in the world, for K configurations. */
static PyObject *py_frame_poses(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 10) {
        PyErr_SetString(PyExc_TypeError, "frame_poses(X_PJ, axis, kind, parent, column, "
                                         "multiplier, offset, qs, X_PF, X_WL)");
        return NULL;
    }
    chain c;
    if (gc_chain_parse(args, &c) < 0) return NULL;
    Py_buffer qs, xpf, xwl;
    if (gc_get_buffer(args[7], &qs, 'd', -1, "qs") < 0) {
        gc_chain_release(&c);
        return NULL;
    }
    int failed = 1;
    if (PyObject_GetBuffer(args[8], &xpf, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto qs_done;
    if (PyObject_GetBuffer(args[9], &xwl, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto pf_done;
    Py_ssize_t L = c.L, bytes = 16 * L * (Py_ssize_t)sizeof(double);
    Py_ssize_t K = bytes > 0 ? xpf.len / bytes : 0;
    Py_ssize_t positions = K > 0 ? (qs.len / 8) / K : 0;
    int max_column = -1;
    for (Py_ssize_t l = 0; l < L; ++l)
        if (c.column[l] > max_column) max_column = c.column[l];
    if (xpf.len != K * bytes || xwl.len != K * bytes || qs.len != K * positions * 8 ||
        max_column >= positions) {
        PyErr_SetString(PyExc_ValueError,
                        "frame_poses: qs (K, n), X_PF and X_WL (K, L, 4, 4) do not agree");
        goto wl_done;
    }
    for (Py_ssize_t k = 0; k < K; ++k) {
        double *X_PF = (double *)xpf.buf + 16 * L * k, *X_WL = (double *)xwl.buf + 16 * L * k;
        link_poses(&c, (const double *)qs.buf + positions * k, NULL, X_PF);
        for (Py_ssize_t l = 0; l < L; ++l) {
            if (c.parent[l] < 0)
                memcpy(X_WL + 16 * l, X_PF + 16 * l, 16 * sizeof(double));
            else
                gc_compose(X_WL + 16 * c.parent[l], X_PF + 16 * l, X_WL + 16 * l);
        }
    }
    failed = 0;
wl_done:
    PyBuffer_Release(&xwl);
pf_done:
    PyBuffer_Release(&xpf);
qs_done:
    PyBuffer_Release(&qs);
    gc_chain_release(&c);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

/* The velocity of point p (W) per unit of joint i's position, times the
 * joint's mimic multiplier, into col; 0 when joint i moves nothing (fixed,
 * or no position). The child frame of joint i sits on its axis, so X, link
 * i's world pose X_WL[i], gives both the axis a_W = R_WL[i] axis[i] and its
 * origin. */
static int joint_column(const chain *c, const double *X, int i, const double p[3],
                        double col[3]) {
    if (c->column[i] < 0 || c->kind[i] == JOINT_FIXED) return 0;
    const double *a = c->axis + 3 * i;
    double a_W[3];
    for (int r = 0; r < 3; ++r) a_W[r] = X[4 * r] * a[0] + X[4 * r + 1] * a[1] + X[4 * r + 2] * a[2];
    if (c->kind[i] == JOINT_REVOLUTE) {
        double d[3] = {p[0] - X[3], p[1] - X[7], p[2] - X[11]};
        col[0] = a_W[1] * d[2] - a_W[2] * d[1];
        col[1] = a_W[2] * d[0] - a_W[0] * d[2];
        col[2] = a_W[0] * d[1] - a_W[1] * d[0];
    } else {
        memcpy(col, a_W, 3 * sizeof(double));
    }
    for (int r = 0; r < 3; ++r) col[r] *= c->multiplier[i];
    return 1;
}

/* Adds sign * nhat . dp/dq of point p (W) fixed on link `link` to row (one
 * entry per position column); the links' world poses are X_WF[link_slot[l]]
 * (the frames a chain batch poses). The same sums as distance_jacobians. */
void gc_chain_add_point_row(const gc_chain *c, const double *X_WF, const int *link_slot,
                            int link, const double p[3], const double nhat[3], double sign,
                            double *row) {
    for (int i = link; i >= 0; i = c->parent[i]) {
        double col[3];
        if (!joint_column(c, X_WF + 16 * link_slot[i], i, p, col)) continue;
        row[c->column[i]] += sign * (nhat[0] * col[0] + nhat[1] * col[1] + nhat[2] * col[2]);
    }
}

/* point_jacobians(X_PJ, axis, kind, parent, column, multiplier, offset,
 * X_WL (L, 4, 4) of one configuration, links int32 (M,), p_WQ (M, 3),
 * J out (M, 3, n)): J[m] = dp_WQ/dq of point m fixed on link links[m] (-1:
 * not on the robot, zero). Each moving joint i between the link and the
 * world adds multiplier * (a_W x (p_WQ - p_WJo)) (revolute) or
 * multiplier * a_W (prismatic) to its position's column, with a_W =
 * R_WL[i] axis[i] and p_WJo the child frame's origin (URDF: the motion is
 * applied after the joint origin). */
static PyObject *py_point_jacobians(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 11) {
        PyErr_SetString(PyExc_TypeError, "point_jacobians(X_PJ, axis, kind, parent, column, "
                                         "multiplier, offset, X_WL, links, p_WQ, J)");
        return NULL;
    }
    chain c;
    if (gc_chain_parse(args, &c) < 0) return NULL;
    Py_buffer xwl, links, points, jac;
    int failed = 1;
    if (gc_get_buffer(args[7], &xwl, 'd', 16 * c.L, "X_WL") < 0) goto chain_done;
    if (gc_get_buffer(args[8], &links, 'i', -1, "links") < 0) goto wl_done;
    Py_ssize_t M = links.len / 4;
    if (gc_get_buffer(args[9], &points, 'd', 3 * M, "p_WQ") < 0) goto links_done;
    if (PyObject_GetBuffer(args[10], &jac, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto points_done;
    Py_ssize_t positions = M > 0 ? (jac.len / 8) / (3 * M) : 0;
    int bad = M > 0 && jac.len != 3 * M * positions * 8;
    for (Py_ssize_t l = 0; l < c.L && !bad; ++l) bad = c.column[l] >= positions && M > 0;
    const int *link = links.buf;
    for (Py_ssize_t m = 0; m < M && !bad; ++m) bad = link[m] < -1 || link[m] >= c.L;
    if (bad) {
        PyErr_SetString(PyExc_ValueError,
                        "point_jacobians: links (M,), p_WQ (M, 3) and J (M, 3, n) do not agree");
        goto jac_done;
    }
    const double *X_WL = xwl.buf, *p = points.buf;
    double *J = jac.buf;
    memset(J, 0, (size_t)jac.len);
    for (Py_ssize_t m = 0; m < M; ++m, p += 3, J += 3 * positions) {
        for (int i = link[m]; i >= 0; i = c.parent[i]) {
            double col[3];
            if (!joint_column(&c, X_WL + 16 * i, i, p, col)) continue;
            for (int r = 0; r < 3; ++r) J[r * positions + c.column[i]] += col[r];
        }
    }
    failed = 0;
jac_done:
    PyBuffer_Release(&jac);
points_done:
    PyBuffer_Release(&points);
links_done:
    PyBuffer_Release(&links);
wl_done:
    PyBuffer_Release(&xwl);
chain_done:
    gc_chain_release(&c);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

/* distance_jacobians(X_PJ, axis, kind, parent, column, multiplier, offset,
 * X_WL (L, 4, 4), links int32 (2M,), X_BG (2M, 4, 4), p_GQ (2M, 3),
 * nhat (M, 3), out (M, n)): the Jacobian row of M clearance rows at once.
 * Points 2m and 2m + 1 are the witnesses Ca and Cb of row m, each at p_GQ in
 * its geometry G, which sits at X_BG on its body: a link (links[k] >= 0,
 * moving with X_WL) or a body welded to the world (-1, whose frame is W).
 * out[m] = nhat[m] . (J(Ca) - J(Cb)), J as point_jacobians. */
static PyObject *py_distance_jacobians(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 13) {
        PyErr_SetString(PyExc_TypeError, "distance_jacobians(X_PJ, axis, kind, parent, column, "
                                         "multiplier, offset, X_WL, links, X_BG, p_GQ, nhat, "
                                         "out)");
        return NULL;
    }
    chain c;
    if (gc_chain_parse(args, &c) < 0) return NULL;
    Py_buffer xwl, links, xbg, pgq, nhat, out;
    int failed = 1;
    if (gc_get_buffer(args[7], &xwl, 'd', 16 * c.L, "X_WL") < 0) goto chain_done;
    if (gc_get_buffer(args[8], &links, 'i', -1, "links") < 0) goto wl_done;
    Py_ssize_t points = links.len / 4, M = points / 2;
    if (gc_get_buffer(args[9], &xbg, 'd', 16 * points, "X_BG") < 0) goto links_done;
    if (gc_get_buffer(args[10], &pgq, 'd', 3 * points, "p_GQ") < 0) goto bg_done;
    if (gc_get_buffer(args[11], &nhat, 'd', 3 * M, "nhat") < 0) goto gq_done;
    if (PyObject_GetBuffer(args[12], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto nhat_done;
    Py_ssize_t positions = M > 0 ? (out.len / 8) / M : 0;
    const int *link = links.buf;
    int bad = points != 2 * M || (M > 0 && out.len != M * positions * 8);
    for (Py_ssize_t l = 0; l < c.L && !bad && M > 0; ++l) bad = c.column[l] >= positions;
    for (Py_ssize_t k = 0; k < points && !bad; ++k) bad = link[k] < -1 || link[k] >= c.L;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "distance_jacobians: links (2M,), X_BG, p_GQ, nhat "
                                          "(M, 3) and out (M, n) do not agree");
        goto out_done;
    }
    const double *X_WL = xwl.buf, *X_BG = xbg.buf, *p_GQ = pgq.buf, *n_BA = nhat.buf;
    double *row = out.buf;
    memset(row, 0, (size_t)out.len);
    for (Py_ssize_t k = 0; k < points; ++k) {
        /* p_WQ: G to the body, then the body (a link) to W. */
        const double *X = X_BG + 16 * k, *g = p_GQ + 3 * k;
        double p_B[3], p[3];
        for (int r = 0; r < 3; ++r)
            p_B[r] = X[4 * r] * g[0] + X[4 * r + 1] * g[1] + X[4 * r + 2] * g[2] + X[4 * r + 3];
        if (link[k] < 0) continue; /* welded to the world: no motion, no Jacobian */
        const double *W = X_WL + 16 * link[k];
        for (int r = 0; r < 3; ++r)
            p[r] = W[4 * r] * p_B[0] + W[4 * r + 1] * p_B[1] + W[4 * r + 2] * p_B[2] + W[4 * r + 3];
        const double *nk = n_BA + 3 * (k / 2);
        double sign = (k % 2 == 0) ? 1.0 : -1.0; /* J(Ca) - J(Cb) */
        double *out_row = row + positions * (k / 2);
        for (int i = link[k]; i >= 0; i = c.parent[i]) {
            double col[3];
            if (!joint_column(&c, X_WL + 16 * i, i, p, col)) continue;
            out_row[c.column[i]] += sign * (nk[0] * col[0] + nk[1] * col[1] + nk[2] * col[2]);
        }
    }
    failed = 0;
out_done:
    PyBuffer_Release(&out);
nhat_done:
    PyBuffer_Release(&nhat);
gq_done:
    PyBuffer_Release(&pgq);
bg_done:
    PyBuffer_Release(&xbg);
links_done:
    PyBuffer_Release(&links);
wl_done:
    PyBuffer_Release(&xwl);
chain_done:
    gc_chain_release(&c);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

#define FASTCALL(name) (PyCFunction)(void (*)(void))(name), METH_FASTCALL

static PyMethodDef kinematics_methods[] = {
    {"frame_poses", FASTCALL(py_frame_poses),
     "frame_poses(X_PJ, axis, kind, parent, column, multiplier, offset, qs, X_PF, X_WL)"},
    {"point_jacobians", FASTCALL(py_point_jacobians),
     "point_jacobians(X_PJ, axis, kind, parent, column, multiplier, offset, X_WL, links, "
     "p_WQ, J)"},
    {"distance_jacobians", FASTCALL(py_distance_jacobians),
     "distance_jacobians(X_PJ, axis, kind, parent, column, multiplier, offset, X_WL, links, "
     "X_BG, p_GQ, nhat, out): nhat . (J(Ca) - J(Cb)) of M clearance rows"},
    {"world_poses", FASTCALL(py_world_poses),
     "world_poses(X_PJ, axis, kind, parent, column, multiplier, offset, qs, X_PF, link_slot, "
     "parent_slot, X_WF): every frame's world pose in K configurations of the chain"},
    {NULL, NULL, 0, NULL},
};

/* Adds geometry_core._native.kinematics. */
int gc_kinematics_register(PyObject *module) {
    static struct PyModuleDef def = {
        .m_base = PyModuleDef_HEAD_INIT,
        .m_name = "geometry_core._native.kinematics",
        .m_doc = "Link poses and point Jacobians of a kinematic chain (see csrc/kinematics.c).",
        .m_size = -1,
        .m_methods = kinematics_methods,
    };
    PyObject *sub = PyModule_Create(&def);
    if (sub == NULL) return -1;
    if (PyModule_AddObject(module, "kinematics", sub) < 0) {
        Py_DECREF(sub);
        return -1;
    }
    return 0;
}
