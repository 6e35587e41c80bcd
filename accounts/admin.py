from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import Provider, User


@admin.register(User)
class UserAdmin(BaseUserAdmin[User]):
    list_display = ("username", "email", "role", "provider", "is_active")
    list_filter = ("role", "provider", "is_active")
    fieldsets = (*(BaseUserAdmin.fieldsets or ()), ("Workbench", {"fields": ("role", "provider")}))


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin[Provider]):
    list_display = ("name", "kind", "website")
    prepopulated_fields = {"slug": ("name",)}
