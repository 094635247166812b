"""OpenBLAS's kernels pinned by the entry point (and the forkserver), the BLAS each job ran
with recorded in meta.json, and the note verify adds when the kernels differ."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support import REPO

from delve_bench import blas

HASWELL = ("avx2", "fma", "sse2")
CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu sse2 avx avx2 fma avx512f
bugs\t\t: spectre_v1

processor\t: 1
vendor_id\t: GenuineIntel
flags\t\t: fpu sse2
"""


@pytest.fixture
def x86_linux(monkeypatch):
    monkeypatch.setattr(blas, "_x86_64_linux", lambda: True)


def test_cpu_flags_are_the_first_processors(tmp_path):
    (tmp_path / "cpuinfo").write_text(CPUINFO)
    assert blas.cpu_flags(str(tmp_path / "cpuinfo")) == {
        "fpu",
        "sse2",
        "avx",
        "avx2",
        "fma",
        "avx512f",
    }
    assert blas.cpu_flags(str(tmp_path / "absent")) == frozenset()
    (tmp_path / "arm").write_text("processor\t: 0\nFeatures\t: fp asimd\n")
    assert blas.cpu_flags(str(tmp_path / "arm")) == frozenset()


def test_the_entry_point_pins_haswell_only_when_unset_and_the_cpu_has_avx2(x86_linux, monkeypatch):
    monkeypatch.setattr(blas, "cpu_flags", lambda: frozenset(HASWELL))
    env: dict[str, str] = {}
    assert blas.pin_openblas(env) == "Haswell" and env == {"OPENBLAS_CORETYPE": "Haswell"}
    # the user's own value wins, whatever it is
    for own in ("SkylakeX", ""):
        env = {"OPENBLAS_CORETYPE": own}
        assert blas.pin_openblas(env) is None and env == {"OPENBLAS_CORETYPE": own}
    # no AVX2 (or AVX2 without FMA): OpenBLAS chooses, as it would
    for flags in (("sse2", "avx"), ("avx2", "sse2")):
        monkeypatch.setattr(blas, "cpu_flags", lambda f=flags: frozenset(f))
        env = {}
        assert blas.pin_openblas(env) is None and env == {}
    # os.environ by default
    monkeypatch.setattr(blas, "cpu_flags", lambda: frozenset(HASWELL))
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    assert blas.pin_openblas() == "Haswell" and os.environ["OPENBLAS_CORETYPE"] == "Haswell"


def test_nothing_is_pinned_off_x86_64_linux(monkeypatch):
    monkeypatch.setattr(blas, "_x86_64_linux", lambda: False)

    def unread():
        raise AssertionError("/proc/cpuinfo read off x86-64 Linux")

    monkeypatch.setattr(blas, "cpu_flags", unread)
    env: dict[str, str] = {}
    assert blas.pin_openblas(env) is None and env == {}
    assert not blas.runs_pinned()


def test_blas_libraries_name_the_library_its_kernels_and_threads():
    import numpy  # noqa: F401  (its OpenBLAS is what is listed)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        libs = blas.blas_libraries()
    assert libs and all(
        set(lib) == {"library", "version", "architecture", "threads", "file"} for lib in libs
    )
    assert all(lib["threads"] == 1 for lib in libs)
    openblas = [lib for lib in libs if lib["library"] == "openblas"]
    assert all(lib["architecture"] and lib["file"].endswith(".so") for lib in openblas)


def _ob(*archs: str) -> list[dict]:
    return [{"library": "openblas", "version": "0.3.30", "architecture": a} for a in archs]


def test_kernel_note_names_the_kernels_and_how_to_pin_them(x86_linux, monkeypatch):
    monkeypatch.setattr(blas, "cpu_flags", lambda: frozenset(HASWELL))
    assert (
        blas.kernel_note(_ob("Haswell"), _ob("SkylakeX", "SkylakeX"))
        == "made with OpenBLAS Haswell kernels, this run SkylakeX: set OPENBLAS_CORETYPE=Haswell"
    )
    # the same kernels, or a committed result made before the field existed: nothing
    assert blas.kernel_note(_ob("Haswell"), _ob("Haswell", "Haswell")) == ""
    assert blas.kernel_note(None, _ob("SkylakeX")) == ""
    assert blas.kernel_note(_ob("Haswell"), None) == ""
    # a CPU that cannot run them is not told to pin them
    monkeypatch.setattr(blas, "cpu_flags", lambda: frozenset({"sse2", "avx"}))
    assert (
        blas.kernel_note(_ob("Haswell"), _ob("Sandybridge"))
        == "made with OpenBLAS Haswell kernels, this run Sandybridge (this CPU cannot run them)"
    )
    # another library: named with its version where it does not name kernels
    mkl = [{"library": "mkl", "version": "2024.1", "architecture": None}]
    assert (
        blas.kernel_note(_ob("Haswell"), mkl)
        == "made with OpenBLAS Haswell kernels, this run MKL 2024.1"
    )


def test_cpu_model_and_numpy_simd_read_what_this_machine_runs(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2\n")
    assert blas.cpu_model(str(info)) == "AMD EPYC"
    assert blas.cpu_model(str(tmp_path / "none")) is None
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    simd = blas.numpy_simd()
    assert simd == [t for t in __cpu_dispatch__ if __cpu_features__[t]]
    assert blas.machine_record() == {"model": blas.cpu_model(), "numpy_simd": simd}


def test_machine_note_names_numpys_simd_targets_and_the_cpus():
    v4 = {"model": "Intel Xeon", "numpy_simd": ["X86_V3", "X86_V4"]}
    v3 = {"model": "AMD EPYC", "numpy_simd": ["X86_V3"]}
    assert (
        blas.machine_note(v4, v3)
        == "made where numpy's loops were X86_V3, X86_V4 (Intel Xeon), this run X86_V3 (AMD EPYC)"
    )
    assert blas.machine_note(v3, v3 | {"model": "AMD EPYC 9B14"}) == ""  # same loops
    assert blas.machine_note(None, v3) == "" and blas.machine_note(v4, None) == ""
    assert blas.machine_note({"model": None, "numpy_simd": []}, v3) == ""


def _job_blas(root, env: dict) -> list[dict]:
    r = subprocess.run(
        [sys.executable, "-m", "delve_bench", "run", "lin-1", "hwang-g1/clean/std.64"]
        + ["--instances", "0", "--budget-mode", "work", "--force", "-q"],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    meta = root / "results" / "lin-1" / "hwang-g1" / "clean" / "std.64" / "0" / "meta.json"
    recorded = json.loads(meta.read_text())
    assert recorded["cpu"] == blas.machine_record()  # the job's CPU, beside its BLAS
    return recorded["blas"]


@pytest.mark.slow
@pytest.mark.skipif(not blas.runs_pinned(), reason="pins only on x86-64 Linux with AVX2")
def test_a_delve_run_records_the_pinned_kernels_unless_the_user_chose(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update(DELVE_ROOT=str(tmp_path), PYTHONPATH=str(REPO))
    libs = _job_blas(tmp_path, env)
    assert {(lib["library"], lib["architecture"], lib["threads"]) for lib in libs} == {
        ("openblas", "Haswell", 1)
    }
    libs = _job_blas(tmp_path, env | {"OPENBLAS_CORETYPE": "Sandybridge"})
    assert {lib["architecture"] for lib in libs} == {"Sandybridge"}


#: jobs through the Python API, numpy loaded first with the kernels OpenBLAS chose
_API = """
import json, os, sys
import numpy
from delve_bench import Workspace
ws = Workspace(sys.argv[1])
ws.run("lin-1", "hwang-g1/clean/std.64", budget_mode="work", instances=[0])
meta = ws.root / "results/lin-1/hwang-g1/clean/std.64/0/meta.json"
print(json.dumps({"job": json.loads(meta.read_text())["blas"],
                  "left": os.environ.get("OPENBLAS_CORETYPE")}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not blas.runs_pinned(), reason="pins only on x86-64 Linux with AVX2")
def test_jobs_run_through_the_api_get_the_pinned_kernels_too(tmp_path):
    """The forkserver's workers load numpy afresh with the setting, and the calling
    program's environment is left as it was."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["PYTHONPATH"] = str(REPO)
    r = subprocess.run(
        [sys.executable, "-c", _API, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert {lib["architecture"] for lib in out["job"]} == {"Haswell"} and out["left"] is None


def test_numpy_blas_is_the_library_in_numpys_wheel_or_every_one():
    """Out of the BLAS loaded, numpy's own (its wheel's directory); where numpy links one
    outside its wheel (a system or conda BLAS), all of them."""
    from delve_bench.blas import numpy_blas

    scipy_lib = {"library": "openblas", "path": "/site/scipy.libs/libscipy_openblas.so"}
    numpy_lib = {"library": "openblas", "path": "/site/numpy.libs/libscipy_openblas64_.so"}
    dirs = ("/site/numpy/", "/site/numpy.libs/")
    assert numpy_blas([scipy_lib, numpy_lib], dirs) == [numpy_lib]
    system = {"library": "openblas", "path": "/usr/lib/libopenblas.so"}
    assert numpy_blas([system], dirs) == [system]
    mine = numpy_blas()  # this process: numpy's wheel's library is among those loaded
    assert mine and all("path" in lib for lib in mine)
