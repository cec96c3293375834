"""WSGI entry point (``gunicorn -c docker/gunicorn.conf.py coinflip.wsgi``): Django's own application.

``/healthz`` is answered by ``coinflip.middleware.HealthCheckMiddleware``, first in the middleware chain.
"""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")
application = get_wsgi_application()
