"""``--scale paper`` for the diffusion claims: the paper's sizes, the streamed GE Gram matrix that
makes Fig. 4's p = 128,000 fit in memory, a killed run that resumes, and the plans."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sims.rmt
from paper_checks.checks import diffusion
from paper_checks.claims import all_claims
from paper_checks.context import Context
from paper_checks.paper_scale import PaperSizes, Refused, plan_for
from sims.diffusion_rf import ge_flow, ge_flow_streamed
from sims.rmt import GESample, ge_eigenvalues_streamed
from theory import rmt


def _dense_oracle(d, psi_p, psi_n, t, seed, row_block, atoms):
    """The same draw as :func:`ge_eigenvalues_streamed` (X, then W and Ω block by block), with
    U = M Mᵀ + s_t² I formed whole and diagonalised densely."""
    rng = np.random.default_rng(seed)
    p, n = round(psi_p * d), round(psi_n * d)
    sigma = rmt.DataSpectrum.of(atoms).diagonal(d)
    c = rmt.rf_constants(t, sigma_x2=float(sigma.mean()))
    X = np.sqrt(sigma)[:, None] * rng.standard_normal((d, n))
    W, Omega = [], []
    for start in range(0, p, row_block):
        rows = min(row_block, p - start)
        W.append(rng.standard_normal((rows, d)))
        Omega.append(rng.standard_normal((rows, n)))
    W, Omega = np.vstack(W), np.vstack(Omega)
    G = c.decay * c.a * W @ X / math.sqrt(d) + math.sqrt(c.v2) * Omega
    U = G @ G.T / n + c.b**2 * W @ W.T / d + c.s2 * np.eye(p)
    return np.linalg.eigvalsh(U), c.s2


@pytest.mark.parametrize(("psi_p", "psi_n", "row_block"), [(8.0, 2.0, 7), (3.0, 4.0, 5)])
def test_streamed_gram_has_the_dense_spectrum_of_the_same_draw(psi_p, psi_n, row_block):
    """p > n + d (delta at s_t²) and p < n + d (no delta), blocks that do not divide p."""
    d, atoms = 6, [0.5, 1.5]
    values, at_floor, p, s2 = ge_eigenvalues_streamed(
        d,
        psi_p,
        psi_n,
        0.01,
        rng=np.random.default_rng(3),
        spectrum=rmt.DataSpectrum.of(atoms),
        row_block=row_block,
    )
    dense, s2_dense = _dense_oracle(d, psi_p, psi_n, 0.01, 3, row_block, atoms)
    assert (p, s2) == (dense.size, s2_dense)
    assert at_floor + values.size == p
    assert at_floor == max(0, p - round((psi_n + 1) * d))
    full = np.sort(np.concatenate([values, np.full(at_floor, s2)]))
    np.testing.assert_allclose(full, dense, rtol=1e-10, atol=1e-12)


def test_streamed_gram_rejects_an_empty_block():
    with pytest.raises(ValueError, match="row_block"):
        ge_eigenvalues_streamed(4, 2.0, 1.0, 0.01, rng=np.random.default_rng(0), row_block=0)


def _same_draw_as_streamed_flow(d, psi_p, psi_n, t, seed, block, atoms):
    """The :class:`sims.rmt.GESample` that :func:`ge_flow_streamed` draws, in its draw order."""
    rng = np.random.default_rng(seed)
    p, n = round(psi_p * d), round(psi_n * d)
    sigma = rmt.DataSpectrum.of(atoms).diagonal(d)
    c = rmt.rf_constants(t, sigma_x2=float(sigma.mean()))
    if n + d <= p:
        X = np.sqrt(sigma)[:, None] * rng.standard_normal((d, n))
        W, Omega = [], []
        for start in range(0, p, block):
            W.append(rng.standard_normal((min(block, p - start), d)))
            Omega.append(rng.standard_normal((W[-1].shape[0], n)))
        W, Omega = np.vstack(W), np.vstack(Omega)
    else:
        W = rng.standard_normal((p, d))
        X = np.sqrt(sigma)[:, None] * rng.standard_normal((d, n))
        Omega = np.hstack([rng.standard_normal((p, min(block, n - s))) for s in range(0, n, block)])
    return GESample(c, W, X, Omega, sigma)


@pytest.mark.parametrize(("psi_p", "psi_n", "block"), [(16.0, 4.0, 9), (16.0, 24.0, 11)])
def test_streamed_flow_equals_the_flow_of_the_same_draw(psi_p, psi_n, block):
    """k = n + d ≤ p (Gram of M) and k > p (M Mᵀ), blocks that do not divide p or n: losses at
    τ = 1, 100 and ∞ as :func:`ge_flow` gives them for the same matrices."""
    d, atoms = 8, [0.5, 1.5]
    params = {"d": d, "psi_p": psi_p, "psi_n": psi_n, "t": 0.01, "sigma_atoms": atoms}
    streamed = ge_flow_streamed(params, np.random.default_rng(5), block)
    sample = _same_draw_as_streamed_flow(d, psi_p, psi_n, 0.01, 5, block, atoms)
    flow = ge_flow(sample)
    tau = [1.0, 100.0, math.inf]
    for loss in ("train_loss", "test_loss"):
        np.testing.assert_allclose(
            getattr(streamed, loss)(tau), getattr(flow, loss)(tau), rtol=1e-9
        )
    np.testing.assert_allclose(
        np.sort(streamed.eigenvalues), np.sort(flow.eigenvalues), rtol=1e-9, atol=1e-13
    )


class _Captured(Exception):
    pass


@pytest.mark.parametrize(
    ("scale", "ks_d", "counts_d", "nonlinear_d", "streamed"),
    [
        ("quick", 100, 50, 100, False),
        ("full", 200, 50, 160, False),
        ("paper", 2000, 2000, 2000, True),
    ],
)
def test_the_fig4_claims_run_at_the_reference_scripts_d_at_paper_scale(
    tmp_path, monkeypatch, scale, ks_d, counts_d, nonlinear_d, streamed
):
    """Paper: d = 2000 with streamed Gram matrices; quick and full keep their sizes and params
    (no ``row_block``, so their sweeps and numbers are unchanged)."""
    seen = []

    def sweep(self, fn, params, **_):
        seen.append(list(params))
        raise _Captured

    monkeypatch.setattr(Context, "sweep", sweep)
    for check in (diffusion.spectrum_matches_theory, diffusion.nonlinear_matches_theory):
        with pytest.raises(_Captured):
            check(Context(scale=scale, seed=0, out_dir=tmp_path, claim_id="diffusion.sizes"))
    (ks, counts), nonlinear = seen
    assert (ks["d"], counts["d"], nonlinear[0]["d"]) == (ks_d, counts_d, nonlinear_d)
    assert (counts["psi_p"], counts["psi_n"]) == (64.0, 8.0)
    assert all(("row_block" in p) == streamed for p in (ks, counts))
    assert all("row_block" not in p for p in nonlinear)


@pytest.mark.parametrize(
    ("scale", "d", "n_seeds"), [("quick", 40, 3), ("full", 80, 3), ("paper", 2000, 3)]
)
def test_memorization_threshold_runs_at_d_2000_at_paper_scale(
    tmp_path, monkeypatch, scale, d, n_seeds
):
    seen = []

    def sweep(self, fn, params, *, n_seeds=1, **_):
        seen.append((list(params), n_seeds))
        raise _Captured

    monkeypatch.setattr(Context, "sweep", sweep)
    with pytest.raises(_Captured):
        diffusion.memorization_threshold(
            Context(scale=scale, seed=0, out_dir=tmp_path, claim_id="diffusion.sizes")
        )
    ((params, seeds),) = seen
    assert seeds == n_seeds
    assert {p["d"] for p in params} == {d}
    assert [p["psi_n"] for p in params] == list(diffusion.THRESHOLD_PSI_N)
    assert {p["psi_p"] for p in params} == {16}
    assert all(("row_block" in p) == (scale == "paper") for p in params)


def _paper_spectrum_run(out_dir):
    ctx = Context(scale="paper", seed=0, out_dir=out_dir, claim_id="diffusion.spectrum_paper")
    return diffusion.spectrum_matches_theory(ctx).to_json()


def test_a_killed_paper_scale_spectrum_run_resumes_task_by_task(tmp_path, monkeypatch):
    """Paper scale shrunk to d = 40: a run killed in its second task keeps the first (cached
    atomically); the rerun computes only the second and writes the same JSON as a run never
    killed."""
    monkeypatch.setattr(diffusion, "PAPER_D", 40)
    monkeypatch.setattr(diffusion, "PAPER_ROW_BLOCK", 300)
    reference = _paper_spectrum_run(tmp_path / "whole")

    streamed = sims.rmt.ge_eigenvalues_streamed
    calls = []

    def killed_in_second_task(*args, **kwargs):
        calls.append(args[:3])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return streamed(*args, **kwargs)

    monkeypatch.setattr(sims.rmt, "ge_eigenvalues_streamed", killed_in_second_task)
    with pytest.raises(KeyboardInterrupt):
        _paper_spectrum_run(tmp_path / "killed")
    assert len(list((tmp_path / "killed").rglob("task-*.json"))) == 1

    calls.clear()
    resumed = _paper_spectrum_run(tmp_path / "killed")
    assert calls == [(40, 64.0, 8.0)]  # only the counts task reran
    assert resumed == reference
    assert reference["measured"]["group_counts"] == reference["expected"]["group_counts"]


def test_every_diffusion_claim_has_its_own_paper_plan():
    """Each claim runs at the paper's sizes (with a measured estimate, or the full run's setting
    being the paper's) or is refused with a quantified reason."""
    claims = [c for c in all_claims() if c.paper == "diffusion"]
    assert claims
    for claim in claims:
        plan = plan_for(claim)
        if isinstance(plan, Refused):
            assert any(ch.isdigit() for ch in plan.reason)
        else:
            assert isinstance(plan, PaperSizes)
            assert plan.same_as_full or (plan.cpu_hours and plan.tasks and "d = 2000" in plan.sizes)
