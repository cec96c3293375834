"""The administrators' dashboard, mounted at ``/dashboard/``.

``views`` (pages, actions and downloads; every URL needs active staff, each survey its designer or a superuser —
``survey_app.permissions``), ``charts`` (pure functions: stored versions → chart JSON), ``exports`` (reports CSV,
scikit-learn models built from a published version) and ``forms`` (the prediction form). See docs/dashboard.md.
"""
