"""Bounds on what the nodes accept, remember and log: one place, each with its reason.

A node runs for days beside other people's publishers; whatever they send,
its memory, its log and the time one cycle takes must stay bounded. Every
input beyond a bound is dropped and counted (``SceneInputs.counters``, the
transport's ``dropped`` counters), never silently.

This module is constants only; it imports nothing.
"""

#: Longest frame name accepted (characters, in ``child_frame_id``,
#: ``header.frame_id`` or a pose topic). tf2 sets no limit, but real names
#: are tens of characters (URDF link names); 256 leaves room for deep
#: namespaces while a million-character name is refused before it is stored.
MAX_FRAME_NAME_LENGTH = 256

#: Frames remembered in the /tf buffer besides the scene's own. A real tf
#: tree has tens to hundreds of frames; beyond this the frame updated least
#: recently is forgotten (counted as ``evicted_frame``), so a publisher
#: inventing names cannot grow the node without bound (about 1 kB each:
#: 10 000 frames is about 10 MB).
MAX_FOREIGN_FRAMES = 10_000

#: Transforms used from one TFMessage; the rest are dropped and counted as
#: ``too_many_transforms``. robot_state_publisher sends one transform per
#: joint (tens to a few hundred); checking and storing one costs a few µs
#: (decoded into arrays, see tf_arrays.py), so 1000 bound the
#: work after decoding one message to milliseconds.
MAX_TRANSFORMS_PER_MESSAGE = 1000

#: Seconds between two warnings of the same kind of drop (after the first of
#: each kind, which is always logged). Keyed by kind, not by frame name, so
#: distinct names cannot multiply the lines; the count in each line says how
#: many were dropped in between.
LOG_PERIOD_S = 10.0

#: Characters of a received name quoted in a log line; the rest is elided,
#: so a 1 MB name costs one short line.
MAX_LOGGED_NAME_LENGTH = 80

#: Serialized bytes of one received sample beyond which the DDS backend drops
#: it undecoded (counted per subscription). Decoding costs time and memory in
#: proportion to the size; 16 MiB is above any URDF on robot_description.
MAX_SAMPLE_BYTES = 16 * 1024 * 1024

#: Seconds between two warnings of undecodable samples on one subscription.
DECODE_LOG_PERIOD_S = 10.0

#: The range of ``builtin_interfaces/Time.sec`` (int32) that an output stamp
#: can carry; a stamp beyond it is clamped to the last representable
#: nanosecond (2038-01-19T03:14:07.999999999Z) instead of failing to publish.
MAX_STAMP_SEC = 2**31 - 1
MIN_STAMP_SEC = -(2**31)

# ------------------------------------------------------------ robot descriptions
# What one robot description (URDF on robot_description, SRDF on
# robot_description_semantic) may hold on a node. Anyone on the graph can
# publish one and the node loads it between two /tf messages, so these are
# tighter than the library's defaults (geometry_core.scene_files.limits).
# Real robots have tens to a couple of hundred links and geometries. Some
# costs grow with the square of the size whatever the code does: links
# welded by fixed joints filter every pair of their geometries, and the
# clearance checker keeps a padding and a filter flag per pair of bodies;
# at these bounds a hostile robot costs at most a million of each, well
# under a second (python -m bench.many_links --node).

#: Links of a robot description (one scene frame each).
MAX_ROBOT_LINKS = 1_000

#: Joints of a robot description.
MAX_ROBOT_JOINTS = 1_000

#: Collision plus visual elements of a robot description.
MAX_ROBOT_GEOMETRIES = 1_000

#: disable_collisions, disable_default_collisions and group_state entries of
#: an SRDF. MoveIt's setup assistant writes at most n(n-1)/2 pairs for n
#: links: 100 000 covers a 450-link robot.
MAX_SRDF_ENTRIES = 100_000

#: Characters of a link, joint or geometry name (as a /tf frame name).
MAX_ROBOT_NAME_LENGTH = MAX_FRAME_NAME_LENGTH

#: Bytes of a URDF or SRDF text (a sample beyond MAX_SAMPLE_BYTES never
#: arrives on the DDS backend; this also bounds the rclpy backend and the
#: parameters).
MAX_DESCRIPTION_BYTES = MAX_SAMPLE_BYTES

#: Bytes of one collision mesh file a description names, from ``os.stat``
#: before it is opened. Robot packages' meshes are at most a few MB.
MAX_ROBOT_MESH_FILE_BYTES = 64 * 1024 * 1024

#: Log lines one received description may cause (its refusal, or warnings
#: such as 600 000 unknown links in an SRDF): the first ones in full, then
#: one summary line ("and 599 990 more"). Further descriptions' warnings are
#: logged at most once per LOG_PERIOD_S, the rest counted.
MAX_LOG_LINES_PER_MESSAGE = 10

# -- MoveIt planning scene (planning_scene.py, planning_scene_node.py) --------

#: Longest MoveIt object id accepted. MoveIt's ids are names ("box1", a
#: perception pipeline's "object_17"); 256 leaves room for namespaced ones.
MAX_OBJECT_ID_LENGTH = 256

#: Shapes (primitives, meshes and planes together) of one collision object.
#: A grasped part or a table is one to a few tens of primitives.
MAX_SHAPES_PER_OBJECT = 256

#: Vertices and triangles of the meshes of one collision object. A scanned
#: object is tens of thousands of triangles; the checker's own cap on all
#: added triangles is 2 million (clearance/live_world.py).
MAX_MESH_VERTICES = 1_000_000
MAX_MESH_TRIANGLES = 1_000_000

#: Collision and attached objects in one PlanningScene message, and objects
#: a node holds at once. A cluttered workcell is hundreds.
MAX_OBJECTS_PER_MESSAGE = 2_000
MAX_WORLD_OBJECTS = 2_000

#: Touch links of one attached object, and names in one allowed-collision
#: matrix or link padding list (a robot has tens of links; a matrix also
#: names objects).
MAX_TOUCH_LINKS = 256
MAX_ACM_NAMES = 1_000

#: Geometry pairs the allowed-collision entries may filter in the scene graph
#: of the /tf-driven results (an entry between two names filters every pair
#: of their shapes). A robot's whole matrix is hundreds to a few thousand.
MAX_ACM_GEOMETRY_PAIRS = 200_000

#: Points of one PointCloud2 (height x width). A 640 x 480 depth image is
#: 307 200; the checker's own cap per cloud is 5 million.
MAX_CLOUD_POINTS = 2_000_000

#: States in one GetMultiStateValidity request: each costs a few microseconds
#: to check, so a request stays well under a second of the node's time.
MAX_BATCH_STATES = 100_000
