"""Plain helpers shared by the test modules (importable as ``support``: pytest puts
``tests/`` on sys.path, see pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

from delve_bench.workspace import shipped_data_dir

REPO = Path(__file__).resolve().parents[1]
#: the data files that ship with the package (docs/data.md): every test has real data
DATA = shipped_data_dir()


def one_line_error(r, needle: str = "") -> str:
    """Assert a finished `delve` process failed as a user error: exit 2, one line, no
    traceback, mentioning ``needle``; returns the line."""
    out = (r.stderr + r.stdout).strip()
    assert r.returncode == 2, out
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert needle in out, out
    return out


def class_instance(ws, dataset: str, prototask: str, size: int, index: int):
    """One encoded classification instance: (X, y, X_test, y_test, classes), y as codes."""
    import numpy as np

    from delve_bench.data import load_dataset
    from delve_bench.data.encoding import fit_coding
    from delve_bench.tasks import prototask_spec, task_layout

    proto = prototask_spec(ws, dataset, prototask)
    inst = task_layout(ws, proto, size).instances[index]
    ds = load_dataset(ws, dataset)
    attrs = [ds.spec.attributes[j] for j in proto.inputs]
    target = ds.spec.attributes[proto.targets[0]]
    cols, t = list(proto.inputs), proto.targets[0]
    xtr, ytr = ds.values[np.ix_(inst.train, cols)], ds.values[inst.train, t]
    xte, yte = ds.values[np.ix_(inst.test, cols)], ds.values[inst.test, t]
    c = fit_coding(xtr, ytr, attrs, target)
    return c.inputs(xtr), c.target(ytr), c.inputs(xte), c.target(yte), c.classes


def fit_method(method, X, y, budget=None, seed: int = 0):
    """Fit ``method`` on encoded ``X`` (n, m), ``y`` (n,) with a seeded context (an unlimited
    work budget unless given) and return the context (its ``info`` is the meta.json part)."""
    from delve_bench.methods.base import FitContext

    ctx = FitContext.seeded(seed=seed, budget=budget, kinds=len(X[0]))
    method.fit(X, y, ctx)
    return ctx


def run_delve(root, *args: str, timeout: int = 900):
    """Run the `delve` command in workspace ``root`` (as the ``delve`` fixture does, for
    module-scoped fixtures, where a function-scoped fixture cannot be used)."""
    import os

    import warm

    env = dict(os.environ, DELVE_ROOT=str(root), PYTHONUNBUFFERED="1")
    return warm.run(args, env=env, cwd=root, timeout=timeout)


def unshipped_dataset(root: Path, name: str = "kin-32xx") -> str:
    """A user's dataset (a copy of kin-32fm's specs under another name) whose data file is
    nowhere: not shipped, not in a data path or the cache. Every DELVE dataset the package
    defines ships its data, so the paths that say `delve fetch NAME` are tested on this."""
    (root / "datasets").mkdir(parents=True, exist_ok=True)
    spec = (REPO / "datasets" / "kin-32fm.yaml").read_text().replace("kin-32fm", name)
    lines = [li for li in spec.splitlines() if not li.startswith("sha256:")]
    (root / "datasets" / f"{name}.yaml").write_text("\n".join(lines) + "\n")
    (root / "tasks" / name).mkdir(parents=True, exist_ok=True)
    proto = (REPO / "tasks" / "kin-32fm" / "dist.yaml").read_text()
    (root / "tasks" / name / "dist.yaml").write_text(proto)
    return name


def summary(mean: float | None, se: float = 0.01):
    """A :class:`~delve_bench.stats.results.Summary` with standardised (and raw) expected
    loss ``mean`` and SE ``se``: one method's cell in the report fixtures."""
    from delve_bench.stats.results import Summary

    return Summary(
        mean=mean,
        se=se,
        standardized={"mean": mean, "se": se},
        standardization={"scale": 1.0, "shift": 0.0},
    )


def comparison(
    difference: float,
    p: float,
    bounded: bool = False,
    mean_a: float | None = None,
    mean_b: float | None = None,
):
    """A :class:`~delve_bench.stats.results.Comparison` A - B of standardised difference
    ``difference`` whose test gave ``p``: the t-test on 8 instances, or with ``bounded``
    the quasi-F on 3, which may only say ``p < 0.05``."""
    from delve_bench.stats.results import Comparison

    mean_b = 1.0 if mean_b is None else mean_b
    mean_a = mean_b + difference if mean_a is None else mean_a
    return Comparison(
        mean_a=mean_a,
        mean_b=mean_b,
        difference=difference,
        mean=difference,
        se=0.01,
        standardized={"mean": difference, "se": 0.01, "mean_a": mean_a, "mean_b": mean_b},
        standardization={"scale": 1.0, "shift": 0.0},
        test="F" if bounded else "t",
        test_name="Lindman's quasi-F test" if bounded else "paired t-test",
        statistic=None,
        df=[1.0, 2.0] if bounded else [7.0],
        instances=3 if bounded else 8,
        p=p,
    )


def _numpy_avx512() -> bool:
    from delve_bench.blas import numpy_simd

    return any(t.startswith(("X86_V4", "AVX512")) for t in numpy_simd())


#: numpy runs its AVX-512 loops on this CPU: float64 exp and log then differ from the C
#: library's in the last bits, and a few iterative fits take other steps, so the tests
#: that pin such a fit's numbers keep one set per kind of loop (docs/provenance.md)
NUMPY_AVX512 = _numpy_avx512()
