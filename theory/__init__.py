"""Closed forms, exact solvers, bounds and fits. No sampling."""
