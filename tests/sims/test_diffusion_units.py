"""The per-unit statistics of the diffusion claims (sims/diffusion_units.py) on records whose
answers are known: exact power laws, a gap that crosses Δ_t at a chosen ψ_n, GD equal to the
flow or off it by a chosen amount."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sims.diffusion_units import (
    TimescaleSweep,
    expected_group_counts,
    gap_curve,
    gap_table,
    gd_plateaus,
    group_counts,
    plateau_error,
    threshold_units,
    unit_exponents,
)
from theory import rmt


def test_group_counts_split_halfway_across_the_gaps():
    bulks = (rmt.Bulk(0.25, 1.0, 2.0), rmt.Bulk(0.25, 4.0, 5.0), rmt.Bulk(0.25, 10.0, 11.0))
    spec = rmt.Spectrum(np.zeros(1), np.zeros(1), 0.5, 0.25, bulks)
    eigs = np.array([1.5, 2.9, 3.1, 4.5, 7.4, 7.6, 10.5, 11.0])
    assert group_counts(eigs, spec) == [2, 3, 3]  # cuts at 3.0 and 7.5
    assert expected_group_counts(spec, 8) == [2, 2, 2, 2]


def _timescale_records(slope_mem: float):
    return [
        {
            "params": {"psi_n": psi},
            "seed_index": unit,
            "result": {
                "tau_gen": 5.0,
                "tau_mem": None if (unit, psi) == (1, 4.0) else 3.0 * psi**slope_mem,
                "score_min": psi**-0.5,
            },
        }
        for unit in (0, 1)
        for psi in (4.0, 8.0, 16.0, 32.0)
    ]


def test_timescale_sweep_fits_each_unit_and_pools_them():
    sweep = TimescaleSweep.of(_timescale_records(1.0))
    assert sweep.doubled.sum() == 7
    units = sweep.measured(
        {"tau_gen_exponent": [0.0], "tau_mem_exponent": [], "score_min_exponent": []},
        sweep.pooled_fits(),
    )
    assert units["tau_mem_exponent"] is None
    fit_gen, fit_mem, fit_min = sweep.pooled_fits()
    assert fit_gen.exponent == pytest.approx(0.0, abs=1e-12)
    assert fit_mem.exponent == pytest.approx(1.0, abs=1e-12)
    assert fit_min.exponent == pytest.approx(-0.5, abs=1e-12)
    assert set(sweep.arrays) == {"psi_n", "tau_gen", "tau_mem", "score_min"}


def test_unit_exponents_fit_each_unit_alone():
    """Two units with exact power laws of different slopes: each gets its own exponent; a unit
    with fewer than three finite τ_mem has no τ_mem exponent."""
    psi = np.array([4.0, 8.0, 16.0, 4.0, 8.0, 16.0])
    unit = np.array([0, 0, 0, 1, 1, 1])
    tau_gen = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 4.0])
    tau_mem = np.array([4.0, 8.0, 16.0, 4.0, np.nan, 16.0])
    got = unit_exponents(psi, unit, tau_gen, tau_mem, psi**-0.5)
    np.testing.assert_allclose(got["tau_gen_exponent"], [0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(got["tau_mem_exponent"], [1.0], atol=1e-12)
    np.testing.assert_allclose(got["score_min_exponent"], [-0.5, -0.5], atol=1e-12)


def test_the_gap_curve_of_a_power_law():
    """gap = 100/ψ_n² in both units: it falls, its tail slope is −2, and it crosses Δ_t = 0.04
    at ψ_n = 50 exactly (log-log interpolation is exact for a power law)."""
    psi_ns = (2, 4, 8, 16, 32, 48, 64)
    psi = np.array(psi_ns, dtype=float)
    records = [
        {"params": {"psi_n": x}, "seed_index": s, "result": {"gap": 100 / x**2, "delta": 0.04}}
        for s in (0, 1)
        for x in psi_ns
    ]
    gaps, delta = gap_table(records, psi_ns, 2)
    assert gaps.shape == (7, 2)
    assert delta == 0.04
    units = threshold_units(psi, gaps, delta, 16, 2.0)
    assert units["tail_slope"] == pytest.approx([-2.0, -2.0], abs=1e-12)
    assert units["max_relative_step"] == pytest.approx([(48 / 64) ** 2 - 1] * 2)
    assert units["max_gap_over_delta_beyond_threshold"] == pytest.approx([100 / 32**2 / 0.04] * 2)
    curve = gap_curve(psi, gaps, delta, 16, 2.0, {4: 100 / 16, 16: 100 / 256})
    assert curve.monotone
    assert not curve.below_delta_beyond_threshold
    assert curve.tail_slope == pytest.approx(-2.0, abs=1e-12)
    assert curve.psi_n_where_gap_equals_delta == pytest.approx(50.0, rel=1e-12)
    assert curve.pilot_max_relative_deviation == pytest.approx(0.0, abs=1e-15)
    assert curve.measured(units)["gap_over_delta"] == pytest.approx(100 / psi**2 / 0.04)


def _gd_record(unit: int, lr_factor: float, offset: float) -> dict:
    """Flow losses with a test minimum at τ = 1, checkpoints at τ = steps (one step = one τ), GD
    equal to the flow interpolated there plus ``offset``."""
    tau = np.geomspace(1e-2, 1e4, 200)
    flow_test = 0.7 - 0.5 * np.exp(-(np.log(tau) ** 2))
    flow_train = 1 - 0.6 * (1 - np.exp(-tau))
    steps = np.geomspace(0.1, 1000.0, 60)
    at = np.log(steps)
    return {
        "seed_index": unit,
        "params": {"psi_n": 2, "lr_factor": lr_factor},
        "result": {
            "delta": 0.1,
            "steps": steps,
            "lr_ref": 1.0,
            "d": 1,
            "p": 1,
            "tau": tau,
            "flow_test": flow_test,
            "flow_train": flow_train,
            "gd_test": np.interp(at, np.log(tau), flow_test) + offset,
            "gd_train": np.interp(at, np.log(tau), flow_train),
        },
    }


def test_gd_plateaus_measure_the_offset_of_gd_from_the_flow():
    plateaus = (("window, small", "window", "window"), ("late, reference", "late", "late"))
    records = [
        _gd_record(0, 1e-5, 0.0),
        _gd_record(0, 1e-2, 0.0),
        _gd_record(1, 1e-5, 0.0),
        _gd_record(1, 1e-2, 0.02),
    ]
    got = gd_plateaus(records, lambda lr, d, p: 1.0, window_lr=1e-5, plateaus=plateaus)
    assert len(got.rows) == 8
    assert set(got.first_draw.values()) == {0.0}
    assert got.worst_per_unit[0] == 0.0
    late = records[3]["result"]
    sel = late["steps"] >= late["steps"].max() / 2
    flow_late = np.interp(np.log(late["steps"][sel]), np.log(late["tau"]), late["flow_test"])
    assert got.worst_per_unit[1] == pytest.approx(0.02 / abs(1 - np.mean(flow_late)))
    assert got.reference_lift == pytest.approx([0.0, 0.2])  # 0.02 over Δ_t = 0.1
    assert [t["phase"] for t in got.traces] == ["window", "late"]
    assert plateau_error(np.array([0.9]), np.array([0.8])) == pytest.approx(0.5)
    assert math.isclose(plateau_error(np.array([0.8]), np.array([0.8])), 0.0)
