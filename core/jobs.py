"""Publishing background jobs by task name.

Services enqueue work on commit; the tasks modules import the services they call. Naming the
task (Celery's `send_task`) instead of importing it keeps that one-way: no import circle
between an app's services and its tasks.
"""

from __future__ import annotations

from typing import Any

from celery import current_app


def send(task_name: str, args: tuple[Any, ...], **options: Any) -> None:
    """Publish one message for `task_name`; raises kombu/OS errors when the broker is down."""
    current_app.send_task(task_name, args=args, **options)
