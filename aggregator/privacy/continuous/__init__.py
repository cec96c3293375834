"""Continuous attributes for LDP Naive Bayes (SPEC §5).

* ``discretize`` — equal-width bins over public bounds (§5a), after which the discrete LDP NB applies (§4);
* ``gaussian`` — LDP Gaussian NB with class-hiding vectors, mean/square groups and Approaches 1–3 (§5b);
* ``projection`` — PCA and DCA fitted on a public reference sample, applied before perturbation (§5c).
"""
