"""Coinflip's privacy engine: every randomization mechanism and estimator, framework-free.

Nothing in this package imports Django (``tests/test_engine_is_framework_free.py`` checks it).
Each mechanism has two halves:

* a *client half* (``perturb``) that turns true answers into a randomized report — the reference that
  the browser's JavaScript mirrors, and the simulator used by the lab and the ``simulate`` command;
* a *server half* (``aggregate`` → additive sufficient statistics, ``estimate`` → unbiased estimates),
  whose cost depends on the number of parameters, never on the number of reports.

Formulas follow ``SPEC.md`` (the project's restatement of the papers); docstrings cite its sections.
"""
