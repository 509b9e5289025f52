/* The certificate's ascent test and the direction search: mirrors
 * direction_search.py. (stub) */
#include "gc.h"

double gc_ascent_gap(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                     const double X_WB[16], const gc_pair_result *r) {
    (void)A; (void)X_WA; (void)B; (void)X_WB; (void)r;
    return 0.0;
}

int gc_direction_search(const gc_shape *A, const double X_WA[16], const gc_shape *B,
                        const double X_WB[16], const double n0_W[3], gc_pair_result *out) {
    (void)A; (void)X_WA; (void)B; (void)X_WB; (void)n0_W; (void)out;
    return GC_NOT_HANDLED;
}
