"""The public API refuses arguments outside its domain at its boundary.

Every public function of the API reference (``paper_checks._public_api``: the ``__all__`` of the
public modules of theory, sims and neural) is either in :data:`DOMAINS`, with a valid call and
the domain of each of its numeric parameters, or in :data:`NOT_FUZZED` with the reason; a test
fails when a public function is in neither (or in both), so a new public function cannot go
unchecked silently.

For each function in :data:`DOMAINS` hypothesis takes the valid call, swaps one parameter for a
value outside its domain (empty, NaN, ±inf, negative, zero where a positive number belongs,
huge, a wrong dtype, a bool, a string, None) and asserts a ValueError whose message names that
parameter. The valid call itself must return a finite answer.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import os
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paper_checks._public_api import PACKAGES, public_modules, public_names
from sims import boxes, passk_sampling
from sims import hivemind as hivemind_sims
from sims.superposition import lr_schedule, sample_batch
from theory import anchors, hivemind, passk, rmt
from theory.online import ConceptClass, census
from theory.online.bounds import paper_length_bound
from theory.online.brackets import perfect_halving_order
from theory.online.certificates import mtr_lower_bound
from theory.online.class_file import parse_class_text
from theory.online.constructions import tree_class
from theory.online.dims import soa_predict
from theory.online.mtr import mtr_by_permutations, transductive_mistake_bound
from theory.online.transductive import transductive_value
from theory.passk import pass_at_k
from theory.rmt import DataSpectrum

#: `make fuzz` (HYPOTHESIS_PROFILE=fuzz) draws its FUZZ_EXAMPLES per function; `make test` 25.
FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"

# ----------------------------------------------------------------------------- domains
# A domain is a strategy of values outside it, given the parameter's valid value.

_NOT_NUMBERS = st.sampled_from([True, False, np.True_, "1", None, b"1", [1], 1j])
_NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan")])


def _integers_outside(minimum: int | None, maximum: int | None = None) -> st.SearchStrategy:
    parts = [
        _NOT_NUMBERS,
        _NON_FINITE,
        st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x)),
    ]
    parts.append(st.sampled_from([1.0, 2.0, 3.0, np.float64(4.0)]))  # whole floats are not counts
    if minimum is not None:
        parts.append(st.integers(max_value=minimum - 1))
        parts.append(st.integers(min_value=-(2**62), max_value=minimum - 1).map(np.int64))
    if maximum is not None:
        parts.append(st.integers(min_value=maximum + 1))
    return st.one_of(parts)


def _reals_outside(
    low: float | None, high: float | None, *, open_low: bool = False, open_high: bool = False
) -> st.SearchStrategy:
    parts = [_NOT_NUMBERS, _NON_FINITE]
    if low is not None:
        parts.append(
            st.floats(
                max_value=low, exclude_max=not open_low, allow_nan=False, allow_infinity=False
            )
        )
    if high is not None:
        parts.append(
            st.floats(
                min_value=high, exclude_min=not open_high, allow_nan=False, allow_infinity=False
            )
        )
    return st.one_of(parts)


def _corrupted(
    valid: Any, *, low: float | None, high: float | None, empty: bool
) -> st.SearchStrategy:
    """The valid array with one entry made non-finite or out of [low, high], or as strings,
    bools, objects, empty (when ``empty`` is outside the domain) or with a dimension too few."""
    arr = np.asarray(valid, dtype=float)

    def with_entry(value: float) -> np.ndarray:
        out = arr.copy()
        out.flat[0] = value
        return out

    bad = [math.nan, math.inf, -math.inf]
    if low is not None:
        bad += [low - 1.0, low - 1e300]
    if high is not None:
        bad += [high + 0.5, 1e300]
    variants = [with_entry(v) for v in bad]
    variants += [arr.astype(str), np.full(arr.shape, "x", dtype=object), arr.astype(bool)]
    if empty:
        variants.append(np.empty((0, *arr.shape[1:])))
    return st.sampled_from(variants)


@dataclasses.dataclass(frozen=True)
class Count:
    """An integer in [minimum, maximum]."""

    minimum: int | None = 1
    maximum: int | None = None

    def outside(self, valid: Any) -> st.SearchStrategy:
        return _integers_outside(self.minimum, self.maximum)


@dataclasses.dataclass(frozen=True)
class Real:
    """A finite real in the interval (closed unless marked open)."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    #: The function takes arrays too, so a list of valid numbers is in the domain.
    arrays: bool = False

    def outside(self, valid: Any) -> st.SearchStrategy:
        bad = _reals_outside(self.low, self.high, open_low=self.open_low, open_high=self.open_high)
        return bad.filter(lambda x: not isinstance(x, list)) if self.arrays else bad


@dataclasses.dataclass(frozen=True)
class Reals:
    """An array of finite reals in [low, high], non-empty unless ``empty``."""

    low: float | None = None
    high: float | None = None
    empty: bool = False

    def outside(self, valid: Any) -> st.SearchStrategy:
        return _corrupted(valid, low=self.low, high=self.high, empty=not self.empty)


@dataclasses.dataclass(frozen=True)
class Counts:
    """An array of whole numbers ≥ 0 (``total``: every row holds at least one)."""

    total: bool = True

    def outside(self, valid: Any) -> st.SearchStrategy:
        arr = np.asarray(valid, dtype=float)
        parts = [_corrupted(valid, low=0.0, high=None, empty=True)]
        half = arr.copy()
        half.flat[0] += 0.5
        parts.append(st.just(half))
        if self.total:
            parts.append(st.just(np.zeros_like(arr)))
        return st.one_of(parts)


@dataclasses.dataclass(frozen=True)
class Choice:
    """One of a few names, each a lowercase ASCII word: outside it, anything but such a word
    (a short one could be a name, "cut" is)."""

    def outside(self, valid: Any) -> st.SearchStrategy:
        text = st.text(max_size=3).filter(
            lambda s: not (s.isascii() and s.isalpha() and s.islower())
        )
        return st.one_of(_NOT_NUMBERS, text, st.just(str(valid).upper() + "?"))


@dataclasses.dataclass(frozen=True)
class Fixed:
    """Any value outside the domain given (its shape depends on the valid call)."""

    values: tuple[Any, ...]

    def outside(self, valid: Any) -> st.SearchStrategy:
        return st.sampled_from(self.values)


#: Scalars of functions that take arrays too (a list is then in the domain).
ARRAY_POSITIVE = Real(0.0, open_low=True, arrays=True)
ARRAY_NONNEGATIVE = Real(0.0, arrays=True)
ARRAY_PROBABILITY = Real(0.0, 1.0, arrays=True)
ARRAY_REAL = Real(arrays=True)
COUNT, SIZE, POSITIVE, NONNEGATIVE = Count(1), Count(0), Real(0.0, open_low=True), Real(0.0)
FRACTION, PROBABILITY, REAL = Real(0.0, 1.0, open_low=True), Real(0.0, 1.0), Real()
REALS, COUNTS = Reals(), Counts()
UNIT_ROWS = np.eye(3, 4)
BOX = np.array([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 15.0, 20.0]])


@dataclasses.dataclass(frozen=True)
class Boxes:
    """Finite ``[x1, y1, x2, y2]`` rows with positive widths, non-empty unless ``empty``."""

    empty: bool = False

    def outside(self, valid: Any) -> st.SearchStrategy:
        flipped = np.asarray(valid, dtype=float)[:, [2, 3, 0, 1]] - 5.0
        parts = [Reals(empty=self.empty).outside(valid), st.just(flipped), st.just(np.ones(3))]
        return st.one_of(parts)


BOXES = Boxes()
#: An anchor grid (H', W', k, 4) of stride 16.
GRID = anchors.anchor_grid(64, 64)
#: Random features W (p, d) and data X (d, n) of the random-feature score model.
FEATURES = np.random.default_rng(1).standard_normal((6, 4))
DATA = np.random.default_rng(2).standard_normal((4, 3))
#: Widths m: non-empty sequences of integers ≥ 1 (``sims.superposition_units``).
WIDTHS = Fixed(([], [0, 8], [8.5], [8.0], ["a"], [True], None, 8, [[8, 64]]))
#: A width split: None (one task) or an integer ≥ 1.
SPLIT = Fixed((0, -1, 1.5, 32.0, True, "32", np.nan, np.int64(0)))
#: Four samples of three features (``sims.superposition``).
SPARSE_BATCH = sample_batch(np.array([0.9, 0.5, 0.1]), 4, np.random.default_rng(0))
#: A spectrum of two bulks, split at 1.5 (the fields ``sims.diffusion_units`` reads).
TWO_BULKS = SimpleNamespace(
    bulks=[SimpleNamespace(lower=0.1, upper=1.0), SimpleNamespace(lower=2.0, upper=4.0)]
)
RNG = np.random.default_rng(0)
#: Dimensions: reals ≥ 1 (arrays allowed).
DIMENSIONS = Fixed((0, -1, 0.5, np.nan, np.inf, "a", None, [1, 0], True))
#: Sample counts n ≥ 1 of pass@k (integers; c ≤ n is checked with c).
N_COUNTS = Fixed(([10.0, 10.0], [0, 10], [1, 10], ["a", "b"], [True, True], [[10, 10, 10]]))
C_COUNTS = Fixed(([11, 0], [-1, 0], [1.5, 0], [np.nan, 0], [True, False]))
BUDGET = Fixed((0, -1, 1.5, np.nan, True, "a", None, [0], [1.5]))
BUDGETS = Fixed(([], [0], [1.5], ["a"], None, [True], [np.float64(2.0)]))
BUDGETS_TO_10 = Fixed((*BUDGETS.values, [11], [2, 11]))
BUDGET_GRID = Fixed(
    ([], [0, 1, 2], [2, 1, 3], [1.5, 2, 3], ["a", "b", "c"], [[1, 2, 4]], [1, 1, 2])
)
#: A range (low, high) of positive reals.
RANGE = Fixed(((2.0, 1.0), (0.0, 1.0), (-1.0, 1.0), (1.0, np.inf), (np.nan, 1.0), (1.0,), "ab"))

#: Feature frequencies p that are not a non-empty 1-D float32 or float64 array of the backend.
BACKEND_FREQUENCIES = Fixed(
    (
        [0.5, 0.5],
        0.5,
        np.float64(0.5),
        None,
        np.full((2, 2), 0.5),
        np.array([0.5], dtype=np.float16),
        np.array([1, 0]),
    )
)


@dataclasses.dataclass(frozen=True)
class Domain:
    """A valid call (keyword arguments) and the domain of the parameters that are fuzzed; the
    others are structural (callables, names of fixed options checked elsewhere)."""

    call: Mapping[str, Any]
    params: Mapping[str, Any]
    #: The answer may hold NaN where the docstring says so (an undefined statistic).
    nan_ok: bool = False
    #: The function takes its one parameter as ``*args``: values are tuples of the arguments.
    star: bool = False

    def __call__(self, function: Callable[..., Any], **changed: Any) -> Any:
        kwargs = {**self.call, **changed}
        if self.star:
            ((args,),) = [kwargs.values()]
            return function(*args)
        return function(**kwargs)


D = Domain
DOMAINS: dict[str, Domain] = {
    # theory.anchors
    "theory.anchors.generate_anchors": D(
        {"base_size": 16, "ratios": (0.5, 1.0), "scales": (8, 16)},
        {"base_size": COUNT, "ratios": Reals(0.0), "scales": Reals(0.0)},
    ),
    "theory.anchors.feature_map_size": D(
        {"image_size": 600, "n_poolings": 4}, {"image_size": COUNT, "n_poolings": SIZE}
    ),
    "theory.anchors.anchor_grid": D(
        {"height": 40, "width": 50, "base_anchors": BOX, "stride": 16, "offset": (1.0, 2.0)},
        {
            "height": COUNT,
            "width": COUNT,
            "base_anchors": BOXES,
            "stride": COUNT,
            "offset": Fixed(((1.0,), (np.nan, 0.0), "ab")),
        },
    ),
    "theory.anchors.inside_image": D(
        {"anchors": BOX, "height": 40, "width": 50, "allowed_border": 0},
        {
            "anchors": Boxes(empty=True),
            "height": COUNT,
            "width": COUNT,
            "allowed_border": REAL,
        },
    ),
    "theory.anchors.anchor_count": D(
        {"height": 600, "width": 1000, "allowed_border": 0},
        {"height": COUNT, "width": COUNT, "allowed_border": REAL},
    ),
    "theory.anchors.box_iou": D(
        {"boxes_a": BOX, "boxes_b": BOX},
        {"boxes_a": Boxes(empty=True), "boxes_b": Boxes(empty=True)},
    ),
    "theory.anchors.label_anchors": D(
        {"anchors": BOX, "gt_boxes": BOX, "positive": 0.7, "negative": 0.3},
        {
            "anchors": Boxes(empty=True),
            "gt_boxes": BOXES,
            "positive": PROBABILITY,
            "negative": Real(0.0, 0.7),
        },
    ),
    "theory.anchors.encode_boxes": D(
        {"anchors": BOX, "boxes": BOX}, {"anchors": Boxes(empty=True), "boxes": Boxes(empty=True)}
    ),
    "theory.anchors.decode_boxes": D(
        {"anchors": BOX, "deltas": np.zeros((2, 4)), "convention": "inverse"},
        {
            "anchors": Boxes(empty=True),
            "deltas": Reals(empty=True),
            "deltas ": Fixed((np.zeros((2, 3)),)),
            "convention": Choice(),
        },
    ),
    "theory.anchors.descending": D(
        {"scores": [0.5, 0.1], "ties": "stable"}, {"scores": Reals(empty=True), "ties": Choice()}
    ),
    "theory.anchors.nms": D(
        {"boxes": BOX, "scores": [0.9, 0.8], "threshold": 0.5, "ties": "stable"},
        {
            "boxes": Boxes(empty=True),
            "scores": Reals(empty=True),
            "scores ": Fixed(([0.9],)),
            "threshold": PROBABILITY,
            "ties": Choice(),
        },
    ),
    "theory.anchors.clip_boxes": D(
        {"boxes": BOX, "height": 10, "width": 12},
        {
            "boxes": Reals(empty=True),
            "boxes ": Fixed(([1.0, 2.0],)),
            "height": COUNT,
            "width": COUNT,
        },
    ),
    "theory.anchors.select_proposals": D(
        {
            "anchors": BOX,
            "deltas": np.zeros((2, 4)),
            "scores": [0.9, 0.8],
            "height": 40,
            "width": 50,
            "pre_nms": 10,
            "post_nms": 5,
            "nms_threshold": 0.7,
            "min_size": 2.0,
            "convention": "inverse",
            "ties": "stable",
        },
        {
            "anchors": BOXES,
            "deltas": Reals(),
            "scores": Reals(),
            "scores ": Fixed(([0.9],)),
            "height": COUNT,
            "width": COUNT,
            "pre_nms": COUNT,
            "post_nms": COUNT,
            "nms_threshold": PROBABILITY,
            "min_size": POSITIVE,
            "convention": Choice(),
            "ties": Choice(),
        },
    ),
    "theory.anchors.best_anchor_iou": D(
        {"boxes": BOX, "anchors": BOX}, {"boxes": Boxes(empty=True), "anchors": BOXES}
    ),
    "theory.anchors.conv_params": D(
        {"in_channels": 3, "out_channels": 4, "kernel": 3},
        {"in_channels": COUNT, "out_channels": COUNT, "kernel": COUNT},
    ),
    "theory.anchors.rpn_output_params": D(
        {"channels": 512, "k": 9}, {"channels": COUNT, "k": COUNT}
    ),
    "theory.anchors.rpn_head_params": D({"channels": 512, "k": 9}, {"channels": COUNT, "k": COUNT}),
    "theory.anchors.multibox_output_params": D(
        {"features": 1536, "n_anchors": 800}, {"features": COUNT, "n_anchors": COUNT}
    ),
    "theory.anchors.sqrt_areas_and_ratios": D({"boxes": BOX}, {"boxes": Boxes(empty=True)}),
    "theory.anchors.square_iou_interval": D(
        {"side": 128.0, "threshold": 0.7}, {"side": POSITIVE, "threshold": FRACTION}
    ),
    "theory.anchors.half_stride_iou": D(
        {"sides": (128.0, 256.0), "offset": 8.0}, {"sides": Reals(0.0), "offset": NONNEGATIVE}
    ),
    # theory.rmt
    "theory.rmt.gaussian_expectation": D(
        {"f": np.cos, "dims": 1, "nodes": 8}, {"dims": COUNT, "nodes": COUNT}
    ),
    "theory.rmt.rf_constants": D(
        {"t": 0.5, "sigma_x2": 1.0, "nodes": 16},
        {"t": POSITIVE, "sigma_x2": POSITIVE, "nodes": COUNT},
    ),
    "theory.rmt.marchenko_pastur_edges": D(
        {"ratio": 0.5, "variance": 2.0}, {"ratio": POSITIVE, "variance": POSITIVE}
    ),
    "theory.rmt.marchenko_pastur_density": D(
        {"x": [0.5, 1.0], "ratio": 0.5, "variance": 2.0},
        {"x": Reals(empty=True), "ratio": POSITIVE, "variance": POSITIVE},
    ),
    "theory.rmt.sample_covariance_spectrum": D(
        {"ratio": 0.5, "spectrum": DataSpectrum.identity(), "points": 64},
        {"ratio": POSITIVE, "points": Count(16)},
    ),
    "theory.rmt.rf_mass_levels": D(
        {"psi_p": 2.0, "psi_n": 0.5}, {"psi_p": POSITIVE, "psi_n": POSITIVE}
    ),
    "theory.rmt.domain_sample": D(
        {"n": 3, "seed": 1, "psi_p": (1.0, 2.0), "psi_n": (1.0, 2.0), "t": (0.1, 1.0)},
        {"n": COUNT, "seed": SIZE, "psi_p": RANGE, "psi_n": RANGE, "t": RANGE},
    ),
    "theory.rmt.domain_scan": D(
        {
            "points": np.array([[4.0, 2.0, 0.5]]),
            "spectrum_points": 200,
            "mass_levels": 40,
            "fine_points": None,
        },
        {
            "points": Reals(0.0, empty=True),
            "points ": Fixed((np.ones(3), np.ones((1, 2)), np.ones((1, 3, 1)), [[4.0, 2.0]])),
            "spectrum_points": Count(16),
            "mass_levels": SIZE,
            "fine_points": Count(16),
        },
    ),
    "theory.rmt.half_unit_in_last_digit": D({"value": 0.08523}, {"value": REAL}),
    "theory.rmt.u_tilde_top_edges": D({"psi_p": 4.0, "t": 0.5}, {"psi_p": POSITIVE, "t": POSITIVE}),
    "theory.rmt.rho1_marchenko_pastur_edges": D(
        {"ratio": np.array([8.0, 16.0]), "t": 0.5}, {"ratio": Reals(0.0, empty=True), "t": POSITIVE}
    ),
    # theory.passk
    "theory.passk.pass_at_k": D(
        {"n": [10, 10], "c": [3, 0], "k": 2}, {"n": N_COUNTS, "c": C_COUNTS, "k": Count(1, 10)}
    ),
    "theory.passk.pass_at_k_plugin": D(
        {"n": [10, 10], "c": [3, 0], "k": 2}, {"n": N_COUNTS, "c": C_COUNTS, "k": Count(1, 10)}
    ),
    "theory.passk.pass_at_k_curve": D(
        {"n": [10, 10], "c": [3, 0], "ks": [1, 2]},
        {"n": N_COUNTS, "c": C_COUNTS, "ks": BUDGETS_TO_10},
    ),
    "theory.passk.pass_at_k_exact": D(
        {"p": [0.2, 0.5], "k": 3}, {"p": Reals(0.0, 1.0, empty=True), "k": BUDGET}
    ),
    "theory.passk.pass_at_k_curve_exact": D(
        {"p": [0.2, 0.5], "ks": [1, 3], "weights": [1.0, 2.0]},
        {
            "p": Reals(0.0, 1.0, empty=True),
            "ks": BUDGETS,
            "weights": Fixed(([-1.0, 2.0], [0.0, 0.0], [np.nan, 1.0], [1.0], "ab")),
        },
    ),
    "theory.passk.estimator_expectation": D(
        {"estimator": pass_at_k, "p": [0.2, 0.5], "n": 5, "k": 2},
        {"p": Reals(0.0, 1.0, empty=True), "n": COUNT, "k": Count(1, 5)},
    ),
    "theory.passk.pool_counts": D(
        {"n": [[5, 5], [5, 5]], "c": [[1, 2], [3, 4]], "axis": 0},
        {
            "n": N_COUNTS,
            "c": Fixed(([[6, 0], [0, 0]], [[-1, 0], [0, 0]], [[0.5, 0], [0, 0]], [1, 2, 3])),
            "axis": Fixed((2, -3, 0.5, "0", True, None)),
        },
    ),
    "theory.passk.counts_from_samples": D(
        {"problem_ids": ["a", "a", "b"], "correct": [True, False, True]},
        {
            "problem_ids": Fixed((["a"], [], [["a", "a", "b"]])),
            "correct": Fixed(([2, 0, 1], [0.5, 1, 1], [True], [np.nan, 1, 1])),
        },
    ),
    "theory.passk.tilt": D(
        {"p": [0.2, 0.5], "beta": 2.0}, {"p": Reals(0.0, 1.0, empty=True), "beta": ARRAY_POSITIVE}
    ),
    "theory.passk.logit_affine": D(
        {"p": [0.2, 0.5], "alpha": 2.0, "beta": 0.5},
        {"p": Reals(0.0, 1.0, empty=True), "alpha": ARRAY_POSITIVE, "beta": ARRAY_REAL},
    ),
    "theory.passk.fit_logit_affine": D(
        {"p": [0.2, 0.5, 0.7], "q": [0.3, 0.6, 0.8]},
        {
            "p": Reals(0.0, 1.0, empty=True),
            "q": Fixed(([0.3, 0.6], [0.3, 0.6, 1.5], [np.nan, 0.6, 0.8], ["a", "b", "c"])),
        },
    ),
    "theory.passk.logit_affine_fixed_point": D(
        {"alpha": 2.0, "beta": 0.1},
        {"alpha": ARRAY_POSITIVE, "alpha ": Fixed((1.0,)), "beta": ARRAY_REAL},
    ),
    "theory.passk.beta_pass_at_k": D(
        {"a": 1.0, "b": 2.0, "k": [1, 4]},
        {"a": ARRAY_POSITIVE, "b": ARRAY_POSITIVE, "k": Reals(1.0, empty=True)},
    ),
    "theory.passk.beta_failure_asymptote": D(
        {"a": 1.0, "b": 2.0, "k": [1, 4]},
        {"a": ARRAY_POSITIVE, "b": ARRAY_POSITIVE, "k": Reals(1.0, empty=True)},
    ),
    "theory.passk.beta_logit_affine_pass_at_k": D(
        {"a": 1.0, "b": 2.0, "alpha": 2.0, "beta": 0.5, "k": [1, 4]},
        {
            "a": ARRAY_POSITIVE,
            "b": ARRAY_POSITIVE,
            "alpha": ARRAY_POSITIVE,
            "beta": ARRAY_REAL,
            "k": Reals(1.0, empty=True),
        },
    ),
    "theory.passk.beta_logit_affine_failure_asymptote": D(
        {"a": 1.0, "b": 2.0, "alpha": 2.0, "beta": 0.5, "k": [1, 4]},
        {
            "a": ARRAY_POSITIVE,
            "b": ARRAY_POSITIVE,
            "alpha": ARRAY_POSITIVE,
            "beta": ARRAY_REAL,
            "k": Reals(1.0, empty=True),
        },
    ),
    "theory.passk.two_type_pass_at_k": D(
        {"k": [1, 4], "frac_improved": 0.3, "p_e": 0.5, "q_e": 0.9, "frac_lost": 0.2, "eps": 0.1},
        {
            "k": Reals(1.0, empty=True),
            "frac_improved": ARRAY_PROBABILITY,
            "p_e": ARRAY_PROBABILITY,
            "q_e": ARRAY_PROBABILITY,
            "frac_lost": ARRAY_PROBABILITY,
            "frac_lost ": Fixed((0.8,)),
            "eps": ARRAY_PROBABILITY,
        },
    ),
    "theory.passk.sign_changes": D(
        {"delta": [0.1, -0.1, 0.2], "scale": [1.0, 1.0, 1.0], "rtol": 1e-10},
        {
            "delta": Reals(empty=True),
            "delta ": Fixed(([[0.1, -0.1]],)),
            "scale": Reals(0.0),
            "rtol": ARRAY_NONNEGATIVE,
        },
    ),
    "theory.passk.crossing_k": D(
        {"ks": [1, 2, 4], "base": [0.1, 0.5, 0.9], "rl": [0.3, 0.5, 0.6], "rtol": 1e-10},
        {
            "ks": BUDGET_GRID,
            "base": REALS,
            "rl": Reals(),
            "rl ": Fixed(([0.3, 0.5],)),
            "rtol": ARRAY_NONNEGATIVE,
        },
    ),
    "theory.passk.crossing_k_many": D(
        {"ks": [1, 2, 4], "base": [[0.1, 0.5, 0.9]], "rl": [[0.3, 0.5, 0.6]], "rtol": 1e-10},
        {
            "ks": BUDGET_GRID,
            "base": Reals(empty=True),
            "rl": Reals(empty=True),
            "rl ": Fixed(([0.3, 0.5],)),
            "rtol": ARRAY_NONNEGATIVE,
        },
    ),
    # theory.significance
    "theory.significance.family_wise_t_critical": D(
        {"dof": 5, "n_tests": 3, "alpha": 0.01},
        {"dof": COUNT, "n_tests": COUNT, "alpha": Real(0.0, 1.0, open_low=True, open_high=True)},
    ),
    "theory.significance.binomial_se_percent": D(
        {"percent": [50.0, 10.0], "n": 100}, {"percent": Reals(0.0, 100.0, empty=True), "n": COUNT}
    ),
    "theory.significance.worst_tolerance_ratio": D(
        {"gates": (([1.0, 2.0], [1.1, 2.0], 0.5),)},
        {
            "gates": Fixed(
                (
                    (),
                    *tuple(
                        (gate,)
                        for gate in (
                            ([np.nan], [1.0], 0.5),
                            ([1.0], [1.0], 0.0),
                            ([1.0], [1.0], -1.0),
                            ([1.0],),
                            ([1.0, 2.0], [1.0, 2.0, 3.0], 1.0),
                            ([], [], 1.0),
                        )
                    ),
                )
            )
        },
        star=True,
    ),
    "theory.significance.curve_z_test": D(
        {
            "samples": np.array([[1.0, 2.0], [1.5, 2.5], [0.5, 2.2]]),
            "theory": [1.0, 2.0],
            "alpha": 0.01,
        },
        {
            "samples": REALS,
            "samples ": Fixed((np.ones((1, 2)), np.ones(3))),
            "theory": Reals(),
            "theory ": Fixed(([1.0, 2.0, 3.0],)),
            "alpha": Real(0.0, 1.0, open_low=True, open_high=True),
        },
    ),
    # theory.superposition
    "theory.superposition.feature_frequencies": D(
        {"n": 10, "alpha": 1.2, "law": "exponential", "density": 0.5, "scale": 400.0},
        {"n": COUNT, "alpha": NONNEGATIVE, "law": Choice(), "density": POSITIVE, "scale": POSITIVE},
    ),
    "theory.superposition.weak_loss": D(
        {"p": [0.5, 0.1], "kept": [True, False]},
        {"p": Reals(0.0, 1.0, empty=True), "kept": Fixed(([True], [0.5, 1.0], [2, 0], ["a", "b"]))},
    ),
    "theory.superposition.weak_ideal_loss": D(
        {"p": [0.5, 0.1], "m": [0, 1, 2]},
        {"p": Reals(0.0, 1.0, empty=True), "m": Fixed(([3], [-1], [0.5], ["a"], [np.nan]))},
    ),
    "theory.superposition.random_overlap_mean": D({"m": [1, 4]}, {"m": DIMENSIONS}),
    "theory.superposition.random_overlap_variance": D({"m": [1, 4]}, {"m": DIMENSIONS}),
    "theory.superposition.welch_bound": D(
        {"n_vectors": 5, "m": 4}, {"n_vectors": Fixed((4, 0, 3.5, np.nan, "a")), "m": DIMENSIONS}
    ),
    "theory.superposition.simplex_etf": D({"m": 3}, {"m": COUNT}),
    "theory.superposition.squared_overlaps": D(
        {"rows": np.eye(3, 2)}, {"rows": Reals(empty=True), "rows ": Fixed((np.ones(3),))}
    ),
    "theory.superposition.one_active_loss_and_grad": D(
        {"W": np.eye(3, 2), "b": [0.0, -0.1, 0.1], "p": [0.5, 0.2, 0.1]},
        {
            "W": REALS,
            "b": Reals(),
            "b ": Fixed(([0.0],)),
            "p": Reals(0.0),
            "p ": Fixed(([0.0, 0.0, 0.0], [0.5])),
        },
    ),
    "theory.superposition.one_active_loss": D(
        {"W": np.eye(3, 2), "b": [0.0, -0.1, 0.1], "p": [0.5, 0.2, 0.1]},
        {
            "W": REALS,
            "b": Reals(),
            "b ": Fixed(([0.0],)),
            "p": Reals(0.0),
            "p ": Fixed(([0.0, 0.0, 0.0], [0.5])),
        },
    ),
    "theory.superposition.chinchilla_width_exponent": D(
        {"width_power": 2.5, "width_power_sigma": 0.03, "alpha_n": 0.35, "alpha_n_sigma": 0.02},
        {
            "width_power": REAL,
            "width_power_sigma": NONNEGATIVE,
            "alpha_n": REAL,
            "alpha_n_sigma": NONNEGATIVE,
        },
    ),
    # theory.deep_crl
    "theory.deep_crl.swish": D({"z": np.array([0.5, -1.0])}, {"z": Reals(empty=True)}),
    "theory.deep_crl.swish_prime": D({"z": np.array([0.5, -1.0])}, {"z": Reals(empty=True)}),
    "theory.deep_crl.gaussian_mean": D({"f": np.cos, "n_nodes": 8}, {"n_nodes": COUNT}),
    "theory.deep_crl.no_residual_log_gain_per_layer": D({}, {}),
    # theory.fits
    "theory.fits.fit_power_law": D(
        {
            "x": [1.0, 2.0, 4.0, 8.0],
            "y": [1.0, 0.5, 0.26, 0.12],
            "window": (1.0, 8.0),
            "n_boot": 10,
            "ci": 0.9,
            "rng": 0,
        },
        {
            "x": REALS,
            "y": Fixed(([1.0, 0.5], [1.0, 0.5, 0.26, -1.0], [np.nan, 0.5, 0.26, 0.12])),
            "window": Fixed(((8.0, 1.0), (np.nan, 8.0), (1.0,))),
            "n_boot": SIZE,
            "ci": Real(0.0, 1.0, open_low=True, open_high=True),
        },
    ),
    # theory.passk_stats
    "theory.passk_stats.estimator_z": D(
        {"p": [0.2, 0.5], "c": [1, 3], "n": 5, "ks": [1, 2]},
        {
            "p": Reals(0.0, 1.0),
            "c": Fixed(([6, 0], [-1, 0], [0.5, 1])),
            "n": Fixed((0, -1, 1.5, True, "a")),
            "ks": BUDGETS,
        },
    ),
    "theory.passk_stats.log2_k_star": D(
        {
            "ks": [1, 2, 4],
            "base": [0.1, 0.5, 0.9],
            "rl": [0.3, 0.5, 0.6],
            "none_ahead": 2.0,
            "none_behind": -1.0,
        },
        {
            "ks": BUDGET_GRID,
            "base": REALS,
            "rl": Reals(),
            "none_ahead": Fixed((np.nan, np.inf, "a", True)),
            "none_behind": Fixed((np.nan, -np.inf, "a", True)),
        },
    ),
    "theory.passk_stats.fit_logit_affine_parts": D(
        {"p": [0.1, 0.2, 0.5, 0.7], "q": [0.15, 0.3, 0.6, 0.8], "min_p": 0.05, "tail_p": 0.3},
        {
            "p": Reals(0.0, 1.0, empty=True),
            "q": Fixed(([0.3, 0.6], [0.3, 0.6, 0.7, 1.5], ["a"] * 4)),
            "min_p": PROBABILITY,
            "tail_p": PROBABILITY,
        },
        nan_ok=True,
    ),
    "theory.passk_stats.accuracy_histogram": D(
        {"c": [0, 3, 10], "n": 10}, {"c": Counts(total=False), "c ": Fixed(([11],)), "n": COUNT}
    ),
    "theory.passk_stats.solved_sets": D(
        {"c_base": [0, 3, 10], "c_rl": [1, 0, 2]},
        {"c_base": Counts(total=False), "c_rl": Counts(total=False), "c_rl ": Fixed(([1, 0],))},
    ),
    "theory.passk_stats.solved_regions": D(
        {"counts": {"base": [0, 3], "rl": [1, 0]}},
        {
            "counts": Fixed(
                (
                    {},
                    {"base": [0, -3]},
                    {"base": [0, 3], "rl": [1]},
                    {"base": [np.nan, 1]},
                    [[0, 3]],
                )
            )
        },
    ),
    # theory.sharpening
    "theory.sharpening.p_distribution_family": D({"points": 10}, {"points": COUNT}),
    "theory.sharpening.pass_at_k_pair": D(
        {"ks": [1, 2, 4], "base": [0.1, 0.5, 0.9], "rl": [0.3, 0.5, 0.6]},
        {"ks": BUDGET_GRID, "base": REALS, "rl": Reals(), "rl ": Fixed(([0.3, 0.5],))},
    ),
    "theory.sharpening.beta_sharpening": D(
        {"a": 0.3, "b": 1.5, "alpha": 2.0, "beta": 2.0, "ks": np.array([1, 2, 4, 8])},
        {
            "a": ARRAY_POSITIVE,
            "b": ARRAY_POSITIVE,
            "alpha": ARRAY_POSITIVE,
            "beta": ARRAY_REAL,
            "ks": BUDGET_GRID,
        },
    ),
    "theory.sharpening.logit_affine_sharpening": D(
        {"p": np.array([0.1, 0.5, 0.9]), "alpha": 2.0, "beta": 0.5, "ks": np.array([1, 2, 4])},
        {"p": Reals(0.0, 1.0), "alpha": ARRAY_POSITIVE, "beta": ARRAY_REAL, "ks": BUDGETS},
    ),
    # theory.online
    "theory.online.bounds.paper_length_bound": D({"d": 4}, {"d": COUNT}),
    "theory.online.bounds.lower_bound_holds": D(
        {"d": 4, "length_bound": paper_length_bound}, {"d": COUNT}
    ),
    "theory.online.bounds.first_d_below_two_thirds": D(
        {"c": 48.0}, {"c": POSITIVE, "c ": Fixed((1e300,))}
    ),
    "theory.online.bounds_symbolic.lower_bound_holds_symbolic": D({"d": 4}, {"d": COUNT}),
    "theory.online.constructions.singletons": D({"k": 3}, {"k": COUNT}),
    "theory.online.constructions.thresholds": D({"k": 3}, {"k": COUNT}),
    "theory.online.constructions.all_functions": D({"k": 3}, {"k": COUNT}),
    "theory.online.constructions.gadget_power": D({"k": 2}, {"k": Count(1, 6)}),
    "theory.online.constructions.node_label": D({"j": 5}, {"j": SIZE}),
    "theory.online.constructions.tree_nodes": D({"d": 3}, {"d": COUNT}),
    "theory.online.constructions.tree_paths": D({"d": 3}, {"d": COUNT}),
    "theory.online.constructions.paper_q": D({"d": 3}, {"d": COUNT}),
    "theory.online.census.census": D({"n_points": 3}, {"n_points": COUNT}),
    # sims.hivemind, sims.mazes
    "sims.hivemind.compositions": D({"total": 3, "parts": 2}, {"total": SIZE, "parts": COUNT}),
    "sims.hivemind.planted_similarity": D(
        {"c": 0.5, "n": 3, "rng": RNG, "dim": 5},
        {"c": PROBABILITY, "n": COUNT, "dim": Count(4)},
    ),
    "sims.hivemind.orthogonal_models": D(
        {"n_models": 2, "per_model": 3, "c": 0.5, "rng": RNG},
        {"n_models": COUNT, "per_model": COUNT, "c": PROBABILITY},
    ),
    "sims.hivemind.orthogonal_models_metrics": D(
        {"n_models": 2, "per_model": 3, "c": 0.5, "rng": RNG},
        {"n_models": Count(2), "per_model": COUNT, "c": PROBABILITY},
    ),
    "sims.hivemind.interchangeable_curves": D(
        {"n_models": 2, "per_model": 3, "n_max": 4, "n_queries": 2, "rng": RNG, "dim": 8},
        {
            "n_models": COUNT,
            "per_model": COUNT,
            "n_max": Count(1, 5),
            "n_queries": COUNT,
            "dim": COUNT,
        },
    ),
    "sims.mazes.serpentine_layout": D(
        {"n_corridors": 3, "length": 4}, {"n_corridors": COUNT, "length": Count(2)}
    ),
    "sims.mazes.successor_measure": D(
        {"p": np.array([[0.5, 0.5], [1.0, 0.0]]), "gamma": 0.9},
        {
            "p": Reals(0.0),
            "p ": Fixed((np.ones((2, 3)), np.ones(2))),
            "gamma": Real(0.0, 1.0, open_high=True),
        },
    ),
    # sims.bootstrap, sims.rmt, sims.rlvr_units
    "sims.bootstrap.percentile_interval": D(
        {"draws": np.arange(10.0), "level": 0.9},
        {"draws": REALS, "level": Real(0.0, 1.0, open_low=True, open_high=True)},
    ),
    "sims.bootstrap.paired_mean_ci": D(
        {"diff": [0.1, -0.2, 0.3], "rng": 0, "n_boot": 20, "level": 0.9},
        {"diff": REALS, "n_boot": COUNT, "level": Real(0.0, 1.0, open_low=True, open_high=True)},
    ),
    "sims.bootstrap.bootstrap_means": D(
        {"values": [0.1, -0.2, 0.3], "rng": 0, "n_boot": 20, "max_cells": 64},
        {"values": REALS, "n_boot": COUNT, "max_cells": COUNT},
    ),
    "sims.bootstrap.bootstrap_pass_at_k": D(
        {
            "n": [[8, 8, 8, 8], [8, 8, 8, 8]],
            "c": [[1, 0, 4, 8], [6, 0, 8, 8]],
            "ks": [1, 8],
            "rng": 0,
            "n_boot": 50,
            "level": 0.9,
            "max_cells": 1024,
        },
        {
            "n": Fixed(
                (
                    [[8, 8, 8, 8]],
                    [],
                    [[8.0] * 4, [8.0] * 4],
                    [[0, 8, 8, 8], [8] * 4],
                    [[8, 8, 8], [8] * 4],
                    [["a"] * 4] * 2,
                    [[True] * 4] * 2,
                    [[], []],
                    [[[8] * 4]] * 2,
                    [[8, 8], [8, 8, 8]],
                    8,
                    None,
                    "ab",
                )
            ),
            "c": Fixed(
                (
                    [[1, 0, 4, 8]],
                    [[1, 0, 4, 9], [6, 0, 8, 8]],
                    [[-1, 0, 4, 8], [6, 0, 8, 8]],
                    [[1.5, 0, 4, 8], [6, 0, 8, 8]],
                    [[np.nan, 0, 4, 8], [6, 0, 8, 8]],
                    [[1, 0, 4], [6, 0, 8]],
                    None,
                    3,
                )
            ),
            "ks": Fixed(
                ([], [0, 8], [1, 9], [2, 1], [1, 1], [1.0, 8.0], [True], ["a"], None, 8, [[1, 8]])
            ),
            "n_boot": COUNT,
            "level": Real(0.0, 1.0, open_low=True, open_high=True),
            "max_cells": COUNT,
        },
        nan_ok=True,  # k* and its interval: NaN when no draw crosses
    ),
    "sims.superposition.sample_batch_two_draws": D(
        {"p": np.array([0.9, 0.5, 0.1]), "batch": 10, "rng": RNG},
        {
            "p": Reals(0.0, 1.0),
            "p ": BACKEND_FREQUENCIES,
            "batch": COUNT,
        },
    ),
    "sims.sweep.param_grid": D(
        {"m": [8, 16], "gamma": [-1.0]},
        {
            "m": Fixed(
                ([], (), range(0), "abc", b"ab", bytearray(b"a"), 3, None, {1, 2}, {"a": 1})
            ),
            "gamma": Fixed(([], "x", 0.5, np.array([1.0]))),
        },
    ),
    "sims.sweep.make_executor": D(
        {"workers": 1, "scheduler": "processes"}, {"workers": COUNT, "scheduler": Choice()}
    ),
    "sims.rmt.ge_sample_cost": D(
        {"d": 8, "psi_p": 2.0, "psi_n": 0.5}, {"d": COUNT, "psi_p": POSITIVE, "psi_n": POSITIVE}
    ),
    "sims.rmt.sample_ge": D(
        {"d": 4, "psi_p": 2.0, "psi_n": 1.5, "t": 0.5, "rng": RNG},
        {"d": COUNT, "psi_p": POSITIVE, "psi_n": POSITIVE, "t": POSITIVE},
    ),
    "sims.rlvr_units.exact_curve": D(
        {"p": np.array([0.2, 0.5]), "ks": np.array([1, 4])},
        {"p": Reals(0.0, 1.0), "ks": BUDGETS},
    ),
    "theory.sharpening.two_type_sharpening": D(
        {
            "ks": np.array([1, 2, 4]),
            "frac_improved": 0.3,
            "p_e": 0.5,
            "q_e": 0.9,
            "frac_lost": 0.2,
            "eps": 0.1,
        },
        {"ks": BUDGET_GRID, "frac_improved": ARRAY_PROBABILITY, "eps": ARRAY_PROBABILITY},
    ),
    "theory.rmt.rf_spectrum": D(
        {"psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "points": 64},
        {"psi_p": POSITIVE, "psi_n": POSITIVE, "t": POSITIVE, "points": Count(16)},
    ),
    "theory.online.constructions.node_index": D(
        {"label": "010"}, {"label": Fixed(("012", 3, None, b"01"))}
    ),
    "theory.online.constructions.tree_class": D(
        {"d": 2, "q": 0.5, "rng": 0},
        {"d": COUNT, "q": Fixed((-0.1, 1.5, np.nan, True, "half", None))},
    ),
    "theory.online.census.order_values": D({"n_points": 2}, {"n_points": Count(1, 4)}),
    "theory.online.census.census5_chunk": D(
        {"chunk": 3, "n_chunks": 2**20},
        {"chunk": Count(0, 2**20 - 1), "n_chunks": Fixed((0, 3, -2, 2.0, True, 2**33))},
    ),
    "theory.online.census.census5": D(
        {"chunks": [3], "n_chunks": 2**20},
        {
            "chunks": Fixed(
                (
                    [2**20],
                    [-1],
                    [1.5],
                    [True],
                    [np.float64(3.0)],
                    [None],
                    [[3]],
                    [3, 3],
                    "ab",
                    b"\x03",
                    3,
                    np.int64(3),
                )
            ),
            "n_chunks": Fixed((0, 3, -2, 2.0, True, 2**33, None, "a", np.float64(4.0))),
        },
    ),
    "theory.online.bounds.lower_bound_scan": D({"d_max": 1}, {"d_max": COUNT}),
    # neural
    "neural.rpn.rpn_numel_counts": D({"channels": 8, "k": 3}, {"channels": COUNT, "k": COUNT}),
    "theory.rmt.rf_stieltjes": D(
        {"lam": [0.5, 1.0], "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "eta": 1e-3, "x_floor": 1e-3},
        {
            "lam": REALS,
            "psi_p": POSITIVE,
            "psi_n": POSITIVE,
            "t": POSITIVE,
            "eta": Reals(0.0),
            "eta ": Fixed((0.0, -1.0)),
            "x_floor": POSITIVE,
        },
    ),
    "theory.rmt.sample_covariance_stieltjes": D(
        {"lam": [0.5, 1.0], "ratio": 0.5, "spectrum": DataSpectrum.identity(), "eta": 1e-3},
        {"lam": REALS, "ratio": POSITIVE, "eta": Reals(0.0), "eta ": Fixed((0.0, -1.0))},
    ),
    "theory.rmt.rf_density_per_point": D(
        {"lam": [1.0], "psi_p": 2.0, "psi_n": 0.5, "t": 0.5},
        {"lam": REALS, "psi_p": POSITIVE, "psi_n": POSITIVE, "t": POSITIVE},
    ),
    "sims.passk_sampling.count_histograms": D(
        {"p": [0.2, 0.5], "n": 4, "reps": 10, "rng": 0},
        {"p": Reals(0.0, 1.0, empty=True), "n": COUNT, "reps": COUNT},
    ),
    "theory.online.certificates.tree_order_floor": D({"ldim": 4}, {"ldim": SIZE}),
    "sims.passk_sampling.histogram_tasks": D(
        {"p": [0.2, 0.5], "n": 4, "reps": 10, "chunks": 2},
        {"n": COUNT, "reps": COUNT, "chunks": Count(1, 10)},
    ),
    "sims.superposition_units.simplex_etf_gaps": D(
        {"widths": [2, 3]}, {"widths": Fixed(([], [0, 3], [2.5], ["a"], [True], 3, [[2, 3]]))}
    ),
    "sims.hivemind.cross_query_similarities": D(
        {"per_query": [UNIT_ROWS, UNIT_ROWS], "n_pairs": 4, "rng": 0},
        {"per_query": Fixed(([UNIT_ROWS],)), "n_pairs": SIZE},
    ),
    "sims.rlvr_toy.base_learned": D(
        {"base_pass1": 0.5, "chance_pass1": 0.1, "margin": 0.05},
        {"base_pass1": PROBABILITY, "chance_pass1": PROBABILITY, "margin": NONNEGATIVE},
    ),
    "sims.rlvr_units.kl_large_k_reading": D(
        {"low": -0.1, "high": 0.2},
        {"low": REAL, "high": Fixed((-0.2, np.nan, np.inf, "a", None, True))},
    ),
    "theory.hivemind.inter_model_matrix": D(
        {"groups": [[UNIT_ROWS, UNIT_ROWS[:2]], [None, UNIT_ROWS]], "include_self_pairs": False},
        {"groups": Fixed(([], [[np.full((2, 3), np.nan)]], [[np.ones(3)]], [[np.array([["a"]])]]))},
    ),
    "sims.mazes.sample_future_pairs": D(
        {"m": np.array([[0.5, 0.5], [1.0, 0.0]]), "n_pairs": 5, "rng": RNG},
        {"m": Reals(0.0), "m ": Fixed((np.ones((2, 3)),)), "n_pairs": SIZE},
    ),
    # theory.hivemind
    "theory.hivemind.normalize_rows": D(
        {"vectors": np.ones((2, 3))}, {"vectors": Reals(empty=True)}
    ),
    "theory.hivemind.mean_pairwise_similarity": D({"unit": UNIT_ROWS}, {"unit": REALS}),
    "theory.hivemind.mean_similarity_over_pairs": D({"unit": UNIT_ROWS}, {"unit": REALS}),
    "theory.hivemind.similarity_rounding_bound": D(
        {"n": 3, "dim": 2}, {"n": Count(2), "dim": COUNT}
    ),
    "theory.hivemind.shares_above": D(
        {"values": [0.1, 0.9], "cutoffs": [0.5]}, {"values": REALS, "cutoffs": Reals(empty=True)}
    ),
    "theory.hivemind.similarity_histogram": D(
        {"values": [0.1, 0.9], "bins": 4}, {"values": Reals(empty=True), "bins": COUNT}
    ),
    "theory.hivemind.tie_ranks": D(
        {"values": [0.1, 0.2], "tolerance": 1e-9},
        {"values": Reals(empty=True), "tolerance": POSITIVE},
    ),
    "theory.hivemind.distinct_model_curve": D(
        {"unit": UNIT_ROWS, "models": [0, 0, 1], "n_max": 2},
        {"unit": REALS, "models": Fixed(([0, 1], [], [[0, 0, 1]])), "n_max": Count(1, 2)},
    ),
    "theory.hivemind.interchangeable_curve": D(
        {"per_model": [2, 3], "n_max": 4},
        {
            "per_model": Fixed(([], [0, 3], [-1, 3], [2.5, 3], [True, 3], "23", [[2, 3]])),
            "n_max": Count(1, 4),
        },
    ),
    "theory.hivemind.disjoint_curve": D(
        {"per_model": 2, "n_max": 5}, {"per_model": COUNT, "n_max": COUNT}
    ),
    "theory.hivemind.orthogonal_models_exact": D(
        {"c": 0.5, "per_model": 4}, {"c": PROBABILITY, "per_model": COUNT}
    ),
    "theory.hivemind.paraphrase_split": D(
        {"unit": UNIT_ROWS, "topic": [0, 0, 1]},
        {"unit": Reals(empty=True), "topic": Fixed(([0, 1], [[0, 0, 1]]))},
    ),
    "theory.hivemind.label_counts": D(
        {"labels": [1, 2, 2], "label_set": (1, 2, 3)},
        {"labels": Fixed(([0], [np.nan], [1.5], ["a"])), "label_set": Fixed(((),))},
    ),
    "theory.hivemind.entropy_bits": D({"counts": [[5, 0, 1], [1, 1, 1]]}, {"counts": COUNTS}),
    "theory.hivemind.gini_impurity": D({"counts": [[5, 0, 1], [1, 1, 1]]}, {"counts": COUNTS}),
    "theory.hivemind.p_disagree": D(
        {"counts": [[5, 0, 1, 2, 2]]},
        {"counts": Counts(), "counts ": Fixed(([[1, 2, 3]],))},
    ),
    "theory.hivemind.item_kappa": D({"counts": [[5, 0, 1], [1, 1, 1]]}, {"counts": Counts()}),
    "theory.hivemind.spearman": D(
        {"x": [1.0, 2.0, 3.0], "y": [1.0, 3.0, 2.0]},
        {"x": REALS, "y": Fixed(([1.0, 2.0], [np.nan, 1.0, 2.0], [], ["a", "b", "c"]))},
    ),
    "theory.hivemind.pearson": D(
        {"x": [1.0, 2.0, 3.0], "y": [1.0, 3.0, 2.0]},
        {"x": REALS, "y": Fixed(([1.0, 2.0], [np.inf, 1.0, 2.0], [], ["a", "b", "c"]))},
    ),
    "theory.hivemind.tukey_subset": D(
        {"values": [1.0, 2.0, 3.0, 10.0], "k": 1.5}, {"values": REALS, "k": NONNEGATIVE}
    ),
    "theory.hivemind.top_fraction_subset": D(
        {"values": [1.0, 2.0, 3.0, 10.0], "fraction": 0.5, "ties": "cut"},
        {"values": Reals(empty=True), "fraction": FRACTION, "ties": Choice()},
    ),
    # neural.lm_data, neural.attention_metrics, theory.online.constructions
    "neural.lm_data.text_batch": D(
        {
            "data": np.frombuffer(b"hello world", dtype=np.uint8),
            "batch": 2,
            "seq_len": 4,
            "rng": RNG,
        },
        {
            "data": Fixed(
                (np.arange(11.0), np.zeros((2, 6), np.uint8), b"hello world", "hello", None, [1, 2])
            ),
            "batch": COUNT,
            "seq_len": Count(2, 11),
        },
    ),
    "neural.lm_data.text_split": D(
        {"split": "val", "held_out": 0.1},
        {
            "split": Fixed(("test", "VAL", "", None, 1, b"val")),
            "held_out": Real(0.0, 1.0, open_low=True, open_high=True),
        },
    ),
    "neural.attention_metrics.uniform_first_token_weight": D(
        {"seq_len": 64}, {"seq_len": Count(2)}
    ),
    "theory.online.constructions.node_depth": D({"j": 5}, {"j": SIZE}),
    # sims.boxes
    "sims.boxes.random_boxes": D(
        {
            "n": 3,
            "side_range": (32.0, 64.0),
            "aspect_range": (0.5, 2.0),
            "image": (600, 1000),
            "rng": 0,
        },
        {
            "n": SIZE,
            "side_range": RANGE,
            "aspect_range": RANGE,
            "image": Fixed(((600,), (0, 1000), (600.0, 1000), (True, 1000), "ab", None, (6, 1, 3))),
        },
    ),
    "sims.boxes.best_iou_per_band": D(
        {"anchors": BOX, "bands": [(8.0, 16.0)], "n": 5, "rng": {(8.0, 16.0): RNG}},
        {
            "anchors": BOXES,
            "bands": Fixed(([], [(2.0, 1.0)], [(0.0, 1.0)], [(np.nan, 1.0)], [(1.0,)], "ab", None)),
            "n": SIZE,
        },
    ),
    "sims.boxes.shift_response": D(
        {
            "anchors": GRID,
            "objects": np.array([[10.0, 10.0, 40.0, 40.0]]),
            "multibox": anchors.generate_anchors() + 100.0,
            "shifts": np.array([0, 8, 16]),
            "stride": 16,
        },
        {
            "anchors": Reals(),
            "anchors ": Fixed((BOX,)),
            "objects": BOXES,
            "multibox": BOXES,
            "shifts": Fixed(
                ([], [8, 16], [0, 8.5], [0, -8], [0, 64], [[0, 8]], ["a"], [0, np.nan])
            ),
            "stride": COUNT,
        },
    ),
    # sims.deep_crl_units
    "sims.deep_crl_units.mean_se": D(
        {"values": [1.0, 2.0, 3.0]}, {"values": REALS, "values ": Fixed(([[1.0, 2.0]],))}
    ),
    "sims.deep_crl_units.geometric_mean_se": D(
        {"values": [1.0, 100.0]},
        {"values": Reals(0.0), "values ": Fixed(([0.0, 1.0], [[1.0, 2.0]]))},
    ),
    # sims.diffusion_rf, sims.diffusion_units
    "sims.diffusion_rf.dense_flow": D(
        {
            "U": 2.0 * np.eye(3),
            "V": np.ones((3, 2)),
            "U_test": np.eye(3),
            "V_test": np.ones((3, 2)),
            "delta": 0.5,
            "inv_sigma_t_mean": 1.0,
        },
        {
            "U": REALS,
            "U ": Fixed((np.eye(2), np.ones(3))),
            "V": REALS,
            "V ": Fixed((np.ones(3),)),
            "U_test": REALS,
            "U_test ": Fixed((np.eye(2),)),
            "V_test": REALS,
            "V_test ": Fixed((np.ones((3, 3)),)),
            "delta": Real(0.0, 1.0, open_low=True),
            "inv_sigma_t_mean": POSITIVE,
        },
    ),
    "sims.diffusion_rf.dsm_loss": D(
        {"B": np.ones((2, 3)), "U": np.eye(3), "V": np.zeros((3, 2)), "delta": 0.5},
        {
            "B": REALS,
            "B ": Fixed((np.ones(3),)),
            "U": REALS,
            "U ": Fixed((np.eye(2),)),
            "V": REALS,
            "V ": Fixed((np.zeros((2, 3)),)),
            "delta": Real(0.0, 1.0, open_low=True),
        },
    ),
    "sims.diffusion_rf.noise_averaged_features": D(
        {"W": FEATURES, "X": DATA, "t": 0.1, "order": 8, "nodes": 16},
        {
            "W": REALS,
            "X": REALS,
            "X ": Fixed((DATA.T,)),
            "t": POSITIVE,
            "order": SIZE,
            "nodes": COUNT,
        },
    ),
    "sims.diffusion_rf.population_features": D(
        {"W": FEATURES, "sigma_diag": np.ones(4), "t": 0.1, "order": 20, "nodes": 40},
        {
            "W": REALS,
            "sigma_diag": Reals(0.0),
            "sigma_diag ": Fixed((np.ones(3), np.ones((4, 1)))),
            "t": POSITIVE,
            "order": SIZE,
            "nodes": COUNT,
        },
    ),
    "sims.diffusion_rf.gd_fresh_noise": D(
        {"W": FEATURES, "X": DATA, "t": 0.1, "lr": 1.0, "checkpoints": [1, 3], "rng": RNG},
        {
            "W": REALS,
            "X": REALS,
            "X ": Fixed((DATA.T,)),
            "t": POSITIVE,
            "lr": POSITIVE,
            "checkpoints": Fixed(
                ([], [3, 1], [1, 1], [1.5, 3], [-1, 3], ["a"], [[1, 3]], None, [np.nan])
            ),
        },
    ),
    "sims.diffusion_units.group_counts": D(
        {"eigs": np.array([0.2, 0.5, 1.2, 3.0]), "spec": TWO_BULKS},
        {"eigs": Reals(empty=True), "eigs ": Fixed((np.ones((2, 2)),))},
    ),
    "sims.diffusion_units.plateau_error": D(
        {"gd": [0.9, 0.8], "flow": [0.8, 0.8]},
        {
            "gd": REALS,
            "gd ": Fixed(([0.9],)),
            "flow": REALS,
            "flow ": Fixed(([1.0, 1.0], [[0.8, 0.8]])),
        },
    ),
    # sims.passk_sampling, sims.rlvr_toy
    "sims.passk_sampling.plus_minus_plus": D(
        {"p": np.linspace(0.05, 0.95, 6), "w": np.full(6, 1 / 6), "rng": RNG, "signs": (1, -1, 1)},
        {
            "p": Reals(0.0, 1.0),
            "p ": Fixed((np.array([0.9, 0.1, 0.5]), np.array([0.1, 0.5]), [0.1, 0.2, 0.3])),
            "w": Reals(0.0),
            "w ": Fixed((np.ones(5),)),
            "signs": Fixed(((), (1, 0, 1), (1, 2), "+-+", None, (1.5, -1), [[1, -1]])),
        },
    ),
    "sims.rlvr_toy.group_advantages": D(
        {"rewards": np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])},
        {"rewards": REALS, "rewards ": Fixed((np.ones(3), [[1.0, 0.0]]))},
    ),
    "sims.rlvr_toy.sample_counts": D(
        {"p": np.array([0.0, 0.5, 1.0]), "n": 10, "rng": RNG},
        {"p": REALS, "p ": Fixed((np.ones((2, 2)),)), "n": COUNT},
    ),
    # sims.superposition
    "sims.superposition.sample_batch": D(
        {"p": np.array([0.9, 0.5, 0.1]), "batch": 10, "rng": RNG},
        {"p": Reals(0.0, 1.0), "p ": BACKEND_FREQUENCIES, "batch": COUNT},
    ),
    "sims.superposition.loss_and_grad": D(
        {
            "W": np.stack([np.eye(3)[:, :2], np.zeros((3, 2))]),
            "b": np.zeros((2, 3)),
            "batch": SPARSE_BATCH,
        },
        {
            "W": Fixed(
                (
                    np.ones((3, 2)),
                    np.ones((2, 4, 2)),
                    np.ones((2, 3, 2), dtype=int),
                    [[[1.0] * 2] * 3] * 2,
                    "W",
                    None,
                )
            ),
            "b": Fixed((np.zeros((2, 4)), np.zeros(3), np.zeros((2, 3), np.float32), None)),
            "batch": Fixed((None, "a", np.ones((4, 3)))),
        },
    ),
    "sims.superposition.lr_schedule": D(
        {"step": 3, "steps": 10, "peak": 1.0, "warmup": 3},
        {"step": Count(0, 9), "steps": Count(4), "peak": POSITIVE, "warmup": SIZE},
    ),
    # sims.rmt, sims.superposition_units
    "sims.rmt.stream_ge": D(
        {"d": 8, "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "rng": RNG, "row_block": 4},
        {"d": COUNT, "psi_p": POSITIVE, "psi_n": POSITIVE, "t": POSITIVE, "row_block": COUNT},
    ),
    "sims.rmt.ge_eigenvalues_streamed": D(
        {"d": 8, "psi_p": 2.0, "psi_n": 0.5, "t": 0.5, "rng": RNG, "row_block": 4},
        {"d": COUNT, "psi_p": POSITIVE, "psi_n": POSITIVE, "t": POSITIVE, "row_block": COUNT},
    ),
    "sims.superposition_units.eq8_monte_carlo": D(
        {"rng": RNG, "samples": 200}, {"samples": Count(20)}
    ),
    "sims.superposition_units.ladder_tasks": D(
        {"widths": [8, 64], "gammas": [-1.0, 0.0], "split_at": 32},
        {"widths": WIDTHS, "gammas": Reals(), "split_at": SPLIT},
    ),
    "sims.superposition_units.ladder_tasks_over": D(
        {"key": "alpha", "values": [1.0, 2.0], "widths": [8, 64], "gammas": [-1.0], "split_at": 32},
        {
            "key": Fixed((None, 1, b"alpha", "widths", "gammas")),
            "values": Reals(),
            "widths": WIDTHS,
            "gammas": Reals(),
            "split_at": SPLIT,
        },
    ),
    "sims.superposition_units.weak_sweep_tasks": D(
        {
            "widths": [8, 64],
            "alphas": [1.5, 2.0],
            "weak_gamma": 0.1,
            "strong_gamma": -1.0,
            "strong_min_m": 64,
            "split_at": 32,
        },
        {
            "widths": WIDTHS,
            "alphas": Reals(),
            "weak_gamma": REAL,
            "strong_gamma": REAL,
            "strong_min_m": Fixed((31, 0, 32.0, True, "64", None)),
            "split_at": Count(9, 64),
        },
    ),
    "sims.superposition_units.random_overlaps": D(
        {"rng": RNG, "widths": [4, 16], "pairs": 100},
        {"widths": Fixed((*WIDTHS.values, [1, 4])), "pairs": Count(2)},
    ),
    "sims.superposition_units.weak_ideal_exponent": D(
        {"p": np.linspace(0.5, 0.01, 100), "widths": [10, 20, 40, 80], "window": (10.0, 80.0)},
        {
            "p": Reals(0.0, 1.0, empty=True),
            "p ": Fixed((np.ones((2, 50)),)),
            "widths": Fixed(([], [10, 10], [0, 10], [10.5, 20], [-1, 20], ["a", "b"], [[10, 20]])),
            "window": Fixed(((80.0, 10.0), (np.nan, 80.0), (10.0,))),
        },
    ),
}

#: Public functions not fuzzed here, by reason.
NOT_FUZZED: dict[str, tuple[str, ...]] = {
    "take objects of this package (samples, spectra, flows, policies, configs, fits) or callables, validated by their own constructors": (
        "neural.attention_metrics.first_token_attention",
        "neural.attention_metrics.massive_activation_summary",
        "neural.attention_metrics.measure",
        "neural.attention_metrics.sink_summary",
        "neural.attention_metrics.traces_to_numpy",
        "sims.boxes.shift_violations",
        "sims.deep_crl_units.signal_entry",
        "sims.diffusion_rf.flow_tau_grid",
        "sims.diffusion_rf.ge_flow",
        "sims.diffusion_rf.timescales",
        "sims.diffusion_units.expected_group_counts",
        "sims.diffusion_units.gap_curve",
        "sims.diffusion_units.threshold_units",
        "sims.diffusion_units.unit_exponents",
        "sims.hivemind.bootstrap_over_queries",
        "sims.hivemind.planted_and_random_means",
        "sims.passk_sampling.estimator_exact_bias",
        "sims.rlvr_toy.base_policy",
        "sims.rlvr_toy.distill",
        "sims.rlvr_toy.grpo",
        "sims.rlvr_toy.make_problems",
        "sims.rlvr_toy.policy_probs",
        "sims.rlvr_toy.success_probs",
        "sims.rlvr_toy.teacher_policy",
        "sims.rmt.dense_eigenvalues",
        "sims.rmt.ge_eigenvalues",
        "sims.rmt.nonlinear_u_mehler",
        "sims.rmt.nonlinear_u_monte_carlo",
        "sims.superposition.train_models",
        "sims.superposition_units.gradient_error",
        "sims.sweep.run_sweep",
        "theory.rmt.find_bulks",
        "theory.rmt.per_point_comparison",
        "theory.rmt.rf_constants_direct",
        "theory.rmt.stieltjes_sanity",
        "theory.rmt.two_bulks",
        "theory.sharpening.failure_slopes",
        "theory.sharpening.tilt_gaps",
    ),
    "readers of sweep records, unit pools and groups (the dicts the sweeps write), whose schema is checked where the records are read": (
        "neural.attention_metrics.gate_summary",
        "sims.boxes.percent_reaching",
        "sims.deep_crl_units.by_point",
        "sims.deep_crl_units.by_seed",
        "sims.deep_crl_units.signal_arrays",
        "sims.deep_crl_units.signal_points",
        "sims.deep_crl_units.signal_statistics",
        "sims.deep_crl_units.signal_units",
        "sims.deep_crl_units.success_by_depth",
        "sims.deep_crl_units.trainability_units",
        "sims.diffusion_units.gap_table",
        "sims.diffusion_units.gd_plateaus",
        "sims.passk_sampling.crossing_search_draws",
        "sims.passk_sampling.estimator_mean_and_se",
        "sims.passk_sampling.estimator_z",
        "sims.passk_sampling.summed_histograms",
        "sims.rlvr_units.arm_b_cis",
        "sims.rlvr_units.arm_b_gate",
        "sims.rlvr_units.arm_b_measured",
        "sims.rlvr_units.arm_b_pass1",
        "sims.rlvr_units.arm_b_units",
        "sims.rlvr_units.control_units",
        "sims.rlvr_units.coverage_units",
        "sims.rlvr_units.crossing_table",
        "sims.rlvr_units.crossing_units",
        "sims.rlvr_units.crossings",
        "sims.rlvr_units.distillation_units",
        "sims.rlvr_units.estimator_curves",
        "sims.rlvr_units.gain_curves",
        "sims.rlvr_units.hard_p_mean",
        "sims.rlvr_units.kl_rows",
        "sims.rlvr_units.pass1_gain_units",
        "sims.rlvr_units.pool_arm_b",
        "sims.rlvr_units.slope_fits",
        "sims.rlvr_units.slope_means",
        "sims.rlvr_units.slope_table",
        "sims.rlvr_units.trainings_for",
        "sims.rlvr_units.unit_curve",
        "sims.rlvr_units.unit_runs",
        "sims.superposition_units.by_unit",
        "sims.superposition_units.density_units",
        "sims.superposition_units.exponents_over",
        "sims.superposition_units.knob_units",
        "sims.superposition_units.ladder_exponent",
        "sims.superposition_units.ladder_fit",
        "sims.superposition_units.per_model",
        "sims.superposition_units.relative_gap",
        "sims.superposition_units.select",
        "sims.superposition_units.strong_unit",
        "sims.superposition_units.sweep_models",
        "sims.superposition_units.unlearned_gap",
        "sims.superposition_units.weak_law_units",
        "sims.superposition_units.weak_unit",
        "theory.rmt.compare_constants",
    ),
    "torch models, tensors and training loops: their boundary is the configuration dataclasses, checked when built": (
        "neural.batched.clip_grad_norm_per_seed_",
        "neural.batched.seed_norms",
        "neural.deep_crl_batched.maze_data",
        "neural.deep_crl_batched.train_maze_critic_batched",
        "neural.crl_batched.train_online_crl_batched",
        "neural.gated_batched.train_run_batched",
        "neural.rlvr_batched.arm_b_batched",
        "neural.crl.cell_centres",
        "neural.crl.evaluate",
        "neural.crl.far_goals",
        "neural.crl.q_map",
        "neural.crl.rollout",
        "neural.crl.truncated_geometric_offsets",
        "neural.deep_crl.checkpoint_path",
        "neural.deep_crl.configured",
        "neural.deep_crl.critic_loss",
        "neural.deep_crl.energy_matrix",
        "neural.deep_crl.get_config",
        "neural.deep_crl.infonce_terms",
        "neural.deep_crl.load_checkpoint",
        "neural.deep_crl.paired_energy",
        "neural.deep_crl.rank_agreement",
        "neural.deep_crl.run_key",
        "neural.deep_crl.save_checkpoint",
        "neural.deep_crl.signal_at_init",
        "neural.deep_crl.spearman_rows",
        "neural.deep_crl.with_constant_feature",
        "neural.gated_attention.apply_rope",
        "neural.gated_attention.attention_with_weights",
        "neural.gated_attention.count_parameters",
        "neural.gated_attention.gate_parameters_per_layer",
        "neural.gated_attention.init_shared",
        "neural.gated_attention.matched_config",
        "neural.gated_attention.rope_tables",
        "neural.gated_testbeds.arms_at_base_lr",
        "neural.gated_testbeds.base_lr",
        "neural.gated_testbeds.by_arm",
        "neural.gated_testbeds.final",
        "neural.gated_testbeds.final_loss",
        "neural.gated_testbeds.final_stack",
        "neural.gated_testbeds.finals",
        "neural.gated_testbeds.gate_readout",
        "neural.gated_testbeds.lr_grid",
        "neural.gated_testbeds.paired_finals",
        "neural.gated_testbeds.paired_stacks",
        "neural.gated_testbeds.param_counts",
        "neural.gated_testbeds.runs_for",
        "neural.gated_testbeds.shared_final",
        "neural.gated_testbeds.train_arms",
        "neural.gated_training.build_model",
        "neural.gated_training.evaluate",
        "neural.gated_training.lr_at",
        "neural.gated_training.train_run",
        "neural.rlvr_transformer.chance_success",
        "neural.rlvr_transformer.exact_success_probs",
        "neural.rlvr_transformer.grpo_loss",
        "neural.rlvr_transformer.grpo_train",
        "neural.rlvr_transformer.make_graph",
        "neural.rlvr_transformer.path_kl_k3",
        "neural.rlvr_transformer.sample_paths",
        "neural.rlvr_transformer.shortest_paths",
        "neural.rlvr_transformer.supervised_train",
        "neural.rlvr_transformer.verify",
        "neural.rlvr_transformer.walk_corpus",
    ),
    "sweep tasks and trainers: (params, rng) entry points that sims.sweep.run_sweep calls on the parameter dicts a claim's check builds": (
        "neural.crl.train_online_crl",
        "neural.deep_crl.signal_task",
        "neural.deep_crl.train_maze_critic",
        "neural.gated_training.gated_lm_task",
        "neural.rlvr_transformer.arm_b_task",
        "sims.diffusion_rf.gd_task",
        "sims.diffusion_rf.ge_flow_streamed",
        "sims.diffusion_rf.infinite_time_gap_task",
        "sims.diffusion_rf.score_dynamics_task",
        "sims.online_search.gap_search_task",
        "sims.online_sweeps.census5_task",
        "sims.online_sweeps.random_class_task",
        "sims.passk_sampling.count_histogram_task",
        "sims.passk_sampling.crossing_search_task",
        "sims.rlvr_toy.toy_arms_task",
        "sims.rmt.ge_spectrum_task",
        "sims.rmt.nonlinear_spectrum_task",
        "sims.superposition.train_task",
    ),
    "file, cache and environment I/O: paths and bytes, checked by paper_checks._inputs and tests/paper_checks/test_io_fuzz.py": (
        "neural.hivemind.file_sha256",
        "neural.hivemind.make_embedder",
        "neural.hivemind.minilm_available",
        "neural.hivemind.text_key",
        "sims.online.draw_tree",
        "sims.online.write_graph",
        "sims.online_experiments.write_certified_witnesses",
        "sims.online_search.write_witness",
        "sims.rlvr_units.write_arm_b_samples",
        "sims.rlvr_units.write_sample_file",
        "sims.superposition.single_threaded_blas",
        "sims.sweep.task_checkpoint_dir",
        "theory.online.class_file.parse_class_json",
        "theory.online.class_file.parse_class_text",
        "theory.online.class_file.read_class_file",
    ),
    "algorithms over a ConceptClass (validated when built, theory.online.concept_class) and the online experiments that drive them; their scalar limits are tested in tests/theory/online and tests/sims/test_online*.py": (
        "sims.online.construct_sequence",
        "sims.online.game_tree_graph",
        "sims.online.guaranteed_mistakes",
        "sims.online.hypothesis_paths",
        "sims.online.littlestone_tree_graph",
        "sims.online.play_learner",
        "sims.online.reduce_to_tree",
        "sims.online.run_adversary",
        "sims.online_experiments.adversary_pilot",
        "sims.online_experiments.adversary_runs",
        "sims.online_experiments.bracket_ok",
        "sims.online_experiments.census5_cross_checks",
        "sims.online_experiments.census_disagreements",
        "sims.online_experiments.certify_candidates",
        "sims.online_experiments.closed_at",
        "sims.online_experiments.closed_share",
        "sims.online_experiments.elementary_bound_violations",
        "sims.online_experiments.exact_mtr",
        "sims.online_experiments.halving_worst_case",
        "sims.online_experiments.invariance_trials",
        "sims.online_experiments.learner_games",
        "sims.online_experiments.learner_statistics",
        "sims.online_experiments.minimal_tree_mtr",
        "sims.online_experiments.minimal_tree_values",
        "sims.online_experiments.mtr_distribution",
        "sims.online_experiments.random_small_class",
        "sims.online_experiments.random_tree_brackets",
        "sims.online_experiments.random_tree_values",
        "sims.online_experiments.search_grid",
        "sims.online_experiments.search_totals",
        "sims.online_experiments.sum_census_counts",
        "sims.online_experiments.tree_class_violations",
        "sims.online_search.certify",
        "sims.online_search.class_to_codes",
        "sims.online_search.codes_to_class",
        "sims.online_sweeps.random_class",
        "theory.online.bounds_symbolic.first_d_below_two_thirds_symbolic",
        "theory.online.brackets.mtr_bracket",
        "theory.online.brackets.perfect_halving_order",
        "theory.online.census.census5_values",
        "theory.online.census.class_rows",
        "theory.online.census.relabel",
        "theory.online.certificates.mtr_lower_bound",
        "theory.online.constructions.gadget_w",
        "theory.online.constructions.product",
        "theory.online.dims.littlestone_dim",
        "theory.online.dims.littlestone_tree",
        "theory.online.dims.soa_predict",
        "theory.online.dims.threshold_dim",
        "theory.online.dims.threshold_witness",
        "theory.online.dims.vc_dim",
        "theory.online.dims.vc_witness",
        "theory.online.mtr.mtr_by_permutations",
        "theory.online.mtr.transductive_mistake_bound",
        "theory.online.transductive.transductive_value",
    ),
    "statistics over training runs in which NaN marks a diverged or missing run by design": (
        "theory.gated_attention.compare_arms",
        "theory.gated_attention.finite_mean",
        "theory.gated_attention.has_baseline_sink",
        "theory.gated_attention.loss_excess",
        "theory.gated_attention.lr_degradation",
        "theory.gated_attention.lr_failures",
        "theory.gated_attention.lr_grid_statistics",
        "theory.gated_attention.paired_log_ratio",
        "theory.gated_attention.paired_t",
        "theory.gated_attention.sink_statistics",
        "theory.gated_attention.sink_units",
        "theory.gated_attention.sparse_units",
        "theory.gated_attention.sparsity_margin",
        "theory.gated_attention.sparsity_statistics",
    ),
    "hypothesis strategies: test helpers that the API reference documents": (
        "theory.online.strategies.classes_on_points",
        "theory.online.strategies.classes_with_planted_gap",
        "theory.online.strategies.concept_classes",
        "theory.online.strategies.counterexample_classes",
        "theory.online.strategies.minimize_counterexample",
        "theory.online.strategies.products",
        "theory.online.strategies.tree_classes",
        "theory.online.strategies.uniform_classes",
        "theory.online.strategies.warm_solvers",
    ),
}


# ----------------------------------------------------------------------------- the inventory
def _public_functions() -> dict[str, Callable[..., Any]]:
    found = {}
    for package in PACKAGES:
        for module in public_modules(package):
            for name in public_names(module):
                obj = getattr(module, name)
                if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                    found[f"{module.__name__}.{name}"] = obj
    return found


PUBLIC = _public_functions()
_EXEMPT = [name for names in NOT_FUZZED.values() for name in names]


def test_every_public_function_has_its_domain_or_a_reason() -> None:
    listed = set(DOMAINS) | set(_EXEMPT)
    assert sorted(set(PUBLIC) - listed) == [], "public functions without domain coverage"
    assert sorted(listed - set(PUBLIC)) == [], "listed names that are not public functions"
    assert sorted(set(DOMAINS) & set(_EXEMPT)) == []
    assert len(_EXEMPT) == len(set(_EXEMPT))


def _function(qualname: str) -> Callable[..., Any]:
    module, name = qualname.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def _finite(value: Any, nan_ok: bool) -> bool:
    """Whether every number in ``value`` (arrays, tuples, dicts, dataclasses) is finite."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_finite(getattr(value, f.name), nan_ok) for f in dataclasses.fields(value))
    if isinstance(value, Mapping):
        return all(_finite(v, nan_ok) for v in value.values())
    if isinstance(value, tuple | list):
        return all(_finite(v, nan_ok) for v in value)
    arr = np.asarray(value)
    if np.issubdtype(arr.dtype, np.number):
        good = np.isfinite(arr) | (np.isnan(arr) if nan_ok else False)
        return bool(np.all(good))
    return True


@pytest.mark.parametrize("qualname", sorted(DOMAINS))
def test_the_valid_call_gives_a_finite_answer(qualname: str) -> None:
    domain = DOMAINS[qualname]
    parameters = inspect.signature(_function(qualname)).parameters
    if all(p.kind != p.VAR_KEYWORD for p in parameters.values()):
        assert set(domain.call) <= set(parameters)
    assert _finite(domain(_function(qualname)), domain.nan_ok)


@pytest.mark.parametrize("qualname", sorted(name for name, d in DOMAINS.items() if d.params))
@settings(
    max_examples=settings.default.max_examples if FUZZING else 25,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_out_of_domain_arguments_are_refused_by_name(qualname: str, data: st.DataObject) -> None:
    domain = DOMAINS[qualname]
    key = data.draw(st.sampled_from(sorted(domain.params)), label="parameter")
    param = key.strip()  # a trailing space keys a second domain of one parameter
    outside = domain.params[key].outside(domain.call[param])
    default = inspect.signature(_function(qualname)).parameters.get(param)
    if default is not None and default.default is None:  # None is in the domain: the default
        outside = outside.filter(lambda value: value is not None)
    bad = data.draw(outside, label="value")
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        domain(_function(qualname), **{param: bad})


# ----------------------------------------------------------------------------- reported examples
_W = ConceptClass.from_strings(["0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111"])
_HIST = np.array([[2, 3, 5], [1, 1, 1]])  # row totals 10 and 3: not one R


def _box_rng(band: tuple[float, float]) -> dict[tuple[float, float], np.random.Generator]:
    return {band: np.random.default_rng(0)}


_HOSTILE_2026_12_06 = [
    (lambda: passk_sampling.histogram_tasks(np.array([0.5]), 8, reps=10, chunks=3), "chunks"),
    (lambda: passk_sampling.estimator_mean_and_se(_HIST, pass_at_k, 2, [1]), "hist"),
    (lambda: passk_sampling.estimator_mean_and_se(_HIST[:1], pass_at_k, 2, [2.7]), "ks"),
    (lambda: passk_sampling.estimator_mean_and_se(_HIST[:1], pass_at_k, 3, [1]), "hist"),
    (lambda: passk_sampling.estimator_z(_HIST[:1], pass_at_k, 2, [1, 2], [0.5]), "truth"),
    (lambda: passk_sampling.estimator_exact_bias(pass_at_k, [], 4, [1], [0.5]), "p"),
    (lambda: passk_sampling.estimator_exact_bias(pass_at_k, [0.5], 4, [1, 2], [0.5]), "truth"),
    (lambda: passk_sampling.summed_histograms([]), "records"),
    (lambda: passk_sampling.crossing_search_task({"grid": 8, "draws": 3, "k_max": 0}, 0), "k_max"),
    (lambda: passk_sampling.crossing_search_draws([]), "records"),
    (lambda: hivemind_sims.bootstrap_over_queries([1.0, 2.0], [1.0, 2.0], [0]), "queries"),
    (lambda: hivemind_sims.bootstrap_over_queries([1.0], [1.0], [0], level=-0.5), "level"),
    (lambda: hivemind_sims.bootstrap_over_queries([1.0], [1.0], [0], n_boot=0), "n_boot"),
    (lambda: DataSpectrum.of([1.0, 2.0], [1e308, 1e308]), "weights"),
    (lambda: DataSpectrum.of([True]), "atoms"),
    (lambda: DataSpectrum.identity().diagonal(0), "d"),
    (lambda: rmt.hermite_rule(True), "nodes"),
    (lambda: rmt.hermite_rule(10**7), "nodes"),
    (lambda: rmt.find_bulks(lambda x: x, -3.0), "x_max"),
    (lambda: rmt.find_bulks(lambda x: x, 3.0, points=0), "points"),
    (lambda: rmt.find_bulks(lambda x: x, 3.0, x_min_rel=2.0), "x_min_rel"),
    (lambda: rmt.compare_constants({}), "table"),
    (lambda: ConceptClass.from_array([[0, 1], [1, 0]], points=[]), "points"),
    (lambda: ConceptClass.from_array([[0, 1], [1, 0]], points=5), "points"),
    (lambda: ConceptClass.from_strings("0101"), "rows"),
    (lambda: _W.restrict([-1]), "points"),
    (lambda: _W.restrict([99]), "points"),
    (lambda: _W.restrict([True, False]), "points"),
    (lambda: _W.subclass([99]), "hypotheses"),
    (lambda: soa_predict(_W, np.zeros(8, bool), 0), "version_space_rows"),
    (lambda: transductive_value(_W, {2, 0}), "sequence"),
    (lambda: mtr_lower_bound(_W, candidates=None), "candidates"),
    (lambda: mtr_lower_bound(_W, candidates=[0, 1]), "candidates"),
    (lambda: mtr_lower_bound(_W, candidates=[[0, 9]]), "candidates"),
    (
        lambda: mtr_lower_bound(ConceptClass(np.ones((2, 3), np.uint8)), candidates=[[7]]),
        "candidates",
    ),
    (lambda: transductive_mistake_bound([[0, 1]]), "H"),
    (lambda: transductive_mistake_bound(_W, progress=5), "progress"),
    (lambda: mtr_by_permutations(ConceptClass(np.eye(12, dtype=np.uint8))), "H"),
    (lambda: perfect_halving_order(_W, max_nodes=math.nan), "max_nodes"),
    (lambda: census.class_rows(-1, 2), "mask"),
    (lambda: census.class_rows(1, 40), "n_points"),
    (lambda: census.relabel(1, 2, [1, 0], -1), "flip"),
    (lambda: census.relabel(1, 2, [True, False], 0), "perm"),
    (lambda: census.census5_values([1.5]), "masks"),
    (lambda: boxes.best_iou_per_band(np.zeros((1, 4)), [(8.0, 16.0)], 5, rng={}), "rng"),
    (lambda: boxes.best_iou_per_band(np.zeros((1, 4)), [[8.0, 16.0]], 5, rng={}), "bands"),
    (lambda: boxes.percent_reaching({(1, 2): np.array([])}, [0.5]), "best"),
    (lambda: boxes.percent_reaching({(1, 2): np.array([0.4])}, [math.nan]), "thresholds"),
    (lambda: tree_class(3, 0.5, rng=-1), "rng"),
    (lambda: tree_class(3, 0.5, rng=True), "rng"),
    (lambda: mtr_lower_bound(_W, rng="a"), "rng"),
    (lambda: boxes.random_boxes(3, (8.0, 16.0), rng=[1, -2]), "rng"),
    (lambda: parse_class_text(None, "x"), "text"),
    (
        lambda: rmt.two_bulks(print, psi_p=4096.0, psi_ns=np.array([]), psi_ps=[1024.0], t=0.01),
        "psi_ns",
    ),
    (lambda: hivemind_sims.planted_and_random_means(np.mean, np.array([]), [5], rng=None), "cs"),
    (lambda: public_names("theory"), "module"),
    (lambda: public_modules("math"), "package"),
]


_REPORTED = [
    (lambda: hivemind.disjoint_curve(0, 3), "per_model"),
    (lambda: hivemind.top_fraction_subset([1.0, 2.0, 3.0], fraction=1.5), "fraction"),
    (lambda: hivemind.entropy_bits([[0, 0, 0, 0, 0]]), "counts"),
    (lambda: hivemind.normalize_rows([[1.0, np.nan], [1.0, 0.0]]), "vectors"),
    (lambda: anchors.anchor_count(-600, 1000), "height"),
    (lambda: anchors.feature_map_size(-1), "image_size"),
    (lambda: rmt.marchenko_pastur_edges(-1), "ratio"),
    (lambda: passk.crossing_k([], [], []), "ks"),
    # found by make fuzz (2026-12-05): a schedule shorter than its step named only `step`
    (lambda: lr_schedule(3, 1, 1.0, 3), "steps"),
    # a hostile round of our own (2026-12-06): each returned a wrong value or a raw error
    *_HOSTILE_2026_12_06,
]


@pytest.mark.parametrize(
    ("call", "name"), _REPORTED, ids=[f"{name}-{i}" for i, (_, name) in enumerate(_REPORTED)]
)
def test_the_reported_examples_are_refused_by_name(call: Callable[[], Any], name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()
