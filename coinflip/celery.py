"""The Celery application. Configuration comes from Django settings (``CELERY_*``)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")

app = Celery("coinflip")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
