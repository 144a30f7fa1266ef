"""``paper-checks solve rmt``: the random-feature spectrum as the README documents it."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from paper_checks.cli import main


def test_table_lists_the_delta_and_each_bulk_with_exact_masses(capsys):
    assert main(["solve", "rmt", "--psi-p", "64", "--psi-n", "8", "--t", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "delta at s_t² = 0.00187355: mass 0.859375" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    masses_times_psi_p = [float(r[2]) for r in rows]
    assert masses_times_psi_p == pytest.approx([1.0, 7.0, 1.0], rel=1e-4)
    assert "total mass 1.0000000" in out


def test_json_has_the_documented_keys_and_a_normalised_density(capsys):
    args = ["solve", "rmt", "--psi-p", "8", "--psi-n", "2", "--t", "0.01", "--json"]
    assert main([*args, "--sigma-atoms", "0.5,1.5", "--weights", "1,1", "--grid", "200"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {
        "lambda",
        "density",
        "delta_location",
        "delta_mass",
        "bulks",
        "constants",
        "sample",
    }
    lam, rho = np.array(doc["lambda"]), np.array(doc["density"])
    assert len(lam) == len(rho)
    assert np.all(np.diff(lam) > 0)  # a grid of distinct λ (edges were repeated before)
    assert doc["sample"] is None
    assert np.all(np.isfinite(rho))
    assert np.all(rho >= 0)
    assert doc["delta_mass"] == pytest.approx(1 - 3 / 8)
    assert sum(b["mass"] for b in doc["bulks"]) + doc["delta_mass"] == pytest.approx(1, abs=1e-9)
    assert all(b["lower"] < b["upper"] for b in doc["bulks"])


def test_json_constants_are_the_solver_s_and_let_a_user_sample_u(capsys):
    """a_t, b_t, v_t², s_t² are rf_constants' at σ_x² = Tr Σ/d; with them the documented
    U_GE = G Gᵀ/n + b_t² W Wᵀ/d + s_t² I (G = e^{−t} a_t W X/√d + v_t Ω) is the library's
    sample_ge matrix."""
    from sims.rmt import sample_ge
    from tests import naive
    from theory.rmt import rf_constants

    args = ["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.1", "--json"]
    assert main([*args, "--sigma-atoms", "0.5,1.5", "--sample", "6", "--seed", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    c = doc["constants"]
    want = rf_constants(0.1, sigma_x2=1.0)
    assert (c["t"], c["sigma_x2"]) == (0.1, 1.0)
    assert [c["a_t"], c["b_t"], c["v_t2"], c["s_t2"]] == [want.a, want.b, want.v2, want.s2]
    assert c["s_t2"] == doc["delta_location"]
    sample = sample_ge(6, 4, 2, 0.1, rng=np.random.default_rng(3), spectrum=None)
    W, X, Omega = sample.W, sample.X, sample.Omega
    G = np.exp(-0.1) * c["a_t"] * W @ X / np.sqrt(6) + np.sqrt(c["v_t2"]) * Omega
    U = G @ G.T / 12 + c["b_t"] ** 2 * W @ W.T / 6 + c["s_t2"] * np.eye(24)
    np.testing.assert_allclose(U, naive.ge_matrix_naive(sample), atol=1e-13)
    assert (doc["sample"]["p"], doc["sample"]["n"], doc["sample"]["seed"]) == (24, 12, 3)
    assert doc["sample"]["at_s2"] == 24 - 12 - 6
    assert sum(doc["sample"]["per_bulk"]) + doc["sample"]["at_s2"] == 24


def test_sample_at_the_theory_s_sizes_is_estimated_and_refused_in_one_line(monkeypatch, capsys):
    """ψ_n = 1000 at d = 200 is a p × p problem (about 2 GiB): refused only when memory is
    short, in one line naming --sample with the estimate."""
    import paper_checks._inputs

    monkeypatch.setattr(paper_checks._inputs, "available_memory", lambda: 2**30)
    args = ["solve", "rmt", "--psi-p", "2", "--psi-n", "1000", "--t", "0.1", "--sample", "200"]
    assert _exit_code(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--sample 200 (roughly" in err
    assert "GiB of memory, more than the 1 GiB available" in err


def test_sample_counts_each_group_and_writes_the_figure(tmp_path, capsys):
    plot = tmp_path / "u.png"
    args = ["solve", "rmt", "--psi-p", "64", "--psi-n", "8", "--t", "0.01", "--sample", "20"]
    assert main([*args, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    # p = 1280, n = 160, d = 20: p − n − d at s_t², then d, n − d, d per bulk
    assert "1100 eigenvalues at s_t²; per bulk [20, 140, 20] (theory [20, 140, 20])" in out
    assert plot.is_file()
    assert plot.with_suffix(".pdf").is_file()


def test_the_narrow_bulk_just_above_psi_p_one_is_its_own_row(capsys):
    """Reported: at ψ_p = 1.05, ψ_n = 1000, t = 0.1 the default grid printed one bulk of mass 1;
    the p − d eigenvalues outside the span of W (mass 1 − 1/ψ_p) are a bulk of their own."""
    assert main(["solve", "rmt", "--psi-p", "1.05", "--psi-n", "1000", "--t", "0.1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    bulks = [r for r in rows if r[:1] in (["1"], ["2"], ["3"])]
    assert [float(r[1]) for r in bulks] == pytest.approx([0.05 / 1.05, 1 / 1.05], abs=1e-7)
    assert float(bulks[0][4]) < float(bulks[1][3])  # the gap: upper edge 1 < lower edge 2


def test_a_gap_where_theory_puts_none_is_refused(monkeypatch, capsys):
    from theory import rmt

    monkeypatch.setattr(rmt, "rf_mass_levels", lambda *a: np.array([1.0]))
    assert main(["solve", "rmt", "--psi-p", "4", "--psi-n", "2", "--t", "0.5"]) == 1
    err = capsys.readouterr().err
    assert "a gap between bulks where theory puts none" in err


def _exit_code(argv: list[str]) -> int | str | None:
    """main's return value, or the code it exits with (argparse usage errors exit)."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code


@pytest.mark.parametrize(
    ("extra", "argument"),
    [
        (["--psi-p", "0", "--psi-n", "1", "--t", "0.1"], "--psi-p"),
        (["--psi-p", "4", "--psi-n", "nan", "--t", "0.1"], "--psi-n"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "-1"], "--t"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "0.1", "--sigma-atoms", "1,-2"], "--sigma-atoms"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "0.1", "--weights", "1,1"], "--weights"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "0.1", "--activation", "cube"], "--activation"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "0.1", "--grid", "0"], "--grid"),
        (["--psi-p", "4", "--psi-n", "1", "--t", "0.1", "--grid", "5"], "--grid"),
    ],
)
def test_bad_input_is_one_line_naming_the_argument_and_exit_2(extra, argument, capsys):
    assert _exit_code(["solve", "rmt", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert argument in err


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (1e-3, 100.0, [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]),  # decades
        (0.25, 4.0, [0.5, 1.0, 2.0]),  # about one decade: 1-2-5
        (21.0, 60.0, [30.0, 40.0, 50.0, 60.0]),  # inside one decade: every multiple
        (0.0263, 0.0313, [0.027, 0.0285, 0.03]),  # a sliver: round linear values
        (1e-9, 1e9, [1e-9, 1e-5, 0.1, 1e3, 1e7]),  # thinned to at most 6
    ],
)
def test_log_ticks_are_few_round_values_inside_the_range(lo, hi, expected):
    from paper_checks.plotting import log_ticks

    ticks = log_ticks(lo, hi)
    np.testing.assert_allclose(ticks, expected, rtol=1e-9)
    assert 2 <= len(ticks) <= 6


def _tick_label_boxes(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    return [
        sorted(
            (
                t.get_window_extent(renderer)
                for minor in (False, True)
                for t in ax.get_xticklabels(minor=minor)
                if t.get_visible() and t.get_text()
            ),
            key=lambda box: box.x0,
        )
        for ax in fig.axes
    ]


@pytest.mark.parametrize(
    "point",
    [
        {"psi_p": 4.0, "psi_n": 2.0, "t": 0.5},  # a top bulk inside one decade
        {"psi_p": 64.0, "psi_n": 8.0, "t": 0.01, "atoms": (0.5, 1.5)},  # the README's
        {"psi_p": 16.0, "psi_n": 64.0, "t": 0.1},
        {"psi_p": 1.5, "psi_n": 1.2, "t": 2.0},
    ],
)
def test_the_spectrum_panels_tick_labels_never_overlap(point):
    """The top-bulk panel's log labels used to collide (2×10⁻¹, 3×10⁻¹, 4×10⁻¹ ... on a range
    of about one decade): every panel now has 2 to 6 labels, none overlapping."""
    from paper_checks.plotting import new_figure, plot_spectrum_panels
    from theory.rmt import DataSpectrum, rf_spectrum

    spec = rf_spectrum(
        psi_p=point["psi_p"],
        psi_n=point["psi_n"],
        t=point["t"],
        spectrum=DataSpectrum.of(point.get("atoms", (1.0,))),
        points=400,
    )
    fig, axes = new_figure(ncols=2)
    plot_spectrum_panels(spec, np.array([]), 1, np.atleast_1d(axes))
    for boxes in _tick_label_boxes(fig)[: 2 if len(spec.bulks) > 1 else 1]:
        assert 2 <= len(boxes) <= 6
        for left, right in itertools.pairwise(boxes):
            assert left.x1 < right.x0, "tick labels overlap"
