"""sims.deep_crl_units: sweep records of the deep-CRL tasks grouped by point and by seed, and the
per-unit statistics, on made-up records whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paper_checks.checks.deep_crl import SPEC_SIGNAL_TABLE
from sims import deep_crl_units as units
from theory.deep_crl import no_residual_log_gain_per_layer

#: Per seed index, the multiplicative deviation of every probe from the table: geometric mean 1.
SEED_FACTORS = (math.exp(-0.1), 1.0, math.exp(0.1))


def table_records(table, factors=SEED_FACTORS, extra=()):
    """Signal records whose probe at every (variant, depth) is the table's value times the seed's
    factor, in a shuffled order (seed index last-to-first); the paper block at ``extra`` depths
    gets the D = 256 values."""
    points = units.signal_points(table, 128, extra)
    records = []
    for i in reversed(range(len(factors))):
        for p in points:
            v, d = p["variant"], p["depth"]
            result = {
                m: by_depth.get(d, by_depth.get(256, 1.0)) * factors[i]
                for m, by_depth in table[v].items()
            }
            records.append({"params": p, "result": result, "seed_index": i})
    return records


def test_mean_se_and_geometric_mean_se():
    assert units.mean_se([1.0, 2.0, 3.0]) == pytest.approx((2.0, 1 / math.sqrt(3)))
    assert units.mean_se([5.0]) == (5.0, 0.0)
    mean, se_log = units.geometric_mean_se([1.0, 100.0])
    assert mean == pytest.approx(10.0)
    assert se_log == pytest.approx(math.log(100) / 2)


def test_by_point_keeps_record_order_and_by_seed_sorts_by_seed_index():
    records = [
        {"params": {"variant": "paper", "depth": 4}, "result": {"x": 2.0}, "seed_index": 1},
        {"params": {"variant": "paper", "depth": 4}, "result": {"x": 1.0}, "seed_index": 0},
        {"params": {"variant": "no_ln", "depth": 4}, "result": {"y": 3.0}, "seed_index": 0},
    ]
    assert units.by_point(records, "x") == {("paper", 4): [2.0, 1.0]}
    np.testing.assert_array_equal(units.by_seed(records, "x")[("paper", 4)], [1.0, 2.0])
    assert units.by_point(records, "y") == {("no_ln", 4): [3.0]}


def test_signal_points_list_the_tabled_depths_then_the_untabled_ones():
    points = units.signal_points(SPEC_SIGNAL_TABLE, 64, extra=(1024,))
    assert points[:4] == [{"variant": "paper", "depth": d, "width": 64} for d in (4, 16, 64, 256)]
    assert {"variant": "no_res_no_ln", "depth": 8, "width": 64} in points
    assert points[-1] == {"variant": "paper", "depth": 1024, "width": 64}
    assert len(points) == 4 * 4 + 3 + 1


def test_signal_statistics_on_records_at_the_table():
    stats = units.signal_statistics(
        table_records(SPEC_SIGNAL_TABLE), SPEC_SIGNAL_TABLE, (), factor=lambda v, d: 2.0
    )
    assert len(stats.rows) == sum(len(b) for ms in SPEC_SIGNAL_TABLE.values() for b in ms.values())
    for row in stats.rows:
        assert row.geo_mean == pytest.approx(row.want, rel=1e-12)
        assert row.se_log == pytest.approx(0.1 / math.sqrt(3))
    assert stats.worst == pytest.approx(0.5)
    np.testing.assert_allclose(stats.rates, math.log(487 / 12) / 192)
    assert stats.rate_theory == no_residual_log_gain_per_layer()
    np.testing.assert_allclose(stats.curve("no_ln", "jacobian_gain"), 0.61)
    assert stats.shapes == pytest.approx(
        {
            "paper_grad_band": math.log(0.24 / 0.19),
            "no_ln_jacobian_band": 0.0,
            "no_ln_trunk_max_dev": 0.0,
            "no_res_jacobian_growth": 487 / 1.3,
            "vanishing_16_over_4": 1e-6,
        },
        abs=1e-12,
    )
    arrays = units.signal_arrays(stats)
    np.testing.assert_allclose(arrays["no_ln.trunk_gain"][:, 0], [4, 16, 64, 256])
    np.testing.assert_allclose(arrays["no_ln.trunk_gain"][0, 1:], SEED_FACTORS[::-1])


def test_signal_statistics_take_the_paper_block_beyond_the_table():
    records = table_records(SPEC_SIGNAL_TABLE, extra=(1024,))
    stats = units.signal_statistics(records, SPEC_SIGNAL_TABLE, (1024,), factor=lambda v, d: 2.0)
    assert stats.deep["grad_ratio"][1024] == pytest.approx(0.24)
    assert set(stats.deep) == {"grad_ratio", "trunk_gain", "jacobian_gain"}


def test_signal_units_are_per_seed_log_ratios_and_shapes():
    got = units.signal_units(table_records(SPEC_SIGNAL_TABLE), SPEC_SIGNAL_TABLE)
    np.testing.assert_allclose(got[units.signal_entry("relu", "grad_ratio", 16)], [-0.1, 0, 0.1])
    np.testing.assert_allclose(got["no_res_no_ln.output_rms.D8"], [-0.1, 0, 0.1], atol=1e-12)
    rate = math.log(487 / 12) / 192
    np.testing.assert_allclose(got["no_res_rate"], rate / no_residual_log_gain_per_layer() - 1)
    np.testing.assert_allclose(got["paper_grad_band"], math.log(0.24 / 0.19))
    np.testing.assert_allclose(got["no_ln_trunk_max_dev"], np.abs(np.array(SEED_FACTORS) - 1))
    np.testing.assert_allclose(got["no_res_jacobian_growth"], math.log(487 / 1.3))
    np.testing.assert_allclose(got["vanishing_16_over_4"], -6.0)


def test_trainability_units_are_paired_differences():
    loss = {
        ("paper", 4): np.array([3.0, 3.1]),
        ("paper", 16): np.array([2.9, 3.15]),
        ("paper", 32): np.array([3.05, 3.0]),
        ("no_ln", 16): np.array([3.5, 3.4]),
    }
    got = units.trainability_units(loss, "paper", ["no_ln"], (4, 16, 32))
    np.testing.assert_allclose(got["no_ln_minus_paper"], [0.6, 0.25])
    np.testing.assert_allclose(got["deeper_minus_d4"], [0.05, 0.05])


def test_success_by_depth_groups_in_sweep_order():
    records = [
        {"params": {"depth": d}, "result": {"final_success": s, "final_time_at_goal": s / 2}}
        for d, s in [(16, 0.9), (4, 0.1), (16, 0.8), (4, 0.2)]
    ]
    got = units.success_by_depth(records)
    assert list(got) == [16, 4]
    np.testing.assert_allclose(got[4], [0.1, 0.2])
    np.testing.assert_allclose(
        units.success_by_depth(records, "final_time_at_goal")[16], [0.45, 0.4]
    )
