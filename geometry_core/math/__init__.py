"""geometry_core.math: rotations, poses and their array kernels (Drake's pydrake.math).

Public names, with Drake's meaning and snake_case method names:

- :class:`RotationMatrix`, :class:`RollPitchYaw`, :class:`RigidTransform`;
- :func:`compute_basis_from_axis`;
- quaternion helpers (order ``[w, x, y, z]`` inside the library), from
  :mod:`geometry_core.math.quaternion`;
- vectorised kernels on stacks of arrays, from :mod:`geometry_core.math.kernels`.

Frames follow Drake's monogram notation (X_AB, R_AB, p_AoBo_A); angles are
radians, lengths metres.

The math layer is the bottom of the dependency stack: it imports numpy,
transforms3d and ``geometry_core.tolerances`` only, and must never import
scene_graph, proximity, fcl, lcm or ROS.
"""

from geometry_core.math.kernels import (
    fill_template,
    inverse_matrix4,
    matches_template,
    matrix4_from_pose_rows,
    matrix4_from_quaternions_and_positions,
    read_pose_records,
    rotation_matrices_from_rpy,
    validate_matrix4s,
    validate_rotation_matrices,
)
from geometry_core.math.orthonormal_basis import compute_basis_from_axis
from geometry_core.math.quaternion import (
    normalize_quaternion,
    quaternion_to_rotation_matrix,
    quaternion_wxyz_to_xyzw,
    quaternion_xyzw_to_wxyz,
    quaternions_to_rotation_matrices,
    roll_pitch_yaw_to_quaternion,
    rotation_matrix_to_quaternion,
)
from geometry_core.math.rigid_transform import RigidTransform
from geometry_core.math.roll_pitch_yaw import RollPitchYaw
from geometry_core.math.rotation_matrix import RotationMatrix

__all__ = [
    "RigidTransform",
    "RollPitchYaw",
    "RotationMatrix",
    "compute_basis_from_axis",
    "inverse_matrix4",
    "matrix4_from_pose_rows",
    "fill_template",
    "matches_template",
    "read_pose_records",
    "matrix4_from_quaternions_and_positions",
    "normalize_quaternion",
    "quaternion_to_rotation_matrix",
    "quaternion_wxyz_to_xyzw",
    "quaternion_xyzw_to_wxyz",
    "quaternions_to_rotation_matrices",
    "roll_pitch_yaw_to_quaternion",
    "rotation_matrices_from_rpy",
    "rotation_matrix_to_quaternion",
    "validate_matrix4s",
    "validate_rotation_matrices",
]
