"""The public API of theory, sims and neural, as the site's API reference documents it.

Every public module declares ``__all__``; it names only things that exist and every public
function and class the module defines (a name meant to stay private starts with ``_``). The
reference (``docs/api/index.md``: Sphinx autosummary over the three packages, recursively, each
module's members those of its ``__all__``) reads each field's meaning of each result type from a
``#:`` comment above it or the class docstring's ``Attributes`` section, so every field has one.
The docstring examples run under pytest's doctest support (``--doctest-modules``).
"""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import re
import types
from pathlib import Path

import pytest

from paper_checks._public_api import PACKAGES, public_modules, public_names

ROOT = Path(__file__).resolve().parents[1]
MODULES = [m for package in PACKAGES for m in public_modules(package)]


def _defined(module: types.ModuleType) -> list[str]:
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    ]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_module_declares_all_of_its_public_api(module):
    names = public_names(module)
    assert len(set(names)) == len(names), f"{module.__name__}.__all__ repeats a name"
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"
    left_out = sorted(set(_defined(module)) - set(names))
    assert not left_out, (
        f"{module.__name__} defines public {left_out} outside __all__: add them, or prefix "
        "a name that is not API with _"
    )


def test_a_module_without_all_is_refused():
    with pytest.raises(ValueError, match=r"theory\.fake has no __all__"):
        public_names(types.ModuleType("theory.fake"))


def test_the_inventory_has_the_private_modules_out_and_the_strategies_in():
    names = {m.__name__ for m in MODULES}
    assert "theory.online.strategies" in names  # the test strategies too (needs hypothesis)
    assert "sims.rmt" in names
    assert not [n for n in names if any(part.startswith("_") for part in n.split("."))]


def test_the_api_reference_covers_every_package_recursively_by_all():
    index = (ROOT / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    block = index[index.index(".. autosummary::") :]
    assert ":recursive:" in block
    assert re.findall(r"^ {3}(\w+)$", block, re.MULTILINE) == list(PACKAGES)
    template = (ROOT / "docs" / "_templates" / "autosummary" / "module.rst").read_text("utf-8")
    assert ":members:" in template
    assert ":imported-members:" in template  # a name defined in a private module and exported
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert "autosummary_ignore_module_all = False" in conf  # members: the names of __all__


def _result_types() -> list[type]:
    return [
        obj
        for module in MODULES
        for name in public_names(module)
        if inspect.isclass(obj := getattr(module, name))
        and obj.__module__ == module.__name__
        and (dataclasses.is_dataclass(obj) or (issubclass(obj, tuple) and hasattr(obj, "_fields")))
    ]


def _field_names(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls)]
    return list(cls._fields)


def _documented_fields(cls: type) -> set[str]:
    """The fields of ``cls`` with a meaning where Sphinx reads one: a ``#:`` comment above the
    field in ``cls`` or a project base class, or an entry of a docstring's Attributes section."""
    analyzer = pytest.importorskip("sphinx.pycode").ModuleAnalyzer
    docscrape = pytest.importorskip("numpydoc.docscrape")
    found: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.partition(".")[0] not in PACKAGES:
            continue
        comments = analyzer.for_module(klass.__module__).find_attr_docs()
        found |= {
            name
            for (owner, name), lines in comments.items()
            if owner == klass.__qualname__ and "".join(lines).strip()
        }
        for entry in docscrape.NumpyDocString(inspect.getdoc(klass) or "")["Attributes"]:
            if "".join(entry.desc).strip():
                found |= {name.strip() for name in entry.name.split(",")}
    return found


def test_every_field_of_every_result_type_has_its_meaning_where_sphinx_reads_it():
    types_seen = _result_types()
    assert len(types_seen) >= 45
    undocumented = [
        f"{cls.__module__}.{cls.__qualname__}.{field}"
        for cls in types_seen
        for field in sorted(set(_field_names(cls)) - _documented_fields(cls))
    ]
    assert not undocumented, f"fields without a #: comment or an Attributes entry: {undocumented}"


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


def test_the_user_facing_types_have_examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    names = {test.name for module in MODULES for test in finder.find(module) if test.examples}
    for name in (
        "theory.rmt.RFSpectrum",
        "sims.bootstrap.PassAtKBootstrap",
        "theory.online.mtr.TransductiveBound",
        "sims.rmt.ge_eigenvalues",
    ):
        assert name in names, name


#: Modules whose every public function has numpydoc Parameters and Returns and an example.
FULLY_DOCUMENTED = (
    "theory.rmt",
    "theory.passk",
    "theory.fits",
    "theory.deep_crl",
    "theory.superposition",
    "theory.anchors",
    "theory.hivemind",
    "theory.significance",
    "theory.sharpening",
    "theory.passk_stats",
    "theory.gated_attention",
    "theory.online.constructions",
    "theory.online.dims",
    "theory.online.mtr",
    "theory.online.census",
    "theory.online.bounds",
    "theory.online.bounds_symbolic",
    "theory.online.brackets",
    "theory.online.certificates",
    "theory.online.class_file",
    "theory.online.transductive",
    "theory.online.strategies",
    "neural.attention_metrics",
    "neural.lm_data",
    "neural.rpn",
    "neural.gated_testbeds",
    "neural.gated_attention",
    "neural.gated_training",
    "neural.batched",
    "neural.gated_batched",
    "neural.hivemind",
    "neural.crl",
    "neural.crl_batched",
    "neural.deep_crl",
    "neural.deep_crl_batched",
    "neural.rlvr_transformer",
    "neural.rlvr_batched",
    "sims.bootstrap",
    "sims.rmt",
    "sims.boxes",
    "sims.hivemind",
    "sims.passk_sampling",
    "sims.mazes",
    "sims.online_search",
    "sims.rlvr_toy",
    "sims.sweep",
    "sims.online_sweeps",
    "sims.superposition",
    "sims.online",
    "sims.diffusion_rf",
    "sims.deep_crl_units",
    "sims.diffusion_units",
    "sims.superposition_units",
    "sims.rlvr_units",
    "sims.online_experiments",
)


@pytest.mark.parametrize("name", FULLY_DOCUMENTED)
def test_every_public_function_of_the_fully_documented_modules_has_parameters_returns_example(
    name,
):
    module = next(m for m in MODULES if m.__name__ == name)
    functions = [
        n
        for n in public_names(module)
        if callable(obj := getattr(module, n)) and not inspect.isclass(obj)
    ]
    assert functions, name
    for function in functions:
        obj = getattr(module, function)
        doc = inspect.getdoc(obj) or ""
        sections = ["Returns\n-------", "Examples\n--------\n"]
        if inspect.signature(obj).parameters:
            sections.append("Parameters\n----------")
        for section in sections:
            assert section in doc, f"{name}.{function}: no {section.splitlines()[0]}"
        assert "\n>>> " in doc, f"{name}.{function}: no example"
