"""The real Celery app, its mail written to files: a test can read what a worker sent.

    celery -A tests.support.mail_worker worker ...     # with MAIL_DIR_ENV set to a folder

The test settings send mail to Django's in-memory outbox, which lives in the worker's process
and never reaches the test. On `worker_init` (the main process; its pool children inherit it
by fork) this worker switches to Django's file backend writing into the folder named by
`MAIL_DIR_ENV`: one file per connection, each message with its own `To:` header. Nothing in
the product reads the variable.
"""

from __future__ import annotations

import os
from email import message_from_string
from email.message import Message
from pathlib import Path
from typing import Any

from celery import signals

from config.celery import app

__all__ = ["MAIL_DIR_ENV", "app", "sent_messages"]

MAIL_DIR_ENV = "TEST_MAIL_DIR"
# The file backend separates the messages of one connection with a line of 79 dashes.
SEPARATOR = "\n" + "-" * 79 + "\n"


def sent_messages(folder: Path) -> list[Message]:
    """Every message the worker wrote into `folder`, oldest file first."""
    found: list[Message] = []
    for path in sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime_ns):
        for chunk in path.read_text().split(SEPARATOR):
            if chunk.strip():
                found.append(message_from_string(chunk.lstrip("\n")))
    return found


@signals.worker_init.connect
def _mail_to_files(**_: Any) -> None:
    import django

    django.setup()
    from django.conf import settings

    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = os.environ[MAIL_DIR_ENV]  # a KeyError: the test forgot it
