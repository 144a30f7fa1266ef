"""A one-line notice on stderr when this project's Numba kernels are compiled (their first run).

The kernels of ``theory`` and ``sims`` are compiled with ``cache=True``: the first call after an
install or an edit compiles them (about 30 s for ``solve online``) and stores them on disk;
later runs load them in milliseconds. Numba announces each compilation that its on-disk cache
could not serve with a ``numba:compile`` event (``numba.core.event``), so listening to that
event says exactly when a kernel compiles, without guessing from timings. Numba-internal code
that is never cached (typed containers, a few tenths of a second every run) is not announced.
Like the progress bars, the notice is shown only on a terminal.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

#: The notice, printed once per process when the first cached kernel compiles.
NOTICE = "paper-checks: compiling numeric kernels (first run only, ~30 s)…"

_PROJECT_PACKAGES = ("theory", "sims", "neural")


def _is_cold_project_kernel(dispatcher: Any) -> bool:
    """True for a dispatcher of this project compiled with ``cache=True`` (a compile event of
    one is an on-disk cache miss)."""
    from numba.core.caching import NullCache

    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    cached = not isinstance(getattr(dispatcher, "_cache", None), NullCache | type(None))
    return cached and module.partition(".")[0] in _PROJECT_PACKAGES


def announce_kernel_compiles(stream: TextIO | None = None) -> bool:
    """Print :data:`NOTICE` on ``stream`` (default stderr) when the first of this project's
    cached Numba kernels starts compiling in this process; only when ``stream`` is a terminal.
    Returns whether the listener was installed."""
    stream = sys.stderr if stream is None else stream
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    from numba.core import event

    class FirstCompile(event.Listener):
        shown = False

        def on_start(self, ev: event.Event) -> None:
            if not self.shown and _is_cold_project_kernel((ev.data or {}).get("dispatcher")):
                self.shown = True
                print(NOTICE, file=stream, flush=True)

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", FirstCompile())
    return True
