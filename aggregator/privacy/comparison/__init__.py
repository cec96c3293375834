"""Central-DP classifiers other than Naive Bayes, for the comparison lab (SPEC §7, seed 003): an objective-perturbation
SVM (``dp_svm``) and a noisy-count CART tree (``dp_tree``)."""
from .dp_svm import fit_dp_svm
from .dp_tree import fit_dp_tree

__all__ = ["fit_dp_svm", "fit_dp_tree"]
