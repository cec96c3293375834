"""The edge as compose wires it, run natively: Caddy (Debian's) → gunicorn (docker/gunicorn.conf.py) → PostgreSQL."""
