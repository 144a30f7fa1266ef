"""tools.docs on hand-made records: what each generated block says."""

from __future__ import annotations

import pytest

from paper_checks.results import CheckResult, Verdict
from tools.docs import (
    render_blocks,
    render_claims,
    render_history,
    render_history_pointer,
    render_provenance,
    render_summary,
    short_phrase,
)

RUN = {"seed": 0, "replicates": 5}
HISTORY = {
    "date": "2026-11-30",
    "change": "tolerance 0.1 → 0.05",
    "reason": "why",
    "before": "PASS",
}


def record(claim_id: str, verdict: Verdict, *, agree: int = 5, history=()) -> CheckResult:
    return CheckResult(
        verdict=verdict,
        summary="gap 0.012 ≤ 0.05 | k* = 2.4, k* = 3 over 5 seeds, and a long tail of words " * 3,
        measured={"gap": 0.012},
        expected={"gap": 0.05},
        tolerance="",
        figures=[f"figures/{claim_id}.png", f"figures/{claim_id}.pdf"],
        claim_id=claim_id,
        paper=claim_id.split(".", maxsplit=1)[0],
        statement="The gap is small.",
        source="Thm 1",
        rule="PASS when gap ≤ 0.05; FAIL otherwise.",
        stochastic=True,
        history=list(history),
        replication={
            "deterministic": False,
            "statistic": "gap",
            "n": 5,
            "agree": agree,
            "counts": {
                verdict.value: agree,
                "PASS" if verdict is Verdict.FAIL else "FAIL": 5 - agree,
            },
            "statistic_mean": 0.0125,
            "statistic_sd": 0.002,
            "fragile": agree < 5,
        },
        provenance={"git_sha": "abcdef1234567890"},
    )


RECORDS = {
    "rlvr.a": record("rlvr.a", Verdict.PASS),
    "rlvr.b": record("rlvr.b", Verdict.FAIL, agree=3, history=[HISTORY]),
    "online.c": record("online.c", Verdict.INCONCLUSIVE),
}
REFS = {"quick": (RUN, RECORDS)}


def test_short_phrase_cuts_at_a_word_boundary():
    assert short_phrase("short") == "short"
    cut = short_phrase("word " * 40, limit=30)
    assert len(cut) <= 30
    assert cut.endswith(" …")
    assert cut[:-2].split() == ["word"] * len(cut[:-2].split())


def test_summary_has_a_row_per_claim_with_its_link_replication_and_escaped_phrase():
    text = render_summary(REFS)
    assert "**Quick** (`docs/results/quick`, root seed 0" in text
    assert "3 claims, 1 PASS, 1 FAIL, 1 INCONCLUSIVE (1 with root seeds contradicting" in text
    assert "(docs/running.md#reference-runs-generated)" in text
    assert "commit `abcdef123456`" in render_provenance("quick", RUN, RECORDS)  # the long form
    assert "on 1 a root seed alone PASSes" in render_provenance("quick", RUN, RECORDS)
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert len(rows) == 3
    assert "(docs/rlvr.md#rlvrb)" in rows[1]
    assert "pooled over 5 root seeds; each alone: FAIL 3, PASS 2 (root seeds contradict" in rows[1]
    assert "\\|" in rows[0]  # a | in the summary does not break the table
    assert "k\\* = 2.4, k\\* = 3" in rows[0]  # nor do two *s turn it italic
    assert all(row.count(" | ") == 3 for row in rows)
    assert " full |" not in text
    full = {"rlvr.a": record("rlvr.a", Verdict.FAIL)}
    with_full = render_summary({**REFS, "full": (RUN, full)})
    assert "| PASS | FAIL (5 seeds pooled) |" in with_full  # the full verdict, seeds pooled
    assert "Not in the full reference run (CPU budget): all of online; `rlvr.b`." in with_full


def test_history_lists_every_change_with_the_old_verdict():
    text = render_history(RECORDS)
    assert "[`rlvr.b`](rlvr.md#rlvrb)" in text  # links relative to docs/history.md
    assert "2026-11-30: tolerance 0.1 → 0.05; before: PASS" in text
    assert "rlvr.a" not in text
    pointer = render_history_pointer(RECORDS)
    assert pointer.startswith("1 changes of rule, statistic, sizes or seeds on 1 claims")
    assert "(docs/history.md)" in pointer


def test_claims_block_holds_rule_verdict_replication_history_and_figure():
    text = render_claims("rlvr", REFS)
    assert "### `rlvr.a`" in text
    assert "### `online.c`" not in text
    assert "PASS when gap ≤ 0.05; FAIL otherwise." in text
    assert "**Quick verdict: FAIL.** gap 0.012 ≤ 0.05 | k\\* = 2.4" in text
    assert "`gap` 0.0125 ± 0.002" in text
    assert "(why: why; verdict under the old rule: PASS)" in text
    assert "[results/latest/figures/rlvr.a.png](../results/latest/figures/rlvr.a.png)" in text
    assert "rlvr.a.pdf" not in text


def test_a_full_run_of_one_root_seed_and_an_update_made_elsewhere_read_plainly():
    from dataclasses import replace

    single = {"rlvr.a": replace(record("rlvr.a", Verdict.FAIL), replication=None)}
    text = render_claims("rlvr", {**REFS, "full": (RUN, single)})
    assert "**Full verdict: FAIL** (one root seed)." in text
    run = {
        **RUN,
        "argv": ["run", "rlvr", "--out", "docs/results/full"],
        "updates": [{"argv": ["run", "rlvr.a", "--out", "/elsewhere/x"], "merged_from": "x"}],
    }
    line = render_provenance("full", run, single)
    assert (
        "`paper-checks run rlvr --out docs/results/full`" in line
    )  # inside the checkout: relative
    assert "2. `paper-checks run rlvr.a --out <elsewhere>/x` (made elsewhere, copied in" in line


def test_the_commands_of_a_reference_are_numbered_and_a_repeat_is_counted():
    redecide = {"argv": ["report", "--redecide", "docs/results/full"]}
    run = {**RUN, "argv": ["run", "rlvr"], "updates": [redecide, redecide, {"argv": ["run", "x"]}]}
    text = render_provenance("full", run, RECORDS)
    assert "Made by 4 commands, in order:" in text
    steps = [line for line in text.splitlines() if line[:1].isdigit()]
    assert steps == [
        "1. `paper-checks run rlvr`",
        "2. `paper-checks report --redecide docs/results/full` (2 times in a row)",
        "3. `paper-checks run x`",
    ]


def test_blocks_are_replaced_between_their_markers_only():
    text = "a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb\n"
    assert render_blocks(text, {"x": "new"}, "f") == text.replace("old", "new")
    with pytest.raises(ValueError, match="unknown generated block 'x'"):
        render_blocks(text, {}, "f")


def test_a_stale_record_reads_as_the_old_rules_only_when_the_rule_changed_on_a_later_day():
    from dataclasses import replace

    from paper_checks.claims import all_claims
    from paper_checks.runner import claim_fingerprint
    from tools.docs import superseded_by

    claim = next(c for c in all_claims() if c.id == "gated_attention.massive_activations_drop")
    last = claim.history[-1].date
    stale = replace(
        record(claim.id, Verdict.PASS), provenance={"git_sha": "abc", "code": "older code"}
    )
    made_before = {**RUN, "created": "2026-11-01T12:00:00+00:00"}
    assert superseded_by(stale, made_before) == claim.history[-1].to_json()
    # made on the day of the last change: it may follow the new rule already, so a refactor,
    # not the rule change, made it stale; it is not shown as the old rule's
    made_that_day = {**RUN, "created": f"{last}T23:00:00+00:00"}
    assert superseded_by(stale, made_that_day) is None
    fresh = replace(stale, provenance={"code": claim_fingerprint(claim, "full"), "scale": "full"})
    assert superseded_by(fresh, made_before) is None
