"""Login, logout, password change and reset (the only HTML pages open to anonymous users, with
/healthz, are the login and the four reset pages)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import login as auth_login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, SetPasswordForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render, resolve_url
from django.urls import reverse_lazy
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_http_methods

from accounts import services
from accounts.forms import ThrottledAuthenticationForm, ThrottledPasswordResetForm
from accounts.models import User
from accounts.services import devices
from core.audit import audit_record


@method_decorator(login_not_required, name="dispatch")
class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.get_user()
        audit_record(actor=user, action="login.ok", obj=user)
        return response


@login_not_required
@require_http_methods(["GET", "POST"])
def login_link(request: HttpRequest, token: str) -> HttpResponse:
    """The one-time sign-in link mailed past a login limit (C3): GET shows a button (a mail
    scanner following the link signs nobody in), POST signs in and remembers the browser."""
    user = devices.login_link_user(token)
    if request.method == "POST" and user is not None:
        auth_login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        services.login_succeeded(user=user, ip_address=services.client_ip(request))
        audit_record(actor=user, action="login.ok", obj=user, summary={"via": "link"})
        return HttpResponseRedirect(resolve_url(settings.LOGIN_REDIRECT_URL))
    status = 200 if user is not None else 400
    return render(
        request,
        "registration/login_link.html",
        {"valid": user is not None, "link_user": user},
        status=status,
    )


class PasswordChangeView(auth_views.PasswordChangeView):
    """A user changes their own password: Django's validators, the session kept, every
    API token revoked (accounts.signals), and an audit event."""

    success_url = reverse_lazy("accounts:password-change-done")

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.user  # the account whose password changed (the signed-in user)
        audit_record(actor=user, action="password.changed", obj=user)
        return response


@method_decorator(login_not_required, name="dispatch")
class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by e-mail. Known or not, every address gets the same page next
    (no account enumeration); requests are limited per address and per e-mail address, and
    the mail is sent by a worker after the response."""

    form_class = ThrottledPasswordResetForm
    success_url = reverse_lazy("accounts:password-reset-done")

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form: ThrottledPasswordResetForm) -> HttpResponse:  # type: ignore[override]
        # Not Django's form.save(): the mail goes from a worker, so the answer costs the same
        # for known and unknown addresses (no timing oracle).
        if form.reset_request is not None:
            services.password_reset_mail_later(
                request_id=form.reset_request.pk,
                domain=self.request.get_host(),
                use_https=self.request.is_secure(),
            )
        return HttpResponseRedirect(self.get_success_url())


@method_decorator(login_not_required, name="dispatch")
class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link from the e-mail: one use, valid `PASSWORD_RESET_TIMEOUT`; the new password
    ends every login session and revokes every API token (accounts.signals)."""

    success_url = reverse_lazy("accounts:password-reset-complete")

    def form_valid(self, form: SetPasswordForm[User]) -> HttpResponse:
        response = super().form_valid(form)
        audit_record(actor=form.user, action="password.reset", obj=form.user)
        return response
