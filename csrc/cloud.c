/* Cloud: a point cloud in a uniform grid of cells, and the exact queries of
 * a Model's geometries against it.
 *
 * Construction bins the points by cell in two passes over an open-addressing
 * table of occupied cells (linear in the number of points, no sort): the
 * points of one cell lie together, each cell's slot holds where they start
 * and how many they are. A query composes each listed geometry's world pose
 * as the Model does (X_WF[frame_slot] X_FG), visits the cells its world box
 * reaches once grown by the threshold, drops a point whose distance to that
 * box already exceeds the threshold, and answers the others with the point
 * kernel (gc_point_distance): the same number a sphere of the cloud's radius
 * at that point gets from the sphere-X pair kernel, before the radius.
 *
 * A Cloud is immutable after construction; the query loops run with the GIL
 * released, so several threads may query one Cloud at once.
 */
#include "gc_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t N;
    double *p;          /* (N, 3), grouped by cell */
    int64_t *order;     /* (N) index of each point in the input */
    double h;           /* cell size */
    double lo[3], hi[3];/* bounds of the points */
    int64_t dims[3];    /* cells along each axis */
    Py_ssize_t cap;     /* table slots, a power of two */
    int64_t *keys;      /* (cap) cell key, -1 where empty */
    int32_t *start;     /* (cap) first point of the cell */
    int32_t *count;     /* (cap) points in the cell */
} CloudObject;

static void cloud_dealloc(CloudObject *self) {
    PyMem_Free(self->p);
    PyMem_Free(self->order);
    free(self->keys);
    free(self->start);
    free(self->count);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline uint64_t mix(int64_t key) {
    uint64_t x = (uint64_t)key;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
}

/* The table slot of a cell key: its own, or the empty one where it belongs. */
static inline Py_ssize_t slot_of(const CloudObject *c, int64_t key) {
    Py_ssize_t mask = c->cap - 1, s = (Py_ssize_t)(mix(key) & (uint64_t)mask);
    while (c->keys[s] != -1 && c->keys[s] != key) s = (s + 1) & mask;
    return s;
}

static inline int64_t cell_index(const CloudObject *c, int axis, double x) {
    double v = floor((x - c->lo[axis]) / c->h);
    if (!(v > 0.0)) return 0; /* and NaN */
    if (v >= (double)(c->dims[axis] - 1)) return c->dims[axis] - 1;
    return (int64_t)v;
}

static inline int64_t cell_key(const CloudObject *c, int64_t ix, int64_t iy, int64_t iz) {
    return ix + c->dims[0] * (iy + c->dims[1] * iz);
}

/* Rehash the table into `cap` slots (counts kept); -1 when out of memory.
 * Uses malloc, not PyMem: it runs with the GIL released. */
static int grow(CloudObject *c, Py_ssize_t cap) {
    int64_t *keys = malloc((size_t)cap * sizeof(int64_t));
    int32_t *start = calloc((size_t)cap, sizeof(int32_t));
    int32_t *count = calloc((size_t)cap, sizeof(int32_t));
    if (!keys || !start || !count) {
        free(keys);
        free(start);
        free(count);
        return -1;
    }
    memset(keys, 0xff, (size_t)cap * sizeof(int64_t));
    int64_t *old_keys = c->keys;
    int32_t *old_count = c->count, *old_start = c->start;
    Py_ssize_t old_cap = c->cap;
    c->keys = keys;
    c->start = start;
    c->count = count;
    c->cap = cap;
    for (Py_ssize_t s = 0; s < old_cap; ++s) {
        if (old_keys[s] == -1) continue;
        Py_ssize_t t = slot_of(c, old_keys[s]);
        keys[t] = old_keys[s];
        count[t] = old_count[s];
    }
    free(old_keys);
    free(old_start);
    free(old_count);
    return 0;
}

static int cloud_init(CloudObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"points", "cell", NULL};
    PyObject *points_o;
    double h;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Od", kwlist, &points_o, &h)) return -1;
    if (self->keys != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Cloud is immutable: construct a new one");
        return -1;
    }
    if (!(h > 0.0) || !isfinite(h)) {
        PyErr_SetString(PyExc_ValueError, "cell must be a positive number");
        return -1;
    }
    Py_buffer view;
    if (gc_get_buffer(points_o, &view, 'd', -1, "points") < 0) return -1;
    Py_ssize_t N = view.len / 24;
    if (view.len != N * 24 || N > INT32_MAX / 2) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "points must have shape (N, 3), N < 2**30");
        return -1;
    }
    const double *in = view.buf;
    for (int a = 0; a < 3; ++a) {
        self->lo[a] = INFINITY;
        self->hi[a] = -INFINITY;
    }
    for (Py_ssize_t n = 0; n < N; ++n) {
        for (int a = 0; a < 3; ++a) {
            double x = in[3 * n + a];
            if (!isfinite(x)) {
                PyBuffer_Release(&view);
                PyErr_Format(PyExc_ValueError, "point %zd is not finite", n);
                return -1;
            }
            if (x < self->lo[a]) self->lo[a] = x;
            if (x > self->hi[a]) self->hi[a] = x;
        }
    }
    /* Cells along an axis stay below 2**20, so keys fit in 63 bits; a cloud
     * wider than that gets larger cells. */
    for (int a = 0; a < 3 && N > 0; ++a) {
        double extent = self->hi[a] - self->lo[a];
        if (extent / h > 1048575.0) h = extent / 1048575.0;
    }
    self->h = h;
    for (int a = 0; a < 3; ++a)
        self->dims[a] = N > 0 ? (int64_t)floor((self->hi[a] - self->lo[a]) / h) + 1 : 1;
    self->N = N;
    self->p = PyMem_Malloc((size_t)(N > 0 ? N : 1) * 3 * sizeof(double));
    self->order = PyMem_Malloc((size_t)(N > 0 ? N : 1) * sizeof(int64_t));
    int64_t *key_of = PyMem_Malloc((size_t)(N > 0 ? N : 1) * sizeof(int64_t));
    if (!self->p || !self->order || !key_of || grow(self, 1024) < 0) {
        PyMem_Free(key_of);
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    /* Pass 1: count the points of each occupied cell; the table grows with
     * the occupied cells (not the points), so it stays small and in cache. */
    Py_ssize_t used = 0;
    for (Py_ssize_t n = 0; n < N && !failed; ++n) {
        const double *q = in + 3 * n;
        int64_t key = cell_key(self, cell_index(self, 0, q[0]), cell_index(self, 1, q[1]),
                               cell_index(self, 2, q[2]));
        key_of[n] = key;
        Py_ssize_t s = slot_of(self, key);
        if (self->keys[s] == -1) {
            if (2 * (used + 1) > self->cap) {
                if (grow(self, 2 * self->cap) < 0) {
                    failed = 1;
                    break;
                }
                s = slot_of(self, key);
            }
            self->keys[s] = key;
            ++used;
        }
        self->count[s] += 1;
    }
    if (!failed) {
        int32_t next = 0;
        for (Py_ssize_t s = 0; s < self->cap; ++s) {
            self->start[s] = next;
            next += self->count[s];
            self->count[s] = 0;
        }
        /* Pass 2: place each point in its cell's run. */
        for (Py_ssize_t n = 0; n < N; ++n) {
            Py_ssize_t s = slot_of(self, key_of[n]);
            int32_t at = self->start[s] + self->count[s]++;
            memcpy(self->p + 3 * at, in + 3 * n, 3 * sizeof(double));
            self->order[at] = n;
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(key_of);
    PyBuffer_Release(&view);
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* World box of a bounded geometry: its local box turned and moved to W. */
static void world_box(const double *X, const double *box_G, double c[3], double half[3]) {
    gc_to_world(X, box_G, c);
    for (int r = 0; r < 3; ++r)
        half[r] = fabs(X[4 * r]) * box_G[3] + fabs(X[4 * r + 1]) * box_G[4] +
                  fabs(X[4 * r + 2]) * box_G[5];
}

typedef struct {
    double distance;    /* signed distance from the geometry to the point */
    int64_t index;      /* the point, in input order; -1 when none */
    double p_GN[3], grad_W[3];
    int unique;
} cloud_hit;

/* The nearest point of the cloud to geometry g at X_WG whose signed distance
 * is at most `threshold` (first such point when `first`); hit->index -1 when
 * none. Returns GC_OK, or the kernel's status when it handles no such shape. */
static int nearest(const CloudObject *c, const gc_shape *shape, const double *box_G,
                   const double *X_WG, double threshold, int first, cloud_hit *hit) {
    hit->index = -1;
    hit->distance = INFINITY;
    if (c->N == 0 || !(threshold >= -INFINITY)) return GC_OK;
    double center[3], half[3];
    if (shape->kind == GC_HALFSPACE) {
        for (int a = 0; a < 3; ++a) {
            center[a] = 0.5 * (c->lo[a] + c->hi[a]);
            half[a] = INFINITY;
        }
    } else {
        world_box(X_WG, box_G, center, half);
    }
    double bound = threshold;
    int64_t from[3], to[3];
    for (int a = 0; a < 3; ++a) {
        double reach = half[a] + (bound > 0.0 ? bound : 0.0);
        double lo = center[a] - reach, hi = center[a] + reach;
        if (hi < c->lo[a] || lo > c->hi[a]) return GC_OK;
        from[a] = cell_index(c, a, lo);
        to[a] = cell_index(c, a, hi);
    }
    for (int64_t iz = from[2]; iz <= to[2]; ++iz) {
        for (int64_t iy = from[1]; iy <= to[1]; ++iy) {
            for (int64_t ix = from[0]; ix <= to[0]; ++ix) {
                Py_ssize_t s = slot_of(c, cell_key(c, ix, iy, iz));
                if (c->keys[s] == -1) continue;
                const double *q = c->p + 3 * (Py_ssize_t)c->start[s];
                for (int32_t k = 0; k < c->count[s]; ++k, q += 3) {
                    /* Distance from the point to the geometry's world box: a
                     * lower bound on its distance to the geometry. */
                    double gap2 = 0.0;
                    for (int a = 0; a < 3; ++a) {
                        double e = fabs(q[a] - center[a]) - half[a];
                        if (e > 0.0) gap2 += e * e;
                    }
                    if (bound >= 0.0 && gap2 > bound * bound) continue;
                    gc_point_result r;
                    int status = gc_point_distance(shape, X_WG, q, &r);
                    if (status != GC_OK) return status;
                    if (r.distance > bound || (hit->index >= 0 && r.distance >= hit->distance))
                        continue;
                    hit->distance = r.distance;
                    hit->index = c->order[c->start[s] + k];
                    for (int a = 0; a < 3; ++a) {
                        hit->p_GN[a] = r.p_GN[a];
                        hit->grad_W[a] = r.grad[a];
                    }
                    hit->unique = r.unique;
                    if (first) return GC_OK;
                    bound = r.distance;
                }
            }
        }
    }
    return GC_OK;
}

typedef struct {
    gc_model_view model;
    Py_buffer xwf, geoms, thresholds;
    Py_ssize_t F, K, R;
    int got;
} query_args;

static void release_args(query_args *a) {
    if (a->got >= 3) PyBuffer_Release(&a->thresholds);
    if (a->got >= 2) PyBuffer_Release(&a->geoms);
    if (a->got >= 1) PyBuffer_Release(&a->xwf);
    a->got = 0;
}

static int parse_args(PyObject *model_o, PyObject *xwf_o, Py_ssize_t F, PyObject *geoms_o,
                      PyObject *thr_o, query_args *a) {
    a->got = 0;
    if (gc_model_get_view(model_o, &a->model) < 0) return -1;
    if (F <= a->model.max_slot) {
        PyErr_Format(PyExc_ValueError, "F must exceed the largest frame slot %d",
                     a->model.max_slot);
        return -1;
    }
    if (gc_get_buffer(xwf_o, &a->xwf, 'd', -1, "X_WF") < 0) return -1;
    a->got = 1;
    a->F = F;
    a->K = a->xwf.len / (F * 16 * 8);
    if (a->xwf.len != a->K * F * 16 * 8) {
        release_args(a);
        PyErr_Format(PyExc_ValueError, "X_WF must hold (K, %zd, 4, 4) poses", F);
        return -1;
    }
    if (gc_get_buffer(geoms_o, &a->geoms, 'i', -1, "geometries") < 0) {
        release_args(a);
        return -1;
    }
    a->got = 2;
    a->R = a->geoms.len / 4;
    if (gc_get_buffer(thr_o, &a->thresholds, 'd', a->R, "thresholds") < 0) {
        release_args(a);
        return -1;
    }
    a->got = 3;
    const int *g = a->geoms.buf;
    for (Py_ssize_t r = 0; r < a->R; ++r) {
        if (g[r] < 0 || g[r] >= a->model.G) {
            release_args(a);
            PyErr_Format(PyExc_ValueError, "geometries[%zd] = %d is not a geometry of the model",
                         r, g[r]);
            return -1;
        }
    }
    return 0;
}

static PyObject *not_handled(int g) {
    PyErr_Format(PyExc_ValueError, "geometry %d: the point kernel handles no such shape "
                 "(a Mesh has no inside)", g);
    return NULL;
}

/* any_within(model, X_WF, F, geometries, thresholds) -> bytes (K,) of 0/1. */
static PyObject *cloud_any_within(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, a.K);
    if (out == NULL) {
        release_args(&a);
        return NULL;
    }
    unsigned char *hit = (unsigned char *)PyBytes_AS_STRING(out);
    const int *geoms = a.geoms.buf;
    const double *thr = a.thresholds.buf;
    int bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < a.K && bad < 0; ++k) {
        const double *X_WF = (const double *)a.xwf.buf + (size_t)k * (size_t)a.F * 16;
        hit[k] = 0;
        for (Py_ssize_t r = 0; r < a.R && !hit[k]; ++r) {
            int g = geoms[r];
            double X_WG[16];
            gc_compose(X_WF + 16 * a.model.frame_slot[g], a.model.X_FG + 16 * g, X_WG);
            cloud_hit h;
            if (nearest(self, &a.model.shapes[g], a.model.box_G + 6 * g, X_WG, thr[r], 1, &h)
                != GC_OK) {
                bad = g;
                break;
            }
            if (h.index >= 0) hit[k] = 1;
        }
    }
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad >= 0) {
        Py_DECREF(out);
        return not_handled(bad);
    }
    return out;
}

/* nearest(model, X_WF, F, geometries, thresholds) -> (bytes distance (K, R) float64,
 * bytes index (K, R) int64, bytes p_GN (K, R, 3), bytes grad_W (K, R, 3),
 * bytes unique (K, R) uint8): per configuration and geometry, the nearest point
 * within the threshold (index -1, distance inf when none). */
static PyObject *cloud_nearest(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    Py_ssize_t M = a.K * a.R;
    PyObject *dist = PyBytes_FromStringAndSize(NULL, M * 8);
    PyObject *index = PyBytes_FromStringAndSize(NULL, M * 8);
    PyObject *pgn = PyBytes_FromStringAndSize(NULL, M * 24);
    PyObject *grad = PyBytes_FromStringAndSize(NULL, M * 24);
    PyObject *uniq = PyBytes_FromStringAndSize(NULL, M);
    if (!dist || !index || !pgn || !grad || !uniq) {
        Py_XDECREF(dist);
        Py_XDECREF(index);
        Py_XDECREF(pgn);
        Py_XDECREF(grad);
        Py_XDECREF(uniq);
        release_args(&a);
        return NULL;
    }
    double *d_out = (double *)PyBytes_AS_STRING(dist);
    int64_t *i_out = (int64_t *)PyBytes_AS_STRING(index);
    double *p_out = (double *)PyBytes_AS_STRING(pgn);
    double *g_out = (double *)PyBytes_AS_STRING(grad);
    unsigned char *u_out = (unsigned char *)PyBytes_AS_STRING(uniq);
    const int *geoms = a.geoms.buf;
    const double *thr = a.thresholds.buf;
    int bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < a.K && bad < 0; ++k) {
        const double *X_WF = (const double *)a.xwf.buf + (size_t)k * (size_t)a.F * 16;
        for (Py_ssize_t r = 0; r < a.R; ++r) {
            int g = geoms[r];
            Py_ssize_t m = k * a.R + r;
            double X_WG[16];
            gc_compose(X_WF + 16 * a.model.frame_slot[g], a.model.X_FG + 16 * g, X_WG);
            cloud_hit h;
            if (nearest(self, &a.model.shapes[g], a.model.box_G + 6 * g, X_WG, thr[r], 0, &h)
                != GC_OK) {
                bad = g;
                break;
            }
            d_out[m] = h.distance;
            i_out[m] = h.index;
            u_out[m] = (unsigned char)(h.index >= 0 && h.unique);
            for (int c = 0; c < 3; ++c) {
                p_out[3 * m + c] = h.index >= 0 ? h.p_GN[c] : 0.0;
                g_out[3 * m + c] = h.index >= 0 ? h.grad_W[c] : 0.0;
            }
        }
    }
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad >= 0) {
        Py_DECREF(dist);
        Py_DECREF(index);
        Py_DECREF(pgn);
        Py_DECREF(grad);
        Py_DECREF(uniq);
        return not_handled(bad);
    }
    return Py_BuildValue("(NNNNN)", dist, index, pgn, grad, uniq);
}

/* within(model, X_WF (1 configuration), F, geometries, thresholds) -> bytes (N,) of 0/1
 * in input order: whether some listed geometry is within its threshold of the point. */
static PyObject *cloud_within(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    if (a.K != 1) {
        release_args(&a);
        PyErr_SetString(PyExc_ValueError, "within takes the poses of one configuration");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->N);
    if (out == NULL) {
        release_args(&a);
        return NULL;
    }
    unsigned char *mask = (unsigned char *)PyBytes_AS_STRING(out);
    memset(mask, 0, (size_t)self->N);
    const int *geoms = a.geoms.buf;
    const double *thr = a.thresholds.buf;
    int bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < a.R && bad < 0; ++r) {
        int g = geoms[r];
        double X_WG[16], center[3], half[3];
        const double *X_WF = (const double *)a.xwf.buf;
        gc_compose(X_WF + 16 * a.model.frame_slot[g], a.model.X_FG + 16 * g, X_WG);
        const gc_shape *shape = &a.model.shapes[g];
        double bound = thr[r];
        if (self->N == 0 || shape->kind == GC_HALFSPACE) {
            /* Every point, in order. */
            for (Py_ssize_t n = 0; n < self->N; ++n) {
                gc_point_result pr;
                if (gc_point_distance(shape, X_WG, self->p + 3 * n, &pr) != GC_OK) {
                    bad = g;
                    break;
                }
                if (pr.distance <= bound) mask[self->order[n]] = 1;
            }
            continue;
        }
        world_box(X_WG, a.model.box_G + 6 * g, center, half);
        int64_t from[3], to[3];
        int outside = 0;
        for (int c = 0; c < 3; ++c) {
            double reach = half[c] + (bound > 0.0 ? bound : 0.0);
            if (center[c] + reach < self->lo[c] || center[c] - reach > self->hi[c]) outside = 1;
            from[c] = cell_index(self, c, center[c] - reach);
            to[c] = cell_index(self, c, center[c] + reach);
        }
        if (outside) continue;
        for (int64_t iz = from[2]; iz <= to[2] && bad < 0; ++iz)
            for (int64_t iy = from[1]; iy <= to[1] && bad < 0; ++iy)
                for (int64_t ix = from[0]; ix <= to[0] && bad < 0; ++ix) {
                    Py_ssize_t s = slot_of(self, cell_key(self, ix, iy, iz));
                    if (self->keys[s] == -1) continue;
                    for (int32_t k = 0; k < self->count[s]; ++k) {
                        Py_ssize_t n = self->start[s] + k;
                        const double *q = self->p + 3 * n;
                        double gap2 = 0.0;
                        for (int c = 0; c < 3; ++c) {
                            double e = fabs(q[c] - center[c]) - half[c];
                            if (e > 0.0) gap2 += e * e;
                        }
                        if (bound >= 0.0 && gap2 > bound * bound) continue;
                        gc_point_result pr;
                        if (gc_point_distance(shape, X_WG, q, &pr) != GC_OK) {
                            bad = g;
                            break;
                        }
                        if (pr.distance <= bound) mask[self->order[n]] = 1;
                    }
                }
    }
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad >= 0) {
        Py_DECREF(out);
        return not_handled(bad);
    }
    return out;
}

static PyObject *cloud_size(CloudObject *self, void *closure) {
    return PyLong_FromSsize_t(self->N);
}

static PyObject *cloud_cell(CloudObject *self, void *closure) {
    return PyFloat_FromDouble(self->h);
}

static PyMethodDef cloud_methods[] = {
    {"any_within", (PyCFunction)cloud_any_within, METH_VARARGS,
     "any_within(model, X_WF (K,F,4,4), F, geometries int32 (R,), thresholds (R,)) -> bytes\n"
     "(K,): 1 where some geometry r has a point at signed distance <= thresholds[r]"},
    {"nearest", (PyCFunction)cloud_nearest, METH_VARARGS,
     "nearest(model, X_WF, F, geometries, thresholds) -> (distance (K,R), index (K,R) int64,\n"
     "p_GN (K,R,3), grad_W (K,R,3), unique (K,R) uint8) as bytes: the nearest point within\n"
     "the threshold (index -1 when none)"},
    {"within", (PyCFunction)cloud_within, METH_VARARGS,
     "within(model, X_WF (1,F,4,4), F, geometries, thresholds) -> bytes (N,) in input\n"
     "order: 1 where a geometry is within its threshold of the point"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef cloud_getset[] = {
    {"size", (getter)cloud_size, NULL, "number of points", NULL},
    {"cell", (getter)cloud_cell, NULL, "cell size used (metres)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CloudType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geometry_core._native.Cloud",
    .tp_basicsize = sizeof(CloudObject),
    .tp_dealloc = (destructor)cloud_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cloud(points (N,3) float64, cell): finite points binned in a grid of cells.",
    .tp_methods = cloud_methods,
    .tp_getset = cloud_getset,
    .tp_init = (initproc)cloud_init,
    .tp_new = PyType_GenericNew,
};

int gc_cloud_register(PyObject *module) {
    if (PyType_Ready(&CloudType) < 0) return -1;
    Py_INCREF(&CloudType);
    if (PyModule_AddObject(module, "Cloud", (PyObject *)&CloudType) < 0) {
        Py_DECREF(&CloudType);
        return -1;
    }
    return 0;
}
