"""A refactor moves code without changing a number: each pinned claim, checked at quick scale under
root seed 0, measures what its committed quick reference record holds. A record's ``measured`` is
root seed 0's (replicate 0), whatever the run's --replicates. Pinned: the claims that declare
``reproduces_to`` (:attr:`paper_checks.claims.Claim.reproduces_to`), the relative tolerance on
floats with which their quick check reproduces the record on another machine: 0.0 (bit for bit)
unless a number goes through a BLAS kernel or a special function whose rounding differs between CPUs
and library builds (1e-12; the registration says which: on 2026-12-04 numpy 2.4.6 / scipy 1.17.1 /
OpenBLAS of another machine rounded them differently from the committed reference by ≤ 1.7e-15
relative, ≤ 6e-15 for toy_pass1_gain and toy_slope_prediction; on 2026-12-05 an AMD EPYC of
another model, where numpy picks other SIMD loops, rounded the diffusion solver's and hivemind's
similarity numbers differently by ≤ 1.5e-13, so they are 1e-12 too). A tolerance rel > 0 also
holds below magnitude 1 as an absolute one (a rounding residue such as a max error of 1e-16 is
compared to within rel, not relatively). Those are the claims whose quick
check costs under about 3 CPU-s (``provenance.cpu_time_s`` of the quick reference) and whose numbers
are not a rounding residue; a registration that leaves a cheap claim out says why.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from paper_checks.claims import all_claims
from paper_checks.context import Context
from sims._jsonio import to_jsonable
from tools.docs import load_reference


def _same(a: Any, b: Any, rel: float) -> bool:
    """Equal JSON values: the same structure, strings and integers, floats equal (NaN equal to
    NaN) or, with ``rel`` > 0, within that tolerance, relative above magnitude 1 and absolute
    below it."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, rel) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=rel)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    "claim", [c for c in all_claims() if c.reproduces_to is not None], ids=lambda c: c.id
)
def test_a_pinned_claim_measures_its_committed_reference(claim, tmp_path):
    _, records = load_reference("quick")
    reference = records[claim.id]
    assert reference.provenance["seed"] == 0
    assert reference.provenance["replicate"] == 0
    ctx = Context(scale="quick", seed=0, out_dir=tmp_path, claim_id=claim.id)
    measured = json.loads(json.dumps(to_jsonable(claim.check(ctx).measured)))
    assert _same(measured, reference.measured, claim.reproduces_to), claim.id
