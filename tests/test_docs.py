"""The README and docs/ as a user reads them: generated blocks match the committed reference runs,
and every code block runs as it would when copied.

- ```bash / ```console blocks: each ``paper-checks ...`` line goes through
  :func:`paper_checks.cli.main` in process, in a fresh directory holding the files the block
  writes with ``cat > FILE <<'END'`` (and ``tests/data``, as in a clone); every ``# ...`` line after
  a command is output that command must print (``...`` matches anything).
- ```python blocks run in a fresh interpreter; a block defining hypothesis tests is saved as a test
  file and run under pytest with hypothesis's default settings (no conftest, no CI profile).
- A block preceded by ``<!-- not-tested: reason -->`` is skipped (make, pip, full-scale runs,
  cluster addresses, templates). Blocks without a language (layouts, synopses) are not code.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from paper_checks.claims import PAPERS
from paper_checks.cli import main
from tools.docs import PAGES, README, generated_files

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: Seconds a Python block may take in its fresh interpreter.
PYTHON_TIMEOUT = 120
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```\s*$", re.MULTILINE | re.DOTALL)
NOT_TESTED = re.compile(r"<!-- not-tested: [^>]+ -->\s*$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    code: str
    tested: bool

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def code_blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path`` with their language and not-tested marker."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for m in FENCE.finditer(text):
        indent = len(m.group(1))
        code = "\n".join(line[indent:] for line in m.group(3).splitlines()) + "\n"
        before = text[: m.start()].rstrip()
        blocks.append(
            Block(
                path,
                text.count("\n", 0, m.start()) + 1,
                m.group(2),
                code,
                NOT_TESTED.search(before) is None,
            )
        )
    return blocks


BLOCKS = [b for path in DOC_FILES for b in code_blocks(path) if b.lang]
SHELL = [b for b in BLOCKS if b.lang in ("bash", "console", "sh") and b.tested]
PYTHON = [b for b in BLOCKS if b.lang == "python" and b.tested]


def test_generated_blocks_match_the_reference_runs():
    for path, text in generated_files().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} differs from the generator: run "
            "'python -m tools.docs' and commit it"
        )


def test_readme_and_every_paper_page_have_their_generated_blocks():
    readme = README.read_text(encoding="utf-8")
    for name in ("summary", "history"):
        assert f"<!-- generated:{name} -->" in readme
    assert set(PAGES) == set(PAPERS)
    for page in PAGES.values():
        assert "<!-- generated:claims -->" in page.read_text(encoding="utf-8"), page


def test_readme_is_a_front_page():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_every_code_block_is_tested_or_says_why_not():
    languages = {b.lang for b in BLOCKS}
    assert languages <= {"bash", "console", "sh", "python"}, languages
    untested = [b for b in BLOCKS if not b.tested]
    assert len(untested) <= len(BLOCKS) // 3, [str(b) for b in untested]


def shell_steps(code: str) -> list[tuple[str, object]]:
    """("file", (name, text)), ("run", argv) and ("out", line) steps of a shell block."""
    steps: list[tuple[str, object]] = []
    lines = iter(code.replace("\\\n", " ").splitlines())
    for line in lines:
        stripped = line.strip()
        if heredoc := re.fullmatch(r"cat > (\S+) <<'(\w+)'", stripped):
            body = []
            for inner in lines:
                if inner == heredoc.group(2):
                    break
                body.append(inner + "\n")
            steps.append(("file", (heredoc.group(1), "".join(body))))
        elif stripped.startswith("#"):
            steps.append(("out", stripped.lstrip("#").strip()))
        elif stripped.startswith("paper-checks "):
            steps.append(("run", shlex.split(stripped, comments=True)[1:]))
        elif stripped:
            raise AssertionError(f"unsupported shell line in a docs block: {line!r}")
    return steps


#: A decimal number in printed output (a sign, digits, a fraction, an exponent).
NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
#: Relative tolerance for numbers shown in the docs: other CPUs' BLAS kernels round differently.
NUMBER_RTOL = 0.02


def _squeeze(text: str) -> str:
    """``text`` with each run of spaces or tabs as one space (line breaks kept)."""
    return re.sub(r"[ \t]+", " ", text)


def output_pattern(line: str) -> re.Pattern[str]:
    """``line`` as a pattern over squeezed output: ``...`` or ``…`` match anything, and every
    number matches any number (compared by :func:`shows`)."""
    parts = [
        f"({NUMBER})".join(re.escape(chunk) for chunk in re.split(NUMBER, piece))
        for piece in re.split(r"\.\.\.|…", _squeeze(line).strip())
    ]
    return re.compile(".*?".join(parts))


def shows(output: str, line: str) -> bool:
    """Whether ``output`` prints ``line``: the same text, numbers within :data:`NUMBER_RTOL`."""
    expected = [float(x) for x in re.findall(NUMBER, re.sub(r"\.\.\.|…", " ", line))]
    for match in output_pattern(line).finditer(_squeeze(output)):
        got = [float(x) for x in match.groups()]
        if all(abs(g - e) <= NUMBER_RTOL * abs(e) for g, e in zip(got, expected, strict=True)):
            return True
    return False


@pytest.mark.parametrize("block", SHELL, ids=str)
def test_shell_block_runs(block, tmp_path, monkeypatch, capsys):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    output, argv = "", None
    for kind, value in shell_steps(block.code):
        if kind == "file":
            name, text = value
            (tmp_path / name).write_text(text, encoding="utf-8")
        elif kind == "run":
            argv = value
            if "minilm" in argv and importlib.util.find_spec("sentence_transformers") is None:
                pytest.skip(f"{block}: the minilm extra is not installed")
            rc = main(argv)
            output = capsys.readouterr().out
            assert rc == 0, f"{block}: paper-checks {' '.join(argv)} exited {rc}"
        else:
            assert argv is not None, f"{block}: output line before any command: {value!r}"
            assert shows(output, value), (
                f"{block}: 'paper-checks {' '.join(argv)}' did not print {value!r}; it printed:\n"
                f"{output}"
            )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env.update(PYTHONPATH=str(ROOT), MPLBACKEND="Agg", **extra)
    return env


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_python_block_runs(block, tmp_path):
    if "from hypothesis import given" in block.code:
        (tmp_path / "test_conjecture.py").write_text(block.code, encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--hypothesis-seed=0",
        ]
        cmd.append("test_conjecture.py")  # a fixed seed: the same examples on every clone
    else:
        cmd = [sys.executable, "-c", block.code]
    proc = subprocess.run(
        cmd,
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=PYTHON_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, f"{block} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
