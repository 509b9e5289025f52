"""The compiled kernels: ``geometry_core.native``, or an ImportError that says how to build them.

The C sources in ``csrc/`` (CPython API only) build the extension
``geometry_core._native``: the one implementation of the hot loops
(frame-tree composition, the broadphase, the pair and point kernels of the
proximity queries, kinematics, point clouds). There is no pure-Python copy
of them. Every layer reaches them by this one name, ``from geometry_core
import native``: this module is the extension's face (``native.Model``,
``native.kinematics``, ``native.rotation``, ...) and the only importer of
``_native``. It imports nothing else of the package, so the math at the
bottom of the layers uses it as freely as the queries at the top.

pip builds the extension with gcc and Python's headers; a source tree that
was not built fails here, with the commands that build it.
"""

from __future__ import annotations

try:
    from geometry_core import _native
except ImportError as err:  # a source tree that pip did not build
    raise ImportError(
        f"geometry_core's compiled kernels (geometry_core._native) are not built: {err}. "
        "They need gcc and Python's headers (Debian/Ubuntu: apt install gcc python3-dev); "
        "build them with `pip install .` (or `pip install -e .`, or "
        "`python setup.py build_ext --inplace`) from the repository root.") from err

__all__ = sorted(name for name in dir(_native) if not name.startswith("_"))
globals().update({name: getattr(_native, name) for name in __all__})
