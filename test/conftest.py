"""Hypothesis profiles shared by the whole suite.

The default profile, ``deterministic``, derives each property test's examples
from the test itself, so a run that passes on one machine passes on every
machine and CI cannot fail on a draw nobody can replay. To search new
examples, run ``scripts/test --hypothesis-profile=explore``: it draws at
random and stores failures in ``.hypothesis/`` for replay. A failure found
that way is fixed, then pinned with ``@example`` so the deterministic runs
keep it.
"""

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile("deterministic")

# Bind the library before any test module runs. A few tests import bench/
# from the checkout and so put the repository root on sys.path; pytest 7
# (Debian's, under colcon test) imports them early, and the checkout's
# geometry_core would then shadow the install space that colcon test is
# meant to test. Imported here, the library stays whichever copy the run
# found first (test/test_packaging.py checks it is the installed one).
import geometry_core  # noqa: E402, F401


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked ``drake``, saying why, where pydrake is not installed.

    A ROS workspace's environment (the README's recipe) leaves Drake out:
    ``colcon test`` then reports these as skipped with the reason instead of
    failing on an import.
    """
    import importlib.util

    import pytest

    if importlib.util.find_spec("pydrake") is not None:
        return
    skip = pytest.mark.skip(reason="pydrake is not installed (pip install drake): "
                                   "a differential test against Drake")
    for item in items:
        if "drake" in item.keywords:
            item.add_marker(skip)


#: Longest parameter text kept whole in a test's id.
_LONGEST_ID_PART = 60


def pytest_make_parametrize_id(config, val, argname):
    """Shorten a long string parameter in test ids to its head and its length.

    A test id travels in the ``PYTEST_CURRENT_TEST`` variable of every child
    process (Linux refuses one variable over 128 KiB: the child then fails to
    start with "Argument list too long") and on one line of a failure report
    (colcon test stops reading ctest's output at a line over 64 KiB, and the
    run then hangs until an outer limit kills it).
    """
    if isinstance(val, str) and len(val) > _LONGEST_ID_PART:
        head = val[:_LONGEST_ID_PART].encode("unicode_escape").decode("ascii")
        return f"{head}...({len(val)} chars)"
    return None
