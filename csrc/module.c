/* The Python face of the native kernels: geometry_core._native.
 *
 * Uses only the CPython API and the buffer protocol (no numpy headers, so the
 * extension builds with nothing but gcc and Python's headers). Arrays come in
 * as C-contiguous buffers of float64 ('d') or int32 ('i'); batch answers go
 * out as bytes objects that geometry_core/proximity/specs.py views with
 * numpy.frombuffer and a structured dtype that matches the C records.
 *
 * Single-pair and single-point entry points (pair, point, support_value,
 * ascent_gap) serve the tests, tools and mesh triangles (fcl_adapter); the
 * queries use Model (model.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "gc.h"
#include "gc_buffers.h"
#include "gc_model.h"
#include "gc_tolerances.h"

static PyObject *vec3(const double v[3]) {
    return Py_BuildValue("(ddd)", v[0], v[1], v[2]);
}

/* ------------------------------------------------------------ test entry points */

/* One pair through the kernel named (see the method table); 0 with *status
 * set, -1 with a Python error. */
static int run_kernel(const char *kernel, PyObject *seed, const gc_shape *A,
                      const double X_WA[16], const gc_shape *B, const double X_WB[16],
                      gc_pair_result *r, int *status) {
    if (strcmp(kernel, "auto") == 0) {
        *status = gc_pair(A, X_WA, B, X_WB, r);
    } else if (strcmp(kernel, "exact") == 0) {
        *status = gc_exact_pair(A, X_WA, B, X_WB, r);
    } else if (strcmp(kernel, "convex") == 0) {
        *status = gc_convex_pair(A, X_WA, B, X_WB, r);
    } else if (strcmp(kernel, "search") == 0) {
        double n0[3] = {0.0, 0.0, 0.0};
        if (seed != NULL && seed != Py_None && gc_parse_vec(seed, n0, 3, "seed") < 0) return -1;
        *status = gc_direction_search(A, X_WA, B, X_WB, n0, r);
    } else if (strcmp(kernel, "halfspace") == 0) {
        if (A->kind != GC_HALFSPACE) {
            PyErr_SetString(PyExc_ValueError, "kernel 'halfspace' needs A to be a half space");
            return -1;
        }
        *status = gc_halfspace_pair(X_WA, B, X_WB, r);
    } else {
        PyErr_Format(PyExc_ValueError, "unknown kernel %s", kernel);
        return -1;
    }
    return 0;
}

static PyObject *py_pair(PyObject *self, PyObject *args) {
    PyObject *spec_a, *spec_b, *xa, *xb, *seed = NULL;
    const char *kernel = "auto";
    if (!PyArg_ParseTuple(args, "OOOO|sO", &spec_a, &xa, &spec_b, &xb, &kernel, &seed))
        return NULL;
    gc_spec ha, hb;
    double X_WA[16], X_WB[16];
    if (gc_parse_pair(spec_a, xa, spec_b, xb, &ha, &hb, X_WA, X_WB) < 0) return NULL;
    gc_pair_result r;
    memset(&r, 0, sizeof(r));
    int status;
    PyObject *result = NULL;
    if (run_kernel(kernel, seed, &ha.shape, X_WA, &hb.shape, X_WB, &r, &status) == 0)
        result = Py_BuildValue("(idNNNO)", status, r.distance, vec3(r.p_WCa), vec3(r.p_WCb),
                               vec3(r.nhat_BA_W), r.unique ? Py_True : Py_False);
    gc_spec_release(&ha);
    gc_spec_release(&hb);
    return result;
}

/* How far an answer's normal is from a local maximum of g (gc_ascent_gap). */
static PyObject *py_ascent_gap(PyObject *self, PyObject *args) {
    PyObject *spec_a, *spec_b, *xa, *xb, *n;
    double distance;
    if (!PyArg_ParseTuple(args, "OOOOdO", &spec_a, &xa, &spec_b, &xb, &distance, &n))
        return NULL;
    gc_spec ha, hb;
    double X_WA[16], X_WB[16];
    if (gc_parse_pair(spec_a, xa, spec_b, xb, &ha, &hb, X_WA, X_WB) < 0) return NULL;
    PyObject *result = NULL;
    gc_pair_result r;
    memset(&r, 0, sizeof(r));
    r.distance = distance;
    if (gc_parse_vec(n, r.nhat_BA_W, 3, "nhat_BA_W") == 0)
        result = PyFloat_FromDouble(gc_ascent_gap(&ha.shape, X_WA, &hb.shape, X_WB, &r));
    gc_spec_release(&ha);
    gc_spec_release(&hb);
    return result;
}

static PyObject *py_point(PyObject *self, PyObject *args) {
    PyObject *spec, *x, *q;
    if (!PyArg_ParseTuple(args, "OOO", &spec, &x, &q)) return NULL;
    gc_spec h;
    double X_WG[16], p_WQ[3];
    if (gc_parse_spec(spec, &h) < 0) return NULL;
    PyObject *result = NULL;
    if (gc_parse_vec(x, X_WG, 16, "X_WG") < 0 || gc_parse_vec(q, p_WQ, 3, "p_WQ") < 0) goto done;
    gc_point_result r;
    memset(&r, 0, sizeof(r));
    int status = gc_point_distance(&h.shape, X_WG, p_WQ, &r);
    result = Py_BuildValue("(idNNO)", status, r.distance, vec3(r.p_GN), vec3(r.grad),
                           r.unique ? Py_True : Py_False);
done:
    gc_spec_release(&h);
    return result;
}

static PyObject *py_support_value(PyObject *self, PyObject *args) {
    PyObject *spec, *x, *d;
    if (!PyArg_ParseTuple(args, "OOO", &spec, &x, &d)) return NULL;
    gc_spec h;
    double X_WG[16], d_W[3];
    if (gc_parse_spec(spec, &h) < 0) return NULL;
    PyObject *result = NULL;
    if (gc_parse_vec(x, X_WG, 16, "X_WG") < 0 || gc_parse_vec(d, d_W, 3, "d_W") < 0) goto done;
    result = PyFloat_FromDouble(gc_support_value_W(&h.shape, X_WG, d_W));
done:
    gc_spec_release(&h);
    return result;
}

/* The support vertex of a hull for each row of d_G, by the kernels' walk
 * (each row's walk starting at the previous row's answer, as a pair query's
 * successive support calls do; the first row's at start) or by the scan of every vertex: the tests
 * compare the two. */
static PyObject *py_hull_support(PyObject *self, PyObject *args) {
    PyObject *spec, *d;
    int walk, at = 0;
    if (!PyArg_ParseTuple(args, "OOp|i", &spec, &d, &walk, &at)) return NULL;
    gc_spec h;
    if (gc_parse_spec(spec, &h) < 0) return NULL;
    PyObject *result = NULL;
    Py_buffer view;
    if (h.shape.kind != GC_CONVEX || h.shape.nv < 1) {
        PyErr_SetString(PyExc_ValueError, "hull_support needs a convex shape with vertices");
        goto done;
    }
    if (gc_get_buffer(d, &view, 'd', -1, "d_G") < 0) goto done;
    Py_ssize_t n = view.len / 24;
    const double *rows = (const double *)view.buf;
    result = PyList_New(n);
    for (Py_ssize_t i = 0; result != NULL && i < n; ++i) {
        at = walk ? gc_hull_support_index(&h.shape, rows + 3 * i, at)
                  : gc_hull_support_scan(&h.shape, rows + 3 * i);
        PyObject *item = PyLong_FromLong(at);
        if (item == NULL) Py_CLEAR(result);
        else PyList_SET_ITEM(result, i, item);
    }
    PyBuffer_Release(&view);
done:
    gc_spec_release(&h);
    return result;
}

/* X_WF of every frame slot from X_PF and the parent slots, parents first
 * (GeometryState.compute_world_poses): slot 0 is the world, a frame whose
 * parent is the world keeps X_PF. */
static PyObject *py_compose_world(PyObject *self, PyObject *args) {
    PyObject *xpf_o, *parent_o, *out_o = NULL;
    if (!PyArg_ParseTuple(args, "OO|O", &xpf_o, &parent_o, &out_o)) return NULL;
    Py_buffer xpf, parent, out_view;
    if (gc_get_buffer(parent_o, &parent, 'i', -1, "parent_slot") < 0) return NULL;
    Py_ssize_t F = parent.len / 4;
    if (gc_get_buffer(xpf_o, &xpf, 'd', -1, "X_PF") < 0) {
        PyBuffer_Release(&parent);
        return NULL;
    }
    PyObject *result = NULL;
    double *X_WF = NULL;
    const int *p = parent.buf;
    /* K stacks of F poses, one after the other (K configurations). */
    Py_ssize_t values = xpf.len / 8, K = F > 0 ? values / (16 * F) : 0;
    if (F == 0 || values != K * 16 * F || K == 0) {
        PyErr_Format(PyExc_ValueError, "X_PF must hold K x %zd poses, got %zd values", F, values);
        goto done;
    }
    for (Py_ssize_t s = 1; s < F; ++s) {
        if (p[s] < 0 || p[s] >= s) {
            PyErr_Format(PyExc_ValueError, "parent_slot[%zd] = %d does not come before it", s,
                         p[s]);
            goto done;
        }
    }
    if (out_o != NULL) {
        if (PyObject_GetBuffer(out_o, &out_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto done;
        if (out_view.len != xpf.len || out_view.buf == xpf.buf) {
            PyErr_Format(PyExc_ValueError, "out must hold %zd float64 values, apart from X_PF",
                         values);
            PyBuffer_Release(&out_view);
            goto done;
        }
        X_WF = out_view.buf;
    } else {
        result = PyBytes_FromStringAndSize(NULL, xpf.len);
        if (result == NULL) goto done;
        X_WF = (double *)PyBytes_AS_STRING(result);
    }
    memcpy(X_WF, xpf.buf, (size_t)xpf.len);
    for (Py_ssize_t k = 0; k < K; ++k) {
        const double *X_PF = (const double *)xpf.buf + 16 * F * k;
        double *W = X_WF + 16 * F * k;
        for (Py_ssize_t s = 1; s < F; ++s)
            if (p[s] != 0) gc_compose(W + 16 * p[s], X_PF + 16 * s, W + 16 * s);
    }
    if (out_o != NULL) {
        PyBuffer_Release(&out_view);
        result = Py_NewRef(Py_None);
    }
done:
    PyBuffer_Release(&parent);
    PyBuffer_Release(&xpf);
    return result;
}

/* True when every (4, 4) pose is finite, has the last row [0 0 0 1] exactly,
 * and a rotation block with max |R R^T - I| <= tolerance and det R > 0: the
 * accepting half of math.kernels.validate_matrix4s. False sends the caller to
 * the Python validator, which names the first bad pose and what is wrong. */
int gc_pose_valid(const double X[16], double tolerance) {
    for (int c = 0; c < 12; ++c)
        if (!isfinite(X[c])) return 0;
    if (!(X[12] == 0.0 && X[13] == 0.0 && X[14] == 0.0 && X[15] == 1.0)) return 0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double e = X[4 * r] * X[4 * c] + X[4 * r + 1] * X[4 * c + 1] +
                       X[4 * r + 2] * X[4 * c + 2] - (r == c ? 1.0 : 0.0);
            if (!(fabs(e) <= tolerance)) return 0;
        }
    double det = X[0] * (X[5] * X[10] - X[6] * X[9]) - X[1] * (X[4] * X[10] - X[6] * X[8]) +
                 X[2] * (X[4] * X[9] - X[5] * X[8]);
    return det > 0.0;
}

static PyObject *py_poses_valid(PyObject *self, PyObject *args) {
    PyObject *x_o;
    double tolerance;
    if (!PyArg_ParseTuple(args, "Od", &x_o, &tolerance)) return NULL;
    Py_buffer view;
    if (gc_get_buffer(x_o, &view, 'd', -1, "X") < 0) return NULL;
    Py_ssize_t n = view.len / (16 * 8);
    int ok = view.len == n * 16 * 8;
    const double *X = view.buf;
    for (Py_ssize_t k = 0; ok && k < n; ++k, X += 16) ok = gc_pose_valid(X, tolerance);
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}

/* out[slots[k]] = matrices[k] for (4, 4) float64 arrays: the pose table
 * update of GeometryState.set_poses, without numpy converting a list. */
static PyObject *py_copy_poses(PyObject *self, PyObject *args) {
    PyObject *out_o, *slots_o, *mats_o;
    if (!PyArg_ParseTuple(args, "OO!O!", &out_o, &PyList_Type, &slots_o, &PyList_Type, &mats_o))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(slots_o);
    if (PyList_GET_SIZE(mats_o) != n) {
        PyErr_SetString(PyExc_ValueError, "slots and matrices differ in length");
        return NULL;
    }
    Py_buffer out;
    if (PyObject_GetBuffer(out_o, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return NULL;
    Py_ssize_t rows = out.len / (16 * 8);
    double *table = out.buf;
    int failed = 0;
    for (Py_ssize_t k = 0; k < n && !failed; ++k) {
        Py_ssize_t slot = PyLong_AsSsize_t(PyList_GET_ITEM(slots_o, k));
        if (slot == -1 && PyErr_Occurred()) {
            failed = 1;
            break;
        }
        if (slot < 0 || slot >= rows) {
            PyErr_Format(PyExc_IndexError, "slot %zd outside the pose table", slot);
            failed = 1;
            break;
        }
        Py_buffer m;
        if (gc_get_buffer(PyList_GET_ITEM(mats_o, k), &m, 'd', 16, "pose") < 0) {
            failed = 1;
            break;
        }
        memcpy(table + 16 * slot, m.buf, 16 * sizeof(double));
        PyBuffer_Release(&m);
    }
    PyBuffer_Release(&out);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

/* set_pose_rows(table (F,4,4) float64, posed (F,) bool, slots int64 (N,),
 * X (N,4,4) float64): table[slots[k]] = X[k] and posed[slots[k]] = True, the
 * vectorised pose setter's write after its batch validation. */
static PyObject *py_set_pose_rows(PyObject *self, PyObject *args) {
    PyObject *table_o, *posed_o, *slots_o, *x_o;
    if (!PyArg_ParseTuple(args, "OOOO", &table_o, &posed_o, &slots_o, &x_o)) return NULL;
    Py_buffer table, posed, slots, x;
    if (PyObject_GetBuffer(table_o, &table, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(posed_o, &posed, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&table);
        return NULL;
    }
    if (gc_get_buffer(slots_o, &slots, 'q', -1, "slots") < 0) {
        PyBuffer_Release(&posed);
        PyBuffer_Release(&table);
        return NULL;
    }
    Py_ssize_t n = slots.len / 8;
    if (gc_get_buffer(x_o, &x, 'd', 16 * n, "X") < 0) {
        PyBuffer_Release(&slots);
        PyBuffer_Release(&posed);
        PyBuffer_Release(&table);
        return NULL;
    }
    Py_ssize_t rows = table.len / (16 * (Py_ssize_t)sizeof(double));
    const long long *slot = slots.buf;
    int ok = posed.len >= rows;
    for (Py_ssize_t k = 0; k < n && ok; ++k) ok = slot[k] >= 0 && slot[k] < rows;
    if (ok) {
        for (Py_ssize_t k = 0; k < n; ++k) {
            memcpy((double *)table.buf + 16 * slot[k], (const double *)x.buf + 16 * k,
                   16 * sizeof(double));
            ((char *)posed.buf)[slot[k]] = 1;
        }
    } else {
        PyErr_SetString(PyExc_IndexError, "set_pose_rows: a slot outside the pose table");
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&slots);
    PyBuffer_Release(&posed);
    PyBuffer_Release(&table);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* set_pose_items(table (F,4,4) float64, posed (F,) bool, poses dict,
 * slot_of dict, transform_type) -> number of rows set, or None.
 *
 * GeometryState.set_poses in one call: for every (frame_id, X_PF) of poses,
 * slot_of[frame_id] is the row and X_PF, an instance of exactly
 * transform_type, gives its matrix X_PF._X (valid by construction: a
 * RigidTransform's own), copied into the row, which is then marked posed.
 * All or nothing: when a key is missing from slot_of or a value is not a
 * transform_type whose _X is a float64 (4, 4), nothing changes and the
 * answer is None, so the caller's Python loop raises the error that names
 * the culprit. */
static PyObject *py_set_pose_items(PyObject *self, PyObject *args) {
    PyObject *table_o, *posed_o, *poses, *slot_of, *type;
    if (!PyArg_ParseTuple(args, "OOO!O!O!", &table_o, &posed_o, &PyDict_Type, &poses,
                          &PyDict_Type, &slot_of, &PyType_Type, &type))
        return NULL;
    static PyObject *name_X = NULL;
    if (name_X == NULL && (name_X = PyUnicode_InternFromString("_X")) == NULL) return NULL;
    Py_ssize_t n = PyDict_GET_SIZE(poses);
    Py_buffer table, posed;
    if (PyObject_GetBuffer(table_o, &table, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(posed_o, &posed, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&table);
        return NULL;
    }
    Py_ssize_t rows = table.len / (16 * (Py_ssize_t)sizeof(double));
    Py_ssize_t *slots = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n > 0 ? n : 1));
    Py_buffer *views = PyMem_Malloc(sizeof(Py_buffer) * (size_t)(n > 0 ? n : 1));
    if (slots == NULL || views == NULL) {
        PyMem_Free(slots);
        PyMem_Free(views);
        PyBuffer_Release(&posed);
        PyBuffer_Release(&table);
        return PyErr_NoMemory();
    }
    Py_ssize_t held = 0, pos = 0;
    PyObject *key, *value, *result;
    int usable = posed.len >= rows;
    /* First every lookup and check, then the copies: a refusal changes nothing. */
    while (usable && PyDict_Next(poses, &pos, &key, &value)) {
        PyObject *slot_o = PyDict_GetItemWithError(slot_of, key);
        if (slot_o == NULL || Py_TYPE(value) != (PyTypeObject *)type) {
            usable = 0;
            break;
        }
        Py_ssize_t slot = PyLong_AsSsize_t(slot_o);
        PyObject *X = PyObject_GetAttr(value, name_X);
        if (X == NULL || slot < 0 || slot >= rows ||
            gc_get_buffer(X, &views[held], 'd', 16, "pose") < 0) {
            Py_XDECREF(X);
            usable = 0;
            break;
        }
        Py_DECREF(X); /* the view holds the array */
        slots[held++] = slot;
    }
    if (PyErr_Occurred()) {
        /* An error inside a lookup (a key whose __hash__ or __eq__ raised, ...)
         * is the Python loop's to report as well. */
        PyErr_Clear();
        usable = 0;
    }
    if (usable && held == n) {
        double *rows_out = table.buf;
        char *flags = posed.buf;
        for (Py_ssize_t k = 0; k < held; ++k) {
            memcpy(rows_out + 16 * slots[k], views[k].buf, 16 * sizeof(double));
            flags[slots[k]] = 1;
        }
        result = PyLong_FromSsize_t(held);
    } else {
        result = Py_NewRef(Py_None);
    }
    for (Py_ssize_t k = 0; k < held; ++k) PyBuffer_Release(&views[k]);
    PyMem_Free(slots);
    PyMem_Free(views);
    PyBuffer_Release(&posed);
    PyBuffer_Release(&table);
    return result;
}

/* [cls(**dict(zip(names, row))) for row in zip(*columns)], without running
 * cls.__init__: each object gets a fresh __dict__ holding the fields. For the
 * frozen result dataclasses, whose values the query loops have already
 * computed and checked; a tenth of the cost of calling the constructor. */
static PyObject *py_build_records(PyObject *self, PyObject *args) {
    PyTypeObject *cls;
    PyObject *names, *columns;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &cls, &PyTuple_Type, &names,
                          &PyTuple_Type, &columns))
        return NULL;
    Py_ssize_t fields = PyTuple_GET_SIZE(names);
    if (PyTuple_GET_SIZE(columns) != fields || fields == 0) {
        PyErr_SetString(PyExc_ValueError, "one column per field name, at least one");
        return NULL;
    }
    Py_ssize_t count = -1;
    for (Py_ssize_t f = 0; f < fields; ++f) {
        PyObject *column = PyTuple_GET_ITEM(columns, f);
        if (!PyList_Check(column)) {
            PyErr_Format(PyExc_TypeError, "column %zd must be a list", f);
            return NULL;
        }
        if (count >= 0 && PyList_GET_SIZE(column) != count) {
            PyErr_SetString(PyExc_ValueError, "columns differ in length");
            return NULL;
        }
        count = PyList_GET_SIZE(column);
    }
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; ++k) {
        PyObject *obj = cls->tp_alloc(cls, 0);
        PyObject *dict = PyDict_New();
        if (obj == NULL || dict == NULL) goto fail_item;
        for (Py_ssize_t f = 0; f < fields; ++f)
            if (PyDict_SetItem(dict, PyTuple_GET_ITEM(names, f),
                               PyList_GET_ITEM(PyTuple_GET_ITEM(columns, f), k)) < 0)
                goto fail_item;
        if (PyObject_GenericSetDict(obj, dict, NULL) < 0) goto fail_item;
        Py_DECREF(dict);
        PyList_SET_ITEM(out, k, obj);
        continue;
    fail_item:
        Py_XDECREF(obj);
        Py_XDECREF(dict);
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* The other way: result records' fields packed into rows of bytes, for a
 * caller that writes many results at once (a message, a file). A row holds,
 * in field order, each float field as a float64 and each vector field as
 * three float64, at the offsets a C struct of those members has (a bool
 * field is one byte, then zero padding up to the next float64), so numpy
 * views the rows with an aligned structured dtype. */

enum { ROW_FLOAT = 'd', ROW_VECTOR = '3', ROW_BOOL = '?' };

static int row_vector(PyObject *record, PyObject *name, double out[3]) {
    PyObject *value = PyObject_GetAttr(record, name);
    if (value == NULL) return -1;
    Py_buffer view;
    int rc = gc_get_buffer(value, &view, 'd', 3, PyUnicode_AsUTF8(name));
    Py_DECREF(value);
    if (rc < 0) return -1;
    memcpy(out, view.buf, 3 * sizeof(double));
    PyBuffer_Release(&view);
    return 0;
}

static int row_float(PyObject *record, PyObject *name, double *out) {
    PyObject *value = PyObject_GetAttr(record, name);
    if (value == NULL) return -1;
    *out = PyFloat_AsDouble(value);
    Py_DECREF(value);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

static int row_bool(PyObject *record, PyObject *name, unsigned char *out) {
    PyObject *value = PyObject_GetAttr(record, name);
    if (value == NULL) return -1;
    int truth = PyObject_IsTrue(value);
    Py_DECREF(value);
    if (truth < 0) return -1;
    *out = (unsigned char)truth;
    return 0;
}

/* record_rows(records, fields, kinds, world=None) -> bytearray of one row per
 * record: fields a tuple of attribute names, kinds a str with one of 'd'
 * (float), '3' (three float64 from a buffer), '?' (bool) per field. With
 * world ((2K, 4, 4) float64: X_WA then X_WB of each record) and the first
 * two vector fields p_A, p_B in each geometry's frame, two more vectors
 * end each row: X_WA p_A and X_WB p_B. */
static PyObject *py_record_rows(PyObject *self, PyObject *args) {
    PyObject *records, *fields, *world = Py_None;
    const char *kinds;
    Py_ssize_t nkinds;
    if (!PyArg_ParseTuple(args, "O!O!s#|O", &PyList_Type, &records, &PyTuple_Type, &fields,
                          &kinds, &nkinds, &world))
        return NULL;
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
    if (nkinds != nfields) {
        PyErr_SetString(PyExc_ValueError, "one kind per field");
        return NULL;
    }
    /* Offsets as a C struct lays the members out. */
    Py_ssize_t offsets[64], size = 0, vectors = 0, first_vectors[2] = {-1, -1};
    if (nfields > 62) {
        PyErr_SetString(PyExc_ValueError, "at most 62 fields");
        return NULL;
    }
    for (Py_ssize_t f = 0; f < nfields; ++f) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(fields, f))) {
            PyErr_SetString(PyExc_TypeError, "field names must be str");
            return NULL;
        }
        if (kinds[f] == ROW_BOOL) {
            offsets[f] = size;
            size += 1;
            continue;
        }
        if (kinds[f] != ROW_FLOAT && kinds[f] != ROW_VECTOR) {
            PyErr_Format(PyExc_ValueError, "unknown field kind '%c'", kinds[f]);
            return NULL;
        }
        size = (size + 7) & ~(Py_ssize_t)7;
        offsets[f] = size;
        size += kinds[f] == ROW_VECTOR ? 24 : 8;
        if (kinds[f] == ROW_VECTOR && vectors < 2) first_vectors[vectors++] = f;
    }
    Py_ssize_t count = PyList_GET_SIZE(records);
    Py_buffer poses = {0};
    Py_ssize_t world_at = 0;
    if (world != Py_None) {
        if (vectors < 2) {
            PyErr_SetString(PyExc_ValueError, "world points need two vector fields");
            return NULL;
        }
        size = (size + 7) & ~(Py_ssize_t)7;
        world_at = size;
        size += 48;
        if (gc_get_buffer(world, &poses, 'd', 32 * count, "world") < 0) return NULL;
    }
    size = (size + 7) & ~(Py_ssize_t)7;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, count * size);
    if (out == NULL) goto done;
    char *rows = PyByteArray_AS_STRING(out);
    memset(rows, 0, (size_t)(count * size));
    for (Py_ssize_t k = 0; k < count; ++k) {
        PyObject *record = PyList_GET_ITEM(records, k);
        char *row = rows + k * size;
        for (Py_ssize_t f = 0; f < nfields; ++f) {
            PyObject *name = PyTuple_GET_ITEM(fields, f);
            char *at = row + offsets[f];
            int rc = kinds[f] == ROW_FLOAT ? row_float(record, name, (double *)at)
                     : kinds[f] == ROW_VECTOR ? row_vector(record, name, (double *)at)
                     : row_bool(record, name, (unsigned char *)at);
            if (rc < 0) {
                Py_CLEAR(out);
                goto done;
            }
        }
        if (world != Py_None) {
            const double *X = (const double *)poses.buf + 32 * k;
            double *w = (double *)(row + world_at);
            /* Each coordinate ((r0 q0 + r1 q1) + r2 q2) + t, as written (the
             * build keeps multiply-adds unfused). */
            gc_to_world(X, (const double *)(row + offsets[first_vectors[0]]), w);
            gc_to_world(X + 16, (const double *)(row + offsets[first_vectors[1]]), w + 3);
        }
    }
done:
    if (world != Py_None) PyBuffer_Release(&poses);
    return out;
}

/* The tolerances compiled in (gc_tolerances.h), by name: a stale build or a
 * header out of step with tolerances.py shows up as a difference. */
static int put_tolerance(PyObject *dict, const char *name, PyObject *value) {
    if (value == NULL) return -1;
    int rc = PyDict_SetItemString(dict, name, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *py_tolerances(PyObject *self, PyObject *unused) {
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
#define GC_PUT_INT(name) \
    if (put_tolerance(out, #name, PyLong_FromLong(GC_##name)) < 0) goto fail;
#define GC_PUT_FLOAT(name) \
    if (put_tolerance(out, #name, PyFloat_FromDouble(GC_##name)) < 0) goto fail;
    GC_TOLERANCES(GC_PUT_INT, GC_PUT_FLOAT)
#undef GC_PUT_INT
#undef GC_PUT_FLOAT
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *py_polytope_rescues(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(gc_polytope_rescues());
}

static PyMethodDef methods[] = {
    {"pair", py_pair, METH_VARARGS,
     "pair(spec_A, X_WA, spec_B, X_WB, kernel='auto', seed=None) -> "
     "(status, distance, p_WCa, p_WCb, nhat_BA_W, unique)\n"
     "kernel: auto, exact, convex, search (seeded with seed, a direction), halfspace"},
    {"ascent_gap", py_ascent_gap, METH_VARARGS,
     "ascent_gap(spec_A, X_WA, spec_B, X_WB, distance, nhat_BA_W) -> largest rise of g\n"
     "from nhat_BA_W over a few tilted directions (<= round-off at a local maximum)"},
    {"point", py_point, METH_VARARGS,
     "point(spec, X_WG, p_WQ) -> (status, distance, p_GN, grad_W, unique)"},
    {"support_value", py_support_value, METH_VARARGS,
     "support_value(spec, X_WG, d_W) -> max over G of d_W . p_WP"},
    {"hull_support", py_hull_support, METH_VARARGS,
     "hull_support(spec, d_G (n,3), walk, start=0) -> [vertex index] by the walk (warm "
     "started row to row) or the scan (tests)"},
    {"compose_world", py_compose_world, METH_VARARGS,
     "compose_world(X_PF ([K,]F,4,4), parent_slot int32 (F,)[, out]) -> bytes of X_WF,\n"
     "or None after writing X_WF into out (a writable float64 buffer the size of X_PF)"},
    {"poses_valid", py_poses_valid, METH_VARARGS,
     "poses_valid(X (N,4,4) float64, tolerance) -> True when every pose is a rigid transform"},
    {"copy_poses", py_copy_poses, METH_VARARGS,
     "copy_poses(table (F,4,4) float64, slots list, matrices list of (4,4) float64)"},
    {"set_pose_rows", py_set_pose_rows, METH_VARARGS,
     "set_pose_rows(table (F,4,4), posed (F,) bool, slots int64 (N,), X (N,4,4))"},
    {"set_pose_items", py_set_pose_items, METH_VARARGS,
     "set_pose_items(table (F,4,4), posed (F,) bool, poses dict, slot_of dict, type) -> "
     "rows set, or None (nothing changed) for a key or value the caller must check"},
    {"build_records", py_build_records, METH_VARARGS,
     "build_records(cls, names, columns) -> list of cls objects whose __dict__ holds the fields"},
    {"record_rows", py_record_rows, METH_VARARGS,
     "record_rows(records, fields, kinds, world=None) -> bytearray of one row per record\n"
     "(kinds: 'd' float, '3' three float64, '?' bool; C struct offsets), with world\n"
     "(2K,4,4) X_WA p_A and X_WB p_B of the first two vector fields appended"},
    {"tolerances", py_tolerances, METH_NOARGS, "The tolerances compiled in, by name."},
    {"polytope_rescues", py_polytope_rescues, METH_NOARGS,
     "polytope_rescues() -> answers of the exact polytope path where the solver's failed its\n"
     "certificate or box-box SAT skipped edges a hair from parallel, since the module loaded"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "Native narrowphase, point-distance and broadphase kernels of geometry_core.",
    .m_size = -1,
    .m_methods = methods,
};

int gc_rotation_register(PyObject *module);   /* rotation.c */
int gc_kinematics_register(PyObject *module); /* kinematics.c */

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (gc_model_register(m) < 0 || gc_rotation_register(m) < 0 ||
        gc_kinematics_register(m) < 0 || gc_cloud_register(m) < 0 ||
        gc_motion_register(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "OK", GC_OK);
    PyModule_AddIntConstant(m, "NOT_HANDLED", GC_NOT_HANDLED);
    PyModule_AddIntConstant(m, "UNCERTIFIED", GC_UNCERTIFIED);
    PyModule_AddIntConstant(m, "ERROR_HALFSPACES", GC_ERROR_HALFSPACES);
    PyModule_AddIntConstant(m, "SEARCHED", GC_SEARCHED);
    return m;
}
