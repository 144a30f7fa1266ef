"""The README's library example runs and says what it claims."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_library_example_runs_and_its_comments_hold():
    block = re.search(
        r"## The numeric core as a library\n\n```python\n(.*?)```", README.read_text(), re.DOTALL
    )
    namespace: dict = {}
    exec(block.group(1), namespace)  # noqa: S102 - our own README
    assert namespace["crossing"].bracket == (4, 8)
    assert namespace["crossing"].k_star == pytest.approx(5.16, abs=0.01)
    assert namespace["fit"].exponent == pytest.approx(-0.149, abs=0.001)
