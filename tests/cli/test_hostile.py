"""Hostile inputs fail fast with one line, and what is printed or written is text: YAML
aliases, deep nesting and duplicate keys; decompression bombs and non-regular files among
results; loose number syntax in data files; control characters on the terminal; Markdown,
CSV and HTML injection; a constant target; --bayes on identical methods; SIGTERM; a typo
after a glob; a missing --root. Each case failed (or hung, or printed a traceback) before."""

from __future__ import annotations

import gzip
import lzma
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from support import DATA, one_line_error

from delve_bench.data import load as load_mod
from delve_bench.data.load import load_dataset
from delve_bench.data.spec import dataset_spec
from delve_bench.errors import DelveError
from delve_bench.run.store import instance_state, read_meta
from delve_bench.specfile import read_yaml

TESTS = Path(__file__).resolve().parents[1]
TASK = "hwang-g1/noisy/std.64"


# ---- YAML ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, needle",
    [
        # the "billion laughs": nine lines that would expand to 10^9 list items
        (
            "name: x\nparams:\n  a: &a [1,1,1,1,1,1,1,1,1,1]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
            "  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
            "aliases (*a) are not allowed, line 4",
        ),
        ("params: " + "[" * 200 + "]" * 200 + "\n", "nested more than 32 levels deep"),
        ("name: x\nparams: {k: 1}\nparams: {k: 200}\n", "duplicate key 'params', line 3"),
        ("name: x\nparams: {k: 5, k: 200}\n", "duplicate key 'k', line 2"),
    ],
    ids=["alias-bomb", "deep-nesting", "duplicate-key", "duplicate-inner-key"],
)
def test_hostile_yaml_is_one_error(tmp_path, text, needle):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    with pytest.raises(
        DelveError, match=needle.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")
    ):
        read_yaml(p)


def test_a_duplicate_key_in_a_method_file_is_one_line(tmp_path, delve):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "knn-2.yaml").write_text(
        "name: knn-2\nplugin: delve_bench.methods.knn:KnnCv1\nparams: {}\nbudget: {}\nbudget: {}\n"
    )
    one_line_error(delve("run", "knn-2", TASK, "--dry-run"), "duplicate key 'budget'")


def test_a_duplicate_key_in_a_study_file_is_one_line(tmp_path, delve):
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "s.yaml").write_text(
        "methods: [lin-1]\ntasks: [hwang-g1/noisy/std.64]\ntasks: [kin-8nm]\n"
    )
    one_line_error(delve("study", "status", "s"), "duplicate key 'tasks'")


# ---- packed study files and results --------------------------------------------------


def test_a_decompression_bomb_among_packed_files_is_refused(tmp_path, monkeypatch):
    from delve_bench.run import packed

    assert packed.MAX_META_BYTES == 64 * 2**20
    # the same check under a 1 MB cap: making and inflating a 65 MB bomb took 0.9 s
    monkeypatch.setattr(packed, "MAX_META_BYTES", 2**20)
    bomb = tmp_path / "kin-8nm-dist.jsonl.xz"
    bomb.write_bytes(lzma.compress(b" " * (2**20 + 2**16), preset=0))
    assert bomb.stat().st_size < 1000
    with pytest.raises(DelveError, match="inflates to more than 1 MB"):
        packed._meta_lines(bomb)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["losses.csv", "meta.json"])
def test_only_regular_files_are_read_as_results(tmp_path, kind, name):
    d = tmp_path / "0"
    d.mkdir()
    (d / "meta.json").write_text('{"status": "ok", "losses_sha256": "x"}')
    (d / "losses.csv").write_text("case,S,A,L\n")
    (d / "predictions.csv").write_text("case\n")
    (d / name).unlink()
    if kind == "fifo":
        os.mkfifo(d / name)  # reading it would wait forever for a writer
    else:
        (d / name).symlink_to("/dev/zero")  # reading it would fill the memory
    t = time.monotonic()
    assert instance_state(d) == "corrupt"
    assert name != "meta.json" or read_meta(d) is None
    assert time.monotonic() - t < 5


def _capped_delve(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`delve ARGS` in workspace ``root`` with 1 GiB of address space and 120 s: a reader
    that waits on a FIFO or fills its memory from /dev/zero fails the test, never the
    machine running it."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    env = dict(os.environ, DELVE_ROOT=str(root), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-m", "delve_bench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=120,
        preexec_fn=cap,
    )


# slow: two `delve run` processes (a dry run and a run of two jobs), as tests that run
# `delve` in a subprocess are (tests/conftest.py); the FIFO and /dev/zero cases of the
# readers are checked in-process above
@pytest.mark.slow
def test_run_and_its_estimate_skip_a_meta_json_that_is_not_a_regular_file(tmp_path, ws):
    # `delve run` reads every earlier meta.json of the method for its time estimate (also
    # with --dry-run); it read them raw: /dev/zero filled 22 GB, a FIFO hung it. One
    # workspace holds both: #1's meta.json is a FIFO, #2's a link to /dev/zero
    from delve_bench.run.job import Job, RunOptions, execute
    from delve_bench.run.store import result_dir
    from delve_bench.tasks.names import TaskRef

    ref = TaskRef("hwang-g1", "noisy", 64)
    for i in (0, 1, 2):
        assert execute(ws, Job("lin-1", ref, i), RunOptions(mode="work")).status == "ok"
    metas = [result_dir(ws, "lin-1", ref, i) / "meta.json" for i in (1, 2)]
    for meta in metas:
        meta.unlink()
    os.mkfifo(metas[0])
    metas[1].symlink_to("/dev/zero")
    dry = _capped_delve(tmp_path, "run", "lin-1", TASK, "--instances", "0-2", "-n")
    assert dry.returncode == 0 and "Traceback" not in dry.stderr, dry.stderr
    jobs = dry.stdout.splitlines()
    assert jobs[0] == "would run 2 jobs:" and jobs[2].split() == ["lin-1", TASK, "1-2"]
    # the estimate comes from the one readable meta.json, #0's
    assert "earlier runs at the same size (2 jobs)" in dry.stdout
    r = _capped_delve(tmp_path, "run", "lin-1", TASK, "--instances", "0-2")
    assert r.returncode == 0, r.stderr
    assert "ran 2, skipped 1 finished, 0 failed, 0 busy elsewhere;" in r.stdout + r.stderr
    for meta in metas:  # the corrupt ones are redone
        assert instance_state(meta.parent) == "ok" and meta.is_file()


# ---- data files ----------------------------------------------------------------------


@pytest.mark.parametrize("token", ["1_000", "\u0661\u0662", "\uff11\uff12"])
def test_loose_number_syntax_in_a_data_file_is_refused(tmp_path, ws, monkeypatch, token):
    lines = gzip.decompress((DATA / "boston.data.gz").read_bytes()).decode().splitlines(True)
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "datasets").mkdir()
    spec = yaml.safe_load(dataset_spec(ws, "boston").path.read_text())
    spec["sha256"] = None
    (tmp_path / "datasets" / "boston.yaml").write_text(yaml.safe_dump(spec))
    first, rest = lines[6].split(None, 1)
    (data / "boston.data").write_text("".join(lines[:6] + [f"{token} {rest}"] + lines[7:]))
    monkeypatch.setenv("DELVE_DATA_PATH", str(data))
    load_mod._LOADED.clear()
    with pytest.raises(DelveError, match=r"line 7, column 1 \(CRIM\): .* is not a number"):
        load_dataset(ws, "boston")


# ---- what is printed and written -----------------------------------------------------


def test_control_characters_never_reach_the_terminal(tmp_path, delve):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "evil-1.yaml").write_text(
        "name: evil-1\nplugin: delve_bench.methods.lin:Lin1\nparams: {}\nbudget: {}\n"
        'summary: "evil \\e]0;pwned\\a \\e[2J \\u009b31m done"\ndescription: x\n'
    )
    r = delve("methods")
    assert "evil-1" in r.stdout and "31m done" in r.stdout
    bad = [c for c in r.stdout if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert not bad, bad


def test_markdown_csv_and_html_outputs_escape_names():
    from delve_bench.report.html import anchor, href
    from delve_bench.report.tables import Table, csv_text, md_cell, to_csv, to_markdown

    t = Table(
        title="x",
        columns=("method", "value"),
        align="lr",
        rows=(("evil|x](javascript:alert(1))<img src=x>", "0.1 ± 0.2 [4]"),),
        notes=("n",),
        groups=(),
    )
    md = to_markdown(t)
    row = md.splitlines()[4]
    assert row.count(" | ") == 1  # the pipe in the name did not add a column
    assert "](" not in row.replace("\\](", "") and "<img" not in row
    assert "[4]" in row and md_cell("p < 0.05") == "p < 0.05"
    assert to_csv(["method"], [["=HYPERLINK(1)"], ["-2+3"], ["-0.5"], ["lin-1"]]) == (
        b"method\n'=HYPERLINK(1)\n'-2+3\n-0.5\nlin-1\n"
    )
    assert csv_text("@SUM(A1)") == "'@SUM(A1)"
    assert href("tables/a#b?c d.csv") == "tables/a%23b%3Fc%20d.csv"
    assert href("javascript:alert(1)") == "javascript%3Aalert%281%29"
    assert anchor('x"><script>') == "x%22%3E%3Cscript%3E"


def test_the_notes_under_a_markdown_table_escape_names_too(tmp_path, delve):
    # a prototask's note names it: the note was written raw (its link and <img> live)
    name = "p|x](javascript:alert(1))<img src=x>"
    (tmp_path / "tasks" / "kin-8nm").mkdir(parents=True)
    (tmp_path / "tasks" / "kin-8nm" / f"{name}.yaml").write_text(
        "inputs: 1-8\ntargets: [9]\ncases: all\norder: Random-order\ntest-set-size: 256\n"
        "training-set-sizes: [32]\nmaximum-number-of-instances: 2\n"
        "test-set-selection: hierarchical\nseed: 1\n"
    )
    delve("gen", f"kin-8nm/{name}", check=True)
    delve("run", "lin-1", "knn-cv-1", f"kin-8nm/{name}/std.32", "--budget-mode", "work", check=True)
    delve("report", check=True)
    md = (tmp_path / "results" / "tables" / f"kin-8nm-{name}-S.md").read_text().splitlines()
    escaped = "kin-8nm/p\\|x\\](javascript:alert(1))&lt;img src=x>"
    assert md[0] == f"## {escaped}: squared error (S), standardised"
    assert md[7].startswith(f"{escaped}, hierarchical design; paired t-test. ")
    assert not [x for x in md if "<img" in x or "x](" in x]


def test_a_constant_target_explains_its_nan(tmp_path, delve):
    ddir = tmp_path / "data"
    ddir.mkdir()
    X = np.random.default_rng(0).normal(size=(400, 3))
    X[:, 2] = 5.0
    np.savetxt(ddir / "tiny.data", X, fmt="%.6g")
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "tiny.yaml").write_text(
        "name: tiny\ncases: 400\nfile: tiny.data\nattributes:\n- {name: a, kind: real}\n"
        "- {name: b, kind: real}\n- {name: y, kind: real}\n"
    )
    (tmp_path / "tasks" / "tiny").mkdir(parents=True)
    (tmp_path / "tasks" / "tiny" / "p.yaml").write_text(
        "inputs: 1-2\ntargets: [3]\ncases: all\norder: Random-order\ntest-set-size: 128\n"
        "training-set-sizes: [32]\nmaximum-number-of-instances: 2\n"
        "test-set-selection: hierarchical\nseed: 1\n"
    )
    env = {"DELVE_DATA_PATH": str(ddir)}
    delve("gen", "tiny/p", env=env, check=True)
    delve("run", "lin-1", "tiny/p/std.32", env=env, check=True)
    r = delve("stats", "lin-1", "tiny/p/std.32", env=env, check=True)
    assert "every test target of this task has the same value" in " ".join(r.stdout.split())
    delve("report", env=env, check=True)
    md = (tmp_path / "results" / "tables" / "tiny-p-S.md").read_text()
    rows = [x for x in md.splitlines() if x.startswith("| std.32")]
    assert rows and "nan" not in rows[0] and "undefined" in rows[0] and "same value" in md


def test_bayes_on_identical_methods_says_why_there_is_no_posterior(tmp_path, delve):
    delve("run", "lin-1", TASK, "--instances", "0-1", check=True)
    r = delve("compare", "lin-1", "lin-1", TASK, "--bayes")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "no posterior: the differences do not vary" in r.stdout


# slow: a `delve run` process, as tests that run `delve` in a subprocess are
# (tests/conftest.py)
@pytest.mark.slow
def test_sigterm_stops_a_run_with_a_message(tmp_path):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "sleep-1.yaml").write_text("plugin: misbehaving:Sleep\nparams: {}\n")
    env = dict(
        os.environ,
        DELVE_ROOT=str(tmp_path),
        PYTHONPATH=str(TESTS / "run") + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    p = subprocess.Popen(
        [sys.executable, "-m", "delve_bench", "run", "sleep-1", TASK, "--instances", "0"],
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    res = tmp_path / "results" / "sleep-1" / "hwang-g1" / "noisy" / "std.64"
    deadline = time.time() + 120
    while not list(res.glob(".*.lock")) and time.time() < deadline:
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGTERM)  # what a shutdown or a batch system's time limit does
    try:
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 143, err
    assert "terminated (SIGTERM): 0 of 1 jobs finished" in err and "Traceback" not in err


# ---- names and workspaces ------------------------------------------------------------


def test_a_typo_after_a_glob_names_the_typo(delve):
    r = delve("run", "lin-1", "hwang-g1*/nosy", "--dry-run")
    one_line_error(r, "'hwang-g1*/nosy': no dataset matching 'hwang-g1*' has 'nosy'")


def test_a_missing_root_directory_is_an_error(tmp_path, delve):
    one_line_error(delve("status", "--root", str(tmp_path / "nope")), "no such directory")
    one_line_error(delve("--root", str(tmp_path / "nope"), "status"), "--root")
    r = delve("status", env={"DELVE_ROOT": str(tmp_path / "nope")})
    one_line_error(r, "DELVE_ROOT=")
