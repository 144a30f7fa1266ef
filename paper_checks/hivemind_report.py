"""``paper-checks solve hivemind``: the Hivemind diversity and calibration metrics on the user's own
generations and ratings (Jiang et al. 2025, arXiv 2510.22954; the metrics, their formulas and the
authors' conventions are set out in docs/hivemind.md).

Input files are JSON lines:

- ``gens.jsonl``: ``{"query", "model", "response"}`` plus optional ``"category"`` (a string or a list
  of strings), ``"decoding"`` (a string), ``"prompt"`` (groups paraphrases of one prompt) and
  ``"embedding"`` (a list of numbers, for ``--embedder vectors``).
- ``abs.jsonl``: ``{"query", "response", "ratings": [1..5, ...], "scores": {name: x}}``.
- ``pair.jsonl``: ``{"query", "response_1", "response_2", "labels": [−2..2, ...],
  "scores": {name: [s1, s2]}}``.

Malformed lines raise ValueError naming the option, the file and the line.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sims.hivemind import bootstrap_over_queries, cross_query_similarities
from theory import hivemind as hm

#: Percentiles of the random cross-query baseline used as embedder-free cut-offs.
BASELINE_PERCENTILES = (50.0, 90.0, 99.0)


# -------------------------------------------------------------------------------------- reading
def _json_lines(path: Path, option: str) -> list[tuple[int, dict[str, Any]]]:
    from paper_checks._inputs import loads_strict, read_input_text, text_lines

    rows = []
    for line_no, line in enumerate(text_lines(read_input_text(path, option)), 1):
        if not line.strip():
            continue
        try:
            row = loads_strict(line)  # NaN, Infinity and 1e999 are refused
        except ValueError as err:
            msg = getattr(err, "msg", str(err))
            raise ValueError(f"{option}: {path}:{line_no} is not JSON ({msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{option}: {path}:{line_no} is not a JSON object")  # noqa: TRY004
        rows.append((line_no, row))
    if not rows:
        raise ValueError(f"{option}: {path} holds no lines")
    return rows


def _field(row: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in row:
        raise ValueError(f"{where}: missing key {key!r}")
    value = row[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ValueError(f"{where}: {key!r} must be a {names} (got {value!r:.40})")  # noqa: TRY004
    return value


def _number_list(value: Any, where: str, key: str) -> list[float]:
    if not isinstance(value, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in value
    ):
        raise ValueError(f"{where}: {key!r} must be a list of numbers")
    return [float(x) for x in value]


@dataclass(frozen=True)
class Generations:
    """Responses of models to queries, one entry per line of ``gens.jsonl``."""

    queries: list[str]
    models: list[str]
    responses: list[str]
    categories: list[tuple[str, ...]]
    decodings: list[str | None]
    prompts: list[str | None]
    embeddings: np.ndarray | None  # (R, d) when every line has one


def read_generations(path: str | Path, option: str = "--gens") -> Generations:
    """Read ``gens.jsonl`` (see the module docstring)."""
    path = Path(path)
    cols: dict[str, list[Any]] = defaultdict(list)
    for line_no, row in _json_lines(path, option):
        where = f"{option}: {path}:{line_no}"
        cols["line"].append(line_no)
        for key in ("query", "model", "response"):
            cols[key].append(_field(row, key, str, where))
        category = row.get("category")
        if category is None:
            cols["category"].append(())
        elif isinstance(category, str):
            cols["category"].append((category,))
        elif isinstance(category, list) and all(isinstance(c, str) for c in category):
            cols["category"].append(tuple(category))
        else:
            raise ValueError(f"{where}: 'category' must be a string or a list of strings")
        for key in ("decoding", "prompt"):
            cols[key].append(None if row.get(key) is None else _field(row, key, str, where))
        if "embedding" in row:
            embedding = _number_list(row["embedding"], where, "embedding")
            if not embedding:
                raise ValueError(f"{where}: 'embedding' is empty")
            cols["embedding"].append(embedding)
    if not any(response.strip() for response in cols["response"]):
        raise ValueError(f"{option}: {path}: every response is empty; there is nothing to compare")
    embeddings = None
    if cols["embedding"]:
        if len(cols["embedding"]) != len(cols["query"]):
            raise ValueError(f"{option}: {path}: 'embedding' must be on every line or on none")
        if len({len(e) for e in cols["embedding"]}) > 1:
            raise ValueError(f"{option}: {path}: every 'embedding' must have the same length")
        embeddings = np.array(cols["embedding"], dtype=float)
        with np.errstate(over="ignore"):
            norms = np.linalg.norm(embeddings, axis=1)
        if not np.all(np.isfinite(norms)):
            line = int(np.flatnonzero(~np.isfinite(norms))[0]) + 1
            raise ValueError(
                f"{option}: {path}: the embedding of response {line} is too large for float64 "
                "(its norm overflows)"
            )
        if np.any(norms == 0):
            line = cols["line"][int(np.flatnonzero(norms == 0)[0])]
            raise ValueError(
                f"{option}: {path}:{line}: 'embedding' is all zeros (a cosine needs a direction)"
            )
        first: dict[str, int] = {}
        for i, response in enumerate(cols["response"]):
            j = first.setdefault(response, i)
            if not np.array_equal(embeddings[i], embeddings[j]):
                raise ValueError(
                    f"{option}: {path}:{cols['line'][i]}: the same response text as line "
                    f"{cols['line'][j]} with a different 'embedding'"
                )
    return Generations(
        cols["query"],
        cols["model"],
        cols["response"],
        cols["category"],
        cols["decoding"],
        cols["prompt"],
        embeddings,
    )


@dataclass(frozen=True)
class RatedItems:
    """Rated items of one file: absolute (one response, labels 1..5; score = x) or pairwise (two
    responses, labels −2..2; score = s1 − s2)."""

    kind: str  # "absolute" | "pairwise"
    path: Path
    queries: np.ndarray  # (I,)
    counts: np.ndarray  # (I, 5) label counts over the fixed label set
    scores: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (I,)

    @property
    def labels(self) -> tuple[int, ...]:
        return hm.ABSOLUTE_LABELS if self.kind == "absolute" else hm.PAIRWISE_LABELS

    @property
    def mean_label(self) -> np.ndarray:
        return self.counts @ np.array(self.labels, dtype=float) / self.counts.sum(axis=1)


def read_ratings(path: str | Path, option: str = "--ratings") -> RatedItems:
    """Read ``abs.jsonl`` or ``pair.jsonl`` (told apart by ``ratings`` vs ``labels`` on the first
    line). Every line must give the same scorers."""
    path = Path(path)
    rows = _json_lines(path, option)
    kind = "absolute" if "ratings" in rows[0][1] else "pairwise"
    label_key = "ratings" if kind == "absolute" else "labels"
    label_set = hm.ABSOLUTE_LABELS if kind == "absolute" else hm.PAIRWISE_LABELS
    queries, counts, scores = [], [], defaultdict(list)
    names: set[str] | None = None
    for line_no, row in rows:
        where = f"{option}: {path}:{line_no}"
        queries.append(_field(row, "query", str, where))
        for key in ("response",) if kind == "absolute" else ("response_1", "response_2"):
            _field(row, key, str, where)
        labels = _field(row, label_key, list, where)
        if not labels or not all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
            raise ValueError(f"{where}: {label_key!r} must be a non-empty list of integers")
        try:
            counts.append(hm.label_counts(labels, label_set))
        except ValueError as err:
            raise ValueError(f"{where}: {label_key!r}: {err}") from None
        given = _field(row, "scores", dict, where)
        if names is None:
            names = set(given)
        elif set(given) != names:
            raise ValueError(f"{where}: 'scores' must name the same scorers on every line")
        for name, value in given.items():
            if kind == "absolute":
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise ValueError(f"{where}: score {name!r} must be a number")
                scores[name].append(float(value))
            else:
                pair = _number_list(value, where, f"scores.{name}")
                if len(pair) != 2:
                    raise ValueError(f"{where}: score {name!r} must be [s1, s2]")
                scores[name].append(pair[0] - pair[1])
    return RatedItems(
        kind,
        path,
        np.array(queries),
        np.array(counts),
        {k: np.array(v) for k, v in sorted(scores.items())},
    )


# ------------------------------------------------------------------------------------ diversity
def _groups(keys: Sequence[Any]) -> dict[Any, np.ndarray]:
    out: dict[Any, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        out[key].append(i)
    return {k: np.array(v) for k, v in out.items()}


def diversity(
    gens: Generations,
    unit: np.ndarray,
    *,
    cutoffs: Sequence[float] = hm.PAPER_CUTOFFS,
    include_self_pairs: bool = False,
    n_max: int = 50,
    baseline_pairs: int = 5000,
    rng: np.random.Generator | int | None = 0,
) -> dict[str, Any]:
    """The diversity tables for generations with unit embeddings ``unit`` (R, d): per-(model, query)
    s̄ with per-model histograms and shares above the raw cut-offs and above the cross-query
    baseline's percentiles, the inter-model matrix, the top-N distinct-model curve beside its
    interchangeable and disjoint references, and breakdowns by category, decoding and the
    paraphrase gap where the file has those keys."""
    models = sorted(set(gens.models))
    cells = _groups(list(zip(gens.models, gens.queries, strict=True)))
    s_bar = {
        key: hm.mean_pairwise_similarity(unit[idx]) for key, idx in cells.items() if idx.size > 1
    }
    if not s_bar:
        raise ValueError("--gens: no (model, query) has 2 or more responses")
    by_query = _groups(gens.queries)
    baseline = cross_query_similarities([unit[i] for i in by_query.values()], baseline_pairs, rng)
    base_cut = np.percentile(baseline, BASELINE_PERCENTILES)
    intra = []
    for m in models:
        values = np.array([v for (mm, _), v in s_bar.items() if mm == m])
        if values.size:
            intra.append(
                {
                    "model": m,
                    "queries": int(values.size),
                    "mean": float(values.mean()),
                    "histogram": hm.similarity_histogram(values).tolist(),
                    "share_above": hm.shares_above(values, cutoffs).tolist(),
                    "share_above_baseline": hm.shares_above(values, base_cut).tolist(),
                }
            )
    groups = [[unit[cells[(m, q)]] if (m, q) in cells else None for m in models] for q in by_query]
    inter = hm.inter_model_matrix(groups, include_self_pairs=include_self_pairs)
    curves, refs = [], []
    smallest = min(idx.size for idx in by_query.values())
    n_top = min(n_max, smallest - 1)
    for idx in by_query.values():
        labels = np.array(gens.models)[idx]
        if n_top >= 1 and np.unique(labels).size > 1:
            curves.append(hm.distinct_model_curve(unit[idx], labels, n_top))
            refs.append(hm.interchangeable_curve(np.unique(labels, return_counts=True)[1], n_top))
    per_model = int(np.median([idx.size for idx in cells.values()]))
    interchangeable = np.mean(refs, axis=0) if refs else np.zeros(0)
    disjoint = hm.disjoint_curve(per_model, len(curves[0])) if curves else np.zeros(0)
    out: dict[str, Any] = {
        "models": models,
        "cutoffs": list(cutoffs),
        "baseline_percentiles": list(BASELINE_PERCENTILES),
        "baseline_cutoffs": base_cut.tolist(),
        "baseline_mean": float(baseline.mean()),
        "intra": intra,
        "inter": inter,
        "include_self_pairs": include_self_pairs,
        "topn": {
            "n": list(range(1, len(curves[0]) + 1)) if curves else [],
            "measured": np.mean(curves, axis=0).tolist() if curves else [],
            "interchangeable": interchangeable.tolist(),
            "disjoint": disjoint.tolist(),
            "queries": len(curves),
            "headline_n": headline_n(interchangeable, disjoint),
        },
        "s_bar": [{"model": m, "query": q, "s_bar": v} for (m, q), v in s_bar.items()],
    }
    out["by_category"] = _by_category(gens, cells, s_bar, cutoffs)
    out["by_decoding"] = _by_decoding(gens, unit, cutoffs)
    out["paraphrase"] = _paraphrase_gap(gens, unit, s_bar)
    return out


def headline_n(interchangeable: np.ndarray, disjoint: np.ndarray) -> int | None:
    """The N at which the top-N distinct-model count discriminates best: where the
    interchangeable reference (labels carry no information) exceeds the disjoint one (models
    share nothing) the most, the smallest such N on ties; None when they never differ (then no
    N tells a hivemind from distinct models). At the largest N every neighbour is counted, so
    every model set gives the same value there (all models); at N = 1 both references are 1."""
    gap = np.asarray(interchangeable, dtype=float) - np.asarray(disjoint, dtype=float)
    if gap.size == 0 or not np.max(gap) > 1e-9:
        return None
    return int(np.argmax(gap)) + 1


def _tag_rows(values: dict[str, list[float]], cutoffs: Sequence[float]) -> list[dict[str, Any]]:
    """One row per tag: cells, mean s̄ and the shares above the cut-offs."""
    return [
        {
            "name": tag,
            "cells": len(v),
            "mean": float(np.mean(v)),
            "share_above": hm.shares_above(np.array(v), cutoffs).tolist(),
        }
        for tag, v in sorted(values.items())
    ]


def _by_category(
    gens: Generations,
    cells: dict[Any, np.ndarray],
    s_bar: dict[tuple[str, str], float],
    cutoffs: Sequence[float],
) -> list[dict[str, Any]]:
    """s̄ of the (model, query) cells per category (multi-label: a cell counts in each of its
    query's categories)."""
    values: dict[str, list[float]] = defaultdict(list)
    for cell, v in s_bar.items():
        for tag in sorted({t for i in cells[cell] for t in gens.categories[i]}):
            values[tag].append(v)
    return _tag_rows(values, cutoffs)


def _by_decoding(
    gens: Generations, unit: np.ndarray, cutoffs: Sequence[float]
) -> list[dict[str, Any]]:
    """s̄ per decoding setting, over (model, query, decoding) cells: samples drawn with different
    settings are never paired."""
    values: dict[str, list[float]] = defaultdict(list)
    keys = list(zip(gens.models, gens.queries, gens.decodings, strict=True))
    for (_, _, decoding), idx in _groups(keys).items():
        if decoding is not None and idx.size > 1:
            values[decoding].append(hm.mean_pairwise_similarity(unit[idx]))
    return _tag_rows(values, cutoffs)


def _paraphrase_gap(
    gens: Generations, unit: np.ndarray, s_bar: dict[tuple[str, str], float]
) -> dict[str, float] | None:
    """Within-query s̄ against the similarity of one model's responses to different paraphrases of
    one prompt (paper: 0.821 vs 0.781). Pairs across paraphrases are pooled per (model, prompt):
    (‖Σ_all e‖² − Σ_q ‖Σ_q e‖²) / (n² − Σ_q n_q²)."""
    if all(p is None for p in gens.prompts):
        return None
    num = den = 0.0
    within = []
    for (model, prompt), idx in _groups(list(zip(gens.models, gens.prompts, strict=True))).items():
        if prompt is None:
            continue
        by_q = _groups([gens.queries[i] for i in idx])
        if len(by_q) < 2:
            continue
        total = unit[idx].sum(axis=0)
        parts = [unit[idx[j]].sum(axis=0) for j in by_q.values()]
        num += total @ total - sum(p @ p for p in parts)
        den += idx.size**2 - sum(j.size**2 for j in by_q.values())
        within += [s_bar[(model, q)] for q in by_q if (model, q) in s_bar]
    if den == 0 or not within:
        return None
    across = num / den
    return {
        "within": float(np.mean(within)),
        "across": float(across),
        "gap": float(np.mean(within) - across),
    }


# ---------------------------------------------------------------------------------- calibration
def item_table(items: RatedItems) -> dict[str, np.ndarray]:
    """Per item: mean label, entropy (bits), Gini impurity, P_dis (pairwise), κ_i and ties."""
    out = {
        "query": items.queries,
        "n_ratings": items.counts.sum(axis=1),
        "mean": items.mean_label,
        "entropy": hm.entropy_bits(items.counts),
        "gini": hm.gini_impurity(items.counts),
        "kappa": hm.item_kappa(items.counts),
    }
    if items.kind == "pairwise":
        out["p_dis"] = hm.p_disagree(items.counts)
        out["ties"] = items.counts[:, 2]
    return out


def calibration(
    items: RatedItems,
    *,
    n_boot: int = 1000,
    rng: np.random.Generator | int | None = 0,
    pairwise_ties: str = "cut",
) -> list[dict[str, Any]]:
    """Spearman (and Pearson) of every scorer against the mean human label on the full set and on
    the paper's subsets, with N, Δρ = ρ_subset − ρ_full and a bootstrap CI over queries.
    Absolute: Tukey fences on the item means (similar quality), top fractions by entropy
    (disagreement), keeping items tied at the cut as the paper's N does. Pairwise: top fractions by
    tie count (similar) and by P_dis (disagreed), exactly int(f·n) items each as in the authors'
    code (``pairwise_ties="cut"``) or every item tied at the cut (``"keep"``); see
    :func:`theory.hivemind.top_fraction_subset`."""
    rng = np.random.default_rng(rng)
    table = item_table(items)
    rows = []
    subsets = _subsets(items, table, pairwise_ties)
    for name, score in items.scores.items():
        rho_full = hm.spearman(score, table["mean"])
        for subset, param, mask in subsets:
            n = int(mask.sum())
            rho = hm.spearman(score[mask], table["mean"][mask]) if n >= 3 else float("nan")
            ci = (
                bootstrap_over_queries(
                    score[mask], table["mean"][mask], items.queries[mask], n_boot=n_boot, rng=rng
                )
                if n >= 3 and np.unique(items.queries[mask]).size > 1
                else (float("nan"), float("nan"))
            )
            rows.append(
                {
                    "scorer": name,
                    "subset": subset,
                    "param": param,
                    "n": n,
                    "spearman": rho,
                    "pearson": hm.pearson(score[mask], table["mean"][mask])
                    if n >= 3
                    else float("nan"),
                    "delta_spearman": rho - rho_full,
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                }
            )
    return rows


def _subsets(
    items: RatedItems, table: dict[str, np.ndarray], pairwise_ties: str
) -> list[tuple[str, float | None, np.ndarray]]:
    """(name, parameter, item mask) of the full set and the paper's subsets (see
    :func:`calibration`)."""
    subsets: list[tuple[str, float | None, np.ndarray]] = [
        ("full", None, np.ones(items.queries.size, dtype=bool))
    ]
    if items.kind == "absolute":
        subsets += [("tukey", k, hm.tukey_subset(table["mean"], k)) for k in hm.TUKEY_KS]
        subsets += [
            # the paper's entropy N (123 at 16% of 750) counts every item tied at the cut
            ("entropy_top", f, hm.top_fraction_subset(table["entropy"], f, ties="keep"))
            for f in hm.ENTROPY_TOP_FRACTIONS
        ]
    else:
        subsets += [
            ("ties_top", f, hm.top_fraction_subset(table["ties"], f, ties=pairwise_ties))
            for f in hm.PAIRWISE_TOP_FRACTIONS
        ]
        subsets += [
            ("p_dis_top", f, hm.top_fraction_subset(table["p_dis"], f, ties=pairwise_ties))
            for f in hm.PAIRWISE_TOP_FRACTIONS
        ]
    return subsets


#: Seconds one bootstrap resample of a subset takes (:func:`sims.hivemind.bootstrap_over_queries`
#: with Spearman): a fixed part and a part per item, measured on the 2-core development machine
#: under load (0.17 ms at 12 items, 0.55 ms at 1,000 and 2.7 ms at 5,000, one item per query).
BOOT_SECONDS_FIXED = 1.7e-4
BOOT_SECONDS_PER_ITEM = 5e-7


def calibration_seconds(items: RatedItems, n_boot: int, pairwise_ties: str = "cut") -> float:
    """Rough CPU seconds of :func:`calibration`'s bootstraps: ``n_boot`` resamples of every
    subset of 3 or more items, for every scorer (good to a factor of about 2)."""
    sizes = [int(m.sum()) for _, _, m in _subsets(items, item_table(items), pairwise_ties)]
    per_resample = sum(BOOT_SECONDS_FIXED + BOOT_SECONDS_PER_ITEM * n for n in sizes if n >= 3)
    return len(items.scores) * n_boot * per_resample


# ---------------------------------------------------------------------------------------- figures
def plot_diversity(div: dict[str, Any], out_dir: Path) -> list[Path]:
    """Similarity histograms (Figure 4 style heatmap), the inter-model heatmap (Figure 6) and the
    top-N distinct-model curve with its references (Figure 8)."""
    from paper_checks._files import save_figure
    from paper_checks.plotting import THEORY, new_figure

    paths = []
    models = [row["model"] for row in div["intra"]]
    fig, ax = new_figure(figsize=(6.5, 1.2 + 0.3 * len(models)))
    hist = np.array([row["histogram"] for row in div["intra"]])
    im = ax.imshow(hist, aspect="auto", cmap="viridis", vmin=0, vmax=100)
    ax.set_xticks(range(10), [f"{b / 10:.1f}" for b in range(10)], fontsize="small")
    ax.set_yticks(range(len(models)), models, fontsize="small")
    ax.set_xlabel("mean pairwise similarity s̄ (bin start)")
    ax.set_title("% of queries per bin", fontsize="small")
    ax.grid(visible=False)
    fig.colorbar(im, ax=ax)
    paths += save_figure(fig, out_dir, "hivemind_intra", out_dir)

    fig, ax = new_figure(figsize=(1.8 + 0.45 * len(div["models"]), 1.2 + 0.45 * len(div["models"])))
    im = ax.imshow(div["inter"], cmap="magma")
    ticks = range(len(div["models"]))
    ax.set_xticks(ticks, div["models"], rotation=90, fontsize="small")
    ax.set_yticks(ticks, div["models"], fontsize="small")
    ax.set_title(
        "inter-model similarity"
        + (" (self-pairs in diagonal)" if div["include_self_pairs"] else ""),
        fontsize="small",
    )
    ax.grid(visible=False)
    fig.colorbar(im, ax=ax)
    paths += save_figure(fig, out_dir, "hivemind_inter", out_dir)

    topn = div["topn"]
    if topn["n"]:
        fig, ax = new_figure()
        ax.plot(
            topn["n"], topn["interchangeable"], "-", color=THEORY, label="interchangeable (theory)"
        )
        ax.plot(topn["n"], topn["disjoint"], "--", color=THEORY, label="disjoint (theory)")
        ax.plot(topn["n"], topn["measured"], "o", ms=3.5, mfc="none", label="measured")
        if topn.get("headline_n"):
            ax.axvline(topn["headline_n"], color="0.6", lw=0.6, ls=":", label="headline N")
        ax.set_xlabel("N nearest neighbours")
        ax.set_ylabel("distinct models")
        ax.legend(fontsize="small")
        paths += save_figure(fig, out_dir, "hivemind_topn", out_dir)
    return paths


def plot_calibration(rows: list[dict[str, Any]], out_dir: Path, stem: str) -> list[Path]:
    """Spearman ρ (with bootstrap CI) of each scorer on the full set and each subset."""
    from paper_checks._files import save_figure
    from paper_checks.plotting import new_figure

    scorers = list(dict.fromkeys(r["scorer"] for r in rows))
    subsets = list(dict.fromkeys((r["subset"], r["param"]) for r in rows))
    fig, ax = new_figure(figsize=(max(4.2, 0.5 * len(subsets) * len(scorers) ** 0.5 + 2), 3.4))
    width = 0.8 / len(scorers)
    x = np.arange(len(subsets))
    for i, scorer in enumerate(scorers):
        mine = {(r["subset"], r["param"]): r for r in rows if r["scorer"] == scorer}
        rho = np.array([mine[s]["spearman"] for s in subsets])
        lo = np.array([mine[s]["ci_low"] for s in subsets])
        hi = np.array([mine[s]["ci_high"] for s in subsets])
        err = np.nan_to_num(np.vstack([rho - lo, hi - rho]), nan=0.0)
        ax.bar(x + i * width - 0.4 + width / 2, np.nan_to_num(rho), width, yerr=err, label=scorer)
    labels = [name if p is None else f"{name} {p:g}" for name, p in subsets]
    ax.set_xticks(x, labels, rotation=60, fontsize="x-small")
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_ylabel("Spearman ρ vs mean human label")
    ax.legend(fontsize="x-small")
    return save_figure(fig, out_dir, stem, out_dir)
