"""Transductive online learning (Chase, Hanneke, Moran, Shafer, NeurIPS 2025, arXiv 2512.12567):
concept classes on a finite domain, the Littlestone dimension, and the exact transductive mistake
bound M_tr.

BKM97 is Ben-David, Kushilevitz, Mansour, "Online learning versus offline learning" (Machine
Learning 29, 1997). The model, the paper's results and the conventions used here are written out
in docs/online.md#the-papers-model-and-what-the-checks-use.
"""

from theory.online.concept_class import ConceptClass

__all__ = ["ConceptClass"]
