"""The public API of the numeric core: the public modules of ``theory``, ``sims`` and ``neural``
and the names each exports. The site's API reference (``docs/api/``, Sphinx autosummary) documents
exactly these: a module whose name has no part starting with ``_``, and the names of its
``__all__``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["PACKAGES", "public_modules", "public_names"]

#: The packages of the numeric core, in the order of the layered house.
PACKAGES = ("theory", "sims", "neural")


def public_modules(package: str) -> list[ModuleType]:
    """The package and its public submodules, recursively, sorted by name.

    ``theory.online.strategies`` imports hypothesis (the ``test`` extra) and ``neural`` imports
    torch (the ``neural`` extra): enumerating them needs those extras.
    """
    if package not in PACKAGES:
        raise ValueError(f"package must be one of {', '.join(PACKAGES)} (got {package!r})")
    root = importlib.import_module(package)
    found = [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    return sorted([root, *found], key=lambda m: m.__name__)


def public_names(module: ModuleType) -> list[str]:
    """The module's ``__all__``; a public module without one is an error (ValueError)."""
    if not isinstance(module, ModuleType):
        raise ValueError(f"module must be a module object (got {module!r:.60})")  # noqa: TRY004
    names = getattr(module, "__all__", None)
    if names is None:
        raise ValueError(f"module {module.__name__} has no __all__")
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"module {module.__name__}'s __all__ must be a list of names")
    return list(names)
