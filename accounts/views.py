"""Login and logout pages (the only HTML pages open to anonymous users, with /healthz)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpResponse
from django.utils.decorators import method_decorator

from accounts import services
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
        services.login_failures_clear(
            username=user.username, ip_address=self.request.META.get("REMOTE_ADDR")
        )
        audit_record(actor=user, action="login.ok", obj=user)
        return response


class LogoutView(auth_views.LogoutView):
    pass
