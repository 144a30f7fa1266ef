"""``paper-checks solve``: the numeric core on the user's own input files."""

from __future__ import annotations

import contextlib
import csv
import logging
import math
import warnings
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sims.bootstrap import PassAtKBootstrap
    from theory import passk

_ID_COLUMNS = ("problem", "problem_id", "id")
_SEED_COLUMNS = ("seed", "run")
_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n"}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SampleCounts:
    """Per-problem sample counts read from one file."""

    path: Path
    ids: np.ndarray  # (P,) problem ids as strings (row numbers when the file has none)
    n: np.ndarray  # (P,) samples per problem
    c: np.ndarray  # (P,) correct samples per problem


#: Bytes of memory that reading a samples file takes at its peak, per line and per byte: each
#: line becomes a Python dict of strings (measured on files of 10^6 rows: 424 bytes a line for
#: `problem,correct` CSV, 445 for `n,c` CSV, 529 for JSONL, beside the text itself).
SAMPLES_MEMORY_PER_LINE = 500
SAMPLES_MEMORY_PER_BYTE = 4


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a samples file as dicts of lower-case column names, refused before they are
    parsed when their memory estimate (:data:`SAMPLES_MEMORY_PER_LINE` per line and
    :data:`SAMPLES_MEMORY_PER_BYTE` per byte of the file) exceeds the memory available."""
    from paper_checks._inputs import (
        _size,
        check_memory,
        csv_records,
        loads_strict,
        read_input_text,
        text_lines,
    )

    text = read_input_text(path, "--samples")
    size, lines = path.stat().st_size, text.count("\n") + 1
    check_memory(
        SAMPLES_MEMORY_PER_LINE * lines + SAMPLES_MEMORY_PER_BYTE * size,
        f"--samples {str(path)!r} ({_size(size)}, {lines} lines)",
    )
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        rows = []
        for line_no, line in enumerate(text_lines(text), 1):
            if line.strip():
                try:
                    row = loads_strict(line)
                except ValueError as err:  # json.JSONDecodeError, NaN, Infinity, 1e999
                    msg = getattr(err, "msg", str(err))
                    raise ValueError(f"--samples: {path}:{line_no} is not JSON ({msg})") from None
                if not isinstance(row, dict):
                    raise ValueError(f"--samples: {path}:{line_no} is not a JSON object")
                rows.append({str(k).lower(): v for k, v in row.items()})
        return rows
    try:
        records = csv_records(text)
    except csv.Error as err:  # e.g. a field over csv's field size limit
        raise ValueError(f"--samples: {path} is not a readable CSV file ({err})") from None
    records = [r for r in records if any(field.strip() for field in r)]
    if not records:
        return []
    header = [name.strip().lower() for name in records[0]]
    repeated = next((name for i, name in enumerate(header) if name in header[:i]), None)
    if repeated is not None:  # a row's dict would keep the last column of that name
        raise ValueError(f"--samples: {path} line 1: the column {repeated!r} is repeated")
    for line, record in enumerate(records[1:], 2):
        if len(record) != len(header):
            raise ValueError(
                f"--samples: {path} row {line - 1} has {len(record)} fields, the header "
                f"{len(header)} ({','.join(header)})"
            )
    return [
        {name: field.strip() for name, field in zip(header, record, strict=True)}
        for record in records[1:]
    ]


#: n above this is refused before any table is built (int64 and float index arithmetic stay exact).
MAX_SAMPLES_PER_PROBLEM = 2**53


def _as_int(value: Any, what: str, where: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"--samples: {where}: {what} must be an integer (got {value!r})")  # noqa: TRY004
    from paper_checks._inputs import ascii_int

    try:  # a JSON integer, or a CSV field or JSON string in ASCII digits
        number = value if isinstance(value, int) else ascii_int(str(value).strip())
    except ValueError:
        shown = f"{str(value)[:20]}..." if len(str(value)) > 20 else str(value)
        raise ValueError(f"--samples: {where}: {what} must be an integer (got {shown!r})") from None
    if abs(number) > MAX_SAMPLES_PER_PROBLEM:
        raise ValueError(
            f"--samples: {where}: {what} = {str(number)[:30]} is beyond the supported "
            f"{MAX_SAMPLES_PER_PROBLEM} (2^53)"
        )
    return number


def _as_bool(value: Any, where: str) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"--samples: {where}: correct must be 0/1 or true/false (got {value!r})")


def _seed_column(rows: list[dict[str, Any]], path: Path) -> str | None:
    """The seed (or run) column named on the first row, which every row must then give."""
    column = next((c for c in _SEED_COLUMNS if rows and c in rows[0]), None)
    if column is not None:
        missing = next((i for i, r in enumerate(rows) if r.get(column) is None), None)
        if missing is not None:
            raise ValueError(
                f"--samples: {path} row {missing + 1} has no {column!r} (row 1 has one)"
            )
    return column


def read_sample_counts(path: str | Path, *, seed: str | None = None) -> SampleCounts:
    """Read per-problem ``n,c`` rows or per-sample ``problem,correct`` rows from CSV or JSONL.

    An optional ``problem`` (or ``problem_id`` / ``id``) column names problems; several rows of
    the same problem (e.g. one per seed) are pooled, not averaged, as Yue et al. 2025 (arXiv
    2504.13837) pool the samples of separate sampling runs. With ``seed``,
    only the rows whose ``seed`` (or ``run``) column holds that value are read.
    """
    from paper_checks._inputs import check_labels

    path = Path(path)
    rows = _read_rows(path)
    if seed is not None:
        column = _seed_column(rows, path)
        rows = [r for r in rows if column and str(r[column]) == seed]
    if not rows:
        raise ValueError(f"--samples: {path} holds no rows")
    columns = set(rows[0])
    id_col = next((c for c in _ID_COLUMNS if c in columns), None)
    missing = next((i for i, r in enumerate(rows) if id_col and r.get(id_col) is None), None)
    if missing is not None:
        raise ValueError(f"--samples: {path} row {missing + 1} has no {id_col!r}")
    ids = np.array([str(r[id_col]) if id_col else str(i + 1) for i, r in enumerate(rows)])
    check_labels(ids.tolist(), f"--samples: {path}", "row", unique=False)  # printed in sets
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
            _check_table_memory(int(n.max()), path)
            return SampleCounts(path, ids, n.astype(np.int64), c.astype(np.int64))
        if float(np.sum(n.astype(np.float64))) >= 2.0**62:  # pooled sums must not wrap
            raise ValueError(f"--samples: {path}: the pooled n of a problem exceeds 2^62")
        uniq, inverse = np.unique(ids, return_inverse=True)
        # pooled integer sums (np.bincount with weights would return float64 counts)
        n_pooled = np.zeros(uniq.size, dtype=np.int64)
        c_pooled = np.zeros(uniq.size, dtype=np.int64)
        np.add.at(n_pooled, inverse, n)
        np.add.at(c_pooled, inverse, c)
        _check_table_memory(int(n_pooled.max()), path)
        return SampleCounts(path, uniq, n_pooled, c_pooled)
    if "correct" in columns and id_col:
        correct = np.array(
            [_as_bool(r.get("correct"), f"{path} row {i + 1}") for i, r in enumerate(rows)]
        )
        from theory import passk

        uniq, n, c = passk.counts_from_samples(ids, correct)
        return SampleCounts(path, uniq, n, c)
    raise ValueError(
        f"--samples: {path} needs columns n,c (per problem) or problem,correct (per sample); "
        f"found {', '.join(sorted(columns))}"
    )


def _check_table_memory(n_max: int, path: Path) -> None:
    """pass@k keeps a float64 prefix table of length max(n) and three temporaries as long (see
    :func:`theory.passk.pass_at_k`): refuse an n whose table does not fit in memory."""
    from paper_checks._inputs import check_memory

    check_memory(32.0 * n_max, f"--samples: {path}: n = {n_max} (pass@k table of length n)")


def read_seed_counts(path: str | Path) -> tuple[str | None, dict[str, SampleCounts]]:
    """Per-seed counts of a file whose rows carry a ``seed`` (or ``run``) column: that column's
    name and one ``SampleCounts`` per distinct value (in order of first appearance), each read
    with ``read_sample_counts(path, seed=value)``; (None, {}) when the file has no such column
    or a single seed. Each seed must name its problems (a ``problem`` column), since the pooled
    view adds the seeds' rows of a problem together."""
    path = Path(path)
    rows = _read_rows(path)
    column = _seed_column(rows, path)
    seeds = [] if column is None else list(dict.fromkeys(str(r[column]) for r in rows))
    if column is None or len(seeds) < 2:
        return None, {}
    if not any(c in rows[0] for c in _ID_COLUMNS):
        raise ValueError(
            f"--samples: {path} has a {column} column but no problem column, so its seeds "
            "cannot be pooled per problem"
        )
    return column, {s: read_sample_counts(path, seed=s) for s in seeds}


def _labels(paths: Sequence[Path]) -> list[str]:
    """Short model labels: the file stems without their common prefix up to a separator
    (``run.seed0.base``, ``run.seed0.rl`` -> ``base``, ``rl``); equal stems get their role
    (two files: base, RL) or position appended."""
    stems = [p.stem for p in paths]
    common = 0  # length of the stems' common character prefix
    while len(stems) > 1 and all(len(s) > common and s[common] == stems[0][common] for s in stems):
        common += 1
    prefix = stems[0][:common]
    cut = max(prefix.rfind(sep) for sep in "._- ") + 1
    short = [s[cut:] for s in stems]
    if cut and all(short) and len(set(short)) == len(short):
        stems = short
    if len(set(stems)) < len(stems):
        roles = ("base", "RL") if len(stems) == 2 else [str(i + 1) for i in range(len(stems))]
        stems = [f"{s} ({r})" for s, r in zip(stems, roles, strict=True)]
    return stems


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    return [
        "  ".join(f"{v:>{w}}" for v, w in zip(row, widths, strict=True)) for row in [header, *rows]
    ]


def _ci_text(low: float, high: float, fmt: str) -> str:
    return f"[{low:{fmt}}, {high:{fmt}}]"


def _coverage_sets(labels: list[str], data: list[SampleCounts]) -> list[dict[str, Any]]:
    """UpSet counts: for each pattern of which models solve a problem (c > 0), how many
    problems; most common first, then by pattern."""
    solved = np.stack([d.c > 0 for d in data], axis=1)  # (P, M)
    patterns, counts = np.unique(solved, axis=0, return_counts=True)
    order = sorted(range(len(counts)), key=lambda i: (-counts[i], [not v for v in patterns[i]]))
    return [
        {
            "solved_by": [lab for lab, v in zip(labels, patterns[i], strict=True) if v],
            "problems": int(counts[i]),
        }
        for i in order
    ]


def _paired_crossing(ks: np.ndarray, base: np.ndarray, other: np.ndarray) -> passk.Crossing:
    """``crossing_k`` of the mean per-problem difference ``other - base`` (K, P), with the
    tie rule of ``bootstrap_pass_at_k``: |Δ| within 1e-10 of the mean |difference| is a tie."""
    from theory import passk

    delta = other - base
    return passk.crossing_k(ks, np.zeros(ks.size), delta.mean(axis=1), np.abs(delta).mean(axis=1))


def _per_seed(
    paths: Sequence[Path], labels: list[str], ks: np.ndarray
) -> tuple[dict[str, Any] | None, list[str]]:
    """Per-seed curves and crossings when the files' rows carry a seed (or run) column."""
    from theory.passk import pass_at_k

    columns, by_file = zip(*(read_seed_counts(p) for p in paths), strict=True)
    if not any(by_file):
        return None, []
    seeds = list(by_file[0])
    if any(set(s) != set(seeds) for s in by_file):
        return None, ["per seed: skipped (the files do not carry the same seeds)"]
    n_min = min(int(d.n.min()) for s in by_file for d in s.values())
    ks_seed = ks[ks <= n_min]
    if ks_seed.size == 0:
        return None, [f"per seed: skipped (every k exceeds a seed's fewest samples, {n_min})"]
    curves: dict[str, dict[str, list[float]]] = {}
    k_star: dict[str, dict[str, float | None]] = {}
    for seed in seeds:
        data = [s[seed] for s in by_file]
        if any(not np.array_equal(d.ids, data[0].ids) for d in data):
            raise ValueError(
                f"--samples: seed {seed} does not hold the same problems in every file"
            )
        # (M, K, P): per-problem estimates of this seed
        value = np.stack([[pass_at_k(d.n, d.c, int(k)) for k in ks_seed] for d in data])
        curves[seed] = {lab: v.mean(axis=1).tolist() for lab, v in zip(labels, value, strict=True)}
        k_star[seed] = {
            lab: _paired_crossing(ks_seed, value[0], v).k_star
            for lab, v in zip(labels[1:], value[1:], strict=True)
        }
    first, top = int(ks_seed[0]), int(ks_seed[-1])
    header = ["seed", *[f"{lab}@{first}" for lab in labels], *[f"{lab}@{top}" for lab in labels]]
    header += [f"k* {lab}" for lab in labels[1:]]
    rows = [
        [
            seed,
            *[f"{curves[seed][lab][0]:.4f}" for lab in labels],
            *[f"{curves[seed][lab][-1]:.4f}" for lab in labels],
            *["none" if v is None else f"{v:.3g}" for v in k_star[seed].values()],
        ]
        for seed in seeds
    ]
    column = next(c for c in columns if c)
    lines = [f"per {column} (k <= {top}; the table above pools the seeds):", *_table(header, rows)]
    out = {"column": column, "seeds": seeds, "k": ks_seed.tolist(), "pass_at_k": curves}
    return out | {"k_star": k_star}, lines


def solve_passk(
    paths: Sequence[Path],
    *,
    k_max: int | None = None,
    ks: Sequence[int] | None = None,
    plot: Path | None = None,
    n_boot: int = 10_000,
    ci: float = 0.95,
    seed: int = 0,
) -> tuple[dict[str, Any], list[str]]:
    """pass@k of one or more sample files, with paired bootstrap CIs, at k = 1, 2, 4, ... up to
    ``k_max`` (default: the fewest samples n of any problem) or at the budgets ``ks`` (any k in
    1..n, sorted and deduplicated; not both).

    Every file must hold the same problems (the first file is the base). For each model and k:
    the unbiased estimate and its percentile CI over ``n_boot`` resamples of problems
    (``sims.bootstrap.bootstrap_pass_at_k``, seeded by ``seed``); for each further model: the
    difference to the base with its CI, the crossing k* (where the base overtakes it), the share
    of draws that cross and the CI of k* among them; the coverage sets (problems with c > 0) as
    UpSet counts; per-seed curves and k* when rows carry a seed (or run) column. Returns the
    numbers (the ``--json`` object) and the lines the CLI prints.
    """
    from sims.bootstrap import bootstrap_pass_at_k

    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"--n-boot must be a positive integer, got {n_boot!r}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"--ci must be in (0, 1), got {ci}")
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("--samples: give at least one file")
    data = [read_sample_counts(p) for p in paths]
    if any(not np.array_equal(d.ids, data[0].ids) for d in data[1:]):
        raise ValueError("--samples: every file must hold the same problems (ids or row count)")
    n_min = int(min(d.n.min() for d in data))
    if ks is not None:
        if k_max is not None:
            raise ValueError("--k: give --k or --k-max, not both")
        bad = [k for k in ks if isinstance(k, bool) or int(k) != k or not 1 <= k <= n_min]
        if not list(ks) or bad:
            raise ValueError(
                f"--k: each k must be an integer in [1, {n_min}] (the fewest samples of any "
                f"problem), got {bad[0] if bad else 'none'}"
            )
        ks = np.unique(np.asarray(ks, dtype=np.int64))
    else:
        if k_max is None:
            k_max = n_min
        if k_max > n_min:
            raise ValueError(
                f"--k-max must be <= the fewest samples of any problem ({n_min}), got {k_max}"
            )
        ks = 2 ** np.arange(int(np.log2(k_max)) + 1)
    from paper_checks._inputs import check_memory

    # the draws' curves of every model and difference, and the crossing k of each draw, in float64
    check_memory(8.0 * n_boot * (2 * len(data) * ks.size + len(data)), f"--n-boot {n_boot}")
    labels = _labels(paths)
    base = labels[0]
    boot = bootstrap_pass_at_k(
        [d.n for d in data], [d.c for d in data], ks, seed, n_boot=n_boot, level=ci
    )
    pct = f"{ci:.0%}" if round(ci * 100, 6) == round(ci * 100) else f"{ci:.1%}"
    out: dict[str, Any] = {
        "k": ks.tolist(),
        "problems": int(data[0].ids.size),
        "models": labels,
        "files": [str(p) for p in paths],
        "bootstrap": {"n_boot": int(n_boot), "ci": float(ci), "seed": int(seed)},
        "pass_at_k": {lab: boot.estimate[m].tolist() for m, lab in enumerate(labels)},
        "pass_at_k_ci": {
            lab: {"low": boot.low[m].tolist(), "high": boot.high[m].tolist()}
            for m, lab in enumerate(labels)
        },
        "difference": {},
        "crossing": {},
    }
    header = ["k"]
    for lab in labels:
        header += [lab, f"{pct} CI"]
    for lab in labels[1:]:
        header += [f"{lab} - {base}", f"{pct} CI"]
    rows = []
    for i, k in enumerate(ks):
        row = [str(k)]
        for m in range(len(labels)):
            row += [f"{boot.estimate[m, i]:.4f}", _ci_text(boot.low[m, i], boot.high[m, i], ".4f")]
        for m in range(len(labels) - 1):
            row += [
                f"{boot.difference[m, i]:+.4f}",
                _ci_text(boot.difference_low[m, i], boot.difference_high[m, i], "+.4f"),
            ]
        rows.append(row)
    lines = _table(header, rows)
    for m, lab in enumerate(labels[1:]):
        cross = boot.crossing[m]
        share = float(boot.crossing_share[m])
        k_ci = (
            None
            if np.isnan(boot.k_star_low[m])
            else [float(boot.k_star_low[m]), float(boot.k_star_high[m])]
        )
        out["difference"][lab] = {
            "vs": base,
            "estimate": boot.difference[m].tolist(),
            "low": boot.difference_low[m].tolist(),
            "high": boot.difference_high[m].tolist(),
        }
        out["crossing"][lab] = {
            "k_star": cross.k_star,
            "bracket": None if cross.bracket is None else list(cross.bracket),
            "n_crossings": cross.n_crossings,
            "share_crossing": share,
            "k_star_ci": k_ci,
        }
        where = "none" if cross.k_star is None else f"k* = {cross.k_star:.3g} in {cross.bracket}"
        spread = (
            "no draw crosses"
            if k_ci is None
            else f"{share:.1%} of draws cross, {pct} CI of k* among them "
            + _ci_text(k_ci[0], k_ci[1], ".3g")
        )
        lines.append(
            f"crossing ({base} overtakes {lab}): {where}; sign changes: {cross.n_crossings}; "
            f"bootstrap ({n_boot} draws): {spread}"
        )
    out["coverage_sets"] = _coverage_sets(labels, data)
    if len(data) > 1:
        lines.append("coverage sets (c > 0; x = solved), most common first:")
        lines += _table(
            [*labels, "problems"],
            [
                [*("x" if lab in s["solved_by"] else "." for lab in labels), str(s["problems"])]
                for s in out["coverage_sets"]
            ],
        )
        base_only = data[0].ids[(data[0].c > 0) & ~np.any([d.c > 0 for d in data[1:]], axis=0)]
        if base_only.size:
            more = " ..." if base_only.size > 20 else ""
            lines.append(f"solved by {base} only: " + ", ".join(base_only[:20]) + more)
    out["per_seed"], seed_lines = _per_seed(paths, labels, ks)
    lines += seed_lines
    out["plot"] = None
    if plot is not None:
        from paper_checks._files import save_figure

        fig = passk_figure(boot, labels, per_seed=out["per_seed"])
        written = save_figure(fig, plot.parent, plot.stem, plot.parent)
        out["plot"] = str(written[0])
        lines.append(f"plot: {written[0]} (and .pdf)")
    return out, lines


def passk_figure(
    boot: PassAtKBootstrap, labels: Sequence[str], *, per_seed: dict[str, Any] | None = None
) -> Figure:
    """Two panels: pass@k of every model (points joined, CI bands) and the differences to the
    base with their bands, k* and its CI; per-seed curves as thin lines; one legend below the
    axes, off the data."""
    from paper_checks.plotting import new_figure, plot_bands

    fig, (ax, ax_d) = new_figure(ncols=2)
    colours = {lab: f"C{m}" for m, lab in enumerate(labels)}
    pct = f"{boot.level:.0%}"
    handles: list[Any]
    handles = plot_bands(
        boot.ks,
        {lab: (boot.estimate[m], boot.low[m], boot.high[m]) for m, lab in enumerate(labels)},
        colours=colours,
        ax=ax,
    )
    handles += plot_bands(
        boot.ks,
        {
            f"{lab} − {labels[0]}": (
                boot.difference[m],
                boot.difference_low[m],
                boot.difference_high[m],
            )
            for m, lab in enumerate(labels[1:])
        },
        colours=[colours[lab] for lab in labels[1:]],
        ax=ax_d,
    )
    ax_d.axhline(0.0, color="0.5", lw=0.8)
    for m, lab in enumerate(labels[1:]):
        cross = boot.crossing[m]
        if cross.k_star is not None:
            handles.append(
                ax_d.axvline(
                    cross.k_star,
                    color=colours[lab],
                    ls=":",
                    lw=1,
                    label=f"k* ({lab}) ≈ {cross.k_star:.3g}",
                )
            )
        if not np.isnan(boot.k_star_low[m]):
            handles.append(
                ax_d.axvspan(
                    boot.k_star_low[m],
                    boot.k_star_high[m],
                    color=colours[lab],
                    alpha=0.08,
                    label=f"{pct} CI of k* ({lab}; {boot.crossing_share[m]:.0%} of draws cross)",
                )
            )
    if per_seed is not None:
        ks_seed = per_seed["k"]
        for curves in per_seed["pass_at_k"].values():
            for lab in labels:
                ax.plot(ks_seed, curves[lab], "-", lw=0.6, alpha=0.5, color=colours[lab])
            for lab in labels[1:]:
                diff = np.subtract(curves[lab], curves[labels[0]])
                ax_d.plot(ks_seed, diff, "-", lw=0.6, alpha=0.5, color=colours[lab])
        handles += ax.plot([], [], "-", lw=0.6, color="0.4", label=f"per {per_seed['column']}")
    ax.set(xlabel="k", ylabel="pass@k", xscale="log")
    ax_d.set(xlabel="k", ylabel=f"pass@k − pass@k ({labels[0]})", xscale="log")
    for a in (ax, ax_d):
        a.set_xscale("log", base=2)
    ax.set_title(f"{pct} bootstrap CIs over {boot.n_boot} resamples of problems", fontsize="small")
    fig.legend(handles=handles, loc="outside lower center", ncols=2, fontsize="small")
    return fig


#: The CLI solves M_tr exactly up to the library's limit (theory.online.mtr.MAX_POINTS canonical
#: points); beyond, it reports a certified lower bound. ``--time-limit`` is the guard.
EXACT_POINTS_CLI = 26

#: The exact DP's measured cost (``paper-checks bench --reach``, 2026-12-01, one core): |X| = 25
#: canonical points at |H| = 64 in 47 s and |X| = 21 at |H| = 256 in 47 s, doubling per point.
_DP_SECONDS_AT_25_64 = 47.0


def dp_seconds_estimate(n_points: int, n_hypotheses: int) -> float:
    """Rough CPU seconds of the exact M_tr DP on one core: 47 s · 2^(n − 25) · (|H|/64)^2, fitted
    to the two bench points above (good to a factor of a few; the real cost depends on how the
    class's cells split)."""
    return _DP_SECONDS_AT_25_64 * 2.0 ** (n_points - 25) * (max(n_hypotheses, 2) / 64) ** 2


def dp_memory_floor(n_points: int, n_hypotheses: int) -> int:
    """Bytes the exact M_tr DP (:func:`theory.online.mtr.transductive_mistake_bound`) holds at
    least at its peak on ``n_points`` canonical points and ``n_hypotheses`` hypotheses, counted
    from its tables: two (start, count) int64 index rows and one collision byte per point set
    (33·2^n), a parent point and row (9 bytes) per stored vector of every layer so far, and the
    vectors of two consecutive layers (|H| bytes each). Every point set's Pareto front holds at
    least one vector, so this is a floor; a class whose fronts hold several vectors needs a
    multiple of the vector part (measured on random classes of 18 points: ×1 at 64 hypotheses,
    ×1.7 at 128, ×9 at 256, ×66 at 512)."""
    n, h = n_points, n_hypotheses
    if n == 0 or h <= 1:
        return 0
    peak, parents = 0, 0
    for k in range(1, n + 1):
        layer = math.comb(n, k)
        parents += 9 * layer
        peak = max(peak, parents + (math.comb(n, k - 1) + layer) * h)
    return 33 * 2**n + peak


def _dp_sizes(n_points: int, max_n: int | None) -> tuple[int, int]:
    """(points of each DP, number of DPs): M_tr(H, n) for n below the canonical points solves
    one DP per n-point subset."""
    if max_n is None or max_n >= n_points:
        return n_points, 1
    return max_n, math.comb(n_points, max_n)


def _online_work(H: Any, max_n: int | None, put: Any) -> None:
    """Ldim with its Littlestone tree, VC with a shattered set, then M_tr (the exact DP, or a
    certified lower bound beyond :data:`EXACT_POINTS_CLI` points); each result is handed to
    ``put(kind, value)`` as soon as it is known (``"ldim"`` then ``"tree"``, ``"vc"`` then
    ``"vc_witness"``), and each DP layer as ``put("layer", (k, n))``."""
    from theory.online.certificates import mtr_lower_bound
    from theory.online.dims import littlestone_tree, vc_witness
    from theory.online.mtr import transductive_mistake_bound

    canon, _ = H.canonical()
    tree = littlestone_tree(H)
    ldim = tree.depth
    put("ldim", ldim)
    put("tree", tree)
    shattered = vc_witness(H)
    put("vc", len(shattered))
    put("vc_witness", list(shattered))
    if canon.n_points <= EXACT_POINTS_CLI:
        bound = transductive_mistake_bound(H, n=max_n, progress=lambda k, n: put("layer", (k, n)))
        put("mtr", (bound.value, list(bound.sequence), True, None))
        return
    reason = (
        f"{canon.n_points} distinct non-constant points exceed the exact DP's "
        f"{EXACT_POINTS_CLI} on the command line"
    )
    if max_n is not None:
        raise ValueError(f"--max-n needs the exact DP, but {reason}")
    cert = mtr_lower_bound(H, rng=0, candidates=_construct_sequences(H, tree))
    exact = cert.value >= min(ldim, int(np.floor(np.log2(H.n_hypotheses))))  # sandwiched
    put("mtr", (cert.value, list(cert.sequence), exact, reason))


def load_class(path: Path) -> Any:
    """The concept class in ``path`` by the rule :meth:`ConceptClass.from_file` follows
    (:mod:`theory.online.class_file`), the file read by
    :func:`paper_checks._inputs.read_input_text` (errors name ``--class``)."""
    from paper_checks._inputs import check_labels, read_input_text
    from theory.online import ConceptClass
    from theory.online.class_file import parse_class_json, parse_class_text

    text = read_input_text(path, "--class")
    if path.suffix.lower() != ".json":
        return ConceptClass.from_array(parse_class_text(text, str(path)))
    matrix, points = parse_class_json(text, str(path))
    if points is not None:  # printed one to a sequence: each must be one line, and name one point
        check_labels(points, f"--class {str(path)!r}", "point", unique=True)
    return ConceptClass.from_array(matrix, points)


#: The time limit of ``solve online`` on a class beyond the exact DP when ``--time-limit`` is
#: not given. There the VC and lower-bound searches take from a second to hours by how the class
#: shatters, which no size formula predicts (random classes: 250 hypotheses x 50 points in 1.4 s,
#: 500 x 100 over 5 min), so the command bounds them and says so before they start.
SEARCH_TIME_LIMIT_S = 600.0

#: Seconds between the rings of :func:`_within`'s alarm after the first.
RING_AGAIN_S = 0.05


class _TimeUp(BaseException):
    """Raised by the alarm of :func:`_within` (a BaseException: no reader may swallow it)."""


@contextlib.contextmanager
def _within(
    seconds: float | None, what: str, lost: str = "nothing is known of the class yet"
) -> Iterator[None]:
    """Stop the body after ``seconds`` (SIGALRM; only where signals reach it: the main thread of
    a POSIX process) with a ValueError saying that the time limit was reached during ``what``
    and what is ``lost``.

    The alarm rings again every :data:`RING_AGAIN_S` until the body has stopped: a ring that
    lands in a garbage collector's weakref callback or a ``__del__`` is swallowed there (Python
    passes it to ``sys.unraisablehook``, which here drops it unprinted), and the next ring
    stops the body."""
    import signal
    import sys
    import threading

    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if seconds is None or not usable:
        yield
        return

    def ring(*_: object) -> None:
        raise _TimeUp

    def drop_swallowed_rings(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, _TimeUp):
            previous_hook(unraisable)

    previous, previous_hook = signal.signal(signal.SIGALRM, ring), sys.unraisablehook
    sys.unraisablehook = drop_swallowed_rings
    try:
        try:  # the timer starts inside: a limit shorter than this line rings in the try
            signal.setitimer(signal.ITIMER_REAL, seconds, RING_AGAIN_S)
            yield
        finally:  # a ring pending here raises before the timer is off: caught below
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _TimeUp:
        raise ValueError(
            f"--time-limit {seconds:g} s was reached while {what}; {lost}: allow more time"
        ) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = previous_hook


#: prctl(2) option: the signal the kernel sends this process when its parent dies (Linux).
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies, whatever kills the parent
    (prctl PR_SET_PDEATHSIG on Linux; elsewhere the parent's ``finally`` stops the child, which
    SIGKILL of the parent skips); exit at once when the parent is already gone."""
    import ctypes
    import ctypes.util
    import os
    import signal
    import sys

    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request was made
        os._exit(1)


def _online_child(H: Any, max_n: int | None, queue: Any, parent_pid: int) -> None:
    """:func:`_online_work` in a child process that dies with its parent
    (:func:`_die_with_parent`), its results and its failure sent on ``queue``."""
    from paper_checks._compile_notice import announce_kernel_compiles

    _die_with_parent(parent_pid)
    announce_kernel_compiles()
    try:
        _online_work(H, max_n, lambda kind, value: queue.put((kind, value)))
    except ValueError as err:
        queue.put(("value_error", str(err)))
    except BaseException as err:  # noqa: BLE001  (reported to the parent, which re-raises)
        queue.put(("error", f"{type(err).__name__}: {err}"))


def _run_online(H: Any, max_n: int | None, time_limit: float | None) -> dict[str, Any]:
    """The results of :func:`_online_work`, with a progress bar on a TTY (stages, then the DP's
    layers). With ``time_limit`` the work runs in a child process that is stopped at the limit;
    ``"stopped_in"`` then names the stage it was in."""
    import multiprocessing
    import os
    import queue as queue_module
    import sys
    import time

    from tqdm.auto import tqdm

    results: dict[str, Any] = {}
    bar = tqdm(desc="solve online: Ldim", total=None, file=sys.stderr, disable=None, leave=False)

    def handle(kind: str, value: Any) -> None:
        results[kind] = value
        if kind == "layer":
            k, n = value
            bar.total = n
            bar.set_description("solve online: M_tr DP layer")
            bar.n = k
        else:
            stage = {"ldim": "VC", "tree": "VC"}.get(kind, "M_tr")  # the stage running now
            bar.set_description(f"solve online: {stage}")
        bar.refresh()

    try:
        if time_limit is None:
            _online_work(H, max_n, handle)
            return results
        ctx = multiprocessing.get_context("spawn")  # no fork of a threaded process
        channel = ctx.Queue()
        proc = ctx.Process(target=_online_child, args=(H, max_n, channel, os.getpid()), daemon=True)
        deadline = time.monotonic() + time_limit
        proc.start()
        try:
            while "mtr" not in results:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    kind, value = channel.get(timeout=min(remaining, 0.25))
                except queue_module.Empty:
                    if not proc.is_alive() and channel.empty():
                        raise RuntimeError("solve online: the solver process died") from None
                    continue
                if kind == "value_error":
                    raise ValueError(value)
                if kind == "error":
                    raise RuntimeError(f"solve online: {value}")
                handle(kind, value)
        finally:
            if proc.is_alive():
                proc.terminate()
            proc.join()
        if "mtr" not in results:
            results["stopped_in"] = (
                "Ldim" if "ldim" not in results else "VC" if "vc" not in results else "M_tr"
            )
        return results
    finally:
        bar.close()


def _duration(seconds: float) -> str:
    """ "0.4 s", "40 s", "12 min", "3.1 h"."""
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return f"{seconds:.2g} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _announce_dp(
    path: Path, n_points: int, n_hypotheses: int, max_n: int | None, time_limit: float | None
) -> None:
    """Log the exact DP's time and memory estimates before it starts (when it takes over 5 s or
    256 MiB), and refuse it (ValueError naming ``--class``) when its memory floor
    (:func:`dp_memory_floor`) exceeds the memory available now."""
    from paper_checks._inputs import _size, available_memory

    points, solves = _dp_sizes(n_points, max_n)
    seconds = solves * dp_seconds_estimate(points, n_hypotheses)
    memory = dp_memory_floor(points, n_hypotheses)
    free = available_memory()
    size = f"{points} points and {n_hypotheses} hypotheses" + (
        f" (each of the {solves} subsets that --max-n {max_n} selects)" if solves > 1 else ""
    )
    if memory > free:
        fewer = " or a smaller --max-n" if max_n is not None else ""
        raise ValueError(
            f"--class {str(path)!r}: the exact DP on {size} needs at least {_size(memory)} of "
            f"memory, more than the {_size(free)} available; use a class with fewer points or "
            f"hypotheses{fewer}"
        )
    if seconds > 5 or memory > 256 * 2**20:
        guard = f"--time-limit {time_limit:g} s" if time_limit else "no --time-limit set"
        logger.warning(
            "solve online: the exact DP on %s takes roughly %s on one core and at least %s of "
            "memory (more when its Pareto fronts hold several vectors, as in random classes of "
            "over 100 hypotheses; %s available) (%s)",
            size,
            _duration(seconds),
            _size(memory),
            _size(free),
            guard,
        )


def solve_online(
    path: Path,
    *,
    max_n: int | None = None,
    export_tree: Path | None = None,
    time_limit: float | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Ldim, VC and M_tr of the class in ``path`` (exact, or a certified lower bound when the class
    is too large for the exact DP), with an optimal sequence in the user's point labels.

    With ``time_limit`` (seconds) the solve stops there and reports certified bounds instead:
    M_tr(H, n) >= max(min(VC, n), 1) (a shattered set, or any non-constant point, forces a mistake
    per point) and M_tr(H, n) <= min(Ldim, ⌊log2 |H|⌋, n) (halving, and M_tr <= Ldim), using
    whichever of Ldim and VC finished."""
    import time

    if max_n is not None and max_n < 1:
        raise ValueError(f"--max-n must be a positive integer (got {max_n})")
    if time_limit is not None and not (time_limit > 0 and np.isfinite(time_limit)):
        raise ValueError(f"--time-limit must be a positive number of seconds (got {time_limit})")
    start = time.monotonic()
    with _within(time_limit, f"reading --class {str(path)!r}"):  # the limit covers the parsing
        H = load_class(path)
        canon, _ = H.canonical()
    if canon.n_points <= EXACT_POINTS_CLI:
        _announce_dp(path, canon.n_points, canon.n_hypotheses, max_n, time_limit)
    elif time_limit is None:
        time_limit = SEARCH_TIME_LIMIT_S
        logger.warning(
            "solve online: %d hypotheses on %d distinct points are beyond the exact DP (%d "
            "points); the VC and lower-bound searches on such a class take from a second to "
            "hours, by how it shatters rather than by its size (random classes: 250 x 50 in "
            "1.4 s, 500 x 100 over 5 min), so they stop after %g s with certified bounds "
            "(--time-limit S sets another limit)",
            canon.n_hypotheses,
            canon.n_points,
            EXACT_POINTS_CLI,
            time_limit,
        )
    remaining = None if time_limit is None else max(time_limit - (time.monotonic() - start), 1e-3)
    res = _run_online(H, max_n, remaining)
    label = "M_tr" if max_n is None else f"M_tr(H, n={max_n})"
    distinct = int(np.unique(H.matrix, axis=0).shape[0])
    rows = (
        f"{H.n_hypotheses} hypotheses"
        if distinct == H.n_hypotheses
        else f"{H.n_hypotheses} rows, {distinct} distinct hypotheses"
    )
    head = (
        f"class: {rows} on {H.n_points} points "
        f"({canon.n_points} after merging constant, repeated and complementary points)"
    )
    witnesses = {
        "points": list(H.points),
        "n_points": H.n_points,
        "n_canonical_points": canon.n_points,
        "n_rows": H.n_hypotheses,
        "n_distinct_hypotheses": distinct,
        "littlestone_tree": _tree_document(res["tree"]) if "tree" in res else None,
        "vc_witness": res.get("vc_witness"),
    }
    ldim, vc = res.get("ldim"), res.get("vc")
    if "mtr" not in res:
        return _online_bounds(res, H, max_n, label, head, time_limit, export_tree, witnesses)
    value, sequence, exact, reason = res["mtr"]
    out = {
        "ldim": ldim,
        "vc": vc,
        "mtr": value,
        "mtr_exact": exact,
        "sequence": sequence,
        **witnesses,
    }
    lines = [
        head,
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
        from paper_checks._files import write_with
        from sims.online import littlestone_tree_graph, write_graph

        graph = littlestone_tree_graph(res["tree"], H)
        write_with(export_tree, lambda tmp: write_graph(graph, tmp))
        lines.append(f"Littlestone tree (depth {ldim}) written to {export_tree}")
    return out, lines


def _online_bounds(
    res: dict[str, Any],
    H: Any,
    max_n: int | None,
    label: str,
    head: str,
    time_limit: float | None,
    export_tree: Path | None,
    witnesses: dict[str, Any],
) -> tuple[dict[str, Any], list[str]]:
    """The certified bounds on M_tr when the time limit stopped the solve (see solve_online);
    ``witnesses``: the class's counts and whichever of the tree and shattered set finished."""
    canon, _ = H.canonical()
    ldim, vc = res.get("ldim"), res.get("vc")
    n_eff = canon.n_points if max_n is None else min(max_n, canon.n_points)
    nonconstant = int(canon.n_points >= 1 and canon.n_hypotheses >= 2 and n_eff >= 1)
    lower, why_lower = nonconstant, "a non-constant point forces one mistake"
    if nonconstant == 0:
        why_lower = "the class is constant on every point"
    if vc is not None and min(vc, n_eff) > lower:
        lower, why_lower = min(vc, n_eff), "VC: a shattered set forces a mistake per point"
    candidates = [(n_eff, "the sequence has that many distinct points")]
    if canon.n_hypotheses >= 1:
        halving = int(np.floor(np.log2(max(canon.n_hypotheses, 1))))
        candidates.append((halving, "halving: ⌊log2 |H|⌋"))
    if ldim is not None:
        candidates.append((ldim, "M_tr <= Ldim"))
    upper, why_upper = min(candidates, key=lambda c: c[0])
    out = {
        "ldim": ldim,
        "vc": vc,
        "mtr": lower if lower == upper else None,
        "mtr_exact": lower == upper,
        "mtr_lower": lower,
        "mtr_upper": upper,
        "time_limit_reached": True,
        "sequence": None,
        **witnesses,
    }
    stopped = f"time limit {time_limit:g} s reached in {res['stopped_in']}"
    lines = [
        head,
        f"Ldim = {ldim}" if ldim is not None else "Ldim: not computed (time limit)",
        f"VC = {vc}" if vc is not None else "VC: not computed (time limit)",
        (
            f"{label} = {lower} ({stopped}, but the certified bounds meet)"
            if lower == upper
            else f"{label} is at least {lower} and at most {upper} ({stopped})"
        ),
        f"certified: at least {lower} ({why_lower}); at most {upper} ({why_upper})",
    ]
    if export_tree is not None:
        lines.append(f"Littlestone tree not written to {export_tree} (time limit)")
    return out, lines


def _tree_document(tree: Any) -> dict[str, Any]:
    """A :class:`theory.online.dims.LittlestoneTree` for ``--json``: ``depth`` (= Ldim),
    ``nodes`` (node bit string, "" the root and s + "0"/"1" its children after labelling its point
    0/1 -> the node's point, a column index into ``points``) and ``witnesses`` (leaf bit string ->
    a row of the class file, 0-based, realising that path)."""
    return {"depth": tree.depth, "nodes": dict(tree.nodes), "witnesses": dict(tree.witnesses)}


def _construct_sequences(H: Any, tree: Any) -> list[list[int]]:
    """The paper's CONSTRUCTSEQUENCE(ε, M) (its Alg. 1–2; docs/online.md) on the Littlestone tree
    witness, for a
    few (ε, M): candidate certificates for the lower-bound search."""
    from sims.online import construct_sequence

    if tree.depth < 1:
        return []
    grid = [(0.05, m) for m in range(1, min(tree.depth, 6) + 1)] + [(0.2, 2), (0.3, 3)]
    return [construct_sequence(H, eps, m, tree=tree).original_sequence.tolist() for eps, m in grid]


def solve_hivemind(
    gens_path: Path,
    *,
    ratings: list[Path] | None = None,
    embedder: str = "hash",
    out_dir: Path = Path("hivemind-report"),
    cache_dir: Path | None = None,
    include_self_pairs: bool = False,
    cutoffs: Sequence[float] = (0.7, 0.8, 0.9),
    n_boot: int = 1000,
    seed: int = 0,
    pairwise_ties: str = "cut",
    time_limit: float | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The Hivemind report on the user's generations (and ratings): tables as JSON and CSV and the
    figures in ``out_dir`` (see :mod:`paper_checks.hivemind_report` for the formats).
    ``pairwise_ties`` is the tie rule of the pairwise top-fraction subsets ("cut": exactly
    int(f·n) items, the authors' rule; "keep": every item tied at the cut).

    The calibration bootstrap's time (:func:`paper_checks.hivemind_report.calibration_seconds`)
    is logged before it starts when over 5 s. With ``time_limit`` (seconds) the whole command,
    reading included, stops there with a ValueError, and a bootstrap estimated to need more than
    the time left is refused before it starts; report.json is written last, so a stopped run
    leaves none."""
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"--time-limit must be a positive number of seconds (got {time_limit})")
    with _within(time_limit, "computing the Hivemind report", "no report.json was written"):
        return _solve_hivemind(
            gens_path,
            ratings=ratings,
            embedder=embedder,
            out_dir=out_dir,
            cache_dir=cache_dir,
            include_self_pairs=include_self_pairs,
            cutoffs=cutoffs,
            n_boot=n_boot,
            seed=seed,
            pairwise_ties=pairwise_ties,
            time_limit=time_limit,
        )


def _solve_hivemind(
    gens_path: Path,
    *,
    ratings: list[Path] | None,
    embedder: str,
    out_dir: Path,
    cache_dir: Path | None,
    include_self_pairs: bool,
    cutoffs: Sequence[float],
    n_boot: int,
    seed: int,
    pairwise_ties: str,
    time_limit: float | None,
) -> tuple[dict[str, Any], list[str]]:
    """:func:`solve_hivemind` inside its time limit."""
    import time

    from neural.hivemind import VectorEmbedder, make_embedder
    from paper_checks import hivemind_report as hr
    from paper_checks._files import check_tree, write_json
    from sims._jsonio import to_jsonable

    start = time.monotonic()
    gens = hr.read_generations(gens_path)
    rated = [(path, hr.read_ratings(path)) for path in ratings or []]  # all read before writing
    stems = [path.stem for path, _ in rated]
    if len(set(stems)) < len(stems):
        dup = next(stem for stem in stems if stems.count(stem) > 1)
        raise ValueError(f"--ratings: two files share the name stem {dup!r}; rename one")
    _check_hivemind_targets(out_dir, stems)
    _announce_bootstrap(rated, n_boot, pairwise_ties, time_limit, time.monotonic() - start)
    if embedder == "vectors":
        if gens.embeddings is None:
            raise ValueError("--embedder vectors needs an 'embedding' on every line of --gens")
        unit = VectorEmbedder(dict(zip(gens.responses, gens.embeddings, strict=True))).embed(
            gens.responses
        )
    else:
        cache = out_dir / "embedding-cache" if cache_dir is None else cache_dir
        # the cache writes by plain paths: a link or a special file in it is refused
        check_tree(*((out_dir, ("embedding-cache",)) if cache_dir is None else (cache, (".",))))
        try:
            cached = make_embedder(embedder, cache_dir=cache)
        except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
            raise ValueError(
                f"--cache: {str(cache)!r}: its {embedder} embedding cache is not readable or "
                f"lacks its 'keys' and 'vectors' arrays ({type(err).__name__}: {err}); "
                "remove it to rebuild it"
            ) from None
        unit = cached.embed(gens.responses)
    rng = np.random.default_rng(seed)
    div = hr.diversity(gens, unit, cutoffs=cutoffs, include_self_pairs=include_self_pairs, rng=rng)
    out: dict[str, Any] = {"embedder": embedder, "diversity": div, "calibration": {}}
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = hr.plot_diversity(div, out_dir)
    cut = ", ".join(f"> {c:g}" for c in div["cutoffs"])
    bcut = ", ".join(
        f"> p{p:g} ({v:.3f})"
        for p, v in zip(div["baseline_percentiles"], div["baseline_cutoffs"], strict=True)
    )
    lines = [
        (
            f"{len(gens.responses)} responses, {len(div['models'])} models, "
            f"{len(set(gens.queries))} queries; embedder {embedder}"
        ),
        f"cross-query baseline: mean cosine {div['baseline_mean']:.3f}; cut-offs from it: {bcut}",
        f"{'model':<24} {'queries':>7} {'mean s̄':>7}  % {cut}  |  % {bcut}",
    ]
    for row in div["intra"]:
        shares = " ".join(f"{v:5.1f}" for v in row["share_above"])
        base = " ".join(f"{v:5.1f}" for v in row["share_above_baseline"])
        lines.append(
            f"{row['model']:<24} {row['queries']:>7} {row['mean']:>7.3f}  {shares}  |  {base}"
        )
    inter = np.asarray(div["inter"])
    off = inter[~np.eye(len(inter), dtype=bool)]
    if off.size and np.isfinite(off).any():
        lines.append(
            f"inter-model similarity (off-diagonal): {np.nanmin(off):.3f} to {np.nanmax(off):.3f}"
            + ("; diagonal includes self-pairs" if include_self_pairs else "")
        )
    if div["topn"]["n"]:
        lines.append(_topn_line(div["topn"]))
    lines.extend(
        f"{key.replace('_', ' ')}: "
        + "; ".join(f"{r['name']} {r['mean']:.3f} ({r['cells']} cells)" for r in div[key])
        for key in ("by_category", "by_decoding")
        if div[key]
    )
    if div["paraphrase"]:
        p = div["paraphrase"]
        lines.append(
            f"paraphrases: within {p['within']:.3f}, across {p['across']:.3f}, gap {p['gap']:.3f}"
        )
    for path, items in rated:
        rows = hr.calibration(items, n_boot=n_boot, rng=rng, pairwise_ties=pairwise_ties)
        table = hr.item_table(items)
        _write_csv(out_dir / f"items_{path.stem}.csv", table)
        _write_csv(
            out_dir / f"calibration_{path.stem}.csv",
            {k: [r[k] for r in rows] for k in rows[0]} if rows else {},
        )
        out["calibration"][path.stem] = {"kind": items.kind, "rows": rows, "items": table}
        if rows:
            figures += hr.plot_calibration(rows, out_dir, f"hivemind_calibration_{path.stem}")
        lines.append(
            f"{path.name}: {items.kind}, {items.queries.size} items, mean entropy "
            f"{table['entropy'].mean():.3f} bits"
        )
        lines.extend(_calibration_line(r, items) for r in rows if r["subset"] == "full")
    _write_csv(
        out_dir / "intra_model.csv",
        {k: [r[k] for r in div["s_bar"]] for k in ("model", "query", "s_bar")},
    )
    write_json(out_dir / "report.json", to_jsonable(out), out_dir)
    lines.append(f"wrote {out_dir}/report.json, CSV tables and {len(figures) // 2} figures")
    return out, lines


def _announce_bootstrap(
    rated: list[tuple[Path, Any]],
    n_boot: int,
    pairwise_ties: str,
    time_limit: float | None,
    spent: float,
) -> None:
    """Log the calibration bootstrap's estimated time before it starts (when over 5 s), and
    refuse it (ValueError naming --n-boot and --time-limit) when it would not fit in the time
    left of ``time_limit`` after ``spent`` seconds."""
    from paper_checks import hivemind_report as hr

    seconds = sum(hr.calibration_seconds(items, n_boot, pairwise_ties) for _, items in rated)
    guard = f"--time-limit {time_limit:g} s" if time_limit else "no --time-limit set"
    if time_limit is not None and seconds > time_limit - spent:
        raise ValueError(
            f"--n-boot {n_boot}: the calibration bootstrap of {len(rated)} ratings file(s) takes "
            f"roughly {_duration(seconds)} on one core, more than the {_duration(time_limit - spent)}"
            f" left of --time-limit {time_limit:g} s; lower --n-boot or raise --time-limit"
        )
    if seconds > 5:
        logger.warning(
            "solve hivemind: the calibration bootstrap (--n-boot %d, %d ratings file(s)) takes "
            "roughly %s on one core (%s)",
            n_boot,
            len(rated),
            _duration(seconds),
            guard,
        )


def _topn_line(topn: dict[str, Any]) -> str:
    """The top-N distinct-model headline at ``topn["headline_n"]``, the N where the disjoint and
    interchangeable references differ most (at the largest N every model set counts every model),
    with where the measured count lies between them (0: as distinct as disjoint models, 1: as
    mixed as interchangeable ones)."""
    n = topn["headline_n"]
    if n is None:
        return (
            f"distinct models among the top N neighbours: undefined (up to N = {topn['n'][-1]} "
            "every set of models gives the same count; give each query more responses)"
        )
    measured, mixed, apart = (
        topn[key][n - 1] for key in ("measured", "interchangeable", "disjoint")
    )
    return (
        f"distinct models among the top {n} neighbours: {measured:.2f} (disjoint {apart:.0f}, "
        f"interchangeable {mixed:.2f}: {(measured - apart) / (mixed - apart):.2f} of the way; "
        f"N = {n} is where the two differ most, of N = 1..{topn['n'][-1]})"
    )


def _check_hivemind_targets(out_dir: Path, stems: list[str]) -> None:
    """Refuse, before anything is written, an ``out_dir`` where one of the report's files could
    not be replaced (a symlink, a directory or a FIFO in its place)."""
    from paper_checks._files import check_target

    names = ["report.json", "intra_model.csv"]
    names += [
        f"hivemind_{kind}{ext}" for kind in ("intra", "inter", "topn") for ext in (".png", ".pdf")
    ]
    for stem in stems:
        names += [f"items_{stem}.csv", f"calibration_{stem}.csv"]
        names += [f"hivemind_calibration_{stem}{ext}" for ext in (".png", ".pdf")]
    for name in names:
        check_target(out_dir / name, out_dir)


def _calibration_line(row: dict[str, Any], items: Any) -> str:
    """One scorer's full-set correlations, each a number or "undefined (why)", never NaN."""
    n = row["n"]
    why = "fewer than 3 items" if n < 3 else "the scores or the mean human labels are constant"

    def shown(value: float) -> str:
        return f"{value:+.3f}" if math.isfinite(value) else f"undefined ({why})"

    if math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"]):
        ci = f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
    elif n >= 3 and np.unique(items.queries).size < 2:
        ci = "CI undefined (one query: the bootstrap resamples queries)"
    else:
        ci = f"CI undefined ({why} in every resample)" if n >= 3 else "CI undefined"
    return (
        f"  {row['scorer']:<22} Spearman {shown(row['spearman'])} {ci} "
        f"(Pearson {shown(row['pearson'])}, N = {n})"
    )


def _write_csv(path: Path, columns: dict[str, Any]) -> None:
    """Write equal-length columns as a CSV table (inside its directory, whole or not at all)."""
    import io

    from paper_checks._files import write_text

    names = list(columns)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(names)
    writer.writerows(zip(*(list(columns[n]) for n in names), strict=True))
    write_text(path, buffer.getvalue())


def _activations() -> dict[str, Any]:
    """The activations ``solve rmt --activation`` accepts, by name."""
    from scipy import special

    return {
        "tanh": np.tanh,
        "erf": special.erf,
        "sigmoid": special.expit,
        "relu": lambda x: np.maximum(x, 0.0),
        "softplus": lambda x: np.logaddexp(0.0, x),
    }


ACTIVATIONS = ("tanh", "erf", "sigmoid", "relu", "softplus")


#: Where ``solve rmt`` is tested (tests/theory/test_rmt.py: hypothesis over ψ_p, ψ_n in [1, 4096],
#: t in [1e-3, 3]; data covariances with atoms 0.5 … 3; the ``rf_domain`` bench row scans a
#: log-uniform sample of the box, 2026-12-02: see docs/benchmarks.md) and therefore accepted; outside, the
#: deterministic equivalent loses mass to quadrature or degenerate edges (e.g. t = 1e9 has
#: v_t² ~ 1e-35) and its output is refused rather than printed.
RMT_PSI_RANGE = (1.0, 4096.0)
RMT_T_RANGE = (1e-3, 3.0)
RMT_ATOM_RANGE = (0.1, 10.0)
#: |total mass − 1| above this fails the solver's self-check (nothing is printed).
RMT_MASS_TOLERANCE = 1e-3


class SolverCheckFailed(RuntimeError):
    """A solver's output failed its own consistency check: the CLI prints one line, exit code 1."""


def _check_rmt_domain(psi_p: float, psi_n: float, t: float, atoms: Sequence[float]) -> None:
    lo, hi = RMT_PSI_RANGE
    for name, value in (("--psi-p", psi_p), ("--psi-n", psi_n)):
        if not lo <= value <= hi:
            raise ValueError(
                f"{name} = {value:g} is outside the validated range [{lo:g}, {hi:g}] of solve rmt"
            )
    if not RMT_T_RANGE[0] <= t <= RMT_T_RANGE[1]:
        raise ValueError(
            f"--t = {t:g} is outside the validated range [{RMT_T_RANGE[0]:g}, {RMT_T_RANGE[1]:g}] "
            "of solve rmt"
        )
    bad = [a for a in atoms if not RMT_ATOM_RANGE[0] <= a <= RMT_ATOM_RANGE[1]]
    if bad:
        raise ValueError(
            f"--sigma-atoms: {bad[0]:g} is outside the validated range "
            f"[{RMT_ATOM_RANGE[0]:g}, {RMT_ATOM_RANGE[1]:g}] of solve rmt"
        )


def _announce_sample(d: int, psi_p: float, psi_n: float) -> None:
    """Refuse ``--sample D`` (one line naming it, with the estimate) when the GE draw and its
    spectrum (:func:`sims.rmt.ge_sample_cost`) need more memory than is available now; log the
    time and memory estimate before a draw that takes over 5 s."""
    from paper_checks._inputs import _size, check_memory
    from sims.rmt import ge_sample_cost

    cost = ge_sample_cost(d, psi_p, psi_n)
    check_memory(cost.bytes, f"--sample {d} (roughly {_duration(cost.seconds)} on one core)")
    if cost.seconds > 5:
        logger.warning(
            "solve rmt: --sample %d takes roughly %s on one core and %s of memory",
            d,
            _duration(cost.seconds),
            _size(cost.bytes),
        )


def _self_check_rmt(spec: Any) -> None:
    """Refuse to print a spectrum that is not a probability distribution."""
    problems = []
    if not (math.isfinite(spec.consts.s2) and spec.consts.s2 > 0):
        problems.append(f"s_t² = {spec.consts.s2:.3g} is not positive")
    if not abs(spec.total_mass - 1.0) <= RMT_MASS_TOLERANCE:
        problems.append(f"total mass {spec.total_mass:.6g}, not 1 within {RMT_MASS_TOLERANCE:g}")
    if spec.unpredicted_levels:
        problems.append("a gap between bulks where theory puts none (a bulk missed or cut)")
    if not np.all(np.isfinite(spec.density)) or np.any(spec.density < 0):
        problems.append("the density is not finite and non-negative")
    edges = [v for b in spec.bulks for v in (b.mass, b.lower, b.upper)]
    if not np.all(np.isfinite(edges)) or any(b.mass < 0 for b in spec.bulks):
        problems.append("a bulk has a negative or non-finite mass or edge")
    if problems:
        raise SolverCheckFailed(
            "solve rmt: the spectrum failed its self-check (" + "; ".join(problems) + f"; "
            f"{spec.unconverged} of {spec.evaluated} points unconverged); nothing printed"
        )


def solve_rmt(
    *,
    psi_p: float,
    psi_n: float,
    t: float,
    sigma_atoms: Sequence[float] = (1.0,),
    weights: Sequence[float] | None = None,
    activation: str = "tanh",
    points: int = 1000,
    sample_d: int | None = None,
    seed: int = 0,
    plot: Path | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The deterministic-equivalent spectrum of the random-feature U (Thm 3.1 of "Why Diffusion
    Models Don't Memorize"), optionally beside a sampled Gaussian-equivalent U at dimension
    ``sample_d`` (KS distance and eigenvalue counts per bulk). Returns the ``--json`` document
    (:func:`rmt_document`, with ``"sample"`` filled when sampled) and the report lines."""
    from theory import rmt

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)} (got {activation!r})")
    _check_rmt_domain(psi_p, psi_n, t, sigma_atoms)
    if sample_d is not None:
        _announce_sample(sample_d, psi_p, psi_n)
    try:
        spectrum = rmt.DataSpectrum.of(
            list(sigma_atoms), None if weights is None else list(weights)
        )
    except ValueError as err:  # the library names its arguments; the CLI names its options
        raise ValueError(f"--sigma-atoms/--weights: {err}") from None
    sigma = _activations()[activation]
    with warnings.catch_warnings():  # a failed self-check is reported by _self_check_rmt
        warnings.simplefilter("ignore", rmt.SpectrumSelfCheckWarning)
        spec = rmt.rf_spectrum(
            psi_p=psi_p, psi_n=psi_n, t=t, spectrum=spectrum, activation=sigma, points=points
        )
    _self_check_rmt(spec)
    k = spec.consts
    mixture = " + ".join(
        f"{w:g}·δ({a:g})" for a, w in zip(spectrum.atoms, spectrum.weights, strict=True)
    )
    lines = [
        f"random-feature U: ψ_p = {psi_p:g}, ψ_n = {psi_n:g}, t = {t:g}, σ = {activation}, "
        + f"ρ_Σ = {mixture}",
        f"constants: a_t = {k.a:.6g}, b_t = {k.b:.6g}, v_t² = {k.v2:.6g}, s_t² = {k.s2:.6g}",
        f"delta at s_t² = {spec.delta_location:.6g}: mass {spec.delta_mass:.6g}",
        f"{'bulk':>4}  {'mass':>12}  {'mass·ψ_p':>10}  {'lower':>12}  {'upper':>12}",
    ]
    lines += [
        f"{i:>4}  {b.mass:>12.6g}  {b.mass * psi_p:>10.5g}  {b.lower:>12.6g}  {b.upper:>12.6g}"
        for i, b in enumerate(spec.bulks, 1)
    ]
    lines.append(f"total mass {spec.total_mass:.9f}")
    if spec.unconverged or abs(spec.total_mass - 1.0) > 1e-6:
        lines.append(
            f"warning: {spec.unconverged} of {spec.evaluated} evaluated points (grid, edge search "
            f"and quadrature nodes) have no converged solution and the masses add up to "
            f"{spec.total_mass:.6f}: near-degenerate edges (v_t² = {k.v2:.2g}); read the bulks "
            "as approximate"
        )
    eigs, p = None, None
    doc = rmt_document(spec)
    if sample_d is not None:
        from sims.rmt import ge_eigenvalues, sample_ge

        draw = sample_ge(
            sample_d,
            psi_p,
            psi_n,
            t,
            rng=np.random.default_rng(seed),
            spectrum=spectrum,
            activation=sigma,
        )
        values, at_floor = ge_eigenvalues(draw, progress=True)
        eigs, p = np.concatenate([np.full(at_floor, k.s2), values]), draw.p
        gaps = [(a.upper + b.lower) / 2 for a, b in zip(spec.bulks, spec.bulks[1:], strict=False)]
        counts = np.histogram(values, bins=[-np.inf, *gaps, np.inf])[0]
        ks = spec.ks_distance(values, above=k.s2 + 1e-3)
        doc["sample"] = {
            "d": sample_d,
            "p": draw.p,
            "n": draw.n,
            "seed": seed,
            "at_s2": at_floor,
            "per_bulk": counts.tolist(),
            "ks_above_s2": ks,
        }
        lines.append(
            f"sampled GE U at d = {sample_d} (p = {draw.p}, n = {draw.n}): {at_floor} eigenvalues "
            f"at s_t²; per bulk {counts.tolist()} (theory "
            f"{[round(b.mass * draw.p) for b in spec.bulks]}); KS above s_t² + 1e-3: "
            f"{ks:.4f}"
        )
    if plot is not None:
        from paper_checks._files import save_figure
        from paper_checks.plotting import new_figure, plot_spectrum_panels

        fig, axes = new_figure(ncols=2)
        plot_spectrum_panels(spec, np.array([]) if eigs is None else eigs, p or 1, axes)
        axes[0].set_title(f"ψ_p = {psi_p:g}, ψ_n = {psi_n:g}, t = {t:g}", fontsize="small")
        written = save_figure(fig, plot.parent, plot.stem, plot.parent)
        lines.append(f"figure: {written[0]}")
    return doc, lines


def rmt_document(spec: Any) -> dict[str, Any]:
    """The ``solve rmt --json`` document of an :class:`theory.rmt.RFSpectrum`: its
    :meth:`~theory.rmt.Spectrum.to_json` on a grid of distinct λ (the solver evaluates bulk
    edges more than once; at a repeated λ the largest density is kept, the inside of the bulk),
    the constants ``a_t``, ``b_t``, ``v_t2``, ``s_t2`` with ``t`` and ``sigma_x2`` (what a user
    needs to sample U_GE = G Gᵀ/n + b_t² W Wᵀ/d + s_t² I, G = e^{−t} a_t W X/√d + v_t Ω,
    themselves), and ``"sample"``: null, or the ``--sample`` draw's counts."""
    doc = spec.to_json()
    lam, density = np.asarray(doc["lambda"]), np.asarray(doc["density"])
    order = np.argsort(lam, kind="stable")
    lam, density = lam[order], density[order]
    starts = np.flatnonzero(np.r_[True, lam[1:] != lam[:-1]])
    doc["lambda"] = lam[starts].tolist()
    doc["density"] = np.maximum.reduceat(density, starts).tolist() if lam.size else []
    c = spec.consts
    doc["constants"] = {
        "t": c.t,
        "sigma_x2": c.sigma_x2,
        "a_t": c.a,
        "b_t": c.b,
        "v_t2": c.v2,
        "s_t2": c.s2,
    }
    doc["sample"] = None
    return doc


def _parse_widths(text: str) -> list[int]:
    from paper_checks._inputs import ascii_ints

    try:
        widths = ascii_ints(text)
    except ValueError:
        raise ValueError(f"--m must be comma-separated positive integers (got {text!r})") from None
    if not widths or min(widths) < 1:
        raise ValueError(f"--m must be comma-separated positive integers (got {text!r})")
    return sorted(set(widths))


#: |γ| above 1/lr (lr = 1e-2) makes the decoupled decay step overshoot and training diverge.
SUPERPOSITION_MAX_GAMMA = 100.0
#: p_i ∝ i^−α: beyond this every feature but the first has frequency 0 in float64.
SUPERPOSITION_MAX_ALPHA = 1000.0
#: Most optimiser steps and seeds ``solve superposition`` takes: 50 times the paper's 20,000
#: steps (a day of CPU at n = 1000), and a thousand seeds.
SUPERPOSITION_MAX_STEPS = 1_000_000
SUPERPOSITION_MAX_SEEDS = 1000


def _check_superposition_memory(n: int, widths: list[int], batch: int) -> None:
    """One seed trains K = len(widths) models as one (K, n, max m) stack: W, its gradient and two
    Adam moments, and per step a batch x (batch, n), hidden (K, batch, max m) and outputs and
    their gradients (K, batch, n); counted in float64 (an upper bound for float32)."""
    from paper_checks._inputs import check_memory

    k, m = len(widths), max(widths)
    estimate = 8.0 * (6 * k * n * m + 4 * k * batch * n + 2 * k * batch * m + batch * n)
    check_memory(estimate, f"--n {n} --m {max(widths)} (×{k}) --batch {batch}")


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
    lr_groups: str = "shared",
) -> tuple[dict[str, Any], list[str]]:
    """Train the toy model of the superposition paper at the widths ``widths`` ("10,20,40"), one
    batched stack per seed, and return per width the seed-mean loss, φ_{1/2}, φ_1 and the fitted
    width exponent α_m (needs ≥ 3 widths): the mean over seeds of each seed's exponent, with a
    95% Student-t interval over the seeds when there are two or more (:func:`_width_exponent`). ``lr_groups``: ``shared`` peak
    lr 1e-2 for W and b (the authors' n = 1000 sweeps), or ``per-group`` W 0.02·(8/m)^{1/4} and
    b 2/m (their n = 10240 runs; :meth:`sims.superposition.TrainConfig.peak_lrs`)."""

    from sims.superposition import (
        PER_GROUP_BASE_LR,
        TrainConfig,
        single_threaded_blas,
        train_task,
    )
    from sims.sweep import run_sweep

    ms = _parse_widths(widths)
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"--alpha must be a finite number >= 0 (got {alpha!r})")
    if not math.isfinite(gamma) or abs(gamma) > SUPERPOSITION_MAX_GAMMA:
        raise ValueError(
            f"--gamma must be in [-{SUPERPOSITION_MAX_GAMMA:g}, {SUPERPOSITION_MAX_GAMMA:g}] "
            f"(lr·|γ| <= 1 keeps the decay step stable at the paper's lr 1e-2; got {gamma!r})"
        )
    if alpha > SUPERPOSITION_MAX_ALPHA:
        raise ValueError(f"--alpha must be <= {SUPERPOSITION_MAX_ALPHA:g} (got {alpha!r})")
    if steps > SUPERPOSITION_MAX_STEPS:
        raise ValueError(
            f"--steps must be <= {SUPERPOSITION_MAX_STEPS:,} (50 times the paper's 20,000; got "
            f"{steps:,})"
        )
    if seeds > SUPERPOSITION_MAX_SEEDS:
        raise ValueError(f"--seeds must be <= {SUPERPOSITION_MAX_SEEDS:,} (got {seeds:,})")
    _check_superposition_memory(n, ms, batch)
    params = {
        "n": n,
        "widths": ms,
        "gammas": [gamma],
        "alpha": alpha,
        "steps": steps,
        "batch": batch,
        "lr_groups": lr_groups,
        "backend": backend,
    }
    if lr_groups == "per-group":
        params["lr"] = PER_GROUP_BASE_LR
    TrainConfig(**{k: v for k, v in params.items() if k != "backend"})  # validates sizes
    with single_threaded_blas():
        records = run_sweep(train_task, [params], n_seeds=seeds, root_seed=seed)
    per_seed = np.array([[m["loss"] for m in r["result"]["models"]] for r in records])  # (S, M)
    phi_half = np.array([[m["phi_half"] for m in r["result"]["models"]] for r in records])
    phi_one = np.array([[m["phi_one"] for m in r["result"]["models"]] for r in records])
    loss = per_seed.mean(axis=0)
    if not (np.all(np.isfinite(per_seed)) and np.all(np.isfinite(phi_half))):
        raise SolverCheckFailed(
            "solve superposition: training diverged (a loss or φ is not finite); nothing printed"
        )
    out: dict[str, Any] = {
        "n": n,
        "alpha": alpha,
        "gamma": gamma,
        "steps": steps,
        "batch": batch,
        "seeds": seeds,
        "lr_groups": lr_groups,
        "m": ms,
        "loss": loss.tolist(),
        "loss_per_seed": per_seed.tolist(),
        "phi_half": phi_half.mean(axis=0).tolist(),
        "phi_one": phi_one.mean(axis=0).tolist(),
        "alpha_m": None,
        "alpha_m_per_seed": None,
        "alpha_m_ci": None,
        "alpha_m_ci_method": None,
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
    if len(ms) >= 3 and np.all(per_seed > 0):
        out |= _width_exponent(ms, per_seed)
        lines.append(_width_exponent_line(out))
    else:
        lines.append("α_m: give at least 3 widths to fit L ∝ m^−α_m")
    return out, lines


def _width_exponent(ms: list[int], per_seed: np.ndarray) -> dict[str, Any]:
    """α_m of each seed (−OLS slope of log L on log m over all widths), their mean and, with two
    or more seeds, its 95% Student-t interval over the seeds: each seed trains every width on its
    own data and initialisation, so the seeds are the independent units (docs/verdicts.md). A
    bootstrap over the few (m, L) points of one seed would not be one. ``r2`` is the worst seed's
    R² of its log-log fit."""
    from scipy import stats

    from theory.fits import fit_power_law

    fits = [fit_power_law(ms, row, n_boot=0) for row in per_seed]
    slopes = np.array([-fit.exponent for fit in fits])
    mean = float(slopes.mean())
    out: dict[str, Any] = {
        "alpha_m": mean,
        "alpha_m_per_seed": slopes.tolist(),
        "alpha_m_ci": None,
        "alpha_m_ci_method": None,
        "r2": float(min(fit.r2 for fit in fits)),
    }
    if len(slopes) >= 2:
        half = float(stats.t.ppf(0.975, len(slopes) - 1) * slopes.std(ddof=1) / len(slopes) ** 0.5)
        out["alpha_m_ci"] = [mean - half, mean + half]
        out["alpha_m_ci_method"] = f"Student t over {len(slopes)} seeds"
    return out


def _width_exponent_line(out: dict[str, Any]) -> str:
    tail = "(L ∝ m^−α_m; strong regime theory: 1)"
    seeds = len(out["alpha_m_per_seed"])
    if out["alpha_m_ci"] is None:
        return (
            f"α_m = {out['alpha_m']:.3f}, R² = {out['r2']:.3f} {tail}; one seed, so no "
            "interval: --seeds 2 or more gives a 95% CI over seeds"
        )
    low, high = out["alpha_m_ci"]
    each = (
        f"; per seed {', '.join(f'{a:.3f}' for a in out['alpha_m_per_seed'])}"
        if seeds <= 10
        else ""
    )
    return (
        f"α_m = {out['alpha_m']:.3f}, 95% CI [{low:.3f}, {high:.3f}] over {seeds} seeds "
        f"(Student t{each}), worst R² = {out['r2']:.3f} {tail}"
    )
