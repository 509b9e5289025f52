"""One rotation or pose at a time: the compiled calls of csrc/rotation.c (private).

The classes for single objects (RotationMatrix, RollPitchYaw,
RigidTransform) take this lean path; stacks of N poses go through the
batched numpy kernels (``kernels.py``), whose per-call overhead (array
checks, reductions, broadcasting) dwarfs the arithmetic of one 3x3.

Every operation here (``matrix3_from_rpy``, ``multiply``, ``invert``,
``rpy_of``, ``rpy_rates``, ...) is one call into ``csrc/rotation.c`` (it
allocates its result through ``numpy.empty``), the one implementation of
its formulas (Drake's, see the C); no Python copy of them exists.
``test/math/test_native_math.py`` checks them against scipy's rotations and
numpy's linear algebra, ``test/math/test_roll_pitch_yaw.py`` the rates
against finite differences, and ``test/math/test_drake_differential.py``
all of them against pydrake.

The ``*_or_none`` readers are fast paths: they accept only the common,
valid input (a float64 array of the right shape with finite entries) and
return None for anything else, so that the caller falls back to the full
checks in ``_checks`` and their error messages.

This module imports the standard library, numpy and
``geometry_core.native`` only; it must never import scene_graph,
proximity, fcl, lcm or ROS.
"""

from __future__ import annotations

import numpy as np

from geometry_core import native

# --- one compiled call each (csrc/rotation.c) ------------------------------------------

# Bound directly: they read arrays of any layout and allocate their results
# with numpy.empty, so no Python frame stands between.
_c = native.rotation
_c.set_allocator(np.empty)
matrix3_from_rpy = _c.rpy_matrix
matrix4_from_rpy = _c.rpy_matrix
#: ``(x, y, z)`` floats of a finite float64 (3,) array, else None.
vector3_or_none = _c.vector3_or_none
#: RigidTransform(RollPitchYaw, p): the pose, or None when p is not a finite (3,).
pose_from_rpy = _c.rpy_pose
#: Rotation matrices of N roll-pitch-yaw rows into an (N, 3, 3) out; -1 or the first bad row.
rpy_matrices = _c.rpy_matrices
#: Rotations (p None) or poses of N quaternion rows into out; -1 or the first bad row.
quaternion_poses = _c.quaternion_poses
pose_rows = _c.pose_rows
#: Poses of N rows of numbers into rows of a pose table (checked); -1 or the first bad row.
pose_rows_into = _c.pose_rows_into
#: Stamped pose records at byte offsets of a buffer into two lists (checked); -1 or the first bad.
pose_records = _c.pose_records
#: A copy of a bytes template with patches and fixed-size records written at offsets.
fill_template = _c.fill_template
#: Whether bytes equal a template outside given (start, end) holes.
matches_template = _c.matches_template
matrix3_from_quaternion = _c.quaternion_matrix
matrix4_from_quaternion = _c.quaternion_matrix
quaternion_of = _c.to_quaternion
rpy_of = _c.rpy_from_rotation
multiply = _c.multiply
invert = _c.invert
rotation_status = _c.rotation_status
#: A copy of a float64 (3, 3) proper rotation within a tolerance, else None.
rotation_copy = _c.rotation_copy
rotation_of = _c.rotation_of
identity_errors = _c.identity_errors
max_abs_difference = _c.max_abs_difference
assemble = _c.assemble
rpy_quaternion = _c.rpy_quaternion
polar_rotation = _c.polar_rotation
rpy_rates = _c.rpy_rates
