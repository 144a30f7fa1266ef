"""The maintainers' tools, run from the root of a clone and not shipped in the wheel: the
documentation generated from the committed reference runs (:mod:`tools.docs`, ``python -m
tools.docs``) and the measurement of the house (:mod:`tools.house`)."""
