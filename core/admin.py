from typing import TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from core.models import AuditEvent

_M = TypeVar("_M", bound=Model)


class ReadOnlyAdmin(admin.ModelAdmin[_M]):
    """Listing and viewing only: writes go through the services, versioned and audited."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin[AuditEvent]):
    """Read-only: the audit trail cannot be added to, edited or deleted through the admin."""

    list_display = ("created_at", "actor_name", "action", "object_type", "object_id", "outcome")
    list_filter = ("action", "object_type", "outcome")
    search_fields = ("actor_name", "object_repr", "object_id")
