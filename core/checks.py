"""Deployment checks of the kernel (`manage.py check --deploy`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def audit_anchor_configured(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Production without an external audit anchor cannot notice a shortened trail (R7)."""
    if settings.DEBUG or settings.AUDIT_ANCHOR_FILE:
        return []
    return [
        Error(
            "AUDIT_ANCHOR_FILE is not set: whoever owns the tables could delete the newest "
            "audit events and verification would still pass.",
            hint="Set AUDIT_ANCHOR_FILE to a file the database owner cannot rewrite and ship "
            "it off the host (docs/deployment.md).",
            id="core.E001",
        )
    ]
