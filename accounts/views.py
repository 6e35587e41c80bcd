"""Login and logout pages (the only HTML pages open to anonymous users, with /healthz)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.http import HttpResponse
from django.urls import reverse_lazy
from django.utils.decorators import method_decorator

from accounts.forms import ThrottledAuthenticationForm
from core.audit import audit_record


@method_decorator(login_not_required, name="dispatch")
class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.get_user()
        audit_record(actor=user, action="login.ok", obj=user)
        return response


class LogoutView(auth_views.LogoutView):
    pass


class PasswordChangeView(auth_views.PasswordChangeView):
    """A user changes their own password (L9): Django's validators, the session kept, every
    API token revoked (accounts.signals), and an audit event."""

    template_name = "registration/password_change_form.html"
    success_url = reverse_lazy("accounts:password-change-done")

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.user  # the account whose password changed (the signed-in user)
        audit_record(actor=user, action="password.changed", obj=user)
        return response


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "registration/password_change_done.html"
