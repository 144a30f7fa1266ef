"""JSON that is stable and safe to write while a process may be killed.

Results are JSON with numbers, not strings: numpy scalars become Python numbers, arrays become
(nested) lists, non-finite floats become ``null``. Files are written to a temporary name and renamed,
so a reader (or a resumed sweep) sees either the whole file or no file.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


def to_jsonable(obj: Any) -> Any:
    """Recursively convert ``obj`` to plain JSON types (dict, list, str, int, float, bool, None)."""
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"cannot store a {type(obj).__name__} in results JSON")


def dumps(obj: Any) -> str:
    """Serialise ``obj`` deterministically: converted by :func:`to_jsonable`, indented, sorted keys."""
    return (
        json.dumps(to_jsonable(obj), indent=2, sort_keys=True, allow_nan=False, ensure_ascii=False)
        + "\n"
    )


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` via a temporary file and :func:`os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(dumps(obj), encoding="utf-8")
    tmp.replace(path)
    return path


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file written by :func:`write_json_atomic`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
