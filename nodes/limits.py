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
