"""Periodic housekeeping of accounts."""

from __future__ import annotations

from celery import shared_task

from accounts.auth import api_tokens_purge_expired


@shared_task
def api_tokens_purge_expired_task() -> int:
    return api_tokens_purge_expired()
