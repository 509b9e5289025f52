/* Single-object kernels of geometry_core.math: one rotation or pose at a time.
 *
 * RotationMatrix and RigidTransform keep a float64 (3, 3) or (4, 4) numpy
 * array. One call here replaces the handful of numpy calls an operation on
 * one of them would take, whose fixed cost (about a microsecond each) dwarfs
 * the arithmetic of one 3x3. Arrays come in through the buffer protocol
 * (float64, any strides); results go out as new arrays made by numpy.empty,
 * which geometry_core/math/_scalar.py hands in once with set_allocator (no
 * numpy headers here). These are the only implementation of their formulas:
 * the extension is required (geometry_core/native.py), and the tests hold
 * them to references that share no code with this file (scipy, numpy, finite
 * differences, pydrake) in test/math/.
 *
 * The checks that name a culprit stay in Python: a constructor that meets
 * input it does not handle (NaN, a zero quaternion) returns None, and the
 * caller takes the Python path that raises the right error.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <string.h>

/* A float64 array of ndim 1 or 2 (any strides) copied row-major into dst
 * (at most 16 elements); *rows and *cols give its shape (cols 1 for ndim 1,
 * rows holding the length). Returns -1 with TypeError when it is not one. */
static int load(PyObject *obj, double dst[16], Py_ssize_t *rows, Py_ssize_t *cols) {
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_RECORDS_RO) < 0) return -1;
    const char *f = v.format ? v.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    int ok = f[0] == 'd' && f[1] == '\0' && v.itemsize == 8 && (v.ndim == 1 || v.ndim == 2);
    Py_ssize_t r = ok ? v.shape[0] : 0, c = ok && v.ndim == 2 ? v.shape[1] : 1;
    ok = ok && r * c <= 16;
    if (!ok) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_TypeError, "expected a float64 array of at most 16 elements");
        return -1;
    }
    const char *base = v.buf;
    for (Py_ssize_t i = 0; i < r; i++)
        for (Py_ssize_t j = 0; j < c; j++) {
            const char *at = base + i * v.strides[0] + (v.ndim == 2 ? j * v.strides[1] : 0);
            memcpy(&dst[i * c + j], at, sizeof(double));
        }
    *rows = r;
    *cols = c;
    PyBuffer_Release(&v);
    return 0;
}

/* load() of a (3, 3) or (4, 4): the rotation rows into R (and the pose into X). */
static int load_matrix(PyObject *obj, double R[9], double X[16], Py_ssize_t *size) {
    double a[16];
    Py_ssize_t r, c;
    if (load(obj, a, &r, &c) < 0) return -1;
    if (!((r == 3 && c == 3) || (r == 4 && c == 4))) {
        PyErr_SetString(PyExc_TypeError, "expected a (3, 3) or (4, 4) array");
        return -1;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = a[i * c + j];
    if (X != NULL && r == 4) memcpy(X, a, sizeof(double) * 16);
    *size = r;
    return 0;
}

/* numpy.empty, handed in once by geometry_core.math._scalar (no numpy headers here). */
static PyObject *empty_fn = NULL, *shape3 = NULL, *shape4 = NULL, *shape_q = NULL,
                *shape_v = NULL;

/* A new C-contiguous float64 array of shape (n, n) (n = 3 or 4), (4,) (n = 0)
 * or (3,) (n = 1) whose data is copied from src. */
static PyObject *new_array(int n, const double *src) {
    if (empty_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "rotation.set_allocator(numpy.empty) was not called");
        return NULL;
    }
    PyObject *shape = n == 3 ? shape3 : (n == 4 ? shape4 : (n == 0 ? shape_q : shape_v));
    PyObject *a = PyObject_CallOneArg(empty_fn, shape);
    if (a == NULL) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(a, &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    memcpy(v.buf, src, (size_t)v.len);
    PyBuffer_Release(&v);
    return a;
}

static PyObject *py_set_allocator(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1 || !PyCallable_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "set_allocator(numpy.empty)");
        return NULL;
    }
    Py_XSETREF(empty_fn, Py_NewRef(args[0]));
    if (shape3 == NULL) {
        shape3 = Py_BuildValue("(ii)", 3, 3);
        shape4 = Py_BuildValue("(ii)", 4, 4);
        shape_q = Py_BuildValue("(i)", 4);
        shape_v = Py_BuildValue("(i)", 3);
        if (shape3 == NULL || shape4 == NULL || shape_q == NULL || shape_v == NULL) return NULL;
    }
    Py_RETURN_NONE;
}

/* The pose [R, p; 0 0 0 1] as 16 row-major doubles. */
static void pose_of(const double R[9], const double p[3], double X[16]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) X[4 * i + j] = R[3 * i + j];
        X[4 * i + 3] = p[i];
    }
    X[12] = X[13] = X[14] = 0.0;
    X[15] = 1.0;
}

static void rotation_from_rpy(double r, double p, double y, double R[9]) {
    double c0 = cos(r), s0 = sin(r), c1 = cos(p), s1 = sin(p), c2 = cos(y), s2 = sin(y);
    double c2_s1 = c2 * s1, s2_s1 = s2 * s1;
    R[0] = c2 * c1;
    R[1] = c2_s1 * s0 - s2 * c0;
    R[2] = c2_s1 * c0 + s2 * s0;
    R[3] = s2 * c1;
    R[4] = s2_s1 * s0 + c2 * c0;
    R[5] = s2_s1 * c0 - c2 * s0;
    R[6] = -s1;
    R[7] = c1 * s0;
    R[8] = c1 * c0;
}

/* Unit quaternion of q scaled by its largest magnitude first (norms of 1e300
 * and 1e-300 neither overflow nor underflow). 0 when not finite or |q| < zero. */
static int unit_quaternion(const double q[4], double zero, double u[4]) {
    double scale = 0.0;
    for (int k = 0; k < 4; k++) {
        if (!isfinite(q[k])) return 0;
        if (fabs(q[k]) > scale) scale = fabs(q[k]);
    }
    if (scale == 0.0) return 0;
    double w = q[0] / scale, x = q[1] / scale, y = q[2] / scale, z = q[3] / scale;
    double norm = sqrt(w * w + x * x + y * y + z * z);
    if (norm * scale < zero) return 0;
    u[0] = w / norm;
    u[1] = x / norm;
    u[2] = y / norm;
    u[3] = z / norm;
    return 1;
}

static void rotation_from_unit_quaternion(const double q[4], double R[9]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double s = 2.0 / (w * w + x * x + y * y + z * z);
    double X = x * s, Y = y * s, Z = z * s;
    double wX = w * X, wY = w * Y, wZ = w * Z, xX = x * X, xY = x * Y, xZ = x * Z;
    double yY = y * Y, yZ = y * Z, zZ = z * Z;
    R[0] = 1.0 - (yY + zZ);
    R[1] = xY - wZ;
    R[2] = xZ + wY;
    R[3] = xY + wZ;
    R[4] = 1.0 - (xX + zZ);
    R[5] = yZ - wX;
    R[6] = xZ - wY;
    R[7] = yZ + wX;
    R[8] = 1.0 - (xX + yY);
}

/* The pose of quaternion q (w x y z, any nonzero norm) and position p as 16
 * row-major doubles; 0 (X untouched) when q is zero or not finite or p not
 * finite. */
static int pose_from_quaternion(const double q[4], const double p[3], double X[16]) {
    double u[4], R[9];
    if (!unit_quaternion(q, 0.0, u) || !(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2])))
        return 0;
    rotation_from_unit_quaternion(u, R);
    pose_of(R, p, X);
    return 1;
}

/* Drake's RotationMatrix::ToQuaternion: branch on the largest of the trace and
 * the diagonal, so the component from 1 + ... is the largest; w >= 0. */
static void quaternion_from_rotation(const double m[9], double q[4]) {
    double trace = m[0] + m[4] + m[8];
    double w, x, y, z;
    if (trace >= m[0] && trace >= m[4] && trace >= m[8]) {
        w = 1.0 + trace; x = m[7] - m[5]; y = m[2] - m[6]; z = m[3] - m[1];
    } else if (m[0] >= m[4] && m[0] >= m[8]) {
        w = m[7] - m[5]; x = 1.0 - (trace - 2.0 * m[0]); y = m[1] + m[3]; z = m[2] + m[6];
    } else if (m[4] >= m[8]) {
        w = m[2] - m[6]; x = m[1] + m[3]; y = 1.0 - (trace - 2.0 * m[4]); z = m[5] + m[7];
    } else {
        w = m[3] - m[1]; x = m[2] + m[6]; y = m[5] + m[7]; z = 1.0 - (trace - 2.0 * m[8]);
    }
    double scale = 1.0 / sqrt(w * w + x * x + y * y + z * z);
    if (w < 0.0) scale = -scale;
    q[0] = w * scale;
    q[1] = x * scale;
    q[2] = y * scale;
    q[3] = z * scale;
}

/* The double nearest π (Python's math.pi), spelled out: strict C11 has no M_PI. */
static const double PI = 3.14159265358979323846;

static double wrap_to_pi(double angle) {
    if (angle > PI) return angle - 2.0 * PI;
    if (angle < -PI) return angle + 2.0 * PI;
    return angle;
}

/* Drake's RollPitchYaw(RotationMatrix) (P. Mitiguy): pitch from an atan2 of the
 * matrix, roll and yaw from the half-angle sums and differences of its
 * quaternion; both atan2 arguments at round-off leave the half-angle arbitrary,
 * and Drake picks 0. */
static void rpy_from_rotation(const double m[9], double rpy[3]) {
    double q[4];
    quaternion_from_rotation(m, q);
    double pitch = atan2(-m[6], sqrt((m[8] * m[8] + m[7] * m[7] + m[3] * m[3] + m[0] * m[0]) / 2));
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double sum_y = x + z, sum_x = w - y, difference_y = z - x, difference_x = w + y;
    double half_sum = (fabs(sum_y) <= DBL_EPSILON && fabs(sum_x) <= DBL_EPSILON)
                          ? 0.0 : atan2(sum_y, sum_x);
    double half_difference = (fabs(difference_y) <= DBL_EPSILON && fabs(difference_x) <= DBL_EPSILON)
                                 ? 0.0 : atan2(difference_y, difference_x);
    rpy[0] = wrap_to_pi(half_sum - half_difference);
    rpy[1] = pitch;
    rpy[2] = wrap_to_pi(half_sum + half_difference);
}

static int doubles(PyObject *const *args, Py_ssize_t n, double *out) {
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = PyFloat_AsDouble(args[k]);
        if (out[k] == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* rpy_matrix(r, p, y[, px, py, pz]) -> new (3, 3) R = Rz(y) Ry(p) Rx(r), or the
 * (4, 4) pose [R, p]. The angles are trusted finite. */
static PyObject *py_rpy_matrix(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3 && n != 6) {
        PyErr_SetString(PyExc_TypeError, "rpy_matrix(r, p, y[, px, py, pz])");
        return NULL;
    }
    double v[6], R[9], X[16];
    if (doubles(args, n, v) < 0) return NULL;
    rotation_from_rpy(v[0], v[1], v[2], R);
    if (n == 3) return new_array(3, R);
    pose_of(R, v + 3, X);
    return new_array(4, X);
}

/* quaternion_poses(q (N, 4), p (N, 3) or None, out) -> -1, or the first row
 * whose quaternion is zero or not finite, or whose p is not finite (out is
 * then partly written). q and p: C-contiguous float64; out: writable
 * C-contiguous float64, (N, 3, 3) rotations when p is None, else (N, 4, 4)
 * poses [R(q), p]. The formula of quaternion_matrix (each q scaled, then
 * normalised), so batches and single objects agree. */
static PyObject *py_quaternion_poses(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "quaternion_poses(q, p or None, out)");
        return NULL;
    }
    Py_buffer qb, pb, ob;
    int with_p = args[1] != Py_None;
    if (PyObject_GetBuffer(args[0], &qb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (with_p && PyObject_GetBuffer(args[1], &pb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&qb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&qb);
        if (with_p) PyBuffer_Release(&pb);
        return NULL;
    }
    Py_ssize_t rows = qb.len / 32, size = with_p ? 16 : 9;
    const char *fq = qb.format ? qb.format : "B";
    if (fq[0] == '<' || fq[0] == '=' || fq[0] == '@') fq++;
    int ok = fq[0] == 'd' && fq[1] == '\0' && qb.len == rows * 32 && ob.len == rows * size * 8;
    if (ok && with_p) {
        const char *fp = pb.format ? pb.format : "B";
        if (fp[0] == '<' || fp[0] == '=' || fp[0] == '@') fp++;
        ok = fp[0] == 'd' && fp[1] == '\0' && pb.len == rows * 24;
    }
    long bad = -1;
    if (ok) {
        const double *q = qb.buf, *p = with_p ? pb.buf : NULL;
        double *out = ob.buf;
        for (Py_ssize_t k = 0; k < rows; ++k, q += 4, out += size) {
            double u[4];
            if (with_p ? !pose_from_quaternion(q, p + 3 * k, out) : !unit_quaternion(q, 0.0, u)) {
                bad = (long)k;
                break;
            }
            if (!with_p) rotation_from_unit_quaternion(u, out);
        }
    }
    PyBuffer_Release(&qb);
    if (with_p) PyBuffer_Release(&pb);
    PyBuffer_Release(&ob);
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "quaternion_poses: q must be float64 (N, 4), p (N, 3) "
                                         "and out (N, 3, 3) or (N, 4, 4)");
        return NULL;
    }
    return PyLong_FromLong(bad);
}

/* pose_rows(rows, order, out) -> -1, or the first row that is not a
 * sequence of numbers, or whose quaternion is zero or not finite, or whose
 * position is not finite (out is then partly written). rows: a list of
 * sequences of numbers; order: 7 indices into each row, of x, y, z (the
 * position) then w, x, y, z (the quaternion); out: writable C-contiguous
 * float64 (N, 4, 4). The numbers of quaternion_poses on the same doubles,
 * without an array of them made first. */
/* The seven numbers order[] picks from one row (a sequence of numbers) as a
 * pose in X; 0, with no error set, for a row that is not such a sequence or
 * whose quaternion or position is unusable. */
static int pose_of_row(PyObject *row, const Py_ssize_t at[7], double X[16]) {
    double v[7];
    /* A tuple: a number's __float__ may run Python code that shrinks a list
     * row under the loop; a tuple (the row itself when it is one) cannot. */
    PyObject *fast = PySequence_Tuple(row);
    if (fast == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = PySequence_Fast_GET_SIZE(fast);
    for (int i = 0; i < 7; ++i) {
        if (at[i] >= size) {
            Py_DECREF(fast);
            return 0;
        }
        v[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, at[i]));
        if (v[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_DECREF(fast);
            return 0;
        }
    }
    Py_DECREF(fast);
    return pose_from_quaternion(v + 3, v, X);
}

/* The 7 indices of a row order tuple; -1 with an error set. */
static int row_order(PyObject *order, Py_ssize_t at[7]) {
    for (int i = 0; i < 7; ++i) {
        at[i] = PyNumber_AsSsize_t(PyTuple_GET_ITEM(order, i), PyExc_OverflowError);
        if (at[i] == -1 && PyErr_Occurred()) return -1;
        if (at[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "pose_rows: negative index in order");
            return -1;
        }
    }
    return 0;
}

static PyObject *py_pose_rows(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3 || !PyList_Check(args[0]) || !PyTuple_Check(args[1]) ||
        PyTuple_GET_SIZE(args[1]) != 7) {
        PyErr_SetString(PyExc_TypeError, "pose_rows(rows: list, order: 7-tuple of int, out)");
        return NULL;
    }
    Py_ssize_t at[7];
    if (row_order(args[1], at) < 0) return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    /* The rows as a tuple: a number's __float__ may change the list. */
    PyObject *snapshot = PyList_AsTuple(args[0]);
    if (snapshot == NULL) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    Py_ssize_t rows = PyTuple_GET_SIZE(snapshot);
    if (ob.len != rows * 16 * (Py_ssize_t)sizeof(double)) {
        Py_DECREF(snapshot);
        PyBuffer_Release(&ob);
        PyErr_SetString(PyExc_ValueError, "pose_rows: out must be float64 (N, 4, 4)");
        return NULL;
    }
    long bad = -1;
    double *out = ob.buf;
    for (Py_ssize_t k = 0; k < rows; ++k, out += 16) {
        if (!pose_of_row(PyTuple_GET_ITEM(snapshot, k), at, out)) {
            bad = (long)k;
            break;
        }
    }
    Py_DECREF(snapshot);
    PyBuffer_Release(&ob);
    return PyLong_FromLong(bad);
}

int gc_pose_valid(const double X[16], double tolerance); /* module.c */

/* pose_rows_into(rows, order, table, posed, slots, tolerance) -> -1, or the
 * first row pose_rows refuses or whose pose is no rigid transform within
 * tolerance (poses_valid's test), with nothing written. Else row k's pose
 * (pose_rows' numbers) goes to table[slots[k]] and posed[slots[k]] = True:
 * the pose table's vectorised setter on rows of numbers, in one call.
 * table: writable float64 (F, 4, 4); posed: writable bool (F,); slots:
 * int64 (N,), each in [0, F). */
static PyObject *py_pose_rows_into(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    double tolerance;
    if (n != 6 || !PyList_Check(args[0]) || !PyTuple_Check(args[1]) ||
        PyTuple_GET_SIZE(args[1]) != 7 || ((tolerance = PyFloat_AsDouble(args[5])) == -1.0 &&
                                           PyErr_Occurred())) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "pose_rows_into(rows: list, order: 7-tuple of "
                                             "int, table, posed, slots, tolerance)");
        return NULL;
    }
    Py_ssize_t at[7];
    if (row_order(args[1], at) < 0) return NULL;
    Py_buffer table, posed, slots;
    if (PyObject_GetBuffer(args[2], &table, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &posed, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&table);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &slots, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&posed);
        PyBuffer_Release(&table);
        return NULL;
    }
    /* The rows as a tuple: a number's __float__ may change the list. */
    PyObject *snapshot = PyList_AsTuple(args[0]);
    if (snapshot == NULL) {
        PyBuffer_Release(&slots);
        PyBuffer_Release(&posed);
        PyBuffer_Release(&table);
        return NULL;
    }
    Py_ssize_t rows = PyTuple_GET_SIZE(snapshot);
    Py_ssize_t capacity = table.len / (16 * (Py_ssize_t)sizeof(double));
    const long long *slot = slots.buf;
    const char *format = slots.format ? slots.format : "B";
    if (format[0] == '<' || format[0] == '=' || format[0] == '@') format++;
    int ok = (format[0] == 'q' || format[0] == 'l') && format[1] == '\0' &&
             slots.itemsize == 8 && slots.len == rows * 8 && posed.len >= capacity;
    for (Py_ssize_t k = 0; ok && k < rows; ++k) ok = slot[k] >= 0 && slot[k] < capacity;
    long bad = -1;
    double *X = NULL;
    if (ok && rows > 0) {
        X = PyMem_Malloc((size_t)rows * 16 * sizeof(double));
        if (X == NULL) {
            Py_DECREF(snapshot);
            PyBuffer_Release(&slots);
            PyBuffer_Release(&posed);
            PyBuffer_Release(&table);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t k = 0; k < rows; ++k) {
            if (!pose_of_row(PyTuple_GET_ITEM(snapshot, k), at, X + 16 * k) ||
                !gc_pose_valid(X + 16 * k, tolerance)) {
                bad = (long)k;
                break;
            }
        }
        if (bad < 0) {
            for (Py_ssize_t k = 0; k < rows; ++k) {
                memcpy((double *)table.buf + 16 * slot[k], X + 16 * k, 16 * sizeof(double));
                ((char *)posed.buf)[slot[k]] = 1;
            }
        }
        PyMem_Free(X);
    }
    Py_DECREF(snapshot);
    PyBuffer_Release(&slots);
    PyBuffer_Release(&posed);
    PyBuffer_Release(&table);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "pose_rows_into: slots must be int64 (N,) for N "
                                          "rows, each a row of the table");
        return NULL;
    }
    return PyLong_FromLong(bad);
}

/* A 4- or 8-byte number at p in the given byte order (little != 0: little
 * endian), as the machine holds it. */
static void read_ordered(const unsigned char *p, int size, int little, void *out) {
    unsigned char b[8];
    const unsigned int one = 1;
    int host_little = *(const unsigned char *)&one == 1;
    for (int i = 0; i < size; ++i) b[i] = little == host_little ? p[i] : p[size - 1 - i];
    memcpy(out, b, (size_t)size);
}

/* fill_template(template, numbers, size, numbers_at, (at, bytes)...) -> bytes:
 * a copy of the bytes template with each patch's bytes written at its offset,
 * then record k of numbers (size bytes each, records one after the other)
 * written at numbers_at[k]. The writer counterpart of pose_records, for a
 * caller that sends records in a fixed byte layout made once (a wire
 * message of known pairs): one allocation, no list of parts. numbers may be
 * None when numbers_at is empty. ValueError when numbers does not hold
 * exactly len(numbers_at) records; IndexError for a patch or a record
 * outside the template. */
static PyObject *py_fill_template(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n < 4 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "fill_template(template bytes, numbers, size, "
                                         "numbers_at tuple, (at, bytes)...)");
        return NULL;
    }
    Py_ssize_t size = PyLong_AsSsize_t(args[2]);
    if (size == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(args[3]);
    Py_ssize_t length = PyBytes_GET_SIZE(args[0]);
    for (Py_ssize_t k = 4; k < n; ++k) {
        if (!PyTuple_Check(args[k]) || PyTuple_GET_SIZE(args[k]) != 2 ||
            !PyBytes_Check(PyTuple_GET_ITEM(args[k], 1))) {
            PyErr_SetString(PyExc_TypeError, "fill_template: a patch is an (offset, bytes) "
                                             "tuple");
            return NULL;
        }
    }
    Py_buffer view = {0};
    int viewed = 0;
    if (count > 0) {
        if (PyObject_GetBuffer(args[1], &view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        viewed = 1;
        if (size < 0 || view.len != size * count) {
            PyErr_Format(PyExc_ValueError, "%zd bytes of numbers for %zd pairs of %zd bytes",
                         view.len, count, size);
            PyBuffer_Release(&view);
            return NULL;
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, length);
    if (out == NULL) {
        if (viewed) PyBuffer_Release(&view);
        return NULL;
    }
    char *buffer = PyBytes_AS_STRING(out);
    memcpy(buffer, PyBytes_AS_STRING(args[0]), (size_t)length);
    for (Py_ssize_t k = 4; k < n; ++k) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[k], 0));
        PyObject *patch = PyTuple_GET_ITEM(args[k], 1);
        Py_ssize_t bytes = PyBytes_GET_SIZE(patch);
        if (at == -1 && PyErr_Occurred()) goto fail;
        if (at < 0 || at > length - bytes) {
            PyErr_SetString(PyExc_IndexError, "fill_template: a patch outside the template");
            goto fail;
        }
        memcpy(buffer + at, PyBytes_AS_STRING(patch), (size_t)bytes);
    }
    for (Py_ssize_t k = 0; k < count; ++k) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[3], k));
        if (at == -1 && PyErr_Occurred()) goto fail;
        if (at < 0 || at > length - size) {
            PyErr_SetString(PyExc_IndexError, "fill_template: a record outside the template");
            goto fail;
        }
        memcpy(buffer + at, (const char *)view.buf + k * size, (size_t)size);
    }
    if (viewed) PyBuffer_Release(&view);
    return out;
fail:
    if (viewed) PyBuffer_Release(&view);
    Py_DECREF(out);
    return NULL;
}

/* matches_template(data, template, holes) -> bool: whether data has the
 * template's length and bytes everywhere but in the holes, a tuple of
 * (start, end) byte ranges in ascending order, not overlapping (the reader's
 * side of fill_template: whether data could be the template with other
 * numbers written in place). ValueError for holes out of order or outside
 * the template. */
static PyObject *py_matches_template(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3 || !PyBytes_Check(args[1]) || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "matches_template(data, template bytes, holes tuple "
                                         "of (start, end))");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *data = view.buf, *template = PyBytes_AS_STRING(args[1]);
    Py_ssize_t length = PyBytes_GET_SIZE(args[1]);
    int same = view.len == length;
    Py_ssize_t at = 0, holes = PyTuple_GET_SIZE(args[2]);
    for (Py_ssize_t k = 0; k <= holes; ++k) {
        Py_ssize_t start = length, end = length;
        if (k < holes) {
            PyObject *hole = PyTuple_GET_ITEM(args[2], k);
            if (!PyTuple_Check(hole) || PyTuple_GET_SIZE(hole) != 2) {
                PyErr_SetString(PyExc_TypeError, "matches_template: a hole is a (start, end) "
                                                 "tuple");
                goto fail;
            }
            start = PyLong_AsSsize_t(PyTuple_GET_ITEM(hole, 0));
            end = PyLong_AsSsize_t(PyTuple_GET_ITEM(hole, 1));
            if (PyErr_Occurred()) goto fail;
            if (start < at || end < start || end > length) {
                PyErr_SetString(PyExc_ValueError, "matches_template: holes out of order or "
                                                  "outside the template");
                goto fail;
            }
        }
        if (same && memcmp(data + at, template + at, (size_t)(start - at)) != 0) same = 0;
        at = end;
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(same);
fail:
    PyBuffer_Release(&view);
    return NULL;
}

/* pose_records(data, stamp_at, values_at, little, rows, values, stamps) -> -1
 * when stored, or the first record refused (nothing stored). Record k is an
 * int32 sec and a uint32 nanosec at data[stamp_at[k]] and seven float64 at
 * data[values_at[k]], in little or big endian; stored as values[rows[k]] =
 * a tuple of the seven floats and stamps[rows[k]] = sec * 10**9 + nanosec.
 * Refused: a nanosec of 10**9 or more; numbers whose sum, row by row then
 * over the rows as Python's sum(map(sum, rows)) adds them, is not finite; a
 * row whose numbers 3 to 6 (a quaternion) are all zero. */
static PyObject *py_pose_records(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 7 || !PyTuple_Check(args[1]) || !PyTuple_Check(args[2]) ||
        !PyList_Check(args[4]) || !PyList_Check(args[5]) || !PyList_Check(args[6]) ||
        PyTuple_GET_SIZE(args[1]) != PyTuple_GET_SIZE(args[2]) ||
        PyList_GET_SIZE(args[4]) != PyTuple_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "pose_records(data, stamp_at tuple, values_at tuple "
                                         "(N,), little, rows list (N,), values list, stamps "
                                         "list)");
        return NULL;
    }
    int little = PyObject_IsTrue(args[3]);
    if (little < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = view.buf;
    Py_ssize_t count = PyTuple_GET_SIZE(args[1]);
    Py_ssize_t nvalues = PyList_GET_SIZE(args[5]), nstamps = PyList_GET_SIZE(args[6]);
    double *v = PyMem_Malloc((size_t)(count + 1) * 7 * sizeof(double));
    long long *ns = PyMem_Malloc((size_t)(count + 1) * sizeof(long long));
    Py_ssize_t *row = PyMem_Malloc((size_t)(count + 1) * sizeof(Py_ssize_t));
    if (v == NULL || ns == NULL || row == NULL) {
        PyMem_Free(v);
        PyMem_Free(ns);
        PyMem_Free(row);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    long bad = -1;
    int failed = 0;
    double total = 0.0;
    for (Py_ssize_t k = 0; k < count && bad < 0 && !failed; ++k) {
        Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[1], k));
        Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[2], k));
        row[k] = PyLong_AsSsize_t(PyList_GET_ITEM(args[4], k));
        if (PyErr_Occurred()) {
            failed = 1;
            break;
        }
        if (s < 0 || a < 0 || s > view.len - 8 || a > view.len - 56 || row[k] < 0 ||
            row[k] >= nvalues || row[k] >= nstamps) {
            PyErr_SetString(PyExc_IndexError, "pose_records: an offset outside the data, or "
                                              "a row outside the lists");
            failed = 1;
            break;
        }
        int32_t sec;
        uint32_t nanosec;
        read_ordered(data + s, 4, little, &sec);
        read_ordered(data + s + 4, 4, little, &nanosec);
        if (nanosec >= 1000000000u) {
            bad = (long)k;
            break;
        }
        ns[k] = (long long)sec * 1000000000LL + (long long)nanosec;
        double *r = v + 7 * k;
        double sum = 0.0;
        for (int i = 0; i < 7; ++i) {
            read_ordered(data + a + 8 * i, 8, little, r + i);
            sum += r[i];
        }
        total += sum;
        if (!(r[3] != 0.0 || r[4] != 0.0 || r[5] != 0.0 || r[6] != 0.0)) bad = (long)k;
    }
    if (!failed && bad < 0 && !isfinite(total)) bad = 0;
    PyObject **tuples = NULL;
    if (!failed && bad < 0) {
        /* Every object first, then the stores: a failed allocation stores nothing. */
        tuples = PyMem_Calloc((size_t)(2 * count + 1), sizeof(PyObject *));
        if (tuples == NULL) {
            PyErr_NoMemory();
            failed = 1;
        }
        for (Py_ssize_t k = 0; !failed && k < count; ++k) {
            PyObject *t = PyTuple_New(7);
            tuples[2 * k] = t;
            tuples[2 * k + 1] = PyLong_FromLongLong(ns[k]);
            if (t == NULL || tuples[2 * k + 1] == NULL) {
                failed = 1;
                break;
            }
            for (int i = 0; i < 7; ++i) {
                PyObject *f = PyFloat_FromDouble(v[7 * k + i]);
                if (f == NULL) {
                    failed = 1;
                    break;
                }
                PyTuple_SET_ITEM(t, i, f);
            }
        }
        if (!failed) {
            for (Py_ssize_t k = 0; k < count; ++k) {
                /* PyList_SetItem steals the reference (even when it fails)
                 * and drops the old item, whose __del__ may shrink a list:
                 * a store outside it is then an IndexError, not ignored. */
                PyObject *t = tuples[2 * k], *stamp = tuples[2 * k + 1];
                tuples[2 * k] = tuples[2 * k + 1] = NULL;
                if (failed) {
                    Py_DECREF(t);
                    Py_DECREF(stamp);
                    continue;
                }
                if (PyList_SetItem(args[5], row[k], t) < 0) {
                    Py_DECREF(stamp);
                    failed = 1;
                } else if (PyList_SetItem(args[6], row[k], stamp) < 0) {
                    failed = 1;
                }
            }
        }
        for (Py_ssize_t k = 0; k < 2 * count; ++k) Py_XDECREF(tuples[k]);
        PyMem_Free(tuples);
    }
    PyMem_Free(v);
    PyMem_Free(ns);
    PyMem_Free(row);
    PyBuffer_Release(&view);
    if (failed) return NULL;
    return PyLong_FromLong(bad);
}

/* 1 with v filled when obj is a finite float64 buffer of shape (3,) (any
 * stride); 0, with no error set, for anything else: the caller then takes
 * the Python path, whose checks name what is wrong. */
static int finite_vector3(PyObject *obj, double v[3]) {
    Py_buffer b;
    if (PyObject_GetBuffer(obj, &b, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = b.format ? b.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    int ok = f[0] == 'd' && f[1] == '\0' && b.itemsize == 8 && b.ndim == 1 && b.shape[0] == 3;
    if (ok) {
        for (int i = 0; i < 3; i++) memcpy(&v[i], (const char *)b.buf + i * b.strides[0], 8);
        ok = isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
    }
    PyBuffer_Release(&b);
    return ok;
}

/* vector3_or_none(v) -> (x, y, z) floats when v is a finite float64 (3,)
 * array, else None: the fast readers of RollPitchYaw and RigidTransform. */
static PyObject *py_vector3_or_none(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "vector3_or_none(v)");
        return NULL;
    }
    double v[3];
    if (!finite_vector3(args[0], v)) Py_RETURN_NONE;
    return Py_BuildValue("(ddd)", v[0], v[1], v[2]);
}

/* rpy_pose(angles, p) -> new (4, 4) pose [Rz(y) Ry(p) Rx(r), p] from a tuple
 * of three trusted finite angles and p; None unless p is a finite float64
 * (3,) array. RigidTransform(RollPitchYaw, p) in one call. */
static PyObject *py_rpy_pose(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 3) {
        PyErr_SetString(PyExc_TypeError, "rpy_pose((r, p, y), p)");
        return NULL;
    }
    double a[3], p[3], R[9], X[16];
    for (int i = 0; i < 3; i++) {
        a[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(args[0], i));
        if (a[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    if (!finite_vector3(args[1], p)) Py_RETURN_NONE;
    rotation_from_rpy(a[0], a[1], a[2], R);
    pose_of(R, p, X);
    return new_array(4, X);
}

/* rpy_matrices(angles, out) -> -1, or the first row with NaN/inf (out is then
 * partly written). angles: C-contiguous float64 (N, 3); out: writable
 * C-contiguous float64 (N, 3, 3) that receives Rz(y) Ry(p) Rx(r) of each row,
 * by the same formula as rpy_matrix (math.kernels.rotation_matrices_from_rpy). */
static PyObject *py_rpy_matrices(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "rpy_matrices(angles, out)");
        return NULL;
    }
    Py_buffer a, o;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &o, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    const char *f = a.format ? a.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    Py_ssize_t rows = a.len / 24;
    long bad = -1;
    if (!(f[0] == 'd' && f[1] == '\0') || a.len != rows * 24 || o.len != rows * 72) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&o);
        PyErr_SetString(PyExc_TypeError,
                        "rpy_matrices: angles must be float64 (N, 3) and out (N, 3, 3)");
        return NULL;
    }
    const double *v = a.buf;
    double *R = o.buf;
    for (Py_ssize_t k = 0; k < rows; ++k, v += 3, R += 9) {
        if (!(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]))) {
            bad = (long)k;
            break;
        }
        rotation_from_rpy(v[0], v[1], v[2], R);
    }
    PyBuffer_Release(&a);
    PyBuffer_Release(&o);
    return PyLong_FromLong(bad);
}

/* quaternion_matrix(q, zero_norm[, p]) -> new (3, 3) rotation of q, or (4, 4)
 * pose [R(q), p]; None unless q is a finite float64 (4,) with |q| >= zero_norm
 * and p a finite float64 (3,) (the caller's checks then name the fault). */
static PyObject *py_quaternion_matrix(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2 && n != 3) {
        PyErr_SetString(PyExc_TypeError, "quaternion_matrix(q, zero_norm[, p])");
        return NULL;
    }
    double zero = PyFloat_AsDouble(args[1]);
    if (zero == -1.0 && PyErr_Occurred()) return NULL;
    double q[16], p[16], u[4], R[9], X[16];
    Py_ssize_t r, c;
    if (load(args[0], q, &r, &c) < 0 || r != 4 || c != 1) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!unit_quaternion(q, zero, u)) Py_RETURN_NONE;
    rotation_from_unit_quaternion(u, R);
    if (n == 2) return new_array(3, R);
    if (load(args[2], p, &r, &c) < 0 || r != 3 || c != 1) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) Py_RETURN_NONE;
    pose_of(R, p, X);
    return new_array(4, X);
}

/* to_quaternion(R) -> new (4,) canonical unit quaternion [w, x, y, z], w >= 0. */
static PyObject *py_to_quaternion(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "to_quaternion(R)");
        return NULL;
    }
    double R[9], q[4];
    Py_ssize_t size;
    if (load_matrix(args[0], R, NULL, &size) < 0) return NULL;
    quaternion_from_rotation(R, q);
    return new_array(0, q);
}

/* rpy_from_rotation(R) -> (roll, pitch, yaw). */
static PyObject *py_rpy_from_rotation(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "rpy_from_rotation(R)");
        return NULL;
    }
    double R[9], rpy[3];
    Py_ssize_t size;
    if (load_matrix(args[0], R, NULL, &size) < 0) return NULL;
    rpy_from_rotation(R, rpy);
    return Py_BuildValue("(ddd)", rpy[0], rpy[1], rpy[2]);
}

/* multiply(A, B) -> new A B, for two (3, 3) rotations or two rigid (4, 4). */
static PyObject *py_multiply(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "multiply(A, B)");
        return NULL;
    }
    double RA[9], RB[9], XA[16], XB[16], R[9], X[16];
    Py_ssize_t size_a, size_b;
    if (load_matrix(args[0], RA, XA, &size_a) < 0 || load_matrix(args[1], RB, XB, &size_b) < 0)
        return NULL;
    if (size_a != size_b) {
        PyErr_SetString(PyExc_TypeError, "multiply(A, B) needs two arrays of one shape");
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = RA[3 * i] * RB[j] + RA[3 * i + 1] * RB[3 + j] + RA[3 * i + 2] * RB[6 + j];
    if (size_a == 3) return new_array(3, R);
    double p[3];
    for (int i = 0; i < 3; i++)
        p[i] = RA[3 * i] * XB[3] + RA[3 * i + 1] * XB[7] + RA[3 * i + 2] * XB[11] + XA[4 * i + 3];
    pose_of(R, p, X);
    return new_array(4, X);
}

/* invert(A) -> new inverse: Rᵀ of a (3, 3); [Rᵀ, -Rᵀ p] of a rigid (4, 4). */
static PyObject *py_invert(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "invert(A)");
        return NULL;
    }
    double R[9], X[16], T[9], Y[16];
    Py_ssize_t size;
    if (load_matrix(args[0], R, X, &size) < 0) return NULL;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T[3 * i + j] = R[3 * j + i];
    if (size == 3) return new_array(3, T);
    double p[3];
    for (int i = 0; i < 3; i++)
        p[i] = -(T[3 * i] * X[3] + T[3 * i + 1] * X[7] + T[3 * i + 2] * X[11]);
    pose_of(T, p, Y);
    return new_array(4, Y);
}

/* 0 when the rows m are a proper rotation within tolerance, 1 NaN/inf, 2 not
 * orthonormal (max |R R^T - I| > tolerance), 3 a reflection. */
static int status_of(const double m[9], double tolerance) {
    for (int k = 0; k < 9; k++)
        if (!isfinite(m[k])) return 1;
    double error = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            double dot = m[3 * i] * m[3 * j] + m[3 * i + 1] * m[3 * j + 1] +
                         m[3 * i + 2] * m[3 * j + 2] - (i == j ? 1.0 : 0.0);
            if (fabs(dot) > error) error = fabs(dot);
        }
    if (!(error <= tolerance)) return 2;
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    return det < 0 ? 3 : 0;
}

/* rotation_status(R, tolerance) -> 0 a proper rotation within tolerance,
 * 1 NaN/inf, 2 not orthonormal, 3 a reflection (the rotation block of a pose). */
static PyObject *py_rotation_status(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "rotation_status(R, tolerance)");
        return NULL;
    }
    double tolerance = PyFloat_AsDouble(args[1]);
    if (tolerance == -1.0 && PyErr_Occurred()) return NULL;
    double m[9];
    Py_ssize_t size;
    if (load_matrix(args[0], m, NULL, &size) < 0) return NULL;
    return PyLong_FromLong(status_of(m, tolerance));
}

/* rotation_of(A) -> new (3, 3) copy of the rotation block of a (3, 3) or (4, 4). */
static PyObject *py_rotation_of(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "rotation_of(A)");
        return NULL;
    }
    double R[9];
    Py_ssize_t size;
    if (load_matrix(args[0], R, NULL, &size) < 0) return NULL;
    return new_array(3, R);
}

/* rotation_copy(M, tolerance) -> a new (3, 3) copy of M when M is a float64
 * (3, 3) array (any strides) holding a proper rotation within tolerance;
 * None for anything else, which the caller's checks then name. */
static PyObject *py_rotation_copy(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "rotation_copy(M, tolerance)");
        return NULL;
    }
    double tolerance = PyFloat_AsDouble(args[1]);
    if (tolerance == -1.0 && PyErr_Occurred()) return NULL;
    double a[16];
    Py_ssize_t r, c;
    if (load(args[0], a, &r, &c) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (r != 3 || c != 3 || status_of(a, tolerance) != 0) Py_RETURN_NONE;
    return new_array(3, a);
}

/* identity_errors(A) -> (max |R - I|, max |p|) (p: 0.0 for a (3, 3)). */
static PyObject *py_identity_errors(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "identity_errors(A)");
        return NULL;
    }
    double R[9], X[16];
    Py_ssize_t size;
    if (load_matrix(args[0], R, X, &size) < 0) return NULL;
    double rotation = 0.0, translation = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double e = fabs(R[3 * i + j] - (i == j ? 1.0 : 0.0));
            if (!(e <= rotation)) rotation = e; /* NaN propagates */
        }
        if (size == 4) {
            double e = fabs(X[4 * i + 3]);
            if (!(e <= translation)) translation = e;
        }
    }
    return Py_BuildValue("(dd)", rotation, translation);
}

/* max_abs_difference(A, B): over the 9 entries of (3, 3)s or the top 3 rows of (4, 4)s. */
static PyObject *py_max_abs_difference(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "max_abs_difference(A, B)");
        return NULL;
    }
    double RA[9], RB[9], XA[16], XB[16];
    Py_ssize_t size_a, size_b;
    if (load_matrix(args[0], RA, XA, &size_a) < 0 || load_matrix(args[1], RB, XB, &size_b) < 0)
        return NULL;
    if (size_a != size_b) {
        PyErr_SetString(PyExc_TypeError, "max_abs_difference(A, B) needs one shape");
        return NULL;
    }
    double error = 0.0;
    for (int k = 0; k < 9; k++) {
        double e = fabs(RA[k] - RB[k]);
        if (!(e <= error)) error = e;
    }
    if (size_a == 4)
        for (int i = 0; i < 3; i++) {
            double e = fabs(XA[4 * i + 3] - XB[4 * i + 3]);
            if (!(e <= error)) error = e;
        }
    return PyFloat_FromDouble(error);
}

/* assemble(R, p) -> new (4, 4) pose [R, p] (R: the rotation of a (3, 3) or
 * (4, 4); p: a (3,) or the translation of a (4, 4)); None when p is not finite. */
static PyObject *py_assemble(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "assemble(R, p)");
        return NULL;
    }
    double R[9], a[16], p[3], X[16];
    Py_ssize_t size, r, c;
    if (load_matrix(args[0], R, NULL, &size) < 0 || load(args[1], a, &r, &c) < 0) return NULL;
    if (r == 3 && c == 1) {
        memcpy(p, a, sizeof p);
    } else if (r == 4 && c == 4) {
        p[0] = a[3];
        p[1] = a[7];
        p[2] = a[11];
    } else {
        PyErr_SetString(PyExc_TypeError, "assemble(R, p): p must be a (3,) or (4, 4) array");
        return NULL;
    }
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) Py_RETURN_NONE;
    pose_of(R, p, X);
    return new_array(4, X);
}

/* rpy_quaternion(r, p, y) -> new (4,): the product of the half-angle
 * quaternions, not canonicalised (Drake's RollPitchYaw::ToQuaternion). */
static PyObject *py_rpy_quaternion(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "rpy_quaternion(r, p, y)");
        return NULL;
    }
    double a[3], q[4];
    if (doubles(args, 3, a) < 0) return NULL;
    double c0 = cos(0.5 * a[0]), s0 = sin(0.5 * a[0]), c1 = cos(0.5 * a[1]), s1 = sin(0.5 * a[1]);
    double c2 = cos(0.5 * a[2]), s2 = sin(0.5 * a[2]);
    double c1_c2 = c1 * c2, s1_s2 = s1 * s2, s1_c2 = s1 * c2, c1_s2 = c1 * s2;
    q[0] = c0 * c1_c2 + s0 * s1_s2;
    q[1] = s0 * c1_c2 - c0 * s1_s2;
    q[2] = c0 * s1_c2 + s0 * c1_s2;
    q[3] = c0 * c1_s2 - s0 * s1_c2;
    return new_array(0, q);
}

/* polar_rotation(M (3, 3)) -> new (3, 3) rotation closest to M, or None.
 *
 * Newton's iteration for the orthogonal polar factor, X <- (g X + X^-T / g) / 2
 * with Higham's Frobenius-norm scaling g, which converges quadratically to
 * U Vᵀ of M's SVD. It answers only where that is the closest proper rotation
 * and the iteration is well conditioned: finite M with det M > 0 and
 * det M / |M|_F³ (a lower bound on the smallest over the largest singular
 * value) above 1e-8. Anything else returns None and the caller's SVD answers,
 * with its checks for singular and reflecting M. */
static PyObject *py_polar_rotation(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "polar_rotation(M)");
        return NULL;
    }
    double X[9], Y[9], a[16];
    Py_ssize_t r, c;
    if (load(args[0], a, &r, &c) < 0 || r != 3 || c != 3) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    memcpy(X, a, sizeof X);
    double norm2 = 0.0;
    for (int k = 0; k < 9; k++) {
        if (!isfinite(X[k])) Py_RETURN_NONE;
        norm2 += X[k] * X[k];
    }
    double det = X[0] * (X[4] * X[8] - X[5] * X[7]) - X[1] * (X[3] * X[8] - X[5] * X[6]) +
                 X[2] * (X[3] * X[7] - X[4] * X[6]);
    if (!(norm2 > 0.0) || !(det / (norm2 * sqrt(norm2)) > 1e-8)) Py_RETURN_NONE;
    for (int iteration = 0; iteration < 100; iteration++) {
        /* X^-T = cofactor(X) / det X */
        double C[9] = {
            X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
            X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
            X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
        double d = X[0] * C[0] + X[1] * C[1] + X[2] * C[2];
        if (!(d > 0.0)) Py_RETURN_NONE;
        double nx = 0.0, ni = 0.0;
        for (int k = 0; k < 9; k++) {
            C[k] /= d;
            nx += X[k] * X[k];
            ni += C[k] * C[k];
        }
        double g = sqrt(sqrt(ni / nx)), change = 0.0;
        for (int k = 0; k < 9; k++) {
            Y[k] = 0.5 * (g * X[k] + C[k] / g);
            change += (Y[k] - X[k]) * (Y[k] - X[k]);
        }
        memcpy(X, Y, sizeof X);
        /* Quadratic convergence: a step of 1e-9 leaves round-off behind. */
        if (change <= 1e-18) {
            if (change == 0.0 || iteration > 0) {
                double C2[9] = {
                    X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                    X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                    X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
                double d2 = X[0] * C2[0] + X[1] * C2[1] + X[2] * C2[2];
                for (int k = 0; k < 9; k++) X[k] = 0.5 * (X[k] + C2[k] / d2);
                return new_array(3, X);
            }
        }
    }
    Py_RETURN_NONE;
}

/* rpy_rates(kind, gimbal_cos, r, p, y, v0, v1, v2[, a0, a1, a2]) -> new array or
 * None: RollPitchYaw's rate methods, their one implementation (roll_pitch_yaw.py
 * only checks the arguments and words the gimbal-lock error). kind 0: w_AD_A
 * from rpyDt; 1: w_AD_D from rpyDt; 2: rpyDt from w_AD_A; 3: rpyDt from w_AD_D;
 * 4: the (3, 3) derivative of R_AD from rpyDt; 5: rpyDDt from rpyDt and
 * alpha_AD_A; 6: rpyDDt from rpyDt and alpha_AD_D. Kinds 2, 3, 5 and 6 divide
 * by cos(pitch) and return None where |cos(pitch)| < gimbal_cos, so that
 * Python raises the gimbal-lock error naming the method. */
static PyObject *py_rpy_rates(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 8 && n != 11) {
        PyErr_SetString(PyExc_TypeError, "rpy_rates(kind, gimbal_cos, r, p, y, v0, v1, v2[, a...])");
        return NULL;
    }
    long kind = PyLong_AsLong(args[0]);
    if (kind == -1 && PyErr_Occurred()) return NULL;
    double x[10];
    if (doubles(args + 1, n - 1, x) < 0) return NULL;
    double gimbal = x[0], r = x[1], p = x[2], y = x[3];
    const double *v = x + 4, *a = x + 7;
    double sr = sin(r), cr = cos(r), sp = sin(p), cp = cos(p), sy = sin(y), cy = cos(y);
    double out[16];
    if ((kind == 2 || kind == 3 || kind == 5 || kind == 6) && !(fabs(cp) >= gimbal))
        Py_RETURN_NONE;
    if ((kind == 5 || kind == 6) && n != 11) {
        PyErr_SetString(PyExc_TypeError, "rpy_rates: kinds 5 and 6 take an acceleration");
        return NULL;
    }
    switch (kind) {
    case 0: case 4: {
        out[0] = cp * cy * v[0] - sy * v[1];
        out[1] = cp * sy * v[0] + cy * v[1];
        out[2] = -sp * v[0] + v[2];
        if (kind == 0) return new_array(1, out);
        double R[9], D[9], wx = out[0], wy = out[1], wz = out[2];
        rotation_from_rpy(r, p, y, R);
        for (int j = 0; j < 3; j++) {
            D[j] = wy * R[6 + j] - wz * R[3 + j];
            D[3 + j] = wz * R[j] - wx * R[6 + j];
            D[6 + j] = wx * R[3 + j] - wy * R[j];
        }
        return new_array(3, D);
    }
    case 1:
        out[0] = v[0] - sp * v[2];
        out[1] = cr * v[1] + sr * cp * v[2];
        out[2] = -sr * v[1] + cr * cp * v[2];
        return new_array(1, out);
    case 2: case 5: {
        double b[3] = {v[0], v[1], v[2]};
        if (kind == 5) { /* alpha - Ṁ rpyDt */
            double p_dt = v[1], y_dt = v[2];
            b[0] = a[0] - ((-sp * p_dt * cy - cp * sy * y_dt) * v[0] - cy * y_dt * v[1]);
            b[1] = a[1] - ((-sp * p_dt * sy + cp * cy * y_dt) * v[0] - sy * y_dt * v[1]);
            b[2] = a[2] - (-cp * p_dt * v[0]);
        }
        out[0] = cy / cp * b[0] + sy / cp * b[1];
        out[1] = -sy * b[0] + cy * b[1];
        out[2] = cy * sp / cp * b[0] + sy * sp / cp * b[1] + b[2];
        return new_array(1, out);
    }
    case 3: case 6: {
        double b[3] = {v[0], v[1], v[2]};
        if (kind == 6) { /* alpha - Ṅ rpyDt */
            double r_dt = v[0], p_dt = v[1];
            b[0] = a[0] - (-cp * p_dt * v[2]);
            b[1] = a[1] - (-sr * r_dt * v[1] + (cr * cp * r_dt - sr * sp * p_dt) * v[2]);
            b[2] = a[2] - (-cr * r_dt * v[1] + (-sr * cp * r_dt - cr * sp * p_dt) * v[2]);
        }
        out[0] = b[0] + sr * sp / cp * b[1] + cr * sp / cp * b[2];
        out[1] = cr * b[1] - sr * b[2];
        out[2] = sr / cp * b[1] + cr / cp * b[2];
        return new_array(1, out);
    }
    default:
        PyErr_SetString(PyExc_ValueError, "rpy_rates: kind must be 0 to 6");
        return NULL;
    }
}

#define FASTCALL(name) (PyCFunction)(void (*)(void))(name), METH_FASTCALL

static PyMethodDef rotation_methods[] = {
    {"set_allocator", FASTCALL(py_set_allocator), "set_allocator(numpy.empty)"},
    {"rpy_matrix", FASTCALL(py_rpy_matrix),
     "rpy_matrix(r, p, y[, px, py, pz]) -> (3, 3) Rz(y) Ry(p) Rx(r), or the (4, 4) pose"},
    {"rpy_matrices", FASTCALL(py_rpy_matrices),
     "rpy_matrices(angles (N,3), out (N,3,3)) -> -1, or the first row with NaN/inf"},
    {"quaternion_poses", FASTCALL(py_quaternion_poses),
     "quaternion_poses(q (N,4), p (N,3) or None, out) -> -1, or the first unusable row"},
    {"pose_rows", FASTCALL(py_pose_rows),
     "pose_rows(rows list, order (7 indices: x y z, w x y z), out (N,4,4)) -> -1, or the\n"
     "first unusable row"},
    {"fill_template", FASTCALL(py_fill_template),
     "fill_template(template, numbers, size, numbers_at, (at, bytes)...) -> the template's\n"
     "bytes with each patch written at its offset and record k of numbers at numbers_at[k]"},
    {"matches_template", FASTCALL(py_matches_template),
     "matches_template(data, template, holes) -> whether data has the template's length\n"
     "and bytes outside the (start, end) holes"},
    {"pose_records", FASTCALL(py_pose_records),
     "pose_records(data, stamp_at, values_at, little, rows, values, stamps) -> -1 with\n"
     "values[rows[k]] = 7 float64 at data[values_at[k]] and stamps[rows[k]] = the int32\n"
     "sec and uint32 nanosec at data[stamp_at[k]] in ns, or the first record refused"},
    {"pose_rows_into", FASTCALL(py_pose_rows_into),
     "pose_rows_into(rows list, order, table (F,4,4), posed (F,) bool, slots int64 (N,),\n"
     "tolerance) -> -1 with table[slots[k]] = pose of rows[k], or the first unusable row\n"
     "(nothing written)"},
    {"vector3_or_none", FASTCALL(py_vector3_or_none),
     "vector3_or_none(v) -> (x, y, z) for a finite float64 (3,) array, else None"},
    {"rpy_pose", FASTCALL(py_rpy_pose),
     "rpy_pose((r, p, y), p) -> (4, 4) pose, None when p is not a finite float64 (3,)"},
    {"quaternion_matrix", FASTCALL(py_quaternion_matrix),
     "quaternion_matrix(q, zero_norm[, p]) -> (3, 3) or (4, 4), or None for unusable input"},
    {"to_quaternion", FASTCALL(py_to_quaternion),
     "to_quaternion(R) -> canonical [w, x, y, z], w >= 0"},
    {"rpy_from_rotation", FASTCALL(py_rpy_from_rotation),
     "rpy_from_rotation(R) -> (roll, pitch, yaw), Drake's algorithm"},
    {"multiply", FASTCALL(py_multiply), "multiply(A, B) -> A B (rotations or rigid transforms)"},
    {"invert", FASTCALL(py_invert), "invert(A) -> inverse of a rotation or rigid transform"},
    {"rotation_of", FASTCALL(py_rotation_of),
     "rotation_of(A) -> (3, 3) copy of the rotation block of a rotation or pose"},
    {"rotation_copy", FASTCALL(py_rotation_copy),
     "rotation_copy(M, tolerance) -> (3, 3) copy of a proper rotation, else None"},
    {"rotation_status", FASTCALL(py_rotation_status),
     "rotation_status(R, tolerance) -> 0 ok, 1 NaN/inf, 2 not orthonormal, 3 reflection"},
    {"identity_errors", FASTCALL(py_identity_errors),
     "identity_errors(A) -> (max |R - I|, max |p|)"},
    {"max_abs_difference", FASTCALL(py_max_abs_difference),
     "max_abs_difference(A, B) over the rotation and translation entries"},
    {"assemble", FASTCALL(py_assemble), "assemble(R, p) -> (4, 4) pose, None when p is not finite"},
    {"polar_rotation", FASTCALL(py_polar_rotation),
     "polar_rotation(M) -> closest rotation by Newton's polar iteration, or None"},
    {"rpy_rates", FASTCALL(py_rpy_rates),
     "rpy_rates(kind, gimbal_cos, r, p, y, v0, v1, v2[, a0, a1, a2]) -> RollPitchYaw rates"},
    {"rpy_quaternion", FASTCALL(py_rpy_quaternion),
     "rpy_quaternion(r, p, y) -> [w, x, y, z], Drake's RollPitchYaw::ToQuaternion"},
    {NULL, NULL, 0, NULL},
};

/* Adds the functions above to the module as a submodule-like namespace,
 * geometry_core._native.rotation. */
int gc_rotation_register(PyObject *module) {
    static struct PyModuleDef def = {
        .m_base = PyModuleDef_HEAD_INIT,
        .m_name = "geometry_core._native.rotation",
        .m_doc = "Single-object kernels of geometry_core.math (see csrc/rotation.c).",
        .m_size = -1,
        .m_methods = rotation_methods,
    };
    PyObject *sub = PyModule_Create(&def);
    if (sub == NULL) return -1;
    if (PyModule_AddObject(module, "rotation", sub) < 0) {
        Py_DECREF(sub);
        return -1;
    }
    return 0;
}
