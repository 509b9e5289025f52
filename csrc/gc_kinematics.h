/* A kinematic chain as csrc/kinematics.c reads it, for the batch queries
 * that pose a robot's frames themselves (model.c's chain_min_distances). */
#ifndef GEOMETRY_CORE_GC_KINEMATICS_H
#define GEOMETRY_CORE_GC_KINEMATICS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { JOINT_FIXED = 0, JOINT_REVOLUTE = 1, JOINT_PRISMATIC = 2 };

/* The chain's description, read from Python buffers (gc_chain_parse). */
typedef struct {
    Py_ssize_t L;                   /* links */
    const double *X_PJ;             /* (L, 4, 4) joint origin in the parent link */
    const double *axis;             /* (L, 3) unit axis in the joint frame */
    const int *kind;                /* (L,) JOINT_* */
    const int *parent;              /* (L,) parent link, -1 for a root */
    const int *column;              /* (L,) position column, -1 when no position moves it */
    const double *multiplier;       /* (L,) mimic multiplier (1 otherwise) */
    const double *offset;           /* (L,) mimic offset (0 otherwise) */
    double *K2;                     /* (L, 3, 3) K^2 of each axis (gc_chain_parse) */
    Py_buffer views[7];
    int nviews;
} gc_chain;

/* Reads the seven arrays of a chain (X_PJ, axis, kind, parent, column,
 * multiplier, offset) from args[0..6]; -1 with a Python error. */
int gc_chain_parse(PyObject *const *args, gc_chain *c);
void gc_chain_release(gc_chain *c);
/* The largest position column the chain reads (-1 when none). */
int gc_chain_max_column(const gc_chain *c);

/* The frames of a scene graph for one configuration q: X_PF (F, 4, 4) holds
 * every frame's pose in its parent, of which the rows link_slot[l] are
 * overwritten with link l's pose at q; X_WF (F, 4, 4) receives the world
 * poses, composed parents first exactly as compose_world does (a frame whose
 * parent slot is 0, the world, keeps X_PF). No Python, no GIL. */
/* Checks link_slot (L,) int32 and parent_slot (F,) int32 for
 * gc_chain_pose_frames; -1 with a Python error. */
int gc_chain_check_slots(const gc_chain *c, const Py_buffer *link_slot,
                         const Py_buffer *parent_slot, Py_ssize_t F);
void gc_chain_pose_frames(const gc_chain *c, const double *q, const int *link_slot,
                          const int *parent_slot, Py_ssize_t F, double *X_PF, double *X_WF);

/* Adds sign * nhat . dp/dq of point p (W) fixed on link `link` to row (n
 * position columns), the links posed at X_WF[link_slot[l]]. */
void gc_chain_add_point_row(const gc_chain *c, const double *X_WF, const int *link_slot,
                            int link, const double p[3], const double nhat[3], double sign,
                            double *row);

#endif
