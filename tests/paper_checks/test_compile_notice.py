"""The first-run notice (paper_checks/_compile_notice.py): shown exactly when one of the project's
cached Numba kernels compiles (an on-disk cache miss), once, and only on a terminal."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from paper_checks._compile_notice import NOTICE, announce_kernel_compiles

ROOT = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent(
    """
    import io

    import numpy as np
    from numba import typed, types

    from paper_checks._compile_notice import announce_kernel_compiles


    class Terminal(io.StringIO):
        def isatty(self):
            return True


    stream = Terminal()
    announce_kernel_compiles(stream)
    typed.Dict.empty(types.int64, types.int64)  # Numba-internal, never cached: no notice
    from theory.online._dims_numba import floor_log2, lowest_bit

    assert floor_log2(5) == 2 and lowest_bit(np.uint64(4)) == 2
    print(repr(stream.getvalue()))
    """
)


def _probe(cache_dir: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return ast.literal_eval(done.stdout.strip())  # what the notice stream received


def test_notice_once_on_a_cold_cache_and_never_on_a_warm_one(tmp_path):
    cold = _probe(tmp_path / "numba-cache")
    assert cold == NOTICE + "\n"  # two kernels compiled, one line
    warm = _probe(tmp_path / "numba-cache")  # the same cache, now filled
    assert warm == ""


def test_no_notice_off_a_terminal():
    assert announce_kernel_compiles(io.StringIO()) is False
