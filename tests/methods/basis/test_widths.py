"""The shared ABF width stage (:mod:`delve_bench.methods.basis.widths`) and the runner's
stage store (:mod:`delve_bench.run.stages`): a stage reused from the store gives the same
bits as one computed in place, on real data, through the plugins and through the runner;
a corrupt or torn file is never used; a stage that a budget may stop is never shared."""

from __future__ import annotations

import json
import shutil
import threading

import numpy as np
import pytest
from support import NUMPY_AVX512

from delve_bench.methods.base import Budget, FitContext
from delve_bench.methods.basis.abf import fit_abf
from delve_bench.methods.basis.design import Scaling
from delve_bench.methods.basis.widths import (
    STAGE,
    stage_data,
    stage_key,
    width_stage,
)
from delve_bench.methods.registry import method_spec
from delve_bench.rng import derived_seed
from delve_bench.run import load_instance
from delve_bench.run.job import Job, RunOptions, execute, fit_predict
from delve_bench.run.stages import STAGES_DIR, StageCache
from delve_bench.run.store import read_meta, result_dir
from delve_bench.tasks import TaskRef
from delve_bench.workspace import WorkspaceDirs, builtin_root

KIN64 = TaskRef("kin-8nm", "dist", 64)
#: the stage's CG on kin-8nm/std.64 #0 (iterations, evaluations, log marginal likelihood),
#: by numpy's loops (support.NUMPY_AVX512): the CG's line searches take other steps
CG = (100, 169, -89.94566880567257) if NUMPY_AVX512 else (100, 179, -89.94491584876806)
#: its widths (input 2, which hardly matters, ends far along a flat direction either way)
WIDTHS = (
    [2.1447, 90.9412, 0.824, 1.548, 1.6256, 0.7244, 0.4493, 1.8087]
    if NUMPY_AVX512
    else [2.1466, 97.9501, 0.8239, 1.5477, 1.6247, 0.7245, 0.449, 1.8072]
)
#: the methods that start from the stage, and abf-1, whose CG it is
SHARING = ("ssge-pta10-1", "svm-1", "abf-1", "ols-cv-1")
#: what a fit records that may differ between a computed and a reused stage
MEASURED = ("width_reused",)


@pytest.fixture(scope="module")
def kin64():
    return load_instance(WorkspaceDirs(builtin_root()), KIN64, 0)


@pytest.fixture(scope="module")
def scaled(kin64):
    sc = Scaling.fit(kin64.X_train, kin64.y_train)
    return sc.inputs(kin64.X_train), sc.target(kin64.y_train)


def _fit(name: str, enc, stages=None, budget: Budget | None = None):
    """``name`` fitted as the runner fits it (its seed, its work budget), with ``stages``."""
    spec = method_spec(WorkspaceDirs(builtin_root()), name)
    seed = derived_seed(spec.seed_name, enc.task, enc.index)
    ctx = FitContext(
        rng=np.random.default_rng(seed),
        budget=budget or spec.make_budget(len(enc.y_train), "work"),
        kinds=enc.coding.kinds,
        stages=stages,
    )
    return fit_predict(spec.instantiate(), enc, ctx)


def _same_fit(a, b) -> None:
    pa, pb = a.prediction, b.prediction
    np.testing.assert_array_equal(pa.mean, pb.mean)
    if pa.density is not None:
        np.testing.assert_array_equal(pa.density.variance(), pb.density.variance())

    def kept(info):
        return {
            k: np.asarray(v).tolist()
            for k, v in info.items()
            if not k.endswith("cpu_seconds") and k not in MEASURED
        }

    assert kept(a.info) == kept(b.info)


@pytest.mark.slow  # eight fits, 2.5 CPU s; the fast loop shares a stage through the store below
def test_methods_on_one_training_set_compute_the_stage_once_with_the_same_bits(kin64, tmp_path):
    """kin-8nm/std.64 #0: the first method computes the stage (100 CG iterations, 169
    evaluations with numpy's AVX-512 loops, 179 without) and stores it; the others read it and predict exactly what they predict
    computing it themselves, abf-1 (whose CG it is) included."""
    store = StageCache(tmp_path)
    shared = [_fit(m, kin64, store) for m in SHARING]
    alone = [_fit(m, kin64) for m in SHARING]
    for m, a, b in zip(SHARING, shared, alone, strict=True):
        _same_fit(a, b)
        assert b.info["width_reused"] is False, m
    assert [f.info["width_reused"] for f in shared] == [False, True, True, True]
    assert len({f.info["width_cpu_seconds"] for f in shared}) == 1  # the computing job's
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 1 and files[0].parent.parent.name == STAGE
    doc = json.loads(files[0].read_text())
    assert (doc["value"]["iterations"], doc["value"]["evaluations"]) == CG[:2]
    assert doc["value"]["log_ml"] == CG[2]
    assert shared[2].info["cg_iterations"] == 100  # abf-1 reports the shared CG's counts


def test_the_stage_is_abfs_cg_and_its_end_point_value(scaled):
    """The stage's log marginal likelihood is the CG's own value at its end point: the
    same number the ABF model on those widths reports."""
    X, t = scaled
    stage = width_stage(X, t, max_n=2048, max_iterations=100)
    fit = fit_abf(X, t, max_iterations=100)
    assert stage.optimum.log_ml == fit.log_ml == CG[2]
    np.testing.assert_array_equal(stage.widths, fit.widths)
    np.testing.assert_allclose(stage.widths, WIDTHS, atol=5e-5)


def test_the_runner_shares_the_stage_through_the_result_store(ws):
    """Two jobs on one training set (work mode: cpu mode computes the stage in place): the
    second reads the stage from the result store's .stages/ and records its CPU seconds;
    rerun with the store emptied it computes the stage itself and writes byte-identical
    losses."""
    work = RunOptions(mode="work")
    first = execute(str(ws.root), Job("ssge-pta10-1", KIN64, 0), work)
    warm = execute(str(ws.root), Job("rvm-1", KIN64, 0), work)
    assert first.status == warm.status == "ok"
    m1 = read_meta(result_dir(ws, "ssge-pta10-1", KIN64, 0))
    m2 = read_meta(result_dir(ws, "rvm-1", KIN64, 0))
    assert m1 is not None and m2 is not None
    assert (m1["info"]["width_reused"], m2["info"]["width_reused"]) == (False, True)
    assert m2["info"]["width_cpu_seconds"] == m1["info"]["width_cpu_seconds"]
    assert len(list((ws.results / STAGES_DIR).rglob("*.json"))) == 1
    shutil.rmtree(ws.results / STAGES_DIR)
    forced = RunOptions(mode="work", force=True)
    assert execute(str(ws.root), Job("rvm-1", KIN64, 0), forced).status == "ok"
    m3 = read_meta(result_dir(ws, "rvm-1", KIN64, 0))
    assert m3 is not None and m3["info"]["width_reused"] is False
    assert m3["losses_sha256"] == m2["losses_sha256"]
    assert m3["fingerprint"] == m2["fingerprint"]


def _corrupt_truncated(path, store, key):
    path.write_bytes(path.read_bytes()[:57])


def _corrupt_checksum(path, store, key):
    doc = json.loads(path.read_text())
    doc["value"]["theta"][0] += 1.0
    path.write_text(json.dumps(doc))


def _corrupt_other_key(path, store, key):
    doc = json.loads(path.read_text())
    doc["key"] = "0" * 64
    path.write_text(json.dumps(doc))


def _corrupt_not_json(path, store, key):
    path.write_bytes(b"\x00\xff" * 40)


def _corrupt_wrong_shape(path, store, key):
    value = json.loads(path.read_text())["value"]
    store.save(STAGE, key, value | {"theta": value["theta"][:3]})  # checksum fine, shape not


def _corrupt_a_directory(path, store, key):
    path.unlink()
    path.mkdir()
    (path / "x").write_text("{}")


@pytest.mark.parametrize(
    "corrupt",
    [
        _corrupt_truncated,
        _corrupt_checksum,
        _corrupt_other_key,
        _corrupt_not_json,
        _corrupt_wrong_shape,
        _corrupt_a_directory,
    ],
)
def test_a_corrupt_stage_file_is_recomputed(scaled, tmp_path, corrupt):
    X, t = scaled
    store = StageCache(tmp_path)
    first = width_stage(X, t, max_n=2048, max_iterations=20, store=store)
    key = stage_key(X, t, 20)
    path = store.path(STAGE, key)
    corrupt(path, store, key)
    again = width_stage(X, t, max_n=2048, max_iterations=20, store=store)
    assert not again.reused
    np.testing.assert_array_equal(again.optimum.theta, first.optimum.theta)
    # rewritten whole; a folder in the file's place cannot be replaced: computed each time
    reread = width_stage(X, t, max_n=2048, max_iterations=20, store=store)
    assert reread.reused is not path.is_dir()


@pytest.mark.slow  # 50 writes of 0.4 MB racing a reader, 1 s
def test_readers_never_see_a_torn_stage_file(tmp_path):
    """Two writers saving the same key (two jobs that both missed) and a reader: every
    read is no value or one whole value (a staged write renamed into place)."""
    store, key = StageCache(tmp_path), "ab" * 32
    values = [{"theta": [float(i)] * 20000, "who": i} for i in range(2)]
    seen: list = []
    done = threading.Event()

    def write(v):
        for _ in range(25):
            store.save(STAGE, key, v)

    def read():
        while not done.is_set():
            seen.append(store.load(STAGE, key))

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(v,)) for v in values]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    done.set()
    reader.join()
    assert seen and all(v is None or v in values for v in seen)
    assert store.load(STAGE, key) in values
    assert [p.name for p in store.path(STAGE, key).parent.iterdir()] == [f"{key}.json"]


def test_beyond_max_n_the_subset_is_fixed_by_the_training_set(scaled):
    """Every method gets the same cases whatever its own generator: a stream seeded by
    the data's bytes picks them, in their order."""
    X, t = scaled
    Xw, tw = stage_data(X, t, 20)
    picked = [int(np.flatnonzero((X == row).all(1))[0]) for row in Xw]
    assert picked == [0, 5, 7, 8, 11, 13, 14, 19, 21, 23, 24, 25, 27, 29, 31, 33, 40, 42, 49, 58]
    np.testing.assert_array_equal(tw, t[picked])
    Xo, _ = stage_data(X, t + 1.0, 20)  # other data, another subset
    assert not np.array_equal(Xo, Xw)
    assert stage_data(X, t, 64)[0] is X  # up to max_n: all of them, as they are
    assert stage_key(X, t, 100) != stage_key(X, t, 99) != stage_key(Xw, tw, 99)


def test_the_key_names_the_blas_threads(scaled):
    """Another BLAS thread count may change the last bits of an eigendecomposition: a
    stage computed with one is not reused with another."""
    from threadpoolctl import threadpool_limits

    X, t = scaled
    with threadpool_limits(limits=1):
        one = stage_key(X, t, 100)
        assert stage_key(X, t, 100) == one
    with threadpool_limits(limits=2):
        assert stage_key(X, t, 100) != one


def test_the_key_names_the_blas_kernels(scaled, monkeypatch):
    """OPENBLAS_CORETYPE picks other kernels on the same machine, whose last bits may
    differ: a stage computed with Haswell's is not reused with SkylakeX's."""
    import delve_bench.blas

    X, t = scaled

    def libraries(arch):
        lib = {"library": "openblas", "version": "0.3.27", "threads": 1, "file": "x.so"}
        return lambda: [lib | {"architecture": arch}]

    monkeypatch.setattr(delve_bench.blas, "numpy_blas", libraries("Haswell"))
    haswell = stage_key(X, t, 100)
    assert stage_key(X, t, 100) == haswell
    monkeypatch.setattr(delve_bench.blas, "numpy_blas", libraries("SkylakeX"))
    assert stage_key(X, t, 100) != haswell


@pytest.mark.slow  # a fresh interpreter importing scipy, 0.7 s
def test_the_key_does_not_depend_on_what_else_was_imported():
    """scipy's wheel brings its own OpenBLAS; a process that imported it computes the same
    key as one that did not, since the stage runs on numpy's BLAS alone."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from delve_bench.methods.basis.widths import stage_key\n"
        "X = np.arange(12.0).reshape(4, 3); t = np.arange(4.0)\n"
        "one = stage_key(X, t, 50)\n"
        "import scipy.linalg\n"
        "from threadpoolctl import threadpool_info\n"
        "n = sum(i['user_api'] == 'blas' for i in threadpool_info())\n"
        "print(n, one == stage_key(X, t, 50))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    libraries, same = out.stdout.split()
    assert same == "True", libraries


def test_a_stage_a_budget_may_stop_is_never_shared(kin64, scaled, tmp_path):
    """cpu mode (the clock may end the stage), and abf-1 with a work budget below its
    iteration limit, compute in place and store nothing; asking for both is refused."""
    store = StageCache(tmp_path)
    cpu = _fit("svm-1", kin64, store, Budget(mode="cpu", cpu_seconds=1e6))
    assert cpu.info["width_reused"] is False
    short = _fit("abf-1", kin64, store, Budget(mode="work", work=5))
    assert short.info["cg_iterations"] == 5 and short.info["width_reused"] is False
    assert not list(tmp_path.rglob("*.json"))
    X, t = scaled
    with pytest.raises(ValueError, match="cannot be shared"):
        width_stage(X, t, max_n=64, max_iterations=5, stop=lambda i: False, store=store)


@pytest.mark.parametrize("stage, key", [("../x", "ab" * 32), ("abf-widths", "../" * 8)])
def test_the_store_takes_only_stage_names_and_sha256_keys(tmp_path, stage, key):
    with pytest.raises(ValueError, match="not a stage name"):
        StageCache(tmp_path).path(stage, key)
