"""The API reference of the numeric core, generated from its docstrings: ``docs/api/<package>.md``.

Every public module of ``theory``, ``sims`` and ``neural`` (a module whose name does not start
with ``_``) gets a section: its docstring's first paragraph, then each name of its ``__all__``
(every public module has one; a test checks that it lists every public function and class the
module defines):

- a function with its signature and docstring;
- a class with its constructor's signature, its docstring, its fields when it is a dataclass or a
  NamedTuple (name, type and meaning: the ``#:`` comment above the field, the comment after it,
  or its entry in the docstring's ``Attributes`` section), and its public methods and
  properties;
- a constant with its value and its ``#:`` comment;
- a name re-exported from another module with a pointer to it.

Docstrings are shown as markdown: numpydoc sections become bold headings with a list of their
entries, doctest examples (``>>>``) become Python code blocks (a test runs them), and Sphinx
roles (``:func:`x```) become code and ``:math:`` GitHub's inline math. ``paper-checks report --docs`` rewrites the pages with the
other generated docs (through the one writer, ``paper_checks._files``); a test fails when they
drift from the code.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import io
import pkgutil
import re
import textwrap
import tokenize
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "API_DIR",
    "PACKAGES",
    "api_pages",
    "field_docs",
    "public_modules",
    "public_names",
    "render_docstring",
]

#: The packages the reference covers, in the order of the layered house.
PACKAGES = ("theory", "sims", "neural")
API_DIR = Path(__file__).resolve().parent.parent / "docs" / "api"
#: numpydoc sections whose entries are ``name : type`` lines with an indented description.
_LIST_SECTIONS = ("Parameters", "Other Parameters", "Returns", "Yields", "Raises", "Attributes")
_ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|obj|exc|ref):`~?([^`]+)`")
_MATH = re.compile(r":math:`([^`]+)`")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
#: Comments that speak to a tool, not to a reader.
_PRAGMA = re.compile(r"(type:|noqa|pragma|fmt:)")


def public_modules(package: str) -> list[ModuleType]:
    """The package and its public submodules, recursively, by name. ``theory.online.strategies``
    imports hypothesis, a test dependency (the ``test`` extra): building the reference needs it,
    and says so in one line when it is missing."""
    root = importlib.import_module(package)
    found = [root]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.endswith(".strategies") and importlib.util.find_spec("hypothesis") is None:
            raise ValueError(
                f"the API reference documents {info.name}, which imports hypothesis: install "
                "the test extra (pip install -e '.[test]')"
            )
        found.append(importlib.import_module(info.name))
    return sorted(found, key=lambda m: m.__name__)


def public_names(module: ModuleType) -> list[str]:
    """The module's ``__all__``; a public module without one is an error."""
    names = getattr(module, "__all__", None)
    if names is None:
        raise ValueError(f"module {module.__name__} has no __all__")
    return list(names)


def _first_paragraph(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "")
    return _inline(text.split("\n\n", 1)[0].strip())


def _inline(text: str) -> str:
    """Sphinx roles and reST literals as markdown code, ``:math:`` as GitHub's inline math."""
    text = _MATH.sub(lambda m: f"$`{m.group(1)}`$", text)
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


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
    return _ADDRESS.sub("", str(sig.replace(parameters=params)))


class _Named:
    """A default shown by its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


# ------------------------------------------------------------------------------ docstrings
def _sections(doc: str) -> list[tuple[str | None, list[str]]]:
    """(section title or None for the text before the first, its lines), numpydoc style: a title
    line underlined by dashes."""
    lines = doc.splitlines()
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    i = 0
    while i < len(lines):
        line = lines[i]
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (
            line.strip()
            and not line.startswith(" ")
            and len(underline) >= 3
            and set(underline) == {"-"}
            and abs(len(underline) - len(line.strip())) <= 2
        ):
            out.append((line.strip(), []))
            i += 2
            continue
        out[-1][1].append(line)
        i += 1
    return out


def _entries(lines: list[str]) -> list[tuple[str, str]]:
    """The (head, description) entries of a numpydoc list section: a head line at the section's
    indentation, its description the more indented lines below it."""
    entries: list[tuple[str, list[str]]] = []
    for line in lines:
        if not line.strip():
            if entries:
                entries[-1][1].append("")
            continue
        if not line.startswith(" "):
            entries.append((line.strip(), []))
        elif entries:
            entries[-1][1].append(line.strip())
        else:
            entries.append(("", [line.strip()]))
    return [(head, " ".join(" ".join(desc).split())) for head, desc in entries]


def _attribute_docs(doc: str) -> dict[str, str]:
    """name -> description of the entries of the docstring's ``Attributes`` section (an entry may
    name several attributes, comma-separated, and give a type after ``:``)."""
    found: dict[str, str] = {}
    for title, lines in _sections(inspect.cleandoc(doc or "")):
        if title != "Attributes":
            continue
        for head, desc in _entries(lines):
            for name in head.split(":")[0].split(","):
                if name.strip():
                    found[name.strip()] = desc
    return found


def _text(lines: list[str]) -> list[str]:
    """Free text with its doctest examples (``>>>`` lines, their continuations and expected
    output up to a blank line) as Python code blocks, and ``.. math::`` directives as math
    blocks."""
    out: list[str] = []
    code: list[str] | None = None
    math: tuple[int, list[str]] | None = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if math is not None:
            if stripped and indent > math[0]:
                math[1].append(stripped)
                continue
            out += ["```math", *math[1], "```", ""]
            math = None
        if code is None and stripped.startswith(".. math::"):
            math = (indent, [stripped.removeprefix(".. math::").strip()])
            continue
        if code is not None:
            if stripped:
                code.append(line.lstrip() if stripped.startswith((">>>", "...")) else line)
                continue
            out += ["```python", *textwrap.dedent("\n".join(code)).splitlines(), "```", ""]
            code = None
            continue
        if stripped.startswith(">>>"):
            if out and out[-1].strip():
                out.append("")
            code = [stripped]
            continue
        out.append(_inline(line))
    if code is not None:
        out += ["```python", *textwrap.dedent("\n".join(code)).splitlines(), "```"]
    if math is not None:
        out += ["```math", *math[1], "```"]
    return out


def render_docstring(doc: str | None, skip_attributes: frozenset[str] = frozenset()) -> str:
    """A docstring as markdown: free text as it is (roles as code, doctests as code blocks),
    each numpydoc section as a bold title and, for list sections, one bullet per entry.
    ``skip_attributes`` are ``Attributes`` entries shown elsewhere (in a class's field table)."""
    text = inspect.cleandoc(doc or "")
    if not text:
        return "(no docstring)"
    out: list[str] = []
    for title, lines in _sections(text):
        if title is None:
            out += _text(lines)
            continue
        if title in _LIST_SECTIONS:
            example = next(
                (i for i, line in enumerate(lines) if line.startswith(">>>")), len(lines)
            )
            entries, after = _entries(lines[:example]), lines[example:]
            if title == "Attributes":
                entries = [
                    (head, desc)
                    for head, desc in entries
                    if not {n.strip() for n in head.split(":")[0].split(",")} <= skip_attributes
                ]
            if entries:
                out += ["", f"**{title}**", ""]
                for head, desc in entries:
                    label = f"`{head}`" if head else ""
                    out.append(f"- {label}{': ' if head and desc else ''}{_inline(desc)}")
                out.append("")
            out += _text(after)
        else:
            out += ["", f"**{title}**", "", *_text(textwrap.dedent("\n".join(lines)).splitlines())]
    rendered = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", rendered).strip()


# ------------------------------------------------------------------------------ source comments
def _comments(source: str) -> tuple[dict[int, tuple[bool, str]], dict[int, str]]:
    """(line number -> (whether it is a ``#:`` comment, its text) for a comment alone on its
    line, line number -> the text of a comment after code), without the ``#`` or ``#:``."""
    alone, after = {}, {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            text = re.sub(r"^#:?\s*", "", tok.string).strip()
            if tok.line.strip().startswith("#"):
                alone[tok.start[0]] = (tok.string.startswith("#:"), text)
            else:
                after[tok.start[0]] = text
    return alone, after


def _assigned_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    elif isinstance(node, ast.Assign):
        targets = node.targets
    else:
        return []
    names = []
    for target in targets:
        elts = target.elts if isinstance(target, ast.Tuple) else [target]
        names += [e.id for e in elts if isinstance(e, ast.Name)]
    return names


def _assignment_docs(source: str, body: list[ast.stmt]) -> dict[str, str]:
    """name -> the comment documenting its assignment in ``body``: the ``#:`` lines right above
    it, or else the comment at the end of its first line."""
    alone, trailing = _comments(source)
    docs: dict[str, str] = {}
    for node in body:
        names = _assigned_names(node)
        if not names:
            continue
        above = []
        line = node.lineno - 1
        while line in alone and alone[line][0]:
            above.insert(0, alone[line][1])
            line -= 1
        after = trailing.get(node.lineno, "")
        if _PRAGMA.match(after):
            after = ""
        doc = " ".join(above) if above else after
        for name in names:
            if doc and name not in docs:
                docs[name] = doc
    return docs


def _module_tree(module: ModuleType) -> tuple[str, ast.Module] | None:
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return None
    return source, ast.parse(source)


def _class_body_docs(cls: type) -> dict[str, str]:
    """Field comments of ``cls`` and of its project base classes (the nearest class wins)."""
    docs: dict[str, str] = {}
    for klass in cls.__mro__:
        module = inspect.getmodule(klass)
        if module is None or module.__name__.partition(".")[0] not in PACKAGES:
            continue
        parsed = _module_tree(module)
        if parsed is None:
            continue
        source, tree = parsed
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == klass.__name__:
                for name, doc in _assignment_docs(source, node.body).items():
                    docs.setdefault(name, doc)
    return docs


def _fields(cls: type) -> list[tuple[str, str]]:
    """(name, type) of a dataclass's or NamedTuple's fields; empty for other classes."""
    if dataclasses.is_dataclass(cls):
        return [
            (
                f.name,
                f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type)),
            )
            for f in dataclasses.fields(cls)
        ]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        hints = getattr(cls, "__annotations__", {})
        return [
            (name, str(hints.get(name, "")) if isinstance(hints.get(name), str) else "")
            for name in cls._fields
        ]
    return []


def field_docs(cls: type) -> dict[str, str]:
    """name -> meaning of each field of a dataclass or NamedTuple ``cls``: its ``#:`` comment,
    its trailing comment, or its entry in the class docstring's ``Attributes`` section (``""``
    where none says)."""
    comments = _class_body_docs(cls)
    attributes: dict[str, str] = {}
    for klass in cls.__mro__:
        for name, doc in _attribute_docs(vars(klass).get("__doc__") or "").items():
            attributes.setdefault(name, doc)
    return {name: comments.get(name) or attributes.get(name, "") for name, _ in _fields(cls)}


# ------------------------------------------------------------------------------ entries
def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _members(cls: type) -> list[tuple[str, Any]]:
    """Public methods and properties defined in ``cls`` itself, in source order."""
    found = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, classmethod):
            found.append((name, getattr(cls, name)))  # bound: its signature has no cls
        elif isinstance(value, staticmethod):
            found.append((name, value.__func__))
        elif isinstance(value, property) or inspect.isfunction(value):
            found.append((name, value))
    return found


def _class_entry(name: str, cls: type) -> list[str]:
    signature = (
        ""
        if issubclass(cls, BaseException) or getattr(cls, "_is_protocol", False)
        else _signature(cls)
    )
    fields = _fields(cls)
    lines = [f"#### class `{name}{signature}`", ""]
    lines += [render_docstring(cls.__doc__, frozenset(n for n, _ in fields)), ""]
    if fields:
        docs = field_docs(cls)
        lines += ["| field | type | meaning |", "|---|---|---|"]
        lines += [f"| `{n}` | `{_cell(t)}` | {_cell(docs[n])} |" for n, t in fields]
        lines.append("")
    for member, value in _members(cls):
        if isinstance(value, property):
            head = f"- property `{name}.{member}`"
            doc = value.__doc__
        else:
            head = f"- `{name}.{member}{_signature(value)}`"
            doc = value.__doc__
        body = render_docstring(doc) if doc else ""
        lines.append(head + (":" if body else ""))
        if body:
            lines += ["", textwrap.indent(body, "  "), ""]
    if _members(cls):
        lines.append("")
    return lines


def _anchor(module: str) -> str:
    package = module.partition(".")[0]
    return f"{package}.md#{module.replace('.', '')}"


def _entry(module: ModuleType, name: str, constants: dict[str, str]) -> list[str]:
    obj = getattr(module, name)
    home = getattr(obj, "__module__", None)
    # a private module has no page: what it defines is documented where it is exported
    private_home = any(part.startswith("_") for part in str(home).split("."))
    routine = inspect.isclass(obj) or inspect.isfunction(obj)
    if routine and home != module.__name__ and not private_home:
        link = (
            f"[`{home}`]({_anchor(home)})"
            if home and home.partition(".")[0] in PACKAGES
            else (f"`{home}`")
        )
        return [f"#### `{name}`", "", f"Re-exported from {link}.", ""]
    if inspect.isclass(obj):
        return _class_entry(name, obj)
    if callable(obj):
        return [f"#### `{name}{_signature(obj)}`", "", render_docstring(obj.__doc__), ""]
    value = _ADDRESS.sub("", textwrap.shorten(repr(obj), 100))
    lines = [f"#### `{name}` = `{value}`", ""]
    if constants.get(name):
        lines += [_inline(constants[name]), ""]
    return lines


def api_pages() -> dict[Path, str]:
    """docs/api/<package>.md -> its text, and docs/api/index.md."""
    pages: dict[Path, str] = {}
    index = [
        "# API reference (generated)",
        "",
        (
            "Generated from the docstrings and `__all__` by `paper-checks report --docs`; do not "
            "edit by hand."
        ),
        "",
    ]
    for package in PACKAGES:
        lines = [f"# `{package}` (generated)", "", "Back to the [API index](index.md).", ""]
        for module in public_modules(package):
            names = public_names(module)
            parsed = _module_tree(module)
            constants = _assignment_docs(*parsed[:1], parsed[1].body) if parsed else {}
            summary = _first_paragraph(module.__doc__).splitlines()
            index.append(
                f"- [`{module.__name__}`]({_anchor(module.__name__)}): "
                f"{summary[0] if summary else ''}"
            )
            lines += [f"## {module.__name__}", "", _first_paragraph(module.__doc__), ""]
            for name in names:
                lines += _entry(module, name, constants)
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
        pages[API_DIR / f"{package}.md"] = text.rstrip() + "\n"
    pages[API_DIR / "index.md"] = "\n".join(index) + "\n"
    return pages
