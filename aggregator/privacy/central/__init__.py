"""Central differential privacy: a trusted curator holds the raw rows (SPEC §6).

``fit_laplace_nb`` — Naive Bayes with global-sensitivity grid Laplace noise (seed 003 Algorithm 1);
``fit_smooth_nb`` — the same counts, numeric means and standard deviations with smooth-sensitivity noise (seed 002),
computed by ``smooth_sensitivity``;
``fit_robust_nb`` — beyond the papers: the same Laplace releases with a budget split favouring the class
counts, sums with public sensitivities for numeric attributes, noise-aware shrinkage toward the class-independent
marginals and a variance floor, so that at small n·ε it degrades to the prior instead of flipping (``robust_nb``).
Synthetic data built on these models: ``aggregator.privacy.synthetic`` (SPEC §8).
"""
from .laplace_nb import ALPHA, epsilon_prime, fit_laplace_nb, grid_laplace, laplace_scales
from .robust_nb import budget_split, fit_robust_nb
from .smooth_nb import fit_smooth_nb

__all__ = ["ALPHA", "budget_split", "epsilon_prime", "fit_laplace_nb", "fit_robust_nb", "fit_smooth_nb", "grid_laplace",
           "laplace_scales"]
