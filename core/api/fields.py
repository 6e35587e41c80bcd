"""Serializer fields shared by every app's API."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import models
from rest_framework import serializers

_M = TypeVar("_M", bound=models.Model)


class SlugLookupField(serializers.SlugRelatedField[_M]):
    """A slug reference; text PostgreSQL cannot search for (NUL bytes) is "does not exist"."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", ""))
        return super().to_internal_value(data)
