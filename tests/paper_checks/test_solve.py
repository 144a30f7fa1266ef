"""``paper-checks solve passk``: reading the user's sample files, the pass@k table, crossing and
coverage, and the CLI around them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paper_checks.cli import main
from paper_checks.solve import passk_figure, read_sample_counts, read_seed_counts, solve_passk
from sims._jsonio import to_jsonable
from sims.bootstrap import bootstrap_pass_at_k
from theory import passk

# file-writing properties: tmp_path is reused across examples (each overwrites its files)
fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def counts(s) -> dict[str, tuple[int, int]]:
    return {str(i): (int(n), int(c)) for i, n, c in zip(s.ids, s.n, s.c, strict=True)}


# ------------------------------------------------------------------------ a base and an RL model
# 6 problems, 16 samples each. RL is sharper (higher pass@1) but solves fewer problems, so base
# overtakes it at large k. Coverage by hand: both {a, b}, base only {c, f}, RL only {e},
# neither {d}.
IDS = ["a", "b", "c", "d", "e", "f"]
N = 16
BASE_C = {"a": 4, "b": 4, "c": 2, "d": 0, "e": 0, "f": 1}
RL_C = {"a": 16, "b": 12, "c": 0, "d": 0, "e": 1, "f": 0}


def base_samples_csv(path: Path) -> Path:
    """Per-sample rows (problem,correct), interleaved across problems, with true/false words."""
    rows = ["problem,correct"]
    for s in range(N):
        rows += [f"{p},{'true' if s < BASE_C[p] else 'false'}" for p in reversed(IDS)]
    return write(path, "\n".join(rows) + "\n")


def rl_counts_csv(path: Path) -> Path:
    """Per-problem rows (problem,n,c), two seeds of 8 samples per problem, to be pooled."""
    rows = ["problem,n,c"]
    for seed in range(2):
        for p in IDS:
            first = min(RL_C[p], 8)
            rows.append(f"{p},8,{first if seed == 0 else RL_C[p] - first}")
    return write(path, "\n".join(rows) + "\n")


# ----------------------------------------------------------------------------- reading: CSV n,c
def test_csv_counts_without_problem_column(tmp_path: Path):
    s = read_sample_counts(write(tmp_path / "s.csv", "n,c\n10,3\n10,0\n5,5\n"))
    assert counts(s) == {"1": (10, 3), "2": (10, 0), "3": (5, 5)}  # 1-based row numbers
    assert list(s.ids) == ["1", "2", "3"]  # file order is kept
    assert np.issubdtype(s.n.dtype, np.integer)
    assert np.issubdtype(s.c.dtype, np.integer)
    assert s.path == tmp_path / "s.csv"


def test_csv_counts_pool_repeated_problem_rows(tmp_path: Path):
    text = "problem,n,c\np1,4,1\np2,4,0\np1,4,3\np2,6,2\np3,1,1\n"
    s = read_sample_counts(write(tmp_path / "s.csv", text))
    assert counts(s) == {"p1": (8, 4), "p2": (10, 2), "p3": (1, 1)}
    assert np.issubdtype(s.n.dtype, np.integer)  # pooled counts stay integers


@pytest.mark.parametrize("id_column", ["problem", "problem_id", "id", " Problem "])
def test_csv_id_column_names_and_header_case(tmp_path: Path, id_column: str):
    s = read_sample_counts(write(tmp_path / "s.csv", f"{id_column}, N ,C\nq1, 3 , 1\nq2,3,0\n"))
    assert counts(s) == {"q1": (3, 1), "q2": (3, 0)}


# ------------------------------------------------------------------------ reading: CSV per sample
@pytest.mark.parametrize(
    ("yes", "no"), [("true", "false"), ("1", "0"), ("True", "FALSE"), ("yes", "no"), ("t", "f")]
)
def test_csv_per_sample_rows(tmp_path: Path, yes: str, no: str):
    text = f"problem,correct\nx,{yes}\nx,{no}\ny,{no}\nx,{yes}\ny,{no}\nz,{yes}\n"
    s = read_sample_counts(write(tmp_path / "s.csv", text))
    assert counts(s) == {"x": (3, 2), "y": (2, 0), "z": (1, 1)}


# --------------------------------------------------------------------------------- reading: JSONL
def test_jsonl_counts(tmp_path: Path):
    text = '{"problem": "p1", "n": 4, "c": 1}\n\n{"problem": "p2", "n": 4, "c": 4}\n'
    text += '{"problem": "p1", "n": 2, "c": "2"}\n'
    s = read_sample_counts(write(tmp_path / "s.jsonl", text))
    assert counts(s) == {"p1": (6, 3), "p2": (4, 4)}


def test_jsonl_per_sample_rows(tmp_path: Path):
    records = [
        {"problem_id": 7, "correct": True},
        {"problem_id": 7, "correct": 0},
        {"problem_id": 8, "correct": False},
        {"problem_id": 7, "correct": "yes"},
    ]
    text = "\n".join(json.dumps(r) for r in records) + "\n"
    s = read_sample_counts(write(tmp_path / "s.ndjson", text))
    assert counts(s) == {"7": (3, 2), "8": (1, 0)}


samples = st.lists(
    st.tuples(st.sampled_from(["p0", "p1", "p2", "q", "r10"]), st.booleans()),
    min_size=1,
    max_size=40,
)


@fixture_ok
@given(samples, st.sampled_from(["csv", "jsonl"]))
def test_per_sample_counts_match_a_hand_count(tmp_path: Path, rows, fmt):
    if fmt == "csv":
        text = "problem,correct\n" + "".join(f"{p},{int(ok)}\n" for p, ok in rows)
    else:
        text = "".join(json.dumps({"problem": p, "correct": ok}) + "\n" for p, ok in rows)
    s = read_sample_counts(write(tmp_path / f"samples.{fmt}", text))
    n = Counter(p for p, _ in rows)
    c = Counter(p for p, ok in rows if ok)
    assert counts(s) == {p: (n[p], c[p]) for p in n}


@fixture_ok
@given(
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.integers(1, 50)).flatmap(
            lambda t: st.tuples(st.just(t[0]), st.just(t[1]), st.integers(0, t[1]))
        ),
        min_size=1,
        max_size=12,
    )
)
def test_csv_counts_pool_like_a_hand_sum(tmp_path: Path, rows):
    text = "problem,n,c\n" + "".join(f"{p},{n},{c}\n" for p, n, c in rows)
    s = read_sample_counts(write(tmp_path / "counts.csv", text))
    n, c = Counter(), Counter()
    for p, ni, ci in rows:
        n[p] += ni
        c[p] += ci
    assert counts(s) == {p: (n[p], c[p]) for p in n}


# -------------------------------------------------------------------------------- reading: errors
@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("cols.csv", "x,y\n1,2\n", "needs columns n,c"),
        ("nocol.csv", "correct\n1\n0\n", "needs columns n,c"),
        ("cgtn.csv", "n,c\n4,1\n4,5\n", r"row 2: need 0 <= c <= n"),
        ("neg.csv", "n,c\n4,-1\n", "need 0 <= c <= n"),
        ("zero.csv", "n,c\n0,0\n", "n >= 1"),
        ("float.csv", "n,c\n2.5,1\n", "n must be an integer"),
        ("word.csv", "n,c\n4,one\n", "c must be an integer"),
        ("blank.csv", "n,c\n4,\n", "c must be an integer"),
        ("bool.csv", "problem,correct\np,maybe\n", "correct must be 0/1 or true/false"),
        ("two.csv", "problem,correct\np,2\n", "correct must be 0/1 or true/false"),
        ("empty.csv", "n,c\n", "holds no rows"),
        ("bad.jsonl", '{"n": 4, "c": 1}\n{not json}\n', r"bad\.jsonl:2 is not JSON"),
        ("list.jsonl", '{"n": 4, "c": 1}\n[4, 1]\n', r"list\.jsonl:2 is not a JSON object"),
        ("float.jsonl", '{"n": 4.5, "c": 1}\n', "n must be an integer"),
        ("nulls.jsonl", '{"problem": "p", "correct": null}\n', "correct must be"),
    ],
)
def test_bad_sample_files(tmp_path: Path, name: str, text: str, match: str):
    with pytest.raises(ValueError, match=match) as err:
        read_sample_counts(write(tmp_path / name, text))
    assert str(err.value).startswith("--samples")
    assert "\n" not in str(err.value)


def test_missing_sample_file(tmp_path: Path):
    with pytest.raises(ValueError, match="no such file") as err:
        read_sample_counts(tmp_path / "missing.csv")
    assert str(err.value).startswith("--samples")
    assert "missing.csv" in str(err.value)


def test_seed_column_splits_and_pools(tmp_path: Path):
    """problem,seed,n,c rows: the pooled read adds the seeds, read_seed_counts keeps them."""
    path = write(tmp_path / "m.csv", "problem,seed,n,c\na,0,4,1\nb,0,4,0\na,1,4,3\nb,1,4,2\n")
    assert counts(read_sample_counts(path)) == {"a": (8, 4), "b": (8, 2)}
    column, by_seed = read_seed_counts(path)
    assert column == "seed"
    assert {s: counts(v) for s, v in by_seed.items()} == {
        "0": {"a": (4, 1), "b": (4, 0)},
        "1": {"a": (4, 3), "b": (4, 2)},
    }


def test_run_column_in_per_sample_jsonl(tmp_path: Path):
    rows = [("x", 1, 1), ("x", 1, 0), ("x", 2, 0), ("y", 2, 1), ("y", 1, 1)]
    text = "".join(json.dumps({"problem": p, "run": r, "correct": c}) + "\n" for p, r, c in rows)
    column, by_run = read_seed_counts(write(tmp_path / "m.jsonl", text))
    assert column == "run"
    assert list(by_run) == ["1", "2"]  # order of first appearance
    assert counts(by_run["1"]) == {"x": (2, 1), "y": (1, 1)}
    assert counts(by_run["2"]) == {"x": (1, 0), "y": (1, 1)}


def test_no_seed_column_or_one_seed_gives_no_split(tmp_path: Path):
    assert read_seed_counts(write(tmp_path / "a.csv", "problem,n,c\na,4,1\n")) == (None, {})
    assert read_seed_counts(write(tmp_path / "b.csv", "problem,seed,n,c\na,3,4,1\n")) == (None, {})


def test_seed_column_without_problems_raises(tmp_path: Path):
    path = write(tmp_path / "m.csv", "seed,n,c\n0,4,1\n1,4,2\n")
    with pytest.raises(ValueError, match=r"^--samples: .*seed column but no problem column"):
        read_seed_counts(path)


# ----------------------------------------------------------------------------------- solve_passk
def test_one_file_gives_the_theory_curve(tmp_path: Path):
    path = write(tmp_path / "model.csv", "n,c\n8,2\n8,0\n8,8\n16,3\n")
    out, lines = solve_passk([path], plot=None)
    ks = [1, 2, 4, 8]
    assert out["k"] == ks
    assert list(out["pass_at_k"]) == ["model"]
    expected = passk.pass_at_k_curve(np.array([8, 8, 8, 16]), np.array([2, 0, 8, 3]), ks)
    np.testing.assert_allclose(out["pass_at_k"]["model"], expected, rtol=1e-12)
    assert out["difference"] == {}
    assert out["crossing"] == {}
    assert out["coverage_sets"] == [
        {"solved_by": ["model"], "problems": 3},
        {"solved_by": [], "problems": 1},
    ]
    assert lines[0].split() == ["k", "model", "95%", "CI"]
    assert [int(line.split()[0]) for line in lines[1:]] == ks
    assert [float(line.split()[1]) for line in lines[1:]] == pytest.approx(expected, abs=5e-5)


@fixture_ok
@given(
    st.lists(
        st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        min_size=1,
        max_size=10,
    )
)
def test_one_file_property(tmp_path: Path, rows):
    path = write(tmp_path / "m.csv", "n,c\n" + "".join(f"{n},{c}\n" for n, c in rows))
    out, _ = solve_passk([path], plot=None)
    n = np.array([r[0] for r in rows])
    c = np.array([r[1] for r in rows])
    assert out["k"][-1] <= n.min() < 2 * out["k"][-1]  # powers of two up to min n
    np.testing.assert_allclose(
        out["pass_at_k"]["m"], passk.pass_at_k_curve(n, c, out["k"]), rtol=1e-12, atol=1e-15
    )


def test_k_max_limits_the_table(tmp_path: Path):
    path = write(tmp_path / "m.csv", "n,c\n16,2\n16,5\n")
    out, lines = solve_passk([path], k_max=5, plot=None)
    assert out["k"] == [1, 2, 4]
    assert len(lines) == 1 + 3


def test_k_max_above_the_fewest_samples_raises(tmp_path: Path):
    path = write(tmp_path / "m.csv", "n,c\n16,2\n8,5\n")
    with pytest.raises(ValueError, match=r"^--k-max .*\(8\), got 9$"):
        solve_passk([path], k_max=9, plot=None)


def test_any_k_the_user_asks_gives_the_theory_curve(tmp_path: Path):
    """--k 3,10,16: those budgets (sorted, deduplicated), not only powers of two; the per-seed
    table starts at the smallest asked k."""
    path = write(tmp_path / "m.csv", "problem,seed,n,c\na,0,8,2\nb,0,8,5\na,1,8,1\nb,1,8,0\n")
    out, lines = solve_passk([path], ks=[16, 3, 10, 3], plot=None)
    assert out["k"] == [3, 10, 16]
    want = passk.pass_at_k_curve(np.array([16, 16]), np.array([3, 5]), [3, 10, 16])
    np.testing.assert_allclose(out["pass_at_k"]["m"], want, rtol=1e-12)
    assert [int(line.split()[0]) for line in lines[1:4]] == [3, 10, 16]
    assert out["per_seed"]["k"] == [3]  # each seed holds 8 samples per problem
    assert "m@3" in next(line for line in lines if line.startswith("seed"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ks": [3, 17]}, r"^--k: each k must be an integer in \[1, 16\] .*got 17$"),
        ({"ks": [0]}, r"^--k: .*got 0$"),
        ({"ks": []}, r"^--k: .*got none$"),
        ({"ks": [2], "k_max": 4}, r"^--k: give --k or --k-max, not both$"),
    ],
)
def test_bad_k_lists_raise_naming_k(tmp_path: Path, kwargs, match):
    path = write(tmp_path / "m.csv", "n,c\n16,2\n16,5\n")
    with pytest.raises(ValueError, match=match):
        solve_passk([path], plot=None, **kwargs)


def test_two_files_crossing_and_coverage(tmp_path: Path):
    base = base_samples_csv(tmp_path / "base.csv")
    rl = rl_counts_csv(tmp_path / "rl.csv")
    plot = tmp_path / "plots" / "cmp.png"
    out, lines = solve_passk([base, rl], plot=plot)

    ks = [1, 2, 4, 8, 16]
    assert out["k"] == ks
    n = np.full(len(IDS), N)
    expected_base = passk.pass_at_k_curve(n, np.array([BASE_C[p] for p in IDS]), ks)
    expected_rl = passk.pass_at_k_curve(n, np.array([RL_C[p] for p in IDS]), ks)
    np.testing.assert_allclose(out["pass_at_k"]["base"], expected_base, rtol=1e-12)
    np.testing.assert_allclose(out["pass_at_k"]["rl"], expected_rl, rtol=1e-12)

    # RL wins at k = 1, base at k = 16: the crossing lies strictly between
    assert expected_rl[0] > expected_base[0]
    assert expected_rl[-1] < expected_base[-1]
    crossing = out["crossing"]["rl"]
    assert 1 < crossing["k_star"] < 16
    expected = passk.crossing_k(ks, expected_base, expected_rl)
    assert crossing["k_star"] == pytest.approx(expected.k_star, rel=1e-12)
    assert crossing["bracket"] == list(expected.bracket)
    assert crossing["n_crossings"] == 1
    np.testing.assert_allclose(
        out["difference"]["rl"]["estimate"], expected_rl - expected_base, atol=1e-15
    )
    assert out["difference"]["rl"]["vs"] == "base"

    # UpSet counts by hand: both {a, b}, base only {c, f}, RL only {e}, neither {d}
    assert out["coverage_sets"] == [
        {"solved_by": ["base", "rl"], "problems": 2},
        {"solved_by": ["base"], "problems": 2},
        {"solved_by": ["rl"], "problems": 1},
        {"solved_by": [], "problems": 1},
    ]
    ci = ["95%", "CI"]
    assert lines[0].split() == ["k", "base", *ci, "rl", *ci, "rl", "-", "base", *ci]
    at = lines.index("coverage sets (c > 0; x = solved), most common first:")
    assert [line.split() for line in lines[at + 1 : at + 6]] == [
        ["base", "rl", "problems"],
        ["x", "x", "2"],
        ["x", ".", "2"],
        [".", "x", "1"],
        [".", ".", "1"],
    ]
    assert "solved by base only: c, f" in lines
    assert any(line.startswith("crossing (base overtakes rl): k* = ") for line in lines)
    deltas = [float(line.split()[7]) for line in lines[1:6]]
    assert deltas == pytest.approx(expected_rl - expected_base, abs=5e-5)

    assert (tmp_path / "plots" / "cmp.png").stat().st_size > 0
    assert (tmp_path / "plots" / "cmp.pdf").stat().st_size > 0
    assert lines[-1].startswith("plot: ")


def test_two_files_with_the_same_name(tmp_path: Path):
    """base/samples.csv and rl/samples.csv: both curves are kept, labelled by role."""
    base = write(tmp_path / "base" / "samples.csv", "n,c\n4,1\n4,0\n")
    rl = write(tmp_path / "rl" / "samples.csv", "n,c\n4,4\n4,0\n")
    out, _ = solve_passk([base, rl], plot=None)
    assert list(out["pass_at_k"]) == ["samples (base)", "samples (RL)"]
    assert out["pass_at_k"]["samples (base)"] == pytest.approx([0.125, 0.25, 0.5])
    assert out["pass_at_k"]["samples (RL)"] == pytest.approx([0.5, 0.5, 0.5])
    assert out["coverage_sets"] == [
        {"solved_by": ["samples (base)", "samples (RL)"], "problems": 1},
        {"solved_by": [], "problems": 1},
    ]


def test_mismatched_problem_sets_raise(tmp_path: Path):
    base = write(tmp_path / "base.csv", "problem,n,c\na,4,1\nb,4,0\n")
    rl = write(tmp_path / "rl.csv", "problem,n,c\na,4,1\nc,4,0\n")
    with pytest.raises(ValueError, match="same problems") as err:
        solve_passk([base, rl], plot=None)
    assert str(err.value).startswith("--samples")


def test_mismatched_row_counts_raise(tmp_path: Path):
    base = write(tmp_path / "base.csv", "n,c\n4,1\n4,0\n")
    rl = write(tmp_path / "rl.csv", "n,c\n4,1\n4,0\n4,2\n")
    with pytest.raises(ValueError, match=r"^--samples: .*same problems"):
        solve_passk([base, rl], plot=None)


def test_no_file_raises():
    with pytest.raises(ValueError, match=r"^--samples: give at least one file"):
        solve_passk([], plot=None)


# ---------------------------------------------------------------- bootstrap CIs, many files
# a third model on the same 6 problems: solves a, b, c (as base, less f)
FLAT_C = {"a": 5, "b": 4, "c": 2, "d": 0, "e": 0, "f": 0}
KS16 = [1, 2, 4, 8, 16]


def counts_csv(path: Path, c: dict[str, int], seeds: int = 0) -> Path:
    """problem,n,c rows (n = 16); with ``seeds``, one row per seed and problem (c split up)."""
    if not seeds:
        return write(path, "problem,n,c\n" + "".join(f"{p},{N},{c[p]}\n" for p in IDS))
    rows = ["problem,seed,n,c"]
    for s in range(seeds):
        rows += [f"{p},{s},{N // seeds},{c[p] // seeds + (s < c[p] % seeds)}" for p in IDS]
    return write(path, "\n".join(rows) + "\n")


def model_files(tmp_path: Path, seeds: int = 0) -> list[Path]:
    return [
        counts_csv(tmp_path / f"{name}.csv", c, seeds)
        for name, c in (("base", BASE_C), ("rl", RL_C), ("flat", FLAT_C))
    ]


def test_cis_are_the_paired_bootstrap_over_problems(tmp_path: Path):
    paths = model_files(tmp_path)[:2]
    out, lines = solve_passk(paths, plot=None, n_boot=500, ci=0.9, seed=3)
    n = np.full(len(IDS), N)
    c = [np.array([BASE_C[p] for p in IDS]), np.array([RL_C[p] for p in IDS])]
    boot = bootstrap_pass_at_k([n, n], c, KS16, 3, n_boot=500, level=0.9)
    for m, label in enumerate(["base", "rl"]):
        np.testing.assert_array_equal(out["pass_at_k_ci"][label]["low"], boot.low[m])
        np.testing.assert_array_equal(out["pass_at_k_ci"][label]["high"], boot.high[m])
    np.testing.assert_array_equal(out["difference"]["rl"]["low"], boot.difference_low[0])
    np.testing.assert_array_equal(out["difference"]["rl"]["high"], boot.difference_high[0])
    crossing = out["crossing"]["rl"]
    assert crossing["share_crossing"] == boot.crossing_share[0]
    assert crossing["k_star_ci"] == [boot.k_star_low[0], boot.k_star_high[0]]
    assert crossing["k_star_ci"][0] <= crossing["k_star"] <= crossing["k_star_ci"][1]
    assert out["bootstrap"] == {"n_boot": 500, "ci": 0.9, "seed": 3}
    assert lines[0].split().count("90%") == 3
    assert any(
        line.startswith("crossing (base overtakes rl): k* = ")
        and "bootstrap (500 draws): " in line
        and "% of draws cross, 90% CI of k* among them [" in line
        for line in lines
    )
    # the same seed gives the same numbers, another seed other draws
    assert solve_passk(paths, plot=None, n_boot=500, ci=0.9, seed=3)[0] == out
    other, _ = solve_passk(paths, plot=None, n_boot=500, ci=0.9, seed=4)
    assert other["pass_at_k"] == out["pass_at_k"]
    assert other["pass_at_k_ci"] != out["pass_at_k_ci"]


def test_three_files(tmp_path: Path):
    paths = model_files(tmp_path)
    plot = tmp_path / "three.png"
    out, lines = solve_passk(paths, plot=plot, n_boot=300)
    assert out["models"] == ["base", "rl", "flat"]
    n = np.full(len(IDS), N)
    curves = {
        name: passk.pass_at_k_curve(n, np.array([c[p] for p in IDS]), KS16)
        for name, c in (("base", BASE_C), ("rl", RL_C), ("flat", FLAT_C))
    }
    for name, curve in curves.items():
        np.testing.assert_allclose(out["pass_at_k"][name], curve, rtol=1e-12)
    for name in ("rl", "flat"):  # differences against the first file
        np.testing.assert_allclose(
            out["difference"][name]["estimate"], curves[name] - curves["base"], atol=1e-15
        )
        assert out["difference"][name]["vs"] == "base"
        assert len(out["difference"][name]["low"]) == len(KS16)
    assert set(out["crossing"]) == {"rl", "flat"}
    # solved: base a b c f, rl a b e, flat a b c
    assert out["coverage_sets"] == [
        {"solved_by": ["base", "rl", "flat"], "problems": 2},
        {"solved_by": ["base", "flat"], "problems": 1},
        {"solved_by": ["base"], "problems": 1},
        {"solved_by": ["rl"], "problems": 1},
        {"solved_by": [], "problems": 1},
    ]
    at = lines.index("coverage sets (c > 0; x = solved), most common first:")
    assert lines[at + 1].split() == ["base", "rl", "flat", "problems"]
    assert lines[at + 3].split() == ["x", ".", "x", "1"]
    assert "solved by base only: f" in lines
    assert lines[0].split().count("-") == 2  # rl - base, flat - base
    assert plot.stat().st_size > 0
    assert out["plot"] == str(plot)


def test_per_seed_curves_and_crossings(tmp_path: Path):
    paths = model_files(tmp_path, seeds=2)[:2]  # n = 8 per seed, 16 pooled
    out, lines = solve_passk(paths, plot=tmp_path / "seeds.png", n_boot=200)
    assert out["k"] == KS16  # pooled: the seeds' samples add up to n = 16
    n = np.full(len(IDS), N)
    expected = passk.pass_at_k_curve(n, np.array([BASE_C[p] for p in IDS]), KS16)
    np.testing.assert_allclose(out["pass_at_k"]["base"], expected, rtol=1e-12)
    per_seed = out["per_seed"]
    assert (per_seed["column"], per_seed["seeds"], per_seed["k"]) == ("seed", ["0", "1"], KS16[:4])
    for s in (0, 1):
        half = {
            name: np.array([c[p] // 2 + (s < c[p] % 2) for p in IDS])
            for name, c in (("base", BASE_C), ("rl", RL_C))
        }
        curve = {name: passk.pass_at_k_curve(n // 2, c, KS16[:4]) for name, c in half.items()}
        for name in ("base", "rl"):
            np.testing.assert_allclose(per_seed["pass_at_k"][str(s)][name], curve[name])
        k_star = passk.crossing_k(KS16[:4], curve["base"], curve["rl"]).k_star
        assert per_seed["k_star"][str(s)]["rl"] == pytest.approx(k_star, rel=1e-12)
    at = lines.index("per seed (k <= 8; the table above pools the seeds):")
    assert lines[at + 1].split() == ["seed", "base@1", "rl@1", "base@8", "rl@8", "k*", "rl"]
    assert [line.split()[0] for line in lines[at + 2 : at + 4]] == ["0", "1"]


def test_per_seed_view_needs_the_same_seeds(tmp_path: Path):
    base = counts_csv(tmp_path / "base.csv", BASE_C, seeds=2)
    rl = counts_csv(tmp_path / "rl.csv", RL_C)
    out, lines = solve_passk([base, rl], plot=None, n_boot=50)
    assert out["per_seed"] is None
    assert "per seed: skipped (the files do not carry the same seeds)" in lines


def test_per_seed_view_takes_seeds_in_any_row_order(tmp_path: Path):
    base, rl = model_files(tmp_path, seeds=2)[:2]
    header, *rows = rl.read_text().splitlines()
    write(rl, "\n".join([header, *reversed(rows)]) + "\n")  # seed 1 rows first
    out, _ = solve_passk([base, rl], plot=None, n_boot=50)
    assert out["per_seed"]["seeds"] == ["0", "1"]  # the first file's order
    reference, _ = solve_passk(model_files(tmp_path / "ref", seeds=2)[:2], plot=None, n_boot=50)
    assert out["per_seed"] == reference["per_seed"]


def test_labels_drop_the_common_prefix(tmp_path: Path):
    a = counts_csv(tmp_path / "run.seed0.base.csv", BASE_C)
    b = counts_csv(tmp_path / "run.seed0.rl.csv", RL_C)
    c = counts_csv(tmp_path / "seed1.base.csv", BASE_C)
    assert solve_passk([a, b], plot=None, n_boot=10)[0]["models"] == ["base", "rl"]
    assert solve_passk([a, c], plot=None, n_boot=10)[0]["models"] == [
        "run.seed0.base",
        "seed1.base",
    ]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_boot": 0}, r"^--n-boot must be a positive integer"), ({"ci": 1.0}, r"^--ci must be")],
)
def test_bad_bootstrap_options_raise(tmp_path: Path, kwargs, match: str):
    with pytest.raises(ValueError, match=match):
        solve_passk(model_files(tmp_path)[:1], plot=None, **kwargs)


def test_figure_legend_covers_no_data(tmp_path: Path):
    """The legend's rendered box holds no plotted point or band vertex of either panel, and
    lies outside both axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    paths = model_files(tmp_path, seeds=2)
    out, _ = solve_passk(paths, plot=None, n_boot=200)
    data = [read_sample_counts(p) for p in paths]
    boot = bootstrap_pass_at_k([d.n for d in data], [d.c for d in data], out["k"], 0, n_boot=200)
    fig = passk_figure(boot, out["models"], per_seed=out["per_seed"])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    assert len(legends) == 1
    legend = legends[0]
    box = legend.get_window_extent(canvas.get_renderer())
    for ax in fig.axes:
        assert not box.overlaps(ax.bbox)
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    bands = [
        (band, path) for ax in fig.axes for band in ax.collections for path in band.get_paths()
    ]
    points = np.concatenate(
        [line.get_transform().transform(line.get_xydata()) for line in lines]
        + [band.get_transform().transform(path.vertices) for band, path in bands]
    )
    assert len(points) > 100  # 3 curves, 2 differences, per-seed lines, bands
    inside = (
        (box.x0 <= points[:, 0])
        & (points[:, 0] <= box.x1)
        & (box.y0 <= points[:, 1])
        & (points[:, 1] <= box.y1)
    )
    assert not inside.any()
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:5] == ["base", "rl", "flat", "rl − base", "flat − base"]
    assert "per seed" in labels


# ------------------------------------------------------------------------------------------ CLI
def test_cli_missing_file_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "passk", "--samples", "missing.csv"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert "missing.csv" in lines[0]
    assert "Traceback" not in captured.err
    assert not (tmp_path / "passk.png").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["solve"],
        ["solve", "passk"],
        ["solve", "passk", "--samples", "m.csv", "--k-max", "0"],
        ["solve", "passk", "--samples", "m.csv", "--n-boot", "0"],
        ["solve", "passk", "--samples", "m.csv", "--ci", "95"],
        ["solve", "passk", "--samples", "m.csv", "--seed", "-1"],
        ["solve", "passk", "--samples", "m.csv", "--k-max", "99"],
        ["solve", "passk", "--samples", "m.csv", "--k", "2,5"],
        ["solve", "passk", "--samples", "m.csv", "--k", "1,x"],
        ["solve", "passk", "--samples", "m.csv", "--k", "1", "--k-max", "2"],
        ["solve", "nosuch", "--samples", "m.csv"],
    ],
)
def test_cli_bad_usage_is_one_line(tmp_path: Path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.csv", "n,c\n4,1\n")
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1
    assert "Traceback" not in captured.err


def test_cli_prints_the_table_and_writes_the_plot(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    base_samples_csv(tmp_path / "base.csv")
    rl_counts_csv(tmp_path / "rl.csv")
    assert main(["solve", "passk", "--samples", "base.csv", "rl.csv"]) == 0
    assert not list(tmp_path.glob("*.p*"))  # no file written without being asked
    assert main(["solve", "passk", "--samples", "base.csv", "rl.csv", "--plot", "passk.png"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()[: len(captured.out.splitlines()) // 2]
    assert lines[0].split()[:4] == ["k", "base", "95%", "CI"]
    assert [line.split()[0] for line in lines[1:6]] == ["1", "2", "4", "8", "16"]
    assert "coverage sets (c > 0; x = solved), most common first:" in lines
    assert "solved by base only: c, f" in lines
    assert (tmp_path / "passk.png").is_file()
    assert (tmp_path / "passk.pdf").is_file()


def test_cli_json_has_stable_keys_and_the_library_numbers(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    model_files(tmp_path)
    argv = ["solve", "passk", "--samples", "base.csv", "rl.csv", "flat.csv", "--n-boot", "300"]
    assert main([*argv, "--ci", "0.8", "--seed", "5", "--json", "--plot", "p.png"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {
        "k",
        "problems",
        "models",
        "files",
        "bootstrap",
        "pass_at_k",
        "pass_at_k_ci",
        "difference",
        "crossing",
        "coverage_sets",
        "per_seed",
        "plot",
    }
    assert set(out["crossing"]["rl"]) == {
        "k_star",
        "bracket",
        "n_crossings",
        "share_crossing",
        "k_star_ci",
    }
    assert set(out["difference"]["flat"]) == {"vs", "estimate", "low", "high"}
    assert set(out["pass_at_k_ci"]["base"]) == {"low", "high"}
    assert out["bootstrap"] == {"n_boot": 300, "ci": 0.8, "seed": 5}
    expected, _ = solve_passk(
        [Path("base.csv"), Path("rl.csv"), Path("flat.csv")],
        plot=Path("p.png"),
        n_boot=300,
        ci=0.8,
        seed=5,
    )
    assert out == to_jsonable(expected)
    assert (tmp_path / "p.png").is_file()


def test_a_time_limit_ring_swallowed_in_a_weakref_callback_rings_again():
    # the first ring lands in a weakref callback, where Python swallows any exception; the
    # alarm rings again and stops the body, and the swallowed ring is not reported
    import time
    import weakref

    from paper_checks.solve import _within

    class Node:
        pass

    def slow_callback(_: object) -> None:
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass

    def body() -> bool:
        with _within(0.05, "reading"):
            node = Node()
            ref = weakref.ref(node, slow_callback)
            del node  # the callback runs here and swallows the first ring
            end = time.monotonic() + 10  # only a later ring ends this loop early
            while time.monotonic() < end:
                pass
        return ref() is None

    with pytest.raises(ValueError, match=r"--time-limit 0\.05 s was reached while reading"):
        body()
