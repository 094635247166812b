"""`delve study leaderboard`: every method of several studies on the tasks they share,
from the committed results, through the study report's machinery; byte-for-byte --check."""

from __future__ import annotations

import pytest
from support import one_line_error

A = """
methods: {lin-1: {}}
tasks: [kin-8nm/std.64, pumadyn-8nm/std.64, kin-8nm/std.128]
defaults: {budget_mode: work}
"""
B = """
methods: {knn-cv-1: {}}
tasks: [kin-8nm/std.64, pumadyn-8nm/std.64, bank-8nm/std.64]
defaults: {budget_mode: work}
"""
C = """
methods: {lin-1: {}}
tasks: [boston/price]
defaults: {budget_mode: work}
"""


def _studies(tmp_path, **texts):
    (tmp_path / "studies").mkdir()
    for name, text in texts.items():
        (tmp_path / "studies" / f"{name}.yaml").write_text(text)


@pytest.mark.slow
def test_the_leaderboard_ranks_every_method_on_the_shared_tasks(tmp_path, delve):
    _studies(tmp_path, a=A, b=B, c=C)
    for s in ("a", "b"):
        delve("study", "run", s, "-q", check=True)
    r = delve("study", "leaderboard", "a", "b", check=True)
    out = tmp_path / "results" / "leaderboard"
    assert str(out / "index.html") in r.stdout
    ranks = (out / "tables" / "rankings-S.md").read_text()
    assert "| lin-1 |" in ranks and "| knn-cv-1 |" in ranks and "(2 prototasks)" in ranks
    summary = (out / "tables" / "summary-S.md").read_text()
    # the shared tasks only: not kin-8nm/std.128 (a alone) nor bank-8nm (b alone)
    assert "pumadyn-8nm" in summary and "bank-8nm" not in summary and "128" not in summary
    assert (out / "tables" / "geometric.md").is_file()
    r = delve("study", "leaderboard", "a", "b", "--check", check=True)
    assert "byte-identical" in r.stdout
    (out / "tables" / "rankings-S.md").write_text(ranks + "\nedited\n")
    r = delve("study", "leaderboard", "a", "b", "--check")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        "differs: tables/rankings-S.md (differs)",
        "delve: error: 1 leaderboard files differ from what the committed results give; "
        "run `delve study leaderboard a b`",
    ]


def test_the_leaderboard_refuses_studies_without_shared_tasks_or_results(tmp_path, delve):
    _studies(tmp_path, a=A, b=B, c=C)
    one_line_error(delve("study", "leaderboard", "a", "c"), "studies a, c share no task")
    one_line_error(delve("study", "leaderboard", "a", "b"), "study a has no committed results")
    one_line_error(delve("study", "leaderboard", "a"), "at least two studies")
    assert not (tmp_path / "results" / "leaderboard").exists()


def test_each_methods_prototask_is_read_from_the_first_study_that_has_it(tmp_path):
    """The leaderboard reads the committed files in place through links: a method's files
    on a prototask come from the first study that has them, the next study fills in the
    prototasks the first lacks, and a study with none on the shared tasks counts 0."""
    from delve_bench.run.packed import packed_paths
    from delve_bench.study.leaderboard import _link_results
    from delve_bench.tasks.names import TaskRef

    def packed(study: str, method: str, dataset: str):
        for p in packed_paths(tmp_path / study, method, dataset, "dist"):
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(f"{study}\n")

    packed("a", "lin-1", "kin-8nm")
    packed("b", "lin-1", "kin-8nm")
    packed("b", "lin-1", "pumadyn-8nm")
    packed("b", "knn-cv-1", "kin-8nm")
    refs = [TaskRef("kin-8nm", "dist", 64), TaskRef("pumadyn-8nm", "dist", 64)]
    union = tmp_path / "union"
    assert _link_results(tmp_path / "a", union, ["lin-1"], refs) == 1
    assert _link_results(tmp_path / "b", union, ["lin-1", "knn-cv-1"], refs) == 3
    assert _link_results(tmp_path / "c", union, ["lin-1"], refs) == 0
    want = {("lin-1", "kin-8nm"): "a", ("lin-1", "pumadyn-8nm"): "b", ("knn-cv-1", "kin-8nm"): "b"}
    for (m, ds), study in want.items():
        losses, meta = packed_paths(union, m, ds, "dist")
        assert losses.read_text() == meta.read_text() == f"{study}\n"
    assert not packed_paths(union, "knn-cv-1", "pumadyn-8nm", "dist")[1].exists()
