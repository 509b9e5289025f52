/* Model: one collision model's shapes, frames and filters, and the batch
 * queries that run on it without Python per pair. In one pass over the
 * geometries: world boxes (tight for primitives), candidate pairs (all pairs
 * for small scenes, sort and sweep on x beyond; half spaces against every
 * box that reaches their plane), the filters of
 * geometry_core/scene_graph/collision_model.py (same frame, declared), a
 * separating-axis test along the centres' offset, the pair kernels
 * (gc_pair) and, for points, the box cull and the point kernels.
 *
 * A Model is immutable after construction and holds no per-query scratch, so
 * snapshots on several threads may query one Model at once; the heavy loops
 * run with the GIL released.
 */
#include "gc_buffers.h"
#include "gc_kinematics.h"
#include "gc_model.h"
#include "gc_parallel.h"
#include "gc_tolerances.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    PyObject_HEAD
    Py_ssize_t G;
    gc_shape *shapes;     /* (G) */
    double *box_G;        /* (G, 6): local box centre and half extents */
    int *frame_slot;      /* (G) */
    int max_slot;
    double *X_FG;         /* (G, 16) */
    double *inner;        /* (G, 4): a sphere inside each geometry, centre in G and radius
                             (radius <= 0: none), for proving overlaps (inner_spheres) */
    double *outer;        /* (G, 4): a sphere around each geometry (its local box's centre
                             and half diagonal, grown against rounding; inf radius for
                             half spaces), for proving a pair cannot be the nearest */
    int64_t *filtered;    /* (K) sorted keys i * G + j */
    Py_ssize_t nfiltered;
    int *bounded;         /* indices of geometries that are not half spaces */
    Py_ssize_t nbounded;
    int *halfspaces;
    Py_ssize_t nhalfspaces;
    /* (nlive, 2): the unfiltered pairs of bounded geometries, in the order
     * the all-pairs broadphase visits them; NULL above
     * GC_BROADPHASE_ALL_PAIRS_MAX bounded geometries (the sweep runs then). */
    int *live;
    Py_ssize_t nlive;
    Py_buffer *hull_views; /* GC_HULL_VIEWS per convex shape, kept for the model's life */
    Py_ssize_t nhull_views;
} ModelObject;

/* A pair answer as geometry_core/proximity/specs.py reads it (96 bytes). */
typedef struct {
    int32_t i, j, status, unique;
    double distance;
    double pa[3], pb[3], n[3];
} pair_record;

/* A point answer (72 bytes). */
typedef struct {
    int32_t g, status, unique, pad;
    double distance;
    double p_GN[3], grad_W[3];
} point_record;

/* ------------------------------------------------------------ construction */

static void model_dealloc(ModelObject *self) {
    for (Py_ssize_t k = 0; k < self->nhull_views; ++k) PyBuffer_Release(&self->hull_views[k]);
    PyMem_Free(self->hull_views);
    PyMem_Free(self->shapes);
    PyMem_Free(self->box_G);
    PyMem_Free(self->frame_slot);
    PyMem_Free(self->X_FG);
    PyMem_Free(self->inner);
    PyMem_Free(self->outer);
    PyMem_Free(self->filtered);
    PyMem_Free(self->bounded);
    PyMem_Free(self->halfspaces);
    PyMem_Free(self->live);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A sphere inside a shape (centre in G, radius; radius 0 when none is
 * taken), shrunk by a relative 1e-9 and 1e-12 m so that rounding in its
 * computation cannot make it poke out: two such spheres that overlap prove
 * their shapes overlap. Primitives: the largest sphere about Go; a hull: the
 * sphere about its vertices' mean that touches its nearest face plane. */
static void inner_sphere(const gc_shape *s, double out[4]) {
    double c[3] = {0.0, 0.0, 0.0}, r = 0.0;
    switch (s->kind) {
    case GC_SPHERE:
    case GC_CAPSULE:
        r = s->s[0];
        break;
    case GC_BOX:
    case GC_ELLIPSOID:
        r = fmin(s->s[0], fmin(s->s[1], s->s[2]));
        break;
    case GC_CYLINDER:
        r = fmin(s->s[0], s->s[1]);
        break;
    case GC_CONVEX:
        if (s->nv > 0 && s->nt > 0) {
            for (int v = 0; v < s->nv; ++v)
                for (int k = 0; k < 3; ++k) c[k] += s->v[3 * v + k];
            for (int k = 0; k < 3; ++k) c[k] /= s->nv;
            r = INFINITY;
            for (int t = 0; t < s->nt; ++t) {
                const double *n = s->tri_n + 3 * t;
                r = fmin(r, s->tri_d[t] - (n[0] * c[0] + n[1] * c[1] + n[2] * c[2]));
            }
        }
        break;
    default: /* half spaces and meshes: none */
        break;
    }
    r = r * (1.0 - 1e-9) - 1e-12;
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = isfinite(r) && r > 0.0 ? r : 0.0;
}

/* A lower bound of the distance of i and j: their outer spheres' gap (-inf
 * when either has none). */
static double outer_gap(const ModelObject *m, const double *X_WG, int i, int j) {
    const double *a = m->outer + 4 * i, *b = m->outer + 4 * j;
    if (!(isfinite(a[3]) && isfinite(b[3]))) return -INFINITY;
    double ca[3], cb[3];
    gc_to_world(X_WG + 16 * i, a, ca);
    gc_to_world(X_WG + 16 * j, b, cb);
    double d[3] = {ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - (a[3] + b[3]);
}

/* Whether the inner spheres of i and j overlap (so do i and j); the depth
 * of their overlap, a lower bound of the pair's, into *depth. */
static int inner_spheres_overlap(const ModelObject *m, const double *X_WG, int i, int j,
                                 double *depth) {
    const double *a = m->inner + 4 * i, *b = m->inner + 4 * j;
    if (!(a[3] > 0.0 && b[3] > 0.0)) return 0;
    double ca[3], cb[3];
    gc_to_world(X_WG + 16 * i, a, ca);
    gc_to_world(X_WG + 16 * j, b, cb);
    double d[3] = {ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]};
    double gap = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - (a[3] + b[3]);
    if (!(gap < 0.0)) return 0;
    *depth = -gap;
    return 1;
}

static int is_filtered(const ModelObject *m, int i, int j);

static int model_init(ModelObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"kinds", "sizes", "local_boxes", "frame_slot", "X_FG",
                             "filtered_keys", "hulls", NULL};
    PyObject *kinds_o, *sizes_o, *boxes_o, *slot_o, *xfg_o, *filt_o, *hulls_o;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOO", kwlist, &kinds_o, &sizes_o,
                                     &boxes_o, &slot_o, &xfg_o, &filt_o, &hulls_o))
        return -1;
    if (self->shapes != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Model is immutable: construct a new one");
        return -1;
    }
    if (!PyList_Check(hulls_o)) {
        PyErr_SetString(PyExc_TypeError, "hulls must be a list of (index, hull) tuples");
        return -1;
    }
    Py_buffer kinds, sizes, boxes, slots, xfg, filt;
    if (gc_get_buffer(kinds_o, &kinds, 'i', -1, "kinds") < 0) return -1;
    Py_ssize_t G = kinds.len / 4;
    int rc = -1;
    int got = 1;
    if (gc_get_buffer(sizes_o, &sizes, 'd', 3 * G, "sizes") < 0) goto release;
    got = 2;
    if (gc_get_buffer(boxes_o, &boxes, 'd', 6 * G, "local_boxes") < 0) goto release;
    got = 3;
    if (gc_get_buffer(slot_o, &slots, 'i', G, "frame_slot") < 0) goto release;
    got = 4;
    if (gc_get_buffer(xfg_o, &xfg, 'd', 16 * G, "X_FG") < 0) goto release;
    got = 5;
    if (gc_get_buffer(filt_o, &filt, 'q', -1, "filtered_keys") < 0) goto release;
    got = 6;

    Py_ssize_t n = G > 0 ? G : 1;
    self->G = G;
    self->shapes = PyMem_Calloc((size_t)n, sizeof(gc_shape));
    self->box_G = PyMem_Malloc((size_t)n * 6 * sizeof(double));
    self->frame_slot = PyMem_Malloc((size_t)n * sizeof(int));
    self->X_FG = PyMem_Malloc((size_t)n * 16 * sizeof(double));
    self->nfiltered = filt.len / 8;
    self->filtered = PyMem_Malloc((size_t)(self->nfiltered + 1) * sizeof(int64_t));
    self->bounded = PyMem_Malloc((size_t)n * sizeof(int));
    self->halfspaces = PyMem_Malloc((size_t)n * sizeof(int));
    Py_ssize_t nhulls = PyList_GET_SIZE(hulls_o);
    self->hull_views = PyMem_Calloc((size_t)(GC_HULL_VIEWS * nhulls + 1), sizeof(Py_buffer));
    if (!self->shapes || !self->box_G || !self->frame_slot || !self->X_FG || !self->filtered ||
        !self->bounded || !self->halfspaces || !self->hull_views) {
        PyErr_NoMemory();
        goto release;
    }
    const int *k = kinds.buf;
    const double *s = sizes.buf;
    const int *sl = slots.buf;
    memcpy(self->box_G, boxes.buf, (size_t)G * 6 * sizeof(double));
    memcpy(self->X_FG, xfg.buf, (size_t)G * 16 * sizeof(double));
    memcpy(self->filtered, filt.buf, (size_t)self->nfiltered * sizeof(int64_t));
    self->max_slot = 0;
    for (Py_ssize_t g = 0; g < G; ++g) {
        if (k[g] < GC_SPHERE || k[g] > GC_MESH) {
            PyErr_Format(PyExc_ValueError, "kinds[%zd] = %d is not a shape kind", g, k[g]);
            goto release;
        }
        if (sl[g] < 0) {
            PyErr_Format(PyExc_ValueError, "frame_slot[%zd] = %d is negative", g, sl[g]);
            goto release;
        }
        self->shapes[g].kind = k[g];
        for (int c = 0; c < 3; ++c) self->shapes[g].s[c] = s[3 * g + c];
        self->frame_slot[g] = sl[g];
        if (sl[g] > self->max_slot) self->max_slot = sl[g];
        if (k[g] == GC_HALFSPACE)
            self->halfspaces[self->nhalfspaces++] = (int)g;
        else
            self->bounded[self->nbounded++] = (int)g;
    }
    for (Py_ssize_t h = 0; h < nhulls; ++h) {
        PyObject *item = PyList_GET_ITEM(hulls_o, h);
        Py_ssize_t g;
        PyObject *hull;
        if (!PyArg_ParseTuple(item, "nO", &g, &hull)) goto release;
        if (g < 0 || g >= G || self->shapes[g].kind != GC_CONVEX) {
            PyErr_Format(PyExc_ValueError, "hulls: index %zd is not a convex geometry", g);
            goto release;
        }
        if (gc_parse_hull(hull, &self->shapes[g], &self->hull_views[self->nhull_views]) < 0)
            goto release;
        self->nhull_views += GC_HULL_VIEWS;
    }
    for (Py_ssize_t g = 0; g < G; ++g) {
        if (self->shapes[g].kind == GC_CONVEX && self->shapes[g].v == NULL) {
            PyErr_Format(PyExc_ValueError, "convex geometry %zd has no hull", g);
            goto release;
        }
    }
    self->inner = PyMem_Calloc((size_t)n * 4, sizeof(double));
    if (self->inner == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    for (Py_ssize_t g = 0; g < G; ++g) inner_sphere(&self->shapes[g], self->inner + 4 * g);
    self->outer = PyMem_Calloc((size_t)n * 4, sizeof(double));
    if (self->outer == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    for (Py_ssize_t g = 0; g < G; ++g) {
        const double *c = self->box_G + 6 * g, *h = c + 3;
        double *o = self->outer + 4 * g;
        o[0] = c[0];
        o[1] = c[1];
        o[2] = c[2];
        o[3] = self->shapes[g].kind == GC_HALFSPACE || self->shapes[g].kind == GC_MESH
                   ? INFINITY
                   : sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) * (1.0 + 1e-9) + 1e-12;
        if (!isfinite(o[3])) o[3] = INFINITY;
    }
    if (self->nbounded <= GC_BROADPHASE_ALL_PAIRS_MAX) {
        Py_ssize_t nb = self->nbounded;
        self->live = PyMem_Malloc((size_t)(nb * (nb - 1) / 2 + 1) * 2 * sizeof(int));
        if (self->live == NULL) {
            PyErr_NoMemory();
            goto release;
        }
        for (Py_ssize_t a = 0; a < nb; ++a)
            for (Py_ssize_t b = a + 1; b < nb; ++b) {
                /* bounded is ascending: i < j, as is_filtered's keys. */
                int i = self->bounded[a], j = self->bounded[b];
                if (is_filtered(self, i, j)) continue;
                self->live[2 * self->nlive] = i;
                self->live[2 * self->nlive + 1] = j;
                ++self->nlive;
            }
    }
    rc = 0;
release:
    if (got >= 6) PyBuffer_Release(&filt);
    if (got >= 5) PyBuffer_Release(&xfg);
    if (got >= 4) PyBuffer_Release(&slots);
    if (got >= 3) PyBuffer_Release(&boxes);
    if (got >= 2) PyBuffer_Release(&sizes);
    PyBuffer_Release(&kinds);
    return rc;
}

/* ------------------------------------------------------------ world data */

/* World box of geometry g posed at X (its row of X_WG): tight for
 * primitives, the rotated local box for hulls and meshes, unbounded for
 * half spaces. */
static void world_box_of(const ModelObject *m, Py_ssize_t g, const double *X, double *c,
                         double *h) {
    const double *c_G = m->box_G + 6 * g, *h_G = c_G + 3;
    const gc_shape *s = &m->shapes[g];
    gc_to_world(X, c_G, c);
    switch (s->kind) {
    case GC_HALFSPACE:
        h[0] = h[1] = h[2] = INFINITY;
        break;
    case GC_SPHERE:
        h[0] = h[1] = h[2] = s->s[0];
        break;
    case GC_ELLIPSOID:
        for (int r = 0; r < 3; ++r) {
            double a = X[4 * r] * h_G[0], b = X[4 * r + 1] * h_G[1], cc = X[4 * r + 2] * h_G[2];
            h[r] = sqrt(a * a + b * b + cc * cc);
        }
        break;
    case GC_CYLINDER:
    case GC_CAPSULE:
        for (int r = 0; r < 3; ++r) {
            double u = X[4 * r + 2];
            double along = s->s[1] * fabs(u);
            if (s->kind == GC_CAPSULE) {
                h[r] = s->s[0] + along;
            } else {
                double d = 1.0 - u * u;
                h[r] = s->s[0] * sqrt(d > 0.0 ? d : 0.0) + along;
            }
        }
        break;
    default:
        for (int r = 0; r < 3; ++r)
            h[r] = fabs(X[4 * r]) * h_G[0] + fabs(X[4 * r + 1]) * h_G[1] +
                   fabs(X[4 * r + 2]) * h_G[2];
    }
}

/* World box of every geometry (broadphase.world_aabbs), world_box_of each. */
static void world_boxes(const ModelObject *m, const double *X_WG, double *center,
                        double *half) {
    for (Py_ssize_t g = 0; g < m->G; ++g)
        world_box_of(m, g, X_WG + 16 * g, center + 3 * g, half + 3 * g);
}

/* How far below a half space's plane (normal n_W through p_W) a box
 * (centre c, half widths h) reaches: the box's lowest height above it. */
static double lowest_above(const double n_W[3], const double p_W[3], const double c[3],
                           const double h[3]) {
    double rel[3];
    gc_sub(c, p_W, rel);
    return gc_dot(rel, n_W) - (h[0] * fabs(n_W[0]) + h[1] * fabs(n_W[1]) + h[2] * fabs(n_W[2]));
}

/* h_G(n) measured from Go (prefilter.support_from_origin). */
static double support_from_origin(const ModelObject *m, Py_ssize_t g, const double *X,
                                  const double n_W[3]) {
    const gc_shape *s = &m->shapes[g];
    double n_G[3];
    gc_unrotate(X, n_W, n_G);
    switch (s->kind) {
    case GC_HALFSPACE:
        return INFINITY;
    case GC_SPHERE:
        return s->s[0];
    case GC_ELLIPSOID: {
        const double *h = m->box_G + 6 * g + 3;
        double a = n_G[0] * h[0], b = n_G[1] * h[1], c = n_G[2] * h[2];
        return sqrt(a * a + b * b + c * c);
    }
    case GC_CYLINDER:
    case GC_CAPSULE: {
        double along = fabs(n_G[2]);
        double across = 1.0;
        if (s->kind == GC_CYLINDER) {
            double d = 1.0 - along * along;
            across = sqrt(d > 0.0 ? d : 0.0);
        }
        return s->s[0] * across + s->s[1] * along;
    }
    default: {
        const double *c = m->box_G + 6 * g, *h = c + 3;
        return (n_G[0] * c[0] + n_G[1] * c[1] + n_G[2] * c[2]) +
               (fabs(n_G[0]) * h[0] + fabs(n_G[1]) * h[1] + fabs(n_G[2]) * h[2]);
    }
    }
}

static int provably_apart(const ModelObject *m, const double *X_WG, int i, int j,
                          double margin) {
    const double *Xi = X_WG + 16 * i, *Xj = X_WG + 16 * j;
    double p[3] = {Xj[3] - Xi[3], Xj[7] - Xi[7], Xj[11] - Xi[11]};
    double length = gc_norm(p);
    if (!(length > 0.0)) return 0;
    double d[3] = {p[0] / length, p[1] / length, p[2] / length};
    double nd[3] = {-d[0], -d[1], -d[2]};
    double gap = length - support_from_origin(m, i, Xi, d) - support_from_origin(m, j, Xj, nd);
    return gap > margin;
}

static int is_filtered(const ModelObject *m, int i, int j) {
    if (m->frame_slot[i] == m->frame_slot[j]) return 1;
    int64_t key = (int64_t)i * m->G + j;
    Py_ssize_t lo = 0, hi = m->nfiltered;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (m->filtered[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nfiltered && m->filtered[lo] == key;
}

/* ------------------------------------------------------------ candidate pairs */

typedef struct {
    int64_t *keys;
    Py_ssize_t size, capacity;
} key_list;

static int key_push(key_list *list, int64_t key) {
    if (list->size == list->capacity) {
        Py_ssize_t capacity = list->capacity ? 2 * list->capacity : 256;
        int64_t *keys = realloc(list->keys, (size_t)capacity * sizeof(int64_t));
        if (keys == NULL) return -1;
        list->keys = keys;
        list->capacity = capacity;
    }
    list->keys[list->size++] = key;
    return 0;
}

static int cmp_key(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A bounded geometry's padded world box, for the sweep: sorted by lo[0], the
 * inner loop then reads consecutive items only. */
typedef struct {
    double lo[3], hi[3];
    int g;
} sweep_item;

static int cmp_sweep(const void *a, const void *b) {
    const sweep_item *x = a, *y = b;
    if (x->lo[0] < y->lo[0]) return -1;
    if (x->lo[0] > y->lo[0]) return 1;
    return (x->g > y->g) - (x->g < y->g);
}

/* Add the unfiltered pair i < j unless the prefilter proves it apart. With
 * pair_margin (G * G, by key i * G + j) the pair's own margin replaces
 * margin, and -inf leaves the pair out. */
static int consider_unfiltered(const ModelObject *m, const double *X_WG, int i, int j,
                               double margin, const double *pair_margin, key_list *out) {
    if (pair_margin != NULL) {
        margin = pair_margin[(int64_t)i * m->G + j];
        if (margin == -INFINITY) return 0;
    }
    /* The outer spheres first: a few flops where the support search walks hulls. */
    if (isfinite(margin) && (outer_gap(m, X_WG, i, j) > margin ||
                             provably_apart(m, X_WG, i, j, margin)))
        return 0;
    return key_push(out, (int64_t)i * m->G + j);
}

/* Add (min, max) of i, j unless filtered; then the prefilter. */
static int consider(const ModelObject *m, const double *X_WG, int i, int j, double margin,
                    const double *pair_margin, key_list *out) {
    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    if (is_filtered(m, i, j)) return 0;
    return consider_unfiltered(m, X_WG, i, j, margin, pair_margin, out);
}

static int boxes_meet(const double *lo, const double *hi, int a, int b) {
    /* All six comparisons, joined without branching: which of them fails
     * is unpredictable, and a mispredicted branch costs more than the rest. */
    const double *la = lo + 3 * a, *lb = lo + 3 * b, *ha = hi + 3 * a, *hb = hi + 3 * b;
    return (la[0] <= hb[0]) & (lb[0] <= ha[0]) & (la[1] <= hb[1]) & (lb[1] <= ha[1]) &
           (la[2] <= hb[2]) & (lb[2] <= ha[2]);
}

/* Every unfiltered pair whose boxes come within margin, minus the pairs the
 * prefilter proves apart; sorted by (i, j). Returns -1 on allocation failure. */
static int candidates(const ModelObject *m, const double *X_WG, double margin,
                      const double *pair_margin, key_list *out, double *boxes) {
    Py_ssize_t G = m->G;
    double *center = malloc((size_t)(G + 1) * 6 * sizeof(double));
    if (center == NULL) return -1;
    double *half = center + 3 * G;
    world_boxes(m, X_WG, center, half);
    double *lo = malloc((size_t)(G + 1) * 6 * sizeof(double));
    if (lo == NULL) {
        free(center);
        return -1;
    }
    double *hi = lo + 3 * G;
    double pad = 0.5 * margin;
    for (Py_ssize_t k = 0; k < 3 * G; ++k) {
        lo[k] = center[k] - half[k] - pad;
        hi[k] = center[k] + half[k] + pad;
    }
    int rc = 0;
    Py_ssize_t nb = m->nbounded;
    if (m->live != NULL) {
        /* The unfiltered pairs alone, in the all-pairs order. */
        int bounded_margin = isfinite(margin);
        for (Py_ssize_t p = 0; p < m->nlive && rc == 0; ++p) {
            int i = m->live[2 * p], j = m->live[2 * p + 1];
            if (bounded_margin && !boxes_meet(lo, hi, i, j)) continue;
            rc = consider_unfiltered(m, X_WG, i, j, margin, pair_margin, out);
        }
    } else {
        sweep_item *items = malloc((size_t)nb * sizeof(sweep_item));
        if (items == NULL) {
            rc = -1;
        } else {
            for (Py_ssize_t a = 0; a < nb; ++a) {
                int g = m->bounded[a];
                items[a].g = g;
                for (int r = 0; r < 3; ++r) {
                    items[a].lo[r] = lo[3 * g + r];
                    items[a].hi[r] = hi[3 * g + r];
                }
            }
            qsort(items, (size_t)nb, sizeof(sweep_item), cmp_sweep);
            for (Py_ssize_t a = 0; a < nb && rc == 0; ++a) {
                const sweep_item *A = &items[a];
                for (Py_ssize_t b = a + 1; b < nb && rc == 0 && items[b].lo[0] <= A->hi[0];
                     ++b) {
                    const sweep_item *B = &items[b];
                    if (!(A->lo[1] <= B->hi[1] && B->lo[1] <= A->hi[1] &&
                          A->lo[2] <= B->hi[2] && B->lo[2] <= A->hi[2]))
                        continue;
                    rc = consider(m, X_WG, A->g, B->g, margin, pair_margin, out);
                }
            }
            free(items);
        }
    }
    /* Half spaces: paired with every geometry whose box dips within margin
     * of the plane, and with every other half space (once). */
    for (Py_ssize_t a = 0; a < m->nhalfspaces && rc == 0; ++a) {
        int h = m->halfspaces[a];
        const double *X = X_WG + 16 * h;
        double n_W[3] = {X[2], X[6], X[10]};
        double p_W[3] = {X[3], X[7], X[11]};
        for (Py_ssize_t g = 0; g < G && rc == 0; ++g) {
            if (g == h) continue;
            if (m->shapes[g].kind == GC_HALFSPACE) {
                if (g > h) rc = consider(m, X_WG, h, (int)g, INFINITY, pair_margin, out);
                continue;
            }
            if (!(lowest_above(n_W, p_W, center + 3 * g, half + 3 * g) <= margin)) continue;
            rc = consider(m, X_WG, h, (int)g, margin, pair_margin, out);
        }
    }
    free(lo);
    /* The world boxes for the caller: centres (G, 3), then half widths. */
    if (boxes != NULL) memcpy(boxes, center, (size_t)G * 6 * sizeof(double));
    free(center);
    if (rc == 0 && out->size > 1) qsort(out->keys, (size_t)out->size, sizeof(int64_t), cmp_key);
    return rc;
}

/* ------------------------------------------------------------ answers to Python
 * Columns the query modules use directly: the 3-vectors packed in one bytes
 * object (numpy views it once and hands out rows), the scalars as lists of
 * Python ints, floats and bools. */

static PyObject *int_list(Py_ssize_t count, const void *base, size_t stride, size_t offset) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; ++k) {
        int32_t v = *(const int32_t *)((const char *)base + (size_t)k * stride + offset);
        PyObject *item = PyLong_FromLong(v);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

static PyObject *float_list(Py_ssize_t count, const void *base, size_t stride, size_t offset) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; ++k) {
        double v = *(const double *)((const char *)base + (size_t)k * stride + offset);
        PyObject *item = PyFloat_FromDouble(v);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

static PyObject *bool_list(Py_ssize_t count, const void *base, size_t stride, size_t offset) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; ++k) {
        int32_t v = *(const int32_t *)((const char *)base + (size_t)k * stride + offset);
        PyObject *item = v ? Py_True : Py_False;
        Py_INCREF(item);
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

/* (vectors: bytearray of (K, 3, 3) = pa, pb, n per pair, writable so that
 * numpy views of it need no copy; i, j, status: lists of int; distance: list
 * of float; unique: list of bool; count not OK; count SEARCHED) */
static PyObject *pairs_to_python(const pair_record *r, Py_ssize_t count) {
    PyObject *vectors = PyByteArray_FromStringAndSize(NULL, count * 9 * (Py_ssize_t)sizeof(double));
    if (vectors == NULL) return NULL;
    double *v = (double *)PyByteArray_AS_STRING(vectors);
    Py_ssize_t not_ok = 0, searched = 0;
    for (Py_ssize_t k = 0; k < count; ++k) {
        memcpy(v + 9 * k, r[k].pa, 3 * sizeof(double));
        memcpy(v + 9 * k + 3, r[k].pb, 3 * sizeof(double));
        memcpy(v + 9 * k + 6, r[k].n, 3 * sizeof(double));
        if (r[k].status == GC_SEARCHED)
            ++searched;
        else if (r[k].status != GC_OK)
            ++not_ok;
    }
    size_t stride = sizeof(pair_record);
    return Py_BuildValue("(NNNNNNnn)", vectors, int_list(count, r, stride, offsetof(pair_record, i)),
                         int_list(count, r, stride, offsetof(pair_record, j)),
                         int_list(count, r, stride, offsetof(pair_record, status)),
                         float_list(count, r, stride, offsetof(pair_record, distance)),
                         bool_list(count, r, stride, offsetof(pair_record, unique)), not_ok,
                         searched);
}

/* (vectors: bytearray of (K, 2, 3) = p_GN, grad_W per geometry; g, status: lists
 * of int; distance: list of float; unique: list of bool; count not OK) */
static PyObject *points_to_python(const point_record *r, Py_ssize_t count) {
    PyObject *vectors = PyByteArray_FromStringAndSize(NULL, count * 6 * (Py_ssize_t)sizeof(double));
    if (vectors == NULL) return NULL;
    double *v = (double *)PyByteArray_AS_STRING(vectors);
    Py_ssize_t not_ok = 0;
    for (Py_ssize_t k = 0; k < count; ++k) {
        memcpy(v + 6 * k, r[k].p_GN, 3 * sizeof(double));
        memcpy(v + 6 * k + 3, r[k].grad_W, 3 * sizeof(double));
        if (r[k].status != GC_OK) ++not_ok;
    }
    size_t stride = sizeof(point_record);
    return Py_BuildValue("(NNNNNn)", vectors, int_list(count, r, stride, offsetof(point_record, g)),
                         int_list(count, r, stride, offsetof(point_record, status)),
                         float_list(count, r, stride, offsetof(point_record, distance)),
                         bool_list(count, r, stride, offsetof(point_record, unique)), not_ok);
}

/* ------------------------------------------------------------ Python methods */

static int get_poses(ModelObject *self, PyObject *obj, Py_buffer *view) {
    return gc_get_buffer(obj, view, 'd', 16 * self->G, "X_WG");
}

static PyObject *model_world_poses(ModelObject *self, PyObject *arg) {
    Py_buffer X_WF;
    if (gc_get_buffer(arg, &X_WF, 'd', -1, "X_WF") < 0) return NULL;
    Py_ssize_t F = X_WF.len / (16 * 8);
    if (X_WF.len != F * 16 * 8 || (self->G > 0 && self->max_slot >= F)) {
        PyErr_Format(PyExc_ValueError, "X_WF must hold (F, 4, 4) poses with F > %d",
                     self->max_slot);
        PyBuffer_Release(&X_WF);
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->G * 16 * (Py_ssize_t)sizeof(double));
    if (out != NULL) {
        double *X_WG = (double *)PyBytes_AS_STRING(out);
        const double *W = X_WF.buf;
        for (Py_ssize_t g = 0; g < self->G; ++g)
            gc_compose(W + 16 * self->frame_slot[g], self->X_FG + 16 * g, X_WG + 16 * g);
    }
    PyBuffer_Release(&X_WF);
    return out;
}

static PyObject *model_world_boxes(ModelObject *self, PyObject *arg) {
    Py_buffer view;
    if (get_poses(self, arg, &view) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->G * 6 * (Py_ssize_t)sizeof(double));
    if (out != NULL) {
        double *c = (double *)PyBytes_AS_STRING(out);
        world_boxes(self, view.buf, c, c + 3 * self->G);
    }
    PyBuffer_Release(&view);
    return out;
}

/* The candidate pairs `keys`, answered by the kernels into records: those
 * with status != OK or distance below report_max (< when strict, else <=),
 * witnesses in W or, when local, in each geometry's frame. */
/* With pair_margin (candidates()), a pair's own margin bounds what is
 * reported of it, and its kernel stops once it proves the pair beyond. */
static void answer_pairs(const ModelObject *m, const double *X_WG, const key_list *keys,
                         double report_max, const double *pair_margin, int strict, int local,
                         pair_record *records, Py_ssize_t *count) {
    double bound = report_max;
    for (Py_ssize_t k = 0; k < keys->size; ++k) {
        int i = (int)(keys->keys[k] / m->G), j = (int)(keys->keys[k] % m->G);
        const double *Xi = X_WG + 16 * i, *Xj = X_WG + 16 * j;
        if (pair_margin != NULL) report_max = fmin(bound, pair_margin[keys->keys[k]]);
        gc_pair_result r;
        memset(&r, 0, sizeof(r));
        int status = gc_pair_within(&m->shapes[i], Xi, &m->shapes[j], Xj, report_max, &r);
        if (status == GC_BEYOND) continue;
        if ((status == GC_OK || status == GC_SEARCHED) &&
            !(strict ? r.distance < report_max : r.distance <= report_max))
            continue;
        pair_record *out = &records[(*count)++];
        out->i = i;
        out->j = j;
        out->status = status;
        out->unique = r.unique;
        out->distance = r.distance;
        if (local && (status == GC_OK || status == GC_SEARCHED)) {
            gc_to_local(Xi, r.p_WCa, out->pa);
            gc_to_local(Xj, r.p_WCb, out->pb);
        } else {
            gc_copy(r.p_WCa, out->pa);
            gc_copy(r.p_WCb, out->pb);
        }
        gc_copy(r.nhat_BA_W, out->n);
    }
}

static PyObject *model_pairs(ModelObject *self, PyObject *args) {
    PyObject *poses;
    double margin, report_max;
    int strict, local;
    if (!PyArg_ParseTuple(args, "Oddpp", &poses, &margin, &report_max, &strict, &local))
        return NULL;
    if (isnan(margin) || isnan(report_max)) {
        PyErr_SetString(PyExc_ValueError, "margin and report_max must be numbers");
        return NULL;
    }
    Py_buffer view;
    if (get_poses(self, poses, &view) < 0) return NULL;
    const double *X_WG = view.buf;
    key_list keys = {NULL, 0, 0};
    pair_record *records = NULL;
    Py_ssize_t count = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    if (candidates(self, X_WG, margin, NULL, &keys, NULL) < 0) {
        failed = 1;
    } else {
        records = malloc((size_t)(keys.size + 1) * sizeof(pair_record));
        if (records == NULL) failed = 1;
    }
    if (!failed) answer_pairs(self, X_WG, &keys, report_max, NULL, strict, local, records, &count);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    free(keys.keys);
    if (failed) {
        free(records);
        return PyErr_NoMemory();
    }
    PyObject *out = pairs_to_python(records, count);
    free(records);
    return out;
}

/* A penetration row (80 bytes), as geometry_core/proximity/result_rows.py's
 * PENETRATION_ROW: depth, p_WCa, p_WCb, nhat_BA_W. */
typedef struct {
    double depth, p_WCa[3], p_WCb[3], n[3];
} penetration_row;

/* A signed-distance row (136 bytes), as SIGNED_DISTANCE_ROW: distance,
 * p_ACa, p_BCb, nhat_BA_W, is_nhat_BA_W_unique (one byte, seven zero bytes
 * of padding), p_WCa = X_WA p_ACa, p_WCb = X_WB p_BCb. */
typedef struct {
    double distance, p_ACa[3], p_BCb[3], n[3];
    unsigned char unique, pad[7];
    double p_WCa[3], p_WCb[3];
} distance_row;

/* One pass over the candidates within max(max_distance, 0) for both
 * answers pairs() gives: penetration (margin 0, report_max 0, strict, W
 * witnesses) and clearance (margin and report_max max_distance, local
 * witnesses). Each pair's kernel runs once, bounded by max(max_distance, 0):
 * the bound only lets a kernel stop once it proves a pair farther apart than
 * it, which an overlapping pair never is, so an overlapping pair's answer is
 * the one the penetration pass computes with bound 0; and with max_distance
 * >= 0 every answer is the clearance pass's. Pairs left to Python (status
 * neither OK nor BEYOND: meshes, two half spaces, the direction search's)
 * are only counted: the caller then asks pairs() twice. */
static PyObject *model_pair_rows(ModelObject *self, PyObject *args) {
    PyObject *poses;
    double max_distance;
    int want_penetration, want_clearance, of_frames = 0;
    if (!PyArg_ParseTuple(args, "Odpp|p", &poses, &max_distance, &want_penetration,
                          &want_clearance, &of_frames))
        return NULL;
    if (isnan(max_distance)) {
        PyErr_SetString(PyExc_ValueError, "max_distance must be a number");
        return NULL;
    }
    Py_buffer view;
    double *posed = NULL; /* X_WG made here from the frames' poses */
    if (of_frames) {
        if (gc_get_buffer(poses, &view, 'd', -1, "X_WF") < 0) return NULL;
        Py_ssize_t F = view.len / (16 * 8);
        if (view.len != F * 16 * 8 || (self->G > 0 && self->max_slot >= F)) {
            PyErr_Format(PyExc_ValueError, "X_WF must hold (F, 4, 4) poses with F > %d",
                         self->max_slot);
            PyBuffer_Release(&view);
            return NULL;
        }
        posed = malloc((size_t)(self->G + 1) * 16 * sizeof(double));
        if (posed == NULL) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        const double *W = view.buf;
        for (Py_ssize_t g = 0; g < self->G; ++g)
            gc_compose(W + 16 * self->frame_slot[g], self->X_FG + 16 * g, posed + 16 * g);
    } else if (get_poses(self, poses, &view) < 0) {
        return NULL;
    }
    const double *X_WG = posed != NULL ? posed : view.buf;
    double bound = want_clearance && max_distance > 0.0 ? max_distance : 0.0;
    key_list keys = {NULL, 0, 0};
    penetration_row *pen = NULL;
    distance_row *dist = NULL;
    int32_t *pen_ij = NULL, *dist_ij = NULL;
    Py_ssize_t npen = 0, ndist = 0, left = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    if (candidates(self, X_WG, bound, NULL, &keys, NULL) < 0) {
        failed = 1;
    } else {
        size_t n = (size_t)keys.size + 1;
        pen = calloc(n, sizeof(penetration_row));
        dist = calloc(n, sizeof(distance_row));
        pen_ij = malloc(2 * n * sizeof(int32_t));
        dist_ij = malloc(2 * n * sizeof(int32_t));
        if (pen == NULL || dist == NULL || pen_ij == NULL || dist_ij == NULL) failed = 1;
    }
    for (Py_ssize_t k = 0; !failed && k < keys.size; ++k) {
        int i = (int)(keys.keys[k] / self->G), j = (int)(keys.keys[k] % self->G);
        const double *Xi = X_WG + 16 * i, *Xj = X_WG + 16 * j;
        gc_pair_result r;
        memset(&r, 0, sizeof(r));
        int status = gc_pair_within(&self->shapes[i], Xi, &self->shapes[j], Xj, bound, &r);
        if (status == GC_BEYOND) continue;
        if (status != GC_OK) {
            ++left;
            continue;
        }
        if (want_penetration && r.distance < 0.0) {
            penetration_row *p = &pen[npen];
            p->depth = -r.distance;
            gc_copy(r.p_WCa, p->p_WCa);
            gc_copy(r.p_WCb, p->p_WCb);
            gc_copy(r.nhat_BA_W, p->n);
            pen_ij[2 * npen] = i;
            pen_ij[2 * npen + 1] = j;
            ++npen;
        }
        if (want_clearance && r.distance <= max_distance) {
            distance_row *d = &dist[ndist];
            d->distance = r.distance;
            gc_to_local(Xi, r.p_WCa, d->p_ACa);
            gc_to_local(Xj, r.p_WCb, d->p_BCb);
            gc_copy(r.nhat_BA_W, d->n);
            d->unique = r.unique ? 1 : 0;
            gc_to_world(Xi, d->p_ACa, d->p_WCa);
            gc_to_world(Xj, d->p_BCb, d->p_WCb);
            dist_ij[2 * ndist] = i;
            dist_ij[2 * ndist + 1] = j;
            ++ndist;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    free(posed);
    free(keys.keys);
    PyObject *out = NULL;
    if (failed) {
        PyErr_NoMemory();
    } else {
        out = Py_BuildValue(
            "(y#y#y#y#n)", (const char *)pen, npen * (Py_ssize_t)sizeof(penetration_row),
            (const char *)pen_ij, npen * 2 * (Py_ssize_t)sizeof(int32_t), (const char *)dist,
            ndist * (Py_ssize_t)sizeof(distance_row), (const char *)dist_ij,
            ndist * 2 * (Py_ssize_t)sizeof(int32_t), left);
    }
    free(pen);
    free(dist);
    free(pen_ij);
    free(dist_ij);
    return out;
}

static PyObject *model_candidates(ModelObject *self, PyObject *args) {
    PyObject *poses;
    double margin;
    if (!PyArg_ParseTuple(args, "Od", &poses, &margin)) return NULL;
    if (isnan(margin)) {
        PyErr_SetString(PyExc_ValueError, "margin must be a number");
        return NULL;
    }
    Py_buffer view;
    if (get_poses(self, poses, &view) < 0) return NULL;
    key_list keys = {NULL, 0, 0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = candidates(self, view.buf, margin, NULL, &keys, NULL);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (rc < 0) {
        free(keys.keys);
        return PyErr_NoMemory();
    }
    PyObject *out = PyBytes_FromStringAndSize((const char *)keys.keys,
                                              keys.size * (Py_ssize_t)sizeof(int64_t));
    free(keys.keys);
    return out;
}

static PyObject *model_points(ModelObject *self, PyObject *args) {
    PyObject *poses;
    double p_WQ[3], threshold;
    if (!PyArg_ParseTuple(args, "O(ddd)d", &poses, &p_WQ[0], &p_WQ[1], &p_WQ[2], &threshold))
        return NULL;
    if (isnan(threshold)) {
        PyErr_SetString(PyExc_ValueError, "threshold must be a number");
        return NULL;
    }
    Py_buffer view;
    if (get_poses(self, poses, &view) < 0) return NULL;
    const double *X_WG = view.buf;
    Py_ssize_t G = self->G, count = 0;
    point_record *records = malloc((size_t)(G + 1) * sizeof(point_record));
    double *center = malloc((size_t)(G + 1) * 6 * sizeof(double));
    if (records == NULL || center == NULL) {
        free(records);
        free(center);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    double *half = center + 3 * G;
    world_boxes(self, X_WG, center, half);
    for (Py_ssize_t g = 0; g < G; ++g) {
        /* A box farther than threshold from Q holds no point within it. */
        double gap2 = 0.0;
        for (int r = 0; r < 3; ++r) {
            double e = fabs(p_WQ[r] - center[3 * g + r]) - half[3 * g + r];
            if (e > 0.0) gap2 += e * e;
        }
        if (sqrt(gap2) > threshold) continue;
        gc_point_result r;
        memset(&r, 0, sizeof(r));
        int status = gc_point_distance(&self->shapes[g], X_WG + 16 * g, p_WQ, &r);
        if (status == GC_OK && !(r.distance <= threshold)) continue;
        point_record *out = &records[count++];
        out->g = (int32_t)g;
        out->status = status;
        out->unique = r.unique;
        out->pad = 0;
        out->distance = r.distance;
        gc_copy(r.p_GN, out->p_GN);
        gc_copy(r.grad, out->grad_W);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    free(center);
    PyObject *out = points_to_python(records, count);
    free(records);
    return out;
}

/* ------------------------------------------------------------ batches of configurations */

/* What turns a configuration's pair records into clearance-table rows:
 * the body of each geometry, the bodies' filters and padding, and which
 * bodies are links of the chain (chain_clearance). */
typedef struct {
    const int *body_of;          /* (G,) body of each geometry, -1 for none */
    const int *link_of;          /* (B,) chain link of each body, -1 when not the robot's */
    const unsigned char *filtered;  /* (B, B) */
    const double *padding;       /* (B, B) */
    Py_ssize_t B;
    double influence;
    Py_ssize_t limit;            /* keep the rows of the `limit` smallest distances; 0: all */
    Py_ssize_t positions;        /* columns of a Jacobian row */
} clearance_spec;

/* One worker's scratch for a batch of configurations. */
typedef struct {
    double *X_WG;   /* (G, 16) */
    double *boxes;  /* (2, G, 3) world box centres and half widths of the last
                     * candidates() (batches with clouds), else NULL */
    double *X_PF;   /* (F, 16): the frames' poses in their parents (chain batches) */
    double *X_WF;   /* (F, 16) */
    key_list keys;
    int failed;
} batch_scratch;

/* A batch: K configurations given as world frame poses (X_WF) or as joint
 * positions of a chain (qs), answered by min_distance_of. */
typedef struct {
    const ModelObject *m;
    Py_ssize_t F;
    const double *X_WF;          /* (K, F, 16), or NULL for a chain batch */
    const gc_chain *chain;       /* with qs (K, positions), link_slot, parent_slot */
    const double *qs;
    Py_ssize_t positions;
    const int *link_slot, *parent_slot;
    double report_max, margin;
    const double *pair_margin;   /* (G * G) or NULL: chain_pairs' per-pair margins */
    int stop_below_zero, first_contact;
    /* Only the sign of each answer is wanted (with stop_below_zero): a pair
     * whose inner spheres overlap ends the configuration with the (negative)
     * depth of that overlap, no pair kernel run. */
    int verdict_only;
    double *out;                 /* (K) */
    unsigned char *python;       /* (K) */
    /* Pair batches (pairs_of): every configuration's records, as pairs(). */
    int pairs, strict, local;
    pair_record **records;       /* (K) malloc'd arrays */
    Py_ssize_t *counts;          /* (K) */
    batch_scratch *scratch;      /* one per worker */
    atomic_ptrdiff_t first;      /* first_contact: the lowest configuration found in contact */
    /* Clearance batches (with pairs): each configuration's records become
     * table rows (clearance_of). */
    const clearance_spec *clearance;
    double **jacobians;          /* (K) malloc'd (rows, positions) arrays */
    /* Point clouds (chain_min_distances' clouds): a configuration the pairs
     * leave free (its answer above zero, nothing left to Python) is asked
     * of each Cloud whether a point lies within thresholds[c, r] of
     * geometry cloud_geoms[r], with the poses the pairs used. */
    PyObject *const *clouds;     /* (nclouds) Cloud objects */
    Py_ssize_t nclouds, cloud_R;
    const int *cloud_geoms;      /* (cloud_R) */
    const double *cloud_thr;     /* (nclouds, cloud_R) */
    unsigned char *cloud_hit;    /* (K): 1 a point within reach, 2 left to Python */
} batch_job;

/* The smallest distance of one configuration (world frame poses X_WF), as
 * documented at model_min_distances; sets *python when a pair is left to
 * Python. */
static double min_distance_of(const batch_job *job, const double *X_WF, batch_scratch *w,
                              unsigned char *python) {
    const ModelObject *m = job->m;
    Py_ssize_t G = m->G;
    double *X_WG = w->X_WG;
    for (Py_ssize_t g = 0; g < G; ++g)
        gc_compose(X_WF + 16 * m->frame_slot[g], m->X_FG + 16 * g, X_WG + 16 * g);
    w->keys.size = 0;
    if (candidates(m, X_WG, job->margin, NULL, &w->keys, w->boxes) < 0) {
        w->failed = 1;
        return NAN;
    }
    double best = INFINITY, report_max = job->report_max;
    if (job->verdict_only && job->stop_below_zero) {
        for (Py_ssize_t c = 0; c < w->keys.size; ++c) {
            int i = (int)(w->keys.keys[c] / G), j = (int)(w->keys.keys[c] % G);
            double depth;
            if (inner_spheres_overlap(m, X_WG, i, j, &depth)) return -depth;
        }
    }
    for (Py_ssize_t c = 0; c < w->keys.size; ++c) {
        int i = (int)(w->keys.keys[c] / G), j = (int)(w->keys.keys[c] % G);
        /* A pair whose outer spheres are farther apart than the least
         * distance so far cannot change the answer. */
        if (best < INFINITY && outer_gap(m, X_WG, i, j) > best) continue;
        gc_pair_result r;
        memset(&r, 0, sizeof(r));
        /* A pair proven farther than the least distance so far (or
         * report_max) cannot change the answer. */
        /* Yes/no checks: an overlap GJK proves ends the pair (a bound of its depth). */
        int status = (job->verdict_only && job->stop_below_zero ? gc_pair_verdict : gc_pair_within)(
            &m->shapes[i], X_WG + 16 * i, &m->shapes[j], X_WG + 16 * j, fmin(report_max, best),
            &r);
        if (status == GC_BEYOND) continue;
        if (status != GC_OK && status != GC_SEARCHED) {
            *python = 1;
            break;
        }
        if (r.distance <= report_max && r.distance < best) best = r.distance;
        if (job->stop_below_zero && best < 0.0) break;
    }
    return best;
}

/* ------------------------------------------------------------ one pair of one configuration
 * What motion.c reads to decide a pair at one configuration of an edge
 * exactly as the batch loops above decide it. */

/* Whether candidates(margin) lists the unfiltered pair i < j posed at
 * X_WG: the same boxes, half-space rule and prefilter, for one pair. */
static int pair_is_candidate(const ModelObject *m, const double *X_WG, int i, int j,
                             double margin) {
    int half_i = m->shapes[i].kind == GC_HALFSPACE, half_j = m->shapes[j].kind == GC_HALFSPACE;
    if (half_i && half_j) return 1;
    double c[2][3], h[2][3];
    if (half_i || half_j) {
        int plane = half_i ? i : j, g = half_i ? j : i;
        const double *X = X_WG + 16 * plane;
        double n_W[3] = {X[2], X[6], X[10]};
        double p_W[3] = {X[3], X[7], X[11]};
        world_box_of(m, g, X_WG + 16 * g, c[0], h[0]);
        if (!(lowest_above(n_W, p_W, c[0], h[0]) <= margin)) return 0;
    } else if (isfinite(margin)) {
        double lo[6], hi[6], pad = 0.5 * margin;
        world_box_of(m, i, X_WG + 16 * i, c[0], h[0]);
        world_box_of(m, j, X_WG + 16 * j, c[1], h[1]);
        for (int k = 0; k < 3; ++k) {
            lo[k] = c[0][k] - h[0][k] - pad;
            hi[k] = c[0][k] + h[0][k] + pad;
            lo[3 + k] = c[1][k] - h[1][k] - pad;
            hi[3 + k] = c[1][k] + h[1][k] + pad;
        }
        if (!boxes_meet(lo, hi, 0, 1)) return 0;
    }
    return !(isfinite(margin) && (outer_gap(m, X_WG, i, j) > margin ||
                                  provably_apart(m, X_WG, i, j, margin)));
}

int gc_model_pair_contact(PyObject *model, const double *X_WG, int i, int j, int padded,
                          double margin, double report_max, double padding) {
    const ModelObject *m = (const ModelObject *)model;
    if (!pair_is_candidate(m, X_WG, i, j, margin)) return 0;
    const double *Xi = X_WG + 16 * i, *Xj = X_WG + 16 * j;
    gc_pair_result r;
    memset(&r, 0, sizeof(r));
    if (!padded) {
        /* min_distance_of with verdict_only and stop_below_zero. */
        double depth;
        if (inner_spheres_overlap(m, X_WG, i, j, &depth)) return 1;
        int status = gc_pair_verdict(&m->shapes[i], Xi, &m->shapes[j], Xj, report_max, &r);
        if (status == GC_BEYOND) return 0;
        if (status != GC_OK && status != GC_SEARCHED) return -1;
        return r.distance <= report_max;
    }
    /* answer_pairs' record (any status but OK goes to Python), then the
     * checker's padded distance. */
    int status = gc_pair_within(&m->shapes[i], Xi, &m->shapes[j], Xj, report_max, &r);
    if (status == GC_BEYOND) return 0;
    if (status != GC_OK) return -1;
    if (!(r.distance <= report_max)) return 0;
    return r.distance - padding <= 0.0;
}

void gc_model_world_box(PyObject *model, int g, const double X_WG[16], double centre[3],
                        double half[3]) {
    world_box_of((const ModelObject *)model, g, X_WG, centre, half);
}

int gc_model_pair_candidate(PyObject *model, const double *X_WG, int i, int j, double margin) {
    return pair_is_candidate((const ModelObject *)model, X_WG, i, j, margin);
}

double gc_model_outer_gap(PyObject *model, const double *X_WG, int i, int j) {
    return outer_gap((const ModelObject *)model, X_WG, i, j);
}

int gc_model_inner_overlap(PyObject *model, const double *X_WG, int i, int j, double *depth) {
    return inner_spheres_overlap((const ModelObject *)model, X_WG, i, j, depth);
}

int gc_model_is_filtered(PyObject *model, int i, int j) {
    return is_filtered((const ModelObject *)model, i, j);
}

/* Pruning the k closest rows follows the k smallest padded distances so far
 * up to this k; a larger limit measures every pair within reach. */
#define CLEARANCE_PRUNE_MAX 64

/* A clearance batch's records of the candidates `keys` (witnesses in W, raw
 * distances): pairs of filtered bodies are skipped unmeasured, and a pair
 * is measured only up to the influence distance plus its bodies' padding.
 * With a limit k, a pair also need not be nearer than the k-th smallest
 * padded distance found so far: it could not be among the k closest (its
 * outer spheres are tested first, then the kernels stop once they prove
 * it farther). A pair of a geometry with no body, or one the kernels did
 * not answer, is recorded as it is and ends the configuration (Python then
 * answers it, clearance_of). */
static void clearance_pairs(const batch_job *job, const double *X_WG, const key_list *keys,
                            pair_record *records, Py_ssize_t *count) {
    const ModelObject *m = job->m;
    const clearance_spec *t = job->clearance;
    Py_ssize_t B = t->B, k = t->limit;
    int prune = k > 0 && k <= CLEARANCE_PRUNE_MAX;
    double best[CLEARANCE_PRUNE_MAX];   /* the k smallest padded distances, ascending */
    Py_ssize_t found = 0;
    for (Py_ssize_t c = 0; c < keys->size; ++c) {
        int i = (int)(keys->keys[c] / m->G), j = (int)(keys->keys[c] % m->G);
        int a = t->body_of[i], b = t->body_of[j];
        pair_record *out = &records[*count];
        memset(out, 0, sizeof(*out));
        out->i = i;
        out->j = j;
        if (a < 0 || b < 0) {
            out->status = GC_NOT_HANDLED;
            ++*count;
            return;
        }
        if (t->filtered[a * B + b]) continue;
        double pad = t->padding[a * B + b];
        double reach = t->influence;
        if (prune && found == k && best[k - 1] < reach) reach = best[k - 1];
        reach += pad;
        if (prune && found == k && outer_gap(m, X_WG, i, j) > reach) continue;
        const double *Xi = X_WG + 16 * i, *Xj = X_WG + 16 * j;
        gc_pair_result r;
        memset(&r, 0, sizeof(r));
        int status = gc_pair_within(&m->shapes[i], Xi, &m->shapes[j], Xj, reach, &r);
        if (status == GC_BEYOND) continue;
        if (status != GC_OK) {
            out->status = status;
            ++*count;
            return;
        }
        if (!(r.distance <= reach)) continue;
        out->status = GC_OK;
        out->unique = r.unique;
        out->distance = r.distance;
        gc_copy(r.p_WCa, out->pa);
        gc_copy(r.p_WCb, out->pb);
        gc_copy(r.nhat_BA_W, out->n);
        ++*count;
        if (prune) {
            /* Insert the padded distance into the k smallest so far. */
            double d = r.distance - pad;
            Py_ssize_t at;
            if (found < k) at = found++;
            else if (d < best[k - 1]) at = k - 1;
            else continue;
            while (at > 0 && best[at - 1] > d) {
                best[at] = best[at - 1];
                --at;
            }
            best[at] = d;
        }
    }
}

/* The answers pairs() gives for one configuration (world frame poses X_WF)
 * into a new array *records of *count records; -1 when out of memory. */
static int pairs_of(const batch_job *job, const double *X_WF, batch_scratch *w,
                    pair_record **records, Py_ssize_t *count) {
    const ModelObject *m = job->m;
    Py_ssize_t G = m->G;
    double *X_WG = w->X_WG;
    for (Py_ssize_t g = 0; g < G; ++g)
        gc_compose(X_WF + 16 * m->frame_slot[g], m->X_FG + 16 * g, X_WG + 16 * g);
    w->keys.size = 0;
    *count = 0;
    *records = NULL;
    if (candidates(m, X_WG, job->margin, job->pair_margin, &w->keys, NULL) < 0) return -1;
    pair_record *out = malloc((size_t)(w->keys.size + 1) * sizeof(pair_record));
    if (out == NULL) return -1;
    *records = out;
    if (job->clearance != NULL)
        clearance_pairs(job, X_WG, &w->keys, out, count);
    else
        answer_pairs(m, X_WG, &w->keys, job->report_max, job->pair_margin, job->strict,
                     job->local, out, count);
    return 0;
}

typedef struct {
    double distance;
    Py_ssize_t index;
} ranked;

static int by_distance_then_index(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->distance != y->distance) return x->distance < y->distance ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* One configuration's pair records (witnesses in W) made table rows in
 * place: each record's distance padded by its bodies' padding, records of
 * filtered body pairs or beyond the influence distance dropped, and, with a
 * limit, only the `limit` smallest distances kept, in order of distance
 * (ties in record order). *jacobians receives each row's
 * nhat . (J(Ca) - J(Cb)). A configuration with a record the kernels did
 * not answer (status not OK) is marked for Python and left as it is.
 * Returns -1 when out of memory. */
static int clearance_of(const batch_job *job, const double *X_WF, pair_record *records,
                        Py_ssize_t *count, double **jacobians, unsigned char *python) {
    const clearance_spec *t = job->clearance;
    Py_ssize_t kept = 0, n = t->positions, B = t->B;
    *jacobians = NULL;
    for (Py_ssize_t k = 0; k < *count; ++k) {
        if (records[k].status != GC_OK) {
            *python = 1;
            return 0;
        }
    }
    for (Py_ssize_t k = 0; k < *count; ++k) {
        pair_record r = records[k];
        int a = t->body_of[r.i], b = t->body_of[r.j];
        if (a < 0 || b < 0) {   /* a geometry that is not the checker's */
            *python = 1;
            return 0;
        }
        if (t->filtered[a * B + b]) continue;
        r.distance -= t->padding[a * B + b];
        if (!(r.distance <= t->influence)) continue;
        records[kept++] = r;
    }
    *count = kept;
    if (t->limit > 0 && kept > 1) {
        ranked *order = malloc((size_t)kept * sizeof(ranked));
        pair_record *copy = malloc((size_t)kept * sizeof(pair_record));
        if (order == NULL || copy == NULL) {
            free(order);
            free(copy);
            return -1;
        }
        for (Py_ssize_t k = 0; k < kept; ++k) order[k] = (ranked){records[k].distance, k};
        qsort(order, (size_t)kept, sizeof(ranked), by_distance_then_index);
        memcpy(copy, records, (size_t)kept * sizeof(pair_record));
        if (kept > t->limit) kept = t->limit;
        for (Py_ssize_t k = 0; k < kept; ++k) records[k] = copy[order[k].index];
        *count = kept;
        free(order);
        free(copy);
    } else if (t->limit > 0 && kept > t->limit) {
        *count = kept = t->limit;
    }
    double *rows = calloc((size_t)(kept * n + 1), sizeof(double));
    if (rows == NULL) return -1;
    *jacobians = rows;
    for (Py_ssize_t k = 0; k < kept; ++k) {
        const pair_record *r = &records[k];
        int la = t->link_of[t->body_of[r->i]], lb = t->link_of[t->body_of[r->j]];
        /* Witness Ca fixed on A's body, Cb on B's (none moves off the robot). */
        if (la >= 0)
            gc_chain_add_point_row(job->chain, X_WF, job->link_slot, la, r->pa, r->n, 1.0,
                                   rows + k * n);
        if (lb >= 0)
            gc_chain_add_point_row(job->chain, X_WF, job->link_slot, lb, r->pb, r->n, -1.0,
                                   rows + k * n);
    }
    return 0;
}

/* A free configuration against the job's clouds (X_WG: its geometries'
 * poses, boxes: their world boxes as candidates() found them, tight for
 * hulls): 1 when some cloud has a point within reach of a listed geometry,
 * 2 when the point kernel handles a geometry's shape not (Python answers),
 * else 0. */
static unsigned char cloud_verdict(const batch_job *job, const double *X_WG,
                                   const double *boxes) {
    const ModelObject *m = job->m;
    for (Py_ssize_t c = 0; c < job->nclouds; ++c)
        for (Py_ssize_t r = 0; r < job->cloud_R; ++r) {
            int g = job->cloud_geoms[r];
            int near = gc_cloud_any_near(job->clouds[c], &m->shapes[g], m->box_G + 6 * g,
                                         X_WG + 16 * g, boxes + 3 * g, boxes + 3 * (m->G + g),
                                         job->cloud_thr[c * job->cloud_R + r]);
            if (near < 0) return 2;
            if (near) return 1;
        }
    return 0;
}

static void batch_range(void *ctx, ptrdiff_t begin, ptrdiff_t end, int worker) {
    batch_job *job = ctx;
    batch_scratch *w = &job->scratch[worker];
    for (ptrdiff_t k = begin; k < end && !w->failed; ++k) {
        if (job->first_contact &&
            k > atomic_load_explicit(&job->first, memory_order_relaxed)) {
            job->out[k] = NAN;   /* past a contact: the caller needs no more */
            continue;
        }
        const double *X_WF;
        if (job->chain != NULL) {
            gc_chain_pose_frames(job->chain, job->qs + job->positions * k, job->link_slot,
                                 job->parent_slot, job->F, w->X_PF, w->X_WF);
            X_WF = w->X_WF;
        } else {
            X_WF = job->X_WF + (size_t)k * (size_t)job->F * 16;
        }
        if (job->pairs) {
            if (pairs_of(job, X_WF, w, &job->records[k], &job->counts[k]) < 0) w->failed = 1;
            else if (job->clearance != NULL &&
                     clearance_of(job, X_WF, job->records[k], &job->counts[k],
                                  &job->jacobians[k], &job->python[k]) < 0)
                w->failed = 1;
            continue;
        }
        double best = min_distance_of(job, X_WF, w, &job->python[k]);
        job->out[k] = best;
        if (job->nclouds > 0 && best > 0.0 && !job->python[k] && !w->failed)
            job->cloud_hit[k] = cloud_verdict(job, w->X_WG, w->boxes);
        if (job->first_contact && best <= 0.0 && !job->python[k]) {
            ptrdiff_t seen = atomic_load_explicit(&job->first, memory_order_relaxed);
            while (k < seen && !atomic_compare_exchange_weak_explicit(
                                   &job->first, &seen, k, memory_order_relaxed,
                                   memory_order_relaxed)) {
            }
        }
    }
}

/* A list of count Python ints. */
static PyObject *long_list(Py_ssize_t count, const int *values) {
    PyObject *list = PyList_New(count);
    for (Py_ssize_t k = 0; list != NULL && k < count; ++k) {
        PyObject *item = PyLong_FromLong(values[k]);
        if (item == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, k, item);
    }
    return list;
}

/* One configuration's table rows: None where Python answers it, else
 * (robot bodies, other bodies, 1 for a self row / 0, geometry index of A, of
 * B: lists of ints; padded distances float64 (R,) and Jacobian rows float64
 * (R, positions): bytearrays, which numpy views writable without a copy). */
static PyObject *clearance_to_python(const batch_job *job, unsigned char python,
                                     const pair_record *r, Py_ssize_t count,
                                     const double *jacobians) {
    if (python) Py_RETURN_NONE;
    const clearance_spec *t = job->clearance;
    int *columns = malloc((size_t)(5 * count + 1) * sizeof(int));
    if (columns == NULL) return PyErr_NoMemory();
    int *robot = columns, *other = columns + count, *self_row = columns + 2 * count;
    int *gi = columns + 3 * count, *gj = columns + 4 * count;
    PyObject *distances = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(double));
    PyObject *rows = PyByteArray_FromStringAndSize(
        (const char *)jacobians, count * t->positions * (Py_ssize_t)sizeof(double));
    if (distances != NULL) {
        double *d = (double *)PyByteArray_AS_STRING(distances);
        for (Py_ssize_t k = 0; k < count; ++k) {
            int a = t->body_of[r[k].i], b = t->body_of[r[k].j];
            int a_robot = t->link_of[a] >= 0, b_robot = t->link_of[b] >= 0;
            robot[k] = a_robot ? a : b;
            other[k] = a_robot ? b : a;
            self_row[k] = a_robot && b_robot;
            gi[k] = r[k].i;
            gj[k] = r[k].j;
            d[k] = r[k].distance;
        }
    }
    PyObject *out = NULL;
    if (distances != NULL && rows != NULL)
        out = Py_BuildValue("(NNNNNOO)", long_list(count, robot), long_list(count, other),
                            long_list(count, self_row), long_list(count, gi),
                            long_list(count, gj), distances, rows);
    free(columns);
    Py_XDECREF(distances);
    Py_XDECREF(rows);
    return out;
}

/* Runs a batch of K configurations on `threads` workers (GIL released) and
 * returns (bytes of K distances, [configurations left to Python]). With
 * first_contact the answers are cut after the first configuration in
 * contact, in order, exactly as one thread going through them in order. */
static PyObject *run_batch(batch_job *job, Py_ssize_t K, int threads,
                           const double *X_PF_template) {
    const ModelObject *m = job->m;
    Py_ssize_t G = m->G, F = job->F;
    /* Chunks: small where the batch may stop early (an edge), else a few per
     * worker, so a slow chunk does not hold the others up. */
    ptrdiff_t chunk = job->first_contact ? 2 : K / ((ptrdiff_t)(threads > 0 ? threads : 1) * 8);
    if (chunk < 1) chunk = 1;
    if (chunk > 256) chunk = 256;
    int workers = gc_parallel_workers(threads, K, chunk);
    PyObject *mins = PyBytes_FromStringAndSize(NULL, K * (Py_ssize_t)sizeof(double));
    unsigned char *python = calloc((size_t)K + 1, 1);
    batch_scratch *scratch = calloc((size_t)workers, sizeof(batch_scratch));
    int failed = mins == NULL || python == NULL || scratch == NULL;
    if (job->pairs) {
        job->records = calloc((size_t)K + 1, sizeof(pair_record *));
        job->counts = calloc((size_t)K + 1, sizeof(Py_ssize_t));
        failed |= job->records == NULL || job->counts == NULL;
    }
    if (job->clearance != NULL) {
        job->jacobians = calloc((size_t)K + 1, sizeof(double *));
        failed |= job->jacobians == NULL;
    }
    for (int w = 0; !failed && w < workers; ++w) {
        scratch[w].X_WG = malloc((size_t)(G + 1) * 16 * sizeof(double));
        scratch[w].X_PF = malloc((size_t)(2 * F + 1) * 16 * sizeof(double));
        if (scratch[w].X_WG == NULL || scratch[w].X_PF == NULL) {
            failed = 1;
            break;
        }
        scratch[w].X_WF = scratch[w].X_PF + 16 * F;
        if (job->nclouds > 0) {
            scratch[w].boxes = malloc((size_t)(G + 1) * 6 * sizeof(double));
            if (scratch[w].boxes == NULL) {
                failed = 1;
                break;
            }
        }
        if (X_PF_template != NULL) memcpy(scratch[w].X_PF, X_PF_template, (size_t)F * 16 * 8);
    }
    if (!failed) {
        job->out = (double *)PyBytes_AS_STRING(mins);
        job->python = python;
        job->scratch = scratch;
        atomic_init(&job->first, K);
        Py_BEGIN_ALLOW_THREADS
        gc_parallel_for(workers, K, chunk, batch_range, job);
        Py_END_ALLOW_THREADS
        for (int w = 0; w < workers; ++w) failed |= scratch[w].failed;
    }
    if (!failed && job->first_contact) {
        Py_ssize_t first = atomic_load(&job->first);
        for (Py_ssize_t rest = first + 1; rest < K; ++rest) {
            job->out[rest] = NAN;
            python[rest] = 0;
        }
    }
    for (int w = 0; scratch != NULL && w < workers; ++w) {
        free(scratch[w].X_WG);
        free(scratch[w].X_PF);
        free(scratch[w].boxes);
        free(scratch[w].keys.keys);
    }
    free(scratch);
    if (job->pairs) {
        /* One pairs() answer per configuration. */
        PyObject *answers = failed ? NULL : PyList_New(K);
        for (Py_ssize_t k = 0; answers != NULL && k < K; ++k) {
            PyObject *answer = job->clearance == NULL
                ? pairs_to_python(job->records[k], job->counts[k])
                : clearance_to_python(job, python[k], job->records[k], job->counts[k],
                                      job->jacobians[k]);
            if (answer == NULL) Py_CLEAR(answers);
            else PyList_SET_ITEM(answers, k, answer);
        }
        for (Py_ssize_t k = 0; job->records != NULL && k < K; ++k) free(job->records[k]);
        for (Py_ssize_t k = 0; job->jacobians != NULL && k < K; ++k) free(job->jacobians[k]);
        free(job->jacobians);
        free(job->records);
        free(job->counts);
        free(python);
        Py_XDECREF(mins);
        if (answers == NULL) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
        return answers;
    }
    PyObject *flagged = failed ? NULL : PyList_New(0);
    for (Py_ssize_t k = 0; flagged != NULL && k < K; ++k) {
        if (!python[k]) continue;
        PyObject *index = PyLong_FromSsize_t(k);
        if (index == NULL || PyList_Append(flagged, index) < 0) Py_CLEAR(flagged);
        Py_XDECREF(index);
    }
    free(python);
    if (flagged == NULL) {
        Py_XDECREF(mins);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return Py_BuildValue("(NN)", mins, flagged);
}

static int parse_threads(int threads) {
    if (threads < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be at least 1, got %d", threads);
        return -1;
    }
    return 0;
}

/* For K configurations at once (a planner's batch): the smallest signed
 * distance of any unfiltered pair within report_max in each (inf if none),
 * with the broadphase, filters and kernels of pairs(). With stop_below_zero a
 * configuration stops at its first overlapping pair (has_collisions); with
 * first_contact (optional) the whole batch stops after the first
 * configuration at or below zero, and the later ones read NaN (a discrete
 * edge check needs no more). A configuration with a pair the kernels leave
 * to Python is listed, for the caller to answer there. threads (optional,
 * default 1) native threads share the configurations; the answers do not
 * depend on their number. verdict_only (optional, with stop_below_zero):
 * only the sign of an answer below zero is wanted, and a candidate pair
 * whose inner spheres overlap ends the configuration first (batch_job). */
static PyObject *model_min_distances(ModelObject *self, PyObject *args) {
    PyObject *xwf_o;
    Py_ssize_t F;
    double report_max;
    int stop_below_zero, first_contact = 0, threads = 1, verdict_only = 0;
    if (!PyArg_ParseTuple(args, "Ondp|pip", &xwf_o, &F, &report_max, &stop_below_zero,
                          &first_contact, &threads, &verdict_only))
        return NULL;
    if (isnan(report_max)) {
        PyErr_SetString(PyExc_ValueError, "max_distance must be a number");
        return NULL;
    }
    if (parse_threads(threads) < 0) return NULL;
    if (F <= self->max_slot) {
        PyErr_Format(PyExc_ValueError, "F must exceed the largest frame slot %d", self->max_slot);
        return NULL;
    }
    Py_buffer view;
    if (gc_get_buffer(xwf_o, &view, 'd', -1, "X_WF") < 0) return NULL;
    Py_ssize_t K = view.len / (F * 16 * 8);
    if (view.len != K * F * 16 * 8) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "X_WF must hold (K, %zd, 4, 4) poses", F);
        return NULL;
    }
    batch_job job = {.m = self, .F = F, .X_WF = view.buf, .report_max = report_max,
                     .margin = report_max > 0.0 ? report_max : 0.0,
                     .stop_below_zero = stop_below_zero, .first_contact = first_contact,
                     .verdict_only = verdict_only};
    PyObject *out = run_batch(&job, K, threads, NULL);
    PyBuffer_Release(&view);
    return out;
}

/* chain_min_distances(chain (7 arrays, see kinematics.c), qs (K, n), X_PF
 * (F, 4, 4), link_slot int32 (L,), parent_slot int32 (F,), max_distance,
 * stop_below_zero, first_contact, threads): min_distances of the frames that
 * the chain poses at each configuration (gc_chain_pose_frames: X_PF's rows
 * link_slot replaced by the links' poses, composed to the world), without
 * building the (K, F, 4, 4) world poses: each worker poses one
 * configuration at a time. */
static PyObject *run_chain_batch(ModelObject *self, batch_job *job, PyObject *chain_o,
                                 PyObject *qs_o, PyObject *xpf_o, PyObject *links_o,
                                 PyObject *parents_o, int threads);

static PyObject *model_chain_min_distances(ModelObject *self, PyObject *args) {
    PyObject *chain_o, *qs_o, *xpf_o, *links_o, *parents_o, *clouds_o = Py_None;
    double report_max;
    int stop_below_zero, first_contact, threads, verdict_only = 0;
    if (!PyArg_ParseTuple(args, "OOOOOdppi|pO", &chain_o, &qs_o, &xpf_o, &links_o, &parents_o,
                          &report_max, &stop_below_zero, &first_contact, &threads,
                          &verdict_only, &clouds_o))
        return NULL;
    if (isnan(report_max)) {
        PyErr_SetString(PyExc_ValueError, "max_distance must be a number");
        return NULL;
    }
    batch_job job = {.m = self, .report_max = report_max,
                     .margin = report_max > 0.0 ? report_max : 0.0,
                     .stop_below_zero = stop_below_zero, .first_contact = first_contact,
                     .verdict_only = verdict_only};
    if (clouds_o == Py_None)
        return run_chain_batch(self, &job, chain_o, qs_o, xpf_o, links_o, parents_o, threads);
    /* clouds: (sequence of Cloud, geometries int32 (R,), thresholds float64 (C, R)). */
    PyObject *list = NULL, *out = NULL;
    Py_buffer geoms, thr;
    int got = 0;
    PyObject *cloud_seq, *geoms_o, *thr_o;
    if (!PyArg_ParseTuple(clouds_o, "OOO", &cloud_seq, &geoms_o, &thr_o)) return NULL;
    list = PySequence_Fast(cloud_seq, "clouds[0] must be a sequence of Cloud");
    if (list == NULL) return NULL;
    Py_ssize_t C = PySequence_Fast_GET_SIZE(list);
    for (Py_ssize_t c = 0; c < C; ++c)
        if (!gc_cloud_check(PySequence_Fast_GET_ITEM(list, c))) {
            PyErr_Format(PyExc_TypeError, "clouds[0][%zd] is not a Cloud", c);
            goto clouds_done;
        }
    if (gc_get_buffer(geoms_o, &geoms, 'i', -1, "cloud geometries") < 0) goto clouds_done;
    got = 1;
    Py_ssize_t R = geoms.len / 4;
    if (gc_get_buffer(thr_o, &thr, 'd', C * R, "cloud thresholds") < 0) goto clouds_done;
    got = 2;
    for (Py_ssize_t r = 0; r < R; ++r) {
        int g = ((const int *)geoms.buf)[r];
        if (g < 0 || g >= self->G) {
            PyErr_Format(PyExc_ValueError, "cloud geometries[%zd] = %d is not a geometry of "
                         "the model", r, g);
            goto clouds_done;
        }
    }
    job.clouds = PySequence_Fast_ITEMS(list);
    job.nclouds = C;
    job.cloud_R = R;
    job.cloud_geoms = geoms.buf;
    job.cloud_thr = thr.buf;
    out = run_chain_batch(self, &job, chain_o, qs_o, xpf_o, links_o, parents_o, threads);
clouds_done:
    if (got >= 2) PyBuffer_Release(&thr);
    if (got >= 1) PyBuffer_Release(&geoms);
    Py_DECREF(list);
    return out;
}

/* chain_pairs(chain, qs (K, n), X_PF, link_slot, parent_slot, margin,
 * report_max, strict, local, threads) -> [pairs() answer of each
 * configuration], the frames posed as chain_min_distances poses them. */
static PyObject *model_chain_pairs(ModelObject *self, PyObject *args) {
    PyObject *chain_o, *qs_o, *xpf_o, *links_o, *parents_o, *pair_margin_o = Py_None;
    double margin, report_max;
    int strict, local, threads;
    if (!PyArg_ParseTuple(args, "OOOOOddppi|O", &chain_o, &qs_o, &xpf_o, &links_o, &parents_o,
                          &margin, &report_max, &strict, &local, &threads, &pair_margin_o))
        return NULL;
    if (isnan(margin) || isnan(report_max)) {
        PyErr_SetString(PyExc_ValueError, "margin and report_max must be numbers");
        return NULL;
    }
    batch_job job = {.m = self, .report_max = report_max, .margin = margin, .pairs = 1,
                     .strict = strict, .local = local};
    if (pair_margin_o == Py_None)
        return run_chain_batch(self, &job, chain_o, qs_o, xpf_o, links_o, parents_o, threads);
    /* Per-pair margins, each at most margin (the broadphase's boxes grow by
     * margin): a pair's own margin decides it in the prefilter. */
    Py_buffer view;
    if (gc_get_buffer(pair_margin_o, &view, 'd', self->G * self->G, "pair_margin") < 0)
        return NULL;
    const double *pm = view.buf;
    for (Py_ssize_t k = 0; k < self->G * self->G; ++k) {
        if (isnan(pm[k]) || pm[k] > margin) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError,
                            "pair_margin must hold numbers or -inf, none above margin");
            return NULL;
        }
    }
    job.pair_margin = pm;
    PyObject *out = run_chain_batch(self, &job, chain_o, qs_o, xpf_o, links_o, parents_o,
                                    threads);
    PyBuffer_Release(&view);
    return out;
}

/* chain_clearance(chain, qs (K, n), X_PF, link_slot, parent_slot, margin,
 * report_max, threads, body_of int32 (G,), link_of int32 (B,), filtered
 * uint8 (B, B), padding float64 (B, B), influence, limit, positions) ->
 * [clearance_to_python of each configuration]: chain_pairs' records (W
 * witnesses) made table rows by clearance_of, on the workers. */
static PyObject *model_chain_clearance(ModelObject *self, PyObject *args) {
    PyObject *chain_o, *qs_o, *xpf_o, *links_o, *parents_o, *body_o, *link_o, *filtered_o,
        *padding_o;
    double margin, report_max, influence;
    int threads;
    Py_ssize_t limit, positions;
    if (!PyArg_ParseTuple(args, "OOOOOddiOOOOdnn", &chain_o, &qs_o, &xpf_o, &links_o,
                          &parents_o, &margin, &report_max, &threads, &body_o, &link_o,
                          &filtered_o, &padding_o, &influence, &limit, &positions))
        return NULL;
    if (isnan(margin) || isnan(report_max) || isnan(influence)) {
        PyErr_SetString(PyExc_ValueError, "margin, report_max and influence must be numbers");
        return NULL;
    }
    if (limit < 0 || positions < 0) {
        PyErr_SetString(PyExc_ValueError, "limit and positions must be non-negative");
        return NULL;
    }
    Py_buffer body, link, filtered, padding;
    if (gc_get_buffer(body_o, &body, 'i', self->G, "body_of") < 0) return NULL;
    PyObject *out = NULL;
    if (gc_get_buffer(link_o, &link, 'i', -1, "link_of") < 0) goto body_done;
    Py_ssize_t B = link.len / 4;
    if (gc_get_buffer(filtered_o, &filtered, 'B', B * B, "filtered") < 0) goto link_done;
    if (gc_get_buffer(padding_o, &padding, 'd', B * B, "padding") < 0) goto filtered_done;
    const int *bodies = body.buf, *links = link.buf;
    for (Py_ssize_t g = 0; g < self->G; ++g) {
        if (bodies[g] < -1 || bodies[g] >= B) {
            PyErr_Format(PyExc_ValueError, "body_of[%zd] = %d is not a body of %zd", g,
                         bodies[g], B);
            goto padding_done;
        }
    }
    {
        clearance_spec spec = {.body_of = bodies, .link_of = links, .filtered = filtered.buf,
                               .padding = padding.buf, .B = B, .influence = influence,
                               .limit = limit, .positions = positions};
        batch_job job = {.m = self, .report_max = report_max, .margin = margin, .pairs = 1,
                         .strict = 0, .local = 0, .clearance = &spec};
        /* The links and columns the rows read are checked against the chain
         * once it is parsed (run_chain_batch). */
        out = run_chain_batch(self, &job, chain_o, qs_o, xpf_o, links_o, parents_o, threads);
    }
padding_done:
    PyBuffer_Release(&padding);
filtered_done:
    PyBuffer_Release(&filtered);
link_done:
    PyBuffer_Release(&link);
body_done:
    PyBuffer_Release(&body);
    return out;
}

static PyObject *run_chain_batch(ModelObject *self, batch_job *job, PyObject *chain_o,
                                 PyObject *qs_o, PyObject *xpf_o, PyObject *links_o,
                                 PyObject *parents_o, int threads) {
    if (parse_threads(threads) < 0) return NULL;
    PyObject *items = PySequence_Fast(chain_o, "chain must be a sequence of 7 arrays");
    if (items == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(items) != 7) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "chain must hold 7 arrays");
        return NULL;
    }
    gc_chain chain;
    int rc = gc_chain_parse(PySequence_Fast_ITEMS(items), &chain);
    Py_DECREF(items);
    if (rc < 0) return NULL;
    Py_buffer views[4];
    static const char formats[4] = {'d', 'd', 'i', 'i'};
    static const char *names[4] = {"qs", "X_PF", "link_slot", "parent_slot"};
    PyObject *objects[4] = {qs_o, xpf_o, links_o, parents_o};
    PyObject *out = NULL;
    int got = 0;
    for (; got < 4; ++got)
        if (gc_get_buffer(objects[got], &views[got], formats[got], -1, names[got]) < 0) goto done;
    Py_ssize_t F = views[1].len / (16 * 8);
    if (views[1].len != F * 16 * 8 || F <= self->max_slot) {
        PyErr_Format(PyExc_ValueError, "X_PF must hold (F, 4, 4) poses with F above the "
                                       "largest frame slot %d", self->max_slot);
        goto done;
    }
    if (gc_chain_check_slots(&chain, &views[2], &views[3], F) < 0) goto done;
    if (job->clearance != NULL) {
        const clearance_spec *t = job->clearance;
        int bad = 0;
        for (Py_ssize_t b = 0; b < t->B && !bad; ++b)
            bad = t->link_of[b] < -1 || t->link_of[b] >= chain.L;
        for (Py_ssize_t l = 0; l < chain.L && !bad; ++l) bad = chain.column[l] >= t->positions;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "link_of must name links of the chain and "
                                              "positions cover its columns");
            goto done;
        }
    }
    Py_ssize_t n = chain.L > 0 ? gc_chain_max_column(&chain) + 1 : 0;
    Py_ssize_t K = 0, positions = 0;
    if (views[0].len > 0) {
        /* qs is (K, positions) with positions >= the columns the chain reads;
         * the caller passes positions through its shape's last axis. */
        positions = views[0].shape != NULL && views[0].ndim == 2 ? views[0].shape[1] : n;
        K = positions > 0 ? views[0].len / (8 * positions) : 0;
    }
    if (positions < n || K * positions * 8 != views[0].len) {
        PyErr_Format(PyExc_ValueError, "qs must be (K, n) with n >= %zd", n);
        goto done;
    }
    job->F = F;
    job->chain = &chain;
    job->qs = views[0].buf;
    job->positions = positions;
    job->link_slot = views[2].buf;
    job->parent_slot = views[3].buf;
    if (job->nclouds > 0) {
        /* (mins, flagged, hits): hits (K,) bytes as batch_job's cloud_hit. */
        PyObject *hits = PyBytes_FromStringAndSize(NULL, K);
        if (hits == NULL) goto done;
        memset(PyBytes_AS_STRING(hits), 0, (size_t)K);
        job->cloud_hit = (unsigned char *)PyBytes_AS_STRING(hits);
        out = run_batch(job, K, threads, views[1].buf);
        if (out != NULL) {
            PyObject *all = Py_BuildValue("(OOO)", PyTuple_GET_ITEM(out, 0),
                                          PyTuple_GET_ITEM(out, 1), hits);
            Py_DECREF(out);
            out = all;
        }
        Py_DECREF(hits);
        goto done;
    }
    out = run_batch(job, K, threads, views[1].buf);
done:
    for (int v = 0; v < got; ++v) PyBuffer_Release(&views[v]);
    gc_chain_release(&chain);
    return out;
}

/* unfiltered_pairs() -> bytes of int32 (P, 2): every pair i < j that no
 * filter removes (the pairs the batch loops may report), by (i, j). */
static PyObject *model_unfiltered_pairs(ModelObject *self, PyObject *unused) {
    Py_ssize_t P = 0;
    for (int i = 0; i < self->G; ++i)
        for (int j = i + 1; j < self->G; ++j) P += !is_filtered(self, i, j);
    PyObject *out = PyBytes_FromStringAndSize(NULL, P * 2 * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL) return NULL;
    int32_t *pairs = (int32_t *)PyBytes_AS_STRING(out);
    for (int i = 0; i < self->G; ++i) {
        for (int j = i + 1; j < self->G; ++j) {
            if (is_filtered(self, i, j)) continue;
            *pairs++ = i;
            *pairs++ = j;
        }
    }
    return out;
}

static PyObject *model_size(ModelObject *self, void *closure) {
    return PyLong_FromSsize_t(self->G);
}

static PyMethodDef model_methods[] = {
    {"world_poses", (PyCFunction)model_world_poses, METH_O,
     "world_poses(X_WF (F,4,4) float64) -> bytes of X_WG (G,4,4): X_WF[frame_slot] @ X_FG"},
    {"world_boxes", (PyCFunction)model_world_boxes, METH_O,
     "world_boxes(X_WG (G,4,4) float64) -> bytes of (2, G, 3): box centres, then half\n"
     "widths in W (infinite for half spaces)"},
    {"pairs", (PyCFunction)model_pairs, METH_VARARGS,
     "pairs(X_WG, margin, report_max, strict, local) -> (vectors, i, j, status, distance,\n"
     "unique, count not OK, count SEARCHED).\n"
     "Candidates within margin, answered; kept when status != OK or distance < report_max\n"
     "(strict) / <= report_max. local: witnesses in each geometry's frame."},
    {"pair_rows", (PyCFunction)model_pair_rows, METH_VARARGS,
     "pair_rows(X_WG, max_distance, penetration, clearance[, of_frames]) -> (bytes of\n"
     "penetration rows (K, 80), bytes of their (i, j) int32 (K, 2), bytes of signed-distance rows (M, 136)\n"
     "with witnesses in W too, bytes of their (i, j), count of pairs left to Python):\n"
     "pairs()'s two answers from one pass of the kernels, as result_rows' rows. of_frames:\n"
     "the first argument is X_WF (F, 4, 4), each geometry posed as world_poses() poses it"},
    {"candidates", (PyCFunction)model_candidates, METH_VARARGS,
     "candidates(X_WG, margin) -> bytes of int64 keys i * G + j, sorted"},
    {"min_distances", (PyCFunction)model_min_distances, METH_VARARGS,
     "min_distances(X_WF (K,F,4,4), F, max_distance, stop_below_zero[, first_contact,\n"
     "threads, verdict_only]) -> (bytes of K\n"
     "smallest distances within max_distance (inf if none), configurations left to Python)"},
    {"chain_min_distances", (PyCFunction)model_chain_min_distances, METH_VARARGS,
     "chain_min_distances(chain, qs (K,n), X_PF (F,4,4), link_slot, parent_slot,\n"
     "max_distance, stop_below_zero, first_contact, threads[, verdict_only, clouds]) -> as\n"
     "min_distances, for the\n"
     "frames a kinematic chain poses at each configuration. clouds: (sequence of Cloud,\n"
     "geometries int32 (R,), thresholds float64 (C, R)) adds a third answer, bytes (K,):\n"
     "for a configuration answered above zero, 1 when some cloud has a point within\n"
     "thresholds[c, r] of geometry r, 2 when the point kernel handles such a shape not\n"
     "(Python answers it), else 0"},
    {"chain_pairs", (PyCFunction)model_chain_pairs, METH_VARARGS,
     "chain_pairs(chain, qs (K,n), X_PF (F,4,4), link_slot, parent_slot, margin, report_max,\n"
     "strict, local, threads[, pair_margin (G*G) float64: each pair's own margin, at most\n"
     "margin, -inf to leave it out]) -> [pairs() answer of each configuration of the chain]"},
    {"chain_clearance", (PyCFunction)model_chain_clearance, METH_VARARGS,
     "chain_clearance(chain, qs (K,n), X_PF, link_slot, parent_slot, margin, report_max,\n"
     "threads, body_of (G,) int32, link_of (B,) int32, filtered (B,B) uint8, padding (B,B),\n"
     "influence, limit, positions) -> [None (left to Python) or (robot, other, self row,\n"
     "geometry i, geometry j: lists; distances, Jacobian rows: bytearrays), per\n"
     "configuration]"},
    {"unfiltered_pairs", (PyCFunction)model_unfiltered_pairs, METH_NOARGS,
     "unfiltered_pairs() -> bytes of int32 (P, 2): the pairs i < j no filter removes"},
    {"points", (PyCFunction)model_points, METH_VARARGS,
     "points(X_WG, (x, y, z), threshold) -> (vectors, g, status, distance, unique, "
     "count not OK)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef model_getset[] = {
    {"size", (getter)model_size, NULL, "number of geometries", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geometry_core._native.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Model(kinds, sizes, local_boxes, frame_slot, X_FG, filtered_keys, hulls): "
              "one collision model for the batch queries.",
    .tp_methods = model_methods,
    .tp_getset = model_getset,
    .tp_init = (initproc)model_init,
    .tp_new = PyType_GenericNew,
};

int gc_model_get_view(PyObject *model, gc_model_view *view) {
    if (!PyObject_TypeCheck(model, &ModelType)) {
        PyErr_Format(PyExc_TypeError, "expected a Model, got %s", Py_TYPE(model)->tp_name);
        return -1;
    }
    const ModelObject *m = (const ModelObject *)model;
    view->G = m->G;
    view->shapes = m->shapes;
    view->box_G = m->box_G;
    view->frame_slot = m->frame_slot;
    view->max_slot = m->max_slot;
    view->X_FG = m->X_FG;
    view->outer = m->outer;
    return 0;
}

int gc_model_register(PyObject *module) {
    if (PyType_Ready(&ModelType) < 0) return -1;
    Py_INCREF(&ModelType);
    if (PyModule_AddObject(module, "Model", (PyObject *)&ModelType) < 0) {
        Py_DECREF(&ModelType);
        return -1;
    }
    return 0;
}
