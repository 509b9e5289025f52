/* Motion: the discrete edge check of a kinematic chain in one Model, decided
 * pair by pair with bounds, the pair kernels run only where the bounds
 * cannot decide.
 *
 * An edge q1 -> q2 of `steps` steps has the configurations s_m = m / steps,
 * m = 0..steps (m = steps is q2 itself, the others q1 + s_m (q2 - q1), the
 * same doubles numpy makes). Its answer is whether any of them has a pair
 * in contact (as the batch loops of model.c decide a configuration). Per
 * unfiltered pair p the caller gives `rates` (P, L): how fast the pair's
 * distance can fall per unit of each link's joint motion (KinematicChain's
 * motion bounds, with the joints that move both bodies left out), so along
 * the edge it falls at most speed_p = rates[p] . |dq| per unit of s. A lower
 * bound D of the distance at s_m that clears the pair's padding by more than
 * GC_MOTION_PROOF_MARGIN proves the pair free at every configuration within
 * (D - padding - margin) / speed_p of s_m: those are skipped for that pair,
 * and a configuration every pair of which is proven is never posed.
 *
 * Bounds, cheapest first: for a pair with a link of several geometries on a
 * side (the Panda's fingers), one sphere around that link's outer spheres,
 * shared by the pairs with the same sides; the outer spheres' gap; an
 * inner-sphere overlap
 * (an upper bound: contact where it clears the padding by the margin); the
 * pair kernel (gc_pair_verdict) asked to prove the pair apart at s_m, which
 * returns the lower bound that proved it (GJK's, a sphere's height above a
 * hull's faces), the exact distance of primitives, or a proven overlap's
 * bound of its distance. A pair whose bounds land within the
 * margin of its padding is decided by gc_model_pair_contact: the very tests
 * the configuration's own check runs, so the edge's answer is exactly that
 * of checking every configuration.
 *
 * Order: the configurations are cut into one block per thread, and a block
 * into stretches of about GC_MOTION_STRETCH configurations. A block checks
 * each stretch's last configuration first (q2 first of all, as the checker
 * always has): a coarse pass over the whole edge, as vamp's first pass
 * spreads its states, so that most colliding edges stop after a few
 * configurations. Then each stretch's others from its first on, each
 * pair's proofs reaching forward from what came before and back from the
 * stretch's end. The edge stops at the first contact any thread finds;
 * which configurations are checked is the same in any order, so the answer
 * is too. No Python, no GIL in the loop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gc.h"
#include "gc_buffers.h"
#include "gc_kinematics.h"
#include "gc_model.h"
#include "gc_parallel.h"
#include "gc_tolerances.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MOTION_VIEWS = 9 };

/* A block's stretches (edge_blocks): about this many configurations each,
 * at most this many stretches. */
#define GC_MOTION_STRETCH 16
#define GC_MOTION_STRETCHES_MAX 64

typedef struct {
    PyObject_HEAD
    PyObject *model;             /* the Model (a strong reference) */
    gc_model_view view;
    gc_chain chain;
    int has_chain;
    /* X_PF (F, 4, 4), link_slot (L,), parent_slot (F,), pairs (P, 2),
     * padding (P,), rates (P, L), lowest (positions,), highest (positions,):
     * the positions accepted */
    Py_buffer views[MOTION_VIEWS];
    int nviews;
    Py_ssize_t F, P, positions;
    int padded;
    double margin, report_max;
    double *outer_F;             /* (G, 4): each outer sphere, centre in its frame, radius */
    double *pair_radii;          /* (P): the sum of each pair's outer radii */
    /* Groups: the pairs between one geometry (or one link's several
     * geometries) and one link's several geometries, bounded by one sphere
     * per side before their own. group (P,): each pair's (-1: none);
     * group_side (NG, 2): a side's geometry g as g, a link's sphere b as
     * G + b; group_padding (NG,): the members' largest; body_F (G, 4): each
     * link's sphere around its geometries' outer spheres, in its frame;
     * body_slot (G,): that frame. */
    Py_ssize_t NG;
    int *group, *group_side, *body_slot;
    double *group_padding, *body_F;
    double *group_radii;         /* (NG): the sum of its sides' radii */
    int *bodies;                 /* (NB): the links b some group has a side G + b of */
    Py_ssize_t NB;
} MotionObject;

static void motion_release(MotionObject *self) {
    for (int v = 0; v < self->nviews; ++v) PyBuffer_Release(&self->views[v]);
    self->nviews = 0;
    if (self->has_chain) gc_chain_release(&self->chain);
    self->has_chain = 0;
    PyMem_Free(self->outer_F);
    self->outer_F = NULL;
    PyMem_Free(self->pair_radii);
    self->pair_radii = NULL;
    PyMem_Free(self->group);
    PyMem_Free(self->group_side);
    PyMem_Free(self->body_slot);
    PyMem_Free(self->group_padding);
    PyMem_Free(self->body_F);
    PyMem_Free(self->group_radii);
    PyMem_Free(self->bodies);
    self->group = self->group_side = self->body_slot = self->bodies = NULL;
    self->group_padding = self->body_F = self->group_radii = NULL;
    self->NG = self->NB = 0;
    Py_CLEAR(self->model);
}

static void motion_dealloc(MotionObject *self) {
    motion_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

typedef struct {
    int64_t key;
    Py_ssize_t p;
} pair_key;

static int by_key(const void *a, const void *b) {
    int64_t x = ((const pair_key *)a)->key, y = ((const pair_key *)b)->key;
    return x < y ? -1 : x > y;
}

/* The groups (see MotionObject): a link whose geometries (body_of[g] >= 0,
 * at least two, finite outer spheres, all in one frame) get one sphere around
 * their outer spheres; pairs with the same sides, one of them such a link,
 * share a group when there are at least two of them. */
static int make_groups(MotionObject *self, Py_ssize_t P) {
    Py_ssize_t G = self->view.G;
    const int *body_of = self->views[8].buf, *pairs = self->views[3].buf;
    const int *slot = self->view.frame_slot;
    const double *padding = self->views[4].buf;
    self->body_slot = PyMem_Malloc((size_t)(G + 1) * sizeof(int));
    self->body_F = PyMem_Malloc((size_t)(G + 1) * 4 * sizeof(double));
    self->group = PyMem_Malloc((size_t)(P + 1) * sizeof(int));
    int *count = PyMem_Calloc((size_t)G + 1, sizeof(int));
    pair_key *keys = PyMem_Malloc((size_t)(P + 1) * sizeof(pair_key));
    if (!self->body_slot || !self->body_F || !self->group || !count || !keys) {
        PyMem_Free(count);
        PyMem_Free(keys);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t b = 0; b < G; ++b) {
        self->body_slot[b] = -1;
        for (int a = 0; a < 4; ++a) self->body_F[4 * b + a] = 0.0;
    }
    for (Py_ssize_t g = 0; g < G; ++g) {
        int b = body_of[g];
        if (b < -1 || b >= G) {
            PyMem_Free(count);
            PyMem_Free(keys);
            PyErr_Format(PyExc_ValueError, "body_of[%zd] = %d is not -1 or below %zd", g, b, G);
            return -1;
        }
        if (b < 0) continue;
        /* A frame of its own or a radius without bound: no sphere. */
        if (count[b]++ == 0) self->body_slot[b] = slot[g];
        else if (self->body_slot[b] != slot[g]) self->body_slot[b] = -2;
        if (!isfinite(self->outer_F[4 * g + 3])) self->body_slot[b] = -2;
    }
    /* The sphere: centred on the mean of the outer spheres' centres, reaching
     * the farthest one's far side. */
    for (Py_ssize_t g = 0; g < G; ++g) {
        int b = body_of[g];
        if (b < 0 || self->body_slot[b] < 0) continue;
        for (int a = 0; a < 3; ++a) self->body_F[4 * b + a] += self->outer_F[4 * g + a] / count[b];
    }
    for (Py_ssize_t g = 0; g < G; ++g) {
        int b = body_of[g];
        if (b < 0 || self->body_slot[b] < 0) continue;
        const double *o = self->outer_F + 4 * g, *c = self->body_F + 4 * b;
        double d[3] = {o[0] - c[0], o[1] - c[1], o[2] - c[2]};
        double reach = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + o[3];
        if (reach > self->body_F[4 * b + 3]) self->body_F[4 * b + 3] = reach;
    }
    /* Each pair's sides, then the pairs sorted by them. */
    for (Py_ssize_t p = 0; p < P; ++p) {
        int side[2];
        for (int k = 0; k < 2; ++k) {
            int g = pairs[2 * p + k], b = body_of[g];
            side[k] = b >= 0 && count[b] >= 2 && self->body_slot[b] >= 0 ? (int)G + b : g;
        }
        int grouped = side[0] >= G || side[1] >= G;
        keys[p].key = grouped ? (int64_t)side[0] * (2 * (int64_t)G + 1) + side[1] : -1 - p;
        keys[p].p = p;
    }
    qsort(keys, (size_t)P, sizeof(pair_key), by_key);
    Py_ssize_t NG = 0;
    for (Py_ssize_t t = 0; t < P; ++t) self->group[keys[t].p] = -1;
    for (Py_ssize_t t = 0; t < P;) {
        Py_ssize_t u = t + 1;
        while (u < P && keys[u].key == keys[t].key) ++u;
        if (keys[t].key >= 0 && u - t >= 2) {
            for (Py_ssize_t v = t; v < u; ++v) self->group[keys[v].p] = (int)NG;
            ++NG;
        }
        t = u;
    }
    self->group_side = PyMem_Malloc((size_t)(2 * NG + 1) * sizeof(int));
    self->group_padding = PyMem_Malloc((size_t)(NG + 1) * sizeof(double));
    if (!self->group_side || !self->group_padding) {
        PyMem_Free(count);
        PyMem_Free(keys);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t n = 0; n < NG; ++n) self->group_padding[n] = -INFINITY;
    for (Py_ssize_t p = 0; p < P; ++p) {
        int n = self->group[p];
        if (n < 0) continue;
        for (int k = 0; k < 2; ++k) {
            int g = pairs[2 * p + k], b = body_of[g];
            self->group_side[2 * n + k] =
                b >= 0 && count[b] >= 2 && self->body_slot[b] >= 0 ? (int)G + b : g;
        }
        if (padding[p] > self->group_padding[n]) self->group_padding[n] = padding[p];
    }
    /* Each group's radii, as its sides' spheres add them; the links on a
     * side, once each. */
    self->group_radii = PyMem_Malloc((size_t)(NG + 1) * sizeof(double));
    self->bodies = PyMem_Malloc((size_t)(G + 1) * sizeof(int));
    if (!self->group_radii || !self->bodies) {
        PyMem_Free(count);
        PyMem_Free(keys);
        PyErr_NoMemory();
        return -1;
    }
    memset(count, 0, (size_t)G * sizeof(int));
    Py_ssize_t NB = 0;
    for (Py_ssize_t n = 0; n < NG; ++n) {
        double r[2];
        for (int k = 0; k < 2; ++k) {
            int side = self->group_side[2 * n + k];
            if (side < G) {
                r[k] = self->outer_F[4 * side + 3];
                continue;
            }
            r[k] = self->body_F[4 * (side - G) + 3];
            if (count[side - G]++ == 0) self->bodies[NB++] = side - (int)G;
        }
        self->group_radii[n] = r[0] + r[1];
    }
    self->NG = NG;
    self->NB = NB;
    PyMem_Free(count);
    PyMem_Free(keys);
    return 0;
}

static int motion_init(MotionObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"model", "chain", "X_PF", "link_slot", "parent_slot", "pairs",
                             "padding", "rates", "lowest", "highest", "positions", "padded",
                             "margin", "report_max", "body_of", NULL};
    PyObject *model, *chain_o, *objects[MOTION_VIEWS];
    Py_ssize_t positions;
    int padded;
    double margin, report_max;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOOOnpddO", kwlist, &model, &chain_o,
                                     &objects[0], &objects[1], &objects[2], &objects[3],
                                     &objects[4], &objects[5], &objects[6], &objects[7],
                                     &positions, &padded, &margin, &report_max, &objects[8]))
        return -1;
    motion_release(self);
    if (gc_model_get_view(model, &self->view) < 0) return -1;
    Py_INCREF(model);
    self->model = model;
    if (isnan(margin) || isnan(report_max)) {
        PyErr_SetString(PyExc_ValueError, "margin and report_max must be numbers");
        return -1;
    }
    PyObject *items = PySequence_Fast(chain_o, "chain must be a sequence of 7 arrays");
    if (items == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(items) != 7) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "chain must hold 7 arrays");
        return -1;
    }
    int rc = gc_chain_parse(PySequence_Fast_ITEMS(items), &self->chain);
    Py_DECREF(items);
    if (rc < 0) return -1;
    self->has_chain = 1;
    static const char formats[MOTION_VIEWS] = {'d', 'i', 'i', 'i', 'd', 'd', 'd', 'd', 'i'};
    static const char *names[MOTION_VIEWS] = {"X_PF", "link_slot", "parent_slot", "pairs",
                                              "padding", "rates", "lowest", "highest",
                                              "body_of"};
    for (; self->nviews < MOTION_VIEWS; ++self->nviews)
        if (gc_get_buffer(objects[self->nviews], &self->views[self->nviews],
                          formats[self->nviews], -1, names[self->nviews]) < 0)
            return -1;
    Py_ssize_t F = self->views[0].len / (16 * 8), L = self->chain.L;
    if (self->views[0].len != F * 16 * 8 || F <= self->view.max_slot) {
        PyErr_Format(PyExc_ValueError, "X_PF must hold (F, 4, 4) poses with F above the "
                                       "largest frame slot %d", self->view.max_slot);
        return -1;
    }
    if (gc_chain_check_slots(&self->chain, &self->views[1], &self->views[2], F) < 0) return -1;
    if (positions <= gc_chain_max_column(&self->chain)) {
        PyErr_Format(PyExc_ValueError, "positions must exceed the chain's largest column %d",
                     gc_chain_max_column(&self->chain));
        return -1;
    }
    if (self->views[6].len != positions * 8 || self->views[7].len != positions * 8) {
        PyErr_Format(PyExc_ValueError, "lowest and highest must hold %zd positions", positions);
        return -1;
    }
    Py_ssize_t P = self->views[3].len / 8;
    if (self->views[3].len != P * 8 || self->views[4].len != P * 8 ||
        self->views[5].len != P * L * 8) {
        PyErr_Format(PyExc_ValueError, "pairs must be (P, 2), padding (P,) and rates (P, %zd)",
                     L);
        return -1;
    }
    const int *pairs = self->views[3].buf;
    const double *padding = self->views[4].buf, *rates = self->views[5].buf;
    for (Py_ssize_t p = 0; p < P; ++p) {
        int i = pairs[2 * p], j = pairs[2 * p + 1];
        if (i < 0 || i >= j || j >= self->view.G || gc_model_is_filtered(model, i, j)) {
            PyErr_Format(PyExc_ValueError, "pairs[%zd] = (%d, %d) is not an unfiltered pair "
                                           "i < j of the model's %zd geometries", p, i, j,
                         self->view.G);
            return -1;
        }
        if (!isfinite(padding[p])) {
            PyErr_Format(PyExc_ValueError, "padding[%zd] must be finite", p);
            return -1;
        }
    }
    for (Py_ssize_t k = 0; k < P * L; ++k) {
        if (!(rates[k] >= 0.0)) {
            PyErr_SetString(PyExc_ValueError, "rates must be non-negative (inf allowed)");
            return -1;
        }
    }
    Py_ssize_t G = self->view.G;
    self->outer_F = PyMem_Malloc((size_t)(G + 1) * 4 * sizeof(double));
    if (self->outer_F == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t g = 0; g < G; ++g) {
        const double *o = self->view.outer + 4 * g;
        gc_to_world(self->view.X_FG + 16 * g, o, self->outer_F + 4 * g);
        self->outer_F[4 * g + 3] = isfinite(o[3]) ? o[3] : INFINITY;
    }
    self->pair_radii = PyMem_Malloc((size_t)(P + 1) * sizeof(double));
    if (self->pair_radii == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t p = 0; p < P; ++p)
        self->pair_radii[p] = self->outer_F[4 * pairs[2 * p] + 3] +
                              self->outer_F[4 * pairs[2 * p + 1] + 3];
    if (self->views[8].len != G * 4) {
        PyErr_Format(PyExc_ValueError, "body_of must hold the model's %zd geometries", G);
        return -1;
    }
    if (make_groups(self, P) < 0) return -1;
    self->F = F;
    self->P = P;
    self->positions = positions;
    self->padded = padded;
    self->margin = margin;
    self->report_max = report_max;
    return 0;
}

/* ------------------------------------------------------------ one edge */

/* One thread's scratch. */
typedef struct {
    ptrdiff_t *fwd, *bwd;   /* (stretches, P): per pair, proven up to fwd from the
                               stretch's first configuration on, and from bwd to
                               its last */
    double *X_PF, *X_WF;    /* (F, 16) */
    double *X_WG;           /* (G, 16) */
    ptrdiff_t *posed;       /* (G): the configuration X_WG's row is posed at (-1: none) */
    double *centre;         /* (2 G, 3): outer spheres' centres in W (row g), and
                               the groups' link spheres' (row G + b) */
    ptrdiff_t *boxed;       /* (G): the configuration box's row is at (-1: none) */
    ptrdiff_t *todo;        /* (P): a configuration's pairs left to decide */
    double *lane;           /* (4, P): their centres' differences and distances
                               (check_state) */
    ptrdiff_t *active;      /* (stretches, P): the pairs some configuration of the
                               stretch may need */
    Py_ssize_t *active_count;   /* (stretches): how many */
    ptrdiff_t *grouped;     /* (NG): the configuration group_clear's row is at (-1: none) */
    double *group_clear;    /* (NG): the group's spheres' gap less its padding */
    double *box;            /* (G, 6): world boxes' centres and half widths */
    double *q;              /* (positions) */
} motion_scratch;

typedef struct {
    const MotionObject *mo;
    const double *q1, *q2, *dq, *per;
    const double *group_per;   /* (NG): the smallest per of its pairs */
    ptrdiff_t steps, blocks;
    ptrdiff_t stretches;       /* per block: see edge_blocks */
    motion_scratch *scratch;
    atomic_int contact, python;
} edge_job;

enum { PAIR_CONTACT = -1, PAIR_PYTHON = -2 };

/* The configurations beyond s_m (up to need) that a lower bound `clear` of a
 * pair's distance less its padding at s_m proves free; -1 when it does not
 * even prove s_m. `per` is the pair's steps / speed (inf when nothing moves
 * its bodies apart or together). */
static ptrdiff_t proven(double clear, double per, ptrdiff_t need) {
    /* Without branches (whether a pair is proven is hard to predict): the
     * reach clamped to [0, need] (a NaN to need) before it is truncated,
     * which keeps every conversion defined; need is exact as a double. */
    double reach = (clear - GC_MOTION_PROOF_MARGIN) * per;
    reach = reach < (double)need ? reach : (double)need;
    reach = reach > 0.0 ? reach : 0.0;
    ptrdiff_t k = (ptrdiff_t)reach;
    return clear > GC_MOTION_PROOF_MARGIN ? k : -1;
}

static void pose_configuration(const edge_job *job, motion_scratch *w, ptrdiff_t m) {
    const MotionObject *mo = job->mo;
    const double *q = job->q2;
    if (m != job->steps) {
        double s = (double)m / (double)job->steps;
        for (Py_ssize_t c = 0; c < mo->positions; ++c) w->q[c] = job->q1[c] + s * job->dq[c];
        q = w->q;
    }
    gc_chain_pose_frames(&mo->chain, q, mo->views[1].buf, mo->views[2].buf, mo->F, w->X_PF,
                         w->X_WF);
}

static void pose_geometry(const MotionObject *mo, motion_scratch *w, int g, ptrdiff_t m) {
    if (w->posed[g] == m) return;
    gc_compose(w->X_WF + 16 * mo->view.frame_slot[g], mo->view.X_FG + 16 * g, w->X_WG + 16 * g);
    w->posed[g] = m;
}

/* Geometry g's world box at s_m (its pose first). */
static const double *world_box(const MotionObject *mo, motion_scratch *w, int g, ptrdiff_t m) {
    double *b = w->box + 6 * g;
    if (w->boxed[g] != m) {
        pose_geometry(mo, w, g, m);
        gc_model_world_box(mo->model, g, w->X_WG + 16 * g, b, b + 3);
        w->boxed[g] = m;
    }
    return b;
}

/* Group n's spheres at s_m (their centres in w->centre, check_state): a
 * lower bound of every member pair's distance less its padding (-inf where
 * they overlap). */
static double group_gap(const edge_job *job, motion_scratch *w, Py_ssize_t n, ptrdiff_t m) {
    const MotionObject *mo = job->mo;
    if (w->grouped[n] == m) return w->group_clear[n];
    const double *ci = w->centre + 3 * mo->group_side[2 * n];
    const double *cj = w->centre + 3 * mo->group_side[2 * n + 1];
    double radii = mo->group_radii[n];
    double d[3] = {ci[0] - cj[0], ci[1] - cj[1], ci[2] - cj[2]};
    double square = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double padding = mo->group_padding[n], least = radii + padding + GC_MOTION_PROOF_MARGIN;
    double clear = least > 0.0 && !(square > least * least) ? -INFINITY
                                                             : sqrt(square) - radii - padding;
    w->grouped[n] = m;
    w->group_clear[n] = clear;
    return clear;
}

/* Pair p at s_m (the configuration posed), k what its spheres proved:
 * PAIR_CONTACT, PAIR_PYTHON (left to Python), or k >= 0: free at s_m and at
 * the k configurations beyond it (at most need). */
static ptrdiff_t decide(const edge_job *job, motion_scratch *w, Py_ssize_t p, ptrdiff_t m,
                        ptrdiff_t need, ptrdiff_t k) {
    const MotionObject *mo = job->mo;
    const int *pairs = mo->views[3].buf;
    int i = pairs[2 * p], j = pairs[2 * p + 1];
    double padding = ((const double *)mo->views[4].buf)[p], per = job->per[p];
    /* The world boxes: their widest gap along an axis is a lower bound too,
     * far better than the spheres' for flat shapes (a table). */
    const double *bi = world_box(mo, w, i, m), *bj = world_box(mo, w, j, m);
    double apart = -INFINITY;
    for (int a = 0; a < 3; ++a) {
        double reach = bi[3 + a] + bj[3 + a], between = fabs(bi[a] - bj[a]);
        if (between - reach > apart) apart = between - reach;
    }
    ptrdiff_t by_boxes = proven(apart - padding, per, need);
    if (by_boxes > k) k = by_boxes;
    if (k >= 0) return k;
    pose_geometry(mo, w, i, m);
    pose_geometry(mo, w, j, m);
    const double *X_WG = w->X_WG;
    /* The broadphase's boxes and prefilter prove s_m alone. */
    if (!gc_model_pair_candidate(mo->model, X_WG, i, j, padding + GC_MOTION_PROOF_MARGIN))
        return 0;
    double depth;
    if (gc_model_inner_overlap(mo->model, X_WG, i, j, &depth) &&
        -depth - padding < -GC_MOTION_PROOF_MARGIN)
        return PAIR_CONTACT;
    /* The kernel, asked to prove no more than s_m: where it does, the lower
     * bound that proved it reaches on (a far pair's bound holds at once); a
     * near one's certified distance does too, and only a pair in contact
     * or within the margin costs its whole answer. */
    gc_pair_result r;
    memset(&r, 0, sizeof(r));
    const gc_shape *shapes = mo->view.shapes;
    int status = gc_pair_verdict(&shapes[i], X_WG + 16 * i, &shapes[j], X_WG + 16 * j,
                                 padding + GC_MOTION_PROOF_MARGIN, &r);
    if (status == GC_BEYOND || status == GC_OK) {
        /* A lower bound, a certified distance, or a proven overlap's bound
         * of its distance (above it). */
        double clear = r.distance - padding;
        if (status == GC_OK && clear < -GC_MOTION_PROOF_MARGIN) return PAIR_CONTACT;
        ptrdiff_t by_bound = proven(clear, per, need);
        if (by_bound >= 0) return by_bound;
    }
    /* Within the margin of the padding (or an answer the kernels leave to
     * others): the configuration's own tests decide. */
    int contact = gc_model_pair_contact(mo->model, X_WG, i, j, mo->padded, mo->margin,
                                        mo->report_max, padding);
    if (contact > 0) return PAIR_CONTACT;
    if (contact < 0) return PAIR_PYTHON;
    return 0;
}

/* span[t] = |(dx, dy, dz)[t]|, t < n: the distance between two outer
 * spheres' centres. Two at once where SSE2 is (every x86_64): the same
 * operations in the same order, and a square root is correctly rounded in
 * either width, so the bits are those of the scalar loop on any CPU. */
static void sphere_spans(const double *dx, const double *dy, const double *dz, double *span,
                         Py_ssize_t n) {
    Py_ssize_t t = 0;
#if defined(__SSE2__)
    for (; t + 2 <= n; t += 2) {
        __m128d x = _mm_loadu_pd(dx + t), y = _mm_loadu_pd(dy + t), z = _mm_loadu_pd(dz + t);
        __m128d square = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x, x), _mm_mul_pd(y, y)),
                                    _mm_mul_pd(z, z));
        _mm_storeu_pd(span + t, _mm_sqrt_pd(square));
    }
#endif
    for (; t < n; ++t)
        span[t] = sqrt(dx[t] * dx[t] + dy[t] * dy[t] + dz[t] * dz[t]);
}

/* One configuration s_m of a stretch [first, last] whose proofs so far are
 * fwd, bwd and active (as motion_scratch's; *active their count): its
 * pairs not yet proven, decided, their proofs reaching back to first when
 * `back` (m = last, checked first), else on towards last. 1 where a pair is
 * in contact (the edge's answer), else 0. */
static int check_state(edge_job *job, motion_scratch *w, ptrdiff_t *fwd, ptrdiff_t *bwd,
                       ptrdiff_t *active_list, Py_ssize_t *active, ptrdiff_t m, int back) {
    const MotionObject *mo = job->mo;
    /* The pairs not yet proven here; none: the configuration is free.
     * Without branches (which pairs are proven is hard to predict), and a
     * pair proven for the rest of the stretch (fwd + 1 >= bwd: fwd only
     * grows, bwd only shrinks) leaves the active list. */
    Py_ssize_t todo = 0, kept = 0;
    for (Py_ssize_t t = 0; t < *active; ++t) {
        ptrdiff_t p = active_list[t], f = fwd[p], e = bwd[p];
        active_list[kept] = p;
        kept += f + 1 < e;
        w->todo[todo] = p;
        todo += (m > f) & (m < e);
    }
    *active = kept;
    if (todo == 0) return 0;
    pose_configuration(job, w, m);
    /* Every outer sphere's centre, in one pass (row g). */
    const int *slot = mo->view.frame_slot, *pairs = mo->views[3].buf;
    for (Py_ssize_t g = 0; g < mo->view.G; ++g)
        gc_to_world(w->X_WF + 16 * slot[g], mo->outer_F + 4 * g, w->centre + 3 * g);
    /* And the groups' link spheres, on rows G + b. */
    for (Py_ssize_t k = 0; k < mo->NB; ++k) {
        int b = mo->bodies[k];
        gc_to_world(w->X_WF + 16 * mo->body_slot[b], mo->body_F + 4 * b,
                    w->centre + 3 * (mo->view.G + b));
    }
    /* The distances between their outer spheres' centres, in a loop of two
     * pairs an instruction (sphere_spans), the differences gathered first. */
    const double *padding = mo->views[4].buf;
    Py_ssize_t P = mo->P;
    double *dx = w->lane, *dy = dx + P, *dz = dy + P, *span = dz + P;
    for (Py_ssize_t t = 0; t < todo; ++t) {
        Py_ssize_t p = w->todo[t];
        const double *ci = w->centre + 3 * pairs[2 * p], *cj = w->centre + 3 * pairs[2 * p + 1];
        dx[t] = ci[0] - cj[0];
        dy[t] = ci[1] - cj[1];
        dz[t] = ci[2] - cj[2];
    }
    sphere_spans(dx, dy, dz, span, todo);
    for (Py_ssize_t t = 0; t < todo; ++t) {
        Py_ssize_t p = w->todo[t];
        ptrdiff_t need = back ? m - 1 - fwd[p] : bwd[p] - 1 - m;
        /* The group's spheres first: where they prove s_m, their proof (its
         * smallest per, its largest padding) holds for the pair; else the
         * pair's own. */
        int n = mo->group[p];
        ptrdiff_t k = n < 0 ? -1 : proven(group_gap(job, w, n, m), job->group_per[n], need);
        ptrdiff_t own = proven(span[t] - mo->pair_radii[p] - padding[p], job->per[p], need);
        k = k >= 0 ? k : own;
        if (k < 0) k = decide(job, w, p, m, need, k);
        if (k == PAIR_CONTACT) {
            atomic_store_explicit(&job->contact, 1, memory_order_relaxed);
            return 1;
        }
        if (k == PAIR_PYTHON) {
            atomic_store_explicit(&job->python, 1, memory_order_relaxed);
            continue;
        }
        if (back) bwd[p] = m - k;
        else fwd[p] = m + k;
    }
    return 0;
}

/* Thread blocks [begin, end) of the edge (job->blocks of them, cut evenly),
 * each cut again into job->stretches stretches: first every stretch's last
 * configuration (a coarse pass over the whole block, as vamp's first pass
 * spreads its states over the edge, so that a colliding edge stops early),
 * then each stretch's others from its first on, every pair's proofs
 * reaching forward from what came before and back from the stretch's end. */
static void edge_blocks(void *ctx, ptrdiff_t begin, ptrdiff_t end, int worker) {
    edge_job *job = ctx;
    const MotionObject *mo = job->mo;
    motion_scratch *w = &job->scratch[worker];
    Py_ssize_t P = mo->P;
    ptrdiff_t count = job->steps + 1, S = job->stretches;
    for (ptrdiff_t b = begin; b < end; ++b) {
        ptrdiff_t first = count * b / job->blocks, last = count * (b + 1) / job->blocks - 1;
        ptrdiff_t size = last - first + 1;
        for (Py_ssize_t g = 0; g < mo->view.G; ++g) w->posed[g] = w->boxed[g] = -1;
        for (Py_ssize_t n = 0; n < mo->NG; ++n) w->grouped[n] = -1;
        for (ptrdiff_t pass = 0; pass < 2; ++pass) {
            for (ptrdiff_t r = 0; r < S; ++r) {
                ptrdiff_t lo = first + size * r / S, hi = first + size * (r + 1) / S - 1;
                ptrdiff_t *fwd = w->fwd + P * r, *bwd = w->bwd + P * r;
                ptrdiff_t *active_list = w->active + P * r;
                if (hi < lo) continue;
                if (pass == 0) {
                    for (Py_ssize_t p = 0; p < P; ++p) {
                        fwd[p] = lo - 1;
                        bwd[p] = hi + 1;
                        active_list[p] = p;
                    }
                    w->active_count[r] = P;
                }
                /* Pass 0: the stretch's last configuration; pass 1: the
                 * others in order. */
                ptrdiff_t from = pass == 0 ? hi : lo, to = pass == 0 ? hi : hi - 1;
                for (ptrdiff_t m = from; m <= to; ++m) {
                    if (atomic_load_explicit(&job->contact, memory_order_relaxed)) return;
                    if (check_state(job, w, fwd, bwd, active_list, &w->active_count[r], m,
                                    pass == 0 && hi > lo))
                        return;
                }
            }
        }
    }
}

/* The edge q1 -> q2 of `steps` steps on `threads` threads: 1 free, 0 a
 * configuration in contact, -1 left to Python, -2 out of memory. */
static int run_edge(const MotionObject *self, const double *q1, const double *q2,
                    Py_ssize_t steps, int threads) {
    Py_ssize_t P = self->P, L = self->chain.L, n = self->positions, G = self->view.G;
    Py_ssize_t F = self->F;
    ptrdiff_t count = steps + 1;
    int workers = gc_parallel_workers(threads, count, 1);
    Py_ssize_t NG = self->NG;
    /* Stretches of about GC_MOTION_STRETCH configurations a block, at most
     * GC_MOTION_STRETCHES_MAX. */
    ptrdiff_t stretches = count / workers / GC_MOTION_STRETCH;
    if (stretches < 1) stretches = 1;
    if (stretches > GC_MOTION_STRETCHES_MAX) stretches = GC_MOTION_STRETCHES_MAX;
    size_t per_worker = (size_t)(3 * stretches * P + P + 2 * G + NG) * sizeof(ptrdiff_t) +
                        (size_t)stretches * sizeof(Py_ssize_t) +
                        (size_t)(32 * F + 28 * G + n + NG + 4 * P) * sizeof(double);
    /* Every part of a worker's scratch stays 8-byte aligned. */
    per_worker = (per_worker + 7) / 8 * 8;
    size_t shared = (size_t)(n + P + L + NG) * sizeof(double) +  /* dq, per, moved, group_per */
                    (size_t)L * sizeof(Py_ssize_t);                /* the links that move */
    char *memory = malloc(shared + (size_t)workers * (per_worker + sizeof(motion_scratch)));
    if (memory == NULL) return -2;
    double *dq = (double *)memory, *per = dq + n, *moved = per + P;
    double *group_per = moved + L;
    Py_ssize_t *moving = (Py_ssize_t *)(group_per + NG), M = 0;
    for (Py_ssize_t c = 0; c < n; ++c) dq[c] = q2[c] - q1[c];
    const int *column = self->chain.column;
    for (Py_ssize_t l = 0; l < L; ++l) {
        moved[l] = column[l] >= 0 ? fabs(dq[column[l]]) : 0.0;
        if (moved[l] > 0.0) moving[M++] = l;
    }
    const double *rates = self->views[5].buf;
    for (Py_ssize_t p = 0; p < P; ++p) {
        double v = 0.0;
        for (Py_ssize_t k = 0; k < M; ++k) v += rates[p * L + moving[k]] * moved[moving[k]];
        /* steps over the pair's speed: a division per pair and edge, not
         * per configuration (inf for a speed of 0). */
        per[p] = v > 0.0 ? (double)steps / v : INFINITY;
    }
    for (Py_ssize_t g = 0; g < NG; ++g) group_per[g] = INFINITY;
    for (Py_ssize_t p = 0; p < P; ++p) {
        int g = self->group[p];
        if (g >= 0 && per[p] < group_per[g]) group_per[g] = per[p];
    }
    motion_scratch *scratch = (motion_scratch *)(memory + shared);
    char *next = (char *)(scratch + workers);
    for (int w = 0; w < workers; ++w) {
        motion_scratch *s = &scratch[w];
        s->fwd = (ptrdiff_t *)next;
        s->bwd = s->fwd + stretches * P;
        s->active = s->bwd + stretches * P;
        s->posed = s->active + stretches * P;
        s->boxed = s->posed + G;
        s->todo = s->boxed + G;
        s->grouped = s->todo + P;
        s->X_PF = (double *)(s->grouped + NG);
        s->X_WF = s->X_PF + 16 * F;
        s->X_WG = s->X_WF + 16 * F;
        s->centre = s->X_WG + 16 * G;
        s->box = s->centre + 6 * G;
        s->q = s->box + 6 * G;
        s->group_clear = s->q + n;
        s->lane = s->group_clear + NG;
        s->active_count = (Py_ssize_t *)(s->lane + 4 * P);
        memcpy(s->X_PF, self->views[0].buf, (size_t)F * 16 * sizeof(double));
        next += per_worker;
    }
    edge_job job = {.mo = self, .q1 = q1, .q2 = q2, .dq = dq, .per = per,
                    .group_per = group_per, .steps = steps,
                    .blocks = workers, .stretches = stretches, .scratch = scratch};
    atomic_init(&job.contact, 0);
    atomic_init(&job.python, 0);
    Py_BEGIN_ALLOW_THREADS
    gc_parallel_for(workers, workers, 1, edge_blocks, &job);
    Py_END_ALLOW_THREADS
    free(memory);
    return atomic_load(&job.contact) ? 0 : atomic_load(&job.python) ? -1 : 1;
}

static int check_ready(const MotionObject *self) {
    if (self->model != NULL) return 0;
    PyErr_SetString(PyExc_ValueError, "Motion was not initialised");
    return -1;
}

/* edge(q1, q2, steps, threads) -> 1 when no configuration of the edge has a
 * pair in contact, 0 when one has, -1 when a configuration not found in
 * contact has a pair the kernels leave to Python (the caller answers the
 * edge there). */
static PyObject *motion_edge(MotionObject *self, PyObject *args) {
    PyObject *q1_o, *q2_o;
    Py_ssize_t steps;
    int threads;
    if (!PyArg_ParseTuple(args, "OOni", &q1_o, &q2_o, &steps, &threads)) return NULL;
    if (check_ready(self) < 0) return NULL;
    if (steps < 1 || threads < 1) {
        PyErr_Format(PyExc_ValueError, "steps and threads must be at least 1, got %zd and %d",
                     steps, threads);
        return NULL;
    }
    Py_buffer v1, v2;
    if (gc_get_buffer(q1_o, &v1, 'd', self->positions, "q1") < 0) return NULL;
    if (gc_get_buffer(q2_o, &v2, 'd', self->positions, "q2") < 0) {
        PyBuffer_Release(&v1);
        return NULL;
    }
    int answer = run_edge(self, v1.buf, v2.buf, steps, threads);
    PyBuffer_Release(&v1);
    PyBuffer_Release(&v2);
    if (answer == -2) return PyErr_NoMemory();
    return PyLong_FromLong(answer);
}

/* A C-contiguous float64 buffer of n values whose every value is finite and
 * within [lowest, highest], into *view; 0 (nothing held, no error) for
 * anything else. */
static int accepted(const MotionObject *self, PyObject *obj, Py_buffer *view) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = view->format;
    int ok = view->ndim == 1 && view->len == self->positions * 8 && view->itemsize == 8 &&
             f != NULL &&
             (strcmp(f, "d") == 0 || strcmp(f, "<d") == 0 || strcmp(f, "=d") == 0);
    const double *q = view->buf, *lo = self->views[6].buf, *hi = self->views[7].buf;
    for (Py_ssize_t c = 0; ok && c < self->positions; ++c)
        ok = isfinite(q[c]) && lo[c] <= q[c] && q[c] <= hi[c];
    if (!ok) PyBuffer_Release(view);
    return ok;
}

/* between(q1, q2, step, threads) -> (edge's answer, steps), the steps those
 * of at most `step` (Euclidean in q: the sum of squares in order, then its
 * square root), or None when q1 or q2 is not a float64 array of accepted
 * positions (the caller checks them and says which is wrong). */
static PyObject *motion_between(MotionObject *self, PyObject *args) {
    PyObject *q1_o, *q2_o;
    double step;
    int threads;
    if (!PyArg_ParseTuple(args, "OOdi", &q1_o, &q2_o, &step, &threads)) return NULL;
    if (check_ready(self) < 0) return NULL;
    if (!(step > 0.0) || threads < 1) {
        PyErr_Format(PyExc_ValueError, "step must be positive and threads at least 1, got %g "
                                       "and %d", step, threads);
        return NULL;
    }
    Py_buffer v1, v2;
    if (!accepted(self, q1_o, &v1)) Py_RETURN_NONE;
    if (!accepted(self, q2_o, &v2)) {
        PyBuffer_Release(&v1);
        Py_RETURN_NONE;
    }
    const double *q1 = v1.buf, *q2 = v2.buf;
    double squares = 0.0;
    for (Py_ssize_t c = 0; c < self->positions; ++c) {
        double d = q2[c] - q1[c];
        squares += d * d;
    }
    double length = ceil(sqrt(squares) / step);
    int answer = -3;
    Py_ssize_t steps = length > 1.0 ? (Py_ssize_t)length : 1;
    if (length < 1e15) answer = run_edge(self, q1, q2, steps, threads);
    PyBuffer_Release(&v1);
    PyBuffer_Release(&v2);
    if (answer == -2) return PyErr_NoMemory();
    if (answer == -3) Py_RETURN_NONE;
    return Py_BuildValue("(in)", answer, steps);
}

static PyObject *motion_pair_count(MotionObject *self, void *closure) {
    return PyLong_FromSsize_t(self->P);
}

static PyMethodDef motion_methods[] = {
    {"edge", (PyCFunction)motion_edge, METH_VARARGS,
     "edge(q1 (n,) float64, q2 (n,) float64, steps, threads) -> 1 when no configuration\n"
     "q1 + (m / steps) (q2 - q1), m = 0..steps (q2 itself for m = steps), has a pair in\n"
     "contact, 0 when one has, -1 when one not found in contact has a pair left to Python"},
    {"between", (PyCFunction)motion_between, METH_VARARGS,
     "between(q1, q2, step, threads) -> (edge's answer, steps): edge() with the steps of at\n"
     "most step (the norm summed in order), or None when q1 or q2 is not a float64 array of\n"
     "finite positions within lowest and highest"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef motion_getset[] = {
    {"pair_count", (getter)motion_pair_count, NULL, "number of pairs checked", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject MotionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geometry_core._native.Motion",
    .tp_basicsize = sizeof(MotionObject),
    .tp_dealloc = (destructor)motion_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Motion(model, chain, X_PF, link_slot, parent_slot, pairs (P,2) int32, padding\n"
              "(P,), rates (P,L), positions, padded, margin, report_max): the discrete edge\n"
              "check of a chain posed in a Model, pair by pair with motion bounds.",
    .tp_methods = motion_methods,
    .tp_getset = motion_getset,
    .tp_init = (initproc)motion_init,
    .tp_new = PyType_GenericNew,
};

int gc_motion_register(PyObject *module) {
    if (PyType_Ready(&MotionType) < 0) return -1;
    Py_INCREF(&MotionType);
    if (PyModule_AddObject(module, "Motion", (PyObject *)&MotionType) < 0) {
        Py_DECREF(&MotionType);
        return -1;
    }
    return 0;
}
