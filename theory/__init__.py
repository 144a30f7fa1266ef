"""Closed forms, exact solvers, bounds and fits. No sampling."""

__all__: list[str] = []
