"""Login throttling: failures are counted per (username, address), so one attacker cannot
lock other people at the same address out."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import LoginFailure


def login_blocked(*, username: str, ip_address: str | None) -> bool:
    since = timezone.now() - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)
    recent = LoginFailure.objects.filter(
        username__iexact=username, ip_address=ip_address, created_at__gte=since
    ).count()
    return recent >= settings.LOGIN_FAILURE_LIMIT


def login_failure_record(*, username: str, ip_address: str | None) -> None:
    LoginFailure.objects.create(username=username[:150], ip_address=ip_address)


def login_failures_clear(*, username: str, ip_address: str | None) -> None:
    LoginFailure.objects.filter(username__iexact=username, ip_address=ip_address).delete()
