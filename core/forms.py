"""Form plumbing shared by every app: a service's refusal on the form, typed field access."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from django import forms
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.errors import DomainError

F = TypeVar("F", bound=forms.Field)
T = TypeVar("T")


def saved(
    request: HttpRequest,
    form: forms.BaseForm,
    save: Callable[[dict[str, Any]], T],
    *,
    summary: bool = False,
) -> T | None:
    """What `save` makes of a posted, valid form's data; None when nothing was posted, the form
    is invalid, or the service refused (its messages then sit on the form, `apply_domain_error`)."""
    if request.method != "POST" or not form.is_valid():
        return None
    try:
        return save(form.cleaned_data)
    except DomainError as exc:
        apply_domain_error(form, exc, summary=summary)
        return None


def form_status(request: HttpRequest) -> int:
    """A form page's status: 400 when a posted form is shown again (it was refused)."""
    return 400 if request.method == "POST" else 200


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


_SPACES = re.compile(r"[\s\u00a0\u202f']")
_GROUPED = re.compile(r"^[+-]?\d{1,3}(?:[.,]\d{3})+$")


def decimal_text(raw: str) -> str:
    """A typed number with `.` as its decimal point, or ValidationError when it is ambiguous.

    A decimal comma is read only where nothing else is possible (`2,29`, `1.234,56`); `1,234`
    could be 1234 or 1.234 and is refused with both readings named ("2,29" once became
    229 because the browser dropped the comma).
    """
    text = _SPACES.sub("", raw)
    if "," not in text:
        return text
    if "." in text:
        decimal_sep = "," if text.rfind(",") > text.rfind(".") else "."
        group_sep = "." if decimal_sep == "," else ","
        whole, _, fraction = text.rpartition(decimal_sep)
        if whole and not _GROUPED.match(whole) and group_sep in whole:
            raise forms.ValidationError(f"“{raw}” mixes separators; write it as 1234.56.")
        return f"{whole.replace(group_sep, '')}.{fraction}"
    if text.count(",") > 1:
        if _GROUPED.match(text):
            return text.replace(",", "")
        raise forms.ValidationError(f"“{raw}” is not a number; write it as 1234.56.")
    whole, fraction = text.split(",")
    if len(fraction) == 3 and whole.lstrip("+-").isdigit():
        raise forms.ValidationError(
            f"“{raw}” is ambiguous: write {whole}{fraction} or {whole}.{fraction} "
            "(a point for decimals)."
        )
    return f"{whole}.{fraction}"


class DecimalTextField(forms.DecimalField):
    """A decimal typed in a text box (`inputmode=decimal`): the browser never drops a comma,
    and an unambiguous decimal comma is read as a decimal point."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and value.strip():
            value = decimal_text(value)
        return super().to_python(value)


def use_decimal_text(form: forms.BaseForm) -> None:
    """Every DecimalField of the form becomes a DecimalTextField (same limits and labels)."""
    for name, field in list(form.fields.items()):
        if isinstance(field, forms.DecimalField) and not isinstance(field, DecimalTextField):
            field.__class__ = DecimalTextField
            widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})
            widget.is_required = field.required
            field.widget = widget
            form.fields[name] = field


class PlainSelect(forms.Select):
    """A <select> written in one pass, with the same markup as Django's template.

    Django renders every <option> through its own template include: on the quotes page the
    filter's two model menus were a quarter of the request's CPU time."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        groups = []
        for group_name, options, _ in widget["optgroups"]:
            written = format_html_join(
                "",
                '\n  <option value="{}"{}>{}</option>\n',
                ((str(o["value"]), _attrs(o["attrs"]), o["label"]) for o in options),
            )
            if group_name:
                written = format_html(
                    '\n  <optgroup label="{}">{}\n  </optgroup>', group_name, written
                )
            groups.append((written,))
        return format_html(
            '<select name="{}"{}>{}\n</select>',
            widget["name"],
            _attrs(widget["attrs"]),
            format_html_join("", "{}", groups),
        )


def _attrs(attrs: dict[str, Any]) -> SafeString:
    """Django's widgets/attrs.html: True as a bare name, False left out, the rest quoted."""
    return format_html_join(
        "",
        "{}",
        (
            (format_html(" {}", name) if value is True else format_html(' {}="{}"', name, value),)
            for name, value in attrs.items()
            if value is not False
        ),
    )
