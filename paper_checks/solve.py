"""``paper-checks solve``: the numeric core on the user's own input files."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from theory import passk

_ID_COLUMNS = ("problem", "problem_id", "id")
_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n"}


@dataclass(frozen=True)
class SampleCounts:
    """Per-problem sample counts read from one file."""

    path: Path
    ids: np.ndarray  # (P,) problem ids as strings (row numbers when the file has none)
    n: np.ndarray  # (P,) samples per problem
    c: np.ndarray  # (P,) correct samples per problem


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ValueError(f"--samples: no such file {str(path)!r}")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        rows = []
        for line_no, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(
                        f"--samples: {path}:{line_no} is not JSON ({err.msg})"
                    ) from None
                if not isinstance(row, dict):
                    raise ValueError(f"--samples: {path}:{line_no} is not a JSON object")
                rows.append({str(k).lower(): v for k, v in row.items()})
        return rows
    reader = csv.DictReader(text.splitlines())
    return [
        {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()} for row in reader
    ]


def _as_int(value: Any, what: str, where: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"--samples: {where}: {what} must be an integer (got {value!r})") from None


def _as_bool(value: Any, where: str) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"--samples: {where}: correct must be 0/1 or true/false (got {value!r})")


def read_sample_counts(path: str | Path) -> SampleCounts:
    """Read per-problem ``n,c`` rows or per-sample ``problem,correct`` rows from CSV or JSONL.

    An optional ``problem`` (or ``problem_id`` / ``id``) column names problems; several rows of
    the same problem (e.g. one per seed) are pooled, not averaged (rlvr.md §1).
    """
    path = Path(path)
    rows = _read_rows(path)
    if not rows:
        raise ValueError(f"--samples: {path} holds no rows")
    columns = set(rows[0])
    id_col = next((c for c in _ID_COLUMNS if c in columns), None)
    ids = np.array([str(r[id_col]) if id_col else str(i + 1) for i, r in enumerate(rows)])
    if {"n", "c"} <= columns:
        n = np.array([_as_int(r.get("n"), "n", f"{path} row {i + 1}") for i, r in enumerate(rows)])
        c = np.array([_as_int(r.get("c"), "c", f"{path} row {i + 1}") for i, r in enumerate(rows)])
        bad = np.flatnonzero((n < 1) | (c < 0) | (c > n))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"--samples: {path} row {i + 1}: need 0 <= c <= n and n >= 1 "
                f"(got n={n[i]}, c={c[i]})"
            )
        if id_col is None:  # one row per problem, named by its 1-based row number
            return SampleCounts(path, ids, n.astype(np.int64), c.astype(np.int64))
        uniq, inverse = np.unique(ids, return_inverse=True)
        # pooled integer sums (np.bincount with weights would return float64 counts)
        n_pooled = np.zeros(uniq.size, dtype=np.int64)
        c_pooled = np.zeros(uniq.size, dtype=np.int64)
        np.add.at(n_pooled, inverse, n)
        np.add.at(c_pooled, inverse, c)
        return SampleCounts(path, uniq, n_pooled, c_pooled)
    if "correct" in columns and id_col:
        correct = np.array(
            [_as_bool(r.get("correct"), f"{path} row {i + 1}") for i, r in enumerate(rows)]
        )
        uniq, n, c = passk.counts_from_samples(ids, correct)
        return SampleCounts(path, uniq, n, c)
    raise ValueError(
        f"--samples: {path} needs columns n,c (per problem) or problem,correct (per sample); "
        f"found {', '.join(sorted(columns))}"
    )


def solve_passk(
    paths: list[Path], *, k_max: int | None = None, plot: Path | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The pass@k table (k = 1, 2, 4, ...) of one or two sample files, and its plot.

    With two files (base, then RL) also the crossing k and the coverage sets (problems with
    c > 0). Returns the numbers and the lines of text the CLI prints.
    """
    if len(paths) > 2:
        raise ValueError("--samples: give one file, or two (base then RL)")
    data = [read_sample_counts(p) for p in paths]
    n_min = int(min(d.n.min() for d in data))
    if k_max is None:
        k_max = n_min
    if k_max > n_min:
        raise ValueError(
            f"--k-max must be <= the fewest samples of any problem ({n_min}), got {k_max}"
        )
    ks = 2 ** np.arange(int(np.log2(k_max)) + 1)
    labels = [d.path.stem for d in data]
    if len(set(labels)) < len(labels):  # e.g. base/samples.csv and rl/samples.csv
        labels = [f"{label} ({role})" for label, role in zip(labels, ("base", "RL"), strict=False)]
    curves = {
        label: passk.pass_at_k_curve(d.n, d.c, ks) for label, d in zip(labels, data, strict=True)
    }
    out: dict[str, Any] = {
        "k": ks.tolist(),
        "pass_at_k": {k: v.tolist() for k, v in curves.items()},
    }
    names = list(curves)
    header = ["k", *names] + (["RL - base"] if len(data) == 2 else [])
    lines = ["  ".join(f"{h:>12}" for h in header)]
    for i, k in enumerate(ks):
        values = [curves[name][i] for name in names]
        extra = [values[1] - values[0]] if len(data) == 2 else []
        lines.append(f"{k:>12}" + "".join(f"  {v:>12.4f}" for v in values + extra))
    crossing = None
    if len(data) == 2:
        base, rl = data
        if not np.array_equal(base.ids, rl.ids):
            raise ValueError(
                "--samples: the two files must hold the same problems (ids or row count)"
            )
        crossing = passk.crossing_k(ks, curves[names[0]], curves[names[1]])
        solved_base, solved_rl = base.c > 0, rl.c > 0
        coverage = {
            "both": int(np.sum(solved_base & solved_rl)),
            "base_only": int(np.sum(solved_base & ~solved_rl)),
            "rl_only": int(np.sum(~solved_base & solved_rl)),
            "neither": int(np.sum(~solved_base & ~solved_rl)),
        }
        where = (
            "none"
            if crossing.k_star is None
            else f"k* = {crossing.k_star:.3g} in {crossing.bracket}"
        )
        lines.append(f"crossing (base overtakes RL): {where}; sign changes: {crossing.n_crossings}")
        lines.append("coverage (c > 0): " + ", ".join(f"{k} {v}" for k, v in coverage.items()))
        base_only = base.ids[solved_base & ~solved_rl]
        if base_only.size:
            more = " ..." if base_only.size > 20 else ""
            lines.append("solved by base only: " + ", ".join(base_only[:20]) + more)
        out |= {
            "k_star": crossing.k_star,
            "n_crossings": crossing.n_crossings,
            "coverage": coverage,
        }
    if plot is not None:
        from paper_checks.plotting import new_figure, plot_pass_at_k, save_figure

        fig, ax = new_figure()
        plot_pass_at_k(ks, curves, ax=ax, crossing=crossing.k_star if crossing else None)
        ax.set_title(f"unbiased pass@k estimate, {data[0].ids.size} problems", fontsize="small")
        written = save_figure(fig, plot.parent, plot.stem)
        lines.append(f"plot: {written[0]} (and .pdf)")
    return out, lines


#: The CLI solves M_tr exactly up to this many canonical points (about a minute at |H| = 64 and 20
#: points on one core); beyond, it reports a certified lower bound.
EXACT_POINTS_CLI = 20


def solve_online(
    path: Path, *, max_n: int | None = None, export_tree: Path | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Ldim, VC and M_tr of the class in ``path`` (exact, or a certified lower bound when the class
    is too large for the exact DP), with an optimal sequence in the user's point labels."""
    from theory.online import ConceptClass
    from theory.online.certificates import mtr_lower_bound
    from theory.online.dims import littlestone_dim, littlestone_tree, vc_dim
    from theory.online.mtr import transductive_mistake_bound

    if max_n is not None and max_n < 1:
        raise ValueError(f"--max-n must be a positive integer (got {max_n})")
    H = ConceptClass.from_file(path)
    canon, _ = H.canonical()
    ldim, vc = littlestone_dim(H), vc_dim(H)
    reason = None
    if canon.n_points <= EXACT_POINTS_CLI:
        bound = transductive_mistake_bound(H, n=max_n)
        value, sequence, exact = bound.value, list(bound.sequence), True
    else:
        reason = (
            f"{canon.n_points} distinct non-constant points exceed the exact DP's "
            f"{EXACT_POINTS_CLI} on the command line"
        )
        if max_n is not None:
            raise ValueError(f"--max-n needs the exact DP, but {reason}")
        cert = mtr_lower_bound(H, rng=0, candidates=_construct_sequences(H, littlestone_tree(H)))
        value, sequence = cert.value, list(cert.sequence)
        exact = value >= min(ldim, int(np.floor(np.log2(H.n_hypotheses))))  # sandwiched
    out = {
        "ldim": ldim,
        "vc": vc,
        "mtr": value,
        "mtr_exact": exact,
        "sequence": sequence,
        "n_points": H.n_points,
        "n_hypotheses": H.n_hypotheses,
    }
    label = "M_tr" if max_n is None else f"M_tr(H, n={max_n})"
    lines = [
        (
            f"class: {H.n_hypotheses} hypotheses on {H.n_points} points "
            f"({canon.n_points} after merging constant, repeated and complementary points)"
        ),
        f"Ldim = {ldim}",
        f"VC = {vc}",
        f"{label} = {value}"
        if exact
        else f"{label} is at least {value} (certified lower bound: {reason})",
        "optimal sequence: " + " ".join(H.points[j] for j in sequence)
        if exact
        else "certifying sequence: " + " ".join(H.points[j] for j in sequence),
    ]
    if export_tree is not None:
        from sims.online import littlestone_tree_graph, write_graph

        write_graph(littlestone_tree_graph(littlestone_tree(H), H), export_tree)
        lines.append(f"Littlestone tree (depth {ldim}) written to {export_tree}")
    return out, lines


def _construct_sequences(H: Any, tree: Any) -> list[list[int]]:
    """The paper's CONSTRUCTSEQUENCE(ε, M) on the Littlestone tree witness (online.md §3), for a
    few (ε, M): candidate certificates for the lower-bound search."""
    from sims.online import construct_sequence

    if tree.depth < 1:
        return []
    grid = [(0.05, m) for m in range(1, min(tree.depth, 6) + 1)] + [(0.2, 2), (0.3, 3)]
    return [construct_sequence(H, eps, m, tree=tree).original_sequence.tolist() for eps, m in grid]


def _parse_widths(text: str) -> list[int]:
    try:
        widths = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--m must be comma-separated positive integers (got {text!r})") from None
    if not widths or min(widths) < 1:
        raise ValueError(f"--m must be comma-separated positive integers (got {text!r})")
    return sorted(set(widths))


def solve_superposition(
    *,
    n: int,
    widths: str,
    alpha: float,
    gamma: float,
    steps: int = 4000,
    batch: int = 512,
    seeds: int = 1,
    backend: str = "numpy",
    seed: int = 0,
) -> tuple[dict[str, Any], list[str]]:
    """Train the toy model of the superposition paper at the widths ``widths`` ("10,20,40"), one
    batched stack per seed, and return per width the seed-mean loss, φ_{1/2}, φ_1 and the fitted
    width exponent α_m with its bootstrap CI (needs ≥ 3 widths)."""
    import math

    from sims.superposition import TrainConfig, single_threaded_blas, train_task
    from sims.sweep import run_sweep
    from theory.fits import fit_power_law

    ms = _parse_widths(widths)
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"--alpha must be a finite number >= 0 (got {alpha!r})")
    if not math.isfinite(gamma):
        raise ValueError(f"--gamma must be a finite number (got {gamma!r})")
    params = {
        "n": n,
        "widths": ms,
        "gammas": [gamma],
        "alpha": alpha,
        "steps": steps,
        "batch": batch,
        "backend": backend,
    }
    TrainConfig(**{k: v for k, v in params.items() if k != "backend"})  # validates sizes
    with single_threaded_blas():
        records = run_sweep(train_task, [params], n_seeds=seeds, root_seed=seed)
    per_seed = np.array([[m["loss"] for m in r["result"]["models"]] for r in records])  # (S, M)
    phi_half = np.array([[m["phi_half"] for m in r["result"]["models"]] for r in records])
    phi_one = np.array([[m["phi_one"] for m in r["result"]["models"]] for r in records])
    loss = per_seed.mean(axis=0)
    out: dict[str, Any] = {
        "n": n,
        "alpha": alpha,
        "gamma": gamma,
        "steps": steps,
        "batch": batch,
        "seeds": seeds,
        "m": ms,
        "loss": loss.tolist(),
        "loss_per_seed": per_seed.tolist(),
        "phi_half": phi_half.mean(axis=0).tolist(),
        "phi_one": phi_one.mean(axis=0).tolist(),
        "alpha_m": None,
        "alpha_m_ci": None,
        "r2": None,
    }
    lines = [
        f"n = {n}, α = {alpha:g}, γ = {gamma:g}, {steps} steps × batch {batch}, {seeds} seed(s)",
        f"{'m':>6}  {'loss':>10}  {'φ_1/2':>7}  {'φ_1':>7}",
    ]
    for j, m in enumerate(ms):
        lines.append(
            f"{m:>6}  {loss[j]:>10.5f}  {out['phi_half'][j]:>7.3f}  {out['phi_one'][j]:>7.3f}"
        )
    if len(ms) >= 3 and np.all(loss > 0):
        fit = fit_power_law(ms, loss, n_boot=1000, rng=seed)
        out |= {"alpha_m": -fit.exponent, "alpha_m_ci": [-fit.ci_high, -fit.ci_low], "r2": fit.r2}
        lines.append(
            f"α_m = {-fit.exponent:.3f}, 95% CI [{-fit.ci_high:.3f}, {-fit.ci_low:.3f}], R² = {fit.r2:.3f} "
            "(L ∝ m^−α_m; strong regime theory: 1)"
        )
    else:
        lines.append("α_m: give at least 3 widths to fit L ∝ m^−α_m")
    return out, lines
