"""``paper-checks solve online`` on the user formats of the README."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from paper_checks.cli import main

W_ROWS = ["0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111"]


def test_text_class_prints_the_exact_values_and_a_sequence(tmp_path, capsys):
    path = tmp_path / "w.txt"
    path.write_text("# gadget W\n" + "\n".join(W_ROWS) + "\n")
    assert main(["solve", "online", "--class", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Ldim = 3" in out
    assert "VC = 2" in out
    assert "M_tr = 2" in out
    assert "optimal sequence:" in out


def test_json_output_has_the_documented_keys(tmp_path, capsys):
    path = tmp_path / "w.json"
    path.write_text(
        json.dumps({"hypotheses": [[int(c) for c in r] for r in W_ROWS], "points": list("abcd")})
    )
    assert main(["solve", "online", "--class", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ldim"] == 3
    assert out["vc"] == 2
    assert out["mtr"] == 2
    assert out["mtr_exact"] is True
    assert (out["n_points"], out["n_rows"], out["n_distinct_hypotheses"]) == (4, 8, 8)
    assert out["points"] == list("abcd")
    assert set(out["sequence"]) <= {0, 1, 2, 3}


def test_json_carries_the_littlestone_tree_and_the_vc_witness(tmp_path, capsys):
    """The witnesses --export-tree writes, in --json: every leaf's row realises its path through
    the nodes' points, and the VC witness is shattered (all 2^VC patterns among the rows)."""
    path = tmp_path / "w.txt"
    path.write_text("\n".join(W_ROWS) + "\n")
    assert main(["solve", "online", "--class", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    tree = out["littlestone_tree"]
    assert tree["depth"] == out["ldim"] == 3
    assert set(tree["nodes"]) == {"", "0", "1", "00", "01", "10", "11"}
    assert len(tree["witnesses"]) == 2**3
    for leaf, row in tree["witnesses"].items():
        for i, bit in enumerate(leaf):
            assert W_ROWS[row][tree["nodes"][leaf[:i]]] == bit
    shattered = out["vc_witness"]
    assert len(shattered) == out["vc"] == 2
    assert len({"".join(r[j] for j in shattered) for r in W_ROWS}) == 2**2


def test_duplicate_rows_are_counted_as_rows_and_as_distinct_hypotheses(tmp_path, capsys):
    path = tmp_path / "dup.txt"
    path.write_text("\n".join([*W_ROWS, W_ROWS[0], W_ROWS[4]]) + "\n")
    assert main(["solve", "online", "--class", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n_rows"], out["n_distinct_hypotheses"]) == (10, 8)
    assert out["ldim"] == 3  # repeated rows change nothing
    assert main(["solve", "online", "--class", str(path)]) == 0
    assert capsys.readouterr().out.startswith("class: 10 rows, 8 distinct hypotheses on 4 points")


def test_np_savetxt_and_float_json_classes_solve_like_the_0_1_strings(tmp_path, capsys):
    matrix = np.array([[int(c) for c in r] for r in W_ROWS])
    np.savetxt(tmp_path / "ints.txt", matrix, fmt="%d")
    np.savetxt(tmp_path / "floats.csv", matrix, delimiter=",")
    (tmp_path / "floats.json").write_text(json.dumps(matrix.astype(float).tolist()))
    for name in ("ints.txt", "floats.csv", "floats.json"):
        assert main(["solve", "online", "--class", str(tmp_path / name), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["ldim"], out["vc"], out["mtr"], out["n_rows"]) == (3, 2, 2, 8)


def test_max_n_limits_the_sequence(tmp_path, capsys):
    path = tmp_path / "thresholds.txt"
    path.write_text("\n".join("1" * i + "0" * (7 - i) for i in range(8)) + "\n")
    # thresholds: a sequence of n points forces floor(log2(n + 1)) mistakes (the paper's Thm C.2,
    # tight on thresholds)
    for n, expected in ((2, 1), (3, 2), (7, 3)):
        assert main(["solve", "online", "--class", str(path), "--max-n", str(n), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["mtr"] == expected
        assert len(out["sequence"]) == n


def test_export_tree_writes_graphml(tmp_path, capsys):
    path = tmp_path / "w.txt"
    path.write_text("\n".join(W_ROWS) + "\n")
    tree = tmp_path / "tree.graphml"
    assert main(["solve", "online", "--class", str(path), "--export-tree", str(tree)]) == 0
    G = nx.read_graphml(tree)
    assert G.number_of_nodes() >= 7  # a depth-3 tree has 7 internal nodes


@pytest.mark.parametrize(
    ("content", "message"),
    [("0101\n01x1\n", "line 2: 'x' is not 0 or 1"), ("0101\n011\n", "line 2: has 3 points")],
)
def test_malformed_class_file_exits_2_with_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    assert main(["solve", "online", "--class", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert message in err[0]


def test_missing_class_file_exits_2(tmp_path, capsys):
    assert main(["solve", "online", "--class", str(tmp_path / "none.txt")]) == 2
    assert "--class: no such file" in capsys.readouterr().err


def test_large_class_gets_a_certified_lower_bound_or_a_sandwich(tmp_path, capsys):
    from theory.online.constructions import tree_class

    tree = tmp_path / "tree5.txt"
    tree.write_text("\n".join(tree_class(5).rows()) + "\n")  # 31 points: beyond the CLI's exact DP
    assert main(["solve", "online", "--class", str(tree), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["ldim"], out["mtr"], out["mtr_exact"]) == (5, 5, True)  # lower bound = Ldim

    rng = np.random.default_rng(3)
    wide = tmp_path / "wide.txt"
    wide.write_text(
        "\n".join("".join(map(str, r)) for r in rng.integers(0, 2, size=(40, 30))) + "\n"
    )
    assert main(["solve", "online", "--class", str(wide)]) == 0
    text = capsys.readouterr().out
    if "at least" in text:
        assert "exceed the exact DP" in text
    else:  # the certificate met min(Ldim, floor(log2|H|)): exact by the sandwich
        assert "M_tr = " in text
    assert main(["solve", "online", "--class", str(wide), "--max-n", "3"]) == 2


def test_construct_sequence_candidates_certify_the_pilot_value():
    from sims.online import construct_sequence
    from theory.online.certificates import mtr_lower_bound
    from theory.online.constructions import tree_class

    H = tree_class(6)
    pilot = construct_sequence(H, 0.05, 4).sequence.tolist()
    cert = mtr_lower_bound(H, restarts=0, candidates=[pilot], rng=0)
    assert cert.value >= 5


def test_the_cli_runs_the_exact_dp_up_to_the_library_limit_with_an_estimate():
    from paper_checks.solve import EXACT_POINTS_CLI, dp_seconds_estimate
    from theory.online.mtr import MAX_POINTS

    assert EXACT_POINTS_CLI == MAX_POINTS
    assert dp_seconds_estimate(25, 64) == 47.0  # the bench's calibration point
    assert dp_seconds_estimate(21, 256) == 47.0
    assert dp_seconds_estimate(26, 64) == 2 * dp_seconds_estimate(25, 64)


def test_the_memory_floor_counts_the_dps_tables_and_stays_below_what_it_uses():
    """The floor is the DP's tables at one Pareto vector per point set: 33 bytes per point set,
    9 per stored vector, |H| per vector of two layers. Measured peaks (ru_maxrss over a warm
    process, random classes of 64 hypotheses) lie above it: 19 MiB at 18 points, 305 MiB at 22."""
    from math import comb

    from paper_checks.solve import dp_memory_floor

    assert dp_memory_floor(0, 64) == dp_memory_floor(10, 1) == 0
    # one point: the index and collision tables, and layers 0 and 1 (one vector each)
    assert dp_memory_floor(1, 5) == 33 * 2 + 9 + 2 * 5
    n, h = 20, 64
    assert dp_memory_floor(n, h) >= 33 * 2**n + comb(n + 1, (n + 1) // 2) * h
    assert dp_memory_floor(18, 64) < 19 * 2**20  # measured: 19.1 MiB
    assert dp_memory_floor(22, 64) < 305 * 2**20  # measured: 305 MiB
    assert dp_memory_floor(26, 64) > 3 * 2**30  # the library's limit: several GiB
    assert dp_memory_floor(26, 128) > dp_memory_floor(26, 64)


def _random_class(tmp_path, points: int, hypotheses: int, seed: int = 0):
    from theory.online import ConceptClass

    rng = np.random.default_rng(seed)
    rows = np.unique(rng.integers(0, 2, size=(hypotheses, points)), axis=0)
    assert ConceptClass.from_array(rows).canonical()[0].n_points == points
    path = tmp_path / "class.txt"
    path.write_text("\n".join("".join(map(str, r)) for r in rows) + "\n")
    return path, len(rows)


def test_a_dp_too_large_for_the_memory_available_is_refused_before_it_starts(
    tmp_path, capsys, monkeypatch
):
    import paper_checks._inputs as inputs

    path, _ = _random_class(tmp_path, 26, 64)
    monkeypatch.setattr(inputs, "available_memory", lambda: 2**30)
    assert main(["solve", "online", "--class", str(path), "--time-limit", "600"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert f"--class {str(path)!r}: the exact DP on 26 points and 64 hypotheses needs at" in err[0]
    assert "more than the 1 GiB available" in err[0]
    # M_tr(H, n) solves one DP per n-point subset: a smaller --max-n is the way out
    assert main(["solve", "online", "--class", str(path), "--max-n", "25"]) == 2
    err = capsys.readouterr().err
    assert "each of the 26 subsets that --max-n 25 selects" in err
    assert "or a smaller --max-n" in err


def test_the_time_and_memory_estimates_are_logged_before_the_dp_starts(tmp_path, caplog):
    import logging

    from paper_checks._inputs import _size
    from paper_checks.solve import _announce_dp, dp_memory_floor

    with caplog.at_level(logging.WARNING, logger="paper_checks.solve"):
        _announce_dp(tmp_path / "c.txt", 24, 64, None, 30.0)
    (record,) = caplog.records
    text = record.getMessage()
    assert "the exact DP on 24 points and 64 hypotheses takes roughly 24 s on one core" in text
    assert f"at least {_size(dp_memory_floor(24, 64))} of memory" in text
    assert "(--time-limit 30 s)" in text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="paper_checks.solve"):
        _announce_dp(tmp_path / "c.txt", 12, 64, None, None)  # milliseconds, kilobytes: quiet
    assert not caplog.records


def test_a_small_class_under_a_tight_memory_reading_still_solves(tmp_path, capsys, monkeypatch):
    import paper_checks._inputs as inputs

    path, _ = _random_class(tmp_path, 8, 16)
    monkeypatch.setattr(inputs, "available_memory", lambda: 2**20)  # its floor is kilobytes
    assert main(["solve", "online", "--class", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mtr_exact"] is True
