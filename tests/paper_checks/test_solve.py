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
from paper_checks.solve import read_sample_counts, read_seed_counts, solve_passk
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
    assert "k_star" not in out
    assert "coverage" not in out
    assert lines[0].split() == ["k", "model"]
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
    assert out["k_star"] is not None
    assert 1 < out["k_star"] < 16
    assert out["k_star"] == passk.crossing_k(ks, expected_base, expected_rl).k_star
    assert out["n_crossings"] == 1

    assert out["coverage"] == {"both": 2, "base_only": 2, "rl_only": 1, "neither": 1}
    assert lines[0].split() == ["k", "base", "rl", "RL", "-", "base"]
    assert "coverage (c > 0): both 2, base_only 2, rl_only 1, neither 1" in lines
    assert "solved by base only: c, f" in lines
    assert any(line.startswith("crossing (base overtakes RL): k* = ") for line in lines)
    deltas = [float(line.split()[3]) for line in lines[1:6]]
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
    assert out["coverage"] == {"both": 1, "base_only": 0, "rl_only": 0, "neither": 1}


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


def test_more_than_two_files_raise(tmp_path: Path):
    paths = [write(tmp_path / f"{i}.csv", "n,c\n4,1\n") for i in range(3)]
    with pytest.raises(ValueError, match=r"^--samples: give one file, or two"):
        solve_passk(paths, plot=None)


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
        ["solve", "passk", "--samples", "m.csv", "m.csv", "m.csv"],
        ["solve", "passk", "--samples", "m.csv", "--k-max", "99"],
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
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["k", "base", "rl", "RL", "-", "base"]
    assert [line.split()[0] for line in lines[1:6]] == ["1", "2", "4", "8", "16"]
    assert "coverage (c > 0): both 2, base_only 2, rl_only 1, neither 1" in lines
    assert "solved by base only: c, f" in lines
    # the default plot path is passk.png in the working directory
    assert (tmp_path / "passk.png").is_file()
    assert (tmp_path / "passk.pdf").is_file()
