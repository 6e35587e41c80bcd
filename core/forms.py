"""Form plumbing shared by every app."""

from __future__ import annotations

from typing import TypeVar

from django import forms

F = TypeVar("F", bound=forms.Field)


def field_of(form: forms.BaseForm, name: str, kind: type[F]) -> F:
    """`form.fields[name]` as the field class it is declared with (so its own attributes,
    such as `choices` or `queryset`, can be set after construction)."""
    field = form.fields[name]
    if not isinstance(field, kind):
        raise TypeError(f"{type(form).__name__}.{name} is a {type(field).__name__}")
    return field
