"""Validation shared by the command line's readers and writers.

Every function raises ValueError with one line that names the option and the file, so the CLI turns
it into ``paper-checks: error: ...`` and exit code 2: input files are read as UTF-8 (a byte-order
mark is accepted) up to :data:`MAX_INPUT_BYTES`; a directory is told apart from a missing file;
user-chosen sizes are refused when their memory estimate exceeds the memory available now; output
paths are checked before any computation starts.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# the class files' rules, which every other input follows too: a number is written in ASCII (no
# ``_``, no digits of other scripts, no nan or inf) and a JSON object never repeats a key
from theory.online.class_file import _NUMBER as DECIMAL_NUMBER
from theory.online.class_file import _unique_keys as unique_keys

#: Input files larger than this are refused before they are read (a 1 GiB sample file would need
#: several GiB of memory as Python rows).
MAX_INPUT_BYTES = 256 * 2**20


def _size(n_bytes: float) -> str:
    """``n_bytes`` in the largest binary unit that keeps it >= 1 (e.g. ``"466 TiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n_bytes < 1024 or unit == "EiB":
            return f"{n_bytes:.3g} {unit}"
        n_bytes /= 1024
    raise AssertionError  # pragma: no cover


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (MemAvailable of /proc/meminfo, else
    free physical pages from ``os.sysconf``)."""
    try:
        with Path("/proc/meminfo").open(encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):  # pragma: no cover - non-POSIX
        return 2**63


def check_memory(estimate_bytes: float, what: str) -> None:
    """Refuse ``what`` (e.g. ``"--sample 1000000"``) when it would need more than the memory
    available now; the message gives the estimate."""
    free = available_memory()
    if not math.isfinite(estimate_bytes) or estimate_bytes > free:
        raise ValueError(
            f"{what} needs about {_size(estimate_bytes)} of memory, more than the "
            f"{_size(free)} available"
        )


def read_input_text(path: str | os.PathLike[str], option: str) -> str:
    """The text of the input file ``path`` given to ``option``: UTF-8 with an optional byte-order
    mark, at most :data:`MAX_INPUT_BYTES`; a ValueError naming option and file otherwise."""
    path = Path(path)
    where = f"{option}: {str(path)!r}"
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ValueError(f"{option}: no such file {str(path)!r}") from None
    except NotADirectoryError:
        raise ValueError(f"{where}: a parent of it is a file, not a directory") from None
    except OSError as err:
        raise ValueError(f"{where}: cannot read it ({err.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{where} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{where} is not a regular file")
    if info.st_size > MAX_INPUT_BYTES:
        raise ValueError(
            f"{where} is {_size(info.st_size)}; input files over {_size(MAX_INPUT_BYTES)} "
            "are refused"
        )
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(f"{where}: cannot read it ({err.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{where} is not UTF-8 text (bad byte at offset {err.start})") from None
    if "\x00" in text:
        raise ValueError(f"{where} holds NUL bytes (a binary file?)")
    return text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of the range of a float")
    return value


#: Integers with more digits than this are refused: beyond a float's range (~1.8e308), no number
#: of our formats is meaningful, and converting one would overflow.
MAX_INT_DIGITS = 308


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is out of range")
    return int(text)


def loads_strict(text: str) -> Any:
    """``json.loads`` without NaN, Infinity, floats that overflow to infinity, integers beyond
    a float's range or an object that repeats a key (``json.loads`` keeps the last value)."""
    try:
        return json.loads(
            text,
            object_pairs_hook=unique_keys,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except RecursionError:
        raise ValueError("nested too deeply") from None


#: An integer as every input of this package writes it: an optional sign and ASCII digits.
#: (Python's ``int`` also reads ``"1_000"``, ``" 7 "`` and other scripts' digits, ``"٣"``.)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def ascii_int(text: str) -> int:
    """The integer that ``text`` writes in ASCII digits with an optional sign (no ``_``, no
    spaces, no other scripts' digits, at most :data:`MAX_INT_DIGITS` digits); a ValueError
    otherwise."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"{text!r} is not an integer written in ASCII digits")
    return _bounded_int(text)


def ascii_float(text: str) -> float:
    """The finite number that ``text`` writes in ASCII decimal notation (``1``, ``-0.5``,
    ``2.5e-3``; the class files' rule :data:`DECIMAL_NUMBER`: no ``_``, ``nan``, ``inf``,
    spaces or other scripts' digits); a ValueError otherwise."""
    if not DECIMAL_NUMBER.fullmatch(text):
        raise ValueError(f"{text!r} is not a number written in ASCII decimal notation")
    return _finite_float(text)


def ascii_ints(text: str) -> list[int]:
    """The comma-separated integers of ``text`` (each read by :func:`ascii_int`)."""
    return [ascii_int(part) for part in text.split(",")]


def ascii_floats(text: str) -> list[float]:
    """The comma-separated numbers of ``text`` (each read by :func:`ascii_float`)."""
    return [ascii_float(part) for part in text.split(",")]


def _line_breaking(label: str) -> bool:
    """True when ``label`` holds a character that breaks or hides a printed line: a control
    character (``\n``, ``\r``, ``\t``, ESC, ...) or a line or paragraph separator."""
    return any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in label)


def check_labels(labels: Iterable[str], where: str, what: str, *, unique: bool) -> None:
    """Refuse labels that cannot be printed one to a line (:func:`_line_breaking`) and, when
    ``unique``, a label given twice: a ValueError ``"{where}: {what} {i}: ..."`` (1-based)."""
    seen: dict[str, int] = {}
    for i, label in enumerate(labels, 1):
        if _line_breaking(label):
            raise ValueError(
                f"{where}: {what} {i}: {label!r} holds a line break or control character"
            )
        if unique and label in seen:
            raise ValueError(f"{where}: {what} {i}: {label!r} repeats {what} {seen[label]}")
        seen.setdefault(label, i)


def text_lines(text: str) -> list[str]:
    """The lines of a JSON-lines file: split at ``\\n`` only (``str.splitlines`` also splits at
    U+2028, form feeds and other characters a JSON string may hold); a trailing ``\\r`` is JSON
    whitespace."""
    return text.split("\n")


def csv_records(text: str) -> list[list[str]]:
    """The records of a CSV text, read by :mod:`csv` itself (quoted newlines and form feeds stay
    inside their field)."""
    import csv
    import io

    return list(csv.reader(io.StringIO(text, newline="")))


def check_output_path(path: str | os.PathLike[str], option: str, *, directory: bool) -> None:
    """Refuse an output path that cannot be written, before any work starts: an empty path, a file
    where a directory is needed (or the reverse), or a parent that does not exist and cannot be
    created (e.g. under /proc)."""
    text = os.fspath(path)
    if not text.strip():
        raise ValueError(f"{option}: the path is empty")
    path = Path(text)
    if path.exists() or path.is_symlink():
        if directory and not path.is_dir():
            raise ValueError(f"{option}: {text!r} exists and is not a directory")
        if not directory and path.is_dir():
            raise ValueError(f"{option}: {text!r} is a directory, not a file")
        target = path if directory else path.parent
    else:
        target = path.parent
    # the nearest existing ancestor must be a writable directory
    probe = target.absolute()
    while not probe.exists():
        if probe.is_symlink():
            raise ValueError(f"{option}: {text!r}: {str(probe)!r} is a dangling symlink")
        probe = probe.parent
    if not probe.is_dir():
        raise ValueError(f"{option}: {text!r}: {str(probe)!r} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK) or _is_pseudo_fs(probe):
        raise ValueError(f"{option}: {text!r}: cannot write under {str(probe)!r}")


def _is_pseudo_fs(path: Path) -> bool:
    """True under /proc or /sys, where root may pass ``os.access`` but nothing can be created."""
    parts = path.resolve().parts
    return len(parts) > 1 and parts[1] in ("proc", "sys")
