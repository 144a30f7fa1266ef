"""Every file the command line writes goes through here.

A write names its ``root``, the directory the user named (``--out``, RUN_DIR, DST_RUN, or the
parent of a named output file). The target must resolve inside ``root`` and be a regular file or
missing: a symlink, a directory, a FIFO or a device in its place is refused, never written through
or replaced. The data goes to a temporary file in the target's directory, is fsynced and renamed
over the target, so a full disk or a kill leaves the old file whole. Errors are ValueErrors of one
line naming the path (the CLI turns them into exit code 2).
"""

from __future__ import annotations

import contextlib
import itertools
import os
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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _error(path, err) from None
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
    try:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{stem}.tmp-", dir=directory))
    except OSError as err:
        raise _error(directory / stem, err) from None
    try:
        return [_publish(p, directory / p.name, root) for p in render(fig, staging, stem)]
    except OSError as err:
        raise _error(directory / stem, err) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class Transaction:
    """Files staged beside their targets, then published together: :meth:`stage` writes each to
    a temporary file (nothing is replaced yet); :meth:`commit` renames them in staging order (so
    stage an index such as results.json last), keeping a hard link to each old file until all
    are in place: a failed rename puts every file already replaced back. Leaving the ``with``
    block without a commit removes every staged file and leaves the targets as they were."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._staged: list[tuple[Path, Path]] = []

    def stage(self, path: str | os.PathLike[str], writer: Callable[[Path], Any]) -> None:
        path = check_target(path, self.root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
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
        for _, path in self._staged:
            check_target(path, self.root)
        done: list[tuple[Path | None, Path]] = []  # (hard link to the old file, target)
        try:
            for tmp, path in self._staged:
                old = None
                if path.exists():
                    old = _temp_beside(path)
                    try:
                        os.link(path, old)
                    except OSError as err:
                        raise _error(path, err) from None
                done.append((old, path))
                _publish(tmp, path, self.root)
        except BaseException:
            for old, path in reversed(done):
                with contextlib.suppress(OSError):
                    if old is None:
                        path.unlink(missing_ok=True)
                    else:
                        old.replace(path)
            raise
        finally:
            for old, _ in done:
                if old is not None:
                    old.unlink(missing_ok=True)
        self._staged.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        for tmp, _ in self._staged:
            tmp.unlink(missing_ok=True)
        self._staged.clear()
