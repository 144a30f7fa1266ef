"""The public API of theory, sims and neural, and its generated reference (docs/api/).

Every public module declares ``__all__``; it names only things that exist and every public
function and class the module defines (a name meant to stay private starts with ``_``). The
reference documents each name of ``__all__``, each field of each result type with its type and
meaning, and its docstring examples run as written.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import pkgutil
import types

import pytest

from paper_checks import api_docs
from paper_checks.api_docs import (
    PACKAGES,
    api_pages,
    field_docs,
    public_modules,
    public_names,
    render_docstring,
)


def _all_public_modules() -> list[types.ModuleType]:
    """Every public module of the three packages."""
    found = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        found.append(root)
        found += [
            importlib.import_module(info.name)
            for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
            if not any(part.startswith("_") for part in info.name.split("."))
        ]
    return found


MODULES = _all_public_modules()
PAGES = api_pages()


def _page(module: types.ModuleType) -> str:
    """The section of ``module`` in its package's page."""
    text = PAGES[api_docs.API_DIR / f"{module.__name__.partition('.')[0]}.md"]
    start = text.index(f"\n## {module.__name__}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _defined(module: types.ModuleType) -> list[str]:
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    ]


def _result_types() -> list[tuple[types.ModuleType, str, type]]:
    return [
        (module, name, obj)
        for module in public_modules_all()
        for name in public_names(module)
        if inspect.isclass(obj := getattr(module, name))
        and obj.__module__ == module.__name__
        and (dataclasses.is_dataclass(obj) or (issubclass(obj, tuple) and hasattr(obj, "_fields")))
    ]


def public_modules_all() -> list[types.ModuleType]:
    return [m for package in PACKAGES for m in public_modules(package)]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_module_declares_all_of_its_public_api(module):
    names = getattr(module, "__all__", None)
    assert names is not None, f"{module.__name__} has no __all__"
    assert len(set(names)) == len(names), f"{module.__name__}.__all__ repeats a name"
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"
    left_out = sorted(set(_defined(module)) - set(names))
    assert not left_out, (
        f"{module.__name__} defines public {left_out} outside __all__: add them, or prefix "
        "a name that is not API with _"
    )


def test_the_reference_covers_every_public_module():
    documented = {m.__name__ for m in public_modules_all()}
    assert documented == {m.__name__ for m in MODULES}
    assert "theory.online.strategies" in documented  # the test strategies too (needs hypothesis)
    index = PAGES[api_docs.API_DIR / "index.md"]
    for name in documented:
        assert f"[`{name}`]" in index, name
    assert "paper-checks report --docs" in index


@pytest.mark.parametrize("module", public_modules_all(), ids=lambda m: m.__name__)
def test_the_reference_documents_every_name_of_all(module):
    page = _page(module)
    for name in public_names(module):
        obj = getattr(module, name)
        home = str(getattr(obj, "__module__", None))
        # what a private module defines is documented where it is exported
        here = home == module.__name__ or any(p.startswith("_") for p in home.split("."))
        if inspect.isclass(obj) and here:
            head = f"#### class `{name}"
        elif callable(obj) and here:
            head = f"#### `{name}("
        else:
            head = f"#### `{name}`"
        assert head in page, f"{module.__name__}.{name}: no entry {head!r}"
        if inspect.isfunction(obj) and here:
            assert f"#### `{name}{api_docs._signature(obj)}`" in page


def test_every_field_of_every_result_type_has_its_type_and_meaning_in_the_reference():
    types_seen = _result_types()
    assert len(types_seen) >= 45
    for module, name, cls in types_seen:
        docs = field_docs(cls)
        page = _page(module)
        entry = page[page.index(f"#### class `{name}") :]
        for field, kind in api_docs._fields(cls):
            assert docs[field], f"{module.__name__}.{name}.{field} has no meaning documented"
            assert f"| `{field}` | `{api_docs._cell(kind)}` | " in entry, (name, field)


def test_the_result_types_a_user_meets_state_their_conventions():
    from sims.bootstrap import PassAtKBootstrap
    from sims.rmt import ge_eigenvalues
    from theory.online.mtr import TransductiveBound
    from theory.rmt import RFSpectrum

    rf = inspect.getdoc(RFSpectrum)
    for words in ("``lam``", '``"lambda"``', "Δ_t = 1 − e^{−2t}", "p = ψ_p·d", "per eigenvalue"):
        assert words in rf, words
    assert "(M − 1, K)" in inspect.getdoc(PassAtKBootstrap)
    assert "transductive_value(H, list(sequence)) == value" in inspect.getdoc(TransductiveBound)
    assert "len(values) + at_s2 == sample.p" in inspect.getdoc(ge_eigenvalues)
    for page, name in (("theory", "RFSpectrum"), ("sims", "PassAtKBootstrap")):
        text = PAGES[api_docs.API_DIR / f"{page}.md"]
        entry = text[text.index(f"#### class `{name}") :]
        assert "```python\n>>> " in entry[: entry.index("| field |")], name


def _examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [test for module in MODULES for test in finder.find(module) if test.examples]


EXAMPLES = _examples()


def test_the_user_facing_types_have_examples():
    names = {test.name for test in EXAMPLES}
    for name in (
        "theory.rmt.RFSpectrum",
        "sims.bootstrap.PassAtKBootstrap",
        "theory.online.mtr.TransductiveBound",
        "sims.rmt.ge_eigenvalues",
    ):
        assert name in names, name


@pytest.mark.parametrize("test", EXAMPLES, ids=lambda t: t.name)
def test_docstring_example_runs(test):
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, clear_globs=True)
    assert result.failed == 0, f"{test.name}: {result.failed} of {result.attempted} examples failed"


# ------------------------------------------------------------------------------ the renderer
def test_a_module_without_all_is_refused():
    module = types.ModuleType("theory.fake")
    with pytest.raises(ValueError, match=r"theory\.fake has no __all__"):
        public_names(module)


def test_numpydoc_sections_roles_math_and_doctests_become_markdown():
    doc = """Sum :func:`f` over ``x``, as :math:`\\sum_i x_i`.

    .. math:: s = \\sum_i x_i

    Parameters
    ----------
    x, y : array_like
        The values,
        on two lines.

    Returns
    -------
    float

    >>> 1 + 1
    2
    """
    out = render_docstring(doc)
    assert out.splitlines()[0] == "Sum `f` over `x`, as $`\\sum_i x_i`$."
    assert "```math\ns = \\sum_i x_i\n```" in out
    assert "**Parameters**\n\n- `x, y : array_like`: The values, on two lines." in out
    assert "**Returns**\n\n- `float`" in out
    assert "```python\n>>> 1 + 1\n2\n```" in out
    assert "----" not in out


def test_attribute_entries_shown_in_the_field_table_are_not_repeated():
    doc = """A thing.

    Attributes
    ----------
    a, b
        Shown in the table.
    c
        A property.
    """
    out = render_docstring(doc, frozenset({"a", "b"}))
    assert "Shown in the table" not in out
    assert "- `c`: A property." in out
    assert render_docstring(None) == "(no docstring)"


def test_field_meanings_come_from_comments_above_after_or_the_attributes_section():
    from sims.rlvr_toy import ToyConfig
    from theory.rmt import RFSpectrum, Spectrum

    toy = field_docs(ToyConfig)
    assert toy["n_strategies"].startswith("S; the last one")  # `#:` after the field
    assert toy["n_train"] == "Training problems."  # `#:` above, not the line before's comment
    spectrum = field_docs(Spectrum)
    assert spectrum["delta_mass"] == "The atom (mass 0 when there is none)."  # Attributes
    rf = field_docs(RFSpectrum)
    assert rf["lam"] == spectrum["lam"]  # inherited from Spectrum's docstring
    assert "type: ignore" not in rf["consts"]  # a tool's comment is not a meaning
