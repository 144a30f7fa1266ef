"""The house measurement: lines per package and the length of each registered check function."""

from __future__ import annotations

import textwrap

from tools.house import measure, render_house


def test_measure_counts_package_lines_and_check_function_lengths(tmp_path):
    (tmp_path / "theory").mkdir()
    (tmp_path / "theory" / "a.py").write_text("x = 1\ny = 2\n")
    checks = tmp_path / "paper_checks" / "checks"
    checks.mkdir(parents=True)
    (tmp_path / "paper_checks" / "cli.py").write_text("z = 3\n")
    (checks / "demo.py").write_text(
        textwrap.dedent("""
            @claim("demo.one", paper="demo")
            def one(ctx):
                a = 1
                return a


            def helper():
                return 2


            @other
            def not_a_claim():
                return 3
        """).lstrip()
    )
    house = measure(tmp_path)
    assert house["lines"] == {
        "theory": 2,
        "sims": 0,
        "neural": 0,
        "paper_checks": 1,
        "paper_checks/checks": 13,
    }
    assert house["checks"] == {"demo.one": 3}  # def to return; the registration not counted


def test_render_house_sets_the_committed_measurement_beside_today():
    before = {
        "when": "then",
        "lines": {
            "theory": 10,
            "sims": 0,
            "neural": 0,
            "paper_checks": 30,
            "paper_checks/checks": 60,
        },
        "checks": {"p.a": 120, "p.b": 50, "p.c": 30},
    }
    now = {**before, "checks": {"p.a": 40, "p.b": 35, "p.c": 30}}
    table = render_house(before, now)
    assert "| median check function, lines | 50 | 35 |" in table
    assert "| check functions over 60 lines | 1 | 0 |" in table
    assert "| paper_checks/checks, share of the code | 60% | 60% |" in table
