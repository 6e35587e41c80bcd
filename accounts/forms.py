from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.http import HttpRequest

from accounts import services
from accounts.models import PasswordResetRequest, Provider, User
from accounts.services import devices
from core.audit import audit_record
from core.roles import Role


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form behind the throttle (accounts.services.devices.login_attempt).

    The admin's login form is this one too, with ``audit_via = "admin"``."""

    audit_via = "form"
    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed attempts for this account from a browser it has not "
        "been used on. If the password was right, a one-time sign-in link is on its way to the "
        "account's e-mail address; a browser you have logged in with before still works. "
        "Otherwise wait 15 minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        # A username is at most 150 characters; the audit object id at most 40 (the full
        # name goes in the summary), so an absurd login attempt is refused, not a 500.
        username = (self.data.get("username") or "").strip()[:150]
        if not username:
            return super().clean()
        outcome: dict[str, Any] = {}

        def check() -> User | None:
            try:
                outcome["cleaned"] = super(ThrottledAuthenticationForm, self).clean()
            except forms.ValidationError as exc:
                outcome["error"] = exc
                return None
            return self.get_user()

        attempt = devices.login_attempt(
            request=self.request, username=username, via=self.audit_via, check=check
        )
        if attempt.stepped_up:
            self.user_cache = None
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        if "error" in outcome:
            raise outcome["error"]
        user = self.get_user()
        if user is not None and self.audit_via != "form":
            # the product's LoginView audits its own success
            audit_record(actor=user, action="login.ok", obj=user, summary={"via": "admin"})
        cleaned: dict[str, Any] = outcome["cleaned"]
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
