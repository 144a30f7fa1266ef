"""``paper-checks solve hivemind`` on the shipped example files, and its bad-input errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paper_checks import hivemind_report as hr
from paper_checks.cli import main
from paper_checks.solve import solve_hivemind
from theory import hivemind as hm

DATA = Path(__file__).resolve().parents[1] / "data" / "hivemind"
GENS, ABS, PAIR = DATA / "gens.jsonl", DATA / "abs.jsonl", DATA / "pair.jsonl"


def write(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("hivemind")
    data, lines = solve_hivemind(GENS, ratings=[ABS, PAIR], out_dir=out, n_boot=50)
    return out, data, lines


def test_example_report_has_every_table_and_figure(report):
    out, data, lines = report
    div = data["diversity"]
    assert div["models"] == ["alpha", "beta", "gamma"]
    assert [row["queries"] for row in div["intra"]] == [4, 4, 4]
    assert np.asarray(div["inter"]).shape == (3, 3)
    assert div["topn"]["n"][-1] == 11  # 12 pooled responses per query
    assert div["topn"]["measured"][0] == pytest.approx(1.0)
    assert {c["name"] for c in div["by_category"]} == {
        "Creative Content Generation",
        "Brainstorm & Ideation",
    }
    assert [row["cells"] for row in div["by_decoding"]] == [12, 12]  # 3 models x 4 queries each
    assert set(div["paraphrase"]) == {"within", "across", "gap"}
    assert set(data["calibration"]) == {"abs", "pair"}
    for name in ("intra", "inter", "topn", "calibration_abs", "calibration_pair"):
        assert (out / f"hivemind_{name}.png").is_file()
    for name in ("report.json", "intra_model.csv", "items_abs.csv", "calibration_pair.csv"):
        assert (out / name).is_file()
    assert json.loads((out / "report.json").read_text())["embedder"] == "hash"
    assert any("Spearman" in line for line in lines)


def test_example_s_bar_matches_the_embeddings(report):
    out, data, _ = report
    gens = hr.read_generations(GENS)
    from neural.hivemind import HashEmbedder

    unit = HashEmbedder().embed(gens.responses)
    models, queries = np.array(gens.models), np.array(gens.queries)
    for row in data["diversity"]["s_bar"][:5]:
        e = unit[(models == row["model"]) & (queries == row["query"])]
        assert row["s_bar"] == pytest.approx(hm.mean_pairwise_similarity(e))
    assert (out / "embedding-cache" / "hash-1024-bigrams.npz").is_file()


def test_decoding_breakdown_never_pairs_across_settings(report):
    _, data, lines = report
    gens = hr.read_generations(GENS)
    from neural.hivemind import HashEmbedder

    unit = HashEmbedder().embed(gens.responses)
    keys = np.array(
        [f"{m}|{q}|{d}" for m, q, d in zip(gens.models, gens.queries, gens.decodings, strict=True)]
    )
    expected = {}
    for key in np.unique(keys):
        expected.setdefault(key.split("|")[2], []).append(
            hm.mean_pairwise_similarity(unit[keys == key])
        )
    got = {row["name"]: row["mean"] for row in data["diversity"]["by_decoding"]}
    assert got == pytest.approx({k: np.mean(v) for k, v in expected.items()})
    assert any(line.startswith("by decoding:") for line in lines)


def test_calibration_rows_cover_the_subsets(report):
    _, data, _ = report
    rows = data["calibration"]["abs"]["rows"]
    judge = {(r["subset"], r["param"]): r for r in rows if r["scorer"] == "judge"}
    assert judge[("full", None)]["n"] == 12
    assert judge[("full", None)]["delta_spearman"] == 0
    assert {s for s, _ in judge} == {"full", "tukey", "entropy_top"}
    items = hr.read_ratings(ABS)
    mean = items.mean_label
    assert judge[("full", None)]["spearman"] == pytest.approx(
        hm.spearman(items.scores["judge"], mean)
    )
    pair_subsets = {r["subset"] for r in data["calibration"]["pair"]["rows"]}
    assert pair_subsets == {"full", "ties_top", "p_dis_top"}


def test_pairwise_subsets_follow_the_tie_rule():
    """Default "cut": every pairwise top-fraction subset has exactly int(f·n) items (the
    authors' rule); "keep" can only add the items tied at the cut."""
    items = hr.read_ratings(PAIR)
    n = items.queries.size
    cut = hr.calibration(items, n_boot=2)
    keep = hr.calibration(items, n_boot=2, pairwise_ties="keep")
    for a, b in zip(cut, keep, strict=True):
        if a["subset"] in ("ties_top", "p_dis_top"):
            assert a["n"] == int(a["param"] * n) <= b["n"]
    with pytest.raises(ValueError, match="ties"):
        hr.calibration(items, n_boot=2, pairwise_ties="some")


def test_pairwise_scores_are_differences():
    items = hr.read_ratings(PAIR)
    assert items.kind == "pairwise"
    assert items.scores["judge"][0] == pytest.approx(1.0)
    assert items.counts[0].tolist() == [0, 0, 2, 4, 2]
    assert hr.item_table(items)["ties"][0] == 2


def test_vectors_embedder_uses_the_files_embeddings(tmp_path):
    rows = [json.loads(line) for line in GENS.read_text().splitlines()]
    for i, row in enumerate(rows):
        row["embedding"] = [1.0, 0.0] if row["model"] != "gamma" else [0.0, float(i + 1)]
    gens = write(tmp_path / "g.jsonl", rows)
    data, _ = solve_hivemind(gens, embedder="vectors", out_dir=tmp_path / "out")
    inter = np.asarray(data["diversity"]["inter"])
    assert inter[0, 1] == pytest.approx(1.0)
    assert inter[0, 2] == pytest.approx(0.0)


def test_cutoffs_are_the_users(tmp_path):
    data, lines = solve_hivemind(GENS, cutoffs=[0.1, 0.2], out_dir=tmp_path, n_boot=10)
    assert data["diversity"]["cutoffs"] == [0.1, 0.2]
    s_bar = [r["s_bar"] for r in data["diversity"]["s_bar"] if r["model"] == "alpha"]
    assert data["diversity"]["intra"][0]["share_above"] == pytest.approx(
        [100 * np.mean(np.array(s_bar) > c) for c in (0.1, 0.2)]
    )
    assert "% > 0.1, > 0.2" in lines[2]


def test_cli_solve_hivemind_runs(tmp_path, capsys):
    code = main(
        [
            "solve",
            "hivemind",
            "--gens",
            str(GENS),
            "--ratings",
            str(PAIR),
            "--out",
            str(tmp_path),
            "--n-boot",
            "20",
        ]
    )
    assert code == 0
    assert "distinct models among the top" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"query": "q", "model": "m"}'], "g.jsonl:1: missing key 'response'"),
        (['{"query": "q", "model": "m", "response": "r"}', "not json"], "g.jsonl:2 is not JSON"),
        (['["q", "m", "r"]'], "g.jsonl:1 is not a JSON object"),
        (['{"query": "q", "model": 3, "response": "r"}'], "'model' must be a str"),
        (['{"query": "q", "model": "m", "response": "r", "category": 5}'], "'category' must be"),
        ([""], "holds no lines"),
    ],
)
def test_malformed_gens_exit_2_naming_the_line(tmp_path, capsys, lines, message):
    gens = write(tmp_path / "g.jsonl", lines)
    assert main(["solve", "hivemind", "--gens", str(gens), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--gens" in err
    assert message in err


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {"query": "q", "response": "r", "ratings": [1, 6], "scores": {"a": 1}},
            "labels must be in",
        ),
        ({"query": "q", "response": "r", "ratings": [], "scores": {"a": 1}}, "non-empty list"),
        (
            {"query": "q", "response": "r", "ratings": [3], "scores": {"a": "x"}},
            "score 'a' must be a number",
        ),
        (
            {
                "query": "q",
                "response_1": "r",
                "response_2": "s",
                "labels": [0],
                "scores": {"a": [1]},
            },
            "[s1, s2]",
        ),
    ],
)
def test_malformed_ratings_exit_2_naming_the_line(tmp_path, capsys, row, message):
    ratings = write(tmp_path / "r.jsonl", [row])
    argv = [
        "solve",
        "hivemind",
        "--gens",
        str(GENS),
        "--ratings",
        str(ratings),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--ratings" in err
    assert "r.jsonl:1" in err
    assert message in err


def test_inconsistent_scorers_are_rejected(tmp_path):
    rows = [
        {"query": "q", "response": "r", "ratings": [3], "scores": {"a": 1}},
        {"query": "q", "response": "s", "ratings": [4], "scores": {"b": 1}},
    ]
    with pytest.raises(ValueError, match=r"r\.jsonl:2: 'scores' must name the same scorers"):
        hr.read_ratings(write(tmp_path / "r.jsonl", rows))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gens", "missing.jsonl"], "--gens: no such file"),
        (["--gens", str(GENS), "--embedder", "vectors"], "--embedder vectors needs"),
        (["--gens", str(GENS), "--embedder", "openai"], "--embedder"),
        (["--gens", str(GENS), "--n-boot", "0"], "--n-boot"),
        (["--gens", str(GENS), "--cutoffs", "1.5"], "--cutoffs"),
        (["--gens", str(GENS), "--pairwise-ties", "all"], "--pairwise-ties"),
    ],
)
def test_bad_arguments_exit_2(tmp_path, capsys, argv, message):
    assert main(["solve", "hivemind", *argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_single_response_cells_are_rejected(tmp_path):
    rows = [{"query": f"q{i}", "model": "m", "response": f"r{i}"} for i in range(3)]
    with pytest.raises(ValueError, match="no \\(model, query\\) has 2 or more responses"):
        solve_hivemind(write(tmp_path / "g.jsonl", rows), out_dir=tmp_path / "o")


def test_the_top_n_headline_is_where_the_references_differ_most(report):
    """At the largest N every model set counts every model (3.00 for interchangeable and
    disjoint alike on the example), so the headline is at the N of the widest gap between the
    references, with the measured count's position between them."""
    _, data, lines = report
    topn = data["diversity"]["topn"]
    gap = np.subtract(topn["interchangeable"], topn["disjoint"])
    assert gap[-1] == pytest.approx(0.0)  # the old headline's N discriminates nothing
    n = topn["headline_n"]
    assert n == int(np.argmax(gap)) + 1 == 3
    assert gap[n - 1] == pytest.approx(gap.max())
    assert gap.max() > 1
    measured, mixed, apart = topn["measured"][n - 1], topn["interchangeable"][n - 1], 1.0
    (line,) = [x for x in lines if x.startswith("distinct models")]
    assert line == (
        f"distinct models among the top 3 neighbours: {measured:.2f} (disjoint 1, interchangeable "
        f"{mixed:.2f}: {(measured - apart) / (mixed - apart):.2f} of the way; N = 3 is where the "
        "two differ most, of N = 1..11)"
    )


def test_headline_n_ties_take_the_smallest_n_and_no_gap_is_undefined():
    assert hr.headline_n(np.array([1.0, 2.0, 2.5, 3.0]), np.array([1.0, 1.0, 1.5, 3.0])) == 2
    assert hr.headline_n(np.array([1.0]), np.array([1.0])) is None
    assert hr.headline_n(np.zeros(0), np.zeros(0)) is None
    # the paper's 25 models x 50 responses: disjoint stays 1 below N = 50, so N = 49
    mixed = hm.interchangeable_curve([50] * 25, 49)
    assert hr.headline_n(mixed, hm.disjoint_curve(50, 49)) == 49


def test_one_response_per_model_and_query_gives_an_undefined_headline(tmp_path, capsys):
    rows = [
        {"query": f"q{q}", "model": m, "response": f"answer {m} {q} {i}"}
        for q in range(3)
        for m in ("a", "b")
        for i in range(2 if m == "a" else 1)
    ]
    gens = write(tmp_path / "gens.jsonl", rows)
    assert main(["solve", "hivemind", "--gens", str(gens), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert (
        "distinct models among the top N neighbours: undefined (up to N = 2 every set of models "
        "gives the same count; give each query more responses)"
    ) in out


def test_the_bootstrap_estimate_counts_every_scorer_subset_and_resample():
    items = hr.read_ratings(ABS)
    table = hr.item_table(items)
    sizes = [int(m.sum()) for _, _, m in hr._subsets(items, table, "cut")]
    per = sum(hr.BOOT_SECONDS_FIXED + hr.BOOT_SECONDS_PER_ITEM * n for n in sizes if n >= 3)
    assert hr.calibration_seconds(items, 1000) == pytest.approx(len(items.scores) * 1000 * per)
    assert hr.calibration_seconds(items, 2000) == pytest.approx(
        2 * hr.calibration_seconds(items, 1000)
    )
    # the subsets are the ones calibration resamples: one row per scorer and subset
    rows = hr.calibration(items, n_boot=5, rng=0)
    assert len(rows) == len(items.scores) * len(sizes)


def test_the_bootstrap_estimate_is_logged_before_it_starts(caplog):
    import logging

    from paper_checks.solve import _announce_bootstrap

    rated = [(ABS, hr.read_ratings(ABS)), (PAIR, hr.read_ratings(PAIR))]
    with caplog.at_level(logging.WARNING, logger="paper_checks.solve"):
        _announce_bootstrap(rated, 10_000, "cut", None, 0.0)
    (record,) = caplog.records
    assert record.getMessage().startswith(
        "solve hivemind: the calibration bootstrap (--n-boot 10000, 2 ratings file(s)) takes "
        "roughly "
    )
    assert record.getMessage().endswith("on one core (no --time-limit set)")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="paper_checks.solve"):
        _announce_bootstrap(rated, 50, "cut", None, 0.0)  # well under 5 s: quiet
    assert not caplog.records


def test_a_bootstrap_beyond_the_time_limit_is_refused_before_it_starts(tmp_path, capsys):
    import time

    out = tmp_path / "o"
    argv = ["solve", "hivemind", "--gens", str(GENS), "--ratings", str(ABS), "--out", str(out)]
    start = time.monotonic()
    assert main([*argv, "--n-boot", "100000", "--time-limit", "20"]) == 2
    assert time.monotonic() - start < 20
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--n-boot 100000: the calibration bootstrap of 1 ratings file(s) takes roughly" in err[0]
    assert "lower --n-boot or raise --time-limit" in err[0]
    assert not out.exists()  # refused before anything was written


def test_the_time_limit_covers_reading_and_the_metrics(tmp_path, capsys):
    rows = [
        {"query": f"q{q}", "model": f"m{m}", "response": f"answer {q} {m} {i} " * 20}
        for q in range(200)
        for m in range(5)
        for i in range(10)
    ]
    gens = write(tmp_path / "gens.jsonl", rows)  # 10,000 lines: seconds of work
    out = tmp_path / "o"
    code = main(
        ["solve", "hivemind", "--gens", str(gens), "--out", str(out), "--time-limit", "0.05"]
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert (
        "--time-limit 0.05 s was reached while computing the Hivemind report; no report.json was "
        "written: allow more time"
    ) in err[0]
    assert not (out / "report.json").exists()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "x"])
def test_a_bad_time_limit_is_one_line_naming_it(tmp_path, capsys, value):
    argv = ["solve", "hivemind", "--gens", str(GENS), "--out", str(tmp_path / "o")]
    assert main([*argv, "--time-limit", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--time-limit" in err[0]
