/* Buffers and arguments from Python (buffers.c), for module.c and the
 * Model, Cloud and kinematics types. */
#ifndef GEOMETRY_CORE_GC_BUFFERS_H
#define GEOMETRY_CORE_GC_BUFFERS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gc.h"

/* A C-contiguous buffer of format 'd' (float64), 'i' (int32) or 'q'
 * (int64) of count values (any when count < 0) into *view; -1 with a
 * TypeError or ValueError naming `name`. */
int gc_get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t count,
                  const char *name);
/* Buffers a parsed hull holds: vertices, triangles, normals, offsets and,
 * when given, the adjacency's offsets and indices (views[4..5] zeroed when
 * not, so releasing all GC_HULL_VIEWS is safe: PyBuffer_Release of an empty
 * view is a no-op). */
#define GC_HULL_VIEWS 6
int gc_parse_hull(PyObject *hull, gc_shape *shape, Py_buffer views[GC_HULL_VIEWS]);

/* A shape spec from Python: (kind, (s0, s1, s2), hull) with hull None or
 * (vertices f8 (nv,3), triangles i4 (nt,3), normals f8 (nt,3), offsets f8 (nt,), size
 * [, adjacency offsets i4 (nv+1,), adjacency i4 (offsets[nv],)]). */
typedef struct {
    gc_shape shape;
    Py_buffer views[GC_HULL_VIEWS];
    int nviews;
} gc_spec;
void gc_spec_release(gc_spec *h);
/* -1 with a Python error, nothing held. */
int gc_parse_spec(PyObject *spec, gc_spec *h);
/* count float64 values of a buffer into out; -1 with a Python error. */
int gc_parse_vec(PyObject *obj, double *out, Py_ssize_t count, const char *name);
/* Both shapes and poses of a pair call; on failure nothing is held. */
int gc_parse_pair(PyObject *spec_a, PyObject *xa, PyObject *spec_b, PyObject *xb,
                  gc_spec *ha, gc_spec *hb, double X_WA[16], double X_WB[16]);

#endif
