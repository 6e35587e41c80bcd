"""Serializer fields shared by every app's API."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.roles import is_vendor

_M = TypeVar("_M", bound=models.Model)


class SlugLookupField(serializers.SlugRelatedField[_M]):
    """A slug reference; text PostgreSQL cannot search for (NUL bytes) is "does not exist"."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", ""))
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "nullable": True})
class PersonField(serializers.Field):  # type: ignore[type-arg]
    """Who entered or reviewed something: the username, except that a vendor reading a
    buyer's staff member sees "buyer": staff usernames help guess logins."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value: Any) -> str:
        request = self.context.get("request")
        viewer = getattr(request, "user", None)
        if is_vendor(viewer) and not is_vendor(value):
            return "buyer"
        return str(value.username)
