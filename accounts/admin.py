"""Admin for people and providers.

The admin is for looking, not for changing: users and providers are read-only here;
roles, providers and activation change on the product's user page (/accounts/users/,
administrators only, accounts.services.users), where each change is audited.
Its login form is the product's throttled, audited one. API tokens are stored hashed and
the admin can only list (by prefix) and revoke them, never create one for someone else.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from knox.models import AuthToken

from accounts.forms import ThrottledAuthenticationForm
from accounts.models import Provider, User
from accounts.tokens import tokens_revoke
from core.admin import ReadOnlyAdmin


class ThrottledAdminAuthenticationForm(ThrottledAuthenticationForm, AdminAuthenticationForm):
    """The admin's login: staff only (AdminAuthenticationForm), counted and audited like the
    product's login (ThrottledAuthenticationForm), so it is no separate password oracle."""

    audit_via = "admin"


admin.site.login_form = ThrottledAdminAuthenticationForm


@admin.register(User)
class UserAdmin(ReadOnlyAdmin[User], BaseUserAdmin[User]):
    list_display = ("username", "email", "role", "provider", "is_active")
    list_filter = ("role", "provider", "is_active")
    fieldsets = (
        (None, {"fields": ("username",)}),
        ("Personal info", {"fields": ("first_name", "last_name", "email")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser")}),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
        ("Workbench", {"fields": ("role", "provider")}),
    )


@admin.register(Provider)
class ProviderAdmin(ReadOnlyAdmin[Provider]):
    list_display = ("name", "kind", "website")


admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class AuthTokenAdmin(ReadOnlyAdmin[AuthToken]):
    """Tokens by prefix only (the key is never stored); an administrator can revoke one, never
    create or read one (no acting as finance with their token)."""

    list_display = ("prefix", "user", "created", "expiry")
    list_select_related = ("user",)
    fields = ("prefix", "user", "created", "expiry")
    readonly_fields = fields
    search_fields = ("user__username",)

    @admin.display(description="Key prefix")
    def prefix(self, obj: AuthToken) -> str:
        return f"{obj.token_key[:8]}…"

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(getattr(request.user, "is_superuser", False))

    def delete_model(self, request: HttpRequest, obj: AuthToken) -> None:
        tokens_revoke(
            obj.user, actor=request.user, reason="revoked by an administrator", prefix=obj.token_key
        )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[AuthToken]) -> None:
        for token in queryset.select_related("user"):
            self.delete_model(request, token)
