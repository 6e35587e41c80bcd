from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from accounts import services
from core.audit import audit_record


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing guesses per pair, address and account (accounts.services).

    The admin's login form is this one too (H1), with ``audit_via = "admin"``."""

    audit_via = "form"
    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed attempts for this account from your address. "
        "Wait 15 minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        # A username is at most 150 characters; the audit object id at most 40 (the full
        # name goes in the summary), so an absurd login attempt is refused, not a 500.
        username = (self.data.get("username") or "").strip()[:150]
        ip = services.client_ip(self.request)
        if username:
            reason = services.login_refusal(username=username, ip_address=ip)
            if reason:
                services.login_refused(
                    username=username, ip_address=ip, reason=reason, via=self.audit_via
                )
                raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            if username:
                services.login_failure_record(username=username, ip_address=ip, via=self.audit_via)
            raise
        user = self.get_user()
        if user is not None:
            services.login_succeeded(user=user, ip_address=ip)
            if self.audit_via != "form":  # the product's LoginView audits its own success
                audit_record(actor=user, action="login.ok", obj=user, summary={"via": "admin"})
        return cleaned
