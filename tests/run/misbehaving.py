"""Methods that misbehave on purpose, for the runner's tests (importable via PYTHONPATH)."""

from __future__ import annotations

import os
import signal
import tempfile
import time

import numpy as np

from delve_bench.methods.base import Method, Prediction


class Spin(Method):
    """Computes forever (a CPU-bound hang)."""

    def fit(self, X, y, ctx):
        x = 0.0
        while True:
            x += 1.0

    def predict(self, X):
        return Prediction(np.zeros(len(X)))


class Sleep(Method):
    """Waits forever without using CPU (a blocked hang)."""

    def fit(self, X, y, ctx):
        time.sleep(10_000)

    def predict(self, X):
        return Prediction(np.zeros(len(X)))


class SleepDeaf(Method):
    """Waits forever with SIGALRM ignored: a job that escapes its worker's wall-clock timer
    (the runner's parent kills it)."""

    def fit(self, X, y, ctx):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(10_000)

    def predict(self, X):
        return Prediction(np.zeros(len(X)))


class Segfault(Method):
    """Kills its own process, as a crashing C extension would."""

    def fit(self, X, y, ctx):
        os.kill(os.getpid(), signal.SIGSEGV)

    def predict(self, X):
        return Prediction(np.zeros(len(X)))


class NanPredictions(Method):
    def fit(self, X, y, ctx):
        pass

    def predict(self, X):
        return Prediction(np.full(len(X), np.nan))


class Slow(Method):
    """Predicts the training mean after using ``seconds`` of CPU: a job worth killing -9."""

    def __init__(self, seconds: float = 0.5):
        self.seconds = seconds

    def fit(self, X, y, ctx):
        t = time.process_time()
        while time.process_time() - t < self.seconds:
            pass
        self.m = float(np.mean(y))

    def predict(self, X):
        return Prediction(np.full(len(X), self.m))


class Hog(Method):
    """Allocates ``gigabytes`` of memory at once (a job past its memory limit)."""

    def __init__(self, gigabytes: float = 4.0):
        self.gigabytes = gigabytes

    def fit(self, X, y, ctx):
        self.block = np.ones(int(self.gigabytes * 2**30 / 8))

    def predict(self, X):
        return Prediction(np.zeros(len(X)))


class Nap(Method):
    """Predicts the training mean after sleeping ``$DELVE_TEST_NAP`` seconds (default 0):
    the same method, quick or slow, as a test needs it. With ``$DELVE_TEST_NAP_MARKS``
    (a folder) each fit leaves a file there as it starts to sleep: a test interrupts the
    run once its jobs are in fit(), not after a guess of how long they take to get there;
    ``$DELVE_TEST_NAP_AFTER`` = k: the first k fits (by those files) do not sleep."""

    losses = ("S", "A")

    def fit(self, X, y, ctx):
        marks = os.environ.get("DELVE_TEST_NAP_MARKS")
        before = 0
        if marks:
            before = len(os.listdir(marks))
            os.close(tempfile.mkstemp(dir=marks, prefix=f"{os.getpid()}-")[0])
        if before >= int(os.environ.get("DELVE_TEST_NAP_AFTER", "0")):
            time.sleep(float(os.environ.get("DELVE_TEST_NAP", "0")))
        self.m = float(np.mean(y))

    def predict(self, X):
        return Prediction(np.full(len(X), self.m))
