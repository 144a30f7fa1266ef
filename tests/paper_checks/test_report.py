"""Reports rebuilt from a run's JSON: value formatting, Markdown table, self-contained HTML."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paper_checks.plotting import new_figure, save_figure
from paper_checks.report import (
    comparison_rows,
    format_value,
    render_html,
    render_markdown,
    verdict_table,
    write_reports,
)
from paper_checks.results import CheckResult, RunInfo, Verdict, load_results, write_results

HOSTILE = "<script>alert('x')</script> & more"


# ---------------------------------------------------------------------------------- format_value
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.14159265, "3.142"),
        (1.0, "1"),
        (1e-10, "1e-10"),
        (123456.0, "1.235e+05"),
        (7, "7"),
        (True, "True"),
        (False, "False"),
        (None, "None"),
        ("text", "text"),
        ([], "[]"),
        ([1.0, 2.5, 3], "[1, 2.5, 3]"),
        ([True, None], "[True, None]"),
        ({"a": 0.5, "b": [1, 2]}, "{a: 0.5, b: [1, 2]}"),
        ({"outer": {"inner": 0.123456}}, "{outer: {inner: 0.1235}}"),
    ],
)
def test_format_value(value, text):
    assert format_value(value) == text


def test_format_value_bools_are_not_numbers():
    # bool is an int subclass; it must not render as 1 / 0
    assert format_value([True, 1]) == "[True, 1]"


def test_format_value_shortens_long_lists():
    text = format_value([float(i) for i in range(10)])
    assert text == "[0, 1, 2, 3, 4, 5, … (10 values)]"


@given(st.floats(-1e300, 1e300))  # (rounding 1.7975e308 to 4 digits overflows to inf)
def test_format_value_floats_keep_four_significant_digits(x):
    shown = float(format_value(x))
    assert shown == pytest.approx(x, rel=5e-4, abs=0.0)


# ------------------------------------------------------------------------------------ fixtures
def _result(claim_id: str, verdict: Verdict, figures: list[str], **kw) -> CheckResult:
    return CheckResult(
        verdict=verdict,
        summary=kw.pop("summary", f"{claim_id}: x = 1.0"),
        measured=kw.pop("measured", {"x": 1.0, "only_measured": [1, 2]}),
        expected=kw.pop("expected", {"x": 1.0, "only_expected": True}),
        tolerance="|x - 1| < 0.1",
        figures=figures,
        claim_id=claim_id,
        paper="rlvr",
        statement=kw.pop("statement", f"statement of {claim_id}"),
        source="Yue et al. 2025 (arXiv 2504.13837), Fig. 1",
        provenance={"seed": 0, "wall_time_s": 2.25},
        **kw,
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory with three claims: two with real figures, one ERROR with a missing one.

    Shared by the module's tests (saving the figures is the slow part); none changes its JSON or
    figures.
    """
    tmp_path = tmp_path_factory.mktemp("run")
    figures = {}
    for i, name in enumerate(("rlvr.fake_a", "rlvr.fake_b")):
        fig, ax = new_figure()
        ax.plot([1, 2, 4], [0.1, 0.2 + i, 0.3])
        figures[name] = [
            str(p.relative_to(tmp_path)) for p in save_figure(fig, tmp_path / "figures", name)
        ]
    results = [
        _result("rlvr.fake_a", Verdict.PASS, figures["rlvr.fake_a"]),
        _result(
            "rlvr.fake_b",
            Verdict.FAIL,
            figures["rlvr.fake_b"],
            statement=HOSTILE,
            summary="<b>bold</b> summary",
        ),
        _result(
            "rlvr.fake_c",
            Verdict.ERROR,
            ["figures/rlvr.fake_c.png", "figures/rlvr.fake_c.pdf"],
            error="Traceback (most recent call last):\nRuntimeError: <boom>\n",
        ),
    ]
    info = RunInfo("r1", "2025-01-01T00:00:00+00:00", "quick", 0, "processes", 1, "numpy", [], 3.0)
    write_results(tmp_path, info, results)
    return tmp_path


# ------------------------------------------------------------------------------------- helpers
def test_comparison_rows_put_shared_keys_first():
    result = _result("rlvr.fake_a", Verdict.PASS, [])
    assert comparison_rows(result) == [
        ("x", "1", "1"),
        ("only_measured", "[1, 2]", ""),
        ("only_expected", "", "True"),
    ]


def test_verdict_table_rows():
    rows = verdict_table([_result("rlvr.fake_a", Verdict.FAIL, [])])
    assert rows == [("rlvr.fake_a", "FAIL", "", "rlvr.fake_a: x = 1.0", "2.2")]


# ------------------------------------------------------------------------------------- markdown
def test_markdown_has_a_verdict_row_per_claim(run_dir: Path):
    run, results = load_results(run_dir)
    md = render_markdown(run, results)
    assert md.startswith("# paper-checks run r1\n")
    rows = [line for line in md.splitlines() if re.match(r"\| `rlvr\.fake_.` \| \*\*", line)]
    assert rows == [
        "| `rlvr.fake_a` | **PASS** |  | rlvr.fake_a: x = 1.0 | 2.2 |",
        "| `rlvr.fake_b` | **FAIL** |  | <b>bold</b> summary | 2.2 |",
        "| `rlvr.fake_c` | **ERROR** |  | rlvr.fake_c: x = 1.0 | 2.2 |",
    ]
    # each claim gets a section, its PNG linked (not the PDF), and the ERROR traceback
    for r in results:
        assert f"## `{r.claim_id}`: {r.verdict.value}" in md
        assert f"![{r.claim_id}](figures/{r.claim_id}.png)" in md
    assert ".pdf)" not in md
    assert "RuntimeError: <boom>" in md


# ----------------------------------------------------------------------------------------- html
def test_html_embeds_every_figure(run_dir: Path):
    run, results = load_results(run_dir)
    page = render_html(run, results, run_dir)
    embedded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(embedded) == 2  # the two figures on disk; the third is missing
    for name, data in zip(("rlvr.fake_a", "rlvr.fake_b"), embedded, strict=True):
        assert base64.b64decode(data) == (run_dir / "figures" / f"{name}.png").read_bytes()


def test_html_is_self_contained(run_dir: Path):
    run, results = load_results(run_dir)
    page = render_html(run, results, run_dir)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", page)
    assert "<link" not in page
    assert "http" not in page.split("<script>", 1)[1]
    assert re.findall(r"<script[^>]*>", page) == ["<script>"]  # one inline script, no src


def test_html_escapes_user_text(run_dir: Path):
    run, results = load_results(run_dir)
    page = render_html(run, results, run_dir)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more" in page
    assert "&lt;b&gt;bold&lt;/b&gt; summary" in page
    assert "<b>bold</b>" not in page
    assert "RuntimeError: &lt;boom&gt;" in page


def test_html_reports_a_missing_figure(run_dir: Path):
    run, results = load_results(run_dir)
    page = render_html(run, results, run_dir)
    assert "figure figures/rlvr.fake_c.png is missing" in page


def test_html_has_a_row_and_verdict_per_claim(run_dir: Path):
    run, results = load_results(run_dir)
    page = render_html(run, results, run_dir)
    for r in results:
        v = r.verdict.value
        assert f'<tr class="claim" data-verdict="{v}" id="{r.claim_id}">' in page
        assert f'<td class="{v}">{v}</td>' in page
        assert f'<tr class="detail" data-verdict="{v}">' in page
    assert "1 PASS, 1 FAIL, 1 ERROR" in page  # results.tally: the verdicts that occur


class _Page(HTMLParser):
    """Sections, their rows and the images inside each row of a rendered report."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict] = []
        self.row: dict | None = None
        self.inputs: list[dict] = []
        self.dialogs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append({"id": a.get("id"), "class": a.get("class"), "rows": []})
        elif tag == "tr" and "claim" in (a.get("class") or "").split():
            self.row = {"id": a["id"], "verdict": a["data-verdict"], "thumbs": 0}
            self.sections[-1]["rows"].append(self.row)
        elif tag == "img" and self.row is not None and a.get("class") == "thumb":
            self.row["thumbs"] += 1
        elif tag == "input":
            self.inputs.append(a)
        elif tag == "dialog":
            self.dialogs += 1

    def handle_endtag(self, tag):
        if tag == "tr":
            self.row = None


def test_html_groups_claims_by_paper_with_thumbnails_and_a_filter(tmp_path: Path):
    figures = []
    for name in ("online.fake_x", "rlvr.fake_y"):
        fig, ax = new_figure()
        ax.plot([0, 1], [1, 0])
        figures.append(
            [str(p.relative_to(tmp_path)) for p in save_figure(fig, tmp_path / "figures", name)]
        )
    results = [
        replace(_result("online.fake_x", Verdict.PASS, figures[0]), paper="online"),
        _result("rlvr.fake_y", Verdict.FAIL, figures[1]),
        _result("rlvr.fake_z", Verdict.INCONCLUSIVE, []),
    ]
    write_results(
        tmp_path, RunInfo("r", "t", "quick", 0, "processes", 1, "numpy", [], 0.0), results
    )
    run, loaded = load_results(tmp_path)
    parser = _Page()
    parser.feed(render_html(run, loaded, tmp_path))
    assert [(s["id"], s["class"]) for s in parser.sections] == [
        ("paper-online", "paper"),
        ("paper-rlvr", "paper has-open"),
    ]
    rows = {r["id"]: r for s in parser.sections for r in s["rows"]}
    assert rows["online.fake_x"]["thumbs"] == 1
    assert rows["rlvr.fake_y"]["thumbs"] == 1
    assert rows["rlvr.fake_z"]["thumbs"] == 0
    assert [i.get("id") for i in parser.inputs] == ["open-only"]
    assert parser.dialogs == 1
    page = render_html(run, loaded, tmp_path)
    assert "1 FAIL, 1 INCONCLUSIVE" in page  # the rlvr tally
    assert "body.open-only tr[data-verdict=PASS]" in page
    assert rows["rlvr.fake_y"]["verdict"] == "FAIL"
    assert page.count("data:image/png;base64,") == 2  # each figure embedded once


def test_html_renders_in_a_headless_browser(run_dir: Path, tmp_path: Path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no headless Chromium on this machine")
    page = tmp_path / "report.html"
    run, results = load_results(run_dir)
    page.write_text(render_html(run, results, run_dir), encoding="utf-8")
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={shot}",
            "--window-size=1200,900",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file()
    image = plt.imread(shot)
    assert image.shape[0] == 900
    assert image.shape[1] == 1200
    assert image[..., :3].std() > 0.05  # the page drew something, not a blank canvas


def test_write_reports_rebuilds_both_files(run_dir: Path):
    md, page = write_reports(run_dir)
    assert (md, page) == (run_dir / "report.md", run_dir / "report.html")
    run, results = load_results(run_dir)
    assert md.read_text(encoding="utf-8") == render_markdown(run, results)
    assert page.read_text(encoding="utf-8") == render_html(run, results, run_dir)


def test_write_reports_needs_results_json(tmp_path: Path):
    with pytest.raises(ValueError, match=r"results\.json"):
        write_reports(tmp_path)
    assert not (tmp_path / "report.html").exists()


def test_report_of_numpy_measurements_shows_numbers(tmp_path: Path):
    result = _result(
        "rlvr.fake_a", Verdict.PASS, [], measured={"v": np.array([0.5, 0.25])}, expected={}
    )
    info = RunInfo("r", "t", "quick", 0, "processes", 1, "numpy", [], 0.0)
    write_results(tmp_path, info, [result])
    run, results = load_results(tmp_path)
    assert "| v | [0.5, 0.25] |  |" in render_markdown(run, results)


def test_a_paper_links_its_docs_page_only_from_a_run_inside_a_clone(tmp_path: Path):
    """The link goes to docs/<paper>.md of the nearest folder above the run that has the page
    (results/<run> of a clone), found from the run directory, never from where the package lies."""
    info = RunInfo("r", "t", "quick", 0, "processes", 1, "numpy", [], 0.0)
    inside = tmp_path / "clone" / "results" / "r"
    outside = tmp_path / "elsewhere" / "r"
    (tmp_path / "clone" / "docs").mkdir(parents=True)
    (tmp_path / "clone" / "docs" / "rlvr.md").write_text("# rlvr\n", encoding="utf-8")
    pages = {}
    for run_dir in (inside, outside):
        run_dir.mkdir(parents=True)
        write_results(run_dir, info, [_result("rlvr.fake_a", Verdict.PASS, [])])
        run, loaded = load_results(run_dir)
        pages[run_dir] = render_html(run, loaded, run_dir)
    page = "docs/rlvr.md"  # the made-up clone's paper page
    assert f'<a href="../../{page}">{page}</a>' in pages[inside]
    assert page not in pages[outside]
