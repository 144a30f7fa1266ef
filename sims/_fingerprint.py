"""Fingerprints of code: the sha256 of what a function can run, read from the source files of
its module and of every project module it imports, transitively, with what computes no number
left out (comments, docstrings, ``__all__``, descriptive keyword arguments, and the guards that
refuse bad arguments: :func:`without_guards`).

A sweep's cache (:mod:`sims.sweep`) and a claim's record (:func:`paper_checks.runner.
claim_fingerprint`) are keyed by them, so a result made by other code is known to be stale. The
machinery lives apart from the sweep engine so that the claims' fingerprints can leave it out:
editing how fingerprints are taken changes no computed number.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

__all__ = [
    "at_placement",
    "at_scale",
    "canonical_code",
    "code_fingerprint",
    "module_slice",
    "without_drawing",
    "without_guards",
]


def _module_file(name: str) -> Path | None:
    """The source file of module ``name``, found on disk without importing anything; None when
    it has no Python source (built-in, extension, not a module)."""
    if name == "__main__":
        path = getattr(sys.modules.get("__main__"), "__file__", None)
        return Path(path) if path and str(path).endswith(".py") else None
    top, *rest = name.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: finds, never imports
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        return Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None
    for location in spec.submodule_search_locations or ():
        folder = Path(location).joinpath(*rest[:-1])
        for path in (folder / f"{rest[-1]}.py", folder / rest[-1] / "__init__.py"):
            if path.is_file():
                return path
    return None


def _imported_modules(tree: ast.AST, name: str, is_package: bool) -> set[str]:
    """Absolute names of the modules an AST imports anywhere (lazy imports included), with
    ``from pkg import sub`` giving both ``pkg`` and ``pkg.sub``."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".") if package else []
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


#: CPython 3.11 builds Python AST objects with interpreter-wide state (gh-106905): two threads
#: in ast.parse at once, ours or a library's, can fail. Checks run in threads, so each module's
#: imports and code are parsed once per source text (the runner warms this in the main thread).
_AST_LOCK = threading.Lock()
_IMPORTS: dict[tuple[Any, ...], tuple[frozenset[str], str]] = {}


def _parsed(
    name: str,
    path: Path,
    source: bytes,
    ignore: tuple[tuple[str, str], ...],
    placement: tuple[str, str],
) -> tuple[frozenset[str], str]:
    """(the modules a module's source imports, the sha256 of its :func:`canonical_code` on
    ``placement``: :func:`at_placement`), cached by (module, sha256 of source, ``ignore``,
    ``placement``)."""
    key = (name, hashlib.sha256(source).hexdigest(), ignore, placement)
    with _AST_LOCK:
        if key not in _IMPORTS:
            tree = ast.parse(source)
            if name not in GUARDS_COUNTED:
                tree = without_guards(tree)
            tree = at_placement(tree, *placement)
            imports = frozenset(_imported_modules(tree, name, path.name == "__init__.py"))
            code = hashlib.sha256(canonical_code(tree, ignore).encode()).hexdigest()
            _IMPORTS[key] = (imports, code)
        return _IMPORTS[key]


#: Calls a guard's test may make (by the name called, :func:`_callee`): reads that change no
#: value. A guard whose test calls anything else counts like any other statement. They read
#: without consuming only what can be read twice: the house's guards test numbers, arrays,
#: lists and strings, never a one-shot iterator that later code reads again (``any``, ``list``,
#: ``sorted`` and the like would exhaust one).
PURE_TEST_CALLS = frozenset(
    {
        *("isinstance", "issubclass", "hasattr", "callable", "type", "len", "any", "all"),
        *("set", "frozenset", "tuple", "list", "sorted", "int", "float", "bool", "str", "abs"),
        *("min", "max", "round", "range", "isfinite", "isnan", "isinf", "issubdtype", "prod"),
        *("array_equal", "unique", "diff", "floor", "sum", "is_integer", "strip", "lstrip"),
        *("startswith", "endswith", "isdigit", "isdtype", "asarray", "isscalar", "ndim"),
        *("size", "shape", "isreal", "iscomplexobj", "count_nonzero"),
    }
)

#: Modules whose guards count: their functions run inside a handler that turns a ValueError
#: into a value (``theory.passk_stats.fit_logit_affine_parts`` fits each part with
#: ``theory.passk.fit_logit_affine``, whose arguments ``theory._domain`` checks, and records NaN
#: where the fit refuses), so a guard there can change a number. A test holds every other
#: handler of the computing code to re-raising.
GUARDS_COUNTED = frozenset({"theory.passk", "theory._domain"})


#: The names ``theory._domain`` (the argument checks) is imported under: ``_checks`` where a
#: module has a ``_domain`` of its own (theory/online/census.py).
DOMAIN_NAMES = ("_domain", "_checks")


def _is_guard(node: ast.stmt) -> bool:
    """Whether a statement only refuses arguments: ``if <test>: raise ValueError(...)`` (an
    ``elif`` chain of such included) whose test makes only :data:`PURE_TEST_CALLS`, or a call
    of ``theory._domain`` made as a statement (its value unused: it can only raise) whose
    arguments make only such calls."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        arguments = [*node.value.args, *(k.value for k in node.value.keywords)]
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in DOMAIN_NAMES
            and _reads_only(arguments)
        )
    if not isinstance(node, ast.If) or len(node.body) != 1:
        return False
    raised = node.body[0]
    exc = raised.exc if isinstance(raised, ast.Raise) else None
    exc = exc.func if isinstance(exc, ast.Call) else exc
    if not (isinstance(exc, ast.Name) and exc.id == "ValueError"):
        return False
    if not _reads_only([node.test]):
        return False
    return not node.orelse or (len(node.orelse) == 1 and _is_guard(node.orelse[0]))


def _reads_only(expressions: list[ast.expr]) -> bool:
    """Whether every call inside ``expressions`` is one of :data:`PURE_TEST_CALLS`."""
    calls = (n for e in expressions for n in ast.walk(e) if isinstance(n, ast.Call))
    return all(_callee(call.func) in PURE_TEST_CALLS for call in calls)


def without_guards(tree: ast.Module) -> ast.Module:
    """``tree`` less its guards (:func:`_is_guard`) outside any ``try`` body: statements that
    either raise ValueError or do nothing, so that adding, tightening or rewording a check of
    the arguments leaves the fingerprint of the code that computes a number as it was. A run
    that a new guard refuses ends in an error, never in another number, as long as no handler
    turns that ValueError into a value (:data:`GUARDS_COUNTED` names the one place that does).
    The tree given is not modified."""

    def strip(node: ast.AST) -> None:
        if isinstance(node, ast.Try | ast.TryStar):
            return  # a guard inside a try may be caught: it counts
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            if children and isinstance(children[0], ast.stmt):
                children = [v for v in children if not _is_guard(v)]
                setattr(node, field, children)
            for child in children:
                if isinstance(child, ast.AST):
                    strip(child)

    tree = copy.deepcopy(tree)
    strip(tree)
    return tree


def _presentation_names(tree: ast.Module, package: str, skip: Collection[str]) -> set[str]:
    """The names ``tree``'s imports (lazy ones included) bind to a module in ``skip`` or to
    something imported from one: what a call through them runs computes no number."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.asname and a.name in skip}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".") if package else []
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            source = ".".join(p for p in (base, node.module or "") if p)
            names |= {
                a.asname or a.name
                for a in node.names
                if source in skip or f"{source}.{a.name}" in skip
            }
    return names


def without_drawing(
    tree: ast.Module,
    package: str,
    skip: Collection[str],
    ignore: Collection[tuple[str, str]] = (),
) -> ast.Module:
    """``tree`` less what only draws: in each function, an assignment ``name = f(...)`` whose
    call runs a presentation module's code (``f`` imported from a module in ``skip``, or an
    attribute of one) with arguments that make only :data:`PURE_TEST_CALLS` or other such
    calls, and whose ``name`` nothing else in the function reads outside the keyword arguments
    ``ignore`` leaves out (a result's figures), repeated until none is left. So a figure drawn
    in a check's body, and the arguments it is drawn from, can change without changing the
    fingerprint of the code that computes the check's numbers. An assignment whose arguments
    make any other call is kept: such a call may draw from a generator the numbers use. The
    tree given is not modified."""
    drawing = _presentation_names(tree, package, skip)
    if not drawing:
        return tree
    drop = {(callee, keyword) for callee, keyword in ignore}

    def draws(call: ast.Call) -> bool:
        base = call.func
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name) and base.id in drawing

    def only_draws(node: ast.stmt) -> str | None:
        """The name ``node`` binds when it is a drawing assignment, else None."""
        if not (isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call)):
            return None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not draws(node.value):
            return None
        calls = [n for n in ast.walk(node.value) if isinstance(n, ast.Call)]
        if all(draws(c) or _callee(c.func) in PURE_TEST_CALLS for c in calls):
            return targets[0].id
        return None

    def strip(function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        while True:
            statements = [
                (parent, field, stmt)
                for parent in ast.walk(function)
                for field, value in ast.iter_fields(parent)
                if isinstance(value, list)
                for stmt in value
                if isinstance(stmt, ast.stmt)
            ]
            dead = None
            for parent, field, stmt in statements:
                name = only_draws(stmt)
                if name is None:
                    continue
                others = (
                    n for _, _, s in statements if s is not stmt for n in _kept_nodes(s, drop)
                )
                if not any(
                    isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == name
                    for n in others
                ):
                    dead = (parent, field, stmt)
                    break
            if dead is None:
                return
            parent, field, stmt = dead
            setattr(parent, field, [s for s in getattr(parent, field) if s is not stmt])

    tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            strip(node)
    return tree


#: The keywords of ``Context.pick(quick=..., full=..., paper=...)``; paper falls back to full.
_PICK_SCALES = ("quick", "full", "paper")


def _is_scale(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "scale"
        and isinstance(node.value, ast.Name)
        and node.value.id == "ctx"
    )


def _scale_test(test: ast.expr, scale: str) -> bool | None:
    """The value of ``test`` at ``scale`` when it compares ``ctx.scale`` with constants
    (``==``, ``!=``, ``in``, ``not in`` a tuple, list or set of them); None otherwise."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_scale(test.left)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(right, ast.Tuple | ast.List | ast.Set):
        values = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        if len(values) != len(right.elts) or not isinstance(op, ast.In | ast.NotIn):
            return None
        return (scale in values) == isinstance(op, ast.In)
    if not isinstance(right, ast.Constant) or not isinstance(op, ast.Eq | ast.NotEq):
        return None
    return (scale == right.value) == isinstance(op, ast.Eq)


def _picked(call: ast.Call, scale: str) -> ast.expr | None:
    """The argument ``ctx.pick(quick=..., full=..., paper=...)`` takes at ``scale`` when the call
    names its sizes by keyword and the others make no call (evaluating them does nothing)."""
    given = {k.arg: k.value for k in call.keywords}
    if call.args or _callee(call.func) != "pick" or not set(given) <= set(_PICK_SCALES):
        return None
    chosen = given.get(scale, given.get("full") if scale == "paper" else None)
    others = [v for v in given.values() if v is not chosen]
    if chosen is None or any(isinstance(n, ast.Call) for v in others for n in ast.walk(v)):
        return None
    return chosen


def at_scale(tree: ast.Module, scale: str) -> ast.Module:
    """``tree`` as a run at ``scale`` reads it: each ``ctx.pick(quick=..., full=..., paper=...)``
    replaced by the argument that scale takes (:func:`_picked`), and each ``if`` statement or
    expression that compares ``ctx.scale`` with constants replaced by its branch at that scale,
    so that a record at one scale is keyed by the code that scale runs and another scale's sizes
    and branches can change without staling it. The tree given is not modified."""

    class _AtScale(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            chosen = _picked(node, scale)
            return self.visit(chosen) if chosen is not None else self.generic_visit(node)

        def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
            value = _scale_test(node.test, scale)
            if value is None:
                return self.generic_visit(node)
            return self.visit(node.body if value else node.orelse)

        def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
            value = _scale_test(node.test, scale)
            if value is None:
                return self.generic_visit(node)
            return [self.visit(n) for n in (node.body if value else node.orelse)]

    return _AtScale().visit(copy.deepcopy(tree))


#: The placement a run computes at by default, which every placement reading leaves out: the
#: torch device and the array backend (:mod:`sims._backend`).
DEFAULT_PLACEMENT = {"device": "cpu", "backend": "numpy"}


def _placement_value(node: ast.expr, placement: dict[str, str]) -> str | None:
    """The value of ``node`` in a run at ``placement`` when it is a placement read, else None:
    the names ``device`` and ``backend``; any ``<x>.device`` (the context's, a tensor's, an
    array's: in a run at a device every array lives there); ``<x>.backend.name``; ``device(e)``
    (``torch.device``, ``array_api_compat.device``) of a placement read, of a constant (itself)
    or of an array (the run's device); and ``params.pop(name, default)`` or ``.get`` of a
    placement name, which holds the run's placement."""
    if isinstance(node, ast.Name) and node.id in placement:
        return placement[node.id]
    if isinstance(node, ast.Attribute) and node.attr == "device":
        return placement["device"]
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "name"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "backend"
    ):
        return placement["backend"]
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    callee, args = _callee(node.func), node.args
    if callee == "device" and len(args) == 1:
        if isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            return args[0].value
        return _placement_value(args[0], placement) or placement["device"]
    if (
        callee in ("pop", "get")
        and len(args) == 2
        and all(isinstance(a, ast.Constant) for a in args)
        and args[0].value in placement
        and args[1].value == DEFAULT_PLACEMENT[args[0].value]
    ):
        return placement[args[0].value]
    return None


def _placement_test(test: ast.expr, placement: dict[str, str]) -> bool | None:
    """The value of ``test`` at ``placement`` when it compares a placement read
    (:func:`_placement_value`) with string constants (``==``, ``!=``, ``in``, ``not in``);
    None otherwise."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    value = _placement_value(test.left, placement)
    op, right = test.ops[0], test.comparators[0]
    if value is None:
        return None
    if isinstance(right, ast.Tuple | ast.List | ast.Set) and isinstance(op, ast.In | ast.NotIn):
        if not all(isinstance(e, ast.Constant) for e in right.elts):
            return None
        return (value in [e.value for e in right.elts]) == isinstance(op, ast.In)
    if isinstance(right, ast.Constant) and isinstance(op, ast.Eq | ast.NotEq):
        return (value == right.value) == isinstance(op, ast.Eq)
    return None


def at_placement(tree: ast.Module, device: str = "cpu", backend: str = "numpy") -> ast.Module:
    """``tree`` as a run on torch device ``device`` and array backend ``backend`` reads it: each
    ``if`` statement or expression that compares a placement read (:func:`_placement_value`)
    with constants replaced by its branch there, and what is the identity there left out: a
    keyword ``device=`` or ``backend=`` whose value is the default placement
    (:data:`DEFAULT_PLACEMENT`: the CPU, numpy), ``x.to(d)`` for such a ``d`` and ``x.cpu()``
    on the CPU (both ``x``), a parameter ``device="cpu"`` or ``backend="numpy"``, and an
    assignment (annotated or not) of the default placement to the name ``device`` or
    ``backend``. So the code that
    carries a run to a GPU leaves the fingerprint of a CPU run as it was, and a record made on a
    GPU is keyed by the code that run reads. The tree given is not modified."""
    placement = {"device": device, "backend": backend}

    def is_default(name: str | None, value: ast.expr) -> bool:
        """Whether ``value``, given to the placement name ``name``, is the default placement
        in a run at the default placement: a placement read or a constant."""
        if name not in DEFAULT_PLACEMENT or placement[name] != DEFAULT_PLACEMENT[name]:
            return False
        constant = value.value if isinstance(value, ast.Constant) else None
        return DEFAULT_PLACEMENT[name] in (constant, _placement_value(value, placement))

    class _AtPlacement(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and not node.keywords
                and (
                    (
                        func.attr == "to"
                        and len(node.args) == 1
                        and is_default("device", node.args[0])
                    )
                    or (func.attr == "cpu" and not node.args and device == "cpu")
                )
            ):
                return self.visit(func.value)
            node.keywords = [k for k in node.keywords if not is_default(k.arg, k.value)]
            return self.generic_visit(node)

        def visit_arguments(self, node: ast.arguments) -> ast.AST:
            positional = [*node.posonlyargs, *node.args]
            defaults = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
            keep = [
                not (isinstance(d, ast.Constant) and is_default(a.arg, d))
                for a, d in zip(positional, defaults, strict=True)
            ]
            n_only = len(node.posonlyargs)
            node.posonlyargs = [a for a, k in zip(positional[:n_only], keep, strict=False) if k]
            node.args = [a for a, k in zip(positional[n_only:], keep[n_only:], strict=True) if k]
            node.defaults = [d for d, k in zip(defaults, keep, strict=True) if k and d is not None]
            kw = [
                (a, d)
                for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True)
                if not (isinstance(d, ast.Constant) and is_default(a.arg, d))
            ]
            node.kwonlyargs, node.kw_defaults = [a for a, _ in kw], [d for _, d in kw]
            return self.generic_visit(node)

        def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
            (target, *more) = node.targets
            if not more and isinstance(target, ast.Name) and is_default(target.id, node.value):
                return None
            return self.generic_visit(node)

        def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
            target, value = node.target, node.value
            if isinstance(target, ast.Name) and value is not None and is_default(target.id, value):
                return None
            return self.generic_visit(node)

        def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
            value = _placement_test(node.test, placement)
            if value is None:
                return self.generic_visit(node)
            return self.visit(node.body if value else node.orelse)

        def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
            value = _placement_test(node.test, placement)
            if value is None:
                return self.generic_visit(node)
            return [self.visit(n) for n in (node.body if value else node.orelse)]

    return _AtPlacement().visit(copy.deepcopy(tree))


def _bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds: a def's or class's name, assignment targets, and
    the names an import binds. Empty for any other statement."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).partition(".")[0] for a in node.names}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _referenced_names(node: ast.AST, drop: set[tuple[str | None, str | None]]) -> set[str]:
    """Every name ``node`` reads, outside the keyword arguments that ``drop`` leaves out of the
    canonical code (and outside calls whose every argument it leaves out)."""
    found: set[str] = set()
    todo: list[ast.AST] = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, ast.Name):
            found.add(current.id)
        if isinstance(current, ast.Call):
            callee = _callee(current.func)
            todo.append(current.func)
            if (callee, "*") in drop:
                continue
            todo.extend(current.args)
            todo.extend(k.value for k in current.keywords if (callee, k.arg) not in drop)
            continue
        todo.extend(ast.iter_child_nodes(current))
    return found


def module_slice(
    tree: ast.Module, root: str | Collection[str], ignore: Collection[tuple[str, str]] = ()
) -> ast.Module:
    """The module ``tree`` cut down to what its top-level name ``root`` (or each of several) can
    run: their definitions (decorators included) and, transitively, the top-level definitions,
    assignments and imports of every name they read (outside the keyword arguments ``ignore``
    drops). Any other top-level statement (a bare call, an ``if`` or ``try`` block) is kept
    whole. Editing a definition that no root reads leaves the slice as it was."""
    drop = {(callee, keyword) for callee, keyword in ignore}
    roots = {root} if isinstance(root, str) else set(root)
    bound = [(node, _bound_names(node)) for node in tree.body]
    defined = set().union(*(names for _, names in bound))
    for name in sorted(roots - defined):
        raise ValueError(f"module defines no top-level {name!r}")
    keep = [not names for _, names in bound]  # other statements are kept whole
    wanted, done = set(roots), set()
    for node, names in bound:
        if not names:
            wanted |= _referenced_names(node, drop)
    while wanted - done:
        name = (wanted - done).pop()
        done.add(name)
        for i, (node, names) in enumerate(bound):
            if name in names and not keep[i]:
                keep[i] = True
                wanted |= _referenced_names(node, drop)
            elif name in names:
                keep[i] = True
    body = [node for node, kept in zip(tree.body, keep, strict=True) if kept]
    return ast.Module(body=body, type_ignores=[])


def _kept_nodes(node: ast.AST, drop: set[tuple[str | None, str | None]]) -> list[ast.AST]:
    """Every node under ``node`` (itself included) outside the keyword arguments ``drop``
    leaves out of the canonical code."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = [node]
    while todo:
        current = todo.pop()
        found.append(current)
        if isinstance(current, ast.Call):
            callee = _callee(current.func)
            todo.append(current.func)
            if (callee, "*") not in drop:
                todo.extend(current.args)
                todo.extend(k.value for k in current.keywords if (callee, k.arg) not in drop)
            continue
        todo.extend(ast.iter_child_nodes(current))
    return found


@functools.cache
def _is_module(name: str) -> bool:
    return _module_file(name) is not None


def _used_items(
    tree: ast.Module, name: str, is_package: bool, drop: set[tuple[str | None, str | None]]
) -> set[tuple[str, str | None]]:
    """What the code in ``tree`` (a slice of module ``name``) uses of other modules, through its
    imports (lazy ones included): (module, top-level name) for a name imported from a module or
    read as an attribute of an imported module, (module, None) for a module used whole (passed
    as a value, or star-imported), and (package, "") for every package an import runs, whose
    ``__init__`` counts only in its statements that bind no name."""
    package = name if is_package else name.rpartition(".")[0]
    nodes = [n for stmt in tree.body for n in _kept_nodes(stmt, drop)]
    modules: dict[str, str] = {}  # bound name -> module
    items: set[tuple[str, str | None]] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                items |= {(".".join(parts[:i]), "") for i in range(1, len(parts))}
                if alias.asname:
                    modules[alias.asname] = alias.name
                else:
                    modules[parts[0]] = parts[0]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".") if package else []
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            source = ".".join(p for p in (base, node.module or "") if p)
            chain = source.split(".")
            items |= {(".".join(chain[:i]), "") for i in range(1, len(chain))}
            for alias in node.names:
                bound = alias.asname or alias.name
                if alias.name == "*":
                    items.add((source, None))
                elif _is_module(f"{source}.{alias.name}"):
                    modules[bound] = f"{source}.{alias.name}"
                    items.add((source, ""))
                else:
                    items.add((source, alias.name))  # counted only when read: see below
    read = {n.id for n in nodes if isinstance(n, ast.Name)}
    items = {
        item for item in items if item[1] in ("", None) or _bound_from(item, nodes, package) & read
    }
    values = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    outer = [n for n in nodes if isinstance(n, ast.Attribute) and id(n) not in values]
    as_values = {
        n.id for n in nodes if isinstance(n, ast.Name) and n.id in modules and id(n) not in values
    }
    items |= {(modules[alias], None) for alias in as_values}
    for attribute in outer:
        chain: list[str] = []
        base: ast.expr = attribute
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in modules:
            continue
        current = modules[base.id]
        for attr in reversed(chain):
            if not _is_module(f"{current}.{attr}"):
                items.add((current, attr))
                break
            items.add((current, ""))
            current = f"{current}.{attr}"
        else:
            items.add((current, None))  # a module reached and used as a value
    return items


def _bound_from(item: tuple[str, str | None], nodes: list[ast.AST], package: str) -> set[str]:
    """The names that ``from <item module> import <item name> [as x]`` statements among
    ``nodes`` bind."""
    module, wanted = item
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            parts = package.split(".") if package else []
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            source = ".".join(p for p in (base, node.module or "") if p)
            if source == module:
                names |= {a.asname or a.name for a in node.names if a.name == wanted}
    return names


def _sliced(
    name: str,
    path: Path,
    source: bytes,
    ignore: tuple[tuple[str, str], ...],
    roots: frozenset[str] | None,
    scale: str | None,
    placement: tuple[str, str],
    skip: frozenset[str] = frozenset(),
) -> tuple[bool, str, frozenset[tuple[str, str | None]]]:
    """(whether the whole module counts, the sha256 of the canonical code of its part at
    ``roots`` (None: the whole module) as a run at ``scale`` reads it (:func:`at_scale`; None:
    as written) and on ``placement`` (torch device, array backend: :func:`at_placement`), what
    that part uses of other modules), cached by (module, sha256 of source, ``ignore``,
    ``roots``, ``scale``, ``placement``, ``skip``). The whole module counts when a root is not a
    name its top level binds. What only draws, by the presentation modules ``skip``, is left
    out of the part (:func:`without_drawing`)."""
    key = (name, hashlib.sha256(source).hexdigest(), ignore, roots, scale, placement, skip)
    with _AST_LOCK:
        if key not in _SLICES:
            tree = ast.parse(source)
            if name not in GUARDS_COUNTED:
                tree = without_guards(tree)
            if scale is not None:
                tree = at_scale(tree, scale)
            tree = at_placement(tree, *placement)
            names = set().union(*(_bound_names(node) for node in tree.body))
            whole = roots is None or not roots - {""} <= names
            part = tree if whole else module_slice(tree, roots - {""}, ignore)
            is_package = path.name == "__init__.py"
            package = name if is_package else name.rpartition(".")[0]
            part = without_drawing(part, package, skip, ignore)
            code = hashlib.sha256(canonical_code(part, ignore).encode()).hexdigest()
            drop = {(callee, keyword) for callee, keyword in ignore}
            uses = _used_items(part, name, is_package, drop)
            _SLICES[key] = (whole, code, frozenset(uses))
        return _SLICES[key]


_SLICES: dict[tuple[Any, ...], tuple[bool, str, frozenset[tuple[str, str | None]]]] = {}


def _closure_codes(
    fn: Callable[..., Any],
    skip: Collection[str],
    ignore: tuple[tuple[str, str], ...],
    scale: str | None,
    placement: tuple[str, str],
) -> dict[str, str]:
    """Module -> sha256 of the canonical code of the part of it that ``fn`` can run: ``fn``'s
    slice of its own module, and, transitively, the slice of every project module at the names
    that slice uses of it (:func:`_used_items`), or the whole module where a name cannot be
    traced (a module used as a value, a star import, a name no top-level statement binds). A
    nested function is traced from the top-level function that defines it."""
    module = fn.__module__
    top = {"theory", "sims", "neural", "paper_checks", module.partition(".")[0]}
    outer = fn.__qualname__.partition(".")[0]  # a nested function counts as its enclosing one
    wanted: dict[str, set[str] | None] = {module: {outer}}
    codes: dict[str, tuple[frozenset[str] | None, str]] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        roots = wanted[name]
        key = None if roots is None else frozenset(roots)
        if name in codes and codes[name][0] == key:
            continue
        path = _module_file(name)
        if path is None:
            codes[name] = (key, "")
            continue
        whole, code, uses = _sliced(
            name, path, path.read_bytes(), ignore, key, scale, placement, frozenset(skip)
        )
        if whole:
            key = wanted[name] = None
        codes[name] = (key, code)
        for used, attr in uses:
            if used.partition(".")[0] not in top or used in skip:
                continue
            now = wanted.get(used, set())
            new = None if attr is None or now is None else now | {attr}
            if used not in wanted or new != now:
                wanted[used] = new
                todo.append(used)
    return {name: code for name, (_, code) in codes.items() if code}


def canonical_code(tree: ast.AST, ignore: Collection[tuple[str, str]] = ()) -> str:
    """The code of a parsed module with what cannot change a computed number left out: comments
    and layout (not in the AST), docstrings, the module's ``__all__``, and the keyword arguments
    named by ``ignore``.

    Written node by node with empty fields dropped, so the text does not depend on the Python
    version's ``ast.dump`` defaults.

    Parameters
    ----------
    tree : ast.AST
        The parsed module.
    ignore : collection of (str, str)
        Pairs (callee name, keyword) such as ``("claim", "source")`` for a registry's
        descriptive metadata (keyword ``"*"``: every argument of such calls, for a call that only
        holds words, like a dated history entry).

    Returns
    -------
    str
        The canonical text.

    Examples
    --------
    >>> import ast
    >>> from sims.sweep import canonical_code
    >>> canonical_code(ast.parse("x = 1  # a comment"))
    "Module(body=[Assign(targets=[Name(id='x')],value=Constant(value=1))])"
    >>> canonical_code(ast.parse("'A docstring.'; x=1")) == canonical_code(ast.parse("x = 1"))
    True
    """
    drop = {(callee, keyword) for callee, keyword in ignore}

    def body(nodes: list[ast.stmt], module: bool) -> list[ast.stmt]:
        kept = [n for n in nodes if not (module and _assigns_all(n))]
        first = kept[0] if kept else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        return kept[1:] if docstring and isinstance(first.value.value, str) else kept

    def dump(node: Any) -> str:
        if isinstance(node, list):
            return "[" + ",".join(dump(v) for v in node) + "]"
        if not isinstance(node, ast.AST):
            return repr(node)
        fields = []
        for field, raw in ast.iter_fields(node):
            if field in ("ctx", "type_comment", "kind") or raw is None or raw == []:
                continue
            value = raw
            if field == "body" and isinstance(
                node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                value = body(raw, isinstance(node, ast.Module))
            if isinstance(node, ast.Call) and field in ("args", "keywords"):
                callee = _callee(node.func)
                if (callee, "*") in drop:
                    continue
                if field == "keywords":
                    value = [k for k in raw if (callee, k.arg) not in drop]
            fields.append(f"{field}={dump(value)}")
        return f"{type(node).__name__}({','.join(fields)})"

    return dump(tree)


def _assigns_all(node: ast.stmt) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return isinstance(node, ast.Assign | ast.AnnAssign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in targets
    )


def _callee(func: ast.expr) -> str | None:
    """The name a call is made by: ``f`` for ``f(...)`` and ``m.f(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def code_fingerprint(
    fn: Callable[..., Any],
    skip: Collection[str] = (),
    ignore: Collection[tuple[str, str]] = (),
    sliced: bool = False,
    scale: str | None = None,
    device: str = "cpu",
    backend: str = "numpy",
) -> str:
    """A sha256 of the code a task function can run: the :func:`canonical_code` of the module
    defining ``fn`` and of every module of this project (``theory``, ``sims``, ``neural``,
    ``paper_checks``) or of ``fn``'s own top-level package that it imports, transitively, read
    from the import statements (imports inside functions included).

    Editing the code of any of them changes the fingerprint; editing a comment, a docstring,
    ``__all__``, the keywords in ``ignore`` or a module the task never imports (a claim's
    plotting code) does not. The sources are read from disk at every call (milliseconds for a
    task's few modules, each parsed once per text), so an edit made during a long-lived session
    counts; a module edited on disk but not reloaded is fingerprinted as edited.

    Parameters
    ----------
    fn : callable
        The task function.
    skip : collection of str
        Modules neither hashed nor followed.
    ignore : collection of (str, str)
        (callee, keyword) pairs left out of the code (:func:`canonical_code`).
    sliced : bool
        Every module counts only as far as ``fn`` can run it (``_closure_codes``: ``fn``'s
        definition and what it reads, and in each module it imports the names it uses there and
        what they read), so editing a function that ``fn`` never reaches leaves the fingerprint as
        it was.
    scale : str, optional
        With ``sliced``: the code as a run at this scale reads it (:func:`at_scale`), so another
        scale's sizes and branches leave the fingerprint as it was.
    device, backend : str, optional
        The code as a run on this torch device and array backend reads it
        (:func:`at_placement`): by default the CPU and numpy, so the code that carries a run to
        a GPU leaves the fingerprint of a CPU run as it was.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from sims.passk_sampling import count_histogram_task
    >>> from sims.sweep import code_fingerprint
    >>> fingerprint = code_fingerprint(count_histogram_task)
    >>> len(fingerprint), fingerprint == code_fingerprint(count_histogram_task)
    (64, True)
    """
    if isinstance(skip, str) or isinstance(ignore, str):
        raise ValueError(  # noqa: TRY004
            "skip and ignore must be collections (of module names, of pairs), not a string"
        )
    if not isinstance(device, str) or not isinstance(backend, str):
        raise ValueError(f"device and backend must be names (got {device!r}, {backend!r})")  # noqa: TRY004
    ignored, placement = tuple(sorted(ignore)), (device, backend)
    if scale is not None and scale not in _PICK_SCALES:
        raise ValueError(f"scale must be one of {', '.join(_PICK_SCALES)} (got {scale!r})")
    if sliced:
        codes = _closure_codes(fn, skip, ignored, scale, placement)
    else:
        module = fn.__module__
        roots = {"theory", "sims", "neural", "paper_checks", module.partition(".")[0]}
        codes = {}
        todo = [module]
        while todo:
            name = todo.pop()
            path = None if name in codes or name in skip else _module_file(name)
            if path is None:
                continue
            imports, codes[name] = _parsed(name, path, path.read_bytes(), ignored, placement)
            todo.extend(m for m in imports if m.partition(".")[0] in roots)
    digest = hashlib.sha256()
    for name in sorted(codes):
        digest.update(f"{name}\0{codes[name]}\0".encode())
    return digest.hexdigest()
