"""The annealing search for a class below the 2/3 line, and the certification of witnesses."""

from __future__ import annotations

import numpy as np
import pytest

from sims.online_search import (
    START_KINDS,
    certify,
    class_to_codes,
    codes_to_class,
    gap_search_task,
)
from theory.online import constructions


def test_codes_round_trip():
    W = constructions.gadget_w()
    assert codes_to_class(class_to_codes(W), W.n_points).rows() == sorted(
        W.rows(), key=lambda r: int(r[::-1], 2)
    )


@pytest.mark.parametrize("start", START_KINDS)
def test_a_restart_is_seeded_and_reports_its_search_space(start):
    params = {"n_points": 8, "start": start, "steps": 40}
    a = gap_search_task(params, np.random.default_rng(5))
    b = gap_search_task(params, np.random.default_rng(5))
    assert a["best_codes"] == b["best_codes"]
    assert a["pairs"] == b["pairs"]
    assert a["moves"] == 40
    assert 1 <= a["classes_scored"] <= 41
    assert a["cpu_seconds"] >= 0
    assert sum(c for _, _, c in a["pairs"]) == 40
    assert 3 * a["best_mtr"] - 2 * a["best_ldim"] <= a["best_energy"]


def test_a_restart_refuses_more_than_ten_points():
    with pytest.raises(ValueError, match=r"n_points must be in 4\.\.10"):
        gap_search_task({"n_points": 11, "start": "random", "steps": 1}, np.random.default_rng(0))


def test_certify_rejects_the_classes_on_the_line():
    for H in (constructions.gadget_w(), constructions.gadget_power(2)):
        c = certify(H)
        assert not c["certified"]
        assert 3 * c["mtr"] == 2 * c["ldim"]
    assert certify(constructions.gadget_w())["mtr_bruteforce"] == 2


def test_an_ldim_floor_once_reached_is_kept():
    params = {"n_points": 8, "start": "gadget", "steps": 60, "min_ldim": 5}
    result = gap_search_task(params, np.random.default_rng(2))  # every gadget start has Ldim ≥ 5
    assert result["best_ldim"] >= 5
