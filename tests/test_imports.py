"""The package's imports go one way: every module imports only from its own group or from
the layers below its own (deferred imports inside functions and imports for type checking
included, with no exception), no module imports another in a cycle, ``numerics`` is a
leaf and ``stats`` reads no files (docs/architecture.md draws the layers)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import delve_bench

PKG = Path(delve_bench.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = ("delve_bench", *p.relative_to(PKG).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


@functools.cache
def _imports(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """A module's import statements, deferred ones and those for type checking included,
    found once for all the checks. Imports are statements, so only statement bodies are
    walked: walking every expression node as well tripled this file's time."""
    out = []
    stack: list[ast.AST] = [ast.parse(path.read_text())]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                stack.extend(block)
    return tuple(out)


@functools.cache
def _package_graph() -> dict[str, set[str]]:
    """The graph of the package's own modules, made once for all the checks."""
    return _graph(_modules())


def _graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its source."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for node in _imports(path):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    root = ".".join(base + ([node.module] if node.module else []))
                else:
                    root = node.module or ""
                names = [root, *(f"{root}.{a.name}" for a in node.names)]
            else:
                names = [a.name for a in node.names]
            for n in names:
                # a module importing its own package (or a sub-module) is not a cycle
                if n in mods and n != m and not m.startswith(n + ".") and not n.startswith(m + "."):
                    graph[m].add(n)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_there_is_no_import_cycle():
    assert _cycles(_package_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _imports_outside(group: str, allowed: tuple[str, ...]) -> set[tuple[str, str]]:
    """(module, import) for every import of a ``group`` module that ``allowed`` (the
    prefixes of the modules it may import) does not cover."""
    return {
        (m, n)
        for m, deps in _package_graph().items()
        if m.startswith(group)
        for n in deps
        if not n.startswith(allowed)
    }


def test_numerics_is_a_leaf():
    assert _imports_outside("delve_bench.numerics", ("delve_bench.numerics",)) == set()


#: The layers, bottom up, as docs/architecture.md draws them: each a tuple of sibling groups
#: (neither imports the other), each group the modules it holds (a name holds its
#: sub-modules; the longest name that matches places a module).
LAYERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        (
            "errors",
            "rng",
            "specfile",
            "workspace",
            "usercache",
            "records",
            "defaults",
            "blas",
            "_lazy",
            "_html",
        ),
        ("numerics",),
    ),
    (("data",),),
    (("losses",),),
    (("tasks",), ("methods",)),
    (("run",),),
    (("stats",),),
    (("study.spec", "study.pack", "study.beside"),),  # study definitions, committed results
    (("analysis",),),
    (("report",),),
    (("study",),),
    (("api",),),
    (("cli", "__main__"),),
)


def _place(module: str) -> tuple[int, int] | None:
    """(layer, group) of a package module: the longest name in LAYERS that holds it."""
    best, where = -1, None
    for i, layer in enumerate(LAYERS):
        for j, group in enumerate(layer):
            for name in group:
                full = f"delve_bench.{name}"
                if (module == full or module.startswith(full + ".")) and len(full) > best:
                    best, where = len(full), (i, j)
    return where


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Imports that leave a module's group for its own layer or one above."""
    out = set()
    for m, deps in graph.items():
        here = _place(m)
        for n in deps:
            there = _place(n)
            if here is None or there is None:
                continue
            if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1]):
                out.add((m, n))
    return out


def test_every_module_has_a_layer():
    assert sorted(m for m in _modules() if m != "delve_bench" and _place(m) is None) == []


def test_no_import_points_upwards():
    assert sorted(_upward(_package_graph())) == []


def test_the_layer_check_finds_an_upward_import():
    graph = {
        "delve_bench.stats.summary": {"delve_bench.analysis.collect", "delve_bench.losses"},
        "delve_bench.study.report": {"delve_bench.api", "delve_bench.report.tables"},
        "delve_bench.tasks.spec": {"delve_bench.methods.registry", "delve_bench.data"},
        "delve_bench.study.pack": {"delve_bench.run.store"},
    }
    assert _upward(graph) == {
        ("delve_bench.stats.summary", "delve_bench.analysis.collect"),
        ("delve_bench.study.report", "delve_bench.api"),
        ("delve_bench.tasks.spec", "delve_bench.methods.registry"),  # siblings
    }


def test_stats_reads_no_files():
    """``stats`` is numerics on arrays: it may use the losses' standardisation and the
    foundation's errors and defaults, never the workspace, data files, tasks or the result store."""
    allowed = ("delve_bench.stats", "delve_bench.losses", "delve_bench.errors", "delve_bench._")
    allowed += ("delve_bench.defaults",)
    assert _imports_outside("delve_bench.stats", allowed) == set()


def test_the_group_check_finds_an_import_outside():
    outside = _imports_outside("delve_bench.analysis", ("delve_bench.analysis",))
    assert ("delve_bench.analysis.gate", "delve_bench.stats.anova") in outside


def _libraries_imported() -> set[str]:
    """The top-level names of the libraries that package modules import anywhere in their
    source (deferred imports and those for type checking included), the package's own
    and the standard library's left out."""
    import sys

    out = set()
    for path in _modules().values():
        for node in _imports(path):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                out.add(node.module.partition(".")[0])
            elif isinstance(node, ast.Import):
                out |= {a.name.partition(".")[0] for a in node.names}
    return out - set(sys.stdlib_module_names) - {"delve_bench"}


def _required() -> set[str]:
    """The import names of pyproject.toml's ``[project] dependencies`` (read without
    tomllib, which Python 3.10 lacks)."""
    text = (PKG.parent / "pyproject.toml").read_text()
    block = text.split("\ndependencies = [", 1)[1].split("\n]", 1)[0]
    names = re.findall(r'^\s*"([A-Za-z0-9_.-]+)', block, flags=re.M)
    return {{"pyyaml": "yaml"}.get(n.lower(), n.lower().replace("-", "_")) for n in names}


def test_every_required_dependency_is_imported_by_the_package():
    """A library only the tests and benchmarks use (statsmodels, their reference for the
    ANOVA, power and corrections) belongs in the dev extra, not in every install."""
    required = _required()
    assert {"numpy", "scipy", "pandas", "click", "yaml", "pyarrow"} <= required
    assert sorted(required - _libraries_imported()) == []
    assert "statsmodels" not in _libraries_imported() | required


#: prints the heavy libraries a `delve` command left loaded (run as ``python -c``)
_LOADED = (
    "import sys\n"
    "from delve_bench.cli import cli\n"
    "try:\n"
    "    cli.main(sys.argv[1:], prog_name='delve', standalone_mode=False)\n"
    "finally:\n"
    "    heavy = ('numpy', 'pandas', 'scipy.stats', 'scipy.special', 'scipy.optimize',\n"
    "             'scipy.linalg', 'statsmodels', 'sklearn')\n"
    "    print('LOADED', *sorted(m for m in heavy if m in sys.modules))\n"
)


#: a check below that runs a `delve` command on the thesis study starts a process that
#: imports numpy, scipy and pyarrow and reads the study (1 to 5 CPU s each), which is
#: why tests that run `delve` in a subprocess are `slow` (tests/conftest.py): the full
#: suite runs them all; the fast loop keeps `delve --help`, which reads no study
slow_command = pytest.mark.slow


def _loaded(*args: str, cwd: Path | None = None) -> list[str]:
    """The heavy libraries ``delve *args`` left loaded, run in ``cwd`` as its workspace.
    Give the study commands an empty one: results in the checkout's own ``results/``
    (`delve demo`'s lin-1, which CI runs first) are read instead of the study's."""
    import os
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, DELVE_ROOT=str(cwd or Path.cwd())),
        timeout=300,
    )
    line = [x for x in r.stdout.splitlines() if x.startswith("LOADED")]
    assert r.returncode == 0 and line, r.stderr[-2000:]
    return line[-1].split()[1:]


def test_delve_help_loads_no_numerical_library():
    """Half a second of numpy, pandas and scipy imports is most of a quick command's time:
    each is imported where it is used."""
    assert _loaded("--help") == []


def test_delve_stats_and_compare_of_one_task_load_neither_pandas_nor_scipy_stats(delve, tmp_path):
    """`delve stats` is numpy's; `delve compare` adds scipy.special for its test's p-value
    and the low-power hint (the t and F distributions' functions), no scipy.stats. A
    user's scikit-learn method is read from its files: its plugin (2 s of scikit-learn
    imports) is not loaded to analyse its losses."""
    pytest.importorskip("sklearn")
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "ridge-sk-1.yaml").write_text("plugin: sklearn.linear_model:Ridge\n")
    task = "hwang-g1/clean/std.64"  # generated data
    delve("run", "lin-1", "ridge-1", "ridge-sk-1", task, "--budget-mode", "work", "-q", check=True)
    assert _loaded("stats", "ridge-sk-1", task, cwd=tmp_path) == ["numpy"]
    assert _loaded("compare", "lin-1", "ridge-1", task, cwd=tmp_path) == ["numpy", "scipy.special"]


@slow_command
def test_the_status_of_a_committed_study_loads_only_numpy(tmp_path):
    """`delve study status` reads the packed meta lines, not the losses (no DataFrame), and
    imports the gp and mlp plugins only to ask whether they are anytime methods (no
    scipy: their numerics import it where they fit or predict)."""
    assert _loaded("study", "status", "thesis", cwd=tmp_path) == ["numpy"]


@pytest.mark.parametrize(
    "tasks",
    [
        # every task both finished (83, found from their states): 5 CPU s
        pytest.param((), marks=slow_command, id="83-tasks"),
        # the 2-way design (its quasi-F, and the size-corrected level deciding at 2
        # instances) and the hierarchical one (t-test), each with a low-power hint: 2 CPU s
        pytest.param(("boston", "kin-32nh/dist/std.64"), marks=slow_command, id="4-tasks"),
    ],
)
def test_a_compare_over_a_committed_study_loads_only_numpy_and_scipy_special(tmp_path, tasks):
    """The tasks' tests, the quasi-F's level and the low-power hints (power and
    detectable differences of both designs): scipy.special's functions, not scipy.stats'
    distributions or scipy.optimize's root finders, and no pandas."""
    args = ("compare", "gp-map-1", "mars3.6-bag-1", *tasks, "--with", "thesis")
    assert _loaded(*args, cwd=tmp_path) == ["numpy", "scipy.special"]


@slow_command
def test_a_report_of_one_prototask_loads_no_scipy_stats(tmp_path):
    """One prototask is one block: no Friedman test (its distributions and Nemenyi's
    studentized range are what need scipy.stats), and the tables' ranks are numpy's."""
    args = ("report", "kin-8nm", "--with", "thesis", "--methods", "gp-map-1,lin-1")
    loaded = _loaded(*args, "--out", str(tmp_path / "report"), cwd=tmp_path)
    assert loaded == ["numpy", "scipy.special"]
    assert (tmp_path / "report" / "index.html").is_file()


@slow_command
def test_a_report_over_prototasks_loads_scipy_stats_for_its_friedman_test(tmp_path):
    """The other side of the line above: with two prototasks the Friedman test and its
    Nemenyi post-hoc are computed, and they do need scipy.stats (which brings
    scipy.linalg and scipy.optimize), still no pandas."""
    args = ("report", "kin-8nm", "kin-8fh", "--with", "thesis", "--methods", "gp-map-1,lin-1")
    loaded = _loaded(*args, "--out", str(tmp_path / "report"), cwd=tmp_path)
    assert loaded == ["numpy", "scipy.linalg", "scipy.optimize", "scipy.special", "scipy.stats"]


def test_the_architecture_page_draws_these_layers():
    """docs/architecture.md's diagram: the same layers, top down, each with the same
    modules (its left column, before the descriptions)."""
    page = (PKG.parent / "docs" / "architecture.md").read_text()
    diagram = page.split("## Layers and the direction of imports")[1].split("```")[1]
    drawn: list[set[str]] = [set()]
    for line in diagram.splitlines():
        if line.strip().startswith("─"):
            drawn.append(set())
        else:
            drawn[-1] |= set(re.findall(r"[A-Za-z_][\w.]*", line[:52]))
    assert drawn[::-1] == [{n for group in layer for n in group} for layer in LAYERS]
