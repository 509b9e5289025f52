"""Drake's SceneGraphCollisionChecker on the same URDF, SRDF pairs and obstacles as ours.

Helper of the ``drake``-marked clearance tests and of bench/clearance.py.
"""

from __future__ import annotations

import numpy as np
import robots


class DrakeArm:
    """A pydrake checker and the maps between its positions and bodies and ours."""

    def __init__(self, name: str, urdf, checker, self_padding=0.0, environment_padding=0.0):
        from pydrake.geometry import Box, ProximityProperties, Sphere
        from pydrake.math import RigidTransform
        from pydrake.planning import RobotDiagramBuilder, SceneGraphCollisionChecker

        _, srdf, base = robots.ARMS[name]
        builder = RobotDiagramBuilder()
        (instance,) = builder.parser().AddModels(str(urdf))
        plant = builder.plant()
        base_body = plant.GetBodyByName(base, instance)
        # A URDF without a ``world`` link leaves its root floating in Drake;
        # ours hangs it off the world at identity: weld it there.
        welded = any(plant.get_joint(j).child_body().index() == base_body.index()
                     for j in plant.GetJointIndices(instance))
        if not welded:
            plant.WeldFrames(plant.world_frame(), base_body.body_frame())
        for k, (kind, size, p_WG) in enumerate(robots.OBSTACLES):
            shape = Sphere(*size) if kind == "sphere" else Box(*size)
            plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(p_WG), shape,
                                            f"{kind}_{k}", ProximityProperties())
        self.diagram = builder.Build()
        self.plant = plant
        self.checker = SceneGraphCollisionChecker(
            model=self.diagram, robot_model_instances=[instance], edge_step_size=0.05,
            env_collision_padding=environment_padding, self_collision_padding=self_padding)
        for link1, link2 in robots.srdf_pairs(srdf):
            self.checker.SetCollisionFilteredBetween(plant.GetBodyByName(link1, instance),
                                                     plant.GetBodyByName(link2, instance), True)
        # Our q -> Drake's q: Drake gives a mimic joint a position of its own.
        n = plant.num_positions()
        self.to_drake = np.zeros((n, checker.num_positions))
        self.offset = np.zeros(n)
        chain = checker._chain
        for joint_index in plant.GetJointIndices(instance):
            joint = plant.get_joint(joint_index)
            if joint.num_positions() != 1:
                continue
            link = chain.link_index[joint.child_body().name()]
            self.to_drake[joint.position_start(), chain.column[link]] = chain.multiplier[link]
            self.offset[joint.position_start()] = chain.offset[link]

    def q(self, q: np.ndarray) -> np.ndarray:
        """Drake's positions for our configuration q."""
        return self.to_drake @ q + self.offset

    def jacobian(self, J_drake: np.ndarray) -> np.ndarray:
        """A Drake Jacobian row block in our columns (a mimic's column folds into its leader's)."""
        return J_drake @ self.to_drake

    def body_name(self, index) -> str:
        return self.plant.get_body(index).name()
