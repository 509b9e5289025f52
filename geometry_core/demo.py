"""The built-in demo: a five-joint arm among a table, a shelf, a ball and a floor.

:func:`make_demo_scene` builds the scene in code (no data files), and
:meth:`DemoScene.advance` poses the arm at time ``t`` along a scripted,
periodic joint trajectory (:data:`PERIOD_S` seconds per cycle) that starts
clear, dips the gripper into the table top and the ball, swings to the
shelf and pushes the forearm into its lower board, then returns home. The
``geometry-core demo`` command runs it at real time.

This module uses the scene graph and the joint trees of ``scene_files``; it
never imports fcl, lcm or ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.scene import SceneGraph
from geometry_core.scene_files.kinematics import JointSpec, KinematicTree
from geometry_core.scene_graph import (
    FrameId,
    GeometryFrame,
    GeometryId,
    GeometryInstance,
    GeometrySet,
    IllustrationProperties,
    ProximityProperties,
    Rgba,
    SourceId,
)
from geometry_core.shapes import Box, Capsule, Cylinder, HalfSpace, Shape, Sphere

__all__ = ["DemoScene", "make_demo_scene", "PERIOD_S", "WAYPOINTS"]

#: Seconds per cycle of the scripted motion.
PERIOD_S = 5.0

_JOINTS = ("yaw", "shoulder", "elbow", "wrist", "roll")

#: ``(time_s, joint positions in radians)`` of the scripted motion, one cycle;
#: between waypoints the joints blend with a cosine profile (zero velocity at each).
WAYPOINTS: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.0, (0.0, 0.0, 0.0, 0.0, 0.0)),          # upright, clear of everything
    (0.6, (0.0, 0.0, 0.0, 0.0, 0.0)),
    (1.6, (-0.15, 0.8, 1.2, 0.75, 0.0)),       # gripper into the table top and the ball
    (2.1, (-0.15, 0.8, 1.2, 0.75, 1.2)),       # roll the gripper while in contact
    (2.6, (0.2, 0.3, 0.6, 0.0, 0.0)),          # lift clear
    (3.4, (1.5, 0.8, 0.9, 0.3, 0.0)),          # forearm and gripper into the lower shelf
    (3.9, (1.5, 0.8, 0.9, 0.3, 0.0)),
    (4.2, (0.9, 0.6, 0.9, 0.3, 0.0)),          # swing out of the shelf, below its top board
    (4.7, (0.0, 0.0, 0.0, 0.0, 0.0)),          # home
    (PERIOD_S, (0.0, 0.0, 0.0, 0.0, 0.0)),
)

_ARM = Rgba(0.95, 0.55, 0.1, 1.0)
_JOINT_COLOR = Rgba(0.3, 0.3, 0.35, 1.0)
_WOOD = Rgba(0.6, 0.45, 0.3, 1.0)


@dataclass(eq=False)
class DemoScene:
    """The demo scene and its names.

    Attributes
    ----------
    scene_graph : SceneGraph
        Two sources, ``arm`` (six frames) and ``environment`` (anchored).
    arm_source_id : SourceId
    kinematics : KinematicTree
        The arm's joints ``yaw, shoulder, elbow, wrist, roll``.
    frames : dict of str to FrameId
    geometries : dict of str to GeometryId
    """

    scene_graph: SceneGraph
    arm_source_id: SourceId
    kinematics: KinematicTree
    frames: dict[str, FrameId]
    geometries: dict[str, GeometryId]

    def joint_positions(self, t: float) -> dict[str, float]:
        """Return the scripted joint positions (radians) at time ``t`` (seconds)."""
        t = float(t) % PERIOD_S
        for (t0, q0), (t1, q1) in zip(WAYPOINTS, WAYPOINTS[1:]):
            if t0 <= t <= t1:
                s = 0.5 - 0.5 * math.cos(math.pi * (t - t0) / (t1 - t0))
                q = (1.0 - s) * np.asarray(q0) + s * np.asarray(q1)
                return dict(zip(_JOINTS, q.tolist()))
        return dict(zip(_JOINTS, WAYPOINTS[0][1]))

    def advance(self, t: float) -> None:
        """Pose the arm at time ``t`` (seconds; the motion repeats every PERIOD_S)."""
        self.scene_graph.set_poses(self.arm_source_id,
                                   self.kinematics.calc_frame_poses(self.joint_positions(t)))

    def name_of(self, id: FrameId | GeometryId) -> str:
        """Return the demo's name of a frame or geometry."""
        for table in (self.geometries, self.frames):
            for name, known in table.items():
                if known == id:
                    return name
        raise KeyError(f"{id!r} is not part of the demo scene")


def _register(sg: SceneGraph, source_id: SourceId, parent: FrameId | None, name: str,
              shape: Shape, X_PG: RigidTransform, rgba: Rgba) -> GeometryId:
    instance = GeometryInstance(X_PG, shape, name)
    instance.set_proximity_properties(ProximityProperties())
    illustration = IllustrationProperties()
    illustration.add_property("phong", "diffuse", rgba)
    instance.set_illustration_properties(illustration)
    if parent is None:
        return sg.register_anchored_geometry(source_id, instance)
    return sg.register_geometry(source_id, parent, instance)


def _joint(name: str, parent: str, child: str, p_PJ, axis, lower: float,
           upper: float) -> JointSpec:
    return JointSpec(name, "revolute", parent, child, RigidTransform(p_PJ).get_as_matrix4(),
                     np.asarray(axis, float), lower, upper)


def make_demo_scene() -> DemoScene:
    """Build the demo scene, posed at ``t = 0`` (arm upright, no contact).

    The arm stands at the world origin: a pedestal (``base``), a yaw joint, a
    shoulder, elbow and wrist pitching about their y axes, and a roll joint
    carrying a two-finger gripper. Around it: a floor half space at z = 0, a
    table top at +x (top face at z = 0.40 m) with a ball and a bottle on it,
    and a two-board shelf at +y. Links joined by a joint are collision
    filtered, as a URDF parser would.
    """
    sg = SceneGraph()
    arm = sg.register_source("arm")
    env = sg.register_source("environment")
    X_identity = RigidTransform()
    link_names = ("base", "turret", "upper_arm", "forearm", "wrist", "gripper")
    frames: dict[str, FrameId] = {}
    parent = None
    for name in link_names:
        frames[name] = sg.register_frame(arm, GeometryFrame(name, 1), parent)
        parent = frames[name]
    g: dict[str, GeometryId] = {}
    g["pedestal"] = _register(sg, arm, frames["base"], "pedestal", Cylinder(0.08, 0.29),
                              RigidTransform([0, 0, 0.155]), _JOINT_COLOR)
    g["turret"] = _register(sg, arm, frames["turret"], "turret", Sphere(0.07), X_identity,
                            _JOINT_COLOR)
    g["upper_arm"] = _register(sg, arm, frames["upper_arm"], "upper_arm", Capsule(0.04, 0.27),
                               RigidTransform([0, 0, 0.175]), _ARM)
    g["forearm"] = _register(sg, arm, frames["forearm"], "forearm", Capsule(0.035, 0.23),
                             RigidTransform([0, 0, 0.15]), _ARM)
    g["wrist"] = _register(sg, arm, frames["wrist"], "wrist", Box(0.06, 0.08, 0.08),
                           RigidTransform([0, 0, 0.04]), _JOINT_COLOR)
    g["palm"] = _register(sg, arm, frames["gripper"], "palm", Box(0.12, 0.04, 0.02),
                          RigidTransform([0, 0, 0.01]), _JOINT_COLOR)
    for side, x in (("left", -0.045), ("right", 0.045)):
        name = f"finger_{side}"
        g[name] = _register(sg, arm, frames["gripper"], name, Box(0.015, 0.03, 0.07),
                            RigidTransform([x, 0, 0.055]), _ARM)

    g["floor"] = _register(sg, env, None, "floor", HalfSpace(), X_identity,
                           Rgba(0.5, 0.5, 0.5, 1.0))
    g["table"] = _register(sg, env, None, "table", Box(0.6, 0.8, 0.04),
                           RigidTransform([0.6, 0.0, 0.38]), _WOOD)
    g["ball"] = _register(sg, env, None, "ball", Sphere(0.05),
                          RigidTransform([0.62, -0.12, 0.45]), Rgba(0.8, 0.1, 0.1, 1.0))
    g["bottle"] = _register(sg, env, None, "bottle", Cylinder(0.03, 0.18),
                            RigidTransform([0.75, 0.25, 0.49]), Rgba(0.1, 0.6, 0.3, 0.8))
    for name, z in (("shelf_low", 0.55), ("shelf_high", 0.85)):
        g[name] = _register(sg, env, None, name, Box(0.8, 0.25, 0.02),
                            RigidTransform([0.0, 0.6, z]), _WOOD)
    g["shelf_back"] = _register(sg, env, None, "shelf_back", Box(0.8, 0.02, 0.6),
                                RigidTransform([0.0, 0.74, 0.7]), _WOOD)

    for a, b in zip(link_names, link_names[1:]):
        sg.exclude_collisions_between(GeometrySet(frames[a]), GeometrySet(frames[b]))
    # The pedestal stands on the floor: resting contact, not a collision.
    sg.exclude_collisions_between(GeometrySet(frames["base"]), GeometrySet(g["floor"]))

    limit = math.radians(170)
    joints = [
        _joint("yaw", "base", "turret", [0, 0, 0.37], [0, 0, 1], -limit, limit),
        _joint("shoulder", "turret", "upper_arm", [0, 0, 0.0], [0, 1, 0], -2.0, 2.0),
        _joint("elbow", "upper_arm", "forearm", [0, 0, 0.35], [0, 1, 0], -2.5, 2.5),
        _joint("wrist", "forearm", "wrist", [0, 0, 0.30], [0, 1, 0], -2.0, 2.0),
        _joint("roll", "wrist", "gripper", [0, 0, 0.08], [0, 0, 1], -limit, limit),
    ]
    tree = KinematicTree(arm, frames, joints)
    demo = DemoScene(sg, arm, tree, frames, g)
    demo.advance(0.0)
    return demo
