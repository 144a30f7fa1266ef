"""Concept class files, read by one rule for ``ConceptClass.from_file`` and ``solve online``.

``paper-checks solve online --class`` and :meth:`ConceptClass.from_file` share it
(docs/online.md#solve-your-own-concept-class).

- Text: one hypothesis per line; blank lines and lines starting with ``#`` are skipped. A line of
  the characters 0 and 1 only is a 0/1 string (``0110``: four points); any other line is numbers separated by whitespace and/or commas, as ``np.savetxt``
  writes them (``fmt='%d'``, or its default ``'%.18e'``: ``1.000000000000000000e+00``). Each
  number must equal 0 or 1 and be written with ASCII digits only (no ``_``, no other scripts).
- JSON: a list of lists, or ``{"hypotheses": [...], "points": [labels]}``; each entry a JSON
  number equal to 0 or 1 (``0``, ``1``, ``0.0``, ``1.0``; never ``true``/``false``); an object
  may not repeat a key; labels are strings or numbers.

Every refusal is one line naming the file and the line (text) or hypothesis (JSON).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["parse_class_json", "parse_class_text", "read_class_file"]

#: A decimal number in ASCII digits, as ``np.savetxt`` and JSON write them (no ``_``, no ``nan``).
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
#: What separates the numbers of a row: whitespace and/or one comma.
_SEPARATOR = re.compile(r"\s*,\s*|\s+")
#: Integers with more digits than this are refused before conversion (none equals 0 or 1).
_MAX_INT_DIGITS = 32


def _bit_of_token(token: str) -> int | None:
    """0 or 1 when ``token`` is an ASCII decimal number equal to it, else None."""
    if not _NUMBER.fullmatch(token):
        return None
    value = float(token)
    return int(value) if value in (0.0, 1.0) else None


def parse_class_text(text: str, where: str) -> np.ndarray:
    """The (rows × points) uint8 matrix of a text class file (module docstring); ``where`` (the
    file's name) starts every error message.

    Parameters
    ----------
    text : str
        The file's text.
    where : str
        The file's name, for error messages.

    Returns
    -------
    numpy.ndarray of uint8, (rows, points)
        The hypotheses.

    Raises
    ------
    ValueError
        If the text is not a class file (one line naming ``where`` and the line).

    Examples
    --------
    >>> from theory.online.class_file import parse_class_text
    >>> parse_class_text("# two hypotheses\\n01\\n1, 0\\n", "h.txt").tolist()
    [[0, 1], [1, 0]]
    """
    if not isinstance(text, str) or not isinstance(where, str):
        raise ValueError(  # noqa: TRY004
            f"text and where must be strings (got {type(text).__name__}, {type(where).__name__})"
        )
    rows: list[list[int]] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if set(line) <= {"0", "1"}:
            row = [int(ch) for ch in line]
        else:
            tokens = _SEPARATOR.split(line)
            bits = [_bit_of_token(token) for token in tokens]
            if None in bits:
                bad = tokens[bits.index(None)]
                plain_digits = bad.isascii() and bad.isdigit()
                if len(tokens) == 1 and (plain_digits or not _NUMBER.fullmatch(bad)):
                    bad = next(ch for ch in bad if ch not in "01")  # a 0/1 string, a stray char
                raise ValueError(f"{where}: line {line_no}: {bad!r} is not 0 or 1")
            row = [int(bit) for bit in bits if bit is not None]
        if rows and len(row) != len(rows[0]):
            raise ValueError(
                f"{where}: line {line_no}: has {len(row)} points, the first row has {len(rows[0])}"
            )
        rows.append(row)
    if not rows:
        raise ValueError(f"{where}: class is empty")
    return np.array(rows, dtype=np.uint8)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} is repeated")
        out[key] = value
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is not 0 or 1")
    return int(text)


def parse_class_json(text: str, where: str) -> tuple[np.ndarray, list[str] | None]:
    """The (rows × points) uint8 matrix and the point labels (None when not given) of a JSON class
    file (module docstring); ``where`` (the file's name) starts every error message.

    Parameters
    ----------
    text : str
        The file's text.
    where : str
        The file's name, for error messages.

    Returns
    -------
    matrix : numpy.ndarray of uint8, (rows, points)
        The hypotheses.
    labels : list of str or None
        The point labels, when given.

    Raises
    ------
    ValueError
        If the text is not a class file (one line naming ``where`` and the hypothesis).

    Examples
    --------
    >>> from theory.online.class_file import parse_class_json
    >>> text = '{"points": ["a", "b"], "hypotheses": [[0, 1], [1, 0]]}'
    >>> matrix, labels = parse_class_json(text, "h.json")
    >>> matrix.tolist(), labels
    ([[0, 1], [1, 0]], ['a', 'b'])
    """
    try:
        data = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_refuse_constant,
            parse_int=_bounded_int,
        )
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: line {err.lineno}: not valid JSON ({err.msg})") from None
    except ValueError as err:
        raise ValueError(f"{where}: not valid JSON ({err})") from None
    points = None
    if isinstance(data, dict):
        points, data = data.get("points"), data.get("hypotheses")
    if not isinstance(data, list) or not all(isinstance(r, list) for r in data):
        raise ValueError(f"{where}: the hypotheses must be a list of lists of 0/1")
    if not data:
        raise ValueError(f"{where}: class is empty")
    if points is not None and not (
        isinstance(points, list)
        and all(isinstance(p, str | int | float) and not isinstance(p, bool) for p in points)
    ):
        raise ValueError(f"{where}: 'points' must be a list of labels (strings or numbers)")
    for i, row in enumerate(data, 1):
        # an entry that is not the number 0 or 1 (a bool, a string, null: null is itself None)
        bad = [v for v in row if isinstance(v, bool) or not isinstance(v, int | float)]
        bad = bad or [v for v in row if v not in (0, 1)]
        if bad:
            raise ValueError(f"{where}: hypothesis {i}: entry {bad[0]!r} is not 0 or 1")
        if len(row) != len(data[0]):
            raise ValueError(
                f"{where}: hypothesis {i}: has {len(row)} points, the first has {len(data[0])}"
            )
    return np.array(data, dtype=np.uint8).reshape(len(data), len(data[0])), (
        None if points is None else [str(p) for p in points]
    )


def read_class_file(path: Path) -> tuple[np.ndarray, list[str] | None]:
    """Matrix and point labels of the class file ``path`` (``.json``: :func:`parse_class_json`,
    else :func:`parse_class_text`), from its UTF-8 text (a byte-order mark is accepted).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    matrix : numpy.ndarray of uint8, (rows, points)
        The hypotheses.
    labels : list of str or None
        The point labels (JSON files only).

    Raises
    ------
    ValueError
        If the file is not a class file, or not UTF-8.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from theory.online.class_file import read_class_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "h.txt"
    ...     _ = path.write_text("01\\n10\\n", encoding="utf-8")
    ...     matrix, labels = read_class_file(path)
    >>> matrix.tolist(), labels
    ([[0, 1], [1, 0]], None)
    """
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"class file {str(path)!r} is not UTF-8 text (bad byte at offset {err.start})"
        ) from None
    if path.suffix.lower() == ".json":
        return parse_class_json(text, str(path))
    return parse_class_text(text, str(path)), None
