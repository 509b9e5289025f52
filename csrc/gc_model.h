/* The Model type of geometry_core._native (model.c). */
#ifndef GEOMETRY_CORE_GC_MODEL_H
#define GEOMETRY_CORE_GC_MODEL_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gc.h"

int gc_model_register(PyObject *module);
int gc_get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t count,
                  const char *name);
/* Buffers a parsed hull holds: vertices, triangles, normals, offsets and,
 * when given, the adjacency's offsets and indices (views[4..5] zeroed when
 * not, so releasing all GC_HULL_VIEWS is safe: PyBuffer_Release of an empty
 * view is a no-op). */
#define GC_HULL_VIEWS 6
int gc_parse_hull(PyObject *hull, gc_shape *shape, Py_buffer views[GC_HULL_VIEWS]);

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

#endif
