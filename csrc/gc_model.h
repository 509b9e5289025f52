/* The Model type of geometry_core._native (model.c). */
#ifndef GEOMETRY_CORE_GC_MODEL_H
#define GEOMETRY_CORE_GC_MODEL_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gc.h"

int gc_model_register(PyObject *module);

/* What another kernel (cloud.c) reads of a Model: its shapes, local boxes
 * (G, 6), frame slots and poses in their frames (G, 16). Borrowed: valid
 * while the Model lives, and a Model never changes. */
typedef struct {
    Py_ssize_t G;
    const gc_shape *shapes;
    const double *box_G;
    const int *frame_slot;
    int max_slot;
    const double *X_FG;
    const double *outer;    /* (G, 4): a sphere around each geometry, centre in G and
                               radius (inf when it has none: half spaces) */
} gc_model_view;
/* Fill *view from a Model; TypeError (-1) for anything else. */
int gc_model_get_view(PyObject *model, gc_model_view *view);
int gc_cloud_register(PyObject *module);
/* Whether `object` is a Cloud (cloud.c). */
int gc_cloud_check(PyObject *object);
/* The yes/no query of a Cloud for a compiled loop (no GIL, no allocation):
 * 1 when some point lies within `threshold` of the geometry (shape, local
 * box box_G, pose X_WG, a world box holding it: center, half widths), 0
 * when none does, -1 when the point kernel handles no such shape (the
 * caller asks Python, which raises). */
int gc_cloud_any_near(PyObject *cloud, const gc_shape *shape, const double *box_G,
                      const double *X_WG, const double center[3], const double half[3],
                      double threshold);
int gc_motion_register(PyObject *module);

/* One pair of a Model (model must be one: the caller checked it) posed at
 * X_WG (G, 16), as the batch loops decide it (motion.c decides an edge's
 * configurations pair by pair with these):
 * - gc_model_pair_contact: 1 when the configuration's answer counts the
 *   unfiltered pair i < j in contact, 0 when not, -1 when the loop would
 *   leave it to Python. Unpadded (padded 0): any_contact's loop
 *   (margin and report_max 0: the candidate boxes and prefilter, inner
 *   spheres, gc_pair_verdict). Padded: chain_pairs(margin, report_max)'s
 *   record of the pair, in contact where its distance less padding <= 0.
 * - gc_model_pair_candidate: 0 when the broadphase and prefilter of
 *   candidates(margin) prove the pair farther apart than margin, else 1.
 * - gc_model_world_box: geometry g's world box (centre, half widths; inf for
 *   a half space) posed at X_WG (its row), as the broadphase makes it.
 * - gc_model_outer_gap: a lower bound of the pair's distance (-inf when a
 *   shape has no outer sphere).
 * - gc_model_inner_overlap: 1 when the pair's inner spheres overlap (so do
 *   the shapes), their overlap's depth (at most the pair's) into *depth.
 * - gc_model_is_filtered: 1 when a filter removes the pair (i < j). */
int gc_model_pair_contact(PyObject *model, const double *X_WG, int i, int j, int padded,
                          double margin, double report_max, double padding);
void gc_model_world_box(PyObject *model, int g, const double X_WG[16], double centre[3],
                        double half[3]);
int gc_model_pair_candidate(PyObject *model, const double *X_WG, int i, int j, double margin);
double gc_model_outer_gap(PyObject *model, const double *X_WG, int i, int j);
int gc_model_inner_overlap(PyObject *model, const double *X_WG, int i, int j, double *depth);
int gc_model_is_filtered(PyObject *model, int i, int j);

#endif
