"""Every file the command line writes goes through here.

A write names its ``root``, the directory the user named (``--out``, RUN_DIR, DST_RUN, or the
parent of a named output file). The target must resolve inside ``root``, every folder between
``root`` and the target must be a real directory (a symlink there is refused, never followed, and
a missing one is made one component at a time, each checked: :func:`make_dirs`), and the target
must be a regular file or missing: a symlink, a directory, a FIFO or a device in its place is
refused, never written through or replaced. The data goes to a temporary file in the target's
directory, is fsynced and renamed over the target, so a full disk or a kill leaves the old file
whole. :func:`check_tree` refuses, before any work, a folder the product will write under that
holds a link or a special file anywhere. Errors are ValueErrors of one line naming the path (the
CLI turns them into exit code 2).

Several files that must change together (a merge, ``run --update``, a re-decision) go through one
:class:`Transaction` with a journal in ``root``: a kill at any point leaves either the old files
or the new ones, and :func:`recover` (run by the next command that takes the directory's lock)
completes or undoes the commit and removes every temporary file left behind.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_counter = itertools.count()


def check_target(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> Path:
    """``path`` if a file may be written there (see the module docstring); ValueError naming it
    otherwise. ``root`` defaults to the path's own directory."""
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise ValueError(f"{os.fspath(path)!r}: not a file name")
    root = path.parent if root is None else Path(root)
    if path.is_relative_to(root) and ".." in path.relative_to(root).parts:  # out and back in
        raise ValueError(f"{os.fspath(path)!r} leads outside {os.fspath(root)!r} ('..')")
    parent = path.parent.resolve()
    if not parent.is_relative_to(root.resolve()):
        raise ValueError(
            f"{os.fspath(path)!r} resolves to {str(parent / path.name)!r}, outside "
            f"{os.fspath(root)!r}"
        )
    _check_folders(path.parent, root)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return path
    except OSError as err:
        raise ValueError(f"{os.fspath(path)!r}: cannot write it ({err.strerror})") from None
    if stat.S_ISLNK(info.st_mode):
        raise ValueError(f"{os.fspath(path)!r} is a symlink; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise ValueError(f"{os.fspath(path)!r} is {kind}; refusing to replace it")
    return path


def _folders_below(directory: Path, root: Path) -> list[Path]:
    """The folders from ``root`` (excluded) down to ``directory`` (included), outermost first
    (both made absolute, links not resolved)."""
    directory, root = Path(directory).absolute(), Path(root).absolute()
    if directory == root or not directory.is_relative_to(root):
        return []
    parts = directory.relative_to(root).parts
    return [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def _check_folders(directory: Path, root: Path) -> None:
    """Refuse a symlink or a non-directory among the existing folders between ``root`` and
    ``directory`` (a write is never followed through a link inside the directory named)."""
    for folder in _folders_below(directory, root):
        try:
            info = folder.lstat()
        except FileNotFoundError:
            return  # the rest is missing: make_dirs creates it, checked
        except OSError as err:
            raise ValueError(
                f"{os.fspath(folder)!r}: cannot write under it ({err.strerror})"
            ) from None
        if stat.S_ISLNK(info.st_mode):
            raise ValueError(
                f"{os.fspath(folder)!r} is a symlink inside {os.fspath(root)!r}; refusing to "
                "write through it"
            )
        if not stat.S_ISDIR(info.st_mode):
            raise ValueError(
                f"{os.fspath(folder)!r} is not a directory; refusing to write under it"
            )


def make_dirs(directory: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """Make ``directory`` and the folders between ``root`` and it, one component at a time, each
    checked after it is made (a symlink or a non-directory in the way is refused, never
    followed); ``root`` itself is made if missing. Returns ``directory``."""
    directory, root = Path(directory), Path(root)
    if ".." in directory.parts or not directory.is_relative_to(root):
        raise ValueError(f"{os.fspath(directory)!r} is not inside {os.fspath(root)!r}")
    try:
        root.mkdir(parents=True, exist_ok=True)
        for folder in _folders_below(directory, root):
            with contextlib.suppress(FileExistsError):
                folder.mkdir()
            _check_folders(folder, root)
    except OSError as err:
        raise _error(directory, err) from None
    return directory


#: Entries set aside by :func:`paper_checks._caches.set_aside_unreadable`: never read or written.
_SET_ASIDE = re.compile(r".*\.unreadable(?:-\d+)?")


def check_tree(root: str | os.PathLike[str], folders: tuple[str, ...]) -> None:
    """Refuse (ValueError naming the path) a symlink or a special file (FIFO, socket, device)
    anywhere under ``root/<folder>`` for each of ``folders`` (the folder itself included): the
    product writes there, and nothing there is followed or replaced. Entries already set aside
    as unreadable are skipped. A missing folder is fine."""
    root = Path(root)
    for name in folders:
        top = root / name
        _check_folders(top, root)
        if not top.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(top):  # never follows a link
            for entry in (*dirnames, *filenames):
                path = Path(dirpath) / entry
                if _SET_ASIDE.fullmatch(entry):
                    continue
                info = path.lstat()
                if stat.S_ISLNK(info.st_mode):
                    raise ValueError(
                        f"{os.fspath(path)!r} is a symlink inside {os.fspath(root)!r}; refusing "
                        "to write through it (remove it)"
                    )
                if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                    raise ValueError(
                        f"{os.fspath(path)!r} is not a regular file; refusing to write there "
                        "(remove it)"
                    )
            dirnames[:] = [d for d in dirnames if not _SET_ASIDE.fullmatch(d)]


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _temp_beside(path: Path) -> Path:
    """A fresh temporary name in ``path``'s directory, with its suffix (savefig and savez pick
    the format from it)."""
    return path.with_name(f".{path.stem}.tmp-{os.getpid()}-{next(_counter)}{path.suffix}")


def _error(path: Path, err: OSError) -> ValueError:
    return ValueError(f"{os.fspath(path)!r}: cannot write it ({err.strerror or err})")


def _publish(tmp: Path, path: Path, root: str | os.PathLike[str] | None) -> Path:
    """fsync ``tmp`` and rename it onto ``path`` (checked again just before)."""
    try:
        check_target(path, root)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    except OSError as err:
        raise _error(path, err) from None
    _fsync_dir(path.parent)
    return path


def write_with(
    path: str | os.PathLike[str],
    writer: Callable[[Path], Any],
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """Write ``path`` by calling ``writer(tmp)`` on a temporary file beside it, then publish it."""
    path = check_target(path, root)
    make_dirs(path.parent, path.parent if root is None else root)
    check_target(path, root)  # the directories just made may not lead outside
    tmp = _temp_beside(path)
    try:
        writer(tmp)
        return _publish(tmp, path, root)
    except OSError as err:
        raise _error(path, err) from None
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes(
    path: str | os.PathLike[str], data: bytes, root: str | os.PathLike[str] | None = None
) -> Path:
    """Write ``data`` to ``path`` (see the module docstring)."""
    return write_with(path, lambda tmp: _write_all(tmp, data), root)


def _write_all(tmp: Path, data: bytes) -> None:
    """Create ``tmp`` and write all of ``data`` to it (a short write is retried, ENOSPC raised)."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_text(
    path: str | os.PathLike[str], text: str, root: str | os.PathLike[str] | None = None
) -> Path:
    """Write ``text`` as UTF-8 to ``path``."""
    return write_bytes(path, text.encode("utf-8"), root)


def write_json(
    path: str | os.PathLike[str], obj: Any, root: str | os.PathLike[str] | None = None
) -> Path:
    """Write ``obj`` as the stable JSON of :func:`sims._jsonio.dumps` to ``path``."""
    from sims._jsonio import dumps

    return write_text(path, dumps(obj), root)


def copy_file(
    src: str | os.PathLike[str], path: str | os.PathLike[str], root: str | os.PathLike[str]
) -> Path:
    """Copy the regular file ``src`` (not a symlink) to ``path``."""
    src = Path(src)
    if src.is_symlink() or not src.is_file():
        raise ValueError(f"{os.fspath(src)!r} is not a regular file")
    return write_with(path, lambda tmp: shutil.copyfile(src, tmp), root)


def save_figure(
    fig: Figure, directory: str | os.PathLike[str], stem: str, root: str | os.PathLike[str]
) -> list[Path]:
    """``fig`` as ``directory/stem.png`` and ``.pdf``, rendered into a temporary folder beside
    them (:func:`paper_checks.plotting.render_figure`), each file then published as above."""
    from paper_checks.plotting import render_figure as render

    directory = Path(directory)
    for suffix in (".png", ".pdf"):
        check_target(directory / f"{stem}{suffix}", root)
    make_dirs(directory, root)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{stem}.tmp-", dir=directory))
    except OSError as err:
        raise _error(directory / stem, err) from None
    try:
        return [_publish(p, directory / p.name, root) for p in render(fig, staging, stem)]
    except OSError as err:
        raise _error(directory / stem, err) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


#: The journal of a commit under way, in the directory committed to (:class:`Transaction`).
JOURNAL = ".paper-checks.journal"
#: Temporary files and folders this module makes (:func:`_temp_beside`, :func:`_backup_beside`,
#: the staging folder of :func:`save_figure`): what :func:`recover` removes.
_TEMPORARY = re.compile(r"\..+\.(?:tmp|old)-.+")


def _backup_beside(path: Path) -> Path:
    """A fresh name beside ``path`` for a hard link to its old content during a commit."""
    return path.with_name(f".{path.stem}.old-{os.getpid()}-{next(_counter)}{path.suffix}")


class Transaction:
    """Files staged beside their targets, then published together, all or nothing.

    :meth:`stage` writes each to a temporary file (nothing is replaced yet). :meth:`commit`
    keeps a hard link to each old target, writes the journal ``root/`` :data:`JOURNAL` (the
    moves, the old files' links), fsyncs and renames every staged file onto its target in
    staging order (so stage an index such as results.json last), then removes the journal: its
    removal is the commit. A failure before that puts every old file back. A kill before the
    journal is written leaves only temporary files; a kill after leaves the journal, and the
    next command that takes the directory's lock runs :func:`recover`, which completes the
    commit when every file was already in place and undoes it otherwise (a commit is refused
    while a journal is pending). Leaving the ``with`` block without a commit removes every
    staged file and leaves the targets as they were."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._staged: list[tuple[Path, Path]] = []

    def stage(self, path: str | os.PathLike[str], writer: Callable[[Path], Any]) -> None:
        path = check_target(path, self.root)
        make_dirs(path.parent, self.root)
        try:
            tmp = _temp_beside(path)
            self._staged.append((tmp, path))
            writer(tmp)
        except OSError as err:
            raise _error(path, err) from None

    def stage_json(self, path: str | os.PathLike[str], obj: Any) -> None:
        from sims._jsonio import dumps

        data = dumps(obj).encode("utf-8")
        self.stage(path, lambda tmp: _write_all(tmp, data))

    def stage_copy(self, src: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
        src = Path(src)
        if src.is_symlink() or not src.is_file():
            raise ValueError(f"{os.fspath(src)!r} is not a regular file")
        self.stage(path, lambda tmp: shutil.copyfile(src, tmp))

    def commit(self) -> None:
        journal = self.root / JOURNAL
        if journal.exists() or journal.is_symlink():
            raise ValueError(
                f"{os.fspath(journal)!r}: an interrupted commit is pending; the next paper-checks "
                "command that takes the directory's lock finishes it"
            )
        for _, path in self._staged:
            check_target(path, self.root)
        moves = []  # [staged file, target, hard link to the old target or None]
        for tmp, path in self._staged:
            old = _backup_beside(path) if path.exists() else None
            try:
                if old is not None:
                    os.link(path, old)
            except OSError as err:
                _remove_all(old for _, _, old in moves)
                raise _error(path, err) from None
            moves.append([tmp, path, old])
        entries = [[None if p is None else _relative(p, self.root) for p in m] for m in moves]
        try:
            write_json(journal, {"moves": entries}, self.root)
        except BaseException:
            _remove_all(old for _, _, old in moves)
            raise
        try:
            for tmp, path, _ in moves:
                _publish(tmp, path, self.root)
        except BaseException:
            _roll_back(moves)
            journal.unlink(missing_ok=True)
            _fsync_dir(self.root)
            raise
        journal.unlink()  # the commit
        _fsync_dir(self.root)
        _remove_all(old for _, _, old in moves)
        self._staged.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        _remove_all(tmp for tmp, _ in self._staged)
        self._staged.clear()


def _relative(path: Path, root: Path) -> str:
    return path.absolute().relative_to(root.absolute()).as_posix()


def _remove_all(paths: Any) -> None:
    for path in paths:
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


def _roll_back(moves: list[list[Any]]) -> None:
    """Put back the old file of every move already published (a target that had none is
    removed), then remove the staged files not published and their old files' links. Staged
    files are removed last, so that a kill during this leaves one still there, and
    :func:`recover` undoes the commit again rather than completing it."""
    waiting = [move for move in moves if move[0].exists()]
    for tmp, path, old in reversed(moves):
        if [tmp, path, old] in waiting:
            continue
        with contextlib.suppress(OSError):
            if old is None:
                path.unlink(missing_ok=True)
            else:
                old.replace(path)
    for directory in {path.parent for _, path, _ in moves}:
        _fsync_dir(directory)
    # a target not published is as it was (renaming its hard link onto it would leave the link)
    _remove_all(old for _, _, old in waiting)
    _remove_all(tmp for tmp, _, _ in waiting)


def _journal_moves(root: Path) -> list[list[Any]] | None:
    """The moves in ``root``'s journal (None without one), each path checked to lie inside
    ``root`` and the staged and old files to be this module's temporary names."""
    journal = root / JOURNAL
    try:
        info = journal.lstat()
    except FileNotFoundError:
        return None
    where = f"{os.fspath(journal)!r}"
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{where} is not a regular file; remove it")
    try:
        entries = json.loads(journal.read_bytes().decode("utf-8"))["moves"]
        moves = []
        for tmp, path, old in entries:
            names = [tmp, path] + ([] if old is None else [old])
            for name in names:
                parts = Path(name).parts
                if not isinstance(name, str) or Path(name).is_absolute() or ".." in parts:
                    raise ValueError(name)
            if not all(_TEMPORARY.fullmatch(Path(n).name) for n in (tmp, old) if n is not None):
                raise ValueError(tmp)
            moves.append([root / tmp, check_target(root / path, root), old and root / old])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValueError(
            f"{where} is not a journal paper-checks wrote; remove it, after checking the files "
            "it names"
        ) from None
    return moves


def recover(root: str | os.PathLike[str]) -> list[str]:
    """Finish what a killed writer left in ``root`` (call it holding the directory's lock): a
    commit whose journal remains is completed when every staged file was already renamed into
    place, else undone (every old file put back); then every temporary file or folder of this
    module under ``root`` is removed. Returns one line per thing done."""
    root = Path(root)
    notes = []
    moves = _journal_moves(root)
    if moves is not None:
        if any(tmp.exists() for tmp, _, _ in moves):
            _roll_back(moves)
            notes.append(f"undid the interrupted commit of {len(moves)} file(s) in {root}")
        else:
            notes.append(f"completed the interrupted commit of {len(moves)} file(s) in {root}")
        (root / JOURNAL).unlink()
        _fsync_dir(root)
    if root.is_dir():
        for dirpath, dirnames, filenames in os.walk(root):  # never follows a link
            for name in (*filenames, *dirnames):
                if _TEMPORARY.fullmatch(name):
                    path = Path(dirpath) / name
                    if path.is_dir() and not path.is_symlink():
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        path.unlink(missing_ok=True)
            dirnames[:] = [d for d in dirnames if not _TEMPORARY.fullmatch(d)]
    return notes
