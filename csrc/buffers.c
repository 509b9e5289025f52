/* Buffers and arguments from Python for every kernel file: C-contiguous
 * arrays checked for dtype and length (gc_get_buffer), shape specs with
 * their hulls (gc_parse_spec, gc_parse_hull), fixed-size vectors and the
 * two shapes and poses of a pair call. The contract is gc_buffers.h; the
 * Python face (module.c) and the Model, Cloud and kinematics types use it,
 * and it uses none of them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "gc_buffers.h"

int gc_get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t count,
                  const char *name) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous array", name);
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    /* numpy names int64 'l' where long is 64 bits, 'q' elsewhere. */
    int ok = (f[0] == format || (format == 'q' && f[0] == 'l')) && f[1] == '\0';
    if (format == 'd') ok = ok && view->itemsize == 8;
    if (format == 'i') ok = ok && view->itemsize == 4;
    if (format == 'q') ok = ok && view->itemsize == 8;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s must have dtype %s, got format '%s'", name,
                     format == 'd' ? "float64" : (format == 'i' ? "int32" : "int64"), f);
        PyBuffer_Release(view);
        return -1;
    }
    Py_ssize_t n = view->len / view->itemsize;
    if (count >= 0 && n != count) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd values, got %zd", name, count, n);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}


void gc_spec_release(gc_spec *h) {
    for (int k = 0; k < h->nviews; ++k) PyBuffer_Release(&h->views[k]);
    h->nviews = 0;
}

int gc_parse_hull(PyObject *hull, gc_shape *shape, Py_buffer views[GC_HULL_VIEWS]) {
    PyObject *v, *t, *n, *d, *as = NULL, *aj = NULL;
    double size;
    if (!PyArg_ParseTuple(hull, "OOOOd|OO", &v, &t, &n, &d, &size, &as, &aj)) return -1;
    if ((as == NULL) != (aj == NULL)) {
        PyErr_SetString(PyExc_ValueError, "hull adjacency needs both its offsets and its indices");
        return -1;
    }
    if (gc_get_buffer(v, &views[0], 'd', -1, "hull vertices") < 0) return -1;
    if (gc_get_buffer(t, &views[1], 'i', -1, "hull triangles") < 0) goto fail1;
    Py_ssize_t nv = views[0].len / 24, nt = views[1].len / 12;
    if (gc_get_buffer(n, &views[2], 'd', nt * 3, "hull normals") < 0) goto fail2;
    if (gc_get_buffer(d, &views[3], 'd', nt, "hull offsets") < 0) goto fail3;
    shape->nv = (int)nv;
    shape->v = (const double *)views[0].buf;
    shape->nt = (int)nt;
    shape->tri = (const int *)views[1].buf;
    shape->tri_n = (const double *)views[2].buf;
    shape->tri_d = (const double *)views[3].buf;
    shape->size = size;
    shape->bound = gc_hull_bound(shape);
    gc_hull_starts(shape);
    shape->adj_start = NULL;
    shape->adj = NULL;
    if (as != NULL) {
        if (gc_get_buffer(as, &views[4], 'i', nv + 1, "hull adjacency offsets") < 0) goto fail4;
        const int *start = (const int *)views[4].buf;
        if (gc_get_buffer(aj, &views[5], 'i', -1, "hull adjacency") < 0) goto fail5;
        /* Validated once here: the walk indexes with them unchecked. */
        Py_ssize_t na = views[5].len / 4;
        int ok = start[0] == 0 && start[nv] == na;
        for (Py_ssize_t i = 0; ok && i < nv; ++i) ok = start[i] <= start[i + 1];
        const int *nb = (const int *)views[5].buf;
        for (Py_ssize_t k = 0; ok && k < na; ++k) ok = nb[k] >= 0 && nb[k] < nv;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError,
                            "hull adjacency is not CSR over the hull's vertices");
            PyBuffer_Release(&views[5]);
            goto fail5;
        }
        shape->adj_start = start;
        shape->adj = nb;
    } else {
        /* Unused views stay empty so that releasing all of them is safe. */
        memset(&views[4], 0, 2 * sizeof(Py_buffer));
    }
    return 0;
fail5:
    PyBuffer_Release(&views[4]);
fail4:
    PyBuffer_Release(&views[3]);
fail3:
    PyBuffer_Release(&views[2]);
fail2:
    PyBuffer_Release(&views[1]);
fail1:
    PyBuffer_Release(&views[0]);
    return -1;
}

int gc_parse_spec(PyObject *spec, gc_spec *h) {
    int kind;
    double s0, s1, s2;
    PyObject *hull;
    memset(h, 0, sizeof(*h));
    if (!PyArg_ParseTuple(spec, "i(ddd)O", &kind, &s0, &s1, &s2, &hull)) return -1;
    if (kind < GC_SPHERE || kind > GC_MESH) {
        PyErr_Format(PyExc_ValueError, "unknown shape kind %d", kind);
        return -1;
    }
    h->shape.kind = kind;
    h->shape.s[0] = s0;
    h->shape.s[1] = s1;
    h->shape.s[2] = s2;
    if (kind == GC_CONVEX) {
        if (hull == Py_None) {
            PyErr_SetString(PyExc_ValueError, "a convex shape needs its hull");
            return -1;
        }
        if (gc_parse_hull(hull, &h->shape, h->views) < 0) return -1;
        h->nviews = h->shape.adj_start != NULL ? GC_HULL_VIEWS : 4;
    }
    return 0;
}

int gc_parse_vec(PyObject *obj, double *out, Py_ssize_t count, const char *name) {
    Py_buffer view;
    if (gc_get_buffer(obj, &view, 'd', count, name) < 0) return -1;
    memcpy(out, view.buf, (size_t)count * sizeof(double));
    PyBuffer_Release(&view);
    return 0;
}

/* Both shapes and poses of a pair call; on failure nothing is held. */
int gc_parse_pair(PyObject *spec_a, PyObject *xa, PyObject *spec_b, PyObject *xb,
                      gc_spec *ha, gc_spec *hb, double X_WA[16], double X_WB[16]) {
    if (gc_parse_spec(spec_a, ha) < 0) return -1;
    if (gc_parse_spec(spec_b, hb) < 0) {
        gc_spec_release(ha);
        return -1;
    }
    if (gc_parse_vec(xa, X_WA, 16, "X_WA") < 0 || gc_parse_vec(xb, X_WB, 16, "X_WB") < 0) {
        gc_spec_release(ha);
        gc_spec_release(hb);
        return -1;
    }
    return 0;
}

