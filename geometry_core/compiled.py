"""Whether the compiled kernels are in use, and why not.

``geometry_core._native`` (C sources in ``csrc/``, CPython API only) holds the
hot loops: frame-tree composition, the broadphase, and the pair and point
kernels of the proximity queries. pip builds it with gcc; every layer keeps a
pure-Python twin with the same answers, used when the module was not built or
when ``GEOMETRY_CORE_NATIVE=0`` is set in the environment (for comparison and
debugging). Layers import this module, never ``_native`` directly.
"""

from __future__ import annotations

import os

__all__ = ["AVAILABLE", "REASON", "native"]

native = None
if os.environ.get("GEOMETRY_CORE_NATIVE", "1") == "0":
    REASON = "disabled by GEOMETRY_CORE_NATIVE=0: pure Python"
else:
    try:
        from geometry_core import _native as native
        REASON = "compiled kernels loaded"
    except ImportError as err:  # a source tree that pip did not build
        REASON = f"compiled kernels not built ({err}): pure Python"

#: True when the compiled kernels answer queries.
AVAILABLE = native is not None
