"""Naive Bayes: the model object (SPEC §1), the non-private baseline fit, and LDP Naive Bayes (SPEC §4)."""
from .fit import fit_nonprivate
from .ldp import LDPNaiveBayes, LDPNBReports, LDPNBStats
from .model import NaiveBayesModel

__all__ = ["NaiveBayesModel", "fit_nonprivate", "LDPNaiveBayes", "LDPNBReports", "LDPNBStats"]
