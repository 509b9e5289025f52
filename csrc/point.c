/* Signed distance from a point to a shape: mirrors point_distance.py. (stub) */
#include "gc.h"

int gc_point_in_G(const gc_shape *G, const double p_GQ[3], gc_point_result *out) {
    (void)G; (void)p_GQ; (void)out;
    return GC_NOT_HANDLED;
}

int gc_point_distance(const gc_shape *G, const double X_WG[16], const double p_WQ[3],
                      gc_point_result *out) {
    double p_GQ[3];
    gc_to_local(X_WG, p_WQ, p_GQ);
    int status = gc_point_in_G(G, p_GQ, out);
    if (status == GC_OK) {
        double g[3];
        gc_rotate(X_WG, out->grad, g);
        gc_copy(g, out->grad);
    }
    return status;
}
