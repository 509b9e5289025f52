"""Scene graph to Drake viewer LCM messages: pure functions, no sockets.

Everything the viewer bridge sends is built here from a scene graph (or its
inspector) and plain values, so each rule is tested without opening LCM:

* :func:`shape_to_geometry_data`: one shape, posed ``X_FG`` in its link frame
  F, to ``lcmt_viewer_geometry_data``, with Drake's ``float_data`` layout
  (box full sizes; sphere radius; cylinder and capsule radius, length;
  ellipsoid a b c; mesh scale x y z with the file in ``string_data``).
  Convex is drawn as Drake 1.51 draws it: its convex hull sent inline (MESH
  with an empty ``string_data``; see :func:`inline_mesh_float_data`), so no
  file is needed on the viewer's side, also for ``Convex.from_points``.
  A half space is drawn as Drake draws it: a 50 m x 50 m x 1 m box whose top
  face lies on the boundary plane.
* :func:`make_load_message`, :func:`make_draw_message`: the scene of one
  role, with Drake's link naming (``source::frame``), ``robot_num`` = frame
  group, and anchored geometry in a link named ``world`` (load message only).
* :func:`make_contact_results_message`: penetrations as point contacts.
* :func:`pose_to_lcm`: the one place where a pose becomes LCM's float32
  position and ``w, x, y, z`` quaternion (house rule 7).

Units: metres, seconds in, milliseconds (draw) and microseconds (contacts)
out, truncated toward zero as Drake's ``static_cast<int64_t>`` does.

This module must never import lcm, fcl or ROS: it builds messages, it does
not send them (``geometry_core.viewer.drake_visualizer`` does).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from geometry_core.math import RigidTransform
from geometry_core.math.quaternion import rotation_matrix_to_quaternion
from geometry_core.scene_graph import FrameId, GeometryId, Rgba, Role, SceneGraphInspector
from geometry_core.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)
from geometry_core.viewer.lcmtypes.drake import (
    lcmt_contact_results_for_viz,
    lcmt_point_pair_contact_info_for_viz,
    lcmt_viewer_draw,
    lcmt_viewer_geometry_data,
    lcmt_viewer_link_data,
    lcmt_viewer_load_robot,
)

if TYPE_CHECKING:  # the viewer reads penetration records; it never runs queries
    from geometry_core.proximity.results import PenetrationAsPointPair

__all__ = [
    "DEFAULT_COLORS",
    "DEFAULT_CONTACT_FORCE_PER_DEPTH",
    "HALF_SPACE_BOX_SIZE",
    "HALF_SPACE_BOX_THICKNESS",
    "WORLD_LINK_NAME",
    "ViewerLink",
    "collect_links",
    "contact_body_name",
    "geometry_color",
    "inline_mesh_float_data",
    "link_name",
    "make_contact_results_message",
    "make_draw_message",
    "make_load_message",
    "pose_to_lcm",
    "seconds_to_microseconds",
    "seconds_to_milliseconds",
    "shape_to_geometry_data",
]

#: Side of the square box that stands in for a half space (metres). Drake's
#: DrakeVisualizer draws HalfSpace as a 50 x 50 box; the same figure keeps
#: scenes looking alike in Meldis whichever library sent them.
HALF_SPACE_BOX_SIZE = 50.0

#: Thickness of that box (metres), Drake's figure. The box is shifted by half
#: of it along -Gz so its top face is the half space's boundary plane.
HALF_SPACE_BOX_THICKNESS = 1.0

#: Link that holds anchored geometry in the load message (Drake's name).
#: Viewers leave it at the identity pose; draw messages never mention it.
WORLD_LINK_NAME = "world"

#: Newtons per metre of penetration depth in the ``contact_force`` we send.
#: Meldis draws a double arrow centred on the contact point along the force,
#: each half ``|f| / 10`` metres long (ContactVisualizerParams
#: newtons_per_meter = 10), and hides forces under 0.01 N; 100 N/m makes
#: each half ten times the depth (1 cm deep: 10 cm) and shows every
#: penetration deeper than 0.1 mm.
DEFAULT_CONTACT_FORCE_PER_DEPTH = 100.0

#: Colour of a geometry without a ("phong", "diffuse") property, per role.
#: Illustration and perception: DrakeVisualizerParams.default_color (grey
#: 0.9); proximity: VisualizationConfig.default_proximity_color (red 0.8),
#: what Drake's default visualization sends for collision geometry.
DEFAULT_COLORS = {
    Role.ILLUSTRATION: Rgba(0.9, 0.9, 0.9, 1.0),
    Role.PROXIMITY: Rgba(0.8, 0.0, 0.0, 1.0),
    Role.PERCEPTION: Rgba(0.9, 0.9, 0.9, 1.0),
}


# -------------------------------------------------------------------- scalars


def seconds_to_milliseconds(time_s: float) -> int:
    """Return the draw message timestamp for ``time_s`` (truncated, as Drake).

    Raises
    ------
    ValueError
        If ``time_s`` is NaN or infinite.
    """
    return int(_finite_time(time_s) * 1e3)


def seconds_to_microseconds(time_s: float) -> int:
    """Return the contact message timestamp for ``time_s`` (truncated, as Drake).

    Raises
    ------
    ValueError
        If ``time_s`` is NaN or infinite.
    """
    return int(_finite_time(time_s) * 1e6)


def _finite_time(time_s: float) -> float:
    value = float(time_s)
    if not math.isfinite(value):
        raise ValueError(f"time_s must be finite, got {time_s!r}")
    return value


def pose_to_lcm(X_AB: RigidTransform | np.ndarray) -> tuple[list[float], list[float]]:
    """Split a pose into LCM's position and ``w, x, y, z`` quaternion lists.

    Parameters
    ----------
    X_AB : RigidTransform or (4, 4) float
        Pose of frame B in frame A.

    Returns
    -------
    position : list of 3 float
        ``p_AoBo_A`` in metres.
    quaternion : list of 4 float
        ``R_AB`` as a unit quaternion ``[w, x, y, z]`` with ``w >= 0``
        (Drake's ``ToQuaternion`` convention).

    The values are Python floats; the message encoder stores them as float32.
    """
    X = X_AB.get_as_matrix4() if isinstance(X_AB, RigidTransform) else np.asarray(X_AB)
    return X[:3, 3].tolist(), rotation_matrix_to_quaternion(X[:3, :3]).tolist()


# --------------------------------------------------------------------- shapes


def inline_mesh_float_data(p_GV: np.ndarray, faces: np.ndarray) -> list[float]:
    """Return a triangle mesh in the MESH type's inline ``float_data`` layout.

    Layout (Drake's, read by Meldis): ``V, T, x0, y0, z0, ..., x(V-1), y(V-1),
    z(V-1), a0, b0, c0, ..., a(T-1), b(T-1), c(T-1)`` with 0-based vertex
    indices. Like Drake, every triangle gets its own three vertices (V = 3T)
    so viewers draw flat facets instead of smoothing normals across edges.

    Parameters
    ----------
    p_GV : (N, 3) float
        Vertices in G (metres).
    faces : (T, 3) int
        Vertex indices of each triangle, counter-clockwise seen from outside.
    """
    p_GV = np.asarray(p_GV, dtype=float)
    faces = np.asarray(faces, dtype=np.int64)
    corners = p_GV[faces].reshape(-1, 3)
    num_tris = len(faces)
    return ([float(3 * num_tris), float(num_tris)] + corners.ravel().tolist()
            + np.arange(3 * num_tris, dtype=float).tolist())


def shape_to_geometry_data(shape: Shape, X_FG: RigidTransform | np.ndarray,
                           rgba: Rgba) -> lcmt_viewer_geometry_data:
    """Return the ``lcmt_viewer_geometry_data`` that draws ``shape`` at ``X_FG``.

    Parameters
    ----------
    shape : Shape
        Any geometry_core shape.
    X_FG : RigidTransform or (4, 4) float
        Pose of the geometry G in its link frame F (the world for anchored
        geometry).
    rgba : Rgba
        Colour sent in ``color``.

    Returns
    -------
    lcmt_viewer_geometry_data
        ``type``, ``float_data`` and ``string_data`` as the module docstring
        lists; ``position``/``quaternion`` from :func:`pose_to_lcm` (for a half
        space, of ``X_FG`` times a shift of half the box thickness along -Gz).

    Raises
    ------
    TypeError
        If ``shape`` is not a known shape or ``rgba`` not an Rgba.
    ValueError
        If a Convex's points have no 3-D hull.
    """
    if not isinstance(rgba, Rgba):
        raise TypeError(f"rgba must be an Rgba, got {type(rgba).__name__}")
    X_FG = X_FG.get_as_matrix4() if isinstance(X_FG, RigidTransform) else np.asarray(X_FG)
    msg = lcmt_viewer_geometry_data()
    if isinstance(shape, Box):
        msg.type, floats = msg.BOX, [shape.width, shape.depth, shape.height]
    elif isinstance(shape, Sphere):
        msg.type, floats = msg.SPHERE, [shape.radius]
    elif isinstance(shape, Cylinder):
        msg.type, floats = msg.CYLINDER, [shape.radius, shape.length]
    elif isinstance(shape, Capsule):
        msg.type, floats = msg.CAPSULE, [shape.radius, shape.length]
    elif isinstance(shape, Ellipsoid):
        msg.type, floats = msg.ELLIPSOID, [shape.a, shape.b, shape.c]
    elif isinstance(shape, HalfSpace):
        msg.type = msg.BOX
        floats = [HALF_SPACE_BOX_SIZE, HALF_SPACE_BOX_SIZE, HALF_SPACE_BOX_THICKNESS]
        X_GB = np.eye(4)
        X_GB[2, 3] = -0.5 * HALF_SPACE_BOX_THICKNESS
        X_FG = X_FG @ X_GB
    elif isinstance(shape, Convex):
        msg.type = msg.MESH
        floats = inline_mesh_float_data(*shape.hull())  # scale already applied
    elif isinstance(shape, Mesh):
        msg.type = msg.MESH
        # Viewers open the file themselves, from their own working folder.
        msg.string_data = os.path.abspath(shape.filename)
        floats = shape.scale3.tolist()
    else:
        raise TypeError(f"cannot draw a {type(shape).__name__}")
    msg.position, msg.quaternion = pose_to_lcm(X_FG)
    msg.color = list(rgba.rgba())
    msg.float_data = floats
    msg.num_float_data = len(msg.float_data)
    return msg


# ---------------------------------------------------------------------- scene


def link_name(source_name: str, frame_name: str) -> str:
    """Return Drake's viewer link name ``source::frame``."""
    return f"{source_name}::{frame_name}"


@dataclass(frozen=True)
class ViewerLink:
    """A frame drawn as a viewer link: a frame with geometry of the drawn role.

    Attributes
    ----------
    frame_id : FrameId
        The frame F.
    name : str
        ``source::frame``, the link name in load and draw messages.
    robot_num : int
        The frame group, the link's ``robot_num`` in load and draw messages.
    geometry_ids : tuple of GeometryId
        The frame's geometries with the role, in registration order (the
        order of the link's ``geom`` entries).
    frame_index : int
        Position of the frame in ``inspector.get_all_frame_ids()``, which is
        its row in ``compute_world_poses()``.
    """

    frame_id: FrameId
    name: str
    robot_num: int
    geometry_ids: tuple[GeometryId, ...]
    frame_index: int


def collect_links(inspector: SceneGraphInspector,
                  role: Role) -> tuple[list[ViewerLink], list[GeometryId]]:
    """Return the dynamic links of ``role`` and the anchored geometries of ``role``.

    Dynamic links are the non-world frames with at least one geometry of the
    role, in frame registration order (Drake's order); anchored geometries
    are those of the world frame, in registration order.
    """
    world_id = inspector.world_frame_id()
    links = []
    for index, frame_id in enumerate(inspector.get_all_frame_ids()):
        if frame_id == world_id:
            continue
        geometry_ids = tuple(inspector.get_geometries(frame_id, role))
        if geometry_ids:
            links.append(ViewerLink(
                frame_id=frame_id,
                name=link_name(inspector.get_owning_source_name(frame_id),
                               inspector.get_name(frame_id)),
                robot_num=inspector.get_frame_group(frame_id),
                geometry_ids=geometry_ids,
                frame_index=index,
            ))
    return links, list(inspector.get_geometries(world_id, role))


def _as_rgba(value: object) -> Rgba:
    if isinstance(value, Rgba):
        return value
    channels = [float(v) for v in np.asarray(value, dtype=float).ravel()]
    if len(channels) not in (3, 4):
        raise ValueError(f"a diffuse colour needs 3 or 4 channels, got {value!r}")
    return Rgba(*channels)


def geometry_color(inspector: SceneGraphInspector, geometry_id: GeometryId, role: Role,
                   default_color: Rgba | None = None) -> Rgba:
    """Return the colour a geometry is drawn with for ``role``.

    Illustration: ``inspector.get_illustration_color`` (the diffuse colour
    times every branch tint above the geometry). Other roles, as Drake's
    DrakeVisualizer: that role's ("phong", "diffuse"), else the illustration
    role's ("phong", "diffuse"), else the default colour (branch tints are
    an illustration feature and do not apply).

    Parameters
    ----------
    default_color : Rgba, optional
        Colour of a geometry without a diffuse property; ``None`` picks
        ``DEFAULT_COLORS[role]``.
    """
    default = DEFAULT_COLORS[role] if default_color is None else default_color
    if role == Role.ILLUSTRATION:
        return inspector.get_illustration_color(geometry_id, default=default)
    for source_role in (role, Role.ILLUSTRATION):
        props = inspector.get_properties(geometry_id, source_role)
        if props is not None and props.has_property("phong", "diffuse"):
            return _as_rgba(props.get_property("phong", "diffuse"))
    return default


def make_load_message(inspector: SceneGraphInspector, role: Role, *,
                      default_color: Rgba | None = None) -> lcmt_viewer_load_robot:
    """Return the load message of every geometry with ``role``.

    A ``world`` link (robot_num 0) comes first when anchored geometry has the
    role, then one link per frame of :func:`collect_links`. Geometry poses
    are ``X_FG``, fixed in the link frame.

    Raises
    ------
    ValueError
        If ``role`` is ``Role.UNASSIGNED``.
    """
    _check_role(role)
    links, anchored = collect_links(inspector, role)
    groups = [(WORLD_LINK_NAME, 0, anchored)] if anchored else []
    groups += [(link.name, link.robot_num, link.geometry_ids) for link in links]
    msg = lcmt_viewer_load_robot()
    for name, robot_num, geometry_ids in groups:
        link_msg = lcmt_viewer_link_data()
        link_msg.name = name
        link_msg.robot_num = robot_num
        link_msg.geom = [
            shape_to_geometry_data(inspector.get_shape(g), inspector.get_pose_in_frame(g),
                                   geometry_color(inspector, g, role, default_color))
            for g in geometry_ids]
        link_msg.num_geom = len(link_msg.geom)
        msg.link.append(link_msg)
    msg.num_links = len(msg.link)
    return msg


def make_draw_message(links: Sequence[ViewerLink], X_WF: np.ndarray,
                      time_s: float) -> lcmt_viewer_draw:
    """Return the draw message that poses ``links``.

    Parameters
    ----------
    links : sequence of ViewerLink
        The dynamic links of the last load message (:func:`collect_links`).
    X_WF : (F, 4, 4) float
        World pose of every frame, indexed by ``ViewerLink.frame_index``
        (what ``compute_world_poses()`` returns).
    time_s : float
        Time stamp in seconds; sent in milliseconds.

    Raises
    ------
    ValueError
        If ``time_s`` is not finite or ``X_WF`` has the wrong shape.
    """
    X_WF = np.asarray(X_WF, dtype=float)
    if X_WF.ndim != 3 or X_WF.shape[1:] != (4, 4):
        raise ValueError(f"X_WF must have shape (F, 4, 4), got {X_WF.shape}")
    msg = lcmt_viewer_draw()
    msg.timestamp = seconds_to_milliseconds(time_s)
    for link in links:
        position, quaternion = pose_to_lcm(X_WF[link.frame_index])
        msg.link_name.append(link.name)
        msg.robot_num.append(link.robot_num)
        msg.position.append(position)
        msg.quaternion.append(quaternion)
    msg.num_links = len(msg.link_name)
    return msg


def contact_body_name(inspector: SceneGraphInspector, geometry_id: GeometryId) -> str:
    """Return ``source::frame::geometry``, the name a penetration reports for a geometry.

    Geometry names, not frame names: Meldis keys an arrow by the name pair,
    so two penetrations between geometries of the same two frames would
    otherwise overwrite each other.
    """
    frame_id = inspector.get_frame_id(geometry_id)
    return (f"{inspector.get_owning_source_name(geometry_id)}::{inspector.get_name(frame_id)}"
            f"::{inspector.get_name(geometry_id)}")


def make_contact_results_message(
        penetrations: Sequence[PenetrationAsPointPair], inspector: SceneGraphInspector,
        time_s: float, force_per_depth: float = DEFAULT_CONTACT_FORCE_PER_DEPTH,
) -> lcmt_contact_results_for_viz:
    """Return ``CONTACT_RESULTS`` for penetrations, one point contact each.

    For each penetration (A, B): ``body1_name``/``body2_name`` are
    :func:`contact_body_name` of A and B; ``contact_point`` is the midpoint of
    ``p_WCa`` and ``p_WCb``; ``normal`` is ``nhat_BA_W``; ``contact_force`` is
    ``-force_per_depth * depth * nhat_BA_W``, the force on B as Drake's
    convention has it (it pushes B out of A); timestamps are in
    microseconds. No hydroelastic surfaces are sent.

    Raises
    ------
    ValueError
        If ``time_s`` is not finite or ``force_per_depth`` not positive and finite.
    """
    if not (math.isfinite(force_per_depth) and force_per_depth > 0.0):
        raise ValueError(f"force_per_depth must be positive and finite, got {force_per_depth!r}")
    timestamp = seconds_to_microseconds(time_s)
    msg = lcmt_contact_results_for_viz()
    msg.timestamp = timestamp
    for pair in penetrations:
        info = lcmt_point_pair_contact_info_for_viz()
        info.timestamp = timestamp
        info.body1_name = contact_body_name(inspector, pair.id_A)
        info.body2_name = contact_body_name(inspector, pair.id_B)
        nhat_BA_W = np.asarray(pair.nhat_BA_W, dtype=float)
        p_WC = 0.5 * (np.asarray(pair.p_WCa, dtype=float) + np.asarray(pair.p_WCb, dtype=float))
        info.contact_point = p_WC.tolist()
        info.contact_force = (-force_per_depth * float(pair.depth) * nhat_BA_W).tolist()
        info.normal = nhat_BA_W.tolist()
        msg.point_pair_contact_info.append(info)
    msg.num_point_pair_contacts = len(msg.point_pair_contact_info)
    msg.num_hydroelastic_contacts = 0
    return msg


def _check_role(role: Role) -> None:
    if not isinstance(role, Role):
        raise TypeError(f"role must be a Role, got {role!r}")
    if role == Role.UNASSIGNED:
        raise ValueError("cannot draw geometries with Role.UNASSIGNED: choose ILLUSTRATION, "
                         "PROXIMITY or PERCEPTION (as Drake's DrakeVisualizer)")
