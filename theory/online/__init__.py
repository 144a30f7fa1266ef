"""Transductive online learning (Chase, Hanneke, Moran, Shafer, NeurIPS 2025): concept classes on a
finite domain, the Littlestone dimension, and the exact transductive mistake bound M_tr.

Spec: ``shared/papers/online.md``.
"""

from theory.online.concept_class import ConceptClass

__all__ = ["ConceptClass"]
