"""Per-call cost of every RigidTransform, RotationMatrix and RollPitchYaw operation, beside pydrake.

Usage::

    python -m bench.math_ops                  # prints the table
    python -m bench.math_ops --quick          # fewer, shorter rounds
    python -m bench.math_ops --write-docs    # also docs/benchmarks.md's table and plot

Each operation is a pair of calls that do the same thing, one on
geometry_core's objects and one on pydrake's, on inputs built before timing
(a caller holds them already). The two take turns: every round times a
batch of calls of each, in alternating order, so a drift in machine speed
hits both alike. The table gives the median per-call time of each and the
median (min–max) of the per-round ratio ours / pydrake. Quaternions are
``[w, x, y, z]`` arrays for us and ``Quaternion`` objects for pydrake, as
each library takes them. Nothing here asserts a time.
"""

from __future__ import annotations

import datetime
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from bench.run import _version, emit_table, table_parser

SECTION = "math-bench"


def operations() -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    """(label, ours, pydrake) for every operation, on the same prebuilt inputs."""
    from pydrake.common.eigen_geometry import AngleAxis, Quaternion
    from pydrake.math import RigidTransform as DX
    from pydrake.math import RollPitchYaw as DRpy
    from pydrake.math import RotationMatrix as DR

    from geometry_core import RigidTransform, RollPitchYaw, RotationMatrix

    r, p, y = 0.3, -0.7, 1.1
    rpy_array = np.array([r, p, y])
    q = np.array([0.8, -0.2, 0.5, 0.26])
    q /= np.linalg.norm(q)
    dq = Quaternion(q)
    axis = np.array([0.36, 0.48, 0.8])
    pos = np.array([0.1, -0.2, 0.3])
    vs = np.arange(30.0).reshape(3, 10)
    rate = np.array([0.2, -0.4, 0.9])
    accel = np.array([1.5, 0.3, -0.8])

    rpy, drpy = RollPitchYaw(r, p, y), DRpy(r, p, y)
    R, dR = RotationMatrix(rpy), DR(drpy)
    M = R.matrix()
    R2, dR2 = RotationMatrix.make_z_rotation(0.4), DR.MakeZRotation(0.4)
    near = M + 1e-3 * np.array([[0.3, -0.1, 0.2], [0.1, 0.4, -0.2], [-0.3, 0.2, 0.1]])
    X, dX = RigidTransform(R, pos), DX(dR, pos)
    X2, dX2 = RigidTransform(R2, -pos), DX(dR2, -pos)
    M4, M34 = X.get_as_matrix4(), X.get_as_matrix34()
    identity_R, identity_dR = RotationMatrix(), DR()
    identity_X, identity_dX = RigidTransform(), DX()
    scratch_R, scratch_dR = RotationMatrix(), DR()
    scratch_X, scratch_dX = RigidTransform(), DX()

    return [
        # --- RollPitchYaw
        ("RollPitchYaw(r, p, y)", lambda: RollPitchYaw(r, p, y), lambda: DRpy(r, p, y)),
        ("RollPitchYaw(rpy array)", lambda: RollPitchYaw(rpy_array), lambda: DRpy(rpy_array)),
        ("RollPitchYaw(R)", lambda: RollPitchYaw(R), lambda: DRpy(dR)),
        ("RollPitchYaw(quaternion=)", lambda: RollPitchYaw(quaternion=q),
         lambda: DRpy(quaternion=dq)),
        ("RollPitchYaw(matrix=)", lambda: RollPitchYaw(matrix=M), lambda: DRpy(matrix=M)),
        ("rpy.vector()", rpy.vector, drpy.vector),
        ("rpy.roll_angle()", rpy.roll_angle, drpy.roll_angle),
        ("rpy.pitch_angle()", rpy.pitch_angle, drpy.pitch_angle),
        ("rpy.yaw_angle()", rpy.yaw_angle, drpy.yaw_angle),
        ("rpy.to_quaternion()", rpy.to_quaternion, drpy.ToQuaternion),
        ("rpy.to_rotation_matrix()", rpy.to_rotation_matrix, drpy.ToRotationMatrix),
        ("rpy.calc_angular_velocity_in_parent_from_rpy_dt",
         lambda: rpy.calc_angular_velocity_in_parent_from_rpy_dt(rate),
         lambda: drpy.CalcAngularVelocityInParentFromRpyDt(rate)),
        ("rpy.calc_angular_velocity_in_child_from_rpy_dt",
         lambda: rpy.calc_angular_velocity_in_child_from_rpy_dt(rate),
         lambda: drpy.CalcAngularVelocityInChildFromRpyDt(rate)),
        ("rpy.calc_rpy_dt_from_angular_velocity_in_parent",
         lambda: rpy.calc_rpy_dt_from_angular_velocity_in_parent(rate),
         lambda: drpy.CalcRpyDtFromAngularVelocityInParent(rate)),
        ("rpy.calc_rpy_dt_from_angular_velocity_in_child",
         lambda: rpy.calc_rpy_dt_from_angular_velocity_in_child(rate),
         lambda: drpy.CalcRpyDtFromAngularVelocityInChild(rate)),
        ("rpy.calc_rotation_matrix_dt", lambda: rpy.calc_rotation_matrix_dt(rate),
         lambda: drpy.CalcRotationMatrixDt(rate)),
        ("rpy.calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent",
         lambda: rpy.calc_rpy_ddt_from_rpy_dt_and_angular_accel_in_parent(rate, accel),
         lambda: drpy.CalcRpyDDtFromRpyDtAndAngularAccelInParent(rate, accel)),
        ("rpy.calc_rpy_ddt_from_angular_accel_in_child",
         lambda: rpy.calc_rpy_ddt_from_angular_accel_in_child(rate, accel),
         lambda: drpy.CalcRpyDDtFromAngularAccelInChild(rate, accel)),
        # --- RotationMatrix
        ("RotationMatrix()", RotationMatrix, DR),
        ("RotationMatrix(R)", lambda: RotationMatrix(R), lambda: DR(dR)),
        ("RotationMatrix(3x3 array)", lambda: RotationMatrix(M), lambda: DR(M)),
        ("RotationMatrix(rpy)", lambda: RotationMatrix(rpy), lambda: DR(drpy)),
        ("RotationMatrix(quaternion=)", lambda: RotationMatrix(quaternion=q),
         lambda: DR(quaternion=dq)),
        ("RotationMatrix(theta_lambda=)", lambda: RotationMatrix(theta_lambda=(0.7, axis)),
         lambda: DR(theta_lambda=AngleAxis(0.7, axis))),
        ("RotationMatrix.identity()", RotationMatrix.identity, DR.Identity),
        ("RotationMatrix.make_x_rotation", lambda: RotationMatrix.make_x_rotation(0.4),
         lambda: DR.MakeXRotation(0.4)),
        ("RotationMatrix.make_y_rotation", lambda: RotationMatrix.make_y_rotation(0.4),
         lambda: DR.MakeYRotation(0.4)),
        ("RotationMatrix.make_z_rotation", lambda: RotationMatrix.make_z_rotation(0.4),
         lambda: DR.MakeZRotation(0.4)),
        ("RotationMatrix.project_to_rotation_matrix",
         lambda: RotationMatrix.project_to_rotation_matrix(near),
         lambda: DR.ProjectToRotationMatrix(near)),
        ("R.to_quaternion()", R.to_quaternion, dR.ToQuaternion),
        ("R.to_roll_pitch_yaw()", R.to_roll_pitch_yaw, dR.ToRollPitchYaw),
        ("R.matrix()", R.matrix, dR.matrix),
        ("R.col(1)", lambda: R.col(1), lambda: dR.col(1)),
        ("R.row(1)", lambda: R.row(1), lambda: dR.row(1)),
        ("R.transpose()", R.transpose, dR.transpose),
        ("R.inverse()", R.inverse, dR.inverse),
        ("R_AB @ R_BC", lambda: R @ R2, lambda: dR @ dR2),
        ("R @ v (3,)", lambda: R @ pos, lambda: dR @ pos),
        ("R @ v (3, 10)", lambda: R @ vs, lambda: dR.multiply(vs)),
        ("R.set(M)", lambda: scratch_R.set(M), lambda: scratch_dR.set(M)),
        ("R.is_valid()", R.is_valid, dR.IsValid),
        ("R.is_exactly_identity()", identity_R.is_exactly_identity,
         identity_dR.IsExactlyIdentity),
        ("R.is_identity_to_internal_tolerance()", identity_R.is_identity_to_internal_tolerance,
         identity_dR.IsNearlyIdentity),
        # --- RigidTransform
        ("RigidTransform()", RigidTransform, DX),
        ("RigidTransform(other)", lambda: RigidTransform(X), lambda: DX(dX)),
        ("RigidTransform(R, p)", lambda: RigidTransform(R, pos), lambda: DX(dR, pos)),
        ("RigidTransform(rpy, p)", lambda: RigidTransform(rpy, pos), lambda: DX(drpy, pos)),
        ("RigidTransform(quaternion=, p=)", lambda: RigidTransform(quaternion=q, p=pos),
         lambda: DX(quaternion=dq, p=pos)),
        ("RigidTransform(theta_lambda=, p=)",
         lambda: RigidTransform(theta_lambda=(0.7, axis), p=pos),
         lambda: DX(theta_lambda=AngleAxis(0.7, axis), p=pos)),
        ("RigidTransform(R)", lambda: RigidTransform(R), lambda: DX(dR)),
        ("RigidTransform(p)", lambda: RigidTransform(pos), lambda: DX(pos)),
        ("RigidTransform(pose=4x4)", lambda: RigidTransform(pose=M4), lambda: DX(pose=M4)),
        ("RigidTransform(pose=3x4)", lambda: RigidTransform(pose=M34), lambda: DX(pose=M34)),
        ("RigidTransform.identity()", RigidTransform.identity, DX.Identity),
        ("X.set_identity()", scratch_X.set_identity, scratch_dX.SetIdentity),
        ("X.get_as_matrix4()", X.get_as_matrix4, dX.GetAsMatrix4),
        ("X.get_as_matrix34()", X.get_as_matrix34, dX.GetAsMatrix34),
        ("X.rotation()", X.rotation, dX.rotation),
        ("X.translation()", X.translation, dX.translation),
        ("X.inverse()", X.inverse, dX.inverse),
        ("X_AB @ X_BC", lambda: X @ X2, lambda: dX @ dX2),
        ("X @ p (3,)", lambda: X @ pos, lambda: dX @ pos),
        ("X @ p (3, 10)", lambda: X @ vs, lambda: dX.multiply(vs)),
        ("X.set(R, p)", lambda: scratch_X.set(R, pos), lambda: scratch_dX.set(dR, pos)),
        ("X.set_rotation(R)", lambda: scratch_X.set_rotation(R),
         lambda: scratch_dX.set_rotation(dR)),
        ("X.set_translation(p)", lambda: scratch_X.set_translation(pos),
         lambda: scratch_dX.set_translation(pos)),
        ("X.is_exactly_identity()", identity_X.is_exactly_identity,
         identity_dX.IsExactlyIdentity),
        ("X.is_identity_to_epsilon(tol)", lambda: identity_X.is_identity_to_epsilon(1e-9),
         lambda: identity_dX.IsNearlyIdentity(1e-9)),
        ("X.is_nearby(other, tol)", lambda: X.is_nearby(X2, 1e-9),
         lambda: dX.IsNearlyEqualTo(dX2, 1e-9)),
    ]


def _time(function: Callable[[], object], calls: int) -> float:
    """Seconds per call over ``calls`` consecutive calls."""
    t0 = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - t0) / calls


def measure(ours: Callable[[], object], drake: Callable[[], object], rounds: int,
            round_s: float) -> tuple[list[float], list[float]]:
    """Per-round seconds per call of ``ours`` and ``drake``, alternating their order."""
    for function in (ours, drake):  # warm-up: lazy imports, first-use caches
        _time(function, 50)
    probe = max(_time(ours, 200), _time(drake, 200))
    calls = max(50, int(round_s / 2 / probe))
    times_ours, times_drake = [], []
    gc.disable()
    try:
        for r in range(rounds):
            if r % 2 == 0:
                times_ours.append(_time(ours, calls))
                times_drake.append(_time(drake, calls))
            else:
                times_drake.append(_time(drake, calls))
                times_ours.append(_time(ours, calls))
    finally:
        gc.enable()
    return times_ours, times_drake


def run(quick: bool, only: str | None = None) -> tuple[str, list[float]]:
    """The markdown table and the list of median ratios, one per operation."""
    rounds = 5 if quick else 11
    round_s = 0.01 if quick else 0.04
    lines = [
        f"Measured {datetime.date.today()} on {platform.machine()} "
        f"({os.cpu_count()} cores), Python {platform.python_version()}, numpy "
        f"{np.__version__}, Drake {_version('drake')} (pydrake), one thread, {rounds} "
        "alternating rounds. Times are medians per call; the ratio is the per-round "
        "ours / pydrake, median (min–max). Lower is better.",
        "",
        "| operation | pydrake µs | ours µs | ours/pydrake |",
        "|---|---:|---:|---:|",
    ]
    medians = []
    for label, ours, drake in operations():
        if only and only not in label:
            continue
        t_ours, t_drake = measure(ours, drake, rounds, round_s)
        ratios = [a / b for a, b in zip(t_ours, t_drake)]
        medians.append(statistics.median(ratios))
        row = (f"| `{label}` | {statistics.median(t_drake) * 1e6:.2f} "
               f"| {statistics.median(t_ours) * 1e6:.2f} "
               f"| {medians[-1]:.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |")
        lines.append(row)
        print(row, file=sys.stderr, flush=True)
    worst = max(medians) if medians else float("nan")
    lines += ["", f"Worst median ratio: {worst:.2f} over {len(medians)} operations."]
    return "\n".join(lines), medians


def main(argv: list[str] | None = None) -> int:
    parser = table_parser(__doc__, "fewer, shorter rounds", "math-bench")
    parser.add_argument("--only", help="time only the operations whose label contains this")
    args = parser.parse_args(argv)
    table, _ = run(args.quick, args.only)
    return emit_table(table, args.write_docs, SECTION)


if __name__ == "__main__":
    sys.exit(main())
