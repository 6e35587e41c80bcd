"""Form plumbing shared by every app: a service's refusal on the form, typed field access."""

from __future__ import annotations

from typing import TypeVar

from django import forms

from core.errors import DomainError

F = TypeVar("F", bound=forms.Field)


def apply_domain_error(form: forms.BaseForm, exc: DomainError, *, summary: bool = False) -> None:
    """Each message on its field when the form has one; the rest on top of the form.

    Field names from the API's dotted spelling (`a.b`) match the form's `a_b`. The error's own
    message goes on top when no message could sit next to a field, or always with `summary`.
    """
    placed = False
    for name, messages in exc.fields.items():
        field = name.replace(".", "_")
        if field in form.fields:
            for message in messages:
                form.add_error(field, message)
            placed = True
        else:
            for message in messages:
                if message != exc.message:
                    form.add_error(None, f"{name.replace('_', ' ')}: {message}")
    if not placed or summary:
        form.add_error(None, exc.message)


def field_of(form: forms.BaseForm, name: str, kind: type[F]) -> F:
    """`form.fields[name]` as the field class it is declared with (so its own attributes,
    such as `choices` or `queryset`, can be set after construction)."""
    field = form.fields[name]
    if not isinstance(field, kind):
        raise TypeError(f"{type(form).__name__}.{name} is a {type(field).__name__}")
    return field
