from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from accounts import services
from core.audit import audit_record


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing (username, address) pairs after repeated failures."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed attempts for this account from your address. "
        "Wait 15 minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        # A username is at most 150 characters; the audit object id at most 40 (the full
        # name goes in the summary), so an absurd login attempt is refused, not a 500.
        username = (self.data.get("username") or "").strip()[:150]
        ip = self.request.META.get("REMOTE_ADDR") if self.request else None
        if username and services.login_blocked(username=username, ip_address=ip):
            audit_record(
                actor=None,
                action="login.throttled",
                object_type="user",
                object_id=username[:40],
                outcome="refused",
                summary={"username": username},
            )
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        try:
            return super().clean()
        except forms.ValidationError:
            if username:
                services.login_failure_record(username=username, ip_address=ip)
                audit_record(
                    actor=None,
                    action="login.failed",
                    object_type="user",
                    object_id=username[:40],
                    outcome="refused",
                    summary={"username": username},
                )
            raise
