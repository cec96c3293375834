"""The aggregator: the privacy engine (``privacy/``), the lab (``lab/``) and the Django pipeline around them."""
