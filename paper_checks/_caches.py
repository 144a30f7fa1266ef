"""Sweep caches checked before a run reads them: an unreadable task is set aside and computed
again, never a reason to lose the claim's record.

A run directory caches each finished sweep task as ``sweeps/<claim>/<name>/<fingerprint>/
task-<index>.json`` beside the sweep's ``sweep.json`` manifest (:func:`sims.sweep.run_sweep`;
replicates under ``replicates/r<r>/sweeps``). Before a run reads them, every manifest and task
file is validated against :data:`paper_checks._schema.SWEEP_MANIFEST` and
:data:`~paper_checks._schema.SWEEP_TASK` (with the depth limit, the task's index equal to its
file name's). A task that fails is renamed ``task-<index>.json.unreadable`` (the sweep no longer
sees it and computes it again); a sweep whose manifest fails has its folder renamed
``<fingerprint>.unreadable``. Links, FIFOs and other non-files are set aside the same way,
never read. Nothing is deleted, and nothing outside the run directory is touched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from paper_checks import _schema

__all__ = ["set_aside_unreadable", "unusable"]

TASK_FILE = re.compile(r"task-(\d+)\.json")
#: Larger task files are not read (a task's result is a few numbers per point).
MAX_BYTES = 256 * 1024**2


def unusable(path: Path, schema: _schema.Check) -> str | None:
    """Why ``path`` cannot be used as a record of ``schema`` (None when it can): not a regular
    file, too large, not JSON, too deep, not of the schema, or a task file holding another index."""
    if path.is_symlink() or not path.is_file():
        return "not a regular file"
    if path.stat().st_size > MAX_BYTES:
        return f"larger than {MAX_BYTES} bytes"
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
        _schema.check_depth(value)
        _schema.validate(value, schema)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        return str(err).splitlines()[0][:200] if str(err) else type(err).__name__
    match = TASK_FILE.fullmatch(path.name)
    if match and value["index"] != int(match.group(1)):
        return f"holds task {value['index']}, not {int(match.group(1))}"
    return None


def _set_aside(path: Path) -> Path:
    target = path.with_name(path.name + ".unreadable")
    n = 1
    while target.exists() or target.is_symlink():
        target = path.with_name(f"{path.name}.unreadable-{n}")
        n += 1
    path.rename(target)
    return target


def set_aside_unreadable(out_dir: Path) -> list[str]:
    """Validate every sweep cache under ``out_dir``; set aside what cannot be read and return one
    line per file or folder set aside, naming it and why."""
    roots = [out_dir / "sweeps", *sorted((out_dir / "replicates").glob("r*/sweeps"))]
    notes = []
    for root in roots:
        if root.is_symlink() or not root.is_dir():
            continue
        for folder in sorted(root.glob("*/*/*")):
            if any(p.is_symlink() for p in (folder, folder.parent, folder.parent.parent)):
                continue  # never followed
            if not folder.is_dir() or folder.name.endswith(".unreadable"):
                continue
            manifest = folder / "sweep.json"
            exists = manifest.exists() or manifest.is_symlink()
            why = unusable(manifest, _schema.SWEEP_MANIFEST) if exists else None
            if why is not None:
                moved = _set_aside(folder)
                notes.append(f"sweep cache {folder}: sweep.json {why}; set aside as {moved.name}")
                continue
            for task in sorted(folder.glob("task-*.json")):
                why = unusable(task, _schema.SWEEP_TASK)
                if why is not None:
                    moved = _set_aside(task)
                    notes.append(f"sweep cache task {task}: {why}; set aside as {moved.name}")
    return notes
