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

#endif
