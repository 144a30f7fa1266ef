"""The API reference of the numeric core, generated from its docstrings: ``docs/api/<package>.md``.

Every public module of ``theory``, ``sims`` and ``neural`` (a module whose name does not start
with ``_``) gets a section: its docstring's first paragraph, then each public name with its
signature and docstring, and for a dataclass its fields with their types. The public names are
the module's ``__all__``, or, where a module has none yet, the functions and classes it defines
whose names do not start with ``_``. ``paper-checks report --docs`` rewrites the pages with
the other generated docs; a test fails when they drift from the code.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["API_DIR", "PACKAGES", "api_pages", "public_names", "write_api_pages"]

#: The packages the reference covers, in the order of the layered house.
PACKAGES = ("theory", "sims", "neural")
API_DIR = Path(__file__).resolve().parent.parent / "docs" / "api"


def _modules(package: str) -> list[ModuleType]:
    """The package and its public submodules, recursively, by name."""
    root = importlib.import_module(package)
    found = [root]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.endswith(".strategies"):  # needs hypothesis; documented in docs/online.md
            continue
        found.append(importlib.import_module(info.name))
    return sorted(found, key=lambda m: m.__name__)


def public_names(module: ModuleType) -> list[str]:
    """``__all__``, or the functions and classes defined in ``module`` not starting with _."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return sorted(
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    )


def _first_paragraph(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "")
    return text.split("\n\n", 1)[0].strip()


def _signature(obj: Any) -> str:
    """The signature, with defaults that are functions or classes shown by name (their repr
    holds a memory address, which would make the pages differ from run to run)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = [
        p.replace(default=_Named(p.default.__qualname__))
        if p.default is not inspect.Parameter.empty
        and (inspect.isfunction(p.default) or inspect.isclass(p.default))
        else p
        for p in sig.parameters.values()
    ]
    return str(sig.replace(parameters=params))


class _Named:
    """A default shown by its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


def _entry(module: ModuleType, name: str) -> list[str]:
    obj = getattr(module, name)
    if inspect.isclass(obj):
        head = f"#### class `{name}{_signature(obj) if dataclasses.is_dataclass(obj) else ''}`"
    elif callable(obj):
        head = f"#### `{name}{_signature(obj)}`"
    else:
        return [f"#### `{name}` = `{textwrap.shorten(repr(obj), 80)}`", ""]
    lines = [head, ""]
    doc = inspect.cleandoc(inspect.getdoc(obj) or "(no docstring)")
    lines += [doc, ""]
    if dataclasses.is_dataclass(obj):
        lines += ["| field | type |", "|---|---|"]
        lines += [
            f"| `{f.name}` | `{f.type if isinstance(f.type, str) else f.type.__name__}` |"
            for f in dataclasses.fields(obj)
        ]
        lines.append("")
    return lines


def api_pages() -> dict[Path, str]:
    """docs/api/<package>.md -> its text, and docs/api/index.md."""
    pages: dict[Path, str] = {}
    index = [
        "# API reference (generated)",
        "",
        "Generated from the docstrings by `paper-checks report --api`; do not edit by hand.",
        "",
    ]
    for package in PACKAGES:
        lines = [f"# `{package}` (generated)", "", "Back to the [API index](index.md).", ""]
        for module in _modules(package):
            names = public_names(module)
            index.append(
                f"- [`{module.__name__}`]({package}.md#{module.__name__.replace('.', '')}): "
                f"{_first_paragraph(module.__doc__).splitlines()[0] if module.__doc__ else ''}"
            )
            lines += [f"## {module.__name__}", "", _first_paragraph(module.__doc__), ""]
            for name in names:
                lines += _entry(module, name)
        pages[API_DIR / f"{package}.md"] = "\n".join(lines).rstrip() + "\n"
    pages[API_DIR / "index.md"] = "\n".join(index) + "\n"
    return pages


def write_api_pages() -> list[Path]:
    """Write :func:`api_pages` to docs/api/ and return the paths written."""
    API_DIR.mkdir(exist_ok=True)
    pages = api_pages()
    for path, text in pages.items():
        path.write_text(text, encoding="utf-8")
    return list(pages)
