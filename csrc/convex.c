/* Support functions and the convex solver: mirrors support.py, convex_solver.py. (stub) */
#include "gc.h"

int gc_halfspace_pair(const double X_WH[16], const gc_shape *B, const double X_WB[16],
                      gc_pair_result *out) {
    (void)X_WH; (void)B; (void)X_WB; (void)out;
    return GC_NOT_HANDLED;
}

int gc_convex_pair(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                   const double X_WB[16], gc_pair_result *out) {
    (void)A; (void)X_WA; (void)B; (void)X_WB; (void)out;
    return GC_NOT_HANDLED;
}

double gc_support_value_W(const gc_shape *G, const double X_WG[16], const double d_W[3]) {
    (void)G; (void)X_WG; (void)d_W;
    return 0.0;
}
