"""Benchmarks: geometry_core side by side with Drake and raw python-fcl.

The tables say "one thread": numpy's and scipy's OpenBLAS would otherwise
start worker threads that spin on this machine's few cores while the
measured thread runs. Pinning them to one thread here (before numpy is
imported) keeps every system, Drake included, on one core's worth of CPU;
set the variables yourself to measure otherwise.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
