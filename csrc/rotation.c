/* Single-object kernels of geometry_core.math: one rotation or pose at a time.
 *
 * RotationMatrix and RigidTransform keep a float64 (3, 3) or (4, 4) numpy
 * array; the Python side allocates the result array (numpy.empty) and these
 * functions fill it, so that one call replaces a handful of numpy calls whose
 * fixed cost (about a microsecond each) dwarfs the arithmetic of one 3x3.
 * Arrays come in through the buffer protocol: C-contiguous float64 with 9
 * elements (a rotation, rows of 3) or 16 (a pose, rows of 4, the rotation in
 * the top-left block). Each function has a pure-Python twin in
 * geometry_core/math/_scalar.py (the same formulas, the fallback when the
 * extension is not built), and test/math/test_native_math.py holds them
 * to the same answers.
 *
 * The checks that name a culprit stay in Python: a function that meets input
 * it does not handle (NaN, a zero quaternion) returns False, and the caller
 * takes the Python path that raises the right error.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>

/* A float64 C-contiguous buffer of the size `want` asks for (see below). */
static int read_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t want, int flags) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | flags) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    Py_ssize_t n = view->len / 8;
    /* want > 0: exactly want elements; 0: a (3, 3) or (4, 4); -1: a (3,) or (4, 4). */
    int ok = f[0] == 'd' && f[1] == '\0' && view->itemsize == 8 &&
             (want > 0 ? n == want : (n == (want == 0 ? 9 : 3) || n == 16));
    if (!ok) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError,
                        "expected a C-contiguous float64 array of the expected size");
        return -1;
    }
    return 0;
}

static int matrix_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t want) {
    return read_buffer(obj, view, want, 0);
}

/* The result array, written in place. */
static int out_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t want) {
    return read_buffer(obj, view, want, PyBUF_WRITABLE);
}

/* Stride of the rotation rows: 3 in a (3, 3), 4 in a (4, 4). */
static inline Py_ssize_t stride_of(const Py_buffer *view) { return view->len / 8 == 9 ? 3 : 4; }

static void write_rotation(double *out, Py_ssize_t s, const double R[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out[i * s + j] = R[3 * i + j];
}

static void read_rotation(const double *in, Py_ssize_t s, double R[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = in[i * s + j];
}

static void finish_pose(double *out, const double p[3]) {
    out[3] = p[0];
    out[7] = p[1];
    out[11] = p[2];
    out[12] = out[13] = out[14] = 0.0;
    out[15] = 1.0;
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

static double wrap_to_pi(double angle) {
    if (angle > M_PI) return angle - 2.0 * M_PI;
    if (angle < -M_PI) return angle + 2.0 * M_PI;
    return angle;
}

/* Drake's RollPitchYaw(RotationMatrix) (see _rpy_from_quaternion_and_matrix). */
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

/* from_rpy(out, r, p, y[, px, py, pz]): out (3, 3) gets R; out (4, 4) the pose. */
static PyObject *py_from_rpy(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 4 && n != 7) {
        PyErr_SetString(PyExc_TypeError, "from_rpy(out, r, p, y[, px, py, pz])");
        return NULL;
    }
    double v[6];
    for (Py_ssize_t k = 1; k < n; k++) {
        v[k - 1] = PyFloat_AsDouble(args[k]);
        if (v[k - 1] == -1.0 && PyErr_Occurred()) return NULL;
    }
    Py_buffer out;
    if (out_buffer(args[0], &out, n == 7 ? 16 : 0) < 0) return NULL;
    double R[9];
    rotation_from_rpy(v[0], v[1], v[2], R);
    write_rotation(out.buf, stride_of(&out), R);
    if (n == 7) finish_pose(out.buf, v + 3);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* from_quaternion(out, q (4,), zero_norm[, p (3,)]) -> bool: False (out
 * untouched) when q or p is not finite or q is zero. */
static PyObject *py_from_quaternion(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3 && n != 4) {
        PyErr_SetString(PyExc_TypeError, "from_quaternion(out, q, zero_norm[, p])");
        return NULL;
    }
    double zero = PyFloat_AsDouble(args[2]);
    if (zero == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer out, qv, pv;
    if (out_buffer(args[0], &out, n == 4 ? 16 : 0) < 0) return NULL;
    if (matrix_buffer(args[1], &qv, 4) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    double u[4], p[3] = {0.0, 0.0, 0.0};
    int ok = unit_quaternion(qv.buf, zero, u);
    PyBuffer_Release(&qv);
    if (ok && n == 4) {
        if (matrix_buffer(args[3], &pv, 3) < 0) {
            PyBuffer_Release(&out);
            return NULL;
        }
        const double *pp = pv.buf;
        for (int k = 0; k < 3; k++) {
            p[k] = pp[k];
            if (!isfinite(p[k])) ok = 0;
        }
        PyBuffer_Release(&pv);
    }
    if (ok) {
        double R[9];
        rotation_from_unit_quaternion(u, R);
        write_rotation(out.buf, stride_of(&out), R);
        if (n == 4) finish_pose(out.buf, p);
    }
    PyBuffer_Release(&out);
    return PyBool_FromLong(ok);
}

/* to_quaternion(out (4,), R): canonical unit quaternion [w, x, y, z], w >= 0. */
static PyObject *py_to_quaternion(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "to_quaternion(out, R)");
        return NULL;
    }
    Py_buffer out, in;
    if (out_buffer(args[0], &out, 4) < 0) return NULL;
    if (matrix_buffer(args[1], &in, 0) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    double R[9];
    read_rotation(in.buf, stride_of(&in), R);
    quaternion_from_rotation(R, out.buf);
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* rpy_from_rotation(R) -> (roll, pitch, yaw). */
static PyObject *py_rpy_from_rotation(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "rpy_from_rotation(R)");
        return NULL;
    }
    Py_buffer in;
    if (matrix_buffer(args[0], &in, 0) < 0) return NULL;
    double R[9], rpy[3];
    read_rotation(in.buf, stride_of(&in), R);
    PyBuffer_Release(&in);
    rpy_from_rotation(R, rpy);
    return Py_BuildValue("(ddd)", rpy[0], rpy[1], rpy[2]);
}

/* multiply(out, A, B): out = A B, three (3, 3) or three rigid (4, 4). */
static PyObject *py_multiply(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "multiply(out, A, B)");
        return NULL;
    }
    Py_buffer out, a, b;
    if (out_buffer(args[0], &out, 0) < 0) return NULL;
    Py_ssize_t size = out.len / 8;
    if (matrix_buffer(args[1], &a, size) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (matrix_buffer(args[2], &b, size) < 0) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&out);
        return NULL;
    }
    const double *A = a.buf, *B = b.buf;
    double C[16];
    Py_ssize_t s = stride_of(&out);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            C[i * s + j] = A[i * s] * B[j] + A[i * s + 1] * B[s + j] + A[i * s + 2] * B[2 * s + j];
        if (s == 4)
            C[i * 4 + 3] = A[i * 4] * B[3] + A[i * 4 + 1] * B[7] + A[i * 4 + 2] * B[11] + A[i * 4 + 3];
    }
    double *O = out.buf;
    for (Py_ssize_t k = 0; k < 3 * s; k++) O[k] = C[k];
    if (s == 4) {
        O[12] = O[13] = O[14] = 0.0;
        O[15] = 1.0;
    }
    PyBuffer_Release(&b);
    PyBuffer_Release(&a);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* invert(out, A): Rᵀ of a (3, 3); [Rᵀ, -Rᵀ p; 0 0 0 1] of a rigid (4, 4). */
static PyObject *py_invert(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "invert(out, A)");
        return NULL;
    }
    Py_buffer out, a;
    if (out_buffer(args[0], &out, 0) < 0) return NULL;
    if (matrix_buffer(args[1], &a, out.len / 8) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    const double *A = a.buf;
    double *O = out.buf, R[9], T[9];
    Py_ssize_t s = stride_of(&out);
    read_rotation(A, s, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T[3 * i + j] = R[3 * j + i];
    if (s == 4) {
        double p[3];
        for (int i = 0; i < 3; i++)
            p[i] = -(T[3 * i] * A[3] + T[3 * i + 1] * A[7] + T[3 * i + 2] * A[11]);
        write_rotation(O, 4, T);
        finish_pose(O, p);
    } else {
        write_rotation(O, 3, T);
    }
    PyBuffer_Release(&a);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
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
    Py_buffer in;
    if (matrix_buffer(args[0], &in, 0) < 0) return NULL;
    double m[9];
    read_rotation(in.buf, stride_of(&in), m);
    PyBuffer_Release(&in);
    for (int k = 0; k < 9; k++)
        if (!isfinite(m[k])) return PyLong_FromLong(1);
    double error = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            double dot = m[3 * i] * m[3 * j] + m[3 * i + 1] * m[3 * j + 1] +
                         m[3 * i + 2] * m[3 * j + 2] - (i == j ? 1.0 : 0.0);
            if (fabs(dot) > error) error = fabs(dot);
        }
    if (!(error <= tolerance)) return PyLong_FromLong(2);
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    return PyLong_FromLong(det < 0 ? 3 : 0);
}

/* identity_errors(A) -> (max |R - I|, max |p|) (p: 0.0 for a (3, 3)). */
static PyObject *py_identity_errors(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "identity_errors(A)");
        return NULL;
    }
    Py_buffer in;
    if (matrix_buffer(args[0], &in, 0) < 0) return NULL;
    const double *A = in.buf;
    Py_ssize_t s = stride_of(&in);
    double rotation = 0.0, translation = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double e = fabs(A[i * s + j] - (i == j ? 1.0 : 0.0));
            if (!(e <= rotation)) rotation = e;  /* NaN propagates */
        }
        if (s == 4) {
            double e = fabs(A[i * 4 + 3]);
            if (!(e <= translation)) translation = e;
        }
    }
    PyBuffer_Release(&in);
    return Py_BuildValue("(dd)", rotation, translation);
}

/* max_abs_difference(A, B): over the 9 entries of (3, 3)s or the top 3 rows of (4, 4)s. */
static PyObject *py_max_abs_difference(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "max_abs_difference(A, B)");
        return NULL;
    }
    Py_buffer a, b;
    if (matrix_buffer(args[0], &a, 0) < 0) return NULL;
    if (matrix_buffer(args[1], &b, a.len / 8) < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    const double *A = a.buf, *B = b.buf;
    Py_ssize_t count = stride_of(&a) * 3;
    double error = 0.0;
    for (Py_ssize_t k = 0; k < count; k++) {
        double e = fabs(A[k] - B[k]);
        if (!(e <= error)) error = e;
    }
    PyBuffer_Release(&b);
    PyBuffer_Release(&a);
    return PyFloat_FromDouble(error);
}

/* assemble(out (4, 4), R, p) -> bool: the pose [R, p], R the rotation of a
 * (3, 3) or (4, 4), p a (3,) or the translation column of a (4, 4); False
 * (out untouched) when p is not finite. */
static PyObject *py_assemble(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "assemble(out, R, p)");
        return NULL;
    }
    Py_buffer out, rv, pv;
    if (out_buffer(args[0], &out, 16) < 0) return NULL;
    if (matrix_buffer(args[1], &rv, 0) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (matrix_buffer(args[2], &pv, -1) < 0) {
        PyBuffer_Release(&rv);
        PyBuffer_Release(&out);
        return NULL;
    }
    const double *P = pv.buf;
    double p[3];
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        p[k] = pv.len / 8 == 16 ? P[4 * k + 3] : P[k];
        if (!isfinite(p[k])) ok = 0;
    }
    if (ok) {
        double R[9];
        read_rotation(rv.buf, stride_of(&rv), R);
        write_rotation(out.buf, 4, R);
        finish_pose(out.buf, p);
    }
    PyBuffer_Release(&pv);
    PyBuffer_Release(&rv);
    PyBuffer_Release(&out);
    return PyBool_FromLong(ok);
}

/* rpy_to_quaternion(out (4,), r, p, y): the product of the half-angle
 * quaternions, not canonicalised (Drake's RollPitchYaw::ToQuaternion). */
static PyObject *py_rpy_to_quaternion(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    if (n != 4) {
        PyErr_SetString(PyExc_TypeError, "rpy_to_quaternion(out, r, p, y)");
        return NULL;
    }
    double a[3];
    for (int k = 0; k < 3; k++) {
        a[k] = PyFloat_AsDouble(args[k + 1]);
        if (a[k] == -1.0 && PyErr_Occurred()) return NULL;
    }
    Py_buffer out;
    if (out_buffer(args[0], &out, 4) < 0) return NULL;
    double c0 = cos(0.5 * a[0]), s0 = sin(0.5 * a[0]), c1 = cos(0.5 * a[1]), s1 = sin(0.5 * a[1]);
    double c2 = cos(0.5 * a[2]), s2 = sin(0.5 * a[2]);
    double c1_c2 = c1 * c2, s1_s2 = s1 * s2, s1_c2 = s1 * c2, c1_s2 = c1 * s2;
    double *q = out.buf;
    q[0] = c0 * c1_c2 + s0 * s1_s2;
    q[1] = s0 * c1_c2 - c0 * s1_s2;
    q[2] = c0 * s1_c2 + s0 * c1_s2;
    q[3] = c0 * c1_s2 - s0 * s1_c2;
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyMethodDef rotation_methods[] = {
    {"assemble", (PyCFunction)(void (*)(void))py_assemble, METH_FASTCALL,
     "assemble(out (4, 4), R, p) -> False when p is not finite"},
    {"rpy_to_quaternion", (PyCFunction)(void (*)(void))py_rpy_to_quaternion, METH_FASTCALL,
     "rpy_to_quaternion(out (4,), r, p, y): Drake's RollPitchYaw::ToQuaternion"},
    {"from_rpy", (PyCFunction)(void (*)(void))py_from_rpy, METH_FASTCALL,
     "from_rpy(out, r, p, y[, px, py, pz]): R = Rz(y) Ry(p) Rx(r) into a (3, 3), or the pose "
     "[R, p] into a (4, 4)"},
    {"from_quaternion", (PyCFunction)(void (*)(void))py_from_quaternion, METH_FASTCALL,
     "from_quaternion(out, q, zero_norm[, p]) -> False when q or p is unusable"},
    {"to_quaternion", (PyCFunction)(void (*)(void))py_to_quaternion, METH_FASTCALL,
     "to_quaternion(out (4,), R): canonical [w, x, y, z], w >= 0"},
    {"rpy_from_rotation", (PyCFunction)(void (*)(void))py_rpy_from_rotation, METH_FASTCALL,
     "rpy_from_rotation(R) -> (roll, pitch, yaw), Drake's algorithm"},
    {"multiply", (PyCFunction)(void (*)(void))py_multiply, METH_FASTCALL,
     "multiply(out, A, B): out = A B for (3, 3) rotations or (4, 4) rigid transforms"},
    {"invert", (PyCFunction)(void (*)(void))py_invert, METH_FASTCALL,
     "invert(out, A): inverse of a (3, 3) rotation or a (4, 4) rigid transform"},
    {"rotation_status", (PyCFunction)(void (*)(void))py_rotation_status, METH_FASTCALL,
     "rotation_status(R, tolerance) -> 0 ok, 1 NaN/inf, 2 not orthonormal, 3 reflection"},
    {"identity_errors", (PyCFunction)(void (*)(void))py_identity_errors, METH_FASTCALL,
     "identity_errors(A) -> (max |R - I|, max |p|)"},
    {"max_abs_difference", (PyCFunction)(void (*)(void))py_max_abs_difference, METH_FASTCALL,
     "max_abs_difference(A, B) over the rotation and translation entries"},
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
