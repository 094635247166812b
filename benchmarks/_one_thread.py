"""One BLAS and OpenMP thread for every library loaded after this module: the benchmarks
that time single-threaded code import it before numpy.

threadpoolctl's limits reach only the libraries already loaded when they are set. scipy's
wheel brings its own OpenBLAS, loaded on the first use of ``scipy.linalg``, which then
started with a thread per core: on two cores gp-mc-1's trajectories and their
factorisation floor were timed with two threads spinning (twice the CPU). OpenBLAS, the
OpenMP runtime and MKL read these variables when they are loaded, as the ``delve`` runner's
jobs have them.
"""

from __future__ import annotations

import os
import sys

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

if "numpy" in sys.modules:
    raise RuntimeError("import _one_thread before numpy: its BLAS has its threads already")
os.environ.update(ONE_THREAD)
