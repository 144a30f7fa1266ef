"""Planned looks: the root-seed counts at which a decided claim is looked at, per scale, fixed
before the looks they add are made.

Adding root seeds after an INCONCLUSIVE is a new look at the data. A claim listed here is decided
at that scale in K planned looks (the root-seed counts in order, each look's units including the
earlier ones), with the one-sided level α split evenly over the K looks (Bonferroni), so that the
chance of a false PASS, or of a false FAIL, over all looks stays at most α. The first look of each
entry below was made before this table (an INCONCLUSIVE at that count); at the level α/K its
verdict is INCONCLUSIVE too (a smaller level only widens the bounds), so spending α over the
looks holds from the first one. A claim or scale not listed has one look.

Declared 2026-12-02, before any of the later looks was run: each later count is the fewest root
seeds whose units reach the count that the first look reported would decide the claim (at its
measured mean and spread), within about 30 CPU-minutes on 2 cores.
"""

from __future__ import annotations

__all__ = ["PLANNED_LOOKS", "look_count", "looks", "planned"]

#: (claim id, scale) -> the root-seed counts of its looks, in order.
PLANNED_LOOKS: dict[tuple[str, str], tuple[int, ...]] = {
    # 5 units per root seed; 111 would decide it
    ("deep_crl.signal_propagation", "full"): (1, 25),
    # 3 units per root seed; 23 would decide it
    ("superposition.strong_inverse_m", "full"): (1, 12),
    # 3 units per root seed; 6 would decide them
    ("superposition.reference_sweep", "full"): (1, 3),
    ("superposition.strong_robust_to_alpha", "full"): (1, 3),
    # 1 unit per root seed; fewer than 3 are INCONCLUSIVE by declaration
    ("superposition.weak_law", "full"): (1, 3),
    # 5 paired training seeds per root seed; 11 and 8 would decide them
    ("gated_attention.lr_tolerance", "full"): (1, 4),
    ("gated_attention.massive_activations_drop", "full"): (1, 4),
    # 8 trained models per root seed; 109 would decide it
    ("rlvr.transformer_crossing", "full"): (3, 15),
}


def looks(claim_id: str, scale: str) -> tuple[int, ...]:
    """The planned root-seed counts of ``claim_id``'s looks at ``scale`` (one look when none
    is planned: an empty tuple)."""
    return PLANNED_LOOKS.get((claim_id, scale), ())


def planned(claim_id: str) -> dict[str, tuple[int, ...]]:
    """Every scale at which ``claim_id`` has planned looks -> their root-seed counts."""
    return {scale: counts for (cid, scale), counts in PLANNED_LOOKS.items() if cid == claim_id}


def look_count(claim_id: str, scale: str | None) -> int:
    """K, the number of looks α is spent over: the planned count, 1 when none is planned."""
    return max(1, len(looks(claim_id, scale or "")))
