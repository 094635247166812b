"""Hostile input at the command line: one clear line, exit 2, nothing written, nothing lost."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from support import one_line_error

RUN = ("run", "lin-1", "kin-8nm/std.64")


def _tree(path):
    """Every file under ``path`` with its bytes (to show that nothing was lost or added)."""
    return {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "extra,needle",
    [
        (("--time-scale", "0"), "'--time-scale': 0 must be a finite number greater than 0"),
        (("--time-scale", "-1"), "'--time-scale': -1 must be a finite number greater than 0"),
        (("--time-scale", "nan"), "'--time-scale': nan must be a finite number"),
        (("--hard-limit", "0"), "'--hard-limit': 0 must be a finite number greater than 0"),
        (("--hard-limit", "-5"), "'--hard-limit': -5 must be a finite number greater than 0"),
        (("--hard-limit", "inf"), "'--hard-limit': inf must be a finite number"),
        (("--instances", "2-1"), "--instances '2-1': the range 2-1 is empty"),
        (("--instances", "1,x"), "--instances '1,x': use numbers and ranges like 0,2-4"),
        (("--instances", "0-99999999999"), "no task has an instance 99999999999"),
        (("--jobs", "0"), "'--jobs'"),
        (("--budget-mode", "fast"), "'--budget-mode'"),
    ],
)
def test_bad_option_values_are_refused(delve, tmp_path, extra, needle):
    one_line_error(delve(*RUN, *extra), needle)
    assert not (tmp_path / "results").exists()


def test_global_options_work_before_and_after_the_subcommand(delve, tmp_path):
    ws = tmp_path / "elsewhere"
    ws.mkdir()
    r = delve("run", "lin-1", "kin-8nm/std.64", "--instances", "0", "--root", str(ws), check=True)
    assert "ran 1" in r.stderr
    assert (ws / "results" / "lin-1" / "kin-8nm" / "dist" / "std.64" / "0" / "meta.json").is_file()
    assert not (tmp_path / "results").exists()
    for args in (("--root", str(ws), "status"), ("status", "--root", str(ws))):
        r = delve(*args, check=True)
        assert "lin-1" in r.stdout and "kin-8nm/dist/std.64" in r.stdout, args


def test_status_of_an_unknown_name_says_method_or_task(delve):
    one_line_error(delve("status", "lin1"), "unknown method or task 'lin1' (did you mean lin-1?)")
    one_line_error(delve("status", "lin-1", "kin8nm/std.64"), "unknown dataset 'kin8nm'")


def test_a_broken_method_yaml_only_breaks_commands_that_use_it(delve, tmp_path):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "broken-1.yaml").write_text("plugin: [unclosed\n")
    r = delve(*RUN, "--instances", "0", check=True)
    assert "ran 1" in r.stderr
    r = delve("methods", check=True)
    line = next(x for x in r.stdout.splitlines() if x.startswith("broken-1 "))
    assert "lin-1 " in r.stdout and "broken: " in line and "could not be read" in r.stderr
    one_line_error(delve("run", "broken-1", "kin-8nm/std.64"), "broken-1.yaml: not valid YAML")
    delve("status", "lin-1", check=True)


def test_a_method_whose_optional_package_is_missing_is_one_error_before_any_job_runs(
    delve, tmp_path
):
    # svm-1 and svm-class-1 declare scikit-learn this way; a missing package used to fail
    # every job of a study one by one
    (tmp_path / "needy.py").write_text(
        "from delve_bench.methods.lin import Lin1\n"
        "class Needy(Lin1):\n"
        "    requires = {'no_such_package_xyz': 'xyz'}\n"
    )
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "needy-1.yaml").write_text("plugin: needy:Needy\n")
    one_line_error(
        delve("run", "needy-1", "kin-8nm/std.64"),
        "method needy-1 needs the package 'no_such_package_xyz', which is not installed: "
        "pip install 'delve-bench[xyz]'",
    )
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "yaml_text,needle",
    [
        ("plugin: nosuchmodule:Thing\n", "cannot import plugin 'nosuchmodule:Thing'"),
        ("plugin: delve_bench.methods.lin:Lin1\nparams: {colour: red}\n", "fails (TypeError"),
        (
            "plugin: delve_bench.methods.lin:Lin1\nbudget: {cpu_per_case: lots}\n",
            "bad-1.yaml: budget.cpu_per_case: expected a number, got 'lots'",
        ),
        ("name: good-1\nplugin: delve_bench.methods.lin:Lin1\n", "name: 'good-1' differs"),
    ],
)
def test_a_bad_plugin_is_one_error_before_any_job_runs(delve, tmp_path, yaml_text, needle):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "bad-1.yaml").write_text(yaml_text)
    one_line_error(delve("run", "bad-1", "lin-1", "kin-8nm/std.64"), needle)
    assert not (tmp_path / "results").exists()


def _copy_prototask(tmp_path, ws_specs, ds="kin-8nm", pt="dist"):
    from delve_bench.tasks.spec import prototask_spec

    src = prototask_spec(ws_specs, ds, pt)
    (tmp_path / "tasks" / ds).mkdir(parents=True)
    shutil.copytree(src.dir, tmp_path / "tasks" / ds / pt)
    target = tmp_path / "tasks" / ds / f"{pt}.yaml"
    shutil.copy(src.path, target)
    return target


@pytest.mark.parametrize(
    "old,new,needle",
    [
        (
            "[64, 128, 256, 512, 1024]",
            "[64, abc]",
            "training-set-sizes[1]: expected a whole number",
        ),
        ("targets: [9]", "targets: [8]", "targets: attribute theta8 is also an input"),
        ("test-set-size: 4096", "test-set-size: lots", "test-set-size: expected a whole number"),
    ],
)
def test_a_bad_prototask_is_one_line_naming_file_and_field(delve, tmp_path, ws, old, new, needle):
    path = _copy_prototask(tmp_path, ws)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    out = one_line_error(delve(*RUN), needle)
    assert "tasks/kin-8nm/dist.yaml" in out
    assert not (tmp_path / "results").exists()


def test_non_finite_data_is_named_by_file_line_and_column(delve, tmp_path):
    data = tmp_path / "data-dir"
    data.mkdir()
    (tmp_path / "datasets").mkdir()
    (tmp_path / "tasks" / "tiny").mkdir(parents=True)
    X = np.random.default_rng(0).normal(size=(400, 3))
    X[4, 1] = np.nan
    np.savetxt(data / "tiny.data", X, fmt="%.6g")
    (tmp_path / "datasets" / "tiny.yaml").write_text(
        "name: tiny\ncases: 400\nfile: tiny.data\nattributes:\n"
        "- {name: a, kind: real}\n- {name: b, kind: real}\n- {name: y, kind: real}\n"
    )
    (tmp_path / "tasks" / "tiny" / "p.yaml").write_text(
        "inputs: 1-2\ntargets: [3]\ntest-set-size: 128\ntraining-set-sizes: [32]\n"
        "maximum-number-of-instances: 2\ntest-set-selection: hierarchical\nseed: 1\n"
    )
    env = {"DELVE_DATA_PATH": str(data)}
    delve("gen", "tiny/p", env=env, check=True)
    one_line_error(
        delve("run", "lin-1", "tiny/p/std.32", env=env),
        "tiny.data, line 5, column 2 (b): 'nan' is not a finite number",
    )
    assert not (tmp_path / "results").exists()
    spec = tmp_path / "datasets" / "tiny.yaml"
    spec.write_text(spec.read_text().replace("cases: 400", "cases: 400\nmissing: [nan]"))
    (tmp_path / "tasks" / "tiny" / "p.yaml").write_text(
        (tmp_path / "tasks" / "tiny" / "p.yaml").read_text() + "cases: no missing\n"
    )
    shutil.rmtree(tmp_path / "tasks" / "tiny" / "p")
    delve("gen", "tiny/p", env=env, check=True)
    delve("run", "lin-1", "tiny/p/std.32", env=env, check=True)


def test_a_results_folder_that_cannot_be_written_is_one_error(delve, tmp_path):
    (tmp_path / "results").write_text("not a folder")
    out = one_line_error(delve(*RUN), "cannot write results in")
    assert "results" in out


def test_a_file_where_a_method_folder_goes_is_one_error(delve, tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "lin-1").write_text("not a folder")
    out = one_line_error(delve(*RUN), "cannot write results in")
    assert "lin-1 is not a folder" in out
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["lin-1"]  # nothing written


def _obeying_permissions():
    """``preexec_fn`` for a subprocess that cannot write into a read-only folder: root
    normally can (CAP_DAC_OVERRIDE), so as root drop that capability from the child's
    bounding set before it starts; None when already unprivileged."""
    if os.geteuid() != 0:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def drop():
        for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


@pytest.mark.slow  # several real `delve` processes
def test_a_read_only_results_folder_is_one_error(tmp_path):
    drop = _obeying_permissions()

    def delve(*args):
        return subprocess.run(
            [sys.executable, "-m", "delve_bench", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=dict(os.environ, DELVE_ROOT=str(tmp_path)),
            preexec_fn=drop,
            timeout=600,
        )

    r = delve(*RUN, "--instances", "0")
    assert r.returncode == 0, r.stderr
    before = _tree(tmp_path / "results")
    dirs = [tmp_path / "results", *(p for p in (tmp_path / "results").rglob("*") if p.is_dir())]
    for d in dirs:
        os.chmod(d, 0o555)
    try:
        one_line_error(delve("run", "knn-cv-1", "kin-8nm/std.64"), "cannot write results in")
        one_line_error(delve(*RUN, "--force"), "cannot write results in")
    finally:
        for d in dirs:
            os.chmod(d, 0o755)
    assert _tree(tmp_path / "results") == before
    # only one task's folder read-only: the store takes a file, that folder does not
    task = tmp_path / "results" / "lin-1" / "kin-8nm" / "dist" / "std.64"
    os.chmod(task, 0o555)
    try:
        out = one_line_error(delve(*RUN), "cannot write results in")
        assert "std.64" in out
    finally:
        os.chmod(task, 0o755)
    assert _tree(tmp_path / "results") == before


def test_meta_json_that_is_not_an_object_or_a_lost_predictions_file_reads_as_corrupt(
    delve, tmp_path
):
    delve(*RUN, "--instances", "0-2", check=True)
    d = tmp_path / "results" / "lin-1" / "kin-8nm" / "dist" / "std.64"
    (d / "0" / "meta.json").write_text("[1, 2, 3]")
    (d / "1" / "predictions.csv").unlink()
    r = delve("status", "lin-1", "kin-8nm/std.64", "--json", check=True)
    (row,) = json.loads(r.stdout)
    assert row["corrupt"] == [0, 1] and row["done"] == [2]
    r = delve("stats", "lin-1", "kin-8nm/std.64")
    assert "Traceback" not in r.stderr
    r = delve(*RUN, "--instances", "0-2", check=True)
    assert "ran 2, skipped 1" in r.stderr
    assert json.loads((d / "0" / "meta.json").read_text())["status"] == "ok"
