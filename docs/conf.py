"""Sphinx configuration of the paper-checks site: the README and the docs pages (Markdown, read
by MyST), an API reference generated from the docstrings (autosummary, numpydoc) and a gallery
of theory plots executed at build time (sphinx-gallery, the scripts of ``examples/``).

``make docs`` builds it with warnings as errors.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "paper-checks"
author = "paper-checks contributors"
copyright = "2026, paper-checks contributors"

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "results", "gallery/*.md5", "gallery/*.py", "gallery/*.ipynb"]
templates_path = ["_templates"]

# Markdown: GitHub-style heading anchors, so the pages' links to a heading of another page resolve.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

# The API reference: one page per public module, its members those of its __all__.
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters section gives each type
numpydoc_show_class_members = False
numpydoc_xref_param_type = False

# The gallery: one script per paper in examples/, run at every build, its runtime shown.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "min_reported_time": 0,
}

html_theme = "pydata_sphinx_theme"
html_title = "paper-checks"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}

#: A link the Markdown pages make for readers of the repository that means something else on the
#: site: the README is the site's front page; a run's figures and the files at the repository's
#: root (licence, citation, changelog) are not part of the site.
_SITE_LINKS = (
    (re.compile(r"\]\(\.\./README\.md\)"), "](index.md)"),
    (re.compile(r"\[([^\]]+)\]\(\.\./results/[^)]*\)"), r"`\1`"),
    (re.compile(r"\[([^\]]+)\]\((?:LICENSE|CITATION\.cff|CHANGELOG\.md)\)"), r"`\1`"),
)


#: A literal (``code``), inline math or a role's target: reST text in which a bar stays a bar.
_LITERAL = re.compile(r"(``.+?``|:\w+:`[^`]*`)")


def _escape_bars(app, what, name, obj, options, lines):  # noqa: ARG001 (Sphinx's signature)
    """Docstrings write ``|H|`` for a class's size and ``|x|`` for an absolute value, which reST
    reads as a substitution: escape each bar outside literals, math and doctest blocks."""
    in_doctest = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        in_doctest = stripped.startswith(">>>") or (in_doctest and bool(stripped))
        if in_doctest or "|" not in line:
            continue
        parts = _LITERAL.split(line)
        parts[::2] = [part.replace("|", "\\|") for part in parts[::2]]
        lines[i] = "".join(parts)


def _site_links(app, docname, source):  # noqa: ARG001 (Sphinx's signature)
    for pattern, replacement in _SITE_LINKS:
        source[0] = pattern.sub(replacement, source[0])


def _included_site_links(app, relative_path, parent_docname, content):  # noqa: ARG001
    """The same rewriting for an included file (the README, included by the front page)."""
    _site_links(app, parent_docname, content)


def setup(app):
    app.connect("source-read", _site_links)
    app.connect("include-read", _included_site_links)
    app.connect("autodoc-process-docstring", _escape_bars)
