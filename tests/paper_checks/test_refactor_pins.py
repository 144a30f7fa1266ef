"""Moving a check's code must not move its numbers: each pinned claim, run at quick scale under
root seed 0, measures exactly what the committed quick reference run recorded for it (a
reference record's ``measured`` is its root seed 0's, replicate 0, whatever ``--replicates``).

Pinned are the claims whose quick check costs under about 3 CPU-s (``provenance.cpu_time_s`` of
the quick reference), so that the whole pin runs in a minute; the costlier ones are compared by
rerunning the reference (``paper-checks run ... --scale quick``, which reports whether each
claim reproduces the committed numbers)."""

from __future__ import annotations

import json

import pytest

from paper_checks.claims import select_claims
from paper_checks.context import Context
from paper_checks.docs import load_reference
from paper_checks.runner import run_claim

#: One claim id per line.
PINNED = [
    "faster_rcnn.anchor_count",
    "faster_rcnn.anchors_exact",
    "faster_rcnn.param_ratio",
    "faster_rcnn.translation_equivariance",
    "hivemind.disjoint_models",
    "hivemind.entropy_values",
    "hivemind.similarity_exact",
    "rlvr.estimator_unbiased",
    "rlvr.sharpening_crosses",
    "rlvr.single_crossing",
    "rlvr.tilt_never_crosses",
]


@pytest.mark.parametrize("claim_id", PINNED)
def test_quick_measured_equals_the_committed_reference(claim_id, tmp_path):
    reference = load_reference("quick")[1][claim_id]
    [claim] = select_claims([claim_id])
    ctx = Context(scale="quick", seed=0, out_dir=tmp_path, claim_id=claim_id)
    run_claim(claim, ctx)
    record = json.loads((tmp_path / f"{claim_id}.json").read_text(encoding="utf-8"))
    assert record["verdict"] != "ERROR", record["error"]
    assert record["measured"] == reference.measured
