"""Naive Bayes: the model object (SPEC §1), the non-private baseline fit, and LDP Naive Bayes (SPEC §4)."""
from .model import NaiveBayesModel

__all__ = ["NaiveBayesModel"]
