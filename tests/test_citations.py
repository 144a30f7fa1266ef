"""Every citation in the repository resolves for a reader who has only the repository.

Each git-tracked text file (code, docs, reference records, configuration) is read line by line,
and a line is flagged for:

- ``issue``: a number on the project's own issue tracker ("issue 20", "issue #20", "issues
  26–29", "pre-issue-19", "the issue's ..."), which a reader cannot open. An upstream repository's
  issue is cited as ``owner/name#N`` or by its URL, which is not flagged.
- ``spec``: the project's internal notes on a paper ("the spec", "spec §5", "the spec's pilot",
  "spec Q1", a check label such as "§5 C4"), or a path into a ``shared`` folder. Cite the paper
  (authors, year, arXiv id, theorem / equation / figure / table) or a docs page instead, and say
  "computed here" for a number the project computed.
- ``file``: a markdown file (``NAME.md``) that is not in the repository.
- ``section``: ``NAME.md §N`` where that file has no heading numbered N.
- ``anchor``: ``NAME.md#anchor`` (or a markdown link ``(#anchor)``) where that file has no
  heading with that GitHub anchor.
- ``path``: a repository path (``theory/...``, ``sims/...``, ``neural/...``,
  ``paper_checks/...``, ``tests/...``, ``docs/...``) that names no tracked file or folder and
  no output the toolkit writes (a git-ignored path such as ``docs/results/latest``).

Not flagged: ``report.md``, the report ``paper-checks report`` writes into a results folder;
and anchors in ``tests/``, whose fixtures render pages of made-up claims. There are no
exemptions: a citation that cannot be followed is reworded.

This file is not scanned: it holds the patterns, and examples of them, on purpose.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
SELF = PurePosixPath(Path(__file__).resolve().relative_to(ROOT).as_posix())

#: Suffixes of tracked files that are not text (never scanned).
BINARY_SUFFIXES = {".png", ".pdf", ".npz", ".npy", ".pt", ".gz", ".zip", ".jpg", ".svg"}

ISSUE = re.compile(r"\bissues?(?:\s*#?\s*|-)\d+|\b(?:the|this) issue's\b", re.IGNORECASE)
#: ("SPEC 7", upper case, is Scientific Python's seeding standard, not flagged.)
SPEC = re.compile(
    r"\b[Tt]he\s+spec\b(?!-)"  # "the spec", "the spec's"
    r"|\b[Ss]pec's\b"
    # (not a ``spec`` argument named in a docstring: its closing quotes are no citation)
    r"|(?<!``)\b[Ss]pecs?\s*(?:§|``|pilot\b|table\b|numbers?\b|values?\b|\.?\d|[A-Z]\d+\b)"
    r"|§\s*\d+\s+[A-Z]\d+\b"  # a check label of the notes: "§5 Q1", "§5 C4"
    r"|(?:\.\./)+shared\b|(?<![\w/.-])shared/"
)
#: A markdown file name or path, optionally followed by ``#anchor`` or `` §N``.
MARKDOWN = re.compile(
    r"(?<![\w/.<>-])((?:\.{1,2}/)*(?:[\w.-]+/)*[\w.-]+\.md)\b(?:#([\w-]+)|\s*§\s*(\d+))?"
)
SAME_PAGE_LINK = re.compile(r"\]\(#([\w-]+)\)")
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:theory|sims|neural|paper_checks|tests|docs)/[\w./-]*[\w-])(?![\w*{<])"
)
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
NUMBERED = re.compile(r"^(?:§\s*)?(\d+)(?:[.):\s]|$)")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
#: Markdown files the toolkit writes at run time (never tracked).
OUTPUTS = {"report.md"}


def _git_files() -> list[PurePosixPath]:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [PurePosixPath(p) for p in out.decode().split("\0") if p]


TRACKED = _git_files()
TRACKED_SET = set(TRACKED)
TRACKED_DIRS = {str(parent) for p in TRACKED for parent in p.parents if str(parent) != "."}
MARKDOWN_BY_NAME: dict[str, list[PurePosixPath]] = {}
for _p in TRACKED:
    if _p.suffix == ".md":
        MARKDOWN_BY_NAME.setdefault(_p.name, []).append(_p)


@functools.cache
def ignored(path: str) -> bool:
    """Whether git ignores ``path`` (an output the toolkit writes, such as a results folder)."""
    result = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", path], check=False)
    return result.returncode == 0


def _text_files() -> list[PurePosixPath]:
    files = []
    for p in TRACKED:
        if p == SELF or p.suffix.lower() in BINARY_SUFFIXES or not (ROOT / p).is_file():
            continue
        raw = (ROOT / p).read_bytes()
        if b"\0" in raw:
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(p)
    return files


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.cache
def headings(path: PurePosixPath) -> tuple[frozenset[str], frozenset[str]]:
    """The GitHub anchors and the section numbers of the headings of markdown file ``path``."""
    anchors: set[str] = set()
    numbers: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in (ROOT / path).read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        anchors.update(HTML_ANCHOR.findall(line))
        m = None if fenced else HEADING.match(line)
        if m is None:
            continue
        title = m.group(2)
        slug = github_slug(title)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
        if n := NUMBERED.match(title.replace("`", "")):
            numbers.add(n.group(1))
    return frozenset(anchors), frozenset(numbers)


def resolve_markdown(name: str, where: PurePosixPath) -> PurePosixPath | None:
    """The tracked markdown file that ``name`` (cited in file ``where``) names, if any."""
    if "/" not in name:
        found = MARKDOWN_BY_NAME.get(name, [])
        return found[0] if found else None
    for base in (where.parent, PurePosixPath()):
        parts: list[str] = []
        for part in (base / name).parts:
            if part == "..":
                if not parts:
                    break
                parts.pop()
            elif part != ".":
                parts.append(part)
        else:
            candidate = PurePosixPath(*parts) if parts else None
            if candidate in TRACKED_SET:
                return candidate
    return None


def offences_in_line(line: str, where: PurePosixPath) -> list[tuple[str, str]]:
    """``(kind, text)`` for each unresolvable citation in ``line`` of file ``where``."""
    found = [("issue", m.group(0)) for m in ISSUE.finditer(line)]
    found += [("spec", m.group(0)) for m in SPEC.finditer(line)]
    for m in MARKDOWN.finditer(line):
        name, anchor, section = m.groups()
        if PurePosixPath(name).name in OUTPUTS:
            continue
        if where.parts[0] == "tests":
            anchor = None
        target = resolve_markdown(name, where)
        if target is None:
            found.append(("file", name))
            continue
        anchors, numbers = headings(target)
        if anchor is not None and anchor not in anchors:
            found.append(("anchor", m.group(0)))
        if section is not None and section not in numbers:
            found.append(("section", m.group(0)))
    if where.suffix == ".md" and where.parts[0] != "tests":
        anchors, _ = headings(where)
        found += [("anchor", f"#{a}") for a in SAME_PAGE_LINK.findall(line) if a not in anchors]
    for m in REPO_PATH.finditer(line):
        path = m.group(1).rstrip(".")
        if PurePosixPath(path) in TRACKED_SET or path in TRACKED_DIRS or ignored(path):
            continue
        found.append(("path", path))
    return found


def offences_in_file(path: PurePosixPath) -> list[str]:
    """``path:line: kind: text`` for every unresolvable citation in tracked file ``path``."""
    text = (ROOT / path).read_text(encoding="utf-8")
    return [
        f"{path}:{i}: {kind}: {text}"
        for i, line in enumerate(text.splitlines(), 1)
        for kind, text in offences_in_line(line, path)
    ]


TEXT_FILES = _text_files()


@pytest.mark.skipif(not TRACKED, reason="not a git checkout: the tracked files are unknown")
def test_the_scan_covers_code_docs_and_records():
    scanned = {str(p) for p in TEXT_FILES}
    for path in ("README.md", "docs/online.md", "paper_checks/claims.py", "pyproject.toml"):
        assert path in scanned
    assert "docs/results/quick/results.json" in scanned
    assert str(SELF) not in scanned


@pytest.mark.parametrize("path", TEXT_FILES, ids=str)
def test_every_citation_resolves(path):
    offences = offences_in_file(path)
    if offences:
        pytest.fail(
            f"{len(offences)} citation(s) a reader of the repository cannot follow:\n"
            + "\n".join(offences),
            pytrace=False,
        )


FLAGGED = [
    ("issue", "see issue 20 item 3"),
    ("issue", "(issue #20)"),
    ("issue", "issues 26–29 asked for it"),
    ("issue", "the pre-issue-19 model"),
    ("issue", "within the issue's 30-minute limit"),
    ("spec", "pilot from the spec's table"),
    ("spec", "(spec §5 Q1)"),
    ("spec", "as the spec says"),
    ("spec", "The spec's table"),
    ("spec", "Spec §4"),
    ("spec", "label='spec pilot'"),
    ("spec", "(§5 C7)"),
    ("spec", "see ../shared/papers/rlvr.md"),
    ("spec", "digest in shared/papers"),
    ("file", "DESIGN.md says so"),
    ("file", "rules in VERDICTS.md"),
    ("section", "(online.md §3)"),
    ("anchor", "[runs](running.md#no-such-heading)"),
    ("anchor", "docs/running.md#no-such-heading"),
    ("path", "in sims/no_such_module.py"),
]
NOT_FLAGGED = [
    "the paper's Table 1 and Theorem 3.1 (§4.2)",
    "Yue et al. (2025), arXiv 2504.13837, Fig. 2",
    "LeapLabTHU/limit-of-RLVR#1 (lower is better)",
    "https://github.com/LeapLabTHU/limit-of-RLVR/issues/1",
    "see [running.md](running.md#reference-runs-generated)",
    "docs/rlvr.md and sims/rlvr_toy.py",
    "theory/online/data/below_two_thirds*.txt",
    "spec = rmt.solve_spectrum(psi_p=8.0)",
    "each bulk of ``spec`` (the boundaries halfway across each gap)",
    "spec.lam, spec.bulks[-1], _bulk_masses_in_units(spec, psi_p)",
    "the spectrum of U and the array API specification",
    "max |generated − spec| over the anchors",
    "issued by the runner",
    "seed or generator for default_rng (SPEC 7)",
    "cached kernels crash (numba/numba#6061)",
    "the report lands in results/latest/report.md",
    "copied to docs/results/latest after the run",
    "add `tests/paper_checks/checks/test_<paper>.py`",
]


@pytest.mark.parametrize(("kind", "line"), FLAGGED)
def test_a_citation_the_reader_cannot_follow_is_flagged(kind, line):
    kinds = [k for k, _ in offences_in_line(line, PurePosixPath("docs/online.md"))]
    assert kind in kinds, (line, kinds)


@pytest.mark.parametrize("line", NOT_FLAGGED)
def test_a_resolvable_citation_is_not_flagged(line):
    assert offences_in_line(line, PurePosixPath("docs/online.md")) == [], line


def test_github_slugs_follow_githubs_rule():
    assert github_slug("Reference runs (generated)") == "reference-runs-generated"
    assert github_slug("`online.adversary_forces`") == "onlineadversary_forces"
    assert github_slug("Claims at quick scale (generated)") == "claims-at-quick-scale-generated"
