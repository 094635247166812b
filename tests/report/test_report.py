"""`delve report`: tables, DELVE diagrams and the HTML index, checked against the
statistics `delve stats` / `delve compare` print for real runs of lin-1 and knn-cv-1
(work budget) on kin-8nm and boston/price."""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import support

from delve_bench.analysis.collect import method_order, p_digit

TASKS = ("kin-8nm/std.64", "kin-8nm/std.128", "boston/price/std.32", "boston/price/std.64")
SIZES = {"kin-8nm-dist": (64, 128), "boston-price": (32, 64)}


def delve(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = support.run_delve(root, *args)
    if check and r.returncode != 0:
        raise AssertionError(f"delve {' '.join(args)} exited {r.returncode}: {r.stderr[-2000:]}")
    return r


def jsonl(text: str) -> list[dict]:
    """The records of a `--jsonl` stream."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def expected_digit(p: float | None, p_text: str) -> int | None:
    """The diagram digit from the rule in words (docs/statistics.md, docs/guide.md), independently."""
    if p_text.startswith("<"):
        return 5
    if p is None or p > 0.09:
        return None
    return max(1, math.ceil(p * 100 - 1e-9))


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    """A workspace with lin-1 and knn-cv-1 on two kin and two boston tasks."""
    root = tmp_path_factory.mktemp("report")
    delve(root, "run", "lin-1", "knn-cv-1", *TASKS, "--budget-mode", "work", "-q")
    return root


@pytest.fixture(scope="module")
def reported(ran) -> tuple[Path, subprocess.CompletedProcess]:
    r = delve(ran, "report", "--plot", "-l", "S", "-l", "L")
    return ran, r


@pytest.fixture(scope="module")
def comparisons(ran) -> dict[str, list[dict]]:
    """`delve compare knn-cv-1 lin-1 --json` on the four tasks, per loss."""
    return {
        loss: jsonl(
            delve(ran, "compare", "knn-cv-1", "lin-1", *TASKS, "-l", loss, "--jsonl").stdout
        )
        for loss in ("S", "L")
    }


def copy_ws(src: Path, dst: Path) -> Path:
    shutil.copytree(
        src / "results", dst / "results", ignore=shutil.ignore_patterns("tables", "plots")
    )
    return dst


# ---- pure pieces -------------------------------------------------------------------


def test_p_digit_rounds_up_to_one_digit_and_blanks_above_nine_percent():
    assert p_digit(0.0) == 1 and p_digit(0.004) == 1 and p_digit(0.01) == 1
    assert p_digit(0.0101) == 2 and p_digit(0.03) == 3 and p_digit(0.0301) == 4
    assert p_digit(0.09) == 9 and p_digit(0.0901) is None and p_digit(0.5) is None
    assert p_digit(None) is None and p_digit(0.02, bounded=True) == 5


def test_method_order_is_the_thesis_order_then_alphabetical():
    ms = ["zz-1", "gp-mc-1", "ridge-1", "lin-1", "mlp-mc-1", "knn-cv-1"]
    assert method_order(ms) == ["lin-1", "knn-cv-1", "gp-mc-1", "mlp-mc-1", "ridge-1", "zz-1"]


def test_pngs_have_a_palette_and_look_the_same_as_the_full_colour_render(tmp_path):
    import io

    import numpy as np
    from matplotlib.figure import Figure
    from PIL import Image

    from delve_bench.report.figures import PNG_DPI, RC, save_figure

    def draw():
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        for k, c in enumerate(("C0", "C1", "C3")):
            ax.errorbar([k], [k + 1.0], yerr=0.3, color=c, lw=2)
        ax.set_title("kin-8nm 1,2,3")
        return fig

    (png,) = save_figure(draw, tmp_path / "a" / "fig", ("png",))
    (again,) = save_figure(draw, tmp_path / "b" / "fig", ("png",))
    assert png.read_bytes() == again.read_bytes()  # still deterministic
    with Image.open(png) as im:
        assert im.mode == "P" and len(im.getcolors(256) or ()) <= 256
        got = np.asarray(im.convert("RGB"), dtype=int)
    import matplotlib

    with matplotlib.rc_context(RC):
        buf = io.BytesIO()
        draw().savefig(buf, format="png", dpi=PNG_DPI)
    with Image.open(buf) as full:
        want = np.asarray(full.convert("RGB"), dtype=int)
    assert got.shape == want.shape
    # flat colours are exact; only a few antialiased edge pixels move, and not far
    diff = np.abs(got - want).max(axis=2)
    assert (diff == 0).mean() > 0.97 and diff.max() < 40


def test_a_long_table_is_linked_from_the_page_not_inlined():
    from delve_bench.report.html import INLINE_ROWS, _table_block
    from delve_bench.report.tables import Table

    def table(n):
        return Table("tests", ("pair", "p"), "lr", tuple((f"m{i}", "0.5") for i in range(n)))

    files = ["tables/tests-S.md", "tables/tests-S.csv"]
    short, long = (
        _table_block(table(INLINE_ROWS), files),
        _table_block(table(INLINE_ROWS + 1), files),
    )
    assert short.count("<tr>") == INLINE_ROWS + 1 and 'href="tables/tests-S.csv"' in short
    assert "<table>" not in long and f"{INLINE_ROWS + 1:,} rows" in long
    assert 'href="tables/tests-S.md"' in long and 'href="tables/tests-S.csv"' in long


def test_y_axis_log_over_decades_and_arrows_for_outliers():
    from delve_bench.report.diagram import y_axis  # matplotlib: not at every collection

    assert y_axis([(0.5, 0.02), (0.6, 0.03), (0.55, 0.02)])[0] == "linear"
    scale, lo, hi, clip = y_axis([(0.03, 0.002), (0.6, 0.03), (0.55, 0.02)])
    assert scale == "log" and lo < 0.028 and hi > 0.63 and clip == math.inf
    scale, lo, hi, clip = y_axis([(0.5, 0.02), (0.6, 0.03), (0.55, 0.02), (9.0, 1.0)])
    assert scale == "linear" and hi < 9.0 and clip == hi  # 9.0 is drawn as an arrow
    assert y_axis([(-0.2, 0.02), (-0.1, 0.03)])[3] == math.inf  # two marks: never clipped


# ---- tables against delve stats / delve compare ------------------------------------


@pytest.mark.slow  # runs `delve` in subprocesses
@pytest.mark.parametrize("loss", ["S", "L"])
def test_tables_match_delve_stats_and_compare(reported, comparisons, loss):
    root, _ = reported
    tables = root / "results" / "tables"
    rows = {}
    for stem in SIZES:
        assert (tables / f"{stem}-{loss}.md").is_file() and (
            tables / f"{stem}-{loss}.tex"
        ).is_file()
        for row in read_csv(tables / f"{stem}-{loss}.csv"):
            rows[(row["task"], row["method"])] = row
    for method in ("lin-1", "knn-cv-1"):
        for s in json.loads(delve(root, "stats", method, *TASKS, "-l", loss, "--json").stdout):
            row = rows[(s["task"], method)]
            assert row["status"] == "ok" and int(row["instances"]) == s["instances"]
            assert float(row["standardized_loss"]) == pytest.approx(
                s["standardized"]["mean"], rel=1e-12
            )
            assert float(row["standardized_se"]) == pytest.approx(
                s["standardized"]["se"], rel=1e-12
            )
            assert float(row["loss"]) == pytest.approx(s["mean"], rel=1e-12)
            stem = s["task"].rsplit("/", 1)[0].replace("/", "-")
            md = (tables / f"{stem}-{loss}.md").read_text()
            size = s["task"].rsplit("/", 1)[1]
            shown = f"| {size} | {method} | to completion | {s['standardized']['mean']:.4g} ± {s['standardized']['se']:.2g} | "
            assert shown in md
    comps = comparisons[loss]
    assert {c["test"] for c in comps} == {"t", "F"}  # both designs are covered
    for c in comps:
        knn, lin = rows[(c["task"], "knn-cv-1")], rows[(c["task"], "lin-1")]
        assert knn["p_vs_lin-1"] == c["p_text"] == lin["p_vs_knn-cv-1"]
        assert float(knn["diff_vs_lin-1"]) == pytest.approx(c["standardized"]["mean"], rel=1e-12)
        assert float(lin["diff_vs_knn-cv-1"]) == pytest.approx(
            -c["standardized"]["mean"], rel=1e-12
        )
        ranks = {"knn-cv-1": float(knn["rank"]), "lin-1": float(lin["rank"])}
        better = (
            "knn-cv-1" if c["standardized"]["mean_a"] < c["standardized"]["mean_b"] else "lin-1"
        )
        assert ranks[better] == 1.0 and sorted(ranks.values()) == [1.0, 2.0]


@pytest.mark.slow  # runs `delve` in subprocesses
def test_summary_ranks_and_wins_across_prototasks(reported, comparisons):
    root, _ = reported
    tables = root / "results" / "tables"
    comps = comparisons["S"]
    knn_wins = sum(c["p"] < 0.05 and c["difference"] < 0 for c in comps)
    lin_wins = sum(c["p"] < 0.05 and c["difference"] > 0 for c in comps)
    assert knn_wins + lin_wins >= 1  # the check below is not vacuous
    wins = {r["method"]: r for r in read_csv(tables / "wins-S.csv")}
    assert int(wins["lin-1"]["knn-cv-1"]) == knn_wins and int(wins["knn-cv-1"]["lin-1"]) == lin_wins
    knn_ranks = [1 if c["difference"] < 0 else 2 for c in comps]
    ranks = {r["method"]: r for r in read_csv(tables / "ranks-S.csv")}
    assert float(ranks["knn-cv-1"]["average_rank"]) == pytest.approx(sum(knn_ranks) / 4)
    assert float(ranks["lin-1"]["average_rank"]) == pytest.approx(3 - sum(knn_ranks) / 4)
    assert (
        int(ranks["knn-cv-1"]["wins"]) == knn_wins and int(ranks["knn-cv-1"]["losses"]) == lin_wins
    )
    summary = read_csv(tables / "summary-S.csv")
    assert [r["task"] for r in summary] == sorted(
        [
            "boston/price/std.32",
            "boston/price/std.64",
            "kin-8nm/dist/std.64",
            "kin-8nm/dist/std.128",
        ],
        key=lambda t: (t.rsplit("/", 1)[0], int(t.rsplit(".", 1)[1])),
    )
    assert "Average rank" in (tables / "ranks-S.md").read_text()
    assert "\\begin{tabular}" in (tables / "wins-S.tex").read_text()


# ---- diagrams --------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def _svg_digits(path: Path) -> dict[tuple[int, int, int], str]:
    text = path.read_text()
    return {
        (int(a), int(b), int(c)): d
        for a, b, c, d in re.findall(r'<g id="p-(\d+)-(\d+)-(\d+)">\s*<!-- (\S+) -->', text)
    }


@pytest.mark.slow  # runs `delve` in subprocesses
@pytest.mark.parametrize("loss", ["S", "L"])
def test_diagrams_are_real_images_whose_p_matrix_matches_the_statistics(
    reported, comparisons, loss
):
    root, _ = reported
    plots = root / "results" / "plots"
    order = ["lin-1", "knn-cv-1"]
    comps = comparisons[loss]
    shown = 0
    for stem, sizes in SIZES.items():
        png, svg = plots / f"{stem}-{loss}.png", plots / f"{stem}-{loss}.svg"
        w, h = _png_size(png)
        assert png.stat().st_size > 10_000 and w > 400 and h > 400
        root_el = ET.fromstring(svg.read_bytes())
        assert root_el.tag.endswith("svg") and svg.stat().st_size > 10_000
        digits = _svg_digits(svg)
        for size in sizes:
            (c,) = [
                c
                for c in comps
                if c["task"].endswith(f"/std.{size}") and stem.split("-")[0] in c["task"]
            ]
            want = expected_digit(c["p"], c["p_text"])
            winner = "knn-cv-1" if c["difference"] < 0 else "lin-1"
            loser = "lin-1" if winner == "knn-cv-1" else "knn-cv-1"
            got = {k: v for k, v in digits.items() if k[0] == size}
            if want is None:
                assert got == {}
            else:
                assert got == {(size, order.index(loser), order.index(winner)): str(want)}
                shown += 1
    assert shown >= 1  # at least one digit was actually checked


@pytest.mark.slow  # runs `delve` in subprocesses
def test_report_is_byte_identical_when_regenerated(reported, tmp_path):
    root, _ = reported
    res = root / "results"
    files = sorted(res.glob("tables/*")) + sorted(res.glob("plots/*")) + [res / "index.html"]
    # 2 losses x (2 prototasks + 3 summaries + 4 rankings) x 3; 2 x (2 diagrams + CD) x 2
    assert len(files) == 54 + 12 + 1
    before = {p: p.read_bytes() for p in files}
    # a fresh run into another directory: same bytes, so nothing depends on time or paths
    delve(root, "report", "--plot", "-l", "S", "-l", "L", "--out", str(tmp_path / "elsewhere"))
    for p in files:
        assert (tmp_path / "elsewhere" / p.relative_to(res)).read_bytes() == before[p], p


@pytest.mark.slow  # runs `delve` in subprocesses
def test_index_html_links_every_file_and_needs_no_network(reported):
    root, r = reported
    res = root / "results"
    page = (res / "index.html").read_text()
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "How to read these diagrams" in page and "winner" in page
    targets = set(re.findall(r'(?:href|src)="([^"#][^"]*)"', page))
    for t in targets:
        assert (res / t).is_file(), t
    written = {str(p.relative_to(res)) for p in res.glob("tables/*")} | {
        str(p.relative_to(res)) for p in res.glob("plots/*")
    }
    assert written <= targets
    assert "index.html" in r.stdout


# ---- partial results and methods without a loss ------------------------------------


@pytest.mark.slow  # runs `delve` in subprocesses
def test_partial_results_are_reported_and_compared_on_shared_instances(ran, tmp_path):
    ws = copy_ws(ran, tmp_path / "partial")
    (ws / "results/knn-cv-1/kin-8nm/dist/std.128/7/meta.json").unlink()
    r = delve(ws, "report", "kin-8nm", "--plot")
    assert "warning: kin-8nm/dist/std.128: knn-cv-1 has 7 of 8 instances (not run: 7)" in r.stderr
    rows = {(x["task"], x["method"]): x for x in read_csv(ws / "results/tables/kin-8nm-dist-S.csv")}
    knn = rows[("kin-8nm/dist/std.128", "knn-cv-1")]
    assert knn["status"] == "partial" and knn["instances"] == "7" and knn["instances_absent"] == "7"
    (s,) = json.loads(delve(ws, "stats", "knn-cv-1", "kin-8nm/std.128", "--json").stdout)
    assert s["instances_missing"] == [7]
    assert float(knn["standardized_loss"]) == pytest.approx(s["standardized"]["mean"], rel=1e-12)
    assert "not run: 7" in (ws / "results/tables/kin-8nm-dist-S.md").read_text()
    svg = (ws / "results/plots/kin-8nm-dist-S.svg").read_text()
    assert 'id="partial-128-knn-cv-1"' in svg and 'id="partial-64-knn-cv-1"' not in svg
    assert "not run: 7" in (ws / "results/index.html").read_text()
    # the pair is compared on instances 0-6: what `delve compare` says once lin-1 has those only
    both = copy_ws(ws, tmp_path / "both")
    shutil.rmtree(both / "results/lin-1/kin-8nm/dist/std.128/7")
    (c,) = json.loads(
        delve(both, "compare", "knn-cv-1", "lin-1", "kin-8nm/std.128", "--json").stdout
    )
    assert c["instances"] == 7 and knn["p_vs_lin-1"] == c["p_text"]
    assert float(knn["diff_vs_lin-1"]) == pytest.approx(c["standardized"]["mean"], rel=1e-12)


@pytest.mark.slow  # runs `delve` in subprocesses
def test_a_method_without_the_loss_gets_the_empty_set_mark(ran, tmp_path):
    ws = copy_ws(ran, tmp_path / "ridge")
    (ws / "methods").mkdir()
    (ws / "methods/ridge-sk.yaml").write_text(
        "name: ridge-sk\nplugin: sklearn.linear_model:Ridge\nparams: {alpha: 1.0}\nbudget: {}\n"
        "description: ridge regression (S and A only)\n"
    )
    delve(ws, "run", "ridge-sk", "kin-8nm/std.64", "--budget-mode", "work", "-q")
    delve(ws, "report", "kin-8nm/dist", "-l", "L", "--plot", "--methods", "ridge-sk,knn-cv-1,lin-1")
    rows = {(x["task"], x["method"]): x for x in read_csv(ws / "results/tables/kin-8nm-dist-L.csv")}
    assert rows[("kin-8nm/dist/std.64", "ridge-sk")]["status"] == "no loss"
    assert rows[("kin-8nm/dist/std.128", "ridge-sk")]["status"] == "not run"
    assert [x["method"] for x in read_csv(ws / "results/tables/kin-8nm-dist-L.csv")][:3] == [
        "lin-1",
        "knn-cv-1",
        "ridge-sk",
    ]
    md = (ws / "results/tables/kin-8nm-dist-L.md").read_text()
    assert "| std.64 | ridge-sk | to completion | ∅ |" in md and "gives no L loss" in md
    svg = (ws / "results/plots/kin-8nm-dist-L.svg").read_text()
    assert 'id="empty-64-ridge-sk"' in svg and 'id="empty-128-ridge-sk"' in svg
    assert 'id="empty-64-lin-1"' not in svg
    ranks = {x["method"]: x for x in read_csv(ws / "results/tables/ranks-L.csv")}
    assert ranks["ridge-sk"]["average_rank"] == "" and ranks["lin-1"]["tasks_ranked"] == "2"


@pytest.mark.slow  # runs `delve` in subprocesses
def test_user_errors_are_one_line(ran, tmp_path):
    r = delve(ran, "report", "--methods", "lin-2", check=False)
    out = (r.stderr + r.stdout).strip()
    assert r.returncode == 2 and len(out.splitlines()) == 1 and "lin-1" in out, out
    r = delve(tmp_path, "report", check=False)
    assert r.returncode == 2 and "no results" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow  # runs `delve` in subprocesses
def test_rankings_use_compare_p_values_holm_adjusted_and_draw_a_cd_diagram(reported, comparisons):
    from statsmodels.stats.multitest import multipletests

    root, _ = reported
    res = root / "results"
    rows = read_csv(res / "tables" / "tests-S.csv")
    by_task = {r["task"]: r for r in rows if {r["a"], r["b"]} == {"lin-1", "knn-cv-1"}}
    for c in comparisons["S"]:
        r = by_task[c["task"]]
        want = 0.05 if c["p_text"].startswith("<") else c["p"]
        assert float(r["p"]) == pytest.approx(want, rel=1e-12)
    raw = [float(r["p"]) for r in rows]
    adjusted = multipletests(raw, method="holm")[1]
    assert [float(r["p_adjusted"]) for r in rows] == pytest.approx(adjusted, rel=1e-12)
    assert all(r["correction"] == "holm" for r in rows)
    md = (res / "tables" / "rankings-S.md").read_text()
    assert "Holm" in md and "per prototask" in md and "not independent" in md
    # two prototasks: kin-8nm/dist and boston/price are the Friedman blocks
    ranks = read_csv(res / "tables" / "rankings-S.csv")
    assert {r["blocks"] for r in ranks} == {"2"} and {r["unit"] for r in ranks} == {"prototask"}
    assert (res / "plots" / "cd-S.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "cd-S.png" in (res / "index.html").read_text()
