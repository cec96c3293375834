"""Benchmarks (``make bench``). Not part of the product: nothing in ``aggregator`` or ``survey_app`` imports this.

``python -m bench.oracles`` — the frequency-oracle benchmark (engine vs a plain numpy reference vs the peer
libraries pure-ldp and multi-freq-ldpy); see ``bench/README.md``.
"""
