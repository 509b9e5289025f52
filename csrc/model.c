/* Model: one collision model's shapes, frames and filters, and the batch queries. (stub) */
#include "gc_model.h"

int gc_model_register(PyObject *module) {
    (void)module;
    return 0;
}
