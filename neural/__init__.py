"""The thin torch layer: tiny models, training loops and their measurements.

Install with the ``neural`` extra (``pip install -e ".[neural]"``); nothing here is imported by
``theory`` or ``sims``.
"""

__all__: list[str] = []
