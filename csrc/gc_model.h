/* The Model type of geometry_core._native (model.c). */
#ifndef GEOMETRY_CORE_GC_MODEL_H
#define GEOMETRY_CORE_GC_MODEL_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gc.h"

int gc_model_register(PyObject *module);
int gc_get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t count,
                  const char *name);
int gc_parse_hull(PyObject *hull, gc_shape *shape, Py_buffer views[4]);

#endif
