"""One figure module per paper: each draws what a check measured, beside the paper's theory.

Figures compute none of a claim's numbers, so these modules are left out of every claim's code
fingerprint (:data:`paper_checks.runner.PRESENTATION_MODULES`): restyling a figure does not make
a stored result stale. A figure function takes the numbers a check measured and returns the
matplotlib ``Figure``; the check saves it with ``ctx.save_figure``.
"""
