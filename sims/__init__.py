"""Stochastic simulations and sweeps.

Public functions take ``rng=`` (a ``numpy.random.Generator``, an int seed or ``None``);
numeric kernels are written against the array API so the same code runs on numpy and cupy.
"""

__all__: list[str] = []
