"""A method that reports the thread pools it runs in, for the runner's tests (importable
via PYTHONPATH, or from sys.path where the test put tests/run there)."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from delve_bench.methods.base import Method, Prediction


class BlasThreads(Method):
    """Predicts the training mean; ``info["threads"]``: the widest BLAS or OpenMP pool
    loaded in the job's process while it fits."""

    losses = ("S", "A")

    def fit(self, X, y, ctx):
        ctx.info["threads"] = max(p["num_threads"] for p in threadpool_info())
        self.m = float(np.mean(y))

    def predict(self, X):
        return Prediction(np.full(len(X), self.m))


class ThreadVariables(BlasThreads):
    """:class:`BlasThreads`; ``info["variables"]``: the thread-count variables a library
    loaded during the fit would read (OpenBLAS, an OpenMP runtime, MKL)."""

    def fit(self, X, y, ctx):
        import os

        names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
        ctx.info["variables"] = {k: os.environ.get(k) for k in names}
        super().fit(X, y, ctx)
