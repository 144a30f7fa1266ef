"""Verdicts, CheckResult JSON records, run directories and the JSON conversion they rely on."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paper_checks.decision import Part, Rule
from paper_checks.results import (
    SCHEMA_VERSION,
    TIMING_KEYS,
    CheckResult,
    RunInfo,
    Verdict,
    comparable,
    load_results,
    summary_line,
    update_latest,
    write_claim,
    write_results,
)
from sims._jsonio import dumps, read_json, to_jsonable, write_json_atomic

# ------------------------------------------------------------------------------------ strategies
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
keys = st.sampled_from(["run", "wall_time_s", "a", "b", "measured", "seed", "claims", "x"])
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)


def make_info(**overrides) -> RunInfo:
    fields = {
        "run_id": "r1",
        "created": "2025-01-01T00:00:00+00:00",
        "scale": "quick",
        "seed": 3,
        "scheduler": "processes",
        "workers": 1,
        "backend": "numpy",
        "argv": ["run", "rlvr"],
        "wall_time_s": 1.5,
    }
    return RunInfo(**(fields | overrides))


def make_result(
    claim_id: str = "rlvr.fake_a", verdict: Verdict = Verdict.PASS, **kw
) -> CheckResult:
    fields = {
        "verdict": verdict,
        "summary": "x = 1 (≤ 2)",
        "measured": {"x": 1.0, "n": 3, "ok": True, "curve": [0.1, 0.2]},
        "expected": {"x": 2.0},
        "tolerance": "x ≤ 2",
        "figures": [f"figures/{claim_id}.png", f"figures/{claim_id}.pdf"],
        "claim_id": claim_id,
        "paper": "rlvr",
        "statement": "A statement.",
        "source": "Yue et al. 2025 (arXiv 2504.13837), Fig. 1",
        "provenance": {"seed": 0, "wall_time_s": 0.25, "versions": {"numpy": np.__version__}},
    }
    return CheckResult(**(fields | kw))


def keys_anywhere(payload) -> set[str]:
    if isinstance(payload, dict):
        return set(payload) | set().union(*(keys_anywhere(v) for v in payload.values()))
    if isinstance(payload, list):
        return set().union(*(keys_anywhere(v) for v in payload))
    return set()


def strict_loads(text: str):
    """json.loads that refuses NaN / Infinity tokens (which are not JSON)."""

    def reject(token: str):
        raise AssertionError(f"non-JSON constant {token} in output")

    return json.loads(text, parse_constant=reject)


# --------------------------------------------------------------------------------------- Verdict
def test_verdict_of_maps_booleans_to_pass_and_fail():
    assert Verdict.of(True) is Verdict.PASS
    assert Verdict.of(False) is Verdict.FAIL
    assert Verdict.of(bool(np.True_)) is Verdict.PASS


def test_verdict_values_are_their_names():
    assert [v.value for v in Verdict] == ["PASS", "FAIL", "INCONCLUSIVE", "ERROR", "NOT_RUN"]
    assert Verdict("INCONCLUSIVE") is Verdict.INCONCLUSIVE
    with pytest.raises(ValueError, match="MAYBE"):
        Verdict("MAYBE")


def test_passed_only_for_pass():
    assert make_result(verdict=Verdict.PASS).passed
    for v in (Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.ERROR):
        assert not make_result(verdict=v).passed


# ------------------------------------------------------------------------------ CheckResult JSON
def test_check_result_round_trips_through_json_text():
    original = make_result(error="Traceback ...\nRuntimeError: boom\n", verdict=Verdict.ERROR)
    record = strict_loads(dumps(original.to_json()))
    assert record["verdict"] == "ERROR"
    assert record["arrays"] is None
    assert CheckResult.from_json(record) == original


def test_to_json_names_the_arrays_file_instead_of_the_arrays():
    result = make_result(arrays={"k": np.arange(3)})
    record = result.to_json("rlvr.fake_a.npz")
    assert record["arrays"] == "rlvr.fake_a.npz"
    rebuilt = CheckResult.from_json(record)
    assert rebuilt.arrays == {}
    assert rebuilt.measured == result.measured


def test_to_json_converts_numpy_values_to_numbers():
    result = make_result(
        measured={
            "f": np.float64(0.5),
            "i": np.int64(7),
            "b": np.bool_(True),
            "v": np.array([1.5, 2.5]),
            "m": np.arange(4).reshape(2, 2),
        }
    )
    measured = strict_loads(dumps(result.to_json()))["measured"]
    assert measured == {"f": 0.5, "i": 7, "b": True, "v": [1.5, 2.5], "m": [[0, 1], [2, 3]]}
    assert type(measured["f"]) is float
    assert type(measured["i"]) is int
    assert type(measured["b"]) is bool


measured_values = st.dictionaries(
    st.text(min_size=1, max_size=6),
    json_scalars | st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=5),
    max_size=5,
)


@given(measured=measured_values, expected=measured_values, verdict=st.sampled_from(list(Verdict)))
def test_round_trip_property(measured, expected, verdict):
    original = make_result(verdict=verdict, measured=measured, expected=expected)
    assert CheckResult.from_json(strict_loads(dumps(original.to_json()))) == original


def test_from_json_ignores_unknown_keys():
    record = make_result().to_json() | {"added_in_a_later_schema": 1}
    assert CheckResult.from_json(record) == make_result()


# ------------------------------------------------------------------------------------ comparable
def test_comparable_drops_timing_keys_at_every_depth():
    payload = {
        "run": {"wall_time_s": 3.0, "run_id": "a"},
        "counts": {"PASS": 1},
        "claims": [{"provenance": {"seed": 0, "wall_time_s": 1.2}, "measured": {"x": 1.0}}],
        "wall_time_s": 9.0,
    }
    assert comparable(payload) == {
        "counts": {"PASS": 1},
        "claims": [{"provenance": {"seed": 0}, "measured": {"x": 1.0}}],
    }


@given(json_values)
def test_comparable_property(payload):
    cleaned = comparable(payload)
    assert not keys_anywhere(cleaned) & TIMING_KEYS
    assert comparable(cleaned) == cleaned  # idempotent
    if not keys_anywhere(payload) & TIMING_KEYS:
        assert cleaned == payload


@given(json_values, st.floats(0, 100), st.floats(0, 100))
def test_comparable_equal_when_only_timings_differ(payload, t1, t2):
    a = {"run": {"wall_time_s": t1}, "claims": [{"provenance": {"wall_time_s": t1}, "v": payload}]}
    b = {"run": {"wall_time_s": t2}, "claims": [{"provenance": {"wall_time_s": t2}, "v": payload}]}
    assert comparable(a) == comparable(b)


# ----------------------------------------------------------------------------- run directories
def test_write_results_counts_and_files(tmp_path: Path):
    results = [
        make_result("rlvr.fake_a", Verdict.PASS, arrays={"k": np.arange(5), "m": np.eye(2)}),
        make_result("rlvr.fake_b", Verdict.FAIL),
        make_result("rlvr.fake_c", Verdict.FAIL),
        make_result("rlvr.fake_d", Verdict.ERROR, error="Traceback\n"),
    ]
    info = make_info()
    path = write_results(tmp_path, info, results)
    assert path == tmp_path / "results.json"
    payload = strict_loads(path.read_text(encoding="utf-8"))
    assert payload["schema"] == SCHEMA_VERSION
    assert payload["counts"] == {"PASS": 1, "FAIL": 2, "INCONCLUSIVE": 0, "ERROR": 1, "NOT_RUN": 0}
    assert payload["run"] == asdict(info)
    assert [c["claim_id"] for c in payload["claims"]] == [r.claim_id for r in results]
    for result, record in zip(results, payload["claims"], strict=True):
        assert read_json(tmp_path / f"{result.claim_id}.json") == record
    # the .npz exists only for a claim with arrays, and holds them exactly
    assert payload["claims"][0]["arrays"] == "rlvr.fake_a.npz"
    with np.load(tmp_path / "rlvr.fake_a.npz") as npz:
        assert set(npz.files) == {"k", "m"}
        np.testing.assert_array_equal(npz["k"], np.arange(5))
        np.testing.assert_array_equal(npz["m"], np.eye(2))
    assert not (tmp_path / "rlvr.fake_b.npz").exists()
    assert payload["claims"][1]["arrays"] is None
    # no temporary files are left behind
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_load_results_returns_what_was_written(tmp_path: Path):
    results = [make_result("rlvr.fake_a"), make_result("rlvr.fake_b", Verdict.INCONCLUSIVE)]
    write_results(tmp_path, make_info(), results)
    run, loaded = load_results(tmp_path)
    assert run == asdict(make_info())
    assert loaded == results


def test_load_results_without_results_json_is_a_value_error(tmp_path: Path):
    with pytest.raises(ValueError, match=r"RUN_DIR .*results\.json"):
        load_results(tmp_path)


def test_non_finite_measurements_become_null(tmp_path: Path):
    result = make_result(
        measured={
            "nan": float("nan"),
            "inf": float("inf"),
            "ninf": np.float64(-np.inf),
            "arr": np.array([1.0, np.nan, np.inf]),
        }
    )
    write_claim(tmp_path, result)
    text = (tmp_path / f"{result.claim_id}.json").read_text(encoding="utf-8")
    assert "NaN" not in text
    assert "Infinity" not in text
    measured = strict_loads(text)["measured"]
    assert measured == {"nan": None, "inf": None, "ninf": None, "arr": [1.0, None, None]}


def test_update_latest_is_a_relative_link_that_moves(tmp_path: Path):
    first, second = tmp_path / "r1", tmp_path / "r2"
    for run in (first, second):  # finished runs: what `latest` may point at
        run.mkdir()
        (run / "results.json").write_text("{}")
    update_latest(tmp_path, first)
    link = tmp_path / "latest"
    assert link.is_symlink()
    assert not link.readlink().is_absolute()
    assert link.resolve() == first.resolve()
    update_latest(tmp_path, second)
    assert link.resolve() == second.resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest", "r1", "r2"]


# ---------------------------------------------------------------------------------- to_jsonable
@pytest.mark.parametrize(
    ("value", "expected", "kind"),
    [
        (np.float32(1.5), 1.5, float),
        (np.float64(-0.25), -0.25, float),
        (np.int8(-3), -3, int),
        (np.uint64(2**40), 2**40, int),
        (np.bool_(False), False, bool),
        (np.str_("s"), "s", str),
    ],
)
def test_to_jsonable_numpy_scalars(value, expected, kind):
    out = to_jsonable(value)
    assert out == expected
    assert type(out) is kind


def test_to_jsonable_containers():
    out = to_jsonable(
        {
            1: (np.int32(1), np.float64(2.0)),
            "arr": np.array([[1, 2], [3, 4]], dtype=np.int16),
            "b": np.array([True, False]),
            "path": Path("figures/x.png"),
        }
    )
    assert out == {
        "1": [1, 2.0],
        "arr": [[1, 2], [3, 4]],
        "b": [True, False],
        "path": "figures/x.png",
    }
    assert all(type(v) is int for row in out["arr"] for v in row)


@pytest.mark.parametrize("value", [object(), {1, 2}, 1 + 2j, np.complex128(1j), b"bytes"])
def test_to_jsonable_rejects_unknown_objects(value):
    with pytest.raises(TypeError, match="cannot store"):
        to_jsonable({"measured": [value]})


@given(st.floats())
def test_to_jsonable_floats_are_finite_or_null(x):
    out = to_jsonable(x)
    if math.isfinite(x):
        assert out == x
    else:
        assert out is None
    json.dumps(out, allow_nan=False)


@settings(deadline=None)  # file I/O
@given(json_values)
def test_write_json_atomic_round_trips(tmp_path_factory, payload):
    path = tmp_path_factory.mktemp("json") / "sub" / "x.json"
    assert write_json_atomic(path, payload) == path
    assert read_json(path) == payload
    assert [p.name for p in path.parent.iterdir()] == ["x.json"]


def test_summary_line_is_generated_from_the_numbers_and_the_decision():
    rule = Rule(unit="one draw", parts=(Part("x", "the mean", "greater", 0.0, 0.0),))
    d = rule.decide({"x": [1.0, 1.1, 0.9]})
    numbers = {"a": 0.123456, "b": [1, np.int64(2)], "k*": None}
    reported = {"ci": (0.1, -0.25), "fit": {"alpha": 2.0, "beta": float("nan")}, "so": "fine"}
    text = summary_line(d, numbers, over="3 draws", reported=reported)
    assert text == (
        f"a 0.1235, b 1 / 2, k* none over 3 draws: {d.summary()}; "
        "reported: ci [0.1, -0.25], fit (alpha 2, beta nan), so fine"
    )
    assert summary_line(d) == d.summary()
    assert summary_line(None, {"base pass@1": np.float64(0.5)}) == "base pass@1 0.5"
