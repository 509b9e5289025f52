"""The compiled kernels, ``geometry_core._native``, or an ImportError that says how to build them.

``geometry_core._native`` (C sources in ``csrc/``, CPython API only) is the
one implementation of the hot loops: frame-tree composition, the broadphase,
and the pair and point kernels of the proximity queries. There is no
pure-Python copy of them. pip builds the extension with gcc and Python's
headers; a source tree that was not built fails here, with the commands that
build it. Layers import this module, never ``_native`` directly.
"""

from __future__ import annotations

__all__ = ["native"]

try:
    from geometry_core import _native as native
except ImportError as err:  # a source tree that pip did not build
    raise ImportError(
        f"geometry_core's compiled kernels (geometry_core._native) are not built: {err}. "
        "They need gcc and Python's headers (Debian/Ubuntu: apt install gcc python3-dev); "
        "build them with `pip install .` (or `pip install -e .`, or "
        "`python setup.py build_ext --inplace`) from the repository root.") from err
