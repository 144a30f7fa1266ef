"""The paired percentile bootstrap: means, pass@k curves, differences and the crossing k."""

from __future__ import annotations

import numpy as np
import pytest

from sims.bootstrap import (
    bootstrap_means,
    bootstrap_pass_at_k,
    paired_mean_ci,
    percentile_interval,
)
from tests.naive import bootstrap_pass_at_k_naive
from theory import passk


def test_ci_brackets_the_mean_and_is_reproducible():
    diff = np.random.default_rng(0).normal(0.3, 1.0, size=200)
    low, high = paired_mean_ci(diff, np.random.default_rng(1), n_boot=4000, level=0.95)
    assert low < diff.mean() < high
    # the bootstrap s.e. of a mean is s/√n: the 95% width is about 2·1.96·s/√n
    assert high - low == pytest.approx(2 * 1.96 * diff.std() / np.sqrt(diff.size), rel=0.15)
    again = paired_mean_ci(diff, np.random.default_rng(1), n_boot=4000, level=0.95)
    assert again == (low, high)


def test_constant_differences_give_a_point_interval():
    assert paired_mean_ci(np.full(5, 0.25), np.random.default_rng(0), n_boot=100, level=0.9) == (
        0.25,
        0.25,
    )


def test_empty_input_is_rejected():
    with pytest.raises(ValueError, match="diff"):
        paired_mean_ci([], np.random.default_rng(0), n_boot=10, level=0.9)


# ------------------------------------------------------------------------ resampling, vectorised
def test_bootstrap_means_match_one_draw_at_a_time():
    values = np.random.default_rng(2).normal(size=(13, 2, 3))
    rng = np.random.default_rng(5)
    expected = np.array([values[rng.integers(0, 13, size=13)].mean(axis=0) for _ in range(50)])
    for max_cells in (13, 40, 10_000):  # one draw per block, 3 per block, all at once
        got = bootstrap_means(values, np.random.default_rng(5), n_boot=50, max_cells=max_cells)
        assert got.shape == (50, 2, 3)
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"values": [], "n_boot": 5}, "values must hold at least one row"),
        ({"values": [1.0, np.nan], "n_boot": 5}, "values must be finite"),
        ({"values": [1.0], "n_boot": 0}, "n_boot must be an integer ≥ 1"),
        ({"values": [1.0], "n_boot": 2.5}, "n_boot must be an integer ≥ 1"),
    ],
)
def test_bootstrap_means_reject_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bootstrap_means(rng=0, **kwargs)


def test_percentile_interval_rejects_a_bad_level():
    with pytest.raises(ValueError, match=r"level must be a finite real number in \(0, 1\)"):
        percentile_interval([1.0, 2.0], 1.0)


# ---------------------------------------------------------------------------- pass@k, paired
# 9 problems, n = 8, three models: the base solves the most problems, "sharp" is better at k = 1
# and loses at large k, "flat" sits near the base (its draws cross only sometimes).
N_SMALL = np.full(9, 8)
C_SMALL = {
    "base": np.array([1, 2, 0, 3, 1, 8, 0, 1, 2]),
    "sharp": np.array([6, 8, 0, 7, 0, 8, 0, 0, 5]),
    "flat": np.array([1, 3, 0, 3, 1, 8, 0, 0, 2]),
}
KS_SMALL = [1, 2, 4, 8]


def test_bootstrap_pass_at_k_matches_the_slow_oracle():
    c = list(C_SMALL.values())
    n = [N_SMALL] * 3
    fast = bootstrap_pass_at_k(n, c, KS_SMALL, 11, n_boot=400, level=0.9, max_cells=50)
    slow = bootstrap_pass_at_k_naive(n, c, KS_SMALL, np.random.default_rng(11), 400, 0.9)
    for key in ("low", "high", "difference_low", "difference_high"):
        np.testing.assert_allclose(getattr(fast, key), slow[key], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(fast.crossing_share, slow["crossing_share"])
    for m, ci in enumerate(slow["k_star_ci"]):
        np.testing.assert_allclose((fast.k_star_low[m], fast.k_star_high[m]), ci, rtol=1e-12)
    # the numbers themselves (seed 11): sharp crosses the base in most draws, flat in few
    assert fast.crossing_share.tolist() == [0.875, 0.1375]
    np.testing.assert_allclose(
        fast.estimate[:, 0], [c_.mean() / 8 for c_ in c], rtol=1e-12
    )  # pass@1 = mean c/n
    # sharp and base tie exactly at k = 4 (pass@4 sums to 5 for both): a tie, not a sign
    assert abs(fast.difference[0, 2]) < 1e-15
    assert fast.crossing[0].bracket == (2, 8)


def test_bootstrap_pass_at_k_point_estimates_and_shapes():
    c = list(C_SMALL.values())
    boot = bootstrap_pass_at_k([N_SMALL] * 3, c, KS_SMALL, 0, n_boot=200)
    for m, cm in enumerate(c):
        np.testing.assert_allclose(
            boot.estimate[m], passk.pass_at_k_curve(N_SMALL, cm, KS_SMALL), rtol=1e-12
        )
    np.testing.assert_allclose(
        boot.difference, boot.estimate[1:] - boot.estimate[0], rtol=1e-12, atol=1e-15
    )
    assert boot.low.shape == boot.high.shape == (3, 4)
    assert boot.difference_low.shape == (2, 4)
    assert boot.k_star_draws.shape == (200, 2)
    assert np.all(boot.low <= boot.estimate + 1e-12)
    assert np.all(boot.estimate <= boot.high + 1e-12)
    one = bootstrap_pass_at_k([N_SMALL], [c[0]], KS_SMALL, 0, n_boot=200)
    assert one.difference.shape == (0, 4)
    assert one.crossing == ()
    np.testing.assert_array_equal(one.low, boot.low[:1])  # same draws, same base interval


def test_bootstrap_pass_at_k_rejects_unpaired_input():
    with pytest.raises(ValueError, match="one entry per problem"):
        bootstrap_pass_at_k([N_SMALL, N_SMALL[:5]], [C_SMALL["base"], C_SMALL["base"][:5]], [1])
    with pytest.raises(ValueError, match="same number"):
        bootstrap_pass_at_k([N_SMALL], [], [1])


# ------------------------------------------------- coverage on problem sets from a known p law
# p ~ Beta(0.5, 1.5) per problem, RL's q = logit-affine(p; α = 2, β = 1.5) (docs/rlvr.md); the true
# dataset pass@k is E[1 - (1 - p)^k] (closed form / quadrature). SETS problem sets of PROBLEMS
# problems with n samples each; each 95% interval should cover the truth in 95% of the sets. The
# Monte-Carlo SD of a coverage rate over SETS sets is sqrt(.95·.05/SETS) = 0.0154 at 200 sets;
# the test allows 3 SD (0.046).
SETS, PROBLEMS, N_COVER, BOOT = 200, 150, 32, 400
A_COVER, B_COVER, ALPHA_COVER, BETA_COVER = 0.5, 1.5, 2.0, 1.5
KS_COVER = [1, 4, 32]


def test_intervals_cover_the_true_pass_at_k_about_95_percent():
    truth_base = passk.beta_pass_at_k(A_COVER, B_COVER, KS_COVER)
    truth_rl = passk.beta_logit_affine_pass_at_k(
        A_COVER, B_COVER, ALPHA_COVER, BETA_COVER, KS_COVER
    )
    rng = np.random.default_rng(2025)
    n = np.full(PROBLEMS, N_COVER)
    hits_base, hits_diff = np.zeros(3), np.zeros(3)
    for _ in range(SETS):
        p = rng.beta(A_COVER, B_COVER, size=PROBLEMS)
        q = passk.logit_affine(p, ALPHA_COVER, BETA_COVER)
        c = [rng.binomial(N_COVER, p), rng.binomial(N_COVER, q)]
        boot = bootstrap_pass_at_k([n, n], c, KS_COVER, rng, n_boot=BOOT)
        hits_base += (boot.low[0] <= truth_base) & (truth_base <= boot.high[0])
        d = truth_rl - truth_base
        hits_diff += (boot.difference_low[0] <= d) & (d <= boot.difference_high[0])
    tolerance = 3 * np.sqrt(0.95 * 0.05 / SETS)
    np.testing.assert_allclose(hits_base / SETS, 0.95, atol=tolerance)
    np.testing.assert_allclose(hits_diff / SETS, 0.95, atol=tolerance)
    # the measured rates (seed 2025), to see drift
    assert (hits_base / SETS).tolist() == pytest.approx([0.94, 0.945, 0.955])
    assert (hits_diff / SETS).tolist() == pytest.approx([0.955, 0.92, 0.97])
