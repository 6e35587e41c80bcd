"""Login and logout pages (the only HTML pages open to anonymous users, with /healthz)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.utils.decorators import method_decorator

from accounts.forms import ThrottledAuthenticationForm
from core.audit import audit_record


@method_decorator(login_not_required, name="dispatch")
class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form: ThrottledAuthenticationForm):  # type: ignore[no-untyped-def]
        response = super().form_valid(form)
        user = form.get_user()
        audit_record(actor=user, action="login.ok", obj=user)
        return response


class LogoutView(auth_views.LogoutView):
    pass
