/* Exact pairs: mirrors exact_pairs.py. (stub) */
#include "gc.h"

int gc_exact_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                  const double X_WB[16], gc_pair_result *out) {
    (void)A; (void)X_WA; (void)B; (void)X_WB; (void)out;
    return GC_NOT_HANDLED;
}
