"""How many native threads a batch query uses: the ``parallelize=`` argument.

The batch calls (``BatchQuery.has_contacts``, and the collision checker's
``check_configs_collision_free``, ``calc_robot_clearances`` and edge checks)
take ``parallelize`` as Drake's ``Parallelism`` does: ``False`` or ``1`` is
one thread (the default), an int ``n >= 1`` is n threads, ``True`` is every
core this process may run on. A Drake ``Parallelism`` object (anything with a
``num_threads()`` method) is read the same way. The compiled loop hands the
configurations to that many POSIX threads with the GIL released
(``csrc/parallel.c``); each configuration's answer is computed by one thread
from its own data, so the answers equal the one-thread answers bit for bit.
"""

from __future__ import annotations

import os

__all__ = ["num_threads", "available_cores"]


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the OS tells)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def num_threads(parallelize) -> int:
    """Return the thread count that ``parallelize`` asks for.

    Parameters
    ----------
    parallelize : bool, int or object with ``num_threads()``
        ``True``: :func:`available_cores`; ``False``: 1; an int: that many
        (at least 1); a ``pydrake.common.Parallelism``: its ``num_threads()``.

    Raises
    ------
    ValueError
        If it is an int below 1, or not one of the above.
    """
    if type(parallelize) is int and parallelize >= 1:
        # The common case first: a run of single calls pays only this test.
        return parallelize
    if isinstance(parallelize, bool):
        return available_cores() if parallelize else 1
    if hasattr(parallelize, "num_threads") and callable(parallelize.num_threads):
        parallelize = parallelize.num_threads()
    try:
        count = int(parallelize)
        exact = count == parallelize
    except (TypeError, ValueError):
        exact = False
    if not exact or count < 1:
        raise ValueError("parallelize must be True, False, an int >= 1 or a Parallelism, "
                         f"got {parallelize!r}")
    return count
