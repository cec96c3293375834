"""Deployment and security hardening (issue 5): production settings, CSP, Subresource Integrity on the randomizer,
login throttling, private access logs, and the production processes (gunicorn, Celery) run for real."""
