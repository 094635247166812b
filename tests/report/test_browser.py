"""The report as a reader sees it: `delve report --plot` opened in a real headless browser
(Playwright driving Chromium: its own build, or the system's `chromium`). The page loads
without console errors, every image is decoded, every link and table file exists, and
the legend is there. Skipped, with the reason, only where no browser can be started."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from delve_bench import api

pytestmark = pytest.mark.slow

SYSTEM_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install '.[dev]')"
    )
    with sync_api.sync_playwright() as p:
        tried = []
        try:
            b = p.chromium.launch(headless=True)
        except sync_api.Error as e:  # no Playwright build: the system's Chromium
            tried.append(str(e).splitlines()[0])
            exe = next((shutil.which(n) for n in SYSTEM_BROWSERS if shutil.which(n)), None)
            if exe is None:
                pytest.skip(
                    "no browser: `playwright install chromium` failed and no system Chromium "
                    f"({tried[0]})"
                )
            b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    ws = api.Workspace(tmp_path_factory.mktemp("browser"))
    ws.run(["lin-1", "knn-cv-1"], ["kin-8nm/std.64", "kin-8nm/std.128"], budget_mode="work")
    ws.run("lin-1", "boston/price/std.32", budget_mode="work")  # knn-cv-1 not run there: ∅
    res = ws.report(losses=["S", "L"], plot=True)
    return res.out / res.index


def _local(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


def test_report_page_in_a_real_browser(browser, report):
    page = browser.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.goto(report.as_uri(), wait_until="load")
    assert page.title() == "delve-bench results"
    assert problems == []

    images = page.eval_on_selector_all(
        "img", "els => els.map(e => [e.src, e.complete, e.naturalWidth, e.naturalHeight])"
    )
    assert len(images) == 4  # kin-8nm and boston, S and L
    for src, complete, w, h in images:
        assert complete and w > 500 and h > 300, src  # decoded, not a broken-image icon

    links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    files = [u for u in links if u.startswith("file:")]
    assert files and all(_local(u).is_file() for u in files), [
        u for u in files if not _local(u).is_file()
    ]
    for ext in ("md", "csv", "tex", "png", "svg"):
        assert any(u.endswith("." + ext) for u in files), ext
    anchors = [u.split("#", 1)[1] for u in links if "#" in u]
    for a in anchors:  # the table of contents points at sections that exist
        assert page.locator(f"[id='{a}']").count() == 1, a

    assert page.locator("table").count() >= 6
    for caption in page.locator("table caption").all_inner_texts():
        assert caption.strip()
    legend = page.locator("#how-to-read")
    assert legend.count() == 1
    text = page.inner_text("body")
    assert "∅ under a box's axis" in text and "↑ with a number above a box" in text
    # the diagram's own legend line is drawn into the image, and the ∅ of knn-cv-1 on
    # boston is there (the SVG is text-free paths, so ask the report's ids)
    svg = (report.parent / "plots" / "boston-price-S.svg").read_text()
    assert 'id="empty-32-knn-cv-1"' in svg
    page.close()
