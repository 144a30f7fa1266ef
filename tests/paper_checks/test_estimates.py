"""Estimates before work: the cost of every command that grows with its
options or input is estimated before any work, the dry run prints the right figure, and a run
over its limit is refused in one line that gives the estimate.

- ``run``: one root seed's CPU time (the committed reference) times the root seeds the claim
  runs under, against ``--max-cpu-hours``;
- ``solve passk``: the memory of reading a samples file, from its size and lines, against the
  memory available;
- ``solve online``: the time of Ldim and VC on a class too large for the exact DP, printed
  before they start.
"""

from __future__ import annotations

import re

import pytest

from paper_checks import _inputs
from paper_checks.claims import select_claims
from paper_checks.cli import _plan
from paper_checks.runner import first_look
from tests.paper_checks.test_cli_fuzz import assert_one_line_exit_2, call


def _plan_total(argv: list[str]) -> str:
    code, out, err = call(["run", *argv, "--dry-run"])
    assert code == 0, err
    return out.splitlines()[-1]


@pytest.mark.parametrize("replicates", [1, 7, 1000, 1_000_000])
def test_the_dry_run_scales_with_the_root_seeds(replicates):
    """`--replicates 1000000 --dry-run` said "about 0 s of CPU"."""
    claims = select_claims(["online.invariances", "faster_rcnn.anchor_count"])
    one = {p.claim_id: p for p in _plan(claims, "quick", 1)}
    many = {p.claim_id: p for p in _plan(claims, "quick", replicates)}
    stochastic = {c.id: c for c in claims}
    for claim_id, plan in many.items():
        seeds = first_look(stochastic[claim_id], "quick", replicates)
        expected = seeds if stochastic[claim_id].stochastic else 1
        assert plan.root_seeds == expected
        assert plan.hours == pytest.approx(one[claim_id].hours * expected)
    assert many["faster_rcnn.anchor_count"].root_seeds == 1  # deterministic: one root seed


def test_the_dry_run_names_a_confirmatory_study_and_counts_its_last_look():
    claim = next(c for c in select_claims(["gated_attention", "diffusion"]) if c.studies)
    scale = next(iter(claim.studies))
    (plan,) = _plan([claim], scale, 1)
    assert f"confirmatory study {claim.study_at(scale)}" in plan.note
    assert plan.root_seeds == claim.looks[scale][-1]


def test_the_dry_run_of_a_million_replicates_says_hours():
    line = _plan_total(["online.invariances", "--replicates", "1000000"])
    hours = float(re.search(r"about ([\d.]+) h of CPU", line).group(1))
    assert hours > 24, line  # 10^6 root seeds of about 0.4 CPU-s each


def test_a_run_over_its_cpu_budget_is_refused_with_its_estimate(tmp_path):
    """The real run started a million replicates silently."""
    out = tmp_path / "run"
    line = assert_one_line_exit_2(
        ["run", "online.invariances", "--replicates", "1000000", "--out", out]
    )
    assert "--max-cpu-hours 24" in line
    assert re.search(r"needs about [\d.]+ h of CPU", line)
    assert "online.invariances" in line
    assert not out.exists()  # refused before anything is written


def test_a_run_within_a_raised_budget_is_not_refused_by_it(tmp_path):
    code, _, err = call(
        ["run", "faster_rcnn.anchor_count", "--max-cpu-hours", "0.01", "--out", tmp_path / "r"]
    )
    assert code == 0, err


@pytest.mark.parametrize("text", ["0", "-1", "nan", "1_0"])
def test_the_cpu_budget_is_a_positive_number(text):
    assert "--max-cpu-hours" in assert_one_line_exit_2(
        ["run", "online.invariances", "--max-cpu-hours", text]
    )


@pytest.mark.parametrize(
    ("name", "line"), [("s.csv", "p{i},1\n"), ("s.jsonl", '{{"problem": "p{i}", "correct": 1}}\n')]
)
def test_passk_refuses_a_file_it_cannot_read_in_memory(tmp_path, monkeypatch, name, line):
    """A 10^7-line file took 4.6 GB; a 256 MiB one would need about 14 GB. The estimate comes
    from the file's size and lines, before any row is parsed."""
    path = tmp_path / name
    header = "problem,correct\n" if name.endswith(".csv") else ""
    path.write_text(header + "".join(line.format(i=i) for i in range(20_000)))
    monkeypatch.setattr(_inputs, "available_memory", lambda: 4 * 2**20)  # 4 MiB free
    message = assert_one_line_exit_2(["solve", "passk", "--samples", path])
    assert f"--samples {str(path)!r}" in message
    assert re.search(r"needs about [\d.]+ MiB of memory, more than the 4 MiB available", message)
    monkeypatch.undo()
    code, _, err = call(["solve", "passk", "--samples", path, "--n-boot", "10"])
    assert code == 0, err


def test_a_class_beyond_the_exact_dp_is_bounded_and_says_so(tmp_path, monkeypatch, caplog):
    """`solve online` on a 2000 x 200 class ran for minutes without an estimate. Beyond the
    exact DP no estimate from the size can be honest, so the solve is bounded, and says so
    before it starts; at the bound it prints the certified bounds."""
    import numpy as np

    from paper_checks import solve

    rows = np.random.default_rng(0).integers(0, 2, size=(2000, 200))
    path = tmp_path / "big.txt"
    path.write_text("".join("".join(map(str, r)) + "\n" for r in rows))
    monkeypatch.setattr(solve, "SEARCH_TIME_LIMIT_S", 0.5)
    code, out, err = call(["solve", "online", "--class", path])
    assert code == 0, err
    assert "beyond the exact DP" in caplog.text  # logged on stderr before the work
    assert "stop after 0.5 s with certified bounds" in caplog.text
    assert "time limit 0.5 s reached" in out
    assert "at least" in out
