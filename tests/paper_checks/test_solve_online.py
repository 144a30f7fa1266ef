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
    assert (out["n_points"], out["n_hypotheses"]) == (4, 8)
    assert set(out["sequence"]) <= {0, 1, 2, 3}


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
    assert "does not exist" in capsys.readouterr().err


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
