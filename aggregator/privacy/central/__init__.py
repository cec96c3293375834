"""Central differential privacy: a trusted curator holds the raw rows (SPEC §6).

``fit_laplace_nb`` — Naive Bayes with global-sensitivity grid Laplace noise (seed 003 Algorithm 1);
``fit_smooth_nb`` — the same counts, numeric means and standard deviations with smooth-sensitivity noise (seed 002),
computed by ``smooth_sensitivity``. Synthetic data built on these models: ``aggregator.privacy.synthetic`` (SPEC §8).
"""
from .laplace_nb import ALPHA, epsilon_prime, fit_laplace_nb, grid_laplace, laplace_scales
from .smooth_nb import fit_smooth_nb

__all__ = ["ALPHA", "epsilon_prime", "fit_laplace_nb", "fit_smooth_nb", "grid_laplace", "laplace_scales"]
