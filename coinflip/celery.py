"""The Celery application. Configuration comes from Django settings (``CELERY_*``).

``RestoreUnacked``: on Redis, a task whose worker was killed outright stays unacknowledged until the visibility timeout
has passed; kombu then puts it back only on every tenth of its 10-s checks (up to 100 s late). This consumer step
checks every ``RESTORE_INTERVAL`` seconds instead, so the recovery bound is the visibility timeout plus at most that
(docs/operations.md, "Recovery bounds")."""
import logging
import os

from celery import Celery, bootsteps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")

logger = logging.getLogger(__name__)
#: Seconds between two checks for unacknowledged tasks past the visibility timeout (Redis only).
RESTORE_INTERVAL = 5.0

app = Celery("coinflip")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RestoreUnacked(bootsteps.StartStopStep):
    """Every ``RESTORE_INTERVAL`` s, requeue the tasks left unacknowledged past the visibility timeout (Redis)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.timer = None

    def start(self, parent):
        if parent.connection.transport.driver_type != "redis":
            return  # the embedded filesystem broker has no visibility timeout
        channel = parent.connection.default_channel
        self.timer = parent.timer.call_repeatedly(RESTORE_INTERVAL, self.restore, (channel,), priority=10)

    def restore(self, channel):
        try:
            channel.qos.restore_visible(num=channel.unacked_restore_limit, interval=1)
        except Exception:  # a broker hiccup: kombu's own check and the next tick try again
            logger.warning("could not requeue unacknowledged tasks", exc_info=True)

    def stop(self, parent):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


app.steps["consumer"].add(RestoreUnacked)
