from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.http import HttpRequest

from accounts import services
from accounts.models import PasswordResetRequest, Provider
from core.audit import audit_record
from core.roles import Role


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing guesses per pair, address and account (accounts.services).

    The admin's login form is this one too, with ``audit_via = "admin"``."""

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


class ThrottledPasswordResetForm(PasswordResetForm):
    """Django's reset form (a link only to an active account with that address; the same
    answer for every address), limited per address and per e-mail address."""

    error_messages = {
        "throttled": "Too many reset requests for this e-mail address or from your address. "
        "Wait an hour and try again, or ask an administrator.",
    }

    def __init__(self, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request
        self.reset_request: PasswordResetRequest | None = None

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"].strip()
        ip = services.client_ip(self.request)
        if services.password_reset_refusal(email=email, ip_address=ip):
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        self.reset_request = services.password_reset_requested(email=email, ip_address=ip)
        return email


class UserManageForm(forms.Form):
    """An administrator's change to a user account: shape only; the rules live in
    accounts.services.users.user_update."""

    role = forms.ChoiceField(choices=Role.choices)
    provider = forms.ModelChoiceField(
        queryset=Provider.objects.order_by("name"),
        required=False,
        help_text="Vendors only: the organisation the vendor user belongs to.",
    )
    is_active = forms.BooleanField(
        required=False,
        label="Active",
        help_text="Unticking it ends the user's sessions and revokes their API tokens.",
    )
