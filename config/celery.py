"""Celery application. Settings come from Django settings (CELERY_* names)."""

import contextlib
import os
from typing import Any

from celery import Celery
from celery.signals import beat_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("workbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@beat_init.connect
def _heartbeat_at_start(sender: Any, **kwargs: Any) -> None:
    """The beat's interval tasks first run a whole interval after it starts: send the heartbeat
    at once, so /healthz turns ok as soon as a worker takes it (L3), not a minute later."""
    with contextlib.suppress(Exception):  # a broker not up yet: the schedule sends it later
        sender.app.send_task("procurement.tasks.heartbeat_task")
