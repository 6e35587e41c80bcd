"""A service's refusal (`DomainError`) shown on the form the person filled in."""

from __future__ import annotations

from django import forms

from core.errors import DomainError


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
